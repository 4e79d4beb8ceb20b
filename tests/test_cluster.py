"""The cluster path (exact/dp/cluster.py) on a real Dask LocalCluster of 2 worker
processes: every level bit-identical to the single-process store, through a killed worker
and a killed client; the win objective in a store; the pre-flight refusal."""

import hashlib
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import exact
from exact.cli import main
from exact.dp.cluster import parse_cluster, parts_dir, solve_on_cluster
from exact.dp.preflight import BASE_MEMORY, check_fits, estimate, tables_bytes
from exact.dp.store import solve_into_store
from exact.errors import GopsInputError
from exact.game.encoding import build_levels
from exact.game.spec import GameSpec
from exact.kernels.points import CONTROLLED_BY_ME, RANDOM, child_columns, solved_patterns

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    import logging

    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def level_hashes(root, n):
    return [
        hashlib.sha256(Path(root, f"level-{k}.npy").read_bytes()).hexdigest() for k in range(n + 1)
    ]


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    """Single-process stores, one per (objective, N), made once."""
    made = {}

    def get(objective, n):
        if (objective, n) not in made:
            root = tmp_path_factory.mktemp(f"single-{objective}-{n}")
            solve_into_store(GameSpec.parse(n, objective), root)
            made[objective, n] = level_hashes(root, n)
        return made[objective, n]

    return get


@pytest.mark.parametrize("objective,n", [("points", 5), ("points", 9), ("win", 5), ("win", 7)])
def test_every_level_identical_to_the_single_process_store(client, single, tmp_path, objective, n):
    store, report = solve_on_cluster(
        GameSpec.parse(n, objective),
        tmp_path / "c",
        "local:2",
        part_items=10 if n <= 5 else 3000,
        client=client,
    )
    assert level_hashes(tmp_path / "c", n) == single(objective, n)
    assert not any(parts_dir(tmp_path / "c", k).exists() for k in range(n + 1))
    assert sum(parts for _, parts, _, _ in report.levels) > n  # levels were really split
    sol = exact.load(tmp_path / "c")
    assert sol.objective.name == objective and max(sol.radii) < 1e-11


@pytest.mark.parametrize("order", ["controlled-by-me", "descending"])
def test_prize_orders_on_the_cluster_identical_to_the_single_process_store(client, tmp_path, order):
    solve_into_store(GameSpec.parse(6, order=order), tmp_path / "s")
    solve_on_cluster(
        GameSpec.parse(6, order=order), tmp_path / "c", "local:2", part_items=7, client=client
    )
    assert level_hashes(tmp_path / "c", 6) == level_hashes(tmp_path / "s", 6)
    assert exact.load(tmp_path / "c").order.name == order


def test_a_killed_worker_changes_nothing(client, single, tmp_path):
    """SIGKILL one worker process once the level of most work has begun: its parts are
    recomputed elsewhere (Dask) and every level is the same as without a cluster."""
    pids = client.run(os.getpid)
    killed = []

    def progress(k, done, total, games):
        if k == 6 and done >= 1 and not killed:
            victim = sorted(pids.values())[0]
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    solve_on_cluster(
        GameSpec.parse(9),
        tmp_path / "c",
        "local:2",
        part_items=300,
        progress=progress,
        client=client,
    )
    assert killed
    assert level_hashes(tmp_path / "c", 9) == single("points", 9)
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it for the next tests


