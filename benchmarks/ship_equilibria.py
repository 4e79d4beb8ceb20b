"""Write the shipped equilibria of imperfect-information Goofspiel
(exact/imperfect/equilibria/, exact.imperfect.shipped) and print what each cost.

    python benchmarks/ship_equilibria.py                 # every game of GAMES
    python benchmarks/ship_equilibria.py 6:descending:win  # one game (N:ORDER:OBJECTIVE)

Each game is solved in a child process of its own (its peak memory is its own): exactly
(the sequence-form LP made exact, exact.imperfect.exact_lp) where that is in reach, else
the float LP (HiGHS's interior point and crossover) whose NashConv is then proven.  The
table: game, method, seconds, peak RSS, proven NashConv, the compressed file's bytes.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

#: The games shipped, and how each is solved: exact (the exact LP) or lp (float LP,
#: NashConv proven).
GAMES = [
    *[(n, order, objective, "exact") for n in (3, 4, 5) for order in ("descending", "ascending")
      for objective in ("points", "win")],
    *[(n, "random", objective, "exact") for n in (3, 4) for objective in ("points", "win")],
    *[(6, order, objective, "lp") for order in ("descending", "ascending")
      for objective in ("points", "win")],
]  # fmt: skip


def one(n: int, order: str, objective: str, method: str) -> dict:
    """Solve and ship one game (in this process); the facts of the table."""
    from exact.imperfect.certified import solve_certified
    from exact.imperfect.exact_lp import solve
    from exact.imperfect.game import ImperfectGame
    from exact.imperfect.shipped import ship

    game = ImperfectGame.parse(n, order, objective)
    start = time.perf_counter()
    if method == "exact":
        found = solve(game)
        how = "the sequence-form LP made exact (HiGHS's vertex solved again in rationals)"
    else:
        found = solve_certified(game, "bound", solver="ipm")
        how = (
            "the sequence-form LP in float64 (HiGHS interior point and crossover; the basis "
            "re-solved by sparse LU with refinement), its policy on the grid 2^-52"
        )
    solved = time.perf_counter() - start
    command = f"python benchmarks/ship_equilibria.py {n}:{order}:{objective}"
    entry = ship(game, found.policy_json(), how, command, {"solve": round(solved, 2)})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {**entry, "peak_mib": round(peak), "total_seconds": time.perf_counter() - start}


def main(argv: list[str]) -> None:
    if argv[:1] == ["--one"]:
        n, order, objective, method = argv[1:]
        print(json.dumps(one(int(n), order, objective, method)))
        return
    wanted = [tuple(a.split(":")) for a in argv]
    games = [g for g in GAMES if not wanted or (str(g[0]), g[1], g[2]) in wanted]
    if wanted and len(games) != len(wanted):
        sys.exit(f"unknown games: {argv} (the games shipped: {GAMES})")
    header = ("game", "method", "seconds", "peak MiB", "NashConv <=", "bytes")
    print("{:<24} {:<6} {:>8} {:>9} {:>12} {:>9}".format(*header))
    for n, order, objective, method in games:
        child = subprocess.run(
            [sys.executable, __file__, "--one", str(n), order, objective, method],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        facts = json.loads(child.stdout.splitlines()[-1])
        print(
            f"{f'{n} {order} {objective}':<24} {method:<6} {facts['total_seconds']:>8.1f} "
            f"{facts['peak_mib']:>9} {facts['nash_conv_float']:>12.2e} {facts['bytes']:>9,}",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
