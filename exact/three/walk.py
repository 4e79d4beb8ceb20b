"""The one walk of the three-player tree: each seat's value under a profile of policies,
and each seat's best-response value against the other two, in a chosen arithmetic.

Bids are revealed every round, so a policy that bids by the public position (three
hands, the prizes left, the upcard) is judged over those positions, with actual cards
(hands and prizes as bit masks; nothing from the solver's canonical forms):

    V_i(x) = E_u sum_a p(a | x, u) (r_i(u, a) + V_i(x'))
    B_i(x) = E_u max_{a_i} sum_{a_-i} p_-i(a_-i | x, u) (r_i(u, a) + B_i(x'))

with p the policies' mixes, r the round's points (the game's
:class:`~exact.game.ties.TieRule`), x' the next position and E_u over the upcards the
prize order allows (:meth:`~exact.game.orders.PrizeOrder.next_prizes`).  The arithmetic
is a parameter (:data:`EXACT`: python-flint's fmpq, a float mix read as the exact value
of each stored float scaled by their exact sum; :data:`FLOAT`: float64, each mix scaled by
its sum), as the declarations solver's ``_Exact``/``_Float``.  Without best responses
(``best=False``) only the bid profiles in the mixes' supports are followed.

The same tree walked forward: :func:`reached_stages` yields every stage that play under
a profile reaches, with the probability of reaching it (positions merged where equal,
the bids followed in the mixes' supports); :func:`histories` every history, off any
path included (what a policy keyed by histories, as OpenSpiel's information states,
needs).  Both score a round by the tie rule and turn the prizes the order allows.

The certified NashConv (:mod:`exact.three.nashconv`) keeps its own walk and its own
scoring of a round, apart from this one on purpose; the tests hold the two together.

Two cards, split rule, every seat bidding its 2 on the first upcard u (1 or 2, each with
probability 1/2): a three-way tie discards u, the last prize w = 3 - u is tied too:

>>> from exact.game.orders import RANDOM
>>> from exact.game.ties import SPLIT
>>> high = lambda hands, prizes, u: [[0, 1] if len(h) == 2 else [1] for h in hands]
>>> walk_profile(2, SPLIT, RANDOM, high).values
(Fraction(0, 1), Fraction(0, 1), Fraction(0, 1))
>>> walk_profile(2, SPLIT, RANDOM, high).best  # bid 1 first, win the last prize alone
(Fraction(3, 2), Fraction(3, 2), Fraction(3, 2))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any

import flint

from exact.errors import GopsInputError
from exact.game.orders import PrizeOrder
from exact.game.ties import TieRule

__all__ = [
    "EXACT",
    "FLOAT",
    "Arithmetic",
    "History",
    "ProfileValues",
    "Reached",
    "exact_mix",
    "histories",
    "reached_stages",
    "walk_profile",
]

#: policy(hands, prizes, upcard) -> three mixes, each over the seat's hand ascending
#: (floats or rationals).
Policy = Callable[[tuple, tuple, int], Sequence]


def _q(x) -> flint.fmpq:
    x = Fraction(x)
    return flint.fmpq(x.numerator, x.denominator)


def exact_mix(mix, where: str = "") -> list[flint.fmpq]:
    """A mix (floats or rationals) as exact rationals: each entry's exact value scaled by
    their exact sum; a negative, infinite or all-zero mix is refused in one line."""
    if any(isinstance(p, float) and not math.isfinite(p) for p in mix):
        raise GopsInputError(f"the mix at {where} is not a distribution")
    exact_ = [_q(Fraction(p)) for p in mix]
    total = sum(exact_, flint.fmpq(0))
    if any(p < 0 for p in exact_) or total <= 0:
        raise GopsInputError(f"the mix at {where} is not a distribution")
    return exact_ if total == 1 else [p / total for p in exact_]


def _float_mix(mix, where: str = "") -> list[float]:
    p = [float(x) for x in mix]
    total = sum(p)
    if not all(math.isfinite(x) and x >= 0 for x in p) or total <= 0:
        raise GopsInputError(f"the mix at {where} is not a distribution")
    return [x / total for x in p]


@dataclass(frozen=True)
class Arithmetic:
    """The numbers of a walk: its zero, a round's points, a mix, and a result as given."""

    name: str
    zero: Any
    number: Callable
    mix: Callable
    result: Callable


EXACT = Arithmetic("exact", flint.fmpq(0), _q, exact_mix, lambda x: Fraction(int(x.p), int(x.q)))
FLOAT = Arithmetic("float", 0.0, float, _float_mix, float)


