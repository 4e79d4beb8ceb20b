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
from fractions import Fraction

import numpy as np

import exact


def level_errors(fl, ex, k):
    """(subgames compared, largest |f_float - f_exact|) over level k, exactly."""
    F, E = np.asarray(fl.values[k]), ex.values[k]
    count, worst = 0, Fraction(0)
    for idx in np.ndindex(F.shape):
        if E[idx] is None:  # an unreachable lead: solved in neither arithmetic
            continue
        count += 1
        worst = max(worst, abs(Fraction(float(F[idx])) - Fraction(int(E[idx].p), int(E[idx].q))))
    return count, worst


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
        count, worst = level_errors(fl, ex, k)
        radius = Fraction(fl.radii[k])
        inside &= worst <= radius
        ratio = f"{float(radius / worst):.0f}" if worst else "-"
        print(f"| {k} | {count:,} | {float(worst):.2e} | {fl.radii[k]:.2e} | {ratio} |")
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
