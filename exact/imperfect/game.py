"""Imperfect-information Goofspiel, exactly as OpenSpiel's ``goofspiel(imp_info=True)``
defines it, walked as its turn-based conversion walks it.

The rules are those of :mod:`exact.game.rules` (N cards each, the higher bid wins the
prize, a tie discards it); what differs is what a player sees.  Source: OpenSpiel 2.0's
``games/goofspiel/goofspiel.cc`` (Lanctot's thesis, 2013, sec 3.1.4) and
``game_transforms/turn_based_simultaneous_game.cc``, checked history by history against
the installed ``pyspiel`` by ``tests/test_imperfect_game.py``:

- A player sees their own hand and their own past bids, every prize card turned up so
  far, who won each round (0, 1, or -3 for a tie: a tie reveals the opponent's card) and
  both point totals; never the opponent's bids.
- The prize order is :mod:`exact.game.orders`' ``random`` (a chance node before every
  round but the last, each remaining prize equally likely), ``descending`` or
  ``ascending`` (no chance node).
- Once a round leaves one card in each hand, the last round is played automatically (its
  prize is the one left).  With N = 1 the single round is played (there is no round
  before it).
- The turn-based conversion lets player 0 bid first, then player 1, whose information
  state does not show the pending bid; player 0's information state at that node does
  ("Observer's action this turn: A").
- Returns (OpenSpiel's ``returns_type``): ``point_difference`` (the objective ``points``)
  gives player 0 (p0 - p1)/2 and player 1 its negative, ``win_loss`` (``win``) the sign.
- An action is a card minus one (a prize card in a chance outcome, a bid otherwise).

An :class:`Information` model says which players also see the opponent's past bids (the
"Psychological JuJitsu" rules write-up leaves used bid cards face up).  The default,
``imp_info``, is OpenSpiel's game above and its strings are OpenSpiel's, byte for byte.  A
player who sees the bids has, in its information state, the opponent's bids of the rounds
played, and its string has one more line, after its own action sequence:
``Opponent action sequence: `` and the opponent's bids as action ids (card - 1), each
followed by a space, as OpenSpiel writes the player's own.  A bid of the current round is
never seen before the player bids (the turn-based conversion hides player 0's pending
bid from player 1 either way).  With both players seeing the bids the game is the
perfect-information game of :mod:`exact.dp` (simultaneous bids, everything past known).

:class:`ImperfectGame` is the game (N, order, objective, checked once by
:meth:`ImperfectGame.parse`); :class:`State` one node of the turn-based tree, walked as
OpenSpiel's algorithms walk a game (``current_player``, ``legal_actions``,
``chance_outcomes`` with exact probabilities, ``child``, ``is_terminal``, ``returns``,
``information_state_string``), so that a solver walks it without knowing Goofspiel.  A
player's decision is identified by its :data:`InfoKey` (prizes so far, own bids, what
the player saw of past rounds: the winners, or the opponent's bids if it sees them);
:meth:`ImperfectGame.information_states` lists them all, each with its OpenSpiel string,
which is the key of a policy.

>>> game = ImperfectGame.parse(2, "descending", "points")
>>> state = game.initial_state().child(1).child(0)  # P0 bids 2, P1 bids 1: P0 wins 2
>>> state.is_terminal(), state.returns()  # then 1 against 2: P1 wins 1
(True, (Fraction(1, 2), Fraction(-1, 2)))
>>> state.information_state_string(1).splitlines()  # doctest: +NORMALIZE_WHITESPACE
['Current player: -4', 'P1 hand: ', 'P1 action sequence: 0 1 ', 'Point card sequence: 2 1 ',
 'Win sequence: 0 1 ', 'Points: 2 1 ', 'Terminal?: 1']
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from exact.errors import GopsInputError
from exact.game.objectives import POINTS, GameObjective, objective_named
from exact.game.orders import RANDOM, PrizeOrder, order_named
from exact.game.rules import prize_total
from exact.limits import check_n

__all__ = [
    "CHANCE",
    "IMP_INFO",
    "IMPERFECT_MAX_N",
    "INFORMATION_MODELS",
    "Information",
    "InfoKey",
    "InformationState",
    "ImperfectGame",
    "State",
    "TERMINAL",
    "TIE",
]

#: OpenSpiel's player ids of a chance node and of a terminal state.
CHANCE, TERMINAL = -1, -4
#: OpenSpiel's entry in the win sequence for a tied round (kInvalidPlayer).
TIE = -3
#: The orders OpenSpiel's goofspiel knows (a controlled order is not one of its games).
IMPERFECT_ORDERS = ("random", "descending", "ascending")
#: The walkable game's own bound: 13 cards, one suit (the solvers have tighter ones).
IMPERFECT_MAX_N = 13

#: A player's decision: (prizes turned up so far, the current one last; own bids, as
#: cards; what the player saw of each past round: its winner, 0, 1 or TIE, or, for a
#: player who sees the bids (:class:`Information`), the opponent's bid, a card).
InfoKey = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class Information:
    """Which players see the opponent's past bids: ``sees_bids[p]`` for player p.  Every
    player sees the prizes, their own bids and who won each round."""

    name: str
    sees_bids: tuple[bool, bool]


#: The information models by name; ``imp_info`` is OpenSpiel's goofspiel(imp_info=True).
INFORMATION_MODELS = {
    info.name: info
    for info in (
        Information("imp_info", (False, False)),
        Information("p0-sees-bids", (True, False)),
        Information("p1-sees-bids", (False, True)),
        Information("both-see-bids", (True, True)),
    )
}
IMP_INFO = INFORMATION_MODELS["imp_info"]


def information_named(name) -> Information:
    """The information model called ``name`` (a model is returned as it is).

    >>> information_named("p2-sees-bids")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: unknown information model 'p2-sees-bids' (choose from
    imp_info, p0-sees-bids, p1-sees-bids, both-see-bids)
    """
    if isinstance(name, Information):
        return name
    if name not in INFORMATION_MODELS:
        raise GopsInputError(
            f"unknown information model {name!r} (choose from {', '.join(INFORMATION_MODELS)})"
        )
    return INFORMATION_MODELS[name]


def round_winner(bid0: int, bid1: int) -> int:
    """0 or 1, whoever bid higher, or TIE."""
    return 0 if bid0 > bid1 else 1 if bid1 > bid0 else TIE


def points(prizes, winners) -> tuple[int, int]:
    """Both players' points: the prizes of the rounds each won (ties score nothing)."""
    totals = [0, 0]
    for prize, winner in zip(prizes, winners):
        if winner != TIE:
            totals[winner] += prize
    return totals[0], totals[1]


