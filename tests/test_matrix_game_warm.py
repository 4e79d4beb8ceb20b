"""Tests of the warm start :func:`exact.kernels.matrix_game.solve_game_warm` (and of
:func:`~exact.kernels.matrix_game.solve_on_support`, its guess alone).

- without a guess it is the cold solver: the same bits as ``solve_game_unchecked``, plus a
  square support code (the final basis) that reproduces the solution as a guess;
- an accepted guess gives optimal strategies (guarantees within ``WARM_GAP`` of each
  other, relative to max |A|) and a value within the certified bounds
  (exact.kernels.bounds.certified_game) of the simplex's, never polished;
- a wrong or malformed guess falls back to the cold path: the same bits as
  ``solve_game_unchecked`` and its basis;
- degenerate and non-unique games: singular support systems (duplicated rows, constant
  blocks), value-0 games whose support matrix is singular (the bordered system is not),
  zero leading pivots (the pivoted retry), several optimal supports;
- real GOPS games, replayed in the level kernel's order with the previous prize set's
  supports as guesses (the benchmark's ``prizeset`` memo): mostly hits, all certified.
"""

import numba
import numpy as np
import pytest

from exact.kernels.bounds import certified_game, rounding_margin
from exact.kernels.matrix_game import (
    KMAX,
    NO_SUPPORT,
    SUPPORT_SHIFT,
    WARM_GAP,
    solve_game_unchecked,
    solve_game_warm,
    solve_on_support,
    strategy_guarantees,
    support_code,
    support_sets,
)

#: Probability vectors sum to 1 to within rounding.
TOL_SUM = 1e-14


def cold(A):
    """(value, x, y) of solve_game_unchecked."""
    k = A.shape[0]
    x = np.empty(k)
    y = np.empty(k)
    v = solve_game_unchecked(A, k, x, y)
    return v, x, y


def warm(A, guess):
    """(value, x, y, support) of solve_game_warm."""
    k = A.shape[0]
    x = np.empty(k)
    y = np.empty(k)
    v, code = solve_game_warm(A, k, x, y, guess)
    return v, x, y, int(code)


def attempt(A, guess):
    """(accepted, value, x, y) of solve_on_support."""
    k = A.shape[0]
    x = np.empty(k)
    y = np.empty(k)
    ok, v = solve_on_support(A, k, x, y, guess)
    return bool(ok), v, x, y


def sizes(code):
    rows, cols = support_sets(code)
    return bin(int(rows)).count("1"), bin(int(cols)).count("1")


def check_accepted(A, v, x, y):
    """An accepted warm start: probability vectors whose guarantees are within WARM_GAP *
    max|A| of each other and bracket v; certified_game keeps v (no polish) and bounds it
    by less than twice its rounding margin."""
    k = A.shape[0]
    assert np.all(x >= 0.0) and np.all(y >= 0.0)
    assert abs(x.sum() - 1.0) <= TOL_SUM and abs(y.sum() - 1.0) <= TOL_SUM
    lo, hi = strategy_guarantees(A, k, x, y)
    a = np.abs(A).max()
    # (strategy_guarantees sums over every row and column, in its own order)
    assert hi - lo <= 2.0 * WARM_GAP * a, (hi - lo) / a
    assert lo - WARM_GAP * a <= v <= hi + WARM_GAP * a
    w, e = certified_game(A, k, x.copy(), y.copy(), v)
    assert w == v, "an accepted warm start was polished"
    assert e <= 2.0 * rounding_margin(k, a)


def check_agrees_with_cold(A, v, x, y):
    """|v - v_cold| within the sum of the two certified bounds."""
    k = A.shape[0]
    vc, xc, yc = cold(A)
    wc, ec = certified_game(A, k, xc, yc, vc)
    w, e = certified_game(A, k, x.copy(), y.copy(), v)
    assert abs(w - wc) <= e + ec, (w, wc, e, ec)


