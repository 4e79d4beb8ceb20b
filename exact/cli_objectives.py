"""The win objective on the command line: ``--objective win --lead L`` of ``gops solve``,
``gops table`` and ``gops strategy`` (dispatched here from exact/cli.py), and
``gops compare-objectives N``."""

from __future__ import annotations

import json
import time

import click

from .cli import INTEGER, ProgressBar, format_table, main, one_line_errors, print_strategy
from .cli_limits import check_n
from .errors import GopsInputError

WIN_UNITS = "P(win) - P(loss) for me"


def check_objective(n: int, objective: str, lead, store_dir=None) -> int:
    """The lead to use; --lead and --store need the right objective, and the lead must be
    possible in N-card GOPS (:func:`exact.solve.check_lead`, the API's rule); exit 2
    otherwise."""
    from .solve import check_lead

    if objective != "win":
        raise GopsInputError("--lead applies to --objective win only")
    if store_dir is not None:
        raise GopsInputError("--store holds the points objective only")
    return 0 if lead is None else check_lead(n, lead, "--lead")


def solve_win_with_progress(n, arithmetic="float", top=None, quiet=False, handicap=0):
    from .solve import solve

    bar = ProgressBar(enabled=not quiet)
    try:
        return solve(n, "win", arithmetic, progress=bar, top=top, handicap=handicap)
    finally:
        bar.close()


def solve_win(n, objective, lead, store_dir, chunk_items, quiet):
    """``gops solve N --objective win [--lead L]``."""
    from .solve import check_options
    from .win_dp import warm_up

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
    root = set(range(1, n + 1))
    note = "; 0 by symmetry" if lead == 0 else ""
    click.echo(f"value at the start, lead {lead}: {sol.value(root, root, root, lead):+.3e} "
               f"({WIN_UNITS}{note})")


def table_win(n, objective, lead, as_json, quiet, store_dir, with_ranges):
    """``gops table N --objective win [--lead L]``."""
    from .solve import check_options

    lead = check_objective(n, objective, lead, store_dir)
    if with_ranges:
        raise GopsInputError("--ranges applies to the points objective only")
    check_options(n, "win", "float", handicap=abs(lead))
    sol = solve_win_with_progress(n, quiet=quiet, handicap=abs(lead))
    root = set(range(1, n + 1))
    strategies = {u: sol.strategy(root, root, root, u, lead) for u in range(1, n + 1)}
    table = {u: s.mine for u, s in strategies.items()}
    gap = max(s.gap for s in strategies.values())
    if as_json:
        click.echo(json.dumps({
            "n": n,
            "objective": "win",
            "lead": lead,
            "by_upcard": {str(u): [table[u][b] for b in range(1, n + 1)] for u in table},
            "equilibrium_gap": gap,
        }))
        return
    at = f", starting {lead:+d} points ahead" if lead else ""
    click.echo(f"First move of {n}-card GOPS, win objective{at}: P(bid | upcard)")
    click.echo(format_table(n, table))
    click.echo(
        f"float64; each column is an equilibrium of its matrix game up to a checked gap of {gap:.1e}"
    )


def strategy_win(mine, theirs, deck, upcard, n, exact_, as_json, store_dir, objective, lead):
    """``gops strategy ... --objective win [--lead L]``."""
    from .rules import validate_position
    from .solve import check_options
    from .win_dp import total_points

    arithmetic = "rational" if exact_ else "float"
    if n is not None:
        check_n(n, "strategy")
    m, t, d = validate_position(mine, theirs, deck, upcard, n=n)
    n = check_n(n or max(m | t | d), "strategy")
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
    print_strategy(st, exact_, as_json, f"upcard {upcard}, lead {lead}", WIN_UNITS,
                   json_head={"objective": "win", "lead": lead})


def _mix(strategy_mine: dict) -> str:
    return "  ".join(f"{c}: {p:.4f}" for c, p in strategy_mine.items() if p > 5e-5)


