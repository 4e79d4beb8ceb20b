"""Check a certificate of the face-up declarations game (``python -m certificates FILE``).

The game (rules as in the solver's documentation, rebuilt here from the rules, sharing no
code with it): two players, N cards each, N prizes turned up in uniformly random order, a
tied bid discards the prize.  Before the bids of a round in which nobody has declared,
both players say at once whether they declare; a declarer bids face up, first, from then
on; both declaring in the same round bid face up at the same moment, sealed in effect,
from then on.  The winner (more points) scores the rounds from the earliest declaration
to the end (1 with no declaration); a draw scores 0.  Player 0 receives +score on a win,
-score on a loss.

Positions.  ``mine``, ``theirs``: the hands' pattern (bit i: the hand holds the i-th
smallest card of their union, a bit in both is a value both hold; each has k bits, their
union is bits 0..L-1); ``prizes``: bit c - 1 for prize c (1..N), k bits; ``lead``: player
0's points minus player 1's.  Families: ``open`` (nobody declared), ``sim`` (both declared
in one round), ``lead0`` / ``lead1`` (player 0 / 1 declared first and bids first).

Values from the rules (no record): a position with no prize left or |lead| > the prizes
left is worth s = sign(lead) in sim, lead0, lead1 and k s in open (the sure winner
declares now and scores k, the most anyone can score from here); a position with one card
each is worth sign(lead + u sign(i - j)) (forced bids, the last round scores 1).

Format (msgpack objects in a stream; Integer, Rational, probability vector as in
FORMAT.md): header ``{"magic": "GOPS-DECLARATIONS-CERTIFICATE", "version": 1, "rules":
"gops-2p-face-up-declarations-random-prizes", "n": N}`` (1 <= N <= 8); for k = 2..N a
level header ``{"level": k, "records": R_k}`` and R_k records ``[family, mine, theirs,
prizes, lead, value, stages]``, positions of k cards the rules do not decide, each key
once; then the footer ``{"end": true, "records": total, "root_value": Rational}``.
``stages``: one entry per upcard u of ``prizes``, increasing, and for each u (children:
positions of the level below, after bids i of player 0 and j of player 1, the higher
position winning u):

- sim ``[u, x, y, v]``: x, y prove v the value of the matrix [sim(child)]_{i, j};
- lead0 ``[u, v]``: v = max_i min_j lead0(child); lead1 ``[u, v]``: v = min_j max_i
  lead1(child);
- open ``[u, bx, by, bv, dx, dy, dv]``: bx, by prove bv the value of [open(child)]_{i, j};
  dx, dy prove dv the value of [[bv, k L1], [k L0, k S]], where S, L0, L1 are the stage
  values for u of the sim, lead0, lead1 records of the same position, which must come
  before it in the level.

``value`` = the mean of the stage values.  "x, y prove v the value of X": x, y are
probability vectors and x^T X e_j >= v >= e_i^T X y for every column j and row i (von
Neumann's minimax theorem).  A child must be a record of level k - 1 or valued by the
rules; the start (open, every card, lead 0) must be a record of level N (valued by the
rules when N = 1), and the footer's root value is its value.

Limits (exit 2 beyond them, on top of the stream's): |lead| <= N (N + 1) / 2, and every
Integer of a stage, a record's value and the footer at most the bits a valid certificate
can hold there, computed from the values it is checked against (:func:`game_limits`,
:func:`mean_limit`).  Values are unique (the value of a game) and the checker holds them
reduced, so each limit is a function of the verified level below: a hostile file cannot
make an integer grow faster than the honest ones may.  The largest honest Integer is
11,096 bits (N = 6), where the limits reach 184,265 bits.  Messages show numbers
shortened (:mod:`.text`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from math import isqrt

from gmpy2 import lcm, mpq, mpz

from .decoding import array, integer, keyed_map, rational, small_int, string, vector
from .errors import InvalidCertificate, UnreadableCertificate, located
from .minimax import check_probability_vector
from .stream import ObjectStream
from .text import brief, format_rational, int_text

MAGIC = "GOPS-DECLARATIONS-CERTIFICATE"
VERSION = 1
RULES = "gops-2p-face-up-declarations-random-prizes"
#: The checker computes in plain rationals; N = 8 is far beyond any exact solve.
MAX_N = 8
FAMILIES = ("sim", "lead0", "lead1", "open")
HEADER_KEYS = frozenset({"magic", "version", "rules", "n"})
LEVEL_KEYS = frozenset({"level", "records"})
FOOTER_KEYS = frozenset({"end", "records", "root_value"})
STAGE_LENGTH = {"sim": 4, "lead0": 2, "lead1": 2, "open": 7}


@dataclass(frozen=True)
class DeclarationsSummary:
    """What a valid certificate proves: N, its records and the start's exact value."""

    n: int
    records: int
    root_value: Fraction

    @property
    def message(self) -> str:
        """The checker's one-line verdict."""
        return (
            f"valid: N={self.n} face-up declarations, {self.records} records, "
            f"root value {format_rational(self.root_value)}"
        )


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def _sign(a) -> int:
    return (a > 0) - (a < 0)


