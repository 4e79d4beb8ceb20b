"""How a tie for the high bid is scored: the tie rule as a rule of the game.

A unique high bid takes the prize; when every bidder ties, the prize is discarded.  In
between (some but not all bidders tied for the high bid) the tie rule decides:

``discard``
    Nobody scores (the two-player rules; OpenSpiel's goofspiel, ``DoApplyActions`` in
    ``open_spiel/games/goofspiel.cc``, for any number of players).
``split``
    The tied high bidders share the prize equally (the "Psychological JuJitsu" rules
    write-up: "the diamond is placed between the two high bidders and they each get half
    value for it").
``third``
    Among three bidders, a two-way tie for the high bid gives the prize to the third (the
    write-up's "rather nasty variant", even when the third bid lowest).

Each rule is one :class:`TieRule` object; a name is parsed into it once, at a boundary
(:func:`tie_rule_named`), and below it the object scores a round (:meth:`TieRule.score`).
Like the objectives, a tie rule compared with a string raises TypeError.

>>> THIRD.score(13, (13, 13, 1))      # the write-up's extreme case
(Fraction(0, 1), Fraction(0, 1), Fraction(13, 1))
>>> tie_rule_named("split").score(9, (7, 7, 2))
(Fraction(9, 2), Fraction(9, 2), Fraction(0, 1))
>>> tie_rule_named("halves")
Traceback (most recent call last):
...
exact.errors.GopsInputError: unknown tie rule 'halves' (choose from split, third, discard)
"""

from __future__ import annotations

from fractions import Fraction

from exact.errors import GopsInputError
from exact.game.objectives import _Named

__all__ = ["DISCARD", "SPLIT", "THIRD", "TIE_RULES", "TieRule", "tie_rule_named"]


class TieRule(_Named):
    """A tie rule: who scores a prize when some, but not all, bidders tie for the high
    bid (:meth:`tied`); :meth:`score` scores a whole round."""

    what = "tie rule"

    def __init__(self, name: str, description: str):
        self.name, self.description = name, description

    def tied(self, upcard: int, high: list[int], bidders: int) -> list[tuple[int, Fraction]]:
        """(bidder, points) of a prize whose high bid ``high`` (some, not all, bidders)
        tied for: nobody (this class: ``discard``)."""
        return []

    def score(self, upcard: int, bids: tuple[int, ...]) -> tuple[Fraction, ...]:
        """Points each bidder gets from one prize, given all bids (a dummy's included)."""
        if len(bids) < 2:
            raise GopsInputError(f"a round needs at least 2 bids, got {len(bids)}")
        top = max(bids)
        high = [i for i, b in enumerate(bids) if b == top]
        share = [Fraction(0)] * len(bids)
        if len(high) == 1:
            share[high[0]] = Fraction(upcard)
        elif len(high) < len(bids):
            for i, points in self.tied(upcard, high, len(bids)):
                share[i] = points
        return tuple(share)


class _Split(TieRule):
    def tied(self, upcard, high, bidders):
        return [(i, Fraction(upcard, len(high))) for i in high]


class _Third(TieRule):
    def tied(self, upcard, high, bidders):
        if bidders != 3:
            raise GopsInputError("the 'third' tie rule needs exactly three bidders")
        (other,) = (i for i in range(3) if i not in high)
        return [(other, Fraction(upcard))]


SPLIT = _Split("split", "the tied high bidders share the prize")
THIRD = _Third("third", "a two-way tie for the high bid gives the prize to the third player")
DISCARD = TieRule("discard", "any tie for the high bid discards the prize")

#: Every tie rule by name, in the order the command line offers them.
TIE_RULES: dict[str, TieRule] = {r.name: r for r in (SPLIT, THIRD, DISCARD)}


def tie_rule_named(name) -> TieRule:
    """The TieRule called ``name`` (a TieRule is returned as it is)."""
    if isinstance(name, TieRule):
        return name
    try:
        return TIE_RULES[name]
    except (KeyError, TypeError):
        raise GopsInputError(
            f"unknown tie rule {name!r} (choose from {', '.join(TIE_RULES)})"[:300]
        ) from None
