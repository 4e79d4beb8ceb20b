"""The halved store against the full layout of an older revision, measured in one run.

    python benchmarks/bench_halved_store.py --baseline eed7f32 [--games points:10,win:9]

For each game, the baseline revision (every antisymmetric pair stored twice) and this
checkout solve into a fresh store, one after the other in fresh processes; then every level
of the new store is compared with the record columns of the old one (the patterns
p <= swap p, :class:`exact.game.encoding.Columns`): the largest difference, which must be
within the level's certified radius (the kernels are unchanged, so it is 0: identical
bits), and the bytes of both stores.  Prints a table.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from exact.game.encoding import build_levels  # noqa: E402


def solve_store(tree: Path, objective: str, n: int, root: Path) -> float:
    """Seconds of ``gops solve N --store root`` run from ``tree`` (its own package)."""
    t0 = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "exact.cli",
            "solve",
            str(n),
            "--objective",
            objective,
            "--store",
            str(root),
            "--quiet",
        ],
        cwd=tree,
        check=True,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        capture_output=True,
    )
    return time.perf_counter() - t0


def store_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.glob("level-*.npy"))


def compare(old: Path, new: Path, n: int) -> tuple[float, float]:
    """(largest |new - old record column|, smallest radius of a level with a difference)
    over every level; NaN (never looked up) must match NaN."""
    manifest = json.loads((new / "manifest.json").read_text())
    worst, within = 0.0, np.inf
    for level in build_levels(n):
        k = level.k
        a = np.load(old / f"level-{k}.npy")[:, level.record_patterns]
        b = np.load(new / f"level-{k}.npy")
        if a.shape != b.shape or not (np.isnan(a) == np.isnan(b)).all():
            raise SystemExit(f"level {k}: shapes {a.shape} {b.shape} or NaN positions differ")
        d = float(np.nanmax(np.abs(a - b), initial=0.0))
        if d > 0:
            within = min(within, manifest["levels"][str(k)]["radius"])
        worst = max(worst, d)
    return worst, within


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="git revision of the full layout")
    ap.add_argument("--games", default="points:10,points:11,win:8,win:9")
    args = ap.parse_args()
    games = [(g.split(":")[0], int(g.split(":")[1])) for g in args.games.split(",")]
    print(
        f"{'game':>10} {'full MB':>9} {'halved MB':>9} {'ratio':>6} {'old s':>7} {'new s':>7}"
        f"  largest |difference|"
    )
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
        old_tree = Path(tmp) / "baseline"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old_tree), args.baseline],
            check=True,
            capture_output=True,
        )
        try:
            for objective, n in games:
                old, new = Path(tmp) / f"old-{objective}{n}", Path(tmp) / f"new-{objective}{n}"
                t_old = solve_store(old_tree, objective, n, old)
                t_new = solve_store(ROOT, objective, n, new)
                diff, radius = compare(old, new, n)
                b_old, b_new = store_bytes(old), store_bytes(new)
                verdict = (
                    "0 (identical bits)"
                    if diff == 0
                    else (f"{diff:.1e} (radius {radius:.1e})" + ("" if diff <= radius else " OVER"))
                )
                print(
                    f"{objective:>6} {n:>3} {b_old / 1e6:>9.1f} {b_new / 1e6:>9.1f} "
                    f"{b_new / b_old:>6.3f} {t_old:>7.1f} {t_new:>7.1f}  {verdict}",
                    flush=True,
                )
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old_tree)],
                capture_output=True,
            )


if __name__ == "__main__":
    main()