def random_games(seed, count, kmin=1):
    """A mix of game families, sizes kmin..16 (as tests/test_matrix_game.py)."""
    rng = np.random.default_rng(seed)
    games = []
    for t in range(count):
        k = int(rng.integers(kmin, KMAX + 1))
        kind = t % 4
        if kind == 0:  # i.i.d. entries, mixed equilibria
            A = rng.uniform(-200.0, 200.0, (k, k))
        elif kind == 1:  # GOPS-like
            bids = np.sign(np.subtract.outer(rng.permutation(k), rng.permutation(k)))
            A = rng.integers(1, 17) * bids + rng.uniform(-30.0, 30.0, (k, k))
        elif kind == 2:  # many ties
            A = rng.integers(-2, 3, (k, k)).astype(float)
        else:  # fractions
            A = rng.integers(-6, 7, (k, k)) / 3 + rng.integers(-6, 7, (k, k)) / 7
        games.append(A)
    return games


# --- support codes ---------------------------------------------------------------------


def test_support_codes():
    assert NO_SUPPORT == 0
    code = support_code(0b1011, 0b0111)
    assert code == 0b1011 | (0b0111 << SUPPORT_SHIFT)
    assert tuple(support_sets(code)) == (0b1011, 0b0111)
    full = (1 << KMAX) - 1
    assert tuple(support_sets(support_code(full, full))) == (full, full)


# --- the cold path ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2])
def test_no_guess_is_the_cold_solver(seed):
    """Without a guess: solve_game_unchecked's bits, and a square support code whose guess
    reproduces an optimal solution."""
    accepted = 0
    games = random_games(seed, 200)
    for A in games:
        k = A.shape[0]
        vc, xc, yc = cold(A)
        v, x, y, code = warm(A, NO_SUPPORT)
        assert np.array_equal([v], [vc]) and np.array_equal(x, xc) and np.array_equal(y, yc)
        rows, cols = support_sets(code)
        s, t = sizes(code)
        assert s == t >= 1 and rows < (1 << k) and cols < (1 << k)
        ok, w, xw, yw = attempt(A, code)
        if ok:
            accepted += 1
            check_accepted(A, w, xw, yw)
            check_agrees_with_cold(A, w, xw, yw)
            v2, x2, y2, code2 = warm(A, code)  # the guess is kept
            assert code2 == code and v2 == w
            assert np.array_equal(x2, xw) and np.array_equal(y2, yw)
    # the final basis of the simplex is a good guess for its own game (the misses are
    # tie-heavy games whose basis solve rounds a little worse than WARM_GAP)
    assert accepted >= 0.9 * len(games), accepted


def test_special_sizes_and_saddles():
    v, x, y, code = warm(np.array([[3.5]]), NO_SUPPORT)
    assert v == 3.5 and code == 1 | (1 << SUPPORT_SHIFT)
    A = np.array([[1.0, 2.0], [0.0, 3.0]])  # saddle at (0, 0)
    v, x, y, code = warm(A, NO_SUPPORT)
    assert v == 1.0 and code == 1 | (1 << SUPPORT_SHIFT)
    A = np.array([[3.0, -1.0], [-2.0, 1.0]])  # 2 x 2 closed form
    v, x, y, code = warm(A, NO_SUPPORT)
    assert code == 3 | (3 << SUPPORT_SHIFT)
    ok, w, xw, yw = attempt(A, code)
    assert ok and abs(w - v) <= 1e-15
    A = np.array([[0.0, 0.0, 5.0], [1.0, 4.0, 2.0], [-1.0, 3.0, 0.0]])  # saddle (1, 0)
    v, x, y, code = warm(A, NO_SUPPORT)
    assert v == 1.0 and code == (1 << 1) | (1 << SUPPORT_SHIFT)
    assert attempt(A, code)[:2] == (True, 1.0)  # a 1 x 1 guess: the saddle test


# --- accepted guesses ------------------------------------------------------------------