def test_a_killed_client_resumes_with_the_same_command(single, tmp_path):
    """kill -9 of `gops solve --cluster` (client, scheduler and workers: one process
    group) once parts are done; the same command finishes the solve, identically, and
    resumes: the levels recorded before the kill are not solved again, and of the level
    in progress only the parts without a note run now.  Its time is mostly the two starts
    of a LocalCluster (about 7 s each on the 2-core machine); the solve takes 3 s."""
    n = 9
    root = tmp_path / "c"
    cmd = [
        sys.executable,
        "-c",
        "import sys; from exact.cli import main; sys.argv[0] = 'gops'; main()",
        "solve",
        str(n),
        "--store",
        str(root),
        "--cluster",
        "local:2",
        "--chunk-items",
        "200",
    ]
    proc = subprocess.Popen(
        cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    try:
        while not list(root.glob("level-[6-9].parts/*.json")):
            assert proc.poll() is None and time.monotonic() < deadline, "no part was done"
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert not (root / f"level-{n}.npy").exists()
    recorded = {int(k) for k in json.loads((root / "manifest.json").read_text())["levels"]}
    assert set(range(6)) <= recorded and n not in recorded
    notes = {k: len(list(root.glob(f"level-{k}.parts/*.json"))) for k in range(n + 1)}

    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert level_hashes(root, n) == single("points", n)
    # "gops: level K/N: T parts (R run now), ..." for each level solved by the rerun.
    lines = {
        int(k): (int(t), int(r))
        for k, t, r in re.findall(
            rf"gops: level (\d+)/{n}: (\d+) parts? \((\d+) run now\)", done.stderr
        )
    }
    assert set(lines) == set(range(1, n + 1)) - recorded, done.stderr
    for k, (total, run_now) in lines.items():
        assert run_now == total - notes[k], (k, done.stderr)
    # The kill landed inside a level (level 6 has 84 parts, a second of work): its parts
    # done before the kill were kept, the others run by the rerun.
    assert any(0 < notes[k] < total for k, (total, _) in lines.items()), (notes, lines)


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def test_preflight_refuses_what_this_machine_cannot_hold(tmp_path):
    code, out = run("solve", 16, "--store", tmp_path / "s16")
    assert code == 2 and out.count("\n") == 1, out
    assert "does not fit this machine" in out and "--cluster" in out
    assert not (tmp_path / "s16").exists()  # nothing written


def _level_bytes(n: int, k: int) -> int:
    """A points level of a store, counted by hand: one float64 per prize set (C(n, k)) and
    per column.  Two k-card hands with t cards in common span 2k - t ranks: which t both
    hold, C(2k - t, t), then which k - t of the others are mine, C(2k - 2t, k - t); a
    column is a pattern and its mirror, the identical hands alone: (patterns + 1) / 2."""
    patterns = sum(
        math.comb(2 * k - t, t) * math.comb(2 * k - 2 * t, k - t)
        for t in range(k + 1)
        if 2 * k - t <= n
    )
    return 8 * (patterns + 1) // 2 * math.comb(n, k)


def test_preflight_names_what_is_short(tmp_path):
    """The pre-flight's memory (the largest two adjacent levels, plus the process) and disk
    (every level) against level sizes counted by hand, the count checked on a real store."""
    assert run("solve", 7, "--store", tmp_path / "s7", "--quiet")[0] == 0
    for k in range(8):
        stored = np.load(tmp_path / "s7" / f"level-{k}.npy", mmap_mode="r")
        assert stored.nbytes == _level_bytes(7, k)
    game = GameSpec.parse(14)
    est = estimate(game)
    sizes = [_level_bytes(14, k) for k in range(15)]
    pair = max(sizes[k - 1] + sizes[k] for k in range(1, 15))
    assert pair == sizes[8] + sizes[9] == 5_325_031_712  # 2.25 + 2.71 GiB
    process = BASE_MEMORY + tables_bytes(game)  # the interpreter and kernels, the tables
    assert est.memory_bytes == pair + process
    assert est.minimum_bytes == 0.7 * pair + process  # the page cache may hold less
    assert est.disk_bytes == sum(sizes)
    least = f"{(0.7 * pair + process) / 2**30:.1f}"
    with pytest.raises(GopsInputError, match=f"memory: at least {least} GiB needed, 4.0 GiB"):
        check_fits(est, "/nonexistent/store", memory=4 * 2**30, free=10**12)
    check_fits(est, "/nonexistent/store", memory=6 * 2**30, free=10**12)
    check_fits(estimate(GameSpec.parse(15)), "/nonexistent/store", memory=24 * 2**30, free=10**12)
    more = f"{sum(sizes) / 1e9:.1f}"  # the whole store, beside the 1.0 GB free
    with pytest.raises(GopsInputError, match=f"disk: about {more} GB more needed"):
        check_fits(est, "/nonexistent/store", memory=64 * 2**30, free=10**9)
    check_fits(est, "/nonexistent/store", cluster=True, memory=2**30, free=10**12)


@pytest.mark.parametrize("order", ["random", "controlled-by-me"])
def test_preflight_counts_the_transition_tables_a_solve_holds(order):
    """tables_bytes, computed from the counts alone, against the arrays a solve of N = 9
    holds: every level's tables and both column maps, and the largest level's child-column
    table (5 k^2 bytes a solved pattern, 9 k^2 while it is built)."""
    game = GameSpec.parse(9, order=order)
    antisymmetric = game.order.antisymmetric
    levels = build_levels(9)
    held = 0
    child_table = 0
    for level in levels:
        arrays = [level.pattern_keys, level.prize_masks, level.child, level.sign, level.swap]
        arrays += [level.prize_child, level.prize_card]
        for columns in (level.columns(antisymmetric), level.below_columns(antisymmetric)):
            arrays += [columns.patterns, columns.column, columns.mirror]
        held += sum(a.nbytes for a in arrays)
        solved = solved_patterns(level, RANDOM if antisymmetric else CONTROLLED_BY_ME)
        column, mirror = child_columns(level, solved, antisymmetric)
        child_table = max(child_table, (column.nbytes + mirror.nbytes) * 9 // 5)
    counted = tables_bytes(game)
    assert held + child_table <= counted <= 1.001 * (held + child_table), (counted, held)


@pytest.mark.parametrize("spec", ["local:0", "local:x", "tcp://nohost", "mpi:3", "local:"])
def test_bad_cluster_specs_are_one_line_errors(spec, tmp_path):
    with pytest.raises(GopsInputError):
        parse_cluster(spec)
    code, out = run("solve", 5, "--store", tmp_path / "s", "--cluster", spec)
    assert code == 2 and out.count("\n") == 1 and "--cluster" in out


def test_cluster_needs_a_store():
    code, out = run("solve", 5, "--cluster", "local:2")
    assert code == 2 and "--cluster needs --store" in out


def test_win_store_from_the_command_line(tmp_path):
    """`gops solve N --objective win --store` then table and strategy read it and print
    what the in-memory solve prints."""
    root = tmp_path / "w6"
    code, out = run("solve", 6, "--objective", "win", "--store", root, "--quiet")
    assert code == 0, out

    def answer(*args):
        """The JSON answer, and what it says of its source (only answers from a store
        have one: the level they read, re-derived from the level below)."""
        code, out = run(*args)
        assert code == 0, out
        data = json.loads(out)
        return data, data.pop("source", None)

    stored, source = answer("table", 6, "--objective", "win", "--store", root, "--json")
    assert (stored, source["level_read"]) == (
        answer("table", 6, "--objective", "win", "--json", "--quiet")[0],
        5,
    )
    pos = [
        "strategy",
        "--mine",
        "1,3,5",
        "--theirs",
        "2,4,5",
        "--deck",
        "1,2,5",
        "--upcard",
        "2",
        "--n",
        "6",
        "--objective",
        "win",
        "--lead",
        "-2",
        "--json",
    ]
    stored, source = answer(*pos, "--store", root)
    assert (stored, source["level_read"], source["unverified_levels"]) == (
        answer(*pos)[0],
        2,
        [0, 1],
    )
    sol, ref = exact.load(root), exact.solve(6, objective="win")
    for k in range(7):
        assert np.array_equal(np.asarray(sol.values[k]), ref.values[k], equal_nan=True)
    code, out = run("solve", 6, "--objective", "win", "--lead", 2, "--store", root)
    assert code == 2 and "no handicap" in out
    code, out = run("table", 6, "--store", root)  # a win store is not a points store
    assert code == 2 and "objective win, not points" in out


def test_a_damaged_part_is_refused_at_the_join(client, tmp_path):
    """A part recorded as done whose bytes changed since (its note keeps their SHA-256)
    is a one-line StoreError, never joined into a level."""
    from exact.dp.cluster import part_paths, parts_of, solve_part
    from exact.dp.store import Store, StoreError

    root = tmp_path / "s"
    solve_into_store(GameSpec.parse(6), root)
    store = Store.open(root)
    store.forget_level(6)
    level = store.levels[6]
    sha = store.manifest["levels"]["5"]["sha256"]
    parts = parts_of(level, store.objective.level_items(level) // level.prize_sets, 1)
    parts_dir(root, 6).mkdir()
    for r0, r1 in parts:
        solve_part(str(root), GameSpec.parse(6).to_json(), 6, r0, r1, store.radius(5), sha, 1)
    values, _ = part_paths(root, 6, *parts[0])
    data = bytearray(values.read_bytes())
    data[-1] ^= 1
    values.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="missing or damaged"):
        solve_on_cluster(GameSpec.parse(6), root, "local:2", client=client)


def test_a_forged_part_is_refused_at_the_join_of_a_resume(client, tmp_path):
    """A part recorded as done, edited by +0.5 with its note's SHA-256 recomputed (as a
    careful forger would): the resume re-derives the items of the parts it did not run
    (all of them: level 5 of N = 6 is small) and refuses the level, exit 1 (issue 36
    item 1a: nothing is built on what was not re-derived)."""
    from exact.dp.cluster import part_paths, parts_of, solve_part
    from exact.dp.store import Store, StoreContradicted, file_sha256

    root = tmp_path / "s"
    solve_into_store(GameSpec.parse(6), root)
    store = Store.open(root)
    store.forget_level(6)
    store.forget_level(5)
    level = store.levels[5]
    sha = store.manifest["levels"]["4"]["sha256"]
    parts = parts_of(level, store.objective.level_items(level) // level.prize_sets, 20)
    parts_dir(root, 5).mkdir()
    for r0, r1 in parts:
        solve_part(str(root), GameSpec.parse(6).to_json(), 5, r0, r1, store.radius(4), sha, 1)
    values, note = part_paths(root, 5, *parts[-1])
    rows = np.load(values)
    rows[rows != 0.0] += 0.5
    np.save(values, rows)
    data = json.loads(note.read_text())
    data["sha256"] = file_sha256(values)
    note.write_text(json.dumps(data))
    with pytest.raises(StoreContradicted, match="level 5, prizes .* stored .* re-derived"):
        solve_on_cluster(GameSpec.parse(6), root, "local:2", part_items=20, client=client)
    assert "5" not in json.loads((root / "manifest.json").read_text())["levels"]
