"""Compiled solver for small zero-sum matrix games (k x k, 1 <= k <= KMAX = 16, float64).

Public API
----------
``solve_game_into(A, k, x, y) -> float``
    ``@numba.njit(cache=True, nogil=True)`` (plus the options in ``NO_REFCOUNT``); meant to be
    called from other compiled code, including ``numba.prange`` loops.  The game is
    ``A[:k, :k]`` (``A`` may be a larger, reusable buffer; any layout works, but each array
    layout is a separate compilation).  The row player maximises ``x^T A y``, the column
    player minimises it.  Writes the row player's optimal mixed strategy into ``x[:k]``
    and the column player's into ``y[:k]`` (nothing beyond index ``k - 1`` is touched) and
    returns the value, to within ``GAP_BOUND`` (see Accuracy), or NaN if it could not meet
    that bound (x, y then hold the best strategies found); callers may test ``v != v``.
    Preconditions (NOT checked, for speed): ``1 <= k <= KMAX``, all entries of
    ``A[:k, :k]`` finite.
``solve_game_unchecked(A, k, x, y) -> float``
    The same without the check and the fallback: the pure-saddle test, the 2 x 2 closed
    form or the tableau simplex, whose answer may miss ``GAP_BOUND`` on near-degenerate
    games (NaN only at the simplex's cap of 100000 pivots).  The level kernels call this
    and certify every game themselves (:func:`exact.kernels.bounds.certified_game`).
``solve_game(A) -> (value, x, y)``
    Python convenience wrapper: validates a square finite array of size 1..16 (raising
    :class:`~exact.errors.GopsInputError`, a ``ValueError``), allocates the buffers and calls
    ``solve_game_into``; raises :class:`~exact.errors.SolverError` if it returns NaN.
``solve_game_warm(A, k, x, y, support) -> (value, support)``
    Like ``solve_game_unchecked``, first trying a support guess: ``support`` is a
    *support code*, a row bitmask S and a column bitmask T of equal size packed as
    ``S | T << SUPPORT_SHIFT`` (``support_code(S, T)``, ``support_sets(code)``;
    ``NO_SUPPORT`` = 0: no guess).  The guess's equalising strategies (one LU
    factorisation of the bordered support matrix) are accepted iff their guarantees are
    within ``WARM_GAP`` * max|A| of each other; otherwise the cold path (the same bits as
    ``solve_game_unchecked``).  Returns the value and the code of a square optimal basis
    (the accepted guess, the simplex's final basis, or the saddle), to pass as the guess
    for a similar game.  ``solve_on_support(A, k, x, y, support) -> (accepted, value)``
    is the attempt alone.
``strategy_guarantees(A, k, x, y) -> (lower, upper)``
    ``lower = min_j (x^T A)_j`` (what ``x`` guarantees to the row player) and
    ``upper = max_i (A y)_i`` (what ``y`` concedes at most).  For any mixed x, y these
    bracket the true value, ``lower <= value <= upper``.

Method
------
A pure saddle point (one pass over A) or, for k = 2, the closed form; otherwise the primal
simplex on the column player's LP, on the game rescaled to entries in [1, 2], in the
condensed tableau of Williams (see :func:`_simplex` for the LP).  Degenerate games (ties,
duplicated rows and columns, ratio-test ties at zero) are the normal case for GOPS.
Safeguards: ties in the ratio test go to the largest pivot element; pivot elements below
1e-9, or below 1e-6 times the largest entry of their column, are refused (the column is
skipped for that iteration; only if every improving column is refused is a tiny pivot
accepted); Bland's rule after 8k + 16 pivots.  ``solve_game_into`` then checks the
answer's guarantees and, if they miss GAP_BOUND, re-solves the game by the revised
simplex of :mod:`exact.kernels.revised` on A and on -A^T, keeping each player's best
strategy.

Accuracy
--------
Strategies are probability vectors (tiny negatives clipped to 0, renormalised).  The
contract of ``solve_game_into`` and ``solve_game``: with ``lower``, ``upper`` of
``strategy_guarantees`` and s = max(1, max |A|),

    upper - lower <= GAP_BOUND * s   and   lower - GAP_BOUND * s <= v <= upper + GAP_BOUND * s,

GAP_BOUND = 1e-12, so v is within GAP_BOUND * s of the exact value (up to the rounding of
the guarantees, ~k eps s).  The simplex's answer, when it meets the bound (the typical
gap is ~1e-13 s), is returned bit for bit; after the fallback the value is the midpoint
of the best guarantees.

Invariants
----------
* Nothing is allocated on the heap and no global state is written: the scratch lives on
  the stack of the solving function (:mod:`exact.kernels.stack`), so every function here
  is thread-safe and runs inside ``numba.prange`` loops.
* Bit-for-bit reproducible: each entry of the tableau is computed by a fixed sequence of
  operations, and the stored levels of every store depend on those bits.  Branch-free
  forms in the inner loops (the ratio test's ``(rhs + (1 - s)) / (|a| s)``, the pivot
  row's zero multiplier) compute the same numbers as the plain ``if``.  Do not enable
  fastmath: it makes results depend on the alignment of the data, i.e. on the call site.

Sources
-------
The minimax theorem as a linear program: Y. Shoham & K. Leyton-Brown, *Multiagent
Systems* (2009), sec 4.1.  The condensed tableau ("the simplex method for games"):
J. D. Williams, *The Compleat Strategyst* (1954), ch. 6.  Anti-cycling: R. G. Bland,
*Math. Oper. Res.* 2 (1977) 103-107.  Measurements of this module (pivot counts, the
cost of each part, the warm start's hit rates, what was tried and rejected):
benchmarks/RESULTS.md, "The matrix-game solver: its measurements".
"""

