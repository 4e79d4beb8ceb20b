"""The ``gops`` command line.

Exit codes (every command):
    0    success
    1    a check failed (a certificate or an audit found something wrong)
    2    bad input: wrong N, malformed cards, an unreadable file; a one-line message on
         stderr ("gops: error: ...").  Bare ``gops`` prints the help, the list of
         commands, on stderr with this code, as click does.
    130  interrupted (Ctrl-C): "gops: interrupted" on stderr, the shells' 128 + SIGINT
"""

from __future__ import annotations

import json
import re
import sys
import time
from functools import wraps

import click

from .cli_limits import check_n, objective_flag
from .errors import GopsError, GopsInputError
from .rules import parse_integer

EXIT_OK, EXIT_CHECK_FAILED, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130


def fail(message: str, code: int = EXIT_BAD_INPUT):
    click.echo(f"gops: error: {message}", err=True)
    sys.exit(code)


def one_line_errors(command):
    """Turn every error the user can provoke into one line on stderr and exit code 2."""

    @wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except GopsError as exc:
            fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        except BrokenPipeError:  # e.g. `gops table 13 | head`: the reader left
            sys.stderr.close()
            sys.exit(EXIT_OK)
        except MemoryError:
            fail("out of memory")
        except OSError as exc:
            fail(f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc))

    return wrapper


class ProgressBar:
    """A tqdm bar per level on stderr, shown only once a solve has taken 2 seconds.

    Only when stderr is a terminal: in logs and pipes the bar's redraws are noise, and
    output captured by scripts (JSON on stdout mixed with stderr) stays clean.
    """

    def __init__(self, enabled: bool = True, leave: bool = False):
        self.enabled = enabled and sys.stderr.isatty()
        self.leave = leave
        self.bar = None
        self.level = None

    def __call__(self, level, done):
        if not self.enabled:
            return
        from tqdm import tqdm

        from .float_dp import level_items

        if self.level is not level.k:
            self.close()
            self.level = level.k
            self.bar = tqdm(
                total=level_items(level), desc=f"level {level.k}/{level.n}", unit="item",
                unit_scale=True, delay=2, file=sys.stderr, leave=self.leave,
            )
        self.bar.update(done)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def solve_with_progress(n, arithmetic="float", top=None, quiet=False):
    from .solve import solve

    bar = ProgressBar(enabled=not quiet)
    try:
        return solve(n, arithmetic=arithmetic, progress=bar, top=top)
    finally:
        bar.close()


class WholeNumber(click.ParamType):
    """The click type of every integer on the command line (N, --n, --upcard, --lead,
    --chunk-items, --games, --seed): :func:`exact.rules.parse_integer`, the parser of the
    cards too, so each accepts ASCII digits with an optional '-' and nothing else."""

    name = "integer"

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            return value  # a default
        try:
            return parse_integer(value)
        except GopsInputError as exc:
            self.fail(str(exc), param, ctx)


INTEGER = WholeNumber()


def card_list(ctx, param, value):
    """click callback: parse "2,4" into (2, 4) or exit 2 with one line."""
    if value is None:
        return None
    from .rules import parse_cards

    try:
        return parse_cards(value)
    except GopsInputError as exc:
        raise click.BadParameter(str(exc)) from None


_NEGATIVE_NUMBER = re.compile(r"-[0-9]+")


def negative_numbers_as_arguments(command: click.Command, args: list[str]) -> list[str]:
    """``args`` with every negative number that is not an option's value moved, in order
    with the other arguments, behind a "--": click would take "-1" for an option.

    >>> cmd = click.Command("t", params=[click.Argument(["n"]), click.Option(["--lead"])])
    >>> negative_numbers_as_arguments(cmd, ["--lead", "-2", "-1"])
    ['--lead', '-2', '--', '-1']
    """
    if not any(_NEGATIVE_NUMBER.fullmatch(a) for a in args):
        return args
    takes_value = {name for p in command.params if isinstance(p, click.Option)
                   and not p.is_flag and not p.count for name in p.opts}
    options, arguments = [], []
    rest = iter(args)
    for a in rest:
        if a == "--":
            arguments.extend(rest)
        elif _NEGATIVE_NUMBER.fullmatch(a) or not a.startswith("-") or a == "-":
            arguments.append(a)
        else:
            options.append(a)
            value = next(rest, None) if a in takes_value else None
            if value is not None:  # the option's value, negative or not
                options.append(value)
    return options + ["--"] + arguments


