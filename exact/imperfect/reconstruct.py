"""The exact rational solution of a sparse integer linear system by numeric lifting.

Solve B z = b exactly, B a sparse square integer matrix and b an integer vector, without
a dense exact factorisation: Wan, "An algorithm to solve integer linear systems exactly
using numerical methods", J. Symbolic Computation 41 (2006); Saunders, Wood & Youse,
"Numeric-symbolic exact rational linear system solver", ISSAC 2011.

Algorithm notes
---------------
1. Factor B once in float64: a sparse LU (SuperLU, ``scipy.sparse.linalg.splu``).
2. Lift.  With r_0 = b and a step alpha_k = 2^s_k, repeat

       d_k     = B^-1 r_k             (the float LU, plus one step of float refinement)
       c_k     = round(alpha_k d_k)   (an integer vector)
       r_{k+1} = alpha_k r_k - B c_k  (EXACT: int64 where a float bound proves that no
                                       entry passes 2^62, else Python integers)

   Since B^-1 r_{k+1} = alpha_k B^-1 r_k - c_k, by induction

       z = B^-1 b = N_K / 2^m_K + B^-1 r_K / 2^m_K,  N_K = sum_k c_k 2^(m_K - m_{k+1}),

   with m_K = s_0 + ... + s_{K-1}: N_K / 2^m_K is a dyadic approximation of z whose
   error B^-1 r_K / 2^m_K is estimated by the next float solve d_K.  A step is kept
   when |d_{k+1}| <= 2^(s_k / 2) max(|d_k|, 1) (it gained at least s_k / 2 bits); else
   it is taken again with s_k halved (the float solve was too inaccurate for the step:
   Wan's adaptive step).
3. Rational reconstruction (continued fractions: ``Fraction.limit_denominator``, the
   convergents of N_i / 2^m), entry by entry, with a common denominator D: an entry
   with D z_i within the approximation's error of an integer p is p / D; otherwise its
   reconstruction p / q (of D z_i, with q at most 2^((m - e) / 2) / D) multiplies D by q.
   Tried each time m has doubled since the last try.
4. Stop when the reconstructed z satisfies B z = b exactly (B N = D b, in Python
   integers): whatever the error estimates said, the answer is checked, never assumed.

>>> import scipy.sparse
>>> B = scipy.sparse.csr_array([[3, 1], [1, 2]])  # 3 z0 + z1 = 1, z0 + 2 z1 = 0
>>> solve_integer_system(B, [1, 0]).fractions()
[Fraction(2, 5), Fraction(-1, 5)]
>>> solve_integer_system(scipy.sparse.csr_array([[1, 1], [1, 1]]), [1, 0])
Traceback (most recent call last):
...
exact.errors.SolverError: the sparse LU of the basis system failed: Factor is exactly singular
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse
import scipy.sparse.linalg

from exact.errors import SolverError

__all__ = ["FIRST_STEP_BITS", "MAX_BITS", "RationalVector", "solve_integer_system"]

#: The first lifting step's bits s_0 (halved while a step gains too little).
FIRST_STEP_BITS = 26
#: The fewest bits a step may have before the system is declared too ill-conditioned.
MIN_STEP_BITS = 2
#: The first reconstruction is tried after this many bits of the approximation.
FIRST_TRY_BITS = 64
#: Give up (SolverError) beyond this many bits of the approximation.
MAX_BITS = 1 << 16
#: int64 arithmetic is used where a float bound on every intermediate is below this.
INT64_SAFE = float(2**62)


@dataclass(frozen=True)
class RationalVector:
    """An exact rational vector ``numerators / denominator`` (denominator > 0), and the
    lifting's facts: ``bits`` of the dyadic approximation, ``steps`` taken."""

    numerators: list[int]
    denominator: int
    bits: int
    steps: int

    def fractions(self) -> list[Fraction]:
        return [Fraction(p, self.denominator) for p in self.numerators]


def _exact_residual(matrix, rhs: np.ndarray, alpha: int, c: np.ndarray, bound: float):
    """alpha rhs - matrix c, exactly: int64 where ``bound`` (a float bound on every
    entry's terms) proves it safe, else Python integers (object arrays)."""
    if bound < INT64_SAFE and rhs.dtype == np.int64:
        return alpha * rhs - matrix @ c
    wide = rhs.astype(object) * alpha
    return wide - _object_product(matrix, c.astype(object))


def _object_product(matrix: scipy.sparse.csr_array, vector: np.ndarray) -> np.ndarray:
    """matrix @ vector in Python integers (``vector`` an object array)."""
    terms = matrix.data.astype(object) * vector[matrix.indices]
    out = np.zeros(matrix.shape[0], dtype=object)
    counts = np.diff(matrix.indptr)
    full = np.flatnonzero(counts > 0)
    if len(full):
        out[full] = np.add.reduceat(terms, matrix.indptr[full].astype(np.intp))
    return out


