"""One k x k zero-sum matrix game on a CUDA thread: its value by the condensed-tableau
simplex, and a certified bound on that value's error computed with directed rounding.

1. The value (:func:`solve_game`): the CPU's own body,
   :func:`exact.kernels.tableau.solve_unchecked`, compiled as device functions
   (:mod:`exact.kernels.target`): k = 1, the pure-saddle test, the 2 x 2 closed form, else
   the primal simplex on the column player's LP of the game rescaled to [1, 2]
   (Williams' condensed tableau; Dantzig's rule, ties in the ratio test to the largest
   pivot, tiny pivots refused, Bland's rule after 8k + 16 pivots, NaN after 100,000),
   with the CPU's tolerances.  The scratch is the caller's local arrays of side
   ``SCRATCH`` = KMAX + 1 (``T``, ``P``, ``R``, ``rowlab``, ``collab``, ``cmax``).  A GPU
   may fuse a multiply and an add, so a value's bits may differ from the CPU's; nothing
   below relies on them.
2. The bound (:func:`game_bound`): the enclosure (1)-(2) of :mod:`exact.kernels.bounds`.
   For the strategies x, y returned, clamped at 0 and normalised,
   lo = min_j (x~^T A)_j / sum x~ <= w(A) <= max_i (A y~)_i / sum y~ = hi, with lo
   computed rounded down and hi rounded up (:mod:`exact.cuda.rounding`: every product,
   sum and quotient directed, the weights' sums bracketed both ways), so no rounding
   margin is needed: the bound is max(v - lo, hi - v) rounded up, plus
   eps max|A_ij| + 2^-1074 (one rounding of each entry, as the CPU bound covers).  NaN
   (no bound) for a NaN anywhere, an infinite sum, or weights that sum to zero.
3. The polish (:func:`certified_game`: the CPU's body
   :func:`exact.kernels.bounds.certified`): a game whose bound exceeds 1 + POLISH_ABOVE
   rounding margins is offered the re-solves of both strategies on their supports and,
   if still above, the strategies of the transposed game -A^T and their re-solves; each
   player's best guarantee is kept, and the midpoint of [lo, hi] becomes the value if its
   bound is smaller.  (1)-(2) hold for any probability vectors and any value, so the
   polish needs no proof of its own.

What the polish changes at N = 13 on an H200: benchmarks/RESULTS.md.
"""

from __future__ import annotations

import math

from numba import cuda, float64

from exact.cuda.rounding import add_rd, add_ru, div_rd, div_ru, mul_rd, mul_ru
from exact.kernels import bounds, tableau
from exact.kernels.bounds import gamma, rounding_margin
from exact.kernels.stack import KMAX
from exact.kernels.target import compile_bodies

#: The side of the scratch arrays (KMAX: exact.kernels.stack, the largest game).
SCRATCH = KMAX + 1
#: Columns of a support system's augmented matrix (z_S, w, right-hand side).
_SYSTEM_COLS = KMAX + 2
EPS = 2.0**-53
#: The smallest positive float64: covers an entry's rounding in the subnormal range.
SUBNORMAL = 5e-324

# The simplex (saddle test, 2 x 2 closed form, pivots, ratio test) and its tolerances:
# the CPU's source (exact.kernels.tableau), compiled here as device functions.
_GPU = compile_bodies(cuda.jit(device=True), tableau.BODIES)
_solve_unchecked = _GPU.solve_unchecked


@cuda.jit(device=True)
def solve_game(A, k, x, y, T, P, R, rowlab, collab, cmax):
    """The value of A[:k, :k] (row player maximises); strategies into x[:k], y[:k]; NaN
    on failure (exact.kernels.tableau.solve_unchecked, the tableau's rows not padded)."""
    return _solve_unchecked(A, k, x, y, T, P, R, rowlab, collab, cmax, k + 1)


