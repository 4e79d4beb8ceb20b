"""A solved game on disk: per-level value arrays, checkpointed per chunk, resumable.

Files of a store directory (names: :mod:`exact.dp.store_files`)::

    manifest.json      the game, and each completed level's shape, SHA-256, radius
                       and backend (:mod:`exact.dp.manifest`)
    level-K.npy        float64 array of level K: values[prize rank, column] for the
                       points objective, values[prize rank, column, L + offset_K]
                       for the win objective (the real game: no handicap), one column
                       per antisymmetric pair of patterns (exact.game.encoding.Columns;
                       every pattern under a controlled prize order)
    level-K.progress   while level K is being built: its checkpoint
    level-K.parts/     while level K is being built on a cluster: its parts
                       (:mod:`exact.dp.cluster`)

One backend writes each level: a level in progress is the manifest's ``writer``'s, and a
solve on another backend restarts it.  A level a device wrote holds values whose bits may
differ from the CPU kernels' (a fused multiply-add), and its radius is the device's own
directed-rounding bound: :mod:`exact.dp.verify` checks such a level within its radius,
not bit for bit.

The frontier mode (``keep_from`` K, ``gops solve --keep-from K``) keeps the files of the
levels K..N only: level j < K is dropped (its file deleted, its entry marked "dropped", its
shape, checksum and radius kept) once level j + 1 is complete.  The manifest says
"dropped" before the file goes, so a crash between the two leaves a file that the next
solve deletes; a store opened to be read (:meth:`Store.open`) refuses such an entry, so that
every command reads it alike.  A resume then builds on the stored levels it can still read;
a kept level whose level below was dropped can no longer be re-derived (its checksum and
the values the rules fix are still checked, and the resume says that none of its items
was re-derived).

With ``below_in_memory`` the levels 0..K - 1 are never written: each is built in memory,
its entry (shape, the SHA-256 its .npy file would have, radius) recorded "dropped" once
complete, so the disk holds levels K..N only and the memory the largest pair of adjacent
levels below K.  A solve stopped before level K is complete starts again from level 0.

Invariants (what makes ``kill -9`` at any moment harmless):

- A level listed in the manifest is complete; its checksum is that of its .npy file.
- ``level-K.progress`` is replaced atomically (write a temporary file, fsync, rename) and
  only after the items it counts were flushed to ``level-K.npy``.  Items past the recorded
  count may be half written; they are recomputed on resume.
- Every item is a pure function of the completed level below, so recomputing it gives the
  same bits: a resumed run produces arrays identical to an uninterrupted one.
- The manifest itself is replaced atomically.
- A level file is allocated in full (``posix_fallocate``) before it is mapped: a full disk
  is an ``OSError`` at that moment (one line, exit 2), never a SIGBUS from a write through
  the map, and nothing already written is touched.
- Nothing is trusted that can be checked: every level's shape is compared with the shape
  that N implies (not only with the manifest's own entry), and a resume re-verifies each
  level it would skip (readable, right shape, right checksum, every value the rules fix)
  and recomputes a damaged one from the level below; a manifest that contradicts N is
  refused without writing anything.
- Nothing is built on what was not re-derived (:mod:`exact.dp.resume`): before a level is
  computed, the kept level below and the items a checkpoint takes as done are re-derived
  from their level below (:meth:`Store.check_resume`); a disagreement is
  StoreContradicted, and nothing is written.  The one exception, a frontier store's
  level K (its level below dropped), and what was re-derived of every kept level are
  recorded (:class:`~exact.dp.resume.ResumeCheck`) and stated by ``gops solve``.

Only the level being built and the one below it are mapped into memory, both as file
mappings (the one below copy-on-write, never written): their pages are the system's page
cache, not the process's own memory, so a machine whose memory holds the two levels solves
without rereading, and one that holds less still solves, rereading pages from disk.

This module is over 700 lines because a stored thing is one object (open, read, write,
check): :class:`Store` alone is about 600.  What it uses without its state lives beside it:
the files (:mod:`exact.dp.store_files`), the manifest (:mod:`exact.dp.manifest`) and the
checks of a resume (:mod:`exact.dp.resume`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal

import numpy as np

from exact.dp.device import CPU, Device, recorded_bit_exact
from exact.dp.drivers import solve_float_levels
from exact.dp.manifest import (
    CPU_BACKEND,
    MANIFEST,
    check_dropped,
    check_keep_from,
    check_radii,
    check_shapes,
    fresh_manifest,
    game_difference,
    game_of,
)
from exact.dp.manifest import read_manifest as _read_manifest
from exact.dp.objective import Objective, objective_of
from exact.dp.rederive import LevelVerifier, fixed_problem
from exact.dp.resume import (
    CHECKPOINT_ITEMS,
    CHECKSUM_ONLY,
    ResumeCheck,
    ResumePoint,
    resume_words,
    spot_check,
)
from exact.dp.solution import Solution
from exact.dp.store_files import (
    NotRegularFile,
    StoreContradicted,
    StoreError,
    allocate,
    atomic_write_text,
    hash_rows,
    level_file,
    missing_parent,
    non_finite,
    npy_sha256,
    parts_folder,
    path_kind,
    progress_file,
    read_checkpoint_hash,
    read_progress,
    require_regular_file,
    unreadable_reason,
)
from exact.errors import GopsInputError
from exact.game.encoding import build_levels
from exact.game.spec import GameSpec

__all__ = [
    "DEFAULT_CHUNK_ITEMS",
    "NotRegularFile",
    "Store",
    "StoreContradicted",
    "StoreError",
    "StoredLevels",
    "file_sha256",
    "level_file",
    "open_checked_level",
    "parts_folder",
    "progress_file",
    "require_regular_file",
    "resume_words",
    "solve_into_store",
]

#: Items per checkpoint (an item is a prize set and a canonical pattern: k matrix games).
DEFAULT_CHUNK_ITEMS = 1 << 20


def open_checked_level(
    path: Path, shape: tuple[int, ...], sha256: str | None, mode: Literal["r", "c"] = "r"
) -> np.ndarray:
    """A level file opened after checking that it is readable, holds float64 values of
    ``shape``, and (when ``sha256`` is given) matches that checksum.  StoreError naming
    what is wrong otherwise.

    ``mode`` is numpy's ``mmap_mode``: "r" maps it read-only; "c" maps it copy-on-write,
    the way the solver reads the level below: writable, so the kernels keep their one
    compiled specialisation, yet nothing is copied (they never write it) and its pages
    are the file's page cache, which the system may drop and reread, never private memory.
    """
    require_regular_file(path)
    try:
        arr = np.load(path, mmap_mode=mode)
    except OSError as exc:
        raise StoreError(f"{path} {unreadable_reason(exc)}") from None
    except (ValueError, EOFError):
        raise StoreError(f"{path} is truncated or corrupted (not a complete .npy array)") from None
    if not isinstance(arr, np.ndarray) or arr.dtype != np.float64 or arr.shape != shape:
        found = f"{arr.dtype} {list(arr.shape)}" if isinstance(arr, np.ndarray) else "no array"
        raise StoreError(
            f"{path} holds {found}, not float64 {list(shape)}: "
            "the file was replaced or belongs to another game"
        )
    if sha256 is not None and file_sha256(path) != sha256:
        raise StoreError(f"{path} does not match its checksum: the store is corrupted")
    return arr


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


class Store:
    """A store directory for one game (N, objective, order); see the module docstring.

    Made by :meth:`open` (a store to read: its manifest read and checked once) or
    :meth:`for_game` (a store to solve into, new or resumed).  It answers ``game``,
    ``levels``, ``complete``, ``radius(k)``, ``level(k)`` (mapped after its checks, once
    per store object) and :meth:`solution`; the file names are its ``*_path`` methods.

    It is the level sink of :func:`exact.dp.drivers.solve_float_levels` for a solve on disk
    (``completed``, ``below``, ``start``, ``checkpoint``, ``finish``).  ``on_repair(k,
    what)`` is told of every completed level found damaged (it is then recomputed).
    """

    def __init__(
        self,
        root,
        game: GameSpec,
        manifest: dict | None,
        levels=None,
        chunk_items: int = DEFAULT_CHUNK_ITEMS,
        on_repair=None,
        keep_from: int | None = None,
        below_in_memory: bool = False,
    ):
        """Use :meth:`open` or :meth:`for_game`: ``manifest`` is the store's, already read
        and checked (None: a new store, written by :meth:`create`, keeping the levels from
        ``keep_from`` up, or all)."""
        self.root = Path(root)
        #: The game stored (the real game: no handicap; float).
        self.game = game
        self.objective: Objective = objective_of(game)
        self._levels = levels
        self.on_repair = on_repair
        #: Whether the store is on disk (its manifest written).
        self.exists = manifest is not None
        self.manifest = (
            fresh_manifest(game, chunk_items, keep_from, below_in_memory)
            if manifest is None
            else manifest
        )
        self.chunk_items: int = self.manifest["chunk_items"]
        #: The lowest level whose file is kept (0: every level; the frontier mode's K).
        self.keep_from: int = self.manifest.get("keep_from", 0)
        #: Whether the levels below keep_from are built in memory only, never written.
        self.below_in_memory: bool = self.manifest.get("below_in_memory") is True
        #: The last level built in memory only ({k: values}): the level above reads it.
        self._memory: dict[int, np.ndarray] = {}
        #: The backend of this object's solve ({"backend": ..., ["device": ...]}).
        self.backend: dict = dict(CPU_BACKEND)
        #: The backend of the last solve into the store (whose checkpoint a level's is).
        self._previous_writer: dict = self.manifest.get("writer", CPU_BACKEND)
        #: Levels kept by this resume that could not be re-derived: their level below was
        #: dropped (the frontier mode).
        self.unrederived: list[int] = []
        #: Levels kept as stored (not re-derived by this run): every completed level found
        #: intact, and the level in progress if its checkpointed items were taken.
        self.kept: list[int] = []
        #: What this resume checked of each kept level (:class:`ResumeCheck`).
        self.checks: dict[int, ResumeCheck] = {}
        #: Per level being built: (prize sets hashed, the running SHA-256 of their bytes).
        self._chain: dict[int, tuple[int, hashlib._Hash]] = {}
        #: The levels read through :meth:`level`, each checked once.
        self._read: dict[int, np.ndarray] = {}
        #: Matrix games solved by this object's :meth:`solve`.
        self.games = 0

    @classmethod
    def open(cls, root) -> Store:
        """The store at ``root``, to read: its manifest read once and checked (the format,
        every level's shape against the one N implies, the radii no solve writes:
        :meth:`_check_radii`, the levels a frontier store drops: :meth:`_check_dropped`).
        StoreError (one line) otherwise; nothing is written.  Every command that reads a
        store opens it here, so each reads every level entry the same way."""
        manifest = _read_manifest(root)
        store = cls(root, game_of(manifest), manifest)
        store._check_shapes()
        store._check_radii()
        store._check_dropped()
        return store

    @classmethod
    def for_game(
        cls,
        root,
        game: GameSpec,
        chunk_items: int | None = None,
        levels=None,
        on_repair=None,
        keep_from: int | None = None,
        below_in_memory: bool = False,
    ) -> Store:
        """The store at ``root`` to solve ``game`` into (a float GameSpec without handicap):
        the one there, its manifest read once and checked against the game (N, objective,
        order) and the level shapes N implies; or a new one (no folder yet, or an empty
        one: ``exists`` False, written by :meth:`create`).  StoreError otherwise; nothing
        is written.  ``chunk_items`` applies to a new store (one there keeps its own);
        ``keep_from`` K (the frontier mode: the levels from K up kept) to a new store, and
        must be the one recorded by a store there (None: whatever it records);
        ``below_in_memory`` (with ``keep_from``): the levels below K never written."""
        check_keep_from(keep_from, game.n)
        if below_in_memory and keep_from is None:
            raise GopsInputError("--below-in-memory needs --keep-from K")
        manifest = _existing_manifest(root, game)
        if manifest is not None and keep_from is not None:
            held = manifest.get("keep_from", 0)
            if (manifest.get("below_in_memory") is True) != below_in_memory:
                raise StoreError(
                    f"{root} was made {'with' if not below_in_memory else 'without'} "
                    "--below-in-memory: rerun without --keep-from to resume it, or solve "
                    "into a new directory"
                )
            if held != keep_from:
                kept = f"--keep-from {held}" if held else "every level"
                raise StoreError(
                    f"{root} was made keeping {kept}, not --keep-from {keep_from}: rerun "
                    "without --keep-from to resume it, or solve into a new directory"
                )
        store = cls(
            root,
            game,
            manifest,
            levels,
            chunk_items or DEFAULT_CHUNK_ITEMS,
            on_repair,
            keep_from,
            below_in_memory,
        )
        if manifest is not None:
            store._check_shapes()
        return store

    @property
    def levels(self):
        """The levels of N (:func:`exact.game.encoding.build_levels`, built on first use:
        N = 16 takes minutes)."""
        if self._levels is None:
            self._levels = build_levels(self.game.n)
        return self._levels

    @property
    def complete(self) -> bool:
        """Whether every level 0..N is recorded complete."""
        return all(self.is_complete(k) for k in range(self.game.n + 1))

    # -- manifest ------------------------------------------------------------------------

    def create(self) -> None:
        """Write a new store's folder and manifest (nothing if it exists)."""
        if self.exists:
            return
        try:  # the store's own folder only: a mistyped parent is an error, not a path
            self.root.mkdir(exist_ok=True)
        except (FileNotFoundError, NotADirectoryError):
            raise missing_parent(self.root) from None
        self._save_manifest()
        self.exists = True

    def _check_shapes(self) -> None:
        """:func:`exact.dp.manifest.check_shapes` of this store."""
        check_shapes(self.root, self.manifest, self.objective, self.levels)

    def _check_radii(self) -> None:
        """:func:`exact.dp.manifest.check_radii` of this store."""
        check_radii(self.root, self.manifest, self.objective)

    def _check_dropped(self) -> None:
        """:func:`exact.dp.manifest.check_dropped` of this store."""
        check_dropped(self.root, self.manifest, self.game)

    def _save_manifest(self) -> None:
        atomic_write_text(self.root / MANIFEST, json.dumps(self.manifest, indent=1))

    def is_complete(self, k: int) -> bool:
        return str(k) in self.manifest["levels"]

    def is_dropped(self, k: int) -> bool:
        """Whether completed level k's file was dropped (the frontier mode)."""
        return self.manifest["levels"].get(str(k), {}).get("dropped") is True

    def backend_of_level(self, k: int) -> dict:
        """What computed completed level k: {"backend": ..., ["device": ...]}."""
        entry = self.manifest["levels"][str(k)]
        info = {"backend": entry.get("backend", "cpu")}
        if "device" in entry:
            info["device"] = entry["device"]
        return info

    def device_levels(self) -> list[int]:
        """The completed levels a device (not the CPU kernels) computed."""
        return sorted(
            int(k) for k, e in self.manifest["levels"].items() if not recorded_bit_exact(e)
        )

    def dropped_error(self, k: int) -> StoreError:
        """The error for reading level k of a frontier store, dropped."""
        return StoreError(
            f"{self.root}: level {k} was dropped once level {k + 1} was complete (the store "
            f"keeps levels {self.keep_from}..{self.game.n}: --keep-from {self.keep_from}); "
            f"it answers positions with at least {self.keep_from + 1} prizes left"
        )

    def drop_level(self, k: int) -> None:
        """Drop completed level k's file (the frontier mode): the manifest says so first."""
        entry = self.manifest["levels"][str(k)]
        if entry.get("dropped") is not True:
            entry["dropped"] = True
            self._save_manifest()
        self._read.pop(k, None)
        self._remove_level_file(k)

    def in_memory(self, k: int) -> bool:
        """Whether level k is built in memory only (``below_in_memory``, k < K)."""
        return self.below_in_memory and k < self.keep_from

    def _forget_lost_levels(self) -> None:
        """Levels built in memory only are lost once a solve stops before the level above
        them is on disk: the entries of the dropped levels below the first level not
        complete are forgotten (told to ``on_repair``), so that the solve starts again
        from level 0."""
        first = next((k for k in range(self.game.n + 1) if not self.is_complete(k)), None)
        if first is None or first == 0 or not self.is_dropped(first - 1):
            return
        if self.on_repair is not None:
            self.on_repair(
                first - 1,
                f"levels 0..{first - 1} were held in memory only (--below-in-memory) by a "
                "solve that stopped before they reached the disk; starting again from level 0",
            )
        for k in range(first):
            del self.manifest["levels"][str(k)]
        self._save_manifest()

    def drop_below_frontier(self) -> None:
        """Drop every level below ``keep_from`` whose level above is complete (a crash may
        have left one, or its file, behind)."""
        for k in range(self.keep_from):
            if self.is_complete(k) and self.is_complete(k + 1):
                self.drop_level(k)

    def damage(self, k: int) -> str | None:
        """None if the completed level k is intact (readable, right shape and checksum);
        else what is wrong with it."""
        try:
            self.load_level(k, verify=True, mode="r")
        except NotRegularFile:
            raise  # refused, not recomputed: see NotRegularFile
        except StoreError as exc:
            return str(exc)
        return None

    def forget_level(self, k: int) -> None:
        """Take level k out of the manifest (to be recomputed): its file goes too."""
        del self.manifest["levels"][str(k)]
        self._save_manifest()
        self._remove_level_file(k)

    def _remove_level_file(self, k: int) -> None:
        path = self.level_path(k)
        if path.is_symlink() or path.is_file():
            path.unlink()  # a symbolic link is removed, never written through

    # -- levels --------------------------------------------------------------------------

    def level_path(self, k: int) -> Path:
        return level_file(self.root, k)

    def _progress_path(self, k: int) -> Path:
        return progress_file(self.root, k)

    def _progress(self, k: int) -> tuple[int, float]:
        return read_progress(self._progress_path(k), self.objective.level_items(self.levels[k]))

    def _per_row(self, k: int) -> int:
        return int(self.objective.item_patterns(self.levels[k]).shape[0])

    def _done_items(self, k: int) -> int:
        return self._progress(k)[0]

    def radius(self, k: int) -> float:
        """The certified radius of completed level k."""
        return self.manifest["levels"][str(k)]["radius"]

    def sha256(self, k: int) -> str:
        """The checksum the manifest records for completed level k."""
        return self.manifest["levels"][str(k)]["sha256"]

    def open_level(self, level, write_empty: bool = True) -> np.memmap:
        """The (possibly partial) array of a level being built, mapped read-write.

        The file is allocated in full before anything is written through the map (see the
        module docstring: a full disk is an error here, not a SIGBUS later).  Columns of
        identical hands are never computed (their value is 0): they are set to 0 here, so
        that they are right whatever a crash left in the file.  A new file gets the values
        that need no game unless ``write_empty`` is False (the caller writes every row).
        """
        path = self.level_path(level.k)
        require_regular_file(path)
        shape = self.objective.level_shape(level)
        arr = None
        if self._done_items(level.k) > 0 and path.is_file() and not path.is_symlink():
            try:
                arr = np.load(path, mmap_mode="r+")
                if arr.shape != shape or arr.dtype != np.float64:
                    arr = None
            except (ValueError, OSError, EOFError):
                arr = None
        if arr is None:
            self._progress_path(level.k).unlink(missing_ok=True)
            self._remove_level_file(level.k)
            arr = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=shape)
            allocate(path, self.root, level.k)
            if write_empty:  # not when the caller writes every row (a cluster's join)
                self._write_empty(level, arr)
        else:
            allocate(path, self.root, level.k)
        if self.objective.has_identical_hands_column():  # points: identical hands are 0
            columns = self.objective.columns(level)
            arr[:, columns.patterns == level.swap[columns.patterns]] = 0.0
        return arr

    def _write_empty(self, level, arr, rows: int = 4096) -> None:
        """A new level file gets the values that need no game (the win objective's decided
        leads; the points objective's are the zeros the file starts with), a block of prize
        sets at a time; flushed before any progress is recorded."""
        if not self.objective.has_values_without_game():
            return
        for r0 in range(0, level.prize_sets, rows):
            r1 = min(level.prize_sets, r0 + rows)
            arr[r0:r1] = self.objective.empty_rows(level, r0, r1)
        arr.flush()

    def record_progress(self, k: int, items: int, arr: np.memmap, radius: float) -> None:
        """Record ``items`` of level k finished, with their radius and the SHA-256 of the
        prize sets they complete (the rows [0, items // items per row) of the file, hashed
        as they complete): a resume takes no item as done that the file does not hold."""
        arr.flush()
        rows, digest = self._chain.get(k) or (0, hashlib.sha256())
        full = items // max(1, self._per_row(k))
        hash_rows(digest, arr, rows, full)
        self._chain[k] = (full, digest)
        atomic_write_text(self._progress_path(k), f"{items} {radius!r} {full} {digest.hexdigest()}")

    def _checkpoint_matches(self, k: int, arr: np.ndarray) -> bool:
        """Whether level k's checkpoint hashes the rows the file holds (and keep that hash
        to go on from)."""
        rows, recorded = read_checkpoint_hash(self._progress_path(k))
        if rows > arr.shape[0]:
            return False
        digest = hashlib.sha256()
        hash_rows(digest, arr, 0, rows)
        self._chain[k] = (rows, digest)
        return digest.hexdigest() == recorded

    def finish_level(self, k: int, arr: np.memmap, radius: float) -> None:
        arr.flush()
        del arr
        path = self.level_path(k)
        self.manifest["levels"][str(k)] = {
            "shape": list(self.objective.level_shape(self.levels[k])),
            "sha256": file_sha256(path),
            "radius": radius,
            **self.backend,
        }
        self._save_manifest()
        self._progress_path(k).unlink(missing_ok=True)

    def load_level(self, k: int, verify: bool = True, mode: Literal["r", "c"] = "c") -> np.ndarray:
        """A completed level, mapped (``mode`` as in :func:`open_checked_level`; by default
        copy-on-write, as the level below the one being built) after checking its shape
        against N and (with ``verify``) its checksum."""
        if not self.is_complete(k):
            raise StoreError(
                f"level {k} of the store {self.root} is not complete: rerun the solve to resume"
            )
        if self.is_dropped(k):
            raise self.dropped_error(k)
        sha256 = self.sha256(k) if verify else None
        shape = self.objective.level_shape(self.levels[k])
        return open_checked_level(self.level_path(k), shape, sha256, mode)

    def level(self, k: int) -> np.ndarray:
        """Completed level k to read, mapped read-only, checked on first use by this object
        only: its shape, its checksum, and no infinity nor any NaN where the objective has
        none (points: every value is a game's; win: NaN marks a lead never looked up).  A
        level that holds them is StoreContradicted (exit 1), named, before any game reads
        it."""
        if k not in self._read:
            values = self.load_level(k, verify=True, mode="r")
            bad = non_finite(values, self.objective.has_lead)
            if bad is not None:
                raise StoreContradicted(
                    f"{self.root}: level {k} holds {bad}, which no solve writes: the store "
                    f"is damaged or edited (`gops verify {self.root}` checks every level)"
                )
            self._read[k] = values
        return self._read[k]

    def solution(
        self, n: int | None = None, objective: str | None = None, order: str | None = None
    ) -> Solution:
        """The Solution kept in the store, without solving anything (``exact.load``).

        ``n``, ``objective`` and ``order`` (names or objects), when given, must match the
        store: the GameSpec they make is compared with the store's (StoreError otherwise);
        so must the store be complete.  Levels are checked as they are first used
        (:meth:`level`), the radii for the crude edits (:meth:`_check_radii`); the values
        and radii are otherwise as stored: ``solution.store`` names the directory, and
        :func:`exact.dp.verify.verify_store` (``gops verify``) re-derives them."""
        held = self.game
        want = GameSpec.parse(
            held.n if n is None else n,
            held.objective if objective is None else objective,
            held.order if order is None else order,
            0,
            "float",
        )
        if want != held:
            raise StoreError(f"{self.root} holds {game_difference(held, want)}")
        missing = [k for k in range(held.n + 1) if not self.is_complete(k)]
        if missing:
            raise StoreError(
                f"{self.root} is incomplete (level {missing[0]} of {held.n} missing): "
                f"rerun `gops solve {held.command_flags()} --store {self.root}` to resume"
            )
        self._check_radii()  # a store just solved here too: the manifest as written
        return Solution(
            held,
            self.levels,
            StoredLevels(self),
            radii=[self.radius(k) for k in range(held.n + 1)],
            store=self.root,
        )

    def resume_point(self) -> ResumePoint:
        """Where a solve into this store picks up (:class:`ResumePoint`)."""
        stored = tuple(sorted(int(k) for k in self.manifest["levels"]))
        missing = [k for k in range(self.game.n + 1) if k not in stored]
        if not missing:
            return ResumePoint(stored, None, 0, 0)
        k = missing[0]
        total = self.objective.level_items(self.levels[k])
        items, _ = read_progress(self._progress_path(k), total)
        return ResumePoint(stored, k, items, total)

    def solve(self, progress=None, device: str | Device = CPU) -> Store:
        """Solve the game into the store (written first: :meth:`create`), resuming whatever is
        already there, its float kernels on ``device`` (:class:`exact.dp.device.Device`,
        or its name); ``games`` then counts the matrix games solved (see
        :func:`solve_into_store`)."""
        device = Device.parse(device)
        kernels = device.wrap(self.objective)
        self.backend = device.record()
        self.create()
        self._previous_writer = self.manifest.get("writer", CPU_BACKEND)
        if self._previous_writer != self.backend:
            self.manifest["writer"] = dict(self.backend)
            self._save_manifest()
        self.drop_below_frontier()
        self._forget_lost_levels()
        _, self.games = solve_float_levels(
            kernels, self.levels, progress, sink=self, chunk_items=self.chunk_items
        )
        return self

    # -- the level sink of exact.dp.drivers.solve_float_levels --------------------------------

    def completed(self, level) -> bool:
        """Whether level k is complete and intact; a damaged one is forgotten (and so
        recomputed) after ``on_repair`` is told what is wrong with it."""
        if not self.is_complete(level.k):
            return False
        if self.is_dropped(level.k):  # nothing left to check: the levels above were built
            return True
        damage = self.damage(level.k)
        if damage is None:
            self.refuse(level.k, fixed_problem(self.level_verifier(level.k, stored_only=True)))
            self.kept.append(level.k)  # re-derived in part by check_resume if built on
            self.checks[level.k] = ResumeCheck(level.k, 0, self._items(level.k), CHECKSUM_ONLY)
            return True
        if level.k > 0 and self.is_dropped(level.k - 1):
            raise StoreError(
                f"{self.root}: level {level.k}: {damage}; its level below was dropped "
                "(--keep-from), so it cannot be recomputed: solve again into a new directory"
            )
        if self.on_repair is not None:
            self.on_repair(level.k, damage)
        self.forget_level(level.k)
        return False

    def below(self, level) -> np.ndarray:
        k = level.k - 1  # a level kept on this resume was checksummed by completed() just now
        if k in self._memory:
            return self._memory[k]
        return self.load_level(k, verify=k not in self.kept)

    def start(self, level) -> tuple[np.ndarray, int, float]:
        """The level to build, its items taken as done and their radius, after the checks
        of a resume (:meth:`check_resume`); a checkpoint that does not hash the rows it
        counts is dropped (told to ``on_repair``) and the level started again."""
        k = level.k
        if self.in_memory(k):
            return self.objective.empty_level(level), 0, 0.0
        self.check_resume(level)
        arr = self.open_level(level)
        done, radius = self._progress(k)
        other = self._previous_writer != self.backend
        if done and (other or not self._checkpoint_matches(k, arr)):
            if self.on_repair is not None:
                self.on_repair(
                    k,
                    f"its checkpoint was written by the {self._previous_writer['backend']} "
                    "backend (one backend writes each level)"
                    if other
                    else "its checkpoint does not match the level file (edited)",
                )
            del arr
            self._progress_path(k).unlink(missing_ok=True)
            arr = self.open_level(level)
            done, radius = 0, 0.0
        if not done:
            self._chain[k] = (0, hashlib.sha256())
        self.check_checkpoint(level, arr, done, radius)
        return arr, done, radius

    # -- the checks of a resume ---------------------------------------------------------

    def level_verifier(self, k: int, stored_only: bool = False, stored=None) -> LevelVerifier:
        """Level k (``stored``, default its file) against the stored level k - 1; a level a
        device wrote (or is writing) compared within its radius too (``slack``)."""
        stored = self.load_level(k, verify=False, mode="r") if stored is None else stored
        below, radius_below = None, 0.0
        if k > 0 and not stored_only:
            below = self._memory.get(k - 1)
            if below is None:
                below = self.load_level(k - 1, verify=False)
            radius_below = self.radius(k - 1)
        if self.is_complete(k):
            exact_bits = recorded_bit_exact(self.backend_of_level(k))
            slack = 0.0 if exact_bits else self.radius(k)
        else:  # a checkpoint this solve's backend goes on from
            slack = 0.0 if recorded_bit_exact(self.backend) else self._progress(k)[1]
        return LevelVerifier(self.objective, self.levels[k], stored, below, radius_below, slack)

    def refuse(self, k: int, problem: str | None) -> None:
        if problem is not None:
            raise StoreContradicted(
                f"{self.root}: level {k}, {problem}; nothing was built on it "
                f"(`gops verify {self.root}` checks every level)"
            )

    def check_resume(self, level) -> None:
        """Before level k is computed on the kept level k - 1 (nothing written yet): its
        items re-derived from the stored level k - 2, all of them when there are at most
        :data:`~exact.dp.rederive.SMALL_LEVEL_ITEMS`, else :data:`RESUME_SAMPLE` at random,
        each bound within its recorded radius (its values the rules fix were checked whole
        by :meth:`completed`).  StoreContradicted (exit 1) on the first disagreement: the
        level, the item, both values.  Each kept part of a level is checked once: a level
        finished from its checkpoint is not checked again (:meth:`check_checkpoint`)."""
        k = level.k - 1
        if k in self.checks and self.checks[k].checkpoint:
            return  # its checkpoint's items were checked when taken, the rest computed here
        if k in self.kept and k > 0 and self.is_dropped(k - 1) and k - 1 not in self._memory:
            self.unrederived.append(k)  # its checksum and fixed values were checked
            dropped = f"level {k - 1} was dropped, --keep-from {self.keep_from}: {CHECKSUM_ONLY}"
            self.checks[k] = ResumeCheck(k, 0, self._items(k), dropped)
        elif k in self.kept and k > 0:
            self.spot_check_kept(k, self.level_verifier(k), None, self.radius(k))

    def check_checkpoint(self, level, arr: np.ndarray, done: int, radius: float) -> None:
        """The ``done`` items of level k that a checkpoint takes as finished (in ``arr``),
        checked as :meth:`check_resume` checks a kept level, and its values the rules fix."""
        if done:
            verifier = self.level_verifier(level.k, stored=arr)
            self.refuse(level.k, fixed_problem(verifier))
            self.spot_check_kept(level.k, verifier, done, radius, checkpoint=True)

    def spot_check_kept(
        self,
        k: int,
        verifier: LevelVerifier,
        items: int | None,
        radius: float,
        item_of=None,
        checkpoint: bool = False,
    ) -> None:
        """Re-derive ``items`` kernel items of level k (default all; a sample of a large
        level, drawn here unseeded: an edit cannot know it; ``item_of`` as in
        :func:`spot_check`), refuse the level on a disagreement (StoreContradicted),
        else record it kept with what was checked (``checks``; ``checkpoint``: the items
        are those a checkpoint, or a cluster's parts, took as done)."""
        rng = np.random.default_rng()
        bad, rederived, total = spot_check(verifier, items, radius, rng, item_of)
        self.refuse(k, bad)
        if k not in self.kept:
            self.kept.append(k)
        note = CHECKPOINT_ITEMS if checkpoint else ""
        self.checks[k] = ResumeCheck(k, rederived, total, note, checkpoint)

    def _items(self, k: int) -> int:
        """The kernel items of level k (none in the empty game)."""
        return self.objective.level_items(self.levels[k]) if k else 0

    def kept_checks(self) -> list[ResumeCheck]:
        """What this resume checked of each level it kept, in the order it kept them."""
        return [self.checks[k] for k in self.kept]

    def checkpoint(self, level, out, items: int, radius: float) -> None:
        if not self.in_memory(level.k):
            self.record_progress(level.k, items, out, radius)

    def finish(self, level, out, radius: float) -> np.ndarray:
        if self.in_memory(level.k):  # recorded, never written: it is the next level's below
            self.manifest["levels"][str(level.k)] = {
                "shape": list(out.shape),
                "sha256": npy_sha256(out),
                "radius": radius,
                **self.backend,
                "dropped": True,
            }
            self._save_manifest()
            self._memory = {level.k: out}
            return out
        self.finish_level(level.k, out, radius)
        if 0 < level.k <= self.keep_from:
            self.drop_level(level.k - 1)  # the frontier mode: its radius is recorded
        return self.load_level(level.k, verify=False)


