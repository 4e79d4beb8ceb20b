"""``gops solve|table|strategy --players 3``: three-player GOPS solved, its NashConv certified.

The three-player family's commands (:data:`solve_three`, :data:`table_three`,
:data:`strategy_three`), reached by ``gops solve|table|strategy --players 3``
(:mod:`exact.cli.families` parses --players and hands them the rest of the command
line).  Every three-player answer states the proven NashConv bound of the solution it
comes from, and fails (exit 2, after the answer) when it is not below :data:`EPSILON`.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction
from pathlib import Path

import click

from exact.atomic import atomic_file, output_kind
from exact.cli.common import (
    INTEGER,
    NumberArgumentsCommand,
    card_list,
    one_line_errors,
    tie_rule_option,
    utc_now,
)
from exact.cli.families import THREE, settings
from exact.cli.progress import count_progress, walk_progress
from exact.errors import GopsInputError, SolverError
from exact.game.rules import parse_cards
from exact.three import ThreeSolution, certify, solve
from exact.three.cache import cache_file
from exact.three.checkpoint import side_file, solve_checkpointed
from exact.three.openspiel import policy_json
from exact.three.rules import OBJECTIVES, ORDERS, ThreeGame
from exact.three.saved import save
from exact.three.tables import FirstMoveTable, ThreeStrategy, check_position, first_move_table
from exact.three.tables import strategy as three_strategy
from exact.three.verify import CERTIFIED_BELOW

#: The NashConv every reported three-player equilibrium is proven below.
EPSILON = CERTIFIED_BELOW
#: Seconds between two progress lines of a solve whose stderr is not a terminal.
PROGRESS_SECONDS = 60.0


def game_options(command):
    """The options every three-player command takes: the tie rule, the objective, the
    prize order, --json and --quiet."""
    for option in reversed(
        [
            tie_rule_option(),
            click.option(
                "--objective",
                type=click.Choice(OBJECTIVES),
                default="points",
                show_default=True,
                help="points: each player's expected points; top: the chance of finishing "
                "on top (a tie at the top shares the win equally).",
            ),
            click.option("--order", type=click.Choice(ORDERS), default="random", show_default=True),
            click.option("--json", "as_json", is_flag=True, help="Print JSON."),
            click.option(
                "--quiet",
                is_flag=True,
                help="No progress (a count of stage games on a terminal, a line a minute "
                "in a log).",
            ),
        ]
    ):
        command = option(command)
    return command


@click.command("solve", cls=NumberArgumentsCommand, **settings("solve", THREE))
@click.argument("n", type=INTEGER)
@game_options
@click.option(
    "--policy-out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the equilibrium as an OpenSpiel policy (JSON; --tie-rule discard; - for "
    "stdout, the report then on stderr).",
)
@click.option(
    "--save",
    "save_to",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[FILE]",
    help="Write the solution to FILE once certified (every stage game's mixes, the game, "
    "the proven NashConv, a SHA-256; checked on load, re-proved by gops verify FILE); "
    "without FILE, into the cache folder ($GOPS_CACHE/three, else "
    "$XDG_CACHE_HOME/gops/three or ~/.cache/gops/three), where gops play and gops serve "
    "find it.  The solve keeps its stage games in FILE.partial: run it again to resume.",
)
@one_line_errors
def solve_three(n, tie_rule, objective, order, as_json, quiet, policy_out, save_to) -> None:
    """Solve N-card three-player GOPS: the logit-limit subgame-perfect equilibrium, with
    its NashConv in the whole game proven below 1e-9."""
    game = ThreeGame.parse(n, tie_rule, objective, order)
    # The policy may take standard output (--policy-out -): the report then goes to
    # stderr, so that stdout carries one JSON document.  A folder or a FIFO is refused here,
    # before the solve.
    on_stdout = policy_out is not None and output_kind(policy_out) == "stdout"
    save_path = None if save_to is None else _save_path(game, save_to)
    sol = solve_with_progress(game, quiet, save_path)
    if policy_out is not None:
        table = policy_json(sol)
        with atomic_file(policy_out, "w") as fh:
            json.dump(table, fh)
            if on_stdout:
                fh.write("\n")
    with walk_progress(_words(game), quiet, PROGRESS_SECONDS) as told:
        report = certify(sol, told)
    out = summary_json(sol, report)
    if save_path is not None and report.bound <= EPSILON:
        out["saved"] = {"file": str(save_path), "sha256": save(sol, report, save_path)}
        side_file(save_path).unlink(missing_ok=True)
    if as_json:
        click.echo(json.dumps(out), err=on_stdout)
    else:
        print_summary(sol, out, on_stdout)
        if "saved" in out:
            click.echo(f"saved to {save_path} (SHA-256 {out['saved']['sha256'][:16]}...)")
    _fail_unless_certified(report)  # shown above, then said as a failure (exit 2)


def _save_path(game: ThreeGame, save_to: str) -> Path:
    """Where --save writes: FILE, or the game's file in the cache folder (made here).
    Refused before the solve: standard output, a folder, a FIFO (exact.atomic)."""
    if not save_to:
        path = cache_file(game)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise GopsInputError(
                f"cannot make the cache folder {path.parent}: {exc.strerror or exc} "
                "(set GOPS_CACHE, or give --save a FILE)"
            ) from None
    else:
        path = Path(save_to)
    if output_kind(path) in ("stdout", "direct"):
        raise GopsInputError(f"--save writes a file, not {save_to}")
    return path


def solve_with_progress(game: ThreeGame, quiet: bool, save_path: Path | None = None):
    """``game`` solved, with progress unless ``quiet``: on a terminal a bar (after 2 s)
    of the stage games solved, with their total and the time left where the total is
    known (:attr:`ThreeGame.stage_games`), else a line on stderr every PROGRESS_SECONDS
    (the time of day, the count, of the total, the seconds so far and to go; a short
    solve prints nothing).  With ``save_path`` the solve keeps its stage games in the
    side file and resumes from it (:mod:`exact.three.checkpoint`), saying so."""
    total = game.stage_games
    fresh = time.monotonic()
    # Stage games read from a checkpoint: the first ``first`` the walk passes (it meets
    # them in the order they were solved); the rate counts the stage games after them.
    first = 0

    def line(done: int, seconds: float) -> str:
        words = _done_words(done, total, first, seconds, time.monotonic() - fresh)
        return f"gops: {_words(game)} at {utc_now():%Y-%m-%d %H:%M} UTC: {words}"

    def resumed(k: int) -> None:
        nonlocal first
        first = k
        of = f" of {total:,}" if total else ""
        click.echo(
            f"gops: resuming: {k:,}{of} stage games from the checkpoint {side_file(save_path)}",
            err=True,
        )

    desc = f"three players N={game.n} {game.tie_rule.name}"
    with count_progress(desc, " stage games", quiet, PROGRESS_SECONDS, line, total) as told:

        def progress(done: int) -> None:
            nonlocal fresh
            if done == first:
                fresh = time.monotonic()
            told(done)

        if save_path is None:
            return solve(game.n, game.tie_rule, game.objective, game.order, progress)
        return solve_checkpointed(game, save_path, progress, resumed)


def _words(game: ThreeGame) -> str:
    """ "three players N=6 split top": the game in a progress line."""
    return f"three players N={game.n} {game.tie_rule.name} {game.objective.name}"


def _done_words(
    done: int, total: int | None, first: int, seconds: float, fresh: float | None = None
) -> str:
    """ "1,234 stage games solved (of 6,255) in 60 s, about 244 s to go" (no total: no
    time to go); the rate counts the stage games after the ``first`` read from a
    checkpoint, solved in the last ``fresh`` seconds (default: ``seconds``).

    >>> _done_words(1234, 6255, 0, 60.0)
    '1,234 stage games solved (of 6,255) in 60 s, about 244 s to go'
    >>> _done_words(1234, 6255, 1000, 60.0, 20.0)
    '1,234 stage games solved (of 6,255) in 60 s, about 429 s to go'
    """
    of = f" (of {total:,})" if total else ""
    words = f"{done:,} stage games solved{of} in {seconds:.0f} s"
    fresh = seconds if fresh is None else fresh
    if total and done > first and fresh > 0:
        words += f", about {(total - done) * fresh / (done - first):,.0f} s to go"
    return words


def first_move(sol: ThreeSolution) -> dict[str, dict[str, float]]:
    """{upcard: {bid: probability}} at the start (the three seats play alike)."""
    n = sol.game.n
    hand = tuple(range(1, n + 1))
    out = {}
    for u in sol.game.order.next_prizes(hand):
        mix = sol.mixes((hand, hand, hand), hand, (0, 0, 0), u)[0]
        out[str(u)] = {str(c): float(p) for c, p in zip(hand, mix)}
    return out


def summary_json(sol: ThreeSolution, report) -> dict:
    return {
        "game": sol.game.to_json(),
        "seat_values": [float(v) for v in sol.seat_values()],
        "nashconv": {
            "bound": report.bound,
            "estimate": report.estimate,
            "epsilon": EPSILON,
            "certified": report.bound <= EPSILON,
            "rounding_factors": report.depth,
            "positions": report.positions,
        },
        "max_stage_regret": sol.max_stage_regret,
        "first_move": first_move(sol),
        "canonical_positions": sum(sol.level_counts().values()),
        "stage_games": dict(sorted(sol.methods.items())),
        "seconds": round(sol.seconds, 3),
    }


def print_summary(sol: ThreeSolution, out: dict, err: bool = False) -> None:
    """The summary of a solve, on stdout (stderr with ``err``)."""

    def echo(line: str) -> None:
        click.echo(line, err=err)

    what = sol.game.value_words
    echo(sol.game.describe())
    echo(f"each seat's {what}: " + ", ".join(f"{v:.6f}" for v in out["seat_values"]))
    nc = out["nashconv"]
    verdict = "below" if nc["certified"] else "NOT below"
    echo(f"NashConv in the whole game <= {nc['bound']:.3g} (proven; {verdict} epsilon {EPSILON:g})")
    echo(
        f"canonical positions {out['canonical_positions']:,}, stage games "
        + ", ".join(f"{m} {c:,}" for m, c in out["stage_games"].items())
    )
    hand = range(1, sol.game.n + 1)
    echo("first move, P(bid) for each upcard:")
    echo("upcard " + "".join(f"{b:>7}" for b in hand))
    for u, mix in out["first_move"].items():
        echo(f"{u:>6} " + "".join(f"{mix[str(b)]:7.3f}" for b in hand))


def _fail_unless_certified(report) -> None:
    """After an answer is shown: exit 2 when its solution's bound is not below EPSILON."""
    if report.bound > EPSILON:
        raise SolverError(f"the proven NashConv bound {report.bound:.3g} is not below {EPSILON:g}")


