"""Policies of imperfect-information Goofspiel: what a player bids at each decision.

A :class:`Policy` maps each decision of each player (an :data:`~exact.imperfect.game.InfoKey`)
to exact probabilities of its legal bids.  It is built, and checked, at the boundary:

- :func:`uniform_policy`: every legal bid equally likely (exactly 1/k), built on demand;
- :mod:`exact.imperfect.policy_file`: the policy file, a JSON object
  {information-state string of OpenSpiel's turn-based goofspiel(imp_info=True):
  {action id as a string (card - 1): probability}}; a probability is a JSON number (a
  float, taken at its exact binary value) or a string "p/q" (exact);
- :func:`policy_from_openspiel`: an OpenSpiel ``TabularPolicy`` (read from its tables) or
  any pyspiel policy object (asked ``action_probabilities(state, player)`` at one
  turn-based state of each decision).

The checks (each a one-line GopsInputError naming the state): a state that is not a
decision of this game, an action that is not a legal bid there, a negative or non-finite
probability, probabilities that do not sum to 1 (exactly when every one is exact, within
:data:`PROBABILITY_TOLERANCE` when one is a float), and a decision the policy does not
cover, unless ``fill_uniform`` (then it bids uniformly there).  A policy whose float
probabilities sum to 1 only within the tolerance is used as given, not renormalised (as
OpenSpiel uses it).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from fractions import Fraction

from exact.errors import GopsInputError
from exact.imperfect.game import ImperfectGame, InfoKey, InformationState

__all__ = [
    "PROBABILITY_TOLERANCE",
    "Policy",
    "policy_from_openspiel",
    "uniform_policy",
]

#: How far from 1 the probabilities of a decision may sum when one of them is a float.
PROBABILITY_TOLERANCE = 1e-9

#: A decision's bids and their probabilities: ((card, probability), ...), cards ascending.
Distribution = tuple[tuple[int, Fraction], ...]


class Policy:
    """Both players' probabilities, by decision: ``probabilities(player, key)``.  A table
    built from an OpenSpiel policy or a solver's equilibrium, or a rule (``uniform``)
    applied on demand; a policy file's is :class:`exact.imperfect.policy_file.FilePolicy`."""

    #: Both players' float tables (:func:`exact.imperfect.tables.policy_arrays`) where the
    #: policy was read straight into them, else None (built from ``probabilities``).
    arrays: tuple | None = None

    def __init__(
        self,
        game: ImperfectGame,
        name: str,
        tables: tuple[dict[InfoKey, Distribution], dict[InfoKey, Distribution]] | None,
    ):
        self.game, self.name, self.tables = game, name, tables

    def probabilities(self, player: int, key: InfoKey) -> Distribution:
        if self.tables is None:
            return uniform_distribution(self.game.n, key[1])
        return self.tables[player][key]


def uniform_distribution(n: int, own: Iterable[int]) -> Distribution:
    hand = sorted(set(range(1, n + 1)) - set(own))
    return tuple((card, Fraction(1, len(hand))) for card in hand)


def uniform_policy(game: ImperfectGame) -> Policy:
    """Every legal bid equally likely, at every decision."""
    return Policy(game, "uniform", None)


def _where(info: InformationState | str) -> str:
    string = info.string if isinstance(info, InformationState) else info
    return f"state {json.dumps(string)}"


def _probability(value, where: str) -> tuple[Fraction, bool]:
    """(the probability, whether it was given exactly)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise GopsInputError(f"{where}: probability {value!r} is not a number or a 'p/q' string")
    if isinstance(value, float) and not math.isfinite(value):
        raise GopsInputError(f"{where}: probability {value!r} is not finite")
    try:
        exact = Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise GopsInputError(f"{where}: probability {value!r} is not a number") from None
    if exact < 0:
        raise GopsInputError(f"{where}: probability {value!r} is negative")
    return exact, not isinstance(value, float)


def checked_distribution(info: InformationState, probabilities: dict) -> Distribution:
    """{action id: probability} of a decision, checked (module docstring)."""
    where = _where(info)
    chosen: dict[int, Fraction] = {}
    all_exact = True
    for action, value in probabilities.items():
        if action not in info.legal:
            raise GopsInputError(
                f"{where}: action {action!r} is not a legal bid there "
                f"(legal: {', '.join(map(str, info.legal))})"
            )
        chosen[action], exact = _probability(value, where)
        all_exact = all_exact and exact
    total = sum(chosen.values(), Fraction(0))
    if total != 1 and (all_exact or abs(total - 1) > PROBABILITY_TOLERANCE):
        how = "exactly" if all_exact else f"within {PROBABILITY_TOLERANCE:g}"
        raise GopsInputError(f"{where}: the probabilities sum to {float(total)!r}, not {how} 1")
    return tuple((a + 1, chosen.get(a, Fraction(0))) for a in info.legal)


def _build(
    game: ImperfectGame,
    name: str,
    given: Callable[[InformationState], dict | None],
    fill_uniform: bool,
) -> Policy:
    """A table from ``given(info)`` ({action id: probability}, or None where the policy
    says nothing) at every decision of both players."""
    tables: tuple[dict[InfoKey, Distribution], dict[InfoKey, Distribution]] = ({}, {})
    for player in (0, 1):
        for info in game.information_states(player):
            probabilities = given(info)
            if probabilities is None:
                if not fill_uniform:
                    raise GopsInputError(
                        f"the policy has no {_where(info)} (fill_uniform / --fill-uniform "
                        "bids uniformly where it has none)"
                    )
                tables[player][info.key] = uniform_distribution(game.n, info.key[1])
            else:
                tables[player][info.key] = checked_distribution(info, probabilities)
    return Policy(game, name, tables)


def _pyspiel():
    try:
        import pyspiel  # open_spiel: an optional dependency (pip install gops-exact[openspiel])
    except ImportError:
        raise GopsInputError(
            "an OpenSpiel policy needs open_spiel: pip install gops-exact[openspiel]"
        ) from None
    return pyspiel


def openspiel_game(game: ImperfectGame):
    """OpenSpiel's turn-based goofspiel(imp_info=True) of ``game``."""
    pyspiel = _pyspiel()
    return pyspiel.convert_to_turn_based(
        pyspiel.load_game("goofspiel", game.openspiel_parameters())
    )


def policy_from_openspiel(game: ImperfectGame, policy, fill_uniform: bool = False) -> Policy:
    """An OpenSpiel policy of the turn-based game: a ``TabularPolicy`` is read from its
    tables (``state_lookup``, ``action_probability_array``); any other policy is asked
    ``action_probabilities(state, player)`` at one state of each decision (the state
    reached by :attr:`InformationState.history`)."""
    lookup = getattr(policy, "state_lookup", None)
    array = getattr(policy, "action_probability_array", None)
    if lookup is not None and array is not None:

        def given(info: InformationState) -> dict | None:
            row = lookup.get(info.string)
            if row is None:
                return None
            return {a: float(p) for a, p in enumerate(array[row]) if p != 0 or a in info.legal}

        return _build(game, type(policy).__name__, given, fill_uniform)
    turn_based = openspiel_game(game)

    def asked(info: InformationState) -> dict | None:
        state = turn_based.new_initial_state()
        for action in info.history:
            state.apply_action(action)
        answer = policy.action_probabilities(state, info.player)
        return {int(a): float(p) for a, p in answer.items()}

    return _build(game, type(policy).__name__, asked, fill_uniform)
