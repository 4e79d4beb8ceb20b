"""A proven bound on the error of a float matrix-game value, from the solver's strategies.

The enclosure
-------------
For a zero-sum game with matrix A (row player maximises) and any probability vectors x, y,
the value w(A) satisfies

    min_j (x^T A)_j  <=  w(A)  <=  max_i (A y)_i                                    (1)

(x guarantees its column minimum, y concedes at most its row maximum).  The float solver
returns a value v and strategies x, y of the float matrix Â; (1) applied to Â with x, y
clamped at 0 and divided by their sums gives lo <= w(Â) <= hi, and

    |v - w(Â)| <= max(v - lo, hi - v) =: e.                                         (2)

If every exact entry A*_ij (exact child values) is within d of Â_ij, then
|w(A*) - w(Â)| <= d (the value is 1-Lipschitz in the largest entry change), so
|v - w(A*)| <= e + d.  The drivers take d = r_{k-1} + eps |Â_ij| (the radius of the level
below, plus the rounding of u sign(V_i - Y_j) + f(child) for the points objective).

Rounding, accounted for (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed.,
sec 3.1: a sum or dot product of n terms computed in any order has relative error at most
gamma_n = n eps / (1 - n eps), eps = 2^-53, on the sum of the absolute terms).  Let
a = max |Â_ij|, x~ = max(x, 0), S = fl(sum x~) (so S* = sum x~ lies in
[S / (1 + gamma_k), S / (1 - gamma_k)]), c_j = fl(sum_i x~_i Â_ij) (so
|c_j - c*_j| <= gamma_k a S*) and q_j = fl(c_j / S).  Then x~ / S* is a probability
vector and

    c*_j / S*  >=  c_j / S* - gamma_k a  >=  c_j / S - gamma_k |c_j| / S - gamma_k a
               >=  q_j - eps |q_j| - 2.1 gamma_k a  >=  q_j - 3.2 gamma_k a

since |c_j| / S <= (1 + gamma_k) a / (1 - gamma_k) <= 1.01 a for k <= 16.  So
lo = min_j q_j - 4 gamma_k a - tiny is a rigorous lower bound of w(Â) (the margin from 3.2
to 4 covers the rounding of that subtraction; ``tiny`` = 2^-1000 covers underflow in the
products), and likewise hi = max_i fl(fl(sum_j Â_ij y~_j) / T) + 4 gamma_k a + tiny.
The two subtractions in (2) and the added eps a of the entries are covered by the same
margin doubled: ``value_error`` returns max(v - min q, max r - v) + 10 gamma_k a + tiny,
computed in float; every term is a sum of at most four rounded operations on numbers of
size at most 2a, whose rounding (at most 4 eps 2a) the extra 2 gamma_k a covers.

A NaN anywhere (a failed solve) makes the bound NaN, which the drivers refuse loudly; so
does a strategy the enclosure cannot use (an infinite weight, weights whose sum overflows
or is below ``MIN_WEIGHT``): NaN means "no bound", never a number.

The polish.  (1) and (2) hold for any probability vectors and any float v, so a game whose
bound is large can be re-proved with better ones: :func:`certified_game` re-solves each
player's strategy on the solver's supports by Gaussian elimination on the original
matrix and, if that is not enough, also tries the strategies of the transposed game
-A^T; it keeps each player's best guarantee and, if that tightens the bound, returns the
midpoint of the new [lo, hi] as the game's value.  It is meant for near-degenerate games
(a simplex pivoting on a tiny element leaves strategies far off); a game whose bound is
within ``POLISH_ABOVE`` rounding margins keeps the solver's value and strategies bit for bit.

Every function here runs once per matrix game: compiled without reference counting,
allocating nothing (scratch on the stack, as in :mod:`exact.kernels.matrix_game`).  What
the polish finds at N = 13 and what the bounds cost: benchmarks/RESULTS.md.
"""

from __future__ import annotations

import numba
import numpy as np

from exact.kernels.matrix_game import (
    KMAX,
    NO_REFCOUNT,
    solve_game_unchecked,
    stack_matrix,
    stack_vector,
)

EPS = 2.0**-53
#: Covers underflow in the products x_i A_ij (each at most 2^-1074 off, k^2 <= 256 of them).
TINY = 2.0**-1000
#: The least sum of a strategy's weights that :func:`guarantees` accepts: the underflow of
#: a column sum, at most k 2^-1075 <= 2^-1071, divided by the weights' sum, stays below
#: 2^-1011, inside TINY.  Subnormal strategies such as [5e-324, 5e-324] get NaN.
MIN_WEIGHT = 2.0**-60


@numba.njit(cache=True, nogil=True, inline="always", **NO_REFCOUNT)
def gamma(n):
    """Higham's gamma_n = n eps / (1 - n eps): the relative error bound of an n-term sum."""
    return n * EPS / (1.0 - n * EPS)


