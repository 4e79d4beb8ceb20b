"""A store solve that outlives the command that started it, watched level by level.

A `device` call ends at its time limit and the machine stays warm for a few seconds after
it: a solve longer than one call is started here detached (its own process session), and
the next call, run with the same arguments, attaches to it instead of starting another.
Either call watches the store until the job is done or ``--seconds`` have passed, and
writes to ``--out``:

- ``timeline.jsonl``: one record per poll (seconds since the job started, the levels the
  manifest lists as complete, the items recorded as finished in the level under way,
  the store's bytes on disk, the GPU's memory in use), and one per level as it completes;
- ``job.log``: the job's output (`gops solve`, then `gops table --certified`, both
  texts and JSON), copied at every poll so that a call killed at its limit still brings
  back the latest.

The job: ``gops solve N --device D --store STORE [--keep-from K] [--objective O]``, then
``gops table N --store STORE --certified [--objective O]`` (text and ``--json``); the
file ``STORE.job/done`` holds the exit codes.

    python benchmarks/gpu/detached_solve.py 15 --keep-from 11 --store /tmp/s15 \
        --out "$OUT" --seconds 540
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

POLL_SECONDS = 5.0
GPU_POLL_SECONDS = 30.0


def job_script(args, job: Path) -> str:
    """The bash text of the job: solve, then the certified table, then ``done``."""
    py = shlex.quote(sys.executable)
    common = ["--objective", args.objective]
    solve = [
        "solve", str(args.n), "--device", args.device, "--store", str(args.store), *common
    ]  # fmt: skip
    if args.keep_from is not None:
        solve += ["--keep-from", str(args.keep_from)]
    if args.below_in_memory:
        solve += ["--below-in-memory"]
    if args.chunk_items is not None:
        solve += ["--chunk-items", str(args.chunk_items)]
    table = ["table", str(args.n), "--store", str(args.store), "--certified", *common]
    q = " ".join
    cli = f"{py} -m exact.cli"
    return "\n".join(
        [
            "set -u",
            f'echo "job: {q(shlex.quote(a) for a in solve)}"; date -u +%FT%TZ',
            f"{cli} {q(shlex.quote(a) for a in solve)}; s=$?",
            'echo "solve exit $s"; date -u +%FT%TZ',
            "t=-",
            f"if [ $s -eq 0 ]; then {cli} {q(shlex.quote(a) for a in table)}"
            f" > {job}/table.txt; t=$?; cat {job}/table.txt;"
            f" {cli} {q(shlex.quote(a) for a in table)} --json > {job}/table.json; fi",
            'echo "table exit $t"; date -u +%FT%TZ',
            f'echo "solve=$s table=$t" > {job}/done.tmp && mv {job}/done.tmp {job}/done',
        ]
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def start_or_attach(args, job: Path) -> float:
    """Start the job (detached) unless one is running or done; its start time (epoch s)."""
    job.mkdir(parents=True, exist_ok=True)
    started = job / "t0"
    pid_file = job / "pid"
    if (job / "done").exists() or (pid_file.exists() and alive(int(pid_file.read_text()))):
        return float(started.read_text())
    script = job / "job.sh"
    script.write_text(job_script(args, job) + "\n")
    with open(job / "job.log", "ab") as log:  # the child keeps its own descriptor
        proc = subprocess.Popen(
            ["bash", str(script)], stdout=log, stderr=log, start_new_session=True
        )
    t0 = time.time()
    started.write_text(f"{t0}\n")
    pid_file.write_text(f"{proc.pid}\n")
    return t0


def gpu_memory_mib() -> int | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=10,
        )  # fmt: skip
        return int(out.stdout.split()[0])
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        return None


def store_state(store: Path) -> tuple[list[int], dict]:
    """(levels the manifest lists as complete, {level: items recorded as finished})."""
    try:
        levels = sorted(int(k) for k in json.loads((store / "manifest.json").read_text())["levels"])
    except (OSError, ValueError, KeyError):
        levels = []
    progress = {}
    for path in store.glob("level-*.progress"):
        try:
            progress[int(path.name.split("-")[1].split(".")[0])] = int(path.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return levels, progress


def disk_bytes(store: Path) -> int:
    total = 0
    for path in store.glob("*"):
        try:
            total += path.stat().st_blocks * 512
        except OSError:
            pass
    return total


def watch(args, job: Path, t0: float) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    deadline = time.time() + args.seconds
    seen: set[int] = set()
    last_gpu = 0.0
    with open(out / "timeline.jsonl", "a") as timeline:
        while True:
            now = time.time()
            levels, progress = store_state(args.store)
            record = {"t": round(now - t0, 1), "levels": levels, "progress": progress}
            record["disk_bytes"] = disk_bytes(args.store)
            if now - last_gpu >= GPU_POLL_SECONDS:
                record["gpu_mib"] = gpu_memory_mib()
                last_gpu = now
            for k in sorted(set(levels) - seen):
                timeline.write(json.dumps({"t": record["t"], "level_done": k}) + "\n")
            seen |= set(levels)
            timeline.write(json.dumps(record) + "\n")
            timeline.flush()
            shutil.copy(job / "job.log", out / "job.log")
            done = (job / "done").exists()
            if done or now >= deadline:
                break
            time.sleep(POLL_SECONDS)
    for name in ("table.txt", "table.json", "done"):
        if (job / name).exists():
            shutil.copy(job / name, out / name)
    print((job / "job.log").read_text()[-6000:])
    state = (job / "done").read_text().strip() if done else f"no, running at {now - t0:.0f} s"
    print("done:", state)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("n", type=int)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seconds", type=float, required=True, help="watch this long at most")
    parser.add_argument("--keep-from", type=int)
    parser.add_argument("--below-in-memory", action="store_true")
    parser.add_argument("--chunk-items", type=int, help="items per kernel launch and checkpoint")
    parser.add_argument("--objective", default="points")
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    job = Path(f"{args.store}.job")
    t0 = start_or_attach(args, job)
    watch(args, job, t0)


if __name__ == "__main__":
    main()