@dataclass(frozen=True)
class ProfileValues:
    """Each seat's value under a profile and (unless not asked) its best-response value
    against the other two seats' policies, in the walk's arithmetic."""

    values: tuple
    best: tuple | None
    positions: int  # positions (hands, prizes) walked, the last (no prize left) included

    @property
    def gains(self) -> tuple:
        assert self.best is not None, "walked without best responses"
        return tuple(b - v for b, v in zip(self.best, self.values))


class _Walk:
    """The recursion of the module docstring, memoised on (hands, prizes) as bit masks."""

    def __init__(self, n, tie_rule, order, policy, arithmetic: Arithmetic, best: bool):
        self.n, self.tie_rule, self.order, self.policy = n, tie_rule, order, policy
        self.num, self.best = arithmetic, best
        self.memo: dict = {}
        self.scores: dict = {}

    def cards(self, mask: int) -> tuple[int, ...]:
        return tuple(c for c in range(1, self.n + 1) if mask >> (c - 1) & 1)

    def score(self, u: int, bids: tuple[int, int, int]) -> tuple:
        key = (u, bids)
        if key not in self.scores:
            points = self.tie_rule.score(u, bids)
            self.scores[key] = tuple(self.num.number(x) for x in points)
        return self.scores[key]

    def value(self, masks: tuple[int, int, int], pm: int) -> tuple[list, list]:
        key = (masks, pm)
        done = self.memo.get(key)
        if done is not None:
            return done
        zero = self.num.zero
        if pm == 0:
            out = ([zero] * 3, [zero] * 3)
        else:
            prizes = self.cards(pm)
            ups = self.order.next_prizes(prizes)
            V, B = [zero] * 3, [zero] * 3
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
        mixes = self.policy(hands, prizes, u)
        if len(mixes) != 3 or any(len(m) != k for m in mixes):
            raise GopsInputError(f"the policy's mixes at {where} do not match the hands")
        p = [self.num.mix(m, where) for m in mixes]
        rest = pm ^ (1 << (u - 1))
        zero = self.num.zero
        V = [zero] * 3
        tally = [[zero] * k for _ in range(3)]  # tally[i][a_i]: the deviation a_i's value
        # Every profile where a deviation is asked for; the supports' alone otherwise.
        bids_of = [range(k)] * 3 if self.best else [[a for a in range(k) if q[a]] for q in p]
        for a in product(*bids_of):
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
                if self.best and w[i]:
                    tally[i][a[i]] += w[i] * (r[i] + cb[i])
        return V, [max(t) for t in tally]


def walk_profile(
    n: int,
    tie_rule: TieRule,
    order: PrizeOrder,
    policy: Policy,
    arithmetic: Arithmetic = EXACT,
    best: bool = True,
) -> ProfileValues:
    """Each seat's value under ``policy`` (all three seats' mixes at each position) in the
    n-card game with ``tie_rule`` and ``order`` (points objective), and with ``best`` each
    seat's best-response value against the other two, in ``arithmetic``."""
    walk = _Walk(n, tie_rule, order, policy, arithmetic, best)
    full = (1 << n) - 1
    V, B = walk.value((full, full, full), full)
    out = arithmetic.result
    return ProfileValues(
        tuple(out(x) for x in V),
        tuple(out(x) for x in B) if best else None,
        len(walk.memo),
    )


@dataclass(frozen=True)
class Reached:
    """A stage that play reaches: its ``round`` (1-based), the ``hands``, the ``prizes``
    left (the upcard among them), the ``points`` so far (zeros unless tracked), the
    ``upcard``, the three ``mixes``, the ``probability`` of reaching it and its
    ``profiles``: each bid profile in the mixes' supports with its probability given the
    stage."""

    round: int
    hands: tuple
    prizes: tuple
    points: tuple
    upcard: int
    mixes: tuple
    probability: Any
    profiles: tuple


#: policy(hands, prizes, points, upcard) -> three mixes (a policy that may read the points).
PointsPolicy = Callable[[tuple, tuple, tuple, int], Sequence]