from __future__ import annotations

import numba
import numpy as np

from exact.errors import GopsInputError, SolverError
from exact.kernels.revised import revised_simplex
from exact.kernels.stack import KMAX, NO_REFCOUNT, stack_indices, stack_matrix, stack_vector

__all__ = [
    "GAP_BOUND",
    "KMAX",
    "NO_REFCOUNT",
    "NO_SUPPORT",
    "SUPPORT_SHIFT",
    "WARM_GAP",
    "solve_game",
    "solve_game_into",
    "solve_game_unchecked",
    "solve_game_warm",
    "solve_on_support",
    "strategy_guarantees",
    "support_code",
    "support_sets",
]

#: The accuracy of :func:`solve_game_into` and :func:`solve_game`: the strategies' guarantees
#: are within GAP_BOUND * max(1, max |A|) of each other and of the value returned.
GAP_BOUND = 1e-12
# Scratch of the solver, all on the stack of solve_game_unchecked (module invariants):
# the (k+1) x W condensed tableau, row-major with rows of W = _width(k) floats (k + 1
# used columns, zero padding up to a multiple of 4) in a buffer of _TSIZE floats; the
# scaled pivot row (W floats); the ratios of the ratio test, the labels of the k basic
# rows and of the k non-basic columns (small integers stored as floats) and the column
# maxima of the saddle test (k floats each).
_WMAX = 20  # _width(KMAX)
_TSIZE = (KMAX + 1) * _WMAX

#: Support codes (solve_game_warm): row bitmask | column bitmask << SUPPORT_SHIFT.
SUPPORT_SHIFT = 16
_SUPPORT_BITS = (1 << KMAX) - 1
#: The support code meaning "no guess".
NO_SUPPORT = 0
#: Acceptance of a warm start (solve_game_warm): its strategies' guarantees must satisfy
#: hi - lo <= WARM_GAP * a, a = max |A| over the entries read (16 units of roundoff).  The
#: simplex's own gap on real games is within a few dozen units; right and wrong support
#: guesses are many orders of magnitude apart; and an accepted game stays inside the band
#: that exact.kernels.bounds.certified_game accepts without polishing, so the certificate
#: stays the simplex's (measurements: benchmarks/RESULTS.md).
WARM_GAP = 16.0 * 2.0**-53

# Tolerances, all in the units of the scaled game B (entries in [1, 2], see _simplex).
_EPS_RC = 1e-14  # a reduced cost must be < -_EPS_RC for its column to enter
_EPS_PIV = 1e-9  # smallest admissible pivot element
_EPS_TIE = 1e-14  # ratios within this of the minimum count as ties in the ratio test
_BLAND_PIV_FRAC = 1e-3  # see _leaving
_PIV_REL = 1e-6  # see _leaving
# Pivot caps: after _dantzig_cap(k) pivots switch from Dantzig's rule to Bland's rule
# (which cannot cycle); after _MAX_PIVOTS give up and return NaN.
_MAX_PIVOTS = 100_000


@numba.njit(cache=True, nogil=True, inline="always")
def _dantzig_cap(k):
    return 8 * k + 16


@numba.njit(cache=True, nogil=True, inline="always")
def _width(k):
    """Padded row length of the tableau: k + 1 columns rounded up to a multiple of 4."""
    return (k + 4) & ~3


@numba.njit(cache=True, nogil=True)
def strategy_guarantees(A, k, x, y):
    """``(min_j (x^T A)_j, max_i (A y)_i)`` over the game ``A[:k, :k]`` (plain loops)."""
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
def _saddle(A, k, x, y, cmax):
    """Pure saddle point test.  Returns ``(found, value, min A, max A, minimax column,
    maximin row)``.

    One pass over A: the row minima are accumulated in registers, the column maxima in
    ``cmax``.  maximin = max of the row minima, minimax = min of the column maxima; a
    saddle exists iff they are equal, and then the (first) maximin row and the (first)
    minimax column are a pure equilibrium (written to x, y).
    """
    maximin = -np.inf
    ibest = 0
    lo = np.inf
    for j in range(k):
        cmax[j] = A[0, j]
    for i in range(k):
        m = A[i, 0]
        for j in range(k):
            a = A[i, j]
            m = min(m, a)
            cmax[j] = max(cmax[j], a)
        lo = min(lo, m)
        if m > maximin:
            maximin = m
            ibest = i
    minimax = cmax[0]
    hi = minimax
    jbest = 0
    for j in range(1, k):
        m = cmax[j]
        if m < minimax:
            minimax = m
            jbest = j
        hi = max(hi, m)
    if maximin == minimax:
        for t in range(k):
            x[t] = 0.0
            y[t] = 0.0
        x[ibest] = 1.0
        y[jbest] = 1.0
        return True, maximin, lo, hi, jbest, ibest
    return False, 0.0, lo, hi, jbest, ibest


