"""An exact equilibrium of imperfect-information Goofspiel as its solvers return it.

Both exact solvers of the sequence-form LP, the dense one of :mod:`exact.imperfect.exact_lp`
and the one over the tables of :mod:`exact.imperfect.exact_tables`, return an
:class:`Equilibrium`: the game's exact value, both realization plans and their behaviour
strategies, p(a | I) = x[I a] / x[parent(I)] (Koller, Megiddo & von Stengel 1996;
uniform where the player's own earlier bids never reach I: :func:`plans_policy`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from exact.imperfect.game import ImperfectGame
from exact.imperfect.policy import Distribution, Policy
from exact.imperfect.sequence_form import PlayerSequences, SequenceForm

__all__ = ["Equilibrium", "plan_policy", "plans_policy"]


def plan_policy(form: SequenceForm, plans: tuple[list[Fraction], list[Fraction]]) -> Policy:
    """The behaviour strategies of the plans (:func:`plans_policy`) of ``form``'s game."""
    return plans_policy(form.game, form.players, plans)


def plans_policy(
    game: ImperfectGame,
    players: tuple[PlayerSequences, PlayerSequences],
    plans: tuple[list[Fraction], list[Fraction]],
) -> Policy:
    """The behaviour strategies of the plans: p(a | I) = x[I a] / x[parent(I)], uniform
    where the player's own earlier bids never reach I (Koller et al. 1996)."""
    tables: tuple[dict, dict] = ({}, {})
    for player, plan in enumerate(plans):
        seqs = players[player]
        for k, decision in enumerate(seqs.decisions):
            reach, first = plan[seqs.parents[k]], seqs.first[k]
            cards = [a + 1 for a in decision.legal]
            if reach == 0:
                probabilities = [Fraction(1, len(cards))] * len(cards)
            else:
                probabilities = [plan[first + j] / reach for j in range(len(cards))]
            distribution: Distribution = tuple(zip(cards, probabilities))
            tables[player][decision.key] = distribution
    return Policy(game, "sequence-form LP", tables)


@dataclass(frozen=True)
class Equilibrium:
    """An exact equilibrium: ``value`` is player 0's (OpenSpiel's units), ``plans`` the
    realization plans, ``policy`` their behaviour strategies, ``seconds`` per step,
    ``method`` how it was found (a sentence that names the solver and its sources)."""

    game: ImperfectGame
    value: Fraction
    plans: tuple[list[Fraction], list[Fraction]]
    policy: Policy
    sizes: dict
    seconds: dict
    method: str

    def policy_json(self) -> dict:
        """The policy file: {information-state string: {action id: "p/q"}}."""
        data = {}
        for player in (0, 1):
            for decision in self.game.information_states(player):
                data[decision.string] = {
                    str(card - 1): f"{p.numerator}/{p.denominator}"
                    for card, p in self.policy.probabilities(player, decision.key)
                }
        return data

    def to_json(self) -> dict:
        return {
            "n": self.game.n,
            "order": self.game.order.name,
            "objective": self.game.objective.name,
            "value": str(self.value),
            "value_float": float(self.value),
            "units": self.game.units,
            "method": self.method,
            "sizes": self.sizes,
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "openspiel_game": self.game.openspiel_parameters(),
        }
