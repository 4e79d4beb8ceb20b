"""The streaming verifier: read a certificate once, front to back, and check everything.

Algorithm notes
---------------
FORMAT.md lists the records level by level, k = 0, 1, ..., N.  A record of level k is
checked against the certified values of level k - 1 only (its payoff matrices are rebuilt
from them), so the verifier keeps just two dicts (mine, theirs, prizes) -> value: the
finished previous level and the level being read.  Nothing is ever solved: each matrix
game is accepted only through the inequalities of :mod:`.minimax`.

Completeness: every record is a well-formed canonical subgame of its level (check 1), no
record appears twice, and each level holds exactly R_k records, the number of canonical
subgames (:func:`.patterns.record_count`).  By counting, each level then holds *every*
canonical subgame, so every child a payoff matrix needs is present.  The single record of
level N is then the root, whose value must be 0 and match the footer.

Win certificates (header objective "win", FORMAT.md "Win records") run the same driver:
the keys gain the lead, the payoff matrices come from :func:`.payoff.win_payoff_matrix`
(decided children valued sign(L') from the rules), the counts from
:func:`.patterns.win_record_count`, and the root is (full, full, full, lead 0).

What fails where (the exit codes of FORMAT.md): shapes and types raise
``UnreadableCertificate`` (2); content that parses but is wrong, including a missing,
extra or duplicated record and a wrong count, raises ``InvalidCertificate`` (1).
"""

from __future__ import annotations

import fcntl
import os
import stat
from collections.abc import Callable
from typing import NamedTuple

from gmpy2 import mpq

from .bounds import BOUND_MAGIC, BoundSummary, verify_bound_stream
from .declarations import MAGIC as DECLARATIONS_MAGIC
from .declarations import DeclarationsSummary, verify_declarations_stream
from .decoding import (
    Game,
    Record,
    array,
    footer_root_value,
    keyed_map,
    rational,
    record,
    record_key,
    small_int,
    string,
)
from .errors import InvalidCertificate, UnreadableCertificate, located
from .imperfect import MAGIC as IMPERFECT_MAGIC
from .imperfect import ImperfectSummary, verify_imperfect_stream
from .minimax import (
    as_mpq,
    check_matrix_game,
    check_probability_vector,
    check_size,
    line_sum,
)
from .patterns import cards, check_lead, check_record_key, describe, record_count, win_record_count
from .payoff import payoff_matrix, win_payoff_matrix
from .spec import (
    HEADER_KEYS,
    LEVEL_KEYS,
    MAGIC,
    MAX_N,
    OBJECTIVES,
    RULES,
    VERSION,
)
from .stream import ObjectStream
from .text import brief, format_rational


class Summary(NamedTuple):
    """What a valid certificate proves: N, its record count and the root value."""

    n: int
    records: int
    root_value: mpq  # 0 in a valid certificate
    objective: str = "points"


# ---------------------------------------------------------------------------------------
# Header, level headers, footer
# ---------------------------------------------------------------------------------------


def read_header(obj) -> tuple[int, str]:
    """FORMAT.md object 1; returns (N, objective).  Bad magic, version, rules or objective, and N
    outside 1..16, are "not a certificate this checker reads" (2); a root that does not
    match N is wrong content (1)."""
    if type(obj) is not dict or obj.get("magic") != MAGIC:
        raise UnreadableCertificate(f"not a GOPS certificate (no magic {MAGIC!r})")
    if obj.get("version") != VERSION or type(obj.get("version")) is not int:
        raise UnreadableCertificate(
            f"unsupported version {brief(obj.get('version'))}, expected {VERSION}"
        )
    header = keyed_map(obj, "header", HEADER_KEYS)
    if string(header["rules"], "header rules") != RULES:
        raise UnreadableCertificate(
            f"unsupported rules {brief(header['rules'])}, expected {RULES!r}"
        )
    objective = string(header["objective"], "header objective")
    if objective not in OBJECTIVES:
        raise UnreadableCertificate(
            f"unsupported objective {brief(objective)}, expected one of {', '.join(OBJECTIVES)}"
        )
    n = small_int(header["n"], "header n")
    if not 1 <= n <= MAX_N:
        raise UnreadableCertificate(f"header n = {n} is outside 1..{MAX_N}")
    root = [small_int(a, "header root") for a in array(header["root"], "header root", 3)]
    full = (1 << n) - 1
    if root != [full, full, full]:
        raise InvalidCertificate(f"header root {root} is not [{full}, {full}, {full}] for N = {n}")
    return n, objective