def _cards(cards, shift: int = 0) -> str:
    return "".join(f"{card - shift} " for card in cards)


def core_string(player: int, n: int, prizes, own, winners, terminal: bool, theirs=None) -> str:
    """Goofspiel's own InformationStateString(player) with imp_info=True (the turn-based
    conversion puts its "Current player" line, and maybe the pending bid, before it);
    with the opponent's bids ``theirs`` (a player who sees them), their line after the
    player's own (module docstring)."""
    hand = sorted(set(range(1, n + 1)) - set(own))
    p0, p1 = points(prizes, winners)
    seen = "" if theirs is None else f"Opponent action sequence: {_cards(theirs, 1)}\n"
    return (
        f"P{player} hand: {_cards(hand)}\n"
        f"P{player} action sequence: {_cards(own, 1)}\n{seen}"
        f"Point card sequence: {_cards(prizes)}\n"
        f"Win sequence: {''.join(f'{w} ' for w in winners)}\n"
        f"Points: {p0} {p1} \n"
        f"Terminal?: {int(terminal)}\n"
    )


@dataclass(frozen=True)
class InformationState:
    """One decision of ``player``: its key, its OpenSpiel string, its legal bids, and one
    turn-based history (OpenSpiel action ids) that reaches it."""

    player: int
    key: InfoKey
    string: str
    legal: tuple[int, ...]
    history: tuple[int, ...]