def _nashconv_line(report) -> str:
    verdict = "below" if report.bound <= EPSILON else "NOT below"
    return (
        f"NashConv of this equilibrium in the whole game <= {report.bound:.3g} "
        f"(proven; {verdict} epsilon {EPSILON:g})"
    )


def _what(sol: ThreeSolution) -> str:
    return sol.game.value_words


@click.command("table", cls=NumberArgumentsCommand, **settings("table", THREE))
@click.argument("n", type=INTEGER)
@game_options
@one_line_errors
def table_three(n, tie_rule, objective, order, as_json, quiet) -> None:
    """The first-move table of N-card three-player GOPS (rows = bids, columns = upcards;
    the three seats mix alike), each seat's value, and the proven NashConv of the
    equilibrium it comes from."""
    sol = solve_with_progress(ThreeGame.parse(n, tie_rule, objective, order), quiet)
    fm = first_move_table(sol, certify(sol))
    if as_json:
        click.echo(json.dumps(fm.to_json(EPSILON)))
    else:
        print_table(fm)
    _fail_unless_certified(fm.report)


def print_table(fm: FirstMoveTable) -> None:
    sol = fm.solution
    click.echo(sol.game.describe())
    click.echo("first move, P(bid | upcard), every seat alike:")
    ups = list(fm.table)
    click.echo("bid\\up" + "".join(f"{u:>8}" for u in ups))
    for b in range(1, sol.game.n + 1):
        click.echo(f"{b:>6} " + "".join(f"{fm.table[u][b]:8.4f}" for u in ups))
    click.echo(f"each seat's {_what(sol)} once the upcard is turned:")
    for seat in range(3):
        click.echo(f"seat {seat} " + "".join(f"{fm.upcard_values[u][seat]:8.4f}" for u in ups))
    click.echo(
        f"each seat's {_what(sol)} at the start: " + ", ".join(f"{v:.6f}" for v in fm.seat_values)
    )
    click.echo(_nashconv_line(fm.report))


