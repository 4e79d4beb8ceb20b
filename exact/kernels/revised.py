"""The fallback of the matrix-game solver: a revised simplex that factorises its basis
afresh at every pivot, for the near-degenerate games that the tableau simplex of
:mod:`exact.kernels.matrix_game` leaves above its accuracy bound.

Method (the revised simplex method: Dantzig & Orchard-Hays 1954; V. Chvatal, *Linear
Programming* (1983), ch. 7).  The LP is the tableau simplex's, on the game G = A or G = -A^T
scaled to B = (G - min G) / (max G - min G) + 1 (entries in [1, 2], value >= 1):

    maximise sum_j u_j  s.t.  B u + s = 1,  u, s >= 0,

whose optimum is 1 / v_B; y = u / sum u and x = pi / sum pi (pi the duals of the rows)
are optimal strategies of G.  The basis is a list of k labels (u_j -> j, the slack of row
i -> k + i), starting from the slacks.  At every pivot the basis matrix M (those columns of
[B | I]) is factorised by Gaussian elimination with partial pivoting, P M = L U, and

    beta = M^-1 1   (basic values),     pi = M^-T c_B   (duals),
    d_j = c_j - pi^T a_j   (reduced costs),     alpha = M^-1 a_e   (entering column)

are solved from that factorisation.  Nothing is updated from one pivot to the next, so no
rounding accumulates: each quantity is backward stable for the current basis, which is
what an ill-conditioned near-degenerate game needs (the tableau's updates compound the
rounding of pivots on entries of the size of the perturbation).  Pivot rule: Dantzig (the
largest reduced cost enters; ties in the ratio test go to the largest pivot element), or
Bland's (R. G. Bland, *Math. Oper. Res.* 2 (1977) 103-107: smallest labels), which cannot
cycle, from the pivot ``bland_from`` on.  If a pivot makes M singular, the previous basis
is kept and the method stops.  The strategies are read off the last basis, negatives
clipped to 0; the caller judges them by their guarantees, not by how they were found.

Invariant: nothing is allocated (scratch on the stack, :mod:`exact.kernels.stack`), and
only x[:k], y[:k] are written.
"""

from __future__ import annotations

import numba
import numpy as np

from exact.kernels.stack import KMAX, NO_REFCOUNT, stack_indices, stack_matrix, stack_vector

__all__ = ["revised_simplex"]

_LU_SIZE = KMAX * KMAX  # the basis matrix
_LABELS = 2 * KMAX  # the variables u_j and the slacks
#: A reduced cost must exceed this (units of B) for its column to enter.
_EPS_RC = 1e-12
#: A pivot element must exceed this times the largest entry of the entering column.
_EPS_PIV = 1e-12
#: Ratios within this of the minimum are ties in the ratio test.
_EPS_TIE = 1e-14


@numba.njit(cache=True, nogil=True, inline="always")
def _g(A, i, j, transpose):
    """Entry (i, j) of G = A, or of G = -A^T."""
    return -A[j, i] if transpose else A[i, j]


@numba.njit(cache=True, nogil=True, inline="always")
def _column(A, k, lo, inv_rng, transpose, label, out):
    """Column ``label`` of [B | I] into out[:k]."""
    for i in range(k):
        if label < k:
            out[i] = (_g(A, i, label, transpose) - lo) * inv_rng + 1.0
        else:
            out[i] = 1.0 if i == label - k else 0.0


@numba.njit(cache=True, nogil=True, inline="always")
def _factor(A, k, lo, inv_rng, transpose, basis, LU, perm, col):
    """P M = L U of the basis matrix M, in place in LU (L's unit diagonal implied; row i of
    P M is row perm[i] of M).  False if a pivot is zero (M singular) or not finite."""
    for c in range(k):
        _column(A, k, lo, inv_rng, transpose, basis[c], col)
        for i in range(k):
            LU[i, c] = col[i]
    for i in range(k):
        perm[i] = i
    for c in range(k):
        p = c
        for r in range(c + 1, k):
            if abs(LU[r, c]) > abs(LU[p, c]):
                p = r
        if not (abs(LU[p, c]) > 0.0 and abs(LU[p, c]) < np.inf):
            return False
        for j in range(k):
            t = LU[c, j]
            LU[c, j] = LU[p, j]
            LU[p, j] = t
        t = perm[c]
        perm[c] = perm[p]
        perm[p] = t
        for r in range(c + 1, k):
            f = LU[r, c] / LU[c, c]
            LU[r, c] = f
            for j in range(c + 1, k):
                LU[r, j] -= f * LU[c, j]
    return True


@numba.njit(cache=True, nogil=True, inline="always")
def _solve(LU, perm, k, b, out, transposed, w):
    """out = M^-1 b, or M^-T b if ``transposed``, from P M = L U (w: scratch)."""
    if not transposed:  # L U out = P b
        for i in range(k):
            acc = b[perm[i]]
            for j in range(i):
                acc -= LU[i, j] * w[j]
            w[i] = acc
        for i in range(k - 1, -1, -1):
            acc = w[i]
            for j in range(i + 1, k):
                acc -= LU[i, j] * out[j]
            out[i] = acc / LU[i, i]
    else:  # M^T = U^T L^T P: U^T g = b, L^T h = g, out = P^T h
        for i in range(k):
            acc = b[i]
            for j in range(i):
                acc -= LU[j, i] * w[j]
            w[i] = acc / LU[i, i]
        for i in range(k - 1, -1, -1):
            acc = w[i]
            for j in range(i + 1, k):
                acc -= LU[j, i] * w[j]
            w[i] = acc
        for i in range(k):
            out[perm[i]] = w[i]


