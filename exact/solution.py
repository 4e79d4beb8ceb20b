"""A solved game: subgame values by level, and equilibrium strategies on demand.

Only values are stored.  The equilibrium at a position with an upcard turned is recomputed
from the stored values one level down: the payoff matrix of paper sec 3,
X_ij = u * sign(V_i - Y_j) + f(V - V_i, Y - Y_j, P - u), solved as a matrix game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Union

import numpy as np

from .encoding import Level, pattern_rank, prize_rank
from .errors import GopsInputError
from .matrix_game import solve_game
from .rules import validate_position

Number = Union[float, Fraction]


@dataclass(frozen=True)
class Strategy:
    """The equilibrium of one matrix game: after ``upcard`` is turned, before the bids."""

    upcard: int
    value: Number  # expected point difference for "me" (row player)
    mine: dict[int, Number]  # my card -> probability of bidding it
    theirs: dict[int, Number]  # their card -> probability
    # Checked equilibrium gap of (mine, theirs) in this matrix game: the most either player
    # could gain by deviating, max(value - min_j (x A)_j, max_i (A y)_i - value).  0 when
    # exact (verified), about 1e-13 in floating point.
    gap: float = 0.0


@dataclass(frozen=True)
class SolveStats:
    """How a solution was obtained (printed by ``gops solve``)."""

    subgames: int
    matrix_games: int
    seconds: float
    peak_memory_bytes: int
    extra: dict = field(default_factory=dict)


def equilibrium_gap(A, value, x, y) -> float:
    """max(value - min_j (x A)_j, max_i (A y)_i - value, 0): the most either player of the
    float game A could gain by deviating from (x, y) (Strategy.gap)."""
    A = np.asarray(A, dtype=np.float64)
    x, y = np.asarray(x, float), np.asarray(y, float)
    return float(max(value - (x @ A).min(), (A @ y).max() - value, 0.0))


class Solution:
    """Values of every canonical subgame of N-card GOPS for one objective and arithmetic.

    ``values[k]`` is indexed ``[prize rank, pattern rank]`` (see :mod:`exact.encoding`).
    """

    def __init__(self, n, objective, arithmetic, levels, values, stats=None):
        self.n = n
        self.objective = objective
        self.arithmetic = arithmetic
        self.levels: tuple[Level, ...] = levels
        self.values = values
        self.stats: SolveStats | None = stats

    def __repr__(self) -> str:
        return f"Solution(n={self.n}, objective={self.objective!r}, arithmetic={self.arithmetic!r})"

    # -- positions -----------------------------------------------------------------------

    def _position(self, mine, theirs, deck, upcard=None):
        mine, theirs, deck = validate_position(mine, theirs, deck, upcard, n=self.n)
        # A value needs its own level; a strategy only the level below (after the bids).
        most = len(self.levels) - (1 if upcard is None else 0)
        if len(deck) > most:
            raise GopsInputError(f"this solution holds positions of at most {most} cards per hand")
        return mine, theirs, deck

    def _lookup(self, mine, theirs, deck):
        """Stored value of a validated position (no upcard turned)."""
        k = len(deck)
        level = self.levels[k]
        return self.values[k][prize_rank(deck), pattern_rank(level, mine, theirs)]

    def _number(self, x) -> Number:
        return float(x)

    def value(self, mine, theirs, deck) -> Number:
        """f(mine, theirs, deck): my expected point difference before the next upcard.

        >>> import exact
        >>> exact.solve(2).value({2}, {1}, {2})    # my 2 beats their 1 for the last prize
        2.0
        """
        mine, theirs, deck = self._position(mine, theirs, deck)
        return self._number(self._lookup(mine, theirs, deck))

    def matrix(self, mine, theirs, deck, upcard) -> np.ndarray:
        """The payoff matrix of the position (rows: my cards ascending; columns: theirs)."""
        mine, theirs, deck = self._position(mine, theirs, deck, upcard)
        return self._matrix(mine, theirs, deck, upcard)

    def _matrix(self, mine, theirs, deck, upcard):
        rest = deck - {upcard}
        rows = []
        for a in sorted(mine):
            row = []
            for b in sorted(theirs):
                won = upcard if a > b else (-upcard if a < b else 0)
                row.append(won + self._lookup(mine - {a}, theirs - {b}, rest))
            rows.append(row)
        return np.array(rows, dtype=self._dtype)

    _dtype = np.float64

    def _solve_matrix(self, A):
        return solve_game(A)

    def strategy(self, mine, theirs, deck, upcard) -> Strategy:
        """The equilibrium once ``upcard`` (which is in ``deck``) is turned up."""
        if upcard is None:
            raise GopsInputError("an upcard is required")
        mine, theirs, deck = self._position(mine, theirs, deck, upcard)
        return self._equilibrium(self._matrix(mine, theirs, deck, upcard), mine, theirs, upcard)

    def _equilibrium(self, A, mine, theirs, upcard) -> Strategy:
        """Solve the matrix game A (rows: sorted ``mine``, columns: sorted ``theirs``)."""
        value, x, y = self._solve_matrix(A)
        return Strategy(
            upcard=upcard,
            value=self._number(value),
            mine={c: self._number(p) for c, p in zip(sorted(mine), x)},
            theirs={c: self._number(p) for c, p in zip(sorted(theirs), y)},
            gap=self._gap(A, value, x, y),
        )

    def _gap(self, A, value, x, y) -> float:
        return equilibrium_gap(A, value, x, y)

    def first_move_table(self) -> dict[int, dict[int, Number]]:
        """{upcard: {bid: probability}} at the start of the game (paper Tables 1 and 2)."""
        cards = set(range(1, self.n + 1))
        return {u: self.strategy(cards, cards, cards, u).mine for u in sorted(cards)}
