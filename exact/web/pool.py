"""The solver threads of ``gops serve``: a fixed number of daemon threads that make
queued solutions, at most a bounded number of them waiting.

Invariants: at most ``workers + limit`` jobs are running or queued (one more is refused
with :class:`Busy`, whose ``retry_after`` is the cost model's seconds of the work ahead
per thread); a job withdrawn while queued is skipped by its thread; each job's future is
settled once (by its thread, or earlier by whoever cancelled it).  The threads are niced
(``SOLVER_NICE``, Linux, per thread and inherited by the kernels' OpenMP threads) so that
a solve takes the cores only when the requests leave them; they are daemons, so stopping
the server abandons their solves (nothing of them is kept).
"""

from __future__ import annotations

import math
import os
import queue
import threading
from concurrent.futures import Future, InvalidStateError

#: Solver threads (each solve already uses every core) and solves that may wait for them.
WEB_SOLVERS = 1
WEB_QUEUE = 4
#: The solver threads' niceness.
SOLVER_NICE = 10


class Busy(Exception):
    """Every solver thread is busy and the queue is full: HTTP 503 with Retry-After."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class SolverPool:
    """``workers`` daemon threads that make queued solutions, at most ``limit`` waiting.

    Daemon threads: stopping the server abandons their solves (nothing of them is kept).
    """

    def __init__(self, workers: int = WEB_SOLVERS, limit: int = WEB_QUEUE):
        self.workers, self.limit = workers, limit
        self.running = self.queued = 0
        self._seconds = 0.0  # the cost model's seconds of the jobs running and queued
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._waiting: dict[Future, float] = {}  # the queued jobs' futures: their seconds
        self._withdrawn: set[Future] = set()  # queued jobs taken back (withdraw)
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def submit(self, make, seconds: float) -> Future:
        """A future of ``make()``, or Busy when every thread is busy and ``limit`` jobs
        already wait."""
        with self._lock:
            if self.running + self.queued >= self.workers + self.limit:
                retry = max(1, math.ceil(self._seconds / self.workers))
                raise Busy(
                    f"the server is busy: {self.running} solve(s) running and "
                    f"{self.queued} queued, the most it queues (gops serve --solvers, "
                    f"--queue); retry in about {retry} s",
                    retry,
                )
            self.queued += 1
            self._seconds += seconds
            if len(self._threads) < self.workers:
                thread = threading.Thread(
                    target=self._work, daemon=True, name=f"gops-solver-{len(self._threads)}"
                )
                self._threads.append(thread)
                thread.start()
            future: Future = Future()
            self._waiting[future] = seconds
        self._jobs.put((make, seconds, future))
        return future

    def withdraw(self, future: Future) -> bool:
        """Take back a queued job (its thread will skip it), freeing its place in the
        queue at once; False if it already started."""
        with self._lock:
            seconds = self._waiting.pop(future, None)
            if seconds is None:
                return False
            self._withdrawn.add(future)
            self.queued -= 1
            self._seconds -= seconds
            return True

    def _work(self):
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), SOLVER_NICE)
        except (AttributeError, OSError):  # not Linux: the solver keeps the priority
            pass
        while True:
            make, seconds, future = self._jobs.get()
            with self._lock:
                if future in self._withdrawn:
                    self._withdrawn.discard(future)
                    continue
                del self._waiting[future]
                self.queued -= 1
                self.running += 1
            try:  # a job cancelled while queued already answered its requests: skip it
                if not future.done():
                    _settle(future, make)
            finally:
                with self._lock:
                    self.running -= 1
                    self._seconds -= seconds


def _settle(future: Future, make) -> None:
    """``future``'s result is ``make()`` (or its exception, handed to the requests
    waiting for it), unless it was settled meanwhile (a queued solve cancelled)."""
    try:
        result = make()
    except BaseException as exc:
        try:
            future.set_exception(exc)
        except InvalidStateError:
            pass
        return
    try:
        future.set_result(result)
    except InvalidStateError:
        pass
