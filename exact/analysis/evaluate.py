"""Exact evaluation of one bot against another: no sampling, the whole game tree.

Bot A (player 0) meets bot B (player 1) in n-card GOPS.  Let D(h0, h1, P) be the
distribution of the point difference (A minus B) still to come from hands h0, h1 and
prizes P, before the next prize is turned.  Every prize order is equally likely and the
two bots bid independently with their mixes x = A.mix, y = B.mix, so

    D(h0, h1, P) = (1/k) sum_{u in P} sum_{a, b} x_a y_b shift_{u sign(a-b)} D(h0-a, h1-b, P-u)

with D = {0: 1} when the hands are empty (the recursion of Rhoads & Bartholdi 2012,
sec 3, with the bots' mixes in place of the equilibrium and a distribution in place of a
value).  The final difference is distributed as D(root); its mean is the expected point
difference and its sign gives the win / draw / loss probabilities.

Memo key: (h0, h1, P), plus the current lead when a bot's mix may depend on the score
(``Bot.uses_lead``).  Storing the distribution of the *future* difference is what lets
the lead drop out of the key for bots that ignore the score: the lead only shifts the
distribution, and win / draw / loss are read off at the root.

Arithmetic: exact (python-flint ``fmpq`` inside, ``fractions.Fraction`` out) when both
bots' mixes are Fractions -- every built-in bot, the optimal one included for n <= 6
(its rational equilibrium).  Otherwise float64, with an a-priori bound on the rounding
error of every reported number (:func:`rounding_bound`); a float optimal bot is only an
approximate equilibrium, and ``equilibrium_gap`` reports the largest checked gap of the
matrix games it played.

>>> from fractions import Fraction
>>> from exact.play.bots import make_bot
>>> ev = evaluate(3, make_bot("upcard+1", 3), make_bot("upcard", 3))
>>> ev.expected_difference, ev.win, ev.draw, ev.loss
(Fraction(-1, 2), Fraction(0, 1), Fraction(1, 2), Fraction(1, 2))

(By hand: the six prize orders end 0, -1, 0, -1, -1, 0 for "upcard+1" -- it wins a low
prize with the next card up but then has nothing left that beats the 3.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import fmpq

from exact.dp.solution import to_fraction
from exact.errors import GopsInputError
from exact.game.orders import RANDOM, PrizeOrder, order_named
from exact.game.rules import Position, prize_total
from exact.limits import EVALUATE_MAX_N, check_n
from exact.play.bots import Bot, OptimalBot

__all__ = ["Evaluation", "evaluate", "rounding_bound"]

Number = float | Fraction

#: Unit roundoff of float64.
UNIT_ROUNDOFF = 2.0**-53


@dataclass(frozen=True)
class Evaluation:
    """Bot A (player 0) against bot B (player 1), over all prize orders and all bids."""

    n: int
    bots: tuple[str, ...]  # (A, B)
    expected_difference: Number  # E[A's points - B's points]
    win: Number  # P(A scores more)
    draw: Number
    loss: Number
    distribution: dict[int, Number]  # final point difference -> probability
    exact: bool  # True: every number is an exact Fraction
    error_bound: float  # bound on the float rounding error of every number (0 if exact)
    equilibrium_gap: float  # largest checked gap of a float optimal bot's mixes (0 otherwise)
    states: int  # memoised positions visited


def gamma(m: int) -> float:
    """Higham's gamma_m = m u / (1 - m u): the relative error bound of m float operations."""
    return m * UNIT_ROUNDOFF / (1 - m * UNIT_ROUNDOFF)


def rounding_bound(n: int) -> tuple[float, float]:
    """A-priori bounds on the float64 rounding error of (probabilities, expected difference).

    At a position with k cards each, an entry of D is a sum of at most k^3 terms
    (u, a, b), each a product of 4 floats (x_a, y_b, 1/k and a child entry), so its rounding
    error is at most gamma_{k^3 + 4} times the sum of the terms' magnitudes (Higham,
    *Accuracy and Stability of Numerical Algorithms*, 2nd ed., sec 3.1); summed over the
    entries that is gamma_{k^3 + 4} times the total mass 1.  A float mix sums to 1 only up
    to gamma_k, which changes the mass by at most 2 gamma_k; errors of the children are
    carried with weights summing to at most 1 + 2 gamma_k.  Summing over the n levels
    bounds the l1 error E of D(root); a probability then errs by at most
    E + gamma_{2T+1} and the mean by at most T (E + gamma_{2T+2}), T = n(n+1)/2 the
    largest |difference|.
    """
    err = 0.0
    for k in range(1, n + 1):
        err = err * (1 + 2 * gamma(k)) + gamma(k**3 + 4) + 2 * gamma(k)
    total = prize_total(n)
    return err + gamma(2 * total + 1), total * (err + gamma(2 * total + 2))


def _exact_mix(mix: dict, hand: frozenset[int], who: str) -> list[tuple[int, fmpq]]:
    out = []
    total = fmpq(0)
    for c, p in mix.items():
        if not isinstance(p, (Fraction, int)) or isinstance(p, bool):
            raise GopsInputError(f"{who} returned a non-Fraction probability {p!r}")
        q = fmpq(p.numerator, p.denominator)
        _check_entry(c, q, hand, who)
        total += q
        if q:
            out.append((c, q))
    if total != 1:
        raise GopsInputError(f"{who} returned probabilities summing to {total}, not 1")
    return out


def _float_mix(mix: dict, hand: frozenset[int], who: str) -> list[tuple[int, float]]:
    out = []
    total = 0.0
    for c, p in mix.items():
        q = float(p)
        _check_entry(c, q, hand, who)
        total += q
        if q:
            out.append((c, q))
    if abs(total - 1) > 1e-9:
        raise GopsInputError(f"{who} returned probabilities summing to {total!r}, not 1")
    return out


