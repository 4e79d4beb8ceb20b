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

The evaluation is a walk over every position with actual cards (hands and prizes as bit
masks; nothing from the solver's canonical forms):

    V_i(x) = E_u sum_a p(a | x, u) (r_i(u, a) + V_i(x'))
    B_i(x) = E_u max_{a_i} sum_{a_-i} p_-i(a_-i | x, u) (r_i(u, a) + B_i(x'))

in exact rationals (python-flint's fmpq): a float mix is read as the exact value of each
stored float scaled by their exact sum (the policy :func:`exact.three.certify` judges), so
every number is exact for the policies as stored.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

import flint

from exact.dp.solve import solve as solve_two_player
from exact.errors import GopsInputError
from exact.game.orders import RANDOM
from exact.game.ties import TieRule
from exact.three.induction import ThreeSolution
from exact.three.rules import ThreeGame, round_points

__all__ = [
    "ProfileValues",
    "TwoPlayerLoss",
    "evaluate_profile",
    "exact_mix",
    "two_player_loss",
]

#: policy(hands, prizes, upcard) -> three mixes, each over the seat's hand ascending
#: (floats or rationals; read by :func:`exact_mix`).
Policy = Callable[[tuple, tuple, int], Sequence]

ZERO = flint.fmpq(0)


def _q(x: Fraction | int) -> flint.fmpq:
    x = Fraction(x)
    return flint.fmpq(x.numerator, x.denominator)


def _fraction(x: flint.fmpq) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def exact_mix(mix, where: str = "") -> list[flint.fmpq]:
    """A mix (floats or rationals) as exact rationals: each entry's exact value scaled by
    their exact sum; a negative, infinite or all-zero mix is refused in one line."""
    if any(isinstance(p, float) and not math.isfinite(p) for p in mix):
        raise GopsInputError(f"the mix at {where} is not a distribution")
    exact_ = [_q(Fraction(p)) for p in mix]
    total = sum(exact_, ZERO)
    if any(p < 0 for p in exact_) or total <= 0:
        raise GopsInputError(f"the mix at {where} is not a distribution")
    return exact_ if total == 1 else [p / total for p in exact_]


@dataclass(frozen=True)
class ProfileValues:
    """Each seat's exact value under a profile, and its best-response value against the
    other two seats' policies."""

    values: tuple[Fraction, Fraction, Fraction]
    best: tuple[Fraction, Fraction, Fraction]
    positions: int  # positions (hands, prizes) walked

    @property
    def gains(self) -> tuple[Fraction, ...]:
        return tuple(b - v for b, v in zip(self.best, self.values))


class _Walk:
    """The recursion of the module docstring, memoised on (hands, prizes) as bit masks."""

    def __init__(self, game: ThreeGame, policy: Policy):
        self.n, self.tie_rule, self.order, self.policy = game.n, game.tie_rule, game.order, policy
        self.memo: dict = {}
        self.scores: dict = {}

    def cards(self, mask: int) -> tuple[int, ...]:
        return tuple(c for c in range(1, self.n + 1) if mask >> (c - 1) & 1)

    def score(self, u: int, bids: tuple[int, int, int]) -> tuple[flint.fmpq, ...]:
        key = (u, bids)
        if key not in self.scores:
            self.scores[key] = tuple(_q(x) for x in round_points(u, bids, self.tie_rule))
        return self.scores[key]

    def value(self, masks: tuple[int, int, int], pm: int) -> tuple[list, list]:
        key = (masks, pm)
        done = self.memo.get(key)
        if done is not None:
            return done
        if pm == 0:
            out = ([ZERO] * 3, [ZERO] * 3)
        else:
            prizes = self.cards(pm)
            ups = self.order.next_prizes(prizes)
            V, B = [ZERO] * 3, [ZERO] * 3
            for u in ups:
                v, b = self.after_upcard(masks, prizes, pm, u)
                V = [x + y for x, y in zip(V, v)]
                B = [x + y for x, y in zip(B, b)]
            m = len(ups)
            out = ([x / m for x in V], [x / m for x in B]) if m > 1 else (V, B)
        self.memo[key] = out
        return out

    def after_upcard(self, masks, prizes, pm: int, u: int) -> tuple[list, list]:
        hands = tuple(self.cards(h) for h in masks)
        k = len(prizes)
        where = f"hands {hands}, prizes {prizes}, upcard {u}"
        p = [exact_mix(m, where) for m in self.policy(hands, prizes, u)]
        if len(p) != 3 or any(len(m) != k for m in p):
            raise GopsInputError(f"the policy's mixes at {where} do not match the hands")
        rest = pm ^ (1 << (u - 1))
        V = [ZERO] * 3
        tally = [[ZERO] * k for _ in range(3)]  # tally[i][a_i]: the deviation a_i's value
        for a in product(range(k), repeat=3):
            w = (p[1][a[1]] * p[2][a[2]], p[0][a[0]] * p[2][a[2]], p[0][a[0]] * p[1][a[1]])
            if not (w[0] or w[1] or w[2]):
                continue
            bids = (hands[0][a[0]], hands[1][a[1]], hands[2][a[2]])
            r = self.score(u, bids)
            kid = tuple(masks[i] ^ (1 << (bids[i] - 1)) for i in range(3))
            cv, cb = self.value(kid, rest)
            q = w[0] * p[0][a[0]]
            for i in range(3):
                if q:
                    V[i] += q * (r[i] + cv[i])
                if w[i]:
                    tally[i][a[i]] += w[i] * (r[i] + cb[i])
        return V, [max(t) for t in tally]


def evaluate_profile(game: ThreeGame, policy: Policy) -> ProfileValues:
    """Each seat's exact value under ``policy`` (all three seats' mixes at each position)
    in ``game`` (points objective), and each seat's exact best-response value against the
    other two."""
    walk = _Walk(game, policy)
    full = (1 << game.n) - 1
    V, B = walk.value((full, full, full), full)
    return ProfileValues(
        tuple(_fraction(x) for x in V),  # type: ignore[arg-type]
        tuple(_fraction(x) for x in B),  # type: ignore[arg-type]
        len(walk.memo),
    )


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
