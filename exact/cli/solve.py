"""gops solve, table, strategy and count: the game solved, its first move, any position."""

from __future__ import annotations

import json
import time

import click

from exact.analysis.certified import certify_strategy
from exact.errors import GopsInputError

from exact.cli.common import (
    certified_columns,
    certified_json,
    print_certified_table,
    one_line_errors,
    ProgressBar,
    solve_with_progress,
    solve_win_with_progress,
    load_or_solve,
    INTEGER,
    card_list,
    NumberArgumentsCommand,
    objective_options,
    check_objective,
    WIN_UNITS,
    format_table,
    print_strategy,
)
from exact.cli.limits import check_command_n, objective_flag


@click.command(cls=NumberArgumentsCommand)
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
    from exact.kernels.points import warm_up
    from exact.dp.solve import check_options

    check_command_n(n, "solve", objective_flag(objective))
    if objective != "points" or lead is not None:
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
    print_radius(sol)
    root = set(range(1, n + 1))
    click.echo(f"value at the start: {sol.value(root, root, root):+.3e} (0 by symmetry)")


def print_radius(sol) -> None:
    """The certified radius: the largest over the levels (exact.kernels.bounds)."""
    radius = max(sol.radii)
    if radius < float("inf"):
        click.echo(f"certified: every stored value within {radius:.1e} of the exact one")
    else:
        click.echo("no certified radius (a store written before radii were kept)")


def solve_win(n, objective, lead, store_dir, chunk_items, quiet):
    """``gops solve N --objective win [--lead L]``."""
    from exact.dp.solve import check_options
    from exact.kernels.win import warm_up

    lead = check_objective(n, objective, lead, store_dir)
    if chunk_items is not None:
        raise GopsInputError("--chunk-items applies to --store only")
    check_options(n, "win", "float", handicap=abs(lead))
    jit = warm_up()
    sol = solve_win_with_progress(n, quiet=quiet, handicap=abs(lead))
    st = sol.stats
    click.echo(f"N={n} objective=win arithmetic=float")
    click.echo("canonical subgames (pattern, prizes, lead), undecided and reachable: "
               f"{st.subgames:,}")
    click.echo(f"matrix games solved: {st.matrix_games:,} "
               "(antisymmetric halves, sure wins and sure losses skipped)")
    click.echo(f"time: {st.seconds:.2f} s (plus {jit:.2f} s JIT load/compile)")
    click.echo(f"peak memory: {st.peak_memory_bytes / 2**20:.0f} MiB")
    print_radius(sol)
    root = set(range(1, n + 1))
    note = "; 0 by symmetry" if lead == 0 else ""
    click.echo(f"value at the start, lead {lead}: {sol.value(root, root, root, lead):+.3e} "
               f"({WIN_UNITS}{note})")


def solve_store_with_progress(n, store_dir, chunk_items, quiet):
    """Solve into (or resume) a store; returns the loaded Solution and its SolveStats."""
    from exact.dp.solve import points_stats
    from exact.dp.store import load, solve_into_store

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
def table(n, as_json, quiet, store_dir, with_ranges, certified, objective, lead):
    """The first-move table of N-card GOPS (rows = bids, columns = upcards)."""
    from exact.dp.solve import check_options

    check_command_n(n, "table", objective_flag(objective))
    win = objective != "points" or lead is not None
    if win:
        lead = check_objective(n, objective, lead, store_dir)
        if with_ranges:
            raise GopsInputError("--ranges applies to the points objective only")
        check_options(n, "win", "float", handicap=abs(lead))
        sol = solve_win_with_progress(n, quiet=quiet, handicap=abs(lead))
    else:
        check_options(n, "points", "float")
        sol = load_or_solve(n, store_dir, quiet)
    root = set(range(1, n + 1))
    strategies = {u: sol.strategy(root, root, root, u, lead) for u in range(1, n + 1)}
    table = {u: s.mine for u, s in strategies.items()}
    gap = max(s.gap for s in strategies.values())
    games = certified_columns(sol, lead) if certified else None
    if with_ranges:
        from exact.analysis.ranges import first_move_ranges, format_ranges, ranges_json
        from exact.limits import SOLVE_MAX_N

        exact_ = n <= SOLVE_MAX_N["points", "rational"]
        ranges = first_move_ranges(
            solve_with_progress(n, arithmetic="rational", quiet=quiet) if exact_ else sol)
    if as_json:
        out = {"n": n, "objective": sol.objective}
        if win:
            out["lead"] = lead
        out["by_upcard"] = {str(u): [table[u][b] for b in range(1, n + 1)] for u in table}
        out["equilibrium_gap"] = gap
        if with_ranges:
            out["ranges"] = ranges_json(ranges)
        if certified:
            out["certified"] = {str(u): certified_json(g, root, root) for u, g in games.items()}
        click.echo(json.dumps(out))
        return
    at = f", starting {lead:+d} points ahead" if win and lead else ""
    click.echo(f"First move of {n}-card GOPS, {sol.objective} objective{at}: P(bid | upcard)")
    click.echo(format_table(n, table))
    click.echo(
        f"float64; each column is an equilibrium of its matrix game up to a checked gap of {gap:.1e}"
    )
    if certified:
        print_certified_table(table, games)
    if with_ranges:
        click.echo(format_ranges(n, ranges, exact_))


