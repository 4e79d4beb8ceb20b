"""gops solve, table, strategy and count: the game solved, its first move, any position."""

from __future__ import annotations

import json
import time

import click

from exact.analysis.certified import certify_strategy
from exact.analysis.ranges import first_move_ranges, format_ranges, ranges_json
from exact.cli.common import (
    INTEGER,
    NumberArgumentsCommand,
    card_list,
    certified_columns,
    check_device,
    device_option,
    format_table,
    game_options,
    load_or_solve,
    objective_options,
    print_certified_table,
    print_strategy,
    solve_with_progress,
)
from exact.cli.families import TWO, settings
from exact.cli.limits import check_command_n, objective_flag
from exact.cli.progress import ProgressBar, ProgressLines
from exact.dp.cluster import parse_cluster, solve_on_cluster
from exact.dp.device import CPU, Device
from exact.dp.objective import objective_of
from exact.dp.preflight import check_fits, estimate, format_duration, level_work, work_left
from exact.dp.solve import SolveStats, check_limits, peak_memory_bytes, solve_limit
from exact.dp.store import Store, resume_words
from exact.dp.verify import check_position
from exact.errors import GopsInputError
from exact.game.objectives import RATIONAL
from exact.game.orders import RANDOM
from exact.game.rules import validate_position
from exact.game.spec import GameSpec
from exact.views import table_json

#: gops table's and gops strategy's --certified.
CERTIFIED = click.option(
    "--certified",
    is_flag=True,
    help="Prove each equilibrium: an interval for every exact probability (or why not).",
)
#: gops table's and gops strategy's --rederive.
REDERIVE = click.option(
    "--rederive",
    is_flag=True,
    help="With --store: first re-derive every level below the one read (gops verify's "
    "proof, here), so that no claim rests on the store's word (refused for a store made "
    "with --keep-from: its lowest level cannot be re-derived).",
)


def _solve_n(options: dict) -> int:
    """gops solve's checks of its flags, then its N (the limit depends on --objective and
    --store)."""
    store_dir = options["store_dir"]
    if options["cluster"] is not None and store_dir is None:
        raise GopsInputError("--cluster needs --store DIR (the workers share the store)")
    chunk_items = options["chunk_items"]
    if chunk_items is not None and chunk_items < 1:
        raise GopsInputError(f"--chunk-items must be at least 1, got {chunk_items}")
    if chunk_items is not None and store_dir is None:
        raise GopsInputError("--chunk-items applies to --store only")
    if options["keep_from"] is not None and store_dir is None:
        raise GopsInputError("--keep-from applies to --store only (a solve in memory keeps all)")
    if options["below_in_memory"] and options["keep_from"] is None:
        raise GopsInputError("--below-in-memory needs --keep-from K (and --store)")
    if options["keep_from"] is not None and options["cluster"] is not None:
        raise GopsInputError("--keep-from runs here: drop --cluster")
    if options["device"].gpu and options["cluster"] is not None:
        raise GopsInputError("--device cuda runs here: drop --cluster (its workers use CPUs)")
    check_device(options, solves_into_store=True)
    n = check_command_n(
        options["n"], "solve", objective_flag(options["objective"]), store_dir and "--store"
    )
    if store_dir is not None and options["lead"]:  # (--lead is refused for points)
        raise GopsInputError(
            "a store holds the real game (no handicap): solve it without "
            "--lead, then read any lead with `gops strategy --store DIR --lead L`"
        )
    return n


