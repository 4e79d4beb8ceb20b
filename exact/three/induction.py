"""Subgame-perfect equilibrium of three-player GOPS by backward induction over canonical positions.

The value of a position (three hands H, prizes P, for ``top`` the points so far) is a
vector, one entry per player (Rhoads & Bartholdi 2012's recursion f(V, Y, P), sec 3,
with three bidders and a vector in place of the zero-sum value):

    f(H, P) = (1/|P|) sum_{u in P} g_u(H, P)             (random order; one u otherwise)
    g_u     = the chosen equilibrium's payoffs of the stage game
              A[i, a] = r_i(u, a) + f_i(H - a, P - u),  a = (a0, a1, a2) the three bids

with r the round's points (``points``; 0 for ``top``, whose points move into the child's
position and are scored 1/m to each of m leaders at the end).  Each stage's equilibrium is
the one :func:`exact.three.stage.solve_stage` defines (the logit principal branch's limit,
polished).  Positions are solved once per canonical form (:mod:`exact.three.canonical`),
from the start down, by memoised recursion: only reachable positions are solved.

Invariants: values are floats; the stage regrets are recorded (``max_stage_regret``); the
claim about the whole game is :func:`exact.three.nashconv.nashconv`'s, not this module's.
"""

from __future__ import annotations

import math
import resource
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product

import numpy as np

from exact.three.canonical import Key, canonical, twins
from exact.three.rules import ThreeGame, round_points, top_shares
from exact.three.stage import StageSolution, solve_stage
from exact.three.walk import FLOAT, reached_stages

__all__ = ["PlayStatistics", "ThreeSolution", "play_statistics", "solve_game"]


@dataclass
class ThreeSolution:
    """Values of every solved canonical position and the stage equilibria (float)."""

    game: ThreeGame
    # Key -> np.ndarray (3,); (Key, upcard) -> StageSolution.  A solve's are dicts, a
    # loaded solution's read-only views of its columns (exact.three.stage_table).
    values: Mapping = field(default_factory=dict)
    stages: Mapping = field(default_factory=dict)
    seconds: float = 0.0  # wall clock
    cpu_seconds: float = 0.0  # this process's CPU time
    peak_rss_bytes: int = 0
    methods: dict = field(default_factory=dict)  # method -> count of stages

    @property
    def root(self) -> Key:
        n = self.game.n
        hand = tuple(range(1, n + 1))
        key, _ = canonical((hand, hand, hand), hand, (0, 0, 0))
        return key

    def seat_values(self) -> np.ndarray:
        """Each seat's expected points (or chance of finishing on top) at the start."""
        return self.values[self.root]

    @property
    def max_stage_regret(self) -> float:
        return max((s.regret for s in self.stages.values()), default=0.0)

    def stage(self, hands, prizes, points, upcard) -> tuple[StageSolution, tuple[int, ...]]:
        """The stage solution of a position (actual cards) and the player permutation."""
        key, perm = canonical(hands, tuple(sorted(prizes)), self._units(points))
        try:
            return self.stages[(key, upcard)], perm
        except KeyError:
            raise KeyError(f"position not solved: {hands} {prizes} {points} {upcard}") from None

    def key(self, hands, prizes, points) -> Key:
        """The canonical form of a position (actual cards), which its stages are kept by."""
        return canonical(hands, tuple(sorted(prizes)), self._units(points))[0]

    def mixes(self, hands, prizes, points, upcard) -> tuple[np.ndarray, ...]:
        """Each actual player's mix over their hand (ascending) at a position."""
        st, perm = self.stage(hands, prizes, points, upcard)
        out: list = [None, None, None]
        for j in range(3):
            out[perm[j]] = st.mixes[j]
        return tuple(out)

    def _units(self, points) -> tuple[int, int, int]:
        """Points so far in half points (``top``); all zero for ``points``."""
        if not self.game.top:
            return (0, 0, 0)
        return tuple(_half_points(p) for p in points)  # type: ignore[return-value]

    def level_counts(self) -> dict[int, int]:
        """Canonical positions solved, by cards left."""
        counts: dict[int, int] = {}
        for key in self.values:
            counts[len(key[1])] = counts.get(len(key[1]), 0) + 1
        return dict(sorted(counts.items()))


