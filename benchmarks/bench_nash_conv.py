"""NashConv of goofspiel policies: our walk (exact.play.exploitability) against OpenSpiel's
``exploitability.nash_conv``, in the same run.

For each N and policy (uniform; the equilibrium of exact.solve; the equilibrium mixed 30 %
with uniform), both NashConv values and the seconds each took: OpenSpiel's, ours over
every history, ours keyed by position.  Medians of --repeats runs (OpenSpiel's at the
largest N is run --openspiel-repeats times: about 80 s each).

    python benchmarks/bench_nash_conv.py --n 4,5 --repeats 3 --openspiel-repeats 2
"""

from __future__ import annotations

import time

import harness

import exact
from exact.play.exploitability import nash_conv
from exact.play.openspiel import goofspiel_game, mixed_with_uniform, solution_policy


def perturbed(sol, game, weight=0.3):
    return mixed_with_uniform(solution_policy(sol, game), game, weight)


def timed(fn, repeats):
    runs, value = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = fn()
        runs.append(time.perf_counter() - t0)
    return value, harness.median(runs)


def main():
    from open_spiel.python.algorithms import exploitability
    from open_spiel.python.policy import UniformRandomPolicy

    ap = harness.parser(__doc__, repeats=3)
    ap.add_argument("--n", default="4,5", help="N, comma-separated")
    ap.add_argument("--openspiel-repeats", type=int, default=1)
    ap.add_argument("--policies", default="uniform,equilibrium,perturbed")
    args = ap.parse_args()
    print(
        "N | policy | OpenSpiel NashConv | ours | OpenSpiel s | ours, every history s | "
        "ours, by position s | speed-up (by position)"
    )
    print("---|---|---|---|---|---|---|---")
    for n in (int(x) for x in args.n.split(",")):
        game = goofspiel_game(n)
        sol = exact.solve(n)
        # A fresh policy for every run: the equilibrium's policy caches its mixes.
        policies = {
            "uniform": lambda game=game: UniformRandomPolicy(game),
            "equilibrium": lambda sol=sol, game=game: solution_policy(sol, game),
            "perturbed": lambda sol=sol, game=game: perturbed(sol, game),
        }
        for name in args.policies.split(","):
            fresh = policies[name]
            theirs, t_theirs = timed(
                lambda: exploitability.nash_conv(game, fresh()),  # noqa: B023
                args.openspiel_repeats,
            )
            ours, t_walk = timed(lambda: nash_conv(game, fresh()), args.repeats)  # noqa: B023
            keyed, t_keyed = timed(
                lambda: nash_conv(game, fresh(), by_position=True),  # noqa: B023
                args.repeats,
            )
            assert abs(ours - theirs) < 1e-12 and abs(keyed - theirs) < 1e-12, (ours, theirs)
            print(
                f"{n} | {name} | {theirs:.12g} | {ours:.12g} | {t_theirs:.2f} | "
                f"{t_walk:.2f} | {t_keyed:.2f} | {t_theirs / t_keyed:.0f}x",
                flush=True,
            )


if __name__ == "__main__":
    harness.main_with_wall_time(main)
