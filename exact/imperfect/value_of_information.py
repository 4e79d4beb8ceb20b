"""The value of seeing the opponent's bids in imperfect-information Goofspiel.

In OpenSpiel's ``goofspiel(imp_info=True)`` a player sees who won each round, never the
opponent's bids; the "Psychological JuJitsu" rules write-up leaves used bid cards face
up.  The asymmetric game in which one player sees the opponent's past bids and the other
sees only who won (:class:`~exact.imperfect.game.Information`) is solved exactly by the
sequence-form LP (Koller, Megiddo & von Stengel 1996; :mod:`exact.imperfect.exact_lp`),
and so is the symmetric imp_info game:

- ``values[model]`` is player 0's exact equilibrium value of the game with that
  information model (OpenSpiel's units: points is half the point difference);
- the seeing player's value is ``values["p0-sees-bids"]`` (player 0 sees) and
  ``-values["p1-sees-bids"]`` (player 1 sees); the two are equal because the bids are
  simultaneous (the turn-based conversion hides player 0's pending bid): checked, not
  assumed (:attr:`ValueOfInformation.symmetric`);
- the value of seeing the bids is the seeing player's value minus the imp_info game's
  value for the same player; the imp_info value is 0 by the players' symmetry, and is
  solved rather than assumed.

Where the exact step takes too long, :func:`value_bounds` proves an interval instead:
HiGHS's float equilibrium plans, turned into behaviour strategies (negative entries
dropped, each decision's probabilities divided by their sum, every float read at its
exact binary value), are exact strategies; the best-response values against them
(:func:`~exact.imperfect.exact_lp.best_response_value`, exact rationals) bound the value
from below (what player 0's strategy guarantees) and above (what player 1's concedes).

Seeing can only help: the seeing player can ignore what it sees, so the seeing player's
value is at least the imp_info value (each an exact number, compared exactly).

First moves: the first round's mix for each first prize ("upcard") of the
perfect-information equilibrium (both players see the bids: :mod:`exact.dp`'s exact
matrix-game solution, Rhoads & Bartholdi 2012), of the imp_info equilibrium, and of the
asymmetric game's seeing and blind players; each compared with the perfect-information
mix by total variation distance, 1/2 sum_c |p(c) - q(c)|, exact.  Equilibria need not be
unique: the mixes are those of the equilibria computed (the LP's vertex that HiGHS's dual
simplex finds, made exact; :mod:`exact.dp`'s exact matrix-game solver), and a distance
compares those two equilibria, not the sets of all equilibria.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from exact.dp.solve import solve as solve_perfect
from exact.errors import GopsInputError
from exact.imperfect.exact_lp import (
    Equilibrium,
    best_response_value,
    float_vertex,
    lp_rows,
    transpose,
)
from exact.imperfect.exact_lp import solve as solve_lp
from exact.imperfect.game import ImperfectGame
from exact.imperfect.sequence_form import PlayerSequences, sequence_form

__all__ = [
    "MODELS",
    "VOI_MAX_N",
    "FirstMove",
    "ValueOfInformation",
    "first_mix",
    "total_variation",
    "value_bounds",
    "value_of_information",
    "value_of_information_bounds",
]

#: The information models solved: the symmetric game and the seeing player on each side.
MODELS = ("imp_info", "p0-sees-bids", "p1-sees-bids")
#: The largest N solved exactly, by prize order (the exact step's basis system grows with
#: the seeing player's sequences: 8,506 at N = 5 descending, 938,026 at N = 5 random).
VOI_MAX_N = {"descending": 5, "ascending": 5, "random": 4}
VOI_BEYOND = {
    "random": "N = 5 has 938,026 sequences and 456,505 decisions for the seeing player: "
    "the exact step's dense basis matrix alone would need about 1.5 TiB",
    "descending": "N = 6 has 306,187 sequences for the seeing player",
    "ascending": "N = 6 has 306,187 sequences for the seeing player",
}

Mix = dict[int, Fraction]


def total_variation(p: Mix, q: Mix) -> Fraction:
    """1/2 sum over cards of |p(c) - q(c)| (a card missing from a mix has probability 0).

    >>> total_variation({1: Fraction(1)}, {1: Fraction(1, 2), 2: Fraction(1, 2)})
    Fraction(1, 2)
    """
    cards = set(p) | set(q)
    zero = Fraction(0)
    return sum((abs(p.get(c, zero) - q.get(c, zero)) for c in cards), zero) / 2


def first_mix(equilibrium: Equilibrium, player: int, upcard: int) -> Mix:
    """``player``'s first-round mix in ``equilibrium`` once ``upcard`` is turned up."""
    key = ((upcard,), (), ())
    return dict(equilibrium.policy.probabilities(player, key))