def _half_points(p) -> int:
    """int(2 p), truncated toward zero; a Fraction's (as the walks' points are) in
    integers alone, without building another Fraction."""
    if isinstance(p, Fraction):
        twice = 2 * p.numerator
        return twice // p.denominator if twice >= 0 else -(-twice // p.denominator)
    return int(Fraction(p) * 2)


class _Solver:
    """The backward induction: a position's value is the mean over its upcards of the
    stage games' values; a stage game's payoff, for each bid profile, is the round's
    points plus the value of the position after it (``points``), or that value with the
    points carried in the position (``top``).  Every child is solved before its stage
    game, in bid-profile order, so the stage games are solved children first, always in
    the same order.  A stage game found in ``known`` is taken as it is (its children still
    visited first, so that the positions and their order are an unstopped solve's);
    ``on_stage(key, upcard, stage)`` is told of every stage game solved here."""

    def __init__(
        self, game: ThreeGame, solution: ThreeSolution, progress=None, known=None, on_stage=None
    ):
        self.game = game
        self.sol = solution
        self.values: dict = {}
        self.stages: dict = {}
        solution.values, solution.stages = self.values, self.stages
        self.shares: dict = {}
        self.progress = progress  # called with the stage games solved so far
        self.solved = 0
        self.known = dict(known or {})
        self.on_stage = on_stage
        self.forms: dict = {}

    def share(self, bids) -> tuple[Fraction, ...]:
        try:
            return self.shares[bids]
        except KeyError:
            s = self.shares[bids] = round_points(1, bids, self.game.tie_rule)
            return s

    def value(self, key: Key) -> np.ndarray:
        done = self.values.get(key)
        if done is not None:
            return done
        hands, prizes, units = key
        if not prizes:
            if self.game.top:
                v = np.array([float(x) for x in top_shares(units)])
            else:
                v = np.zeros(3)
        else:
            vals = [self.stage(key, u).values for u in self.game.order.next_prizes(prizes)]
            v = np.mean(vals, axis=0)
        self.values[key] = v
        return v

    def stage(self, key: Key, u: int) -> StageSolution:
        children = self.children(key, u)
        st = self.known.pop((key, u), None)
        if st is None:
            st = solve_stage(self.payoffs(key, u, children), twins(key))
            if self.on_stage is not None:
                self.on_stage(key, u, st)
        self.stages[(key, u)] = st
        self.sol.methods[st.method] = self.sol.methods.get(st.method, 0) + 1
        self.solved += 1
        if self.progress is not None:
            self.progress(self.solved)
        return st

    def children(self, key: Key, u: int) -> list:
        """Each bid profile ``a`` of the stage game at upcard ``u``, in product order,
        with the round's shares of the bids, the value of the position after it (solved
        here if it was not) and the permutation from that position's canonical players."""
        hands, prizes, units = key
        rest = tuple(p for p in prizes if p != u)
        out = []
        if self.game.top:
            for a in product(range(len(prizes)), repeat=3):
                won = self.share(tuple(hands[i][a[i]] for i in range(3)))
                child = tuple(hands[i][: a[i]] + hands[i][a[i] + 1 :] for i in range(3))
                cunits = tuple(units[i] + int(2 * u * won[i]) for i in range(3))
                ckey, cperm = canonical(child, rest, cunits)
                out.append((a, won, self.value(ckey), cperm))
            return out
        for a, won, h, s, cperm in self.child_forms(hands):
            out.append((a, won, self.value((h, rest, s)), cperm))
        return out

    def child_forms(self, hands) -> list:
        """``points``: each bid profile of ``hands`` with its shares and the canonical
        (hands, points, permutation) of the position after it, which do not depend on the
        upcard (only the prizes left do): found once for a position's upcards.  They come
        one after the other, the recursion between them going deeper only, so one
        position a level is kept."""
        level = len(hands[0])
        kept = self.forms.get(level)
        if kept is not None and kept[0] == hands:
            return kept[1]
        forms = []
        for a in product(range(level), repeat=3):
            won = self.share(tuple(hands[i][a[i]] for i in range(3)))
            child = tuple(hands[i][: a[i]] + hands[i][a[i] + 1 :] for i in range(3))
            (h, _, s), cperm = canonical(child, (), (0, 0, 0))
            forms.append((a, won, h, s, cperm))
        self.forms[level] = (hands, forms)
        return forms

    def payoffs(self, key: Key, u: int, children: list) -> np.ndarray:
        """A[i, a]: canonical player i's payoff at bid profile a (the class docstring)."""
        k = len(key[1])
        A = np.empty((3, k, k, k))
        for a, won, cv, cperm in children:
            for j in range(3):
                if self.game.top:
                    A[(cperm[j], *a)] = cv[j]
                else:
                    A[(cperm[j], *a)] = cv[j] + float(u * won[cperm[j]])
        return A


