"""A solved game on disk: per-level value arrays, checkpointed per chunk, resumable.

Layout of a store directory::

    manifest.json      {"format": "gops-store", "version": 1, "n": N, "objective": ...,
                        "arithmetic": "float", "chunk_items": C,
                        "levels": {"k": {"shape": [prize sets, patterns], "sha256": ...}}}
    level-K.npy        float64 array values[prize rank, pattern rank] of level K
    level-K.progress   while level K is being built: the number of finished items

Invariants (what makes ``kill -9`` at any moment harmless):

- A level listed in the manifest is complete; its checksum is that of its .npy file.
- ``level-K.progress`` is replaced atomically (write a temporary file, fsync, rename) and
  only after the items it counts were flushed to ``level-K.npy``.  Items past the recorded
  count may be half written; they are recomputed on resume.
- Every item is a pure function of the completed level below, so recomputing it gives the
  same bits: a resumed run produces arrays identical to an uninterrupted one.
- The manifest itself is replaced atomically.

Only the level being built and the one below it are mapped into memory.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from .encoding import build_levels
from .errors import GopsInputError
from .float_dp import level_items, solve_level

FORMAT = "gops-store"
VERSION = 1
MANIFEST = "manifest.json"
#: Items per checkpoint (an item is a prize set and a canonical pattern: k matrix games).
DEFAULT_CHUNK_ITEMS = 1 << 20


class StoreError(GopsInputError):
    """A store that cannot be used: missing, corrupted, truncated, or for another game."""


def atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


class Store:
    """A store directory for one game (N, objective); see the module docstring."""

    def __init__(self, root, n: int, objective: str = "points", chunk_items: int = DEFAULT_CHUNK_ITEMS):
        self.root = Path(root)
        self.n = n
        self.objective = objective
        self.chunk_items = chunk_items
        self.manifest = self._read_or_create_manifest()

    # -- manifest ------------------------------------------------------------------------

    def _fresh_manifest(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "n": self.n, "objective": self.objective,
                "arithmetic": "float", "chunk_items": self.chunk_items, "levels": {}}

    def _read_or_create_manifest(self) -> dict:
        if self.root.exists() and not self.root.is_dir():
            raise StoreError(f"{self.root} is not a directory")
        path = self.root / MANIFEST
        if not path.exists():
            if self.root.exists() and any(self.root.iterdir()):
                raise StoreError(f"{self.root} is not empty and has no {MANIFEST}: not a store")
            self.root.mkdir(parents=True, exist_ok=True)
            manifest = self._fresh_manifest()
            atomic_write_text(path, json.dumps(manifest, indent=1))
            return manifest
        manifest = read_manifest(self.root)
        if manifest["n"] != self.n or manifest["objective"] != self.objective:
            raise StoreError(
                f"{self.root} holds N={manifest['n']} objective={manifest['objective']}, "
                f"not N={self.n} objective={self.objective}"
            )
        self.chunk_items = manifest["chunk_items"]
        return manifest

    def _save_manifest(self) -> None:
        atomic_write_text(self.root / MANIFEST, json.dumps(self.manifest, indent=1))

    def is_complete(self, k: int) -> bool:
        return str(k) in self.manifest["levels"]

    # -- levels --------------------------------------------------------------------------

    def level_path(self, k: int) -> Path:
        return self.root / f"level-{k}.npy"

    def _progress_path(self, k: int) -> Path:
        return self.root / f"level-{k}.progress"

    def _done_items(self, k: int) -> int:
        path = self._progress_path(k)
        try:
            return int(path.read_text())
        except (FileNotFoundError, ValueError):
            return 0

    def open_level(self, level) -> np.ndarray:
        """The (possibly partial) array of a level being built, mapped read-write.

        Columns of identical hands are never computed (their value is 0): they are set to
        0 here, so that they are right whatever a crash left in the file.
        """
        path = self.level_path(level.k)
        shape = (level.prize_sets, level.patterns)
        arr = None
        if self._done_items(level.k) > 0 and path.exists():
            try:
                arr = np.load(path, mmap_mode="r+")
                if arr.shape != shape or arr.dtype != np.float64:
                    arr = None
            except (ValueError, OSError):
                arr = None
        if arr is None:
            self._progress_path(level.k).unlink(missing_ok=True)
            arr = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=shape)
        arr[:, level.swap == np.arange(level.patterns)] = 0.0
        return arr

    def record_progress(self, k: int, items: int, arr: np.ndarray) -> None:
        arr.flush()
        atomic_write_text(self._progress_path(k), str(items))

    def finish_level(self, k: int, arr: np.ndarray) -> None:
        arr.flush()
        del arr
        path = self.level_path(k)
        self.manifest["levels"][str(k)] = {
            "shape": list(np.load(path, mmap_mode="r").shape),
            "sha256": file_sha256(path),
        }
        self._save_manifest()
        self._progress_path(k).unlink(missing_ok=True)

    def load_level(self, k: int, verify: bool = True) -> np.ndarray:
        """A completed level read into memory (the level below the one being built)."""
        return load_level(self.root, self.manifest, k, verify, in_memory=True)


def read_manifest(root) -> dict:
    """Parse and sanity-check a store's manifest; StoreError (one line) otherwise."""
    root = Path(root)
    path = root / MANIFEST
    if not root.is_dir():
        raise StoreError(f"{root}: no such store directory")
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise StoreError(f"{root} is not a store (no {MANIFEST})") from None
    except (ValueError, UnicodeDecodeError):
        raise StoreError(f"{path} is corrupted (not JSON)") from None
    ok = (
        isinstance(manifest, dict)
        and manifest.get("format") == FORMAT
        and manifest.get("version") == VERSION
        and isinstance(manifest.get("n"), int)
        and isinstance(manifest.get("objective"), str)
        and isinstance(manifest.get("chunk_items"), int)
        and manifest["chunk_items"] > 0
        and isinstance(manifest.get("levels"), dict)
    )
    if not ok:
        raise StoreError(f"{path} is not a gops store manifest of version {VERSION}")
    return manifest


