"""The float level loop on a CUDA device: an objective whose chunks run on the GPU.

:class:`DeviceObjective` wraps an objective of :mod:`exact.dp.objective` (any object with
its interface: this package does not import exact.dp) and replaces only ``solve_chunk``,
so :func:`exact.dp.drivers.solve_float_levels` runs levels 0..N unchanged, with its sinks,
progress and radii.  A chunk of items runs as one kernel launch
(:mod:`exact.cuda.levels`, one thread per item): which kernel, its tables and its
arguments are the objective's (``device_tables``, ``device_kernel``: the level's layout
is known to exact.dp.objective alone).  The level below stays in device memory:
the level just written is kept on the device and read there by the next level; the host
copy of each level (what the sink keeps, what a Solution reads) gets the rows each chunk
wrote after the chunk.  The level's tables (patterns, child columns, signs, prize tables)
are copied to the device once per level.

With ``host_cores`` (``--device cuda+cpu``) each chunk is split at a row of the level:
the GPU's kernel is launched on the first part and, while it runs, the wrapped objective's
own CPU kernels solve the rest on the host's cores; the rows each side wrote are then
copied to the other, so that the host and device copies of the level stay equal.  The
host's share follows the two sides' measured speeds (items per second of the chunk
before).  Every value is certified by the kernel that wrote it (both bounds are
rigorous), the chunk's bound is the larger.

``require_gpu`` refuses, in one line, a machine without a CUDA GPU unless numba's
simulator is on (``NUMBA_ENABLE_CUDASIM=1``, set before numba.cuda is imported).
"""

from __future__ import annotations

import time

import numpy as np
from numba import cuda

from exact.cuda.levels import THREADS
from exact.cuda.rounding import SIMULATED
from exact.errors import GopsInputError

#: Items per kernel launch (a progress update and a copy of the level to the host each).
DEVICE_CHUNK_ITEMS = 1 << 22

#: With host_cores: the host's share of a chunk's items before any chunk was timed, and
#: the most it is given (the GPU is the faster side on every level measured).
HOST_SHARE_START = 0.1
HOST_SHARE_MAX = 0.5


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


def _reads_the_file_of(host: np.ndarray, written: np.ndarray) -> bool:
    """Whether ``host`` maps, to read, the file that ``written`` (a writable map) filled."""
    name = getattr(host, "filename", None)
    return (
        name is not None
        and getattr(host, "mode", None) in ("r", "c")
        and getattr(written, "mode", None) == "r+"
        and name == getattr(written, "filename", None)
        and host.shape == written.shape
        and host.dtype == written.dtype
    )