def reached_stages(
    n: int,
    tie_rule: TieRule,
    order: PrizeOrder,
    policy: PointsPolicy,
    arithmetic: Arithmetic = FLOAT,
    track_points: bool = False,
    same: Callable[[tuple, tuple, tuple], Hashable] | None = None,
) -> Iterator[Reached]:
    """Round by round from the start, every stage that play under ``policy`` reaches:
    each position's probability is the sum over the ways to reach it (positions equal in
    hands, prizes and, with ``track_points``, points merged), split evenly over the
    upcards the order allows, then over the bid profiles of the mixes' supports.

    ``same(hands, prizes, points)``, if given, is the key positions are merged by instead:
    the first position reached with a key stands for every position with that key, with
    their summed probability.  It is for a caller whose policy and statistics do not tell
    such positions apart (the canonical form of :mod:`exact.three.canonical`: card values
    relabelled in order, seats permuted, points shifted), so that each class is walked
    once, not once per member.

    Two cards, every seat bidding its 2 first: each upcard with probability 1/2, then
    the other one, reached the same way:

    >>> from exact.game.orders import RANDOM
    >>> from exact.game.ties import SPLIT
    >>> high = lambda hands, prizes, points, u: [[0, 1] if len(h) == 2 else [1] for h in hands]
    >>> [(s.round, s.upcard, s.probability) for s in reached_stages(2, SPLIT, RANDOM, high, EXACT)]
    [(1, 1, 1/2), (1, 2, 1/2), (2, 2, 1/2), (2, 1, 1/2)]
    """
    zero = (Fraction(0),) * 3
    full = tuple(range(1, n + 1))
    if same is None:
        # Untracked points are the same zeros everywhere: keyed without them (a Fraction's
        # hash is slow).
        same = _position if track_points else _cards
    start = ((full, full, full), full, zero)
    frontier: dict = {same(*start): [start, arithmetic.number(1)]}  # key -> [position, p]
    scores: dict = {}  # (upcard, bids) -> the round's points

    def after(points: tuple, u: int, bids: tuple) -> tuple:
        if not track_points:
            return points
        gained = scores.get((u, bids))
        if gained is None:
            gained = scores[u, bids] = tie_rule.score(u, bids)
        return tuple(x + y if y else x for x, y in zip(points, gained))

    for rnd in range(1, n + 1):
        nxt: dict = {}
        for (hands, prizes, points), p in frontier.values():
            ups = order.next_prizes(prizes)
            for u in ups:
                where = f"hands {hands}, prizes {prizes}, upcard {u}"
                mixes = tuple(arithmetic.mix(m, where) for m in policy(hands, prizes, points, u))
                profiles = []
                rest, reach = tuple(c for c in prizes if c != u), p / len(ups)
                for a in product(*([i for i, x in enumerate(m) if x] for m in mixes)):
                    q = mixes[0][a[0]] * mixes[1][a[1]] * mixes[2][a[2]]
                    bids = tuple(hands[i][a[i]] for i in range(3))
                    profiles.append((bids, q))
                    kids = tuple(tuple(c for c in hands[i] if c != bids[i]) for i in range(3))
                    child = (kids, rest, after(points, u, bids))
                    key = same(*child)
                    seen = nxt.get(key)
                    if seen is None:
                        nxt[key] = [child, reach * q]
                    else:
                        seen[1] += reach * q
                yield Reached(rnd, hands, prizes, points, u, mixes, reach, tuple(profiles))
        frontier = nxt


def _position(hands: tuple, prizes: tuple, points: tuple) -> tuple:
    return (hands, prizes, points)


def _cards(hands: tuple, prizes: tuple, points: tuple) -> tuple:
    return (hands, prizes)


@dataclass(frozen=True)
class History:
    """A node of the game tree before the bids of a round: the ``upcards`` turned so far
    (this round's last), the ``hands``, the ``prizes`` left (this round's upcard among
    them) and ``scored``, each finished round's points by seat."""

    upcards: tuple
    hands: tuple
    prizes: tuple
    scored: tuple

    @property
    def upcard(self) -> int:
        return self.upcards[-1]


def histories(
    n: int, tie_rule: TieRule, order: PrizeOrder, until_cards: int = 0
) -> Iterator[History]:
    """Every history of the n-card game, depth first, every bid profile followed (off any
    equilibrium path too), down to the rounds with more than ``until_cards`` cards left.

    Two cards: 2 first upcards, each followed by 2 x 2 x 2 bid profiles (the third
    history: upcard 1, the seats bid 1, 1, 2, the third takes it):

    >>> from exact.game.orders import RANDOM
    >>> from exact.game.ties import SPLIT
    >>> walked = list(histories(2, SPLIT, RANDOM))
    >>> len(walked), walked[2].upcards, walked[2].scored
    (18, (1, 2), ((Fraction(0, 1), Fraction(0, 1), Fraction(1, 1)),))
    """
    full = tuple(range(1, n + 1))

    def down(upcards, hands, prizes, scored):
        if len(prizes) <= until_cards:
            return
        for u in order.next_prizes(prizes):
            seq = (*upcards, u)
            yield History(seq, hands, prizes, scored)
            rest = tuple(c for c in prizes if c != u)
            for bids in product(*hands):
                child = tuple(tuple(c for c in hands[i] if c != bids[i]) for i in range(3))
                yield from down(seq, child, rest, (*scored, tie_rule.score(u, bids)))

    yield from down((), (full, full, full), full, ())
