"""One stage of the backward induction: a three-player k x k x k game, its chosen equilibrium.

The game is ``A[i, a0, a1, a2]``, player i's payoff (the round's points plus the
continuation values) when the players bid their a0-th, a1-th and a2-th cards.  Three-player
games have many equilibria, often irrational; the one chosen is defined as

    the limit, as lambda -> infinity, of the principal branch of the logit quantal-response
    correspondence (McKelvey & Palfrey 1995), the branch that starts at the uniform profile
    at lambda = 0.

:func:`solve_stage` reaches it by a cascade, each step taken only where the one before
leaves the stage short of an equilibrium (regrets relative to the payoff range):

1. Shortcuts: a one-bid player has no choice (``forced``); a game that iterated
   elimination of strictly dominated bids (by :data:`DOMINANCE_MARGIN`) reduces to one
   profile has it as its only equilibrium, the limit of every branch (``dominance``).
2. Twins: players with identical positions, or whom swapping leaves every payoff
   unchanged, mix alike (the logit branch of a symmetric game is symmetric).
3. Our trace (:mod:`exact.three.trace`) to :data:`~exact.three.trace.TRACE_TARGETS`, its
   limit extrapolated and polished (:mod:`exact.three.polish`); kept if its regret is at
   most :data:`NEAR_POLISHED` (``logit``).
4. Otherwise pygambit's trace (:mod:`exact.three.gambit`, in a capped child process),
   polished: kept where it beats step 3 and is within :data:`TRACE_ACCEPT`; an end that
   left the symmetric profiles (twins apart by more than :data:`TWIN_MATCH`) is
   ``fallback``, an equilibrium but not necessarily the branch's limit.
5. Where no trace ends near an equilibrium: the equilibrium nearest (L1) the last point
   our trace reached, among those support enumeration finds (:mod:`exact.three.supports`;
   ``fallback``).
6. A stage still above :data:`DEEP_ABOVE` (near-degenerate: its branch moves beyond the
   trace's last target) is traced on to :data:`~exact.three.trace.DEEP_TARGETS` and
   polished again.
7. A stage still above :data:`REFINE_ABOVE` takes the nearest equilibrium that support
   enumeration finds from its profile (:data:`REFINE_SUPPORTS` supports, then
   :data:`~exact.three.supports.SUPPORT_ENUMERATION`).

Invariant: every returned profile has its stage regret (each player's best gain by
deviating, in float) reported; the whole game's NashConv is certified elsewhere
(:mod:`exact.three.nashconv`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from exact.errors import SolverError
from exact.three.gambit import logit_limit
from exact.three.polish import (
    POLISHED,
    classes_of,
    normalised,
    payoff_twins,
    payoffs_against,
    polish,
    regret,
    symmetrise,
)
from exact.three.supports import SUPPORT_ENUMERATION, nearest_support_equilibrium
from exact.three.trace import (
    DEEP_TARGETS,
    TRACE_TARGETS,
    TURN_COSINE,
    TURN_RETRY,
    TraceLost,
    extrapolated,
    trace_points,
)

__all__ = ["StageSolution", "payoffs_against", "regret", "solve_stage"]

#: How much better a dominating bid must be against every remaining profile.
DOMINANCE_MARGIN = 1e-9
#: A polished end of our trace with a regret (relative to the payoff range) at most this
#: is kept without asking pygambit: near-degenerate stages (payoff ties broken by float
#: noise) stop a little above POLISHED, and pygambit's trace of them is the slow kind
#: (a second or more, growing its path to the memory cap).
NEAR_POLISHED = 1e-10
#: The largest regret (relative to the payoff range) of a pygambit trace we accept.
TRACE_ACCEPT = 1e-5
#: How close twins' traced mixes must be for pygambit's trace to count as symmetric.
TWIN_MATCH = 1e-6
#: A traced and polished stage with a larger regret (payoff units) is traced again, to
#: :data:`DEEP_TARGETS`.  In a near-degenerate stage (payoffs a few 1e-6 apart) the branch
#: is still far from its limit at the first trace's last target: its polish stops at a
#: regret of 1e-10 to 1e-7 on a nearly singular indifference system, and the limit lies
#: 0.01-1.6 away in L1 (the 6-card games: some 200 stages of 73,590).
DEEP_ABOVE = 1e-11
#: A stage whose regret is still larger (payoff units) takes the equilibrium nearest it
#: among those support enumeration finds (:func:`solve_stage`): the whole game's NashConv
#: sums stage regrets weighted by how likely play reaches them, and must stay below 1e-9.
#: (The nearest can be 0.5-3 away in L1: below this regret the branch's approximate limit
#: is kept rather than exchanged for a distant equilibrium.)
REFINE_ABOVE = 1e-9
#: The most support combinations tried first to refine one stage (then SUPPORT_ENUMERATION).
REFINE_SUPPORTS = 300


@dataclass(frozen=True)
class StageSolution:
    """Mixes (one array per player, over its bids ascending), values and how it was found."""

    mixes: tuple[np.ndarray, np.ndarray, np.ndarray]
    values: np.ndarray
    regret: float
    method: str  # "forced", "dominance", "logit" or "fallback" (module docstring)


def _dominance(A: np.ndarray) -> tuple[int, int, int] | None:
    """The one profile left by iterated strict dominance (pure by pure), or None."""
    alive = [list(range(A.shape[1 + i])) for i in range(3)]
    changed = True
    while changed:
        changed = False
        for i in range(3):
            sub = A[i][np.ix_(*alive)]
            sub = np.moveaxis(sub, i, 0).reshape(len(alive[i]), -1)
            keep = [
                a
                for a in range(len(alive[i]))
                if not any(np.all(sub[b] > sub[a] + DOMINANCE_MARGIN) for b in range(len(sub)))
            ]
            if len(keep) < len(alive[i]):
                alive[i] = [alive[i][a] for a in keep]
                changed = True
    if all(len(a) == 1 for a in alive):
        return alive[0][0], alive[1][0], alive[2][0]
    return None


def _pure(A: np.ndarray, profile) -> tuple:
    return tuple(np.eye(A.shape[1 + i])[profile[i]] for i in range(3))


def _our_limit(
    A: np.ndarray, twins: list[tuple[int, ...]], targets
) -> tuple[tuple | None, float, tuple | None]:
    """Our trace (within the symmetric profiles where there are twins) to each of
    ``targets``, its limit extrapolated (:func:`extrapolated`) and polished; if that
    polish does not reach POLISHED, the last traced point polished.  Returns the polished
    profile of least regret (None where the trace reached no target), its regret, and the
    last profile the trace reached."""
    points: list = []
    last = None
    for turn in (TURN_COSINE, TURN_RETRY):  # finer steps where the first trace got nowhere
        try:
            points = trace_points(A, classes_of(twins), targets, turn)
            last = points[-1][1]
            break
        except TraceLost as lost:
            last = lost.last if lost.last is not None else last
    starts = ([extrapolated(points)] if len(points) > 1 else []) + [p for _, p in points[-1:]]
    best: tuple | None = None
    best_regret = np.inf
    for start in starts:
        mixes = symmetrise(polish(A, symmetrise(start, twins), twins), twins)
        r = regret(A, mixes)
        if r < best_regret:
            best, best_regret = mixes, r
        if r <= POLISHED:
            break
    return best, best_regret, last


def _traced_and_polished(A: np.ndarray, twins: list[tuple[int, ...]]) -> tuple[tuple, str]:
    """The branch's limit by :func:`_our_limit` to TRACE_TARGETS.  Where our trace fails,
    pygambit's (verified: it returned non-equilibria on small degenerate stages, and kept
    twins alike, else it left the symmetric branch).  The profile of least regret wins; a
    stage that only pygambit's asymmetric end solves is ``fallback``."""
    scale = float(A.max() - A.min()) or 1.0
    best, best_regret, last = _our_limit(A, twins, TRACE_TARGETS)
    if best is not None and best_regret <= max(POLISHED, NEAR_POLISHED * scale):
        return best, "logit"
    try:
        traced = logit_limit(A)
    except (MemoryError, RuntimeError, SolverError):  # bad_alloc comes as RuntimeError
        traced = None
    if traced is not None and regret(A, traced) < TRACE_ACCEPT * scale:
        symmetric = all(
            np.abs(traced[i] - traced[g[0]]).max() < TWIN_MATCH for g in twins for i in g[1:]
        )
        mixes = symmetrise(polish(A, symmetrise(traced, twins), twins), twins)
        r = regret(A, mixes)
        if r < best_regret:
            best, best_regret = mixes, r
            if not symmetric and r <= TRACE_ACCEPT * scale:
                return best, "fallback"
    if best is not None and best_regret <= TRACE_ACCEPT * scale:
        return best, "logit"
    # No trace ends at an equilibrium: the equilibrium nearest the trace's last point.
    uniform = tuple(np.full(k, 1.0 / k) for k in A.shape[1:])
    found = nearest_support_equilibrium(A, twins, uniform if last is None else last)
    if found is not None:
        return found, "fallback"
    if best is None:  # nothing found: the uniform profile polished, flagged
        return symmetrise(polish(A, uniform, twins), twins), "fallback"
    return best, "fallback"


