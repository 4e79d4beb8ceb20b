"""A guess of an N-card game's equilibrium support from an (N - 1)-card equilibrium.

In a fixed prize order, once the first round is played, N-card Goofspiel looks like the
(N - 1)-card game: N - 1 prizes left, N - 1 cards in each hand.  The guess maps a
decision of round r >= 1 to the (N - 1)-card decision of round r - 1 by ranks: the
prizes left are the smaller game's by rank (descending: N - 1, ..., 1 either way), each
own card is replaced by its rank among the cards left after the first bid, and the first
round's winner is forgotten.  A card is allowed where the smaller equilibrium plays its
rank with probability at least ``threshold``.  Round 0, which the smaller game does not
have, allows every card (with one first bid allowed, the restricted game's first round
is a pure strategy, which the opponent's best response punishes: at 6 cards, NashConv 9
after the first LP, against 5.2 at 7 cards with every first bid).

The map is only an abstraction (the hands' ranks compare as the cards do only when both
players spent the same first card), so the cells it allows are a starting set of the
double oracle (:mod:`exact.imperfect.double_oracle`), whose best responses in the whole
game correct it: nothing proven rests on it.
"""

from __future__ import annotations

import numba
import numpy as np

from exact.errors import GopsInputError
from exact.game.orders import RANDOM
from exact.imperfect.game import ImperfectGame
from exact.imperfect.lp_tables import _sequence
from exact.imperfect.tables import Layout, layout

__all__ = ["lifted_support"]


@numba.njit(cache=True, nogil=True)
def _lift(n, last, own_seqs, offsets, small_own_seqs, small_offsets, small, threshold, allow):
    """allow[row, card - 1] for every row of rounds 1..``last`` of the N-card tables (a
    fixed order: the prize index is 0) from the (N - 1)-card probabilities ``small``."""
    bids = np.zeros(max(last, 1), dtype=np.int64)
    ranks = np.zeros(n + 1, dtype=np.int64)
    for r in range(1, last + 1):
        pow3 = 3**r
        for sidx in range(own_seqs[r]):
            mask = _sequence(sidx, r, n, bids)
            # each card's rank (1..N-1) among the cards left after the first bid
            k = 0
            for card in range(1, n + 1):
                if card != bids[0]:
                    k += 1
                    ranks[card] = k
                else:
                    ranks[card] = 0
            # the smaller game's own index: the ranks of bids 1..r-1 in the mixed radix
            index, used = 0, 0
            for j in range(1, r):
                rank = ranks[bids[j]]
                below = 0
                for c in range(1, n + 1):
                    if used & (1 << (c - 1)) and ranks[c] < rank:
                        below += 1
                index = index * (n - 1 - (j - 1)) + rank - 1 - below
                used |= 1 << (bids[j] - 1)
            for widx in range(pow3):
                row = offsets[r] + sidx * pow3 + widx
                small_row = small_offsets[r - 1] + index * (pow3 // 3) + widx // 3
                for card in range(1, n + 1):
                    if mask & (1 << (card - 1)):
                        continue
                    if small[small_row, ranks[card] - 1] >= threshold:
                        allow[row, card - 1] = True


def lifted_support(
    game: ImperfectGame, small_game: ImperfectGame, small: np.ndarray, threshold: float
) -> np.ndarray:
    """One player's allowed cells (bool, the tables' shape) of ``game`` from its
    probabilities ``small`` (the tables' rows of ``small_game``, one card fewer, the same
    fixed order), module docstring."""
    if game.order is RANDOM or small_game.order is not game.order or small_game.n != game.n - 1:
        raise GopsInputError(
            "a support is lifted from the same fixed prize order with one card fewer"
        )
    where, small_where = layout(game), layout(small_game)
    allow = np.zeros((where.rows, game.n), dtype=bool)
    allow[where.offsets[0] : where.offsets[1]] = True
    _lift(game.n, where.last, *_arrays(where), *_arrays(small_where), small, threshold, allow)
    return allow


def _arrays(where: Layout) -> tuple[np.ndarray, np.ndarray]:
    a = where.arrays()
    return a["own_sequences"], a["offsets"]
