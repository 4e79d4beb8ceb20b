"""Bottom-up dynamic programming over canonical subgames, in floating point.

The recursion (Rhoads & Bartholdi 2012, sec 3): with k cards in each hand,

    f(V, Y, P)   = (1/k) * sum_{u in P} f_u(V, Y, P)
    f_u(V, Y, P) = value of the k x k game X_ij = u * sign(V_i - Y_j) + f(V - V_i, Y - Y_j, P - u)

evaluated on canonical subgames (see :mod:`exact.game.encoding`): level k is a float64 array
``values[k][prize rank, column]`` and is computed from level k - 1 only.  Only one
pattern of each pair {p, swap(p)} is solved and kept (its column,
:class:`exact.game.encoding.Columns`); a child is read as mirror * values[column], and the
one pattern of identical hands keeps 0 (antisymmetry).

Prize orders (:mod:`exact.game.orders`): a known order solves only the game of the upcard
it turns up, f = f_u; a controlled one takes the chooser's max (or min) of the f_u over
every pattern, there being no antisymmetry.  The paper's mean is the default.

The level kernel runs over "items" (prize rank r, canonical pattern q) in parallel blocks
(numba ``prange``); the Python driver feeds it chunks of items so that it can show progress.

Certified radius.  In the same pass the kernel proves a bound r_k >= |f_float - f_exact|
for every subgame of the level, from the radius r_{k-1} of the level below: each matrix
game's value (the solver's, or its polish: ``certified_game``) is within its bound plus
r_{k-1} of the exact game's value (:mod:`exact.kernels.bounds`), and the mean over the k
upcards adds its own rounding, at most 3 gamma_k max_m |v_m| (Higham sec 3.1, plus the
division by k).  An item's bound is the mean of its games' bounds plus those two terms;
r_k is the largest over the level, times 1 + 2^-20 (far above the relative rounding, at
most gamma_k, of these sums of nonnegative terms).  A NaN makes the bound infinite, which
the drivers refuse.
"""

from __future__ import annotations

import time
from collections import namedtuple

import numba
import numpy as np
from numba import prange

from exact.game.encoding import Level, build_levels
from exact.kernels.bounds import certified_game
from exact.kernels.combine import (  # the order codes and upcard_range: re-exported
    ASCENDING,
    CONTROLLED_BY_ME,
    CONTROLLED_BY_THEM,
    DESCENDING,
    RANDOM,
    finish,
    fold,
    initial_acc,
    mirrored,
    upcard_range,
)
from exact.kernels.matrix_game import NO_REFCOUNT, game_buffers, solve_game_unchecked
from exact.kernels.target import compile_bodies

__all__ = [
    "ASCENDING",
    "CONTROLLED_BY_ME",
    "CONTROLLED_BY_THEM",
    "DESCENDING",
    "RANDOM",
    "block_bounds",
    "fill_matrix",
    "level_items",
    "solve_items",
    "solve_level",
    "solved_patterns",
    "upcard_range",
    "warm_up",
]


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def fill_matrix(A, k, p, r, m, child, sign, prize_child, prize_card, below, column, mirror):
    """A[i, j] = u * sign(V_i - Y_j) + f(child pattern c, P - u), u the m-th card of P, with
    f(c) = mirror[c] * below[P - u, column[c]] (``column``, ``mirror``: the columns of the
    level below, exact.game.encoding.Columns; the product is exact, +-f)."""
    u = prize_card[r, m]
    row = below[prize_child[r, m]]
    for i in range(k):
        for j in range(k):
            c = child[p, i, j]
            A[i, j] = u * sign[p, i, j] + mirror[c] * row[column[c]]


def fill_solved(A, k, q, p, r, m, sign, prize_child, prize_card, below, child_column, child_mirror):
    """:func:`fill_matrix` for the q-th solved pattern p of the level, reading the child
    columns already composed (:func:`child_columns`): the same entries, bit for bit, with
    two fewer scattered reads each."""
    u = prize_card[r, m]
    row = below[prize_child[r, m]]
    for i in range(k):
        for j in range(k):
            A[i, j] = u * sign[p, i, j] + child_mirror[q, i, j] * row[child_column[q, i, j]]


