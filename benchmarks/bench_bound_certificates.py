"""Bound certificates of the float solver (certificates/FORMAT.md, "Bound certificates").

For each N (default 6, 7, 8), in fresh processes: the time of ``certify_bounds`` (float
solve plus recomputing every game's strategies and writing; the write pass alone in
brackets), the file size, and the independent checker's time (``python -m certificates
FILE --quiet``, median of ``--repeats`` fresh runs, each reporting its own in-process time).
Baselines measured in the same run: the float solve alone for the same N (``exact.solve``,
kernels warmed up), and the exact LP-duality certificate of N = 6 (``--exact-baseline``,
default 6; 0 to skip): its write time and its check time, median of the same repeats.

    python benchmarks/bench_bound_certificates.py [--ns 6,7,8] [--repeats 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WRITE = """
import json, sys, time
import exact
from exact.kernels.points import warm_up
from exact.certificate.bounds_writer import certify_bounds
warm_up()
n, path = int(sys.argv[1]), sys.argv[2]
t = time.perf_counter(); exact.solve(n); t_float = time.perf_counter() - t
t = time.perf_counter(); sol = certify_bounds(n, path); t_write = time.perf_counter() - t
x = sol.stats.extra
print(json.dumps({"float": t_float, "write": t_write, "write_pass": x["write_seconds"],
                  "bytes": x["certificate_bytes"], "records": x["records"],
                  "mismatches": x["mismatches"], "radius": max(sol.radii)}))
"""

EXACT = """
import json, sys, time
import exact
t = time.perf_counter(); sol = exact.certify(int(sys.argv[1]), sys.argv[2])
print(json.dumps({"write": time.perf_counter() - t, "bytes": sol.stats.extra["certificate_bytes"]}))
"""

CHECK = """
import sys, time
import certificates
t = time.perf_counter(); v = certificates.check(sys.argv[1]); print(v.code, time.perf_counter() - t)
"""


def run(code: str, *args) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, check=True
    )
    return proc.stdout.strip().splitlines()[-1]


def check_time(path: Path, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        code, seconds = run(CHECK, path).split()
        if code != "0":
            raise SystemExit(f"the checker rejected {path} (exit {code})")
        times.append(float(seconds))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ns", default="6,7,8", help="comma-separated N (each <= 9)")
    parser.add_argument("--repeats", type=int, default=3, help="checker runs per N (median)")
    parser.add_argument(
        "--exact-baseline",
        type=int,
        default=6,
        help="N of the exact-certificate baseline (0: none)",
    )
    parser.add_argument("--keep", type=Path, help="keep the certificates in this folder")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-bounds-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(
        f"python {sys.version.split()[0]}, {time.strftime('%Y-%m-%d %H:%M')}, "
        f"checker runs per N: {args.repeats} (median)"
    )
    print(
        f"{'N':>2} {'records':>8} {'float solve':>11} {'write (pass)':>15} {'size':>9} "
        f"{'check':>8} {'largest radius':>14}  recomputed"
    )
    for n in map(int, args.ns.split(",")):
        path = folder / f"gops{n}.bcert"
        w = json.loads(run(WRITE, n, path))
        t_check = check_time(path, args.repeats)
        print(
            f"{n:>2} {w['records']:>8,} {w['float']:>10.2f}s {w['write']:>7.2f}s "
            f"({w['write_pass']:>5.2f}s) {w['bytes'] / 1e6:>7.2f}MB {t_check:>7.2f}s "
            f"{w['radius']:>14.3e}  "
            f"{'bit for bit' if not w['mismatches'] else str(w['mismatches']) + ' differ'}",
            flush=True,
        )
        if not args.keep:
            path.unlink()
    if args.exact_baseline:
        n = args.exact_baseline
        path = folder / f"gops{n}.cert"
        e = json.loads(run(EXACT, n, path))
        t_check = check_time(path, args.repeats)
        print(
            f"baseline: exact LP-duality certificate, N = {n}: write {e['write']:.2f} s, "
            f"{e['bytes'] / 1e6:.2f} MB, check {t_check:.2f} s"
        )
        if not args.keep:
            path.unlink()


if __name__ == "__main__":
    main()
