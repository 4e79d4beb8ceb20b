"""A solved game for the win/loss objective: values by (subgame, lead), strategies on demand.

Numbers are P(I win) - P(I lose) under optimal play by both sides (the payoff +1 / 0 / -1
for a win, a tie, a loss), not point differences.  Every method of
:class:`~exact.solution.Solution` takes an extra keyword ``lead``: my points minus theirs
so far (default 0).  A lead is accepted when it can happen: |lead| <= handicap + the prize
points already played, where ``handicap`` (default 0) is the largest |lead| the solution
was solved for at the start of the game (see :func:`exact.solve`).  A position whose lead
exceeds the points still in the deck is decided and is valued sign(lead) without any
solved level.
"""

from __future__ import annotations

from flint import fmpq

from .encoding import pattern_rank, prize_rank
from .errors import GopsInputError, SolverError
from .exact_dp import RationalSolution
from .rules import validate_position
from .solution import Number, Solution, Strategy
from .win_dp import lead_offset, total_points


def _sign(a: int) -> int:
    return (a > 0) - (a < 0)


class WinSolution(Solution):
    """Values of N-card GOPS for the win objective; ``values[k][prize rank, pattern, L + off_k]``.

    >>> import exact
    >>> sol = exact.solve(4, objective="win")
    >>> sol.value({1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4})
    0.0
    >>> sol.value({1}, {2}, {3}, lead=4)          # decided: 4 > 3 points left
    1.0
    >>> sol.value({1}, {2}, {3}, lead=8)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: a lead of 8 is impossible here: 7 points ... |lead| <= 7 (...)
    """

    def __init__(self, n, objective, arithmetic, levels, values, stats=None, handicap: int = 0):
        super().__init__(n, objective, arithmetic, levels, values, stats)
        self.handicap = handicap

    def __repr__(self) -> str:
        return (f"WinSolution(n={self.n}, arithmetic={self.arithmetic!r}, "
                f"handicap={self.handicap})")

    def _constant(self, c: int):
        return float(c)

    # -- positions -----------------------------------------------------------------------

    def _check_lead(self, lead, deck) -> int:
        if isinstance(lead, bool) or not isinstance(lead, int):
            try:
                if int(lead) != lead or isinstance(lead, bool):
                    raise ValueError
                lead = int(lead)
            except (TypeError, ValueError):
                raise GopsInputError(f"the lead must be an integer, got {lead!r}") from None
        played = total_points(self.n) - sum(deck)
        bound = played + self.handicap
        if abs(lead) > bound:
            extra = f" plus a handicap of {self.handicap}" if self.handicap else ""
            raise GopsInputError(
                f"a lead of {lead} is impossible here: {played} points of prizes have been "
                f"played{extra}, so |lead| <= {bound} (solve with a larger handicap for more)"
            )
        return lead

    def _position(self, mine, theirs, deck, upcard=None, lead=0):
        mine, theirs, deck = validate_position(mine, theirs, deck, upcard, n=self.n)
        lead = self._check_lead(lead, deck)
        if abs(lead) <= sum(deck):  # undecided: needs solved levels
            most = len(self.levels) - (1 if upcard is None else 0)
            if len(deck) > most:
                raise GopsInputError(
                    f"this solution holds positions of at most {most} cards per hand")
        return mine, theirs, deck, lead

    def _lookup(self, mine, theirs, deck, lead=0):
        """Stored value of a validated position (no upcard turned); sign(lead) if decided."""
        if abs(lead) > sum(deck):
            return self._constant(_sign(lead))
        k = len(deck)
        off = lead_offset(self.n, k, self.handicap)
        value = self.values[k][prize_rank(deck), pattern_rank(self.levels[k], mine, theirs),
                               lead + off]
        if value is None or value != value:
            raise SolverError(f"no stored value at {sorted(mine)}, {sorted(theirs)}, "
                              f"{sorted(deck)}, lead {lead} (a bug)")
        return value

    def value(self, mine, theirs, deck, lead: int = 0) -> Number:
        """f(mine, theirs, deck, lead): P(win) - P(loss) before the next upcard.

        With 1, 3 against 2, 3 and the prizes 1, 2 left they can always win, unless I lead
        by 2 (a lead of 1 gives a sure tie):

        >>> import exact
        >>> exact.solve(3, objective="win").value({1, 3}, {2, 3}, {1, 2})
        -1.0
        >>> exact.solve(3, objective="win").value({1, 3}, {2, 3}, {1, 2}, lead=2)
        1.0
        """
        mine, theirs, deck, lead = self._position(mine, theirs, deck, lead=lead)
        return self._number(self._lookup(mine, theirs, deck, lead))

    def matrix(self, mine, theirs, deck, upcard, lead: int = 0):
        """X_ij = f(V - V_i, Y - Y_j, P - u, lead + u sign(V_i - Y_j)) (rows: my cards)."""
        mine, theirs, deck, lead = self._position(mine, theirs, deck, upcard, lead)
        return self._win_matrix(mine, theirs, deck, upcard, lead)

    def _win_matrix(self, mine, theirs, deck, upcard, lead):
        import numpy as np

        rest = deck - {upcard}
        rows = []
        for a in sorted(mine):
            rows.append([
                self._lookup(mine - {a}, theirs - {b}, rest, lead + upcard * _sign(a - b))
                for b in sorted(theirs)
            ])
        return np.array(rows, dtype=self._dtype)

    def strategy(self, mine, theirs, deck, upcard, lead: int = 0) -> Strategy:
        """The equilibrium once ``upcard`` (in ``deck``) is turned; value = P(win) - P(loss)."""
        if upcard is None:
            raise GopsInputError("an upcard is required")
        mine, theirs, deck, lead = self._position(mine, theirs, deck, upcard, lead)
        A = self._win_matrix(mine, theirs, deck, upcard, lead)
        return self._equilibrium(A, mine, theirs, upcard)

    def first_move_table(self, lead: int = 0) -> dict[int, dict[int, Number]]:
        """{upcard: {bid: probability}} at the start of the game, with a starting ``lead``."""
        cards = set(range(1, self.n + 1))
        return {u: self.strategy(cards, cards, cards, u, lead).mine for u in sorted(cards)}


class RationalWinSolution(WinSolution, RationalSolution):
    """A WinSolution whose numbers are exact Fractions (values, strategies)."""

    def __repr__(self) -> str:
        return (f"RationalWinSolution(n={self.n}, handicap={self.handicap})")

    def _constant(self, c: int):
        return fmpq(c)