class NumberArgumentsCommand(click.Command):
    """A command whose N may be negative on the command line: ``gops table -1`` is a bad N
    (reported with the command's limit), not "No such option '-1'"."""

    def parse_args(self, ctx, args):
        return super().parse_args(ctx, negative_numbers_as_arguments(self, args))


class OneLineErrorGroup(click.Group):
    """A click group whose usage errors are one line on stderr (exit 2), like ours."""

    command_class = NumberArgumentsCommand

    def main(self, args=None, prog_name=None, **kwargs):
        try:
            return super().main(args, prog_name or "gops", standalone_mode=False, **kwargs)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.exceptions.Abort as exc:
            if isinstance(exc.__cause__, EOFError):
                fail("unexpected end of input")
            click.echo("gops: interrupted", err=True)  # Ctrl-C
            sys.exit(EXIT_INTERRUPTED)
        except click.exceptions.NoArgsIsHelpError as exc:  # bare `gops`: the command list
            click.echo(exc.format_message(), err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            fail(exc.format_message().splitlines()[0], exc.exit_code)


@click.group(cls=OneLineErrorGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gops-exact")
def main():
    """Solve the Game of Pure Strategy (GOPS, Goofspiel) exactly, fast, and with proof."""


def objective_options(command):
    """--objective points|win and --lead L (win only; exit 2 otherwise): exact/cli_objectives.py."""
    command = click.option(
        "--lead", type=INTEGER, default=None,
        help="My points minus theirs so far, a head start included (--objective win only; "
             "default 0; at most N(N+1)/2 either way).")(command)
    return click.option("--objective", type=click.Choice(["points", "win"]), default="points",
                        show_default=True,
                        help="Maximise the expected point difference or P(win) - P(loss).")(command)


@main.command()
@click.argument("n", type=INTEGER)
@click.option("--store", "store_dir", type=click.Path(file_okay=False), default=None,
              help="Keep the solution in DIR (checkpointed per chunk; rerun to resume).")
@click.option("--chunk-items", type=INTEGER, default=None,
              help="Items per checkpoint with --store (default 1,048,576).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@objective_options
@one_line_errors
def solve(n, store_dir, chunk_items, quiet, objective, lead):
    """Solve N-card GOPS (floating point) and print a summary."""
    from .float_dp import warm_up
    from .solve import check_options

    check_n(n, "solve", objective_flag(objective))
    if objective != "points" or lead is not None:
        from .cli_objectives import solve_win

        return solve_win(n, objective, lead, store_dir, chunk_items, quiet)
    check_options(n, "points", "float")
    if chunk_items is not None and chunk_items < 1:
        raise GopsInputError(f"--chunk-items must be at least 1, got {chunk_items}")
    jit = warm_up()
    if store_dir is None:
        sol = solve_with_progress(n, quiet=quiet)
        st = sol.stats
    else:
        sol, st = solve_store_with_progress(n, store_dir, chunk_items, quiet)
    click.echo(f"N={n} objective=points arithmetic=float")
    if store_dir is not None:
        click.echo(f"store: {store_dir} (complete; `exact.load` or --store reads it)")
    click.echo(f"canonical subgames: {st.subgames:,}")
    click.echo(f"matrix games solved: {st.matrix_games:,} (antisymmetric halves skipped)")
    click.echo(f"time: {st.seconds:.2f} s (plus {jit:.2f} s JIT load/compile)")
    click.echo(f"peak memory: {st.peak_memory_bytes / 2**20:.0f} MiB")
    root = set(range(1, n + 1))
    click.echo(f"value at the start: {sol.value(root, root, root):+.3e} (0 by symmetry)")


def solve_store_with_progress(n, store_dir, chunk_items, quiet):
    """Solve into (or resume) a store; returns the loaded Solution and its SolveStats."""
    from .solve import points_stats
    from .store import load, solve_into_store

    bar = ProgressBar(enabled=not quiet, leave=True)
    t0 = time.perf_counter()
    try:
        solve_into_store(n, store_dir, progress=bar, chunk_items=chunk_items,
                         on_repair=report_repair)
    finally:
        bar.close()
    sol = load(store_dir, n=n)
    return sol, points_stats(sol.levels, t0)


def report_repair(k, what):
    """A completed level found damaged on resume: say what, on stderr, before redoing it."""
    click.echo(f"gops: level {k}: {what}; recomputing it", err=True)


def load_or_solve(n, store_dir, quiet, top=None):
    """The float Solution of N-card GOPS: from a store when given, else solved now."""
    if store_dir is None:
        return solve_with_progress(n, top=top, quiet=quiet)
    from .store import load

    return load(store_dir, n=n)


def format_table(n: int, table: dict, digits: int = 4) -> str:
    """The paper's layout: one row per bid, one column per upcard (``table[u][bid]``)."""
    width = digits + 3
    upcards = sorted(table)
    lines = ["bid\\up " + "".join(f"{u:>{width}}" for u in upcards)]
    for bid in sorted(table[upcards[0]]):
        cells = []
        for u in upcards:
            p = float(table[u][bid])
            cells.append(f"{'0':>{width}}" if p == 0 else f"{p:>{width}.{digits}f}")
        lines.append(f"{bid:>6} " + "".join(cells))
    return "\n".join(lines)


@main.command()
@click.argument("n", type=INTEGER)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of the table.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--store", "store_dir", type=click.Path(file_okay=False), default=None,
              help="Read the solution from a store made by `gops solve N --store DIR`.")
@click.option("--ranges", "with_ranges", is_flag=True,
              help="Also each entry's range over ALL optimal strategies (exact for N <= 7).")
@objective_options
@one_line_errors
def table(n, as_json, quiet, store_dir, with_ranges, objective, lead):
    """The first-move table of N-card GOPS (rows = bids, columns = upcards)."""
    from .solve import check_options

    check_n(n, "table", objective_flag(objective))
    if objective != "points" or lead is not None:
        from .cli_objectives import table_win

        return table_win(n, objective, lead, as_json, quiet, store_dir, with_ranges)
    check_options(n, "points", "float")
    sol = load_or_solve(n, store_dir, quiet)
    root = set(range(1, n + 1))
    strategies = {u: sol.strategy(root, root, root, u) for u in range(1, n + 1)}
    table = {u: s.mine for u, s in strategies.items()}
    gap = max(s.gap for s in strategies.values())
    if with_ranges:
        from .ranges import first_move_ranges, format_ranges, ranges_json
        from .solve import MAX_N

        exact_ = n <= MAX_N["rational"]
        ranges = first_move_ranges(
            solve_with_progress(n, arithmetic="rational", quiet=quiet) if exact_ else sol)
    if as_json:
        out = {
            "n": n,
            "objective": "points",
            "by_upcard": {str(u): [table[u][b] for b in range(1, n + 1)] for u in table},
            "equilibrium_gap": gap,
        }
        if with_ranges:
            out["ranges"] = ranges_json(ranges)
        click.echo(json.dumps(out))
        return
    click.echo(f"First move of {n}-card GOPS, points objective: P(bid | upcard)")
    click.echo(format_table(n, table))
    click.echo(
        f"float64; each column is an equilibrium of its matrix game up to a checked gap of {gap:.1e}"
    )
    if with_ranges:
        click.echo(format_ranges(n, ranges, exact_))


@main.command()
@click.option("--mine", required=True, callback=card_list, help="My hand, e.g. 2,4.")
@click.option("--theirs", required=True, callback=card_list, help="Their hand, e.g. 1,3.")
@click.option("--deck", required=True, callback=card_list, help="Prizes left, upcard included.")
@click.option("--upcard", required=True, type=INTEGER, help="The prize turned up.")
@click.option("--n", "n", type=INTEGER, default=None, help="Cards per suit (default: largest card seen).")
@click.option("--exact", "exact_", is_flag=True, help="Exact rational equilibrium (hands of at most 8 cards).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (exact numbers as \"p/q\" strings).")
@click.option("--store", "store_dir", type=click.Path(file_okay=False), default=None,
              help="Read the values from a store (its N is the game's N).")
@objective_options
@one_line_errors
def strategy(mine, theirs, deck, upcard, n, exact_, as_json, store_dir, objective, lead):
    """The equilibrium at any position once the upcard is turned."""
    from .rules import validate_position
    from .solve import check_options

    if objective != "points" or lead is not None:
        from .cli_objectives import strategy_win

        return strategy_win(mine, theirs, deck, upcard, n, exact_, as_json, store_dir,
                            objective, lead)
    arithmetic = "rational" if exact_ else "float"
    if store_dir is not None:
        if exact_:
            raise GopsInputError("--exact and --store exclude each other (stores hold floats)")
        from .store import read_manifest

        n = read_manifest(store_dir)["n"] if n is None else n
    if n is not None:
        check_n(n, "strategy")
    m, t, d = validate_position(mine, theirs, deck, upcard, n=n)
    n = check_n(n or max(m | t | d), "strategy")
    # The equilibrium after the upcard needs only the subgames one card smaller.
    top = len(d) - 1
    check_options(n, "points", arithmetic, top)
    if exact_:
        sol = solve_with_progress(n, arithmetic=arithmetic, top=top)
    else:
        sol = load_or_solve(n, store_dir, quiet=False, top=top)
    st = sol.strategy(m, t, d, upcard)
    print_strategy(st, exact_, as_json, f"upcard {upcard}", "expected point difference")


def print_strategy(st, exact_: bool, as_json: bool, where: str, units: str, json_head=None):
    """Print an equilibrium (gops strategy): text, or JSON with exact numbers as "p/q"."""
    from .render import fraction_text

    show = fraction_text if exact_ else float
    if as_json:
        out = dict(json_head or {})
        out["value"] = show(st.value)
        out["mine"] = {str(c): show(p) for c, p in st.mine.items()}
        out["theirs"] = {str(c): show(p) for c, p in st.theirs.items()}
        if not exact_:
            out["equilibrium_gap"] = st.gap
        click.echo(json.dumps(out))
        return
    fmt = fraction_text if exact_ else (lambda p: f"{p:.6f}")
    click.echo(f"{where}: value {fmt(st.value)} ({units}, this round included)")
    click.echo("my mix:    " + "  ".join(f"{c}: {fmt(p)}" for c, p in st.mine.items()))
    click.echo("their mix: " + "  ".join(f"{c}: {fmt(p)}" for c, p in st.theirs.items()))
    if exact_:
        click.echo("exact; verified: each mix guarantees the value against every pure reply")
    else:
        click.echo(f"float64; checked equilibrium gap {st.gap:.1e}")


@main.command()
@click.argument("n", type=INTEGER)
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False),
              help="Certificate file to write (atomically).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--objective", type=click.Choice(["points", "win"]), default="points",
              show_default=True, help="What the certified values are (FORMAT.md).")
