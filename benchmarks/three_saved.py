"""A saved three-player solution against solving it: load + first move, and the solve.

    nice -n 10 python benchmarks/three_saved.py [N] [--rule split] [--runs 5]
        [--file FILE] [--json OUT]

The baseline: N-card three-player GOPS (points, shuffled prizes) solved and its NashConv
certified, as ``gops solve N --players 3 --tie-rule R --save FILE`` does, then saved
(:mod:`exact.three.saved`), its seconds and the file's size printed; with ``--file FILE``
an existing saved file is read instead and no solve is timed.  Then, ``--runs`` times:

- load: :func:`exact.three.saved.load` (decompress, SHA-256, every check of the format);
- first move: the equilibrium computer's mix at the start (an
  :class:`exact.play.three.EquilibriumBot` on the loaded solution, a random upcard);
- cold: the same two in a fresh Python process, its imports included (``python -c``), as
  ``gops play`` or a first page request meets them.

The medians of the runs are printed (wall seconds; the machine may be shared: say so when
recording them).  The target (issue 50): load + first move under 1 s at N = 5.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from exact.game.variants import VariantPosition, get_variant

#: What a fresh process runs: load the file, play the first move (the imports counted).
COLD = """
import sys, time
start = time.perf_counter()
from exact.play.three import EquilibriumBot
from exact.three.saved import load
from exact.game.variants import VariantPosition, get_variant
saved = load(sys.argv[1])
n = saved.game.n
hand = frozenset(range(1, n + 1))
pos = VariantPosition(get_variant("three"), n, (hand,) * 3, hand, n, (0, 0, 0))
EquilibriumBot(saved.solution).mix(pos, 1)
print(time.perf_counter() - start)
"""


def first_move(path: Path) -> tuple[float, float, dict]:
    """Seconds to load ``path`` and to play the first move; the mix."""
    from exact.play.three import EquilibriumBot
    from exact.three.saved import load

    start = time.perf_counter()
    saved = load(path)
    loaded = time.perf_counter()
    n = saved.game.n
    hand = frozenset(range(1, n + 1))
    pos = VariantPosition(get_variant("three"), n, (hand,) * 3, hand, n, (0, 0, 0))
    mix = EquilibriumBot(saved.solution).mix(pos, 1)  # type: ignore[arg-type]
    return loaded - start, time.perf_counter() - loaded, mix


def cold(path: Path) -> float:
    out = subprocess.run(
        [sys.executable, "-c", COLD, str(path)], capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip())


def baseline(n: int, rule: str, path: Path) -> dict:
    """Solve, certify and save: what the saved file spares."""
    import exact.three as three
    from exact.three.saved import save

    start = time.perf_counter()
    sol = three.solve(n, rule)
    solved = time.perf_counter()
    report = three.certify(sol)
    certified = time.perf_counter()
    save(sol, report, path)
    return {
        "solve_s": round(solved - start, 2),
        "solve_cpu_s": round(sol.cpu_seconds, 2),
        "certify_s": round(certified - solved, 2),
        "save_s": round(time.perf_counter() - certified, 2),
        "stage_games": len(sol.stages),
        "nashconv_bound": report.bound,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, nargs="?", default=5)
    parser.add_argument("--rule", default="split")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--file", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    out: dict = {"n": args.n, "rule": args.rule, "runs": args.runs}
    with tempfile.TemporaryDirectory() as tmp:
        path = args.file
        if path is None:
            path = Path(tmp) / f"three-{args.n}-{args.rule}-points-random.gops3.xz"
            out["baseline"] = baseline(args.n, args.rule, path)
            print(f"baseline: {out['baseline']}", flush=True)
        out["file_bytes"] = os.path.getsize(path)
        loads, moves, colds = [], [], []
        for _ in range(args.runs):
            load_s, move_s, mix = first_move(path)
            loads.append(load_s)
            moves.append(move_s)
            colds.append(cold(path))
        out |= {
            "load_s": round(statistics.median(loads), 3),
            "first_move_s": round(statistics.median(moves), 4),
            "load_and_first_move_s": round(
                statistics.median(a + b for a, b in zip(loads, moves)), 3
            ),
            "cold_process_s": round(statistics.median(colds), 3),
            "first_mix": {str(c): round(p, 6) for c, p in mix.items()},
        }
    print(json.dumps(out, indent=1))
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
