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

The three-player variants (``variant=three``, ``three-third`` or ``three-discard``: the
tie rules split, third and discard) are played against two computers
(:func:`exact.play.three.computer_players`: the three-player equilibrium where a saved
solution holds it (``gops serve --solutions DIR``, the cache folder) or it is solved on
the fly, else the heuristic bots, said so by ``note``), answered by
:func:`three_player_json`; their state is n, seed, variant and your bids.

Hidden bids (``variant=hidden``, any shipped game of imperfect-information Goofspiel:
n, order, objective) are played against the shipped equilibrium by
:class:`exact.play.hidden.HiddenGame`; their state is n, order, objective, seed, variant
and your bids, and the computer's cards are in the answer only once the game is over.
"""

from __future__ import annotations

from exact.errors import GopsInputError
from exact.game.objectives import POINTS, objective_named
from exact.game.orders import RANDOM, order_named
from exact.game.variants import STANDARD
from exact.limits import TOURNAMENT_MAX_N, check_n
from exact.play.bots import Bot, VariantOptimalBot, bot_for
from exact.play.engine import Game, check_setup
from exact.play.three import (
    TIE_RULE_OF,
    EquilibriumBot,
    computer_players,
    equilibrium_source,
    three_player_variant,
)
from exact.web.game_json import game_json, points_json
from exact.web.query import (
    cards,
    flag,
    game_query,
    game_variant,
    integer,
    lead_handicap,
    required_integer,
)
from exact.web.solutions import request_solution


def _game(request, bid: bool = False, prize: bool = False, declare: bool = False) -> dict:
    """The game of the request's state, replayed, with its new ``bid`` or ``prize``."""
    if request.query_params.get("variant") == "declaring":
        if prize:
            raise GopsInputError("the prizes of declarations are shuffled: none to choose")
        return _declaring_game(request, bid, declare)
    if request.query_params.get("variant") == "hidden":
        if prize:
            raise GopsInputError("the prizes of hidden bids come in their order: none to choose")
        return _hidden_game(request, bid)
    if request.query_params.get("variant") in TIE_RULE_OF:
        if prize:
            raise GopsInputError(
                "the prizes of a three-player game are shuffled: no prize to choose"
            )
        return _three_player_game(request, bid)
    game, lead = game_query(request, with_order=True)
    variant = game_variant(request, game)
    if lead:  # a head start: the computer plays the game solved for it (every lead)
        game = game.replace(handicap=lead_handicap(game.n, lead))
    seed = integer(request, "seed", required=False)
    declarations = flag(request, "declarations")
    declared = integer(request, "declared", required=False)
    if declared is not None and not declarations:
        raise GopsInputError("declared is a round of a game with declarations=1")
    if declarations:  # the standard game for points (gops play --declarations's check)
        check_setup(variant, game.order, game.objective, declarations)
    if flag(request, "declare") and not bid:
        raise GopsInputError("declare goes with a bid (/api/game/bid)")
    bids = list(cards(request, "bids", required=False))
    prizes = list(cards(request, "prizes", required=False))
    moves = (
        bids + [required_integer(request, "bid")] if bid else bids,
        prizes + [required_integer(request, "prize")] if prize else prizes,
    )
    computer: Bot
    if variant is STANDARD:  # the computer sees the game from the other seat: who
        seen = game.mirrored()  # chooses is mirrored
        computer = bot_for(seen, request_solution(request, seen))
    else:  # the variant's equilibrium (a symmetric game, random order: the same seen)
        solutions = request.app.state.solutions
        computer = VariantOptimalBot(solutions.variant(variant, game.n, request.state.pinned))
    board = Game(
        game.n,
        [computer],
        variant=variant,
        order=game.order,
        seed=seed,
        declarations=declarations,
        lead=lead or 0,
    )
    if declarations:
        if bid and flag(request, "declare"):
            if declared is not None:
                raise GopsInputError(f"you cannot declare: you declared in round {declared}")
            declared = len(bids) + 1  # the round of this bid (every earlier one was yours)
        _replay_declaring(board, *moves, declared)
    else:
        board.replay(*moves)
    out = game_json(board, game.objective, *moves)
    if declarations:
        out |= _declarations_json(board)
        out["state"] |= {"declarations": 1} | ({} if declared is None else {"declared": declared})
    if board.over and variant is STANDARD:  # the review (the standard game only):
        out["review"] = _review(board.review(request_solution(request, game)))
    return out