def _existing_manifest(root, game: GameSpec) -> dict | None:
    """The manifest of the store at ``root`` if there is one, checked against the game
    (N, objective, order); None where a new store may be made (no folder yet, or an empty
    one).  StoreError otherwise; nothing is written."""
    root = Path(root)
    kind = path_kind(root)
    if kind is not None and kind != "a directory":
        raise StoreError(f"{root} is {kind}, not a store directory")
    if kind is None and path_kind(root.parent) != "a directory":
        raise missing_parent(root)
    if not (root / MANIFEST).exists() and not (root / MANIFEST).is_symlink():
        if root.exists() and any(root.iterdir()):
            raise StoreError(f"{root} is not empty and has no {MANIFEST}: not a store")
        return None
    manifest = _read_manifest(root)
    held = game_of(manifest)
    if held != game:
        raise StoreError(
            f"{root} holds N={held.n} objective={held.objective.name} order={held.order.name}, "
            f"not N={game.n} objective={game.objective.name} order={game.order.name}"
        )
    return manifest


def solve_into_store(
    game: GameSpec,
    root,
    progress=None,
    chunk_items: int | None = None,
    on_repair=None,
    device: str | Device = CPU,
    keep_from: int | None = None,
    below_in_memory: bool = False,
) -> Store:
    """Solve the game (a float GameSpec without handicap: a store holds the real game)
    into the store at ``root``, resuming whatever is already there.

    ``progress(level, items)`` is called after each checkpointed chunk (also for the
    items found already done on resume).  A completed level is verified before it is
    skipped; a damaged one is recomputed after ``on_repair(k, what_is_wrong)``.  The
    returned store's ``games`` counts the matrix games solved by this call.  ``device``:
    where the float kernels run (:class:`exact.dp.device.Device`); ``keep_from`` K: keep
    the files of the levels K..N only (the frontier mode, module docstring), and with
    ``below_in_memory`` never write the levels below K.
    """
    store = Store.for_game(
        root,
        game,
        chunk_items,
        on_repair=on_repair,
        keep_from=keep_from,
        below_in_memory=below_in_memory,
    )
    return store.solve(progress, device)


class StoredLevels:
    """``values[k]`` of a store's Solution: :meth:`Store.level` (mapped on first use, after
    its checks)."""

    def __init__(self, store: Store):
        self.store = store

    def __len__(self) -> int:
        return self.store.game.n + 1

    def __getitem__(self, k: int) -> np.ndarray:
        return self.store.level(k)
