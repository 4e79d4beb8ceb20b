"""Tests of the compiled matrix-game solver :mod:`exact.kernels.matrix_game`.

- against ``scipy.optimize.linprog(method="highs")`` on a few hundred random games, k = 1..16;
- degenerate games: ties, duplicated rows/columns, constant and zero matrices, saddle
  points, skew-symmetric games; known closed-form games;
- invariances (hypothesis): shift by a constant, ``-A.T``, permutations;
- the buffer version: only ``x[:k]``, ``y[:k]`` are written, ``A`` may be a larger buffer;
  it runs in ``prange`` loops;
- real GOPS matrix games (those of the 8- and 9-card solves, k = 3..8) against HiGHS;
- input validation of the Python wrapper.
"""

import numba
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import linprog

from exact.errors import GopsInputError
from exact.kernels.matrix_game import (
    GAP_BOUND,
    KMAX,
    solve_game,
    solve_game_into,
    solve_game_unchecked,
    strategy_guarantees,
)
from exact.kernels.points import fill_matrix

#: Agreement of our value with HiGHS (HiGHS itself is only accurate to ~1e-10 here).
TOL_HIGHS = 1e-9
#: What our own strategies must guarantee relative to our value (the spec: 1e-10).
TOL_GUARANTEE = 1e-10
#: Certified accuracy on well-scaled games (|entries| <= 200): upper - lower of our strategies.
TOL_GAP = 1e-11
#: Closed-form games are solved to within rounding.
TOL_EXACT = 1e-12
#: Probability vectors sum to 1 to within rounding.
TOL_SUM = 1e-14

_HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def highs_value(A):
    """Value of the game A by linprog: maximise v s.t. (x^T A)_j >= v, sum x = 1, x >= 0."""
    k = A.shape[0]
    c = np.zeros(k + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-A.T, np.ones((k, 1))])
    a_eq = np.ones((1, k + 1))
    a_eq[0, -1] = 0.0
    res = linprog(
        c,
        A_ub=a_ub,
        b_ub=np.zeros(k),
        A_eq=a_eq,
        b_eq=[1.0],
        bounds=[(0, None)] * k + [(None, None)],
        method="highs",
        options=_HIGHS_OPTIONS,
    )
    assert res.status == 0, res.message
    return res.x[-1]


def check_bound(A, v, x, y):
    """The contract of solve_game: the guarantees of x and y are within GAP_BOUND * s of
    each other and of v, s = max(1, max |A|)."""
    lower, upper = strategy_guarantees(A, A.shape[0], x, y)
    tol = GAP_BOUND * max(1.0, np.abs(A).max())
    assert upper - lower <= tol, (A, upper - lower)
    assert v - lower <= tol and upper - v <= tol, (A, v, lower, upper)


def check_solution(A, v, x, y, tol=TOL_GUARANTEE):
    """x, y are probability vectors that guarantee v (to tol) against every pure reply."""
    k = A.shape[0]
    assert x.shape == (k,) and y.shape == (k,)
    assert np.all(x >= 0.0) and np.all(y >= 0.0)
    assert abs(x.sum() - 1.0) <= TOL_SUM and abs(y.sum() - 1.0) <= TOL_SUM
    assert (x @ A).min() >= v - tol, "row strategy does not guarantee the value"
    assert (A @ y).max() <= v + tol, "column strategy concedes more than the value"


def random_games(seed, count):
    """A mix of game families, sizes 1..16."""
    rng = np.random.default_rng(seed)
    games = []
    for t in range(count):
        k = int(rng.integers(1, KMAX + 1))
        kind = t % 4
        if kind == 0:  # the hard case: i.i.d. entries, mixed equilibria
            A = rng.uniform(-200.0, 200.0, (k, k))
        elif kind == 1:  # GOPS-like: prize * sign(bid difference) + average child value
            bids = np.sign(np.subtract.outer(rng.permutation(k), rng.permutation(k)))
            A = rng.integers(1, 17) * bids + rng.uniform(-30.0, 30.0, (k, k))
        elif kind == 2:  # many ties
            A = rng.integers(-2, 3, (k, k)).astype(float)
        else:  # fractions: ties broken by rounding noise only
            A = rng.integers(-6, 7, (k, k)) / 3 + rng.integers(-6, 7, (k, k)) / 7
        games.append(A)
    return games


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_against_highs(seed):
    for A in random_games(seed, 100):
        v, x, y = solve_game(A)
        ref = highs_value(A)
        assert abs(v - ref) <= TOL_HIGHS, (A, v, ref)
        check_solution(A, ref, x, y, tol=TOL_HIGHS)
        check_solution(A, v, x, y)


