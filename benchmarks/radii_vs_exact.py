"""The float solver's certified radii against the exact values, at sizes too slow for CI.

    python benchmarks/radii_vs_exact.py [--n 7] [--objective points|win|both]

Solves N-card GOPS twice, in float64 with its certified radius r_k per level
(exact/kernels/bounds.py) and in exact rationals, and compares every subgame (every lead
for the win objective) exactly: a float is a dyadic rational, so |f_float - f_exact| is
computed without rounding.  Prints, per level k, the subgames compared, the largest true
error, the radius and their ratio (how loose the proven bound is), and the times of both
solves (the float one is the baseline of the same run).  Exits 1 if any exact value lies
outside its radius: the radius would then be wrong.  tests/test_bounds.py checks the same
for N <= 6 in CI.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from flint import arb, ctx, fmpz

import exact

ctx.prec = 128


def level_errors(fl, ex, k):
    """(subgames compared, all inside r_k?, largest |f_float - f_exact|) over level k.

    The test is exact and in integers (no gcd of the million-digit values of N = 7):
    with f = a / b (b a power of two), f* = p / q and r_k = c / d,
    |f - f*| <= r_k  iff  |a q - p b| d <= c b q.  The largest error is reported to
    128 bits (arb), enough for errors ~1e-15 of values ~1."""
    F, E = np.asarray(fl.values[k]), ex.values[k]
    c, d = (fmpz(t) for t in float(fl.radii[k]).as_integer_ratio())
    count, inside, worst = 0, True, 0.0
    for idx in np.ndindex(F.shape):
        if E[idx] is None:  # an unreachable lead: solved in neither arithmetic
            continue
        count += 1
        a, b = (fmpz(t) for t in float(F[idx]).as_integer_ratio())
        p, q = E[idx].p, E[idx].q
        diff = abs(a * q - p * b)
        inside = inside and diff * d <= c * b * q
        worst = max(worst, float((arb(diff) / (arb(b) * arb(q))).mid()))
    return count, inside, worst


def compare(n, objective):
    t0 = time.perf_counter()
    fl = exact.solve(n, objective=objective)
    t_float = time.perf_counter() - t0
    t0 = time.perf_counter()
    ex = exact.solve(n, objective, "rational")
    t_exact = time.perf_counter() - t0
    print(f"\n{objective} objective, N = {n}: float {t_float:.1f} s, exact {t_exact:.1f} s\n")
    print("| level k | subgames | largest true error | certified radius | radius / error |")
    print("|---|---|---|---|---|")
    inside = True
    for k in range(n + 1):
        count, level_inside, worst = level_errors(fl, ex, k)
        inside &= level_inside
        ratio = f"{fl.radii[k] / worst:.0f}" if worst else "-"
        print(f"| {k} | {count:,} | {worst:.2e} | {fl.radii[k]:.2e} | {ratio} |", flush=True)
    print(f"\nevery exact value inside its radius: {'yes' if inside else 'NO'}")
    return inside


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=7)
    ap.add_argument("--objective", choices=["points", "win", "both"], default="both")
    args = ap.parse_args()
    objectives = ["points", "win"] if args.objective == "both" else [args.objective]
    exact.solve(3)  # numba compile or cache load, outside the timings
    exact.solve(3, objective="win")
    ok = all([compare(args.n, objective) for objective in objectives])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