@cuda.jit(device=True)
def enclosure(A, k, x, y):
    """(lo, hi, a): lo <= min_j (x~^T A)_j / sum x~ and hi >= max_i (A y~)_i / sum y~
    (exactly: every operation rounded outward), x~ = max(x, 0), y~ = max(y, 0), and
    a = max |A_ij|; NaN ends when there is no bound (module docstring)."""
    s_lo = 0.0
    s_hi = 0.0
    t_lo = 0.0
    t_hi = 0.0
    for i in range(k):
        xi = max(x[i], 0.0)
        yi = max(y[i], 0.0)
        s_lo = add_rd(s_lo, xi)
        s_hi = add_ru(s_hi, xi)
        t_lo = add_rd(t_lo, yi)
        t_hi = add_ru(t_hi, yi)
    if not (s_lo > 0.0 and t_lo > 0.0 and s_hi < math.inf and t_hi < math.inf):
        return math.nan, math.nan, math.nan
    a = 0.0
    hi = -math.inf
    for i in range(k):  # each row's sum rounded up, over the weights' sum
        r = 0.0
        for j in range(k):
            e = A[i, j]
            r = add_ru(r, mul_ru(e, max(y[j], 0.0)))
            a = max(a, abs(e))
        if not abs(r) < math.inf:
            return math.nan, math.nan, math.nan
        hi = max(hi, div_ru(r, t_lo if r >= 0.0 else t_hi))
    lo = math.inf
    for j in range(k):  # each column's sum rounded down, over the weights' sum
        c = 0.0
        for i in range(k):
            c = add_rd(c, mul_rd(max(x[i], 0.0), A[i, j]))
        if not abs(c) < math.inf:
            return math.nan, math.nan, math.nan
        lo = min(lo, div_rd(c, s_hi if c >= 0.0 else s_lo))
    return lo, hi, a


@cuda.jit(device=True)
def _bound_from(v, lo, hi, a):
    """max(v - lo, hi - v) rounded up plus one rounding of each entry; NaN if none."""
    gap = max(add_ru(v, -lo), add_ru(hi, -v))
    if gap != gap:
        return math.nan
    return add_ru(add_ru(gap, mul_ru(EPS, a)), SUBNORMAL)


@cuda.jit(device=True)
def game_bound(A, k, x, y, v):
    """A rigorous bound on |v - w(A*)| for every A* within eps |A_ij| of A (module
    docstring), from any strategies x, y; NaN when there is none."""
    lo, hi, a = enclosure(A, k, x, y)
    return _bound_from(v, lo, hi, a)


@cuda.jit(device=True)
def _error_from(k, v, lo, hi, a):
    """The bound of the polish (exact.kernels.bounds.error_from_guarantees' place):
    :func:`_bound_from`, whose directed rounding needs no margin in k."""
    return _bound_from(v, lo, hi, a)


@cuda.jit(device=True)
def _solve_on(A, k, x, y, scratch):
    """:func:`solve_game` on the thread's scratch (T, P, R, rowlab, collab, cmax)."""
    T, P, R, rowlab, collab, cmax = scratch
    return solve_game(A, k, x, y, T, P, R, rowlab, collab, cmax)


# The polish of near-degenerate games (exact.kernels.bounds): the CPU's source, compiled
# here as device functions, with this module's enclosure and bound in directed rounding.
_DEVICE = {"guarantees": enclosure, "error_from_guarantees": _error_from}
_POLISH = compile_bodies(
    cuda.jit(device=True),
    (gamma.py_func, rounding_margin.py_func, *bounds.BODIES[:-1]),
    helpers={**_DEVICE, "solve_unchecked": _solve_on},
)
_polished_body = _POLISH.polished


@cuda.jit(device=True)
def _polished(A, k, x, y, v, lo, hi, a, e, limit, scratch):
    """exact.kernels.bounds.polished on the thread's local arrays."""
    work = (
        cuda.local.array(KMAX, dtype=float64),  # bx, by: the best strategies so far
        cuda.local.array(KMAX, dtype=float64),
        cuda.local.array(2, dtype=float64),  # ends: their guarantees
        cuda.local.array((KMAX, KMAX), dtype=float64),  # B, the transposed game; tx, ty
        cuda.local.array(KMAX, dtype=float64),
        cuda.local.array(KMAX, dtype=float64),
        cuda.local.array(KMAX, dtype=float64),  # zx, zy: the re-solves
        cuda.local.array(KMAX, dtype=float64),
        cuda.local.array(KMAX, dtype=float64),  # S, T, M, z: a support system
        cuda.local.array(KMAX, dtype=float64),
        cuda.local.array((SCRATCH, _SYSTEM_COLS), dtype=float64),
        cuda.local.array(SCRATCH, dtype=float64),
    )
    return _polished_body(A, k, x, y, v, lo, hi, a, e, limit, work, scratch)


