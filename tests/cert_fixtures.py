"""Test-only certificates for tiny N, built by brute force (never imported by ``certificates``).

An exact solver independent of both ``exact`` and ``certificates``: f(V, Y, P) on actual
card sets (no patterns, no antisymmetry), by the recursion of Rhoads & Bartholdi 2012,
sec 3, with every matrix game solved by support enumeration over Fractions.  Good for
N <= 4 (N = 4 takes about a second).

Certificates are handled in *logical form*: the list of top-level objects with every
Integer a Python int; :func:`write_objects` applies FORMAT.md's Integer encoding (msgpack
int within int64, else minimal two's-complement ``bin``) and :func:`read_objects` undoes it,
so tamper tests edit plain ints.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb, lcm

import msgpack

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


# ---------------------------------------------------------------------------------------
# Matrix games by support enumeration
# ---------------------------------------------------------------------------------------


def solve_linear(A, b):
    """Solve A z = b over Fractions (Gauss-Jordan); None if A is singular."""
    m = len(A)
    rows = [list(map(Fraction, row)) + [Fraction(rhs)] for row, rhs in zip(A, b)]
    for c in range(m):
        pivot = next((r for r in range(c, m) if rows[r][c] != 0), None)
        if pivot is None:
            return None
        rows[c], rows[pivot] = rows[pivot], rows[c]
        for r in range(m):
            if r != c and rows[r][c] != 0:
                f = rows[r][c] / rows[c][c]
                rows[r] = [a - f * p for a, p in zip(rows[r], rows[c])]
    return [rows[r][m] / rows[r][r] for r in range(m)]


def _equalizer(X, rows, cols):
    """Strategy on ``rows`` making every column of ``cols`` pay the same v: (x, v) or None."""
    s = len(rows)
    A = [[X[i][j] for i in rows] + [-1] for j in cols] + [[1] * s + [0]]
    z = solve_linear(A, [0] * s + [1])
    if z is None or any(p < 0 for p in z[:s]):
        return None
    full = [Fraction(0)] * len(X)
    for i, p in zip(rows, z):
        full[i] = p
    return full, z[s]


def solve_matrix_game(X):
    """Optimal (x, y, v) of the zero-sum game X (row player maximises), exactly.

    Shapley-Snow: some pair of optimal strategies has square supports on which X is
    nonsingular, so trying all square support pairs finds one.
    """
    k, c = len(X), len(X[0])
    XT = [list(col) for col in zip(*X)]
    for s in range(1, min(k, c) + 1):
        for rows in combinations(range(k), s):
            for cols in combinations(range(c), s):
                ex = _equalizer(X, rows, cols)
                ey = _equalizer([[-a for a in r] for r in XT], cols, rows)
                if ex is None or ey is None or ex[1] != -ey[1]:
                    continue
                (x, v), (y, _) = ex, ey
                if all(sum(x[i] * X[i][j] for i in range(k)) >= v for j in range(c)) and all(
                    sum(X[i][j] * y[j] for j in range(c)) <= v for i in range(k)
                ):
                    return x, y, v
    raise AssertionError("no equilibrium found (impossible)")


# ---------------------------------------------------------------------------------------
# GOPS on actual card sets
# ---------------------------------------------------------------------------------------


def sign(a: int) -> int:
    return (a > 0) - (a < 0)


def payoff(V: tuple, Y: tuple, P: tuple, u: int):
    """X_ij = u sign(V_i - Y_j) + f(V - V_i, Y - Y_j, P - u) (R&B 2012, sec 3)."""
    rest = tuple(c for c in P if c != u)
    return [
        [
            u * sign(a - b)
            + value(tuple(c for c in V if c != a), tuple(c for c in Y if c != b), rest)
            for b in Y
        ]
        for a in V
    ]


@cache
def game(V: tuple, Y: tuple, P: tuple, u: int):
    """(X, x, y, v) for hands V, Y (sorted tuples), prizes P and upcard u."""
    X = payoff(V, Y, P, u)
    return (X, *solve_matrix_game(X))


@cache
def value(V: tuple, Y: tuple, P: tuple) -> Fraction:
    """f(V, Y, P): mean over the upcards u of the matrix game values."""
    if not P:
        return Fraction(0)
    return sum(game(V, Y, P, u)[3] for u in P) / len(P)


# ---------------------------------------------------------------------------------------
# Certificates in logical form
# ---------------------------------------------------------------------------------------


def mask(cards) -> int:
    return sum(1 << (c - 1) for c in cards)


def canonical_hands(n: int, k: int):
    """(V, Y) of k cards each with V u Y = {1..L}, L <= n, mask(Y) <= mask(V): exactly the
    hands FORMAT.md records (position p = card p + 1), by brute force over subsets."""
    for V in combinations(range(1, n + 1), k):
        for Y in combinations(range(1, n + 1), k):
            union = set(V) | set(Y)
            if union == set(range(1, len(union) + 1)) and mask(Y) <= mask(V):
                yield V, Y


def rational(q: Fraction) -> list:
    return [q.numerator, q.denominator]


def vector(xs) -> list:
    d = lcm(*(Fraction(a).denominator for a in xs))
    return [[int(a * d) for a in xs], d]


def certificate_objects(n: int) -> list:
    """Every top-level object of a valid version-1 certificate of n-card GOPS."""
    full = (1 << n) - 1
    objs = [
        {
            "magic": "GOPS-CERTIFICATE",
            "version": 1,
            "rules": "gops-2p-ties-discarded-random-prizes",
            "objective": "points",
            "n": n,
            "root": [full, full, full],
        }
    ]
    total = 0
    for k in range(n + 1):
        records = []
        for V, Y in canonical_hands(n, k):
            for P in combinations(range(1, n + 1), k):
                games = []
                for u in P:
                    _, x, y, v = game(V, Y, P, u)
                    games.append([u, vector(x), vector(y), rational(v)])
                records.append([mask(V), mask(Y), mask(P), rational(value(V, Y, P)), games])
        assert len(records) == count_records(n, k)
        objs.append({"level": k, "records": len(records)})
        objs.extend(records)
        total += len(records)
    root = value(tuple(range(1, n + 1)), tuple(range(1, n + 1)), tuple(range(1, n + 1)))
    objs.append({"end": True, "records": total, "root_value": rational(root)})
    return objs


def count_records(n: int, k: int) -> int:
    """Canonical records of a level, by brute force."""
    return sum(1 for _ in canonical_hands(n, k)) * comb(n, k)


# ---------------------------------------------------------------------------------------
# Reading and writing
# ---------------------------------------------------------------------------------------


def encode(obj):
    """Logical form -> msgpack-ready: ints outside int64 become two's-complement bins."""
    if type(obj) is int and not INT64_MIN <= obj <= INT64_MAX:
        a = obj
        return a.to_bytes((a if a >= 0 else ~a).bit_length() // 8 + 1, "big", signed=True)
    if type(obj) is list:
        return [encode(a) for a in obj]
    if type(obj) is dict:
        return {key: encode(a) for key, a in obj.items()}
    return obj


def decode(obj):
    """Inverse of :func:`encode` (bytes only ever hold Integers in a certificate)."""
    if type(obj) is bytes:
        return int.from_bytes(obj, "big", signed=True)
    if type(obj) is list:
        return [decode(a) for a in obj]
    if type(obj) is dict:
        return {key: decode(a) for key, a in obj.items()}
    return obj


def pack_objects(objs) -> bytes:
    return b"".join(msgpack.packb(encode(o), use_bin_type=True) for o in objs)


def write_objects(path, objs) -> None:
    with open(path, "wb") as fh:
        fh.write(pack_objects(objs))


def read_objects(path) -> list:
    with open(path, "rb") as fh:
        unpacker = msgpack.Unpacker(fh, raw=False, strict_map_key=False, max_buffer_size=0)
        return [decode(o) for o in unpacker]