@click.command(cls=NumberArgumentsCommand, **settings("solve", TWO))
@click.argument("n", type=INTEGER)
@click.option(
    "--store",
    "store_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Keep the solution in DIR (checkpointed per chunk; rerun to resume).",
)
@click.option(
    "--chunk-items",
    type=INTEGER,
    default=None,
    help="Items per checkpoint with --store (default 1,048,576); per task with "
    "--cluster (default 131,072).",
)
@click.option(
    "--cluster",
    "cluster",
    default=None,
    metavar="SPEC",
    help="With --store: solve on Dask, local:W (W worker processes here) or "
    "tcp://HOST:PORT (a running scheduler; the store on a shared file system).",
)
@click.option(
    "--keep-from",
    "keep_from",
    type=INTEGER,
    default=None,
    metavar="K",
    help="With --store: keep only the levels K..N, each lower one deleted once the level "
    "above it is done (every radius still recorded); the first move needs K <= N - 1.",
)
@click.option(
    "--below-in-memory",
    is_flag=True,
    help="With --keep-from K: build the levels below K in memory only, never on disk "
    "(a solve stopped before level K is stored starts again from level 0).",
)
@click.option(
    "--quiet",
    is_flag=True,
    help="No progress: no bar on a terminal, and with --store no line every 10 minutes in a log.",
)
@device_option
@objective_options
@game_options("solve", n=_solve_n)
def solve(
    game: GameSpec,
    lead: int | None,
    store_dir: str | None,
    chunk_items: int | None,
    cluster: str | None,
    keep_from: int | None,
    below_in_memory: bool,
    quiet: bool,
    device: Device,
) -> None:
    """Solve N-card GOPS (floating point) and print a summary."""
    if store_dir is not None:
        return solve_store(
            game, store_dir, chunk_items, cluster, quiet, device, keep_from, below_in_memory
        )
    # --lead L: every lead reachable from a start within |L| solved (the handicap).
    game = check_limits(game.replace(handicap=abs(lead or 0)))
    jit = 0.0 if device.gpu else objective_of(game).warm_up()  # cuda: compiled lazily
    sol = solve_with_progress(game, quiet=quiet, device=device)
    print_summary(sol, sol.stats, jit, lead)


def print_summary(sol, st, jit, lead=None, store_dir=None, kept=(), keep_from=0) -> None:
    """gops solve's summary of a float solution: the game, what was solved, its time,
    memory and certified radius, and the value at the start (``lead``: the lead there,
    for an objective with a lead)."""
    rules, order = sol.spec.objective, sol.order
    named = "" if order is RANDOM else f" order={order.name}"
    click.echo(f"N={sol.n} objective={rules.name}{named} arithmetic=float")
    if store_dir is not None:
        frontier = (
            f", levels {keep_from}..{sol.n} kept: --keep-from {keep_from}" if keep_from else ""
        )
        click.echo(f"store: {store_dir} (complete{frontier}; `exact.load` or --store reads it)")
    click.echo(f"{rules.subgames_words}: {st.subgames:,}")
    click.echo(
        f"matrix games solved: {st.matrix_games:,} ({rules.skipped_words(order.antisymmetric)})"
    )
    click.echo(f"time: {st.seconds:.2f} s (plus {jit:.2f} s JIT load/compile)")
    click.echo(f"peak memory: {st.peak_memory_bytes / 2**20:.0f} MiB")
    print_radius(sol, kept, keep_from)
    click.echo(start_line(sol, lead))


def start_line(sol, lead=None) -> str:
    """The value at the start of the game, in words: 0 by symmetry under a symmetric
    prize order and no lead; an interval that contains the exact value where the
    objective's summary shows one (exact.game.objectives)."""
    rules, order = sol.spec.objective, sol.order
    root = set(range(1, sol.n + 1))
    value = sol.value(root, root, root, lead)
    head = "value at the start" + (f", lead {lead}" if rules.has_lead else "")
    words = [rules.units] if rules.has_lead else []
    if order.antisymmetric and not lead:
        words.append("0 by symmetry")
    elif rules.summary_encloses_start:
        lo, hi = sol.enclosure(root, root, root, lead)
        return (
            f"{head}: {value:+.6f}, exact value in [{lo:.12f}, {hi:.12f}] (my "
            f"{rules.units} when {'I' if order.chooser == 'me' else 'they'} choose every prize)"
        )
    return f"{head}: {value:+.3e} ({'; '.join(words)})"