def solve_stage(A: np.ndarray, twins: list[tuple[int, ...]] = ()) -> StageSolution:  # type: ignore[assignment]
    """The chosen equilibrium of the stage game ``A`` (shape (3, k0, k1, k2)).

    ``twins``: groups of players whose positions are identical (the game is symmetric
    under swapping them); their mixes come out identical.
    """
    if max(A.shape[1:]) == 1:
        mixes, method = _pure(A, (0, 0, 0)), "forced"
    elif (profile := _dominance(A)) is not None:
        mixes, method = _pure(A, profile), "dominance"
    else:
        groups = payoff_twins(A, list(twins))
        mixes, method = _traced_and_polished(A, groups)
        r = regret(A, mixes)
        if r > DEEP_ABOVE:  # a near-degenerate stage: the branch traced further
            deep, deep_regret, _ = _our_limit(A, groups, DEEP_TARGETS)
            if deep is not None and deep_regret < r:
                mixes, r = deep, deep_regret
        for limit in (REFINE_SUPPORTS, SUPPORT_ENUMERATION):
            if r <= REFINE_ABOVE:
                break
            # still: the nearest equilibrium support enumeration finds
            found = nearest_support_equilibrium(A, groups, mixes, limit)
            if found is not None:
                mixes, r = found, regret(A, found)
    return _solution(A, mixes, method)


def _solution(A: np.ndarray, mixes: tuple, method: str) -> StageSolution:
    """The stage's solution: each mix scaled to sum 1 (as the certificate reads it), its
    regret and values computed from those (a mix summing to 1 + 1e-7 makes the regret of
    its unscaled form read up to 1e-7 too low, even negative)."""
    mixes = tuple(normalised(np.asarray(m, dtype=float)) for m in mixes)
    r = regret(A, mixes)
    values = np.array([u @ s for u, s in zip(payoffs_against(A, mixes), mixes)])
    return StageSolution(mixes, values, r, method)
