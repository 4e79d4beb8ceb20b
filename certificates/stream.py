"""Read a certificate as a stream of msgpack objects, with FORMAT.md's limits.

FORMAT.md, "Encoding": the file is a plain concatenation of msgpack objects; nothing in it
is ever executed.  The reader enforces the limits of FORMAT.md before anything is
allocated (msgpack checks a declared array or map length against its limit before
building the container, and never buffers more than ``MAX_BUFFER_SIZE`` bytes, so a
declared 4 GiB ``bin`` fails with ``BufferFull`` or end-of-data after at most that much):

- Integers (``bin``) of at most 64 MiB, arrays of at most 64 entries, maps of at most 16,
  strings of at most ``MAX_STR_LEN`` bytes, no ``ext`` types, map keys strings only;
- at most ``MAX_CONTAINERS_PER_OBJECT`` arrays and maps per top-level object, so nesting
  cannot multiply a small file into a large tree of Python objects;
- no key twice in one map: msgpack would keep the last value, so a header with ``n``
  twice would have two readings; a certificate has exactly one.

Every failure of the reader is an :class:`UnreadableCertificate` (exit 2): truncated file,
malformed msgpack, a limit exceeded, trailing bytes after the footer.

The file may be a pipe (``python -m certificates /dev/stdin``): nothing relies on its
size; the reader counts the bytes it was given and, after the footer, reads one more.
"""

from __future__ import annotations

import msgpack

from .errors import UnreadableCertificate
from .spec import (
    MAX_ARRAY_LEN,
    MAX_BUFFER_SIZE,
    MAX_CONTAINERS_PER_OBJECT,
    MAX_INTEGER_BYTES,
    MAX_MAP_LEN,
    MAX_STR_LEN,
    READ_SIZE,
)
from .text import brief


class CountingReader:
    """A binary file's ``read``, counting the bytes returned (a pipe has no size)."""

    def __init__(self, fh):
        self._fh = fh
        self.bytes_read = 0

    def read(self, size: int = -1) -> bytes:
        data = self._fh.read(size)
        self.bytes_read += len(data)
        return data


class ObjectStream:
    """The top-level msgpack objects of an open binary file, one at a time.

    ``next(what)`` returns the next object or raises ``UnreadableCertificate`` naming
    ``what`` was expected; ``expect_end()`` checks that nothing follows the footer.
    """

    def __init__(self, fh):
        self._reader = CountingReader(fh)
        self._containers = 0
        self._unpacker = msgpack.Unpacker(
            self._reader,
            raw=False,
            use_list=True,
            strict_map_key=True,
            read_size=READ_SIZE,
            max_buffer_size=MAX_BUFFER_SIZE,
            max_bin_len=MAX_INTEGER_BYTES,
            max_str_len=MAX_STR_LEN,
            max_array_len=MAX_ARRAY_LEN,
            max_map_len=MAX_MAP_LEN,
            max_ext_len=0,
            list_hook=self._count,
            object_pairs_hook=self._map,
        )

    def _count(self, container):
        """msgpack hook, called once per array or map built: enforce the container budget."""
        self._containers += 1
        if self._containers > MAX_CONTAINERS_PER_OBJECT:
            raise UnreadableCertificate(
                f"more than {MAX_CONTAINERS_PER_OBJECT} arrays and maps in one object"
            )
        return container

    def _map(self, pairs: list) -> dict:
        """msgpack hook, called with the (key, value) pairs of each map: count it, and
        refuse a key given twice (msgpack alone would keep the last value)."""
        self._count(pairs)
        out = dict(pairs)
        if len(out) != len(pairs):
            seen = set()
            for key, _ in pairs:  # the first key seen twice
                if key in seen:
                    break
                seen.add(key)
            raise UnreadableCertificate(
                f"a map has the key {brief(key)} twice (a certificate has one reading)"
            )
        return out

    @property
    def offset(self) -> int:
        """Bytes of the file consumed by the objects returned so far."""
        return self._unpacker.tell()

    def next(self, what: str):
        """The next object; ``what`` names it in the error if there is none."""
        self._containers = 0
        start = self.offset
        try:
            return self._unpacker.unpack()
        except UnreadableCertificate as exc:  # from the hooks: a budget, a key twice
            raise exc.within(f"{what} (from byte {start})") from None
        except msgpack.OutOfData:
            raise UnreadableCertificate(
                f"truncated: file ends at byte {self._reader.bytes_read} where {what} was expected"
            ) from None
        except msgpack.BufferFull:
            raise UnreadableCertificate(
                f"{what} (from byte {start}): a value larger than the limits "
                f"(an Integer of at most {MAX_INTEGER_BYTES} bytes)"
            ) from None
        except (ValueError, msgpack.UnpackException, RecursionError) as exc:
            # msgpack.FormatError, StackError, limits exceeded ("... exceeds max_*_len"),
            # invalid UTF-8 (UnicodeDecodeError is a ValueError), non-string map keys.
            raise UnreadableCertificate(
                f"{what} (from byte {start}): malformed msgpack: {str(exc) or type(exc).__name__}"
            ) from None

    def expect_end(self) -> None:
        """FORMAT.md: the footer is the last object; any byte after it is rejected.

        Called right after the footer was returned, when ``offset`` is where it ends:
        bytes read but not yet parsed, or one more byte in the file, are trailing.
        """
        if self._reader.bytes_read > self.offset or self._reader.read(1):
            raise UnreadableCertificate(
                f"trailing bytes after the footer, which ends at byte {self.offset}"
            )