#: The body above: one source for the CPU (compiled here, under its own name, inlined into
#: solve_items) and the GPU (exact.cuda.levels.points_items).
BODIES = (fill_solved,)
fill_solved = compile_bodies(
    numba.njit(cache=True, nogil=True, inline="always", **NO_REFCOUNT), BODIES
).fill_solved


def child_columns(level: Level, patterns: np.ndarray, antisymmetric: bool):
    """(column, mirror), both (len(patterns), k, k): the column of the level below that
    holds the child of pattern patterns[q] after bids (i, j), and its sign
    (exact.game.encoding.Columns composed with ``level.child``).  The last level asked
    for is kept (one level's table: 5 k^2 bytes a pattern, 0.25 GB at N = 15, k = 10)."""
    key = (antisymmetric, patterns.shape[0])
    if _CHILD_COLUMNS[0] is not level or _CHILD_COLUMNS[1] != key:
        _CHILD_COLUMNS[:] = [None, None, None]  # free the previous level's table first
        below = level.below_columns(antisymmetric)
        child = level.child[patterns]
        _CHILD_COLUMNS[:] = [level, key, (below.column[child], below.mirror[child])]
    return _CHILD_COLUMNS[2]


#: [level, (antisymmetric, solved patterns), (column, mirror)] of the last level asked for
_CHILD_COLUMNS: list = [None, None, None]


@numba.njit(cache=True, nogil=True)
def block_bounds(start, total, nblocks, b):
    """Items [lo, hi) of block b when ``total`` items from ``start`` are cut into
    ``nblocks`` nearly equal parallel blocks (the prange kernels of float_dp, win_dp and
    win_exploit)."""
    return start + total * b // nblocks, start + total * (b + 1) // nblocks


#: The read-only inputs of one level's games, passed whole to :func:`solve_items`: the hand
#: size k, the solved patterns ``canon``, their children's columns of the level below
#: (``child_column``, ``child_mirror``: :func:`child_columns`), the level's ``sign``,
#: ``prize_child`` and ``prize_card`` tables, the level below, its certified radius and
#: the prize order's code.
PointsGames = namedtuple(
    "PointsGames",
    "k canon child_column child_mirror sign prize_child prize_card below radius_below order",
)


@numba.njit(cache=True, nogil=True, parallel=True)
def solve_items(start, stop, g, own_column, out, row0, nthreads, radius):
    """Solve items start..stop-1 of the level ``g`` (a :data:`PointsGames`) into ``out``
    (prize-set-major values; row
    ``r - row0`` of ``out`` holds prize set r, column ``own_column[p]`` pattern p); block b
    writes its largest certified item error into ``radius[b]`` (module docstring).

    Item t is (prize rank t // len(canon), pattern canon[t % len(canon)]).  Each block of
    items gets its own scratch buffers, so the blocks run in parallel without sharing.

    Order: the items of one prize set r read the k rows below[prize_child[r, m]], one
    per upcard m.  A block goes through its items of each r one upcard at a time, so a
    single row of the level below is in use at once and stays in cache (measured against
    item by item in benchmarks/RESULTS.md).  Each item still sums its k game values in the
    order m = 0..k-1, so the values do not depend on the loop order.
    """
    k = g.k
    canon = g.canon
    order = g.order
    ncanon = canon.shape[0]
    total = stop - start
    nblocks = min(total, 64 * nthreads)
    m_lo, m_hi = upcard_range(order, k)
    for b in prange(nblocks):
        A, x, y = game_buffers(k)
        lo, hi = block_bounds(start, total, nblocks, b)
        acc = np.full(hi - lo, initial_acc(order))  # exact.kernels.combine: fold, finish
        err = np.zeros(hi - lo)  # sum (random) or largest of the games' value errors
        big = np.zeros(hi - lo)  # largest |game value| of each item
        worst = 0.0
        seg = lo
        while seg < hi:  # the block's items of prize set r: seg..seg_end-1
            r = seg // ncanon
            seg_end = min(hi, (r + 1) * ncanon)
            for m in range(m_lo, m_hi):
                for t in range(seg, seg_end):
                    q = t % ncanon
                    fill_solved(
                        A,
                        k,
                        q,
                        canon[q],
                        r,
                        m,
                        g.sign,
                        g.prize_child,
                        g.prize_card,
                        g.below,
                        g.child_column,
                        g.child_mirror,
                    )
                    v, e = certified_game(A, k, x, y, solve_game_unchecked(A, k, x, y))
                    i = t - lo
                    acc[i], err[i], big[i] = fold(order, acc[i], err[i], big[i], v, e)
            for t in range(seg, seg_end):
                p = canon[t % ncanon]
                i = t - lo
                value, e = finish(order, acc[i], err[i], big[i], k, g.radius_below)
                out[r - row0, own_column[p]] = value  # its mirror image: -value, not kept
                worst = max(worst, e) if e == e else np.inf
            seg = seg_end
        radius[b] = worst * (1.0 + 2.0**-20)


