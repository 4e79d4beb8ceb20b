"""Files written all at once: a reader sees the old file or the whole new one, never a part.

The new content goes to ``FILE.tmp`` (``FILE.PID.N.tmp`` with ``unique=True``, for files
that several processes may write at once, like the parts of a cluster solve), is flushed
and fsynced, and only then renamed over ``FILE`` (``os.replace`` is atomic on POSIX); the
folder is then fsynced too, so that the rename itself survives a crash.  On any failure (a
full disk, an interrupt) the temporary file is removed and ``FILE`` is left as it was.
"""

from __future__ import annotations

import itertools
import os
from contextlib import contextmanager
from pathlib import Path


_serial = itertools.count()


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
    path = Path(path)
    suffix = f".{os.getpid()}.{next(_serial)}.tmp" if unique else ".tmp"
    tmp = path.with_name(path.name + suffix)
    try:
        with open(tmp, mode) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


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
