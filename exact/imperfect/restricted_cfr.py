"""An approximate equilibrium of a restricted game by predictive CFR+ over its sequence form.

Where the restricted LP of :mod:`exact.imperfect.restricted` is too large for an interior
point in the time of a round (8 cards: over half a million sequences a player in the
first round), the double oracle needs only an approximate restricted equilibrium while
its target is loose.  Predictive CFR+ (Farina, Kroer & Sandholm, "Faster game solving via
predictive Blackwell approachability", AAAI 2021: regret matching+ with the last
instantaneous regret as the prediction, alternating updates, averages weighted by t^2;
CFR+ itself is Tammelin 2014) is run on the
restricted game's arrays: player 0's payoff A = -B^T with B the LP's block of player 1's
sequence rows and player 0's sequence columns (its chance weights included), so each
iteration is two sparse products (A y, A^T x) and one pass over each player's decisions:

    cfv(I, a) = g[I a] + sum_{J: parent J = I a} V(J),    V(I) = sum_a sigma(I, a) cfv(I, a)

bottom up over the rounds (g the gradient, A y for player 0, -A^T x for player 1), the
regrets r(I, a) <- max(r(I, a) + cfv(I, a) - V(I), 0) and sigma from them (Zinkevich,
Johanson, Bowling & Piccione 2007, in the sequence form).  The same pass with max in place
of sigma is a best response, so the restricted game's NashConv of the average is
computed as it runs; it stops at ``target`` or after ``max_iterations``.  A run may
start from the regrets of a run on a smaller restricted game (:class:`Regrets`, carried
by cell; the double oracle only adds bids).  Nothing proven
rests on this: the double oracle proves the whole game's NashConv of what it returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from exact.imperfect.restricted import GameTree, RestrictedLP

__all__ = ["Regrets", "Treeplex", "restricted_cfr"]

#: The restricted game's NashConv is computed every this many iterations.
CHECK_EVERY = 50


@dataclass(frozen=True)
class Treeplex:
    """One player's sequences in a restricted game: each sequence's decision (k >= 1;
    sequence 0 is the empty one), each decision's parent sequence, and the decisions of
    each round (the rounds' slices of the decisions, which are in increasing row)."""

    decision_of: np.ndarray
    parent_of: np.ndarray
    round_slices: tuple[slice, ...]
    sequence_slices: tuple[slice, ...]

    @classmethod
    def of(cls, tree: GameTree, built: RestrictedLP, player: int) -> Treeplex:
        n, offsets = tree.where.n, np.asarray(tree.where.offsets)
        cells, decisions = built.cells[player], built.in_play[player]
        decision_of = np.concatenate([[-1], np.searchsorted(decisions, cells // n)])
        parents = tree.parent_cells(decisions)
        parent_of = np.where(parents >= 0, 1 + np.searchsorted(cells, np.maximum(parents, 0)), 0)
        bounds = np.searchsorted(decisions, offsets)
        seq_bounds = np.searchsorted(cells // n, offsets)
        rounds = tuple(slice(int(a), int(b)) for a, b in zip(bounds, bounds[1:]))
        seqs = tuple(slice(1 + int(a), 1 + int(b)) for a, b in zip(seq_bounds, seq_bounds[1:]))
        return cls(decision_of, parent_of, rounds, seqs)

    def values(self, g: np.ndarray, sigma: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """cfv of every sequence and V of every decision (module docstring), under the
        behaviour ``sigma`` (per sequence), or a best response where it is None.  Each
        decision's sequences are consecutive (cells in increasing row), and every
        decision in play has one."""
        cfv = g.copy()
        v = np.zeros(len(self.parent_of))
        for rounds, seqs in zip(reversed(self.round_slices), reversed(self.sequence_slices)):
            if rounds.stop == rounds.start:
                continue
            local = self.decision_of[seqs] - rounds.start
            if sigma is None:
                starts = np.flatnonzero(np.diff(local, prepend=-1))
                v[rounds] = np.maximum.reduceat(cfv[seqs], starts)
            else:
                v[rounds] = np.bincount(local, sigma[seqs] * cfv[seqs], rounds.stop - rounds.start)
            cfv += np.bincount(self.parent_of[rounds], v[rounds], len(cfv))
        return cfv, v

    def behaviour(self, positive: np.ndarray) -> np.ndarray:
        """sigma per sequence from nonnegative weights: normalized at each decision,
        uniform where they are all 0."""
        totals = np.bincount(self.decision_of[1:], positive[1:], len(self.parent_of))
        counts = np.bincount(self.decision_of[1:], minlength=len(self.parent_of))
        sigma = np.ones_like(positive)
        t = totals[self.decision_of[1:]]
        sigma[1:] = np.where(t > 0, positive[1:] / np.where(t > 0, t, 1.0),
                             1.0 / counts[self.decision_of[1:]])  # fmt: skip
        return sigma

    def plan(self, sigma: np.ndarray) -> np.ndarray:
        """The realization plan of the behaviour ``sigma``, top down."""
        x = np.zeros_like(sigma)
        x[0] = 1.0
        for rounds, seqs in zip(self.round_slices, self.sequence_slices):
            reach = np.zeros(len(self.parent_of))
            reach[rounds] = x[self.parent_of[rounds]]
            x[seqs] = reach[self.decision_of[seqs]] * sigma[seqs]
        return x


@dataclass(frozen=True)
class Regrets:
    """Each player's cumulative regrets at the end of a run, by cell (the flat
    ``row * n + card - 1`` of each sequence), to warm-start the next restricted game."""

    cells: tuple[np.ndarray, np.ndarray]
    regrets: tuple[np.ndarray, np.ndarray]

    def on(self, built: RestrictedLP, player: int) -> np.ndarray:
        """The regrets on ``built``'s sequences of ``player``: each cell's own where this
        run had it, 0 for cells new to ``built`` (bids not yet tried)."""
        cells, old = built.cells[player], self.cells[player]
        regrets = np.zeros(1 + len(cells))
        if len(old):
            at = np.minimum(np.searchsorted(old, cells), len(old) - 1)
            kept = old[at] == cells
            regrets[1:][kept] = self.regrets[player][1:][at[kept]]
        return regrets


def restricted_cfr(
    tree: GameTree,
    built: RestrictedLP,
    target: float,
    max_iterations: int,
    progress: Callable[[int, float], None] | None = None,
    warm: Regrets | None = None,
) -> tuple[np.ndarray, np.ndarray, dict]:
    """Both players' average realization plans after CFR+ on the restricted game (module
    docstring) and facts (iterations, the restricted game's NashConv of the average, and
    the final :class:`Regrets` as ``regrets``).  ``warm``: the regrets of a run on a
    smaller restricted game, to start from (the averages start afresh)."""
    lp = built.lp
    b = lp.matrix()[: lp.n_ub, : lp.n_own].tocsr()
    bt = b.T.tocsr()
    plexes = (Treeplex.of(tree, built, 0), Treeplex.of(tree, built, 1))
    if warm is None:
        regrets = [np.zeros(lp.n_own), np.zeros(lp.n_ub)]
    else:
        regrets = [warm.on(built, 0), warm.on(built, 1)]
    sigmas = [plexes[p].behaviour(regrets[p]) for p in (0, 1)]
    plans = [plexes[p].plan(sigmas[p]) for p in (0, 1)]
    sums = [np.zeros(lp.n_own), np.zeros(lp.n_ub)]
    weight, gap, iteration = 0.0, np.inf, 0
    for iteration in range(1, max_iterations + 1):
        for p in (0, 1):
            g = -(bt @ plans[1]) if p == 0 else b @ plans[0]
            cfv, v = plexes[p].values(g, sigmas[p])
            instant = cfv - v[np.maximum(plexes[p].decision_of, 0)]
            regrets[p] = np.maximum(regrets[p] + instant, 0.0)
            sigmas[p] = plexes[p].behaviour(np.maximum(regrets[p] + instant, 0.0))
            plans[p] = plexes[p].plan(sigmas[p])
            sums[p] += iteration**2 * plans[p]
        weight += iteration**2
        if iteration % CHECK_EVERY == 0 or iteration == max_iterations:
            average = [s / weight for s in sums]
            gap = _nash_conv(b, bt, plexes, average)
            if progress is not None:
                progress(iteration, gap)
            if gap <= target:
                break
    average = [s / weight for s in sums]
    final = Regrets(built.cells, (regrets[0], regrets[1]))
    facts = {"solver": "pcfr+", "iterations": iteration, "restricted_nash_conv": gap}
    return average[0], average[1], {**facts, "regrets": final}


def _nash_conv(b, bt, plexes, plans) -> float:
    """The restricted game's NashConv of the plans: both best responses' values."""
    v0 = plexes[0].values(-(bt @ plans[1]), None)[0][0]
    v1 = plexes[1].values(b @ plans[0], None)[0][0]
    return float(v0 + v1)