@numba.njit(cache=True, nogil=True, inline="always")
def _solve_2x2(A, x, y):
    """Closed form for a 2 x 2 game WITHOUT a pure saddle point.

    With A = [[a, b], [c, d]] and no saddle, either a, d > b, c or a, d < b, c, so
    den = (a - b) + (d - c) is a sum of two same-sign non-zero terms (no cancellation).
    The row player plays row 0 with p = (d - c) / den, which equalises both columns; the
    column player plays column 0 with q = (d - b) / den.  Value = p a + (1 - p) c.
    """
    a = A[0, 0]
    b = A[0, 1]
    c = A[1, 0]
    d = A[1, 1]
    den = (a - b) + (d - c)
    x[0] = (d - c) / den
    x[1] = (a - b) / den
    y[0] = (d - b) / den
    y[1] = (a - c) / den
    return x[0] * a + x[1] * c


@numba.njit(cache=True, nogil=True, inline="always")
def _pivot(T, P, nr, W, r, c):
    """Exchange pivot of the condensed tableau ``T`` (``nr`` x ``W``) around ``T[r, c]``.

    Row ``nr - 1`` is the objective row and column ``nr - 1`` the rhs; the columns beyond
    are zero padding (they stay zero).  ``P`` (length >= W, not aliasing ``T``) receives
    a copy of the scaled pivot row, which the row updates read.

    Tableau convention: basic row i reads x_B(i) = T[i,rhs] - sum_j T[i,j] x_N(j), and the
    objective row reads z = T[obj,rhs] - sum_j T[obj,j] x_N(j).  Exchanging x_B(r) with
    x_N(c) around p = T[r,c]:  new pivot row = old / p with T[r,c] = 1/p;  other rows
    T[i,j] -= T[i,c] * new T[r,j], and T[i,c] = -T[i,c] / p.  (Rounding may leave a basic
    variable at -1e-17; readers of the rhs treat negatives as 0.)

    The loop over the rows includes row r: its multiplier T[r, c] is set to 0 first, so
    it subtracts 0 * P[j] (exactly no change, P being finite), and T[r, c] = 1/p is
    written at the end.  This avoids a mispredicted ``if i != r`` per pivot; the other
    rows get exactly the same arithmetic as with the test.
    """
    inv = 1.0 / T[r, c]
    ninv = -inv
    for j in range(W):
        t = T[r, j] * inv
        T[r, j] = t
        P[j] = t
    T[r, c] = 0.0
    for i in range(nr):
        f = T[i, c]
        for j in range(W):
            T[i, j] -= f * P[j]
        T[i, c] = f * ninv
    T[r, c] = inv


@numba.njit(cache=True, nogil=True, inline="always")
def _entering(T, k, collab, bland, mask):
    """Entering column: Dantzig (most negative reduced cost) or Bland (smallest label).

    Columns whose bit is set in ``mask`` are blocked (see _simplex) and skipped.
    Returns -1 if no column has a reduced cost < -_EPS_RC (optimal).
    """
    c = -1
    if not bland:
        best = -_EPS_RC
        if mask == 0:
            for j in range(k):
                t = T[k, j]
                if t < best:
                    best = t
                    c = j
        else:
            for j in range(k):
                t = T[k, j] if ((mask >> j) & 1) == 0 else 0.0
                if t < best:
                    best = t
                    c = j
    else:
        best_lab = 1e300
        for j in range(k):
            ok = T[k, j] < -_EPS_RC and ((mask >> j) & 1) == 0
            if ok and collab[j] < best_lab:
                best_lab = collab[j]
                c = j
    return c