def _child(key: tuple, u: int, i: int, j: int) -> tuple:
    """The position after bids at pattern positions i, j on prize u (rules above)."""
    mine, theirs, prizes, lead = key
    mine &= ~(1 << i)
    theirs &= ~(1 << j)
    lead += u if i > j else -u if i < j else 0
    held = [p for p in range((mine | theirs).bit_length()) if (mine | theirs) >> p & 1]
    cm = sum(1 << q for q, p in enumerate(held) if mine >> p & 1)
    ct = sum(1 << q for q, p in enumerate(held) if theirs >> p & 1)
    return (cm, ct, prizes & ~(1 << (u - 1)), lead)


def rule_value(family: str, key: tuple) -> int | None:
    """The value the rules give a position (module docstring), or None."""
    mine, theirs, prizes, lead = key
    k = prizes.bit_count()
    if prizes == 0 or abs(lead) > sum(c + 1 for c in _bits(prizes)):
        return _sign(lead) * (k if family == "open" else 1)
    if k == 1:
        i, j = mine.bit_length() - 1, theirs.bit_length() - 1
        return _sign(lead + prizes.bit_length() * _sign(i - j))
    return None


# What a valid certificate can hold.  A matrix game X (k x k, k <= N) with rational
# entries: let D be the lcm of the entries' denominators and P = D X, an integer matrix
# with |P_ij| <= D max|X| < 2^m, m = bits(D) + bits(ceil max|X|).  Shapley & Snow (1950,
# Theorem 1): for every pair of extreme optimal strategies x, y there is an s x s
# submatrix S of X (s <= k) with c = 1^T adj(P_S) 1 != 0 and x = 1^T adj(P_S) / c,
# y = adj(P_S) 1 / c on S's rows and columns (0 elsewhere), v = det(P_S) / (D c).  A
# cofactor is the determinant of an (s - 1) x (s - 1) integer matrix, at most
# (s - 1)^((s - 1) / 2) 2^(m (s - 1)) (Hadamard's inequality), so
#
#     |c| <= s^2 (s - 1)^((s - 1) / 2) 2^(m (s - 1)) = C.
#
# Every x_i has a denominator dividing c, so the common denominator d (the lcm of the
# reduced x_i's, what the writer writes) divides c and each numerator x_i d <= d: every
# Integer of x and y has at most bits(C) bits.  The value's reduced denominator divides
# D c and |v| <= max|X|: v's Integers have at most bits(C) + m bits.  The solver writes
# extreme strategies (a pure saddle point, or the basic solution of a square system) and
# reduced values, so an honest certificate always fits; a certificate whose strategies
# are not extreme, or whose rationals are not reduced, may exceed the limit (exit 2).
# A face-up round's value is one of its entries; a record's value, the mean of its k
# stage values t, has a reduced denominator dividing k lcm(den t) and |value| <= max|t|.


