"""GameSpec: which game is being solved, described once, checked once, passed whole.

A game of GOPS to solve is N (cards per suit), the objective (``points``: the expected
point difference of Rhoads & Bartholdi 2012; ``win``: P(win) - P(loss)), who orders the
prizes (:mod:`exact.game.orders`), the handicap (win only: the largest |lead| at the start
that is solved for; 0 for the real game) and the arithmetic (``float`` or ``rational``).
The objective, the order and the arithmetic are objects (:mod:`exact.game.objectives`,
:mod:`exact.game.orders`) that own what differs between them.  The boundaries (the
command line, the web API, ``exact.solve``) parse their arguments into one frozen GameSpec
with :meth:`GameSpec.parse`; everything below takes the GameSpec and never compares or
re-validates names.  A store's manifest and a cluster task carry it as :meth:`to_json`
(names, as strings).

>>> spec = GameSpec.parse(8, objective="win", order="descending")
>>> spec
GameSpec(n=8, objective='win', order='descending', handicap=0, arithmetic='float')
>>> GameSpec.from_json(spec.to_json()) == spec
True
>>> GameSpec.parse(8, objective="points", handicap=2)
Traceback (most recent call last):
...
exact.errors.GopsInputError: a lead or handicap applies to the win objective only
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from exact.errors import GopsInputError
from exact.game.objectives import (
    FLOAT,
    POINTS,
    GameArithmetic,
    GameObjective,
    arithmetic_named,
    check_lead,
    objective_named,
)
from exact.game.orders import RANDOM, PrizeOrder, mirrored, order_named
from exact.limits import ENCODING_MAX_N, check_n


@dataclass(frozen=True)
class GameSpec:
    """One game to solve (module docstring).  Build it with :meth:`parse` (which checks
    every field); the fields are then valid by construction."""

    n: int
    objective: GameObjective = POINTS
    order: PrizeOrder = RANDOM
    handicap: int = 0
    arithmetic: GameArithmetic = FLOAT

    def __repr__(self) -> str:
        return (
            f"GameSpec(n={self.n}, objective={self.objective.name!r}, "
            f"order={self.order.name!r}, handicap={self.handicap}, "
            f"arithmetic={self.arithmetic.name!r})"
        )

    @classmethod
    def parse(
        cls, n, objective="points", order="random", handicap=0, arithmetic="float"
    ) -> GameSpec:
        """The GameSpec of these arguments, each checked (one-line GopsInputError): N an
        integer the encoding holds (1..16; each command has its own tighter limit,
        :mod:`exact.limits`), a known objective, order and arithmetic, and a handicap that
        is an integer from 0 to all the prize points, for the win objective only.  The
        objective, order and arithmetic are names or the objects themselves."""
        objective = objective_named(objective)
        arithmetic = arithmetic_named(arithmetic)
        if isinstance(handicap, bool) or not isinstance(handicap, int) or handicap < 0:
            raise GopsInputError(f"the handicap must be an integer >= 0, got {handicap!r}")
        if handicap and not objective.has_lead:
            raise GopsInputError("a lead or handicap applies to the win objective only")
        n = check_n(n, ENCODING_MAX_N)
        check_lead(n, handicap, "the handicap", signed=False)
        return cls(n, objective, order_named(order), handicap, arithmetic)

    @property
    def has_lead(self) -> bool:
        """Whether a state carries the lead (the win objective: P(win) - P(loss) depends
        on the points so far)."""
        return self.objective.has_lead

    def replace(self, **changes) -> GameSpec:
        """This spec with some fields changed, checked again by :meth:`parse`.

        >>> GameSpec.parse(5).replace(arithmetic="rational").arithmetic.name
        'rational'
        """
        fields = {
            "n": self.n,
            "objective": self.objective,
            "order": self.order,
            "handicap": self.handicap,
            "arithmetic": self.arithmetic,
        } | changes
        return GameSpec.parse(**fields)

    def mirrored(self) -> GameSpec:
        """The game as the other player sees it: who chooses the prizes is swapped
        (:func:`exact.game.orders.mirrored`), the rest is the same game.

        >>> GameSpec.parse(6, order="controlled-by-me").mirrored().order.name
        'controlled-by-them'
        """
        return dataclasses.replace(self, order=order_named(mirrored(self.order.name)))

    def covers(self, other: GameSpec) -> bool:
        """Whether a solution of this spec answers every question about ``other``: the
        same game solved for at least its starting leads (a larger handicap).

        >>> win = GameSpec.parse(5, objective="win")
        >>> win.replace(handicap=3).covers(win), win.covers(win.replace(handicap=3))
        (True, False)
        """
        return (
            dataclasses.replace(self, handicap=other.handicap) == other
            and self.handicap >= other.handicap
        )

    def to_json(self) -> dict:
        """The spec as JSON-ready data (a store's manifest, a cluster task, a cache key)."""
        return {
            "n": self.n,
            "objective": self.objective.name,
            "order": self.order.name,
            "handicap": self.handicap,
            "arithmetic": self.arithmetic.name,
        }

    @classmethod
    def from_json(cls, data) -> GameSpec:
        """The spec of :meth:`to_json`'s data; a missing order or handicap is the paper's
        game (random order, no handicap).  GopsInputError for anything else."""
        if not isinstance(data, dict) or not isinstance(data.get("n"), int):
            raise GopsInputError(f"not a game description: {data!r}"[:200])
        return cls.parse(
            data["n"],
            data.get("objective"),
            data.get("order", "random"),
            data.get("handicap", 0),
            data.get("arithmetic"),
        )

    def command_flags(self) -> str:
        """N and the options of ``gops solve`` that make this game (defaults left out).

        >>> GameSpec.parse(9, objective="win", order="descending").command_flags()
        '9 --objective win --order descending'
        """
        text = f"{self.n}"
        if self.objective is not POINTS:
            text += f" --objective {self.objective.name}"
        if self.order is not RANDOM:
            text += f" --order {self.order.name}"
        return text

    def describe(self) -> str:
        """The spec in a few words, as the command line writes it.

        >>> GameSpec.parse(13, objective="win", order="ascending").describe()
        'N=13 objective=win order=ascending'
        """
        text = f"N={self.n} objective={self.objective.name}"
        if self.order is not RANDOM:
            text += f" order={self.order.name}"
        if self.handicap:
            text += f" handicap={self.handicap}"
        return text