def read_level_header(obj, k: int, n: int, win: bool = False) -> int:
    """FORMAT.md object 2: ``{"level": k, "records": R_k}``; returns R_k, which must be
    the number of canonical subgames of level k."""
    if type(obj) is dict and "end" in obj:
        raise InvalidCertificate(f"footer found where level {k} was expected")
    header = keyed_map(obj, f"level {k} header", LEVEL_KEYS)
    level = small_int(header["level"], f"level {k} header level")
    declared = small_int(header["records"], f"level {k} header records")
    if level != k:
        raise InvalidCertificate(f"level {level} found where level {k} was expected")
    expected = (win_record_count if win else record_count)(n, k)
    if declared != expected:
        raise InvalidCertificate(
            f"level {k} declares {declared} records; N = {n} has {expected} canonical subgames"
        )
    return declared


def check_footer(obj, records: int, root_value) -> None:
    """FORMAT.md object 3: count and root value match; the root value is 0."""
    value = footer_root_value(obj, records, rational)
    if root_value.num != 0:
        raise InvalidCertificate(f"root value {format_rational(root_value)} is not 0")
    if value.num * root_value.den != root_value.num * value.den:
        raise InvalidCertificate(
            f"footer root_value {format_rational(value)} differs from the root record's "
            f"{format_rational(root_value)}"
        )


# ---------------------------------------------------------------------------------------
# One record
# ---------------------------------------------------------------------------------------


def check_upcards(rec: Record) -> None:
    """FORMAT.md check 2: ``games`` lists exactly the upcards of P in increasing order."""
    upcards = [g.u for g in rec.games]
    if upcards != cards(rec.prizes):
        raise InvalidCertificate(
            f"games list upcards {upcards}, expected {cards(rec.prizes)} (P in increasing order)"
        )


def check_game(rec: Record, g: Game, k: int, previous: dict) -> None:
    """FORMAT.md checks 3-5 for the upcard ``g.u``: rebuild X from the certified values
    of level k - 1 (and the rules, for a win record's decided children), then x and y
    are probability vectors proving that v is its value."""
    check_probability_vector(g.x, k, "x")
    check_probability_vector(g.y, k, "y")
    if rec.lead is None:
        X = payoff_matrix(rec.mine, rec.theirs, rec.prizes, g.u, previous)
    else:
        X = win_payoff_matrix(rec.mine, rec.theirs, rec.prizes, g.u, rec.lead, previous)
    check_matrix_game(X, g.x, g.y, g.v)


def check_value(rec: Record, k: int) -> None:
    """FORMAT.md check 6: value = mean of the k game values (R&B 2012, sec 3);
    level 0's value is f(empty, empty, empty) = 0."""
    if k == 0:
        if rec.value.num != 0:
            raise InvalidCertificate(f"value {format_rational(rec.value)} is not 0")
        return
    # sum_m a_m / b_m = total / L (L > 0, no gcd) equals k * value = k p / q iff
    # total q = k p L; the sizes are bounded before multiplying (minimax.check_size).
    total, L = line_sum([(0, g.v.num, g.v.den) for g in rec.games], [1] * k, "game values")
    p, q = rec.value
    check_size(
        max(total.bit_length() + q.bit_length(), p.bit_length() + k.bit_length() + L.bit_length())
        + 1,
        "the mean",
    )
    if total * q != k * p * L:
        raise InvalidCertificate(
            f"value {format_rational(rec.value)} is not the mean "
            f"{format_rational((total, L), k)} of the game values"
        )


def check_record(
    obj, k: int, n: int, previous: dict, current: dict, index: str, win: bool = False
) -> None:
    """Checks 1-6 for one record object of level k; adds its value to ``current``.

    Errors are located as "level k, record mine=... theirs=... prizes={...}[, upcard u]",
    or "level k, record i of R" while the record cannot yet be named.
    """
    with located(f"level {k}, record {index}"):
        key = record_key(obj, "record", win)
    where = f"level {k}, {describe(*key)}"
    with located(where):
        mine, theirs, prizes = key[:3]
        check_record_key(mine, theirs, prizes, k, n)
        if win:
            check_lead(mine, theirs, prizes, key[3], n)
        if key in current:
            raise InvalidCertificate("duplicate: this record appears twice in the level")
        rec = record(obj, win)
        check_upcards(rec)
    for g in rec.games:
        with located(f"{where}, upcard {g.u}"):
            check_game(rec, g, k, previous)
    with located(where):
        check_value(rec, k)
    current[key] = rec.value