def _three_hands(ctx, param, value):
    """click callback: three card lists, "2,4 1,3 3,4", or exit 2 with one line."""
    if any(v.startswith("-") for v in value):
        raise click.BadParameter("three card lists, one per seat, e.g. --hands 2,4 1,3 3,4")
    try:
        return tuple(parse_cards(v) for v in value)
    except GopsInputError as exc:
        raise click.BadParameter(str(exc)) from None


def _points(ctx, param, value):
    """click callback: "0,1.5,2" (or 3/2) into three Fractions, or exit 2 with one line."""
    if value is None:
        return None
    try:
        return tuple(Fraction(t) for t in value.split(","))
    except (ValueError, ZeroDivisionError):
        raise click.BadParameter(f"{value!r} is not three numbers such as 0,1.5,2") from None


@click.command("strategy", cls=NumberArgumentsCommand, **settings("strategy", THREE))
@game_options
@click.option(
    "--hands",
    nargs=3,
    required=True,
    callback=_three_hands,
    help="The three hands, seats 0 1 2, e.g. --hands 2,4 1,3 3,4.",
)
@click.option("--deck", required=True, callback=card_list, help="Prizes left, upcard included.")
@click.option("--upcard", required=True, type=INTEGER, help="The prize turned up.")
@click.option(
    "--points",
    default=None,
    callback=_points,
    help="The points so far of seats 0 1 2, e.g. 0,1.5,2 (--objective top only).",
)
@click.option(
    "--n", "n", type=INTEGER, default=None, help="Cards per suit (default: largest card seen)."
)
@one_line_errors
def strategy_three(tie_rule, objective, order, as_json, quiet, hands, deck, upcard, points, n):
    """The equilibrium mixes of all three players at any position once the upcard is
    turned, from the N-card three-player equilibrium (the whole game is solved first)."""
    if n is None:
        n = max([upcard, *deck, *(c for h in hands for c in h)])
    game = ThreeGame.parse(n, tie_rule, objective, order)
    if points is not None and not game.top:
        raise GopsInputError("--points applies to --objective top only")
    check_position(game, hands, deck, upcard, points)  # before the solve
    sol = solve_with_progress(game, quiet)
    st = three_strategy(sol, hands, deck, upcard, points, report=certify(sol))
    if as_json:
        click.echo(json.dumps(st.to_json(EPSILON)))
    else:
        print_strategy(st)
    _fail_unless_certified(st.report)


def print_strategy(st: ThreeStrategy) -> None:
    sol = st.solution
    click.echo(sol.game.describe())
    at = f"upcard {st.upcard}, prizes left {{{','.join(str(p) for p in st.prizes)}}}"
    if sol.game.top:
        at += ", points so far " + ", ".join(str(p) for p in st.points)
    click.echo(at)
    for seat in range(3):
        mix = "  ".join(f"{c}: {p:.6f}" for c, p in st.mixes[seat].items())
        click.echo(f"seat {seat}: {mix}   value {st.values[seat]:.6f}")
    click.echo(
        f"value: the seat's {_what(sol)}"
        + (" from here, this round included" if not sol.game.top else "")
    )
    click.echo(f"stage regret {st.stage_regret:.1e} (float)")
    click.echo(_nashconv_line(st.report))