@one_line_errors
def certify(n, output, quiet, objective):
    """Solve N-card GOPS exactly and write its LP-duality certificate (N <= 7)."""
    from .certificate_writer import certify as write

    check_n(n, "certify", objective_flag(objective))
    bar = ProgressBar(enabled=not quiet)
    try:
        sol = write(n, output, objective, progress=bar)
    finally:
        bar.close()
    st = sol.stats
    click.echo(f"wrote {output}: N={n}, {st.extra['records']:,} records, "
               f"{st.extra['certificate_bytes']:,} bytes, {st.seconds:.2f} s")
    paths = st.extra["paths"]
    saddle = f"{paths['saddle']:,} pure saddle points, " if "saddle" in paths else ""
    click.echo(f"exact matrix games: {saddle}{paths.get('basis', 0):,} from the float basis "
               f"guess, {paths.get('simplex', 0):,} by the exact simplex fallback")


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--quiet", is_flag=True, help="No progress on stderr.")
def check(file, quiet):
    """Verify a certificate with the independent checker (exit 0 valid, 1 invalid, 2 unreadable).

    The verdict ("valid: ..." or "invalid: ...") is printed on stdout; an unreadable file
    is an error on stderr, like every other command's.  Progress goes to stderr, one line
    per verified level, unless --quiet.
    """
    from certificates import check as check_certificate

    verdict = check_certificate(file, None if quiet else level_printer())
    if verdict.code == EXIT_BAD_INPUT:
        fail(verdict.message.splitlines()[0])
    click.echo(verdict.message)
    sys.exit(verdict.code)