def load_level(root, manifest: dict, k: int, verify: bool = True, in_memory: bool = False) -> np.ndarray:
    """A completed level, memory-mapped read-only (or read into memory), after checking
    its shape and checksum."""
    entry = manifest["levels"].get(str(k))
    path = Path(root) / f"level-{k}.npy"
    if entry is None:
        raise StoreError(f"level {k} of the store {root} is not complete: rerun the solve to resume")
    try:
        arr = np.load(path, mmap_mode=None if in_memory else "r")
    except (ValueError, OSError, EOFError):
        raise StoreError(f"{path} is missing, truncated or corrupted") from None
    if list(arr.shape) != entry.get("shape") or arr.dtype != np.float64:
        raise StoreError(f"{path} has the wrong shape or type")
    if verify and file_sha256(path) != entry.get("sha256"):
        raise StoreError(f"{path} does not match its checksum: the store is corrupted")
    return arr


def solve_into_store(n: int, root, progress=None, chunk_items: int | None = None,
                     objective: str = "points") -> Store:
    """Solve n-card GOPS into the store at ``root``, resuming whatever is already there.

    ``progress(level, items)`` is called after each checkpointed chunk (also for the
    items found already done on resume).
    """
    store = Store(root, n, objective, chunk_items or DEFAULT_CHUNK_ITEMS)
    levels = build_levels(n)
    below = None
    for level in levels:
        if store.is_complete(level.k):
            below = None  # loaded lazily when the next level needs it
            continue
        if below is None:
            below = (np.zeros((1, 1)) if level.k == 0
                     else store.load_level(level.k - 1, verify=True))
        arr = store.open_level(level)
        total = level_items(level)
        done = store._done_items(level.k)
        if progress is not None and done:
            progress(level, done)
        for start in range(done, total, store.chunk_items):
            stop = min(total, start + store.chunk_items)
            solve_level(level, below, arr, start, stop)
            store.record_progress(level.k, stop, arr)
            if progress is not None:
                progress(level, stop - start)
        store.finish_level(level.k, arr)
        below = store.load_level(level.k, verify=False)
    return store


class StoredValues:
    """``values[k]`` of a store, each level mapped (and its checksum verified) on first use."""

    def __init__(self, root, manifest: dict):
        self.root = Path(root)
        self.manifest = manifest
        self._levels: dict[int, np.ndarray] = {}

    def __len__(self) -> int:
        return self.manifest["n"] + 1

    def __getitem__(self, k: int) -> np.ndarray:
        if k not in self._levels:
            self._levels[k] = load_level(self.root, self.manifest, k, verify=True)
        return self._levels[k]


def load(root, n: int | None = None, objective: str | None = None):
    """The Solution kept in a store directory, without solving anything.

    ``n`` and ``objective``, when given, must match the store (StoreError otherwise).
    Levels are checked against their checksums as they are first used.
    """
    from .solution import Solution

    manifest = read_manifest(root)
    if n is not None and manifest["n"] != n:
        raise StoreError(f"{root} holds N={manifest['n']}, not N={n}")
    if objective is not None and manifest["objective"] != objective:
        raise StoreError(f"{root} holds objective {manifest['objective']}, not {objective}")
    if manifest["objective"] != "points" or manifest.get("arithmetic") != "float":
        raise StoreError(f"{root}: unsupported objective or arithmetic in the manifest")
    n = manifest["n"]
    missing = [k for k in range(n + 1) if str(k) not in manifest["levels"]]
    if missing:
        raise StoreError(f"{root} is incomplete (level {missing[0]} of {n} missing): "
                         f"rerun `gops solve {n} --store {root}` to resume")
    return Solution(n, "points", "float", build_levels(n), StoredValues(root, manifest))
