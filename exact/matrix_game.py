"""Compiled solver for small zero-sum matrix games (k x k, 1 <= k <= 16, float64).

Public API
----------
``solve_game_into(A, k, x, y, work) -> float``
    ``@numba.njit(cache=True, nogil=True)``; meant to be called from other compiled code,
    including ``numba.prange`` loops (one ``work`` buffer per thread).  The game is
    ``A[:k, :k]`` (``A`` may be a larger, reusable buffer, any layout).  The row player
    maximises ``x^T A y``, the column player minimises it.  Writes the row player's optimal
    mixed strategy into ``x[:k]`` and the column player's into ``y[:k]`` (nothing beyond
    index ``k - 1`` is touched) and returns the value.  ``work`` is a 1-D float64 scratch
    array of length ``>= WORK_SIZE``; its contents on entry do not matter and on exit are
    garbage.  Nothing is allocated and no global state is written, so the function is
    thread-safe.  Preconditions (NOT checked, for speed): ``1 <= k <= KMAX``, all entries of
    ``A[:k, :k]`` finite.  Returns NaN (strategies then undefined) only if the simplex hits
    its hard pivot cap, which has never been observed; callers may test ``v != v``.
``solve_game(A) -> (value, x, y)``
    Python convenience wrapper: validates a square finite array of size 1..16 (raising
    :class:`~exact.errors.GopsInputError`, a ``ValueError``), allocates the buffers and calls
    ``solve_game_into``.
``strategy_guarantees(A, k, x, y) -> (lower, upper)``
    Compiled helper: ``lower = min_j (x^T A)_j`` (what ``x`` guarantees to the row player)
    and ``upper = max_i (A y)_i`` (what ``y`` concedes at most).  For any x, y these bracket
    the true value: ``lower <= value <= upper``, so ``upper - lower`` certifies accuracy.

Accuracy
--------
Strategies are probability vectors (tiny negatives clipped to 0, renormalised).  The
returned value is the LP value clamped into ``[lower, upper]`` of the returned strategies,
so it is always bracketed by what the strategies actually guarantee.  On random games with
entries of magnitude <= 200 the gap ``upper - lower`` is about 1e-13 (see the tests).

Algorithm
---------
1. ``k == 1``: trivial.
2. Pure saddle point: ``maximin = max_i min_j A_ij``; a column whose maximum is
   ``<= maximin`` (hence ``== maximin``, since maximin <= minimax always) is a saddle; the
   maximin row and that column are pure optimal strategies.  Exact comparisons only.
3. ``k == 2`` without saddle: closed form (the mixed strategies equalise the opponent).
4. Otherwise a dense primal simplex on a condensed (Tucker) tableau; see ``_simplex``.
"""

from __future__ import annotations

import numba
import numpy as np

from .errors import GopsInputError, SolverError

__all__ = [
    "KMAX",
    "WORK_SIZE",
    "solve_game",
    "solve_game_into",
    "strategy_guarantees",
]

#: Largest supported game size.
KMAX = 16
# Layout of ``work``: the (k+1) x (k+1) condensed tableau (row stride k+1) at offset 0,
# then the labels of the k basic rows, then the labels of the k non-basic columns (labels
# are small integers stored as float64 so that a single float buffer suffices).
_ROWLAB = (KMAX + 1) * (KMAX + 1)
_COLLAB = _ROWLAB + KMAX
#: Minimum length of the ``work`` scratch buffer of :func:`solve_game_into` (= 321).
WORK_SIZE = _COLLAB + KMAX

# Tolerances, all in the units of the scaled game B (entries in [1, 2], see _simplex).
_EPS_RC = 1e-14  # a reduced cost must be < -_EPS_RC for its column to enter
_EPS_PIV = 1e-11  # smallest admissible pivot element
_EPS_TIE = 1e-14  # ratios within this of the minimum count as ties in the ratio test
# Pivot caps: after _dantzig_cap(k) pivots switch from Dantzig's rule to Bland's rule
# (which cannot cycle); after _MAX_PIVOTS give up and return NaN.
_MAX_PIVOTS = 100_000


