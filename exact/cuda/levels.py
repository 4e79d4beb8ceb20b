"""The level kernels of both objectives on a CUDA device: one thread per kernel item.

An item is what it is on the CPU (:mod:`exact.kernels.points`, :mod:`exact.kernels.win`):
a prize set r and a solved pattern p.  Its thread builds the matrix of each upcard its
prize order turns up from the level below (device memory), solves it
(:func:`exact.cuda.game.solve_game`), bounds it (:func:`exact.cuda.game.certified_game`,
polishing a near-degenerate game as the CPU does) and
combines the games by the rules of :mod:`exact.kernels.combine` (the mean, the one known
upcard, or the chooser's max or min; the mean's rounding bound 3 gamma_k max |f_u|).
A points item writes one value; a win item every undecided reachable lead of its column,
bisecting for the leads that are a sure win or loss by the CPU's own ``_solve_item``
(f is non-decreasing in the lead).  Each thread writes its item's largest certified bound
into ``item_radius[t - start]`` (infinity for NaN) and its games into ``item_games``;
the host takes the largest bound times 1 + 2^-20 (as the CPU does).
Nothing is shared between threads: item t writes only row r, column own_column[p].
"""

from __future__ import annotations

import math

from numba import cuda, float64

from exact.cuda.game import KMAX, SCRATCH, certified_solve
from exact.kernels import combine, points, win
from exact.kernels.bounds import gamma
from exact.kernels.target import compile_bodies

#: Threads per block of the level kernels.
THREADS = 64

# How an item's games combine (exact.kernels.combine, with the gamma_k of its mean's
# rounding bound) and a win item's leads (exact.kernels.win): the CPU's source, compiled
# here as device functions, each game solved and bounded by exact.cuda.game.
_GPU = compile_bodies(
    cuda.jit(device=True),
    (gamma.py_func, *combine.BODIES, *points.BODIES, *win.BODIES),
    helpers={"certified_solve": certified_solve},
)
_mirrored = _GPU.mirrored
_upcards = _GPU.upcard_range
_initial = _GPU.initial_acc
_fold = _GPU.fold
_finish = _GPU.finish
_fill_solved = _GPU.fill_solved
_solve_item = _GPU._solve_item


@cuda.jit
def points_items(
    start,
    stop,
    k,
    canon,
    child_column,
    child_mirror,
    sign,
    prize_child,
    prize_card,
    below,
    radius_below,
    order,
    own_column,
    out,
    row0,
    item_games,
    item_radius,
):
    """Items start..stop-1 of a points level (exact.kernels.points.solve_items' inputs):
    item t = (prize rank t // len(canon), pattern canon[t % len(canon)])."""
    t = start + cuda.grid(1)
    if t >= stop:
        return
    A = cuda.local.array((KMAX, KMAX), dtype=float64)
    x = cuda.local.array(KMAX, dtype=float64)
    y = cuda.local.array(KMAX, dtype=float64)
    T = cuda.local.array((SCRATCH, SCRATCH), dtype=float64)
    P = cuda.local.array(SCRATCH, dtype=float64)
    R = cuda.local.array(SCRATCH, dtype=float64)
    rowlab = cuda.local.array(SCRATCH, dtype=float64)
    collab = cuda.local.array(SCRATCH, dtype=float64)
    cmax = cuda.local.array(SCRATCH, dtype=float64)
    ncanon = canon.shape[0]
    r = t // ncanon
    q = t % ncanon
    p = canon[q]
    m_lo, m_hi = _upcards(order, k)
    acc = _initial(order)
    err = 0.0
    big = 0.0
    scratch = (T, P, R, rowlab, collab, cmax)
    for m in range(m_lo, m_hi):
        _fill_solved(
            A, k, q, p, r, m, sign, prize_child, prize_card, below, child_column, child_mirror
        )
        v, e = certified_solve(A, k, x, y, scratch)
        acc, err, big = _fold(order, acc, err, big, v, e)
    value, e = _finish(order, acc, err, big, k, radius_below)
    out[r - row0, own_column[p]] = value
    item_games[t - start] = m_hi - m_lo
    item_radius[t - start] = e if e == e else math.inf


@cuda.jit
def win_items(
    start, stop, patterns, swap, own_column, limits, g, off, out, row0, item_games, item_radius
):
    """Items start..stop-1 of a win level (exact.kernels.win.solve_win_items' inputs, ``g``
    the tuple of exact.kernels.win.WinGames' fields): every undecided reachable lead of
    item t = (prize rank t // len(patterns), pattern patterns[t % len(patterns)]), by the
    CPU's own win._solve_item (bisecting for the blocks of sure wins and losses)."""
    t = start + cuda.grid(1)
    if t >= stop:
        return
    A = cuda.local.array((KMAX, KMAX), dtype=float64)
    x = cuda.local.array(KMAX, dtype=float64)
    y = cuda.local.array(KMAX, dtype=float64)
    T = cuda.local.array((SCRATCH, SCRATCH), dtype=float64)
    P = cuda.local.array(SCRATCH, dtype=float64)
    R = cuda.local.array(SCRATCH, dtype=float64)
    rowlab = cuda.local.array(SCRATCH, dtype=float64)
    collab = cuda.local.array(SCRATCH, dtype=float64)
    cmax = cuda.local.array(SCRATCH, dtype=float64)
    npat = patterns.shape[0]
    r = t // npat
    p = patterns[t % npat]
    mirror = _mirrored(g[10]) and swap[p] == p  # identical hands, a symmetric order
    lim = limits[r]
    first = 1 if mirror else -lim
    item_games[t - start] = 0
    item_radius[t - start] = 0.0
    if first > lim:
        return
    scratch = (T, P, R, rowlab, collab, cmax)
    count, worst = _solve_item(
        A, x, y, scratch, g, p, r, first, lim, out, r - row0, own_column[p], off, mirror
    )
    item_games[t - start] = count
    item_radius[t - start] = worst
