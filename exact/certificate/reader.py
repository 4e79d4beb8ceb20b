"""Read exact values back from a certificate file (format: certificates/FORMAT.md).

This is the solver side's own small reader: it *parses*, it does not *verify*.  Proving a
certificate is the job of the independent checker (``gops check``, the package
``certificates``, which this module does not import).  The audit trusts the values read
here, so check a certificate before auditing against it.

Numbers stay fraction-light: a value is kept as the pair of integers the file stores
(:class:`Rational`), because building a python-flint ``fmpq`` computes a gcd, about 0.9 s
for the 10^6-digit values of N = 7.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import msgpack
import numpy as np
from flint import fmpz

from exact.errors import GopsInputError
from exact.game.encoding import KEY_SHIFT, Level, build_levels

MAGIC = "GOPS-CERTIFICATE"
VERSION = 1
#: FORMAT.md's limits against hostile files: 64 MiB per Integer, short arrays and maps.
MAX_BIN = 64 << 20
MAX_ARRAY = 64
MAX_MAP = 16


@dataclass(frozen=True)
class Rational:
    """p / q with fmpz integers, q > 0, not necessarily in lowest terms.

    >>> Rational(fmpz(-3), fmpz(4)).p
    -3
    """

    p: fmpz
    q: fmpz

    def __neg__(self) -> Rational:
        return Rational(-self.p, self.q)


@dataclass(frozen=True)
class ExactValues:
    """The exact values of every canonical subgame of N-card GOPS, and equilibrium supports.

    ``values[k][prize rank, pattern rank]`` is any object with integer attributes ``p`` and
    ``q`` (an fmpq or a :class:`Rational`); ``supports[k][(r, p)]`` lists, per upcard of
    the prize set in increasing order, the supports of the exact equilibrium as bitmasks
    ``(rows, columns)``, for the record patterns p <= swap[p] only.
    """

    n: int
    levels: tuple[Level, ...]
    values: list
    supports: list
    source: str


def _integer(a) -> fmpz:
    """An Integer of FORMAT.md: an int, or big-endian two's-complement bytes."""
    if isinstance(a, bool):
        raise GopsInputError("an Integer is a boolean")
    if isinstance(a, int):
        return fmpz(a)
    if isinstance(a, bytes):
        return fmpz(int.from_bytes(a, "big", signed=True))
    raise GopsInputError(f"an Integer is a {type(a).__name__}")


def _nonzero(a) -> bool:
    return any(a) if isinstance(a, bytes) else a != 0


def _rational(obj) -> Rational:
    p, q = (_integer(a) for a in obj)
    if q <= 0:
        raise GopsInputError("a Rational has a denominator <= 0")
    return Rational(p, q)


def _support(vector) -> int:
    numerators, _ = vector
    return sum(1 << i for i, a in enumerate(numerators) if _nonzero(a))


def read_certificate(path, progress=None) -> ExactValues:
    """Every value and equilibrium support stored in the certificate at ``path``.

    ``progress(bytes_read, bytes_total)`` is called after each level.  Raises
    GopsInputError for a file that is not a complete certificate of this format; OSError
    for a file that cannot be opened.
    """
    path = os.fspath(path)
    total = os.path.getsize(path)
    with open(path, "rb") as fh:
        unpacker = msgpack.Unpacker(
            fh,
            raw=False,
            max_bin_len=MAX_BIN,
            max_array_len=MAX_ARRAY,
            max_map_len=MAX_MAP,
            max_str_len=1 << 10,
            max_ext_len=0,
        )
        try:
            return _read(unpacker, path, lambda: progress(fh.tell(), total) if progress else None)
        except GopsInputError as exc:
            raise GopsInputError(f"{path}: not a readable certificate: {exc}") from None
        except (msgpack.OutOfData, StopIteration):
            raise GopsInputError(f"{path}: not a readable certificate: truncated") from None
        except (ValueError, TypeError, KeyError, IndexError, msgpack.UnpackException) as exc:
            raise GopsInputError(
                f"{path}: not a readable certificate: {type(exc).__name__}: {exc}"
            ) from None


def _read(unpacker, path, report) -> ExactValues:
    header = unpacker.unpack()
    if not isinstance(header, dict) or header.get("magic") != MAGIC:
        raise GopsInputError("bad magic")
    if header.get("version") != VERSION:
        raise GopsInputError(f"unsupported version {header.get('version')!r}")
    if header.get("objective") != "points":
        raise GopsInputError(f"unsupported objective {header.get('objective')!r}")
    n = header.get("n")
    if not isinstance(n, int) or not 1 <= n <= 16:
        raise GopsInputError(f"bad N {n!r}")
    levels = build_levels(n)
    values: list[np.ndarray] = []
    supports: list[dict] = []
    for level in levels:
        level_header = unpacker.unpack()
        if not isinstance(level_header, dict) or level_header.get("level") != level.k:
            raise GopsInputError(f"expected the header of level {level.k}")
        values.append(_read_level(unpacker, level, level_header.get("records"), supports))
        report()
    footer = unpacker.unpack()
    if not isinstance(footer, dict) or footer.get("end") is not True:
        raise GopsInputError("no footer")
    return ExactValues(n, levels, values, supports, source=f"certificate {path}")


def _read_level(unpacker, level: Level, records, supports):
    prize_rank = {int(m): r for r, m in enumerate(level.prize_masks.tolist())}
    out = np.full((level.prize_sets, level.patterns), None, dtype=object)
    level_supports = {}
    if not isinstance(records, int) or records < 0 or records > level.subgames:
        raise GopsInputError(f"level {level.k}: bad record count {records!r}")
    for _ in range(records):
        mine, theirs, prizes, value, games = unpacker.unpack()
        key = mine | theirs << KEY_SHIFT
        p = int(np.searchsorted(level.pattern_keys, key))
        if p >= level.patterns or level.pattern_keys[p] != key or prizes not in prize_rank:
            raise GopsInputError(f"level {level.k}: a record outside the game")
        r = prize_rank[prizes]
        if out[r, p] is not None:
            raise GopsInputError(f"level {level.k}: a record appears twice")
        v = _rational(value)
        out[r, p] = v
        out[r, level.swap[p]] = -v if level.swap[p] != p else v
        level_supports[(r, p)] = [(_support(x), _support(y)) for _, x, y, _ in games]
    if any(v is None for v in out.ravel()):
        raise GopsInputError(f"level {level.k}: records missing")
    supports.append(level_supports)
    return out