@numba.njit(cache=True, nogil=True, inline="always", **NO_REFCOUNT)
def guarantees(A, k, x, y):
    """(lo, hi, a): lo = min_j fl(fl(sum_i x~_i A_ij) / fl(sum x~)) and hi = max_i of the
    same for y, with x~ = max(x, 0), y~ = max(y, 0), and a = max |A_ij|: the computed
    ends of (1) before the rounding margin of the module docstring.  NaN (no bound) for a
    NaN or infinite entry or sum, and for a strategy whose weights sum to less than
    MIN_WEIGHT (none, or so little that underflow in the products is not covered).

    One pass over A in memory order forms the row sums, the column sums (in a stack
    vector, each still summed over i = 0..k-1 in order) and a.  A NaN or infinite entry
    makes its row sum NaN or infinite (y~_j = 0 times it is NaN), which is tested once
    per row.
    """
    nan = numba.float64(float("nan"))
    s = 0.0
    t = 0.0
    for i in range(k):
        s += max(x[i], 0.0)
        t += max(y[i], 0.0)
    if not (MIN_WEIGHT <= s < np.inf and MIN_WEIGHT <= t < np.inf):
        return nan, nan, nan
    c = stack_vector(KMAX)  # column sums x~^T A
    for j in range(k):
        c[j] = 0.0
    a = 0.0
    hi = -np.inf
    for i in range(k):
        xi = max(x[i], 0.0)
        r = 0.0
        for j in range(k):
            e = A[i, j]
            c[j] += xi * e
            r += e * max(y[j], 0.0)
            a = max(a, abs(e))
        if not abs(r) < np.inf:
            return nan, nan, nan
        hi = max(hi, r / t)
    lo = np.inf
    for j in range(k):
        if not abs(c[j]) < np.inf:
            return nan, nan, nan
        lo = min(lo, c[j] / s)
    return lo, hi, a


@numba.njit(cache=True, nogil=True, inline="always", **NO_REFCOUNT)
def rounding_margin(k, a):
    """The term added to the gap (2) for the rounding of (1) and of the entries."""
    return 10.0 * gamma(k) * a + TINY


@numba.njit(cache=True, nogil=True, inline="always", **NO_REFCOUNT)
def error_from_guarantees(k, v, lo, hi, a):
    """The bound (2) plus the rounding margin, for any float v: w(A) lies in
    [lo - 4 gamma_k a, hi + 4 gamma_k a], so |v - w(A)| <= max(v - lo, hi - v) + that
    margin, whatever the order of lo and hi (module docstring)."""
    gap = max(v - lo, hi - v)
    if gap != gap:
        return gap
    return gap + rounding_margin(k, a)


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def value_error(A, k, x, y, v):
    """A rigorous bound on |v - w(A[:k, :k])| from strategies x, y (module docstring),
    which also covers a relative rounding of eps in every entry of A."""
    lo, hi, a = guarantees(A, k, x, y)
    return error_from_guarantees(k, v, lo, hi, a)


# Sizes of the polish's stack scratch (compile-time constants, as _stack_* require).
_GAME_SIZE = KMAX * KMAX  # a transposed game
_UNKNOWNS = KMAX + 1  # z_S and w of a support system
_SYSTEM_SIZE = (KMAX + 1) * (KMAX + 2)  # its augmented matrix


#: A game whose gap (2) exceeds this many rounding margins is polished
#: (:func:`certified_game`): its strategies are worse than rounding explains.  At N = 8,
#: 9 of 202,728 games.
POLISH_ABOVE = 1.0


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def support_solve(A, k, x, y, columns, out):
    """Re-solve one player's strategy on its support from the other's support, by Gaussian
    elimination with partial pivoting on the original matrix; True if it succeeded.

    For the row player (``columns`` False): unknowns z_i (i in S = {x_i > 0}) and w, with
    sum_i z_i A_ij = w for j in T = {y_j > 0} and sum z = 1 (complementary slackness:
    a column played with positive probability is a best reply).  For the column player
    (``columns`` True) the same with the roles of A's rows and columns exchanged.  Extra
    equations (|T| > |S|) are left out after the pivots; |T| < |S| or a zero pivot gives
    False.  ``out[:k]`` receives z clamped at 0 (0 outside S).  Any probability vector
    is a valid input to :func:`value_error`, so this needs no proof of its own.
    """
    mine = y if columns else x
    theirs = x if columns else y
    S = stack_vector(KMAX)  # the support of mine (indices held as floats)
    T = stack_vector(KMAX)  # the support of theirs
    s = 0
    t = 0
    for i in range(k):
        if mine[i] > 0.0:
            S[s] = i
            s += 1
        if theirs[i] > 0.0:
            T[t] = i
            t += 1
    if t < s or s == 0:
        return False
    M = stack_matrix(_SYSTEM_SIZE, t + 1, s + 2)
    for e in range(t + 1):  # [coefficients of z_S, of w | right-hand side], zero first
        for c in range(s + 2):
            M[e, c] = 0.0
    for e in range(t):
        for c in range(s):
            M[e, c] = A[int(T[e]), int(S[c])] if columns else A[int(S[c]), int(T[e])]
        M[e, s] = -1.0
    for c in range(s):
        M[t, c] = 1.0
    M[t, s + 1] = 1.0
    n = s + 1
    for c in range(n):
        best = c
        for r in range(c + 1, t + 1):
            if abs(M[r, c]) > abs(M[best, c]):
                best = r
        if not abs(M[best, c]) > 0.0:
            return False
        for j in range(s + 2):
            M[c, j], M[best, j] = M[best, j], M[c, j]
        for r in range(c + 1, t + 1):
            f = M[r, c] / M[c, c]
            for j in range(c, s + 2):
                M[r, j] -= f * M[c, j]
    z = stack_vector(_UNKNOWNS)
    for c in range(n - 1, -1, -1):
        acc = M[c, s + 1]
        for j in range(c + 1, n):
            acc -= M[c, j] * z[j]
        z[c] = acc / M[c, c]
    for i in range(k):
        out[i] = 0.0
    for c in range(s):
        out[int(S[c])] = max(z[c], 0.0)
    return True


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def _copy(src, dst, k):
    """dst[:k] = src[:k], without the temporary array of a slice assignment."""
    for i in range(k):
        dst[i] = src[i]


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def _keep_better(A, k, bx, by, cx, cy, ends):
    """bx := cx if cx guarantees more than ``ends[0]``; by := cy if cy concedes less than
    ``ends[1]``; ``ends`` follows the better strategies' guarantees."""
    lo, hi, _ = guarantees(A, k, cx, cy)
    if lo > ends[0]:
        ends[0] = lo
        _copy(cx, bx, k)
    if hi < ends[1]:
        ends[1] = hi
        _copy(cy, by, k)


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def _polish(A, k, x, y, bx, by, ends):
    """Offer :func:`_keep_better` the re-solves of x and y on their supports."""
    zx = stack_vector(KMAX)
    zy = stack_vector(KMAX)
    _copy(x, zx, k)
    _copy(y, zy, k)
    support_solve(A, k, x, y, False, zx)  # zx unchanged where it fails
    support_solve(A, k, x, y, True, zy)
    _keep_better(A, k, bx, by, zx, zy, ends)


