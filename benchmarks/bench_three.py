"""Three-player GOPS: solve, certify and describe, by N, tie rule and objective.

    nice -n 10 python benchmarks/bench_three.py 4 [--rules split,third,discard]
        [--objectives points,top] [--json OUT] [--progress STAGES]

Prints one row per game: canonical positions, stage games (by how each was solved),
solve and NashConv CPU and wall seconds (the machine is shared: CPU seconds are the
measure), peak memory, the proven NashConv bound, each seat's value, the first move (P(bid
c) for each upcard, every seat alike at the symmetric start), and the reach-weighted mean
entropy (bits) of a player's mix in round 1 and over the game, with the chance of a tie for
the high bid.  Each row is printed (and, with --json, the file rewritten) as soon as it is
done.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

import exact.three as three
from exact.three.induction import play_statistics


def row(n: int, rule: str, objective: str, progress=None) -> dict:
    sol = three.solve(n, rule, objective, progress=progress)
    start, wall = time.process_time(), time.perf_counter()
    report = three.certify(sol)
    nc_seconds, nc_wall = time.process_time() - start, time.perf_counter() - wall
    stats = play_statistics(sol)
    hand = tuple(range(1, n + 1))
    first = {
        u: [round(float(p), 6) for p in sol.mixes((hand,) * 3, hand, (0,) * 3, u)[0]] for u in hand
    }
    return {
        "n": n,
        "tie_rule": rule,
        "objective": objective,
        "positions": sum(sol.level_counts().values()),
        "stages": dict(sorted(sol.methods.items())),
        "solve_cpu_s": round(sol.cpu_seconds, 2),
        "solve_wall_s": round(sol.seconds, 2),
        "nashconv_cpu_s": round(nc_seconds, 2),
        "nashconv_wall_s": round(nc_wall, 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "nashconv_bound": report.bound,
        "max_stage_regret": sol.max_stage_regret,
        "seat_value": [float(v) for v in sol.seat_values()],
        "first_move": first,
        "entropy_round1": stats.entropy_bits[0],
        "entropy_mean": sum(stats.entropy_bits[:-1]) / max(1, n - 1),
        "tie_for_high_mean": sum(stats.tie_for_high) / n,
        "three_way_tie_mean": sum(stats.three_way_tie) / n,
    }


def progress_every(every: int):
    """A progress callback printing (to stderr) the stage games solved and the CPU seconds
    every ``every`` stages (None for no progress)."""
    if not every:
        return None

    def progress(done: int) -> None:
        if done % every == 0:
            print(
                f"progress: {done} stages, {time.process_time():.0f} s CPU",
                file=sys.stderr,
                flush=True,
            )

    return progress


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("--rules", default="split,third,discard")
    ap.add_argument("--objectives", default="points")
    ap.add_argument("--json", default=None)
    ap.add_argument("--progress", type=int, default=0, help="report every this many stages")
    args = ap.parse_args()
    rows = []
    for objective in args.objectives.split(","):
        for rule in args.rules.split(","):
            r = row(args.n, rule, objective, progress_every(args.progress))
            rows.append(r)
            print(json.dumps(r), flush=True)
            if args.json:
                with open(args.json, "w") as fh:
                    json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
