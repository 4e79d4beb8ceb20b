"""Certificate of one matrix game: x and y are optimal and v is its value.

FORMAT.md checks 4 and 5.  For the k x k payoff matrix X, a probability vector x of mine,
one y of theirs and a number v,

    sum_i x_i X_ij >= v  for every column j   (x guarantees me at least v),
    sum_j X_ij y_j <= v  for every row i      (y holds me to at most v).

Then v <= min_j (xX)_j <= value(X) <= max_i (Xy)_i <= v, so v is the value of the game
and x, y are optimal strategies: weak LP duality, with x and y as the primal and dual
solutions of the LP of Rhoads & Bartholdi 2012, sec 3.1.  Nothing is solved here.

Arithmetic: integers only, and no gcd.  At N = 7 the numbers reach a million digits,
where one gcd (which every mpq operation spends to normalise) costs dozens of
multiplications.  Write ``X_ij = w_ij + p_ij / q_ij`` (:mod:`.payoff`: w_ij = u * sign,
p_ij / q_ij the child's certified value, q_ij > 0), x = (n_1, ..., n_k) / d and
v = a / b.  For column j, let L_j > 0 be the product of the *distinct* q_ij over the rows
i of the support of x (zero probabilities are skipped: they enter neither the sum nor
L_j); then

    Z_ij = X_ij L_j = w_ij L_j + p_ij (L_j / q_ij)      and      T_j = sum_i n_i Z_ij

are integers, and multiplying ``sum_i n_i X_ij >= v d`` by b L_j > 0 gives the column
test ``b T_j >= a d L_j``.  When b divides d (the usual case: d is a common denominator
of the solution, v one of its values) the integer e = a (d / b) is computed once and the
test is ``T_j >= e L_j``, sparing a product by b in every column.  Rows are the same with
y and ``<=``.  Every step is an exact integer identity, so the tests are exactly the
inequalities of FORMAT.md; a product of distinct denominators may exceed their least
common multiple, which costs size, never correctness (any positive common multiple
works: small matrices share one for all lines, :func:`check_matrix_game`).

Cost at N = 7, where the root's strategies have ~2.4e7-bit numerators: the column sums
are k products n_i Z_ij per column, at most one more for e L_j; games with identical
hands, the root among them, skip the row tests when they are provably the column tests
mirrored (:func:`antisymmetric_mirror`).
"""

from __future__ import annotations

from gmpy2 import divexact, is_divisible, mpq, mpz

from .decoding import Rational, Vector
from .errors import InvalidCertificate
from .text import format_rational, int_text

_ONE = mpz(1)


def as_mpq(q) -> mpq:
    """A Rational or a pair ``(num, den)`` (or anything mpq takes) as an mpq: one gcd,
    for the final summary only (messages use :func:`.text.format_rational`, no gcd)."""
    if isinstance(q, tuple):
        return mpq(*q)
    return mpq(q)


def common_multiple(dens) -> tuple[object, dict]:
    """``(L, cofactor)``: L is the product of the distinct values among ``dens`` (all
    > 0) and ``cofactor[q] = L / q`` for each of them and for 1.  No gcd: L is a common
    multiple, not always the least one.  The cofactors are products of prefixes and
    suffixes of the distinct values, cheaper than dividing L by each.

    >>> common_multiple([mpz(6), mpz(4), mpz(6), mpz(1), mpz(5)])
    (mpz(120), {mpz(5): mpz(24), mpz(4): mpz(30), mpz(6): mpz(20), mpz(1): mpz(120)})
    """
    distinct = dict.fromkeys(dens)
    distinct.pop(_ONE, None)
    qs = list(distinct)
    prefix = [_ONE]  # prefix[s] = qs[0] * ... * qs[s - 1]
    for q in qs[:-1]:
        prefix.append(prefix[-1] * q)
    cofactor = {}
    suffix = _ONE  # qs[s + 1] * ... * qs[-1]
    for s in reversed(range(len(qs))):
        cofactor[qs[s]] = prefix[s] * suffix
        suffix = suffix * qs[s]
    cofactor[_ONE] = suffix
    return suffix, cofactor


