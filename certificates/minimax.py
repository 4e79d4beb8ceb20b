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
v = a / b.  For column j, :func:`line_sum` gives integers T_j and L_j > 0 with

    sum_i n_i X_ij = T_j / L_j,

L_j the product of the *distinct* q_ij over the rows i of the support of x with
p_ij != 0 (zero probabilities are skipped: they enter neither the sum nor L_j), and
multiplying ``sum_i n_i X_ij >= v d`` by b L_j > 0 gives the column test
``b T_j >= a d L_j``.  When b divides d (the usual case: d is a common denominator of the
solution, v one of its values) the integer e = a (d / b) is computed once and the test is
``T_j >= e L_j``, sparing a product by b in every column.  Rows are the same with y and
``<=``.  Every step is an exact integer identity, so the tests are exactly the
inequalities of FORMAT.md; a product of distinct denominators may exceed their least
common multiple, which costs size, never correctness (any positive common multiple
works: small matrices share one for all lines, :func:`check_matrix_game`).

Size limit (FORMAT.md, "Limits"): before multiplying, each line bounds the bit length of
every integer it will compute from the bit lengths of its inputs (:func:`sum_bits`), and
a line that would need more than ``MAX_PRODUCT_BITS`` bits is refused (exit 2): GMP,
asked for more memory than there is, aborts the process instead of raising.  Lines are
checked one at a time, and for large denominators :func:`line_sum` keeps no list of
cofactors: at most six integers of that size are alive, whatever k is.

