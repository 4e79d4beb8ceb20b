"""``gops solve N --players 3``: three-player GOPS solved, its NashConv certified.

:func:`with_three_players` gives the two-player ``gops solve`` command a route: a command
line naming ``--players 3`` is parsed and run by :data:`solve_three` instead (``--players
2`` is the two-player command itself).  Registered by :mod:`exact.cli`.
"""

from __future__ import annotations

import json

import click

from exact.atomic import atomic_file
from exact.cli.common import INTEGER, NumberArgumentsCommand, one_line_errors
from exact.errors import SolverError
from exact.three import ThreeSolution, certify, solve
from exact.three.openspiel import policy_json
from exact.three.rules import OBJECTIVES, ORDERS, TIE_RULES

#: The NashConv every reported three-player equilibrium is proven below.
EPSILON = 1e-9


@click.command("solve", cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@click.option("--players", type=click.Choice(["3"]), required=True, help="3: three players.")
@click.option(
    "--tie-rule",
    type=click.Choice(TIE_RULES),
    default="split",
    show_default=True,
    help="A tie for the high bid: split (the tied share it), third (a two-way tie gives it "
    "to the third player), discard (OpenSpiel: any tie discards it).",
)
@click.option(
    "--objective",
    type=click.Choice(OBJECTIVES),
    default="points",
    show_default=True,
    help="points: each player's expected points; top: the chance of finishing on top "
    "(a tie at the top shares the win equally).",
)
@click.option("--order", type=click.Choice(ORDERS), default="random", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--policy-out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the equilibrium as an OpenSpiel policy (JSON; --tie-rule discard).",
)
@one_line_errors
def solve_three(n, players, tie_rule, objective, order, as_json, policy_out) -> None:
    """Solve N-card three-player GOPS: the logit-limit subgame-perfect equilibrium, with
    its NashConv in the whole game proven below 1e-9."""
    sol = solve(n, tie_rule, objective, order)
    if policy_out is not None:
        table = policy_json(sol)
        with atomic_file(policy_out, "w") as fh:
            json.dump(table, fh)
    report = certify(sol)
    out = summary_json(sol, report)
    if as_json:
        click.echo(json.dumps(out))
    else:
        print_summary(sol, out)
    if report.bound > EPSILON:  # shown above, then said as a failure (exit 2)
        raise SolverError(f"the proven NashConv bound {report.bound:.3g} is not below {EPSILON:g}")


def first_move(sol: ThreeSolution) -> dict[str, dict[str, float]]:
    """{upcard: {bid: probability}} at the start (the three seats play alike)."""
    n = sol.game.n
    hand = tuple(range(1, n + 1))
    out = {}
    for u in sol.game.next_prizes(hand):
        mix = sol.mixes((hand, hand, hand), hand, (0, 0, 0), u)[0]
        out[str(u)] = {str(c): float(p) for c, p in zip(hand, mix)}
    return out


def summary_json(sol: ThreeSolution, report) -> dict:
    return {
        "game": sol.game.to_json(),
        "seat_values": [float(v) for v in sol.seat_values()],
        "nashconv": {
            "bound": report.bound,
            "estimate": report.estimate,
            "epsilon": EPSILON,
            "certified": report.bound <= EPSILON,
            "rounding_factors": report.depth,
        },
        "max_stage_regret": sol.max_stage_regret,
        "first_move": first_move(sol),
        "canonical_positions": sum(sol.level_counts().values()),
        "stage_games": dict(sorted(sol.methods.items())),
        "seconds": round(sol.seconds, 3),
    }


def print_summary(sol: ThreeSolution, out: dict) -> None:
    what = "expected points" if sol.game.objective == "points" else "chance of finishing on top"
    click.echo(sol.game.describe())
    click.echo(f"each seat's {what}: " + ", ".join(f"{v:.6f}" for v in out["seat_values"]))
    nc = out["nashconv"]
    verdict = "below" if nc["certified"] else "NOT below"
    click.echo(
        f"NashConv in the whole game <= {nc['bound']:.3g} (proven; {verdict} epsilon {EPSILON:g})"
    )
    click.echo(
        f"canonical positions {out['canonical_positions']}, stage games "
        + ", ".join(f"{m} {c}" for m, c in out["stage_games"].items())
    )
    hand = range(1, sol.game.n + 1)
    click.echo("first move, P(bid) for each upcard:")
    click.echo("upcard " + "".join(f"{b:>7}" for b in hand))
    for u, mix in out["first_move"].items():
        click.echo(f"{u:>6} " + "".join(f"{mix[str(b)]:7.3f}" for b in hand))


def _players(args: list[str]) -> str | None:
    """The value of --players on a command line (None if absent)."""
    for i, arg in enumerate(args):
        if arg == "--players" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--players="):
            return arg.split("=", 1)[1]
    return None


def _without_players_two(args: list[str]) -> list[str]:
    out, skip = [], False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg == "--players" and i + 1 < len(args) and args[i + 1] == "2":
            skip = True
            continue
        if arg == "--players=2":
            continue
        out.append(arg)
    return out


def with_three_players(two_player: click.Command) -> click.Command:
    """``two_player`` (gops solve) routed to :data:`solve_three` by ``--players 3``."""

    class Routed(type(two_player)):  # type: ignore[misc]
        def make_context(self, info_name, args, parent=None, **extra):
            players = _players(args)
            if players not in (None, "2"):
                return solve_three.make_context(info_name, args, parent=parent, **extra)
            return super().make_context(
                info_name, _without_players_two(args), parent=parent, **extra
            )

    routed = Routed.__new__(Routed)
    routed.__dict__.update(two_player.__dict__)
    routed.epilog = (
        (two_player.epilog or "")
        + "\n\nThree players: gops solve N --players 3 --tie-rule split|third|discard "
        "(gops solve --players 3 --help)."
    )
    return routed
