"""The win/loss objective: bottom-up DP over (canonical subgame, lead), in floating point.

The objective
-------------
The paper optimises the expected point difference (Rhoads & Bartholdi 2012, sec 3); a
player who only cares about winning gets payoff +1 for ending with more points, 0 for a
tie and -1 otherwise (zero-sum; OpenSpiel's goofspiel ``returns_type=win_loss``).  The
state gains my current lead L (my points minus theirs):

    f(V, Y, P, L)   = sign(L)                                   if P is empty
    f(V, Y, P, L)   = sign(L)                                   if |L| > sum(P) (decided)
    f(V, Y, P, L)   = (1/k) sum_{u in P} f_u(V, Y, P, L)        otherwise
    f_u(V, Y, P, L) = value of the k x k game
                      X_ij = f(V - V_i, Y - Y_j, P - u, L + u sign(V_i - Y_j))

Paper sec 5 notes that the points-optimal strategies are not optimal for winning; this
module computes the ones that are.

Reductions
----------
- The canonical encoding of :mod:`exact.game.encoding` applies unchanged: a relabelling that
  preserves the order of V u Y changes no comparison, hence no lead and no matrix.
- Antisymmetry with the lead: exchanging the players turns X into -X^T and L into -L, so
  f(Y, V, P, L) = -f(V, Y, P, -L).  Only one of each pair (pattern p, L) ~ (swap p, -L)
  is solved and kept: the record patterns p <= swap p, every lead (the columns of
  :class:`exact.game.encoding.Columns`); a mirror image is read as -f(column, -L).
  Identical hands are worth 0 at L = 0 (and only there).
- Monotonicity: the final payoff sign(L + later points) is non-decreasing in L, and so is
  the value of every matrix game built from non-decreasing entries; by induction f is
  non-decreasing in L.  So for each (P, pattern) the leads split into a block where f = -1
  (a sure loss), a middle block, and a block where f = 1 (a sure win).  The kernel finds
  both thresholds by bisection and solves only the middle block.  (A value of exactly 1
  needs a row of child values exactly 1, a pure saddle point, which the matrix-game
  kernel returns exactly; values are clamped into [-1, 1].)
- Reachable leads only: in N-card GOPS started with a lead in [-H, H] (H, the *handicap*,
  is 0 for the real game), |L| <= H + (points already played) = H + T - sum(P) with
  T = N(N+1)/2.  Leads beyond that are never looked up and are not solved.

Storage
-------
Level k is a float64 array ``values[prize rank, column, L + offset_k]`` with
``offset_k = min(max sum of a k-prize set, H + T - min sum of a k-prize set)``: every
lead that is both undecided and reachable at level k.  Entries that are decided hold
sign(L); entries not reachable from this prize set hold NaN (a lookup of one would show).
A lead beyond the offset of the level below is decided, and valued sign(L) directly.
"""

from __future__ import annotations

import math
import time
from collections import namedtuple
from math import comb

import numba
import numpy as np
from numba import prange

from exact.game.encoding import Level, build_levels, pattern_count
from exact.game.rules import prize_total
from exact.kernels.bounds import certified_solve
from exact.kernels.combine import RANDOM, finish, fold, initial_acc, mirrored, upcard_range
from exact.kernels.matrix_game import NO_REFCOUNT, game_buffers
from exact.kernels.points import block_bounds
from exact.kernels.target import compile_bodies


def prize_sums(level: Level) -> np.ndarray:
    """sum(P) for each prize set of the level, by prize rank (int64)."""
    masks = level.prize_masks
    out = np.zeros(masks.shape[0], dtype=np.int64)
    for c in range(level.n):
        out += ((masks >> c) & 1) * (c + 1)
    return out


def lead_offset(n: int, k: int, handicap: int = 0) -> int:
    """Largest |L| stored at level k: undecided (<= max sum(P)) and reachable.

    >>> [lead_offset(5, k) for k in range(6)]
    [0, 5, 9, 9, 5, 0]
    """
    top = sum(range(n - k + 1, n + 1))  # largest sum of a k-prize set
    bottom = k * (k + 1) // 2  # smallest
    return min(top, handicap + prize_total(n) - bottom)


