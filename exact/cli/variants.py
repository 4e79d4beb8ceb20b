"""``gops variant``: the first move of a solved two-player variant (exact.dp.variant_solver).

Registered on the ``gops`` group by :mod:`exact.cli`."""

from __future__ import annotations

import json

import click

from exact.cli.common import (
    INTEGER,
    NumberArgumentsCommand,
    format_table,
    game_options,
    presolve_variant,
)
from exact.cli.limits import check_command_n
from exact.cli.render import fraction_text
from exact.game.spec import GameSpec
from exact.game.variants import get_variant

#: How each solvable variant is named in the table's title.
TITLES = {
    "twelve": "the 12-round game with {n} cards (aces out, the last prize discarded)",
    "dummy": "{n}-card GOPS with a random dummy bidder (ties for high split the prize)",
    "standard": "{n}-card GOPS (standard rules, by the generic variant recursion)",
}


@click.command(cls=NumberArgumentsCommand)
@click.argument("variant", type=click.Choice(["twelve", "dummy", "standard"]))
@click.argument("n", type=INTEGER)
@click.option(
    "--exact",
    "exact_",
    is_flag=True,
    help="Rational arithmetic: every matrix game's equilibrium verified exactly.",
)
@click.option("--json", "as_json", is_flag=True, help='Print JSON (exact numbers as "p/q").')
@game_options(
    "variant",
    n=lambda options: check_command_n(
        options["n"], "variant", options["variant"], "--exact" if options["exact_"] else None
    ),
    arithmetic=lambda options: "rational" if options["exact_"] else "float",
)
def variant(game: GameSpec, variant: str, exact_: bool, as_json: bool) -> None:
    """Solve a two-player variant of GOPS and print its first-move table.

    The variants of the "Psychological JuJitsu" rules write-up that stay two-player and
    zero-sum; the payoff is your points minus the opponent's.

    twelve: each player bids with 2..N for N - 1 rounds and the prize left over is
    discarded (the write-up's 12-round game is N = 13; solved here for N <= 9, exact
    N <= 7).  dummy: a third, random bidder turns up a card of its own suit after the
    bids (N <= 6, exact N <= 5).  standard: the standard game by the same recursion
    (N <= 6, exact N <= 5), a cross-check of the much faster `gops table`.
    """
    n = game.n
    sol = presolve_variant(get_variant(variant), game)  # the argument parsed once
    mine, theirs, dummy, deck = sol.start()
    strategies = {u: sol.strategy(mine, theirs, deck, u, dummy) for u in sorted(deck)}
    table = {u: st.mine for u, st in strategies.items()}
    gap = max(st.gap for st in strategies.values())
    value = sol.value(mine, theirs, deck, dummy)
    if as_json:
        num = fraction_text if sol.exact else float
        click.echo(
            json.dumps(
                {
                    "variant": variant,
                    "n": n,
                    "exact": sol.exact,
                    "bids": sorted(mine),
                    "by_upcard": {str(u): [num(table[u][b]) for b in sorted(mine)] for u in table},
                    "upcard_values": {str(u): num(st.value) for u, st in strategies.items()},
                    "value": num(value),
                    "states": sol.states,
                    "matrix_games": sol.matrix_games,
                    "seconds": sol.seconds,
                    "equilibrium_gap": gap,
                }
            )
        )
        return
    click.echo(f"First move of {TITLES[variant].format(n=n)}: P(bid | upcard)")
    click.echo(format_table(n, table))
    click.echo(
        f"game value {_show(value)}; {sol.states:,} states, "
        f"{sol.matrix_games:,} matrix games, {sol.seconds:.1f} s"
    )
    if sol.exact:
        click.echo("exact: rational arithmetic, every matrix game's equilibrium verified")
    else:
        click.echo(
            f"float64; each column is an equilibrium of its matrix game up to a checked "
            f"gap of {gap:.1e}"
        )


def _show(value) -> str:
    """The value at the start: 0 by symmetry, exactly when rational."""
    if not isinstance(value, float):
        return f"{fraction_text(value)} (exact; the players are alike)"
    return f"{value:+.1e} (float64; exactly 0 by symmetry, the players are alike)"
