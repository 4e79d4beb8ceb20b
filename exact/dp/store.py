"""A solved game on disk: per-level value arrays, checkpointed per chunk, resumable.

Layout of a store directory::

    manifest.json      {"format": "gops-store", "version": 2, "n": N, "objective": ...,
                        ["order": O,] "arithmetic": "float", "chunk_items": C,
                        ["keep_from": K[, "below_in_memory": true]],
                        "writer": {"backend": B[, "device": D]},
                        "levels": {"k": {"shape": [...], "sha256": ..., "radius": r_k,
                                         "backend": B[, "device": D][, "dropped": true]}}}
    level-K.npy        float64 array of level K: values[prize rank, column] for the
                       points objective, values[prize rank, column, L + offset_K]
                       for the win objective (the real game: no handicap), one column
                       per antisymmetric pair of patterns (exact.game.encoding.Columns;
                       every pattern under a controlled prize order)

    level-K.progress   while level K is being built: "ITEMS RADIUS ROWS SHA256", the
                       finished items, their radius, and the SHA-256 of the prize-set
                       rows [0, ROWS) they complete
    level-K.parts/     while level K is being built on a cluster: its parts
                       (:mod:`exact.dp.cluster`)

``backend`` names what computed a level: "cpu" (the CPU kernels), "cuda" (a CUDA GPU,
:mod:`exact.cuda`; ``device`` its name; with ``--device cuda+cpu`` some of its rows were
solved by the CPU kernels beside it) or "cuda-simulator" (numba's CUDA simulator); an
entry without one was written by the CPU kernels.
``writer`` is the backend of the last solve into the store: a level in progress is its,
and a solve on another backend restarts that level, so that one backend writes each level.
A level a device wrote holds values whose bits may differ from the CPU kernels' (a fused
multiply-add), and its radius is the device's own directed-rounding bound:
:mod:`exact.dp.verify` checks such a level within its radius, not bit for bit.

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

Version 2 keeps one value of each antisymmetric pair; a version 1 store (both values of
each pair) is refused with a line saying how to get a new store.

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
- Nothing is built on what was not re-derived: before a level is computed, the kept level
  below and the items a checkpoint takes as done are re-derived from their level below
  (:meth:`Store.check_resume`, all of a small level, a sample of a large one); a
  disagreement is StoreContradicted, and nothing is written.  The one exception, a
  frontier store's level K (its level below dropped), and what was re-derived of every
  kept level are recorded (:class:`ResumeCheck`) and stated by ``gops solve``.

Only the level being built and the one below it are mapped into memory, both as file
mappings (the one below copy-on-write, never written): their pages are the system's page
cache, not the process's own memory, so a machine whose memory holds the two levels solves
without rereading, and one that holds less still solves, rereading pages from disk.
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from exact.atomic import atomic_file
from exact.dp.device import BACKENDS, CPU, Device, recorded_bit_exact
from exact.dp.drivers import solve_float_levels
from exact.dp.objective import Objective, objective_of
from exact.dp.rederive import LevelVerifier, check_items, escape_chance, fixed_problem, pick_items
from exact.dp.solution import Solution
from exact.errors import GopsInputError
from exact.game.encoding import MAX_CARDS, build_levels
from exact.game.orders import ORDERS, RANDOM
from exact.game.spec import GameSpec

FORMAT = "gops-store"
VERSION = 2
#: The layout before version 2: every pattern of every level (both values of each pair).
FULL_LAYOUT_VERSION = 1
MANIFEST = "manifest.json"
#: Items per checkpoint (an item is a prize set and a canonical pattern: k matrix games).
DEFAULT_CHUNK_ITEMS = 1 << 20
#: Items of a large level re-derived by a resume before it builds on the level.
RESUME_SAMPLE = 256
#: What wrote a level of a store whose entry names no backend (gops before they were named).
CPU_BACKEND = {"backend": "cpu"}


class StoreError(GopsInputError):
    """A store that cannot be used: missing, corrupted, truncated, or for another game."""


class StoreContradicted(StoreError):
    """A store that reads well but whose values contradict their re-derivation from the
    level below, or the rules: edited or corrupted (exit 1 at the CLI, as ``gops verify``'s
    "not verified"; a store that cannot be read at all is a plain StoreError, exit 2)."""

    exit_code = 1


class NotRegularFile(StoreError):
    """A store file that is a FIFO, a device or a folder: tampered with, never repaired
    (opening it could block, writing it could reach a device)."""


def level_file(root, k: int) -> Path:
    """The file of level k (the one place that spells the store's file names)."""
    return Path(root) / f"level-{k}.npy"


def progress_file(root, k: int) -> Path:
    """The checkpoint of level k while it is built in this process."""
    return Path(root) / f"level-{k}.progress"


def parts_folder(root, k: int) -> Path:
    """The parts of level k while it is built on a cluster (:mod:`exact.dp.cluster`)."""
    return Path(root) / f"level-{k}.parts"


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` all at once (:mod:`exact.atomic`)."""
    with atomic_file(path, "w") as fh:
        fh.write(text)


def _game_of(manifest: dict) -> GameSpec:
    """The game a store holds: the real game (no handicap) in floating point, from a
    manifest :func:`_read_manifest` has checked (no order: the paper's random one)."""
    return GameSpec.from_json(
        {
            "n": manifest["n"],
            "objective": manifest["objective"],
            "order": manifest.get("order", "random"),
            "arithmetic": "float",
        }
    )


def unreadable_reason(exc: OSError) -> str:
    """What is wrong with a level file that could not be opened, in a few words."""
    reasons: dict[int | None, str] = {
        errno.ENOENT: "is missing",
        errno.EACCES: "is not readable (permission denied)",
        errno.EPERM: "is not readable (operation not permitted)",
        errno.ELOOP: "is a symbolic link loop",
        errno.EISDIR: "is a directory, not a level file",
    }
    return reasons.get(exc.errno, f"cannot be read ({exc.strerror or exc})")


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISREG(mode):
        return "a file"
    return "a FIFO" if stat.S_ISFIFO(mode) else "a device or socket"


def path_kind(path: Path) -> str | None:
    """What ``path`` is ("a file", "a FIFO", ...), None if nothing is there (or it cannot
    be looked at: then the caller's own open says why)."""
    try:
        return _kind(os.stat(path).st_mode)
    except OSError:
        return None


def no_store_here(root: Path) -> StoreError:
    """The error for a store directory that is not there, saying how to make one."""
    kind = path_kind(root)
    if kind is not None:
        return StoreError(f"{root} is {kind}, not a store directory")
    return StoreError(
        f"{root}: no such store directory; make one with `gops solve N --store {root}` "
        "(add --objective or --order as the game needs)"
    )


def missing_parent(root: Path) -> StoreError:
    """The error for a new store whose parent folder is missing or no folder."""
    parent = root.parent
    for above in [parent, *parent.parents]:
        kind = path_kind(above)
        if kind is not None and kind != "a directory":
            return StoreError(f"{above} is {kind}, not a directory: choose another store directory")
        if kind is not None:
            break
    return StoreError(
        f"{parent} does not exist: create it first, or choose another store directory"
    )


def require_regular_file(path: Path) -> None:
    """StoreError unless ``path`` is a regular file (or missing: the caller says so).

    Opening a FIFO for reading blocks until a writer comes, and a device is no level:
    a store's files are refused before they are opened if they are anything else."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"{path} {unreadable_reason(exc)}") from None
    if not stat.S_ISREG(mode):
        raise NotRegularFile(
            f"{path} is {_kind(mode)}, not a regular file: the store was tampered with"
        )


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
            self._fresh_manifest(chunk_items, keep_from, below_in_memory)
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
        store = cls(root, _game_of(manifest), manifest)
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

    def _fresh_manifest(
        self, chunk_items: int, keep_from: int | None, below_in_memory: bool = False
    ) -> dict:
        manifest = {
            "format": FORMAT,
            "version": VERSION,
            "n": self.game.n,
            "objective": self.game.objective.name,
        }
        if self.game.order is not RANDOM:  # a store of the paper's game says nothing (version 1)
            manifest["order"] = self.game.order.name
        manifest = {**manifest, "arithmetic": "float", "chunk_items": chunk_items}
        if keep_from:
            manifest["keep_from"] = keep_from
        if keep_from and below_in_memory:
            manifest["below_in_memory"] = True
        return {**manifest, "writer": dict(CPU_BACKEND), "levels": {}}

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
        """Every completed level's recorded shape must be the one N implies: a manifest that
        says otherwise was edited or belongs to another game (StoreError, nothing written)."""
        n = self.game.n
        for key, entry in self.manifest["levels"].items():
            want = list(self.objective.level_shape(self.levels[int(key)]))
            if entry["shape"] != want:
                raise StoreError(
                    f"{self.root / MANIFEST} says N={n} but records level {key} with shape "
                    f"{entry['shape']}, while N={n} implies {want}: the manifest was edited "
                    "or belongs to another game"
                )

    def _check_radii(self) -> None:
        """Refuse radii that no solve writes (StoreError, one line).  The rule, for each
        recorded level k: a level that solves no matrix game has radius 0 (the empty game,
        level 0; and the top level under an antisymmetric prize order, identical hands whose
        values the rules fix: 0 by symmetry); every other level has a radius at least level
        k - 1's (each of its games' bounds adds to it, :mod:`exact.kernels.bounds`), so 0
        only if level k - 1's is 0; and no radius reaches the largest |value| of the game
        (it would prove nothing).  This catches the crude edits;
        :func:`exact.dp.verify.check_reads` and ``gops verify`` the others."""
        n = self.game.n
        ceiling = self.objective.largest_value(n)
        radii = {int(k): entry["radius"] for k, entry in self.manifest["levels"].items()}
        where = self.root / MANIFEST
        for k in sorted(radii):
            radius, below = radii[k], radii.get(k - 1)
            solves = k > 0 and not (k == n and self.objective.order.antisymmetric)
            if not solves and radius != 0.0:
                what = "the empty game (level 0)" if k == 0 else f"level {k} (no game to solve)"
                raise StoreError(
                    f"{where} gives {what} the radius {radius!r}, not 0: the manifest was edited"
                )
            if radius >= ceiling:
                raise StoreError(
                    f"{where} gives level {k} the radius {radius!r}, which proves "
                    f"nothing (values are at most {ceiling:g} in size): the manifest "
                    "was edited"
                )
            if solves and below is not None and radius < below:
                raise StoreError(
                    f"{where} gives level {k} the radius {radius!r}, below level "
                    f"{k - 1}'s {below!r}: no solve writes that (the manifest was "
                    "edited)"
                )

    def _check_dropped(self) -> None:
        """Refuse a frontier store whose level j < K is complete, its level j + 1 too, and
        not marked "dropped" (StoreError, one line).  The rule: a solve marks level j
        dropped as soon as level j + 1 is complete (:meth:`finish`), so such an entry was
        edited, or left by a solve stopped between the two writes of the manifest; a
        solve into the store drops it (:meth:`drop_below_frontier`).  A store to read
        never has one, so that no command reads its file where another says it is gone."""
        keep = self.keep_from
        for k in range(keep):
            if self.is_complete(k) and self.is_complete(k + 1) and not self.is_dropped(k):
                raise StoreError(
                    f"{self.root / MANIFEST} does not mark level {k} dropped, but the store "
                    f"keeps levels {keep}..{self.game.n} (--keep-from {keep}) and level "
                    f"{k + 1} is complete: the manifest was edited, or a solve stopped "
                    f"before dropping it (`gops solve {self.game.command_flags()} --store "
                    f"{self.root}` drops it)"
                )

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
            self._allocate(path, level.k)
            if write_empty:  # not when the caller writes every row (a cluster's join)
                self._write_empty(level, arr)
        else:
            self._allocate(path, level.k)
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

    def _allocate(self, path: Path, k: int) -> None:
        if not hasattr(os, "posix_fallocate"):
            return
        size = path.stat().st_size
        try:
            with open(path, "r+b") as fh:
                os.posix_fallocate(fh.fileno(), 0, size)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            raise StoreError(
                f"no space left in {self.root} for level {k} "
                f"({size:,} bytes): free some space and rerun to resume"
            ) from None

    def record_progress(self, k: int, items: int, arr: np.memmap, radius: float) -> None:
        """Record ``items`` of level k finished, with their radius and the SHA-256 of the
        prize sets they complete (the rows [0, items // items per row) of the file, hashed
        as they complete): a resume takes no item as done that the file does not hold."""
        arr.flush()
        rows, digest = self._chain.get(k) or (0, hashlib.sha256())
        full = items // max(1, self._per_row(k))
        _hash_rows(digest, arr, rows, full)
        self._chain[k] = (full, digest)
        atomic_write_text(self._progress_path(k), f"{items} {radius!r} {full} {digest.hexdigest()}")

    def _checkpoint_matches(self, k: int, arr: np.ndarray) -> bool:
        """Whether level k's checkpoint hashes the rows the file holds (and keep that hash
        to go on from)."""
        rows, recorded = read_checkpoint_hash(self._progress_path(k))
        if rows > arr.shape[0]:
            return False
        digest = hashlib.sha256()
        _hash_rows(digest, arr, 0, rows)
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
            raise StoreError(f"{self.root} holds {_difference(held, want)}")
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