# ---------------------------------------------------------------------------------------
# The whole file
# ---------------------------------------------------------------------------------------


def verify_stream(
    stream: ObjectStream, progress: Callable | None = None
) -> Summary | BoundSummary | ImperfectSummary | DeclarationsSummary:
    """Check a whole certificate; return its :class:`Summary` or raise a CertificateError.

    ``progress(k, n, records_of_level)`` is called after each level is verified.  The
    header's magic names the kind: a bound certificate is handed to
    :func:`.bounds.verify_bound_stream`, an imperfect-information one to
    :func:`.imperfect.verify_imperfect_stream` (no progress: it checks in seconds).
    """
    header = stream.next("the header")
    if type(header) is dict and header.get("magic") == BOUND_MAGIC:
        return verify_bound_stream(header, stream, progress)  # FORMAT.md, "Bound certificates"
    if type(header) is dict and header.get("magic") == IMPERFECT_MAGIC:
        # FORMAT.md, "Imperfect-information certificates"
        return verify_imperfect_stream(header, stream)
    if type(header) is dict and header.get("magic") == DECLARATIONS_MAGIC:
        return verify_declarations_stream(header, stream, progress)  # .declarations
    n, objective = read_header(header)
    win = objective == "win"
    previous: dict = {}
    total = 0
    obj = stream.next("the level 0 header")
    for k in range(n + 1):
        declared = read_level_header(obj, k, n, win)
        current: dict = {}
        for r in range(declared):
            obj = stream.next(f"record {r + 1} of level {k}")
            if type(obj) is dict:
                raise InvalidCertificate(
                    f"level {k} has {r} records, its header declares {declared}"
                )
            check_record(obj, k, n, previous, current, f"{r + 1} of {declared}", win)
        total += declared
        previous = current
        if progress is not None:
            progress(k, n, declared)
        obj = stream.next(f"the level {k + 1} header" if k < n else "the footer")
        if type(obj) is list:
            raise InvalidCertificate(f"level {k} has more than the {declared} records declared")
    full = (1 << n) - 1
    root_value = previous[(full, full, full, 0) if win else (full, full, full)]
    check_footer(obj, total, root_value)
    stream.expect_end()
    return Summary(n, total, as_mpq(root_value), objective)


def verify_file(
    path, progress: Callable | None = None
) -> Summary | BoundSummary | ImperfectSummary | DeclarationsSummary:
    """Open ``path`` (:func:`open_certificate`) and :func:`verify_stream` it (OSError
    propagates)."""
    with open_certificate(path) as fh:
        return verify_stream(ObjectStream(fh), progress)


#: Paths of descriptors this process was handed (``<(zstd -dc f)`` is /dev/fd/63).
_HANDED = ("/dev/stdin", "/dev/fd/", "/proc/self/fd/")


def open_certificate(path):
    """``path`` opened for binary reading, never blocking on the open: a regular file, or a
    pipe or device this process was handed (its standard input, /dev/fd/N).  Anything else
    (a FIFO, which would wait forever for a writer; a terminal, a folder) is an
    UnreadableCertificate "PATH is not a regular file", refused before it is opened and
    checked again once open (it opens with O_NONBLOCK)."""
    before = os.stat(path)
    handed = os.fspath(path).startswith(_HANDED) or _same_file(before, 0)
    _regular_or_handed(path, before.st_mode, handed)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        _regular_or_handed(path, os.fstat(fd).st_mode, handed)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def _same_file(st: os.stat_result, fd: int) -> bool:
    try:
        return os.path.samestat(st, os.fstat(fd))
    except OSError:  # no such descriptor
        return False


def _regular_or_handed(path, mode: int, handed: bool) -> None:
    if stat.S_ISREG(mode) or handed and not stat.S_ISDIR(mode):
        return
    kinds = (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISSOCK, "a socket"),
    )
    what = next((name for test, name in kinds if test(mode)), "a special file")
    raise UnreadableCertificate(
        f"{path} is not a regular file ({what}); a certificate "
        "is read from a file or from standard input"
    )
