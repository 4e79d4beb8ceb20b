"""gops imperfect value-of-information N: what seeing the opponent's bids is worth in
imperfect-information Goofspiel (exact.imperfect.value_of_information), exactly, and how
the first moves of the equilibria differ.  ``exact/cli/__init__.py`` adds the command to
the ``gops imperfect`` group."""

from __future__ import annotations

import decimal
import json
from fractions import Fraction

import click

from exact.cli.common import INTEGER, imperfect_game_options, one_line_errors
from exact.cli.progress import message_lines
from exact.imperfect.value_of_information import (
    Mix,
    value_of_information,
    value_of_information_bounds,
)


def _mix(mix: Mix) -> str:
    return " ".join(f"{c}:{p}" for c, p in sorted(mix.items()) if p)


@click.command("value-of-information")
@click.argument("n", type=INTEGER)
@imperfect_game_options
@click.option(
    "--bounds",
    is_flag=True,
    help="Proven intervals from the float LP's equilibrium (exact best responses) instead "
    "of exact values: seconds instead of minutes; no first moves.",
)
@click.option("--json", "as_json", is_flag=True, help='Print JSON (exact numbers as "p/q").')
@click.option("--quiet", is_flag=True, help="No progress lines.")
@one_line_errors
def value_of_information_command(
    n: int, order: str, objective, bounds: bool, as_json: bool, quiet: bool
):
    """The value of seeing the opponent's bids: the exact value of the game in which one
    player sees the opponent's past bids and the other only who won each round, minus
    the value of OpenSpiel's goofspiel(imp_info=True), both by the sequence-form LP made
    exact; and each equilibrium's first move against the perfect-information one.
    """

    progress = message_lines(not quiet)
    if bounds:
        _print_bounds(value_of_information_bounds(n, order, objective, progress), as_json)
        return
    result = value_of_information(n, order, objective, progress)
    if as_json:
        click.echo(json.dumps(result.to_json()))
        return
    values = result.values
    click.echo(
        f"{n}-card goofspiel, {order} order, {result.game.objective.name} "
        f"({result.to_json()['units']})"
    )
    click.echo(f"imp_info (nobody sees the bids): value {values['imp_info']}")
    click.echo(f"player 0 sees the bids: value {values['p0-sees-bids']}")
    click.echo(f"player 1 sees the bids: value {values['p1-sees-bids']}")
    same = "the same on both sides" if result.symmetric else "NOT the same on both sides"
    click.echo(
        f"value of seeing the bids: {result.value_of_seeing} "
        f"(about {float(result.value_of_seeing):.6f}; seeing player's value {same})"
    )
    click.echo("first moves (total variation distance from the perfect-information mix):")
    for move in result.first_moves:
        d = move.distances()
        click.echo(f"  upcard {move.upcard}: perfect information {_mix(move.perfect)}")
        for name, mix in (
            ("imp_info", move.imp_info),
            ("seeing", move.seeing),
            ("blind", move.blind),
        ):
            click.echo(f"    {name:<9}{_mix(mix)}  (distance {d[name]})")


def _print_bounds(data: dict, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(data))
        return
    click.echo(
        f"{data['n']}-card goofspiel, {data['order']} order, {data['objective']}: "
        "proven intervals (float LP, exact best responses)"
    )
    for name, (lo, hi) in data["values"].items():
        click.echo(f"{name}: value in [{_down(lo)}, {_up(hi)}]")
    lo, hi = data["value_of_seeing"]
    click.echo(f"value of seeing the bids: in [{_down(lo)}, {_up(hi)}]")


def _decimal(value: str, rounding: str) -> str:
    """The exact "p/q" ``value`` as a 12-digit decimal rounded toward ``rounding``."""
    exact = Fraction(value)
    context = decimal.Context(prec=12, rounding=rounding)
    return str(context.divide(decimal.Decimal(exact.numerator), decimal.Decimal(exact.denominator)))


def _down(value: str) -> str:
    return _decimal(value, decimal.ROUND_FLOOR)


def _up(value: str) -> str:
    return _decimal(value, decimal.ROUND_CEILING)