def _replay_declaring(board: Game, bids: list[int], prizes: list[int], declared) -> None:
    """:meth:`Game.replay` with your declaration: the bid of round ``declared`` (None:
    never) is made face up, and so is every later one."""
    bids, prizes = list(bids), list(prizes)
    board.settle()
    while bids or prizes:
        if board.awaiting == "prize":
            if not prizes:
                raise GopsInputError(f"choose the prize of round {board.round} before bidding")
            board.turn_up(prizes.pop(0))
        elif board.awaiting == "bid":
            board.play(bids.pop(0), declare=board.round == declared)
        else:
            raise GopsInputError("the game is over")
        board.settle()
    if declared is not None and (board.declared is None or board.declared != declared):
        raise GopsInputError(f"declared round {declared} is not a round you bid in")


def _declarations_json(board: Game) -> dict:
    """A game with declarations: the round you declared in, whether you may declare now,
    each round's face-up flag and, once over, the declaration score."""
    out: dict = {
        "declarations": True,
        "declared": board.declared,
        "can_declare": board.can_declare and not board.over and board.forced_bid is None,
        "face_up": [r.face_up for r in board.history],
    }
    if board.over:
        score = board.declaration_score()
        out["declaration_score"] = {
            "winner": {None: "nobody", 0: "you", 1: "computer"}[score.winner],
            "points": score.score,
            "face_up_rounds": score.face_up_rounds,
        }
    return out


def _for_points_shuffled(params) -> bool:
    """Whether a query's objective and order (parsed here; points and random by default)
    are the points objective and shuffled prizes."""
    objective = objective_named(params.get("objective", "points"))
    return objective is POINTS and order_named(params.get("order", "random")) is RANDOM


def _three_player_game(request, bid: bool) -> dict:
    """A three-player game (points, shuffled prizes), replayed with its new ``bid``."""
    params = request.query_params
    n = check_n(integer(request, "n"), TOURNAMENT_MAX_N, what=" for a three-player game")
    if not _for_points_shuffled(params):
        raise GopsInputError("the three-player variants are played for points with shuffled prizes")
    if params.get("lead") is not None or params.get("prizes"):
        raise GopsInputError("a three-player game takes no lead and no prizes")
    variant = three_player_variant(params["variant"])  # the query's variant, parsed once
    bids = list(cards(request, "bids", required=False))
    if bid:
        bids.append(required_integer(request, "bid"))
    computers, note = computer_players(n, variant)
    board = Game(n, computers, variant=variant, seed=integer(request, "seed", required=False))
    board.replay(bids)
    plays = any(isinstance(bot, EquilibriumBot) for bot in computers)
    return three_player_json(board, bids, note, equilibrium_source(n, variant) if plays else None)


#: The rules of declarations against the equilibrium, as the page states them.
DECLARING_TEXT = (
    "Declarations, both sides: each round, before the bids, you and the computer say at once "
    "whether you declare. A declarer bids face up from then on, first, and the other answers "
    "its card (both declaring: face-up bids at the same time). The game is worth the rounds "
    "from the first declaration on (1 if nobody declares), to the player with more points. "
    "The computer plays the equilibrium of the declarations game (exact.declarations)."
)


def _declaring_game(request, bid: bool, declare: bool) -> dict:
    """Declarations against their equilibrium (:mod:`exact.play.declaring`), replayed
    with the new ``bid`` or declaration."""
    from exact.play.declaring import DeclaringGame

    params = request.query_params
    if not _for_points_shuffled(params):
        raise GopsInputError("declarations are played with shuffled prizes, for the game's score")
    if params.get("lead") is not None or params.get("prizes") or params.get("declarations"):
        raise GopsInputError("declarations against the equilibrium take no lead and no prizes")
    bids = list(cards(request, "bids", required=False))
    said = [c == "1" for c in (params.get("declares") or "").split(",") if c]
    if any(c not in ("0", "1") for c in (params.get("declares") or "").split(",") if c):
        raise GopsInputError("declares is a list of 0 (no) and 1 (declare), one a round asked")
    if bid:
        bids.append(required_integer(request, "bid"))
    if declare:
        said.append(flag(request, "declare"))
    board = DeclaringGame(required_integer(request, "n"), integer(request, "seed", required=False))
    board.replay(said, bids)
    return declaring_json(board, said, bids)


