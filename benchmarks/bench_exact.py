"""Exact solver and certificates, N = 5, 6, 7 (Rhoads & Bartholdi computed exact values up to 7).

For each N, in a fresh process: exact solve + certificate time, certificate size, the
independent checker's time, the digits of the largest integer in the certificate, and how
many matrix games took each exact path (float basis guess verified, or exact simplex).
Baseline in the same run: the float solver's time for the same N.

    python benchmarks/bench_exact.py [--max-n 7] [--repeats 1] [--keep DIR]
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import harness

SOLVE = """
import json, sys, time
import exact
from exact.kernels.points import warm_up
warm_up()
n, path = int(sys.argv[1]), sys.argv[2]
t = time.perf_counter(); exact.solve(n); t_float = time.perf_counter() - t
t = time.perf_counter(); sol = exact.certify(n, path); t_exact = time.perf_counter() - t
print(json.dumps({"float": t_float, "exact": t_exact, "paths": sol.stats.extra["paths"],
                  "bytes": sol.stats.extra["certificate_bytes"],
                  "peak": sol.stats.peak_memory_bytes}))
"""

CHECK = """
import sys, time
import certificates
t = time.perf_counter(); v = certificates.check(sys.argv[1]); print(v.code, time.perf_counter() - t)
"""


def largest_integer_digits(path: Path) -> int:
    """Decimal digits of the largest integer stored as bytes in a certificate (streamed)."""
    import msgpack

    biggest = 0

    def walk(obj):
        nonlocal biggest
        if isinstance(obj, bytes):
            biggest = max(biggest, len(obj))
        elif isinstance(obj, (list, tuple)):
            for o in obj:
                walk(o)

    with open(path, "rb") as fh:
        for obj in msgpack.Unpacker(fh, raw=False, max_bin_len=1 << 30, max_buffer_size=1 << 31):
            walk(obj)
    return max(19, math.ceil(biggest * 8 * math.log10(2)))


run = harness.run_child  # one fresh process per measurement


def main():
    ap = harness.parser(__doc__, min_n=5, max_n=7)
    ap.add_argument("--repeats", type=int, default=1, help="exact runs per N (median reported)")
    ap.add_argument("--keep", type=Path, default=None, help="keep the certificates in DIR")
    args = ap.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp())
    folder.mkdir(parents=True, exist_ok=True)
    print(
        f"{'N':>2} {'float s':>8} {'exact+cert s':>13} {'cert MB':>9} {'check s':>8} "
        f"{'max digits':>11} {'basis':>7} {'simplex':>8} {'peak MiB':>9} verdict"
    )
    for n in range(args.min_n, args.max_n + 1):
        path = folder / f"gops-{n}.cert"
        runs = [json.loads(run(SOLVE, n, path)) for _ in range(args.repeats)]
        exact_s = harness.median(r["exact"] for r in runs)
        float_s = harness.median(r["float"] for r in runs)
        code, check_s = run(CHECK, path).split()
        last = runs[-1]
        print(
            f"{n:>2} {float_s:>8.3f} {exact_s:>13.1f} {last['bytes'] / 1e6:>9.2f} "
            f"{float(check_s):>8.1f} {largest_integer_digits(path):>11,} "
            f"{last['paths']['basis']:>7,} {last['paths']['simplex']:>8,} "
            f"{last['peak'] / 2**20:>9.0f} {'valid' if code == '0' else 'exit ' + code}",
            flush=True,
        )


if __name__ == "__main__":
    harness.main_with_wall_time(main)