def _narrow(vector: np.ndarray) -> np.ndarray:
    """An object array of integers as int64 where every entry fits, else unchanged."""
    if vector.dtype == object and all(-INT64_SAFE < v < INT64_SAFE for v in vector.tolist()):
        return vector.astype(np.int64)
    return vector


def _float_solve(lu, matrix_float, r: np.ndarray) -> np.ndarray:
    """B^-1 r in float64: the LU solve and one refinement step."""
    rf = r.astype(np.float64)
    d = lu.solve(rf)
    return d + lu.solve(rf - matrix_float @ d)


def _reconstruct(approx: list[int], bits: int, error_bits: int) -> tuple[list[int], int] | None:
    """Step 3: numerators over a common denominator D of the rationals nearest
    approx_i / 2^bits with small denominators, or None where the bits do not suffice."""
    room = (bits - error_bits) // 2  # D q may reach 2^room
    if room <= 1:
        return None
    scale = 1 << bits
    half = scale >> 1
    slack = 1 << error_bits
    d = 1
    found = []  # (p, the D it is over): the D in force when the entry was read
    for a in approx:
        y = d * a
        p = (y + half) >> bits
        if abs(y - (p << bits)) <= d * slack:
            found.append((p, d))
            continue
        limit = (1 << room) // d
        if limit < 2:
            return None
        q = Fraction(y, scale).limit_denominator(limit)
        d *= q.denominator
        found.append((q.numerator, d))
    numerators = [p * (d // over) for p, over in found]
    common = math.gcd(d, *numerators)
    return [p // common for p in numerators], d // common


def _satisfies(matrix, numerators: list[int], d: int, rhs: list[int]) -> bool:
    """Step 4: B N == D b, in Python integers."""
    product = _object_product(matrix, np.array(numerators, dtype=object))
    return all(p == d * b for p, b in zip(product.tolist(), rhs))


def solve_integer_system(matrix, rhs) -> RationalVector:
    """The exact solution of ``matrix`` z = ``rhs`` (module docstring): ``matrix`` a
    square scipy sparse matrix of integers (int64), ``rhs`` integers.  A system that
    SuperLU finds singular, or that is too ill-conditioned to gain bits, or whose
    solution needs more than :data:`MAX_BITS` bits, is a SolverError."""
    matrix = scipy.sparse.csr_array(matrix, dtype=np.int64)
    n = matrix.shape[0]
    if matrix.shape != (n, n) or len(rhs) != n:
        raise SolverError(f"the basis system is {matrix.shape} with {len(rhs)} right-hand sides")
    b = [int(v) for v in rhs]
    if n == 0:
        return RationalVector([], 1, 0, 0)
    matrix_float = matrix.astype(np.float64)
    try:
        lu = scipy.sparse.linalg.splu(matrix_float.tocsc())
    except (RuntimeError, MemoryError) as error:
        raise SolverError(f"the sparse LU of the basis system failed: {error}") from None
    row_norms = np.abs(matrix_float) @ np.ones(n)  # |B| 1: bounds |B c| by max|c| |B| 1
    r = _narrow(np.array(b, dtype=object))
    d_k = _float_solve(lu, matrix_float, r)
    approx = np.zeros(n, dtype=object)
    s, bits, steps, tried = FIRST_STEP_BITS, 0, 0, 0
    while bits <= MAX_BITS:
        size = max(float(np.abs(d_k).max()), 1.0)
        if not np.isfinite(size):
            raise SolverError("the float solve of the basis system overflowed")
        alpha = 1 << s
        c = np.rint(d_k * alpha)
        bound = alpha * float(np.abs(r).max()) + float(row_norms.max()) * float(np.abs(c).max())
        c_int = c.astype(np.int64) if np.abs(c).max() < INT64_SAFE else _big(c)
        r_next = _narrow(_exact_residual(matrix, r, alpha, c_int, bound))
        d_next = _float_solve(lu, matrix_float, r_next)
        if float(np.abs(d_next).max()) > 2.0 ** (s / 2) * size:
            if s <= MIN_STEP_BITS:
                raise SolverError("the basis system is too ill-conditioned for the float LU")
            s //= 2
            continue
        approx = approx * alpha + c_int.astype(object)
        r, d_k = r_next, d_next
        bits += s
        steps += 1
        s = min(2 * s, FIRST_STEP_BITS)
        if bits >= max(FIRST_TRY_BITS, 2 * tried):
            tried = bits
            error_bits = math.ceil(math.log2(max(float(np.abs(d_k).max()), 1.0))) + 1
            found = _reconstruct(approx.tolist(), bits, error_bits)
            if found is not None and _satisfies(matrix, found[0], found[1], b):
                return RationalVector(found[0], found[1], bits, steps)
    raise SolverError(f"the basis system's exact solution needs more than {MAX_BITS} bits")


def _big(c: np.ndarray) -> np.ndarray:
    """Integral floats beyond int64 as Python integers (exactly: each float is an integer)."""
    return np.array([int(v) for v in c.tolist()], dtype=object)