def npy_sha256(arr: np.ndarray) -> str:
    """The SHA-256 of the .npy file that would hold ``arr`` (the header numpy writes, then
    the data), without writing it: what the manifest records for a level never written."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, np.lib.format.header_data_from_array_1_0(arr))
    digest = hashlib.sha256(header.getvalue())
    _hash_rows(digest, arr, 0, arr.shape[0])
    return digest.hexdigest()


def _hash_rows(digest, arr: np.ndarray, r0: int, r1: int, rows: int = 1 << 12) -> None:
    """Feed the bytes of rows [r0, r1) of ``arr`` to ``digest``, a block at a time."""
    for a in range(r0, r1, rows):
        digest.update(np.ascontiguousarray(arr[a : min(r1, a + rows)]).tobytes())


def spot_check(
    verifier: LevelVerifier, items: int | None, radius: float, rng, item_of=None
) -> tuple[str | None, int, int]:
    """(words for the first of ``items`` kernel items of a level (default all; ``item_of``
    maps their indices to item numbers, default the first ``items``) that its
    re-derivation contradicts, or whose bound exceeds ``radius``, None if none; the
    items re-derived; ``items``).  Every item when there are few
    (:func:`exact.dp.rederive.pick_items`), else :data:`RESUME_SAMPLE` drawn by ``rng``."""
    total = verifier.level.prize_sets * verifier.per_row if verifier.level.k else 0
    items = total if items is None else items
    picked = pick_items(items, RESUME_SAMPLE, rng)
    chosen = np.arange(items) if picked is None else picked
    parts = check_items(verifier, chosen if item_of is None else item_of(chosen))
    bad = next((p.bad for p in parts if p.bad is not None), None)
    needed = max((p.needed for p in parts), default=0.0)
    if bad is None and needed > radius and not verifier.slack:  # a device's: its own bound
        bad = f"its items need the radius {needed:.3e}, above the {radius:.3e} recorded"
    return bad, len(chosen), items


#: What a resume checks of a kept level none of whose items it re-derives.
CHECKSUM_ONLY = "checksum and the values the rules fix checked"
#: The items of a level in progress that a resume takes from its checkpoint.
CHECKPOINT_ITEMS = "the items its checkpoint took as done"


@dataclass(frozen=True)
class ResumeCheck:
    """What a resume checked of a level it keeps as the store held it (whole, or the
    ``items`` a checkpoint takes as done): ``rederived`` of its ``items`` kernel items
    re-derived from the stored level below (every one of a small level, else
    :data:`RESUME_SAMPLE` drawn at random without replacement), and ``note``: what else
    (or why nothing) was checked; ``checkpoint``: the items are a level's in progress.

    >>> str(ResumeCheck(7, 256, 10_000))
    'level 7: 256 of 10,000 items re-derived; an edited item escapes with probability 0.974'
    """

    k: int
    rederived: int
    items: int
    note: str = ""
    checkpoint: bool = False

    def __str__(self) -> str:
        return _check_words(f"level {self.k}", self.rederived, self.items, self.note)


def _check_words(levels: str, rederived: int, items: int, note: str) -> str:
    """``rederived`` of ``items`` in words, with the chance that one edited item is none of
    them (:func:`exact.dp.rederive.escape_chance`: 1 - rederived / items, the items drawn
    without replacement)."""
    note = f" ({note})" if note else ""
    p = probability_text(escape_chance(items, rederived))
    return (
        f"{levels}: {rederived:,} of {items:,} items re-derived{note}; an edited item "
        f"escapes with probability {p}"
    )


def probability_text(p: float) -> str:
    """A probability in words that never rounds a chance to a certainty: 0 and 1 as
    such, else three significant digits, or 1 - q where p would print as 1.

    >>> probability_text(1 - 256 / 10_000), probability_text(1 - 256 / 10**9)
    ('0.974', '1 - 2.6e-07')
    >>> probability_text(0.0), probability_text(1.0)
    ('0', '1')
    """
    if p in (0.0, 1.0):
        return f"{p:g}"
    if f"{p:.3g}" == "1":
        return f"1 - {1.0 - p:.2g}"
    return f"{p:.3g}"


def resume_words(checks: list[ResumeCheck]) -> list[str]:
    """What a resume checked of the levels it kept, a line per level, consecutive levels
    checked alike (nothing re-derived, for the same reason) on one line.

    >>> checks = [ResumeCheck(k, 0, 10 * k, "checksum") for k in range(4)]
    >>> for line in resume_words([*checks, ResumeCheck(4, 40, 40)]):
    ...     print(line)
    levels 0..3: 0 of 60 items re-derived (checksum); an edited item escapes with probability 1
    level 4: 40 of 40 items re-derived; an edited item escapes with probability 0
    """
    groups: list[list[ResumeCheck]] = []
    for check in checks:
        last = groups[-1][-1] if groups else None
        alike = (
            last is not None
            and check.k == last.k + 1
            and check.rederived == last.rederived == 0
            and check.note == last.note
        )
        if alike:
            groups[-1].append(check)
        else:
            groups.append([check])
    lines = []
    for group in groups:
        if len(group) == 1:
            lines.append(str(group[0]))
        else:
            levels = f"levels {group[0].k}..{group[-1].k}"
            items = sum(c.items for c in group)
            lines.append(_check_words(levels, 0, items, group[0].note))
    return lines


def read_checkpoint_hash(path: Path) -> tuple[int, str]:
    """(prize sets hashed, their SHA-256) of a ``level-K.progress`` file; (0, "") if it
    records none (then it takes no item as done: :func:`read_progress`)."""
    try:
        _, _, rows, digest = path.read_text().split()
        return int(rows), digest
    except (OSError, ValueError, UnicodeDecodeError):
        return 0, ""


def read_progress(path: Path, total: int) -> tuple[int, float]:
    """(items recorded as finished in a ``level-K.progress`` file, their certified radius);
    (0, 0.0) when unknown, out of range 0..``total``, or written without a radius or the
    hash of its rows (the level is then redone from its first item)."""
    try:
        require_regular_file(path)
        items, radius_text, rows, _ = path.read_text().split()
        done, radius = int(items), float(radius_text)
        int(rows)
    except (OSError, ValueError, UnicodeDecodeError, StoreError):
        return 0, 0.0
    if not (0 <= done <= total and radius >= 0.0):
        return 0, 0.0
    return done, radius


@dataclass(frozen=True)
class ResumePoint:
    """Where a solve into an existing store picks up, as its files say (nothing checked
    yet: a damaged level is found, and redone, when the solve reaches it)."""

    stored: tuple[int, ...]  # the levels the manifest lists as complete
    level: int | None  # the first level not listed (None: every level is)
    items: int  # its items recorded as finished (level-K.progress)
    total: int  # its items


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
    held = _game_of(manifest)
    if held != game:
        raise StoreError(
            f"{root} holds N={held.n} objective={held.objective.name} order={held.order.name}, "
            f"not N={game.n} objective={game.objective.name} order={game.order.name}"
        )
    return manifest


def check_keep_from(keep_from: int | None, n: int) -> None:
    """One-line GopsInputError unless ``keep_from`` is None or a level 1..N - 1 (the
    levels from it up are kept; the table at the start reads level N - 1)."""
    if keep_from is None:
        return
    if isinstance(keep_from, bool) or not isinstance(keep_from, int) or not 1 <= keep_from < n:
        raise GopsInputError(
            f"--keep-from must be a level from 1 to {n - 1} (N - 1: the first move reads "
            f"level N - 1), got {keep_from}"
            if n > 1
            else "--keep-from needs N of at least 2 (a 1-card store has nothing to drop)"
        )


def _is_backend(entry: dict) -> bool:
    """A level entry's (or the writer's) backend and device name, if given, well formed."""
    device = entry.get("device", "")
    return (
        entry.get("backend", "cpu") in BACKENDS
        and isinstance(device, str)
        and len(device) <= 200
        and ("device" not in entry or not recorded_bit_exact(entry))
    )


def _is_sha256(text) -> bool:
    return isinstance(text, str) and len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def _is_level_entry(entry) -> bool:
    shape = entry.get("shape") if isinstance(entry, dict) else None
    return (
        isinstance(shape, list)
        and len(shape) in (2, 3)
        and all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in shape)
        and _is_sha256(entry.get("sha256"))
        and _is_radius(entry.get("radius"))
        and _is_backend(entry)
        and entry.get("dropped", True) is True
    )


def _is_radius(radius) -> bool:
    """A finite float >= 0 (version 2 keeps a radius for every level)."""
    return (
        isinstance(radius, (int, float))
        and not isinstance(radius, bool)
        and 0.0 <= radius < float("inf")
    )


class DuplicateKey(Exception):
    """A JSON object that names a key twice (json keeps the last one silently)."""


def _unique_keys(pairs: list) -> dict:
    """json's ``object_pairs_hook``: a dict, refusing a key named twice."""
    out = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(repr(key))
        out[key] = value
    return out