def win_cells(n: int, top: int | None = None, handicap: int = 0) -> int:
    """Entries of the level arrays 0..top (default n): the size of a win solve.

    >>> win_cells(10)
    151583828
    """
    top = n if top is None else top
    return sum(
        comb(n, k) * pattern_count(n, k) * (2 * lead_offset(n, k, handicap) + 1)
        for k in range(top + 1)
    )


def lead_limits(level: Level, handicap: int = 0) -> np.ndarray:
    """Per prize rank, the largest |L| to solve: min(sum P, H + T - sum P)."""
    s = prize_sums(level)
    return np.minimum(s, handicap + prize_total(level.n) - s)


def empty_level(
    level: Level, handicap: int = 0, rows: slice = slice(None), antisymmetric: bool = True
) -> np.ndarray:
    """A level's array before solving (its prize sets ``rows``, by default all; its columns
    ``level.columns(antisymmetric)``): sign(L) where decided, NaN elsewhere.

    Identical hands at L = 0 get their value 0 here (antisymmetry; not under a controlled
    prize order, whose chooser has the edge there too).
    """
    off = lead_offset(level.n, level.k, handicap)
    leads = np.arange(-off, off + 1)
    s = prize_sums(level)[rows]
    decided = np.abs(leads)[None, :] > s[:, None]  # (prize sets, leads)
    row = np.where(decided, np.sign(leads)[None, :].astype(np.float64), np.nan)
    columns = level.columns(antisymmetric)
    out = np.repeat(row[:, None, :], columns.count, axis=1)
    if antisymmetric or level.k == 0:  # the empty game at L = 0 is over: sign(0) = 0
        self_swapped = np.flatnonzero(columns.patterns == level.swap[columns.patterns])
        out[:, self_swapped, off] = 0.0
    return out


#: The read-only inputs of one level's games, passed whole to the compiled functions: the
#: hand size k, the level's pattern tables (``child``, ``sign``, ``prize_child``,
#: ``prize_card``), the level below with its columns (``below``, ``below_column``,
#: ``below_mirror``) and lead offset ``offb``, its certified radius, and the prize order's
#: code.
WinGames = namedtuple(
    "WinGames",
    "k child sign prize_child prize_card below below_column below_mirror offb radius_below order",
)


def lead_value(A, x, y, scratch, g, p, r, lead):
    """f(pattern p, prize set r, lead) of the level ``g`` (a :data:`WinGames`): the mean
    over the upcards of the game values (or, under a known prize order, the one game of
    its upcard; under a controlled one, the chooser's max or min: exact.game.orders), and
    a certified bound on its error given the bound ``g.radius_below`` of the level below
    (as in :mod:`exact.kernels.points`: decided entries are exact, the others within
    radius_below).

    Child leads beyond the offset ``g.offb`` of the level below are decided: sign(L').  A
    child c is read from its column of the level below (``below_column``,
    ``below_mirror``): f(c, L') = below[column, L'], or -below[column, -L'] for a mirror
    image (f(swap p, L) = -f(p, -L); the offsets are symmetric in L).  ``scratch``: the
    target's scratch of its solver (exact.kernels.bounds.certified_solve).
    The result is clamped into [-1, 1] (see the module docstring), which moves it towards
    the exact value (in [-1, 1]), never away.
    """
    k, child, sign, prize_child, prize_card, below, below_column, below_mirror, offb, rb, order = g
    acc = initial_acc(order)  # exact.kernels.combine
    err = 0.0
    big = 0.0
    m_lo, m_hi = upcard_range(order, k)
    for m in range(m_lo, m_hi):
        u = prize_card[r, m]
        rc = prize_child[r, m]
        for i in range(k):
            for j in range(k):
                lc = lead + u * sign[p, i, j]
                if lc > offb:
                    A[i, j] = 1.0
                elif lc < -offb:
                    A[i, j] = -1.0
                else:
                    c = child[p, i, j]
                    if below_mirror[c] > 0:
                        A[i, j] = below[rc, below_column[c], lc + offb]
                    else:
                        A[i, j] = -below[rc, below_column[c], offb - lc]
        v, e = certified_solve(A, k, x, y, scratch)
        acc, err, big = fold(order, acc, err, big, v, e)
    v, e = finish(order, acc, err, big, k, rb)
    return min(1.0, max(-1.0, v)), e