def _ceil_abs(values) -> mpz:
    """The least integer at least every |a| (for the bit length of a bound)."""
    top = max(abs(a) for a in values)
    return -((-top.numerator) // top.denominator)


def game_limits(X: list) -> tuple[int, int]:
    """(bits of a strategy's Integers, bits of the value's) that a valid certificate can
    hold for the matrix game ``X`` of reduced rationals (the derivation above).

    >>> game_limits([[mpq(1), mpq(-1)], [mpq(-1), mpq(1)]])
    (6, 8)
    """
    entries = [a for row in X for a in row]
    k = max(len(X), len(X[0]))
    d = mpz(1)
    for a in entries:
        d = lcm(d, a.denominator)
    m = d.bit_length() + _ceil_abs(entries).bit_length()
    head = k * k * (isqrt((k - 1) ** (k - 1)) + 1)  # >= k^2 (k - 1)^((k - 1) / 2)
    strategy = head.bit_length() + m * (k - 1)
    return strategy, strategy + m


def mean_limit(values: list, k: int) -> int:
    """Bits of the Integers of the mean of ``values`` (reduced), as a valid certificate
    writes it (the derivation above).

    >>> mean_limit([mpq(1, 3), mpq(-1, 2)], 2)
    6
    """
    d = mpz(1)
    for a in values:
        d = lcm(d, a.denominator)
    return mpz(k).bit_length() + d.bit_length() + _ceil_abs(values).bit_length()


def _within(a, limit: int, where: str) -> None:
    if a.bit_length() > limit:
        raise UnreadableCertificate(
            f"{where}: an Integer of {a.bit_length():,} bits, beyond the {limit:,} bits a "
            "valid certificate holds there (FORMAT.md, declarations limits)"
        )


def _q(obj, where: str, limit: int) -> mpq:
    """A Rational whose Integers have at most ``limit`` bits."""
    r = rational(obj, where)
    _within(r.num, limit, f"{where} numerator")
    _within(r.den, limit, f"{where} denominator")
    return mpq(r.num, r.den)


def _probabilities(obj, k: int, where: str, limit: int) -> list:
    """A probability vector of ``k`` entries whose Integers have at most ``limit`` bits."""
    vec = vector(obj, where)
    for i, a in enumerate(vec.nums):
        _within(a, limit, f"{where}[{i}]")
    _within(vec.d, limit, f"{where} d")
    check_probability_vector(vec, k, where)
    return [mpq(a, vec.d) for a in vec.nums]


def check_game(X: list, x: list, y: list, v, where: str) -> None:
    """x guarantees v against every column and y holds every row to v."""
    for j in range(len(X[0])):
        got = sum(x[i] * X[i][j] for i in range(len(X)))
        if got < v:
            raise InvalidCertificate(
                f"{where}: x gets {format_rational(got)} < v = {format_rational(v)} "
                f"against column {j}"
            )
    for i, row in enumerate(X):
        got = sum(row[j] * y[j] for j in range(len(row)))
        if got > v:
            raise InvalidCertificate(
                f"{where}: y concedes {format_rational(got)} > v = {format_rational(v)} on row {i}"
            )


class _Checker:
    def __init__(self, n: int):
        self.n = n
        self.previous: dict = {}
        self.current: dict = {}

    def value(self, family: str, key: tuple):
        """A child's value: from the rules, else a record of the level below."""
        got = rule_value(family, key)
        if got is not None:
            return mpq(got)
        if (family, key) not in self.previous:
            raise InvalidCertificate(f"child {family} {list(key)} has no record")
        return self.previous[family, key][0]

    def matrix(self, family: str, key: tuple, u: int) -> list:
        return [
            [self.value(family, _child(key, u, i, j)) for j in _bits(key[1])] for i in _bits(key[0])
        ]

    def stage(self, family: str, key: tuple, u: int, fields: list, k: int):
        """Checks one upcard's stage; returns its value.  Every Integer is read against
        the limits of the game it belongs to, computed from the verified level below."""
        X = self.matrix(family, key, u)
        if family in ("lead0", "lead1"):
            # The value is an entry: no more bits than the longest entry.
            longest = max(
                max(a.numerator.bit_length(), a.denominator.bit_length()) for row in X for a in row
            )
            v = _q(fields[1], "v", longest)
            if family == "lead0":
                want = max(min(row) for row in X)
            else:
                want = min(max(X[i][j] for i in range(len(X))) for j in range(len(X[0])))
            if v != want:
                raise InvalidCertificate(
                    f"v = {format_rational(v)}, the face-up round is worth {format_rational(want)}"
                )
            return v
        strategy, value = game_limits(X)
        x, y = (_probabilities(fields[t], k, name, strategy) for t, name in ((1, "x"), (2, "y")))
        v = _q(fields[3], "v", value)
        check_game(X, x, y, v, "bids")
        if family == "sim":
            return v
        declared = []
        for other in ("lead1", "lead0", "sim"):
            if (other, key) not in self.current:
                raise InvalidCertificate(f"no {other} record of this position before it")
            declared.append(k * self.current[other, key][1][_bits(key[2]).index(u - 1)])
        game = [[v, declared[0]], [declared[1], declared[2]]]
        strategy, value = game_limits(game)
        dx, dy = (
            _probabilities(fields[t], 2, name, strategy) for t, name in ((4, "dx"), (5, "dy"))
        )
        dv = _q(fields[6], "dv", value)
        check_game(game, dx, dy, dv, "declare")
        return dv

    def record(self, obj, k: int) -> None:
        fields = array(obj, "record", 7)
        family = string(fields[0], "family")
        if family not in FAMILIES:
            raise UnreadableCertificate(f"unknown family {brief(family)}")
        masks = (
            small_int(fields[t], name) for t, name in ((1, "mine"), (2, "theirs"), (3, "prizes"))
        )
        lead, most = integer(fields[4], "lead"), self.n * (self.n + 1) // 2
        if abs(lead) > most:  # more points than the N cards hold
            raise UnreadableCertificate(
                f"level {k}, {family} record: lead {int_text(lead)} is beyond the {most} "
                f"points of {self.n} cards"
            )
        key = (*masks, int(lead))
        with located(f"level {k}, {family} {list(key)}"):
            self._check_key(family, key, k)
            stages = array(fields[6], "stages", k)
            values = []
            for t, u in enumerate(c + 1 for c in _bits(key[2])):
                entry = array(stages[t], f"stage {t}", STAGE_LENGTH[family])
                if small_int(entry[0], "upcard") != u:
                    raise InvalidCertificate(f"stage {t} is for upcard {entry[0]}, not {u}")
                with located(f"upcard {u}"):
                    values.append(self.stage(family, key, u, entry, k))
            value = _q(fields[5], "value", mean_limit(values, k))
            if value * k != sum(values):
                raise InvalidCertificate(
                    f"value {format_rational(value)} is not the mean of its stages"
                )
            self.current[family, key] = (value, values)

    def _check_key(self, family: str, key: tuple, k: int) -> None:
        mine, theirs, prizes, _ = key
        union = mine | theirs
        if not (mine.bit_count() == theirs.bit_count() == prizes.bit_count() == k):
            raise InvalidCertificate(f"hands and prizes must have {k} cards each")
        if union & (union + 1) or prizes >> self.n:
            raise InvalidCertificate("not a canonical pattern, or a prize beyond N")
        if rule_value(family, key) is not None:
            raise InvalidCertificate("the rules decide this position: it has no record")
        if (family, key) in self.current:
            raise InvalidCertificate("a second record of this position")


def _header(obj) -> int:
    if type(obj) is not dict or obj.get("magic") != MAGIC:
        raise UnreadableCertificate(f"not a declarations certificate (no magic {MAGIC!r})")
    header = keyed_map(obj, "header", HEADER_KEYS)
    if header["version"] != VERSION or string(header["rules"], "rules") != RULES:
        raise UnreadableCertificate(f"unsupported version or rules: {brief(header)}")
    n = small_int(header["n"], "header n")
    if not 1 <= n <= MAX_N:
        raise UnreadableCertificate(f"header n = {n} is outside 1..{MAX_N}")
    return n


def verify_declarations_stream(
    header, stream: ObjectStream, progress: Callable | None = None
) -> DeclarationsSummary:
    """Check the whole certificate after its header; raise a CertificateError if not valid."""
    n = _header(header)
    checker = _Checker(n)
    total = 0
    for k in range(2, n + 1):
        level = keyed_map(stream.next(f"level {k} header"), "level header", LEVEL_KEYS)
        if small_int(level["level"], "level") != k:
            raise InvalidCertificate(f"level {level['level']} found where {k} was expected")
        count = small_int(level["records"], "records")
        checker.current = {}
        for _ in range(count):
            checker.record(stream.next(f"a record of level {k}"), k)
        if progress is not None:
            progress(k, n, count)
        total += count
        checker.previous = checker.current
    full = (1 << n) - 1
    root = (full, full, full, 0)
    if n == 1:
        root_value = mpq(rule_value("open", root))
        stages = [root_value]
    elif ("open", root) in checker.previous:
        root_value, stages = checker.previous["open", root]
    else:
        raise InvalidCertificate("the start has no record")
    footer = keyed_map(stream.next("the footer"), "footer", FOOTER_KEYS)
    if footer["end"] is not True or small_int(footer["records"], "records") != total:
        raise InvalidCertificate(f"footer {brief(footer)} does not close {total} records")
    if _q(footer["root_value"], "root_value", mean_limit(stages, n)) != root_value:
        raise InvalidCertificate(
            f"footer root value differs from the start's {format_rational(root_value)}"
        )
    stream.expect_end()
    return DeclarationsSummary(
        n, total, Fraction(int(root_value.numerator), int(root_value.denominator))
    )


def is_declarations(header) -> bool:
    """Whether a certificate's first object is a declarations header."""
    return type(header) is dict and header.get("magic") == MAGIC


__all__ = [
    "DeclarationsSummary",
    "is_declarations",
    "rule_value",
    "verify_declarations_stream",
]
