"""Exact solution of a zero-sum matrix game with rational entries (python-flint).

The game: the row player maximises x^T A y, the column player minimises it.  An exact
answer (v, x, y) is *verified* before it is returned:

    x >= 0, sum x = 1, (x^T A)_j >= v for every column j      (x guarantees v)
    y >= 0, sum y = 1, (A y)_i <= v for every row i           (y concedes at most v)

Together these prove that v is the value and that x and y are optimal (von Neumann's
minimax theorem; see Shoham & Leyton-Brown, *Multiagent Systems*, sec 4.1).

Algorithm notes
---------------
Entries can have hundreds of thousands of digits, and every rational operation pays a gcd,
so the work is done in integers ("fraction-free"):

0. *Integer scaling.*  Column j is multiplied by L_j, the lcm of its denominators, and row
   i by M_i, the lcm of its denominators: two integer matrices, C[j][i] = A_ij L_j and
   R[i][j] = A_ij M_i.
1. *Basis guess.*  The float kernel (:mod:`exact.kernels.matrix_game`) solves the game rounded to
   float64 (each entry correctly rounded).  Its supports S = {i : x_i > 0} and
   T = {j : y_j > 0} are, in a nondegenerate game, those of the exact equilibrium, with
   |S| = |T| = s.  The equilibrium then solves two (s+1) x (s+1) integer systems (the
   opponent's support made indifferent; each equation multiplied by its scale):

       sum_{i in S} X_i C[j][i] - W L_j = 0  (j in T),   sum_{i in S} X_i = D
       sum_{j in T} Y_j R[i][j] - W' M_i = 0 (i in S),   sum_{j in T} Y_j = D'

   with x = X / D, v = W / D, y = Y / D'.  Fraction-free Gauss-Jordan (python-flint
   ``fmpz_mat.rref``) returns the integers X, W and D directly.
2. *Verify* in integers: X, Y >= 0 with sums D, D' > 0; W D' = W' D (one value);
   sum_i X_i C[j][i] >= W L_j for every column j; sum_j Y_j R[i][j] <= W' M_i for every row
   i.  These are the inequalities above multiplied by positive integers.
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

from exact.errors import SolverError
from exact.kernels.matrix_game import KMAX, solve_game

#: A float probability above this counts as "in the support" of the guess.
SUPPORT_TOL = 1e-9

#: How often each path was taken since import: "basis" (the float guess verified),
#: "simplex" (the exact fallback).
PATH_COUNTS: Counter = Counter()

ZERO = fmpq(0)
ONE = fmpq(1)


@dataclass(frozen=True)
class ExactEquilibrium:
    """A verified exact equilibrium.

    Strategies are kept fraction-free: x = x_num / x_den, y = y_num / y_den (integers,
    denominators > 0, not necessarily in lowest terms); the value is a reduced fmpq.
    """

    value: fmpq
    x_num: list
    x_den: fmpz
    y_num: list
    y_den: fmpz
    path: str

    @property
    def x(self) -> list:
        return [fmpq(a, self.x_den) for a in self.x_num]

    @property
    def y(self) -> list:
        return [fmpq(a, self.y_den) for a in self.y_num]


def to_float_matrix(A) -> np.ndarray:
    """Correctly rounded float64 copy of a rational matrix (entries are small numbers)."""
    return np.array([[float(a) for a in row] for row in A], dtype=np.float64)


def _lcm_of_denominators(values) -> fmpz:
    d = fmpz(1)
    for a in values:
        q = a.q
        if q != 1 and d % q != 0:
            d = d.lcm(q)
    return d


def _scaled(values):
    """(lcm L of the denominators, the integers a * L)."""
    scale = _lcm_of_denominators(values)
    return scale, [a.p * (scale // a.q) for a in values]


class IntegerGame:
    """A square rational game with every column and every row scaled to integers.

    ``cols[j][i] = A_ij * col_scale[j]`` and ``rows[i][j] = A_ij * row_scale[i]``.
    """

    def __init__(self, A):
        k = len(A)
        self.k = k
        self.col_scale, self.cols = zip(*(_scaled([A[i][j] for i in range(k)]) for j in range(k)))
        self.row_scale, self.rows = zip(*(_scaled(A[i]) for i in range(k)))


def _solve_indifference(equations, scales):
    """Solve sum_i w_i e_i - V * scale = 0 (each equation), sum_i w_i = D, fraction-free.

    ``equations`` are s integer coefficient lists of length s.  Returns (w, V, D) with
    integers and D > 0, or None if the system is singular.
    """
    s = len(equations)
    M = [list(e) + [-sc, 0] for e, sc in zip(equations, scales)]
    M.append([1] * s + [0, 1])
    R, d, rank = fmpz_mat(M).rref()
    if rank != s + 1:
        return None
    z = [R[i, s + 1] for i in range(s + 1)]
    if d < 0:
        d, z = -d, [-a for a in z]
    # Divide out the common content of (z, d): smaller certificates and later arithmetic.
    g = d
    for a in z:
        if g == 1:
            break
        g = g.gcd(a)
    if g != 1:
        d, z = d // g, [a // g for a in z]
    return z[:s], z[s], d


def verify_integer(game: IntegerGame, X, D, W, Y, E, W2) -> bool:
    """Exact optimality check of x = X/D, y = Y/E with values W/D and W2/E (integers)."""
    k = game.k
    if len(X) != k or len(Y) != k or D <= 0 or E <= 0:
        return False
    if any(a < 0 for a in X) or any(b < 0 for b in Y) or sum(X) != D or sum(Y) != E:
        return False
    if W * E != W2 * D:
        return False
    support_x = [i for i in range(k) if X[i] != 0]
    support_y = [j for j in range(k) if Y[j] != 0]
    for j in range(k):
        col = game.cols[j]
        if sum(X[i] * col[i] for i in support_x) < W * game.col_scale[j]:
            return False
    for i in range(k):
        row = game.rows[i]
        if sum(Y[j] * row[j] for j in support_y) > W2 * game.row_scale[i]:
            return False
    return True


def _from_supports(game: IntegerGame, S, T):
    """Candidate (X, D, W, Y, E, W2) from supports S (rows) and T (columns), or None."""
    k = game.k
    xs = _solve_indifference(
        [[game.cols[j][i] for i in S] for j in T], [game.col_scale[j] for j in T]
    )
    ys = _solve_indifference(
        [[game.rows[i][j] for j in T] for i in S], [game.row_scale[i] for i in S]
    )
    if xs is None or ys is None:
        return None
    X, Y = [fmpz(0)] * k, [fmpz(0)] * k
    for i, w in zip(S, xs[0]):
        X[i] = w
    for j, w in zip(T, ys[0]):
        Y[j] = w
    return X, xs[2], xs[1], Y, ys[2], ys[1]


def _fraction_free(xs, value):
    """Integers (X, D, W) with xs = X / D and value = W / D (D the lcm of all denominators)."""
    d, scaled = _scaled(list(xs) + [value])
    return scaled[:-1], d, scaled[-1]


def _float_supports(A) -> tuple[list[int], list[int]]:
    """The supports of the float kernel's equilibrium of A: a guess, verified exactly by
    the caller.  No guess ([], [0], so the exact simplex decides) beyond the kernel's size
    (a restricted fixed-bid game) or where the float kernel misses its accuracy bound."""
    if len(A) > KMAX:
        return [], [0]
    try:
        _, xf, yf = solve_game(to_float_matrix(A))
    except SolverError:
        return [], [0]
    S = [i for i, p in enumerate(xf) if p > SUPPORT_TOL]
    T = [j for j, q in enumerate(yf) if q > SUPPORT_TOL]
    return S, T


def solve_exact_game(A) -> ExactEquilibrium:
    """Verified exact equilibrium of the square rational game A (a list of lists of fmpq).

    >>> A = [[fmpq(3), fmpq(-1)], [fmpq(-2), fmpq(1)]]
    >>> eq = solve_exact_game(A)
    >>> eq.value, eq.x, eq.y
    (1/7, [3/7, 4/7], [2/7, 5/7])
    """
    game = IntegerGame(A)
    S, T = _float_supports(A)
    if len(S) == len(T):
        guess = _from_supports(game, S, T)
        if guess is not None and verify_integer(game, *guess):
            X, D, W, Y, E, _ = guess
            PATH_COUNTS["basis"] += 1
            return ExactEquilibrium(fmpq(W, D), X, D, Y, E, path="basis")
    value, x, y = exact_simplex(A)
    X, D, W = _fraction_free(x, value)
    Y, E, W2 = _fraction_free(y, value)
    if not verify_integer(game, X, D, W, Y, E, W2):
        raise SolverError("exact simplex returned an answer that fails verification")
    PATH_COUNTS["simplex"] += 1
    return ExactEquilibrium(value, X, D, Y, E, path="simplex")


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
    T = [
        [A[i][j] + c for j in range(k)] + [ONE if s == i else ZERO for s in range(k)] + [ONE]
        for i in range(k)
    ]
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
                if (
                    best is None
                    or ratio < best[0]
                    or (ratio == best[0] and basis[i] < basis[best[1]])
                ):
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


def pure_saddle(A) -> ExactEquilibrium | None:
    """A pure equilibrium of the square game A (lists of fmpq), if it has a saddle point.

    max_i min_j A_ij = min_j max_i A_ij: the maximin row and the minimax column are then
    optimal, and the check is exact.

    >>> pure_saddle([[ONE, ZERO], [ONE, ONE]]).value
    1
    >>> pure_saddle([[ONE, -ONE], [-ONE, ONE]]) is None
    True
    """
    k = len(A)
    row_min = [min(row) for row in A]
    col_max = [max(A[i][j] for i in range(k)) for j in range(k)]
    i = max(range(k), key=row_min.__getitem__)
    j = min(range(k), key=col_max.__getitem__)
    if row_min[i] != col_max[j]:
        return None
    unit = [fmpz(0)] * k
    x, y = list(unit), list(unit)
    x[i] = fmpz(1)
    y[j] = fmpz(1)
    return ExactEquilibrium(row_min[i], x, fmpz(1), y, fmpz(1), path="saddle")


def solve_saddle_or_lp(A) -> ExactEquilibrium:
    """Verified exact equilibrium: the pure saddle point if there is one, else the LP."""
    return pure_saddle(A) or solve_exact_game(A)
