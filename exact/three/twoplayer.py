"""What the two-player equilibrium loses in the three-player game, exactly.

The deviation judged (points objective):

* seat 0 plays the **two-player equilibrium against each opponent in turn at random**:
  at a position (hands H0, H1, H2, prizes P, upcard u) its mix is

      sigma2(H, P, u) = 1/2 s(H0, H1, P, u) + 1/2 s(H0, H2, P, u),

  where s(mine, theirs, P, u) is the exact rational equilibrium mix of the two-player
  game's row player (:func:`exact.solve` with ``arithmetic="rational"``, the solver's own
  equilibrium of the point-difference game; Rhoads & Bartholdi 2012); equivalently, each
  round it picks one opponent by a fair coin and bids as the two-player equilibrium does
  against that opponent's hand, as if the third player were not there;
* seats 1 and 2 play the three-player equilibrium sigma* of the solution given.

Reported, all in exact rationals: seat 0's equilibrium value v* = u_0(sigma*), its value
with the deviation u_0(sigma2, sigma*_-0), the **loss** v* - u_0(sigma2, sigma*_-0), and
how exploitable the deviation is: each opponent's best-response gain
max_t u_i(t, sigma2, sigma*_other) - u_i(sigma2, sigma*_-0) (one opponent best-responds,
the other keeps the equilibrium).  Also seat 0's own best-response value B_0 against
sigma*_-0, hence its NashConv term B_0 - v* (<= the certified NashConv bound of the
solution), so that loss >= v* - B_0 >= -bound: no deviation gains more than that.

Why this rule: the three-player equilibrium of the points objective bids by the public
position alone (hands and prizes; the score does not matter to expected points), and so
does sigma2: it is a policy of the same kind, evaluated over the same positions.  It is
symmetric in the two opponents and, where they hold the same hand (at the start, say),
it is exactly the two-player equilibrium.  Reading the score to pick "the opponent
leading" would make the policy depend on what the equilibrium ignores.

The evaluation is the walk of :mod:`exact.three.walk` over every position with actual
cards (hands and prizes as bit masks; nothing from the solver's canonical forms):

    V_i(x) = E_u sum_a p(a | x, u) (r_i(u, a) + V_i(x'))
    B_i(x) = E_u max_{a_i} sum_{a_-i} p_-i(a_-i | x, u) (r_i(u, a) + B_i(x'))

in exact rationals (python-flint's fmpq): a float mix is read as the exact value of each
stored float scaled by their exact sum (the policy :func:`exact.three.certify` judges), so
every number is exact for the policies as stored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from exact.dp.solve import solve as solve_two_player
from exact.errors import GopsInputError
from exact.game.orders import RANDOM
from exact.game.ties import TieRule
from exact.three.induction import ThreeSolution
from exact.three.rules import ThreeGame
from exact.three.walk import EXACT, Policy, ProfileValues, exact_mix, walk_profile

__all__ = [
    "ProfileValues",
    "TwoPlayerLoss",
    "evaluate_profile",
    "exact_mix",
    "two_player_loss",
]


def evaluate_profile(game: ThreeGame, policy: Policy) -> ProfileValues:
    """Each seat's exact value under ``policy`` (all three seats' mixes at each position)
    in ``game`` (points objective), and each seat's exact best-response value against the
    other two: the walk of :mod:`exact.three.walk`, in exact rationals."""
    return walk_profile(game.n, game.tie_rule, game.order, policy, EXACT)


def equilibrium_policy(sol: ThreeSolution) -> Policy:
    """The three seats' mixes of a solved three-player game (points objective)."""
    return lambda hands, prizes, u: sol.mixes(hands, prizes, (0, 0, 0), u)


def two_player_policy(n: int, order=RANDOM) -> Callable[[tuple, tuple, int], list]:
    """sigma2 of seat 0 (module docstring): the average of the exact two-player equilibrium
    mixes against each opponent's hand."""
    two = solve_two_player(n, arithmetic="rational", order=order)
    cache: dict = {}

    def against(mine, theirs, prizes, u) -> list[Fraction]:
        key = (mine, theirs, prizes, u)
        if key not in cache:
            st = two.strategy(set(mine), set(theirs), set(prizes), u)
            cache[key] = [Fraction(st.mine[c]) for c in mine]
        return cache[key]

    def mix(hands, prizes, u) -> list[Fraction]:
        one, other = against(hands[0], hands[1], prizes, u), against(hands[0], hands[2], prizes, u)
        return [(x + y) / 2 for x, y in zip(one, other)]

    return mix


@dataclass(frozen=True)
class TwoPlayerLoss:
    """Seat 0 playing the two-player equilibrium (sigma2) among two three-player
    equilibrium players: exact values for the solution's float mixes."""

    n: int
    tie_rule: TieRule
    equilibrium: ProfileValues  # all three on sigma*
    deviation: ProfileValues  # seat 0 on sigma2, seats 1 and 2 on sigma*

    @property
    def equilibrium_value(self) -> Fraction:
        """v*: seat 0's expected points when all three play sigma*."""
        return self.equilibrium.values[0]

    @property
    def deviation_value(self) -> Fraction:
        """Seat 0's expected points playing sigma2 against sigma*."""
        return self.deviation.values[0]

    @property
    def loss(self) -> Fraction:
        return self.equilibrium_value - self.deviation_value

    @property
    def best_response_value(self) -> Fraction:
        """B_0: the most seat 0 can expect against sigma* (any strategy)."""
        assert self.equilibrium.best is not None  # evaluate_profile walks best responses
        return self.equilibrium.best[0]

    @property
    def exploitability(self) -> tuple[Fraction, Fraction]:
        """Each opponent's gain from a best response to sigma2 (the other on sigma*)."""
        g = self.deviation.gains
        return g[1], g[2]


def two_player_loss(sol: ThreeSolution) -> TwoPlayerLoss:
    """The loss and exploitability of the two-player equilibrium in ``sol``'s game
    (points objective), exact for ``sol``'s float mixes (module docstring)."""
    game = sol.game
    if game.top:
        raise GopsInputError("the two-player equilibrium is compared for the points objective")
    star = equilibrium_policy(sol)
    sigma2 = two_player_policy(game.n, game.order)

    def deviation(hands, prizes, u):
        mixes = star(hands, prizes, u)
        return (sigma2(hands, prizes, u), mixes[1], mixes[2])

    return TwoPlayerLoss(
        game.n,
        game.tie_rule,
        evaluate_profile(game, star),
        evaluate_profile(game, deviation),
    )