@numba.njit(cache=True, nogil=True, inline="always")
def _leaving(T, k, c, R, rowlab, bland, allow_tiny):
    """Ratio test on column ``c``: the row minimising rhs_i / T[i,c] over T[i,c] > 0.

    Two branch-free passes: the ratios (inf where T[i,c] <= _EPS_PIV) go to ``R`` and
    their minimum is taken; then among the rows whose ratio is within _EPS_TIE of the
    minimum, the largest pivot element wins (Dantzig phase, numerically safest) or the
    smallest label (Bland phase, among the tie rows with a pivot element not much smaller
    than the largest).  Returns -1 if the column is unusable: no entry exceeds _EPS_PIV
    (in exact arithmetic the LP would be unbounded, impossible for the scaled game: the
    negative reduced cost is rounding noise), or, unless ``allow_tiny``, the chosen pivot
    element is below _PIV_REL times the largest entry of the column (a tiny pivot on a
    degenerate row is usually rounding noise and wrecks the tableau).

    The ratio ``max(rhs, 0) / a if a > _EPS_PIV else inf`` is computed as
    ``(max(rhs, 0) + (1 - s)) / (|a| * s)`` with ``s = float(a > _EPS_PIV)``: for s = 1
    this is exactly the quotient, for s = 0 it is (>= 1) / +0 = inf.  Written as a
    select, LLVM compiles it to a branch around the division (a select of an expensive
    operand), which mispredicts on ~25% of the rows of real games.  Likewise the tie
    pass multiplies by ``float(ratio <= thr)`` instead of selecting.
    """
    best = np.inf
    acol = 0.0
    for i in range(k):
        a = T[i, c]
        s = np.float64(a > _EPS_PIV)
        t = (max(T[i, k], 0.0) + (1.0 - s)) / (abs(a) * s)
        R[i] = t
        best = min(best, t)
        acol = max(acol, a)
    if best == np.inf:
        return -1
    thr = best + _EPS_TIE
    r = -1
    if not bland:
        amax = 0.0
        for i in range(k):
            a = T[i, c] * np.float64(R[i] <= thr)
            if a > amax:
                amax = a
                r = i
    else:
        # Bland: smallest label among the ties, but ignoring tie rows whose pivot element
        # is < _BLAND_PIV_FRAC of the largest one (a tiny pivot on a degenerate row is
        # rounding noise and wrecks the tableau)
        amax = 0.0
        for i in range(k):
            a = T[i, c] if R[i] <= thr else 0.0
            amax = max(amax, a)
        amin = amax * _BLAND_PIV_FRAC
        lmin = np.inf
        for i in range(k):
            ok = R[i] <= thr and T[i, c] >= amin
            lab = rowlab[i] if ok else np.inf
            if lab < lmin:
                lmin = lab
                r = i
    if not allow_tiny and T[r, c] < _PIV_REL * acol:
        return -1
    return r


@numba.njit(cache=True, nogil=True, inline="always")
def _basis_code(rowlab, collab, k):
    """The support code of a final simplex basis (see _simplex): rows whose slack is
    non-basic, columns whose u_j is basic."""
    rows = 0
    cols = 0
    for i in range(k):
        lab = int(rowlab[i])
        if lab < k:
            cols |= 1 << lab
        lab = int(collab[i])
        if lab >= k:
            rows |= 1 << (lab - k)
    return rows | (cols << SUPPORT_SHIFT)