def print_radius(sol, kept=(), keep_from: int = 0) -> None:
    """The certified radius: the largest over the levels (exact.kernels.bounds), proved by
    this run unless some levels were ``kept`` as a store held them (ResumeChecks: then it
    is the store's claim, and says so, with what the resume checked of each; ``keep_from``
    the frontier store's K, whose level K no check can re-derive)."""
    radius = max(sol.radii)
    if not kept:
        click.echo(f"certified: every stored value within {radius:.1e} of the exact one")
        return
    first, last = kept[0].k, kept[-1].k
    levels = f"levels {first}..{last}" if len(kept) > 1 else f"level {first}"
    proof = f"`gops verify {sol.store}` proves them"
    if keep_from:  # the lowest file's level below is gone
        proof = (
            f"`gops verify {sol.store}` re-derives the levels above {keep_from} given level "
            f"{keep_from}, which no check can re-derive (--keep-from {keep_from})"
        )
    click.echo(
        f"radius, given the stored {levels} (kept by this resume, in whole or in part, "
        f"not re-derived in full: {proof}): every stored value within {radius:.1e} of the "
        "exact one"
    )
    for line in resume_words(list(kept)):
        click.echo(f"  kept {line}")


def solve_store(
    game: GameSpec,
    store_dir,
    chunk_items,
    cluster,
    quiet,
    device: Device = CPU,
    keep_from=None,
    below_in_memory=False,
):
    """``gops solve N --store DIR [--objective win] [--cluster SPEC] [--device cuda]
    [--keep-from K]``: a pre-flight estimate (refused if this machine cannot hold it),
    then the solve, resumable.  A store holds the real game (a lead was refused by
    :func:`_solve_n`)."""

    if cluster is not None:
        parse_cluster(cluster)
    device.wrap(objective_of(game))  # no GPU: one line, before anything is written
    # A store of another game is refused before the estimate is printed (nothing written);
    # its manifest is read here, once for the whole solve.
    store = Store.for_game(
        store_dir,
        game,
        None if cluster else chunk_items,
        on_repair=report_repair,
        keep_from=keep_from,
        below_in_memory=below_in_memory,
    )
    if cluster is not None and store.keep_from:
        raise GopsInputError(
            f"{store_dir} keeps levels {store.keep_from}..{game.n} only (--keep-from): "
            "it is solved here, drop --cluster"
        )
    est = estimate(game, keep_from=store.keep_from, below_in_memory=store.below_in_memory)
    check_fits(est, store_dir, cluster=cluster is not None)
    if not quiet:
        where = "this machine" if cluster is None else "one machine like this one"
        click.echo(f"gops: estimate for {where}: {est.describe()}", err=True)
        if store.exists:
            line = resume_line(store, est, cluster is not None)
            if line:
                click.echo(line, err=True)
    jit = 0.0 if device.gpu else objective_of(game).warm_up()  # cuda: compiled lazily
    t0 = time.perf_counter()
    if cluster is None:
        bar = ProgressBar(enabled=not quiet, leave=True)  # on a terminal
        lines = ProgressLines(enabled=not quiet, game=game)  # in a log: a line every 10 minutes

        def progress(level, done):
            bar(level, done)
            lines(level, done)

        try:
            store.solve(progress, device)
        finally:
            bar.close()
        games, kept = store.games, store.kept_checks()
    else:
        games, kept = solve_cluster_with_progress(store, cluster, chunk_items, quiet)
    sol = store.solution()
    st = SolveStats(
        subgames=sol.objective.subgames(sol.levels),
        matrix_games=games,
        seconds=time.perf_counter() - t0,
        peak_memory_bytes=peak_memory_bytes(),
    )
    print_summary(sol, st, jit, 0 if game.has_lead else None, store_dir, kept, store.keep_from)