@dataclass(frozen=True)
class FirstMove:
    """The first-round mixes for one upcard and their distances to the perfect one."""

    upcard: int
    perfect: Mix
    imp_info: Mix
    seeing: Mix
    blind: Mix

    def distances(self) -> dict[str, Fraction]:
        """Total variation distance of each mix from the perfect-information one."""
        return {
            name: total_variation(self.perfect, mix)
            for name, mix in (
                ("imp_info", self.imp_info),
                ("seeing", self.seeing),
                ("blind", self.blind),
            )
        }

    def to_json(self) -> dict:
        def text(mix: Mix) -> dict[str, str]:
            return {str(c): str(p) for c, p in sorted(mix.items())}

        return {
            "upcard": self.upcard,
            "perfect": text(self.perfect),
            "imp_info": text(self.imp_info),
            "seeing": text(self.seeing),
            "blind": text(self.blind),
            "total_variation_from_perfect": {k: str(v) for k, v in self.distances().items()},
        }


@dataclass(frozen=True)
class ValueOfInformation:
    """What seeing the opponent's bids is worth (module docstring); ``values`` by
    information model, player 0's, exact; ``equilibria`` the LP solutions."""

    game: ImperfectGame
    values: dict[str, Fraction]
    equilibria: dict[str, Equilibrium]
    first_moves: tuple[FirstMove, ...]
    seconds: dict[str, float]

    @property
    def seeing_value(self) -> Fraction:
        """The seeing player's value when it is player 0."""
        return self.values["p0-sees-bids"]

    @property
    def symmetric(self) -> bool:
        """The seeing player's value is the same on either side."""
        return self.values["p1-sees-bids"] == -self.seeing_value

    @property
    def value_of_seeing(self) -> Fraction:
        """The seeing player's value minus the imp_info game's value for that player."""
        return self.seeing_value - self.values["imp_info"]

    def to_json(self) -> dict:
        game = self.game
        return {
            "n": game.n,
            "order": game.order.name,
            "objective": game.objective.name,
            "units": game.units,
            "values": {k: str(v) for k, v in self.values.items()},
            "seeing_player_value": str(self.seeing_value),
            "value_of_seeing": str(self.value_of_seeing),
            "value_of_seeing_float": float(self.value_of_seeing),
            "seeing_value_same_on_both_sides": self.symmetric,
            "first_moves": [move.to_json() for move in self.first_moves],
            "method": "sequence-form LP (Koller, Megiddo & von Stengel 1996) per information "
            "model, exact and verified; perfect-information first moves by exact.solve "
            "(rational); equilibria are the ones computed, not unique in general",
            "sizes": {k: eq.sizes for k, eq in self.equilibria.items()},
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
        }


def check_size(game: ImperfectGame) -> None:
    """One-line GopsInputError beyond :data:`VOI_MAX_N` (what the next size needs)."""
    high = VOI_MAX_N[game.order.name]
    if game.n > high:
        raise GopsInputError(
            f"N must be at most {high} for the value of information in the "
            f"{game.order.name} order ({VOI_BEYOND[game.order.name]}), got {game.n}"
        )


def perfect_first_moves(game: ImperfectGame) -> dict[int, Mix]:
    """{upcard: mix} of the perfect-information game's exact first-round equilibrium."""
    solution = solve_perfect(game.n, game.objective, "rational", order=game.order.name)
    return {
        u: {c: Fraction(p) for c, p in mix.items()}
        for u, mix in solution.first_move_table().items()
    }


