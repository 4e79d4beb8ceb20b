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
iteration is two sparse products (A y, A^T x) and, for each player, one pass over its
decisions bottom up and one top down (numba kernels):

    cfv(I, a) = g[I a] + sum_{J: parent J = I a} V(J),    V(I) = sum_a sigma(I, a) cfv(I, a)

bottom up (g the gradient, A y for player 0, -A^T x for player 1), the
regrets r(I, a) <- max(r(I, a) + cfv(I, a) - V(I), 0) and sigma from them (Zinkevich,
Johanson, Bowling & Piccione 2007, in the sequence form), then the realization plan top
down.  The same pass with max in place
of sigma is a best response, so the restricted game's NashConv of the average is
computed as it runs; it stops at ``target`` or after ``max_iterations``.  A run may
start from the regrets of a run on a smaller restricted game (:class:`Regrets`, carried
by cell; the double oracle only adds bids).  Nothing proven
rests on this: the double oracle proves the whole game's NashConv of what it returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from exact.imperfect.restricted import GameTree, RestrictedLP

__all__ = ["Regrets", "Treeplex", "restricted_cfr"]

#: The restricted game's NashConv is computed every this many iterations.
CHECK_EVERY = 50
#: A run with a ``stall_gap`` stops once its NashConv is at most that gap and fell by
#: less than 1 - STALL_RATIO over the last STALL_WINDOW iterations (predictive CFR+'s
#: average slows to about t^-0.1 on large restricted games: 6.2e-4 to 5.8e-4 from 1,000 to
#: 2,000 iterations in round 29 at 8 cards).
STALL_WINDOW = 1_000
STALL_RATIO = 0.9


@numba.njit(cache=True, nogil=True, inline="always")
def _normalize(weights, sigma, lo, hi) -> None:
    """``sigma[lo:hi]`` the nonnegative ``weights[lo:hi]`` normalized, uniform where they
    are all 0 (one decision's sequences)."""
    total = 0.0
    for s in range(lo, hi):
        total += weights[s]
    for s in range(lo, hi):
        sigma[s] = weights[s] / total if total > 0 else 1.0 / (hi - lo)


@numba.njit(cache=True, nogil=True)
def _update(g, parent_of, starts, regrets, sigma) -> None:
    """One player's predictive CFR+ step, in place: with ``sigma`` the current behaviour,
    cfv and V bottom up (decisions in decreasing order: a decision's sequences are
    ``starts[d]:starts[d + 1]``, and every decision below one of its sequences comes
    later), then at each decision the regrets r <- max(r + cfv - V, 0) and the next
    behaviour from max(r + (cfv - V), 0) (the prediction: this iteration's regret),
    normalized, uniform where it is all 0."""
    cfv = g.copy()
    for d in range(len(parent_of) - 1, -1, -1):
        lo, hi = starts[d], starts[d + 1]
        v = 0.0
        for s in range(lo, hi):
            v += sigma[s] * cfv[s]
        cfv[parent_of[d]] += v
        for s in range(lo, hi):
            instant = cfv[s] - v
            regrets[s] = max(regrets[s] + instant, 0.0)
            sigma[s] = max(regrets[s] + instant, 0.0)
        _normalize(sigma, sigma, lo, hi)


@numba.njit(cache=True, nogil=True)
def _behaviour(positive, starts, sigma) -> None:
    """``sigma`` from nonnegative weights: normalized at each decision, uniform where
    they are all 0 (the empty sequence's entry 1)."""
    sigma[0] = 1.0
    for d in range(len(starts) - 1):
        _normalize(positive, sigma, starts[d], starts[d + 1])


@numba.njit(cache=True, nogil=True)
def _plan(parent_of, starts, sigma, x, sums, weight) -> None:
    """The realization plan ``x`` of ``sigma``, top down (a decision's parent sequence
    comes before it), and ``sums += weight * x``."""
    x[0] = 1.0
    sums[0] += weight
    for d in range(len(parent_of)):
        reach = x[parent_of[d]]
        for s in range(starts[d], starts[d + 1]):
            x[s] = reach * sigma[s]
            sums[s] += weight * x[s]


@numba.njit(cache=True, nogil=True)
def _best_response_value(g, parent_of, starts) -> float:
    """The value of a best response to the gradient ``g``: cfv bottom up with the best
    sequence of each decision in place of sigma's mix."""
    cfv = g.copy()
    for d in range(len(parent_of) - 1, -1, -1):
        best = -np.inf
        for s in range(starts[d], starts[d + 1]):
            best = max(best, cfv[s])
        cfv[parent_of[d]] += best
    return cfv[0]


