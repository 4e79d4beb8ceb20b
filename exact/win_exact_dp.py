"""The win/loss objective in exact rational arithmetic (python-flint).

The recursion of :mod:`exact.win_dp` (the paper's sec 3 with the final payoff sign(L)),

    f(V, Y, P, L) = (1/k) sum_{u in P} val[ f(V - V_i, Y - Y_j, P - u, L + u sign(V_i - Y_j)) ],

on the same arrays ``values[k][prize rank, pattern rank, L + offset_k]`` (object arrays
of fmpq; decided entries hold sign(L), unreachable ones None).  Every matrix game with an
undecided, reachable lead is solved exactly and verified: a pure saddle point is checked
directly (most games of the win objective have one), anything else goes to
:func:`exact.exact_game.solve_exact_game`.  One record per antisymmetric pair
(p, L) ~ (swap p, -L), p <= swap p, is solved; for identical hands (p = swap p) the leads
L > 0.  Unlike the float kernel no lead is skipped by monotonicity, so that every record
carries its equilibria: each is handed to ``on_record`` (for a certificate writer).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from flint import fmpq, fmpz

from .exact_game import ExactEquilibrium, solve_exact_game
from .win_dp import empty_level, lead_limits, lead_offset, record_patterns

ONE, ZERO, MINUS_ONE = fmpq(1), fmpq(0), fmpq(-1)


def exact_level(level, handicap: int = 0) -> np.ndarray:
    """The float template of :func:`exact.win_dp.empty_level` in fmpq (NaN -> None)."""
    template = empty_level(level, handicap)
    out = np.empty(template.shape, dtype=object)
    for value, number in ((1.0, ONE), (-1.0, MINUS_ONE), (0.0, ZERO)):
        out[template == value] = number
    out[np.isnan(template)] = None
    return out


def pure_saddle(A) -> ExactEquilibrium | None:
    """A pure equilibrium of the square game A (lists of fmpq), if it has a saddle point.

    max_i min_j A_ij = min_j max_i A_ij: the maximin row and the minimax column are then
    optimal, and the check is exact.

    >>> pure_saddle([[ONE, ZERO], [ONE, ONE]]).value
    1
    >>> pure_saddle([[ONE, MINUS_ONE], [MINUS_ONE, ONE]]) is None
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


def win_matrix(level, below, offb, r, p, m, lead):
    """The payoff matrix of pattern p, prize set r, upcard index m at ``lead`` (fmpq)."""
    k = level.k
    u = int(level.prize_card[r, m])
    row = below[int(level.prize_child[r, m])]
    child, sign = level.child[p], level.sign[p]
    A = []
    for i in range(k):
        cells = []
        for j in range(k):
            lc = lead + u * int(sign[i, j])
            if lc > offb:
                cells.append(ONE)
            elif lc < -offb:
                cells.append(MINUS_ONE)
            else:
                cells.append(row[int(child[i, j]), lc + offb])
        A.append(cells)
    return A


def solve_exact_win_game(A) -> ExactEquilibrium:
    """Verified exact equilibrium: the pure saddle point if there is one, else the LP."""
    return pure_saddle(A) or solve_exact_game(A)


def solve_all_win_levels_exact(levels, handicap: int = 0, progress=None, on_record=None,
                               zero_lead: bool = False):
    """Exact values of every level for the win objective, and the solver path counts.

    ``on_record(level, p, r, lead, value, games)`` receives every solved subgame (pattern
    rank p <= swap[p], prize rank r, the lead), where ``games`` is a list of
    (upcard, ExactEquilibrium) in increasing upcard order.  With ``zero_lead``, identical
    hands are also solved at lead 0 (value 0 by antisymmetry, but their equilibria are
    wanted: the root is one of them; the certificate writer asks for it).  ``progress(level, done)`` is
    called per prize set in the units of :func:`exact.float_dp.level_items`.
    """
    from .float_dp import level_items as bar_units

    paths = Counter()
    values = [exact_level(levels[0], handicap)]
    for level in levels[1:]:
        k = level.k
        below = values[-1]
        offb = lead_offset(level.n, k - 1, handicap)
        off = lead_offset(level.n, k, handicap)
        out = exact_level(level, handicap)
        patterns = record_patterns(level)
        limits = lead_limits(level, handicap)
        units = bar_units(level)
        for r in range(level.prize_sets):
            lim = int(limits[r])
            for p in patterns:
                p = int(p)
                q = int(level.swap[p])
                first = (0 if zero_lead else 1) if p == q else -lim
                for lead in range(first, lim + 1):
                    games = []
                    total = ZERO
                    for m in range(k):
                        eq = solve_exact_win_game(win_matrix(level, below, offb, r, p, m, lead))
                        paths[eq.path] += 1
                        games.append((int(level.prize_card[r, m]), eq))
                        total += eq.value
                    value = total / k
                    if p == q and lead == 0 and value != ZERO:  # pragma: no cover - solver bug
                        raise ArithmeticError(f"identical hands at lead 0 valued {value}")
                    out[r, p, lead + off] = value
                    out[r, q, off - lead] = -value
                    if on_record is not None:
                        on_record(level, p, r, lead, value, games)
            if progress is not None:
                progress(level, (r + 1) * units // level.prize_sets - r * units // level.prize_sets)
        values.append(out)
    return values, {"paths": dict(paths)}
