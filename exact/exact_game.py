"""Exact solution of a zero-sum matrix game with rational entries (python-flint).

The game: the row player maximises x^T A y, the column player minimises it.  An exact
answer (v, x, y) is *verified* before it is returned:

    x >= 0, sum x = 1, (x^T A)_j >= v for every column j      (x guarantees v)
    y >= 0, sum y = 1, (A y)_i <= v for every row i           (y concedes at most v)

Together these prove that v is the value and that x and y are optimal (von Neumann's
minimax theorem; see Shoham & Leyton-Brown, *Multiagent Systems*, sec 4.1).

Algorithm notes
---------------
1. *Basis guess.*  The float kernel (:mod:`exact.matrix_game`) solves the game rounded to
   float64.  Its supports S = {i : x_i > 0} and T = {j : y_j > 0} are, in a nondegenerate
   game, the supports of the exact equilibrium, with |S| = |T| = s.  The equilibrium then
   solves two (s+1) x (s+1) linear systems (the opponent's support made indifferent):

       sum_{i in S} x_i A_ij - v = 0  (j in T),   sum_{i in S} x_i = 1
       sum_{j in T} A_ij y_j - v = 0  (i in S),   sum_{j in T} y_j = 1

   Each equation is scaled by the lcm of its denominators, so the systems are solved
   fraction-free over the integers (python-flint ``fmpz_mat.solve``).
2. *Verify* as above, exactly.
3. *Fallback.*  If the supports differ in size, a system is singular, or the check fails,
   an exact tableau simplex with Bland's rule (which cannot cycle) solves the game, and
   its answer is verified the same way.

``PATH_COUNTS`` counts how often each path is taken.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from flint import fmpq, fmpz, fmpz_mat

from .errors import SolverError
from .matrix_game import solve_game

#: A float probability above this counts as "in the support" of the guess.
SUPPORT_TOL = 1e-9

#: How often each path was taken since import: "basis" (the float guess verified),
#: "simplex" (the exact fallback).
PATH_COUNTS: Counter = Counter()

ZERO = fmpq(0)
ONE = fmpq(1)


@dataclass(frozen=True)
class ExactEquilibrium:
    """A verified exact equilibrium: value and both strategies as fmpq lists."""

    value: fmpq
    x: list
    y: list
    path: str


def to_float_matrix(A) -> np.ndarray:
    """Correctly rounded float64 copy of a rational matrix (entries are small numbers)."""
    return np.array([[float(a) for a in row] for row in A], dtype=np.float64)


def _lcm_of_denominators(values) -> fmpz:
    d = fmpz(1)
    for a in values:
        q = a.q
        if q != 1:
            d = d.lcm(q)
    return d


def _solve_indifference(rows) -> list | None:
    """Solve rows of the form [a_1..a_s, -1 | 0] plus sum = 1 for (w_1..w_s, v).

    ``rows`` is a list of s lists of s rationals (the coefficients a).  Returns the s + 1
    rationals (w, v), or None if the system is singular.
    """
    s = len(rows)
    M = []
    for coeffs in rows:
        scale = _lcm_of_denominators(coeffs)
        M.append([int(a * scale) for a in coeffs] + [-int(scale)])
    M.append([1] * s + [0])
    rhs = fmpz_mat([[0]] * s + [[1]])
    try:
        sol = fmpz_mat(M).solve(rhs)
    except ZeroDivisionError:
        return None
    return [sol[i, 0] for i in range(s + 1)]


def verify(A, value, x, y) -> bool:
    """Exact optimality check of (value, x, y) for the game A (see module docstring)."""
    k_rows, k_cols = len(A), len(A[0])
    if len(x) != k_rows or len(y) != k_cols:
        return False
    if any(p < 0 for p in x) or any(q < 0 for q in y):
        return False
    if sum(x, ZERO) != ONE or sum(y, ZERO) != ONE:
        return False
    for j in range(k_cols):
        if sum((x[i] * A[i][j] for i in range(k_rows) if x[i] != 0), ZERO) < value:
            return False
    for i in range(k_rows):
        if sum((A[i][j] * y[j] for j in range(k_cols) if y[j] != 0), ZERO) > value:
            return False
    return True


def _from_supports(A, S, T):
    """Candidate (v, x, y) from supports S (rows) and T (columns), or None."""
    k = len(A)
    xs = _solve_indifference([[A[i][j] for i in S] for j in T])
    ys = _solve_indifference([[A[i][j] for j in T] for i in S])
    if xs is None or ys is None or xs[-1] != ys[-1]:
        return None
    x = [ZERO] * k
    y = [ZERO] * k
    for i, w in zip(S, xs):
        x[i] = w
    for j, w in zip(T, ys):
        y[j] = w
    return xs[-1], x, y


def solve_exact_game(A) -> ExactEquilibrium:
    """Verified exact equilibrium of the square rational game A (a list of lists of fmpq).

    >>> A = [[fmpq(3), fmpq(-1)], [fmpq(-2), fmpq(1)]]
    >>> eq = solve_exact_game(A)
    >>> eq.value, eq.x, eq.y
    (1/7, [3/7, 4/7], [2/7, 5/7])
    >>> verify(A, eq.value, eq.x, eq.y)
    True
    """
    _, xf, yf = solve_game(to_float_matrix(A))
    S = [i for i, p in enumerate(xf) if p > SUPPORT_TOL]
    T = [j for j, q in enumerate(yf) if q > SUPPORT_TOL]
    if len(S) == len(T):
        guess = _from_supports(A, S, T)
        if guess is not None and verify(A, *guess):
            PATH_COUNTS["basis"] += 1
            return ExactEquilibrium(*guess, path="basis")
    value, x, y = exact_simplex(A)
    if not verify(A, value, x, y):
        raise SolverError("exact simplex returned an answer that fails verification")
    PATH_COUNTS["simplex"] += 1
    return ExactEquilibrium(value, x, y, path="simplex")


def exact_simplex(A):
    """Exact tableau simplex with Bland's rule for the game A.

    LP (after shifting B = A + c with c = 1 - min A, so that B >= 1):
        max sum_j q_j  s.t.  B q <= 1,  q >= 0
    At the optimum sum q = 1 / val(B), y = q / sum q, and the optimal duals p (the
    objective-row entries of the slack columns) give x = p / sum p; val(A) = val(B) - c.
    Bland's rule (smallest entering index, smallest leaving basic index among ties)
    cannot cycle.
    """
    k = len(A)
    c = ONE - min(min(row) for row in A)
    # Tableau rows: [B_i1..B_ik | slack e_i | rhs]; variables 0..k-1 are q, k..2k-1 slacks.
    T = [[A[i][j] + c for j in range(k)] + [ONE if s == i else ZERO for s in range(k)] + [ONE]
         for i in range(k)]
    z = [-ONE] * k + [ZERO] * k + [ZERO]
    basis = list(range(k, 2 * k))
    while True:
        entering = next((j for j in range(2 * k) if z[j] < 0), None)
        if entering is None:
            break
        best = None
        for i in range(k):
            if T[i][entering] > 0:
                ratio = T[i][-1] / T[i][entering]
                if best is None or ratio < best[0] or (ratio == best[0] and basis[i] < basis[best[1]]):
                    best = (ratio, i)
        if best is None:
            raise SolverError("unbounded game LP (impossible for a positive matrix)")
        r = best[1]
        piv = T[r][entering]
        T[r] = [a / piv for a in T[r]]
        for i in range(k):
            if i != r and T[i][entering] != 0:
                f = T[i][entering]
                T[i] = [a - f * b for a, b in zip(T[i], T[r])]
        f = z[entering]
        z = [a - f * b for a, b in zip(z, T[r])]
        basis[r] = entering
    q = [ZERO] * k
    for i, var in enumerate(basis):
        if var < k:
            q[var] = T[i][-1]
    total = z[-1]  # = sum q = sum p
    y = [qj / total for qj in q]
    x = [z[k + i] / total for i in range(k)]
    return ONE / total - c, x, y
