"""Certified epsilon-equilibria of imperfect-information Goofspiel beyond exact reach.

Two kinds of run (each prints one line per result, with wall time and peak RSS):

- ``lp N ORDER``: the float sequence-form LP (HiGHS, its basis re-solved with iterative
  refinement), the policy on the dyadic grid, its NashConv proven
  (:mod:`exact.imperfect.certified`); ``--policy-out`` writes the policy file.
- ``cfr N ORDER --minutes M --every K --checkpoint FILE``: CFR+
  (:mod:`exact.imperfect.cfr`) for M minutes, resuming from FILE if it exists, saving
  to it and certifying the average policy's NashConv every K iterations (a line each,
  also appended to ``--log``).

    nice -n 10 python benchmarks/bench_imperfect_certified.py lp 6 descending
    nice -n 10 python benchmarks/bench_imperfect_certified.py cfr 7 descending \\
        --minutes 60 --every 100 --checkpoint /var/tmp/H2/cfr7.npz --log /var/tmp/H2/cfr7.log
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

from exact.imperfect.certified import round_up, solve_certified
from exact.imperfect.cfr import CFRPlus
from exact.imperfect.game import ImperfectGame


def peak_mib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def run_lp(game: ImperfectGame, policy_out: str | None, solver: str) -> None:
    start = time.perf_counter()
    found = solve_certified(game, None, lambda line: print(line, flush=True), solver)
    proof = found.certificate
    print(
        json.dumps(
            {
                "game": [game.n, game.order.name, game.objective.name],
                "epsilon": round_up(proof.epsilon),
                "proof": proof.method,
                "nash_conv_float": float(proof.nash_conv),
                "error_bound": proof.error_bound,
                "sizes": found.sizes,
                "seconds": {k: round(v, 2) for k, v in found.seconds.items()},
                "wall_s": round(time.perf_counter() - start, 2),
                "peak_rss_mib": peak_mib(),
            }
        ),
        flush=True,
    )
    if policy_out:
        Path(policy_out).write_text(json.dumps(found.policy_json()))


def run_cfr(
    game: ImperfectGame, minutes: float, every: int, checkpoint: str, log: str, variant: str
) -> None:
    start = time.perf_counter()
    if Path(checkpoint).exists():
        state = CFRPlus.load(game, checkpoint)
    else:
        state = CFRPlus.start(game, variant)
    print(f"start at iteration {state.iteration}, {state.where.rows} rows", flush=True)
    while time.perf_counter() - start < 60 * minutes:
        began = time.perf_counter()
        state.run(every)
        stepped = time.perf_counter()
        state.save(checkpoint)
        proof = state.certify()
        line = json.dumps(
            {
                "game": [game.n, game.order.name, game.objective.name],
                "variant": state.variant,
                "iteration": state.iteration,
                "epsilon": round_up(proof.epsilon),
                "nash_conv_float": float(proof.nash_conv),
                "error_bound": proof.error_bound,
                "s_per_iteration": round((stepped - began) / every, 3),
                "certify_s": round(proof.seconds, 2),
                "elapsed_s": round(time.perf_counter() - start, 1),
                "peak_rss_mib": peak_mib(),
                "utc": time.strftime("%H:%M:%S", time.gmtime()),
            }
        )
        print(line, flush=True)
        if log:
            with open(log, "a") as fh:
                fh.write(line + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("lp", "cfr"))
    parser.add_argument("n", type=int)
    parser.add_argument("order")
    parser.add_argument("--objective", default="points")
    parser.add_argument("--policy-out")
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--checkpoint", default="cfr.npz")
    parser.add_argument("--log", default="")
    parser.add_argument("--variant", default="pcfr+")
    parser.add_argument("--solver", default="simplex", help="HiGHS: simplex or ipm")
    args = parser.parse_args()
    game = ImperfectGame.parse(args.n, args.order, args.objective)
    if args.kind == "lp":
        run_lp(game, args.policy_out, args.solver)
    else:
        run_cfr(game, args.minutes, args.every, args.checkpoint, args.log, args.variant)


if __name__ == "__main__":
    main()
