"""Float solver scaling, N = 6..10, with the brute-force HiGHS reference as a baseline.

Prints, per N: canonical subgames, matrix games solved, wall time (median of --repeats
runs, after JIT warm-up), peak memory of a fresh process, and for N <= 6 the time of the
brute-force reference of tests/reference.py (plain recursion over raw (V, Y, P), one scipy
HiGHS LP per matrix game) measured in the same run, as a ratio.

    python benchmarks/bench_float_solver.py [--max-n 10] [--repeats 3]
"""

from __future__ import annotations

import json
from pathlib import Path

import harness

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


run_child = harness.run_child
TABLE = harness.Table(
    [
        ("N", ">3"),
        ("subgames", ">12,"),
        ("matrix games", ">14,"),
        ("median s", ">10.3f"),
        ("runs (s)", ">24"),
        ("peak MiB", ">9.0f"),
        ("HiGHS ref s", ">12"),
        ("speed-up", ">9"),
    ]
)


def main() -> None:
    ap = harness.parser(__doc__, min_n=6, max_n=10, repeats=3)
    args = ap.parse_args()
    print(TABLE.head())
    for n in range(args.min_n, args.max_n + 1):
        res = json.loads(run_child(CHILD, n, args.repeats))
        med = harness.median(res["times"])
        ref = ""
        ratio = ""
        if n <= 6:
            ref_s = float(run_child(REFERENCE, n, ROOT / "tests"))
            ref, ratio = f"{ref_s:.1f}", f"{ref_s / med:.0f}x"
        runs = ", ".join(f"{t:.2f}" for t in res["times"])
        peak = res["peak"] / 2**20
        row = TABLE.row(n, res["subgames"], res["matrix_games"], med, runs, peak, ref, ratio)
        print(row, flush=True)


if __name__ == "__main__":
    harness.main_with_wall_time(main)
