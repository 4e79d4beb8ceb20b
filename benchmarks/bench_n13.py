"""Scaling of the float solver into a store, N = 8..13, and the paper's Table 2 check.

For each N: canonical subgames, matrix games, wall time, peak memory (fresh process),
matrix games per second, store size on disk.  Then, for the largest N solved (13 when
--max-n 13), the first-move table is compared entry by entry with Rhoads & Bartholdi 2012,
Table 2, to 3 decimals, and every difference is listed.  A projection for N = 14..16 is
extrapolated from the measured growth of time per matrix game and of the counts.

    python benchmarks/bench_n13.py --max-n 13 --store-root /var/tmp/gops-stores

Resumes: an interrupted N=13 solve continues where it stopped when rerun with the same
--store-root.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paper_tables import TABLE_2  # noqa: E402

CHILD = """
import json, sys, time
from exact.kernels.points import warm_up
from exact.dp.store import solve_into_store
from exact.game.spec import GameSpec
from exact.dp.solve import peak_memory_bytes
from exact.game.encoding import build_levels
warm_up()
n, root = int(sys.argv[1]), sys.argv[2]
t = time.perf_counter()
solve_into_store(GameSpec.parse(n), root)
seconds = time.perf_counter() - t
levels = build_levels(n)
print(json.dumps({"seconds": seconds, "peak": peak_memory_bytes(),
                  "subgames": sum(l.subgames for l in levels),
                  "matrix_games": sum(l.matrix_games for l in levels)}))
"""


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.glob("*") if p.is_file())


def compare_table_2(store: Path) -> list[str]:
    import exact

    table = exact.load(store, n=13).first_move_table()
    lines, worst = [], 0.0
    for bid in range(1, 14):
        for u in range(1, 14):
            ours, paper = table[u][bid], TABLE_2[bid - 1][u - 1]
            worst = max(worst, abs(ours - paper))
            if round(ours, 3) != paper:
                lines.append(f"bid {bid}, upcard {u}: ours {ours:.5f}, paper {paper:.3f}")
    header = (
        f"Table 2 (N=13): {169 - len(lines)} of 169 entries equal to 3 decimals; "
        f"largest |ours - paper| = {worst:.5f}"
    )
    return [header] + lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min-n", type=int, default=8)
    ap.add_argument("--max-n", type=int, default=13)
    ap.add_argument("--store-root", type=Path, default=Path("/var/tmp/gops-stores"))
    args = ap.parse_args()
    rows = []
    print(
        f"{'N':>3} {'subgames':>14} {'matrix games':>15} {'wall s':>9} {'peak MiB':>9} "
        f"{'games/s':>12} {'store MB':>9}"
    )
    for n in range(args.min_n, args.max_n + 1):
        root = args.store_root / f"n{n}"
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(n), str(root)],
            check=True,
            capture_output=True,
            text=True,
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        r["n"], r["disk"] = n, dir_bytes(root)
        rows.append(r)
        print(
            f"{n:>3} {r['subgames']:>14,} {r['matrix_games']:>15,} {r['seconds']:>9.1f} "
            f"{r['peak'] / 2**20:>9.0f} {r['matrix_games'] / r['seconds']:>12,.0f} "
            f"{r['disk'] / 1e6:>9.1f}",
            flush=True,
        )
    if len(rows) >= 2:
        a, b = rows[-2], rows[-1]
        per_game = b["seconds"] / b["matrix_games"]
        growth = (b["seconds"] / b["matrix_games"]) / (a["seconds"] / a["matrix_games"])
        from math import comb

        from exact.game.encoding import pattern_count

        print(
            "projection (time per matrix game grows by the last measured factor "
            f"{growth:.2f} per N; largest two levels in memory, all levels on disk):"
        )
        for n in range(b["n"] + 1, 17):
            games = sum(comb(n, k) * k * (pattern_count(n, k) - 1) // 2 for k in range(1, n + 1))
            per_game *= growth
            biggest = max(comb(n, k) * pattern_count(n, k) for k in range(n + 1))
            disk = sum(comb(n, k) * pattern_count(n, k) for k in range(n + 1)) * 8
            print(
                f"{n:>3} matrix games {games:.3e}  time {games * per_game / 3600:8.1f} h  "
                f"memory {2 * biggest * 8 / 2**30:6.1f} GiB  disk {disk / 2**30:7.1f} GiB"
            )
    if rows and rows[-1]["n"] == 13:
        for line in compare_table_2(args.store_root / "n13"):
            print(line)


if __name__ == "__main__":
    t0 = time.time()
    main()
    print(f"(benchmark wall time {time.time() - t0:.0f} s)")
