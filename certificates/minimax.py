"""Certificate of one matrix game: x and y are optimal and v is its value.

FORMAT.md checks 4 and 5.  For the k x k payoff matrix X, a probability vector x of mine,
one y of theirs and a number v,

    sum_i x_i X_ij >= v  for every column j   (x guarantees me at least v),
    sum_j X_ij y_j <= v  for every row i      (y holds me to at most v).

Then v <= min_j (xX)_j <= value(X) <= max_i (Xy)_i <= v, so v is the value of the game
and x, y are optimal strategies: weak LP duality, with x and y as the primal and dual
solutions of the LP of Rhoads & Bartholdi 2012, sec 3.1.  Nothing is solved here.

Arithmetic: with x = (n_1, ..., n_k) / d the column test is sum_i n_i X_ij >= v * d; the
sums skip zero probabilities and never divide, so only k multiplications of an mpq by an
mpz and k - 1 additions are spent per column.
"""

from __future__ import annotations

from gmpy2 import mpfr, mpq

from .decoding import Vector
from .errors import InvalidCertificate


def format_rational(q) -> str:
    """Short text of a rational for messages: exact if short, else rounded with sizes.

    >>> format_rational(mpq(-3, 7))
    '-3/7'
    >>> format_rational(mpq(10**50 + 1, 3 * 10**49))
    '~3.333333333 (51-digit/50-digit fraction)'
    """
    q = mpq(q)
    num, den = str(abs(q.numerator)), str(q.denominator)
    if len(num) + len(den) <= 40:
        return str(q)
    return f"~{mpfr(q):.10g} ({len(num)}-digit/{len(den)}-digit fraction)"


def check_probability_vector(vec: Vector, k: int, name: str) -> None:
    """FORMAT.md check 4: length k, every n_i >= 0, d > 0 and n_1 + ... + n_k = d."""
    if len(vec.nums) != k:
        raise InvalidCertificate(f"{name} has {len(vec.nums)} entries, expected {k}")
    if vec.d <= 0:
        raise InvalidCertificate(f"{name}: denominator {vec.d} is not positive")
    for i, a in enumerate(vec.nums):
        if a < 0:
            raise InvalidCertificate(f"{name}[{i}] = {format_rational(mpq(a, vec.d))} is negative")
    total = sum(vec.nums)
    if total != vec.d:
        raise InvalidCertificate(
            f"{name} sums to {format_rational(mpq(total, vec.d))}, not 1"
        )


def check_x_guarantees(X: list[list], x: Vector, v) -> None:
    """Check 5, columns: sum_i n_i X_ij >= v * d for every column j."""
    bound = v * x.d
    support = [(i, a) for i, a in enumerate(x.nums) if a]
    for j in range(len(X)):
        total = sum(a * X[i][j] for i, a in support)
        if total < bound:
            raise InvalidCertificate(
                f"column {j + 1} of {len(X)}: x guarantees "
                f"{format_rational(mpq(total) / x.d)} < v = {format_rational(v)}"
            )


def check_y_holds(X: list[list], y: Vector, v) -> None:
    """Check 5, rows: sum_j X_ij m_j <= v * e for every row i, y = (m_j) / e."""
    bound = v * y.d
    support = [(j, a) for j, a in enumerate(y.nums) if a]
    for i, row in enumerate(X):
        total = sum(a * row[j] for j, a in support)
        if total > bound:
            raise InvalidCertificate(
                f"row {i + 1} of {len(X)}: y concedes "
                f"{format_rational(mpq(total) / y.d)} > v = {format_rational(v)}"
            )
