"""Float solver scaling, N = 6..10, with the brute-force HiGHS reference as a baseline.

Prints, per N: canonical subgames, matrix games solved, wall time (median of --repeats
runs, after JIT warm-up), peak memory of a fresh process, and for N <= 6 the time of the
brute-force reference of tests/reference.py (plain recursion over raw (V, Y, P), one scipy
HiGHS LP per matrix game) measured in the same run, as a ratio.

    python benchmarks/bench_float_solver.py [--max-n 10] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, sys, time
import exact
from exact.kernels.points import warm_up
from exact.dp.solve import peak_memory_bytes
warm_up()
n, repeats = int(sys.argv[1]), int(sys.argv[2])
times = []
for _ in range(repeats):
    t = time.perf_counter(); sol = exact.solve(n); times.append(time.perf_counter() - t)
print(json.dumps({"times": times, "subgames": sol.stats.subgames,
                  "matrix_games": sol.stats.matrix_games, "peak": peak_memory_bytes()}))
"""

REFERENCE = """
import sys, time
sys.path.insert(0, sys.argv[2])
import reference
n = int(sys.argv[1]); cards = frozenset(range(1, n + 1))
t = time.perf_counter(); reference.reference_value(cards, cards, cards)
print(time.perf_counter() - t)
"""


def run_child(code: str, *args) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)], check=True, capture_output=True, text=True
    )
    return out.stdout.strip().splitlines()[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min-n", type=int, default=6)
    ap.add_argument("--max-n", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(
        f"{'N':>3} {'subgames':>12} {'matrix games':>14} {'median s':>10} {'runs (s)':>24} "
        f"{'peak MiB':>9} {'HiGHS ref s':>12} {'speed-up':>9}"
    )
    for n in range(args.min_n, args.max_n + 1):
        res = json.loads(run_child(CHILD, n, args.repeats))
        med = statistics.median(res["times"])
        ref = ""
        ratio = ""
        if n <= 6:
            ref_s = float(run_child(REFERENCE, n, ROOT / "tests"))
            ref, ratio = f"{ref_s:.1f}", f"{ref_s / med:.0f}x"
        runs = ", ".join(f"{t:.2f}" for t in res["times"])
        print(
            f"{n:>3} {res['subgames']:>12,} {res['matrix_games']:>14,} {med:>10.3f} {runs:>24} "
            f"{res['peak'] / 2**20:>9.0f} {ref:>12} {ratio:>9}",
            flush=True,
        )


if __name__ == "__main__":
    started = time.time()
    main()
    print(f"(benchmark wall time {time.time() - started:.0f} s)")