def solved_patterns(level: Level, order: int = RANDOM) -> np.ndarray:
    """The patterns an item solves (int32): one of each antisymmetric pair, or, for a
    controlled prize order (no antisymmetry), every pattern, identical hands included."""
    if mirrored(order):
        return level.canonical_patterns
    return np.arange(level.patterns, dtype=np.int32)


def level_items(level: Level, order: int = RANDOM) -> int:
    """Number of kernel items (prize set, solved pattern) of a level."""
    return level.prize_sets * int(solved_patterns(level, order).shape[0])


def solve_level(
    level: Level,
    below: np.ndarray,
    out: np.ndarray,
    start: int,
    stop: int,
    radius_below: float = 0.0,
    row0: int = 0,
    order: int = RANDOM,
) -> float:
    """Solve items [start, stop) of ``level`` into ``out`` from the level below; returns a
    certified bound on the error of every value written, given the bound ``radius_below``
    of the level below (module docstring).  ``out`` holds the level's prize sets from
    ``row0`` on (all of them by default; a part of a level on a cluster, exact.dp.cluster).

    Both arrays are passed to the kernel as plain writable ndarrays: numba compiles a
    separate specialisation for read-only arrays whose floating-point code differs in the
    last bit, and a store (memory-mapped) solve must give the same bits as an in-memory
    one.  Pass a writable ``below`` to avoid a copy on every call.  ``order``: the code of
    the prize order (:mod:`exact.game.orders`; default the paper's random order).
    """
    below = np.asarray(below)
    if not below.flags.writeable:
        below = below.copy()
    out = np.asarray(out)
    if stop <= start:
        return 0.0
    nthreads = numba.get_num_threads()
    radius = np.zeros(min(stop - start, 64 * nthreads))
    antisymmetric = mirrored(order)
    solved = solved_patterns(level, order)
    column, mirror = child_columns(level, solved, antisymmetric)
    g = PointsGames(
        level.k,
        solved,
        column,
        mirror,
        level.sign,
        level.prize_child,
        level.prize_card,
        below,
        float(radius_below),
        order,
    )
    solve_items(start, stop, g, level.columns(antisymmetric).column, out, row0, nthreads, radius)
    return float(radius.max())


def warm_up() -> float:
    """Compile (or load from cache) the kernels on a tiny game; returns seconds spent."""
    t0 = time.perf_counter()
    below = np.zeros((1, 1))
    for level in build_levels(2)[1:]:
        out = np.zeros((level.prize_sets, level.columns().count))
        solve_level(level, below, out, 0, level_items(level))
        below = out
    return time.perf_counter() - t0