@numba.njit(cache=True, nogil=True, inline="always")
def _dantzig_cap(k):
    return 8 * k + 16


@numba.njit(cache=True, nogil=True, inline="always")
def strategy_guarantees(A, k, x, y):
    """``(min_j (x^T A)_j, max_i (A y)_i)`` over the game ``A[:k, :k]``."""
    lower = np.inf
    for j in range(k):
        s = 0.0
        for i in range(k):
            s += x[i] * A[i, j]
        if s < lower:
            lower = s
    upper = -np.inf
    for i in range(k):
        s = 0.0
        for j in range(k):
            s += A[i, j] * y[j]
        if s > upper:
            upper = s
    return lower, upper


@numba.njit(cache=True, nogil=True, inline="always")
def _clamp_value(A, k, x, y, v):
    """Clamp ``v`` into the bracket ``[lower, upper]`` certified by the strategies."""
    lower, upper = strategy_guarantees(A, k, x, y)
    if lower > upper:  # only possible through rounding when both are ~equal
        return 0.5 * (lower + upper)
    if v < lower:
        return lower
    if v > upper:
        return upper
    return v


@numba.njit(cache=True, nogil=True, inline="always")
def _saddle(A, k, x, y):
    """Pure saddle point test.  Returns ``(found, value)``; on success writes x, y.

    maximin <= minimax always, so a saddle exists iff some column's maximum is
    <= maximin.  The row achieving the maximin then has min == value and that column
    has max == value: a pure equilibrium.  Columns are abandoned as soon as one entry
    exceeds the maximin, which makes the test cheap on games without a saddle.
    """
    maximin = -np.inf
    ibest = 0
    for i in range(k):
        m = A[i, 0]
        for j in range(1, k):
            a = A[i, j]
            if a < m:
                m = a
        if m > maximin:
            maximin = m
            ibest = i
    for j in range(k):
        ok = True
        for i in range(k):
            if A[i, j] > maximin:
                ok = False
                break
        if ok:
            for t in range(k):
                x[t] = 0.0
                y[t] = 0.0
            x[ibest] = 1.0
            y[j] = 1.0
            return True, maximin
    return False, 0.0


@numba.njit(cache=True, nogil=True, inline="always")
def _solve_2x2(A, x, y):
    """Closed form for a 2 x 2 game WITHOUT a pure saddle point.

    With A = [[a, b], [c, d]] and no saddle, either a, d > b, c or a, d < b, c, so
    den = (a - b) + (d - c) is a sum of two same-sign non-zero terms (no cancellation).
    The row player mixes p = (d - c) / den on row 0 so both columns pay the same; the
    column player mixes q = (d - b) / den on column 0.  Value = p a + (1 - p) c.
    """
    a = A[0, 0]
    b = A[0, 1]
    c = A[1, 0]
    d = A[1, 1]
    den = (a - b) + (d - c)
    p = (d - c) / den
    q = (d - b) / den
    x[0] = p
    x[1] = (a - b) / den
    y[0] = q
    y[1] = (a - c) / den
    v = p * a + x[1] * c
    return _clamp_value(A, 2, x, y, v)


