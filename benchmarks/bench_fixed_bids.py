"""The fixed-bid game: double oracle's cost by N, and the value of adaptivity.

For each N: float double oracle (iterations, support of the equilibrium, the best reply's
gain, seconds; median of --repeats), the exact solve (N <= 7: seconds, support), and what
our GOPS equilibrium gains against the fixed-bid equilibrium played as a bot in the real
game (exact with the rational GOPS solution for N <= 5, float with its error bound above;
N <= 8; it depends on which GOPS equilibrium is played).

Then, for N <= --adaptivity-max-n (at most 5), the value of adaptivity: the value of the
game "adaptive GOPS player against a committed player" (exact.analysis.adaptivity: one
state LP by HiGHS, made exact and verified; seconds of one run), the support of the
committed player's optimal mix, the states where the adaptive player mixes, and what an
adaptive best reply gains against the exact fixed-bid equilibrium (an upper bound on it).

    python benchmarks/bench_fixed_bids.py --max-n 12 --repeats 3
"""

from __future__ import annotations

import time

import harness

import exact
from exact.analysis.adaptivity import ADAPTIVITY_VALUE_MAX_N, best_reply, solve_adaptivity
from exact.analysis.fixed_bids import (
    ADAPTIVITY_MAX_N,
    EXACT_MAX_N,
    adaptivity_gain,
    solve_fixed_bids,
)


def main():
    ap = harness.parser(__doc__, max_n=10, repeats=3)
    ap.add_argument("--adaptivity-max-n", type=int, default=ADAPTIVITY_VALUE_MAX_N)
    args = ap.parse_args()
    print(
        "N | iterations | support | best reply gains | float s | exact s (support) | "
        "our GOPS equilibrium's gain against it (points per game)"
    )
    print("---|---|---|---|---|---|---")
    for n in range(2, args.max_n + 1):
        runs = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            eq = solve_fixed_bids(n)
            runs.append(time.perf_counter() - t0)
        exact_text, gain_text = "", ""
        if n <= EXACT_MAX_N:
            t0 = time.perf_counter()
            ex = solve_fixed_bids(n, "rational")
            exact_text = f"{time.perf_counter() - t0:.2f} ({len(ex.mix)})"
        if n <= ADAPTIVITY_MAX_N:
            if n <= 5:
                gain, _ = adaptivity_gain(ex, exact.solve(n, arithmetic="rational"))
                gain_text = f"{float(gain):.6f} (exact: {len(str(gain))} characters)"
            else:
                gain, bound = adaptivity_gain(eq, exact.solve(n))
                gain_text = f"{gain:.6f} (within {bound:.0e})"
        print(
            f"{n} | {eq.iterations} | {len(eq.mix)} | {eq.exploitability:.1e} | "
            f"{harness.median(runs):.2f} | {exact_text} | {gain_text}",
            flush=True,
        )
    print()
    print(
        "N | value of adaptivity (exact, verified) | seconds | committed mix (bijections) | "
        "adaptive player mixes at (states) | best reply to the fixed-bid equilibrium"
    )
    print("---|---|---|---|---|---")
    for n in range(1, min(args.adaptivity_max_n, ADAPTIVITY_VALUE_MAX_N) + 1):
        t0 = time.perf_counter()
        result = solve_adaptivity(n)
        seconds = time.perf_counter() - t0
        reply, _ = best_reply(n, solve_fixed_bids(n, "rational").mix)
        print(
            f"{n} | {result.value} = {float(result.value):.6f} | {seconds:.2f} | "
            f"{len(result.committed)} | {result.mixed_states} | {reply} = {float(reply):.6f}",
            flush=True,
        )


if __name__ == "__main__":
    harness.main_with_wall_time(main)
