"""What the computed equilibrium does: when it declares, and what the game is worth to the
winner.

Forward over the rounds from the start, the probability of every (game, position, score)
that the computed equilibrium reaches (:mod:`exact.declarations.solver`: its matrix-game
strategies, the leader's lowest optimal card, the replier's lowest best reply).  A
decided position of the open game is played as its value assumes: the sure winner
declares at once.  A finished game is scored by
:func:`exact.game.variants.score_declarations`, the project's scoring of declarations.
In exact arithmetic every probability is a rational, so the results
are exact statements about that equilibrium (another equilibrium of the same value may
declare at other rounds).

- ``declare_by_round[r - 1]``: the probability that the first declaration is made in round
  r (both players together; the last round is never counted, a declaration there changes
  nothing);
- ``earliest_declaration``: the first round with a positive probability, None if the
  equilibrium never declares;
- ``score_distribution[s]``: the probability that the winner scores s (s = 0: a draw);
- ``expected_score``: the winner's expected score, sum of s times its probability.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from flint import fmpq

from exact.declarations.rules import Position, bit_positions, child, decided_sign, full_position
from exact.declarations.solver import Tables
from exact.game.variants import score_declarations

__all__ = ["PathStats", "path_stats"]


@dataclass(frozen=True)
class PathStats:
    """The computed equilibrium's declarations and scores (module docstring)."""

    declare_by_round: tuple
    earliest_declaration: int | None
    score_distribution: tuple
    expected_score: object


def _final_sign(pos: Position) -> int | None:
    s = decided_sign(pos)
    if s is None and pos.cards == 1:
        (i,), (j,), (u,) = (bit_positions(m) for m in (pos.mine, pos.theirs, pos.prizes))
        d = pos.lead + (u + 1) * ((i > j) - (i < j))
        s = (d > 0) - (d < 0)
    return s


class _Walk:
    def __init__(self, tables: Tables):
        self.t = tables
        n = tables.n
        self.zero = fmpq(0) if tables.exact else 0.0
        self.declared = [self.zero] * n
        self.scores = [self.zero] * (n + 1)
        self.next: dict = defaultdict(lambda: self.zero)

    def add(self, family, pos, stake, p):
        if p != 0:
            self.next[family, pos, stake] += p

    def sealed(self, family, pos, u, bids, stake, p):
        x, y, _ = bids
        mine, theirs = bit_positions(pos.mine), bit_positions(pos.theirs)
        for a, i in enumerate(mine):
            for b, j in enumerate(theirs):
                self.add(family, child(pos, u, i, j), stake, p * x[a] * y[b])

    def face_up(self, family, pos, u, stage, stake, p):
        mine, theirs = bit_positions(pos.mine), bit_positions(pos.theirs)
        a, b = stage.leader, stage.replies[stage.leader]
        i, j = (mine[a], theirs[b]) if family == "lead0" else (mine[b], theirs[a])
        self.add(family, child(pos, u, i, j), stake, p)

    def step(self, family, pos, stake, p, rnd):
        """One round from (family, pos, stake), reached with probability p."""
        s = _final_sign(pos)
        if s is not None:
            if family == "open" and s != 0 and pos.prizes:
                stake = pos.cards  # the sure winner declares now
                if pos.cards > 1:
                    self.declared[rnd - 1] += p
            winner = None if s == 0 else (0 if s > 0 else 1)
            first = {0: self.t.n - stake + 1}  # the earliest declaration (none: the last round)
            self.scores[score_declarations(self.t.n, winner, first).score] += p
            return
        k = pos.cards
        stages = self.t.stages
        for idx, u in enumerate(bit_positions(pos.prizes)):
            q = p / k
            st = stages[family][pos.key()][idx]
            if family in ("lead0", "lead1"):
                self.face_up(family, pos, u + 1, st, stake, q)
            elif family == "sim":
                self.sealed(family, pos, u + 1, st.bids, stake, q)
            else:
                x, y, _ = st.declare
                self.sealed("open", pos, u + 1, st.bids, stake, q * x[0] * y[0])
                self.declared[rnd - 1] += q * (1 - x[0] * y[0])
                for fam, w in (("lead0", x[1] * y[0]), ("lead1", x[0] * y[1])):
                    if w != 0:
                        self.face_up(fam, pos, u + 1, stages[fam][pos.key()][idx], k, q * w)
                if x[1] * y[1] != 0:
                    sim = stages["sim"][pos.key()][idx]
                    self.sealed("sim", pos, u + 1, sim.bids, k, q * x[1] * y[1])


def path_stats(tables: Tables) -> PathStats:
    """The computed equilibrium's declarations and scores, exact in exact tables."""
    walk = _Walk(tables)
    one = fmpq(1) if tables.exact else 1.0
    frontier = {("open", full_position(tables.n), 1): one}
    for rnd in range(1, tables.n + 1):
        walk.next = defaultdict(lambda: walk.zero)
        for (family, pos, stake), p in frontier.items():
            walk.step(family, pos, stake, p, rnd)
        frontier = walk.next
    earliest = next((r + 1 for r, p in enumerate(walk.declared) if p > 0), None)
    expected = sum((s * p for s, p in enumerate(walk.scores)), walk.zero)
    return PathStats(tuple(walk.declared), earliest, tuple(walk.scores), expected)
