"""A guess of an N-card game's equilibrium support from an (N - 1)-card equilibrium.

Once the first round is played, N-card Goofspiel looks like the (N - 1)-card game of
the same prize order: N - 1 prizes left, N - 1 cards in each hand.  The guess maps a
decision of round r >= 1 to the (N - 1)-card decision of round r - 1 by ranks: each
prize turned after the first is replaced by its rank among the prizes less the first
(in a fixed order these are the smaller game's own: descending N - 1, ..., 1 either way;
in the random order each sequence of prizes maps to one of the smaller game's), each own
card by its rank among the cards left after the first bid, and the first round's winner
is forgotten.  A card is allowed where the smaller equilibrium plays its
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
from exact.imperfect.fast import _rank
from exact.imperfect.game import ImperfectGame
from exact.imperfect.lp_tables import _sequence
from exact.imperfect.tables import layout

__all__ = ["lifted_support"]


@numba.njit(cache=True, nogil=True)
def _ranked_index(cards, first, count, n, drop):
    """The (N - 1)-card sequence number (mixed radix N - 1, N - 2, ...) of ``cards[first:
    first + count]``, each card replaced by its rank among 1..N less ``drop``."""
    index, used = 0, 1 << (drop - 1)
    for j in range(count):
        card = cards[first + j]
        index = index * (n - 1 - j) + _rank(used, card)
        used |= 1 << (card - 1)
    return index


@numba.njit(cache=True, nogil=True)
def _lift(n, last, shuffled, prize_seqs, own_seqs, offsets, small_own_seqs, small_offsets,
          small, threshold, allow):  # fmt: skip
    """allow[row, card - 1] for every row of rounds 1..``last`` of the N-card tables from
    the (N - 1)-card probabilities ``small`` (module docstring)."""
    bids = np.zeros(max(last, 1), dtype=np.int64)
    prizes = np.zeros(last + 1, dtype=np.int64)
    for r in range(1, last + 1):
        pow3 = 3**r
        for pidx in range(prize_seqs[r]):
            small_pidx = 0
            if shuffled:
                _sequence(pidx, r + 1, n, prizes)
                small_pidx = _ranked_index(prizes, 1, r, n, prizes[0])
            for sidx in range(own_seqs[r]):
                mask = _sequence(sidx, r, n, bids)
                index = _ranked_index(bids, 1, r - 1, n, bids[0])
                base = offsets[r] + (pidx * own_seqs[r] + sidx) * pow3
                small_base = small_offsets[r - 1] + (small_pidx * small_own_seqs[r - 1] + index) * (
                    pow3 // 3
                )
                for widx in range(pow3):
                    row, small_row = base + widx, small_base + widx // 3
                    rank = 0  # each card's rank (1..N-1) among the cards left after bid 0
                    for card in range(1, n + 1):
                        if card == bids[0]:
                            continue
                        rank += 1
                        if not mask & (1 << (card - 1)) and small[small_row, rank - 1] >= threshold:
                            allow[row, card - 1] = True


def lifted_support(
    game: ImperfectGame, small_game: ImperfectGame, small: np.ndarray, threshold: float
) -> np.ndarray:
    """One player's allowed cells (bool, the tables' shape) of ``game`` from its
    probabilities ``small`` (the tables' rows of ``small_game``, one card fewer, the same
    prize order), module docstring."""
    if small_game.order is not game.order or small_game.n != game.n - 1:
        raise GopsInputError("a support is lifted from the same prize order with one card fewer")
    where, small_where = layout(game), layout(small_game)
    allow = np.zeros((where.rows, game.n), dtype=bool)
    allow[where.offsets[0] : where.offsets[1]] = True
    a, small_a = where.arrays(), small_where.arrays()
    _lift(game.n, where.last, where.shuffled, a["prize_sequences"], a["own_sequences"],
          a["offsets"], small_a["own_sequences"], small_a["offsets"], small, threshold,
          allow)  # fmt: skip
    return allow