@numba.njit(cache=True, nogil=True, inline="always")
def _simplex(A, k, x, y, lo, hi, first):
    """General case by the primal simplex method on the column player's LP.

    The LP (von Neumann's minimax theorem as a linear program; see Shoham & Leyton-Brown,
    *Multiagent Systems* (2009), sec. 4.1, and J. D. Williams, *The Compleat Strategyst*,
    ch. 6, whose condensed-tableau "simplex method for games" this follows):

    1. Scale and shift:  B = (A - lo) / (hi - lo) + 1  with lo = min A, hi = max A, so
       1 <= B_ij <= 2 and the value of B is v_B = (v_A - lo) / (hi - lo) + 1 >= 1 > 0.
       (hi > lo: a constant game has a saddle point and never gets here.)
    2. Column player's LP:   maximise  sum_j u_j  s.t.  B u <= 1,  u >= 0.
       Its optimum is 1 / v_B, and y = u / sum(u) is optimal for the column player.
       The dual,  minimise sum_i w_i  s.t.  B^T w >= 1,  w >= 0,  gives x = w / sum(w);
       w_i is the reduced cost of the slack of row i in the optimal tableau.
    3. The origin u = 0 (all slacks basic, rhs = 1) is a feasible starting basis, so no
       phase 1 is needed.  The first entering column is ``first``, the minimax column
       (smallest column maximum, hence the largest first step; all reduced costs are -1
       at the start).  Pivot rule: Dantzig (most negative reduced cost enters); the
       ratio test breaks (near-)ties by the largest pivot element.  After
       _dantzig_cap(k) pivots we switch to Bland's rule (smallest-label entering column,
       smallest-label leaving row among ties), which cannot cycle; after _MAX_PIVOTS we
       give up (NaN).

    The condensed tableau is (k+1) x (k+1) (rows padded to W = _width(k)): k constraint
    rows plus the objective row, k non-basic columns plus the rhs.  Variable labels:
    u_j -> j, slack of row i -> k + i.  All scratch is on the stack (see the module
    notes).

    Returns ``(value, basis)``: ``basis`` is the support code (see
    :func:`support_code`) of the final basis: the rows whose slacks are non-basic and the
    columns whose u_j are basic (equally many, and A restricted to them is non-singular:
    a basis), which :func:`solve_game_warm` can take as its guess for a sibling game.
    ``(NaN, 0)`` on failure.
    """
    # --- scaled initial tableau -----------------------------------------------------
    rng = hi - lo
    inv_rng = 1.0 / rng
    W = _width(k)
    T = stack_matrix(_TSIZE, k + 1, W)
    P = stack_vector(_WMAX)  # copy of the scaled pivot row
    R = stack_vector(KMAX)  # ratios of the ratio test
    rowlab = stack_vector(KMAX)  # label of the basic variable of each row
    collab = stack_vector(KMAX)  # label of the non-basic variable of each column
    for i in range(k):
        for j in range(k):
            T[i, j] = (A[i, j] - lo) * inv_rng + 1.0
        T[i, k] = 1.0
        for j in range(k + 1, W):
            T[i, j] = 0.0
        rowlab[i] = k + i
        collab[i] = i
    for j in range(k):
        T[k, j] = -1.0
    for j in range(k, W):
        T[k, j] = 0.0

    # --- simplex iterations ---------------------------------------------------------
    # A column whose ratio test fails (see _leaving) is blocked until the next pivot (its
    # bit in ``mask``).  If every improving column is blocked, one more round allows tiny
    # pivots; if that fails too, stop.
    cap = _dantzig_cap(k)
    pivots = 0
    bland = False
    mask = 0
    allow_tiny = False
    c = first
    while True:
        if c < 0:
            if mask != 0 and not allow_tiny:
                mask = 0
                allow_tiny = True
                c = _entering(T, k, collab, bland, mask)
                continue
            break  # optimal (up to blocked columns of rounding-noise size)
        r = _leaving(T, k, c, R, rowlab, bland, allow_tiny)
        if r < 0:
            mask |= 1 << c
            c = _entering(T, k, collab, bland, mask)
            continue
        _pivot(T, P, k + 1, W, r, c)
        lab = rowlab[r]
        rowlab[r] = collab[c]
        collab[c] = lab
        pivots += 1
        mask = 0
        allow_tiny = False
        if pivots >= cap:
            bland = True
            if pivots >= _MAX_PIVOTS:
                return np.nan, 0
        c = _entering(T, k, collab, bland, mask)

    # --- read off the strategies ----------------------------------------------------
    for i in range(k):
        x[i] = 0.0
        y[i] = 0.0
    for i in range(k):
        lab = int(rowlab[i])
        if lab < k:  # u_lab is basic in row i
            t = T[i, k]
            if t > 0.0:
                y[lab] = t
    for j in range(k):
        lab = int(collab[j])
        if lab >= k:  # the slack of row lab - k is non-basic: its reduced cost is w_{lab-k}
            t = T[k, j]
            if t > 0.0:
                x[lab - k] = t
    sx = 0.0
    sy = 0.0
    for i in range(k):
        sx += x[i]
        sy += y[i]
    if not (sx > 0.0 and sy > 0.0):
        return np.nan, 0
    ix = 1.0 / sx
    iy = 1.0 / sy
    for i in range(k):
        x[i] *= ix
        y[i] *= iy
    v_b = 1.0 / T[k, k]  # value of the scaled game B
    return (v_b - 1.0) * rng + lo, _basis_code(rowlab, collab, k)


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def solve_game_unchecked(A, k, x, y):
    """Solve the zero-sum game ``A[:k, :k]`` (row player maximises) without allocating and
    without checking the answer: the pure-saddle test, the 2 x 2 closed form, the tableau
    simplex.

    Writes mixed strategies into ``x[:k]`` (row player) and ``y[:k]`` (column player) and
    returns the value.  On near-degenerate games the strategies may miss ``GAP_BOUND``
    (see :func:`solve_game_into`); the level kernels call this and certify every game
    themselves (:func:`exact.kernels.bounds.certified_game`).  Preconditions
    (unchecked): 1 <= k <= KMAX and finite entries.  NaN means failure.
    """
    if k == 1:
        x[0] = 1.0
        y[0] = 1.0
        return A[0, 0]
    cmax = stack_vector(KMAX)
    found, v, lo, hi, jbest, _ = _saddle(A, k, x, y, cmax)
    if found:
        return v
    if k == 2:
        return _solve_2x2(A, x, y)
    v, _ = _simplex(A, k, x, y, lo, hi, jbest)
    return v


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def _meets_bound(A, k, x, y, v, scale):
    """Whether x and y guarantee v to within GAP_BOUND * scale, and each other too."""
    lo, hi = strategy_guarantees(A, k, x, y)
    tol = GAP_BOUND * scale
    return hi - lo <= tol and v - lo <= tol and hi - v <= tol


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def _fallback(A, k, x, y, v, scale):
    """The robust path of :func:`solve_game_into`: each player's best strategy among the
    simplex's and those of the revised simplex (:mod:`exact.kernels.revised`) on A and on
    -A^T, with Dantzig's then Bland's rule; tried in that order until the guarantees meet
    GAP_BOUND.  Returns the midpoint of the best guarantees, or NaN if they miss it; x, y
    receive the best strategies."""
    lo = -np.inf
    hi = np.inf
    if v == v:  # the simplex's strategies are candidates too
        lo, hi = strategy_guarantees(A, k, x, y)
    cx = stack_vector(KMAX)
    cy = stack_vector(KMAX)
    for attempt in range(4):
        transpose = attempt % 2 == 1
        bland_from = 0 if attempt >= 2 else _dantzig_cap(k)
        # the row player of -A^T is A's column player
        if transpose:
            ok = revised_simplex(A, k, True, bland_from, cy, cx)
        else:
            ok = revised_simplex(A, k, False, bland_from, cx, cy)
        if ok:
            c_lo, c_hi = strategy_guarantees(A, k, cx, cy)
            if c_lo > lo:
                lo = c_lo
                for i in range(k):
                    x[i] = cx[i]
            if c_hi < hi:
                hi = c_hi
                for i in range(k):
                    y[i] = cy[i]
        if hi - lo <= GAP_BOUND * scale:
            return lo + 0.5 * (hi - lo)
    return np.nan


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def solve_game_into(A, k, x, y):
    """Solve the zero-sum game ``A[:k, :k]`` (row player maximises) without allocating,
    to within ``GAP_BOUND``.

    Writes optimal mixed strategies into ``x[:k]`` (row player) and ``y[:k]`` (column
    player) and returns the value v, such that, with s = max(1, max |A|),

        max_i (A y)_i - min_j (x^T A)_j <= GAP_BOUND * s,   and v lies within
        GAP_BOUND * s of both (so within it of the exact value, up to rounding).

    The answer of :func:`solve_game_unchecked` is returned as it is (bit for bit) when it
    meets this; otherwise :func:`_fallback` re-solves the game, and if even that misses
    the bound the result is NaN (x, y then hold the best strategies found).
    Preconditions (unchecked): 1 <= k <= KMAX and finite entries.
    """
    v = solve_game_unchecked(A, k, x, y)
    scale = 1.0
    for i in range(k):
        for j in range(k):
            scale = max(scale, abs(A[i, j]))
    if v == v and _meets_bound(A, k, x, y, v, scale):
        return v
    return _fallback(A, k, x, y, v, scale)


