"""Brute-force references for GOPS under every prize order: the test oracle of
``exact.game.orders``.

Independent of the package ``exact`` (it imports nothing from it): memoised recursion over
raw positions (V, Y, P) with no relabelling and no antisymmetry, where the prize order
decides how the values f_u of the upcards u in P combine (the "Psychological JuJitsu"
write-up's chooser of the diamonds; OpenSpiel's points_order):

    random              f = (1/|P|) sum_u f_u      ascending   f = f_{min P}
    controlled-by-me    f = max_u f_u              descending  f = f_{max P}
    controlled-by-them  f = min_u f_u

    f_u(V, Y, P) = value of X[i][j] = u sign(V_i - Y_j) + f(V - V_i, Y - Y_j, P - u)

Two arithmetics: float, each game solved by HiGHS (``reference.reference_game``), and
exact, each game solved in Fractions by enumerating square supports (the Shapley-Snow
theorem: some optimal pair of strategies is the solution of the indifference equations on
a square submatrix; Shapley & Snow, "Basic solutions of discrete games", 1950), with the
candidate checked against every row and column.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import combinations

from reference import reference_game


def _sign(a: int) -> int:
    return (a > 0) - (a < 0)


def combine(order: str, P: frozenset, value_of):
    """f from f_u = value_of(u), as the order says (module docstring)."""
    if order == "ascending":
        return value_of(min(P))
    if order == "descending":
        return value_of(max(P))
    values = [value_of(u) for u in sorted(P)]
    if order == "controlled-by-me":
        return max(values)
    if order == "controlled-by-them":
        return min(values)
    assert order == "random", order
    return sum(values) / len(values)


def matrix(V, Y, P, u, f):
    return [[u * _sign(a - b) + f(V - {a}, Y - {b}, P - {u}) for b in sorted(Y)] for a in sorted(V)]


@cache
def float_value(order: str, V: frozenset, Y: frozenset, P: frozenset) -> float:
    """f(V, Y, P) in floating point (HiGHS)."""
    if not P:
        return 0.0
    f = lambda v, y, p: float_value(order, v, y, p)  # noqa: E731
    return combine(order, P, lambda u: reference_game(matrix(V, Y, P, u, f))[0])


def _solve_square(A, rows, cols):
    """(v, x, y) with x^T A[rows, cols] = v, A[rows, cols] y = v, sums 1, by Fraction
    Gaussian elimination; None if singular."""
    s = len(rows)

    def solve(M):  # M: s equations "sum_t M[e][t] z_t - v = 0" plus "sum z = 1"
        aug = [list(M[e]) + [Fraction(-1), Fraction(0)] for e in range(s)]
        aug.append([Fraction(1)] * s + [Fraction(0), Fraction(1)])
        n = s + 1
        for c in range(n):
            piv = next((r for r in range(c, n) if aug[r][c] != 0), None)
            if piv is None:
                return None
            aug[c], aug[piv] = aug[piv], aug[c]
            for r in range(n):
                if r != c and aug[r][c] != 0:
                    q = aug[r][c] / aug[c][c]
                    aug[r] = [a - q * b for a, b in zip(aug[r], aug[c])]
        z = [aug[r][n] / aug[r][r] for r in range(n)]
        return z[:s], z[s]

    sub = [[A[i][j] for j in cols] for i in rows]
    col_side = solve(sub)  # A y = v on the rows
    row_side = solve([[sub[i][j] for i in range(s)] for j in range(s)])  # x^T A = v
    if col_side is None or row_side is None:
        return None
    (y, v1), (x, v2) = col_side, row_side
    if v1 != v2 or min(x) < 0 or min(y) < 0:
        return None
    return v1, x, y


def exact_game_value(A) -> Fraction:
    """The value of the zero-sum game A (Fractions; row player maximises)."""
    m, n = len(A), len(A[0])
    for s in range(1, min(m, n) + 1):
        for rows in combinations(range(m), s):
            for cols in combinations(range(n), s):
                found = _solve_square(A, rows, cols)
                if found is None:
                    continue
                v, x, y = found
                # Optimal iff x guarantees v against every column and y against every row.
                if all(
                    sum(x[t] * A[i][j] for t, i in enumerate(rows)) >= v for j in range(n)
                ) and all(sum(y[t] * A[i][j] for t, j in enumerate(cols)) <= v for i in range(m)):
                    return v
    raise AssertionError(f"no square kernel found for {A}")  # impossible (Shapley-Snow)


@cache
def exact_value(order: str, V: frozenset, Y: frozenset, P: frozenset) -> Fraction:
    """f(V, Y, P) in exact rationals."""
    if not P:
        return Fraction(0)
    f = lambda v, y, p: exact_value(order, v, y, p)  # noqa: E731
    return combine(order, P, lambda u: exact_game_value(matrix(V, Y, P, u, f)))


# -- the win objective: f = sign(L) at the end, L my lead (tests/reference_win.py) ----------


def win_matrix(V, Y, P, L, u, f):
    return [
        [f(V - {a}, Y - {b}, P - {u}, L + u * _sign(a - b)) for b in sorted(Y)] for a in sorted(V)
    ]


@cache
def win_exact_value(order: str, V: frozenset, Y: frozenset, P: frozenset, L: int) -> Fraction:
    """P(win) - P(loss) in exact rationals."""
    if not P:
        return Fraction(_sign(L))
    f = lambda v, y, p, lead: win_exact_value(order, v, y, p, lead)  # noqa: E731
    return combine(order, P, lambda u: exact_game_value(win_matrix(V, Y, P, L, u, f)))