Cost at N = 7, where the largest numerators have ~6.3e6 bits (1.9 million digits): per
column, about three products per distinct denominator for L_j and its cofactors, two
products p_i (L_j / q) and n_i Z_ij per support entry, at most one more for e L_j; games
with identical hands, the root among them, skip the row tests when they are provably the
column tests mirrored (:func:`antisymmetric_mirror`).
"""

from __future__ import annotations

from gmpy2 import divexact, is_divisible, mpq, mpz

from .decoding import Rational, Vector
from .errors import InvalidCertificate, UnreadableCertificate
from .spec import MAX_PRODUCT_BITS
from .text import format_rational, int_text

_ZERO, _ONE = mpz(0), mpz(1)


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


def check_size(bits: int, what: str) -> None:
    """Refuse (exit 2) an integer of more than ``MAX_PRODUCT_BITS`` bits *before* it is
    computed: ``bits`` is an upper bound on its bit length, from its factors' lengths.

    >>> check_size(MAX_PRODUCT_BITS + 1, "column 1")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    certificates.errors.UnreadableCertificate: column 1 needs integers of up to 2,147,483,649
    bits, beyond the checker's limit of 2,147,483,648 bits (FORMAT.md, "Limits")
    """
    if bits > MAX_PRODUCT_BITS:
        raise UnreadableCertificate(
            f"{what} needs integers of up to {bits:,} bits, beyond the checker's limit of "
            f'{MAX_PRODUCT_BITS:,} bits (FORMAT.md, "Limits")'
        )


def sum_bits(entries, weights) -> int:
    """An upper bound on the bit length of every integer :func:`line_sum` computes for
    ``entries`` (w, p, q) and ``weights`` n (|w| <= 16, q > 0), from bit lengths alone.

    With B the sum of the bit lengths of the distinct q (p != 0, q != 1), each term
    satisfies |w| <= 16 and L / q <= L < 2^B, so |Z| = |w L + p (L / q)| < 2^(B + max(bits p,
    5) + 1) and every product n Z, and their sum T, is below 2^(B + bits n + max(bits p, 5)
    + 1 + bits k) in absolute value.
    """
    dens = set()
    top = 0
    for (_w, p, q), n in zip(entries, weights):
        if p and q != 1:
            dens.add(q)
        top = max(top, n.bit_length() + max(p.bit_length(), 5))
    return sum(q.bit_length() for q in dens) + top + len(entries).bit_length() + 1


#: Up to this many bits in a line's distinct denominators, :func:`line_sum` takes all the
#: cofactors L / q from one :func:`common_multiple` (prefix and suffix products: the
#: fastest when the weights are the largest numbers, as in honest certificates, whose
#: lines stay below 2^24 bits); above, it sums by Horner's rule, which holds no list of
#: k integers the size of L.  Lists hold at most 2 * 16 * 2^24 bits = 64 MiB.  Both exact.
COFACTOR_LIST_BITS = 1 << 24


def line_sum(entries, weights, what: str = "a line") -> tuple:
    """``(T, L)``, L > 0, with sum_i n_i X_i = T / L for ``entries`` X_i = w_i + p_i / q_i
    given as ``(w_i, p_i, q_i)`` and ``weights`` n_i; L is the product of the distinct q_i
    with p_i != 0.  Refused (:func:`check_size`) before any product if too large.

    Algorithm notes: with the distinct denominators below ``COFACTOR_LIST_BITS`` bits,
    T = sum_i n_i Z_i with the integers Z_i = X_i L = w_i L + p_i (L / q_i), all cofactors
    L / q from one list; the weights, the largest numbers of honest certificates, enter one
    product each.  Above, group the entries by denominator, S_q = sum of n_i p_i over the
    entries with denominator q and W = sum n_i w_i, and sum by Horner's rule from
    N / D = 0 / 1:

        N / D + S_q / q = (N q + S_q D) / (D q);        T = W D + N,  L = D,

    so that at most N, D, S_q and the two products of one step are alive at once.

    >>> line_sum([(1, mpz(1), mpz(2)), (0, mpz(-1), mpz(3))], [mpz(1), mpz(2)])
    (mpz(5), mpz(6))
    >>> line_sum([(1, mpz(1), mpz(2)), (-1, mpz(1), mpz(2))], [mpz(1), mpz(1)])   # 3/2 - 1/2
    (mpz(2), mpz(2))
    """
    check_size(sum_bits(entries, weights), what)
    groups: dict = {}  # q -> [(n, w, p)], for p != 0 and q != 1
    whole = []  # (n, w + p) for the integer entries: p = 0 or q = 1
    for (w, p, q), n in zip(entries, weights):
        if p and q != 1:
            groups.setdefault(q, []).append((n, w, p))
        elif w or p:
            whole.append((n, w + p))
    if sum(q.bit_length() for q in groups) <= COFACTOR_LIST_BITS:
        L, cofactors = common_multiple(groups)
        T = _ZERO
        for n, a in whole:  # Z = a L
            T += n * (a * L)
        for q, terms in groups.items():
            cofactor = cofactors[q]
            for n, w, p in terms:
                T += n * (w * L + p * cofactor if w else p * cofactor)
        return T, L
    W = sum(n * a for n, a in whole) + sum(
        n * w for terms in groups.values() for n, w, _ in terms if w
    )
    N, D = _ZERO, _ONE
    for q, terms in groups.items():
        S = sum(n * p for n, _, p in terms)
        N = N * q + S * D
        D = D * q
    return W * D + N, D


def scale_matrix(X: list[list]) -> tuple[object, list[list]]:
    """``(L, Z)``: one common multiple L of all the denominators of X and the integers
    ``Z_ij = X_ij L``, shared by all lines: fewer operations while the numbers are small.

    >>> scale_matrix([[(1, mpz(1), mpz(2))], [(0, mpz(-1), mpz(3))]])
    (mpz(6), [[mpz(9)], [mpz(-2)]])
    """
    L, cofactor = common_multiple({q for row in X for _, _, q in row})
    return L, [[w * L + p * cofactor[q] if w else p * cofactor[q] for w, p, q in row] for row in X]


def line_tests(sums, d, v: Rational, side: str = "line"):
    """For each line t (a column for x, a row for y) given as ``(T_t, L_t)`` with
    sum_i n_i X_ti = T_t / L_t and L_t > 0 (the weights n_i sum to d > 0), yield
    ``(T_t, L_t, r_t)`` with sign(r_t) = sign(sum_i n_i X_ti - v d), one line at a time.

    >>> X = [(1, mpz(1), mpz(2)), (0, mpz(-1), mpz(3))]   # one line: 3/2 and -1/3
    >>> [(T, L, r)] = line_tests([line_sum(X, [mpz(1), mpz(2)])], mpz(3),
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
    for t, (T, L) in enumerate(sums):
        check_size(
            max(
                T.bit_length() + (scale.bit_length() if scale else 0),
                e.bit_length() + L.bit_length(),
            )
            + 1,
            f"{side} {t + 1}",
        )
        if scale is None:
            r = T - e * L if e else T
        else:
            r = T * scale - e * L
        yield T, L, r


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
        raise InvalidCertificate(f"{name} sums to {format_rational((total, vec.d))}, not 1")


def _support(vec: Vector) -> tuple[list, list]:
    """Indices and numerators of the nonzero entries (zero probabilities are skipped)."""
    index = [t for t, a in enumerate(vec.nums) if a]
    return index, [vec.nums[t] for t in index]


def _dot(zs, weights):
    """sum_i n_i z_i over the nonzero z_i (shared scaling: all integers small)."""
    T = 0
    for z, n in zip(zs, weights):
        if z:
            T += n * z
    return T


def check_x_guarantees(X: list[list], x: Vector, v: Rational, shared=None) -> None:
    """Check 5, columns: sum_i n_i X_ij >= v * d for every column j.  ``shared`` is
    :func:`scale_matrix` (X) when computed, else each column is summed on its own."""
    rows, weights = _support(x)
    k = len(X)
    if shared is None:
        sums = (
            line_sum([X[i][j] for i in rows], weights, f"column {j + 1} of {k}") for j in range(k)
        )
    else:
        L, Z = shared
        sums = ((_dot([Z[i][j] for i in rows], weights), L) for j in range(k))
    for j, (T, L, r) in enumerate(line_tests(sums, x.d, v, "column")):
        if r < 0:
            raise InvalidCertificate(
                f"column {j + 1} of {k}: x guarantees "
                f"{format_rational((T, L), x.d)} < v = {format_rational(v)}"
            )


def check_y_holds(X: list[list], y: Vector, v: Rational, shared=None) -> None:
    """Check 5, rows: sum_j X_ij m_j <= v * e for every row i, y = (m_j) / e."""
    cols, weights = _support(y)
    k = len(X)
    if shared is None:
        sums = (line_sum([X[i][j] for j in cols], weights, f"row {i + 1} of {k}") for i in range(k))
    else:
        L, Z = shared
        sums = ((_dot([row[j] for j in cols], weights), L) for row in Z)
    for i, (T, L, r) in enumerate(line_tests(sums, y.d, v, "row")):
        if r > 0:
            raise InvalidCertificate(
                f"row {i + 1} of {k}: y concedes "
                f"{format_rational((T, L), y.d)} > v = {format_rational(v)}"
            )


#: Below this many bits in the product of a matrix's distinct denominators, one common
#: multiple serves the whole matrix (fewer Python operations); above, each line gets the
#: product of its own denominators (smaller integers).  Either is exact.  Shared, the
#: integers have at most 2^30 + 2^12 bits (two Integers and L): within MAX_PRODUCT_BITS.
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
