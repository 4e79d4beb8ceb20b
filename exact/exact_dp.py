"""Bottom-up dynamic programming over canonical subgames in exact rational arithmetic.

The same recursion as :mod:`exact.float_dp` (Rhoads & Bartholdi 2012, sec 3),

    f(V, Y, P) = (1/k) sum_{u in P} val[ u * sign(V_i - Y_j) + f(V - V_i, Y - Y_j, P - u) ],

with every matrix game solved exactly and verified by :mod:`exact.exact_game`.  One record
per pair {pattern, swapped pattern} is solved (identical hands included, so that their
equilibria, the root's first move among them, can be certified); the swapped pattern gets
the negated value.  Each solved subgame is handed to an optional ``on_record`` callback
(the certificate writer), so nothing but the values is kept in memory.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import fmpq

from .exact_game import PATH_COUNTS, solve_exact_game
from .solution import Solution


def record_patterns(level) -> np.ndarray:
    """Pattern ranks solved (and certified) at a level: p <= swap[p]."""
    return np.flatnonzero(np.arange(level.patterns) <= level.swap)


def exact_matrix(level, below, r, p, m):
    """The payoff matrix of pattern p, prize set r, upcard index m, as lists of fmpq."""
    k = level.k
    u = int(level.prize_card[r, m])
    row = below[int(level.prize_child[r, m])]
    child, sign = level.child[p], level.sign[p]
    return [[row[int(child[i, j])] + u * int(sign[i, j]) for j in range(k)] for i in range(k)]


def solve_all_levels_exact(levels, progress=None, on_record=None):
    """Exact values of every level (object arrays of fmpq) and the solver path counts.

    ``on_record(level, p, r, value, games)`` receives every solved subgame, where
    ``games`` is a list of (upcard, ExactEquilibrium) in increasing upcard order.
    """
    start_counts = PATH_COUNTS.copy()
    values = [np.full((1, 1), fmpq(0), dtype=object)]
    if on_record is not None:
        on_record(levels[0], 0, 0, fmpq(0), [])
    for level in levels[1:]:
        k = level.k
        below = values[-1]
        out = np.full((level.prize_sets, level.patterns), fmpq(0), dtype=object)
        patterns = record_patterns(level)
        for r in range(level.prize_sets):
            for p in patterns:
                games = []
                total = fmpq(0)
                for m in range(k):
                    eq = solve_exact_game(exact_matrix(level, below, r, int(p), m))
                    games.append((int(level.prize_card[r, m]), eq))
                    total += eq.value
                value = total / k
                out[r, p] = value
                out[r, level.swap[p]] = -value
                if on_record is not None:
                    on_record(level, int(p), r, value, games)
            if progress is not None:
                progress(level, len(level.canonical_patterns))  # units of the float bar
        values.append(out)
    paths = {key: PATH_COUNTS[key] - start_counts[key] for key in ("basis", "simplex")}
    return values, {"paths": paths}


def to_fraction(x) -> Fraction:
    """fmpq -> fractions.Fraction (the API boundary).

    An fmpq is already in lowest terms with a positive denominator, so the Fraction is
    built without the gcd that ``Fraction(p, q)`` computes (seconds for numbers of 10^5
    digits, hours for the million-digit ones of N = 7).
    """
    p, q = int(x.p), int(x.q)
    coprime = getattr(Fraction, "_from_coprime_ints", None)  # Python >= 3.12
    if coprime is not None:
        return coprime(p, q)
    try:
        return Fraction(p, q, _normalize=False)  # Python <= 3.11
    except TypeError:  # neither private hook: normalise (slow, still correct)
        return Fraction(p, q)


class RationalSolution(Solution):
    """A Solution whose numbers are exact: values and strategies are Fractions."""

    _dtype = object

    def _number(self, x) -> Fraction:
        return to_fraction(x)

    def _solve_matrix(self, A):
        eq = solve_exact_game([list(row) for row in A])
        return eq.value, eq.x, eq.y

    def _gap(self, A, value, x, y) -> float:
        return 0.0  # verified exactly by solve_exact_game
