"""A solved game: subgame values by level, and equilibrium strategies on demand.

One class for every objective and arithmetic.  Only values are stored.  The equilibrium at
a position with an upcard turned is recomputed from the stored values one level down: the
position's canonical record (prize rank, pattern rank, lead) and the matrix that its
objective builds from the level below (:meth:`exact.dp.objective.Objective.matrix`; for
points X_ij = u * sign(V_i - Y_j) + f(V - V_i, Y - Y_j, P - u), paper sec 3), solved as
a matrix game in the solution's arithmetic.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from flint import fmpq

from exact.dp.exact_game import solve_exact_game
from exact.dp.objective import Objective, objective_of
from exact.errors import GopsInputError, SolverError
from exact.game.encoding import Level, pattern_rank, prize_rank
from exact.game.objectives import FLOAT, RATIONAL, GameArithmetic
from exact.game.orders import RANDOM, PrizeOrder
from exact.game.rules import validate_position
from exact.game.spec import GameSpec
from exact.kernels.bounds import certified_game
from exact.kernels.matrix_game import solve_game

Number = float | Fraction


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


def _sign(a: int) -> int:
    return (a > 0) - (a < 0)


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
        # A private keyword of Python <= 3.11 (not in the type stubs).
        return Fraction(p, q, _normalize=False)  # type: ignore[call-overload]
    except TypeError:  # neither private hook: normalise (slow, still correct)
        return Fraction(p, q)


class Arithmetic:
    """Floating point: float values, the float matrix-game kernel, a checked gap."""

    name = "float"
    dtype: type = np.float64

    def number(self, x) -> Number:
        return float(x)

    def constant(self, c: int):
        """The integer c as a stored value."""
        return float(c)

    def solve(self, A):
        """(value, x, y) of the matrix game A (an array or lists of rows), near-degenerate
        games polished as the level kernels polish them (exact.kernels.bounds.certified_game),
        so that a strategy shown is the one behind the certified radius."""
        A = np.ascontiguousarray(A, dtype=np.float64)
        value, x, y = solve_game(A)
        value, _ = certified_game(A, A.shape[0], x, y, value)
        return value, x, y

    def gap(self, A, value, x, y) -> float:
        return equilibrium_gap(A, value, x, y)


class RationalArithmetic(Arithmetic):
    """Exact rationals: Fraction values, the exact verified matrix-game solver, gap 0."""

    name = "rational"
    dtype = object

    def number(self, x) -> Fraction:
        return to_fraction(x)

    def constant(self, c: int):
        return fmpq(c)

    def solve(self, A):
        eq = solve_exact_game([list(row) for row in A])
        return eq.value, eq.x, eq.y

    def gap(self, A, value, x, y) -> float:
        return 0.0  # verified exactly by solve_exact_game


#: The solvers' side of each arithmetic of the game (exact.game.objectives).
ARITHMETICS = {FLOAT: Arithmetic(), RATIONAL: RationalArithmetic()}


def arithmetic_of(arithmetic: GameArithmetic) -> Arithmetic:
    """The numbers and the matrix-game solver of an arithmetic of the game."""
    return ARITHMETICS[arithmetic]


def equilibrium_strategy(arith: Arithmetic, A, solved, mine, theirs, upcard) -> Strategy:
    """The Strategy of the matrix game A (rows: sorted ``mine``, columns: sorted
    ``theirs``) solved as ``solved`` = (value, x, y), in the numbers of ``arith``."""
    value, x, y = solved
    number = arith.number
    return Strategy(
        upcard=upcard,
        value=number(value),
        mine={c: number(p) for c, p in zip(sorted(mine), x)},
        theirs={c: number(p) for c, p in zip(sorted(theirs), y)},
        gap=arith.gap(A, value, x, y),
    )


class Solution:
    """Values of every canonical subgame of N-card GOPS for one objective and arithmetic.

    ``values[k]`` is level k's array in its objective's layout (points:
    ``[prize rank, column]``; win: ``[prize rank, column, L + offset_k]``, one column per
    antisymmetric pair, see :mod:`exact.dp.objective`).  Every method takes ``lead=`` (my
    points minus theirs so far): for the win objective it defaults to 0 and must be
    reachable, |lead| <= handicap + the prize points already played; the points objective
    has no lead.

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
    >>> exact.solve(3).value({1, 3}, {2, 3}, {1, 2}, lead=1)
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: the points objective has no lead (the win objective has one)
    """

    def __init__(
        self,
        spec: GameSpec,
        levels,
        values,
        stats=None,
        radii=None,
        store=None,
        objective: Objective | None = None,
    ):
        #: The game solved (exact.game.spec): N, objective, prize order, handicap, arithmetic.
        self.spec = spec
        # How its levels are laid out and its matrices built (exact.dp.objective); by
        # default the spec's own.
        self._objective: Objective = objective_of(spec) if objective is None else objective
        self._arith: Arithmetic = arithmetic_of(spec.arithmetic)
        self.levels: tuple[Level, ...] = levels
        self.values = values
        self.stats: SolveStats | None = stats
        # radii[k] >= |value - exact value| for every subgame of level k (proved by the
        # float drivers, exact.kernels.bounds; 0 in rational arithmetic; inf if not given).
        if radii is None:
            radii = [0.0 if spec.arithmetic.exact else float("inf")] * len(levels)
        self.radii: list[float] = list(radii)
        # The store directory the values are read from (exact.load), or None when they
        # were computed in this process.  Stored values and radii are as the files say
        # until re-derived: exact.dp.verify (gops verify).
        self.store = store

    @property
    def n(self) -> int:
        return self.spec.n

    @property
    def objective(self) -> Objective:
        """The objective, as its levels are laid out and its matrices built
        (:mod:`exact.dp.objective`; ``.rules``: the objective of the game)."""
        return self._objective

    @property
    def arithmetic(self) -> GameArithmetic:
        """The arithmetic of the values (:mod:`exact.game.objectives`)."""
        return self.spec.arithmetic

    @property
    def handicap(self) -> int:
        """The largest |lead| at the start that the solution covers (win objective)."""
        return self.spec.handicap

    @property
    def order(self) -> PrizeOrder:
        """Who orders the prizes (:class:`exact.game.orders.PrizeOrder`)."""
        return self.spec.order

    def __repr__(self) -> str:
        extra = f", handicap={self.handicap}" if self.handicap else ""
        if self.order is not RANDOM:
            extra += f", order={self.order.name!r}"
        if self.store is not None:
            extra += f", store={str(self.store)!r}"
        return (
            f"Solution(n={self.n}, objective={self.objective.name!r}, "
            f"arithmetic={self.arithmetic.name!r}{extra})"
        )

    # -- positions -----------------------------------------------------------------------

    def _position(self, mine, theirs, deck, upcard=None, lead=None):
        """The validated position and lead; GopsInputError for anything impossible."""
        mine, theirs, deck = validate_position(mine, theirs, deck, upcard, n=self.n)
        lead = self.objective.check_lead(lead, self.n, deck)
        if upcard is not None and upcard not in self.order.next_prizes(deck):
            raise GopsInputError(
                f"in the {self.order.name} prize order the next prize is "
                f"{self.order.next_prizes(deck)[0]}, not {upcard}"
            )
        # A value needs its own level; a strategy only the level below (after the bids).
        most = len(self.levels) - (1 if upcard is None else 0)
        if len(deck) > most and self.objective.decided(deck, lead) is None:
            raise GopsInputError(f"this solution holds positions of at most {most} cards per hand")
        return mine, theirs, deck, lead

    def _lookup(self, mine, theirs, deck, lead):
        """Stored value of a validated position (no upcard turned)."""
        decided = self.objective.decided(deck, lead)
        if decided is not None:
            return self._arith.constant(decided)
        k = len(deck)
        level = self.levels[k]
        value = self.objective.get(
            self.values[k], level, prize_rank(deck), pattern_rank(level, mine, theirs), lead
        )
        if value is None or value != value:
            raise SolverError(
                f"no stored value at {sorted(mine)}, {sorted(theirs)}, "
                f"{sorted(deck)}, lead {lead} (a bug)"
            )
        return value

    def value(
        self,
        mine: Collection[int],
        theirs: Collection[int],
        deck: Collection[int],
        lead: int | None = None,
    ) -> Number:
        """f(mine, theirs, deck[, lead]) before the next upcard: my expected point
        difference (points), or P(win) - P(loss) (win).

        >>> import exact
        >>> exact.solve(2).value({2}, {1}, {2})    # my 2 beats their 1 for the last prize
        2.0

        With 1, 3 against 2, 3 and the prizes 1, 2 left they can always win, unless I lead
        by 2 (a lead of 1 gives a sure tie):

        >>> exact.solve(3, objective="win").value({1, 3}, {2, 3}, {1, 2})
        -1.0
        >>> exact.solve(3, objective="win").value({1, 3}, {2, 3}, {1, 2}, lead=2)
        1.0
        """
        mine, theirs, deck, lead = self._position(mine, theirs, deck, lead=lead)
        return self._arith.number(self._lookup(mine, theirs, deck, lead))

    def enclosure(
        self,
        mine: Collection[int],
        theirs: Collection[int],
        deck: Collection[int],
        lead: int | None = None,
    ) -> tuple[float, float]:
        """An interval that provably contains the exact value f(mine, theirs, deck[, lead]):
        the stored value plus or minus its level's certified radius, rounded outward.
        SolverError if the radius is unknown (a float Solution built without its radii).

        >>> import exact
        >>> sol = exact.solve(5)
        >>> lo, hi = sol.enclosure({1, 3}, {2, 5}, {4, 5})
        >>> lo <= float(exact.solve(5, arithmetic="rational").value({1, 3}, {2, 5}, {4, 5})) <= hi
        True
        """
        mine, theirs, deck, lead = self._position(mine, theirs, deck, lead=lead)
        value = self._lookup(mine, theirs, deck, lead)
        if self.objective.decided(deck, lead) is not None:
            return float(value), float(value)
        radius = self.radii[len(deck)]
        if not np.isfinite(radius):
            raise SolverError("this solution carries no certified radius (built without its radii)")
        v = float(value)
        return float(np.nextafter(v - radius, -np.inf)), float(np.nextafter(v + radius, np.inf))

    def matrix(
        self,
        mine: Collection[int],
        theirs: Collection[int],
        deck: Collection[int],
        upcard: int,
        lead: int | None = None,
    ) -> np.ndarray:
        """The payoff matrix of the position (rows: my cards ascending; columns: theirs)."""
        mine, theirs, deck, lead = self._position(mine, theirs, deck, upcard, lead)
        return self._matrix(mine, theirs, deck, upcard, lead)

    def _matrix(self, mine, theirs, deck, upcard, lead):
        """The objective's matrix of the position's record, from the level below."""
        decided = self.objective.decided(deck, lead)
        k = len(deck)
        if decided is not None:  # every entry is decided too, with the same sign
            return np.full((k, k), self._arith.constant(decided), dtype=self._arith.dtype)
        below = self.levels[k - 1]
        cells = [
            [
                (pattern_rank(below, mine - {a}, theirs - {b}), upcard * _sign(a - b))
                for b in sorted(theirs)
            ]
            for a in sorted(mine)
        ]
        row = self.values[k - 1][prize_rank(deck - {upcard})]
        A = np.array(
            self.objective.payoffs(self.n, k, row, cells, lead, self.objective.columns(below)),
            dtype=self._arith.dtype,
        )
        if any(x is None or x != x for x in A.flat):  # NaN or None: never solved
            raise SolverError(
                f"no stored value below {sorted(mine)}, {sorted(theirs)}, "
                f"{sorted(deck)}, lead {lead} (a bug)"
            )
        return A

    def strategy(
        self,
        mine: Collection[int],
        theirs: Collection[int],
        deck: Collection[int],
        upcard: int,
        lead: int | None = None,
    ) -> Strategy:
        """The equilibrium once ``upcard`` (which is in ``deck``) is turned up."""
        if upcard is None:
            raise GopsInputError("an upcard is required")
        mine, theirs, deck, lead = self._position(mine, theirs, deck, upcard, lead)
        A = self._matrix(mine, theirs, deck, upcard, lead)
        return equilibrium_strategy(self._arith, A, self._arith.solve(A), mine, theirs, upcard)

    def prize_values(
        self,
        mine: Collection[int],
        theirs: Collection[int],
        deck: Collection[int],
        lead: int | None = None,
    ) -> dict[int, Number]:
        """{upcard u: f_u}, the value of the game once u is turned up, for every prize the
        order can turn up next: under a controlled order, the chooser takes the best.

        If I choose the prizes of the 4-card game, I turn up the 2 first:

        >>> import exact
        >>> sol = exact.solve(4, arithmetic="rational", order="controlled-by-me")
        >>> cards = {1, 2, 3, 4}
        >>> sol.prize_values(cards, cards, cards)  # doctest: +NORMALIZE_WHITESPACE
        {1: Fraction(1, 54), 2: Fraction(148116, 1307731), 3: Fraction(8318, 118427),
         4: Fraction(0, 1)}
        """
        mine, theirs, deck, lead = self._position(mine, theirs, deck, lead=lead)
        values = {}
        for u in self.order.next_prizes(deck):
            A = self._matrix(mine, theirs, deck, u, lead)
            value, _, _ = self._arith.solve(A)
            values[u] = self._arith.number(value)
        return values

    def first_move_table(self, lead: int | None = None) -> dict[int, dict[int, Number]]:
        """{upcard: {bid: probability}} at the start of the game (paper Tables 1 and 2),
        for every upcard the prize order can turn up first; ``lead``: a starting lead (win
        objective)."""
        cards = set(range(1, self.n + 1))
        return {
            u: self.strategy(cards, cards, cards, u, lead).mine
            for u in self.order.next_prizes(cards)
        }
