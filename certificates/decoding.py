"""Decode the msgpack objects of FORMAT.md into checked Python values.

Each function takes an object as msgpack returned it and ``where``, a short name of the
field for the error message.  Wrong types and shapes (an array of the wrong length, a
string where an Integer belongs, a non-canonical Integer) are
:class:`UnreadableCertificate` (exit 2); a value that is well formed but impossible (a
denominator <= 0) is :class:`InvalidCertificate` (exit 1).  Range checks that depend on
N or on the level (pattern, prize set, vector length) belong to :mod:`.patterns` and
:mod:`.minimax`.

FORMAT.md, "Encoding":

- **Integer**: a msgpack int when it fits in a signed 64-bit integer, otherwise a ``bin``
  of the two's-complement, big-endian, minimal-length bytes.  Both halves of that
  sentence are enforced, so every Integer has exactly one encoding.
- **Rational**: ``[numerator, denominator]``, denominator > 0, lowest terms not required.
- **Probability vector**: ``[[n_1, ..., n_k], d]`` (validity is checked in :mod:`.minimax`).
- **Card set**, pattern masks and upcards: plain msgpack ints.
"""

from __future__ import annotations

from typing import NamedTuple

from gmpy2 import mpz

from .errors import InvalidCertificate, UnreadableCertificate
from .spec import FOOTER_KEYS, INT64_MAX, INT64_MIN
from .text import BRIEF_CHARS, brief, int_text

if hasattr(mpz, "from_bytes"):  # gmpy2 >= 2.2: straight from the bytes

    def _from_bytes(data: bytes) -> mpz:
        return mpz.from_bytes(data, "big", signed=True)

else:  # pragma: no cover - older gmpy2

    def _from_bytes(data: bytes) -> mpz:
        return mpz(int.from_bytes(data, "big", signed=True))


class Rational(NamedTuple):
    """``num / den`` as two mpz, ``den > 0``, *not* reduced: reducing costs a gcd, which
    at a million digits is far dearer than the checks' multiplications (see
    :mod:`.minimax`).  Compare Rationals by cross multiplication, never by their fields.
    """

    num: mpz
    den: mpz


class Vector(NamedTuple):
    """``(n_1/d, ..., n_k/d)`` as its integer numerators and common denominator."""

    nums: list
    d: mpz


class Game(NamedTuple):
    """One entry ``[u, x, y, v]`` of a record's ``games``."""

    u: int
    x: Vector
    y: Vector
    v: Rational


class Record(NamedTuple):
    """``[mine, theirs, prizes, value, games]`` (FORMAT.md, "Objects, in order", 2), or
    a win record ``[mine, theirs, prizes, lead, value, games]`` ("Win records")."""

    mine: int
    theirs: int
    prizes: int
    value: Rational
    games: list
    lead: int | None = None


def _type_name(obj) -> str:
    return type(obj).__name__


def small_int(obj, where: str) -> int:
    """A plain msgpack int (a mask, a card, a count); booleans are not ints here.

    >>> small_int(5, "n")
    5
    >>> small_int(True, "n")
    Traceback (most recent call last):
    ...
    certificates.errors.UnreadableCertificate: n: expected an int, found bool
    """
    if type(obj) is not int:
        raise UnreadableCertificate(f"{where}: expected an int, found {_type_name(obj)}")
    return obj


def _minimal_length(a) -> int:
    """Bytes of the shortest two's-complement encoding of ``a``."""
    return (a if a >= 0 else ~a).bit_length() // 8 + 1


def integer(obj, where: str) -> mpz:
    """An Integer: msgpack int in int64 range, or minimal two's-complement ``bin``.

    >>> integer((1 << 63).to_bytes(9, "big", signed=True), "v")
    mpz(9223372036854775808)
    >>> integer(b"\\x00\\x05", "v")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    certificates.errors.UnreadableCertificate: v: non-canonical Integer: bin of 2 bytes holds 5...
    """
    if type(obj) is int:
        if not INT64_MIN <= obj <= INT64_MAX:
            raise UnreadableCertificate(f"{where}: msgpack int {obj} is outside int64")
        return mpz(obj)
    if type(obj) is bytes:
        if not obj:
            raise UnreadableCertificate(f"{where}: empty bin is not an Integer")
        a = _from_bytes(obj)
        if INT64_MIN <= a <= INT64_MAX:
            raise UnreadableCertificate(
                f"{where}: non-canonical Integer: bin of {len(obj)} bytes holds {a}, "
                "which fits in int64"
            )
        if len(obj) != _minimal_length(a):
            raise UnreadableCertificate(
                f"{where}: non-canonical Integer: {len(obj)} bytes where "
                f"{_minimal_length(a)} suffice"
            )
        return a
    raise UnreadableCertificate(f"{where}: expected an Integer, found {_type_name(obj)}")