class DeviceObjective:
    """An objective (exact.dp.objective.Objective) whose float chunks run on the device;
    every other attribute is the wrapped objective's."""

    chunk_items = DEVICE_CHUNK_ITEMS

    def __init__(self, objective, host_cores: bool = False):
        self.objective = objective
        self.host_cores = host_cores
        self.host_share = HOST_SHARE_START if host_cores else 0.0
        self.items = {"device": 0, "host": 0}  # kernel items each side solved
        self._arrays: list = []  # [(host array, device array)] of the last level or two
        self._tables: tuple = (None, None)  # (level, its device tables)

    def __getattr__(self, name):
        return getattr(self.objective, name)

    def __repr__(self) -> str:
        host = ", host_cores=True" if self.host_cores else ""
        return f"DeviceObjective({self.objective!r}{host})"

    def _resident(self, host: np.ndarray):
        """The device copy of a level's array, copied there the first time it is seen.  A
        level a store has just written and maps again to read (as the next level's below)
        is the array the device wrote: the same file, mapped read-only or copy-on-write."""
        for i, (h, d) in enumerate(self._arrays):
            if h is host:
                return d
            if _reads_the_file_of(host, h):
                self._arrays[i] = (host, d)
                return d
        d = cuda.to_device(np.ascontiguousarray(host))
        self._arrays = self._arrays[-1:] + [(host, d)]  # the level below and this one
        return d

    def _level_tables(self, level):
        """The level's tables on the device (the objective's: exact.dp.objective), copied
        once per level."""
        if self._tables[0] is not level:
            tables = self.objective.device_tables(level)
            self._tables = (level, tuple(cuda.to_device(np.ascontiguousarray(a)) for a in tables))
        return self._tables[1]

    def solve_chunk(self, level, below, out, start, stop, radius_below, row0=0):
        """exact.dp.objective.Objective.solve_chunk, on the device (and with host_cores,
        the chunk's last rows on the host's cores at the same time)."""
        if stop <= start:
            return 0, 0.0
        per_row = len(self.objective.item_patterns(level))  # the level's items of a prize set
        split = self._split(start, stop, per_row)
        t0 = time.perf_counter()
        launched = self._launch(level, below, out, start, split, radius_below, row0)
        host_games, host_bound = 0, 0.0
        if split < stop:
            host_games, host_bound = self.objective.solve_chunk(
                level, below, out, split, stop, radius_below, row0
            )
        t_host = time.perf_counter() - t0
        games, bound = self._collect(launched, out, start, split, per_row, row0)
        t_all = time.perf_counter() - t0
        if split < stop:  # the host's rows to the device (a row the GPU began is whole there)
            d_out = self._resident(out)
            lo = split // per_row - row0
            hi = (stop - 1) // per_row - row0 + 1
            d_out[lo:hi].copy_to_device(np.ascontiguousarray(out[lo:hi]))
            self._rebalance(split - start, t_all, stop - split, t_host)
        self.items["device"] += split - start
        self.items["host"] += stop - split
        return games + host_games, max(bound, host_bound)

    def _split(self, start, stop, per_row) -> int:
        """Where the host's part of items start..stop-1 begins: the first item of a row,
        about host_share of the items from the end (stop: none)."""
        if not self.host_share:
            return stop
        want = stop - int(self.host_share * (stop - start))
        split = -(-want // per_row) * per_row  # rounded up to a row's first item
        return split if start < split < stop else stop

    def _rebalance(self, device_items, t_device, host_items, t_host) -> None:
        """The host's next share from this chunk's speeds (the device's time is the whole
        chunk's: it is waited for last), halfway from the last share."""
        if device_items <= 0 or host_items <= 0 or t_device <= 0 or t_host <= 0:
            return
        device_rate, host_rate = device_items / t_device, host_items / t_host
        share = host_rate / (host_rate + device_rate)
        self.host_share = min(HOST_SHARE_MAX, 0.5 * (self.host_share + share))

    def _launch(self, level, below, out, start, stop, radius_below, row0):
        """Launch the kernel on items start..stop-1 (asynchronous); what _collect needs."""
        if stop <= start:
            return None
        d_below = self._resident(below)
        d_out = self._resident(out)
        tables = self._level_tables(level)
        blocks = (stop - start + THREADS - 1) // THREADS
        radius = cuda.to_device(np.zeros(stop - start))
        games = cuda.to_device(np.zeros(stop - start, dtype=np.int64))
        kernel, args = self.objective.device_kernel(level, tables, d_below, radius_below)
        kernel[blocks, THREADS](start, stop, *args, d_out, row0, games, radius)
        return d_out, radius, games

    @staticmethod
    def _collect(launched, out, start, stop, per_row, row0):
        """Wait for the kernel; copy back only the rows items start..stop-1 wrote (item t
        writes row t // per_row - row0); (games, bound)."""
        if launched is None:
            return 0, 0.0
        d_out, radius, games = launched
        solved = int(games.copy_to_host().sum())
        lo = start // per_row - row0
        hi = (stop - 1) // per_row - row0 + 1
        d_out[lo:hi].copy_to_host(out[lo:hi])
        return solved, float(radius.copy_to_host().max()) * (1.0 + 2.0**-20)
