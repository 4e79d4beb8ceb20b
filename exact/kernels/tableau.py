"""The tableau simplex of the float matrix-game solver, as bodies compiled for each target:
the CPU's :mod:`exact.kernels.matrix_game` and the GPU's :mod:`exact.cuda.game` run this
one source (:mod:`exact.kernels.target`), with these tolerances.

The bodies: :func:`saddle` (the pure-saddle test), :func:`solve_2x2` (the closed form),
:func:`pivot`, :func:`entering`, :func:`leaving` and :func:`simplex` (Williams' condensed
tableau on the column player's LP of the game rescaled to [1, 2]; Dantzig's rule, ties in
the ratio test to the largest pivot, tiny pivots refused, Bland's rule after
:func:`dantzig_cap` pivots, NaN after MAX_PIVOTS).  The method and its sources are in
:mod:`exact.kernels.matrix_game`'s docstring.

Scratch is the caller's: the CPU allocates it on its stack (:mod:`exact.kernels.stack`),
a CUDA thread in its local memory.  A body allocates nothing and calls only bodies.

Invariant: each entry of the tableau is computed by a fixed sequence of operations, and
the stored levels of every store depend on those bits.  Branch-free forms in the inner
loops (the ratio test's ``(rhs + (1 - s)) / (|a| s)``, the pivot row's zero multiplier)
compute the same numbers as the plain ``if``.
"""

from __future__ import annotations

import math

import numpy as np

from exact.kernels.stack import KMAX

__all__ = [
    "BLAND_PIV_FRAC",
    "BODIES",
    "EPS_PIV",
    "EPS_RC",
    "EPS_TIE",
    "KMAX",
    "MAX_PIVOTS",
    "PIV_REL",
    "dantzig_cap",
    "entering",
    "leaving",
    "pivot",
    "saddle",
    "simplex",
    "solve_2x2",
    "solve_unchecked",
]

# Tolerances, all in the units of the scaled game B (entries in [1, 2], see simplex).
EPS_RC = 1e-14  # a reduced cost must be < -EPS_RC for its column to enter
EPS_PIV = 1e-9  # smallest admissible pivot element
EPS_TIE = 1e-14  # ratios within this of the minimum count as ties in the ratio test
BLAND_PIV_FRAC = 1e-3  # see leaving
PIV_REL = 1e-6  # see leaving
# Pivot caps: after dantzig_cap(k) pivots switch from Dantzig's rule to Bland's rule
# (which cannot cycle); after MAX_PIVOTS give up and return NaN.
MAX_PIVOTS = 100_000


def dantzig_cap(k):
    """Pivots under Dantzig's rule before Bland's."""
    return 8 * k + 16


def saddle(A, k, x, y, cmax):
    """Pure saddle point test.  Returns ``(found, value, min A, max A, minimax column,
    maximin row)``.

    One pass over A: the row minima are accumulated in registers, the column maxima in
    ``cmax``.  maximin = max of the row minima, minimax = min of the column maxima; a
    saddle exists iff they are equal, and then the (first) maximin row and the (first)
    minimax column are a pure equilibrium (written to x, y).
    """
    maximin = -math.inf
    ibest = 0
    lo = math.inf
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


def solve_2x2(A, x, y):
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


def pivot(T, P, nr, W, r, c):
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


def entering(T, k, collab, bland, mask):
    """Entering column: Dantzig (most negative reduced cost) or Bland (smallest label).

    Columns whose bit is set in ``mask`` are blocked (see simplex) and skipped.
    Returns -1 if no column has a reduced cost < -EPS_RC (optimal).
    """
    c = -1
    if not bland:
        best = -EPS_RC
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
            ok = T[k, j] < -EPS_RC and ((mask >> j) & 1) == 0
            if ok and collab[j] < best_lab:
                best_lab = collab[j]
                c = j
    return c