def declaring_json(board, said: list[bool], bids: list[int]) -> dict:
    """A game of declarations as the page draws it (as a standard game, plus who declared
    when, the computer's face-up lead and the declaration score)."""
    names = {0: "you", 1: "computer", None: "nobody"}
    over = board.over

    def declared(r) -> str:
        return {(True, False): "you", (False, True): "computer", (True, True): "both"}.get(
            r.declared, ""
        )

    out = {
        "n": board.n,
        "objective": "points",
        "order": "random",
        "seed": board.seed,
        "variant": "declaring",
        "variant_text": DECLARING_TEXT,
        "note": None,
        "round": min(board.round, board.n),
        "rounds": board.n,
        "awaiting": board.awaiting,
        "chooser": None,
        "choices": [],
        "upcard": board.upcard,
        "prizes_to_come": sorted(board.prizes - {board.upcard}),
        "your_cards": sorted(board.hands[0]),
        "computer_cards": sorted(board.hands[1]),
        "score": {"you": board.points[0], "computer": board.points[1]},
        "won": {
            "you": sorted(r.prize for r in board.history if r.winner == 0),
            "computer": sorted(r.prize for r in board.history if r.winner == 1),
        },
        "history": [
            {
                "round": r.number,
                "prize": r.prize,
                "you": r.you,
                "computer": r.computer,
                "winner": names[r.winner],
                "declared": declared(r),
                "face_up": r.family != "open",
            }
            for r in board.history
        ],
        "winner": names[board.winner] if over else None,
        "family": board.family,
        "first_declaration": board.first,
        "declared_by": {"you": board.declared_by[0], "computer": board.declared_by[1]},
        "computer_lead": board.lead_card,
        "state": {
            "n": board.n,
            "seed": board.seed,
            "variant": "declaring",
            "declares": ",".join("1" if d else "0" for d in said),
            "bids": ",".join(map(str, bids)),
        },
    }
    if over:
        score = board.score()
        out["declaration_score"] = {
            "winner": names[score.winner],
            "points": score.score,
            "face_up_rounds": score.face_up_rounds,
        }
    return out


def _hidden_game(request, bid: bool) -> dict:
    """A game of hidden bids (:mod:`exact.play.hidden`), replayed with its new ``bid``:
    what you see (the computer's cards only once it is over) and the state to send back."""
    from exact.play.hidden import HiddenGame, check_hidden

    params = request.query_params
    if params.get("lead") is not None or params.get("prizes"):
        raise GopsInputError("a game of hidden bids takes no lead and no prizes")
    bids = list(cards(request, "bids", required=False))
    if bid:
        bids.append(required_integer(request, "bid"))
    game = check_hidden(  # the query's game, parsed once
        required_integer(request, "n"),
        params.get("order", "random"),
        params.get("objective", "points"),
    )
    board = HiddenGame(game, integer(request, "seed", required=False))
    board.replay(bids)
    out = board.view()
    out["variant"] = "hidden"
    out["variant_text"] = HIDDEN_TEXT
    shipped = out["equilibrium"]
    out["note"] = (
        f"The computer plays the shipped equilibrium {shipped['file']} "
        + ("(exact: NashConv 0" if shipped["exact"] else f"(NashConv <= {shipped['nash_conv']}")
        + ", re-proved by this server when it first read it)."
    )
    out["state"] = {
        "n": board.n,
        "order": out["order"],
        "objective": out["objective"],
        "seed": board.seed,
        "variant": "hidden",
        "bids": ",".join(map(str, bids)),
    }
    return out


