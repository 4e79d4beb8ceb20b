"""gops solve, table, strategy and count: the game solved, its first move, any position."""

from __future__ import annotations

import json
import time

import click

from exact.analysis.certified import certify_strategy
from exact.cli.common import (
    INTEGER,
    WIN_UNITS,
    NumberArgumentsCommand,
    ProgressBar,
    card_list,
    certified_columns,
    check_objective,
    format_table,
    load_or_solve,
    objective_options,
    one_line_errors,
    print_certified_table,
    print_strategy,
    solve_win_with_progress,
    solve_with_progress,
)
from exact.cli.limits import check_command_n, objective_flag
from exact.dp.verify import check_position
from exact.errors import GopsInputError


@click.command(cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@click.option("--store", "store_dir", type=click.Path(file_okay=False), default=None,
              help="Keep the solution in DIR (checkpointed per chunk; rerun to resume).")
@click.option("--chunk-items", type=INTEGER, default=None,
              help="Items per checkpoint with --store (default 1,048,576); per task with "
                   "--cluster (default 131,072).")
@click.option("--cluster", "cluster", default=None, metavar="SPEC",
              help="With --store: solve on Dask, local:W (W worker processes here) or "
                   "tcp://HOST:PORT (a running scheduler; the store on a shared file system).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@objective_options
@one_line_errors
def solve(n: int, store_dir: str | None, chunk_items: int | None, cluster: str | None,
          quiet: bool, objective: str, lead: int | None, order: str) -> None:
    """Solve N-card GOPS (floating point) and print a summary."""
    from exact.dp.solve import check_options

    if cluster is not None and store_dir is None:
        raise GopsInputError("--cluster needs --store DIR (the workers share the store)")
    if chunk_items is not None and chunk_items < 1:
        raise GopsInputError(f"--chunk-items must be at least 1, got {chunk_items}")
    check_command_n(n, "solve", objective_flag(objective), store_dir and "--store")
    if store_dir is not None:
        return solve_store(n, objective, lead, store_dir, chunk_items, cluster, quiet, order)
    if objective != "points" or lead is not None:
        return solve_win(n, objective, lead, store_dir, chunk_items, quiet, order)
    from exact.kernels.points import warm_up

    check_options(n, "points", "float")
    jit = warm_up()
    sol = solve_with_progress(n, quiet=quiet, order=order)
    print_points_summary(n, sol, sol.stats, jit)


def print_points_summary(n, sol, st, jit, store_dir=None, kept=()):
    order = sol.order
    named = "" if order.name == "random" else f" order={order.name}"
    click.echo(f"N={n} objective=points{named} arithmetic=float")
    if store_dir is not None:
        click.echo(f"store: {store_dir} (complete; `exact.load` or --store reads it)")
    click.echo(f"canonical subgames: {st.subgames:,}")
    skipped = ("antisymmetric halves skipped" if order.antisymmetric
               else "every pattern: a chooser of the prizes breaks the antisymmetry")
    click.echo(f"matrix games solved: {st.matrix_games:,} ({skipped})")
    click.echo(f"time: {st.seconds:.2f} s (plus {jit:.2f} s JIT load/compile)")
    click.echo(f"peak memory: {st.peak_memory_bytes / 2**20:.0f} MiB")
    print_radius(sol, kept)
    root = set(range(1, n + 1))
    if order.antisymmetric:
        click.echo(f"value at the start: {sol.value(root, root, root):+.3e} (0 by symmetry)")
        return
    lo, hi = sol.enclosure(root, root, root)
    click.echo(f"value at the start: {sol.value(root, root, root):+.6f}, exact value in "
               f"[{lo:.12f}, {hi:.12f}] (my expected point difference when "
               f"{'I' if order.chooser == 'me' else 'they'} choose every prize)")


def print_radius(sol, kept=()) -> None:
    """The certified radius: the largest over the levels (exact.kernels.bounds), proved by
    this run unless some levels were ``kept`` as a store held them (then it is the
    store's claim, and says so)."""
    radius = max(sol.radii)
    if not radius < float("inf"):
        click.echo("no certified radius (a store written before radii were kept)")
    elif not kept:
        click.echo(f"certified: every stored value within {radius:.1e} of the exact one")
    else:
        levels = f"{kept[0]}..{kept[-1]}" if len(kept) > 1 else f"{kept[0]}"
        click.echo(f"radius: every stored value within {radius:.1e} of the exact one if levels "
                   f"{levels}, kept as the store held them, are intact: `gops verify "
                   f"{sol.store}` re-derives them")


def solve_win(n, objective, lead, store_dir, chunk_items, quiet, order="random"):
    """``gops solve N --objective win [--lead L]``."""
    from exact.dp.solve import check_options
    from exact.kernels.win import warm_up

    lead = check_objective(n, objective, lead, store_dir)
    if chunk_items is not None:
        raise GopsInputError("--chunk-items applies to --store only")
    check_options(n, "win", "float", handicap=abs(lead))
    jit = warm_up()
    sol = solve_win_with_progress(n, quiet=quiet, handicap=abs(lead), order=order)
    print_win_summary(n, sol, sol.stats, jit, lead)


def print_win_summary(n, sol, st, jit, lead=0, store_dir=None, kept=()):
    named = "" if sol.order.name == "random" else f" order={sol.order.name}"
    click.echo(f"N={n} objective=win{named} arithmetic=float")
    if store_dir is not None:
        click.echo(f"store: {store_dir} (complete; `exact.load` or --store reads it)")
    click.echo("canonical subgames (pattern, prizes, lead), undecided and reachable: "
               f"{st.subgames:,}")
    halves = "antisymmetric halves, " if sol.order.antisymmetric else ""
    click.echo(f"matrix games solved: {st.matrix_games:,} "
               f"({halves}sure wins and sure losses skipped)")
    click.echo(f"time: {st.seconds:.2f} s (plus {jit:.2f} s JIT load/compile)")
    click.echo(f"peak memory: {st.peak_memory_bytes / 2**20:.0f} MiB")
    print_radius(sol, kept)
    root = set(range(1, n + 1))
    note = "; 0 by symmetry" if lead == 0 and sol.order.antisymmetric else ""
    click.echo(f"value at the start, lead {lead}: {sol.value(root, root, root, lead):+.3e} "
               f"({WIN_UNITS}{note})")


def solve_store(n, objective, lead, store_dir, chunk_items, cluster, quiet, order="random"):
    """``gops solve N --store DIR [--objective win] [--cluster SPEC]``: a pre-flight
    estimate (refused if this machine cannot hold it), then the solve, resumable."""
    from exact.dp.cluster import parse_cluster
    from exact.dp.preflight import check_fits, estimate
    from exact.dp.solve import SolveStats, peak_memory_bytes
    from exact.dp.store import existing_manifest, load, solve_into_store
    from exact.game.spec import GameSpec

    if objective == "points" and lead is not None:
        raise GopsInputError("--lead applies to --objective win only")
    if lead not in (None, 0):
        raise GopsInputError("a store holds the real game (no handicap): solve it without "
                             "--lead, then read any lead with `gops strategy --store DIR --lead L`")
    if cluster is not None:
        parse_cluster(cluster)
    game = GameSpec.parse(n, objective, order)
    # A store of another game is refused before the estimate is printed (nothing written).
    existing_manifest(store_dir, game)
    est = estimate(game)
    check_fits(est, store_dir, cluster=cluster is not None)
    if not quiet:
        where = "this machine" if cluster is None else "one machine like this one"
        click.echo(f"gops: estimate for {where}: {est.describe()}", err=True)
    jit = warm_up_kernels(objective)
    t0 = time.perf_counter()
    if cluster is None:
        bar = ProgressBar(enabled=not quiet, leave=True)
        try:
            store = solve_into_store(game, store_dir, progress=bar, chunk_items=chunk_items,
                                     on_repair=report_repair)
        finally:
            bar.close()
        games, kept = store.games, store.kept
    else:
        games, kept = solve_cluster_with_progress(game, store_dir, cluster, chunk_items, quiet)
    sol = load(store_dir, n=n, objective=objective, order=order)
    st = SolveStats(subgames=sol.objective_spec.subgames(sol.levels), matrix_games=games,
                    seconds=time.perf_counter() - t0, peak_memory_bytes=peak_memory_bytes())
    if objective == "points":
        print_points_summary(n, sol, st, jit, store_dir, kept)
    else:
        print_win_summary(n, sol, st, jit, 0, store_dir, kept)


def warm_up_kernels(objective: str) -> float:
    """Compile (or load) the objective's level kernel; seconds spent."""
    if objective == "points":
        from exact.kernels.points import warm_up
    else:
        from exact.kernels.win import warm_up
    return warm_up()


def solve_cluster_with_progress(game, store_dir, cluster, part_items, quiet):
    """Solve on Dask with a line per level on stderr (parts, games, rate, and the time
    left for the other levels from the cost model of exact.dp.preflight) and a summary;
    returns the games solved and the levels kept as the store held them."""
    from exact.dp.cluster import solve_on_cluster
    from exact.dp.preflight import level_work

    n = game.n
    work = [level_work(game, k) for k in range(n + 1)]
    t0 = time.perf_counter()
    level = {}  # the level in progress: k, start time, parts done before, games
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
        rest = sum(work[k + 1:])
        # A rate is a guide once 5% of the work is done (the small levels are overhead).
        known = finished[0] >= 0.05 * sum(work) and rate > 0
        eta = f"; about {rest / rate:.0f} s for the levels left" if rest and known else ""
        parts = f"{total} part{'s' if total > 1 else ''}"
        click.echo(f"gops: level {k}/{n}: {parts} ({total - level['before']} run now), "
                   f"{level['games']:,} games in {seconds:.1f} s "
                   f"({level['games'] / max(seconds, 1e-9):,.0f} games/s){eta}", err=True)

    store, report = solve_on_cluster(game, store_dir, cluster, part_items,
                                     progress=progress, on_repair=report_repair)
    if not quiet:
        click.echo(f"gops: {report.workers} Dask workers solved {len(report.levels)} levels "
                   f"now: {report.games:,} games in {report.seconds:.1f} s", err=True)
    return report.games, store.kept


def report_repair(k, what):
    """A completed level found damaged on resume: say what, on stderr, before redoing it."""
    click.echo(f"gops: level {k}: {what}; recomputing it", err=True)


@click.command(cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of the table.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--store", "store_dir", type=click.Path(file_okay=False), default=None,
              help="Read the solution from a store made by `gops solve N --store DIR`.")
@click.option("--ranges", "with_ranges", is_flag=True,
              help="Also each entry's range over ALL optimal strategies (exact for N <= 7).")
@click.option("--certified", is_flag=True,
              help="Prove each equilibrium: an interval for every exact probability (or why not).")
@objective_options
@one_line_errors
def table(n: int, as_json: bool, quiet: bool, store_dir: str | None, with_ranges: bool,
          certified: bool, objective: str, lead: int | None, order: str) -> None:
    """The first-move table of N-card GOPS (rows = bids, columns = upcards)."""
    from exact.dp.solve import check_options

    if with_ranges and order != "random":
        raise GopsInputError("--ranges covers the random prize order only")
    check_command_n(n, "table", objective_flag(objective), store_dir and "--store")
    win = objective != "points" or lead is not None
    if win:
        lead = check_objective(n, objective, lead, store_dir)
        if with_ranges:
            raise GopsInputError("--ranges applies to the points objective only")
        if store_dir is None:
            check_options(n, "win", "float", handicap=abs(lead))
            sol = solve_win_with_progress(n, quiet=quiet, handicap=abs(lead), order=order)
        else:
            sol = load_or_solve(n, store_dir, quiet, objective="win", order=order)
    else:
        if store_dir is None:
            check_options(n, "points", "float")
        sol = load_or_solve(n, store_dir, quiet, order=order)
    root = set(range(1, n + 1))
    strategies = {u: sol.strategy(root, root, root, u, lead)
                  for u in sol.order.next_prizes(root)}
    reads = check_position(sol, root, root, root, strategies)
    table = {u: s.mine for u, s in strategies.items()}
    gap = max(s.gap for s in strategies.values())
    games = certified_columns(sol, lead) if certified else None
    if with_ranges:
        from exact.analysis.ranges import first_move_ranges, format_ranges, ranges_json
        from exact.limits import SOLVE_MAX_N

        exact_ = n <= SOLVE_MAX_N["points", "rational"]
        ranges = first_move_ranges(
            solve_with_progress(n, arithmetic="rational", quiet=quiet) if exact_ else sol)
    chooser = sol.order.chooser
    if as_json:
        from exact.views import table_json

        out = table_json(n, sol.objective, lead if win else None, table, gap,
                         ranges_json(ranges) if with_ranges else None,
                         games if certified else None)
        if sol.order.name != "random":
            out["order"] = sol.order.name
        if chooser:
            out["prize_values"] = {str(u): s.value for u, s in strategies.items()}
        if reads is not None:
            out["source"] = reads.json()
        click.echo(json.dumps(out))
        return
    at = f", starting {lead:+d} points ahead" if win and lead else ""
    at += "" if sol.order.name == "random" else f", {sol.order.name} prize order"
    click.echo(f"First move of {n}-card GOPS, {sol.objective} objective{at}: P(bid | upcard)")
    click.echo(format_table(n, table))
    if chooser:
        best = max if chooser == "me" else min
        pick = best(strategies, key=lambda u: strategies[u].value)
        click.echo(f"value of each first prize (f_u; {'I' if chooser == 'me' else 'they'} "
                   f"turn up the {'best' if chooser == 'me' else 'worst'} for me, {pick}): "
                   + "  ".join(f"{u}: {s.value:+.6f}" for u, s in strategies.items()))
    click.echo(
        "float64; each column is an equilibrium of its matrix game up to a checked gap of "
        f"{gap:.1e}"
    )
    if games is not None:  # --certified
        print_certified_table(table, games)
    if reads is not None:
        click.echo(reads.describe())
    if with_ranges:
        click.echo(format_ranges(n, ranges, exact_))


@click.command(cls=NumberArgumentsCommand)
@click.option("--mine", required=True, callback=card_list, help="My hand, e.g. 2,4.")
@click.option("--theirs", required=True, callback=card_list, help="Their hand, e.g. 1,3.")
@click.option("--deck", required=True, callback=card_list, help="Prizes left, upcard included.")
@click.option("--upcard", required=True, type=INTEGER, help="The prize turned up.")
@click.option("--n", "n", type=INTEGER, default=None,
              help="Cards per suit (default: largest card seen).")
@click.option("--exact", "exact_", is_flag=True,
              help="Exact rational equilibrium (hands of at most 8 cards).")
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON (exact numbers as \"p/q\" strings).")
@click.option("--store", "store_dir", type=click.Path(file_okay=False), default=None,
              help="Read the values from a store (its N is the game's N).")
@click.option("--certified", is_flag=True,
              help="Prove each equilibrium: an interval for every exact probability (or why not).")
@objective_options
@one_line_errors
def strategy(mine: tuple[int, ...], theirs: tuple[int, ...], deck: tuple[int, ...],
             upcard: int, n: int | None, exact_: bool, as_json: bool, store_dir: str | None,
             certified: bool, objective: str, lead: int | None, order: str) -> None:
    """The equilibrium at any position once the upcard is turned."""
    from exact.dp.solve import check_options
    from exact.game.rules import validate_position

    if certified and exact_:
        raise GopsInputError("--certified proves float results; --exact ones are exact already")
    if objective != "points" or lead is not None:
        return strategy_win(mine, theirs, deck, upcard, n, exact_, as_json, store_dir,
                            objective, lead, certified, order)
    arithmetic = "rational" if exact_ else "float"
    if store_dir is not None:
        if exact_:
            raise GopsInputError("--exact and --store exclude each other (stores hold floats)")
        from exact.dp.store import read_manifest

        n = read_manifest(store_dir)["n"] if n is None else n
    if n is not None:
        check_command_n(n, "strategy")
    m, t, d = validate_position(mine, theirs, deck, upcard, n=n)
    n = check_command_n(n or max(m | t | d), "strategy")
    # The equilibrium after the upcard needs only the subgames one card smaller.
    top = len(d) - 1
    check_options(n, "points", arithmetic, top)
    if exact_:
        sol = solve_with_progress(n, arithmetic=arithmetic, top=top, order=order)
    else:
        sol = load_or_solve(n, store_dir, quiet=False, top=top, order=order)
    st = sol.strategy(m, t, d, upcard)
    reads = check_position(sol, m, t, d, [upcard])
    game = certify_strategy(sol, m, t, d, upcard) if certified else None
    print_strategy(st, exact_, as_json, f"upcard {upcard}", "expected point difference",
                   certified=game, hands=(m, t), source=reads)


def strategy_win(mine, theirs, deck, upcard, n, exact_, as_json, store_dir, objective, lead,
                 certified=False, order="random"):
    """``gops strategy ... --objective win [--lead L]``."""
    from exact.dp.solve import check_options
    from exact.game.rules import validate_position
    from exact.kernels.win import total_points

    arithmetic = "rational" if exact_ else "float"
    if store_dir is not None:
        if exact_:
            raise GopsInputError("--exact and --store exclude each other (stores hold floats)")
        from exact.dp.store import read_manifest

        n = read_manifest(store_dir)["n"] if n is None else n
    if n is not None:
        check_command_n(n, "strategy")
    m, t, d = validate_position(mine, theirs, deck, upcard, n=n)
    n = check_command_n(n or max(m | t | d), "strategy")
    lead = check_objective(n, objective, lead, store_dir)
    if store_dir is not None:  # the real game: every reachable lead, no handicap
        from exact.dp.store import load

        sol = load(store_dir, n=n, objective="win", order=order)
        st = sol.strategy(m, t, d, upcard, lead)
        reads = check_position(sol, m, t, d, [upcard])
        game = certify_strategy(sol, m, t, d, upcard, lead) if certified else None
        print_strategy(st, exact_, as_json, f"upcard {upcard}, lead {lead}", WIN_UNITS,
                       json_head={"objective": "win", "lead": lead}, certified=game,
                       hands=(m, t), source=reads)
        return
    top = len(d) - 1
    # Any possible lead is a position (a handicap included); solve every lead reachable
    # from this one.
    handicap = max(0, abs(lead) - (total_points(n) - sum(d)))
    if abs(lead) > sum(d):
        top = 0  # decided: nothing to solve
    check_options(n, "win", arithmetic, top, handicap)
    sol = solve_win_with_progress(n, arithmetic, top=top, handicap=handicap, order=order)
    st = sol.strategy(m, t, d, upcard, lead)
    game = certify_strategy(sol, m, t, d, upcard, lead) if certified else None
    print_strategy(st, exact_, as_json, f"upcard {upcard}, lead {lead}", WIN_UNITS,
                   json_head={"objective": "win", "lead": lead}, certified=game, hands=(m, t))


@click.command(cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@one_line_errors
def count(n: int) -> None:
    """Number of canonical subgames per level of N-card GOPS."""
    from exact.game.encoding import count_table

    rows = count_table(check_command_n(n, "count"))
    click.echo(f"{'k':>3} {'patterns':>10} {'prize sets':>11} {'subgames':>14} "
               f"{'matrix games':>14}")
    for r in rows:
        click.echo(
            f"{r['k']:>3} {r['patterns']:>10,} {r['prize_sets']:>11,} "
            f"{r['subgames']:>14,} {r['matrix_games']:>14,}"
        )
    click.echo(
        f"{'all':>3} {'':>10} {'':>11} {sum(r['subgames'] for r in rows):>14,} "
        f"{sum(r['matrix_games'] for r in rows):>14,}"
    )
