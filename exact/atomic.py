"""Files written all at once: a reader sees the old file or the whole new one, never a part.

The new content goes to ``FILE.tmp`` (``FILE.PID.N.tmp`` with ``unique=True``, for files
that several processes may write at once, like the parts of a cluster solve), is flushed
and fsynced, and only then renamed over ``FILE`` (``os.replace`` is atomic on POSIX); the
folder is then fsynced too, so that the rename itself survives a crash.  On any failure (a
full disk, an interrupt) the temporary file is removed and ``FILE`` is left as it was.

Only a regular file (or nothing) is ever renamed over (:func:`output_kind`): standard
output (``-``, ``/dev/stdout``) and character devices (``/dev/null``, a terminal), and a
file named through ``/dev`` or ``/proc`` (``/dev/stderr`` redirected to a file), are
written straight to; a FIFO, a socket, a block device or a folder is refused with a
one-line GopsInputError before anything is opened.  An error names ``FILE``, never the
temporary file.
"""

from __future__ import annotations

import fcntl
import itertools
import os
import stat
import sys
from contextlib import contextmanager
from pathlib import Path

from exact.errors import GopsInputError

_serial = itertools.count()

#: The names of standard output: written straight to sys.stdout, never renamed over.
STDOUT_NAMES = ("-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")

_SPECIAL = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
)


def output_kind(path) -> str:
    """How :func:`atomic_file` writes ``path``: "stdout", "direct" (a character device, or
    a file named through /dev or /proc: written straight to), "file" (an existing regular
    file: renamed over) or "new" (nothing there yet, or an error the open will report);
    anything else is refused.

    >>> output_kind("-"), output_kind("/dev/null")
    ('stdout', 'direct')
    >>> output_kind("/")
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: / is not a regular file (a directory); nothing was written
    """
    if os.fspath(path) in STDOUT_NAMES:
        return "stdout"
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "new"
    if stat.S_ISCHR(mode):
        return "direct"
    if stat.S_ISREG(mode):
        folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
        return "direct" if folder == "/dev" or folder.startswith("/proc/") else "file"
    raise _not_regular(path, mode)


def _not_regular(path, mode: int) -> GopsInputError:
    what = next((name for test, name in _SPECIAL if test(mode)), "a special file")
    return GopsInputError(f"{path} is not a regular file ({what}); nothing was written")


def _naming(exc: OSError, path, tmp=None) -> OSError:
    """``exc`` naming the user's ``path`` where it named the temporary file or nothing."""
    if exc.errno is None or exc.filename not in (None, os.fspath(tmp) if tmp else None):
        return exc
    return OSError(exc.errno, exc.strerror, os.fspath(path))


@contextmanager
def atomic_file(path, mode: str = "wb", unique: bool = False):
    """``with atomic_file(path) as fh:`` writes ``path`` atomically (module docstring).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "f.txt"
    >>> with atomic_file(p, "w") as fh:
    ...     _ = fh.write("whole")
    >>> p.read_text(), p.with_name("f.txt.tmp").exists()
    ('whole', False)
    """
    kind = output_kind(path)
    if kind != "file" and kind != "new":
        with _direct(path, mode, kind) as fh:
            yield fh
        return
    path = Path(path)
    suffix = f".{os.getpid()}.{next(_serial)}.tmp" if unique else ".tmp"
    tmp = path.with_name(path.name + suffix)
    try:
        with open(tmp, mode) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise _naming(exc, path, tmp) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


@contextmanager
def _direct(path, mode: str, kind: str):
    """Write standard output or a device straight, no temporary file, no rename.  The
    device is opened without blocking and checked again once open (a FIFO put in its
    place in between is refused, not waited on)."""
    try:
        if kind == "stdout":
            sys.stdout.flush()
            fh = sys.stdout.buffer if "b" in mode else sys.stdout
            yield fh
            fh.flush()
            return
        how = os.O_APPEND if "a" in mode else os.O_TRUNC  # as the shell's >> and >
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC | how)
        try:
            opened = os.fstat(fd).st_mode
            if not (stat.S_ISCHR(opened) or stat.S_ISREG(opened)):
                raise _not_regular(path, opened)
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        except BaseException:
            os.close(fd)
            raise
        with open(fd, mode) as fh:
            yield fh
            fh.flush()
    except OSError as exc:
        raise _naming(exc, path) from None


def _fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the platform allows opening a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
