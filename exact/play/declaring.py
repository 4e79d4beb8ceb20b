"""One game of face-up declarations against its equilibrium (:mod:`exact.declarations`),
both players free to declare: the game of the page's Play with the variant *declarations
(both declare)*.

You are player 0, the computer player 1; the rules are :mod:`exact.declarations.rules`'s.
Each round a prize is turned up (uniformly from those left, by ``random.Random(seed)``).
While nobody has declared (the family ``open``) and more than one card is left, both
say at once whether they declare: you by :meth:`DeclaringGame.declare`, the computer by
sampling the equilibrium's 2 x 2 declaration game at the position (``Stage.declare``).
Then the bids, by the family the declarations put the game in:

- neither declared (``open``) or both did, now or before (``sim``): sealed bids, the
  computer's drawn from the equilibrium's mix of the stage (``Stage.bids``);
- you declared first (``lead0``): you bid face up, the computer answers with the
  equilibrium's reply to your card (``Stage.replies``);
- the computer declared first (``lead1``): it lays its card face up first
  (``Stage.leader``) and you answer.

A decided position (a lead the prizes left cannot overturn) has no stage: the sure winner
declares at once (as the solver's value assumes) and the computer bids its lowest card.
The game is worth the rounds from the earliest declaration on (1 if nobody declares), to
the winner (:func:`exact.game.variants.score_declarations`).  The tables are solved in
float once per N in the process (:func:`exact.declarations.solver.solve_tables`: 0.1 s at
4 cards, 1.3 s at 5, 14 s at 6), hence :data:`DECLARING_MAX_N`.

Invariant: a game is its (n, seed), your declarations and your bids; replaying them
draws the same prizes and the same computer moves.

>>> game = DeclaringGame(3, seed=1)
>>> game.awaiting
'declare'
>>> theirs = game.declare(False)  # the computer's declaration, drawn at the same time
>>> game.awaiting
'bid'
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass

from exact.errors import GopsInputError
from exact.game.variants import score_declarations
from exact.limits import check_n

__all__ = ["DECLARING_MAX_N", "DeclaringGame", "DeclaringRound"]

#: The largest N played (the float tables: 1.3 s at 5 cards, 14 s at 6).
DECLARING_MAX_N = 5


@functools.lru_cache(maxsize=4)
def _tables(n: int):
    from exact.declarations.solver import solve_tables

    return solve_tables(n, exact=False)


@dataclass(frozen=True)
class DeclaringRound:
    """A round played: its number, prize, both bids, who declared in it (you, the
    computer), the family it was bid in and its winner (0, 1, or None: a tie)."""

    number: int
    prize: int
    you: int
    computer: int
    declared: tuple[bool, bool]
    family: str
    winner: int | None


class DeclaringGame:
    """A game of face-up declarations, both players free to declare (module docstring)."""

    def __init__(self, n: int, seed=None):
        self.n = check_n(n, DECLARING_MAX_N, what=" for declarations against the equilibrium")
        self.seed = random.randrange(2**31) if seed is None else seed
        self._rng = random.Random(self.seed)
        self.tables = _tables(self.n)
        cards = set(range(1, self.n + 1))
        self.hands = [set(cards), set(cards)]
        self.prizes = set(cards)
        self.points = [0, 0]
        self.family = "open"
        self.first: int | None = None  # the round of the earliest declaration
        self.declared_by: list[int | None] = [None, None]  # each player's round
        self.history: list[DeclaringRound] = []
        self.upcard: int | None = None
        self.lead_card: int | None = None  # the computer's face-up card (lead1)
        self._this_round = (False, False)
        self._start_round()

    # -- the position and its stage ----------------------------------------------------
    def _position(self):
        from exact.declarations.rules import position_of

        return position_of(
            self.hands[0], self.hands[1], self.prizes, self.points[0] - self.points[1]
        )

    def _stage(self, family: str):
        """The equilibrium's stage of the current upcard in ``family`` (None: decided)."""
        stages = self.tables.stages[family].get(self._position().key())
        if stages is None or self.upcard is None:
            return None
        return stages[sorted(self.prizes).index(self.upcard)]

    # -- the state -----------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return not self.hands[0]

    @property
    def round(self) -> int:
        return len(self.history) + 1

    @property
    def awaiting(self) -> str:
        if self.over:
            return "over"
        return "declare" if self._asks_declaration else "bid"

    def _start_round(self) -> None:
        """Turn up the next prize; ask for the declarations (open, more than one card),
        else go to the bids; the last round plays itself."""
        self.lead_card, self._this_round = None, (False, False)
        if self.over:
            self.upcard, self._asks_declaration = None, False
            return
        self.upcard = self._rng.choice(sorted(self.prizes))
        if len(self.hands[0]) == 1:
            self._asks_declaration = False
            self._play((*self.hands[0],)[0], (*self.hands[1],)[0])
            return
        self._asks_declaration = self.family == "open"
        if not self._asks_declaration:
            self._computer_leads()

    def _computer_leads(self) -> None:
        if self.family == "lead1":
            stage = self._stage("lead1")
            theirs = sorted(self.hands[1])
            self.lead_card = theirs[stage.leader] if stage is not None else theirs[0]

    def declare(self, yes: bool) -> bool:
        """Your declaration this round (``yes``: declare); the computer's, drawn from the
        equilibrium at the same time, is returned."""
        if self.awaiting != "declare":
            raise GopsInputError(
                "no declaration is asked now: "
                + ("the game is over" if self.over else "a declared game is face up already")
            )
        stage = self._stage("open")
        if stage is None:  # decided: the sure winner declares at once
            theirs = self.points[1] > self.points[0]
        else:
            y = stage.declare[1]
            theirs = self._rng.random() < float(y[1]) / float(y[0] + y[1])
        self._this_round = (bool(yes), theirs)
        if yes or theirs:
            self.first = self.round
            self.family = "sim" if yes and theirs else "lead0" if yes else "lead1"
            for p, d in enumerate(self._this_round):
                if d:
                    self.declared_by[p] = self.round
        self._asks_declaration = False
        self._computer_leads()
        return theirs

    def bid(self, card: int) -> DeclaringRound:
        """Your bid this round; the computer's by the family (module docstring)."""
        if self.awaiting != "bid":
            raise GopsInputError(
                "the game is over" if self.over else "say first whether you declare"
            )
        if card not in self.hands[0]:
            raise GopsInputError(
                f"you do not hold the {card}; your cards are "
                + " ".join(map(str, sorted(self.hands[0])))
            )
        theirs = sorted(self.hands[1])
        if self.family == "lead1":
            assert self.lead_card is not None
            reply = self.lead_card
        elif self.family == "lead0":
            stage = self._stage("lead0")
            reply = theirs[stage.replies[sorted(self.hands[0]).index(card)]] if stage else theirs[0]
        else:
            stage = self._stage(self.family)
            if stage is None:
                reply = theirs[0]
            else:
                y = [max(0.0, float(p)) for p in stage.bids[1]]
                reply = self._rng.choices(theirs, weights=y)[0]
        played = self._play(card, reply)
        return played

    def _play(self, mine: int, theirs: int) -> DeclaringRound:
        prize = self.upcard
        assert prize is not None
        winner = 0 if mine > theirs else 1 if theirs > mine else None
        if winner is not None:
            self.points[winner] += prize
        played = DeclaringRound(
            self.round, prize, mine, theirs, self._this_round, self.family, winner
        )
        self.history.append(played)
        self.hands[0].discard(mine)
        self.hands[1].discard(theirs)
        self.prizes.discard(prize)
        self._start_round()
        return played

    def replay(self, declarations, bids) -> None:
        """Your declarations (one per round that asks) and bids, in the order asked."""
        declarations, bids = list(declarations), list(bids)
        while declarations or bids:
            if self.awaiting == "declare":
                if not declarations:
                    raise GopsInputError(f"say first whether you declare in round {self.round}")
                self.declare(declarations.pop(0))
            elif self.awaiting == "bid":
                if not bids:
                    raise GopsInputError(f"round {self.round} asks for your bid first")
                self.bid(bids.pop(0))
            else:
                raise GopsInputError("the game is over")

    @property
    def winner(self) -> int | None:
        mine, theirs = self.points
        return 0 if mine > theirs else 1 if theirs > mine else None

    def score(self):
        """The declaration score (:func:`exact.game.variants.score_declarations`)."""
        declared = {p: r for p, r in enumerate(self.declared_by) if r is not None}
        return score_declarations(self.n, self.winner, declared or None)
