"""`gops verify` beside the solve it checks, and the edits it catches, in one run.

    python benchmarks/bench_verify.py --n 12 [--repeats 3] [--sample 1000] [--root DIR]
    python benchmarks/bench_verify.py --n 12 --store DIR     # the edits only, on copies of DIR

For each repeat: a fresh `gops solve N --store` (the baseline), then `gops verify` of that
store in full and with ``--sample``; medians and the ratio verify / solve.  Then, on
copies of the store, each edit of the hostile review (a value of level N - 1 and of level
3 with the manifest's SHA-256 recomputed, a radius set to 0 on every level, one set to
1e300, a checksum that does not match) and the exit code and first line of `gops verify`
and of `gops table N --store --certified` for each: what a user would see.  Every command
is a fresh process (numba's cache warm: the first solve compiles, and is not counted).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from exact.dp.store import file_sha256


def gops(*args) -> tuple[int, str, float]:
    """(exit code, stdout + stderr, seconds) of one `gops` command in a fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "exact.cli", *map(str, args)], capture_output=True, text=True
    )
    return proc.returncode, proc.stdout + proc.stderr, time.perf_counter() - t0


def edit_value(root: Path, k: int) -> None:
    path = root / f"level-{k}.npy"
    values = np.load(path, mmap_mode="r+")
    index = tuple(np.argwhere(values != 0.0)[0])
    values[index] += 0.5
    values.flush()
    del values
    set_entry(root, k, "sha256", file_sha256(path))


def set_entry(root: Path, k, key: str, value) -> None:
    manifest = json.loads((root / "manifest.json").read_text())
    for level in [k] if k is not None else manifest["levels"]:
        manifest["levels"][str(level)][key] = value
    (root / "manifest.json").write_text(json.dumps(manifest))


def edits(n: int):
    """(name, function editing a store copy) of the hostile review."""
    return [
        (f"value of level {n - 1} + 0.5, SHA-256 recomputed", lambda r: edit_value(r, n - 1)),
        ("value of level 3 + 0.5, SHA-256 recomputed", lambda r: edit_value(r, 3)),
        ("every radius 0", lambda r: set_entry(r, None, "radius", 0.0)),
        (f"radius of level {n - 1} 1e300", lambda r: set_entry(r, n - 1, "radius", 1e300)),
        ("level 5's SHA-256 not its file's", lambda r: set_entry(r, 5, "sha256", "0" * 64)),
    ]


def first_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][:150] if lines else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=12)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sample", type=int, default=1000)
    ap.add_argument(
        "--root", default=None, help="Folder for the stores (default: a temporary one)."
    )
    ap.add_argument(
        "--store",
        default=None,
        help="Only the edits, on copies of this solved store of N (no timings).",
    )
    args = ap.parse_args()
    base = Path(args.root or tempfile.mkdtemp(prefix="bench-verify-"))
    n = args.n
    if args.store is not None:
        print_edits(n, Path(args.store), base)
        if args.root is None:
            shutil.rmtree(base)
        return
    gops("solve", 6, "--store", base / "warm", "--quiet")  # compile once, not counted
    solve, full, sample = [], [], []
    for i in range(args.repeats):
        store = base / f"s{n}"
        shutil.rmtree(store, ignore_errors=True)
        code, out, seconds = gops("solve", n, "--store", store, "--quiet")
        assert code == 0, out
        solve.append(seconds)
        code, out, seconds = gops("verify", store, "--quiet")
        assert code == 0, out
        full.append(seconds)
        code, out, seconds = gops("verify", store, "--quiet", "--sample", args.sample)
        assert code == 0, out
        sample.append(seconds)
        print(
            f"run {i + 1}: solve {solve[-1]:.1f} s, verify {full[-1]:.1f} s, "
            f"verify --sample {args.sample} {sample[-1]:.1f} s",
            flush=True,
        )
    med = statistics.median
    print(f"\n| N = {n} | median of {args.repeats} | runs |\n|---|---|---|")
    for name, runs in (
        (f"gops solve {n} --store (baseline)", solve),
        ("gops verify (every level re-derived)", full),
        (f"gops verify --sample {args.sample}", sample),
    ):
        print(f"| {name} | {med(runs):.1f} s | {', '.join(f'{x:.1f}' for x in runs)} |")
    print(f"| verify / solve | {med(full) / med(solve):.2f} | |")
    print_edits(n, base / f"s{n}", base)
    if args.root is None:
        shutil.rmtree(base)


def print_edits(n: int, store: Path, base: Path) -> None:
    """Each edit of :func:`edits` on a copy of ``store``: what verify and table say."""
    print("\n| edit | gops verify | gops table --store --certified |\n|---|---|---|")
    for name, edit in edits(n):
        copy = base / "edited"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(store, copy)
        edit(copy)
        vcode, vout, vsec = gops("verify", copy, "--quiet")
        tcode, tout, tsec = gops("table", n, "--store", copy, "--certified")
        print(
            f"| {name} | exit {vcode} in {vsec:.1f} s: {first_line(vout)} | exit {tcode} "
            f"in {tsec:.1f} s: {first_line(tout)} |",
            flush=True,
        )
    shutil.rmtree(base / "edited", ignore_errors=True)


if __name__ == "__main__":
    main()