@numba.njit(cache=True, nogil=True, inline="always", **NO_REFCOUNT)
def certified_game(A, k, x, y, v):
    """(value, bound) of a solved game: the solver's value v with its :func:`value_error`,
    or, when its gap exceeds ``POLISH_ABOVE`` rounding margins, possibly a better pair.

    The polish offers, for each player, the solver's strategy, its re-solve on the
    solver's supports (:func:`support_solve`) and, if those still leave the bound above
    the threshold, the strategies of the transposed game -A^T (the same simplex, other
    pivots) and their re-solves; it keeps each player's best guarantee and takes the
    midpoint of the resulting [lo, hi] as the value.  That pair is returned (and x, y
    replaced in place by the strategies it was proved with, so that a certificate writer
    can record them) only if its bound is smaller.  Any probability vectors and any float
    value are valid inputs to the bound, so the polish needs no proof of its own.
    """
    lo, hi, a = guarantees(A, k, x, y)
    e = error_from_guarantees(k, v, lo, hi, a)
    limit = (1.0 + POLISH_ABOVE) * rounding_margin(k, a)
    if not e > limit:
        return v, e  # small, or NaN (refused by the callers)
    return _polished(A, k, x, y, v, lo, hi, a, e, limit)


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def _polished(A, k, x, y, v, lo, hi, a, e, limit):
    """The polish of :func:`certified_game`, for a game whose bound ``e`` exceeds
    ``limit`` (kept out of line: a few games in 10^5 need it)."""
    bx = stack_vector(KMAX)  # the best strategies so far, and their guarantees
    by = stack_vector(KMAX)
    _copy(x, bx, k)
    _copy(y, by, k)
    ends = stack_vector(2)
    ends[0] = lo
    ends[1] = hi
    _polish(A, k, x, y, bx, by, ends)
    w = ends[0] + 0.5 * (ends[1] - ends[0])
    if error_from_guarantees(k, w, ends[0], ends[1], a) > limit:
        B = stack_matrix(_GAME_SIZE, k, k)
        tx = stack_vector(KMAX)
        ty = stack_vector(KMAX)
        for i in range(k):
            for j in range(k):
                B[j, i] = -A[i, j]
        vt = solve_game_unchecked(B, k, tx, ty)
        if vt == vt:  # not NaN
            _keep_better(A, k, bx, by, ty, tx, ends)  # B's rows are A's columns
            _polish(A, k, ty, tx, bx, by, ends)
        w = ends[0] + 0.5 * (ends[1] - ends[0])
    f = error_from_guarantees(k, w, ends[0], ends[1], a)
    if not f < e:
        return v, e
    _copy(bx, x, k)
    _copy(by, y, k)
    return w, f


@numba.njit(cache=True, nogil=True, inline="always", **NO_REFCOUNT)
def certified_solve(A, k, x, y, scratch):
    """(value, bound) of the game A[:k, :k], solved (solve_game_unchecked) and certified
    (:func:`certified_game`); strategies into x, y.  ``scratch``: None on the CPU (the
    solver's scratch is on its stack); the kernel bodies shared with the GPU pass it on
    (exact.cuda.game.certified_solve takes its local arrays)."""
    return certified_game(A, k, x, y, solve_game_unchecked(A, k, x, y))
