"""Micro-benchmark of :func:`exact.matrix_game.solve_game_into`.

Times the compiled solver in a compiled loop over a batch of random k x k games, the way
the GOPS solver calls it, and prints microseconds per game for k = 1..16, plus the time of
``scipy.optimize.linprog(method="highs")`` per game for k = 4 and 8 as a baseline.

Two kinds of games:

* gops-like: a prize u in 1..16 times sign(bid difference) for random bids, plus a random
  "child value" in [-30, 30] (these often have a pure saddle point);
* uniform: i.i.d. entries in [-200, 200] (the hard case: mixed equilibria of support ~k/2).

Each figure is the best of several repeats, all sizes interleaved in every repeat (the
machine may be shared; the minimum is the least disturbed run; expect +-30% between runs
on a busy machine).  A calibration line gives the time of a dependent multiply-add chain
(8 cycles on a core without FMA contraction), to compare runs on different machines.

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

from exact.matrix_game import WORK_SIZE, solve_game_into  # noqa: E402


@numba.njit(cache=True, nogil=True)
def _solve_batch(games, k, out):
    x = np.empty(k)
    y = np.empty(k)
    work = np.empty(WORK_SIZE)
    for g in range(games.shape[0]):
        out[g] = solve_game_into(games[g], k, x, y, work)


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


def _best_us(batches, repeats):
    """Best time per game (us) of each batch; the batches are interleaved in every repeat
    so that a slow spell of a shared machine does not hit one size only."""
    best = {key: np.inf for key in batches}
    outs = {key: np.empty(games.shape[0]) for key, (games, _) in batches.items()}
    for _ in range(repeats):
        for key, (games, k) in batches.items():
            t0 = time.perf_counter()
            _solve_batch(games, k, outs[key])
            best[key] = min(best[key], (time.perf_counter() - t0) / games.shape[0])
    for out in outs.values():
        assert np.all(np.isfinite(out))
    return {key: 1e6 * t for key, t in best.items()}


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
        linprog(c, A_ub=a_ub, b_ub=np.zeros(k), A_eq=a_eq, b_eq=[1.0], bounds=bounds,
                method="highs")
    return 1e6 * (time.perf_counter() - t0) / n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1000, help="games per size (default 1000)")
    ap.add_argument("--repeats", type=int, default=40, help="repeats (default 40)")
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
    us = _best_us(batches, args.repeats)
    print(f"{'k':>3} {'gops-like us/game':>18} {'uniform us/game':>16}")
    for k in range(1, 17):
        print(f"{k:>3} {us[('gops', k)]:>18.3f} {us[('uniform', k)]:>16.3f}")
    print("baseline scipy.optimize.linprog(method='highs'), gops-like games:")
    for k in (4, 8):
        print(f"{k:>3} {_linprog_us(rng, k, 300):>18.1f} us/game")


def _timeit(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
