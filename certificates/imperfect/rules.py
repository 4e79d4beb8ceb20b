"""Imperfect-information Goofspiel and its sequence form, built from the rules alone.

The game is OpenSpiel's ``goofspiel(imp_info=True)`` in its turn-based form (Lanctot's
thesis, 2013, sec 3.1.4; OpenSpiel's ``goofspiel.cc``), as certificates/FORMAT.md,
"Imperfect-information certificates", states it:

- N cards 1..N in each hand and in the prize deck.  Each round a prize is turned up (in
  the ``random`` order each remaining prize is equally likely; ``descending`` turns up
  N, N-1, ..., 1; ``ascending`` 1, 2, ..., N); both players bid a card; the higher bid
  wins the prize, a tie discards it.  Once one card is left in each hand (N >= 2) the
  last round plays itself.
- A player sees the prizes so far, their own bids and who won each round (0, 1, or -3 for
  a tie), never the opponent's bids.  A decision is therefore named by (prizes so far,
  own bids, winners), and its name in the file is OpenSpiel's information-state string
  (:func:`information_state_string`).
- Player 0's return: ``point_difference`` (p0 - p1) / 2, ``win_loss`` sign(p0 - p1).

Sequence form (Koller, Megiddo & von Stengel 1996): a sequence of a player is the empty
one (index 0) or a (decision, bid) pair; a decision's parent is the sequence of the
player's previous decision and bid.  The payoff A[s0, s1] sums, over the terminal
histories whose sequences are s0 and s1, chance's probability times player 0's return.
Every entry is kept as an integer: A times ``scale`` = 2 N! (chance's probabilities are
1/N! at worst, returns are halves).

This module shares no code with the solver: it is written from FORMAT.md.

>>> form = sequence_form(2, "descending", "point_difference")
>>> [d.string.splitlines()[1:3] for d in form.players[0].decisions]
[['P0 hand: 1 2 ', 'P0 action sequence: ']]
>>> form.scale, sorted(form.payoff.items())  # bids 1 v 2: -1/2, 2 v 1: +1/2 (times 4)
(4, [((1, 2), -2), ((2, 1), 2)])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import factorial

#: OpenSpiel's entry in the win sequence for a tied round.
TIE = -3


@dataclass(frozen=True)
class Decision:
    """One information state of a player: its string, its legal cards (increasing), the
    index of its parent sequence, the index of its first own sequence (one per card)."""

    string: str
    cards: tuple[int, ...]
    parent: int
    first: int
    depth: int


@dataclass
class Player:
    """A player's decisions (depth first, each also found by its key (prizes, own bids,
    winners) and by its string) and sequence indices: ``index[(d, card)]``."""

    decisions: list[Decision] = field(default_factory=list)
    by_key: dict = field(default_factory=dict)
    by_string: dict = field(default_factory=dict)
    index: dict = field(default_factory=dict)

    @property
    def sequences(self) -> int:
        """The number of sequences, the empty one included."""
        return len(self.index) + 1


@dataclass(frozen=True)
class SequenceForm:
    """Both players' decisions, and A scaled to integers: ``payoff[(s0, s1)] / scale``."""

    n: int
    players: tuple[Player, Player]
    payoff: dict
    scale: int


def winner(bid0: int, bid1: int) -> int:
    return 0 if bid0 > bid1 else 1 if bid1 > bid0 else TIE


def points(prizes, winners) -> tuple[int, int]:
    totals = [0, 0]
    for prize, who in zip(prizes, winners):
        if who != TIE:
            totals[who] += prize
    return totals[0], totals[1]


def _spaced(numbers) -> str:
    return "".join(f"{a} " for a in numbers)


def information_state_string(player: int, n: int, prizes, own, winners) -> str:
    """OpenSpiel's turn-based information-state string of a decision (FORMAT.md): bids
    written as action ids (card - 1), the hand, prizes and points as cards.

    >>> information_state_string(1, 3, (3, 1), (2,), (TIE,)).splitlines()
    ... # doctest: +NORMALIZE_WHITESPACE
    ['Current player: 1', 'P1 hand: 1 3 ', 'P1 action sequence: 1 ',
     'Point card sequence: 3 1 ', 'Win sequence: -3 ', 'Points: 0 0 ', 'Terminal?: 0']
    """
    hand = [c for c in range(1, n + 1) if c not in own]
    p0, p1 = points(prizes, winners)
    return (
        f"Current player: {player}\n"
        f"P{player} hand: {_spaced(hand)}\n"
        f"P{player} action sequence: {_spaced(c - 1 for c in own)}\n"
        f"Point card sequence: {_spaced(prizes)}\n"
        f"Win sequence: {_spaced(winners)}\n"
        f"Points: {p0} {p1} \n"
        "Terminal?: 0\n"
    )


