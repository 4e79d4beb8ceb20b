"""One game of hidden bids against the shipped equilibrium: imperfect-information
Goofspiel (OpenSpiel's ``goofspiel(imp_info=True)``, :mod:`exact.imperfect.game`), the game
of ``gops play N --hidden-bids`` and of the page's Play with hidden bids.

You are player 0, the computer player 1.  Each round a prize is turned up (dealt by the
seeded random generator in the shuffled order, else the next of the fixed order), you bid,
and the computer samples its bid from the shipped equilibrium
(:func:`exact.imperfect.shipped.load_shipped`, re-proved when first read) at its
information state: OpenSpiel's turn-based string, which shows the prizes, its own bids,
who won each round and the points, never your pending bid.  You see the same of your
side: the prizes, your bids, who won each round (a tie, so, shows that its card was
yours) and the score; the computer's cards are revealed, with its mix at each of its
decisions, once the game is over (:meth:`HiddenGame.view`).  The last round plays
itself (one card each), as in OpenSpiel.

Invariant: a game is its (n, order, objective, seed) and your bids; :meth:`HiddenGame.replay`
of the same bids draws the same prizes and the same computer bids (one
``random.Random(seed)`` draws both, in the order of play).

>>> game = HiddenGame(check_hidden(3, "descending", "points"), seed=1)
>>> game.upcard, game.legal_bids()
(3, [1, 2, 3])
>>> game.replay([3, 2])
>>> game.over, [r.prize for r in game.history], sum(game.points) <= 6
(True, [3, 2, 1], True)
>>> "computer" in game.view()["history"][0]
True
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass

from exact.errors import GopsInputError
from exact.game.objectives import GameObjective
from exact.game.orders import DESCENDING, PrizeOrder
from exact.imperfect.game import TIE, ImperfectGame, State, points

__all__ = ["HiddenGame", "HiddenRound", "check_hidden", "shipped_game", "shipped_games"]

#: The name of each round's winner, as the page and the terminal say it.
WINNER = {0: "you", 1: "computer", TIE: "nobody"}


#: The most cards of a game of hidden bids: the shipped 8-card equilibrium's re-proof
#: when first read takes minutes and 5 GB (7 cards: about 16 s and 1.4 GB).
PLAY_MAX_N = 7


@functools.lru_cache(maxsize=1)
def shipped_games() -> tuple[tuple[int, str, str], ...]:
    """(n, order, objective) of every shipped equilibrium of at most :data:`PLAY_MAX_N`
    cards, sorted: the games of hidden bids one may play."""
    from exact.imperfect.shipped import index

    return tuple(
        sorted((e["n"], e["order"], e["objective"]) for e in index() if e["n"] <= PLAY_MAX_N)
    )


def check_hidden(n: int, order: str | PrizeOrder, objective: str | GameObjective) -> ImperfectGame:
    """The game of hidden bids asked for (the order and objective named, or the objects:
    parsed here once), or a one-line GopsInputError saying which are shipped (for this
    order and objective)."""
    return shipped_game(ImperfectGame.parse(n, order, objective))


def shipped_game(game: ImperfectGame) -> ImperfectGame:
    """``game``, if an equilibrium of it is shipped; else a one-line GopsInputError
    saying which are (for its order and objective)."""
    wanted = (game.n, game.order.name, game.objective.name)  # as the shipped index names it
    if wanted not in shipped_games():
        ns = [k for k, o, obj in shipped_games() if (o, obj) == wanted[1:]]
        where = (
            f"N = {min(ns)} to {max(ns)} in this order for {wanted[2]}"
            if ns
            else "no game of this order and objective"
        )
        raise GopsInputError(
            f"hidden bids are played against the shipped equilibria: {where}, not N = {game.n}"
        )
    return game


@functools.lru_cache(maxsize=8)
def _equilibrium(game: ImperfectGame):
    """The shipped equilibrium of ``game`` (read and re-proved once per process: 0.5 s at
    5 cards, 6 s at 6) and the reader of its information-state strings."""
    from exact.imperfect.policy_file import StateReader
    from exact.imperfect.shipped import load_shipped
    from exact.imperfect.tables import layout

    shipped = load_shipped(game)
    return shipped, StateReader(game, layout(game))


@dataclass(frozen=True)
class HiddenRound:
    """One round played: its number (from 1), prize, both bids, its winner (0: you, 1:
    the computer, TIE) and the computer's mix there ({card: probability}; one card with
    probability 1 where its bid was forced: the last round)."""

    number: int
    prize: int
    you: int
    computer: int
    winner: int
    mix: dict[int, float]


class HiddenGame:
    """A game of hidden bids (module docstring): the shipped ``game`` (its n cards, prize
    order and the computer's objective: :func:`check_hidden` parses them)."""

    def __init__(self, game: ImperfectGame, seed=None):
        self.game = shipped_game(game)
        self.n = game.n
        self.seed = random.randrange(2**31) if seed is None else seed
        self._rng = random.Random(self.seed)
        self.shipped, self._reader = _equilibrium(self.game)
        self.state: State = self.game.initial_state()
        self.history: list[HiddenRound] = []
        self._deal()

    def _deal(self) -> None:
        """Turn up the next prize where chance deals it (uniformly from those left)."""
        while self.state.is_chance_node():
            left = self.state.hand_of_prizes()
            self.state = self.state.child(self._rng.choice(left) - 1)

    @property
    def over(self) -> bool:
        return self.state.is_terminal()

    @property
    def round(self) -> int:
        """The round being played (from 1)."""
        return len(self.history) + 1

    @property
    def upcard(self) -> int | None:
        return None if self.over else self.state.prizes[-1]

    @property
    def points(self) -> tuple[int, int]:
        """Your points and the computer's."""
        return points(self.state.prizes, self.state.winners)

    def legal_bids(self) -> list[int]:
        return [] if self.over else list(self.state.hand(0))

    def prizes_to_come(self) -> list[int]:
        """The prizes not yet turned up: in the order they come (a fixed order), or
        sorted (shuffled)."""
        left = sorted(set(range(1, self.n + 1)) - set(self.state.prizes))
        return left[::-1] if self.game.order is DESCENDING else left

    def computer_mix(self, pending: State) -> dict[int, float]:
        """The equilibrium's mix at the computer's information state in ``pending``."""
        _, row, legal = self._reader.row(pending.information_state_string(1))
        sigma = self.shipped.policy.sigmas[1][row]
        return {card: float(sigma[card - 1]) for card in sorted(legal.values())}

    def bid(self, card: int) -> list[HiddenRound]:
        """Play your ``card`` this round: the computer's bid is drawn, the round scored (and
        the last round, which plays itself); the rounds played."""
        if self.over:
            raise GopsInputError("the game is over")
        if card not in self.state.hand(0):
            raise GopsInputError(f"you do not hold the {card}")
        pending = self.state.child(card - 1)
        mix = self.computer_mix(pending)
        cards = [c for c, p in mix.items() if p > 0]
        theirs = self._rng.choices(cards, weights=[mix[c] for c in cards])[0]
        after = pending.child(theirs - 1)
        played = []
        for r in range(len(self.history), len(after.bids0)):
            a, b = after.bids0[r], after.bids1[r]
            forced = r > len(self.history)
            played.append(
                HiddenRound(
                    r + 1,
                    after.prizes[r],
                    a,
                    b,
                    after.winners[r],
                    {b: 1.0} if forced else mix,
                )
            )
        self.history += played
        self.state = after
        self._deal()
        return played

    def replay(self, bids) -> None:
        """Play ``bids``, your bids from the current round on (a one-line GopsInputError
        for one you do not hold or one too many)."""
        for card in bids:
            self.bid(card)

    @property
    def winner(self) -> str | None:
        """Who won the game once it is over: you, computer or nobody (a tie)."""
        if not self.over:
            return None
        mine, theirs = self.points
        return "you" if mine > theirs else "computer" if theirs > mine else "nobody"

    def view(self) -> dict:
        """What you see (module docstring), as JSON: the computer's bids and mixes only
        once the game is over."""
        over = self.over
        mine, theirs = self.points

        def row(r: HiddenRound) -> dict:
            seen = {"round": r.number, "prize": r.prize, "you": r.you, "winner": WINNER[r.winner]}
            if over:
                seen |= {"computer": r.computer, "mix": {str(c): p for c, p in r.mix.items()}}
            return seen

        return {
            "n": self.n,
            "order": self.game.order.name,
            "objective": self.game.objective.name,
            "seed": self.seed,
            "hidden": True,
            "round": min(self.round, self.n),
            "rounds": self.n,
            "awaiting": "over" if over else "bid",
            "upcard": self.upcard,
            "prizes_to_come": self.prizes_to_come(),
            "your_cards": self.legal_bids(),
            "computer_cards_left": self.n - len(self.history),
            "score": {"you": mine, "computer": theirs},
            "won": {
                "you": sorted(r.prize for r in self.history if r.winner == 0),
                "computer": sorted(r.prize for r in self.history if r.winner == 1),
            },
            "history": [row(r) for r in self.history],
            "winner": self.winner,
            "equilibrium": {
                "file": self.shipped.entry["file"],
                "exact": self.shipped.exact,
                "nash_conv": self.shipped.entry["nash_conv"],
            },
        }