def level_printer():
    """The checker's progress callback: one line per verified level on stderr."""
    start = time.perf_counter()

    def report(k: int, n: int, records: int) -> None:
        click.echo(f"level {k}/{n}: {records:,} records verified "
                   f"({time.perf_counter() - start:.1f} s)", err=True)

    return report


@main.command()
@click.option("-o", "--output", "output", default="gops-5.cert", show_default=True,
              type=click.Path(dir_okay=False), help="Where to write the N=5 certificate.")
@click.option("--force", is_flag=True, help="Overwrite the certificate file if it exists.")
@one_line_errors
def reproduce(output, force):
    """Reproduce Rhoads & Bartholdi 2012, Table 1, exactly: solve, certify and check N=5."""
    import os

    from certificates import check as check_certificate

    from .certificate_writer import certify as write

    if os.path.lexists(output) and not force:
        raise GopsInputError(f"{output} exists; pass --force to overwrite it, or -o FILE to "
                             "write the certificate elsewhere")
    t0 = time.perf_counter()
    sol = write(5, output)
    click.echo(f"solved 5-card GOPS exactly and wrote its certificate {output} "
               f"({sol.stats.extra['certificate_bytes']:,} bytes, {sol.stats.seconds:.2f} s)")
    verdict = check_certificate(output)
    click.echo(f"independent checker: {verdict.message}")
    if not verdict.ok:
        sys.exit(EXIT_CHECK_FAILED)
    table = sol.first_move_table()
    click.echo("\nTable 1 (first move, N = 5), from the exact certified equilibrium:")
    click.echo(format_table(5, table))
    entry = table[1][1]
    click.echo("\nThe paper's 0.0470 (upcard 1, bid 1) is exactly p/q with")
    click.echo(f"p = {entry.numerator}")
    click.echo(f"q = {entry.denominator}")
    click.echo(f"({len(str(entry.numerator))} and {len(str(entry.denominator))} digits; "
               f"p/q = {float(entry):.10f})")
    click.echo(f"total {time.perf_counter() - t0:.1f} s")