def leaving(T, k, c, R, rowlab, bland, allow_tiny):
    """Ratio test on column ``c``: the row minimising rhs_i / T[i,c] over T[i,c] > 0.

    Two branch-free passes: the ratios (inf where T[i,c] <= EPS_PIV) go to ``R`` and
    their minimum is taken; then among the rows whose ratio is within EPS_TIE of the
    minimum, the largest pivot element wins (Dantzig phase, numerically safest) or the
    smallest label (Bland phase, among the tie rows with a pivot element not much smaller
    than the largest).  Returns -1 if the column is unusable: no entry exceeds EPS_PIV
    (in exact arithmetic the LP would be unbounded, impossible for the scaled game: the
    negative reduced cost is rounding noise), or, unless ``allow_tiny``, the chosen pivot
    element is below PIV_REL times the largest entry of the column (a tiny pivot on a
    degenerate row is usually rounding noise and wrecks the tableau).

    The ratio ``max(rhs, 0) / a if a > EPS_PIV else inf`` is computed as
    ``(max(rhs, 0) + (1 - s)) / (|a| * s)`` with ``s = float(a > EPS_PIV)``: for s = 1
    this is exactly the quotient, for s = 0 it is (>= 1) / +0 = inf.  Written as a
    select, LLVM compiles it to a branch around the division (a select of an expensive
    operand), which mispredicts on ~25% of the rows of real games.  Likewise the tie
    pass multiplies by ``float(ratio <= thr)`` instead of selecting.
    """
    best = math.inf
    acol = 0.0
    for i in range(k):
        a = T[i, c]
        s = np.float64(a > EPS_PIV)
        t = (max(T[i, k], 0.0) + (1.0 - s)) / (abs(a) * s)
        R[i] = t
        best = min(best, t)
        acol = max(acol, a)
    if best == math.inf:
        return -1
    thr = best + EPS_TIE
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
        # is < BLAND_PIV_FRAC of the largest one (a tiny pivot on a degenerate row is
        # rounding noise and wrecks the tableau)
        amax = 0.0
        for i in range(k):
            a = T[i, c] if R[i] <= thr else 0.0
            amax = max(amax, a)
        amin = amax * BLAND_PIV_FRAC
        lmin = math.inf
        for i in range(k):
            ok = R[i] <= thr and T[i, c] >= amin
            lab = rowlab[i] if ok else math.inf
            if lab < lmin:
                lmin = lab
                r = i
    if not allow_tiny and T[r, c] < PIV_REL * acol:
        return -1
    return r


def simplex(A, k, x, y, lo, hi, first, T, P, R, rowlab, collab, W):
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
       dantzig_cap(k) pivots we switch to Bland's rule (smallest-label entering column,
       smallest-label leaving row among ties), which cannot cycle; after MAX_PIVOTS we
       give up (NaN).

    The condensed tableau is (k+1) x (k+1) (rows padded to W columns): k constraint
    rows plus the objective row, k non-basic columns plus the rhs.  Variable labels:
    u_j -> j, slack of row i -> k + i.

    The scratch is the caller's (module docstring): ``T`` with k + 1 rows of ``W >= k + 1``
    columns (the columns beyond k + 1 are zero padding and never change a number), ``P``
    (W floats), ``R``, ``rowlab``, ``collab`` (k floats each).  Returns ``(ok, value)``,
    ``(False, NaN)`` on failure; the final basis stays in ``rowlab`` and ``collab``.
    """
    # --- scaled initial tableau -----------------------------------------------------
    rng = hi - lo
    inv_rng = 1.0 / rng
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
    # A column whose ratio test fails (see leaving) is blocked until the next pivot (its
    # bit in ``mask``).  If every improving column is blocked, one more round allows tiny
    # pivots; if that fails too, stop.
    cap = dantzig_cap(k)
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
                c = entering(T, k, collab, bland, mask)
                continue
            break  # optimal (up to blocked columns of rounding-noise size)
        r = leaving(T, k, c, R, rowlab, bland, allow_tiny)
        if r < 0:
            mask |= 1 << c
            c = entering(T, k, collab, bland, mask)
            continue
        pivot(T, P, k + 1, W, r, c)
        lab = rowlab[r]
        rowlab[r] = collab[c]
        collab[c] = lab
        pivots += 1
        mask = 0
        allow_tiny = False
        if pivots >= cap:
            bland = True
            if pivots >= MAX_PIVOTS:
                return False, math.nan
        c = entering(T, k, collab, bland, mask)

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
        return False, math.nan
    ix = 1.0 / sx
    iy = 1.0 / sy
    for i in range(k):
        x[i] *= ix
        y[i] *= iy
    v_b = 1.0 / T[k, k]  # value of the scaled game B
    return True, (v_b - 1.0) * rng + lo


def solve_unchecked(A, k, x, y, T, P, R, rowlab, collab, cmax, W):
    """The value of ``A[:k, :k]`` (row player maximises), strategies into x[:k], y[:k],
    unchecked: k = 1, the pure saddle point, the 2 x 2 closed form, else the simplex
    (its scratch and ``cmax``, k floats, the caller's); NaN on failure."""
    if k == 1:
        x[0] = 1.0
        y[0] = 1.0
        return A[0, 0]
    found, v, lo, hi, jbest, _ = saddle(A, k, x, y, cmax)
    if found:
        return v
    if k == 2:
        return solve_2x2(A, x, y)
    ok, v = simplex(A, k, x, y, lo, hi, jbest, T, P, R, rowlab, collab, W)
    return v if ok else math.nan


#: Every body, callees first (for exact.kernels.target.compile_bodies).
BODIES = (dantzig_cap, saddle, solve_2x2, pivot, entering, leaving, simplex, solve_unchecked)
