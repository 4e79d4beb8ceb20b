"""One game of GOPS against the computer, in progress: the one game loop.

The terminal game (``gops play``, :mod:`exact.cli.play`) and the web page's game
(``/api/game/...`` of :mod:`exact.web.app`) both play through :class:`Game`; neither
scores a round, draws a computer's bid or decides who won itself.  The rules are those of
:mod:`exact.game.variants` (the standard game is its variant ``standard``) and the prize
orders of :mod:`exact.game.orders`; this module adds what a game in progress needs on top
of them: the prize sequence, who chooses the next prize, the legal-move check, the
computer players' replies, the face-up declarations, and the end of the game.

You are player 0; the computers are players 1 (and 2 in a three-player variant).  A game
is a pure function of its seed and your moves.  The random draws, in this order:

1. ``rng.shuffle`` of the prizes (then sorted, for the known orders ascending and
   descending; a prize chosen by a player is swapped into place, so ``prizes`` is always
   the sequence as it came up, followed by the prizes not yet up);
2. ``rng.shuffle`` of the dummy's suit (the ``dummy`` variant only);
3. each round, one ``rng.random()`` per computer that bids face down (its bot's
   :meth:`~exact.play.bots.Bot.bid`, a draw from its mix), made after your bid and
   independent of it; a face-up reply (declarations) draws nothing.

So :meth:`Game.replay` of the same seed and moves gives the same game, computer bids
included: that is how the web API keeps no games in memory.

>>> from exact.play.bots import make_bot
>>> game = Game(4, [make_bot("highest", 4)], order="ascending", seed=1)
>>> game.turn_up(), game.legal_bids()
(1, [1, 2, 3, 4])
>>> played = game.play(1)  # the computer's highest card, 4, takes the 1
>>> played.bids, played.points, played.scorers
((1, 4), (Fraction(0, 1), Fraction(1, 1)), [1])
>>> game.replay([2, 3])  # the last card plays itself
>>> [r.bids for r in game.history], game.points, game.winner
([(1, 4), (2, 3), (3, 2), (4, 1)], (Fraction(7, 1), Fraction(3, 1)), 0)
>>> game.play(4)
Traceback (most recent call last):
...
exact.errors.GopsInputError: the game is over: 4 rounds were played
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from exact.errors import GopsInputError
from exact.game.objectives import GameObjective, objective_named
from exact.game.orders import ASCENDING, DESCENDING, RANDOM, PrizeOrder, order_named
from exact.game.rules import as_card
from exact.game.variants import (
    STANDARD,
    Variant,
    VariantPosition,
    get_variant,
    score_declarations,
    start,
)

__all__ = ["Game", "Round", "check_setup", "optimal_bot"]

#: A seed chosen for a game that was given none lies in 0..SEEDS - 1 (and is shown, so
#: the game can be replayed).
SEEDS = 10**6


def check_setup(
    variant: str | Variant,
    order: str | PrizeOrder = "random",
    objective: str | GameObjective = "points",
    declarations: bool = False,
) -> None:
    """The combinations of rules a game offers; one-line GopsInputError otherwise.

    >>> check_setup("twelve", order="ascending")
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: --order plays the standard game only
    """
    variant = get_variant(variant)
    if declarations and (variant is not STANDARD or objective_named(objective).has_lead):
        raise GopsInputError(
            "--declarations plays the standard game with the points objective only"
        )
    if order_named(order) is not RANDOM and variant is not STANDARD:
        raise GopsInputError("--order plays the standard game only")


def optimal_bot(solution):
    """The computer of a two-player standard game: the equilibrium of ``solution``
    (solved for the prize order as the computer sees it, :func:`~exact.game.orders.mirrored`),
    playing for its objective (``solution.spec``: points, or to win with the lead)."""
    from exact.play.bots import OptimalBot, WinOptimalBot

    return WinOptimalBot(solution) if solution.spec.has_lead else OptimalBot(solution)


@dataclass(frozen=True)
class Round:
    """One round played: its number (from 1), the prize, the bids (yours, then each
    computer's), the dummy's card, the points each player scored (then the dummy's), each
    computer's mix at the round's position, and whether the computer saw your bid."""

    number: int
    prize: int
    bids: tuple[int, ...]
    dummy_bid: int | None
    points: tuple[Fraction, ...]
    mixes: tuple[dict, ...]
    face_up: bool

    @property
    def scorers(self) -> list[int]:
        """Who scored the prize (players, then the dummy as the last index): one, or the
        tied players sharing it; none when it was discarded."""
        return [i for i, p in enumerate(self.points) if p]


class Game:
    """A game in progress against ``computers`` (one bot; two in a three-player variant).

    ``order`` is the prize order as you see it: "controlled-by-me" means you choose,
    "controlled-by-them" the first computer (its bot's ``prize_choice``).  ``seed``:
    default a random one (kept in :attr:`seed`).  ``declarations``: the face-up
    declarations of the standard game (:func:`exact.game.variants.declaration_score`);
    the computer then answers a bid it sees with
    :func:`~exact.play.bots.face_up_reply` of its solution.  ``lead``: your head start
    (negative: the computer's), points counted to the starting score of the two-player
    standard game; the win objective's computer, solved with a handicap of at least
    ``abs(lead)``, plays for it (a points computer ignores it).

    >>> from exact.play.bots import make_bot
    >>> game = Game(3, [make_bot("highest", 3)], seed=1, lead=-2)
    >>> game.points, game.lead
    ((Fraction(0, 1), Fraction(2, 1)), -2)
    """

    def __init__(
        self,
        n: int,
        computers: Sequence,
        variant: str | Variant = STANDARD,
        order: str | PrizeOrder = "random",
        seed: int | None = None,
        declarations: bool = False,
        lead: int = 0,
    ):
        self.rules = get_variant(variant)
        self.order = order_named(order)
        check_setup(self.rules, self.order, declarations=declarations)
        if len(computers) != self.rules.players - 1:
            raise GopsInputError(
                f"the {self.rules.name} variant is played against "
                f"{self.rules.players - 1} computer(s), got {len(computers)}"
            )
        self.computers = list(computers)
        self.declarations = declarations
        self.seed = random.SystemRandom().randrange(SEEDS) if seed is None else seed
        self.rng = random.Random(self.seed)
        self.position: VariantPosition = start(self.rules, n)
        self.n = self.position.n
        self.lead = self._head_start(lead)
        self.prizes = list(range(1, self.n + 1))
        self.rng.shuffle(self.prizes)
        if self.order in (ASCENDING, DESCENDING):  # a known order: the deck is sorted
            self.prizes.sort(reverse=self.order is DESCENDING)
        self._dummy_suit = list(range(1, self.n + 1))
        if self.rules.dummy:
            self.rng.shuffle(self._dummy_suit)
        self.declared: int | None = None  # the round from which your bids are face up
        self.history: list[Round] = []
        #: The position each round of :attr:`history` was played from (its prize up), for
        #: a review of the bids against the equilibrium (:meth:`review`).
        self.positions: list[VariantPosition] = []

    def _head_start(self, lead) -> int:
        """Give the starting score ``lead`` points to you (or -lead to the computer)."""
        if not lead:
            return 0
        if self.rules is not STANDARD:
            raise GopsInputError("a head start (lead) plays the two-player standard game only")
        from exact.dp.solve import check_lead

        lead = check_lead(self.n, lead, "the lead")
        start = (Fraction(max(lead, 0)), Fraction(max(-lead, 0)))
        self.position = dataclasses.replace(self.position, points=start)
        return lead

    # -- where the game stands ------------------------------------------------------------

    @property
    def rounds(self) -> int:
        """Rounds in the whole game (n, or n - 1 when the last prize is dropped)."""
        return self.rules.rounds(self.n)

    @property
    def round(self) -> int:
        """The round being played (from 1); the last one once the game is over."""
        return min(len(self.history) + 1, self.rounds)

    @property
    def over(self) -> bool:
        return len(self.history) == self.rounds

    @property
    def upcard(self) -> int | None:
        return self.position.upcard

    @property
    def points(self) -> tuple[Fraction, ...]:
        """The points of each player so far, then the dummy's."""
        return self.position.points

    @property
    def awaiting(self) -> str:
        """What the game needs next: "prize" (a prize to turn up: see :attr:`chooser`),
        "bid" (yours, on the prize that is up) or "over"."""
        if self.over:
            return "over"
        return "prize" if self.upcard is None else "bid"

    @property
    def chooser(self) -> str | None:
        """Who chooses the prize to turn up now: "me" (you), "them" (the computer), or
        None (the next of the shuffled or known sequence; always for the last prize)."""
        if self.awaiting != "prize" or len(self.position.deck) == 1:
            return None
        return self.order.chooser

    def prize_choices(self) -> list[int]:
        """The prizes you may choose from (when :attr:`chooser` is "me")."""
        return sorted(self.position.deck)

    def legal_bids(self) -> list[int]:
        """Your cards: the bids you may make."""
        return sorted(self.position.hands[0])

    @property
    def forced_bid(self) -> int | None:
        """Your only card, when a prize is up and you hold just one (it plays itself)."""
        hand = self.position.hands[0]
        return next(iter(hand)) if self.awaiting == "bid" and len(hand) == 1 else None

    @property
    def can_declare(self) -> bool:
        """Whether you may declare now (declarations on, not yet declared)."""
        return self.declarations and self.declared is None

    @property
    def leftover(self) -> int | None:
        """The prize never bid on (a dropped-last-prize variant), once the game is over."""
        return self.prizes[-1] if self.rules.drop_last and self.over else None

    @property
    def winner(self) -> int | None:
        """The player with the most points (0: you), None on a tie for the most (a draw);
        the dummy never wins."""
        real = self.points[: self.rules.players]
        leaders = [i for i, p in enumerate(real) if p == max(real)]
        return leaders[0] if len(leaders) == 1 else None

    def declaration_score(self):
        """The face-up declaration score of the finished game
        (:func:`~exact.game.variants.score_declarations`)."""
        return score_declarations(
            self.rounds, self.winner, {0: self.declared} if self.declared else None
        )

    # -- moves ----------------------------------------------------------------------------

    def _check_playing(self) -> None:
        if self.over:
            raise GopsInputError(f"the game is over: {self.rounds} rounds were played")

    def turn_up(self, prize: int | None = None) -> int:
        """Turn up the next prize and return it: ``prize``, yours to choose (chooser
        "me"), or None for the computer's choice or the next of the sequence."""
        self._check_playing()
        if self.upcard is not None:
            raise GopsInputError(f"the {self.upcard} is already up: bid on it")
        k = len(self.history)
        chooser = self.chooser
        if chooser == "me":
            if prize is None:
                raise GopsInputError(
                    "choose the next prize: one of " + " ".join(map(str, self.prize_choices()))
                )
            prize = as_card(prize, "the prize")
            if prize not in self.position.deck:
                raise GopsInputError(
                    f"the {prize} is not a prize left; choose one of "
                    + " ".join(map(str, self.prize_choices()))
                )
        elif prize is not None:
            raise GopsInputError(
                "you do not choose the prizes in this game (" + self.order.name + ")"
            )
        elif chooser == "them":
            (prize,) = self.computers[0].prize_choice(self.position, 1)
        else:
            prize = self.prizes[k]
        i = self.prizes.index(prize)
        self.prizes[i], self.prizes[k] = self.prizes[k], prize
        self.position = self.position.turn_up(prize)
        return prize

    def check_bid(self, card) -> int:
        """``card`` as a legal bid of yours now; one-line GopsInputError otherwise."""
        self._check_playing()
        if self.upcard is None:
            raise GopsInputError("no prize is up: turn one up before bidding")
        card = as_card(card, "your bid")
        if card not in self.position.hands[0]:
            raise GopsInputError(
                f"you do not hold the {card}; your cards are "
                + " ".join(map(str, self.legal_bids()))
            )
        return card

    def play(self, card, declare: bool = False) -> Round:
        """Bid ``card`` on the prize that is up (``declare``: face up from this round on);
        the computers reply, the round is scored, and its :class:`Round` returned."""
        card = self.check_bid(card)
        if declare:
            if not self.can_declare:
                raise GopsInputError(
                    "you cannot declare: "
                    + (
                        "declarations are off in this game"
                        if not self.declarations
                        else f"you declared in round {self.declared}"
                    )
                )
            self.declared = self.round
        pos, k = self.position, len(self.history)
        if self.declared is not None:  # the computer sees your bid before its own
            from exact.play.bots import face_up_reply

            theirs = (face_up_reply(self.computers[0].solution, pos, card),)
        else:  # drawn now, but independently of your bid
            theirs = tuple(bot.bid(pos, i, self.rng) for i, bot in enumerate(self.computers, 1))
        mixes = tuple(bot.mix(pos, i) for i, bot in enumerate(self.computers, 1))
        dummy = self._dummy_suit[k] if self.rules.dummy else None
        self.position, result = pos.play((card, *theirs), dummy)
        played = Round(
            k + 1,
            result.upcard,
            result.bids,
            result.dummy_bid,
            result.points,
            mixes,
            self.declared is not None,
        )
        self.history.append(played)
        self.positions.append(pos)
        return played

    def review(self, solution) -> list[dict]:
        """Your bids of a two-player standard game against the equilibrium of
        ``solution`` (solved for the game as you see it): for each round, the equilibrium's
        mix at its position, the value v of the position and what your bid ``cost``,
        v - (your bid's expected payoff against the opponent's equilibrium mix), in the
        objective's units (``solution.spec``: expected points; P(win) - P(loss) with the
        lead of that round);
        0 for a bid in the equilibrium's support, up to rounding.  ``forced``: your last
        card, which played itself.

        >>> import exact
        >>> from exact.play.bots import make_bot
        >>> game = Game(3, [make_bot("highest", 3)], seed=1)
        >>> game.replay([3, 1])  # prizes 2, 3, 1; the equilibrium bids 2 on the 3 here
        >>> [(r["prize"], r["you"], round(r["cost"], 6)) for r in game.review(exact.solve(3))]
        [(2, 3, 0.0), (3, 1, 2.0), (1, 2, 0.0)]
        """
        if self.rules is not STANDARD:  # two players, a tie discards
            raise GopsInputError("a review covers the two-player standard game only")
        out = []
        for played, pos in zip(self.history, self.positions):
            mine, theirs = set(pos.hands[0]), set(pos.hands[1])
            lead = int(pos.points[0] - pos.points[1]) if solution.spec.has_lead else None
            args = (mine, theirs, set(pos.deck), pos.upcard, lead)
            st = solution.strategy(*args)
            A = solution.matrix(*args)
            rows, cols = sorted(mine), sorted(theirs)
            row = A[rows.index(played.bids[0])]
            payoff = sum(float(a) * float(st.theirs[c]) for a, c in zip(row, cols))
            out.append(
                {
                    "round": played.number,
                    "prize": played.prize,
                    "you": played.bids[0],
                    "equilibrium": {c: float(p) for c, p in sorted(st.mine.items())},
                    "value": float(st.value),
                    "payoff": payoff,
                    "cost": max(0.0, float(st.value) - payoff) if len(mine) > 1 else 0.0,
                    "forced": len(mine) == 1,
                }
            )
        return out

    def settle(self) -> None:
        """Make the moves that need nothing from you: turn up a prize you do not choose,
        and bid your last card."""
        while not self.over:
            if self.awaiting == "prize" and self.chooser != "me":
                self.turn_up()
            elif self.forced_bid is not None:
                self.play(self.forced_bid)
            else:
                return

    def replay(self, bids: Iterable[int], prizes: Iterable[int] = ()) -> None:
        """Make your moves in the order the game asks for them, settling after each: a
        prize of ``prizes`` whenever you choose one, else a bid of ``bids``."""
        bids, prizes = list(bids), list(prizes)
        self.settle()
        while bids or prizes:
            self._check_playing()
            if self.awaiting == "prize":
                if not prizes:
                    raise GopsInputError(
                        f"choose the prize of round {self.round} before "
                        f"bidding (one of " + " ".join(map(str, self.prize_choices())) + ")"
                    )
                self.turn_up(prizes.pop(0))
            else:
                if not bids:
                    raise GopsInputError(
                        f"round {self.round} asks for your bid on the "
                        f"{self.upcard}, not a prize ({prizes[0]})"
                    )
                self.play(bids.pop(0))
            self.settle()
