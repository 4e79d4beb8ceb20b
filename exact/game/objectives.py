"""What a player maximises and in which numbers the game is solved, as parts of the game.

Two objectives (:class:`GameObjective`): ``points``, the expected point difference
(Rhoads & Bartholdi 2012), and ``win``, P(win) - P(loss), whose positions carry my lead L
(my points minus theirs so far, a head start included).  Two arithmetics
(:class:`GameArithmetic`): ``float`` (float64 with certified error radii) and ``rational``
(exact).  Each is one object, like the prize order (:mod:`exact.game.orders`); a name is
parsed into it once, at a boundary (:func:`objective_named`, :func:`arithmetic_named`:
the command line's click types, ``exact.solve``'s arguments, the store and certificate
readers, the web query), and below that only the object is consulted: what differs
between objectives (has a lead, the largest value, the lead rules, the words a summary
uses) is a method or attribute here, and the solvers' side of it
(:func:`exact.dp.objective.objective_of`: layout, kernel, records) is reached from it
through one map.  Comparing an objective or arithmetic with a string raises TypeError, so
that a name compared below the boundary fails loudly instead of silently.

Lead rules: nobody is more than all the prizes, N(N+1)/2 points, ahead
(:func:`check_lead`); at a position the lead is further bounded by the prizes already
played plus the handicap solved for (:meth:`GameObjective.check_position_lead`); a lead
larger than the prizes left decides the game (:meth:`GameObjective.decided`).

>>> objective_named("win").has_lead, objective_named(POINTS) is POINTS
(True, True)
>>> arithmetic_named("rational").exact
True
>>> POINTS == "points"
Traceback (most recent call last):
...
TypeError: compare the objective points with an objective, not with the string 'points'
"""

from __future__ import annotations

from exact.errors import GopsInputError
from exact.game.rules import prize_total


class _Named:
    """A part of a game known by its name: equal only to itself (each is a single
    instance), never to a string (TypeError: a name compared below the boundary)."""

    name: str
    what: str

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            raise TypeError(
                f"compare the {self.what} {self.name} with an {self.what}, not with the "
                f"string {other!r}"
            )
        return self is other

    def __hash__(self) -> int:
        return hash((self.what, self.name))

    def __repr__(self) -> str:
        return f"{self.what}_named({self.name!r})"


class GameObjective(_Named):
    """One objective as a rule of the game: the points objective (this class) has no lead."""

    what = "objective"
    name = "points"
    #: Whether a position carries my lead (the win objective: the outcome depends on it).
    has_lead = False
    #: What a value means, as a summary line says it.
    units = "expected point difference"
    #: The states a solve counts, as its summary says it.
    subgames_words = "canonical subgames"
    #: Whether the summary of a solve shows an interval for the value at the start where
    #: symmetry does not fix it.
    summary_encloses_start = True

    def largest_value(self, n: int) -> float:
        """The largest |f| of any subgame of the n-card game (a radius this large proves
        nothing): every prize won.

        >>> POINTS.largest_value(4), WIN.largest_value(4)
        (10.0, 1.0)
        """
        return float(prize_total(n))

    def check_position_lead(self, lead, n: int, deck, handicap: int) -> int | None:
        """The lead at a position with the prizes ``deck`` left (GopsInputError): none."""
        if lead is not None:
            raise GopsInputError(
                f"the {self.name} objective has no lead (the win objective has one)"
            )
        return None

    def decided(self, deck, lead) -> int | None:
        """The value of a position that needs no solved level, else None."""
        return None

    def position_handicap(self, n: int, lead, deck) -> int:
        """The handicap a position ``lead`` points ahead (a checked lead) with the prizes
        ``deck`` left is solved for: 0 without a lead."""
        return 0

    def skipped_words(self, antisymmetric: bool) -> str:
        """Which games a solve skips, as its summary says it."""
        if antisymmetric:
            return "antisymmetric halves skipped"
        return "every pattern: a chooser of the prizes breaks the antisymmetry"


