"""Three-player GOPS (bids revealed each round): subgame-perfect equilibria, certified.

A sibling of the two-player solver, on top of :mod:`exact.game`: the game
(:mod:`~exact.three.rules`), canonical positions (:mod:`~exact.three.canonical`), the
stage equilibrium chosen by the logit principal branch (:mod:`~exact.three.stage`, its
steps in :mod:`~exact.three.trace`, :mod:`~exact.three.gambit`, :mod:`~exact.three.polish`
and :mod:`~exact.three.supports`), backward induction (:mod:`~exact.three.induction`),
the independent certified NashConv (:mod:`~exact.three.nashconv`), the OpenSpiel policy
file (:mod:`~exact.three.openspiel`), the first-move table and the mixes at any position
(:mod:`~exact.three.tables`) and the two-player equilibrium's exact loss in the
three-player game (:mod:`~exact.three.twoplayer`).
"""

from __future__ import annotations

from exact.three.induction import ThreeSolution, solve_game
from exact.three.nashconv import NashConvReport, nashconv
from exact.three.rules import ThreeGame
from exact.three.tables import FirstMoveTable, ThreeStrategy, first_move_table, strategy
from exact.three.twoplayer import TwoPlayerLoss, two_player_loss

__all__ = [
    "FirstMoveTable",
    "NashConvReport",
    "ThreeGame",
    "ThreeSolution",
    "ThreeStrategy",
    "TwoPlayerLoss",
    "certify",
    "first_move_table",
    "solve",
    "strategy",
    "two_player_loss",
]


def solve(
    n: int,
    tie_rule="split",
    objective="points",
    order="random",
    progress=None,
) -> ThreeSolution:
    """The chosen subgame-perfect equilibrium of n-card three-player GOPS (float): the tie
    rule, objective and order as names or the objects of :mod:`exact.game`;
    ``progress``, if given, is called with the stage games solved so far after each."""
    return solve_game(ThreeGame.parse(n, tie_rule, objective, order), progress)


def certify(solution: ThreeSolution, progress=None) -> NashConvReport:
    """The solution's NashConv in the whole game, with its proven bound; ``progress``
    told the positions walked so far (:func:`exact.three.nashconv.nashconv`)."""
    return nashconv(solution.game, solution.mixes, progress=progress)