def test_certified_gap_on_random_games():
    """The bracket [lower, upper] certified by our own strategies is ~1e-13 wide."""
    rng = np.random.default_rng(99)
    for _ in range(400):
        k = int(rng.integers(2, KMAX + 1))
        A = rng.uniform(-200.0, 200.0, (k, k))
        v, x, y = solve_game(A)
        lower, upper = strategy_guarantees(A, k, x, y)
        assert upper - lower <= TOL_GAP
        assert lower - TOL_EXACT <= v <= upper + TOL_EXACT


@pytest.mark.parametrize("k", [1, 2, 3, 7, 16])
def test_constant_and_zero_games(k):
    for c in (0.0, 5.0, -3.25):
        v, x, y = solve_game(np.full((k, k), c))
        assert v == c
        check_solution(np.full((k, k), c), v, x, y, tol=0.0)


def test_known_2x2():
    A = np.array([[3.0, -1.0], [-2.0, 1.0]])
    v, x, y = solve_game(A)
    assert abs(v - 1 / 7) <= TOL_EXACT
    assert np.allclose(x, [3 / 7, 4 / 7], atol=TOL_EXACT, rtol=0)
    assert np.allclose(y, [2 / 7, 5 / 7], atol=TOL_EXACT, rtol=0)
    check_solution(A, v, x, y, tol=TOL_EXACT)


def test_matching_pennies_and_rock_paper_scissors():
    for A in (
        np.array([[1.0, -1.0], [-1.0, 1.0]]),
        np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]]),
    ):
        k = A.shape[0]
        v, x, y = solve_game(A)
        assert abs(v) <= TOL_EXACT
        assert np.allclose(x, 1 / k, atol=TOL_EXACT, rtol=0)
        assert np.allclose(y, 1 / k, atol=TOL_EXACT, rtol=0)


@pytest.mark.parametrize("k", [2, 3, 5, 16])
def test_identity_games(k):
    """The games I and -I have values 1/k and -1/k, with uniform strategies."""
    for sign in (1.0, -1.0):
        v, x, y = solve_game(sign * np.eye(k))
        assert abs(v - sign / k) <= TOL_EXACT
        assert np.allclose(x, 1 / k, atol=TOL_EXACT, rtol=0)
        assert np.allclose(y, 1 / k, atol=TOL_EXACT, rtol=0)


def test_saddle_points():
    A = np.array([[1.0, 2.0], [0.0, 3.0]])  # saddle at (0, 0)
    v, x, y = solve_game(A)
    assert v == 1.0 and list(x) == [1.0, 0.0] and list(y) == [1.0, 0.0]
    # several maximin rows / minimax columns, only some of them pairwise saddles
    A = np.array([[2.0, 2.0, 5.0], [1.0, 2.0, 0.0], [2.0, 2.0, 3.0]])
    v, x, y = solve_game(A)
    assert v == 2.0
    check_solution(A, v, x, y, tol=0.0)
    assert set(np.unique(x)) <= {0.0, 1.0} and set(np.unique(y)) <= {0.0, 1.0}
    rng = np.random.default_rng(5)
    for _ in range(100):  # planted saddle in a random game
        k = int(rng.integers(2, KMAX + 1))
        A = rng.integers(-5, 6, (k, k)).astype(float)
        i, j = rng.integers(0, k, 2)
        A[i, :] = np.maximum(A[i, :], 6.0)
        A[:, j] = np.minimum(A[:, j], 6.0)
        A[i, j] = 6.0
        v, x, y = solve_game(A)
        assert v == 6.0
        check_solution(A, v, x, y, tol=0.0)


