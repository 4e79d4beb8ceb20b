"""Where one matrix game's time goes in the points kernel: the fill, the solve, the bound.

The games of level k of the N-card solve (points objective, random prize order) are
replayed single-threaded in the level kernel's order (for each prize set, each upcard,
each canonical pattern; benchmarks/bench_matrix_game_warm.py's ``fill_full`` builds each
matrix with the kernel's arithmetic) in three passes, interleaved in every repeat:

* ``fill``: the matrix only (its first entry summed, so that nothing is optimised away);
* ``solve``: the fill and solve_game_unchecked (saddle test, 2 x 2 closed form, simplex);
* ``kernel``: the fill, the solve and exact.kernels.bounds.certified_game, what the
  level kernel does per game (less its running mean of the k values).

All three passes run in one compiled loop of their own, not in bench_matrix_game_warm's
``replay`` (whose modes 0 and 1 are the first two): that loop also carries the warm
starts' memo and branches, and the passes are only comparable if they share one loop.

The differences are the solve's and the bound's shares; the best of the repeats per pass
(the machine is shared).  What they bound: a per-game method that made the solve s times
cheaper speeds the kernel up at most by kernel / (kernel - solve + solve / s).

Run:  python benchmarks/bench_game_parts.py [--n 11] [--levels 6 7 8] [--prize-sets 40]
      [--repeats 5]
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
from exact.kernels.bounds import certified_game  # noqa: E402
from exact.kernels.matrix_game import solve_game_unchecked  # noqa: E402

PASSES = ("fill", "solve", "kernel")


@numba.njit(cache=True, nogil=True)
def replay(mode, k, canon, child, sign, prize_child, prize_card, full, prize_sets):
    """The games of ``prize_sets`` in the kernel's order; ``mode`` indexes PASSES.
    Returns a sum of what each game yields, so that nothing is optimised away."""
    A = np.empty((k, k))
    x = np.empty(k)
    y = np.empty(k)
    total = 0.0
    for r in prize_sets:
        for m in range(k):
            for q in range(canon.shape[0]):
                fill_full(A, k, canon[q], r, m, child, sign, prize_child, prize_card, full)
                if mode == 0:
                    total += A[0, 0]
                elif mode == 1:
                    total += solve_game_unchecked(A, k, x, y)
                else:
                    v, e = certified_game(A, k, x, y, solve_game_unchecked(A, k, x, y))
                    total += v + e
    return total


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=11)
    parser.add_argument("--levels", type=int, nargs="+", default=[6, 7, 8])
    parser.add_argument("--prize-sets", type=int, default=40, help="consecutive, from the first")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    sol = exact.solve(args.n)
    print(f"N = {args.n}: games of the points kernel, single-threaded, best of {args.repeats}")
    print("| level (k) | games | fill us | solve us | bound us | a game us | solve share |")
    print("|---|---|---|---|---|---|---|")
    for k in args.levels:
        level = sol.levels[k]
        full = full_values(sol, k - 1)
        canon = level.canonical_patterns
        sets = np.arange(min(args.prize_sets, level.prize_sets), dtype=np.int64)
        inputs = (k, canon, level.child, level.sign, level.prize_child, level.prize_card, full)
        for mode in range(len(PASSES)):  # compile (or load) before timing
            replay(mode, *inputs, sets[:1])
        best = [np.inf] * len(PASSES)
        for _ in range(args.repeats):
            for mode in range(len(PASSES)):
                t0 = time.perf_counter()
                replay(mode, *inputs, sets)
                best[mode] = min(best[mode], time.perf_counter() - t0)
        games = len(sets) * k * len(canon)
        fill, solve, kernel = (1e6 * t / games for t in best)
        print(
            f"| {k} | {games:,} | {fill:.3f} | {solve - fill:.3f} | {kernel - solve:.3f} "
            f"| {kernel:.3f} | {(solve - fill) / kernel:.0%} |"
        )


if __name__ == "__main__":
    main()