@main.command("compare-objectives")
@click.argument("n", type=INTEGER)
@click.option("--upcard", type=INTEGER, default=None,
              help="First upcard to look at in detail (default N, the paper's sec 5 example).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@one_line_errors
def compare_objectives(n, upcard, quiet):
    """How much winning the points-optimal strategy gives away (paper sec 5).

    The points player plays this package's equilibrium of the expected point difference
    (Rhoads & Bartholdi 2012) and ignores the score.  Its opponent knows that strategy,
    tracks the lead and plays to win: at every position it picks the pure reply that
    maximises its own P(win) - P(loss) against the points player's mix (a best response,
    exact/win_exploit.py).  The first lines compare the game's value for the win objective,
    P(win) - P(loss) of the first player, when both play the win-optimal equilibrium (0 by
    symmetry) with the value the points player gets against that best response, split
    into P(win), P(tie) and P(loss).  The table gives the same per first upcard u, with
    the best reply to the points mix on u.  Finally, for one first upcard (default N; the
    paper's sec 5 looks at N = 9 with the 9 up), the points mix and the win-optimal mix,
    and, for each reply b of the opponent, its P(win) - P(loss) if it then keeps
    best-responding.  float64 throughout; N <= 10 (N = 9 takes about a minute of CPU,
    N = 10 several).
    """
    from .solve import check_options, solve
    from .win_exploit import best_response_to_points

    check_n(n, "compare-objectives")
    check_options(n, "win", "float")
    upcard = n if upcard is None else upcard
    if not 1 <= upcard <= n:
        raise GopsInputError(f"--upcard must be between 1 and {n}, got {upcard}")
    t0 = time.perf_counter()
    bars = [ProgressBar(enabled=not quiet) for _ in range(3)]
    try:
        points = solve(n, progress=bars[0])
        bars[0].close()
        br = best_response_to_points(points, progress=bars[1])
        bars[1].close()
        win = solve(n, "win", progress=bars[2])
    finally:
        for bar in bars:
            bar.close()
    root = frozenset(range(1, n + 1))
    g, tie = br.value(root, root, root)
    click.echo(f"N={n}: the points-optimal strategy against a best response that plays to win")
    click.echo("P(win) - P(loss) of the first player (the win objective), at the start:")
    click.echo(f"  win-optimal equilibrium (both players):       "
               f"{round(win.value(root, root, root), 12) + 0.0:+.6f}  (0 by symmetry)")
    click.echo(f"  points-optimal strategy vs its best response: {g:+.6f}")
    click.echo(f"    P(win) {(1 + g - tie) / 2:.4f}  P(tie) {tie:.4f}  "
               f"P(loss) {(1 - g - tie) / 2:.4f}")
    click.echo(f"so playing for points gives away {-g:.4f} of P(win) - P(loss) "
               "against an opponent who knows the strategy")
    click.echo("\nonce the first upcard u is up:")
    click.echo(f"{'u':>4} {'best reply':>11} {'points vs best reply':>21} {'win-optimal':>12}")
    for u in sorted(root):
        _, replies = br.replies(root, root, root, u)
        best = min(replies, key=lambda b: replies[b][0])
        w = round(win.strategy(root, root, root, u).value, 12) + 0.0  # no "-0.000000"
        click.echo(f"{u:>4} {best:>11} {replies[best][0]:>+21.6f} {w:>+12.6f}")
    mix, replies = br.replies(root, root, root, upcard)
    click.echo(f"\nupcard {upcard} first:")
    click.echo(f"  points-optimal mix: {_mix(mix)}")
    click.echo(f"  win-optimal mix:    {_mix(win.strategy(root, root, root, upcard).mine)}")
    click.echo("  the opponent's reply b against the points mix -> the opponent's "
               "P(win) - P(loss), best-responding afterwards:")
    for b, (gb, _) in replies.items():
        click.echo(f"    {b:>3}: {-gb:+.6f}")
    click.echo(f"float64; {time.perf_counter() - t0:.1f} s")
