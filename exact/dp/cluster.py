"""Solve into a store on a Dask cluster: one task per block of prize-set rows of a level.

The DP is level by level (Rhoads & Bartholdi 2012, sec 3): level k reads only level k - 1,
and each of its values is a pure function of that level.  So a level splits into
independent *parts*, blocks of consecutive prize-set rows (the layout of a store level,
:mod:`exact.dp.store`), and a part is one task: a worker maps the level below from the
store (copy-on-write, nothing copied), runs the same numba kernel as the single-process
solver on its rows, and writes them to a part file.  The client waits for every part of
the level, joins them into the level file and records the level in the manifest; then the
next level starts.

The store lives where every worker can read and write it: a local folder for a
LocalCluster, a shared file system (NFS, Lustre, ...) for a cluster of machines.  Only
part files and small JSON notes are written by workers; the level file and the manifest
are written by the client alone, so no two processes ever write the same file.

Invariants (why a killed worker or a killed client loses nothing and changes no bit):

- A part is done iff its note ``level-K.parts/rows-R0-R1.json`` exists.  The note is
  written (atomically, fsynced) only after the part's ``.npy`` was written the same way,
  so a done part's data is durable.  A worker killed mid-part leaves at most a temporary
  file; Dask gives the task to another worker.
- A rerun of the same command finds the done parts of the level in progress and submits
  only the others.  Every part is computed by the same kernel from the same level below,
  item by item in the same order, so its bits are those of the single-process solver
  whoever computes it and whenever (the kernels' per-item sums do not depend on how the
  items are split, :mod:`exact.kernels.points`).
- The level file is joined from the parts, fsynced, checksummed and only then listed in
  the manifest (:class:`exact.dp.store.Store`); its parts are removed after that.  A
  client killed while joining reruns the join.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np

from exact.atomic import atomic_file
from exact.dp.drivers import require_closed
from exact.dp.objective import objective_of
from exact.dp.store import (
    Store,
    StoreError,
    file_sha256,
    level_file,
    open_checked_level,
    parts_folder,
)
from exact.errors import GopsInputError, SolverError
from exact.game.encoding import build_levels
from exact.game.spec import GameSpec

#: Kernel items per part when none is given: small enough for progress every few seconds
#: and for an even spread over workers, large enough that the per-task overhead
#: (scheduling, mapping the level below, writing a file) stays below ~1 %.
DEFAULT_PART_ITEMS = 1 << 17
#: Seconds a scheduler address may take to accept a TCP connection before it is refused.
CONNECT_SECONDS = 10.0


def parse_cluster(spec: str) -> tuple[str, int | str]:
    """``local:W`` -> ("local", W); ``tcp://HOST:PORT`` -> ("address", spec).

    >>> parse_cluster("local:2"), parse_cluster("tcp://10.0.0.5:8786")
    (('local', 2), ('address', 'tcp://10.0.0.5:8786'))
    """
    if spec.startswith("local:"):
        count = spec[len("local:") :]
        if not (count.isascii() and count.isdigit()) or not 1 <= int(count) <= 1024:
            raise GopsInputError(
                f"--cluster local:W needs a worker count W from 1 to 1024, got {spec!r}"
            )
        return "local", int(count)
    if spec.startswith(("tcp://", "tls://", "ucx://")) and ":" in spec.split("://", 1)[1]:
        return "address", spec
    raise GopsInputError(
        f"--cluster must be local:W or a scheduler address tcp://HOST:PORT, got {spec!r}"
    )


def use_threads(threads: int | None) -> None:
    """A task's numba threads: ``threads`` (None: leave numba's default), at most the
    number numba started with (NUMBA_NUM_THREADS)."""
    if threads:
        # NUMBA_NUM_THREADS: set by numba at import, absent from its type stubs.
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]


def parts_of(level, items_per_row: int, part_items: int) -> list[tuple[int, int]]:
    """The parts of a level: blocks [r0, r1) of prize-set rows of about ``part_items``
    kernel items each (at least one row).

    >>> from exact.game.encoding import build_levels
    >>> parts_of(build_levels(5)[2], 3, 9)
    [(0, 3), (3, 6), (6, 9), (9, 10)]
    """
    rows = max(1, part_items // max(1, items_per_row))
    return [(r0, min(level.prize_sets, r0 + rows)) for r0 in range(0, level.prize_sets, rows)]


def parts_dir(root, k: int) -> Path:
    return parts_folder(root, k)


def part_paths(root, k: int, r0: int, r1: int) -> tuple[Path, Path]:
    """(values, note) files of the part of rows [r0, r1) of level k."""
    stem = parts_dir(root, k) / f"rows-{r0}-{r1}"
    return stem.with_suffix(".npy"), stem.with_suffix(".json")


def read_note(root, k: int, r0: int, r1: int) -> dict | None:
    """The note of a done part (games, radius, the SHA-256 of its values file, seconds),
    or None if it is not done."""
    _, note = part_paths(root, k, r0, r1)
    try:
        data = json.loads(note.read_text())
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    ok = (
        isinstance(data, dict)
        and isinstance(data.get("games"), int)
        and isinstance(data.get("radius"), (int, float))
        and data["radius"] >= 0.0
        and isinstance(data.get("sha256"), str)
    )
    return data if ok else None


# -- the task, run on a worker -------------------------------------------------------------

_WORKER_CACHE: dict = {}


def _cached(key, make):
    """One object per worker process and key (the levels of N, the mapped level below):
    the tasks of a level all need the same ones."""
    if key not in _WORKER_CACHE:
        if key[0] == "below":  # one level below at a time
            for old in [k for k in _WORKER_CACHE if k[0] == "below"]:
                del _WORKER_CACHE[old]
        _WORKER_CACHE[key] = make()
    return _WORKER_CACHE[key]


def solve_part(
    root: str,
    game: dict,
    k: int,
    r0: int,
    r1: int,
    radius_below: float,
    below_sha256: str,
    threads: int | None,
) -> dict:
    """Solve rows [r0, r1) of level k of the store at ``root`` (the game of ``game``,
    :meth:`exact.game.spec.GameSpec.to_json`) into their part file, and return the part's
    note (also written next to it).  Runs on a Dask worker.

    ``below_sha256``, the checksum the manifest records for level k - 1, names the file
    the worker keeps mapped: a level recomputed since (a damaged one) is mapped anew."""
    use_threads(threads)
    described = GameSpec.from_json(game)
    objective = objective_of(described)
    levels = _cached(("levels", described.n), lambda: build_levels(described.n))
    level = levels[k]
    values, note = part_paths(root, k, r0, r1)
    t0 = time.perf_counter()
    # Copy-on-write map: writable (the kernels' one specialisation), nothing copied;
    # the store's checks (type, shape, the manifest's checksum) once per worker.
    below = _cached(
        ("below", root, k - 1, below_sha256),
        lambda: open_checked_level(
            level_file(root, k - 1),
            objective.level_shape(levels[k - 1]),
            below_sha256,
            "c",
        ),
    )
    out = objective.empty_rows(level, r0, r1)
    per_row = objective.level_items(level) // level.prize_sets
    games, radius = objective.solve_chunk(
        level, below, out, r0 * per_row, r1 * per_row, radius_below, row0=r0
    )
    require_closed(k, radius, f"rows {r0}..{r1 - 1}")
    with atomic_file(values, unique=True) as fh:  # a rerun task may write it at once
        np.save(fh, out)
    data = {
        "games": int(games),
        "radius": float(radius),
        "sha256": file_sha256(values),
        "seconds": time.perf_counter() - t0,
    }
    with atomic_file(note, "w", unique=True) as fh:
        fh.write(json.dumps(data))
    return data


# -- the client ----------------------------------------------------------------------------


@dataclass
class ClusterReport:
    """What a cluster solve did: per level (k, parts run now, games, seconds)."""

    workers: int
    levels: list = field(default_factory=list)

    @property
    def games(self) -> int:
        return sum(games for _, _, games, _ in self.levels)

    @property
    def seconds(self) -> float:
        return sum(seconds for *_, seconds in self.levels)


def connect(spec: str):
    """(client, cluster or None) for ``local:W`` or a scheduler address."""
    from dask.distributed import Client, LocalCluster  # dask: the cluster path only

    kind, arg = parse_cluster(spec)
    if kind == "local":
        cluster = LocalCluster(
            n_workers=arg,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        return Client(cluster), cluster
    reachable(str(arg))  # a refused or unreachable address fails here, in seconds
    try:
        return Client(arg, timeout="30s"), None
    except OSError as exc:  # no answer within the timeout
        raise GopsInputError(f"cannot reach the Dask scheduler at {arg}: {exc}") from None


def reachable(address: str, seconds: float = CONNECT_SECONDS) -> None:
    """GopsInputError (one line) unless something accepts a TCP connection at the host
    and port of ``address`` (tcp://HOST:PORT) within ``seconds``: a refused port answers
    at once, where Dask's client retries for its whole timeout and logs as it goes."""
    host, _, port = address.split("://", 1)[1].rpartition(":")
    host = host.strip("[]")
    if not (port.isascii() and port.isdigit()) or not 0 < int(port) < 65536:
        raise GopsInputError(f"--cluster {address}: the port must be 1 to 65535")
    try:
        socket.create_connection((host, int(port)), timeout=seconds).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise GopsInputError(f"cannot reach the Dask scheduler at {address}: {reason}") from None


def worker_threads(spec: str) -> int | None:
    """numba threads per task: a LocalCluster shares this machine's cores among its
    workers; on a cluster each worker (one per machine, ``--nthreads 1``) uses them all."""
    kind, arg = parse_cluster(spec)
    if kind == "local":
        return max(1, (os.cpu_count() or 1) // int(arg))
    return None


def solve_on_cluster(
    game: GameSpec,
    root,
    cluster: str,
    part_items: int | None = None,
    progress=None,
    on_repair=None,
    client=None,
    threads: int | None = None,
    store: Store | None = None,
) -> tuple[Store, ClusterReport]:
    """Solve the game (a float GameSpec without handicap, as every store holds) into the
    store at ``root`` on a Dask cluster (``local:W`` or a
    scheduler address), resuming whatever the store holds.  ``progress(k, done, total,
    games)`` is called once per level before its first part and after each part.

    ``client``: an existing ``dask.distributed.Client`` to use instead of connecting
    (tests, benchmarks); it is left open, and each task then uses ``threads`` numba
    threads (default: all the worker's cores).  ``store``: the store at ``root`` already
    open for the game (:meth:`Store.for_game`, as the CLI checks it before its estimate),
    so that its manifest is not read again.
    """
    from dask.distributed import as_completed  # dask: the cluster path only

    root = Path(root).resolve()
    part_items = part_items or DEFAULT_PART_ITEMS
    threads = worker_threads(cluster) if client is None else threads
    own = client is None
    if own:
        client, local = connect(cluster)  # first: an unreachable scheduler writes nothing
    try:
        if store is None:
            store = Store.for_game(root, game, on_repair=on_repair)
        store.create()
        objective, levels = store.objective, store.levels
        report = ClusterReport(workers=len(client.scheduler_info().get("workers", {})))
        radius_below = 0.0
        for level in levels:
            k = level.k
            if store.completed(level):
                radius_below = store.radius(k)
                # Parts left by a client killed between recording the level and removing them.
                shutil.rmtree(parts_dir(root, k), ignore_errors=True)
                continue
            t0 = time.perf_counter()
            store.check_resume(level)  # the kept level below, re-derived
            if k == 0:
                store.finish_level(0, store.open_level(level), 0.0)
                continue
            per_row = objective.level_items(level) // level.prize_sets
            parts = parts_of(level, per_row, part_items)
            parts_dir(root, k).mkdir(exist_ok=True)
            todo = [p for p in parts if read_note(root, k, *p) is None]
            done, games = len(parts) - len(todo), 0
            if progress is not None:
                progress(k, done, len(parts), 0)
            below_sha256 = store.sha256(k - 1)
            futures = [
                client.submit(
                    solve_part,
                    str(root),
                    game.to_json(),
                    k,
                    r0,
                    r1,
                    radius_below,
                    below_sha256,
                    threads,
                    pure=False,
                    retries=3,
                )
                for r0, r1 in todo
            ]
            for future in as_completed(futures):
                note = _result(future, k)
                done += 1
                games += note["games"]
                if progress is not None:
                    progress(k, done, len(parts), note["games"])
            resumed = [p for p in parts if p not in todo]  # done before this run
            radius_below = join_parts(store, level, parts, resumed)
            report.levels.append((k, len(todo), games, time.perf_counter() - t0))
    finally:
        if own:
            client.close()
            if local is not None:
                local.close()
    return store, report


def _result(future, k: int) -> dict:
    """A part's note; a task that failed on every worker it was given is a SolverError
    (one line: the command's rerun resumes with the parts already done)."""
    from distributed import KilledWorker  # dask: the cluster path only

    try:
        return future.result()
    except KilledWorker as exc:
        raise SolverError(
            f"level {k}: a part was lost with every worker that ran it ({exc}); "
            "rerun the same command to resume"
        ) from None


def check_resumed_parts(store: Store, level, out, resumed, radius: float) -> None:
    """The items of the parts a resume takes as done (their files and notes could have
    been rewritten together), re-derived from the stored level below as a resume checks a
    checkpoint (:meth:`exact.dp.store.Store.spot_check_kept`): StoreContradicted (exit 1)
    if one disagrees, before the level is recorded; else the level is kept in part as the
    store held it (a condition of the claims made from it)."""
    if not resumed or level.k == 0:
        return
    verifier = store.level_verifier(level.k, stored=out)
    starts = np.array([r0 * verifier.per_row for r0, _ in resumed])
    sizes = np.array([(r1 - r0) * verifier.per_row for r0, r1 in resumed])
    ends = np.cumsum(sizes)

    def item_of(index):
        part = np.searchsorted(ends, index, side="right")
        return starts[part] + index - (ends[part] - sizes[part])

    store.spot_check_kept(level.k, verifier, int(ends[-1]), radius, item_of, checkpoint=True)


def join_parts(store: Store, level, parts, resumed=()) -> float:
    """Copy the parts of a level into its level file, check the ``resumed`` ones (parts
    done before this run, :func:`check_resumed_parts`), record the level complete
    (checksum, radius) in the manifest, then remove the parts; returns its radius."""
    k = level.k
    out = store.open_level(level, write_empty=False)  # every row comes from a part
    radius = 0.0
    for r0, r1 in parts:
        values, _ = part_paths(store.root, k, r0, r1)
        note = read_note(store.root, k, r0, r1)
        try:
            rows = np.load(values, mmap_mode="r")
        except (OSError, ValueError, EOFError):
            rows = None
        want = (r1 - r0, *store.objective.level_shape(level)[1:])
        if (
            note is None
            or rows is None
            or rows.shape != want
            or rows.dtype != np.float64
            or file_sha256(values) != note["sha256"]
        ):
            raise StoreError(
                f"{values}: a part recorded as done is missing or damaged; "
                f"remove {parts_dir(store.root, k)} and rerun to redo the level"
            )
        out[r0:r1] = rows
        radius = max(radius, note["radius"])
    check_resumed_parts(store, level, out, resumed, radius)
    store.finish_level(k, out, radius)
    shutil.rmtree(parts_dir(store.root, k), ignore_errors=True)
    return radius