def test_guess_from_a_perturbed_game():
    """Siblings: the support of A is a right guess for a small perturbation of A."""
    rng = np.random.default_rng(4)
    hits = 0
    n = 0
    for A in random_games(5, 200, kmin=3):
        code = warm(A, NO_SUPPORT)[3]
        B = A + 1e-3 * np.abs(A).max() * rng.uniform(-1.0, 1.0, A.shape)
        v, x, y, code2 = warm(B, code)
        ok, w, xw, yw = attempt(B, code)
        n += 1
        if ok:
            hits += 1
            assert code2 == code and v == w
            check_accepted(B, w, xw, yw)
            check_agrees_with_cold(B, w, xw, yw)
        else:
            vc, xc, yc = cold(B)  # fallback: the cold solver's bits
            assert np.array_equal([v], [vc]) and np.array_equal(x, xc)
            assert code2 == warm(B, NO_SUPPORT)[3]
    assert hits >= 0.5 * n, (hits, n)


def test_known_games():
    """Closed-form games on their (full) supports, including singular support matrices
    with a non-singular bordered system (value 0) and a zero leading pivot."""
    rps = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    assert abs(np.linalg.det(rps)) < 1e-12  # singular: value 0 on the full support
    full3 = support_code(7, 7)
    for A, value in (
        (rps, 0.0),
        (rps + 2.5, 2.5),
        (np.eye(4), 0.25),
        (-np.eye(5), -0.2),
        (np.array([[0.0, 1.0], [1.0, 0.0]]), 0.5),
    ):
        k = A.shape[0]
        full = support_code((1 << k) - 1, (1 << k) - 1)
        ok, v, x, y = attempt(A, full)
        assert ok and abs(v - value) <= 1e-15
        assert np.allclose(x, 1.0 / k, rtol=0, atol=1e-15)
        assert np.allclose(y, 1.0 / k, rtol=0, atol=1e-15)
        check_accepted(A, v, x, y)
    assert attempt(rps, full3)[0]


def test_several_optimal_supports():
    """Rock-paper-scissors plus a row of zeros: value 0; the zero row alone is optimal
    for the row player, the uniform mix too, but the column player must mix uniformly.
    Every accepted guess is optimal; guesses that are not supports of an equilibrium
    are refused."""
    A = np.zeros((4, 3))
    A[:3] = [[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]]
    A = np.hstack([A, np.full((4, 1), 2.0)])  # a dominated column for the column player
    v, x, y, code = warm(A, NO_SUPPORT)
    assert abs(v) <= 1e-15
    ok, w, xw, yw = attempt(A, support_code(0b0111, 0b0111))
    assert ok and abs(w) <= 1e-15
    check_accepted(A, w, xw, yw)
    for rows, cols in ((0b1000, 0b0001), (0b1000, 0b1000), (0b0011, 0b0011), (0b1111, 0b1111)):
        ok, w, xw, yw = attempt(A, support_code(rows, cols))
        assert not ok, (rows, cols, w)
        vv, xx, yy, code2 = warm(A, support_code(rows, cols))
        assert vv == v and code2 == code


def test_zero_leading_pivot_and_large_multipliers():
    """Support systems that the unpivoted factorisation cannot take (rock-paper-scissors:
    a zero first pivot) or should not (a first pivot of 1e-6: multipliers of 1e6): the
    pivoted retry solves them."""
    rps = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    ok, v, x, y = attempt(rps, support_code(7, 7))
    assert ok and abs(v) <= 1e-16
    a, b, c, d = 1e-6, 1.0, 1.0, 0.0  # no saddle: the mix of the 2 x 2 closed form
    A = np.array([[a, b], [c, d]])
    ok, v, x, y = attempt(A, support_code(3, 3))
    assert ok and abs(v - (a * d - b * c) / ((a - b) + (d - c))) <= 1e-15
    check_accepted(A, v, x, y)
    check_agrees_with_cold(A, v, x, y)


# --- wrong and malformed guesses -------------------------------------------------------


