"""Micro-benchmark of :func:`exact.kernels.matrix_game.solve_game_unchecked`.

Times the compiled solver in a compiled loop over a batch of random k x k games, the way
the GOPS solver calls it, and prints microseconds per game for k = 1..16, plus the time of
``scipy.optimize.linprog(method="highs")`` per game for k = 4 and 8 as a baseline.

Three kinds of games:

* gops-like: a prize u in 1..16 times sign(bid difference) for random bids, plus a random
  "child value" in [-30, 30] (these often have a pure saddle point);
* uniform: i.i.d. entries in [-200, 200] (the hard case: mixed equilibria of support ~k/2);
* real GOPS games, k = 3..8: the matrix games the solver itself builds
  (exact.kernels.points.fill_matrix) for random items (prize set, canonical pattern) of level k
  of the 9-card game, every upcard of each item; the 9-card solve they need takes ~2 s.
  These have mixed equilibria (support ~4.5 of 7), rarely a saddle, many ties and
  duplicated rows; they take ~1 pivot more than the support size (3.2, 4.4, 5.8, 7.6
  pivots for k = 5..8 at N = 9; 3.7, 4.4, 5.6, 7.1 for k = 6..9 at N = 13) and cost about
  as much per game as gops-like games of the same size.  Only the kernel is timed here;
  inside the real solver, building the matrices (fill_matrix: k^2 scattered reads of the
  level below) adds ~0.3 to ~1 us per game at N = 13, k = 8, depending on how much of
  the level below is in the caches.

Each figure is the sum over chunks of 100 games of the best time of the chunk over
several repeats, all sizes interleaved in every repeat (the machine may be shared; the
minimum is the least disturbed run; expect +-10% between runs on a busy machine).  A
calibration line gives the time of a dependent multiply-add chain (8 cycles on a core
without FMA contraction), to compare runs on different machines.

Run:  python benchmarks/bench_matrix_game.py [--batch N] [--repeats R]
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numba
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from exact.kernels.matrix_game import solve_game_unchecked  # noqa: E402

#: The real games come from the solve of this many cards (levels 3..REAL_N - 1).
REAL_N = 9


@numba.njit(cache=True, nogil=True)
def _solve_batch(games, k, out):
    x = np.empty(k)
    y = np.empty(k)
    for g in range(games.shape[0]):
        out[g] = solve_game_unchecked(games[g], k, x, y)


@numba.njit(cache=True)
def _chain(n):
    s = 0.0
    for _ in range(n):
        s = s * 0.9999999 + 1.0
    return s


def _gops_like(rng, n, k):
    prize = rng.integers(1, 17, size=(n, 1, 1)).astype(np.float64)
    bids = np.sign(rng.permutation(np.arange(k))[:, None] - rng.permutation(np.arange(k))[None, :])
    return prize * bids + rng.uniform(-30.0, 30.0, size=(n, k, k))


def _real_gops(n_games, seed=2024):
    """{k: array of real GOPS matrix games of level k of the REAL_N-card solve}, k = 3..8."""
    import exact
    from exact.kernels.points import fill_matrix

    sol = exact.solve(REAL_N)
    rng = np.random.default_rng(seed)
    out = {}
    for k in range(3, min(REAL_N, 9)):
        level = sol.levels[k]
        below = np.ascontiguousarray(sol.values[k - 1])
        canon = level.canonical_patterns
        items = level.prize_sets * canon.shape[0]
        count = min(n_games, items * k)
        games = np.empty((count, k, k))
        g = 0
        for t in rng.permutation(items):
            r, p = int(t) // canon.shape[0], int(canon[int(t) % canon.shape[0]])
            for m in range(k):
                if g < count:
                    fill_matrix(
                        games[g],
                        k,
                        p,
                        r,
                        m,
                        level.child,
                        level.sign,
                        level.prize_child,
                        level.prize_card,
                        below,
                        level.below_columns().column,
                        level.below_columns().mirror,
                    )
                    g += 1
            if g == count:
                break
        out[k] = games
    return out


def _best_us(batches, repeats, chunk=100):
    """Best time per game (us) of each batch.  Every batch is timed in chunks of ``chunk``
    games (~0.1 ms each), each chunk keeps its best time over the repeats, and the batch
    time is the sum of those minima: a slow spell of a shared machine then spoils single
    chunks of single repeats only.  The batches are interleaved in every repeat."""
    best = {
        key: np.full(-(-games.shape[0] // chunk), np.inf) for key, (games, _) in batches.items()
    }
    outs = {key: np.empty(games.shape[0]) for key, (games, _) in batches.items()}
    for _ in range(repeats):
        for key, (games, k) in batches.items():
            for c in range(best[key].shape[0]):
                part = games[c * chunk : (c + 1) * chunk]
                t0 = time.perf_counter()
                _solve_batch(part, k, outs[key][c * chunk : (c + 1) * chunk])
                best[key][c] = min(best[key][c], time.perf_counter() - t0)
    for out in outs.values():
        assert np.all(np.isfinite(out))
    return {key: 1e6 * t.sum() / batches[key][0].shape[0] for key, t in best.items()}


def _linprog_us(rng, k, n):
    from scipy.optimize import linprog

    # maximise v  s.t.  v <= (x^T A)_j for all j,  sum(x) = 1,  x >= 0
    c = np.zeros(k + 1)
    c[-1] = -1.0
    a_eq = np.ones((1, k + 1))
    a_eq[0, -1] = 0.0
    bounds = [(0, None)] * k + [(None, None)]
    games = _gops_like(rng, n, k)
    t0 = time.perf_counter()
    for A in games:
        a_ub = np.hstack([-A.T, np.ones((k, 1))])
        linprog(
            c, A_ub=a_ub, b_ub=np.zeros(k), A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs"
        )
    return 1e6 * (time.perf_counter() - t0) / n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1000, help="games per size (default 1000)")
    ap.add_argument("--repeats", type=int, default=20, help="repeats (default 20)")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(12345)
    _solve_batch(_gops_like(rng, 2, 3), 3, np.empty(2))  # compile (or load the cache)
    _chain(10)
    t_chain = min(_timeit(lambda: _chain(1_000_000)) for _ in range(10)) / 1e6 * 1e9

    print(f"calibration: dependent multiply-add {t_chain:.2f} ns")
    batches = {}
    for k in range(1, 17):
        batches[("gops", k)] = (_gops_like(rng, args.batch, k), k)
        batches[("uniform", k)] = (rng.uniform(-200.0, 200.0, size=(args.batch, k, k)), k)
    for k, games in _real_gops(args.batch).items():
        batches[("real", k)] = (games, k)
    us = _best_us(batches, args.repeats)
    print(f"{'k':>3} {'gops-like us/game':>18} {'uniform us/game':>16} {'real GOPS us/game':>18}")
    for k in range(1, 17):
        real = f"{us[('real', k)]:>18.3f}" if ("real", k) in us else f"{'':>18}"
        print(f"{k:>3} {us[('gops', k)]:>18.3f} {us[('uniform', k)]:>16.3f} {real}")
    print("baseline scipy.optimize.linprog(method='highs'), gops-like games:")
    for k in (4, 8):
        print(f"{k:>3} {_linprog_us(rng, k, 300):>18.1f} us/game")


def _timeit(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
