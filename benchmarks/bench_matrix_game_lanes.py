"""An experiment: the simplex of exact.kernels.matrix_game run on many games at once,
one game per SIMD lane, bit for bit.

The level kernels solve one k x k game after another; each pivot updates a (k+1) x (k+1)
tableau, 2 to 3 AVX-512 vectors a row.  Here L games (lanes) share one tableau array
T[i * (k+1) + j, lane], so that the update of all L tableaux, T -= C * P, is one loop over
the lanes that LLVM vectorises 8 lanes wide; each lane does exactly the operations of
``solve_game_unchecked`` (the saddle test, the scaled tableau, Dantzig's rule with the
largest-pivot tie break, the same read-off), so values and strategies are identical to
the last bit; a lane that would leave the common path (a refused pivot, Bland's rule
after 8k + 16 pivots, an empty strategy) hands its game to ``solve_game_unchecked`` instead.
A lane whose game ends takes the next game at once (no lane waits for the others).

    python benchmarks/bench_matrix_game_lanes.py [--n 10] [--levels 6 7 8]
        [--prize-sets 20] [--lanes 16 32] [--repeats 5]

prints, per level of the N-card game (the real games of its first prize sets, in the
kernel's order) and for random games, whether every value and strategy is identical, and
the microseconds a game against ``solve_game_unchecked`` one game after another (best of the
repeats, interleaved).  What it measured is in benchmarks/RESULTS.md ("Cheaper matrix
games: one game per SIMD lane"): identical bits on every game, and no faster (0.83 to
1.12 times the time of one game after another on a quiet machine): the update of the
tableaux is vectorised, but each lane's own work around it (its entering column and pivot
row, the decisions, a new game's saddle test and tableau) stays scalar and costs as much
as the update saved.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numba
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_matrix_game_warm import fill_full, full_values  # noqa: E402

import exact  # noqa: E402
from exact.kernels.matrix_game import (  # noqa: E402
    _EPS_PIV,
    _EPS_RC,
    _EPS_TIE,
    _PIV_REL,
    _dantzig_cap,
    _saddle,
    _stack_indices,
    _stack_matrix,
    _stack_vector,
    solve_game_unchecked,
)

#: Most lanes; the scratch of all of them is on the stack (k <= 16).
LMAX = 32
_TS = 289 * LMAX
_PS = 17 * LMAX
_RS = 16 * LMAX


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _start(G, g, k, T, rowlab, collab, ln, X, Y, values, cmax):
    """matrix_game's saddle test of game g: (False, ...) if it solves it (outputs
    written); else lane l's tableau is matrix_game._simplex's initial one and (True, the
    first entering column, lo, hi - lo) is returned."""
    A = G[g]
    K1 = k + 1
    found, v, lo, hi, jbest, _ = _saddle(A, k, X[g], Y[g], cmax)
    if found:
        values[g] = v
        return False, 0, 0.0, 0.0
    rng = hi - lo
    inv_rng = 1.0 / rng
    for i in range(k):
        for j in range(k):
            T[i * K1 + j, ln] = (A[i, j] - lo) * inv_rng + 1.0
        T[i * K1 + k, ln] = 1.0
        rowlab[i, ln] = k + i
        collab[i, ln] = i
    for j in range(k):
        T[k * K1 + j, ln] = -1.0
    T[k * K1 + k, ln] = 0.0
    return True, jbest, lo, rng


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _next_game(G, n, nxt, k, T, rowlab, collab, ln, X, Y, values, cmax, lanes):
    """Games nxt, nxt + 1, ... through the saddle test until one needs the simplex, which
    lane ln takes (its game, first column, lo, hi - lo and pivot count in ``lanes``); the
    lane is left empty (game -1) when none is left.  Returns the next game not taken."""
    game, c, lo, rng, piv = lanes
    game[ln] = -1
    c[ln] = 0
    while nxt < n:
        g = nxt
        nxt += 1
        go, c0, lo0, rng0 = _start(G, g, k, T, rowlab, collab, ln, X, Y, values, cmax)
        if go:
            game[ln] = g
            c[ln] = c0
            lo[ln] = lo0
            rng[ln] = rng0
            piv[ln] = 0
            break
    return nxt


@numba.njit(cache=True, nogil=True, error_model="numpy")
def solve_lanes(G, n, k, values, X, Y, fallback, L):
    """solve_game_unchecked on the games G[:n] (k x k, 3 <= k <= 16), L <= LMAX at a time
    (module docstring); returns the number of steps (pivots of all lanes at once)."""
    K1 = k + 1
    T = _stack_matrix(_TS, K1 * K1, L)
    P = _stack_matrix(_PS, K1, L)
    C = _stack_matrix(_PS, K1, L)
    R = _stack_matrix(_RS, k, L)
    rowlab = _stack_matrix(_RS, k, L)
    collab = _stack_matrix(_RS, k, L)
    game = _stack_indices(LMAX)
    c = _stack_indices(LMAX)
    r = _stack_indices(LMAX)
    cn = _stack_indices(LMAX)
    piv = _stack_indices(LMAX)
    lo = _stack_vector(LMAX)
    rng = _stack_vector(LMAX)
    best = _stack_vector(LMAX)
    acol = _stack_vector(LMAX)
    amax = _stack_vector(LMAX)
    ok = _stack_vector(LMAX)
    inv = _stack_vector(LMAX)
    bestc = _stack_vector(LMAX)
    cmax = _stack_vector(16)
    for i in range(K1 * K1):
        for ln in range(L):
            T[i, ln] = 0.0
    cap = _dantzig_cap(k)
    lanes = (game, c, lo, rng, piv)
    nxt = 0
    for ln in range(L):
        nxt = _next_game(G, n, nxt, k, T, rowlab, collab, ln, X, Y, values, cmax, lanes)
    steps = 0
    while True:
        steps += 1
        active = 0
        for ln in range(L):
            active += game[ln] >= 0
        if active == 0:
            break
        for ln in range(L):  # the entering column of each lane (scalar loads)
            cc = c[ln]
            for i in range(K1):
                C[i, ln] = T[i * K1 + cc, ln]
        _ratio(T, C, K1, k, R, best, acol, L)
        _ties(C, k, R, best, amax, r, L)
        for ln in range(L):
            good = game[ln] >= 0 and best[ln] != np.inf
            if good and C[r[ln], ln] < _PIV_REL * acol[ln]:
                good = False
            ok[ln] = np.float64(good)
            if game[ln] >= 0 and not good:
                fallback[game[ln]] = True
            if good:  # row r scaled into P and back into T, its multiplier 0
                rr = r[ln] * K1
                iv = 1.0 / C[r[ln], ln]
                inv[ln] = iv
                for j in range(K1):
                    t = T[rr + j, ln] * iv
                    P[j, ln] = t
                    T[rr + j, ln] = t
                C[r[ln], ln] = 0.0
            else:  # no change: multipliers and pivot row 0
                for j in range(K1):
                    P[j, ln] = 0.0
                    C[j, ln] = 0.0
        _update(T, C, P, K1, L)
        for ln in range(L):
            if ok[ln] != 0.0:
                cc = c[ln]
                ninv = -inv[ln]
                for i in range(K1):
                    T[i * K1 + cc, ln] = C[i, ln] * ninv
                T[r[ln] * K1 + cc, ln] = inv[ln]
        for ln in range(L):
            if ok[ln] != 0.0:
                lab = rowlab[r[ln], ln]
                rowlab[r[ln], ln] = collab[c[ln], ln]
                collab[c[ln], ln] = lab
                piv[ln] += 1
        _entering_lanes(T, K1, k, cn, bestc, L)
        for ln in range(L):
            g = game[ln]
            if g < 0:
                continue
            reload = False
            if ok[ln] == 0.0:
                reload = True
            elif cn[ln] < 0:
                _read_off(
                    T, rowlab, collab, k, ln, X[g], Y[g], values, g, lo[ln], rng[ln], fallback
                )
                reload = True
            elif piv[ln] >= cap:
                fallback[g] = True
                reload = True
            else:
                c[ln] = cn[ln]
            if reload:
                nxt = _next_game(G, n, nxt, k, T, rowlab, collab, ln, X, Y, values, cmax, lanes)
    for g in range(n):
        if fallback[g]:
            values[g] = solve_game_unchecked(G[g], k, X[g], Y[g])
    return steps


@numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _ratio(T, C, K1, k, R, best, acol, L):
    for l0 in range(L):
        best[l0] = np.inf
        acol[l0] = 0.0
    for i in range(k):
        rhs = i * K1 + k
        for l1 in range(L):
            a1 = C[i, l1]
            s1 = np.float64(a1 > _EPS_PIV)
            t1 = (max(T[rhs, l1], 0.0) + (1.0 - s1)) / (abs(a1) * s1)
            R[i, l1] = t1
            best[l1] = min(best[l1], t1)
            acol[l1] = max(acol[l1], a1)


@numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _ties(C, k, R, best, amax, r, L):
    for l0 in range(L):
        amax[l0] = 0.0
        r[l0] = 0
    for i in range(k):
        for l1 in range(L):
            a1 = C[i, l1] * np.float64(R[i, l1] <= best[l1] + _EPS_TIE)
            take = a1 > amax[l1]
            amax[l1] = a1 if take else amax[l1]
            r[l1] = i if take else r[l1]


@numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _update(T, C, P, K1, L):
    for i in range(K1):
        row = i * K1
        for j in range(K1):
            for l1 in range(L):
                T[row + j, l1] -= C[i, l1] * P[j, l1]


@numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _entering_lanes(T, K1, k, cn, bestc, L):
    for l0 in range(L):
        bestc[l0] = -_EPS_RC
        cn[l0] = -1
    for j in range(k):
        for l1 in range(L):
            t1 = T[k * K1 + j, l1]
            take = t1 < bestc[l1]
            bestc[l1] = t1 if take else bestc[l1]
            cn[l1] = j if take else cn[l1]


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _read_off(T, rowlab, collab, k, ln, x, y, values, g, lo, rng, fallback):
    """matrix_game._simplex's read-off of the strategies and the value, repeated here for
    lane ln of the lane-minor tableau (the same operations in the same order, so the same
    bits); an empty strategy hands the game to solve_game_unchecked (``fallback``)."""
    for i in range(k):
        x[i] = 0.0
        y[i] = 0.0
    for i in range(k):
        lab = int(rowlab[i, ln])
        if lab < k:
            t = T[i * (k + 1) + k, ln]
            if t > 0.0:
                y[lab] = t
    for j in range(k):
        lab = int(collab[j, ln])
        if lab >= k:
            t = T[k * (k + 1) + j, ln]
            if t > 0.0:
                x[lab - k] = t
    sx = 0.0
    sy = 0.0
    for i in range(k):
        sx += x[i]
        sy += y[i]
    if not (sx > 0.0 and sy > 0.0):
        fallback[g] = True
        return
    ix = 1.0 / sx
    iy = 1.0 / sy
    for i in range(k):
        x[i] *= ix
        y[i] *= iy
    v_b = 1.0 / T[k * (k + 1) + k, ln]
    values[g] = (v_b - 1.0) * rng + lo


@numba.njit(cache=True, nogil=True, error_model="numpy")
def solve_each(G, n, k, values, X, Y):
    """The baseline: solve_game_unchecked on each game in turn."""
    for g in range(n):
        values[g] = solve_game_unchecked(G[g], k, X[g], Y[g])


@numba.njit(cache=True)
def collect(k, canon, child, sign, prize_child, prize_card, full, prize_sets):
    """The games of the given prize sets in the level kernel's order, as one array."""
    G = np.empty((len(prize_sets) * k * canon.shape[0], k, k))
    g = 0
    for r in prize_sets:
        for m in range(k):
            for q in range(canon.shape[0]):
                fill_full(G[g], k, canon[q], r, m, child, sign, prize_child, prize_card, full)
                g += 1
    return G