@numba.njit(cache=True, nogil=True, inline="always")
def _pivot(T, nr, nc, r, c):
    """Exchange pivot of the condensed tableau ``T[:nr, :nc]`` around ``T[r, c]``.

    Tableau convention: basic row i reads x_B(i) = T[i,rhs] - sum_j T[i,j] x_N(j), and the
    objective row reads z = T[obj,rhs] - sum_j T[obj,j] x_N(j).  Exchanging x_B(r) with
    x_N(c) around p = T[r,c]:  new pivot row = old / p with T[r,c] = 1/p;  other rows
    T[i,j] -= T[i,c] * new T[r,j], and T[i,c] = -T[i,c] / p.
    """
    inv = 1.0 / T[r, c]
    for j in range(nc):
        T[r, j] *= inv
    T[r, c] = inv
    for i in range(nr):
        if i != r:
            f = T[i, c]
            if f != 0.0:
                for j in range(nc):
                    T[i, j] -= f * T[r, j]
                T[i, c] = -f * inv
    # rounding may leave a basic variable at -1e-17; keep the basis primal feasible
    rhs = nc - 1
    for i in range(nr - 1):
        if T[i, rhs] < 0.0:
            T[i, rhs] = 0.0


@numba.njit(cache=True, nogil=True, inline="always")
def _simplex(A, k, x, y, work):
    """General case by the primal simplex method on the column player's LP.

    The LP (von Neumann's minimax theorem as a linear program; see Shoham & Leyton-Brown,
    *Multiagent Systems* (2009), sec. 4.1, and J. D. Williams, *The Compleat Strategyst*,
    ch. 6, whose condensed-tableau "simplex method for games" this follows):

    1. Scale and shift:  B = (A - min A) / (max A - min A) + 1,  so 1 <= B_ij <= 2, and the
       value of B is v_B = (v_A - min A) / (max A - min A) + 1 >= 1 > 0.
    2. Column player's LP:   maximise  sum_j u_j  s.t.  B u <= 1,  u >= 0.
       Its optimum is 1 / v_B, and y = u / sum(u) is optimal for the column player.
       The dual,  minimise sum_i w_i  s.t.  B^T w >= 1,  w >= 0,  gives x = w / sum(w);
       w_i is the reduced cost of the slack of row i in the optimal tableau.
    3. The origin u = 0 (all slacks basic, rhs = 1) is a feasible starting basis, so no
       phase 1 is needed.  Pivot rule: Dantzig (most negative reduced cost enters); the
       ratio test breaks (near-)ties by the largest pivot element.  After
       _dantzig_cap(k) pivots we switch to Bland's rule (smallest-label entering column,
       smallest-label leaving row among ties), which cannot cycle.

    The condensed tableau is (k+1) x (k+1): k constraint rows plus the objective row,
    k non-basic columns plus the rhs.  Labels: u_j -> j, slack of row i -> k + i.
    """
    # --- scale into [1, 2] ----------------------------------------------------------
    lo = A[0, 0]
    hi = A[0, 0]
    for i in range(k):
        for j in range(k):
            a = A[i, j]
            if a < lo:
                lo = a
            if a > hi:
                hi = a
    rng = hi - lo  # > 0: a constant game has a saddle and never gets here
    inv_rng = 1.0 / rng
    s = k + 1
    T = work[: s * s].reshape((s, s))
    for i in range(k):
        for j in range(k):
            T[i, j] = (A[i, j] - lo) * inv_rng + 1.0
        T[i, k] = 1.0
        work[_ROWLAB + i] = k + i
        work[_COLLAB + i] = i
    for j in range(k):
        T[k, j] = -1.0
    T[k, k] = 0.0

    # --- simplex iterations ---------------------------------------------------------
    cap = _dantzig_cap(k)
    pivots = 0
    bland = False
    while True:
        # entering column
        c = -1
        if not bland:
            best = -_EPS_RC
            for j in range(k):
                t = T[k, j]
                if t < best:
                    best = t
                    c = j
        else:
            best_lab = 1e300
            for j in range(k):
                if T[k, j] < -_EPS_RC and work[_COLLAB + j] < best_lab:
                    best_lab = work[_COLLAB + j]
                    c = j
        if c < 0:
            break  # optimal
        # ratio test, without divisions: row i beats row r iff b_i / a_i < b_r / a_r
        r = -1
        br = 0.0
        ar = 1.0
        for i in range(k):
            a = T[i, c]
            if a > _EPS_PIV:
                b = T[i, k]
                if r < 0:
                    r = i
                    br = b
                    ar = a
                else:
                    d = b * ar - br * a  # sign of ratio_i - ratio_r, times a * ar > 0
                    if d < -_EPS_TIE * a * ar:
                        r = i
                        br = b
                        ar = a
                    elif d <= _EPS_TIE * a * ar:  # tie
                        if bland:
                            better = work[_ROWLAB + i] < work[_ROWLAB + r]
                        else:
                            better = a > ar
                        if better:
                            r = i
                            br = b
                            ar = a
        if r < 0:
            return np.nan  # unbounded: impossible for B >= 1 short of numerical failure
        _pivot(T, s, s, r, c)
        lab = work[_ROWLAB + r]
        work[_ROWLAB + r] = work[_COLLAB + c]
        work[_COLLAB + c] = lab
        pivots += 1
        if pivots >= cap:
            bland = True
            if pivots >= _MAX_PIVOTS:
                return np.nan

    # --- read off the strategies ----------------------------------------------------
    for i in range(k):
        x[i] = 0.0
        y[i] = 0.0
    for i in range(k):
        lab = int(work[_ROWLAB + i])
        if lab < k:  # u_lab basic in row i
            t = T[i, k]
            if t > 0.0:
                y[lab] = t
    for j in range(k):
        lab = int(work[_COLLAB + j])
        if lab >= k:  # slack of row lab - k non-basic: its reduced cost is w_{lab-k}
            t = T[k, j]
            if t > 0.0:
                x[lab - k] = t
    sx = 0.0
    sy = 0.0
    for i in range(k):
        sx += x[i]
        sy += y[i]
    if not (sx > 0.0 and sy > 0.0):
        return np.nan
    ix = 1.0 / sx
    iy = 1.0 / sy
    for i in range(k):
        x[i] *= ix
        y[i] *= iy
    v_b = 1.0 / T[k, k]
    v = (v_b - 1.0) * rng + lo
    return _clamp_value(A, k, x, y, v)


