"""``gops count N``: the canonical subgames per level, in closed form
(:mod:`exact.game.counts`).  It imports no solver, no numpy: it answers at once."""

from __future__ import annotations

from math import comb

import click

from exact.cli.base import INTEGER, NumberArgumentsCommand, one_line_errors
from exact.cli.limits import check_command_n
from exact.game.counts import column_count, pattern_count


@click.command(cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@one_line_errors
def count(n: int) -> None:
    """Number of canonical subgames per level of N-card GOPS."""
    rows = count_rows(check_command_n(n, "count"))
    click.echo(
        f"{'k':>3} {'patterns':>10} {'prize sets':>11} {'subgames':>14} {'matrix games':>14}"
    )
    for r in rows:
        click.echo(
            f"{r['k']:>3} {r['patterns']:>10,} {r['prize_sets']:>11,} "
            f"{r['subgames']:>14,} {r['matrix_games']:>14,}"
        )
    click.echo(
        f"{'all':>3} {'':>10} {'':>11} {sum(r['subgames'] for r in rows):>14,} "
        f"{sum(r['matrix_games'] for r in rows):>14,}"
    )


def count_rows(n: int) -> list[dict]:
    """The rows of ``gops count N`` in closed form, in milliseconds at any N (building the
    levels' transition tables, as :func:`exact.game.encoding.count_table` does, takes
    minutes at N = 16): per level k, pattern_count(n, k) patterns and C(n, k) prize sets;
    a matrix game per prize in hand for every pattern but the identical hands (worth 0),
    one per antisymmetric pair (column_count counts that pattern as a column of its own).

    >>> count_rows(5)[2]
    {'k': 2, 'patterns': 13, 'prize_sets': 10, 'subgames': 130, 'matrix_games': 120}
    """
    rows = []
    for k in range(n + 1):
        patterns, prize_sets = pattern_count(n, k), comb(n, k)
        games = (column_count(n, k) - 1) * prize_sets * k if k else 0
        rows.append(
            {
                "k": k,
                "patterns": patterns,
                "prize_sets": prize_sets,
                "subgames": patterns * prize_sets,
                "matrix_games": games,
            }
        )
    return rows
