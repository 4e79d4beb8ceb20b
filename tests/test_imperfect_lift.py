"""exact.imperfect.lift: the support guess lifted from a game with one card fewer.

The reference is the map written out on the decisions' keys (Layout.key / Layout.row,
Python, not the numba kernel): drop the first round, replace each later prize by its rank
among the prizes less the first, each own card by its rank among the cards left after the
first bid."""

import numpy as np
import pytest

from exact.errors import GopsInputError
from exact.imperfect.game import ImperfectGame
from exact.imperfect.lift import lifted_support
from exact.imperfect.tables import layout, legal_rows

#: The seed of the random probabilities of the smaller game.
SEED = 51
#: A bid is allowed where the smaller game plays its rank at least this often.
THRESHOLD = 0.3


@pytest.mark.parametrize("n, order", [(4, "descending"), (5, "ascending"), (4, "random")])
def test_each_decision_allows_the_ranks_the_smaller_game_plays(n, order):
    game = ImperfectGame.parse(n, order, "points")
    small_game = ImperfectGame.parse(n - 1, order, "points")
    where, small_where = layout(game), layout(small_game)
    small = np.random.default_rng(SEED).random((small_where.rows, n - 1))
    allow = lifted_support(game, small_game, small, THRESHOLD)
    legal = legal_rows(where)
    assert np.array_equal(allow[: where.offsets[1]], legal[: where.offsets[1]])  # round 0
    for row in range(where.offsets[1], where.rows):
        prizes, own, winners = where.key(row)
        left = [c for c in range(1, n + 1) if c != own[0]]
        rank = {card: left.index(card) + 1 for card in left}
        others = [p for p in range(1, n + 1) if p != prizes[0]]
        small_prizes = tuple(others.index(p) + 1 for p in prizes[1:])
        if small_where.fixed:
            assert small_prizes == small_where.fixed[: len(own)]
        small_key = (small_prizes, tuple(rank[c] for c in own[1:]), winners[1:])
        small_row = small_where.row(small_key)
        for card in range(1, n + 1):
            expected = card not in own and small[small_row, rank[card] - 1] >= THRESHOLD
            assert allow[row, card - 1] == expected, (row, card)


def test_only_the_same_order_with_one_card_fewer():
    small = np.zeros((layout(ImperfectGame.parse(3, "descending")).rows, 3))
    for game, small_game in (
        (ImperfectGame.parse(4, "random"), ImperfectGame.parse(3, "descending")),
        (ImperfectGame.parse(4, "descending"), ImperfectGame.parse(3, "ascending")),
        (ImperfectGame.parse(5, "descending"), ImperfectGame.parse(3, "descending")),
    ):
        with pytest.raises(GopsInputError, match="one card fewer"):
            lifted_support(game, small_game, small, THRESHOLD)
