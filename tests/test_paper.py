"""Numbers published in Rhoads & Bartholdi, "Computer Solution to the Game of Pure
Strategy", Games 3 (2012) 150-156, reproduced by the float solver."""

import pytest

import exact

#: The paper prints four decimals; we must agree to rounding at the fourth.
PAPER_DIGITS_TOL = 0.5e-4 + 1e-12

# Table 1: optimal first move, N = 5.  TABLE_1[bid - 1][upcard - 1].
TABLE_1 = [
    [0.0470, 0.1855, 0.1182, 0.1226, 0.1123],
    [0.8327, 0, 0.1188, 0.07347, 0.0241],
    [0.1203, 0.7375, 0, 0.1915, 0],
    [0, 0.0770, 0.7630, 0.2043, 0],
    [0, 0, 0, 0.4081, 0.8636],
]


@pytest.mark.parametrize("upcard", range(1, 6), ids=lambda u: f"upcard{u}")
def test_table_1_first_move_n5(solved, upcard):
    """Rhoads & Bartholdi 2012, Table 1: every entry to 4 decimals."""
    table = solved(5).first_move_table()
    for bid in range(1, 6):
        assert table[upcard][bid] == pytest.approx(
            TABLE_1[bid - 1][upcard - 1], abs=PAPER_DIGITS_TOL
        )


def test_worked_example_sec_3_1():
    """Sec 3.1: mine {2,4}, theirs {1,3}, prizes {12,13}, king up: value 12.52, play 4 w.p. 0.52.

    The position lives in the 13-card game; its equilibrium needs only level 1 of it.
    """
    sol = exact.solve(13, top=1)
    s = sol.strategy({2, 4}, {1, 3}, {12, 13}, 13)
    assert s.value == pytest.approx(12.52, abs=1e-12)
    assert s.mine[4] == pytest.approx(0.52, abs=1e-12)
    assert s.mine[2] == pytest.approx(0.48, abs=1e-12)


def test_nine_card_upcard_nine_sec_5(solved):
    """Sec 5: in the 9-card game with upcard 9 first, bid 9 with probability 0.7475."""
    cards = set(range(1, 10))
    s = solved(9).strategy(cards, cards, cards, 9)
    assert s.mine[9] == pytest.approx(0.7475, abs=PAPER_DIGITS_TOL)


def test_sec_4_never_bid_n_minus_1_or_2_on_upcard_n(solved):
    """Sec 4: for N = 5..9 with upcard N one should never bid N-1 nor N-2."""
    for n in range(5, 10):
        mix = solved(n).first_move_table()[n]
        assert mix[n - 1] < 1e-9 and mix[n - 2] < 1e-9, n