@dataclass(frozen=True)
class ImperfectGame:
    """Imperfect-information Goofspiel with ``n`` cards, a prize ``order``, an
    ``objective`` (points: point_difference; win: win_loss) and an ``information`` model
    (by default OpenSpiel's imp_info: nobody sees the opponent's bids)."""

    n: int
    order: PrizeOrder
    objective: GameObjective
    information: Information = IMP_INFO

    @classmethod
    def parse(cls, n, order="random", objective="points", information="imp_info") -> ImperfectGame:
        """The game from names (or objects), every field checked: one-line GopsInputError.

        >>> ImperfectGame.parse(4, "controlled-by-me")  # doctest: +NORMALIZE_WHITESPACE
        Traceback (most recent call last):
        ...
        exact.errors.GopsInputError: imperfect-information goofspiel has the prize orders
        random, descending, ascending, not 'controlled-by-me'
        """
        n = check_n(n, IMPERFECT_MAX_N, what=" for imperfect-information goofspiel")
        prize_order = order_named(order)
        if prize_order.name not in IMPERFECT_ORDERS:
            raise GopsInputError(
                "imperfect-information goofspiel has the prize orders "
                f"{', '.join(IMPERFECT_ORDERS)}, not {prize_order.name!r}"
            )
        return cls(n, prize_order, objective_named(objective), information_named(information))

    @property
    def returns_type(self) -> str:
        """OpenSpiel's name of the objective."""
        return "point_difference" if self.objective is POINTS else "win_loss"

    @property
    def units(self) -> str:
        """What a return is, as the JSON answers say it."""
        points = "point_difference: half the point difference"
        what = points if self.objective is POINTS else "win_loss"
        return f"player 0's return in OpenSpiel's units ({what})"

    def openspiel_parameters(self) -> dict:
        """The parameters of ``pyspiel.load_game("goofspiel", ...)`` for this game (with a
        player who sees the bids, OpenSpiel's game with the same rules and less
        information: OpenSpiel has none with this information)."""
        return {
            "num_cards": self.n,
            "imp_info": True,
            "points_order": self.order.name,
            "returns_type": self.returns_type,
        }

    def max_return(self) -> Fraction:
        """The largest |return| of a player (all the prizes won, halved; or 1)."""
        return Fraction(prize_total(self.n), 2) if self.objective is POINTS else Fraction(1)

    def terminal_return(self, prizes, winners) -> Fraction:
        """Player 0's return once every round is played."""
        p0, p1 = points(prizes, winners)
        if self.objective is POINTS:
            return Fraction(p0 - p1, 2)
        return Fraction((p0 > p1) - (p0 < p1))

    def next_prize(self, prizes) -> int | None:
        """The prize of the next round in a fixed order; None where chance deals it."""
        if self.order is RANDOM:
            return None
        return self.order.next_prizes(set(range(1, self.n + 1)) - set(prizes))[0]

    def initial_state(self) -> State:
        first = self.next_prize(())
        return State(self, () if first is None else (first,), (), (), None)

    def sees_bids(self, player: int) -> bool:
        """Whether ``player`` sees the opponent's past bids (:class:`Information`)."""
        return self.information.sees_bids[player]

    def information_key(self, player: int, prizes, bids0, bids1) -> InfoKey:
        """``player``'s decision after ``bids0`` and ``bids1`` (the rounds played) with
        ``prizes`` turned up: (prizes, own bids, winners or the opponent's bids)."""
        own, theirs = (bids0, bids1) if player == 0 else (bids1, bids0)
        if self.sees_bids(player):
            return prizes, own, theirs
        return prizes, own, tuple(map(round_winner, bids0, bids1))

    def key_string(self, player: int, key: InfoKey, terminal: bool) -> str:
        """Goofspiel's string of ``player``'s view ``key`` (without the turn-based lines)."""
        prizes, own, seen = key
        if not self.sees_bids(player):
            return core_string(player, self.n, prizes, own, seen, terminal)
        pairs = zip(own, seen) if player == 0 else zip(seen, own)
        winners = tuple(round_winner(a, b) for a, b in pairs)
        return core_string(player, self.n, prizes, own, winners, terminal, seen)

    def information_string(self, player: int, key: InfoKey) -> str:
        """The turn-based OpenSpiel string of ``player``'s decision ``key``."""
        return f"Current player: {player}\n" + self.key_string(player, key, False)

    def information_states(self, player: int) -> Iterator[InformationState]:
        """Every decision of ``player`` (depth first), reachable by some bids of the
        opponent: the opponent's possible hands are carried along, one bid sequence of
        theirs (a witness, for the history) per hand."""
        if player not in (0, 1):
            raise GopsInputError(f"player must be 0 or 1, got {player!r}")
        yield from self._walk(player, (), (), (), {(): ()})

    def _walk(self, player, prizes, own, seen, witnesses) -> Iterator[InformationState]:
        n, rounds = self.n, len(own)
        if rounds == n or (rounds == n - 1 and rounds >= 1):
            return  # the game is over, or its last round is played automatically
        if len(prizes) == rounds:  # the next prize: chance deals it, or the order
            fixed = self.next_prize(prizes)
            dealt = [fixed] if fixed is not None else sorted(set(range(1, n + 1)) - set(prizes))
            for prize in dealt:
                yield from self._walk(player, (*prizes, prize), own, seen, witnesses)
            return
        hand = sorted(set(range(1, n + 1)) - set(own))
        key = (prizes, own, seen)
        theirs = next(iter(witnesses.values()))
        yield InformationState(
            player,
            key,
            self.information_string(player, key),
            tuple(card - 1 for card in hand),
            self._history(player, prizes, own, theirs),
        )
        sees = self.sees_bids(player)
        for mine in hand:
            # What the player sees of this round (its winner, or the opponent's bid),
            # and the opponent's hands that are consistent with it.
            after: dict[int, dict[tuple[int, ...], tuple[int, ...]]] = {}
            for sequence in witnesses.values():
                for bid in sorted(set(range(1, n + 1)) - set(sequence)):
                    pair = (mine, bid) if player == 0 else (bid, mine)
                    now = bid if sees else round_winner(*pair)
                    seq = (*sequence, bid)
                    after.setdefault(now, {}).setdefault(tuple(sorted(seq)), seq)
            for now in sorted(after):
                yield from self._walk(player, prizes, (*own, mine), (*seen, now), after[now])

    def _history(self, player, prizes, own, theirs) -> tuple[int, ...]:
        """OpenSpiel action ids reaching ``player``'s decision after bids ``own`` and the
        opponent's ``theirs``, the current prize dealt (and P0's bid pending for P1: the
        lowest card left, which P1 cannot see)."""
        actions: list[int] = []
        for r, prize in enumerate(prizes):
            if self.order is RANDOM:
                actions.append(prize - 1)
            if r < len(own):
                pair = (own[r], theirs[r]) if player == 0 else (theirs[r], own[r])
                actions += [pair[0] - 1, pair[1] - 1]
        if player == 1:
            actions.append(min(set(range(1, self.n + 1)) - set(theirs)) - 1)
        return tuple(actions)