def resume_line(store: Store, est, cluster: bool) -> str | None:
    """What a rerun of ``gops solve --store`` picks up, in one line (None while the store
    holds nothing yet): the levels stored, the items of the next one recorded as finished
    (a cluster keeps parts instead: exact.dp.cluster), and the work left by the cost model
    of the estimate (:func:`exact.dp.preflight.work_left`)."""

    point, game = store.resume_point(), store.game
    head = f"gops: resuming {store.root}"
    if point.level is None:
        return f"{head}: every level is stored; checking them"
    items = 0 if cluster else point.items
    if not point.stored and not items:
        return None
    where = [f"{_levels_text(point.stored)} stored"] if point.stored else []
    if items:
        share = 100 * items / point.total
        where.append(f"level {point.level} at {items:,} of {point.total:,} items ({share:.1f} %)")
    else:
        kept = " (the parts it has done are kept)" if cluster else ""
        where.append(f"level {point.level} next{kept}")
    left = work_left(game, point.stored, point.level, items, point.total)
    return (
        f"{head}: {', '.join(where)}; about {100 * left:.0f} % of the estimate's work "
        f"is left ({format_duration(left * est.seconds)})"
    )


def _levels_text(ks) -> str:
    """Levels as a line names them.

    >>> _levels_text([0, 1, 2]), _levels_text([0]), _levels_text([0, 1, 3])
    ('levels 0 to 2', 'level 0', 'levels 0, 1, 3')
    """
    ks = sorted(ks)
    if len(ks) == 1:
        return f"level {ks[0]}"
    if ks == list(range(ks[0], ks[-1] + 1)):
        return f"levels {ks[0]} to {ks[-1]}"
    return "levels " + ", ".join(map(str, ks))


def solve_cluster_with_progress(store: Store, cluster, part_items, quiet):
    """Solve on Dask with a line per level on stderr (parts, games, rate, and the time
    left for the other levels from the cost model of exact.dp.preflight) and a summary;
    returns the games solved and what it checked of the levels it kept as the store held
    them (ResumeChecks)."""

    game, n = store.game, store.game.n
    work = [level_work(game, k) for k in range(n + 1)]
    t0 = time.perf_counter()
    level: dict = {}  # the level in progress: k, start time, parts done before, games
    finished = [0.0]  # units of work done by this run

    def progress(k, done, total, games):
        now = time.perf_counter()
        if level.get("k") != k:
            level.update(k=k, start=now, before=done, games=0)
        level["games"] += games
        if quiet or done < total:
            return
        seconds = now - level["start"]
        finished[0] += work[k] * (total - level["before"]) / max(total, 1)
        rate = finished[0] / max(now - t0, 1e-9)
        rest = sum(work[k + 1 :])
        # A rate is a guide once 5% of the work is done (the small levels are overhead).
        known = finished[0] >= 0.05 * sum(work) and rate > 0
        eta = f"; about {rest / rate:.0f} s for the levels left" if rest and known else ""
        parts = f"{total} part{'s' if total > 1 else ''}"
        click.echo(
            f"gops: level {k}/{n}: {parts} ({total - level['before']} run now), "
            f"{level['games']:,} games in {seconds:.1f} s "
            f"({level['games'] / max(seconds, 1e-9):,.0f} games/s){eta}",
            err=True,
        )

    _, report = solve_on_cluster(
        game, store.root, cluster, part_items, progress=progress, store=store
    )
    if not quiet:
        click.echo(
            f"gops: {report.workers} Dask workers solved {len(report.levels)} levels "
            f"now: {report.games:,} games in {report.seconds:.1f} s",
            err=True,
        )
    return report.games, store.kept_checks()


def report_repair(k, what):
    """A completed level found damaged on resume: say what, on stderr, before redoing it."""
    click.echo(f"gops: level {k}: {what}; recomputing it", err=True)


def _table_n(options: dict) -> int:
    """gops table's checks of its flags, then its N (the limit depends on --objective and
    --store)."""
    if options["with_ranges"] and options["order"] != "random":
        raise GopsInputError("--ranges covers the random prize order only")
    check_device(options)
    return check_command_n(
        options["n"],
        "table",
        objective_flag(options["objective"]),
        options["store_dir"] and "--store",
    )