def _check_entry(card, p, hand, who):
    if card not in hand:
        raise GopsInputError(f"{who} gave probability to card {card!r}, not in its hand")
    if not p >= 0:
        raise GopsInputError(f"{who} gave card {card} the negative probability {p}")


def evaluate(n: int, bot_a: Bot, bot_b: Bot, order: PrizeOrder | str = RANDOM) -> Evaluation:
    """The exact outcome distribution of ``bot_a`` (player 0) against ``bot_b`` (player 1),
    the prizes turned in ``order`` (a PrizeOrder of exact.game.orders, or its name):
    shuffled, a known sequence, or chosen by bot A (controlled-by-me) or B
    (controlled-by-them) through its ``prize_choice`` (an optimal bot of that order takes
    its best prize; others choose uniformly).

    Raises GopsInputError for a bad n or a bot returning an invalid mix.
    """
    n = check_n(n, EVALUATE_MAX_N, what=" to evaluate")
    walk = _Walk(n, (bot_a, bot_b), order_named(order))
    cards = frozenset(range(1, n + 1))
    # The walk recurses at most 10 n + 100 frames deep, n <= EVALUATE_MAX_N = 10: far
    # below Python's default limit (1,000), which is left alone (a server runs requests
    # in this process).
    dist = walk.future(cards, cards, cards, 0)
    return walk.evaluation(dist)


class _Walk:
    """The outcome distribution of two bots from any position of N-card GOPS, memoised on
    the hands, the deck and (when a bot plays on it) the lead, in one arithmetic: fmpq
    when both bots are exact, else float (the same code for both)."""

    def __init__(self, n: int, bots: tuple[Bot, Bot], prize_order):
        self.n, self.bots, self.prize_order = n, bots, prize_order
        # The player who chooses each prize (None: chance, or a known sequence).
        chooser = prize_order.chooser
        self.chooser = None if chooser is None else {"me": 0, "them": 1}[chooser]
        self.exact = all(b.exact for b in bots)
        self.keyed_on_lead = any(b.uses_lead for b in bots)
        self.zero: Any
        self.one: Any
        self.inv: list[Any]
        self.read_mix: Callable[..., list]
        if self.exact:
            self.zero, self.one = fmpq(0), fmpq(1)
            self.inv = [None] + [fmpq(1, k) for k in range(1, n + 1)]
            self.read_mix = _exact_mix
        else:
            self.zero, self.one, self.inv = 0.0, 1.0, [None] + [1.0 / k for k in range(1, n + 1)]
            self.read_mix = _float_mix
        self.names = tuple(getattr(b, "name", type(b).__name__) for b in bots)
        self.who = (f"bot {self.names[0]!r} (player 0)", f"bot {self.names[1]!r} (player 1)")
        self.memo: dict = {}

    def upcards(self, h0, h1, deck, points) -> list:
        """[(prize u, probability)] of the next upcard: each prize the order can turn up,
        equally likely, or the choosing bot's mix."""
        if self.chooser is None:
            prizes = self.prize_order.next_prizes(deck)
            return [(u, self.inv[len(prizes)]) for u in prizes]
        before = Position._unchecked((h0, h1), deck, None, points, self.n)
        return self.read_mix(
            self.bots[self.chooser].prize_choice(before, self.chooser),
            deck,
            f"{self.who[self.chooser]} choosing the prize",
        )

    def future(self, h0, h1, deck, lead) -> dict:
        """{final difference - lead: probability} from this position on."""
        key = (h0, h1, deck, lead if self.keyed_on_lead else 0)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        if not deck:
            self.memo[key] = {0: self.one}
            return self.memo[key]
        points = (lead, 0) if lead >= 0 else (0, -lead)
        out: dict[int, object] = {}
        for u, pu in self.upcards(h0, h1, deck, points):
            pos = Position._unchecked((h0, h1), deck, u, points, self.n)
            x = self.read_mix(self.bots[0].mix(pos, 0), h0, self.who[0])
            y = self.read_mix(self.bots[1].mix(pos, 1), h1, self.who[1])
            rest = deck - {u}
            for a, pa in x:
                wa = pa * pu
                for b, pb in y:
                    w = wa * pb
                    s = u if a > b else -u if a < b else 0
                    child = self.future(h0 - {a}, h1 - {b}, rest, lead + s)
                    for d, p in child.items():
                        out[d + s] = out.get(d + s, self.zero) + w * p
        self.memo[key] = out
        return out

    def evaluation(self, dist: dict) -> Evaluation:
        """The Evaluation of the distribution from the start, in the API's numbers."""
        zero = self.zero
        dist = {d: dist[d] for d in sorted(dist) if dist[d]}
        mean = sum((d * p for d, p in dist.items()), zero)
        win = sum((p for d, p in dist.items() if d > 0), zero)
        draw = dist.get(0, zero)
        loss = sum((p for d, p in dist.items() if d < 0), zero)
        conv: Callable[[Any], Number] = to_fraction if self.exact else float
        bound = 0.0 if self.exact else rounding_bound(self.n)[1]
        gap = max((b.max_gap for b in self.bots if isinstance(b, OptimalBot)), default=0.0)
        return Evaluation(
            n=self.n,
            bots=self.names,
            expected_difference=conv(mean),
            win=conv(win),
            draw=conv(draw),
            loss=conv(loss),
            distribution={d: conv(p) for d, p in dist.items()},
            exact=self.exact,
            error_bound=bound,
            equilibrium_gap=gap,
            states=len(self.memo),
        )
