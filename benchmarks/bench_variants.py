"""The solved two-player variants (12-round game, random dummy): time and memory per N.

For each (variant, arithmetic, N): relabelled states, matrix games, wall time of
``exact.solve_variant`` (median of --repeats runs, each in a fresh process after the JIT
warm-up), peak memory.  Baseline, measured in the same run for the small N: the
brute-force reference of tests/reference_variants.py (raw positions, no relabelling, one
HiGHS LP per matrix game), as a ratio to our float time.

    python benchmarks/bench_variants.py [--repeats 3]
"""

from __future__ import annotations

import json
from pathlib import Path

import harness

ROOT = Path(__file__).resolve().parents[1]
run_child = harness.run_child  # one fresh process per measurement

CHILD = """
import json, sys, time
from exact.kernels.points import warm_up
from exact.dp.solve import peak_memory_bytes
from exact.dp.variant_solver import solve_variant
warm_up()
variant, n, arithmetic = sys.argv[1], int(sys.argv[2]), sys.argv[3]
t = time.perf_counter(); sol = solve_variant(variant, n, arithmetic)
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "states": sol.states, "games": sol.matrix_games,
                  "peak": peak_memory_bytes()}))
"""

REFERENCE = """
import sys, time
sys.path.insert(0, sys.argv[3])
from reference_variants import reference_variant_value
variant, n = sys.argv[1], int(sys.argv[2])
low = 2 if variant == "twelve" else 1
hand = frozenset(range(low, n + 1)); suit = frozenset(range(1, n + 1))
t = time.perf_counter()
reference_variant_value(hand, hand, suit if variant == "dummy" else None, suit)
print(time.perf_counter() - t)
"""

#: (variant, arithmetic, N values); the largest of each is the solver's limit
#: (exact.limits.VARIANT_MAX_N).
CASES = [
    ("twelve", "float", (5, 6, 7, 8, 9)),
    ("twelve", "rational", (5, 6, 7)),
    ("dummy", "float", (4, 5, 6)),
    ("dummy", "rational", (4, 5)),
]
#: Largest N whose brute-force reference runs (minutes beyond).
REFERENCE_MAX_N = {"twelve": 6, "dummy": 4}


def main() -> None:
    ap = harness.parser(__doc__, repeats=3)
    args = ap.parse_args()
    print(
        f"{'variant':>8} {'arith':>8} {'N':>3} {'states':>9} {'matrix games':>13} "
        f"{'median s':>9} {'runs (s)':>22} {'peak MiB':>9} {'HiGHS ref s':>12} {'speed-up':>9}"
    )
    for variant, arithmetic, ns in CASES:
        for n in ns:
            runs = [
                json.loads(run_child(CHILD, variant, n, arithmetic)) for _ in range(args.repeats)
            ]
            med = harness.median(r["seconds"] for r in runs)
            ref = ratio = ""
            if arithmetic == "float" and n <= REFERENCE_MAX_N[variant]:
                ref_s = float(run_child(REFERENCE, variant, n, ROOT / "tests"))
                ref, ratio = f"{ref_s:.1f}", f"{ref_s / med:.0f}x"
            times = ", ".join(f"{r['seconds']:.2f}" for r in runs)
            r = runs[0]
            print(
                f"{variant:>8} {arithmetic:>8} {n:>3} {r['states']:>9,} {r['games']:>13,} "
                f"{med:>9.2f} {times:>22} {max(x['peak'] for x in runs) / 2**20:>9.0f} "
                f"{ref:>12} {ratio:>9}",
                flush=True,
            )


if __name__ == "__main__":
    harness.main_with_wall_time(main)
