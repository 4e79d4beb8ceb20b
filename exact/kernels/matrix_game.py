"""Compiled solver for small zero-sum matrix games (k x k, 1 <= k <= KMAX = 16, float64).

The game is ``A[:k, :k]``; the row player maximises ``x^T A y``, the column player
minimises it.  Preconditions, not checked in compiled code (for speed): ``1 <= k <= KMAX``
and every entry finite; :func:`solve_game`, the Python entry, checks them.

- :func:`solve_game_into` (compiled, for other compiled code and ``numba.prange`` loops):
  writes both strategies into ``x[:k]``, ``y[:k]`` and returns the value within
  ``GAP_BOUND``, or NaN when it cannot meet that bound.
- :func:`solve_game_unchecked`: the same without the check and the fallback; the level
  kernels call it and certify every game themselves (:mod:`exact.kernels.bounds`).
- :func:`solve_game_warm`, :func:`solve_on_support`: a guessed support first (a *support
  code*, :func:`support_code`), else the cold path; returns the code of an optimal basis.
- :func:`strategy_guarantees`: ``lower = min_j (x^T A)_j <= value <= max_i (A y)_i = upper``
  for any mixed x, y.

Method.  A pure saddle point or, for k = 2, the closed form; otherwise the primal simplex
on the column player's LP (:func:`_simplex`), on the game rescaled to entries in [1, 2],
in Williams's condensed tableau.  Degenerate games are the normal case for GOPS: ratio
ties go to the largest pivot, tiny pivots are refused while another column improves,
Bland's rule after 8k + 16 pivots.  :func:`solve_game_into` then checks the guarantees
and, where they miss GAP_BOUND, re-solves by the revised simplex
(:mod:`exact.kernels.revised`) on A and on -A^T, keeping each player's best strategy.

Accuracy (the contract of :func:`solve_game_into` and :func:`solve_game`): with
s = max(1, max |A|) and the guarantees of the returned strategies,

    upper - lower <= GAP_BOUND * s   and   lower - GAP_BOUND * s <= v <= upper + GAP_BOUND * s.

Invariants.  Nothing is allocated on the heap and no global state is written (scratch on
the stack, :mod:`exact.kernels.stack`), so every function is thread-safe.  Results are
bit-for-bit reproducible, as the stores require: each tableau entry is a fixed sequence of
operations; no fastmath (it makes results depend on the data's alignment).

Sources: the minimax theorem as an LP, Shoham & Leyton-Brown, *Multiagent Systems* (2009),
sec 4.1; the condensed tableau, J. D. Williams, *The Compleat Strategyst* (1954), ch. 6;
anti-cycling, R. G. Bland, *Math. Oper. Res.* 2 (1977) 103-107.  Measurements (pivot
counts, the cost of each part, the warm start's hit rates, what was tried and rejected):
benchmarks/RESULTS.md, "The matrix-game solver: its measurements".
"""

from __future__ import annotations

import numba
import numpy as np

from exact.errors import GopsInputError, SolverError
from exact.kernels import tableau
from exact.kernels.revised import revised_simplex
from exact.kernels.stack import KMAX, NO_REFCOUNT, stack_indices, stack_matrix, stack_vector
from exact.kernels.target import CPU_INLINE, compile_bodies

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

# The tableau simplex (saddle test, 2 x 2 closed form, pivots, ratio test), its
# tolerances and pivot caps: one source for the CPU and the GPU (exact.kernels.tableau),
# compiled here for the CPU, inlined into the solver.
_CPU = compile_bodies(CPU_INLINE, tableau.BODIES)
_dantzig_cap = _CPU.dantzig_cap
_saddle = _CPU.saddle
_solve_2x2 = _CPU.solve_2x2
_tableau_simplex = _CPU.simplex
_solve_unchecked = _CPU.solve_unchecked


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
    """The general case, :func:`exact.kernels.tableau.simplex`, on scratch on the stack
    (the tableau's rows padded to ``_width(k)``).  Returns ``(value, basis)``: ``basis``
    is the support code (see :func:`support_code`) of the final basis: the rows whose
    slacks are non-basic and the columns whose u_j are basic (equally many, and A
    restricted to them is non-singular: a basis), which :func:`solve_game_warm` can take
    as its guess for a sibling game.  ``(NaN, 0)`` on failure.
    """
    W = _width(k)
    T = stack_matrix(_TSIZE, k + 1, W)
    P = stack_vector(_WMAX)  # copy of the scaled pivot row
    R = stack_vector(KMAX)  # ratios of the ratio test
    rowlab = stack_vector(KMAX)  # label of the basic variable of each row
    collab = stack_vector(KMAX)  # label of the non-basic variable of each column
    ok, v = _tableau_simplex(A, k, x, y, lo, hi, first, T, P, R, rowlab, collab, W)
    if not ok:
        return np.nan, 0
    return v, _basis_code(rowlab, collab, k)


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
    cmax = stack_vector(KMAX)  # the scratch of exact.kernels.tableau.solve_unchecked
    W = _width(k)
    T = stack_matrix(_TSIZE, k + 1, W)
    P = stack_vector(_WMAX)
    R = stack_vector(KMAX)
    rowlab = stack_vector(KMAX)
    collab = stack_vector(KMAX)
    return _solve_unchecked(A, k, x, y, T, P, R, rowlab, collab, cmax, W)


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