def compare(G, k, lanes, repeats):
    """(identical, us a game one by one, {lanes: us a game in lanes})."""
    n = G.shape[0]
    ref = (np.zeros(n), np.zeros((n, k)), np.zeros((n, k)))
    solve_each(G, n, k, *ref)
    identical = True
    for width in lanes:
        got = (np.zeros(n), np.zeros((n, k)), np.zeros((n, k)))
        solve_lanes(G, n, k, *got, np.zeros(n, np.bool_), width)
        identical &= all(
            np.array_equal(a.view(np.int64), b.view(np.int64)) for a, b in zip(ref, got)
        )
    best = {w: np.inf for w in [0, *lanes]}
    for _ in range(repeats):
        for width in best:
            t0 = time.perf_counter()
            if width == 0:
                solve_each(G, n, k, *ref)
            else:
                solve_lanes(G, n, k, *got, np.zeros(n, np.bool_), width)
            best[width] = min(best[width], time.perf_counter() - t0)
    return identical, 1e6 * best.pop(0) / n, {w: 1e6 * t / n for w, t in best.items()}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--levels", type=int, nargs="+", default=[6, 7, 8])
    parser.add_argument("--prize-sets", type=int, default=20)
    parser.add_argument("--lanes", type=int, nargs="+", default=[16, 32])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    if not all(1 <= w <= LMAX for w in args.lanes):
        parser.error(f"--lanes: 1 to {LMAX}")
    sol = exact.solve(args.n)
    heads = " | ".join(f"{w} lanes us" for w in args.lanes)
    print(f"| games | k | count | identical | one by one us | {heads} |")
    print("|---|---|---|---|---|" + "---|" * len(args.lanes))
    rng = np.random.default_rng(2026)
    for k in args.levels:
        level = sol.levels[k]
        sets = np.arange(min(args.prize_sets, level.prize_sets), dtype=np.int64)
        real = collect(
            k,
            level.canonical_patterns,
            level.child,
            level.sign,
            level.prize_child,
            level.prize_card,
            full_values(sol, k - 1),
            sets,
        )
        for name, G in (
            (f"N = {args.n}, level {k}", real),
            ("random [0, 100)", rng.random((real.shape[0], k, k)) * 100),
        ):
            same, each, lanes = compare(np.ascontiguousarray(G), k, args.lanes, args.repeats)
            cells = " | ".join(f"{lanes[w]:.3f}" for w in args.lanes)
            verdict = "yes" if same else "NO"
            print(f"| {name} | {k} | {G.shape[0]:,} | {verdict} | {each:.3f} | {cells} |")


if __name__ == "__main__":
    main()
