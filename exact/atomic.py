"""Files written all at once: a reader sees the old file or the whole new one, never a part.

The new content goes to ``FILE.tmp``, is flushed and fsynced, and only then renamed over
``FILE`` (``os.replace`` is atomic on POSIX).  On any failure (a full disk, an interrupt)
the temporary file is removed and ``FILE`` is left as it was.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_file(path, mode: str = "wb"):
    """``with atomic_file(path) as fh:`` writes ``path`` atomically (module docstring).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "f.txt"
    >>> with atomic_file(p, "w") as fh:
    ...     _ = fh.write("whole")
    >>> p.read_text(), p.with_name("f.txt.tmp").exists()
    ('whole', False)
    """
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, mode) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
