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

from itertools import product

from exact.errors import GopsInputError
from exact.game.ties import DISCARD
from exact.three.induction import ThreeSolution

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
    hand = tuple(range(1, game.n + 1))
    _walk(solution, out, (), (hand, hand, hand), hand, (), (0, 0, 0))
    return out


def _walk(solution, out, sequence, hands, prizes, wins, points) -> None:
    k = len(prizes)
    if k <= 1:
        return  # forced bids from here on
    for u in solution.game.order.next_prizes(prizes):
        seq = (*sequence, u)
        mixes = solution.mixes(hands, prizes, (0, 0, 0), u)
        for p in range(3):
            out[information_state(p, seq, hands, wins, points)] = {
                str(c - 1): float(q) for c, q in zip(hands[p], mixes[p])
            }
        rest = tuple(x for x in prizes if x != u)
        for a in product(range(k), repeat=3):
            bids = tuple(hands[i][a[i]] for i in range(3))
            top = max(bids)
            high = [i for i in range(3) if bids[i] == top]
            winner = high[0] if len(high) == 1 else -3
            pts = tuple(x + (u if i == winner else 0) for i, x in enumerate(points))
            child = tuple(tuple(c for c in hands[i] if c != bids[i]) for i in range(3))
            _walk(solution, out, seq, child, rest, (*wins, winner), pts)