@dataclass(frozen=True)
class State:
    """A node of the turn-based tree: the prizes turned up (the current one last), both
    players' bids of the rounds played, and player 0's ``pending`` bid of this round
    (None until player 0 has bid)."""

    game: ImperfectGame
    prizes: tuple[int, ...]
    bids0: tuple[int, ...]
    bids1: tuple[int, ...]
    pending: int | None

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(round_winner(a, b) for a, b in zip(self.bids0, self.bids1))

    def current_player(self) -> int:
        if len(self.bids0) == self.game.n:
            return TERMINAL
        if len(self.prizes) == len(self.bids0):
            return CHANCE
        return 0 if self.pending is None else 1

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def hand(self, player: int) -> tuple[int, ...]:
        used = self.bids0 if player == 0 else self.bids1
        return tuple(sorted(set(range(1, self.game.n + 1)) - set(used)))

    def legal_actions(self) -> tuple[int, ...]:
        """Action ids (card - 1): the prizes chance may deal, or the bidder's cards."""
        player = self.current_player()
        if player == TERMINAL:
            return ()
        if player == CHANCE:
            return tuple(card - 1 for card in self.hand_of_prizes())
        return tuple(card - 1 for card in self.hand(player))

    def hand_of_prizes(self) -> tuple[int, ...]:
        return tuple(sorted(set(range(1, self.game.n + 1)) - set(self.prizes)))

    def chance_outcomes(self) -> list[tuple[int, Fraction]]:
        """(action, exact probability) of a chance node: each prize left equally likely."""
        if not self.is_chance_node():
            raise GopsInputError("chance_outcomes: not a chance node")
        left = self.hand_of_prizes()
        return [(card - 1, Fraction(1, len(left))) for card in left]

    def child(self, action: int) -> State:
        """The state after ``action`` (an id from :meth:`legal_actions`)."""
        if action not in self.legal_actions():
            raise GopsInputError(f"action {action!r} is not legal here")
        card = action + 1
        player = self.current_player()
        if player == CHANCE:
            return State(self.game, (*self.prizes, card), self.bids0, self.bids1, None)
        if player == 0:
            return State(self.game, self.prizes, self.bids0, self.bids1, card)
        assert self.pending is not None
        return self._next_round((*self.bids0, self.pending), (*self.bids1, card))

    def _next_round(self, bids0, bids1) -> State:
        game, prizes = self.game, self.prizes
        if len(bids0) == game.n - 1:  # the last round plays itself
            last = (set(range(1, game.n + 1)) - set(prizes)).pop()
            (c0,) = set(range(1, game.n + 1)) - set(bids0)
            (c1,) = set(range(1, game.n + 1)) - set(bids1)
            return State(game, (*prizes, last), (*bids0, c0), (*bids1, c1), None)
        if len(bids0) < game.n:
            following = game.next_prize(prizes)
            if following is not None:
                prizes = (*prizes, following)
        return State(game, prizes, bids0, bids1, None)

    def returns(self) -> tuple[Fraction, Fraction]:
        """Both players' returns (exact; OpenSpiel's units): zero until the end."""
        if not self.is_terminal():
            return Fraction(0), Fraction(0)
        value = self.game.terminal_return(self.prizes, self.winners)
        return value, -value

    def information_key(self, player: int) -> InfoKey:
        """``player``'s view: (prizes so far, own bids, the winners of past rounds, or
        the opponent's bids for a player who sees them)."""
        return self.game.information_key(player, self.prizes, self.bids0, self.bids1)

    def information_state_string(self, player: int) -> str:
        """OpenSpiel's turn-based ``information_state_string(player)`` of this state."""
        current = self.current_player()
        key = self.information_key(player)
        extra = (
            f"Observer's action this turn: {self.pending - 1}\n"
            if player == 0 and current == 1 and self.pending is not None
            else ""
        )
        view = self.game.key_string(player, key, current == TERMINAL)
        return f"Current player: {current}\n{extra}{view}"