def antisymmetric_mirror(X: list[list], x: Vector, y: Vector, v: Rational) -> bool:
    """True when the row tests of y are, exactly, the column tests of x already passed:
    v = 0, y = x (same numerators and denominator) and X = -X^T entry by entry
    (``w_ij = -w_ji``, ``q_ij = q_ji``, ``p_ij = -p_ji``).  Then for every i

        sum_j X_ij y_j = -(sum_j x_j X_ji) <= 0 = v e   iff   sum_j x_j X_ji >= 0 = v d,

    which is the test of column i.  Identical hands (the root among them) give such
    games: the child of bids (V_i, V_j) is the swap of the child of (V_j, V_i).  When
    any condition fails, nothing is inferred and the rows are tested in full.
    """
    if v.num != 0 or y.d != x.d or y.nums != x.nums:
        return False
    k = len(X)
    for i in range(k):
        row = X[i]
        for j in range(i, k):
            w, p, q = row[j]
            w2, p2, q2 = X[j][i]
            if w != -w2 or q != q2 or p != -p2:
                return False
    return True


def scale_lines(lines: list[list]) -> list[tuple]:
    """Per line (its entries ``(w, p, q)``), ``(L, [X_t L for each entry X_t])`` with L
    the product of the line's distinct denominators: the smallest integers, for the big
    numbers of the last levels.

    >>> scale_lines([[(1, mpz(1), mpz(2)), (0, mpz(-1), mpz(3))]])
    [(mpz(6), [mpz(9), mpz(-2)])]
    """
    out = []
    for entries in lines:
        dens = {q for _, _, q in entries}
        dens.discard(_ONE)
        if len(dens) > 1:
            L, cofactor = common_multiple(dens)
            zs = [w * L + p * cofactor[q] if w else p * cofactor[q] for w, p, q in entries]
        else:  # one denominator L (or none, L = 1): X L = w L + p (L / q), q in {1, L}
            L = dens.pop() if dens else _ONE
            zs = [(w + p) * L if q == 1 else w * L + p for w, p, q in entries]
        out.append((L, zs))
    return out


def scale_matrix(X: list[list]) -> tuple[object, list[list]]:
    """``(L, Z)``: one common multiple L of all the denominators of X and the integers
    ``Z_ij = X_ij L``, shared by all lines: fewer operations while the numbers are small.

    >>> scale_matrix([[(1, mpz(1), mpz(2))], [(0, mpz(-1), mpz(3))]])
    (mpz(6), [[mpz(9)], [mpz(-2)]])
    """
    L, cofactor = common_multiple({q for row in X for _, _, q in row})
    return L, [[w * L + p * cofactor[q] if w else p * cofactor[q] for w, p, q in row]
               for row in X]


def line_tests(scaled: list[tuple], weights: list, d, v: Rational) -> list[tuple]:
    """For each line t (a column for x, a row for y) given scaled as ``(L_t, zs)``,
    ``zs[i] = X_ti L_t`` on the support, in the order of the nonzero ``weights`` n_i
    (d > 0), return ``(T_t, L_t, r_t)`` with L_t > 0 and

        sum_i n_i X_ti = T_t / L_t   and   sign(r_t) = sign(sum_i n_i X_ti - v d).

    >>> X = [[(1, mpz(1), mpz(2)), (0, mpz(-1), mpz(3))]]   # one line: 3/2 and -1/3
    >>> [(T, L, r)] = line_tests(scale_lines(X), [mpz(1), mpz(2)], mpz(3),
    ...                          Rational(mpz(1), mpz(6)))
    >>> mpq(T, L), r > 0   # 1 * 3/2 + 2 * (-1/3) = 5/6 > 3 * 1/6
    (mpq(5,6), True)
    """
    a, b = v
    if b == 1:
        e, scale = a * d, None
    elif is_divisible(d, b):
        e, scale = a * divexact(d, b), None  # v d = e, an integer
    else:
        e, scale = a * d, b  # compare b T_t with (a d) L_t
    out = []
    for L, zs in scaled:
        T = 0
        for z, n in zip(zs, weights):
            if z:
                T += n * z
        if scale is None:
            r = T - e * L if e else T
        else:
            r = T * scale - e * L
        out.append((T, L, r))
    return out


