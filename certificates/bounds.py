"""Bound certificates: verify the float solver's certified radii (FORMAT.md, "Bound
certificates").

A bound certificate claims, for every canonical subgame of level k, a float value f^ and
per level a radius r_k with |f^ - f*| <= r_k, f* the exact value.  It carries per record
and upcard the float strategies x, y the solver used; nothing in it is trusted.

The proof, level by level (r_{-1} := 0 is not needed: level 0 is the empty game, f* = 0):

Let c^ be the claimed values of level k - 1 and assume |c^ - c*| <= r_{k-1} for every
subgame there (proved one level down).  For a record (V, Y, P) of level k and upcard u,
the matrix built from the claimed children,

    A^_ij = u sign(V_i - Y_j) + c^(V - V_i, Y - Y_j, P - u),

is a matrix of dyadic rationals, computed exactly.  With x, y clamped at 0 and divided
by their sums (any nonnegative vectors with a positive sum give probability vectors),

    lo_u = min_j (x^T A^)_j  <=  val(A^)  <=  max_i (A^ y)_i = hi_u

(x guarantees its column minimum, y concedes at most its row maximum: weak duality,
Shoham & Leyton-Brown 2009, sec 4.1).  The exact matrix A* differs from A^ by at most
r_{k-1} in every entry, and the value of a matrix game moves by at most the largest
entry change, so val(A*) lies in [lo_u - r_{k-1}, hi_u + r_{k-1}].  The exact value is
the mean over the k upcards (Rhoads & Bartholdi 2012, sec 3), so with lo, hi the means,

    |f^ - f*|  <=  max(f^ - lo, hi - f^) + r_{k-1}.

The checker accepts level k iff this bound is at most r_k for every record, which it
tests as the two exact inequalities sum_u lo_u >= k (f^ - (r_k - r_{k-1})) and
sum_u hi_u <= k (f^ + (r_k - r_{k-1})).  The swapped record is -f^, within the same
radius; identical hands must be claimed 0, which is exact (f(V, V, P) = 0 by
antisymmetry).  By induction every claimed value of level k is within r_k of the exact
one.

Arithmetic: every float is a dyadic m 2^e.  The values of a finished level are stored as
integers at the level's own scale 2^E (E the smallest exponent among them, at most 0), so
the entries of every matrix of the next level are integers at scale 2^E; a strategy is
put at the scale of its smallest entry.  The column and row sums are then integer dot
products (at most 2^12 bits for the most extreme floats, no size limit needed), and only
the k quotients of a record meet in gmpy2 rationals.

Everything else reuses the version-1 checker: the msgpack stream and its limits
(:mod:`.stream`), pattern validation, children and counts (:mod:`.patterns`), exit codes
(:mod:`.errors`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

from gmpy2 import mpq

from .decoding import array, footer_root_value, keyed_map, small_int, string
from .errors import InvalidCertificate, UnreadableCertificate, located
from .patterns import cards, check_record_key, children, describe, record_count
from .spec import MAX_N, RULES
from .stream import ObjectStream
from .text import brief

BOUND_MAGIC = "GOPS-BOUND-CERTIFICATE"
BOUND_VERSION = 1
HEADER_KEYS = frozenset({"magic", "version", "rules", "objective", "n", "root"})
LEVEL_KEYS = frozenset({"level", "records", "radius"})

_BITS = 1 << 64
_FRACTION = (1 << 52) - 1


class BoundSummary(NamedTuple):
    """What a valid bound certificate proves: N, its record count, the root value (0)
    and the radii r_0..r_N (floats, exactly as claimed)."""

    n: int
    records: int
    root_value: mpq
    objective: str
    radii: tuple


# ---------------------------------------------------------------------------------------
# Floats
# ---------------------------------------------------------------------------------------


def binary64(obj, where: str) -> tuple[int, int]:
    """A float of the file: the 64 bits of its IEEE-754 binary64 encoding as a msgpack
    unsigned int, read as the dyadic ``(m, e)`` = m 2^e (sign in m; (0, 0) for zeros).
    Not an int in 0..2^64-1 is unreadable (2); an infinity or a NaN is invalid (1).

    >>> binary64(0x3FF8000000000000, "v")   # 1.5
    (3, -1)
    >>> binary64(1, "v")   # the smallest subnormal
    (1, -1074)
    >>> binary64(0x7FF8000000000000, "v")
    Traceback (most recent call last):
    ...
    certificates.errors.InvalidCertificate: v: not a finite float (bits 0x7ff8000000000000)
    """
    if type(obj) is not int:
        raise UnreadableCertificate(
            f"{where}: expected the bits of a float (an int), found {type(obj).__name__}"
        )
    if not 0 <= obj < _BITS:
        raise UnreadableCertificate(f"{where}: {brief(obj)} is not a 64-bit pattern")
    biased = obj >> 52 & 0x7FF
    fraction = obj & _FRACTION
    if biased == 0x7FF:
        raise InvalidCertificate(f"{where}: not a finite float (bits {obj:#018x})")
    if biased:
        m, e = fraction | (1 << 52), biased - 1075
    else:
        m, e = fraction, -1074
    if not m:
        return 0, 0
    zeros = (m & -m).bit_length() - 1  # lowest terms: no exponent smaller than needed
    m >>= zeros
    return (-m if obj >> 63 else m), e + zeros


def as_mpq(d: tuple[int, int]) -> mpq:
    m, e = d
    return mpq(m << e, 1) if e >= 0 else mpq(m, 1 << -e)


def show(q) -> str:
    """A short decimal text of a dyadic or an mpq, for messages."""
    return f"{float(as_mpq(q) if isinstance(q, tuple) else q):.6e}"


def radius(obj, where: str) -> tuple[int, int]:
    r = binary64(obj, where)
    if r[0] < 0:
        raise InvalidCertificate(f"{where}: {show(r)} is negative")
    return r


# ---------------------------------------------------------------------------------------
# Header, level headers, footer
# ---------------------------------------------------------------------------------------


def read_bound_header(obj) -> int:
    """The header map (magic already matched); returns N."""
    if obj.get("version") != BOUND_VERSION or type(obj.get("version")) is not int:
        raise UnreadableCertificate(
            f"unsupported bound certificate version {brief(obj.get('version'))}, "
            f"expected {BOUND_VERSION}"
        )
    header = keyed_map(obj, "header", HEADER_KEYS)
    if string(header["rules"], "header rules") != RULES:
        raise UnreadableCertificate(
            f"unsupported rules {brief(header['rules'])}, expected {RULES!r}"
        )
    if string(header["objective"], "header objective") != "points":
        raise UnreadableCertificate(
            f"unsupported objective {brief(header['objective'])} for a bound certificate, "
            "expected 'points'"
        )
    n = small_int(header["n"], "header n")
    if not 1 <= n <= MAX_N:
        raise UnreadableCertificate(f"header n = {n} is outside 1..{MAX_N}")
    root = [small_int(a, "header root") for a in array(header["root"], "header root", 3)]
    full = (1 << n) - 1
    if root != [full, full, full]:
        raise InvalidCertificate(f"header root {root} is not [{full}, {full}, {full}] for N = {n}")
    return n


def read_level_header(obj, k: int, n: int) -> tuple[int, tuple[int, int]]:
    """``{"level": k, "records": R_k, "radius": bits}``; returns (R_k, r_k)."""
    if type(obj) is dict and "end" in obj:
        raise InvalidCertificate(f"footer found where level {k} was expected")
    header = keyed_map(obj, f"level {k} header", LEVEL_KEYS)
    level = small_int(header["level"], f"level {k} header level")
    declared = small_int(header["records"], f"level {k} header records")
    if level != k:
        raise InvalidCertificate(f"level {level} found where level {k} was expected")
    expected = record_count(n, k)
    if declared != expected:
        raise InvalidCertificate(
            f"level {k} declares {declared} records; N = {n} has {expected} canonical subgames"
        )
    return declared, radius(header["radius"], f"level {k} radius")


def check_footer(obj, records: int, root_value: tuple[int, int]) -> None:
    value = footer_root_value(obj, records, binary64)
    if value != root_value:
        raise InvalidCertificate(
            f"footer root_value {show(value)} differs from the root record's {show(root_value)}"
        )


# ---------------------------------------------------------------------------------------
# One level's claimed values, at one scale
# ---------------------------------------------------------------------------------------


class ScaledLevel(NamedTuple):
    """The claimed values of a finished level: ``values[prizes][pattern key]`` is the
    integer c 2^-E of the record's value c (pattern key = mine | theirs << 16); the
    swapped pattern is minus it."""

    E: int
    values: dict


def scale_level(claimed: dict) -> ScaledLevel:
    """``claimed[(mine, theirs, prizes)] = (m, e)`` as a :class:`ScaledLevel`."""
    E = min([e for m, e in claimed.values() if m] + [0])
    values: dict = {}
    for (mine, theirs, prizes), (m, e) in claimed.items():
        values.setdefault(prizes, {})[mine | theirs << 16] = m << (e - E)
    return ScaledLevel(E, values)


@lru_cache(maxsize=1 << 16)
def child_cells(mine: int, theirs: int) -> tuple:
    """Per row i, per column j: (sign(V_i - Y_j), child key of the recorded pattern,
    -1 if its value is negated else 1) (:func:`.patterns.children`)."""
    return tuple(
        tuple((c.sign, c.mine | c.theirs << 16, -1 if c.negate else 1) for c in row)
        for row in children(mine, theirs)
    )


def matrix(mine: int, theirs: int, prizes: int, u: int, below: ScaledLevel) -> list[list[int]]:
    """A^ of the module docstring for upcard u, as integers at scale 2^E of ``below``."""
    try:
        row = below.values[prizes & ~(1 << (u - 1))]
    except KeyError:
        raise InvalidCertificate(
            f"children with prizes {cards(prizes & ~(1 << (u - 1)))} are missing"
        ) from None
    unit = u << -below.E
    try:
        return [
            [unit * s + neg * row[key] for s, key, neg in line]
            for line in child_cells(mine, theirs)
        ]
    except KeyError:
        raise InvalidCertificate("a child record is missing") from None


# ---------------------------------------------------------------------------------------
# One record
# ---------------------------------------------------------------------------------------


def strategy(obj, k: int, where: str) -> tuple[list[int], int]:
    """A strategy: k floats, clamped at 0, as integers at one scale and their sum > 0."""
    entries = [binary64(a, f"{where}[{i}]") for i, a in enumerate(array(obj, where))]
    if len(entries) != k:
        raise InvalidCertificate(f"{where} has {len(entries)} entries, expected {k}")
    positive = [e for m, e in entries if m > 0]
    if not positive:
        raise InvalidCertificate(f"{where} has no positive entry")
    low = min(positive)
    weights = [m << (e - low) if m > 0 else 0 for m, e in entries]
    return weights, sum(weights)


def game_bounds(A: list[list[int]], x: list[int], sx: int, y: list[int], sy: int):
    """(lo, hi) of one game, at scale 2^E: min_j (x^T A)_j / sum x, max_i (A y)_i / sum y.

    >>> game_bounds([[1, -1], [-1, 1]], [1, 1], 2, [1, 3], 4)   # matching pennies
    (mpq(0,1), mpq(1,2))
    """
    k = len(A)
    rows = [i for i in range(k) if x[i]]
    cols = [j for j in range(k) if y[j]]
    low = min(sum(x[i] * A[i][j] for i in rows) for j in range(k))
    high = max(sum(line[j] * y[j] for j in cols) for line in A)
    return mpq(low, sx), mpq(high, sy)


def check_record(
    obj, k: int, n: int, below: ScaledLevel | None, r_below, r_k, current: dict, index: str
) -> None:
    """One record ``[mine, theirs, prizes, value, games]`` of level k; adds its value to
    ``current``."""
    with located(f"level {k}, record {index}"):
        fields = array(obj, "record", 5)
        key = tuple(
            small_int(fields[t], f"record {name}")
            for t, name in enumerate(("mine", "theirs", "prizes"))
        )
    mine, theirs, prizes = key
    where = f"level {k}, {describe(*key)}"
    with located(where):
        check_record_key(mine, theirs, prizes, k, n)
        if key in current:
            raise InvalidCertificate("duplicate: this record appears twice in the level")
        value = binary64(fields[3], "value")
        games = array(fields[4], "games")
        if mine == theirs:  # identical hands: f = 0 exactly, nothing to prove
            if value[0]:
                raise InvalidCertificate(f"identical hands valued {show(value)}, not 0")
            if games:
                raise InvalidCertificate("identical hands carry games (they have none)")
            current[key] = value
            return
        if len(games) != k:
            raise InvalidCertificate(f"games has {len(games)} entries, expected {k}")
        if below is None:  # level 0 has only identical (empty) hands, returned above
            raise InvalidCertificate("distinct hands with no level below")
    upcards = cards(prizes)
    lo_sum = hi_sum = mpq(0)
    for m, g in enumerate(games):
        with located(f"{where}, games[{m}]"):
            u, xs, ys = array(g, "game", 3)
            u = small_int(u, "upcard")
            if u != upcards[m]:
                raise InvalidCertificate(
                    f"upcard {u}, expected {upcards[m]} (P in increasing order)"
                )
            x, sx = strategy(xs, k, "x")
            y, sy = strategy(ys, k, "y")
            lo, hi = game_bounds(matrix(mine, theirs, prizes, u, below), x, sx, y, sy)
        lo_sum += lo
        hi_sum += hi
    # |f^ - f*| <= max(f^ - lo, hi - f^) + r_{k-1} <= r_k, lo and hi the means
    # (module docstring), in exact rationals at scale 2^E.
    scale = as_mpq((1, below.E))
    f, slack = as_mpq(value), as_mpq(r_k) - as_mpq(r_below)
    if lo_sum * scale < k * (f - slack) or hi_sum * scale > k * (f + slack):
        error = max(f - lo_sum * scale / k, hi_sum * scale / k - f) + as_mpq(r_below)
        with located(where):
            raise InvalidCertificate(
                f"value {show(value)}: proven error max(f - mean lo, mean hi - f) + r_{k - 1} "
                f"= {show(error)} exceeds the radius r_{k} = {show(r_k)}"
            )
    current[key] = value


# ---------------------------------------------------------------------------------------
# The whole file
# ---------------------------------------------------------------------------------------


def verify_bound_stream(
    header, stream: ObjectStream, progress: Callable | None = None
) -> BoundSummary:
    """Check a bound certificate whose header (magic :data:`BOUND_MAGIC`) was read."""
    n = read_bound_header(header)
    below = None
    r_below = (0, 0)
    radii = []
    total = 0
    obj = stream.next("the level 0 header")
    for k in range(n + 1):
        declared, r_k = read_level_header(obj, k, n)
        current: dict = {}
        for t in range(declared):
            obj = stream.next(f"record {t + 1} of level {k}")
            if type(obj) is dict:
                raise InvalidCertificate(
                    f"level {k} has {t} records, its header declares {declared}"
                )
            check_record(obj, k, n, below, r_below, r_k, current, f"{t + 1} of {declared}")
        total += declared
        radii.append(float(as_mpq(r_k)))
        if progress is not None:
            progress(k, n, declared)
        obj = stream.next(f"the level {k + 1} header" if k < n else "the footer")
        if type(obj) is list:
            raise InvalidCertificate(f"level {k} has more than the {declared} records declared")
        if k < n:
            below, r_below = scale_level(current), r_k
        else:
            full = (1 << n) - 1
            root_value = current[full, full, full]
    check_footer(obj, total, root_value)
    stream.expect_end()
    return BoundSummary(n, total, as_mpq(root_value), "points", tuple(radii))