def _store(out, r, col, lead, off, v, mirror):
    """f(p, L) = v in p's column ``col``; with ``mirror`` (identical hands under a symmetric
    order, which are their own mirror image) also f(p, -L) = -v."""
    out[r, col, lead + off] = v
    if mirror:
        out[r, col, off - lead] = -v


def _solve_lead(A, x, y, scratch, g, p, r, lead, out, w, col, off, mirror):
    """:func:`lead_value` of (p, r, lead), stored at row ``w``, column ``col``; returns
    (value, bound)."""
    v, e = lead_value(A, x, y, scratch, g, p, r, lead)
    _store(out, w, col, lead, off, v, mirror)
    return v, e


def _solve_item(A, x, y, scratch, g, p, r, first, lim, out, w, col, off, mirror):
    """Every lead first..lim of item (p, r) into row ``w``, column ``col`` of ``out``;
    returns (games solved, largest bound).

    Bisect for the first lead with f = 1 and the last with f = -1 (f is non-decreasing in
    the lead), fill those blocks, solve the leads between.  A filled value inherits the
    bound of the solved threshold: if the solved f(L0) = 1 is within e of the exact
    f*(L0), then for L >= L0, 1 >= f*(L) >= f*(L0) >= 1 - e (f* is non-decreasing in L,
    module docstring), and alike for the block of -1.
    """
    m_lo, m_hi = upcard_range(g[10], g[0])  # (the order, k)
    per_value = m_hi - m_lo
    count = 0
    worst = 0.0
    # Smallest lead with f = 1 (lim + 1 if none): f < 1 below a, f = 1 from b on.
    a = first
    bb = lim + 1
    while a < bb:
        mid = (a + bb) // 2
        v, e = _solve_lead(A, x, y, scratch, g, p, r, mid, out, w, col, off, mirror)
        worst = max(worst, e) if e == e else math.inf
        count += per_value
        if v >= 1.0:
            bb = mid
        else:
            a = mid + 1
    win_from = a
    # Largest lead below win_from with f = -1 (first - 1 if none).
    a = first - 1
    bb = win_from - 1
    while a < bb:
        mid = (a + bb + 1) // 2
        v = out[w, col, mid + off]
        if v != v:
            v, e = _solve_lead(A, x, y, scratch, g, p, r, mid, out, w, col, off, mirror)
            worst = max(worst, e) if e == e else math.inf
            count += per_value
        if v <= -1.0:
            a = mid
        else:
            bb = mid - 1
    lose_to = a
    for lead in range(first, lose_to + 1):
        _store(out, w, col, lead, off, -1.0, mirror)
    for lead in range(win_from, lim + 1):
        _store(out, w, col, lead, off, 1.0, mirror)
    for lead in range(lose_to + 1, win_from):
        if out[w, col, lead + off] != out[w, col, lead + off]:
            v, e = _solve_lead(A, x, y, scratch, g, p, r, lead, out, w, col, off, mirror)
            worst = max(worst, e) if e == e else math.inf
            count += per_value
    return count, worst


#: The bodies above: one source for the CPU (compiled here, under their own names) and
#: the GPU (exact.cuda.levels), each with its target's certified_solve.
BODIES = (lead_value, _store, _solve_lead, _solve_item)
_CPU = compile_bodies(numba.njit(cache=True, nogil=True, **NO_REFCOUNT), BODIES)
lead_value = _CPU.lead_value
_store = _CPU._store
_solve_lead = _CPU._solve_lead
_solve_item = _CPU._solve_item


