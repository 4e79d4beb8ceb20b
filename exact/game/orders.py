"""Who orders the prizes: the prize order as a rule of the game.

The "Psychological JuJitsu" rules shuffle the prizes (``random``: each remaining prize is
the next upcard with equal probability; Rhoads & Bartholdi 2012 solve this game).  OpenSpiel's
goofspiel also deals them in a known sequence (``ascending``: the smallest remaining prize
next; ``descending``: the largest), and the rules write-up proposes a player who chooses
the next prize, knowing everything (``controlled-by-me``: the row player, whose values
these are; ``controlled-by-them``: the column player).

With f_u(V, Y, P) the value of the matrix game once prize u is turned up, the value of a
state before the upcard is

    random              f = (1/k) sum_{u in P} f_u
    ascending           f = f_{min P}
    descending          f = f_{max P}
    controlled-by-me    f = max_{u in P} f_u        (the chooser maximises)
    controlled-by-them  f = min_{u in P} f_u

The first three are symmetric between the players: f(Y, V, P) = -f(V, Y, P), so one
pattern of each antisymmetric pair is solved.  A controlled order is not (the chooser is
one of them); instead the two controlled games mirror each other,
f_by_them(V, Y, P) = -f_by_me(Y, V, P), which the tests check.
"""

from __future__ import annotations

from dataclasses import dataclass

from exact.errors import GopsInputError


@dataclass(frozen=True)
class PrizeOrder:
    """One prize order.  ``code`` is its number inside the numba kernels."""

    name: str
    code: int
    #: Whether f(Y, V, P) = -f(V, Y, P) (one pattern of each pair is solved).
    antisymmetric: bool
    description: str
    #: Which prize comes next: "any" (chance, or the chooser's pick), "smallest", "largest".
    next: str = "any"
    #: Who picks the next prize: "me", "them", or None (chance or a known sequence).
    chooser: str | None = None

    def upcard_range(self, k: int) -> tuple[int, int]:
        """[lo, hi): the ranks (smallest first) of the upcards of a prize set of k cards
        that can come next (the kernels' ``upcard_range``, for every order code)."""
        return {"smallest": (0, 1), "largest": (k - 1, k)}.get(self.next, (0, k))

    def next_prizes(self, deck) -> list[int]:
        """The prizes that can be turned up next from ``deck`` (ascending)."""
        deck = sorted(deck)
        lo, hi = self.upcard_range(len(deck))
        return deck[lo:hi]

    def upcard_indices(self, k: int) -> range:
        """Which upcards of a prize set of k cards (by rank, smallest first) count."""
        return range(*self.upcard_range(k))

    def combine(self, values: list):
        """f from the values f_u of the upcards of :meth:`upcard_indices`, in that order
        (the recursion in the module docstring; exact for fmpq, as the kernels for float)."""
        if self.chooser is not None:  # the chooser's best
            return max(values) if self.chooser == "me" else min(values)
        if self.next == "any":  # chance: the mean
            total = values[0] * 0
            for v in values:
                total += v
            return total / len(values)
        (value,) = values
        return value


RANDOM = PrizeOrder("random", 0, True, "shuffled: each remaining prize equally likely next")
ASCENDING = PrizeOrder("ascending", 1, True, "the smallest remaining prize next", "smallest")
DESCENDING = PrizeOrder("descending", 2, True, "the largest remaining prize next", "largest")
CONTROLLED_BY_ME = PrizeOrder(
    "controlled-by-me", 3, False, "I choose the next prize, knowing everything", chooser="me"
)
CONTROLLED_BY_THEM = PrizeOrder(
    "controlled-by-them", 4, False, "they choose the next prize, knowing everything", chooser="them"
)

ORDERS = {o.name: o for o in (RANDOM, ASCENDING, DESCENDING, CONTROLLED_BY_ME, CONTROLLED_BY_THEM)}


def mirrored(name: str) -> str:
    """The order as the other player sees it: who chooses is swapped.

    >>> mirrored("controlled-by-me"), mirrored("ascending")
    ('controlled-by-them', 'ascending')
    """
    return {"controlled-by-me": "controlled-by-them", "controlled-by-them": "controlled-by-me"}.get(
        name, name
    )


def order_named(name) -> PrizeOrder:
    """The PrizeOrder called ``name`` (a PrizeOrder is returned as it is).

    >>> order_named("descending").next_prizes({3, 1, 2})
    [3]
    >>> order_named("sorted")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: unknown prize order 'sorted' (choose from random, ascending,
    descending, controlled-by-me, controlled-by-them)
    """
    if isinstance(name, PrizeOrder):
        return name
    try:
        return ORDERS[name]
    except (KeyError, TypeError):
        raise GopsInputError(
            f"unknown prize order {name!r} (choose from {', '.join(ORDERS)})"
        ) from None
