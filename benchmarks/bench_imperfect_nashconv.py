"""NashConv of the uniform policy in imperfect-information goofspiel: ours
(exact.imperfect.nashconv, float: the numba tables, with its error bound) against
OpenSpiel's ``exploitability.nash_conv`` on the turn-based goofspiel(imp_info=True), in
the same run.

Medians of --repeats runs each; ours after one warm-up call at N = 2 (numba loads its
compiled kernels from the cache once per process, about 0.3 s).  N = 5 random order takes
OpenSpiel minutes and GiBs: only with --random-5 (or --cases 5-random).  --ours-only
N,... (descending order) times ours alone.

    python benchmarks/bench_imperfect_nashconv.py --repeats 3
    python benchmarks/bench_imperfect_nashconv.py --repeats 1 --cases 5-random
    python benchmarks/bench_imperfect_nashconv.py --repeats 1 --cases none --ours-only 6,7
"""

from __future__ import annotations

import resource
import time

import harness

from exact.imperfect.game import ImperfectGame
from exact.imperfect.nashconv import nash_conv
from exact.imperfect.policy import openspiel_game, uniform_policy

CASES = [(4, "random"), (4, "descending"), (4, "ascending"), (5, "descending"), (5, "ascending")]


def timed(fn, repeats):
    runs, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = fn()
        runs.append(time.perf_counter() - start)
    return value, harness.median(runs)


def openspiel_nash_conv(game: ImperfectGame) -> float:
    from open_spiel.python.algorithms import exploitability
    from open_spiel.python.policy import UniformRandomPolicy

    turn_based = openspiel_game(game)
    return exploitability.nash_conv(turn_based, UniformRandomPolicy(turn_based))


def peak_mib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def main():
    ap = harness.parser(__doc__, repeats=3)
    ap.add_argument("--random-5", action="store_true", help="also N = 5 random (minutes)")
    ap.add_argument("--cases", default="all", help="'all', 'none', or N-ORDER,... (e.g. 5-random)")
    ap.add_argument("--ours-only", default="", help="N,... descending, ours alone")
    args = ap.parse_args()
    if args.cases in ("all", "none"):
        cases = [] if args.cases == "none" else CASES + [(5, "random")] * args.random_5
    else:
        cases = [(int(c.split("-")[0]), c.split("-", 1)[1]) for c in args.cases.split(",")]
    table = harness.Table(
        [
            ("N", ">2"),
            ("order", ">10"),
            ("OpenSpiel NashConv", ">19.15f"),
            ("ours", ">19.15f"),
            ("|difference|", ">12.1e"),
            ("our bound", ">9.1e"),
            ("OpenSpiel s", ">11.3f"),
            ("ours s", ">9.5f"),
            ("speed-up", ">8.0f"),
        ]
    )
    warm = ImperfectGame.parse(2, "descending", "points")
    nash_conv(warm, uniform_policy(warm), "float")
    if cases:
        print(table.head())
    for n, order in cases:
        game = ImperfectGame.parse(n, order, "points")
        theirs, their_s = timed(lambda game=game: openspiel_nash_conv(game), args.repeats)
        ours, our_s = timed(
            lambda game=game: nash_conv(game, uniform_policy(game), "float"), args.repeats
        )
        print(
            table.row(
                n,
                order,
                theirs,
                ours.value,
                abs(ours.value - theirs),
                ours.error_bound,
                their_s,
                our_s,
                their_s / our_s,
            ),
            flush=True,
        )
    for n in (int(x) for x in args.ours_only.split(",") if x):
        game = ImperfectGame.parse(n, "descending", "points")
        ours, our_s = timed(
            lambda game=game: nash_conv(game, uniform_policy(game), "float"), args.repeats
        )
        print(
            f"ours alone: N = {n} descending, uniform: NashConv {ours.value!r} "
            f"(bound {ours.error_bound:.1e}), median {our_s:.2f} s, peak RSS {peak_mib()} MiB",
            flush=True,
        )


if __name__ == "__main__":
    harness.main_with_wall_time(main)