@click.command(cls=NumberArgumentsCommand, **settings("table", TWO))
@click.argument("n", type=INTEGER)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of the table.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option(
    "--store",
    "store_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Read the solution from a store made by `gops solve N --store DIR`.",
)
@click.option(
    "--ranges",
    "with_ranges",
    is_flag=True,
    help="Also each entry's range over ALL optimal strategies (exact for N <= 7).",
)
@CERTIFIED
@REDERIVE
@device_option
@objective_options
@game_options("table", n=_table_n)
def table(
    game: GameSpec,
    lead: int | None,
    as_json: bool,
    quiet: bool,
    store_dir: str | None,
    with_ranges: bool,
    certified: bool,
    rederive: bool,
    device: Device,
) -> None:
    """The first-move table of N-card GOPS (rows = bids, columns = upcards)."""
    n, win = game.n, game.has_lead
    if win and with_ranges:
        raise GopsInputError("--ranges applies to the points objective only")
    if win and store_dir is None:  # every lead reachable from a start within |lead|
        game = game.replace(handicap=abs(lead or 0))
    sol = load_or_solve(game, store_dir, quiet, device=device)
    root = set(range(1, n + 1))
    # A store's values are checked before any game reads them (exit 1 if contradicted).
    reads = check_position(sol, root, root, root, sol.order.next_prizes(root), rederive)
    strategies = {u: sol.strategy(root, root, root, u, lead) for u in sol.order.next_prizes(root)}
    gap = max(s.gap for s in strategies.values())
    games = certified_columns(sol, lead) if certified else None
    ranges = _table_ranges(game, sol, quiet) if with_ranges else None
    if as_json:
        click.echo(json.dumps(_table_json(sol, lead, strategies, gap, ranges, games, reads)))
        return
    _print_table(sol, lead, strategies, gap, games, reads)
    if ranges is not None:
        click.echo(format_ranges(n, *ranges))


def _table_ranges(game: GameSpec, sol, quiet: bool) -> tuple:
    """--ranges: each first-move probability's range over all optimal strategies, exact
    while the rational solver reaches N (else from the float solution ``sol``), and
    whether it is exact."""
    rational = game.replace(arithmetic=RATIONAL)
    exact_ = game.n <= solve_limit(rational)
    return first_move_ranges(solve_with_progress(rational, quiet=quiet) if exact_ else sol), exact_


def _table_json(sol, lead, strategies, gap, ranges, games, reads) -> dict:
    """``gops table --json``: exact.views.table_json, with the prize order, the values of
    the first prizes under a controlled order, and what a store's answer rests on."""
    out = table_json(
        sol.n,
        sol.objective.name,
        lead if sol.objective.has_lead else None,
        {u: s.mine for u, s in strategies.items()},
        gap,
        None if ranges is None else ranges_json(ranges[0]),
        games,
    )
    if sol.order is not RANDOM:
        out["order"] = sol.order.name
    if sol.order.chooser:
        out["prize_values"] = {str(u): s.value for u, s in strategies.items()}
    if reads is not None:
        out["source"] = reads.json()
        for column in out.get("certified", {}).values():  # each claim its condition
            column["given"] = reads.condition()
    return out


def _print_table(sol, lead, strategies, gap, games, reads) -> None:
    """``gops table`` as text: the table, the first prizes' values under a controlled
    order, the gap, the certified columns and what a store's answer rests on."""
    n, order, chooser = sol.n, sol.order, sol.order.chooser
    table = {u: s.mine for u, s in strategies.items()}
    at = f", starting {lead:+d} points ahead" if sol.objective.has_lead and lead else ""
    at += "" if order is RANDOM else f", {order.name} prize order"
    click.echo(f"First move of {n}-card GOPS, {sol.objective.name} objective{at}: P(bid | upcard)")
    click.echo(format_table(n, table))
    if chooser:
        best = max if chooser == "me" else min
        pick = best(strategies, key=lambda u: strategies[u].value)
        click.echo(
            f"value of each first prize (f_u; {'I' if chooser == 'me' else 'they'} "
            f"turn up the {'best' if chooser == 'me' else 'worst'} for me, {pick}): "
            + "  ".join(f"{u}: {s.value:+.6f}" for u, s in strategies.items())
        )
    click.echo(
        "float64; each column is an equilibrium of its matrix game up to a checked gap of "
        f"{gap:.1e}"
    )
    if games is not None:  # --certified
        print_certified_table(table, games, None if reads is None else reads.condition())
    if reads is not None:
        click.echo(reads.describe())