def solve_game(game: ThreeGame, progress=None, known=None, on_stage=None) -> ThreeSolution:
    """Solve ``game`` from its start (every reachable canonical position); ``progress``,
    if given, is called with the number of stage games solved after each one.  The stage
    games of ``known`` ({(key, upcard): StageSolution}, as a checkpoint holds them) are
    taken as they are, not solved again; ``on_stage(key, upcard, stage)`` is called with
    each stage game solved (:mod:`exact.three.checkpoint` appends it to its side file).
    The solution is the same, bit for bit, as a solve with nothing known."""
    sol = ThreeSolution(game)
    start, cpu = time.perf_counter(), time.process_time()
    # The recursion is two frames a round (value, then stage), N <= THREE_MAX_N rounds
    # deep: far below Python's default limit, which is left alone.
    _Solver(game, sol, progress, known, on_stage).value(sol.root)
    sol.seconds = time.perf_counter() - start
    sol.cpu_seconds = time.process_time() - cpu
    sol.peak_rss_bytes = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return sol


@dataclass(frozen=True)
class PlayStatistics:
    """What equilibrium play looks like, round by round (all seats pooled)."""

    entropy_bits: tuple[float, ...]  # the mean Shannon entropy of a player's mix, by round
    tie_for_high: tuple[float, ...]  # P(two or three players tie for the high bid), by round
    three_way_tie: tuple[float, ...]  # P(all three bid alike), by round


def play_statistics(sol: ThreeSolution) -> PlayStatistics:
    """Forward over the stages that equilibrium play reaches, with their probabilities
    (:func:`exact.three.walk.reached_stages`, in float): the mixes' entropy and the ties
    for the high bid, by round.  Positions with one canonical form are walked once: the
    solution's mixes there are one stage's, its seats permuted, and a seat permutation,
    an order-keeping relabelling of the cards or a shift of the points changes neither a
    mix's entropy nor whether bids tie for the high bid."""
    game, n = sol.game, sol.game.n
    ent, tie, three = [0.0] * n, [0.0] * n, [0.0] * n
    reached = reached_stages(
        n, game.tie_rule, game.order, sol.mixes, FLOAT, track_points=game.top, same=sol.key
    )
    for st in reached:
        r = st.round - 1
        ent[r] += st.probability * sum(entropy_bits(x) for x in st.mixes) / 3
        for bids, q in st.profiles:
            top = sum(b == max(bids) for b in bids)
            tie[r] += st.probability * q * (top > 1)
            three[r] += st.probability * q * (top == 3)
    return PlayStatistics(tuple(ent), tuple(tie), tuple(three))


def entropy_bits(mix) -> float:
    """Shannon entropy of a mix, in bits."""
    return float(-sum(p * math.log2(p) for p in mix if p > 0))