@dataclass(frozen=True)
class Treeplex:
    """One player's sequences in a restricted game: sequence 0 is the empty one, and the
    sequences of decision d (the decisions in play, in increasing row, so round by
    round) are ``starts[d]:starts[d + 1]`` (cells in increasing row); ``parent_of[d]``
    is its parent sequence (0 at the first round)."""

    parent_of: np.ndarray
    starts: np.ndarray

    @classmethod
    def of(cls, tree: GameTree, built: RestrictedLP, player: int) -> Treeplex:
        n = tree.where.n
        cells, decisions = built.cells[player], built.in_play[player]
        parents = tree.parent_cells(decisions)
        parent_of = np.where(parents >= 0, 1 + np.searchsorted(cells, np.maximum(parents, 0)), 0)
        starts = 1 + np.searchsorted(cells // n, np.append(decisions, np.iinfo(np.int64).max))
        return cls(parent_of.astype(np.int64), starts.astype(np.int64))

    def behaviour(self, positive: np.ndarray) -> np.ndarray:
        """sigma per sequence from nonnegative weights (:func:`_behaviour`)."""
        sigma = np.empty_like(positive)
        _behaviour(positive, self.starts, sigma)
        return sigma

    def update(self, g: np.ndarray, regrets: np.ndarray, sigma: np.ndarray) -> None:
        """One predictive CFR+ step of regrets and sigma against ``g`` (:func:`_update`)."""
        _update(g, self.parent_of, self.starts, regrets, sigma)

    def plan(self, sigma: np.ndarray, x: np.ndarray, sums: np.ndarray, weight: float) -> None:
        """``x`` the realization plan of ``sigma``; ``sums += weight * x``."""
        _plan(self.parent_of, self.starts, sigma, x, sums, weight)

    def best_response_value(self, g: np.ndarray) -> float:
        return float(_best_response_value(g, self.parent_of, self.starts))


@dataclass(frozen=True)
class Regrets:
    """Each player's cumulative regrets at the end of a run, by cell (the flat
    ``row * n + card - 1`` of each sequence), to warm-start the next restricted game."""

    cells: tuple[np.ndarray, np.ndarray]
    regrets: tuple[np.ndarray, np.ndarray]

    @classmethod
    def of_pairs(cls, pairs) -> Regrets:
        """From each player's (cells, regrets), as a checkpoint keeps them."""
        (cells0, regrets0), (cells1, regrets1) = pairs
        return cls((cells0, cells1), (regrets0, regrets1))

    def pairs(self) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """Each player's (cells, regrets)."""
        return (self.cells[0], self.regrets[0]), (self.cells[1], self.regrets[1])

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
    stall_gap: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, dict]:
    """Both players' average realization plans after CFR+ on the restricted game (module
    docstring) and facts (iterations, the restricted game's NashConv of the average,
    whether it stopped as stalled, and the final :class:`Regrets` as ``regrets``).
    ``warm``: the regrets of a run on a smaller restricted game, to start from (the
    averages start afresh); ``stall_gap``: a run that reached it stops where it stalls
    (:data:`STALL_RATIO`)."""
    lp = built.lp
    b = lp.matrix()[: lp.n_ub, : lp.n_own].tocsr()
    bt = b.T.tocsr()
    plexes = (Treeplex.of(tree, built, 0), Treeplex.of(tree, built, 1))
    if warm is None:
        regrets = [np.zeros(lp.n_own), np.zeros(lp.n_ub)]
    else:
        regrets = [warm.on(built, 0), warm.on(built, 1)]
    sigmas = [plexes[p].behaviour(regrets[p]) for p in (0, 1)]
    plans = [np.zeros(lp.n_own), np.zeros(lp.n_ub)]
    sums = [np.zeros(lp.n_own), np.zeros(lp.n_ub)]
    for p in (0, 1):
        plexes[p].plan(sigmas[p], plans[p], sums[p], 0.0)
    weight, gap, iteration, stalled = 0.0, np.inf, 0, False
    gaps: dict[int, float] = {}
    for iteration in range(1, max_iterations + 1):
        for p in (0, 1):
            g = -(bt @ plans[1]) if p == 0 else b @ plans[0]
            plexes[p].update(g, regrets[p], sigmas[p])
            plexes[p].plan(sigmas[p], plans[p], sums[p], float(iteration) ** 2)
        weight += iteration**2
        if iteration % CHECK_EVERY == 0 or iteration == max_iterations:
            average = [s / weight for s in sums]
            gap = _nash_conv(b, bt, plexes, average)
            if progress is not None:
                progress(iteration, gap)
            if gap <= target:
                break
            gaps[iteration] = gap
            before = gaps.pop(iteration - STALL_WINDOW, np.inf)
            if gap <= stall_gap and gap > STALL_RATIO * before:
                stalled = True
                break
    average = [s / weight for s in sums]
    final = Regrets(built.cells, (regrets[0], regrets[1]))
    facts = {"solver": "pcfr+", "iterations": iteration, "restricted_nash_conv": gap,
             "stalled": stalled}  # fmt: skip
    return average[0], average[1], {**facts, "regrets": final}


def _nash_conv(b, bt, plexes, plans) -> float:
    """The restricted game's NashConv of the plans: both best responses' values."""
    return plexes[0].best_response_value(-(bt @ plans[1])) + plexes[1].best_response_value(
        b @ plans[0]
    )
