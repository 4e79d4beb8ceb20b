"""The files of a store (:mod:`exact.dp.store`): their names, what kind of file each is,
its errors, and the checkpoint file of a level in progress.

Invariants: every file of a store is a regular file (a FIFO would block the open that
reads it, a device is no level), refused before it is opened otherwise
(:class:`NotRegularFile`); a file is replaced all at once (:mod:`exact.atomic`); a
checkpoint ``level-K.progress`` reads "ITEMS RADIUS ROWS SHA256" (the items finished,
their certified radius, the prize-set rows [0, ROWS) they complete and those rows'
SHA-256), and one that does not parse takes no item as done.
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import stat
from pathlib import Path

import numpy as np

from exact.atomic import atomic_file
from exact.errors import GopsInputError


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


def kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISREG(mode):
        return "a file"
    return "a FIFO" if stat.S_ISFIFO(mode) else "a device or socket"


def path_kind(path: Path) -> str | None:
    """What ``path`` is ("a file", "a FIFO", ...), None if nothing is there (or it cannot
    be looked at: then the caller's own open says why)."""
    try:
        return kind_of(os.stat(path).st_mode)
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
            f"{path} is {kind_of(mode)}, not a regular file: the store was tampered with"
        )


def allocate(path: Path, root: Path, k: int) -> None:
    """Allocate level k's file in full (``posix_fallocate``) before it is mapped: a full
    disk is then a one-line StoreError here, never a SIGBUS from a write through the map
    later, and nothing already written is touched."""
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
            f"no space left in {root} for level {k} "
            f"({size:,} bytes): free some space and rerun to resume"
        ) from None


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


def npy_sha256(arr: np.ndarray) -> str:
    """The SHA-256 of the .npy file that would hold ``arr`` (the header numpy writes, then
    the data), without writing it: what the manifest records for a level never written."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, np.lib.format.header_data_from_array_1_0(arr))
    digest = hashlib.sha256(header.getvalue())
    hash_rows(digest, arr, 0, arr.shape[0])
    return digest.hexdigest()


def hash_rows(digest, arr: np.ndarray, r0: int, r1: int, rows: int = 1 << 12) -> None:
    """Feed the bytes of rows [r0, r1) of ``arr`` to ``digest``, a block at a time."""
    for a in range(r0, r1, rows):
        digest.update(np.ascontiguousarray(arr[a : min(r1, a + rows)]).tobytes())


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
