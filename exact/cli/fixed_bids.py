"""``gops fixed-bids``: the game in which both players commit to all their bids up front
(exact.analysis.fixed_bids).  Registered on the ``gops`` group by :mod:`exact.cli`."""

from __future__ import annotations

import json

import click

from exact.analysis.adaptivity import ADAPTIVITY_VALUE_MAX_N, best_reply, solve_adaptivity
from exact.analysis.fixed_bids import adaptivity_gain, solve_fixed_bids
from exact.cli.common import INTEGER, NumberArgumentsCommand, one_line_errors
from exact.cli.limits import check_command_n
from exact.cli.render import fraction_text
from exact.dp.solve import solve
from exact.game.objectives import FLOAT, RATIONAL


@click.command("fixed-bids", cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@click.option(
    "--exact",
    "exact_",
    is_flag=True,
    help="Exact rationals, verified against all N! bijections (N <= 7).",
)
@click.option(
    "--adaptivity",
    is_flag=True,
    help="Also the value of adaptivity: the value of the game of an adaptive GOPS "
    "player against one who commits to every bid up front (exact, verified; "
    "N <= 5), and what our GOPS equilibrium gains against this fixed-bid mix "
    "in the real game (depends on the equilibrium; N <= 8).",
)
@click.option("--json", "as_json", is_flag=True, help='Print JSON (exact numbers as "p/q").')
@one_line_errors
def fixed_bids(n: int, exact_: bool, adaptivity: bool, as_json: bool) -> None:
    """Solve the fixed-bid game: each player fixes a bid for every prize before the first.

    A strategy is a bijection prize -> bid card; the payoff is the sum over the prizes p of
    p * sign(my bid - their bid).  The game is symmetric (value 0); the equilibrium is found
    by double oracle, each best reply a linear assignment problem.

    --adaptivity: the value of adaptivity is the value of the zero-sum game "adaptive GOPS
    player against committed player" (unique, as every game value is) minus the fixed-bid
    game's 0: what being able to adapt is worth against the best committed player.
    """
    check_command_n(n, "fixed-bids")
    if exact_:
        check_command_n(n, "fixed-bids", "--exact")
    if adaptivity:  # refuse before the work
        check_command_n(n, "fixed-bids", "--adaptivity")
    eq = solve_fixed_bids(n, RATIONAL if exact_ else FLOAT)
    mix = sorted(eq.mix.items(), key=lambda item: (-item[1], item[0]))
    adapt = _adaptivity(n, eq, exact_) if adaptivity else None
    if as_json:
        out = _fixed_bids_json(n, eq, mix)
        if adapt is not None:
            out |= _adaptivity_json(*adapt)
        click.echo(json.dumps(out))
        return
    _print_fixed_bids(n, eq, mix)
    if adapt is not None:
        _print_adaptivity(*adapt)


def _number(eq):
    """How the numbers of an equilibrium are written: p/q when exact, else 6 decimals."""
    return fraction_text if eq.exact else (lambda p: f"{p:.6f}")


def _adaptivity(n: int, eq, exact_: bool) -> tuple:
    """(gain, value, reply) of --adaptivity: our GOPS equilibrium's gain against the mix
    ``eq`` (and its error bound), the value of adaptivity (N <= ADAPTIVITY_VALUE_MAX_N,
    else None) and an adaptive best reply's gain against the mix (exact mixes only)."""
    sol = solve(n, arithmetic=RATIONAL if exact_ and n <= 6 else FLOAT)
    gain, value, reply = adaptivity_gain(eq, sol), None, None
    if n <= ADAPTIVITY_VALUE_MAX_N:
        value = solve_adaptivity(n)
        if eq.exact:  # an adaptive best reply to this very mix (exact DP)
            reply = best_reply(n, dict(eq.mix))[0]
    return gain, value, reply


def _fixed_bids_json(n: int, eq, mix) -> dict[str, object]:
    fmt = _number(eq)
    return {
        "n": n,
        "exact": eq.exact,
        "value": 0,
        "iterations": eq.iterations,
        "exploitability": fmt(eq.exploitability) if eq.exact else eq.exploitability,
        "mix": [{"bids": list(s), "p": fmt(p) if eq.exact else p} for s, p in mix],
    }


def _adaptivity_json(gain, value, reply) -> dict[str, object]:
    committed = None
    if value is not None:
        ranked = sorted(value.committed.items(), key=lambda item: (-item[1], item[0]))
        committed = [{"bids": list(s), "p": fraction_text(p)} for s, p in ranked]
    return {
        "adaptivity_value": None if value is None else fraction_text(value.value),
        "adaptivity_value_float": None if value is None else float(value.value),
        "committed_optimal_mix": committed,
        "best_reply_gain_against_this_mix": None if reply is None else fraction_text(reply),
        "our_equilibrium_gain": fraction_text(gain[0]) if gain[1] == 0 else gain[0],
        "our_equilibrium_gain_error_bound": gain[1],
    }


def _print_fixed_bids(n: int, eq, mix) -> None:
    fmt = _number(eq)
    click.echo(
        f"The {n}-card fixed-bid game: value 0 (symmetric); an equilibrium mixes "
        f"{len(mix)} bijections (bids for prizes 1..{n}):"
    )
    for s, p in mix:
        click.echo(f"  {' '.join(f'{b:>2}' for b in s)}   {fmt(p)}")
    if eq.exact:
        click.echo(
            f"exact; verified: no bijection gains against it (all {n}! checked in rationals)"
        )
    else:
        click.echo(
            f"float64; the best reply (a linear assignment) gains {eq.exploitability:.1e} "
            f"after {eq.iterations} double-oracle iterations"
        )


def _print_adaptivity(gain, value, reply) -> None:
    if value is not None:
        click.echo(
            f"value of adaptivity: {fraction_text(value.value)} = {float(value.value):.6f} "
            "points per game (exact, verified)"
        )
        click.echo(
            '  the value of the zero-sum game "adaptive GOPS player against a player '
            'who commits to every bid up front"'
        )
        click.echo(
            "  minus the fixed-bid game's 0; unique, as every game value is (the "
            f"committed player's optimal mix uses {len(value.committed)} bijections)"
        )
    else:
        click.echo(
            f"value of adaptivity: computed for N <= {ADAPTIVITY_VALUE_MAX_N} only "
            "(one LP over every state of the adaptive player)"
        )
    if reply is not None:
        click.echo(
            f"an adaptive best reply to the fixed-bid mix above gains {fraction_text(reply)}"
            f" = {float(reply):.6f} (exact)"
        )
    g, bound = gain
    text = (
        f"{fraction_text(g)} = {float(g):.6f} (exact)"
        if bound == 0
        else f"{g:.6f} (float, within {bound:.1e})"
    )
    click.echo(
        f"against our equilibrium: our GOPS equilibrium gains {text} against the "
        "fixed-bid mix above;"
    )
    click.echo(
        "  it depends on which optimal GOPS equilibrium is played (N = 5: 0.397573 for "
        "ours, 0.398303 for another), so it is not a property of the game"
    )