def test_wrong_guesses_fall_back():
    """Any guess: an accepted one is optimal, a refused one gives the cold solver's bits
    and basis.  Guesses: every square support of small games, and random ones."""
    rng = np.random.default_rng(12)
    refused = 0
    for A in random_games(13, 120, kmin=2):
        k = A.shape[0]
        vc, xc, yc = cold(A)
        code_c = warm(A, NO_SUPPORT)[3]
        if k <= 4:
            guesses = [
                support_code(r, c)
                for r in range(1, 1 << k)
                for c in range(1, 1 << k)
                if bin(r).count("1") == bin(c).count("1")
            ]
        else:
            guesses = []
            for _ in range(20):
                s = int(rng.integers(1, k + 1))
                r = sum(1 << int(i) for i in rng.choice(k, s, replace=False))
                c = sum(1 << int(i) for i in rng.choice(k, s, replace=False))
                guesses.append(support_code(r, c))
        for guess in guesses:
            v, x, y, code = warm(A, guess)
            ok, w, xw, yw = attempt(A, guess)
            if ok:
                assert v == w and code == guess
                check_accepted(A, w, xw, yw)
                check_agrees_with_cold(A, w, xw, yw)
            else:
                refused += 1
                assert np.array_equal([v], [vc]) and np.array_equal(x, xc)
                assert np.array_equal(y, yc) and code == code_c
    assert refused > 1000


@pytest.mark.parametrize(
    "guess",
    [
        support_code(0b011, 0b001),  # unequal sizes
        support_code(0b1000, 0b0001),  # a row beyond k = 3
        support_code(0b001, 0b1000),  # a column beyond k
        support_code(0, 0),  # empty (= NO_SUPPORT)
        support_code(0b110, 0b110),  # duplicated rows 1 and 2: singular
        support_code(0b111, 0b111),  # singular (two equal rows) on the full support
    ],
)
def test_malformed_or_singular_guesses(guess):
    A = np.array([[4.0, -1.0, 0.5], [-2.0, 3.0, 1.0], [-2.0, 3.0, 1.0]])
    vc, xc, yc = cold(A)
    v, x, y, code = warm(A, guess)
    assert np.array_equal([v], [vc]) and np.array_equal(x, xc) and np.array_equal(y, yc)
    assert not attempt(A, guess)[0]
    s, t = sizes(code)
    assert s == t


def test_constant_game():
    A = np.full((4, 4), 2.0)
    v, x, y, code = warm(A, support_code(0b11, 0b11))  # singular: constant block
    assert v == 2.0 and sizes(code) == (1, 1)
    assert attempt(A, code)[:2] == (True, 2.0)


def test_buffers_and_larger_arrays():
    """Only x[:k], y[:k] are written and only A[:k, :k] is read, warm or cold."""
    rng = np.random.default_rng(8)
    for k in range(1, KMAX + 1):
        game = rng.uniform(-50.0, 50.0, (k, k))
        code = warm(game, NO_SUPPORT)[3]
        for guess in (code, NO_SUPPORT):
            buf = np.full((KMAX + 3, KMAX + 5), np.nan)
            buf[:k, :k] = game
            x = np.full(KMAX + 2, -7.0)
            y = np.full(KMAX + 2, -7.0)
            v, out = solve_game_warm(buf, k, x, y, guess)
            assert np.all(x[k:] == -7.0) and np.all(y[k:] == -7.0)
            assert np.array_equal(buf[:k, :k], game)
            ref = warm(game, guess)
            assert v == ref[0] and out == ref[3]
            assert np.array_equal(x[:k], ref[1]) and np.array_equal(y[:k], ref[2])


