"""pygambit's trace of the logit branch (``logit_solve``), the fallback where ours fails,
run in a child process whose address space is capped.

pygambit's trace of a degenerate stage can grow its path without bound (std::bad_alloc
past 3.5 GiB at N = 5); a cap on the address space turns that into a MemoryError, which
the caller answers with its own trace.  A cap is a limit of a whole process, so the trace
runs in a child (:func:`logit_limit`: one worker process, started at the first trace and
kept), never in the caller's: inside ``gops serve`` the other requests keep their memory.
The trace is stopped at :data:`GAMBIT_POINTS` path points (where its corrector crawls,
near lambda ~ 1e8) and its last point taken as its end.

pygambit (the optional extra ``three``) is imported in the child only, where the trace
uses it: it brings pandas and scipy.stats, 0.85 s at load 2 (3.5 s measured at load 8,
``python -X importtime -c "import pygambit"``), which no command pays until a stage needs
pygambit.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import resource
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager

import numpy as np

from exact.errors import GopsInputError, SolverError

__all__ = ["GAMBIT_POINTS", "logit_limit", "traced_here"]

#: pygambit's stopping regret for the trace.  In a degenerate stage (a continuum of
#: equilibria) the polished profile lands within about this of the limit: 1e-6 moved a
#: 3-card value by 3e-5 and was 2-4 times faster.
TRACE_REGRET = 1e-10
#: The most path points of one pygambit trace.  Its ordinary traces take 200-500; in a
#: near-degenerate stage its corrector crawls near lambda ~ 1e8 (124,000 points and 7 s
#: for one 4 x 4 x 4 stage of the 6-card split game, its regret barely moving: 4.8e-9 at
#: point 1,000, 3.3e-9 at the end).  A capped trace's last point is polished instead.
GAMBIT_POINTS = 5_000
#: Memory a pygambit trace may take beyond the process's present size (bytes).
TRACE_MEMORY = 1 << 28


@contextmanager
def _memory_cap(extra: int):
    """The process's address space capped at its present size plus ``extra`` bytes while
    the block runs (Linux; elsewhere no cap): pygambit's trace of a degenerate stage can
    grow its path without bound (std::bad_alloc past 3.5 GiB at N = 5), and a capped one
    fails with MemoryError instead, which the caller answers with our own trace."""
    try:
        with open("/proc/self/statm") as fh:
            size = int(fh.read().split()[0]) * resource.getpagesize()
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    except (OSError, ValueError):
        yield
        return
    cap = size + extra
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _trim() -> None:
    """Hand freed heap memory back to the system (glibc's malloc_trim; elsewhere nothing)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class _Capped(Exception):
    """Raised from pygambit's path callback to stop a trace at GAMBIT_POINTS."""


def traced_here(A: np.ndarray) -> tuple:
    """The logit branch's limit as pygambit traces it; a trace that reaches GAMBIT_POINTS
    path points is stopped there and its last point returned."""
    # pygambit (the optional extra ``three``) is imported here, where it is used: it brings
    # pandas and scipy.stats, 0.85 s of every command's start at load 2 (issue 49).
    try:
        import pygambit as gbt  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise GopsInputError(
            "three-player equilibria need pygambit: pip install 'gops-exact[three]'"
        ) from None
    game = gbt.StrategicGame.from_arrays(A[0], A[1], A[2])
    players = list(game.players)
    seen, last = 0, None

    def point(event) -> None:  # bifurcation and perturbation events pass by
        nonlocal seen, last
        if isinstance(event, gbt.LogitPathEvent):
            seen, last = seen + 1, event.qre.profile
            if seen >= GAMBIT_POINTS:
                raise _Capped

    try:
        result = gbt.nash.logit_solve(
            game, use_strategic=True, maxregret=TRACE_REGRET, event_callback=point
        )
    except (MemoryError, RuntimeError, _Capped):  # pygambit 17 wraps _Capped in RuntimeError
        if seen < GAMBIT_POINTS:
            raise
        return tuple(_normalised(_mix(last, p)) for p in players)
    if result.equilibrium is None:
        raise SolverError("pygambit's logit trace returned no equilibrium")
    return tuple(_normalised(_mix(result.equilibrium, p)) for p in players)


def _mix(profile, player) -> np.ndarray:
    """One player's mix of a pygambit profile, in strategy order."""
    return np.array([float(prob) for _, prob in profile[player]])


_POOL: ProcessPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ProcessPoolExecutor:
    """The one worker process of the traces (spawned, not forked: the caller may run
    threads, as ``gops serve`` does)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        return _POOL


def _capped_trace(A: np.ndarray) -> tuple:
    """In the worker: :func:`traced_here` under the cap of TRACE_MEMORY beyond the worker's
    present size (the worker's own limit, restored after)."""
    try:
        with _memory_cap(TRACE_MEMORY):
            return traced_here(A)
    finally:
        _trim()  # the trace's freed path stays in the heap: the next cap would stack on it


def logit_limit(A: np.ndarray) -> tuple:
    """The logit branch's limit as pygambit traces it (:func:`traced_here`), traced in the
    capped worker process; a worker that dies (its memory exhausted beyond the cap's reach)
    is a RuntimeError here, and the next trace starts a new one."""
    global _POOL
    try:
        return _pool().submit(_capped_trace, np.ascontiguousarray(A)).result()
    except BrokenProcessPool:
        with _POOL_LOCK:
            _POOL = None
        raise RuntimeError("pygambit's trace ended its process") from None


def _normalised(mix: np.ndarray) -> np.ndarray:
    return mix / mix.sum()
