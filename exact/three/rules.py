"""Three-player GOPS with bids revealed each round: the game's parts as typed objects.

A position is three hands, the prizes not yet bid on and (for the ``top`` objective) the
points each player holds.  Each round a prize is turned up (:data:`ORDERS`), the three
players bid at once, the bids are shown and the prize is scored by the tie rule
(a :class:`~exact.game.ties.TieRule`, which scores it: :data:`TIE_RULES`):

``split``
    The "Psychological JuJitsu" rules write-up: a unique high bid takes the prize; "if
    there is a tie for high bid in a three-player game the diamond is placed between the
    two high bidders and they each get half value for it".  A three-way tie discards the
    prize (the write-up's four-player remark: "a three-way tie bid on every diamond, in
    which case everyone ends up at zero").
``third``
    The write-up's "rather nasty variant": "if there is a two-way tie for the high bid,
    the other player wins that diamond" (also with the lowest bid).  A three-way tie
    discards the prize, as under ``split``.
``discard``
    OpenSpiel's goofspiel (``DoApplyActions`` in ``open_spiel/games/goofspiel.cc``): a
    prize goes to the one highest bidder; any tie for the highest bid (two or three
    players) discards it.

Each part is a typed object of :mod:`exact.game` (the tie rule, the prize order
:class:`~exact.game.orders.PrizeOrder`, the objective), parsed once by
:meth:`ThreeGame.parse`; below it nothing compares a name.

Objectives (:data:`OBJECTIVES`): ``points``, each player's expected points (the game is
not zero-sum: a discarded prize scores for nobody); ``top``, each player's chance of
finishing with the most points, a tie at the top sharing the win equally (two tied
leaders get 1/2 each, three get 1/3).

>>> ThreeGame.parse(4, "third", "top", "random").describe()
'three-player GOPS, 4 cards, tie rule third, objective top, random prize order'
>>> ThreeGame.parse(4, "halves")
Traceback (most recent call last):
...
exact.errors.GopsInputError: unknown tie rule 'halves' (choose from split, third, discard)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from exact.errors import GopsInputError
from exact.game.objectives import POINTS, GameObjective, _Named
from exact.game.orders import ASCENDING, DESCENDING, RANDOM, PrizeOrder
from exact.game.ties import TIE_RULES, TieRule, tie_rule_named
from exact.limits import check_n

__all__ = [
    "OBJECTIVES",
    "ORDERS",
    "STAGE_GAMES",
    "TOP_STAGE_GAMES",
    "THREE_MAX_N",
    "TOP_MAX_N",
    "TIE_RULES",
    "TOP",
    "ThreeGame",
    "round_points",
    "three_objective_named",
]


class _Top(_Named):
    """The ``top`` objective: each player's chance of finishing with the most points."""

    what = "objective"
    name = "top"


#: The chance of finishing on top (module docstring).
TOP = _Top()
#: What each player maximises: expected points (:data:`exact.game.objectives.POINTS`), or
#: the chance of finishing on top (:data:`TOP`).
OBJECTIVES: dict[str, GameObjective | _Top] = {"points": POINTS, "top": TOP}
#: Who orders the prizes: chance (each remaining prize equally likely next), or the
#: smallest / the largest remaining prize next (OpenSpiel's ``points_order``).
ORDERS: dict[str, PrizeOrder] = {o.name: o for o in (RANDOM, ASCENDING, DESCENDING)}
#: The largest N accepted.  N = 5 solves in under a minute of CPU; N = 6 (73,590 stage
#: games) in 8-13 minutes of CPU per rule and under 500 MiB; N = 7 (917,616 stage games)
#: in hours, which ``--save`` carries across runs (its checkpoint resumes;
#: benchmarks/RESULTS.md, docs/three-players.md).
THREE_MAX_N = 7
#: The largest N of the ``top`` objective (positions carry the points so far: N = 6 is
#: 2,536,486 stage games under the split rule, hours of CPU; N = 7 would be tens of
#: millions).
TOP_MAX_N = 6
#: The stage games (canonical position and upcard) of the points objective with shuffled
#: prizes, by N, under every tie rule (its positions carry no points): counted by the
#: solves of benchmarks/RESULTS.md (N = 7 by the positions' count, not solved); the total
#: of a solve's progress bar.
STAGE_GAMES = {1: 1, 2: 8, 3: 63, 4: 584, 5: 6255, 6: 73590, 7: 917616}
#: The same for the top objective (its positions carry the points so far, so the tie rule
#: counts), by tie rule and N: N <= 5 counted by solves (benchmarks/RESULTS.md), N = 6 by
#: the induction's own recursion with each stage game left unsolved.
TOP_STAGE_GAMES = {
    "split": {1: 1, 2: 8, 3: 128, 4: 3110, 5: 93441, 6: 2536486},
    "third": {1: 1, 2: 8, 3: 108, 4: 2217, 5: 50838},
    "discard": {1: 1, 2: 8, 3: 114, 4: 2417, 5: 60991},
}