@main.command()
@click.argument("n", type=INTEGER)
@one_line_errors
def count(n):
    """Number of canonical subgames per level of N-card GOPS."""
    from .encoding import count_table

    rows = count_table(check_n(n, "count"))
    click.echo(f"{'k':>3} {'patterns':>10} {'prize sets':>11} {'subgames':>14} {'matrix games':>14}")
    for r in rows:
        click.echo(
            f"{r['k']:>3} {r['patterns']:>10,} {r['prize_sets']:>11,} "
            f"{r['subgames']:>14,} {r['matrix_games']:>14,}"
        )
    click.echo(
        f"{'all':>3} {'':>10} {'':>11} {sum(r['subgames'] for r in rows):>14,} "
        f"{sum(r['matrix_games'] for r in rows):>14,}"
    )


from . import cli_audit  # noqa: E402,F401  (registers audit)

from . import cli_play  # noqa: E402,F401  (registers play/tournament/evaluate)
from . import cli_objectives  # noqa: E402,F401  (registers compare-objectives)
from . import cli_variants  # noqa: E402,F401  (registers variant)

if __name__ == "__main__":
    # `python -m exact.cli`: this file runs as __main__, but the other commands register
    # themselves on the group of the module exact.cli; run that one.
    from exact.cli import main as gops

    gops()
