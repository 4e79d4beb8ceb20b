"""How unique is an equilibrium?  Ranges of each probability over ALL optimal strategies.

For a zero-sum matrix game A (row player maximises) with value v*, the row player's
optimal strategies form the polytope

    X* = { x : x >= 0, sum_i x_i = 1, (x^T A)_j >= v* for every column j }

(Shoham & Leyton-Brown, *Multiagent Systems*, sec 4.1).  For each row b the range of x_b
over X* is two linear programs, min x_b and max x_b over X*; the strategy is unique iff
every range is a single point.  Rhoads & Bartholdi's tables print one optimal strategy;
these ranges tell whether the printed numbers are properties of the game.

Algorithm notes
---------------
*Exact* (rationals, N <= 7).  A shortcut settles the usual unique case without an LP:
take one exact equilibrium (x*, y*), let J = supp(y*) and I = {i : (A y*)_i = v*}.
Every optimal x has x_i = 0 outside I and (x^T A)_j = v* on J (complementary slackness:
x^T A y* = v* with (A y*)_i <= v* and (x^T A)_j >= v*).  If the system
{(x^T A)_j = v* for j in J, sum x = 1} in the unknowns x_I has rank |I|, x* is its only
solution, so X* = {x*}.  Everything here avoids reducing fractions: rows are kept in I
unless a fixed-point enclosure proves them slack (a superset of I is still sound), and
the rank is proven modulo a large prime (a minor nonzero mod p is nonzero).  Otherwise
the 2k LPs are solved by a two-phase tableau simplex with Bland's rule (smallest eligible
index enters, smallest basic index leaves on ties), which cannot cycle, in exact
rationals.

*Float* (any N).  The same simplex in float64 with a tolerance, on the relaxed polytope
(x^T A)_j >= v* - SLACK, so that rounding in v* cannot make X* empty; an entry is reported
unique when its range is at most UNIQUE_TOL wide.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import fmpq, nmod_mat

from exact.analysis.audit import fixed_point
from exact.dp.exact_game import solve_exact_game
from exact.dp.solution import to_fraction
from exact.errors import GopsInputError, SolverError
from exact.game.objectives import GameArithmetic, arithmetic_named
from exact.kernels.matrix_game import solve_game

Number = float | Fraction

#: Float path: the relaxation of v* and the width below which a range counts as a point.
SLACK = 1e-12
UNIQUE_TOL = 1e-6
#: Float path: pivots and ratio tests treat |a| <= PIVOT_TOL as zero.
PIVOT_TOL = 1e-11


@dataclass(frozen=True)
class Range:
    """min and max of one probability over every optimal strategy."""

    lo: Number
    hi: Number
    unique: bool


# ---------------------------------------------------------------------------------------
# A small two-phase simplex, generic over the arithmetic (fmpq or float)
# ---------------------------------------------------------------------------------------


def _pivot(T, z_rows, r, c):
    """Gauss-Jordan pivot of the tableau T on (r, c); also updates the objective rows."""
    piv = T[r][c]
    T[r] = [a / piv for a in T[r]]
    pivot_row = T[r]
    for rows in (T, z_rows):
        for i, row in enumerate(rows):
            if (rows is not T or i != r) and row[c] != 0:
                f = row[c]
                rows[i] = [a - f * b for a, b in zip(row, pivot_row)]


def _run(T, z, basis, allowed, tol):
    """Bland's-rule iterations on objective row ``z`` (reduced costs; z[-1] = objective).

    Maximises; entering columns are restricted to ``allowed``.  Returns False if unbounded.
    """
    while True:
        entering = next((j for j in allowed if z[0][j] < -tol), None)
        if entering is None:
            return True
        best = None
        for i, row in enumerate(T):
            if row[entering] > tol:
                ratio = row[-1] / row[entering]
                if (
                    best is None
                    or ratio < best[0] - tol
                    or (abs(ratio - best[0]) <= tol and basis[i] < basis[best[1]])
                ):
                    best = (ratio, i)
        if best is None:
            return False
        _pivot(T, z, best[1], entering)
        basis[best[1]] = entering


def simplex_max(c, A_eq, b_eq, zero=0, one=1, tol=0):
    """max c.x s.t. A_eq x = b_eq, x >= 0 (two-phase tableau simplex, Bland's rule).

    Generic over the arithmetic: exact with fmpq or Fraction entries and tol=0, float64
    with a small tol.  Returns (optimum, x).  Raises SolverError if the LP is infeasible
    or unbounded.

    >>> # max x0 + x1  s.t.  x0 + 2 x1 + x2 = 4,  x0 + x3 = 3
    >>> simplex_max([1, 1, 0, 0], [[1, 2, 1, 0], [1, 0, 0, 1]], [4, 3], Fraction(0), Fraction(1))
    (Fraction(7, 2), [Fraction(3, 1), Fraction(1, 2), Fraction(0, 1), Fraction(0, 1)])
    """
    m, nv = len(A_eq), len(c)
    # Phase 1: rows with b >= 0, one artificial variable per row, maximise -sum(artificial).
    T = []
    for i, (row, b) in enumerate(zip(A_eq, b_eq)):
        s = -one if b < 0 else one
        T.append([a * s for a in row] + [one if t == i else zero for t in range(m)] + [b * s])
    basis = list(range(nv, nv + m))
    z = [
        [zero - sum((T[i][j] for i in range(m)), zero) for j in range(nv)]
        + [zero] * m
        + [zero - sum((T[i][-1] for i in range(m)), zero)]
    ]
    _run(T, z, basis, range(nv), tol)
    if z[0][-1] < -tol * max(1, m):
        raise SolverError("infeasible LP")
    # Drive zero-level artificials out of the basis; drop the rows that are redundant.
    for i in reversed(range(m)):
        if basis[i] >= nv:
            col = next((j for j in range(nv) if abs(T[i][j]) > tol), None)
            if col is None:
                del T[i], basis[i]
            else:
                _pivot(T, [], i, col)
                basis[i] = col
    T = [row[:nv] + row[-1:] for row in T]
    # Phase 2: reduced costs of c in the current basis.
    z = [
        [sum((c[basis[i]] * T[i][j] for i in range(len(T))), zero) - c[j] for j in range(nv)]
        + [sum((c[basis[i]] * T[i][-1] for i in range(len(T))), zero)]
    ]
    if not _run(T, z, basis, range(nv), tol):
        raise SolverError("unbounded LP")
    x = [zero] * nv
    for i, var in enumerate(basis):
        x[var] = T[i][-1]
    return z[0][-1], x


# ---------------------------------------------------------------------------------------
# The optimal set as an LP
# ---------------------------------------------------------------------------------------


def optimal_set_constraints(A, value, rows, tight, zero, one):
    """Equality form of X* restricted to the rows ``rows`` (x_i = 0 elsewhere).

    Variables: x_i (i in rows), then one slack s_j per column j not in ``tight``:
        sum_i x_i A_ij - s_j = v*   (j not tight),   sum_i x_i A_ij = v*   (j tight),
        sum_i x_i = 1.
    """
    k_cols = len(A[0])
    loose = [j for j in range(k_cols) if j not in tight]
    A_eq, b_eq = [], []
    for j in range(k_cols):
        slack = [(-one if j == t else zero) for t in loose]
        A_eq.append([A[i][j] for i in rows] + slack)
        b_eq.append(value)
    A_eq.append([one] * len(rows) + [zero] * len(loose))
    b_eq.append(one)
    return A_eq, b_eq


def _lp_ranges(A, value, rows, tight, zero, one, tol):
    """(lo, hi) of each x_b, b in rows, by 2 LPs each."""
    A_eq, b_eq = optimal_set_constraints(A, value, rows, tight, zero, one)
    nvars = len(A_eq[0])
    out = {}
    for t, b in enumerate(rows):
        c = [zero] * nvars
        c[t] = one
        hi, _ = simplex_max(c, A_eq, b_eq, zero, one, tol)
        c[t] = -one
        lo, _ = simplex_max(c, A_eq, b_eq, zero, one, tol)
        out[b] = (zero - lo, hi)
    return out


#: Primes for the rank test (the Mersenne primes 2^61 - 1 and 2^31 - 1).
RANK_PRIMES = ((1 << 61) - 1, (1 << 31) - 1)


def _possibly_tight_rows(Q, eq, bits: int = 256) -> list[int]:
    """Rows i that may have (A y*)_i = v*: all rows but those *proven* slack.

    With y* = Y / E (integers Y >= 0) and A_ij in [F_ij, F_ij + 1] / 2^bits (F_ij =
    floor(A_ij 2^bits)), sum_j Y_j (F_ij + 1) < v* E 2^bits proves (A y*)_i < v*.
    A superset of the tight rows keeps the shortcut sound, and costs no gcd.
    """
    v, E = eq.value, eq.y_den
    bound = v.p * E << bits
    rows = []
    for i, row in enumerate(Q):
        upper = sum(Y * (fixed_point(a, bits)[0] + 1) for Y, a in zip(eq.y_num, row) if Y != 0)
        if not upper * v.q < bound:
            rows.append(i)
    return rows


def _full_column_rank_mod_p(matrix, columns: int) -> bool:
    """True if the rational ``matrix`` provably has rank ``columns``.

    Reduced modulo a prime p not dividing any denominator, a minor that is nonzero mod p
    is nonzero over Q, so rank mod p = columns proves the rank.  False means "not proven".
    """
    for prime in RANK_PRIMES:
        if any(a.q % prime == 0 for row in matrix for a in row):
            continue
        rows = [
            [int(a.p % prime) * pow(int(a.q % prime), -1, prime) % prime for a in row]
            for row in matrix
        ]
        if nmod_mat(rows, prime).rank() == columns:
            return True
    return False


def _exact_unique(Q, eq) -> tuple[list[int], list[int], bool]:
    """(I, J, unique) of the shortcut in the module notes.

    J = supp(y*); I contains every row tight against y* (see _possibly_tight_rows); the
    system {(x^T A)_j = v* for j in J, sum x = 1} in x_I is tested for rank |I| modulo
    a prime (see _full_column_rank_mod_p).  No rational is reduced: entries of N = 7
    have ~10^6 digits and a gcd at that size costs ~0.5 s.
    """
    k = len(Q)
    J = [j for j in range(k) if eq.y_num[j] != 0]
    I = _possibly_tight_rows(Q, eq)
    system = [[Q[i][j] for i in I] for j in J] + [[fmpq(1)] * len(I)]
    return I, J, _full_column_rank_mod_p(system, len(I))


def optimal_set_ranges(
    A, arithmetic: str | GameArithmetic = "rational", shortcut: bool = True
) -> list[Range]:
    """Range of each row probability over all optimal strategies of the row player of A.

    ``A`` is square: rationals (int, Fraction or fmpq) for ``arithmetic="rational"``,
    floats for ``"float"``.  ``shortcut=False`` forces the 2k LPs in exact arithmetic.

    A game whose optimal strategies form a segment: x = (t, t, 1 - 2t), 0 <= t <= 1/2.

    >>> ranges = optimal_set_ranges([[2, 0, 5], [0, 2, 5], [1, 1, 5]])
    >>> [(str(r.lo), str(r.hi), r.unique) for r in ranges]
    [('0', '1/2', False), ('0', '1/2', False), ('0', '1', False)]
    """
    k = len(A)
    if k == 0 or any(len(row) != k for row in A):
        raise GopsInputError("the game matrix must be square")
    if not arithmetic_named(arithmetic).exact:
        return _float_ranges(np.asarray(A, dtype=np.float64))
    Q = [
        [
            a
            if isinstance(a, fmpq)
            else fmpq(a.numerator, a.denominator)
            if isinstance(a, Fraction)
            else fmpq(a)
            for a in row
        ]
        for row in A
    ]
    eq = solve_exact_game(Q)
    value = eq.value
    if shortcut:
        I, J, unique = _exact_unique(Q, eq)
        if unique:
            x = [to_fraction(p) for p in eq.x]
            return [Range(p, p, True) for p in x]
    else:
        I, J = list(range(k)), []
    found = _lp_ranges(Q, value, I, J, fmpq(0), fmpq(1), 0)
    out = []
    for b in range(k):
        lo, hi = found.get(b, (fmpq(0), fmpq(0)))
        out.append(Range(to_fraction(lo), to_fraction(hi), lo == hi))
    return out


def _float_ranges(A: np.ndarray) -> list[Range]:
    value, _, _ = solve_game(A)
    k = A.shape[0]
    scale = max(1.0, float(np.abs(A).max()))
    rows = [[float(a) / scale for a in row] for row in A]  # entries in [-1, 1]
    v = value / scale - SLACK
    found = _lp_ranges(rows, v, list(range(k)), [], 0.0, 1.0, PIVOT_TOL)
    out = []
    for b in range(k):
        lo, hi = found[b]
        lo, hi = min(max(lo, 0.0), 1.0), min(max(hi, 0.0), 1.0)
        out.append(Range(lo, hi, hi - lo <= UNIQUE_TOL))
    return out


# ---------------------------------------------------------------------------------------
# The first-move table
# ---------------------------------------------------------------------------------------


def first_move_ranges(solution) -> dict[int, dict[int, Range]]:
    """{upcard: {bid: Range}} for the first move of ``solution``: exact when the
    solution is rational (N <= 7), float LPs otherwise."""
    cards = set(range(1, solution.n + 1))
    out = {}
    for u in sorted(cards):
        A = solution.matrix(cards, cards, cards, u)
        ranges = optimal_set_ranges([list(row) for row in A], solution.arithmetic)
        out[u] = dict(zip(sorted(cards), ranges))
    return out


def ranges_json(ranges) -> dict:
    """{"upcard": [[lo, hi] per bid, ascending]} with float ends."""
    return {
        str(u): [[float(r.lo), float(r.hi)] for _, r in sorted(row.items())]
        for u, row in ranges.items()
    }


def format_ranges(n: int, ranges, exact: bool, digits: int = 4) -> str:
    """The table layout (rows = bids, columns = upcards): 'unique' or 'lo..hi'."""
    cells = {
        (b, u): ("unique" if r.unique else f"{float(r.lo):.{digits}f}..{float(r.hi):.{digits}f}")
        for u, row in ranges.items()
        for b, r in row.items()
    }
    width = max(len(s) for s in cells.values()) + 1
    unique = sum(r.unique for row in ranges.values() for r in row.values())
    how = (
        "exact rationals"
        if exact
        else f"float LPs; unique = narrower than {UNIQUE_TOL:.0e} with v* relaxed by {SLACK:.0e}"
    )
    lines = [
        f"Range of each entry over ALL optimal first moves ({how}): "
        f"{unique} of {len(cells)} unique",
        "bid\\up " + "".join(f"{u:>{width}}" for u in range(1, n + 1)),
    ]
    for b in range(1, n + 1):
        lines.append(f"{b:>6} " + "".join(f"{cells[b, u]:>{width}}" for u in range(1, n + 1)))
    return "\n".join(lines)
