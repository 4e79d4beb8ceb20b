"""The cluster path as a user runs it: `dask scheduler` and two `dask worker` started as
separate OS processes, then `gops solve N --store DIR --cluster tcp://HOST:PORT`.  One
worker is killed (SIGKILL) in the middle of a level; the command still exits 0 and every
level of its store is bit-identical to the one `gops solve N --store DIR2` writes alone.

The workers run without a nanny (``--no-nanny``), so the killed process is the worker
itself (its pid is the one the scheduler reports) and nothing replaces it: the parts it
held can only be finished by moving them to the other worker."""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

N = 9
CHUNK_ITEMS = 3000  # levels 4..7 of N = 9 in 7, 32, 42, 6 parts
KILL_LEVELS = (5, 6)  # most of the work: about a second each on the 2-core machine
BIN = Path(sys.executable).parent
DASK = shutil.which("dask", path=str(BIN))
GOPS = shutil.which("gops", path=str(BIN))
STARTUP_S = 90  # scheduler and workers up (a few seconds on the 2-core machine)
SOLVE_S = 240  # the cluster solve: about 10 s on the 2-core machine


def level_hashes(root, n):
    return [
        hashlib.sha256(Path(root, f"level-{k}.npy").read_bytes()).hexdigest() for k in range(n + 1)
    ]


def gops_cmd(*args):
    if GOPS:
        return [GOPS, *map(str, args)]
    return [
        sys.executable,
        "-c",
        "import sys; from exact.cli import main; sys.argv[0] = 'gops'; main()",
        *map(str, args),
    ]


def tail(path, chars=3000):
    try:
        return Path(path).read_text(errors="replace")[-chars:]
    except OSError:
        return "(no output)"


