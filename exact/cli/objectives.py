"""gops compare-objectives: what winning costs the points-optimal strategy (paper sec 5)."""

from __future__ import annotations

import time

import click

from exact.analysis.win_exploit import best_response_to_points
from exact.cli.common import (
    INTEGER,
    NumberArgumentsCommand,
    ProgressBar,
    game_options,
)
from exact.dp import solve as dp_solve  # the module: solve_game looked up at each call
from exact.errors import GopsInputError
from exact.game.objectives import POINTS
from exact.game.spec import GameSpec


def _mix(strategy_mine: dict) -> str:
    return "  ".join(f"{c}: {p:.4f}" for c, p in strategy_mine.items() if p > 5e-5)


@click.command("compare-objectives", cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@click.option(
    "--upcard",
    type=INTEGER,
    default=None,
    help="First upcard to look at in detail (default N, the paper's sec 5 example).",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
@game_options("compare-objectives", objective="win")
def compare_objectives(game: GameSpec, upcard: int | None, quiet: bool) -> None:
    """How much winning the points-optimal strategy gives away (paper sec 5).

    The points player plays this package's equilibrium of the expected point difference
    (Rhoads & Bartholdi 2012) and ignores the score.  Its opponent knows that strategy,
    tracks the lead and plays to win: at every position it picks the pure reply that
    maximises its own P(win) - P(loss) against the points player's mix (a best response,
    exact/analysis/win_exploit.py).  The first lines compare the game's value for the win objective,
    P(win) - P(loss) of the first player, when both play the win-optimal equilibrium (0 by
    symmetry) with the value the points player gets against that best response, split
    into P(win), P(tie) and P(loss).  The table gives the same per first upcard u, with
    the best reply to the points mix on u.  Finally, for one first upcard (default N; the
    paper's sec 5 looks at N = 9 with the 9 up), the points mix and the win-optimal mix,
    and, for each reply b of the opponent, its P(win) - P(loss) if it then keeps
    best-responding.  float64 throughout; N <= 10 (N = 9 takes about a minute of CPU,
    N = 10 several).
    """
    n = game.n
    dp_solve.check_limits(game)
    upcard = n if upcard is None else upcard
    if not 1 <= upcard <= n:
        raise GopsInputError(f"--upcard must be between 1 and {n}, got {upcard}")
    t0 = time.perf_counter()
    bars = [ProgressBar(enabled=not quiet) for _ in range(3)]
    try:
        # The points game of the same N: within the points objective's larger limits.
        points = dp_solve.solve_game(game.replace(objective=POINTS), progress=bars[0])
        bars[0].close()
        br = best_response_to_points(points, progress=bars[1])
        bars[1].close()
        win = dp_solve.solve_game(game, progress=bars[2])
    finally:
        for bar in bars:
            bar.close()
    _print_start(n, br, win)
    _print_first_upcards(n, br, win, upcard)
    click.echo(f"float64; {time.perf_counter() - t0:.1f} s")


def _print_start(n: int, br, win) -> None:
    """The start of the game: the win objective's value against the points strategy's."""
    root = frozenset(range(1, n + 1))
    g, tie = br.value(root, root, root)
    click.echo(f"N={n}: the points-optimal strategy against a best response that plays to win")
    click.echo("P(win) - P(loss) of the first player (the win objective), at the start:")
    click.echo(
        f"  win-optimal equilibrium (both players):       "
        f"{round(float(win.value(root, root, root)), 12) + 0.0:+.6f}  (0 by symmetry)"
    )
    click.echo(f"  points-optimal strategy vs its best response: {g:+.6f}")
    click.echo(
        f"    P(win) {(1 + g - tie) / 2:.4f}  P(tie) {tie:.4f}  P(loss) {(1 - g - tie) / 2:.4f}"
    )
    click.echo(
        f"so playing for points gives away {-g:.4f} of P(win) - P(loss) "
        "against an opponent who knows the strategy"
    )


def _print_first_upcards(n: int, br, win, upcard: int) -> None:
    """Each first upcard's best reply, then one upcard's mixes and replies in detail."""
    root = frozenset(range(1, n + 1))
    click.echo("\nonce the first upcard u is up:")
    click.echo(f"{'u':>4} {'best reply':>11} {'points vs best reply':>21} {'win-optimal':>12}")
    for u in sorted(root):
        _, replies = br.replies(root, root, root, u)
        best = min(replies, key=lambda b: replies[b][0])
        w = round(float(win.strategy(root, root, root, u).value), 12) + 0.0  # no "-0.000000"
        click.echo(f"{u:>4} {best:>11} {replies[best][0]:>+21.6f} {w:>+12.6f}")
    mix, replies = br.replies(root, root, root, upcard)
    click.echo(f"\nupcard {upcard} first:")
    click.echo(f"  points-optimal mix: {_mix(mix)}")
    click.echo(f"  win-optimal mix:    {_mix(win.strategy(root, root, root, upcard).mine)}")
    click.echo(
        "  the opponent's reply b against the points mix -> the opponent's "
        "P(win) - P(loss), best-responding afterwards:"
    )
    for b, (gb, _) in replies.items():
        click.echo(f"    {b:>3}: {-gb:+.6f}")