def _decision(who: Player, player: int, n: int, prizes, own, winners, parent: int) -> int:
    """The index of the decision (prizes, own, winners) of ``who``, added if new."""
    key = (prizes, own, winners)
    d = who.by_key.get(key)
    if d is None:
        d = who.by_key[key] = len(who.decisions)
        cards = tuple(c for c in range(1, n + 1) if c not in own)
        first = who.sequences
        for c in cards:
            who.index[d, c] = len(who.index) + 1
        string = information_state_string(player, n, prizes, own, winners)
        who.by_string[string] = d
        who.decisions.append(Decision(string, cards, parent, first, len(own)))
    return d


def _return(prizes, winners, points_difference: bool, weight: int) -> int:
    """Player 0's return times 2 N!, for a history of chance weight N! * probability."""
    p0, p1 = points(prizes, winners)
    if points_difference:
        return weight * (p0 - p1)
    return 2 * weight * ((p0 > p1) - (p0 < p1))


def sequence_form(n: int, order: str, returns_type: str) -> SequenceForm:
    """Walk every history of the game once: register both players' decisions as they are
    reached (depth first) and add each terminal history to A.

    The walk carries the prizes, both players' bids, their last sequences and chance's
    weight N! * probability (an integer: chance's probabilities multiply to 1/m with m
    dividing N!)."""
    players = (Player(), Player())
    payoff: dict = {}
    full = factorial(n)
    deck = range(1, n + 1)
    difference = returns_type == "point_difference"

    def walk(prizes, bids0, bids1, weight, s0, s1):
        rounds = len(bids0)
        if rounds == n or (rounds == n - 1 and rounds >= 1):
            if rounds < n:  # the last round plays itself
                prizes = (*prizes, *(c for c in deck if c not in prizes))
                bids0 = (*bids0, *(c for c in deck if c not in bids0))
                bids1 = (*bids1, *(c for c in deck if c not in bids1))
            value = _return(prizes, tuple(map(winner, bids0, bids1)), difference, weight)
            if value:
                payoff[s0, s1] = payoff.get((s0, s1), 0) + value
            return
        if len(prizes) == rounds:  # the next prize
            left = [c for c in deck if c not in prizes]
            if order == "random":
                for prize in left:
                    walk((*prizes, prize), bids0, bids1, weight // len(left), s0, s1)
            else:
                prize = max(left) if order == "descending" else min(left)
                walk((*prizes, prize), bids0, bids1, weight, s0, s1)
            return
        winners = tuple(map(winner, bids0, bids1))
        d0 = _decision(players[0], 0, n, prizes, bids0, winners, s0)
        d1 = _decision(players[1], 1, n, prizes, bids1, winners, s1)
        for c0 in players[0].decisions[d0].cards:
            t0 = players[0].index[d0, c0]
            for c1 in players[1].decisions[d1].cards:
                walk(prizes, (*bids0, c0), (*bids1, c1), weight, t0, players[1].index[d1, c1])

    walk((), (), (), full, 0, 0)
    return SequenceForm(n, players, payoff, 2 * full)


def best_response(form: SequenceForm, responder: int, plan: list) -> int:
    """The responder's best value against the opponent's ``plan`` (integer weights, one
    per sequence of the opponent, at any common scale D): player 0's expected return,
    times ``form.scale * D``; player 0 maximises it, player 1 minimises it.

    Each sequence of the responder collects the payoff of the histories it ends, weighted
    by the opponent's plan; then each decision, deepest first, adds the best of its bids
    to the sequence that leads to it (every decision a sequence leads to is independent
    of the others given the sequence: perfect recall).  The empty sequence's total is the
    best response's value.
    """
    own = form.players[responder]
    value = [0] * own.sequences
    if responder == 0:
        for (s0, s1), a in form.payoff.items():
            value[s0] += a * plan[s1]
    else:
        for (s0, s1), a in form.payoff.items():
            value[s1] += a * plan[s0]
    choose = max if responder == 0 else min
    for decision in sorted(own.decisions, key=lambda d: -d.depth):
        first = decision.first
        value[decision.parent] += choose(value[first : first + len(decision.cards)])
    return value[0]
