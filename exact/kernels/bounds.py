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
from exact.kernels.target import compile_bodies

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


def support_solve(A, k, x, y, columns, out, S, T, M, z):
    """Re-solve one player's strategy on its support from the other's support, by Gaussian
    elimination with partial pivoting on the original matrix; True if it succeeded.

    For the row player (``columns`` False): unknowns z_i (i in S = {x_i > 0}) and w, with
    sum_i z_i A_ij = w for j in T = {y_j > 0} and sum z = 1 (complementary slackness:
    a column played with positive probability is a best reply).  For the column player
    (``columns`` True) the same with the roles of A's rows and columns exchanged.  Extra
    equations (|T| > |S|) are left out after the pivots; |T| < |S| or a zero pivot gives
    False.  ``out[:k]`` receives z clamped at 0 (0 outside S).  Any probability vector
    is a valid input to :func:`value_error`, so this needs no proof of its own.  The
    scratch is the caller's: ``S``, ``T`` (KMAX floats: the supports, indices held as
    floats), ``M`` (at least (KMAX + 1) x (KMAX + 2): the augmented matrix), ``z``
    (KMAX + 1 floats).
    """
    mine = y if columns else x
    theirs = x if columns else y
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


def _copy(src, dst, k):
    """dst[:k] = src[:k], without the temporary array of a slice assignment."""
    for i in range(k):
        dst[i] = src[i]


def _keep_better(A, k, bx, by, cx, cy, ends):
    """bx := cx if cx guarantees more than ``ends[0]``; by := cy if cy concedes less than
    ``ends[1]``; ``ends`` follows the better strategies' guarantees (the target's
    ``guarantees``: this module's, or exact.cuda.game.enclosure)."""
    lo, hi, _ = guarantees(A, k, cx, cy)
    if lo > ends[0]:
        ends[0] = lo
        _copy(cx, bx, k)
    if hi < ends[1]:
        ends[1] = hi
        _copy(cy, by, k)


def _polish(A, k, x, y, bx, by, ends, work):
    """Offer :func:`_keep_better` the re-solves of x and y on their supports."""
    _, _, _, _, _, _, zx, zy, S, T, M, z = work
    _copy(x, zx, k)
    _copy(y, zy, k)
    support_solve(A, k, x, y, False, zx, S, T, M, z)  # zx unchanged where it fails
    support_solve(A, k, x, y, True, zy, S, T, M, z)
    _keep_better(A, k, bx, by, zx, zy, ends)


def polished(A, k, x, y, v, lo, hi, a, e, limit, work, scratch):
    """The polish of :func:`certified_game`, for a game whose bound ``e`` exceeds
    ``limit``.  ``work``: the target's scratch (bx, by, ends, B, tx, ty, zx, zy, S, T, M,
    z): the best strategies so far, their guarantees, the transposed game, its
    strategies, the re-solves and the support systems' (:func:`support_solve`);
    ``scratch``: its solver's (:func:`certified_solve`), for the transposed game."""
    bx, by, ends, B, tx, ty, _, _, _, _, _, _ = work
    _copy(x, bx, k)
    _copy(y, by, k)
    ends[0] = lo
    ends[1] = hi
    _polish(A, k, x, y, bx, by, ends, work)
    w = ends[0] + 0.5 * (ends[1] - ends[0])
    if error_from_guarantees(k, w, ends[0], ends[1], a) > limit:
        for i in range(k):
            for j in range(k):
                B[j, i] = -A[i, j]
        vt = solve_unchecked(B, k, tx, ty, scratch)
        if vt == vt:  # not NaN
            _keep_better(A, k, bx, by, ty, tx, ends)  # B's rows are A's columns
            _polish(A, k, ty, tx, bx, by, ends, work)
        w = ends[0] + 0.5 * (ends[1] - ends[0])
    f = error_from_guarantees(k, w, ends[0], ends[1], a)
    if not f < e:
        return v, e
    _copy(bx, x, k)
    _copy(by, y, k)
    return w, f


def certified(A, k, x, y, v, scratch):
    """:func:`certified_game` on the target's scratch of its solver (``scratch``)."""
    lo, hi, a = guarantees(A, k, x, y)
    e = error_from_guarantees(k, v, lo, hi, a)
    limit = (1.0 + POLISH_ABOVE) * rounding_margin(k, a)
    if not e > limit:
        return v, e  # small, or NaN (refused by the callers)
    return polish_out_of_line(A, k, x, y, v, lo, hi, a, e, limit, scratch)


#: The bodies of the certified bound and its polish, callees first: the CPU's (compiled
#: below) and the GPU's (exact.cuda.game, with its own guarantees in directed rounding,
#: its own error_from_guarantees and its scratch).
BODIES = (support_solve, _copy, _keep_better, _polish, polished, certified)


@numba.njit(cache=True, nogil=True, inline="always", **NO_REFCOUNT)
def solve_unchecked(A, k, x, y, scratch):
    """The solver of the polish's transposed game on the CPU (its scratch on its stack)."""
    return solve_game_unchecked(A, k, x, y)


_CPU = compile_bodies(
    numba.njit(nogil=True, inline="always", **NO_REFCOUNT),
    BODIES[:-1],
)
support_solve = _CPU.support_solve
_polished_body = _CPU.polished


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def polish_out_of_line(A, k, x, y, v, lo, hi, a, e, limit, scratch):
    """:func:`polished` on scratch on the stack (kept out of line: a few games in 10^5
    need it)."""
    work = (
        stack_vector(KMAX),  # bx, by: the best strategies so far
        stack_vector(KMAX),
        stack_vector(2),  # ends: their guarantees
        stack_matrix(_GAME_SIZE, KMAX, KMAX),  # B, the transposed game, and its tx, ty
        stack_vector(KMAX),
        stack_vector(KMAX),
        stack_vector(KMAX),  # zx, zy: the re-solves
        stack_vector(KMAX),
        stack_vector(KMAX),  # S, T, M, z: a support system
        stack_vector(KMAX),
        stack_matrix(_SYSTEM_SIZE, KMAX + 1, KMAX + 2),
        stack_vector(_UNKNOWNS),
    )
    return _polished_body(A, k, x, y, v, lo, hi, a, e, limit, work, scratch)


_certified = compile_bodies(
    numba.njit(nogil=True, inline="always", **NO_REFCOUNT),
    BODIES[-1:],
).certified


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
    return _certified(A, k, x, y, v, None)


@numba.njit(cache=True, nogil=True, inline="always", **NO_REFCOUNT)
def certified_solve(A, k, x, y, scratch):
    """(value, bound) of the game A[:k, :k], solved (solve_game_unchecked) and certified
    (:func:`certified_game`); strategies into x, y.  ``scratch``: None on the CPU (the
    solver's scratch is on its stack); the kernel bodies shared with the GPU pass it on
    (exact.cuda.game.certified_solve takes its local arrays)."""
    return certified_game(A, k, x, y, solve_game_unchecked(A, k, x, y))