@numba.njit(cache=True, nogil=True, parallel=True)
def solve_win_items(
    start, stop, patterns, swap, own_column, limits, g, out, row0, off, games, nthreads, radius
):
    """Solve items start..stop-1 of the level ``g`` (a :data:`WinGames`): item t = (prize
    rank t // len(patterns), pattern patterns[t % len(patterns)]), every undecided
    reachable lead (:func:`_solve_item`); row ``r - row0`` of ``out`` holds prize set r,
    column ``own_column[p]`` pattern p.  Identical hands under a symmetric order solve the
    leads L >= 1 and get f(p, -L) = -f(p, L).  ``games[b]`` counts the matrix games solved
    by block b, ``radius[b]`` bounds the error of every value it wrote.
    """
    npat = patterns.shape[0]
    total = stop - start
    nblocks = min(total, 64 * nthreads)
    mirror = mirrored(g.order)  # identical hands mirror their own values
    for b in prange(nblocks):
        A, x, y = game_buffers(g.k)
        count = 0
        worst = 0.0
        lo, hi = block_bounds(start, total, nblocks, b)
        for t in range(lo, hi):
            r = t // npat
            p = patterns[t % npat]
            selfmirror = mirror and swap[p] == p
            lim = limits[r]
            first = 1 if selfmirror else -lim
            if first > lim:
                continue
            c, e = _solve_item(
                A, x, y, None, g, p, r, first, lim, out, r - row0, own_column[p], off, selfmirror
            )
            count += c
            worst = max(worst, e)
        games[b] = count
        radius[b] = worst * (1.0 + 2.0**-20)


def solved_patterns(level: Level, order: int = RANDOM) -> np.ndarray:
    """The patterns of a level's items: p <= swap p under a symmetric prize order (one of
    each mirror pair: its columns), every pattern under a controlled one."""
    if mirrored(order):
        return level.record_patterns
    return np.arange(level.patterns, dtype=np.int32)


def level_items(level: Level, order: int = RANDOM) -> int:
    """Kernel items (prize set, solved pattern) of a level."""
    return level.prize_sets * int(solved_patterns(level, order).shape[0])


def solve_win_level(
    level: Level,
    below: np.ndarray,
    out: np.ndarray,
    handicap: int,
    start: int,
    stop: int,
    radius_below: float = 0.0,
    row0: int = 0,
    order: int = RANDOM,
) -> tuple[int, float]:
    """Solve items [start, stop) of ``level`` into ``out``; returns the matrix games solved
    and a certified bound on the error of every value written, given the bound
    ``radius_below`` of the level below.  ``out`` holds the level's prize sets from
    ``row0`` on (all of them by default).  ``order``: the code of the prize order
    (exact.game.orders)."""
    if stop <= start:
        return 0, 0.0
    nthreads = numba.get_num_threads()
    games = np.zeros(min(stop - start, 64 * nthreads), dtype=np.int64)
    radius = np.zeros(games.shape[0])
    antisymmetric = mirrored(order)
    children = level.below_columns(antisymmetric)
    g = WinGames(
        level.k,
        level.child,
        level.sign,
        level.prize_child,
        level.prize_card,
        below,
        children.column,
        children.mirror,
        lead_offset(level.n, level.k - 1, handicap),
        float(radius_below),
        order,
    )
    solve_win_items(
        start,
        stop,
        solved_patterns(level, order),
        level.swap,
        level.columns(antisymmetric).column,
        lead_limits(level, handicap),
        g,
        out,
        row0,
        lead_offset(level.n, level.k, handicap),
        games,
        nthreads,
        radius,
    )
    return int(games.sum()), float(radius.max())


def subgame_count(levels, handicap: int = 0) -> int:
    """Canonical (pattern, P, L) that are undecided and reachable, over all levels."""
    total = 0
    for level in levels:
        leads = 2 * lead_limits(level, handicap) + 1
        total += int(leads.sum()) * level.patterns  # every pattern, kept or mirrored
    return total


def warm_up() -> float:
    """Compile (or load from cache) the win kernel on a tiny game; returns seconds spent."""
    t0 = time.perf_counter()
    levels = build_levels(2)
    below = empty_level(levels[0])
    for level in levels[1:]:
        out = empty_level(level)
        solve_win_level(level, below, out, 0, 0, level_items(level))
        below = out
    return time.perf_counter() - t0
