"""Brute-force reference for the win/loss objective of GOPS: the test oracle.

Independent of the package ``exact`` (it imports nothing from it): plain memoised
recursion over raw positions (V, Y, P, L) -- my hand, their hand, the prizes not yet
turned, my lead in points -- with no relabelling, no antisymmetry, no monotonicity and no
bounds on the lead:

    f(V, Y, P, L)   = sign(L)                                   if P is empty
    f(V, Y, P, L)   = (1/|P|) sum_{u in P} f_u(V, Y, P, L)
    f_u(V, Y, P, L) = value of the matrix game
                      X[i][j] = f(V - V_i, Y - Y_j, P - u, L + u sign(V_i - Y_j))

(the win/loss payoff: +1 if I end with more points, 0 on a tie, -1 otherwise; the
recursion of Rhoads & Bartholdi 2012, sec 3, with the final payoff changed).  Every
matrix game is solved by the row player's linear program with scipy's HiGHS:

    maximise v  s.t.  sum_i x_i X_ij >= v for every column j,  sum_i x_i = 1,  x >= 0

(Shoham & Leyton-Brown, *Multiagent Systems*, sec 4.1).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy.optimize import linprog

_HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def _sign(a: int) -> int:
    return (a > 0) - (a < 0)


def game_value(X: np.ndarray) -> float:
    """Value of the zero-sum game X (row player maximises): a pure saddle point
    (max_i min_j X_ij = min_j max_i X_ij, most games here), else HiGHS."""
    maximin, minimax = X.min(axis=1).max(), X.max(axis=0).min()
    if maximin == minimax:
        return float(maximin)
    m, n = X.shape
    c = np.zeros(m + 1)
    c[-1] = -1.0  # minimise -v
    A_ub = np.hstack([-X.T, np.ones((n, 1))])  # v - sum_i x_i X_ij <= 0
    A_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(n),
        A_eq=A_eq,
        b_eq=np.ones(1),
        bounds=[(0.0, None)] * m + [(None, None)],
        method="highs",
        options=_HIGHS_OPTIONS,
    )
    if res.status != 0:
        raise RuntimeError(f"HiGHS failed: {res.message}\n{X}")
    return float(res.x[-1])


def win_matrix(V: frozenset, Y: frozenset, P: frozenset, L: int, u: int) -> np.ndarray:
    """X[i][j] for upcard u (rows: my cards ascending; columns: theirs ascending)."""
    rest = P - {u}
    return np.array(
        [
            [win_value(V - {a}, Y - {b}, rest, L + u * _sign(a - b)) for b in sorted(Y)]
            for a in sorted(V)
        ]
    )


@cache
def win_value(V: frozenset, Y: frozenset, P: frozenset, L: int) -> float:
    """f(V, Y, P, L): P(I win) - P(I lose) under optimal play, before the next upcard."""
    if not P:
        return float(_sign(L))
    return sum(game_value(win_matrix(V, Y, P, L, u)) for u in sorted(P)) / len(P)


def win_game_value(V, Y, P, L, u) -> float:
    """f_u: the value once upcard u is turned."""
    return game_value(win_matrix(frozenset(V), frozenset(Y), frozenset(P), L, u))
