"""``gops fixed-bids``: the game in which both players commit to all their bids up front
(exact.analysis.fixed_bids).  Registered on the ``gops`` group by :mod:`exact.cli`."""

from __future__ import annotations

import json

import click

from exact.cli.common import INTEGER, NumberArgumentsCommand, one_line_errors
from exact.cli.limits import check_command_n
from exact.cli.render import fraction_text


@click.command("fixed-bids", cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@click.option("--exact", "exact_", is_flag=True,
              help="Exact rationals, verified against all N! bijections (N <= 7).")
@click.option("--adaptivity", is_flag=True,
              help="Also what the GOPS equilibrium gains against this one played as a bot "
                   "in the real game (exact evaluation; N <= 8).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (exact numbers as \"p/q\").")
@one_line_errors
def fixed_bids(n, exact_, adaptivity, as_json):
    """Solve the fixed-bid game: each player fixes a bid for every prize before the first.

    A strategy is a bijection prize -> bid card; the payoff is the sum over the prizes p of
    p * sign(my bid - their bid).  The game is symmetric (value 0); the equilibrium is found
    by double oracle, each best reply a linear assignment problem.
    """
    from exact.analysis.fixed_bids import adaptivity_gain, solve_fixed_bids
    from exact.dp.solve import solve

    check_command_n(n, "fixed-bids")
    if exact_:
        check_command_n(n, "fixed-bids", "--exact")
    if adaptivity:  # refuse before the work
        check_command_n(n, "fixed-bids", "--adaptivity")
    eq = solve_fixed_bids(n, "rational" if exact_ else "float")
    fmt = fraction_text if eq.exact else (lambda p: f"{p:.6f}")
    mix = sorted(eq.mix.items(), key=lambda item: (-item[1], item[0]))
    gain = None
    if adaptivity:
        sol = solve(n, arithmetic="rational" if exact_ and n <= 6 else "float")
        gain = adaptivity_gain(eq, sol)
    if as_json:
        out = {"n": n, "exact": eq.exact, "value": 0, "iterations": eq.iterations,
               "exploitability": fmt(eq.exploitability) if eq.exact else eq.exploitability,
               "mix": [{"bids": list(s), "p": fmt(p) if eq.exact else p} for s, p in mix]}
        if gain is not None:
            out["adaptivity_gain"] = (fraction_text(gain[0]) if gain[1] == 0 else gain[0])
            out["adaptivity_error_bound"] = gain[1]
        click.echo(json.dumps(out))
        return
    click.echo(f"The {n}-card fixed-bid game: value 0 (symmetric); an equilibrium mixes "
               f"{len(mix)} bijections (bids for prizes 1..{n}):")
    for s, p in mix:
        click.echo(f"  {' '.join(f'{b:>2}' for b in s)}   {fmt(p)}")
    if eq.exact:
        click.echo("exact; verified: no bijection gains against it (all "
                   f"{n}! checked in rationals)")
    else:
        click.echo(f"float64; the best reply (a linear assignment) gains {eq.exploitability:.1e} "
                   f"after {eq.iterations} double-oracle iterations")
    if gain is not None:
        value, bound = gain
        exactness = "exact" if bound == 0 else f"float, within {bound:.1e}"
        click.echo(f"adaptivity: the GOPS equilibrium gains {fmt(value) if bound == 0 else f'{value:.6f}'}"
                   f" points per game against it in the real game ({exactness})")
