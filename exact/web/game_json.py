"""The JSON of a game against the computer, as the page draws it.

A game of :mod:`exact.play.engine` (played, or replayed from its state) becomes one
dictionary: the round, the cards, the prizes won and to come, the score, each round's
bids with your equilibrium mix, the winner once it is over, and ``state``, everything the
page sends back with its next move (the server keeps no game: :mod:`exact.web.play`).
Points are integers, or halves (4.5) where the dummy variant splits a prize.
"""

from __future__ import annotations

from exact.game.objectives import GameObjective
from exact.game.variants import STANDARD


def game_json(game, objective: GameObjective, bids, prizes) -> dict:
    """A two-player game as the page draws it; ``state``: what it sends back.  A variant
    adds its name and rules; with the dummy, its bid and points each round (a tie with
    it splits the prize), its score and prizes; in the twelve-round game, once it is
    over, the ``leftover`` prize that was never bid on."""
    rules = game.rules
    dummy = rules.dummy
    names = ("you", "computer", "dummy") if dummy else ("you", "computer")
    variant = {} if rules is STANDARD else {"variant": rules.name}

    def who(scorers) -> str:
        return " and ".join(names[i] for i in scorers) or "nobody"

    over = game.awaiting == "over"
    to_come = set() if over else game.position.deck - {game.upcard}  # (a leftover: none)
    if game.order.next != "any":  # a known order: the prizes in the order they come
        to_come = [p for p in game.prizes if p in to_come]
    head = {"lead": game.lead} if objective.has_lead else {}
    extra: dict[str, object] = {}
    if variant:
        extra = {"variant_text": VARIANT_TEXT[rules.name], "review_text": NO_REVIEW}
        if rules.drop_last:
            extra["leftover"] = game.leftover
        if dummy:
            extra["dummy_cards"] = sorted(game.position.dummy_hand)
            extra["split"] = {  # prizes shared on a tie for the high bid
                name: [r.prize for r in game.history if len(r.scorers) > 1 and i in r.scorers]
                for i, name in enumerate(names)
            }
    return {
        "n": game.n,
        "objective": objective.name,
        "order": game.order.name,
        "order_text": game.order.description,
        "seed": game.seed,
        **variant,
        **extra,
        **head,
        "round": game.round,
        "rounds": game.rounds,
        "awaiting": game.awaiting,
        "chooser": game.chooser,
        "choices": game.prize_choices() if game.chooser else [],
        "upcard": game.upcard,
        "prizes_left": sorted(game.position.deck),
        "prizes_to_come": sorted(to_come) if game.order.next == "any" else to_come,
        "won": {
            name: [r.prize for r in game.history if r.scorers == [i]]
            for i, name in enumerate(names)
        },
        "your_cards": game.legal_bids(),
        "computer_cards": sorted(game.position.hands[1]),
        "score": dict(zip(names, (points_json(p) for p in game.points))),
        "history": [
            {
                "round": r.number,
                "prize": r.prize,
                "you": r.bids[0],
                "computer": r.bids[1],
                "winner": who(r.scorers),
                "mix": {str(c): float(p) for c, p in sorted(r.mixes[0].items())},
            }
            | (
                {
                    "dummy": r.dummy_bid,
                    "points": dict(zip(names, (points_json(p) for p in r.points))),
                }
                if dummy
                else {}
            )
            for r in game.history
        ],
        "winner": (who([game.winner]) if game.winner is not None else "nobody") if over else None,
        "state": {
            "n": game.n,
            "objective": objective.name,
            "order": game.order.name,
            "seed": game.seed,
            **variant,
            **head,
            "bids": ",".join(map(str, bids)),
            "prizes": ",".join(map(str, prizes)),
        },
    }


#: The rules a variant adds, as the page states them (gops play's VARIANT_RULES).
VARIANT_TEXT = {
    "twelve": "Twelve-round game: the aces are out of both hands, so there is one round "
    "fewer than prizes, and the prize left after the last round is discarded.",
    "dummy": "A dummy bids a random card of a third suit after you both bid; a tie for the "
    "high bid splits the prize between the tied bidders (the dummy included), a "
    "three-way tie discards it.",
}
#: Why a variant's game has no review.
NO_REVIEW = "no review: the review covers the standard game only"


def points_json(x):
    """Points as JSON: an integer as such, a half point as 4.5."""
    return int(x) if x == int(x) else float(x)