class _Win(GameObjective):
    """P(win) - P(loss), the state carrying my lead."""

    name = "win"
    has_lead = True
    units = "P(win) - P(loss) for me"
    subgames_words = "canonical subgames (pattern, prizes, lead), undecided and reachable"
    summary_encloses_start = False

    def largest_value(self, n: int) -> float:
        return 1.0  # a sure win

    def check_position_lead(self, lead, n: int, deck, handicap: int) -> int | None:
        """0 by default, else an integer |lead| <= the prizes played plus ``handicap``.

        >>> WIN.check_position_lead(None, 3, {1, 2}, 0), WIN.check_position_lead(3, 3, {1, 2}, 0)
        (0, 3)
        """
        lead = 0 if lead is None else lead
        if isinstance(lead, bool) or not isinstance(lead, int):
            try:
                if int(lead) != lead or isinstance(lead, bool):
                    raise ValueError
                lead = int(lead)
            except (TypeError, ValueError, OverflowError):
                raise GopsInputError(f"the lead must be an integer, got {lead!r}") from None
        played = prize_total(n) - sum(deck)
        bound = played + handicap
        if abs(lead) > bound:
            extra = f" plus a handicap of {handicap}" if handicap else ""
            raise GopsInputError(
                f"a lead of {lead} is impossible here: {played} points of prizes have been "
                f"played{extra}, so |lead| <= {bound} (solve with a larger handicap for more)"
            )
        return lead

    def decided(self, deck, lead) -> int | None:
        """sign(lead) when the lead exceeds the points left, else None (undecided).

        >>> WIN.decided({1, 2}, -4), WIN.decided({1, 2}, 3)
        (-1, None)
        """
        return (lead > 0) - (lead < 0) if abs(lead) > sum(deck) else None

    def position_handicap(self, n: int, lead, deck) -> int:
        """The part of |lead| that the prizes already played cannot explain (a lead they
        explain needs none), as ``gops strategy --lead`` solves it.

        >>> WIN.position_handicap(5, 4, {4, 5}), WIN.position_handicap(5, -9, {3, 4, 5})
        (0, 6)
        """
        return max(0, abs(lead) - (prize_total(n) - sum(deck)))

    def skipped_words(self, antisymmetric: bool) -> str:
        halves = "antisymmetric halves, " if antisymmetric else ""
        return f"{halves}sure wins and sure losses skipped"


class GameArithmetic(_Named):
    """The numbers a game is solved in: float64 with certified radii (this class)."""

    what = "arithmetic"
    name = "float"
    #: Whether the values are exact rationals (a radius of 0, no float kernel).
    exact = False


class _Rational(GameArithmetic):
    """Exact rationals."""

    name = "rational"
    exact = True


POINTS, WIN = GameObjective(), _Win()
FLOAT, RATIONAL = GameArithmetic(), _Rational()

#: The objectives and arithmetics by name (the parsers' tables; the click choices).
OBJECTIVES: dict[str, GameObjective] = {o.name: o for o in (POINTS, WIN)}
ARITHMETICS: dict[str, GameArithmetic] = {a.name: a for a in (FLOAT, RATIONAL)}


def _named(table: dict, value, kind: type, what: str):
    if isinstance(value, kind):
        return value
    try:
        return table[value]
    except (KeyError, TypeError):
        raise GopsInputError(
            f"unknown {what} {value!r} (choose from {', '.join(table)})"[:300]
        ) from None


def objective_named(name) -> GameObjective:
    """The objective called ``name`` (an objective is returned as it is); GopsInputError
    for any other name.

    >>> objective_named("draw")
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: unknown objective 'draw' (choose from points, win)
    """
    return _named(OBJECTIVES, name, GameObjective, "objective")


def arithmetic_named(name) -> GameArithmetic:
    """The arithmetic called ``name`` (an arithmetic is returned as it is)."""
    return _named(ARITHMETICS, name, GameArithmetic, "arithmetic")


def check_lead(n: int, lead, what: str = "the lead", signed: bool = True) -> int:
    """``lead`` if it is an integer with |lead| <= N(N+1)/2, else a one-line GopsInputError.

    The one rule for a lead and a handicap (``signed=False``, >= 0), of the API, the web
    query and ``gops solve|table|strategy --lead``: nobody can be more than all the prizes
    ahead, and from there on every position is decided.

    >>> check_lead(3, -6)
    -6
    >>> check_lead(3, 7, "--lead")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: --lead must be between -6 and 6 for 3-card GOPS (its prizes
    are worth 6 points in all), got 7
    """
    total = prize_total(n)
    low = -total if signed else 0
    if isinstance(lead, bool) or not isinstance(lead, int) or not low <= lead <= total:
        raise GopsInputError(
            f"{what} must be between {low} and {total} for {n}-card GOPS "
            f"(its prizes are worth {total} points in all), got {lead!r}"
        )
    return lead
