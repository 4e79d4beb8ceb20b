"""The level kernels of both objectives on a CUDA device: one thread per kernel item.

An item is what it is on the CPU (:mod:`exact.kernels.points`, :mod:`exact.kernels.win`):
a prize set r and a solved pattern p.  Its thread builds the matrix of each upcard its
prize order turns up from the level below (device memory), solves it
(:func:`exact.cuda.game.solve_game`), bounds it (:func:`exact.cuda.game.certified_game`,
polishing a near-degenerate game as the CPU does) and
combines the games by the rules of :mod:`exact.kernels.combine` (the mean, the one known
upcard, or the chooser's max or min; the mean's rounding bound 3 gamma_k max |f_u|).
A points item writes one value; a win item every undecided reachable lead of its column,
bisecting for the leads that are a sure win or loss exactly as the CPU's ``_solve_item``
(f is non-decreasing in the lead).  Each thread writes its item's largest certified bound
into ``item_radius[t - start]`` (infinity for NaN) and, for the win objective, its games
into ``item_games``; the host takes the largest bound times 1 + 2^-20 (as the CPU does).
Nothing is shared between threads: item t writes only row r, column own_column[p].
"""

from __future__ import annotations

import math

from numba import cuda, float64

from exact.cuda.game import EPS, KMAX, SCRATCH, certified_game, solve_game
from exact.kernels.combine import (
    ASCENDING,
    CONTROLLED_BY_ME,
    CONTROLLED_BY_THEM,
    DESCENDING,
    RANDOM,
)

#: Threads per block of the level kernels.
THREADS = 64


@cuda.jit(device=True)
def _upcards(order, k):
    """combine.upcard_range."""
    if order == ASCENDING:
        return 0, 1
    if order == DESCENDING:
        return k - 1, k
    return 0, k


@cuda.jit(device=True)
def _initial(order):
    """combine.initial_acc."""
    if order == CONTROLLED_BY_ME:
        return -math.inf
    if order == CONTROLLED_BY_THEM:
        return math.inf
    return 0.0


@cuda.jit(device=True)
def _fold(order, acc, err, big, v, e):
    """combine.fold."""
    if order == RANDOM:
        return acc + v, err + e, max(big, abs(v))
    if order == CONTROLLED_BY_ME:
        acc = max(acc, v)
    elif order == CONTROLLED_BY_THEM:
        acc = min(acc, v)
    else:
        acc = v
    err = max(err, e) if e == e and err == err else math.nan
    return acc, err, big


@cuda.jit(device=True)
def _finish(order, acc, err, big, k, radius_below):
    """combine.finish (gamma_k = k eps / (1 - k eps))."""
    if order == RANDOM:
        gamma = k * EPS / (1.0 - k * EPS)
        return acc / k, err / k + radius_below + 3.0 * gamma * big
    return acc, err + radius_below


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
    for m in range(m_lo, m_hi):
        u = prize_card[r, m]
        rc = prize_child[r, m]
        for i in range(k):
            for j in range(k):
                A[i, j] = (
                    u * sign[p, i, j] + child_mirror[q, i, j] * below[rc, child_column[q, i, j]]
                )
        v = solve_game(A, k, x, y, T, P, R, rowlab, collab, cmax)
        v, e = certified_game(A, k, x, y, v, T, P, R, rowlab, collab, cmax)
        acc, err, big = _fold(order, acc, err, big, v, e)
    value, e = _finish(order, acc, err, big, k, radius_below)
    out[r - row0, own_column[p]] = value
    item_radius[t - start] = e if e == e else math.inf


@cuda.jit(device=True)
def _lead_value(A, x, y, T, P, R, rowlab, collab, cmax, g, p, r, lead):
    """win.lead_value: f(p, r, lead) clamped into [-1, 1], and its bound.  ``g``: the
    tuple (k, child, sign, prize_child, prize_card, below, below_column, below_mirror,
    offb, radius_below, order)."""
    k, child, sign, prize_child, prize_card, below, below_column, below_mirror, offb, rb, order = g
    acc = _initial(order)
    err = 0.0
    big = 0.0
    m_lo, m_hi = _upcards(order, k)
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
        v = solve_game(A, k, x, y, T, P, R, rowlab, collab, cmax)
        v, e = certified_game(A, k, x, y, v, T, P, R, rowlab, collab, cmax)
        acc, err, big = _fold(order, acc, err, big, v, e)
    v, e = _finish(order, acc, err, big, k, rb)
    return min(1.0, max(-1.0, v)), e


@cuda.jit(device=True)
def _store(out, w, col, lead, off, v, mirror):
    """win._store."""
    out[w, col, lead + off] = v
    if mirror:
        out[w, col, off - lead] = -v


@cuda.jit(device=True)
def _solve_lead(A, x, y, T, P, R, rowlab, collab, cmax, g, p, r, lead, out, w, col, off, mirror):
    """win._solve_lead: the value of one lead, stored; (value, bound)."""
    v, e = _lead_value(A, x, y, T, P, R, rowlab, collab, cmax, g, p, r, lead)
    _store(out, w, col, lead, off, v, mirror)
    return v, e


@cuda.jit
def win_items(
    start, stop, patterns, swap, own_column, limits, g, out, row0, off, item_games, item_radius
):
    """Items start..stop-1 of a win level (exact.kernels.win.solve_win_items' inputs, ``g``
    the tuple of :func:`_lead_value`): every undecided reachable lead of item t = (prize
    rank t // len(patterns), pattern patterns[t % len(patterns)]), bisecting for the
    blocks of sure wins and losses as win._solve_item does."""
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
    k = g[0]
    order = g[10]
    npat = patterns.shape[0]
    r = t // npat
    p = patterns[t % npat]
    mirror = order <= DESCENDING and swap[p] == p  # identical hands, a symmetric order
    lim = limits[r]
    first = 1 if mirror else -lim
    item_games[t - start] = 0
    item_radius[t - start] = 0.0
    if first > lim:
        return
    m_lo, m_hi = _upcards(order, k)
    per_value = m_hi - m_lo
    w = r - row0
    col = own_column[p]
    count = 0
    worst = 0.0
    a = first  # the smallest lead with f = 1 (lim + 1 if none)
    bb = lim + 1
    while a < bb:
        mid = (a + bb) // 2
        v, e = _solve_lead(
            A, x, y, T, P, R, rowlab, collab, cmax, g, p, r, mid, out, w, col, off, mirror
        )
        worst = max(worst, e) if e == e else math.inf
        count += per_value
        if v >= 1.0:
            bb = mid
        else:
            a = mid + 1
    win_from = a
    a = first - 1  # the largest lead below win_from with f = -1 (first - 1 if none)
    bb = win_from - 1
    while a < bb:
        mid = (a + bb + 1) // 2
        v = out[w, col, mid + off]
        if v != v:
            v, e = _solve_lead(
                A, x, y, T, P, R, rowlab, collab, cmax, g, p, r, mid, out, w, col, off, mirror
            )
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
            v, e = _solve_lead(
                A, x, y, T, P, R, rowlab, collab, cmax, g, p, r, lead, out, w, col, off, mirror
            )
            worst = max(worst, e) if e == e else math.inf
            count += per_value
    item_games[t - start] = count
    item_radius[t - start] = worst
