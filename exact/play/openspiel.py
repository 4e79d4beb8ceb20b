"""OpenSpiel interop (optional extra ``[openspiel]``): a Solution as an OpenSpiel policy.

OpenSpiel's ``goofspiel(num_cards=N, points_order=random, returns_type=point_difference,
imp_info=False)`` is this game (tied bids discard the prize); ``returns_type=win_loss`` is
the win objective, and ``points_order=ascending`` / ``descending`` are the known prize
orders of :mod:`exact.game.orders` (a solution solved with that order).  Its card actions
are 0-based bid indices (card = action + 1).  Note that OpenSpiel's ``point_difference``
return of a player is his points minus the average of both players' points, i.e. *half*
the point difference, so a NashConv measured in that game is in half-points.

OpenSpiel's policy tables file simultaneous-move states under player 0 only, so
:func:`solution_policy` serves the game wrapped by ``pyspiel.convert_to_turn_based`` (P0
bids, then P1 bids without seeing it), and reads each position from the underlying
simultaneous state: hands from its legal actions, the prizes, upcard and points from its
string (``P0 hand: ...``, ``Point card sequence: ...``, ``Points: a b``).

>>> import exact                                           # doctest: +SKIP
>>> from exact.play.openspiel import nash_conv                  # doctest: +SKIP
>>> nash_conv(exact.solve(4)) < 1e-9                       # doctest: +SKIP
True
"""

from __future__ import annotations

import re
from typing import Any

from exact.errors import GopsError, GopsInputError

INSTALL_HINT = "OpenSpiel is not installed: pip install 'gops-exact[openspiel]'"

_RETURNS_TYPE = {"points": "point_difference", "win": "win_loss"}


class OpenSpielMissingError(GopsError, ImportError):
    """The optional dependency open_spiel is not installed."""


def _pyspiel():
    try:
        import pyspiel  # open_spiel: an optional dependency (pip install gops-exact[openspiel])
    except ImportError:
        raise OpenSpielMissingError(INSTALL_HINT) from None
    return pyspiel


def _policy_module():
    _pyspiel()
    try:
        from open_spiel.python import policy  # open_spiel: an optional dependency
    except ImportError:
        raise OpenSpielMissingError(INSTALL_HINT) from None
    return policy


def _check_solution(solution) -> str:
    objective = getattr(getattr(solution, "objective", None), "name", None)
    if objective not in _RETURNS_TYPE:  # (a variant's solution has no objective)
        raise GopsInputError(f"no OpenSpiel game for the solution {solution!r}")
    if len(solution.levels) < solution.n:
        raise GopsInputError(
            f"the solution holds only {len(solution.levels) - 1} of the {solution.n} levels; "
            "an OpenSpiel policy needs the whole game (solve without top=)"
        )
    return objective


def goofspiel_game(
    n: int, objective: str = "points", turn_based: bool = True, order: str = "random"
):
    """OpenSpiel's goofspiel matching N-card GOPS for ``objective`` ("points" or "win")
    under the prize ``order`` (random, ascending or descending: OpenSpiel's points_order)."""
    pyspiel = _pyspiel()
    if objective not in _RETURNS_TYPE:
        raise GopsInputError(f"objective must be 'points' or 'win', got {objective!r}")
    if order not in ("random", "ascending", "descending"):
        raise GopsInputError(
            f"OpenSpiel's goofspiel has no prize order {order!r} (its "
            "points_order is random, ascending or descending)"
        )
    game = pyspiel.load_game(
        "goofspiel",
        {
            "num_cards": int(n),
            "points_order": order,
            "returns_type": _RETURNS_TYPE[objective],
            "imp_info": False,
        },
    )
    return pyspiel.convert_to_turn_based(game) if turn_based else game


_LINE = re.compile(r"^(P0 hand|P1 hand|Point card sequence|Points):(.*)$", re.M)