def test_degenerate_families():
    rng = np.random.default_rng(11)
    for t in range(300):
        k = int(rng.integers(2, KMAX + 1))
        kind = t % 5
        if kind == 0:  # duplicated rows and columns
            B = rng.integers(-2, 3, (k, k)).astype(float)
            A = B[rng.integers(0, k, k)][:, rng.integers(0, k, k)]
        elif kind == 1:  # skew-symmetric: value 0
            B = rng.integers(-3, 4, (k, k)).astype(float)
            A = B - B.T
        elif kind == 2:  # 0/1 entries
            A = rng.integers(0, 2, (k, k)).astype(float)
        elif kind == 3:  # block-repeated
            h = max(1, k // 2)
            A = np.kron(np.ones((2, 2)), rng.integers(-2, 3, (h, h))).astype(float)
        else:  # scaled permutation matrix
            A = np.roll(np.eye(k), int(rng.integers(0, k)), axis=1) * float(rng.integers(1, 4))
        v, x, y = solve_game(A)
        if kind == 1:
            assert abs(v) <= TOL_EXACT
        assert abs(v - highs_value(A)) <= TOL_HIGHS
        check_solution(A, v, x, y)


def test_large_and_tiny_ranges():
    rng = np.random.default_rng(3)
    for _ in range(50):
        k = int(rng.integers(2, KMAX + 1))
        for A in (rng.uniform(-1e6, 1e6, (k, k)), 10.0 + 1e-6 * rng.integers(-2, 3, (k, k))):
            v, x, y = solve_game(A)
            check_solution(A, v, x, y, tol=TOL_GUARANTEE * max(1.0, np.abs(A).max() / 200))


def near_degenerate_games(seed, count):
    """``count`` games of each family that the tableau simplex alone left above GAP_BOUND
    (issue 35 item 11; issue 36 items 12 and 15), half of them negated and transposed:
    small integers with one to three entries moved by 1e-9..1e-5; duplicated rows and
    columns of a smaller integer game, so moved or not; integer games of rank 1 to 3 with
    every entry moved by -1e-8, 0 or 1e-8 (k up to 10)."""
    rng = np.random.default_rng(seed)

    def nudge(A, times):
        for _ in range(times):
            A[rng.integers(len(A)), rng.integers(len(A))] += rng.choice(
                [-1, 1]
            ) * 10.0 ** rng.uniform(-9, -5)
        return -A.T if rng.random() < 0.5 else A

    for _ in range(count):
        k = int(rng.integers(3, 9))
        yield nudge(rng.integers(-3, 10, (k, k)).astype(float), int(rng.integers(1, 4)))
        k = int(rng.integers(3, 11))
        m = int(rng.integers(2, k))
        rows = np.concatenate([np.arange(m), rng.integers(0, m, k - m)])
        cols = np.concatenate([np.arange(m), rng.integers(0, m, k - m)])
        rng.shuffle(rows)
        rng.shuffle(cols)
        yield nudge(
            rng.integers(-3, 4, (m, m)).astype(float)[rows][:, cols], int(rng.integers(0, 3))
        )
        k = int(rng.integers(3, 11))
        r = int(rng.integers(1, 4))
        A = (rng.integers(-3, 4, (k, r)) @ rng.integers(-3, 4, (r, k))).astype(float)
        yield nudge(A + 1e-8 * rng.integers(-1, 2, (k, k)), 0)


@pytest.mark.parametrize("seed", [0, 1])
def test_near_degenerate_families_meet_the_bound(seed):
    """Every game of the families meets GAP_BOUND (before the fallback of solve_game_into,
    about 1 game in 10 of them missed it, the worst conceding 0.3 on a low-rank game), and
    where the simplex met it already its answer is returned bit for bit."""
    x = np.empty(KMAX)
    y = np.empty(KMAX)
    fallbacks = 0
    for A in near_degenerate_games(seed, 300):
        k = A.shape[0]
        A = np.ascontiguousarray(A)
        v, xs, ys = solve_game(A)
        check_bound(A, v, xs, ys)
        u = solve_game_unchecked(A, k, x, y)
        lower, upper = strategy_guarantees(A, k, x[:k], y[:k])
        tol = GAP_BOUND * max(1.0, np.abs(A).max())
        if upper - lower <= tol and u - lower <= tol and upper - u <= tol:
            assert u == v and np.array_equal(x[:k], xs) and np.array_equal(y[:k], ys)
        else:
            fallbacks += 1
    assert fallbacks >= 30  # the families do exercise the fallback


# --- invariances -----------------------------------------------------------------------

#: Entries for the property tests: 0 or at least 1e-6 in magnitude.  The simplex's
#: absolute pivot tolerance is 1e-9, so a game whose entries are a few times that (found
#: by hypothesis: 9.5e-9 next to -20) can come back off by about an entry; such games are
#: what the certified path's polish is for (test_tiny_entries_are_covered_by_the_bound).
entries = st.one_of(st.just(0.0), st.floats(1e-6, 200.0), st.floats(-200.0, -1e-6))


#: Near-degenerate games that the tableau simplex alone left above GAP_BOUND (issue 35
#: item 11: found by hypothesis in test_transpose_negate, and the worst of 20,000 fuzzed
#: games), each kept as an explicit example of the property tests.
ISSUE_GAMES = [
    np.array([[0, -3, 0, -3], [0, -3, 1e-6, -3], [0, 0, -3, 0], [-3, -3, -3, -3]]),
    -np.array([[2, 3, 0, 0], [3, 0, 0, 0], [0, 1e-6, 0, 0], [0, 0, 9, 0]]).T,
    np.array([[2, 3, 0, 0], [3, 0, 0, 0], [0, 1e-6, 0, 0], [0, 0, 9, 0]]),
    np.array([[-4, 1.00000073, -6], [-1, -4, 3], [-1, -3.9999999, -1]]),
]


@st.composite
def games(draw):
    k = draw(st.integers(1, KMAX))
    if draw(st.booleans()):  # small integers: lots of ties and degeneracy
        return draw(arrays(np.float64, (k, k), elements=st.integers(-3, 3).map(float)))
    return draw(arrays(np.float64, (k, k), elements=entries))


@settings(max_examples=80, deadline=None)
@given(games(), st.floats(-100.0, 100.0))
@example(ISSUE_GAMES[0].astype(float), 0.5)
@example(ISSUE_GAMES[1].astype(float), 0.5)
@example(ISSUE_GAMES[2].astype(float), 0.5)
@example(ISSUE_GAMES[3].astype(float), 0.5)
def test_shift_by_constant(A, c):
    v, _, _ = solve_game(A)
    w, x, y = solve_game(A + c)
    assert abs(w - (v + c)) <= 1e-10
    check_solution(A + c, w, x, y)
    check_bound(A + c, w, x, y)


@settings(max_examples=80, deadline=None)
@given(games())
@example(ISSUE_GAMES[0].astype(float))
@example(ISSUE_GAMES[1].astype(float))
@example(ISSUE_GAMES[2].astype(float))
@example(ISSUE_GAMES[3].astype(float))
def test_transpose_negate(A):
    v, x, y = solve_game(A)
    w, x2, y2 = solve_game(-A.T)
    assert abs(w + v) <= 1e-10
    check_solution(A, v, x, y)
    check_solution(-A.T, w, x2, y2)
    check_bound(A, v, x, y)
    check_bound(-A.T, w, x2, y2)


@settings(max_examples=80, deadline=None)
@given(games(), st.randoms(use_true_random=False))
def test_permutations(A, rnd):
    k = A.shape[0]
    p = list(range(k))
    q = list(range(k))
    rnd.shuffle(p)
    rnd.shuffle(q)
    v, _, _ = solve_game(A)
    w, x, y = solve_game(A[p][:, q])
    assert abs(w - v) <= 1e-10
    check_solution(A[p][:, q], w, x, y)


def test_tiny_entries_are_covered_by_the_bound():
    """Entries near the pivot tolerance: the raw simplex answers 0 where the value is
    4.75e-9, and the certified value's bound (exact.kernels.bounds) still holds it."""
    from exact.kernels.bounds import certified_game

    A = np.array([[9.5e-09, 0.0, 9.5e-09], [-20.0, 9.5e-09, 9.5e-09], [0.0, 9.5e-09, 9.5e-09]])
    v, x, y = solve_game(A)
    value, bound = certified_game(A, 3, x.copy(), y.copy(), v)
    assert abs(value - highs_value(A)) <= bound
    assert abs(highs_value(A) - 4.75e-9) <= 1e-15


# --- the buffer version ----------------------------------------------------------------


def test_buffer_version_writes_only_its_part():
    rng = np.random.default_rng(8)
    for k in range(1, KMAX + 1):
        for _ in range(5):
            game = rng.uniform(-50.0, 50.0, (k, k))
            buf = np.full((KMAX + 3, KMAX + 5), np.nan)  # garbage around the game
            buf[:k, :k] = game
            x = np.full(KMAX + 2, -7.0)
            y = np.full(KMAX + 2, -7.0)
            v = solve_game_into(buf, k, x, y)
            assert np.all(x[k:] == -7.0) and np.all(y[k:] == -7.0)
            assert np.all(np.isnan(buf[k:, :])) and np.all(np.isnan(buf[:, k:]))
            assert np.array_equal(buf[:k, :k], game)
            ref = solve_game(game)
            assert v == ref[0]
            assert np.array_equal(x[:k], ref[1]) and np.array_equal(y[:k], ref[2])
            check_solution(game, v, x[:k], y[:k])


@numba.njit(cache=True, parallel=True)
def _solve_many(games, ks, out):
    n = games.shape[0]
    nblocks = 8
    for b in numba.prange(nblocks):
        x = np.empty(KMAX)
        y = np.empty(KMAX)
        for g in range(b * n // nblocks, (b + 1) * n // nblocks):
            out[g] = solve_game_into(games[g], ks[g], x, y)


def test_compiled_parallel_loop():
    rng = np.random.default_rng(6)
    n = 400
    games = rng.uniform(-20.0, 20.0, (n, KMAX, KMAX))
    ks = rng.integers(1, KMAX + 1, n)
    out = np.empty(n)
    _solve_many(games, ks, out)
    for g in range(0, n, 7):
        k = ks[g]
        assert out[g] == solve_game(games[g, :k, :k])[0]


# --- real GOPS games --------------------------------------------------------------------


def gops_games(sol, k, count, seed):
    """``count`` matrix games of level k of a float Solution, exactly as the solver builds
    them (exact.kernels.points.fill_matrix): random items (prize set, canonical pattern), every
    upcard of each."""
    level = sol.levels[k]
    below = np.ascontiguousarray(sol.values[k - 1])
    canon = level.canonical_patterns
    children = level.below_columns()  # the columns ``below`` is stored in
    rng = np.random.default_rng(seed)
    games = []
    while len(games) < count:
        t = int(rng.integers(level.prize_sets * canon.shape[0]))
        r, p = t // canon.shape[0], int(canon[t % canon.shape[0]])
        for m in range(k):
            A = np.empty((k, k))
            fill_matrix(
                A,
                k,
                p,
                r,
                m,
                level.child,
                level.sign,
                level.prize_child,
                level.prize_card,
                below,
                children.column,
                children.mirror,
            )
            games.append(A)
    return games[:count]


@pytest.mark.parametrize("n, k", [(8, 3), (8, 4), (8, 5), (8, 6), (8, 7), (9, 8)])
def test_real_gops_games(solved, n, k):
    """Games of the 8-card solve (k = 8 from the 9-card one: level 8 of N = 8 is the
    single symmetric position): mixed equilibria of support ~k/2 + 1, many ties and
    duplicated rows.  Certified gap < 1e-10, value = HiGHS to 1e-9, and the buffer
    version gives the same bits as the wrapper."""
    sol = solved(n)
    x = np.empty(KMAX)
    y = np.empty(KMAX)
    mixed = 0
    for A in gops_games(sol, k, 60, seed=k):
        v, xs, ys = solve_game(A)
        mixed += np.count_nonzero(xs) > 1
        lower, upper = strategy_guarantees(A, k, xs, ys)
        assert upper - lower < TOL_GUARANTEE, (A, lower, upper)
        assert lower - TOL_EXACT <= v <= upper + TOL_EXACT
        assert abs(v - highs_value(A)) <= TOL_HIGHS, A
        check_solution(A, v, xs, ys)
        assert solve_game_into(A, k, x, y) == v
        assert np.array_equal(x[:k], xs) and np.array_equal(y[:k], ys)
    assert mixed >= 40  # mostly mixed equilibria: the simplex is exercised


# --- input validation ------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros((2, 3)),
        np.zeros(4),
        np.zeros((0, 0)),
        np.zeros((KMAX + 1, KMAX + 1)),
        np.array([[1.0, np.nan], [0.0, 1.0]]),
        np.array([[1.0, np.inf], [0.0, 1.0]]),
        np.array([[1 + 1j]]),
        np.array([["a"]]),
    ],
)
def test_invalid_input(bad):
    with pytest.raises(ValueError):
        solve_game(bad)
    with pytest.raises(GopsInputError):
        solve_game(bad)


def test_accepts_lists_and_ints():
    v, x, y = solve_game([[0, 1], [1, 0]])
    assert abs(v - 0.5) <= TOL_EXACT and isinstance(v, float)
    assert x.dtype == np.float64
