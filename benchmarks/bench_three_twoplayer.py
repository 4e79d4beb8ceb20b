"""The two-player equilibrium in three-player GOPS: its exact loss and exploitability.

    nice -n 10 python benchmarks/bench_three_twoplayer.py 4 [--rules split,third,discard]
        [--json OUT]

For each tie rule (points objective, random order): solve the three-player equilibrium,
certify its NashConv, and run :func:`exact.three.two_player_loss` (seat 0 on the
two-player equilibrium, averaged over the two opponents; seats 1 and 2 on the three-player
equilibrium; docs/three-players.md).  Prints one JSON row per rule: the exact values as
"p/q" strings would be thousands of digits long, so each is given as a float together with
the exact rational's distance to it (below 1e-15 relative: the float is the exact value
rounded to nearest).  Also the solve, certificate and walk CPU seconds and peak memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from fractions import Fraction

import exact.three as three
from exact import solve as solve_two_player
from exact.errors import SolverError


def show(x: Fraction) -> float:
    f = float(x)  # Fraction -> float rounds to nearest
    assert abs(Fraction(f) - x) <= abs(x) * Fraction(1, 2**52)
    return f


def row(n: int, rule: str) -> dict:
    cpu = time.process_time()
    sol = three.solve(n, rule)
    solve_s = time.process_time() - cpu
    cpu = time.process_time()
    report = three.certify(sol)
    certify_s = time.process_time() - cpu
    cpu = time.process_time()
    r = three.two_player_loss(sol)
    walk_s = time.process_time() - cpu
    return {
        "n": n,
        "tie_rule": rule,
        "nashconv_bound": report.bound,
        "equilibrium_value": show(r.equilibrium_value),
        "two_player_value": show(r.deviation_value),
        "loss": show(r.loss),
        "loss_over_value": show(r.loss / r.equilibrium_value),
        "opponent_values": [show(v) for v in r.deviation.values[1:]],
        "opponent_best_response_gain": [show(g) for g in r.exploitability],
        "seat0_exact_nashconv_term": show(r.best_response_value - r.equilibrium_value),
        "loss_at_least_minus_bound": r.loss >= -Fraction(report.bound),
        "positions_walked": r.deviation.positions,
        "loss_denominator_bits": r.loss.denominator.bit_length(),
        "solve_cpu_s": round(solve_s, 2),
        "certify_cpu_s": round(certify_s, 2),
        "walk_cpu_s": round(walk_s, 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("--rules", default="split,third,discard")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    solve_two_player(2, arithmetic="rational")  # compile the kernels outside the timings
    rows = []
    for rule in args.rules.split(","):
        try:
            r = row(args.n, rule)
        except SolverError as exc:  # a stage the three-player solver did not finish
            r = {"n": args.n, "tie_rule": rule, "error": str(exc)}
        rows.append(r)
        print(json.dumps(r), flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
