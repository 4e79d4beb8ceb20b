"""The two level loops of the bottom-up DP: one in floating point, one in exact rationals.

Both walk the levels k = 0, 1, ..., n of canonical subgames (:mod:`exact.game.encoding`); level k
is a pure function of level k - 1 (Rhoads & Bartholdi 2012, sec 3).  Everything that
depends on the objective (the layout of a level, the records, the matrix of a record, the
float kernel) comes from an :class:`exact.dp.objective.Objective`; everything that depends on
where the levels live (memory or an on-disk store) from a *level sink*.  Progress is
reported through a callback ``progress(level, units)`` in the objective's progress units
(:meth:`exact.dp.objective.Objective.progress_units`).

The float loop also carries the certified radius of each level, r_k >= |f_float - f_exact|
for every subgame of level k (:mod:`exact.kernels.bounds`): r_0 = 0 (the empty game is
exact), and each chunk's kernel proves its bound from r_{k-1}.  A level's radius is the
largest of its chunks'; the sink keeps it with the level.  A bound that does not close (a
NaN in a game, :func:`require_closed`) is a SolverError.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from flint import fmpq

from exact.dp.objective import Objective
from exact.errors import SolverError


class InMemoryLevels:
    """The default level sink: every level an array in memory, ``values[k]``."""

    def __init__(self, objective: Objective):
        self.objective = objective
        self.values: list[np.ndarray] = []
        self.radii: list[float] = []

    def completed(self, level) -> bool:
        return False

    def radius(self, k: int) -> float:
        """The certified radius of a completed level k."""
        return self.radii[k]

    def below(self, level) -> np.ndarray:
        return self.values[level.k - 1]

    def start(self, level) -> tuple[np.ndarray, int, float]:
        """The array to fill, the number of its items already done and their radius."""
        return self.objective.empty_level(level), 0, 0.0

    def checkpoint(self, level, out, items: int, radius: float) -> None:
        pass

    def finish(self, level, out, radius: float) -> np.ndarray:
        """Record a completed level and its radius; returns the array the next level reads."""
        self.values.append(out)
        self.radii.append(radius)
        return out


def require_closed(k: int, bound: float, where: str) -> None:
    """SolverError unless the certified bound of a chunk of level k (``where``: its items
    or rows) is a number: a NaN means a matrix game failed or read a NaN or infinite
    value of the level below (a store's, edited: ``gops verify`` names it)."""
    if not np.isfinite(bound):
        raise SolverError(
            f"level {k}: no certified bound for {where}: a matrix game failed (NaN) or the "
            "level below holds a NaN or infinite value; no value is certified"
        )


def solve_float_levels(
    objective: Objective, levels, progress=None, sink=None, chunk_items: int | None = None
):
    """Float values of every level, bottom-up, into ``sink`` (default: in memory).

    Returns the sink and the number of matrix games solved.  A level the sink reports
    complete is skipped (the next level then asks the sink for it); a level is filled
    chunk by chunk of ``chunk_items`` kernel items, each chunk checkpointed by the sink.
    """
    sink = InMemoryLevels(objective) if sink is None else sink
    chunk = chunk_items or objective.chunk_items
    games = 0
    below = None
    radius_below = 0.0
    for level in levels:
        if sink.completed(level):
            below = None  # asked of the sink when the next level needs it
            radius_below = sink.radius(level.k)
            continue
        if below is None and level.k > 0:
            below = sink.below(level)
        out, done, radius = sink.start(level)
        total = objective.level_items(level) if level.k > 0 else 0  # the empty game: no game
        if progress is not None and done:
            progress(level, objective.progress_done(level, total, 0, done))
        for start in range(done, total, chunk):
            stop = min(total, start + chunk)
            solved, bound = objective.solve_chunk(level, below, out, start, stop, radius_below)
            require_closed(level.k, bound, f"items {start}..{stop - 1}")
            games += solved
            radius = max(radius, bound)
            sink.checkpoint(level, out, stop, radius)
            if progress is not None:
                progress(level, objective.progress_done(level, total, start, stop))
        below = sink.finish(level, out, radius)
        radius_below = radius
    return sink, games


def solve_rational_levels(objective: Objective, levels, progress=None, on_record=None):
    """Exact values of every level (object arrays of fmpq) and the solver path counts.

    Every record (one per antisymmetric pair, :meth:`Objective.records`) is solved exactly
    and verified, game by game, and handed to ``on_record(level, p, r, lead, value, games)``
    (lead None for objectives without one), where ``games`` lists (upcard,
    ExactEquilibrium) in increasing upcard order (the upcards the prize order can turn up):
    so nothing but the values is kept.
    """
    paths = Counter({"basis": 0, "simplex": 0})
    values = [objective.exact_level(levels[0])]
    if on_record is not None and objective.records_empty_game:
        on_record(levels[0], 0, 0, None, fmpq(0), [])
    for level in levels[1:]:
        k = level.k
        below = values[-1]
        out = objective.exact_level(level)
        for r in range(level.prize_sets):
            for p, lead in objective.records(level, r):
                games = []
                for m in objective.order.upcard_indices(k):
                    eq = objective.solve_exact_game(objective.matrix(level, below, r, p, m, lead))
                    paths[eq.path] += 1
                    games.append((int(level.prize_card[r, m]), eq))
                value = objective.order.combine([eq.value for _, eq in games])
                objective.put(out, level, r, p, lead, value)
                if on_record is not None:
                    on_record(level, p, r, lead, value, games)
            if progress is not None:
                progress(level, objective.progress_done(level, level.prize_sets, r, r + 1))
        values.append(out)
    return values, {"paths": dict(paths)}