@pytest.mark.skipif(DASK is None, reason=f"no `dask` command in {BIN}")
def test_a_worker_killed_mid_level_on_a_cluster_started_from_the_shell(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    scheduler_file = tmp_path / "scheduler.json"
    procs: dict[str, subprocess.Popen] = {}
    client = None
    # Dask's scratch space (scheduler, workers) under tmp_path too, not /tmp/dask-scratch-space.
    env = {**os.environ, "DASK_TEMPORARY_DIRECTORY": str(tmp_path / "scratch")}

    def start(name, cmd):
        with open(logs / f"{name}.log", "w") as out:  # the child keeps its own copy
            procs[name] = subprocess.Popen(
                cmd,
                cwd=tmp_path,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                env=env,
            )

    def logs_of(*names):
        return "\n".join(f"--- {n} ---\n{tail(logs / f'{n}.log')}" for n in names)

    def alive_or_fail(*names):
        for n in names:
            if procs[n].poll() is not None:
                pytest.fail(f"{n} exited with {procs[n].returncode}\n{logs_of(n)}")

    try:
        # The single-process store, made while the cluster starts.
        ref = tmp_path / "s"
        start("single", gops_cmd("solve", N, "--store", ref, "--quiet"))
        # The scheduler closes itself after 2 idle minutes, and a worker whose scheduler
        # is gone exits: nothing outlives a test process that was itself killed.
        start(
            "scheduler",
            [
                DASK,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--dashboard-address",
                "127.0.0.1:0",
                "--scheduler-file",
                str(scheduler_file),
                "--idle-timeout",
                "120s",
            ],
        )
        deadline = time.monotonic() + STARTUP_S
        address = None
        while address is None:
            alive_or_fail("scheduler")
            if time.monotonic() > deadline:
                pytest.fail(f"no scheduler file after {STARTUP_S} s\n{logs_of('scheduler')}")
            try:  # written once the scheduler listens, but not atomically
                address = json.loads(scheduler_file.read_text())["address"]
            except (OSError, ValueError, KeyError):
                time.sleep(0.05)
        assert address.startswith("tcp://127.0.0.1:"), address
        for name in ("w0", "w1"):
            start(
                name,
                [
                    DASK,
                    "worker",
                    address,
                    "--nthreads",
                    "1",
                    "--nworkers",
                    "1",
                    "--no-nanny",
                    "--name",
                    name,
                    "--host",
                    "127.0.0.1",
                    "--no-dashboard",
                    "--local-directory",
                    str(tmp_path / name),
                    "--death-timeout",
                    "30s",
                ],
            )

        client = distributed.Client(address, timeout="60s")
        deadline = time.monotonic() + STARTUP_S
        while len(client.scheduler_info()["workers"]) < 2:
            alive_or_fail("scheduler", "w0", "w1")
            if time.monotonic() > deadline:
                pytest.fail(
                    f"2 workers not up after {STARTUP_S} s\n" + logs_of("scheduler", "w0", "w1")
                )
            time.sleep(0.1)
        by_name = {w["name"]: addr for addr, w in client.scheduler_info()["workers"].items()}
        pids = client.run(os.getpid)
        # Without a nanny the process started is the worker: the SIGKILL below is honest.
        assert {n: pids[by_name[n]] for n in ("w0", "w1")} == {
            n: procs[n].pid for n in ("w0", "w1")
        }

        try:  # done before the cluster solve starts: its two cores are the workers'
            assert procs["single"].wait(timeout=SOLVE_S) == 0, logs_of("single")
        except subprocess.TimeoutExpired:
            pytest.fail(f"the single-process solve still running after {SOLVE_S} s")

        root = tmp_path / "c"
        t0 = time.monotonic()
        start(
            "gops",
            gops_cmd(
                "solve", N, "--store", root, "--cluster", address, "--chunk-items", CHUNK_ITEMS
            ),
        )

        # Kill a worker once a level of many parts has begun and it holds one of them.
        deadline = time.monotonic() + SOLVE_S
        victim = level = None
        while victim is None:
            if procs["gops"].poll() is not None:
                pytest.fail(
                    f"gops solve ended ({procs['gops'].returncode}) before any part "
                    f"of levels {KILL_LEVELS} was seen\n" + logs_of("gops")
                )
            if time.monotonic() > deadline:
                pytest.fail(
                    f"no part of levels {KILL_LEVELS} done after {SOLVE_S} s\n"
                    + logs_of("gops", "w0", "w1")
                )
            started = [k for k in KILL_LEVELS if any((root / f"level-{k}.parts").glob("*.json"))]
            if started:
                processing = client.processing()
                busy = [n for n in ("w0", "w1") if processing.get(by_name[n])]
                if busy:
                    victim, level = busy[0], started[0]
                    break
            time.sleep(0.02)
        os.kill(procs[victim].pid, signal.SIGKILL)
        killed_at = time.monotonic() - t0
        # The kill landed inside the level: it was not yet recorded once the worker was gone.
        manifest = json.loads((root / "manifest.json").read_text())
        assert str(level) not in manifest["levels"], (
            f"level {level} finished before {victim} was killed; the kill came too late"
        )
        assert procs[victim].wait(timeout=30) == -signal.SIGKILL

        try:
            code = procs["gops"].wait(timeout=SOLVE_S)
        except subprocess.TimeoutExpired:
            pytest.fail(
                f"gops solve still running {SOLVE_S} s after the kill\n"
                + logs_of("gops", "scheduler", "w0", "w1")
            )
        assert code == 0, logs_of("gops", "scheduler", "w0", "w1")
        survivor = "w1" if victim == "w0" else "w0"
        # Nothing replaced the killed worker: the survivor alone finished the solve.
        assert list(client.scheduler_info()["workers"]) == [by_name[survivor]]
        alive_or_fail("scheduler", survivor)
        print(
            f"killed {victim} in level {level} at {killed_at:.1f} s; "
            f"solve done at {time.monotonic() - t0:.1f} s"
        )

        assert level_hashes(root, N) == level_hashes(ref, N)
        assert {
            k: v["sha256"]
            for k, v in json.loads((root / "manifest.json").read_text())["levels"].items()
        } == {
            k: v["sha256"]
            for k, v in json.loads((ref / "manifest.json").read_text())["levels"].items()
        }
        assert not list(root.glob("level-*.parts"))
    finally:
        if client is not None:
            client.close(timeout=10)
        for proc in procs.values():
            if proc.returncode is None:  # not reaped: its pid, so its group id, is still ours
                try:
                    os.killpg(proc.pid, signal.SIGKILL)  # its own session: children too
                except ProcessLookupError:
                    pass
            proc.wait(timeout=30)