def _read_manifest(root) -> dict:
    """Parse and sanity-check a store's manifest; StoreError (one line) otherwise."""
    root = Path(root)
    path = root / MANIFEST
    if path_kind(root) != "a directory":
        raise no_store_here(root)
    require_regular_file(path)
    try:
        manifest = json.loads(path.read_text(), object_pairs_hook=_unique_keys)
    except FileNotFoundError:
        raise StoreError(f"{root} is not a store (no {MANIFEST})") from None
    except OSError as exc:
        raise StoreError(f"{path} {unreadable_reason(exc)}") from None
    except (ValueError, UnicodeDecodeError):
        raise StoreError(f"{path} is corrupted (not JSON)") from None
    except RecursionError:
        raise StoreError(f"{path} is corrupted (JSON nested too deeply)") from None
    except DuplicateKey as exc:
        raise StoreError(f"{path} names {exc} twice: the manifest was edited") from None
    ok = (
        isinstance(manifest, dict)
        and manifest.get("format") == FORMAT
        and manifest.get("version") == VERSION
        and isinstance(manifest.get("n"), int)
        and manifest.get("objective") in ("points", "win")
        and manifest.get("order", "random") in ORDERS
        and manifest.get("arithmetic") == "float"
        and isinstance(manifest.get("chunk_items"), int)
        and not isinstance(manifest["chunk_items"], bool)
        and manifest["chunk_items"] > 0
        and isinstance(manifest.get("levels"), dict)
        and isinstance(manifest.get("writer", {}), dict)
        and _is_backend(manifest.get("writer", {}))
    )
    if (
        not ok
        and isinstance(manifest, dict)
        and manifest.get("format") == FORMAT
        and manifest.get("version") == FULL_LAYOUT_VERSION
    ):
        raise StoreError(
            f"{root} is a store of version {FULL_LAYOUT_VERSION} (both values of every "
            f"antisymmetric pair), which this gops no longer reads: solve again into a new "
            f"directory, `gops solve N --store NEWDIR` (half the size)"
        )
    if not ok:
        raise StoreError(f"{path} is not a gops store manifest of version {VERSION}")
    n = manifest["n"]
    if isinstance(n, bool) or not 1 <= n <= MAX_CARDS:
        raise StoreError(f"{path} says N={n}: a store holds 1 to {MAX_CARDS} cards")
    if manifest.get("below_in_memory", True) is not True or (
        "below_in_memory" in manifest and "keep_from" not in manifest
    ):
        raise StoreError(f"{path} has a malformed below_in_memory: the manifest was edited")
    keep_from = manifest.get("keep_from", 0)
    if isinstance(keep_from, bool) or not isinstance(keep_from, int) or not 0 <= keep_from < n:
        raise StoreError(f"{path} says keep_from={keep_from!r}: not a level below N={n}")
    for key, entry in manifest["levels"].items():
        if key.isdigit() and key.isascii() and int(key) > n:
            raise StoreError(
                f"{path} says N={n} but records level {key}: the manifest was "
                "edited or belongs to another game"
            )
        if key not in {str(k) for k in range(n + 1)} or not _is_level_entry(entry):
            raise StoreError(f"{path} has a malformed entry for level {key!r}")
        if entry.get("dropped") and int(key) >= keep_from:
            raise StoreError(
                f"{path} marks level {key} dropped, but the store keeps levels "
                f"{keep_from}..{n}: the manifest was edited"
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


def non_finite(values: np.ndarray, nan_allowed: bool, rows: int = 1 << 12) -> str | None:
    """Whether ``values`` holds an infinity (or, unless ``nan_allowed``, a NaN): words for
    the first kind found, scanned a block of rows at a time; None if neither."""
    for a in range(0, values.shape[0], rows):
        block = np.asarray(values[a : a + rows])
        if np.isinf(block).any():
            return "an infinite value"
        if not nan_allowed and np.isnan(block).any():
            return "a NaN value"
    return None


def _difference(held: GameSpec, want: GameSpec) -> str:
    """The first part of the game a store holds that differs from the one wanted."""
    if held.n != want.n:
        return f"N={held.n}, not N={want.n}"
    if held.objective != want.objective:
        return f"objective {held.objective.name}, not {want.objective.name}"
    return (
        f"the {held.order.name} prize order, not {want.order.name} "
        f"(read it with --order {held.order.name})"
    )
