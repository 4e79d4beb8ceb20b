"""Three-player GOPS (bids revealed each round): subgame-perfect equilibria, certified.

A sibling of the two-player solver, on top of :mod:`exact.game`: the game
(:mod:`~exact.three.rules`), canonical positions (:mod:`~exact.three.canonical`), the
stage equilibrium chosen by the logit principal branch (:mod:`~exact.three.stage`),
backward induction (:mod:`~exact.three.solve`), the independent certified NashConv
(:mod:`~exact.three.nashconv`) and the OpenSpiel policy file (:mod:`~exact.three.openspiel`).
"""

from __future__ import annotations

from exact.three.induction import ThreeSolution, solve_game
from exact.three.nashconv import NashConvReport, nashconv
from exact.three.rules import ThreeGame

__all__ = ["NashConvReport", "ThreeGame", "ThreeSolution", "certify", "solve"]


def solve(
    n: int, tie_rule: str = "split", objective: str = "points", order: str = "random"
) -> ThreeSolution:
    """The chosen subgame-perfect equilibrium of n-card three-player GOPS (float)."""
    return solve_game(ThreeGame.parse(n, tie_rule, objective, order))


def certify(solution: ThreeSolution) -> NashConvReport:
    """The solution's NashConv in the whole game, with its proven bound."""
    g = solution.game
    return nashconv(g.n, g.tie_rule, g.objective, g.order, solution.mixes)
