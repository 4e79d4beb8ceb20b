"""Tests of the brute-force oracle ``tests/reference.py`` on its own.

These do not touch the main package ``exact``; they check that the oracle
itself is right (worked example and table of Rhoads & Bartholdi 2012, textbook
matrix games, symmetry of the game).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from reference import (
    reference_game,
    reference_matrix,
    reference_strategy,
    reference_value,
)

TOL = 1e-9


def _assert_optimal(A, v, x, y, tol=TOL):
    """x guarantees at least v against every column, y at most v against every row."""
    A = np.asarray(A, dtype=float)
    assert np.all(x >= 0) and np.all(y >= 0)
    assert abs(x.sum() - 1) < tol and abs(y.sum() - 1) < tol
    assert (x @ A).min() >= v - tol
    assert (A @ y).max() <= v + tol


# --- the paper's worked example (sec 3.1) ----------------------------------


def test_paper_worked_example():
    """Mine {2,4}, theirs {A,3}, deck {Q,K}, king up: value 12.52, play 4 w.p. 0.52."""
    X = reference_matrix({2, 4}, {1, 3}, {12, 13}, 13)
    # 2v1 then 4v3: +13+12; 2v3 then 4v1: -13+12; 4v1 then 2v3: +13-12; 4v3 then 2v1: +13+12.
    np.testing.assert_allclose(X, [[25, -1], [1, 25]], atol=TOL)
    v, mine, theirs = reference_strategy({2, 4}, {1, 3}, {12, 13}, 13)
    assert v == pytest.approx(12.52, abs=TOL)
    assert mine[4] == pytest.approx(0.52, abs=TOL)
    assert mine[2] == pytest.approx(0.48, abs=TOL)
    assert theirs == pytest.approx({1: 0.52, 3: 0.48}, abs=TOL)
    # Before the upcard: f is the mean of the queen-up and king-up games.
    vq = reference_strategy({2, 4}, {1, 3}, {12, 13}, 12)[0]
    assert reference_value({2, 4}, {1, 3}, {12, 13}) == pytest.approx((v + vq) / 2, abs=TOL)


# --- single matrix games ----------------------------------------------------


def test_rock_paper_scissors():
    A = [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
    v, x, y = reference_game(A)
    assert v == pytest.approx(0, abs=TOL)
    np.testing.assert_allclose(x, [1 / 3] * 3, atol=TOL)
    np.testing.assert_allclose(y, [1 / 3] * 3, atol=TOL)
    _assert_optimal(A, v, x, y)


def test_2x2_known_value():
    # No saddle point: v = (ad - bc) / (a - b - c + d) = (3 - 2) / (3 + 1 + 2 + 1) = 1/7.
    A = [[3, -1], [-2, 1]]
    v, x, y = reference_game(A)
    assert v == pytest.approx(1 / 7, abs=TOL)
    np.testing.assert_allclose(x, [3 / 7, 4 / 7], atol=TOL)
    np.testing.assert_allclose(y, [2 / 7, 5 / 7], atol=TOL)
    _assert_optimal(A, v, x, y)


@pytest.mark.parametrize(
    "A, value",
    [
        pytest.param([[5]], 5, id="1x1"),
        pytest.param([[1, 2], [3, 4]], 3, id="saddle"),
        # column 3 holds the row player to 0
        pytest.param([[2, -1, 0], [-1, 2, 0]], 0, id="2x3-safe-col"),
        pytest.param([[1, -1], [-1, 1], [-5, -5]], 0, id="3x2-matching-pennies-plus-bad-row"),
    ],
)
def test_small_games_signs(A, value):
    """Non-square and asymmetric games: catches swapped rows/columns or signs."""
    v, x, y = reference_game(A)
    assert v == pytest.approx(value, abs=TOL)
    _assert_optimal(A, v, x, y)


def test_game_value_is_shift_and_scale_covariant():
    rng = np.random.default_rng(1)
    for _ in range(20):
        m, n = rng.integers(1, 6, size=2)
        A = rng.integers(-9, 10, size=(m, n)).astype(float)
        v, x, y = reference_game(A)
        _assert_optimal(A, v, x, y, tol=1e-8)
        v2, _, _ = reference_game(2 * A + 3)
        assert v2 == pytest.approx(2 * v + 3, abs=1e-8)
        # Transposed, negated game: the roles swap.
        v3, x3, y3 = reference_game(-A.T)
        assert v3 == pytest.approx(-v, abs=1e-8)


# --- symmetry of the card game ------------------------------------------------


def _positions(n, k):
    cards = range(1, n + 1)
    for V in combinations(cards, k):
        for Y in combinations(cards, k):
            for P in combinations(cards, k):
                yield set(V), set(Y), set(P)


@pytest.mark.parametrize("n, k", [(3, 1), (3, 2), (4, 2), (4, 3)], ids=lambda t: str(t))
def test_antisymmetry_and_self_play(n, k):
    for V, Y, P in _positions(n, k):
        assert reference_value(V, Y, P) == pytest.approx(-reference_value(Y, V, P), abs=TOL)
        if V == Y:
            assert reference_value(V, V, P) == pytest.approx(0, abs=TOL)


@pytest.mark.parametrize("n, k", [(3, 2), (4, 3)], ids=lambda t: str(t))
def test_matrix_antisymmetry(n, k):
    """Swapping the players transposes and negates every payoff matrix."""
    for V, Y, P in _positions(n, k):
        for u in P:
            np.testing.assert_allclose(
                reference_matrix(Y, V, P, u), -reference_matrix(V, Y, P, u).T, atol=TOL
            )


def test_one_card_positions():
    assert reference_value({3}, {1}, {2}) == 2
    assert reference_value({1}, {3}, {2}) == -2
    assert reference_value({2}, {2}, {5}) == 0


def test_dominant_hand():
    """If every card of mine beats every card of theirs I win the whole deck."""
    assert reference_value({4, 5, 6}, {1, 2, 3}, {1, 2, 3}) == pytest.approx(6, abs=TOL)
    assert reference_value({3, 4}, {1, 2}, {7, 9}) == pytest.approx(16, abs=TOL)


# --- full games -------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 4], ids=lambda n: f"N{n}")
def test_full_game_value_is_zero(n):
    S = set(range(1, n + 1))
    assert reference_value(S, S, S) == pytest.approx(0, abs=TOL)


def test_paper_table1_n5():
    """Table 1 (N = 5 first move, rounded to 4 digits) guarantees the value 0.

    Rows of the table are the bid, columns the upcard. The optimum need not
    be unique, so we check the published strategy's guarantee (up to the
    rounding of the table) rather than compare vectors. This solves the whole
    N = 5 tree (~15 s), shared through the memo with test_against_reference.
    """
    T = np.array(
        [
            [0.0470, 0.1855, 0.1182, 0.1226, 0.1123],
            [0.8327, 0, 0.1188, 0.07347, 0.0241],
            [0.1203, 0.7375, 0, 0.1915, 0],
            [0, 0.0770, 0.7630, 0.2043, 0],
            [0, 0, 0, 0.4081, 0.8636],
        ]
    )
    S = set(range(1, 6))
    assert reference_value(S, S, S) == pytest.approx(0, abs=TOL)
    for u in S:
        X = reference_matrix(S, S, S, u)
        v, x, y = reference_game(X)
        assert v == pytest.approx(0, abs=TOL)
        _assert_optimal(X, v, x, y)
        p = T[:, u - 1]
        # The same strategy for both players (symmetric game, antisymmetric X).
        assert (p @ X).min() >= -1e-3
        assert (X @ p).max() <= 1e-3