def three_objective_named(name) -> GameObjective | _Top:
    """The three-player objective called ``name`` (an objective is returned as it is)."""
    if name is POINTS or name is TOP:
        return name
    if isinstance(name, str) and name in OBJECTIVES:
        return OBJECTIVES[name]
    raise GopsInputError(f"unknown objective {name!r} (choose from {', '.join(OBJECTIVES)})")


def _three_order(name) -> PrizeOrder:
    order = (
        name
        if isinstance(name, PrizeOrder)
        else ORDERS.get(name)
        if isinstance(name, str)
        else None
    )
    if order is None or order not in ORDERS.values():
        raise GopsInputError(f"unknown prize order {name!r} (choose from {', '.join(ORDERS)})")
    return order


@dataclass(frozen=True)
class ThreeGame:
    """The three-player game to solve: N, tie rule, objective, prize order, each a typed
    object of :mod:`exact.game` (parsed once, by :meth:`parse`)."""

    n: int
    tie_rule: TieRule
    objective: GameObjective | _Top
    order: PrizeOrder

    @classmethod
    def parse(
        cls, n: object, tie_rule: object = "split", objective: object = "points", order="random"
    ) -> ThreeGame:
        """Every field checked (names or the objects): a bad one is a one-line
        GopsInputError."""
        objective = three_objective_named(objective)
        high = TOP_MAX_N if objective is TOP else THREE_MAX_N
        what = " for three players" + (" and the top objective" if objective is TOP else "")
        return cls(
            check_n(n, high=high, what=what),
            tie_rule_named(tie_rule),
            objective,
            _three_order(order),
        )

    @property
    def top(self) -> bool:
        """Whether positions carry the points so far (the ``top`` objective)."""
        return self.objective is TOP

    @property
    def value_words(self) -> str:
        """What a seat's value is, as a summary line says it."""
        return "chance of finishing on top" if self.top else "expected points"

    @property
    def stage_games(self) -> int | None:
        """How many stage games its solve solves, where known (:data:`STAGE_GAMES`,
        :data:`TOP_STAGE_GAMES`)."""
        if self.order is not RANDOM:
            return None
        if self.objective is POINTS:
            return STAGE_GAMES.get(self.n)
        return TOP_STAGE_GAMES.get(self.tie_rule.name, {}).get(self.n)

    def describe(self) -> str:
        return (
            f"three-player GOPS, {self.n} cards, tie rule {self.tie_rule.name}, objective "
            f"{self.objective.name}, {self.order.name} prize order"
        )

    def to_json(self) -> dict:
        return {
            "players": 3,
            "n": self.n,
            "tie_rule": self.tie_rule.name,
            "objective": self.objective.name,
            "order": self.order.name,
        }


def round_points(
    upcard: int, bids: tuple[int, int, int], tie_rule: TieRule
) -> tuple[Fraction, ...]:
    """Points of one round (only the order of the bids matters, so ranks do as well).

    >>> from exact.game.ties import DISCARD, SPLIT, THIRD
    >>> round_points(13, (13, 13, 1), THIRD)
    (Fraction(0, 1), Fraction(0, 1), Fraction(13, 1))
    >>> round_points(6, (5, 5, 1), DISCARD) == round_points(6, (5, 5, 5), SPLIT) == (0, 0, 0)
    True
    """
    return tie_rule.score(upcard, bids)


def top_shares(points: tuple) -> tuple[Fraction, Fraction, Fraction]:
    """Each player's share of the win at the end: 1/m to each of the m leaders."""
    best = max(points)
    leaders = [i for i, p in enumerate(points) if p == best]
    return tuple(Fraction(1, len(leaders)) if i in leaders else Fraction(0) for i in range(3))  # type: ignore[return-value]
