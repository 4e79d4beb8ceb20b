"""The endpoints of a game against the equilibrium: ``/api/game/new``, ``/bid`` and
``/prize``.

The server keeps no game: a game's answer carries ``state`` (n, objective, its lead,
order, seed, variant and your moves so far, ``bids`` and ``prizes``), which the page sends
back with its next move; the game is replayed from it with :mod:`exact.play.engine` (the
game's random seed draws the computer's bids), the move played and the new game answered
(:mod:`exact.web.game_json`).  The computer plays the equilibrium of its own seat's game
(the mirror of yours: who chooses the prizes is swapped), or of the two-player variant;
a finished standard game adds ``review``, each of your bids against the equilibrium
(:meth:`exact.play.engine.Game.review`).
"""

from __future__ import annotations

from exact.play.bots import Bot, VariantOptimalBot, bot_for
from exact.play.engine import Game
from exact.web.game_json import game_json
from exact.web.query import (
    cards,
    game_query,
    game_variant,
    integer,
    lead_handicap,
    required_integer,
)
from exact.web.solutions import request_solution


def _game(request, bid: bool = False, prize: bool = False) -> dict:
    """The game of the request's state, replayed, with its new ``bid`` or ``prize``."""
    game, lead = game_query(request, with_order=True)
    variant = game_variant(request, game)
    if lead:  # a head start: the computer plays the game solved for it (every lead)
        game = game.replace(handicap=lead_handicap(game.n, lead))
    seed = integer(request, "seed", required=False)
    bids = list(cards(request, "bids", required=False))
    prizes = list(cards(request, "prizes", required=False))
    moves = (
        bids + [required_integer(request, "bid")] if bid else bids,
        prizes + [required_integer(request, "prize")] if prize else prizes,
    )
    computer: Bot
    if variant == "standard":  # the computer sees the game from the other seat: who
        seen = game.mirrored()  # chooses is mirrored
        computer = bot_for(seen, request_solution(request, seen))
    else:  # the variant's equilibrium (a symmetric game, random order: the same seen)
        solutions = request.app.state.solutions
        computer = VariantOptimalBot(solutions.variant(variant, game.n, request.state.pinned))
    board = Game(
        game.n,
        [computer],
        variant=variant,
        order=game.order.name,
        seed=seed,
        lead=lead or 0,
    )
    board.replay(*moves)
    out = game_json(board, game.objective, *moves)
    if board.over and variant == "standard":  # the review (the standard game only):
        out["review"] = _review(board.review(request_solution(request, game)))
    return out


def _review(review: list[dict]) -> dict:
    """Your bids against the equilibrium of your seat's game, as JSON."""
    return {
        "rounds": [
            r | {"equilibrium": {str(c): p for c, p in r["equilibrium"].items()}} for r in review
        ],
        "total_cost": sum(r["cost"] for r in review),
    }


def game_new(request) -> dict:
    return _game(request)


def game_bid(request) -> dict:
    return _game(request, bid=True)


def game_prize(request) -> dict:
    return _game(request, prize=True)
