"""The certified NashConv of a three-player GOPS policy, by its own walk of the whole game.

NashConv (Lanctot et al. 2017) of a profile s is sum_i (max_{s_i'} u_i(s_i', s_-i) - u_i(s)):
each player's gain from a best response against the other two.  Bids are revealed every
round, so the public position (three hands, the prizes left, the points so far) is all
any player knows, and a policy that bids by the position alone is answered by a best
response that does too.  Over every position of the game (actual cards, no symmetry and
no canonical form: this module shares nothing with the solver but the policy it is given)

    V_i(x)   = E_u sum_a  p(a | x, u) (r_i(u, a) + V_i(x'))
    B_i(x)   = E_u max_{a_i} sum_{a_-i} p_-i(a_-i | x, u) (r_i(u, a) + B_i(x'))

with p the policy's mixes (the stored floats, each scaled by its own sum: that is the
policy judged), r the round's points and x' the next position.  NashConv = sum_i B_i - V_i
at the start.

Rounding is bounded, not ignored: every quantity is a non-negative sum, product, quotient
or maximum of non-negative floats, so each computed value is its exact value times a
product of at most D factors (1 + d), |d| <= 2^-53 (Higham 2002, sec 3.1), where D is
counted along the recursion (``depth``).  Hence

    NashConv <= sum_i  B^_i / (1 - 2^-53)^D  -  V^_i / (1 + 2^-53)^D,

evaluated in exact rationals and rounded up: :attr:`NashConvReport.bound` is proven.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

import numpy as np

from exact.errors import GopsInputError
from exact.game.ties import SPLIT, THIRD, TieRule
from exact.three.rules import ThreeGame

__all__ = ["NashConvReport", "nashconv"]

UNIT = Fraction(1, 2**53)  # the unit roundoff of float64 (round to nearest)

Policy = Callable[[tuple, tuple, tuple, int], Sequence]
#: The walk's ``progress`` is told the positions walked every this many.
TELL_EVERY = 1 << 14


@dataclass(frozen=True)
class NashConvReport:
    """NashConv of a policy: the float estimate, the proven upper bound, per-player gains."""

    estimate: float
    bound: float  # proven: the policy's true NashConv is at most this
    gains: tuple[float, float, float]  # B_i - V_i, float
    values: tuple[float, float, float]  # V_i, the policy's value for each player, float
    depth: int  # D, the rounding factors counted
    positions: int  # positions walked
    #: With ``locate``: the largest one-shot gain (float) and where: (gain, hands, prizes,
    #: points, upcard), actual cards; None otherwise.
    worst: tuple | None = None


def _score(upcard: int, bids: tuple[int, ...], tie_rule: TieRule) -> tuple[Fraction, ...]:
    """One round's points, written out again from the rules, apart from
    :meth:`exact.game.ties.TieRule.score` (the tests hold the two against each other)."""
    top = max(bids)
    high = [i for i in range(3) if bids[i] == top]
    out = [Fraction(0)] * 3
    if len(high) == 1:
        out[high[0]] = Fraction(upcard)
    elif len(high) == 2 and tie_rule is SPLIT:
        out[high[0]] = out[high[1]] = Fraction(upcard, 2)
    elif len(high) == 2 and tie_rule is THIRD:
        (other,) = (i for i in range(3) if i not in high)
        out[other] = Fraction(upcard)
    return tuple(out)


def _distribution(mix, k: int, where: str) -> np.ndarray:
    p = np.asarray(mix, dtype=float)
    if p.shape != (k,) or not np.isfinite(p).all() or p.min() < 0 or p.sum() <= 0:
        raise GopsInputError(f"the policy's mix at {where} is not a distribution over {k} bids")
    return p / p.sum()


class _Walk:
    """The recursion of the module docstring over positions keyed by bit masks:
    (hand 0, hand 1, hand 2, prizes left, points so far in half points)."""

    def __init__(
        self,
        game: ThreeGame,
        policy: Policy,
        locate: bool = False,
        progress: Callable[[int], None] | None = None,
    ):
        self.n, self.tie_rule, self.top = game.n, game.tie_rule, game.top
        self.locate, self.progress = locate, progress
        self.worst: tuple | None = None
        self.order, self.policy = game.order, policy
        self.row: dict = {}  # position -> row of self.table
        self.table = np.zeros((1024, 2, 3))  # V and B of each position
        self.depth: dict = {}  # rounding factors, by cards left
        self.kid_cache: dict = {}

    def cards(self, mask: int) -> tuple[int, ...]:
        return tuple(c for c in range(1, self.n + 1) if mask >> (c - 1) & 1)

    def kids(self, h0: int, h1: int, h2: int):
        """Per bid profile (bids ascending in each hand, profiles in product order):
        the three bids' bits and each player's share of a prize of value 1."""
        key = (h0, h1, h2)
        if key not in self.kid_cache:
            hands = [self.cards(h) for h in key]
            bits, shares = [], []
            for bids in product(*hands):
                bits.append(tuple(1 << (b - 1) for b in bids))
                shares.append([float(x) for x in _score(1, bids, self.tie_rule)])
            self.kid_cache[key] = (hands, bits, np.array(shares))
        return self.kid_cache[key]

    def store(self, key, vb) -> None:
        r = len(self.row)
        if r == len(self.table):
            self.table = np.concatenate([self.table, np.zeros_like(self.table)])
        self.table[r] = vb
        self.row[key] = r
        if self.progress is not None and (r + 1) % TELL_EVERY == 0:
            self.progress(r + 1)

    def terminal(self, key) -> None:
        points = key[4]
        if self.top:
            best = max(points)
            m = sum(1 for p in points if p == best)
            v = np.array([1.0 / m if p == best else 0.0 for p in points])
            self.depth[0] = 1  # 1/3 is rounded: one factor
        else:
            v = np.zeros(3)
            self.depth[0] = 0
        self.store(key, np.stack([v, v]))

    def value(self, key) -> int:
        """The row of (V, B) at a position, computed first if new."""
        r = self.row.get(key)
        if r is not None:
            return r
        if key[3] == 0:
            self.terminal(key)
            return self.row[key]
        prizes = self.cards(key[3])
        ups = self.order.next_prizes(prizes)
        total = sum(self.after_upcard(key, prizes, u) for u in ups)
        if len(ups) > 1:
            total = total / len(ups)
        self.store(key, total)
        return self.row[key]

    def after_upcard(self, key, prizes, u):
        h0, h1, h2, pm, points = key
        k = len(prizes)
        hands, bits, shares = self.kids(h0, h1, h2)
        where = f"hands {hands}, prizes {prizes}, upcard {u}"
        mixes = self.policy(tuple(hands), prizes, tuple(Fraction(x, 2) for x in points), u)
        if len(mixes) != 3:
            raise GopsInputError(f"the policy gave {len(mixes)} mixes at {where}")
        p = [_distribution(m, k, where) for m in mixes]
        rest = pm ^ (1 << (u - 1))
        won = shares * u  # exact: u, u/2 or 0
        if self.top:
            rows = [
                self.value(
                    (
                        h0 ^ b0,
                        h1 ^ b1,
                        h2 ^ b2,
                        rest,
                        tuple(x + int(2 * w) for x, w in zip(points, ws)),
                    )
                )
                for (b0, b1, b2), ws in zip(bits, won)
            ]
            Q = self.table[rows]
        else:
            rows = [self.value((h0 ^ b0, h1 ^ b1, h2 ^ b2, rest, points)) for b0, b1, b2 in bits]
            Q = self.table[rows] + won[:, None, :]
        Q = Q.reshape(k, k, k, 2, 3)
        joint = np.einsum("a,b,c->abc", *p)
        V = np.array([np.sum(joint * Q[..., 0, i]) for i in range(3)])
        B = np.array(
            [
                np.max(np.sum(Q[..., 1, 0] * np.outer(p[1], p[2])[None], axis=(1, 2))),
                np.max(np.sum(Q[..., 1, 1] * np.outer(p[0], p[2])[:, None], axis=(0, 2))),
                np.max(np.sum(Q[..., 1, 2] * np.outer(p[0], p[1])[:, :, None], axis=(0, 1))),
            ]
        )
        if self.locate:
            self.one_shot(Q, p, V, (hands, prizes, points, u))
        # Factors: each probability k (sum, division); a product of three 3k + 2; the term
        # one for r + child and one for the product; the sum of k^3 terms k^3 - 1; the
        # mean over upcards k more.
        self.depth[k] = (3 * k + 2) + (self.depth[k - 1] + 1) + 1 + (k**3 - 1) + k
        return np.stack([V, B])

    def one_shot(self, Q, p, V, where) -> None:
        """Keep the position where a player gains most by deviating here only (the
        others' mixes and everyone's continuation as the policy plays it): the one-shot
        deviation principle points there when NashConv is not 0.  Float; no proof."""
        best = (
            np.max(np.sum(Q[..., 0, 0] * np.outer(p[1], p[2])[None], axis=(1, 2))),
            np.max(np.sum(Q[..., 0, 1] * np.outer(p[0], p[2])[:, None], axis=(0, 2))),
            np.max(np.sum(Q[..., 0, 2] * np.outer(p[0], p[1])[:, :, None], axis=(0, 1))),
        )
        gain = float(max(b - v for b, v in zip(best, V)))
        if self.worst is None or gain > self.worst[0]:
            hands, prizes, points, u = where
            self.worst = (gain, hands, prizes, tuple(Fraction(x, 2) for x in points), u)


def nashconv(
    game: ThreeGame,
    policy: Policy,
    locate: bool = False,
    progress: Callable[[int], None] | None = None,
) -> NashConvReport:
    """The NashConv of ``policy`` in ``game`` (its n, tie rule, objective and prize
    order), with a proven bound.

    ``policy(hands, prizes, points, upcard)`` gives each player's mix over their hand
    (ascending); ``hands`` are three ascending tuples, ``prizes`` ascending (upcard
    included), ``points`` the points so far (Fractions; all zero for ``points``).
    ``locate``: also find the position of the largest one-shot gain (``worst``);
    ``progress``: told the positions walked so far every :data:`TELL_EVERY`.
    """
    n = game.n
    walk = _Walk(game, policy, locate, progress)
    full = (1 << n) - 1
    root = walk.value((full, full, full, full, (0, 0, 0)))
    V, B = walk.table[root]
    depth = walk.depth[n]
    up = (1 - UNIT) ** depth
    down = (1 + UNIT) ** depth
    exact = sum(Fraction(float(B[i])) / up - Fraction(float(V[i])) / down for i in range(3))
    bound = 0.0 if exact <= 0 else math.nextafter(float(exact), math.inf)
    return NashConvReport(
        estimate=float(np.sum(B - V)),
        bound=bound,
        gains=tuple(float(B[i] - V[i]) for i in range(3)),  # type: ignore[arg-type]
        values=tuple(float(V[i]) for i in range(3)),  # type: ignore[arg-type]
        depth=depth,
        positions=len(walk.row),
        worst=walk.worst,
    )
