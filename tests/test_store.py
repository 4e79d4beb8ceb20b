"""The on-disk store (exact/store.py): round trip, resume after interruption (also after
kill -9), and clear errors for corrupted or mismatched stores."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from click.testing import CliRunner

import exact
import exact.encoding
from exact.cli import main
from exact.store import StoreError, solve_into_store


def assert_same_values(sol, ref):
    for k in range(ref.n + 1):
        assert np.array_equal(np.asarray(sol.values[k]), ref.values[k]), f"level {k}"


@pytest.mark.parametrize("n", [5, 8], ids=lambda n: f"N{n}")
def test_round_trip(tmp_path, solved, n):
    solve_into_store(n, tmp_path / "store", chunk_items=3000)
    sol, ref = exact.load(tmp_path / "store"), solved(n)
    assert_same_values(sol, ref)
    cards = set(range(1, n + 1))
    for u in cards:
        a, b = sol.strategy(cards, cards, cards, u), ref.strategy(cards, cards, cards, u)
        assert a.mine == b.mine and a.theirs == b.theirs and a.value == b.value


class Interrupt(Exception):
    pass


def test_resume_after_interruption_is_bit_identical(tmp_path, solved):
    """Stop at a checkpoint inside level 6, scribble past it, resume: identical arrays."""
    root = tmp_path / "store"
    seen = []

    def crash(level, items):
        seen.append(level.k)
        if level.k == 6 and seen.count(6) == 3:
            raise Interrupt

    with pytest.raises(Interrupt):
        solve_into_store(8, root, progress=crash, chunk_items=2000)
    done = int((root / "level-6.progress").read_text())
    assert done == 3 * 2000
    canonical = len(exact.encoding.build_levels(8)[6].canonical_patterns)
    partial = np.load(root / "level-6.npy", mmap_mode="r+")
    partial[done // canonical + 1:] = np.nan  # rows beyond the checkpoint: torn writes
    partial.flush()
    del partial
    solve_into_store(8, root)
    assert_same_values(exact.load(root), solved(8))


def test_resume_after_kill_9(tmp_path, solved):
    """kill -9 a real `gops solve 8 --store` mid-run, rerun the same command: identical."""
    root = tmp_path / "store"
    cmd = [sys.executable, "-m", "exact.cli", "solve", "8", "--store", str(root),
           "--chunk-items", "300", "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while not list(root.glob("level-6.progress")) and time.time() < deadline:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (root / "manifest.json").read_text().count('"8"')  # it really stopped early
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert_same_values(exact.load(root), solved(8))


@pytest.fixture
def store5(tmp_path):
    root = tmp_path / "s5"
    solve_into_store(5, root)
    return root


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def test_mismatched_n_is_exit_2(store5):
    code, out = run("table", 6, "--store", store5)
    assert code == 2 and "holds N=5, not N=6" in out and out.count("\n") == 1
    with pytest.raises(StoreError):
        solve_into_store(6, store5)


def test_corrupted_level_is_caught_by_checksum(store5):
    path = store5 / "level-4.npy"
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF
    path.write_bytes(bytes(data))
    code, out = run("table", 5, "--store", store5)
    assert code == 2 and "checksum" in out


def test_truncated_level(store5):
    path = store5 / "level-4.npy"  # the first-move table reads level 4
    path.write_bytes(path.read_bytes()[:100])
    code, out = run("table", 5, "--store", store5)
    assert code == 2 and "truncated" in out


def test_corrupted_manifest(store5):
    (store5 / "manifest.json").write_text("{not json")
    code, out = run("table", 5, "--store", store5)
    assert code == 2 and "corrupted" in out


def test_not_a_store(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    code, out = run("solve", 5, "--store", tmp_path, "--quiet")
    assert code == 2 and "not a store" in out
    code, out = run("table", 5, "--store", tmp_path / "missing")
    assert code == 2 and "no such store" in out