def check_probability_vector(vec: Vector, k: int, name: str) -> None:
    """FORMAT.md check 4: length k, every n_i >= 0, d > 0 and n_1 + ... + n_k = d."""
    if len(vec.nums) != k:
        raise InvalidCertificate(f"{name} has {len(vec.nums)} entries, expected {k}")
    if vec.d <= 0:
        raise InvalidCertificate(f"{name}: denominator {int_text(vec.d)} is not positive")
    for i, a in enumerate(vec.nums):
        if a < 0:
            raise InvalidCertificate(f"{name}[{i}] = {format_rational((a, vec.d))} is negative")
    total = sum(vec.nums)
    if total != vec.d:
        raise InvalidCertificate(
            f"{name} sums to {format_rational((total, vec.d))}, not 1"
        )


def _support(vec: Vector) -> tuple[list, list]:
    """Indices and numerators of the nonzero entries (zero probabilities are skipped)."""
    index = [t for t, a in enumerate(vec.nums) if a]
    return index, [vec.nums[t] for t in index]


def check_x_guarantees(X: list[list], x: Vector, v: Rational, shared=None) -> None:
    """Check 5, columns: sum_i n_i X_ij >= v * d for every column j.  ``shared`` is
    :func:`scale_matrix` (X) when computed, else each column is scaled on its own."""
    rows, weights = _support(x)
    k = len(X)
    if shared is None:
        scaled = scale_lines([[X[i][j] for i in rows] for j in range(k)])
    else:
        L, Z = shared
        scaled = [(L, [Z[i][j] for i in rows]) for j in range(k)]
    for j, (T, L, r) in enumerate(line_tests(scaled, weights, x.d, v)):
        if r < 0:
            raise InvalidCertificate(
                f"column {j + 1} of {k}: x guarantees "
                f"{format_rational((T, x.d * L))} < v = {format_rational(v)}"
            )


def check_y_holds(X: list[list], y: Vector, v: Rational, shared=None) -> None:
    """Check 5, rows: sum_j X_ij m_j <= v * e for every row i, y = (m_j) / e."""
    cols, weights = _support(y)
    if shared is None:
        scaled = scale_lines([[row[j] for j in cols] for row in X])
    else:
        L, Z = shared
        scaled = [(L, [row[j] for j in cols]) for row in Z]
    for i, (T, L, r) in enumerate(line_tests(scaled, weights, y.d, v)):
        if r > 0:
            raise InvalidCertificate(
                f"row {i + 1} of {len(X)}: y concedes "
                f"{format_rational((T, y.d * L))} > v = {format_rational(v)}"
            )


#: Below this many bits in the product of a matrix's distinct denominators, one common
#: multiple serves the whole matrix (fewer Python operations); above, each line gets the
#: product of its own denominators (smaller integers).  Either is exact.
SHARED_SCALE_BITS = 2048


def check_matrix_game(X: list[list], x: Vector, y: Vector, v: Rational) -> None:
    """Check 5 for one game: x guarantees v and y holds me to v (x, y have passed
    check 4).  The row tests are skipped only when :func:`antisymmetric_mirror` proves
    them identical to the column tests."""
    dens = {q for row in X for _, _, q in row}
    shared = None
    if sum(q.bit_length() for q in dens) <= SHARED_SCALE_BITS:
        shared = scale_matrix(X)
    check_x_guarantees(X, x, v, shared)
    if not antisymmetric_mirror(X, x, y, v):
        check_y_holds(X, y, v, shared)