@click.command(cls=NumberArgumentsCommand)
@click.option("--mine", required=True, callback=card_list, help="My hand, e.g. 2,4.")
@click.option("--theirs", required=True, callback=card_list, help="Their hand, e.g. 1,3.")
@click.option("--deck", required=True, callback=card_list, help="Prizes left, upcard included.")
@click.option("--upcard", required=True, type=INTEGER, help="The prize turned up.")
@click.option("--n", "n", type=INTEGER, default=None, help="Cards per suit (default: largest card seen).")
@click.option("--exact", "exact_", is_flag=True, help="Exact rational equilibrium (hands of at most 8 cards).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (exact numbers as \"p/q\" strings).")
@click.option("--store", "store_dir", type=click.Path(file_okay=False), default=None,
              help="Read the values from a store (its N is the game's N).")
@click.option("--certified", is_flag=True,
              help="Prove each equilibrium: an interval for every exact probability (or why not).")
@objective_options
@one_line_errors
def strategy(mine, theirs, deck, upcard, n, exact_, as_json, store_dir, certified, objective,
             lead):
    """The equilibrium at any position once the upcard is turned."""
    from exact.game.rules import validate_position
    from exact.dp.solve import check_options

    if certified and exact_:
        raise GopsInputError("--certified proves float results; --exact ones are exact already")
    if objective != "points" or lead is not None:
        return strategy_win(mine, theirs, deck, upcard, n, exact_, as_json, store_dir,
                            objective, lead, certified)
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
        sol = solve_with_progress(n, arithmetic=arithmetic, top=top)
    else:
        sol = load_or_solve(n, store_dir, quiet=False, top=top)
    st = sol.strategy(m, t, d, upcard)
    game = certify_strategy(sol, m, t, d, upcard) if certified else None
    print_strategy(st, exact_, as_json, f"upcard {upcard}", "expected point difference",
                   certified=game, hands=(m, t))


def strategy_win(mine, theirs, deck, upcard, n, exact_, as_json, store_dir, objective, lead,
                 certified=False):
    """``gops strategy ... --objective win [--lead L]``."""
    from exact.game.rules import validate_position
    from exact.dp.solve import check_options
    from exact.kernels.win import total_points

    arithmetic = "rational" if exact_ else "float"
    if n is not None:
        check_command_n(n, "strategy")
    m, t, d = validate_position(mine, theirs, deck, upcard, n=n)
    n = check_command_n(n or max(m | t | d), "strategy")
    lead = check_objective(n, objective, lead, store_dir)
    top = len(d) - 1
    # Any possible lead is a position (a handicap included); solve every lead reachable
    # from this one.
    handicap = max(0, abs(lead) - (total_points(n) - sum(d)))
    if abs(lead) > sum(d):
        top = 0  # decided: nothing to solve
    check_options(n, "win", arithmetic, top, handicap)
    sol = solve_win_with_progress(n, arithmetic, top=top, handicap=handicap)
    st = sol.strategy(m, t, d, upcard, lead)
    game = certify_strategy(sol, m, t, d, upcard, lead) if certified else None
    print_strategy(st, exact_, as_json, f"upcard {upcard}, lead {lead}", WIN_UNITS,
                   json_head={"objective": "win", "lead": lead}, certified=game, hands=(m, t))


@click.command(cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@one_line_errors
def count(n):
    """Number of canonical subgames per level of N-card GOPS."""
    from exact.game.encoding import count_table

    rows = count_table(check_command_n(n, "count"))
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