#: The rules of hidden bids, as the page states them.
HIDDEN_TEXT = (
    "Hidden bids: both bids stay face down. You see the prizes, your own bids and who won "
    "each round (a tie: it bid your card), never the computer's card, until the game ends; "
    "then every bid and the computer's mix at each of its decisions are shown."
)


#: The players of a three-player game, as the page names them.
THREE_NAMES = ("you", "computer 1", "computer 2")


def three_player_json(
    game: Game, bids: list[int], note: str | None, equilibrium: dict | None = None
) -> dict:
    """A three-player game as the page draws it: the two-player game's keys (``computer``
    is computer 1) plus computer 2's (``computer2``), the points of every round, who
    plays (``computers``), ``note`` (the heuristic standing in, or null), where the
    equilibrium they play came from (``equilibrium``: a saved solution's file, N, tie
    rule and NashConv, or solved here, :func:`exact.play.three.equilibrium_source`; null
    when no computer plays it) and every player's pile of prizes won (``piles``: whole,
    or halves under the split rule)."""

    def who(scorers) -> str:
        return " and ".join(THREE_NAMES[i] for i in scorers) or "nobody"

    over = game.awaiting == "over"
    state = {"n": game.n, "seed": game.seed, "variant": game.rules.name}
    return {
        "n": game.n,
        "players": 3,
        "objective": "points",
        "order": "random",
        "order_text": game.order.description,
        "seed": game.seed,
        "variant": game.rules.name,
        "variant_text": THREE_TEXT[game.rules.name],
        "review_text": "no review: the review covers the two-player standard game only",
        "computers": [bot.name for bot in game.computers],
        "note": note,
        "equilibrium": equilibrium,
        "round": game.round,
        "rounds": game.rounds,
        "awaiting": game.awaiting,
        "chooser": None,
        "choices": [],
        "upcard": game.upcard,
        "prizes_left": sorted(game.position.deck),
        "prizes_to_come": sorted(game.position.deck - {game.upcard}),
        "won": {
            name: [r.prize for r in game.history if r.scorers == [i]]
            for i, name in enumerate(("you", "computer", "computer2"))
        },
        "piles": _piles(game),
        "your_cards": game.legal_bids(),
        "computer_cards": sorted(game.position.hands[1]),
        "computer2_cards": sorted(game.position.hands[2]),
        "score": dict(zip(("you", "computer", "computer2"), (points_json(p) for p in game.points))),
        "history": [
            {
                "round": r.number,
                "prize": r.prize,
                "you": r.bids[0],
                "computer": r.bids[1],
                "computer2": r.bids[2],
                "winner": who(r.scorers),
                "points": dict(zip(THREE_NAMES, (points_json(p) for p in r.points))),
                "mix": {str(c): float(p) for c, p in sorted(r.mixes[0].items())},
                "mix2": {str(c): float(p) for c, p in sorted(r.mixes[1].items())},
            }
            for r in game.history
        ],
        "winner": (who([game.winner]) if game.winner is not None else "nobody") if over else None,
        "state": state | {"bids": ",".join(map(str, bids))},
    }


def _piles(game: Game) -> dict[str, list[dict]]:
    """Each player's prizes won, in the order won: ``{"prize": 5, "share": "1"}``, or
    ``"1/2"`` for the half of a prize split by a two-way tie (``three``); a discarded
    prize is in no pile."""
    piles: dict[str, list[dict]] = {name: [] for name in ("you", "computer", "computer2")}
    for r in game.history:
        for name, got in zip(piles, r.points):
            if got:
                piles[name].append({"prize": r.prize, "share": str(got / r.prize)})
    return piles


#: The rules of each three-player variant, as the page states them (gops play's).
THREE_TEXT = {
    "three": "Three players: a tie for the high bid splits the prize between the two tied "
    "players; a three-way tie discards it.",
    "three-third": "Three players: a two-way tie for the high bid gives the prize to the "
    "third player; a three-way tie discards it.",
    "three-discard": "Three players: any tie for the high bid (two or three players) "
    "discards the prize (OpenSpiel's rule).",
}


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


def game_declare(request) -> dict:
    return _game(request, declare=True)
