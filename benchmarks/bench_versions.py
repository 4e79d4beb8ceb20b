"""Speed of this checkout against an older revision, measured in the same run.

    python benchmarks/bench_versions.py --baseline 7edc548 [--repeats 3]

For each job (by default float N = 12, win N = 9 and exact ``certify 6``; ``--jobs`` picks
among those and float N = 11 and 13, ``--once`` names jobs run in the first repeat only,
e.g. N = 13 at 8 minutes a run) and each repeat, the baseline and this checkout run one
after the other in fresh processes (so machine noise hits both alike); each process
compiles or loads its numba kernels first, outside the timing.  The baseline is checked
out with ``git worktree`` into a temporary folder and removed after.
Prints the medians and the ratio new / old.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

JOBS = {
    "float N=11": "import exact; exact.solve(11)",
    "float N=12": "import exact; exact.solve(12)",
    "float N=13": "import exact; exact.solve(13)",
    "win N=9": "import exact; exact.solve(9, objective='win')",
    "certify 6": "import exact, tempfile, os; d = tempfile.mkdtemp(); "
    "exact.certify(6, os.path.join(d, 'c6.cert'))",
}
DEFAULT_JOBS = "float N=12,win N=9,certify 6"
# Public API only, so that any two layouts of the package compare.
WARM = (
    "import exact; exact.solve(3); exact.solve(3, objective='win'); "
    "exact.solve(3, arithmetic='rational')"
)


def time_job(tree: Path, code: str) -> float:
    script = (
        f"{WARM}\nimport time, json\nt0 = time.perf_counter()\n{code}\n"
        "print(json.dumps(time.perf_counter() - t0))"
    )
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="git revision to compare with")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--jobs", default=DEFAULT_JOBS, help="comma-separated job names")
    ap.add_argument("--once", default="", help="comma-separated jobs run in repeat 1 only")
    args = ap.parse_args()
    jobs = [j.strip() for j in args.jobs.split(",")]
    once = {j.strip() for j in args.once.split(",") if j.strip()}
    unknown = sorted((set(jobs) | once) - set(JOBS))
    if unknown:
        ap.error(f"unknown job {unknown[0]!r}; jobs: {', '.join(JOBS)}")
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "baseline"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old), args.baseline],
            check=True,
            capture_output=True,
        )
        try:
            times = {(j, v): [] for j in jobs for v in ("old", "new")}
            for rep in range(args.repeats):
                for job in jobs:
                    if rep and job in once:
                        continue
                    for label, tree in (("old", old), ("new", ROOT)):
                        t = time_job(tree, JOBS[job])
                        times[job, label].append(t)
                        print(f"# repeat {rep + 1}: {job:<11} {label}: {t:8.2f} s", flush=True)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)],
                capture_output=True,
            )
    print(f"\nbaseline {args.baseline}, medians of {args.repeats} (jobs in --once: 1 run)")
    print(f"{'job':<12} {'old s':>9} {'new s':>9} {'new/old':>8}")
    for job in jobs:
        a, b = statistics.median(times[job, "old"]), statistics.median(times[job, "new"])
        print(f"{job:<12} {a:>9.2f} {b:>9.2f} {b / a:>8.3f}")


if __name__ == "__main__":
    main()