@numba.njit(cache=True, parallel=True)
def _chain_many(games, ks, out, codes):
    """Each block solves its games in order, each game's support the next one's guess."""
    n = games.shape[0]
    nblocks = 4
    for b in numba.prange(nblocks):
        x = np.empty(KMAX)
        y = np.empty(KMAX)
        guess = 0
        for g in range(b * n // nblocks, (b + 1) * n // nblocks):
            out[g], guess = solve_game_warm(games[g], ks[g], x, y, guess)
            codes[g] = guess


@pytest.mark.slow
def test_compiled_parallel_chain():
    """solve_game_warm chained inside a numba prange, as a level kernel would call it: the
    same bits as the calls from Python.  -m slow: its compilation takes 35 s on the 2-core
    machine, and no level kernel uses the warm start yet."""
    rng = np.random.default_rng(6)
    n = 200
    games = rng.uniform(-20.0, 20.0, (n, KMAX, KMAX))
    for g in range(1, n):  # siblings: small perturbations of the previous game
        games[g] = games[g - 1] + rng.uniform(-0.05, 0.05, (KMAX, KMAX))
    ks = np.full(n, 7)
    out = np.empty(n)
    codes = np.zeros(n, dtype=np.int64)
    _chain_many(games, ks, out, codes)
    for g in range(n):
        A = games[g, :7, :7]
        guess = 0 if g % (n // 4) == 0 else int(codes[g - 1])
        v, x, y, code = warm(np.ascontiguousarray(A), guess)
        assert v == out[g] and code == codes[g]
        check_agrees_with_cold(np.ascontiguousarray(A), v, x, y)


# --- real GOPS games -------------------------------------------------------------------


@numba.njit(cache=True)
def _fill(A, k, p, r, m, child, sign, prize_child, prize_card, full):
    """The kernel's matrix, from a pattern-indexed value array of the level below."""
    u = prize_card[r, m]
    row = full[prize_child[r, m]]
    for i in range(k):
        for j in range(k):
            A[i, j] = u * sign[p, i, j] + row[child[p, i, j]]


def _full_values(sol, k):
    """Level k of a Solution as (prize sets, patterns), whatever its store layout."""
    vals = np.asarray(sol.values[k])
    level = sol.levels[k]
    if vals.shape[1] != level.patterns:
        cols = level.columns()
        vals = vals[:, cols.column] * cols.mirror
    return np.ascontiguousarray(vals, dtype=np.float64)


@numba.njit(cache=True)
def _replay(k, canon, child, sign, prize_child, prize_card, full, nsets, out):
    """Every game of the first ``nsets`` prize sets in the kernel's order, guessed from
    the same pattern and upcard of the previous prize set; out[g] = (cold value, cold
    bound, warm value, warm bound, accepted, polished, gap / max|A|)."""
    A = np.empty((k, k))
    x = np.empty(k)
    y = np.empty(k)
    xc = np.empty(k)
    yc = np.empty(k)
    nc = canon.shape[0]
    memo = np.zeros((k, nc), dtype=np.int64)
    g = 0
    for r in range(nsets):
        for m in range(k):
            for q in range(nc):
                _fill(A, k, canon[q], r, m, child, sign, prize_child, prize_card, full)
                vc = solve_game_unchecked(A, k, xc, yc)
                wc, ec = certified_game(A, k, xc, yc, vc)
                ok, v = solve_on_support(A, k, x, y, memo[m, q])
                w, e = certified_game(A, k, x, y, v) if ok else (wc, ec)
                lo, hi = strategy_guarantees(A, k, x, y)
                a = 0.0
                for i in range(k):
                    for j in range(k):
                        a = max(a, abs(A[i, j]))
                out[g, 0] = wc
                out[g, 1] = ec
                out[g, 2] = w
                out[g, 3] = e
                out[g, 4] = ok
                out[g, 5] = ok and w != v
                out[g, 6] = (hi - lo) / a if ok else 0.0
                g += 1
                memo[m, q] = solve_game_warm(A, k, x, y, memo[m, q])[1]
    return g


@pytest.mark.parametrize("n, k", [(8, 5), (8, 6), (9, 7), (9, 8)])
def test_real_gops_games(solved, n, k):
    sol = solved(n)
    level = sol.levels[k]
    canon = np.ascontiguousarray(level.canonical_patterns)
    nsets = min(level.prize_sets, 12)
    out = np.zeros((nsets * k * canon.shape[0], 7))
    g = _replay(
        k,
        canon,
        level.child,
        level.sign,
        level.prize_child,
        level.prize_card,
        _full_values(sol, k - 1),
        nsets,
        out,
    )
    assert g == out.shape[0]
    later = out[k * canon.shape[0] :]  # prize sets with a guess
    hits = later[:, 4] == 1.0
    assert hits.mean() >= 0.5, hits.mean()  # (measured: 64-67% at N = 9, 10)
    assert not np.any(out[:, 5]), "an accepted warm start was polished"
    assert np.all(out[:, 6] <= 2.0 * WARM_GAP)
    assert np.all(np.abs(out[:, 2] - out[:, 0]) <= out[:, 1] + out[:, 3])
