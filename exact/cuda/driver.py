"""The float level loop on a CUDA device: an objective whose chunks run on the GPU.

:class:`DeviceObjective` wraps an objective of :mod:`exact.dp.objective` (any object with
its interface: this package does not import exact.dp) and replaces only ``solve_chunk``,
so :func:`exact.dp.drivers.solve_float_levels` runs levels 0..N unchanged, with its sinks,
progress and radii.  A chunk of items runs as one kernel launch
(:mod:`exact.cuda.levels`, one thread per item).  The level below stays in device memory:
the level just written is kept on the device and read there by the next level; the host
copy of each level (what the sink keeps, what a Solution reads) gets the rows each chunk
wrote after the chunk.  The level's tables (patterns, child columns, signs, prize tables)
are copied to the device once per level.

``require_gpu`` refuses, in one line, a machine without a CUDA GPU unless numba's
simulator is on (``NUMBA_ENABLE_CUDASIM=1``, set before numba.cuda is imported).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from exact.cuda.levels import THREADS, points_items, win_items
from exact.cuda.rounding import SIMULATED
from exact.errors import GopsInputError
from exact.kernels import points as points_kernel
from exact.kernels import win as win_kernel
from exact.kernels.combine import mirrored

#: Items per kernel launch (a progress update and a copy of the level to the host each).
DEVICE_CHUNK_ITEMS = 1 << 22


def require_gpu() -> None:
    """One-line GopsInputError unless a CUDA GPU (or numba's simulator) is there."""
    if SIMULATED:
        return
    if not cuda.is_available():
        raise GopsInputError(
            "no CUDA GPU found: numba.cuda.is_available() is False (a GPU and its driver "
            "are needed; NUMBA_ENABLE_CUDASIM=1 runs numba's CUDA simulator instead)"
        )


def backend() -> str:
    """Which device the kernels run on: "cuda" or "cuda-simulator"."""
    return "cuda-simulator" if SIMULATED else "cuda"


class DeviceObjective:
    """An objective (exact.dp.objective.Objective) whose float chunks run on the device;
    every other attribute is the wrapped objective's."""

    chunk_items = DEVICE_CHUNK_ITEMS

    def __init__(self, objective):
        self.objective = objective
        self._arrays: list = []  # [(host array, device array)] of the last level or two
        self._tables: tuple = (None, None)  # (level, its device tables)

    def __getattr__(self, name):
        return getattr(self.objective, name)

    def __repr__(self) -> str:
        return f"DeviceObjective({self.objective!r})"

    def _resident(self, host: np.ndarray):
        """The device copy of a level's array, copied there the first time it is seen."""
        for h, d in self._arrays:
            if h is host:
                return d
        d = cuda.to_device(np.ascontiguousarray(host))
        self._arrays = self._arrays[-1:] + [(host, d)]  # the level below and this one
        return d

    def _level_tables(self, level):
        """The level's tables on the device (copied once per level)."""
        if self._tables[0] is not level:
            order = self.objective.order.code
            if self.objective.has_lead:
                tables = self._win_tables(level, order)
            else:
                tables = self._points_tables(level, order)
            self._tables = (level, tables)
        return self._tables[1]

    @staticmethod
    def _points_tables(level, order):
        solved = points_kernel.solved_patterns(level, order)
        column, mirror = points_kernel.child_columns(level, solved, mirrored(order))
        own = level.columns(mirrored(order)).column
        arrays = (solved, column, mirror, level.sign, level.prize_child, level.prize_card, own)
        return tuple(cuda.to_device(np.ascontiguousarray(a)) for a in arrays)

    def _win_tables(self, level, order):
        children = level.below_columns(mirrored(order))
        arrays = (
            win_kernel.solved_patterns(level, order),
            level.swap,
            level.columns(mirrored(order)).column,
            win_kernel.lead_limits(level, self.objective.handicap),
            level.child,
            level.sign,
            level.prize_child,
            level.prize_card,
            children.column,
            children.mirror,
        )
        return tuple(cuda.to_device(np.ascontiguousarray(a)) for a in arrays)

    def solve_chunk(self, level, below, out, start, stop, radius_below, row0=0):
        """exact.dp.objective.Objective.solve_chunk, on the device."""
        if stop <= start:
            return 0, 0.0
        d_below = self._resident(below)
        d_out = self._resident(out)
        tables = self._level_tables(level)
        blocks = (stop - start + THREADS - 1) // THREADS
        radius = cuda.to_device(np.zeros(stop - start))
        order = self.objective.order.code
        if self.objective.has_lead:
            games = cuda.to_device(np.zeros(stop - start, dtype=np.int64))
            patterns, swap, own, limits, child, sign, prize_child, prize_card = tables[:8]
            offb = win_kernel.lead_offset(level.n, level.k - 1, self.objective.handicap)
            off = win_kernel.lead_offset(level.n, level.k, self.objective.handicap)
            g = (level.k, child, sign, prize_child, prize_card, d_below, *tables[8:])
            g = (*g, offb, float(radius_below), order)
            per_row = patterns.shape[0]
            win_items[blocks, THREADS](
                start, stop, patterns, swap, own, limits, g, d_out, row0, off, games, radius
            )
            solved = int(games.copy_to_host().sum())
        else:
            canon, column, mirror, sign, prize_child, prize_card, own = tables
            per_row = canon.shape[0]
            points_items[blocks, THREADS](
                start,
                stop,
                level.k,
                canon,
                column,
                mirror,
                sign,
                prize_child,
                prize_card,
                d_below,
                float(radius_below),
                order,
                own,
                d_out,
                row0,
                radius,
            )
            solved = (stop - start) * len(self.objective.order.upcard_indices(level.k))
        # Only the rows items start..stop-1 wrote (item t writes row t // per_row - row0).
        lo = start // per_row - row0
        hi = (stop - 1) // per_row - row0 + 1
        d_out[lo:hi].copy_to_host(out[lo:hi])
        return solved, float(radius.copy_to_host().max()) * (1.0 + 2.0**-20)
