"""A ``pyspiel.Bot`` that plays an equilibrium of imperfect-information Goofspiel in
OpenSpiel: the shipped equilibrium of the game (:mod:`exact.imperfect.shipped`) or any
policy file (:mod:`exact.imperfect.policy_file`).

The bot reads the game from the pyspiel game's own parameters (``num_cards``,
``points_order``, ``returns_type``; ``imp_info`` must be true), in its simultaneous form
or its turn-based conversion, and at each of its decisions samples its bid from the
policy at its information state (the turn-based string, "Current player: P" and the
game's own string).  Exact probabilities are played as their nearest floats.

>>> import numpy as np, pyspiel
>>> from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
>>> game = pyspiel.load_game("goofspiel", {"num_cards": 4, "imp_info": True,
...                                        "points_order": "descending"})
>>> bots = [equilibrium_bot(game, 0, seed=1), equilibrium_bot(game, 1, seed=2)]
>>> returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
>>> sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from exact.errors import GopsInputError
from exact.imperfect.game import ImperfectGame
from exact.imperfect.policy_file import FilePolicy, StateReader, load_policy_file
from exact.imperfect.shipped import load_shipped
from exact.imperfect.tables import layout

__all__ = ["equilibrium_bot", "imperfect_game_of"]


def _pyspiel():
    try:
        import pyspiel  # open_spiel: an optional dependency (pip install gops-exact[openspiel])
    except ImportError:
        raise GopsInputError(
            "the OpenSpiel bot needs open_spiel: pip install gops-exact[openspiel]"
        ) from None
    return pyspiel


def imperfect_game_of(pyspiel_game) -> ImperfectGame:
    """The :class:`ImperfectGame` of a pyspiel goofspiel game (or its turn-based
    conversion), from its parameters; a one-line GopsInputError for any other game."""
    params = pyspiel_game.get_parameters()
    params = params.get("game", params)
    if params.get("name", "goofspiel") != "goofspiel" or not params.get("imp_info", False):
        raise GopsInputError("the bot plays goofspiel with imp_info=True")
    if params.get("players", 2) != 2 or params.get("num_turns", -1) != -1:
        raise GopsInputError("the bot plays the two-player game of every round")
    objective = {"point_difference": "points", "win_loss": "win"}.get(params["returns_type"])
    if objective is None:
        raise GopsInputError(
            f"the bot has no equilibrium for returns_type {params['returns_type']}"
        )
    return ImperfectGame.parse(params["num_cards"], params["points_order"], objective)


def equilibrium_bot(pyspiel_game, player_id: int, policy_file=None, seed: int | None = None):
    """A pyspiel Bot for ``player_id`` that plays the shipped equilibrium of the game
    (or the policy in ``policy_file``), sampling with ``numpy.random.default_rng(seed)``."""
    pyspiel = _pyspiel()
    game = imperfect_game_of(pyspiel_game)
    if policy_file is None:
        policy = load_shipped(game).policy
    else:
        policy = load_policy_file(game, policy_file)
    assert isinstance(policy, FilePolicy)
    sigmas = policy.sigmas
    reader = StateReader(game, layout(game))
    rng = np.random.default_rng(seed)
    base: Any = pyspiel.Bot

    class EquilibriumBot(base):
        """Plays ``policy`` for ``player_id`` (module docstring)."""

        def __init__(self):
            pyspiel.Bot.__init__(self)

        def _distribution(self, state) -> list[tuple[int, float]]:
            string = state.information_state_string(player_id)
            if not string.startswith("Current player:"):
                string = f"Current player: {player_id}\n{string}"
            player, row, legal = reader.row(string)
            sigma = sigmas[player][row]
            return [(card - 1, float(sigma[card - 1])) for card in sorted(legal.values())]

        def step_with_policy(self, state):
            distribution = self._distribution(state)
            actions = [a for a, _ in distribution]
            weights = np.array([p for _, p in distribution])
            action = int(rng.choice(actions, p=weights / weights.sum()))
            return distribution, action

        def step(self, state):
            return self.step_with_policy(state)[1]

        def provides_policy(self):
            return True

        def restart_at(self, state):
            pass

        def inform_action(self, state, player, action):
            pass

        def inform_actions(self, state, actions):
            pass

    return EquilibriumBot()