# --- warm start on a support guess ------------------------------------------------------

_SYSTEM = (KMAX + 1) * (KMAX + 1)  # the bordered support matrix, at most 17 x 17
_UNKNOWNS = KMAX + 1  # its unknowns (a player's strategy on the support, and the value)
#: A support component below this is not a rounding artefact of a zero weight but a wrong
#: guess: reject at once (the certificate, not this, is the acceptance test).
_WARM_NEG = 1e-9
#: The support system is factorised first without pivoting and again with partial
#: pivoting if a multiplier exceeds _WARM_GROWTH (threshold pivoting, as in sparse LU
#: codes) or a pivot is below _WARM_SINGULAR times its largest entry; see _on_support.
_WARM_GROWTH = 10.0
_WARM_SINGULAR = 1e-14


@numba.njit(cache=True, nogil=True, inline="always")
def _on_support(A, k, x, y, code):
    """The equalising strategies of the square support ``code`` and their certificate.

    Returns ``(accepted, value)``; x[:k], y[:k] are overwritten either way (on rejection
    with garbage).  See :func:`solve_game_warm` for the method and the acceptance rule.
    Written like the simplex (module invariants): scratch on the stack, and selects
    instead of data-dependent branches where the data decide (the support's index lists,
    the pivot search, the row swaps).
    """
    rowmask = code & _SUPPORT_BITS
    colmask = (code >> SUPPORT_SHIFT) & _SUPPORT_BITS
    if rowmask == 0 or (rowmask >> k) != 0 or (colmask >> k) != 0:
        return False, 0.0
    rows = stack_indices(KMAX)  # the support's rows and columns
    cols = stack_indices(KMAX)
    s = 0
    t = 0
    for i in range(k):  # rows[s] = i where bit i is set, without a branch
        rows[s] = i
        s += (rowmask >> i) & 1
        cols[t] = i
        t += (colmask >> i) & 1
    if s != t:
        return False, 0.0
    # The bordered matrix M = [[A[S, T], -1], [1^T, 0]]: M (y_T, v) = e_s is the column
    # player's system, M^T (x_S, -v) = -e_s the row player's.  One LU factorisation,
    # P M = L U, in place (L below the diagonal, unit diagonal implied; ``dinv`` holds
    # the reciprocals of U's diagonal, ``perm`` the row permutation).  First without
    # pivoting: the pivot search is a chain of dependent compares per column, ~40% of
    # the factorisation's time on real games.  If a multiplier exceeds _WARM_GROWTH
    # (threshold pivoting: 4-12% of real games at k = 6..8) or a pivot is below
    # _WARM_SINGULAR times the largest entry of M, once more with partial pivoting.
    # Unpivoted with this threshold, 0.1-0.5% of the guesses that the pivoted
    # factorisation gets accepted are rejected (real games, N = 10).  Either way the
    # certificate below, not the factorisation, decides.
    n = s + 1
    M = stack_matrix(_SYSTEM, n, n)
    perm = stack_indices(_UNKNOWNS)
    dinv = stack_vector(_UNKNOWNS)
    for pivoting in (False, True):
        mmax = 1.0
        for a in range(s):
            ia = rows[a]
            for b in range(s):
                e = A[ia, cols[b]]
                M[a, b] = e
                mmax = max(mmax, abs(e))
            M[a, s] = -1.0
            M[s, a] = 1.0
            perm[a] = a
        M[s, s] = 0.0
        perm[s] = s
        tiny = _WARM_SINGULAR * mmax
        ok = True
        fmax = 0.0  # the largest multiplier: growth
        for c in range(n):
            if pivoting:
                p = c
                best = abs(M[c, c])
                for r in range(c + 1, n):
                    e = abs(M[r, c])
                    better = e > best
                    best = e if better else best
                    p = r if better else p
                for j in range(n):  # swap rows c and p (a no-op if p == c)
                    e = M[c, j]
                    M[c, j] = M[p, j]
                    M[p, j] = e
                e = perm[c]
                perm[c] = perm[p]
                perm[p] = e
            piv = M[c, c]
            if not abs(piv) > tiny:  # (also NaN)
                ok = False
                break
            inv = 1.0 / piv
            dinv[c] = inv
            for r in range(c + 1, n):
                f = M[r, c] * inv
                M[r, c] = f
                fmax = max(fmax, abs(f))
                for j in range(c + 1, n):
                    M[r, j] -= f * M[c, j]
        if ok and (pivoting or fmax <= _WARM_GROWTH):
            break
    if not ok:  # singular to working accuracy: not a basis
        return False, 0.0
    # Column player: L g = P e_s (forward), U z = g (back); z = (y_T, v).
    # (P e_s has its 1 in row i0, perm[i0] = s: g vanishes above i0; without a row
    # exchange i0 = s and g = e_s.)
    z = stack_vector(_UNKNOWNS)
    i0 = 0
    for i in range(n):
        z[i] = 0.0
        i0 = i if perm[i] == s else i0
    z[i0] = 1.0
    for i in range(i0 + 1, n):
        acc = 0.0
        for j in range(i0, i):
            acc -= M[i, j] * z[j]
        z[i] = acc
    for i in range(n - 1, -1, -1):
        acc = z[i]
        for j in range(i + 1, n):
            acc -= M[i, j] * z[j]
        z[i] = acc * dinv[i]
    # Row player: M^T = U^T L^T P, so U^T g = -e_s, whose solution is g = -e_s / U[s, s]
    # (U^T is lower triangular), then L^T h = g (back) and (x_S, -v) = P^T h.
    h = stack_vector(_UNKNOWNS)
    h[s] = -dinv[s]
    for i in range(s - 1, -1, -1):
        acc = 0.0
        for j in range(i + 1, n):
            acc -= M[j, i] * h[j]
        h[i] = acc
    # Both strategies: a clearly negative component (or NaN) rejects, rounding-size
    # negatives become 0.  (Checking y, and what it concedes outside S, before solving
    # for x saves little on a refused guess and was 3-8% slower on accepted ones.)
    for i in range(k):
        x[i] = 0.0
        y[i] = 0.0
    sound = True
    sx = 0.0
    sy = 0.0
    for i in range(n):
        a = perm[i]  # h[i] is component a of (x_S, -v); a = s is -v: skipped
        w = h[i] if a < s else 0.0
        sound &= w >= -_WARM_NEG
        w = max(w, 0.0)
        sx += w
        x[rows[min(a, s - 1)]] += w
    for b in range(s):
        w = z[b]
        sound &= w >= -_WARM_NEG
        w = max(w, 0.0)
        sy += w
        y[cols[b]] = w
    if not (sound and sx > 0.0 and sy > 0.0 and sx < np.inf and sy < np.inf):
        return False, 0.0
    ix = 1.0 / sx
    iy = 1.0 / sy
    for a in range(s):
        x[rows[a]] *= ix
        y[cols[a]] *= iy
    # The certificate: lo = min_j (x^T A)_j and hi = max_i (A y)_i over the support's
    # rows and columns (x, y vanish elsewhere); ``scale`` = max |A| over the entries read.
    # x^T A row by row (vectorised over j), A y column by column (independent rows).
    cx = stack_vector(KMAX)
    ry = stack_vector(KMAX)
    for j in range(k):
        cx[j] = 0.0
        ry[j] = 0.0
    scale = 0.0
    for a in range(s):
        ia = rows[a]
        xa = x[ia]
        for j in range(k):
            e = A[ia, j]
            cx[j] += xa * e
            scale = max(scale, abs(e))
    for b in range(s):
        jb = cols[b]
        yb = y[jb]
        for i in range(k):
            e = A[i, jb]
            ry[i] += e * yb
            scale = max(scale, abs(e))
    lo = np.inf
    hi = -np.inf
    for j in range(k):
        lo = min(lo, cx[j])
        hi = max(hi, ry[j])
    if not hi - lo <= WARM_GAP * scale:  # (also NaN)
        return False, 0.0
    return True, lo + 0.5 * (hi - lo)


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def solve_on_support(A, k, x, y, support):
    """Try the warm start alone: ``(accepted, value)`` of the support guess ``support``
    (see :func:`solve_game_warm`); x[:k], y[:k] are optimal strategies if accepted and
    garbage otherwise."""
    return _on_support(A, k, x, y, support)


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def solve_game_warm(A, k, x, y, support):
    """Solve ``A[:k, :k]`` like :func:`solve_game_into`, first trying a support guess.

    Returns ``(value, basis)``: the value, with optimal strategies written to x[:k] and
    y[:k] as by :func:`solve_game_into`, and the support code (:func:`support_code`) of
    a square optimal basis, to pass as ``support`` for the next, similar game.
    ``support`` = 0 (``NO_SUPPORT``) means no guess.  Preconditions (unchecked) as for
    solve_game_into.  Nothing is allocated.

    Method.  The guess is a row set S and a column set T of equal size s (a bitmask
    each, packed in one integer).  If they are the supports of an equilibrium, the
    equilibrium strategies equalise: x_S^T A[S, T] = v 1^T, A[S, T] y_T = v 1, and
    sum x_S = sum y_T = 1.  Both systems share the bordered matrix
    M = [[A[S, T], -1], [1^T, 0]] (M (y_T, v) = e_s, M^T (x_S, -v) = -e_s), so one LU
    factorisation (~s^3 / 3 flops; unpivoted, or with partial pivoting when a multiplier
    exceeds 10) gives x and y.  M, unlike A[S, T], is non-singular for the supports of a
    value-0 game such as rock-paper-scissors.  Components below -1e-9 reject the guess
    at once, smaller negatives are clamped to 0 and both vectors renormalised.

    Acceptance.  lo = min_j (x^T A)_j and hi = max_i (A y)_i (as strategy_guarantees,
    reading only the support's rows and columns) bracket the value, so the guess is
    accepted iff hi - lo <= WARM_GAP * a, a = max |A| over the entries read; the value
    returned is the midpoint of [lo, hi].  WARM_GAP (module constant) keeps every
    accepted game inside the band that exact.kernels.bounds.certified_game accepts from
    the simplex without polishing.  A singular M, a clearly negative component or a
    larger gap sends the game to the cold path of solve_game_into (k = 1, pure saddle,
    2 x 2 closed form, simplex), whose final basis is returned as the next guess (for a
    saddle the 1 x 1 support of its row and column).  The guess may come from any game
    of the same size: a wrong one costs the attempt (~ s^3 / 3 + 2 s k flops, about half
    a cold solve) and never the result: without a guess, or with a refused one, value,
    strategies and basis are those of the cold solve, bit for bit.
    """
    if support != 0:
        ok, v = _on_support(A, k, x, y, support)
        if ok:
            return v, support
    if k == 1:
        x[0] = 1.0
        y[0] = 1.0
        return A[0, 0], 1 | (1 << SUPPORT_SHIFT)
    cmax = stack_vector(KMAX)
    found, v, lo, hi, jbest, ibest = _saddle(A, k, x, y, cmax)
    if found:
        return v, (1 << ibest) | (1 << (jbest + SUPPORT_SHIFT))
    if k == 2:
        return _solve_2x2(A, x, y), 3 | (3 << SUPPORT_SHIFT)
    return _simplex(A, k, x, y, lo, hi, jbest)


