"""Write the shipped equilibria of imperfect-information Goofspiel
(exact/imperfect/equilibria/, exact.imperfect.shipped) and print what each cost.

    python benchmarks/ship_equilibria.py                 # every game of GAMES
    python benchmarks/ship_equilibria.py 6:descending:win  # one game (N:ORDER:OBJECTIVE)
    python benchmarks/ship_equilibria.py 7:descending:points --from FILE [--facts JSON]

Each game is solved in a child process of its own (its peak memory is its own): exactly
(the sequence-form LP made exact, exact.imperfect.exact_lp) where that is in reach, the
float LP (HiGHS's interior point and crossover) at 6 cards, the double oracle
(exact.imperfect.double_oracle) at 7 and 8; the float ones' NashConv is then proven.  The
7- and 8-card runs take hours, so they are run by ``gops imperfect solve N --method
oracle --checkpoint C --policy-out FILE`` (:data:`ORACLE_COMMAND`, resumable) and shipped
``--from`` the policy file, whose NashConv is proven again here (``--facts``: the solve's ``--json``
output, whose seconds, rounds and sizes go into the index).  The table: game, method,
seconds, peak RSS, proven NashConv, the compressed file's bytes.
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
    *[(5, "random", objective, "lp") for objective in ("points", "win")],
    *[(7, order, objective, "oracle") for order in ("descending", "ascending")
      for objective in ("points", "win")],
    (8, "descending", "points", "oracle"),
]  # fmt: skip
#: The commands that solve a 7- or 8-card game (then shipped --from its policy file).
ORACLE_COMMAND = {
    7: "gops imperfect solve 7 --order {order} --objective {objective} --method oracle "
    "--iterations 600 --certify bound --checkpoint oracle.npz --policy-out {file}",
    8: "gops imperfect solve 8 --order {order} --objective {objective} --method oracle "
    "--lift --restricted-solver pcfr+ --target 1e-3 --certify bound --checkpoint oracle.npz "
    "--policy-out {file}",
}
#: A game shipped from a run other than :data:`ORACLE_COMMAND`'s: its commands and method.
ORACLE_RUNS = {
    (7, "ascending", "points"): (
        "gops imperfect solve 7 --order ascending --objective points --method oracle --lift "
        "--restricted-solver pcfr+ --target 1e-6 --certify bound --checkpoint oracle.npz "
        "--policy-out {file} (31 rounds to 4.9e-6; a 32nd added no bid, and the run answers "
        "with its best policy)",
        "a double oracle over sequences (Bošanský et al. 2014) from the 6-card equilibrium "
        "lifted: restricted games solved approximately by predictive CFR+, grown by the "
        "tables' best responses until they added no bid, its policy on the grid 2^-52",
    ),
}


def _policy_file(path: str) -> dict:
    """The policy file written by the solve (checked, and its NashConv proven, by ship)."""
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def one(n: int, order: str, objective: str, method: str, source: str = "", facts: str = "") -> dict:
    """Solve (or read ``source``, a policy file, and ``facts``, its solve's JSON) and ship
    one game (in this process); the facts of the table."""
    from exact.imperfect.certified import solve_certified
    from exact.imperfect.exact_lp import solve
    from exact.imperfect.game import ImperfectGame
    from exact.imperfect.shipped import ship

    game = ImperfectGame.parse(n, order, objective)
    start = time.perf_counter()
    command = f"python benchmarks/ship_equilibria.py {n}:{order}:{objective}"
    if method == "oracle":
        from exact.imperfect.double_oracle import solve_double_oracle

        how = (
            "a double oracle over sequences (Bošanský et al. 2014): restricted sequence-form "
            "LPs (HiGHS) grown by the tables' best responses from a predictive CFR+ support "
            "guess, its policy on the grid 2^-52"
            if n <= 7
            else "a double oracle over sequences (Bošanský et al. 2014) from the 7-card "
            "equilibrium lifted: restricted games solved approximately by predictive CFR+, "
            "grown by the tables' best responses, its policy on the grid 2^-52"
        )
        if source:
            data = _policy_file(source)
            run_command, how = ORACLE_RUNS.get((n, order, objective), (ORACLE_COMMAND[n], how))
            command = run_command.format(order=order, objective=objective, file="FILE") + (
                f"; then {command} --from FILE --facts JSON"
            )
            run = _policy_file(facts) if facts else {}
            seconds = {"solve": run.get("seconds", {}).get("solve", 0.0)}
            sizes = run.get("sizes", {})
        else:
            found = solve_double_oracle(game, 600, method="bound")
            data = found.policy_json()
            seconds, sizes = {"solve": time.perf_counter() - start}, found.sizes
        extra = {"rounds": sizes.get("rounds"), "sequences": sizes.get("restricted_sequences")}
        entry = ship(game, data, how, command, seconds, extra=extra)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return {**entry, "peak_mib": round(peak), "total_seconds": time.perf_counter() - start}
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
    entry = ship(game, found.policy_json(), how, command, {"solve": round(solved, 2)})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {**entry, "peak_mib": round(peak), "total_seconds": time.perf_counter() - start}


def main(argv: list[str]) -> None:
    if argv[:1] == ["--one"]:
        n, order, objective, method, source, facts = argv[1:]
        print(json.dumps(one(int(n), order, objective, method, source, facts)))
        return
    source = facts = ""
    if "--from" in argv:
        at = argv.index("--from")
        source, argv = argv[at + 1], argv[:at] + argv[at + 2 :]
    if "--facts" in argv:
        at = argv.index("--facts")
        facts, argv = argv[at + 1], argv[:at] + argv[at + 2 :]
    wanted = [tuple(a.split(":")) for a in argv]
    games = [g for g in GAMES if not wanted or (str(g[0]), g[1], g[2]) in wanted]
    if wanted and len(games) != len(wanted):
        sys.exit(f"unknown games: {argv} (the games shipped: {GAMES})")
    header = ("game", "method", "seconds", "peak MiB", "NashConv <=", "bytes")
    print("{:<24} {:<6} {:>8} {:>9} {:>12} {:>9}".format(*header))
    for n, order, objective, method in games:
        child = subprocess.run(
            [sys.executable, __file__, "--one", str(n), order, objective, method, source, facts],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        row = json.loads(child.stdout.splitlines()[-1])
        print(
            f"{f'{n} {order} {objective}':<24} {method:<6} {row['total_seconds']:>8.1f} "
            f"{row['peak_mib']:>9} {row['nash_conv_float']:>12.2e} {row['bytes']:>9,}",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
