"""Three-player GOPS with bids revealed each round: the game's parts as typed objects.

A position is three hands, the prizes not yet bid on and (for the ``top`` objective) the
points each player holds.  Each round a prize is turned up (:data:`ORDERS`), the three
players bid at once, the bids are shown and the prize is scored by the tie rule
(:data:`TIE_RULES`, scored by :func:`exact.game.variants.resolve_round`):

``split``
    The "Psychological JuJitsu" rules write-up: a unique high bid takes the prize; "if
    there is a tie for high bid in a three-player game the diamond is placed between the
    two high bidders and they each get half value for it".  A three-way tie discards the
    prize (the write-up's four-player remark: "a three-way tie bid on every diamond, in
    which case everyone ends up at zero").
``third``
    The write-up's "rather nasty variant": "if there is a two-way tie for the high bid,
    the other player wins that diamond" (also with the lowest bid).  A three-way tie
    discards the prize, as under ``split``.
``discard``
    OpenSpiel's goofspiel (``DoApplyActions`` in ``open_spiel/games/goofspiel.cc``): a
    prize goes to the one highest bidder; any tie for the highest bid (two or three
    players) discards it.

Objectives (:data:`OBJECTIVES`): ``points``, each player's expected points (the game is
not zero-sum: a discarded prize scores for nobody); ``top``, each player's chance of
finishing with the most points, a tie at the top sharing the win equally (two tied
leaders get 1/2 each, three get 1/3).

>>> ThreeGame.parse(4, "third", "top", "random").describe()
'three-player GOPS, 4 cards, tie rule third, objective top, random prize order'
>>> ThreeGame.parse(4, "halves")
Traceback (most recent call last):
...
exact.errors.GopsInputError: unknown tie rule 'halves' (choose from split, third, discard)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from exact.errors import GopsInputError
from exact.game.variants import resolve_round
from exact.limits import check_n

__all__ = ["OBJECTIVES", "ORDERS", "THREE_MAX_N", "TIE_RULES", "ThreeGame", "round_points"]

#: The tie rules, by name (see the module docstring).
TIE_RULES = ("split", "third", "discard")
#: What each player maximises.
OBJECTIVES = ("points", "top")
#: Who orders the prizes: chance (each remaining prize equally likely next), or the
#: smallest / the largest remaining prize next (OpenSpiel's ``points_order``).
ORDERS = ("random", "ascending", "descending")
#: The largest N accepted.  N = 5 solves in under a minute of CPU; N = 6 (73,590 stage
#: games) in 8-13 minutes of CPU per rule and under 500 MiB; N = 7 (917,616 stage games)
#: is projected at 2-4 hours, not measured (benchmarks/bench_three.py,
#: docs/three-players.md).
THREE_MAX_N = 6


def _named(value: object, names: tuple[str, ...], what: str) -> str:
    if not isinstance(value, str) or value not in names:
        raise GopsInputError(f"unknown {what} {value!r} (choose from {', '.join(names)})")
    return value


@dataclass(frozen=True)
class ThreeGame:
    """The three-player game to solve: N, tie rule, objective, prize order (checked)."""

    n: int
    tie_rule: str
    objective: str
    order: str

    @classmethod
    def parse(
        cls, n: object, tie_rule: object = "split", objective: object = "points", order="random"
    ) -> ThreeGame:
        """Every field checked: a bad one is a one-line GopsInputError."""
        return cls(
            check_n(n, high=THREE_MAX_N, what=" for three players"),
            _named(tie_rule, TIE_RULES, "tie rule"),
            _named(objective, OBJECTIVES, "objective"),
            _named(order, ORDERS, "prize order"),
        )

    @property
    def top(self) -> bool:
        """Whether positions carry the points so far (the ``top`` objective)."""
        return self.objective == "top"

    def next_prizes(self, prizes: tuple[int, ...]) -> tuple[int, ...]:
        """The prizes that can be turned up next (``prizes`` ascending)."""
        if self.order == "ascending":
            return prizes[:1]
        if self.order == "descending":
            return prizes[-1:]
        return prizes

    def describe(self) -> str:
        return (
            f"three-player GOPS, {self.n} cards, tie rule {self.tie_rule}, objective "
            f"{self.objective}, {self.order} prize order"
        )

    def to_json(self) -> dict:
        return {
            "players": 3,
            "n": self.n,
            "tie_rule": self.tie_rule,
            "objective": self.objective,
            "order": self.order,
        }


def round_points(upcard: int, bids: tuple[int, int, int], tie_rule: str) -> tuple[Fraction, ...]:
    """Points of one round (only the order of the bids matters, so ranks do as well).

    >>> round_points(13, (13, 13, 1), "third")
    (Fraction(0, 1), Fraction(0, 1), Fraction(13, 1))
    >>> round_points(6, (5, 5, 1), "discard") == round_points(6, (5, 5, 5), "split") == (0, 0, 0)
    True
    """
    return resolve_round(upcard, bids, tie_rule)


def top_shares(points: tuple) -> tuple[Fraction, Fraction, Fraction]:
    """Each player's share of the win at the end: 1/m to each of the m leaders."""
    best = max(points)
    leaders = [i for i, p in enumerate(points) if p == best]
    return tuple(Fraction(1, len(leaders)) if i in leaders else Fraction(0) for i in range(3))  # type: ignore[return-value]