def array(obj, where: str, length: int | None = None) -> list:
    """A msgpack array, of exactly ``length`` entries when given."""
    if type(obj) is not list:
        raise UnreadableCertificate(f"{where}: expected an array, found {_type_name(obj)}")
    if length is not None and len(obj) != length:
        raise UnreadableCertificate(
            f"{where}: expected an array of {length} entries, found {len(obj)}"
        )
    return obj


def rational(obj, where: str) -> Rational:
    """A Rational ``[numerator, denominator]``; the denominator must be > 0.

    >>> rational([6, 4], "v")
    Rational(num=mpz(6), den=mpz(4))
    >>> rational([1, 0], "v")
    Traceback (most recent call last):
    ...
    certificates.errors.InvalidCertificate: v: denominator 0 is not positive
    """
    num, den = array(obj, where, 2)
    num = integer(num, f"{where} numerator")
    den = integer(den, f"{where} denominator")
    if den <= 0:
        raise InvalidCertificate(f"{where}: denominator {int_text(den)} is not positive")
    return Rational(num, den)


def vector(obj, where: str) -> Vector:
    """A probability vector's encoding ``[[n_1, ..., n_k], d]`` (not yet validated)."""
    nums, d = array(obj, where, 2)
    nums = array(nums, f"{where} numerators")
    return Vector(
        [integer(a, f"{where}[{i}]") for i, a in enumerate(nums)], integer(d, f"{where} d")
    )


def game(obj, where: str) -> Game:
    """A game entry ``[u, x, y, v]``."""
    u, x, y, v = array(obj, where, 4)
    return Game(
        small_int(u, f"{where} upcard"),
        vector(x, f"{where} x"),
        vector(y, f"{where} y"),
        rational(v, f"{where} v"),
    )


def record_key(obj, where: str, win: bool = False) -> tuple:
    """The ``(mine, theirs, prizes)`` of a record, decoded first to name it in errors;
    ``(mine, theirs, prizes, lead)`` for a win record (``win``).

    >>> record_key([3, 1, 6, -2, [0, 1], []], "record", win=True)
    (3, 1, 6, -2)
    """
    fields = array(obj, where, 6 if win else 5)
    key: tuple[int, ...] = (
        small_int(fields[0], f"{where} mine"),
        small_int(fields[1], f"{where} theirs"),
        small_int(fields[2], f"{where} prizes"),
    )
    if win:
        key += (int(integer(fields[3], f"{where} lead")),)
    return key


def record(obj, win: bool = False) -> Record:
    """A record ``[mine, theirs, prizes, value, games]``, or with ``win``
    ``[mine, theirs, prizes, lead, value, games]`` (call :func:`record_key` first)."""
    key = record_key(obj, "record", win)
    games = array(obj[-1], "games")
    return Record(
        key[0],
        key[1],
        key[2],
        rational(obj[-2], "value"),
        [game(g, f"games[{m}]") for m, g in enumerate(games)],
        key[3] if win else None,
    )


def string(obj, where: str) -> str:
    if type(obj) is not str:
        raise UnreadableCertificate(f"{where}: expected a string, found {_type_name(obj)}")
    return obj


def keyed_map(obj, where: str, keys: frozenset) -> dict:
    """A msgpack map with exactly the string keys ``keys``."""
    if type(obj) is not dict:
        raise UnreadableCertificate(f"{where}: expected a map, found {_type_name(obj)}")
    if set(obj) != keys:
        missing = sorted(keys - set(obj))
        extra = sorted(
            key if type(key) is str and len(key) <= BRIEF_CHARS else brief(key)
            for key in set(obj) - keys
        )
        raise UnreadableCertificate(f"{where}: wrong keys (missing {missing}, unexpected {extra})")
    return obj


def footer_root_value(obj, records: int, decode):
    """The footer (FORMAT.md, object 3) common to both kinds of certificate: no level
    header after level N, ``end`` true, the record count equal to ``records``; returns
    its root value read by ``decode`` (read before the count is compared, so that an
    unreadable value is reported first)."""
    if type(obj) is dict and "level" in obj:
        raise InvalidCertificate("a level header follows level N")
    footer = keyed_map(obj, "footer", FOOTER_KEYS)
    if footer["end"] is not True:
        raise UnreadableCertificate(f"footer end is {brief(footer['end'])}, expected true")
    count = small_int(footer["records"], "footer records")
    value = decode(footer["root_value"], "footer root_value")
    if count != records:
        raise InvalidCertificate(f"footer counts {count} records, the file has {records}")
    return value