def _strategy_n(options: dict) -> int:
    """gops strategy's checks of its flags and its position, then its N: --n, else a
    store's N, else the largest card seen."""

    store_dir, n = options["store_dir"], options["n"]
    if options["certified"] and options["exact_"]:
        raise GopsInputError("--certified proves float results; --exact ones are exact already")
    if store_dir is not None:
        if options["exact_"]:
            raise GopsInputError("--exact and --store exclude each other (stores hold floats)")

        n = Store.open(store_dir).game.n if n is None else n
    if n is not None:
        check_command_n(n, "strategy")
    m, t, d = validate_position(
        options["mine"], options["theirs"], options["deck"], options["upcard"], n=n
    )
    return check_command_n(n or max(m | t | d), "strategy")


@click.command(cls=NumberArgumentsCommand, **settings("strategy", TWO))
@click.option("--mine", required=True, callback=card_list, help="My hand, e.g. 2,4.")
@click.option("--theirs", required=True, callback=card_list, help="Their hand, e.g. 1,3.")
@click.option("--deck", required=True, callback=card_list, help="Prizes left, upcard included.")
@click.option("--upcard", required=True, type=INTEGER, help="The prize turned up.")
@click.option(
    "--n", "n", type=INTEGER, default=None, help="Cards per suit (default: largest card seen)."
)
@click.option(
    "--exact", "exact_", is_flag=True, help="Exact rational equilibrium (hands of at most 8 cards)."
)
@click.option(
    "--json", "as_json", is_flag=True, help='Print JSON (exact numbers as "p/q" strings).'
)
@click.option(
    "--store",
    "store_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Read the values from a store (its N is the game's N).",
)
@CERTIFIED
@REDERIVE
@objective_options
@game_options(
    "strategy",
    n=_strategy_n,
    arithmetic=lambda options: "rational" if options["exact_"] else "float",
)
def strategy(
    game: GameSpec,
    lead: int | None,
    mine: tuple[int, ...],
    theirs: tuple[int, ...],
    deck: tuple[int, ...],
    upcard: int,
    exact_: bool,
    as_json: bool,
    store_dir: str | None,
    certified: bool,
    rederive: bool,
) -> None:
    """The equilibrium at any position once the upcard is turned."""

    m, t, d = validate_position(mine, theirs, deck, upcard, n=game.n)  # checked: _strategy_n
    rules = game.objective
    where = f"upcard {upcard}" + (f", lead {lead}" if rules.has_lead else "")
    if store_dir is not None:  # the real game: every reachable lead, no handicap
        sol = load_or_solve(game, store_dir, quiet=False)
    else:
        # The equilibrium after the upcard needs only the subgames one card smaller, for
        # every lead reachable from this one (a handicap included); a decided position
        # needs none.
        top = 0 if rules.decided(d, lead) is not None else len(d) - 1
        game = check_limits(game.replace(handicap=rules.position_handicap(game.n, lead, d)), top)
        sol = solve_with_progress(game, top=top)
    reads = check_position(sol, m, t, d, [upcard], rederive)  # before any game reads them
    st = sol.strategy(m, t, d, upcard, lead)
    print_strategy(
        st,
        game.arithmetic.exact,
        as_json,
        where,
        rules.units,
        json_head={"objective": rules.name, "lead": lead} if rules.has_lead else None,
        certified=certify_strategy(sol, m, t, d, upcard, lead) if certified else None,
        hands=(m, t),
        source=reads,
    )