@numba.njit(cache=True, nogil=True)
def solve_game_into(A, k, x, y, work):
    """Solve the zero-sum game ``A[:k, :k]`` (row player maximises) without allocating.

    Writes optimal mixed strategies into ``x[:k]`` (row player) and ``y[:k]`` (column
    player) and returns the value.  ``work``: float64 scratch of length >= WORK_SIZE.
    Preconditions (unchecked): 1 <= k <= KMAX and finite entries.  NaN means failure.
    """
    if k == 1:
        x[0] = 1.0
        y[0] = 1.0
        return A[0, 0]
    found, v = _saddle(A, k, x, y)
    if found:
        return v
    if k == 2:
        return _solve_2x2(A, x, y)
    return _simplex(A, k, x, y, work)


def solve_game(A):
    """Solve the square zero-sum matrix game ``A`` (row player maximises ``x^T A y``).

    Returns ``(value, x, y)`` with ``x``, ``y`` optimal mixed strategies of the row and
    column player.  Raises :class:`~exact.errors.GopsInputError` (a ``ValueError``) unless
    ``A`` is a finite square matrix of size 1..KMAX.
    """
    a = np.asarray(A)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise GopsInputError(f"the game matrix must be square, got shape {a.shape}")
    k = a.shape[0]
    if not 1 <= k <= KMAX:
        raise GopsInputError(f"the game matrix must be k x k with 1 <= k <= {KMAX}, got k = {k}")
    try:
        a = np.ascontiguousarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise GopsInputError(f"the game matrix must be numeric: {exc}") from None
    if not np.all(np.isfinite(a)):
        raise GopsInputError("the game matrix must have finite entries")
    x = np.empty(k)
    y = np.empty(k)
    work = np.empty(WORK_SIZE)
    v = solve_game_into(a, k, x, y, work)
    if v != v:
        raise SolverError(f"matrix game solver failed on a {k} x {k} game")
    return float(v), x, y