_certified = compile_bodies(
    cuda.jit(device=True),
    bounds.BODIES[-1:],
    helpers={
        **_DEVICE,
        "rounding_margin": _POLISH.rounding_margin,
        "polish_out_of_line": _polished,
    },
).certified


@cuda.jit(device=True)
def certified_game(A, k, x, y, v, T, P, R, rowlab, collab, cmax):
    """(value, bound) of a solved game, polished as exact.kernels.bounds.certified_game
    (its own source: module docstring); x and y are replaced by the strategies of a
    smaller bound."""
    return _certified(A, k, x, y, v, (T, P, R, rowlab, collab, cmax))


@cuda.jit(device=True)
def certified_solve(A, k, x, y, scratch):
    """exact.kernels.bounds.certified_solve on the device: (value, bound) of A[:k, :k] by
    :func:`solve_game` and :func:`certified_game`, on the thread's scratch, the tuple
    (T, P, R, rowlab, collab, cmax) of :func:`local_scratch`'s arrays."""
    T, P, R, rowlab, collab, cmax = scratch
    v = solve_game(A, k, x, y, T, P, R, rowlab, collab, cmax)
    return certified_game(A, k, x, y, v, T, P, R, rowlab, collab, cmax)


@cuda.jit
def enclosures(games, ks, xs, ys, out):
    """out[g] = (lo, hi, a) of :func:`enclosure` for game g (``games[g, :k, :k]``,
    k = ks[g]) and the strategies xs[g], ys[g]: one thread per game (for the tests)."""
    g = cuda.grid(1)
    if g < games.shape[0]:
        lo, hi, a = enclosure(games[g], ks[g], xs[g], ys[g])
        out[g, 0] = lo
        out[g, 1] = hi
        out[g, 2] = a


@cuda.jit
def bound_games(games, ks, xs, ys, vs, out):
    """out[g] = :func:`game_bound` of game g (``games[g, :k, :k]``, k = ks[g]) with the
    strategies xs[g], ys[g] and value vs[g]: one thread per game (for the tests)."""
    g = cuda.grid(1)
    if g < games.shape[0]:
        out[g] = game_bound(games[g], ks[g], xs[g], ys[g], vs[g])


@cuda.jit(device=True)
def _solve_one(games, ks, xs, ys, vs, bounds, g, polish):
    """Game g of a batch into vs[g], xs[g], ys[g] and its bound into bounds[g]: the simplex,
    then either :func:`certified_game` (``polish``) or the plain :func:`game_bound`."""
    T = cuda.local.array((SCRATCH, SCRATCH), dtype=float64)
    P = cuda.local.array(SCRATCH, dtype=float64)
    R = cuda.local.array(SCRATCH, dtype=float64)
    rowlab = cuda.local.array(SCRATCH, dtype=float64)
    collab = cuda.local.array(SCRATCH, dtype=float64)
    cmax = cuda.local.array(SCRATCH, dtype=float64)
    A = games[g]
    k = ks[g]
    v = solve_game(A, k, xs[g], ys[g], T, P, R, rowlab, collab, cmax)
    if polish:
        vs[g], bounds[g] = certified_game(A, k, xs[g], ys[g], v, T, P, R, rowlab, collab, cmax)
    else:
        vs[g] = v
        bounds[g] = game_bound(A, k, xs[g], ys[g], v)


@cuda.jit
def solve_games(games, ks, xs, ys, vs, bounds):
    """Solve game g (``games[g, :k, :k]``) into vs[g], xs[g], ys[g] and its bound into
    bounds[g]: one thread per game."""
    g = cuda.grid(1)
    if g < games.shape[0]:
        _solve_one(games, ks, xs, ys, vs, bounds, g, False)


@cuda.jit
def solve_certified_games(games, ks, xs, ys, vs, bounds):
    """As :func:`solve_games`, each game then polished and bounded by
    :func:`certified_game` (what the level kernels do): one thread per game."""
    g = cuda.grid(1)
    if g < games.shape[0]:
        _solve_one(games, ks, xs, ys, vs, bounds, g, True)
