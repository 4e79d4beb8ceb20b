"""Brute-force reference solver for GOPS (Goofspiel): the test oracle.

This module is intentionally slow and simple. It is the independent oracle
against which the main solver (package ``exact``) is tested, so it shares no
code with it and uses none of its tricks: no relabelling of cards, no use of
antisymmetry, no bottom-up tables, no exact arithmetic. It is plain memoised
recursion over raw positions (V, Y, P), where

* V is my hand (the row player, who maximises),
* Y is the opponent's hand (the column player, who minimises),
* P is the remaining prize deck, before the next upcard is turned,

all frozensets of ints of the same size. The recursion is the one of Rhoads &
Bartholdi, "Computer Solution to the Game of Pure Strategy", Games 3 (2012),
section 3:

    f(∅, ∅, ∅) = 0
    f(V, Y, P) = (1/|P|) * sum_{u in P} f_u(V, Y, P)
    f_u(V, Y, P) = value of the |V| x |Y| zero-sum matrix game
        X[i][j] = u * sign(V_i - Y_j) + f(V - {V_i}, Y - {Y_j}, P - {u})

with V and Y sorted ascending. The objective is the expected point difference
(my points minus theirs); a tie on a bid scores nothing for either player and
the prize is discarded. Every matrix game is solved by linear programming with
``scipy.optimize.linprog(method="highs")`` (floating point).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

import numpy as np
from scipy.optimize import linprog

__all__ = [
    "reference_value",
    "reference_matrix",
    "reference_game",
    "reference_strategy",
]

# Tight HiGHS tolerances: the oracle is compared with the main solver to 1e-9.
_HIGHS_OPTIONS = {
    "primal_feasibility_tolerance": 1e-10,
    "dual_feasibility_tolerance": 1e-10,
}


def _sign(a: int) -> int:
    return (a > 0) - (a < 0)


def _position(mine: Iterable[int], theirs: Iterable[int], deck: Iterable[int]):
    V, Y, P = frozenset(mine), frozenset(theirs), frozenset(deck)
    if not (len(V) == len(Y) == len(P)):
        raise ValueError(
            f"hands and deck must have the same size, got {sorted(V)}, {sorted(Y)}, {sorted(P)}"
        )
    return V, Y, P


# ---------------------------------------------------------------------------
# One matrix game
# ---------------------------------------------------------------------------
#
# Row player's LP (Shoham & Leyton-Brown, "Multiagent Systems", sec. 4.1,
# minimax via linear programming). For an m x n payoff matrix A to the row
# player:
#
#     maximise    v
#     subject to  sum_i x_i A_ij >= v      for every column j
#                 sum_i x_i       = 1
#                 x_i             >= 0,    v free.
#
# Column player's LP (its dual):
#
#     minimise    w
#     subject to  sum_j A_ij y_j <= w      for every row i
#                 sum_j y_j       = 1
#                 y_j             >= 0,    w free.
#
# Both are solved explicitly (rather than reading duals off one of them) so
# that no sign convention of the solver's marginals can go wrong. By the
# minimax theorem the two optima coincide.


def _row_lp(A: np.ndarray) -> tuple[float, np.ndarray]:
    """Solve max v s.t. x^T A >= v, sum x = 1, x >= 0. Returns (v, x)."""
    m, n = A.shape
    # Variables z = (x_1, ..., x_m, v); linprog minimises, so minimise -v.
    c = np.zeros(m + 1)
    c[-1] = -1.0
    # v - sum_i x_i A_ij <= 0 for every column j.
    A_ub = np.hstack([-A.T, np.ones((n, 1))])
    b_ub = np.zeros(n)
    A_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    b_eq = np.ones(1)
    bounds = [(0.0, None)] * m + [(None, None)]
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=b_ub,
        A_eq=A_eq,
        b_eq=b_eq,
        bounds=bounds,
        method="highs",
        options=_HIGHS_OPTIONS,
    )
    if res.status != 0:
        raise RuntimeError(f"HiGHS failed on the row LP: {res.message}\n{A}")
    return float(res.x[-1]), _clean(res.x[:m])


def _col_lp(A: np.ndarray) -> tuple[float, np.ndarray]:
    """Solve min w s.t. A y <= w, sum y = 1, y >= 0. Returns (w, y)."""
    m, n = A.shape
    # Variables z = (y_1, ..., y_n, w); minimise w.
    c = np.zeros(n + 1)
    c[-1] = 1.0
    # sum_j A_ij y_j - w <= 0 for every row i.
    A_ub = np.hstack([A, -np.ones((m, 1))])
    b_ub = np.zeros(m)
    A_eq = np.hstack([np.ones((1, n)), np.zeros((1, 1))])
    b_eq = np.ones(1)
    bounds = [(0.0, None)] * n + [(None, None)]
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=b_ub,
        A_eq=A_eq,
        b_eq=b_eq,
        bounds=bounds,
        method="highs",
        options=_HIGHS_OPTIONS,
    )
    if res.status != 0:
        raise RuntimeError(f"HiGHS failed on the column LP: {res.message}\n{A}")
    return float(res.x[-1]), _clean(res.x[:n])


def _clean(p: np.ndarray) -> np.ndarray:
    """Clip solver round-off below zero and renormalise to a distribution."""
    p = np.maximum(np.asarray(p, dtype=float), 0.0)
    return p / p.sum()


def reference_game(A) -> tuple[float, np.ndarray, np.ndarray]:
    """Solve the zero-sum matrix game A (payoffs to the maximising row player).

    Returns (value, x, y): the value, an optimal mixed strategy x of the row
    player (indexed by rows) and an optimal mixed strategy y of the column
    player (indexed by columns). The value is the row LP's optimum.
    """
    A = np.atleast_2d(np.asarray(A, dtype=float))
    if A.ndim != 2 or A.size == 0:
        raise ValueError(f"need a non-empty 2-d payoff matrix, got shape {A.shape}")
    v, x = _row_lp(A)
    _, y = _col_lp(A)
    return v, x, y


def _game_value(A: np.ndarray) -> float:
    """Value only (one LP) — used by the recursion."""
    return _row_lp(A)[0]


# ---------------------------------------------------------------------------
# The recursion
# ---------------------------------------------------------------------------


def _matrix(V: frozenset, Y: frozenset, P: frozenset, u: int) -> np.ndarray:
    Vs, Ys = sorted(V), sorted(Y)
    rest = P - {u}
    X = np.empty((len(Vs), len(Ys)))
    for i, a in enumerate(Vs):
        for j, b in enumerate(Ys):
            X[i, j] = u * _sign(a - b) + _f(V - {a}, Y - {b}, rest)
    return X


@cache
def _f(V: frozenset, Y: frozenset, P: frozenset) -> float:
    if not P:
        return 0.0
    total = 0.0
    for u in sorted(P):
        total += _game_value(_matrix(V, Y, P, u))
    return total / len(P)


def reference_value(mine, theirs, deck) -> float:
    """f(V, Y, P): expected point difference for me with optimal play by both,
    before the next upcard is drawn uniformly from ``deck``."""
    V, Y, P = _position(mine, theirs, deck)
    return _f(V, Y, P)


def reference_matrix(mine, theirs, deck, upcard) -> np.ndarray:
    """Payoff matrix X for the position with ``upcard`` turned up
    (``upcard`` still counted in ``deck``). Rows: my cards ascending;
    columns: their cards ascending."""
    V, Y, P = _position(mine, theirs, deck)
    if upcard not in P:
        raise ValueError(f"upcard {upcard} not in deck {sorted(P)}")
    return _matrix(V, Y, P, upcard)


def reference_strategy(mine, theirs, deck, upcard):
    """(value, {my card: prob}, {their card: prob}) for the position with
    ``upcard`` turned up. Every card of each hand appears as a key."""
    X = reference_matrix(mine, theirs, deck, upcard)
    v, x, y = reference_game(X)
    mine_p = {c: float(p) for c, p in zip(sorted(mine), x)}
    theirs_p = {c: float(p) for c, p in zip(sorted(theirs), y)}
    return v, mine_p, theirs_p


def cache_clear() -> None:
    """Drop the memo (for timing experiments)."""
    _f.cache_clear()