@numba.njit(cache=True, nogil=True)
def support_code(rows, cols):
    """The support code of row bitmask ``rows`` and column bitmask ``cols``."""
    return (rows & _SUPPORT_BITS) | ((cols & _SUPPORT_BITS) << SUPPORT_SHIFT)


@numba.njit(cache=True, nogil=True)
def support_sets(code):
    """``(rows, cols)`` bitmasks of a support code."""
    return code & _SUPPORT_BITS, (code >> SUPPORT_SHIFT) & _SUPPORT_BITS


@numba.njit(cache=True, nogil=True)
def game_buffers(k):
    """Buffers for solve_game_into on k x k games: (A, x, y), one set per thread."""
    return np.empty((k, k)), np.empty(k), np.empty(k)


def solve_game(A):
    """Solve the square zero-sum matrix game ``A`` (row player maximises ``x^T A y``).

    Returns ``(value, x, y)`` with ``x``, ``y`` optimal mixed strategies of the row and
    column player.  Raises :class:`~exact.errors.GopsInputError` (a ``ValueError``) unless
    ``A`` is a finite real square matrix of size 1..KMAX.
    """
    a = np.asarray(A)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise GopsInputError(f"the game matrix must be square, got shape {a.shape}")
    k = a.shape[0]
    if not 1 <= k <= KMAX:
        raise GopsInputError(f"the game matrix must be k x k with 1 <= k <= {KMAX}, got k = {k}")
    if a.dtype.kind not in "biuf":
        raise GopsInputError(f"the game matrix must be real, got dtype {a.dtype}")
    a = np.ascontiguousarray(a, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        raise GopsInputError("the game matrix must have finite entries")
    x = np.empty(k)
    y = np.empty(k)
    v = solve_game_into(a, k, x, y)
    if v != v:
        raise SolverError(
            f"the matrix game solver missed its accuracy bound ({GAP_BOUND:g} relative) "
            f"on a {k} x {k} game"
        )
    return float(v), x, y