def position(state) -> tuple[list[set[int]], set[int], int, tuple[int, int]]:
    """(hands of P0 and P1, prizes left including the upcard, upcard, points of P0 and P1)
    at a decision state of goofspiel (simultaneous, or turn-based-converted)."""
    sim = state
    if not state.is_simultaneous_node():
        try:  # a turn-based-converted state: its wrapped simultaneous state
            sim = state.simultaneous_game_state()
        except (AttributeError, RuntimeError):
            pass  # older OpenSpiel: the wrapper's string holds the same lines
    fields = {k: [int(t) for t in v.split()] for k, v in _LINE.findall(sim.to_string())}
    try:
        hands = [set(fields["P0 hand"]), set(fields["P1 hand"])]
        sequence = fields["Point card sequence"]
        points = tuple(fields["Points"])
    except KeyError:
        raise GopsInputError("not a goofspiel state: " + sim.to_string()[:80]) from None
    # The hands are also the legal actions (card = action + 1): a cheap consistency check.
    players = (0, 1) if sim.is_simultaneous_node() else (sim.current_player(),)
    for p in players:
        legal = {a + 1 for a in sim.legal_actions(p)}
        if legal != hands[p]:
            raise GopsInputError(
                f"P{p}'s legal bids {sorted(legal)} differ from the hand "
                f"{sorted(hands[p])} in {sim.to_string()!r}"
            )
    if not sequence or len(points) != 2:
        raise GopsInputError("no upcard turned in this goofspiel state")
    n = len(hands[0]) + len(sequence) - 1
    upcard = sequence[-1]
    deck = set(range(1, n + 1)) - set(sequence[:-1])
    return hands, deck, upcard, (points[0], points[1])


def solution_policy(solution, game=None):
    """An OpenSpiel ``policy.Policy`` playing ``solution``'s equilibrium in ``game``.

    ``game`` defaults to the turn-based goofspiel of :func:`goofspiel_game`; a simultaneous
    game works too if the caller passes ``player_id``.  Equilibria are cached per position.
    """
    objective = _check_solution(solution)
    policy = _policy_module()
    if game is None:
        game = goofspiel_game(solution.n, objective, order=solution.order.name)
    win = solution.spec.has_lead

    class SolutionPolicy(policy.Policy):
        def __init__(self):
            super().__init__(game, [0, 1])
            self.solution = solution
            self._cache: dict = {}

        def action_probabilities(self, state, player_id=None):
            if player_id is None:
                player_id = state.current_player()
            if player_id not in (0, 1):
                raise GopsInputError(f"no policy at a state of player {player_id}")
            hands, deck, upcard, points = position(state)
            mine, theirs = frozenset(hands[player_id]), frozenset(hands[1 - player_id])
            lead = points[player_id] - points[1 - player_id]
            key = (mine, theirs, frozenset(deck), upcard, lead if win else 0)
            probs = self._cache.get(key)
            if probs is None:
                if win:
                    strat = solution.strategy(set(mine), set(theirs), deck, upcard, lead=lead)
                else:
                    strat = solution.strategy(set(mine), set(theirs), deck, upcard)
                probs = {card - 1: float(p) for card, p in strat.mine.items()}
                self._cache[key] = probs
            return dict(probs)

    return SolutionPolicy()


def mixed_with_uniform(policy, game, weight: float):
    """``policy`` mixed with the uniform policy: (1 - weight) p(a) + weight / (legal
    actions) at every state.  Mixing an equilibrium this way gives a policy that is neither
    optimal nor uniform (tests and benchmarks of NashConv)."""
    base: Any = _policy_module()  # open_spiel.python.policy, untyped

    class MixedWithUniform(base.Policy):
        def __init__(self):
            super().__init__(game, [0, 1])

        def action_probabilities(self, state, player_id=None):
            probs = policy.action_probabilities(state, player_id)
            return {a: (1 - weight) * p + weight / len(probs) for a, p in probs.items()}

    return MixedWithUniform()


def nash_conv(solution, policy=None) -> float:
    """OpenSpiel's ``exploitability.nash_conv`` of ``solution`` (or of ``policy``, a Policy
    for the same turn-based game) in the matching goofspiel: 0 at an equilibrium.

    Units are OpenSpiel's returns: half-points for the points objective (see the module
    doc), P(win) - P(loss) for the win objective.
    """
    objective = _check_solution(solution)
    _pyspiel()
    from open_spiel.python.algorithms import exploitability  # open_spiel: optional

    game = goofspiel_game(solution.n, objective, order=solution.order.name)
    if policy is None:
        policy = solution_policy(solution, game)
    return float(exploitability.nash_conv(game, policy))