@numba.njit(cache=True, nogil=True, inline="always")
def _entering(A, k, lo, inv_rng, transpose, inbasis, pi, bland, col):
    """The entering label (Dantzig: largest reduced cost; Bland: smallest label) with a
    reduced cost above _EPS_RC, or -1 (optimal to working accuracy)."""
    e = -1
    best = _EPS_RC
    for j in range(2 * k):
        if inbasis[j]:
            continue
        _column(A, k, lo, inv_rng, transpose, j, col)
        d = 1.0 if j < k else 0.0
        for i in range(k):
            d -= pi[i] * col[i]
        if d > best:
            e = j
            if bland:
                break
            best = d
    return e


@numba.njit(cache=True, nogil=True, inline="always")
def _leaving(k, beta, alpha, basis, bland):
    """Ratio test: the row minimising max(beta_i, 0) / alpha_i over the pivot elements
    alpha_i above _EPS_PIV times the largest; ties to the largest alpha_i (Dantzig) or the
    smallest label (Bland).  -1 if there is none."""
    amax = 0.0
    for i in range(k):
        amax = max(amax, abs(alpha[i]))
    thr = _EPS_PIV * amax
    best = np.inf
    for i in range(k):
        if alpha[i] > thr:
            best = min(best, max(beta[i], 0.0) / alpha[i])
    if best == np.inf:
        return -1
    r = -1
    for i in range(k):
        tie = alpha[i] > thr and max(beta[i], 0.0) / alpha[i] <= best + _EPS_TIE
        if tie and (r < 0 or (basis[i] < basis[r] if bland else alpha[i] > alpha[r])):
            r = i
    return r


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def revised_simplex(A, k, transpose, bland_from, x, y):
    """Optimal strategies of G = A (or -A^T if ``transpose``) by the revised simplex
    (module docstring): the row player's into x[:k], the column player's into y[:k].
    Returns False if no strategy could be read (a constant or non-finite game, a
    singular first basis); x, y are then undefined."""
    lo = np.inf
    hi = -np.inf
    for i in range(k):
        for j in range(k):
            g = _g(A, i, j, transpose)
            lo = min(lo, g)
            hi = max(hi, g)
    if not (hi > lo and hi - lo < np.inf):
        return False
    inv_rng = 1.0 / (hi - lo)
    basis = stack_indices(KMAX)
    perm = stack_indices(KMAX)
    inbasis = stack_indices(_LABELS)
    LU = stack_matrix(_LU_SIZE, k, k)
    beta = stack_vector(KMAX)
    pi = stack_vector(KMAX)
    alpha = stack_vector(KMAX)
    col = stack_vector(KMAX)
    w = stack_vector(KMAX)
    ones = stack_vector(KMAX)
    cb = stack_vector(KMAX)
    for i in range(k):
        basis[i] = k + i
        inbasis[i] = 0
        inbasis[k + i] = 1
        ones[i] = 1.0
    r = 0  # the last pivot's row and the label it replaced
    old = 0
    for pivot in range(100 * k + 50):
        if not _factor(A, k, lo, inv_rng, transpose, basis, LU, perm, col):
            if pivot == 0:
                return False
            # the last pivot made M singular: back to the basis before it, and stop
            inbasis[basis[r]] = 0
            basis[r] = old
            inbasis[old] = 1
            _factor(A, k, lo, inv_rng, transpose, basis, LU, perm, col)
            break
        for i in range(k):
            cb[i] = 1.0 if basis[i] < k else 0.0
        _solve(LU, perm, k, ones, beta, False, w)
        _solve(LU, perm, k, cb, pi, True, w)
        bland = pivot >= bland_from
        e = _entering(A, k, lo, inv_rng, transpose, inbasis, pi, bland, col)
        if e < 0:
            break
        _column(A, k, lo, inv_rng, transpose, e, col)
        _solve(LU, perm, k, col, alpha, False, w)
        r = _leaving(k, beta, alpha, basis, bland)
        if r < 0:
            break
        old = basis[r]
        inbasis[old] = 0
        basis[r] = e
        inbasis[e] = 1
    _solve(LU, perm, k, ones, beta, False, w)
    for i in range(k):
        cb[i] = 1.0 if basis[i] < k else 0.0
    _solve(LU, perm, k, cb, pi, True, w)
    sx = 0.0
    sy = 0.0
    for i in range(k):
        y[i] = 0.0
    for i in range(k):
        x[i] = max(pi[i], 0.0)
        sx += x[i]
        if basis[i] < k:
            y[basis[i]] = max(beta[i], 0.0)
            sy += y[basis[i]]
    if not (sx > 0.0 and sy > 0.0 and sx < np.inf and sy < np.inf):
        return False
    for i in range(k):
        x[i] /= sx
        y[i] /= sy
    return True