def value_of_information(
    n, order="random", objective="points", progress=None
) -> ValueOfInformation:
    """Solve the imp_info game and the asymmetric games (module docstring), exactly.
    ``progress(message)``, when given, hears of each solve before it starts."""
    game = ImperfectGame.parse(n, order, objective)
    check_size(game)
    equilibria, values, seconds = {}, {}, {}
    for model in MODELS:
        if progress is not None:
            progress(f"solving the {model} game")
        start = time.perf_counter()
        equilibria[model] = solve_lp(ImperfectGame.parse(n, order, objective, model))
        values[model] = equilibria[model].value
        seconds[model] = time.perf_counter() - start
    start = time.perf_counter()
    perfect = perfect_first_moves(game)
    seconds["perfect_first_moves"] = time.perf_counter() - start
    moves = tuple(
        FirstMove(
            u,
            perfect[u],
            first_mix(equilibria["imp_info"], 0, u),
            first_mix(equilibria["p0-sees-bids"], 0, u),
            first_mix(equilibria["p0-sees-bids"], 1, u),
        )
        for u in sorted(perfect)  # the first prizes the order can turn up
    )
    return ValueOfInformation(game, values, equilibria, moves, seconds)


def float_behaviour_plan(seqs: PlayerSequences, z) -> list[Fraction]:
    """The exact realization plan of the behaviour strategy read off a float plan ``z``:
    at each decision, max(z, 0) of its bids divided by their sum (uniform where the sum
    is 0), each probability the float's exact value; reach multiplied down the tree."""
    plan = [Fraction(0)] * seqs.size
    plan[0] = Fraction(1)
    for k, decision in enumerate(seqs.decisions):
        first, width = seqs.first[k], len(decision.legal)
        weights = [Fraction(max(float(z[first + j]), 0.0)) for j in range(width)]
        total = sum(weights, Fraction(0))
        for j in range(width):
            p = weights[j] / total if total else Fraction(1, width)
            plan[first + j] = plan[seqs.parents[k]] * p
    return plan


def value_bounds(game: ImperfectGame) -> tuple[Fraction, Fraction]:
    """(lower, upper), exact rationals with lower <= value of ``game`` <= upper, from
    HiGHS's float equilibrium (module docstring)."""
    form = sequence_form(game)
    seqs0, seqs1 = form.players
    plans = []
    for payoff, own, other in ((form.payoff, seqs0, seqs1), (transpose(form.payoff), seqs1, seqs0)):
        ub, _, eq, e = lp_rows(payoff, own, other)
        _, f = other.constraints()
        z, _ = float_vertex(ub, eq, e, own.size, len(f), f)
        plans.append(float_behaviour_plan(own, z[: own.size]))
    lower = best_response_value(form, plans[0], 1)  # what player 0's strategy guarantees
    upper = best_response_value(form, plans[1], 0)  # the most player 1's concedes
    return lower, upper


def value_of_information_bounds(n, order="random", objective="points", progress=None) -> dict:
    """The proven intervals (:func:`value_bounds`) of the three games' values and of the
    value of seeing the bids, as JSON (exact endpoints as "p/q", floats rounded outward
    in the text only by the caller)."""
    game = ImperfectGame.parse(n, order, objective)
    check_size(game)
    bounds, seconds = {}, {}
    for model in MODELS:
        if progress is not None:
            progress(f"bounding the {model} game's value")
        start = time.perf_counter()
        bounds[model] = value_bounds(ImperfectGame.parse(n, order, objective, model))
        seconds[model] = round(time.perf_counter() - start, 3)
    seeing = (
        bounds["p0-sees-bids"][0] - bounds["imp_info"][1],
        bounds["p0-sees-bids"][1] - bounds["imp_info"][0],
    )
    return {
        "n": game.n,
        "order": game.order.name,
        "objective": game.objective.name,
        "values": {k: [str(lo), str(hi)] for k, (lo, hi) in bounds.items()},
        "values_float": {k: [float(lo), float(hi)] for k, (lo, hi) in bounds.items()},
        "value_of_seeing": [str(seeing[0]), str(seeing[1])],
        "value_of_seeing_float": [float(seeing[0]), float(seeing[1])],
        "method": "HiGHS's float equilibrium as exact behaviour strategies; the exact "
        "best-response values against them bound each value (lower, upper)",
        "seconds": seconds,
    }
