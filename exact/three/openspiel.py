"""A three-player equilibrium as an OpenSpiel policy file (the ``discard`` tie rule).

OpenSpiel's ``goofspiel(players=3, imp_info=False, returns_type=total_points)`` discards a
prize on any tie for the highest bid, which is the ``discard`` rule; made turn-based by
``pyspiel.convert_to_turn_based``, its information-state string of the player to bid is

    Current player: P\\nPoint card sequence: U1 U2 \\nP0 hand: 1 2 \\nP1 hand: ...\\n
    P2 hand: ...\\nWin sequence: W1 \\nPoints: X Y Z \\n

(``goofspiel.cc``: the prizes turned so far, the upcard last; each hand's cards; each
finished round's winner, -3 for a discarded prize; the points).  :func:`policy_json` maps
every such string at which the player has a choice to {action id (card - 1, a string):
probability}.  A string at which the player holds one card is left out: the bid is forced
(:class:`exact.play` users and the tests read a missing state with one legal action as that
action).  Every bid profile is followed, off the equilibrium path included, since a best
response reaches them.
"""

from __future__ import annotations

from exact.errors import GopsInputError
from exact.game.ties import DISCARD
from exact.three.induction import ThreeSolution
from exact.three.walk import histories

__all__ = ["information_state", "policy_json"]


def _cards(cards) -> str:
    return "".join(f"{c} " for c in cards)


def information_state(player: int, sequence, hands, wins, points) -> str:
    """OpenSpiel's perfect-information goofspiel information-state string."""
    lines = [f"Current player: {player}", f"Point card sequence: {_cards(sequence)}"]
    lines += [f"P{p} hand: {_cards(sorted(h))}" for p, h in enumerate(hands)]
    lines += [f"Win sequence: {_cards(wins)}", f"Points: {_cards(points)}"]
    return "\n".join(lines) + "\n"


def policy_json(solution: ThreeSolution) -> dict[str, dict[str, float]]:
    """The equilibrium of a ``discard``/``points`` solution as OpenSpiel's policy table."""
    game = solution.game
    if game.tie_rule is not DISCARD or game.top:
        raise GopsInputError(
            "an OpenSpiel policy needs --tie-rule discard and --objective points "
            "(OpenSpiel's three-player goofspiel discards tied prizes and scores points)"
        )
    out: dict[str, dict[str, float]] = {}
    # One card left: the bid is forced, its state left out (module docstring).
    for h in histories(game.n, game.tie_rule, game.order, until_cards=1):
        wins = tuple(_winner(points) for points in h.scored)
        points = tuple(sum(r[i] for r in h.scored) for i in range(3))
        mixes = solution.mixes(h.hands, h.prizes, (0, 0, 0), h.upcard)
        for p in range(3):
            out[information_state(p, h.upcards, h.hands, wins, points)] = {
                str(c - 1): float(q) for c, q in zip(h.hands[p], mixes[p])
            }
    return out


def _winner(points) -> int:
    """A round's winner as OpenSpiel's win sequence writes it: the seat that scored (the
    discard rule gives a prize to one seat or to none), -3 for a discarded prize."""
    return next((i for i, x in enumerate(points) if x > 0), -3)
