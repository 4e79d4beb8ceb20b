"""Memory of `gops solve N --store DIR`: what the process holds, and whether it finishes
when the machine's memory is smaller than the two levels it works on.

Each run is a fresh `gops solve N --store DIR --quiet` into an empty folder.  While it runs
its /proc status is sampled every 0.2 s: peak anonymous memory (RssAnon: the process's own
memory, which cannot be dropped without swap) and peak file-backed resident memory
(RssFile: pages of the mapped level files, i.e. page cache, which the system may drop and
reread).  With ``--limits``, the run is repeated inside a Linux memory cgroup (v1) of each
limit, which counts page cache too: a limit smaller than the largest pair of adjacent
levels forces the system to drop and reread pages of the levels, the way a machine with
less memory would.  The first run, without a limit, is the baseline of the same session.
Every run's levels are compared (SHA-256) with the baseline's, or with those of a finished
store given as ``--reference`` (then no baseline is run).

    sudo python benchmarks/bench_store_memory.py --n 13 --limits 2.1,1.2
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import harness

GIB = 2**30
CGROUP_V1 = Path("/sys/fs/cgroup/memory")


def sample(pid: int, peaks: dict) -> None:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key in ("RssAnon", "RssFile", "VmHWM"):
            peaks[key] = max(peaks.get(key, 0), int(value.split()[0]) * 1024)


def run(n: int, root: Path, limit: float | None) -> dict:
    """One solve into ``root`` (inside a cgroup of ``limit`` GiB when given)."""
    cgroup = None
    if limit is not None:
        cgroup = CGROUP_V1 / f"gops-bench-{os.getpid()}"
        cgroup.mkdir()
        (cgroup / "memory.limit_in_bytes").write_text(str(int(limit * GIB)))
    gops = Path(sys.executable).with_name("gops")
    t0 = time.perf_counter()
    child = subprocess.Popen(
        [str(gops), "solve", str(n), "--store", str(root), "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if cgroup is not None:  # the child has not allocated anything yet: it imports Python
        (cgroup / "cgroup.procs").write_text(str(child.pid))
    peaks: dict = {}
    while child.poll() is None:
        sample(child.pid, peaks)
        time.sleep(0.2)
    seconds = time.perf_counter() - t0
    err = child.stderr.read().strip()
    result = {
        "limit": limit,
        "seconds": seconds,
        "rc": child.returncode,
        "error": err[-300:],
        **peaks,
    }
    if cgroup is not None:
        stat = dict(line.split() for line in (cgroup / "memory.stat").read_text().splitlines())
        result["cgroup_peak"] = int((cgroup / "memory.max_usage_in_bytes").read_text())
        result["major_faults"] = int(stat.get("total_pgmajfault", stat.get("pgmajfault", 0)))
        cgroup.rmdir()
    return result


def level_digests(root: Path) -> dict:
    manifest = json.loads((root / "manifest.json").read_text())
    return {k: v["sha256"] for k, v in manifest["levels"].items()}


def main():
    ap = harness.parser(__doc__, n=13)
    ap.add_argument("--limits", default="", help="cgroup memory limits in GiB, comma-separated")
    ap.add_argument(
        "--work",
        type=Path,
        default=Path("/var/tmp"),
        help="folder for the stores (each removed after its run)",
    )
    ap.add_argument(
        "--reference",
        type=Path,
        help="a finished store of the same N to compare the levels with, instead "
        "of a first run without a limit",
    )
    args = ap.parse_args()
    limits = [float(x) for x in args.limits.split(",") if x]
    if args.reference is None:
        limits.insert(0, None)
    if len(limits) > 1 and not os.access(CGROUP_V1, os.W_OK):
        sys.exit(f"memory limits need a writable cgroup v1 hierarchy at {CGROUP_V1} (root)")
    from exact.dp.preflight import estimate, level_bytes
    from exact.game.spec import GameSpec

    sizes = [level_bytes(GameSpec.parse(args.n), k) for k in range(args.n + 1)]
    pair = max(sizes[k - 1] + sizes[k] for k in range(1, args.n + 1))
    print(
        f"N = {args.n}: largest pair of adjacent levels {pair / GIB:.2f} GiB; "
        f"pre-flight estimate: {estimate(GameSpec.parse(args.n)).describe()}"
    )
    print(
        f"{'limit GiB':>9} {'wall s':>8} {'peak anon GiB':>13} {'peak file GiB':>13} "
        f"{'cgroup peak GiB':>15} {'major faults':>12}  levels"
    )
    baseline = level_digests(args.reference) if args.reference else None
    for limit in limits:
        root = Path(tempfile.mkdtemp(prefix=f"gops-mem-{args.n}-", dir=args.work))
        try:
            r = run(args.n, root / "store", limit)
            digests = level_digests(root / "store") if r["rc"] == 0 else None
        finally:
            shutil.rmtree(root, ignore_errors=True)
        first = baseline is None
        if first:
            baseline = digests
        same = (
            "the baseline"
            if first and digests
            else f"identical to the {'reference' if args.reference else 'baseline'}"
            if digests and digests == baseline
            else f"FAILED (exit {r['rc']}): {r['error']}"
            if digests is None
            else "DIFFERENT"
        )
        print(
            f"{limit if limit else 'none':>9} {r['seconds']:>8.1f} "
            f"{r.get('RssAnon', 0) / GIB:>13.2f} {r.get('RssFile', 0) / GIB:>13.2f} "
            f"{r.get('cgroup_peak', 0) / GIB if limit else float('nan'):>15.2f} "
            f"{r.get('major_faults', 0):>12}  {same}",
            flush=True,
        )


if __name__ == "__main__":
    harness.main_with_wall_time(main)
