"""The sequence form of imperfect-information Goofspiel (two players, zero-sum).

Koller, Megiddo & von Stengel, "Efficient computation of equilibria for extensive
two-person games", Games and Economic Behavior 14 (1996) (and von Stengel, "Efficient
computation of behavior strategies", GEB 14, 1996; Shoham & Leyton-Brown, "Multiagent
Systems", 2009, sec 5.2.3):

- A *sequence* of player i is the list of i's (decision, bid) pairs on the path to a
  node; with perfect recall it is named by its last pair, or is the empty sequence.  Here
  the pair is (an :data:`~exact.imperfect.game.InfoKey`, a card); index 0 is the empty
  sequence, then each decision's bids in the order of
  :meth:`ImperfectGame.information_states`.
- A *realization plan* x of player 0 (the reach of each sequence by 0's own choices)
  satisfies E x = e, x >= 0: row 0 says x[empty] = 1, row k (k >= 1, one per decision I)
  says sum_a x[I a] - x[parent(I)] = 0, where parent(I) is the sequence that leads to I.
  Player 1's plan y satisfies F y = f alike.
- The payoff matrix A (player 0's return, OpenSpiel's units) has, at (s, t), the sum
  over the terminal histories whose sequences are s and t of chance's probability times
  the return; so x^T A y is player 0's expected return.

In Goofspiel a decision (prizes, own bids, seen) with r >= 1 bids made has parent
(prizes[:r], own[:r-1], seen[:r-1]) followed by the bid own[r-1], read off the key; seen
is what the player saw of each round, the winners or, for a player who sees the bids
(:class:`~exact.imperfect.game.Information`), the opponent's bids, so the same form
serves every information model.
Every number is an exact Fraction; the float LP reads them as floats.

>>> from exact.imperfect.game import ImperfectGame
>>> form = sequence_form(ImperfectGame.parse(2, "descending", "points"))
>>> form.players[0].size, form.players[0].constraints()  # x[()] = 1, x[bid 1] + x[bid 2] = x[()]
(3, ([{0: 1}, {0: -1, 1: 1, 2: 1}], [1, 0]))
>>> sorted(form.payoff.items())  # P0 bids 1, P1 2: P1 wins the 2, P0 the 1: -1/2
[((1, 2), Fraction(-1, 2)), ((2, 1), Fraction(1, 2))]
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from exact.imperfect.game import ImperfectGame, InfoKey, InformationState, round_winner

__all__ = [
    "PlayerSequences",
    "SequenceForm",
    "get_payoff",
    "get_sequences",
    "parent_sequence",
    "sequence_form",
]

#: A sequence: the empty one, or the last (decision, card) of the player's path.
Sequence = tuple[InfoKey, int] | tuple[()]
EMPTY: Sequence = ()


def parent_sequence(key: InfoKey) -> Sequence:
    """The sequence that leads to the decision ``key``: its player's previous decision and
    the bid made there (the empty sequence at a first decision)."""
    prizes, own, winners = key
    r = len(own)
    if r == 0:
        return EMPTY
    return (prizes[:r], own[: r - 1], winners[: r - 1]), own[r - 1]


@dataclass(frozen=True)
class PlayerSequences:
    """One player's decisions and sequences: ``index[sequence]`` is its position (0: the
    empty sequence); ``parents[k]`` is the index of the sequence leading to
    ``decisions[k]``; ``first[k]`` the index of that decision's first bid."""

    player: int
    decisions: tuple[InformationState, ...]
    index: dict
    parents: tuple[int, ...]
    first: tuple[int, ...]

    @property
    def size(self) -> int:
        """The number of sequences (the empty one included)."""
        return len(self.index)

    def constraints(self) -> tuple[list[dict[int, int]], list[int]]:
        """E and e (sparse rows {column: coefficient}): x[empty] = 1, then one row per
        decision, sum of its bids' sequences minus its parent sequence = 0."""
        rows: list[dict[int, int]] = [{0: 1}]
        for k, decision in enumerate(self.decisions):
            row = {self.parents[k]: -1}
            row.update({self.first[k] + j: 1 for j in range(len(decision.legal))})
            rows.append(row)
        return rows, [1] + [0] * len(self.decisions)


def get_sequences(game: ImperfectGame, player: int) -> PlayerSequences:
    """``player``'s sequences (module docstring), each decision's parent found among the
    sequences listed before it (the decisions come depth first)."""
    index: dict = {EMPTY: 0}
    decisions, parents, first = [], [], []
    for decision in game.information_states(player):
        parents.append(index[parent_sequence(decision.key)])
        first.append(len(index))
        for action in decision.legal:
            index[(decision.key, action + 1)] = len(index)
        decisions.append(decision)
    return PlayerSequences(player, tuple(decisions), index, tuple(parents), tuple(first))


def get_payoff(
    game: ImperfectGame, seqs0: PlayerSequences, seqs1: PlayerSequences
) -> dict[tuple[int, int], Fraction]:
    """A as {(player 0's sequence, player 1's): entry}, zero entries left out: every
    terminal history's chance probability times player 0's return, added at the pair of
    sequences it ends (module docstring)."""
    payoff: dict[tuple[int, int], Fraction] = {}
    cards = frozenset(range(1, game.n + 1))

    def walk(prizes, bids0, bids1, chance, s0, s1):
        rounds = len(bids0)
        if rounds == game.n or (rounds == game.n - 1 and rounds >= 1):
            if rounds < game.n:  # the last round plays itself
                (prize,) = cards - set(prizes)
                (c0,) = cards - set(bids0)
                (c1,) = cards - set(bids1)
                prizes, bids0, bids1 = (*prizes, prize), (*bids0, c0), (*bids1, c1)
            winners = tuple(map(round_winner, bids0, bids1))
            value = chance * game.terminal_return(prizes, winners)
            if value:
                payoff[s0, s1] = payoff.get((s0, s1), Fraction(0)) + value
            return
        if len(prizes) == rounds:
            fixed = game.next_prize(prizes)
            left = [fixed] if fixed is not None else sorted(cards - set(prizes))
            for prize in left:
                walk((*prizes, prize), bids0, bids1, chance / len(left), s0, s1)
            return
        key0 = game.information_key(0, prizes, bids0, bids1)
        key1 = game.information_key(1, prizes, bids0, bids1)
        for c0 in sorted(cards - set(bids0)):
            t0 = seqs0.index[key0, c0]
            for c1 in sorted(cards - set(bids1)):
                walk(prizes, (*bids0, c0), (*bids1, c1), chance, t0, seqs1.index[key1, c1])

    walk((), (), (), Fraction(1), 0, 0)
    return payoff


@dataclass(frozen=True)
class SequenceForm:
    """The game's sequence form: both players' sequences and constraints, and A."""

    game: ImperfectGame
    players: tuple[PlayerSequences, PlayerSequences]
    payoff: dict[tuple[int, int], Fraction]

    def expected_return(self, x, y) -> Fraction:
        """x^T A y: player 0's expected return when the players follow plans x and y."""
        return sum((v * x[s] * y[t] for (s, t), v in self.payoff.items()), Fraction(0))


def sequence_form(game: ImperfectGame) -> SequenceForm:
    """The sequence form of ``game`` (module docstring)."""
    seqs = (get_sequences(game, 0), get_sequences(game, 1))
    return SequenceForm(game, seqs, get_payoff(game, *seqs))
