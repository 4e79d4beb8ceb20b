"""The web app of ``gops serve``: a JSON API and one static page that uses it.

Starlette (an ASGI toolkit: routing, query parsing, static files, a test client) served
by uvicorn; the page is plain HTML, CSS and JavaScript (SVG charts), so there is no build
step.  The API returns exactly what the command line prints with ``--json``: both build
their answers with :mod:`exact.views`.

    GET /api/info                                   N solvable here, stores served
    GET /api/strategy?n&mine&theirs&deck&upcard[&objective&lead]   = gops strategy --json
    GET /api/table?n[&objective&lead&certified&ranges]
                                                    = gops table --json [--certified]
                                                    [--ranges] (ranges: exact for
                                                    N <= EXACT_MAX_N, float LPs beyond)
    GET /api/position?...  (as strategy)            strategy + payoff matrix, supports,
                                                    exact mix (small hands), certified
                                                    intervals, value enclosure, ranges over
                                                    all optima, values before the upcard
    GET /api/line?n&mine&theirs&deck[&objective&lead]&line=u:b-t,...
                                                    a line of play stepped from a position:
                                                    the position reached, its values
    GET /api/progress                               the large solves under way, how far
                                                    (queued: their place, what is ahead)
    POST /api/cancel?n[&objective&order&variant]    stop them (their requests get 400; a
                                                    queued one at once); variant: that
                                                    variant's solves, else the standard
                                                    game's
    GET /api/game/new?n[&objective&lead&order&seed&variant]
                                                    a game against the equilibrium (lead:
                                                    your head start, win objective;
                                                    variant: standard, twelve or dummy,
                                                    points and the random order only)
    GET /api/game/bid?<state>&bid                   your bid: the round played and scored
    GET /api/game/prize?<state>&prize               your choice of the next prize
                                                    (order=controlled-by-me)
    (a game's answer once it is over adds ``review``: each of your bids against the
    equilibrium, :meth:`exact.play.engine.Game.review`; the standard game only, as the
    review covers it only)

The games keep no state on the server: a game's answer carries ``state`` (n, objective,
its lead, order, seed, variant and your moves so far, ``bids`` and ``prizes``), which the
page sends back with its next move; the server replays the game from it with
:mod:`exact.play.engine` (the game's random seed draws the computer's bids), plays the
move and answers the new game.

Bad input is HTTP 400 with {"error": "<the one line the CLI would print>"}.

Load (a server must survive its clients):

- Solutions are kept in a cache bounded in bytes (least recently used dropped first; a
  Solution weighs its value arrays' ``nbytes``), ``WEB_CACHE_BYTES`` by default.
- A solve on the fly may take at most ``WEB_SOLVE_MAX_BYTES`` of values (and the cache's
  size): points and win up to N = 10, win N = 10 at every lead included (0.77 GiB of
  values, one per antisymmetric pair; at lead 0 only, 0.56 GiB).  A request beyond is
  HTTP 400 saying what is served and why.  A win table with a lead is solved once for
  every lead, so leads 1..55 make one solve, not 55.
- Small solves (estimated under ``INLINE_MAX_SECONDS`` by the cost model of
  :mod:`exact.dp.preflight`: points N <= 9, win N <= 7, exact N <= 5) are made in the
  request's thread; larger ones by a fixed number of daemon solver threads (the numba
  kernels release the GIL; the threads are niced, SOLVER_NICE) with a bounded queue.  A
  request that would queue beyond it is HTTP 503 with ``Retry-After`` (seconds, from the
  cost model) and a JSON error.
  Requests waiting for a solve hold no thread (they await its future), so cheap
  requests (info, the page, cached or small games) are never queued behind one.
- Concurrent requests for one game wait for one solve.
"""

from __future__ import annotations

import asyncio
import math
import os
import queue
import sys
import threading
from collections import OrderedDict
from concurrent.futures import Future
from pathlib import Path
from typing import NamedTuple

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from exact.errors import GopsInputError, SolverError
from exact.game.spec import GameSpec
from exact.limits import ENCODING_MAX_N, check_n
from exact.views import fraction_text, strategy_json, table_json

STATIC = Path(__file__).parent / "static"
GIB = 2**30
#: Solved on the fly up to this N (within WEB_SOLVE_MAX_BYTES); larger N come from stores
#: (--store).  Float N = 10 takes about 3 s (points) and 40 to 80 s (win) on 2 cores.
WEB_SOLVE_MAX_N = 10
#: The values one solve on the fly may fill: win N = 10 at lead 0 holds 0.56 GiB, at every
#: lead 0.77 GiB, win N = 9 at every lead 0.12 GiB (solve_size).
WEB_SOLVE_MAX_BYTES = int(1.25 * GIB)
#: The solutions kept, by their values' bytes (``gops serve --cache-mib``).
WEB_CACHE_BYTES = 2 * GIB
#: Solver threads (each solve already uses every core) and solves that may wait for them.
WEB_SOLVERS = 1
WEB_QUEUE = 4
#: The solver threads' niceness (Linux: per thread, inherited by the kernels' OpenMP
#: threads that they start): a solve takes the cores only when the requests leave them.
SOLVER_NICE = 10
#: A solve the cost model puts under this is made in the request's own thread (points
#: N = 9 is 0.4 s by the model, 0.6 s measured; win N = 8 is 1.0 s by the model).
INLINE_MAX_SECONDS = 0.5
#: The exact equilibrium of a position is shown up to this N (the game solved once in
#: rational arithmetic: 0.12 s at N = 5; N = 6 takes 16 s and its fractions have up to
#: 17,419 digits).
EXACT_MAX_N = 5
#: The two-player variants Play offers (``gops play --variant``), solved on the fly by
#: :mod:`exact.dp.variant_solver` for points in the random order; the largest N of each
#: solved in the request's thread, and the seconds expected of the larger N (for
#: /api/progress), measured on 2 cores beside a long solve: twelve N = 5 0.5 s, dummy
#: N = 4 0.1 s; twelve N = 7 and dummy N = 5 5 s, twelve N = 8 20 s, dummy N = 6 90 s,
#: twelve N = 9 200 s.
PLAY_VARIANTS = ("standard", "twelve", "dummy")
VARIANT_INLINE_MAX_N = {"twelve": 5, "dummy": 4}
VARIANT_SECONDS = {
    "twelve": {6: 1.0, 7: 5.0, 8: 20.0, 9: 200.0},
    "dummy": {5: 5.0, 6: 90.0},
}


def warm_up() -> float:
    """Compile (or load from numba's cache) the kernels of both objectives, so that no
    request waits for the compiler; seconds spent (0.3 s from the cache, 10 to 20 s cold)."""
    from exact.kernels import points, win

    return points.warm_up() + win.warm_up()


def all_leads(n: int) -> int:
    """The handicap that covers every lead of N cards: all its prize points."""
    return n * (n + 1) // 2


def solve_size(n: int, objective: str, handicap: int = 0) -> tuple[int, float]:
    """Bytes of values and estimated seconds (exact.dp.preflight's sizes and cost model,
    this machine's cores) of a float solve of N cards: one value per antisymmetric pair.

    >>> [round(solve_size(10, "win", h)[0] / 2 ** 30, 2) for h in (0, all_leads(10))]
    [0.56, 0.77]
    """
    from exact.dp.preflight import CORE_SECONDS_PER_UNIT, level_bytes, level_work

    game = GameSpec.parse(n, objective, handicap=handicap)
    size = sum(level_bytes(game, k) for k in range(n + 1))
    work = sum(level_work(game, k) for k in range(n + 1))
    return size, work * CORE_SECONDS_PER_UNIT[objective] / (os.cpu_count() or 1)


def solution_bytes(solution) -> int:
    """What a Solution weighs: its value arrays' nbytes (exact fractions counted one by
    one; they are kept for N <= EXACT_MAX_N only)."""
    total = 0
    for values in solution.values:
        total += values.nbytes
        if values.dtype == object:
            total += sum(
                sys.getsizeof(x)
                + sys.getsizeof(getattr(x, "numerator", 0))
                + sys.getsizeof(getattr(x, "denominator", 0))
                for x in values.flat
            )
    return total


class Busy(Exception):
    """Every solver thread is busy and the queue is full: HTTP 503 with Retry-After."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class Cancelled(GopsInputError):
    """A solve stopped by ``/api/cancel``: the requests waiting for it get HTTP 400."""


class SolveProgress:
    """How far one solve on the fly has come, for ``/api/progress``: the solver's
    ``progress(level, units)`` callback (:mod:`exact.dp.drivers`), which raises Cancelled
    once :meth:`cancel` was asked (the solve stops at its next chunk; a queued one never
    starts).  The fraction done weighs each level's items by the cost model's work per
    item (k^3), so it runs at about the pace of the clock."""

    def __init__(self, game: GameSpec, seconds: float):
        from math import comb

        from exact.game.encoding import pattern_count

        self.game, self.estimate = game, seconds
        self.work = [comb(game.n, k) * pattern_count(game.n, k) * k**3 for k in range(game.n + 1)]
        self.level, self.level_done = -1, 0.0  # the level being solved, its share done
        self.started: float | None = None  # monotonic time the solver took it up
        self.cancelled = False
        self.future: Future | None = None  # what the requests waiting for it await
        self._units: dict[int, int] = {}

    def __call__(self, level=None, units: int = 0):
        self._tick()
        if level is None:
            return
        from exact.kernels.points import level_items

        k = level.k
        if k != self.level:
            self.level, self._units[k] = k, 0
        self._units[k] += units
        self.level_done = min(1.0, self._units[k] / max(1, level_items(level)))

    def _tick(self):
        """Each call of the solver's callback: Cancelled once :meth:`cancel` was asked;
        the first call marks the time the solver took the job up."""
        import time

        if self.cancelled:
            raise Cancelled(f"the solve of {self.describe()} was cancelled")
        if self.started is None:
            self.started = time.monotonic()

    def cancel(self):
        self.cancelled = True

    def describe(self) -> str:
        g = self.game
        return f"N = {g.n}, {g.objective} objective" + (" (every lead)" if g.handicap else "")

    def where(self) -> tuple[int, float]:
        """(the level under way, the fraction of the whole work done)."""
        total = sum(self.work) or 1
        done = sum(self.work[: max(0, self.level)]) + self.level_done * (
            self.work[self.level] if self.level >= 0 else 0
        )
        return max(0, self.level), done / total

    def json(self) -> dict:
        import time

        level, fraction = self.where()
        return {
            "n": self.game.n,
            "objective": self.game.objective,
            "every_lead": bool(self.game.handicap),
            "what": self.describe(),
            "state": "cancelled"
            if self.cancelled
            else ("queued" if self.started is None else "solving"),
            "level": level,
            "levels": self.game.n,
            "fraction": round(fraction, 4),
            "seconds": round(time.monotonic() - self.started, 1) if self.started else 0.0,
            "estimate_seconds": round(self.estimate, 1),
        }


class Pending(Exception):
    """The solution ``key`` is being made by another thread: the endpoint awaits ``future``
    (holding no thread) and then asks again with the solution pinned."""

    def __init__(self, key, future: Future):
        super().__init__(key)
        self.key, self.future = key, future


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
    from concurrent.futures import InvalidStateError

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


class SolutionKey(NamedTuple):
    """What a solution answers: its game, and whether it is read from a store (a stored
    solution answers the requests of its game only; one solved here, of a win game with
    a handicap, those of the same game at every lead it holds)."""

    game: GameSpec
    stored: bool = False

    def covers(self, want: SolutionKey) -> bool:
        """Whether the solution of this key answers ``want``: the same source, and the
        same game solved for at least its leads (:meth:`GameSpec.covers`)."""
        return self.stored == want.stored and self.game.covers(want.game)


class VariantKey(NamedTuple):
    """A two-player variant's solution (:func:`exact.dp.variant_solver.solve_variant`):
    the game of its N (points, random order, float) and the variant.  It answers its own
    key only (``game`` and ``stored`` as a SolutionKey's, for cancel)."""

    game: GameSpec
    variant: str
    stored: bool = False

    def covers(self, want) -> bool:
        return isinstance(want, VariantKey) and self == want


class VariantProgress(SolveProgress):
    """How far a variant's solve has come: the variant solver calls ``progress(states)``
    once per upcard of the first round, so the fraction is the upcards done."""

    def __init__(self, key: VariantKey, seconds: float):
        self.key = key
        super().__init__(key.game, seconds)
        self.done = 0

    def __call__(self, states=None, units: int = 0):
        self._tick()
        if states is not None:
            self.done += 1

    def describe(self) -> str:
        return f"the {self.key.variant} variant at N = {self.game.n}"

    def where(self) -> tuple[int, float]:
        """(the upcards of the first round done, their fraction of N)."""
        done = min(self.done, self.game.n)
        return done, done / self.game.n

    def json(self) -> dict:
        return {**super().json(), "variant": self.key.variant}


class Solutions:
    """The solutions the server answers from: read from stores, or solved on the fly
    (within the size limits) and kept in an LRU cache of ``cache_bytes``; each made once,
    concurrent requests for one wait for it (module docstring)."""

    def __init__(
        self,
        stores=(),
        cache_bytes: int = WEB_CACHE_BYTES,
        solvers: int = WEB_SOLVERS,
        queue_limit: int = WEB_QUEUE,
    ):
        from exact.dp.store import game_of, read_manifest

        #: The stores served, by the game each holds (the real game, float).
        self.stores: dict[GameSpec, str] = {}
        for path in stores:
            self.stores[game_of(read_manifest(path))] = str(path)
        self.cache_bytes = cache_bytes
        self.solve_max_bytes = min(WEB_SOLVE_MAX_BYTES, cache_bytes)
        self.pool = SolverPool(solvers, queue_limit)
        # (solution, bytes) of the solutions solved here, oldest use first: a Solution by
        # its GameSpec, a variant's VariantSolution by its VariantKey
        self._cache: OrderedDict[GameSpec | VariantKey, tuple] = OrderedDict()
        self.cached_bytes = 0
        self._reserved = 0  # bytes of the solves under way
        self._stored: dict[GameSpec, object] = {}  # Solutions read from stores (memory-mapped)
        self._making: dict[SolutionKey | VariantKey, Future] = {}  # the solutions being made
        #: The large solves queued or running (in the solver threads), for /api/progress.
        self.progress: dict[SolutionKey | VariantKey, SolveProgress] = {}
        self._guard = threading.Lock()
        self.solves = 0  # games solved on the fly (tests count them)
        self.limits = {o: self._largest(o) for o in ("points", "win")}

    def _largest(self, objective: str) -> dict:
        """The largest N solved on the fly at lead 0 and at every lead."""

        def top(handicap_of):
            return max(
                (
                    n
                    for n in range(1, WEB_SOLVE_MAX_N + 1)
                    if solve_size(n, objective, handicap_of(n))[0] <= self.solve_max_bytes
                ),
                default=0,
            )

        out = {"max_n": top(lambda n: 0)}
        if objective == "win":
            out["max_n_every_lead"] = top(all_leads)
        return out

    def served(self) -> str:
        """What is solved on the fly, in words (for the errors)."""
        top, every = self.limits["win"]["max_n"], self.limits["win"]["max_n_every_lead"]
        leads = (
            f"N <= {top} at every lead"
            if top == every
            else f"N <= {every} at every lead, N <= {top} at lead 0"
        )
        return f"points N <= {self.limits['points']['max_n']}, win {leads}"

    def available(self) -> dict:
        return {
            objective: sorted(
                set(range(1, self.limits[objective]["max_n"] + 1))
                | {g.n for g in self.stores if g.objective == objective}
            )
            for objective in ("points", "win")
        }

    def stores_json(self) -> list[dict]:
        """The stores served, for /api/info: N, objective, and the order where not random."""
        return [
            {"n": g.n, "objective": g.objective}
            | ({} if g.order.name == "random" else {"order": g.order.name})
            for g in sorted(self.stores, key=lambda g: (g.n, g.objective, g.order.code))
        ]

    def _check_size(self, game: GameSpec):
        n, objective, handicap = game.n, game.objective, game.handicap
        stored = ", ".join(
            str(m) for m in sorted({g.n for g in self.stores if g.objective == objective})
        )
        check_n(
            n,
            WEB_SOLVE_MAX_N,
            what=f" to solve on the fly for the {objective} objective"
            + (f" (stores served: N = {stored})" if stored else " (serve a store with --store)"),
        )
        size, seconds = solve_size(n, objective, handicap)
        if size > self.solve_max_bytes:
            what = " with a lead (solved for every lead)" if handicap else ""
            raise GopsInputError(
                f"the {objective} objective at N = {n}{what} is not solved on the fly here: it "
                f"needs {size / GIB:.2f} GiB of values (about {seconds:.0f} s), more than the "
                f"{self.solve_max_bytes / GIB:.2f} GiB one solve may take; served without a "
                f"store: {self.served()}"
            )

    def get(self, game: GameSpec, pinned: dict | None = None):
        """The solution of ``game`` (a win game with a handicap: one solved for every lead,
        as ``gops table --lead`` does; a store answers the game it holds), from
        ``pinned`` (SolutionKey -> solution, this request's) or the cache, else made here
        (small) or raised as Pending (large)."""
        import exact
        from exact.dp.solve import check_limits, solve_game

        pinned = {} if pinned is None else pinned
        store = game in self.stores  # the real game (handicap 0) in floating point
        if store:
            key = SolutionKey(game, stored=True)
            path = self.stores[game]
            make, seconds, size = (
                (
                    lambda progress: exact.load(
                        path, n=game.n, objective=game.objective, order=game.order.name
                    )
                ),
                0.0,
                0,
            )
        elif game.arithmetic == "rational":
            check_n(game.n, EXACT_MAX_N, what=" in exact arithmetic on this server")
            key = SolutionKey(game.replace(handicap=0))
            make, seconds, size = (lambda progress: solve_game(check_limits(key.game))), 0.0, 0
        else:  # one solve for every lead
            key = SolutionKey(game.replace(handicap=all_leads(game.n) if game.handicap else 0))
            self._check_size(key.game)
            size, seconds = solve_size(game.n, game.objective, key.game.handicap)
            make = lambda progress: solve_game(check_limits(key.game), progress)  # noqa: E731
        for have, solution in pinned.items():
            if have.covers(key):
                return solution
        with self._guard:
            found = self._lookup(key)
            if found is not None:
                pinned[found[0]] = found[1]
                return found[1]
            for have, future in self._making.items():
                if have.covers(key):
                    raise Pending(have, future)
            progress = SolveProgress(key.game, seconds)
            job = lambda: self._make(key, make, size, progress)  # noqa: E731
            future = self._start(key, job, progress, seconds, seconds <= INLINE_MAX_SECONDS)
        return self._made_here(key, job, future, pinned)

    def _start(self, key, job, progress, seconds: float, here: bool) -> Future:
        """(Holding the guard.)  Register the solve of ``key``: a small one (``here``) as
        made in the caller's thread, whose Future is returned; a large one submitted to the
        solver threads with its progress, raised as Pending (Busy if the queue is full)."""
        if not here:
            progress.future = self.pool.submit(job, seconds)  # Busy if full
            self.progress[key], self._making[key] = progress, progress.future
            raise Pending(key, progress.future)
        future = self._making[key] = progress.future = Future()
        return future

    @staticmethod
    def _made_here(key, job, future: Future, pinned: dict):
        """Make a small solve in this thread (:meth:`_start`), its waiters answered by
        ``future``."""
        try:
            solution = job()
        except BaseException as exc:
            future.set_exception(exc)
            raise
        future.set_result(solution)
        pinned[key] = solution
        return solution

    def variant(self, variant: str, n: int, pinned: dict | None = None):
        """The solution of a two-player ``variant`` (twelve, dummy) of N cards, for points
        in the random order (its N checked by the caller): kept in the cache once solved
        (weighed by VariantSolution.memory_bytes), solved in this thread when small
        (VARIANT_INLINE_MAX_N), else by the solver threads (raised as Pending, with
        progress and cancel as the standard game's solves)."""
        from exact.dp import variant_solver

        key = VariantKey(GameSpec.parse(n), variant)
        pinned = {} if pinned is None else pinned
        if key in pinned:
            return pinned[key]
        with self._guard:
            if key in self._cache:
                self._cache.move_to_end(key)
                pinned[key] = self._cache[key][0]
                return pinned[key]
            if key in self._making:
                raise Pending(key, self._making[key])
            seconds = VARIANT_SECONDS.get(variant, {}).get(n, 0.0)
            progress = VariantProgress(key, seconds)

            def make(progress):
                return variant_solver.solve_variant(variant, n, "float", progress=progress)

            job = lambda: self._make(key, make, 0, progress)  # noqa: E731
            future = self._start(key, job, progress, seconds, n <= VARIANT_INLINE_MAX_N[variant])
        return self._made_here(key, job, future, pinned)

    def solving(self) -> list[dict]:
        """The large solves queued or running, for /api/progress, in the order the solver
        threads take them up: each with its ``queue_position`` (0 running, 1 next, ...)
        and, while it waits, ``behind``: what the threads are solving."""
        with self._guard:
            jobs = list(self.progress.values())
        running = [p.json() for p in jobs if p.started is not None]
        out, waiting = [], 0
        for p in jobs:
            entry = p.json()
            if entry["state"] == "queued":
                waiting += 1
                entry |= {"queue_position": waiting, "behind": running}
            else:
                entry["queue_position"] = 0
            out.append(entry)
        return out

    def cancel(
        self, game: GameSpec, orders: set[str] | None = None, variant: str = "standard"
    ) -> list[dict]:
        """Cancel the solves under way of ``game``'s N and objective, at any lead and of
        the prize ``orders`` (names; None: every order), of the standard game or of one
        two-player ``variant`` (the requests waiting for them get 400); the solves
        cancelled.  A running solve stops at its next chunk; a queued one answers its
        requests at once and is forgotten (a new request for its game queues a new
        solve), its thread skips it."""

        def wanted(key) -> bool:
            if isinstance(key, VariantKey):
                return key.variant == variant
            return variant == "standard" and (orders is None or key.game.order.name in orders)

        with self._guard:
            hit = [
                (key, p)
                for key, p in self.progress.items()
                if not key.stored
                and (key.game.n, key.game.objective) == (game.n, game.objective)
                and wanted(key)
            ]
            for key, p in hit:
                p.cancel()
                if p.started is None:
                    self._forget(key, p)
                    if p.future is not None:
                        self.pool.withdraw(p.future)
        for _, p in hit:
            if p.started is None and p.future is not None and not p.future.done():
                try:
                    p.future.set_exception(Cancelled(f"the solve of {p.describe()} was cancelled"))
                except Exception:  # settled meanwhile by its thread
                    pass
        return [p.json() for _, p in hit]

    def _forget(self, key: SolutionKey | VariantKey, progress: SolveProgress) -> None:
        """Drop the solve ``progress`` of ``key`` from those under way (under the guard),
        leaving a newer solve of the same key alone."""
        if self.progress.get(key) is progress:
            del self.progress[key]
        if self._making.get(key) is progress.future:
            del self._making[key]

    def _lookup(self, key: SolutionKey):
        """(key, solution) of a kept solution that answers ``key`` (marked as used)."""
        if key.stored:
            return (key, self._stored[key.game]) if key.game in self._stored else None
        for have in self._cache:
            if isinstance(have, GameSpec) and have.covers(key.game):
                self._cache.move_to_end(have)
                return SolutionKey(have), self._cache[have][0]
        return None

    def _evict(self, room: int):
        """Drop the least recently used solutions until ``room`` more bytes fit."""
        while self._cache and self.cached_bytes + self._reserved + room > self.cache_bytes:
            _, (_, size) = self._cache.popitem(last=False)
            self.cached_bytes -= size

    def _make(self, key: SolutionKey | VariantKey, make, size: int, progress: SolveProgress):
        with self._guard:
            self._evict(size)
            self._reserved += size
        try:
            progress()  # Cancelled while it waited in the queue: never started
            solution = make(progress)
        except BaseException:
            with self._guard:
                self._reserved -= size
                self._forget(key, progress)
            raise
        # the cache's key and weight: a variant's own key, a game's GameSpec
        entry: GameSpec | VariantKey
        if isinstance(key, VariantKey):
            entry, weight, counted = key, solution.memory_bytes(), True
        else:
            entry, counted = key.game, key.game.arithmetic == "float"
            weight = 0 if key.stored else solution_bytes(solution)
        with self._guard:  # kept and no longer being made in one step: no second solve
            self._reserved -= size
            self._forget(key, progress)
            if key.stored:
                self._stored[key.game] = solution
            else:
                self.solves += counted
                self._evict(weight)
                if weight <= self.cache_bytes:
                    self._cache[entry] = (solution, weight)
                    self.cached_bytes += weight
        return solution


# -- query parameters ----------------------------------------------------------------------


def _param(request: Request, name: str, required: bool = True):
    value = request.query_params.get(name)
    if value is None and required:
        raise GopsInputError(f"missing query parameter {name!r}")
    return value


def _integer(request: Request, name: str, required: bool = True):
    from exact.game.rules import parse_integer

    value = _param(request, name, required)
    return None if value is None else parse_integer(value, name)


def _flag(request: Request, name: str) -> bool:
    """An on/off query parameter: absent, 0 or false is off; 1 or true is on."""
    value = request.query_params.get(name, "0").lower()
    if value not in ("0", "1", "false", "true"):
        raise GopsInputError(f"{name} must be 1 or 0 (true or false), got {value!r}")
    return value in ("1", "true")


def _cards(request: Request, name: str):
    from exact.game.rules import parse_cards

    return parse_cards(_param(request, name))


def game_query(request: Request, game: bool = False) -> tuple[GameSpec, int | None]:
    """The one parser of the game a query asks about: a GameSpec of ``n`` (1..16; what
    is solved on the fly is :class:`Solutions`' business), ``objective`` (points by
    default) and, for the endpoints of a ``game`` against the computer, ``order`` (random
    by default; the other endpoints answer the random order), with the query's lead: 0
    by default for the win objective, None for points (a ``lead`` there is refused; a
    game's lead is your head start).  One-line GopsInputError otherwise."""
    params = request.query_params
    n = check_n(_integer(request, "n"), ENCODING_MAX_N)
    spec = GameSpec.parse(
        n, params.get("objective", "points"), params.get("order", "random") if game else "random"
    )
    lead = _integer(request, "lead", required=False)
    if lead is not None and not spec.has_lead:
        raise GopsInputError("--lead applies to --objective win only")
    return spec, (0 if spec.has_lead and lead is None else lead)


def _solution(request: Request, game: GameSpec):
    """Solutions.get with this request's pinned solutions (see _api)."""
    return request.app.state.solutions.get(game, pinned=request.state.pinned)


def _position(request: Request):
    """(solution, mine, theirs, deck, upcard, lead, game) of a position query."""
    from exact.game.rules import validate_position

    game, lead = game_query(request)
    mine, theirs, deck = _cards(request, "mine"), _cards(request, "theirs"), _cards(request, "deck")
    upcard = _integer(request, "upcard")
    m, t, d = validate_position(mine, theirs, deck, upcard, n=game.n)
    game = _with_handicap(game, lead, d)
    sol = _solution(request, game)
    return sol, m, t, d, upcard, lead, game


def _with_handicap(game: GameSpec, lead, deck) -> GameSpec:
    """``game`` solved for the ``lead`` of a position with the prizes ``deck`` left: the
    part of the lead that the prizes played cannot explain is a handicap, as on First
    move (a solve for every lead; a lead they explain needs none)."""
    if not lead:
        return game
    from exact.dp.solve import check_lead

    played = all_leads(game.n) - sum(deck)
    return game.replace(handicap=max(0, abs(check_lead(game.n, lead, "the lead")) - played))


# -- endpoints ------------------------------------------------------------------------------


def _head(game: GameSpec, lead):
    return {"objective": "win", "lead": lead} if game.has_lead else None


def _with_source(out: dict, sol, mine, theirs, deck, upcards) -> dict:
    """An answer read from a store says so: the values its games read, re-derived here
    from the level below (exact.dp.verify.check_reads), and the levels taken as stored."""
    from exact.dp.verify import check_position

    reads = check_position(sol, mine, theirs, deck, upcards)
    if reads is not None:
        out["source"] = reads.json() | {"text": reads.describe()}
    return out


def strategy(request: Request) -> dict:
    sol, m, t, d, u, lead, game = _position(request)
    out = strategy_json(sol.strategy(m, t, d, u, lead), False, _head(game, lead))
    return _with_source(out, sol, m, t, d, [u])


def position(request: Request) -> dict:
    from exact.analysis.certified import certify_strategy
    from exact.views import certified_json

    sol, m, t, d, u, lead, game = _position(request)
    st = sol.strategy(m, t, d, u, lead)
    out = strategy_json(st, False, _head(game, lead))
    A = sol.matrix(m, t, d, u, lead)
    out["n"] = sol.n
    out["rows"], out["columns"] = sorted(m), sorted(t)
    out["matrix"] = [[float(a) for a in row] for row in A]
    certified = certify_strategy(sol, m, t, d, u, lead)
    out["certified"] = certified_json(certified, m, t)
    if "reason" in out["certified"]:
        out["certified"]["reason"] = name_cards(out["certified"]["reason"], m, t)
    ranged = A
    if sol.n <= EXACT_MAX_N and abs(lead or 0) <= all_leads(sol.n) - sum(d):
        # (solved in exact arithmetic for the real game only: no handicap)
        exact_sol = _solution(request, game.replace(arithmetic="rational"))
        out["exact"] = _exact(exact_sol.strategy(m, t, d, u, lead))
        ranged = exact_sol.matrix(m, t, d, u, lead)
    out["ranges"] = position_ranges(ranged, m, t, exact_=ranged is not A)
    out["before_upcard"] = {  # f(V, Y, P) before the upcard, and f_u for each upcard
        "value": float(sol.value(m, t, d, lead)),
        "by_upcard": {str(c): float(v) for c, v in sol.prize_values(m, t, d, lead).items()},
    }
    return _with_source(out, sol, m, t, d, [u])


def position_ranges(A, mine, theirs, exact_: bool) -> dict:
    """The range of each probability over ALL optimal strategies of both players
    (:func:`exact.analysis.ranges.optimal_set_ranges`: the column player's are the row
    player's of -A^T), {"mine": {card: [lo, hi]}, "theirs": ..., "unique": {...},
    "exact": whether found in rationals (else float LPs, a range of width <= 1e-6 a
    point)}; the ends as floats.

    >>> r = position_ranges([[2, 0, 5], [0, 2, 5], [1, 1, 5]], {1, 2, 3}, {1, 2, 3}, True)
    >>> r["mine"], r["unique"]
    ({'1': [0.0, 0.5], '2': [0.0, 0.5], '3': [0.0, 1.0]}, {'mine': False, 'theirs': True})
    """
    from exact.analysis.ranges import optimal_set_ranges

    how = "rational" if exact_ else "float"
    rows = [list(row) for row in A]
    cols = [[-row[j] for row in rows] for j in range(len(rows))]
    out: dict = {"exact": exact_, "unique": {}}
    for who, matrix, cards in (("mine", rows, mine), ("theirs", cols, theirs)):
        ranges = optimal_set_ranges(matrix, how)
        out[who] = {str(c): [float(r.lo), float(r.hi)] for c, r in zip(sorted(cards), ranges)}
        out["unique"][who] = all(r.unique for r in ranges)
    return out


def line(request: Request) -> dict:
    """A line of play from a position before its upcard (n, mine, theirs, deck, lead):
    ``line`` = "u:b-t,...", each round's upcard, my bid and theirs, played by the rules
    (:class:`exact.game.rules.Position`); the rounds scored, the position reached, its
    value before the next upcard and its value once each prize the order can turn up is
    up (``by_upcard``); ``over`` once no card is left."""
    from exact.game.rules import Position, parse_integer, validate_position

    game, lead = game_query(request)
    m, t, d = validate_position(
        _cards(request, "mine"), _cards(request, "theirs"), _cards(request, "deck"), n=game.n
    )
    rounds: list[tuple[int, int, int]] = []
    for i, text in enumerate(filter(None, request.query_params.get("line", "").split(","))):
        try:
            up, bids = text.split(":")
            bid, theirs_bid = bids.split("-")
        except ValueError:
            raise GopsInputError(
                f"step {i + 1} of the line is {text!r}, not upcard:mine-theirs (5:3-4)"
            ) from None
        rounds.append(
            (
                parse_integer(up, f"step {i + 1}'s upcard"),
                parse_integer(bid, f"step {i + 1}'s bid"),
                parse_integer(theirs_bid, f"step {i + 1}'s their bid"),
            )
        )
    start = lead or 0
    pos = Position._unchecked((m, t), d, None, (max(start, 0), max(-start, 0)), game.n)
    steps = []
    names = {0: "me", 1: "them", None: "nobody"}
    for i, (u, b, c) in enumerate(rounds):
        try:
            pos, result = pos.turn_up(u).play(b, c)
        except GopsInputError as exc:
            raise GopsInputError(f"step {i + 1} of the line: {exc}") from None
        steps.append(
            {"prize": u, "mine": b, "theirs": c, "winner": names[result.winner]}
            | ({"lead": pos.lead} if game.has_lead else {})
        )
    sol = _solution(request, _with_handicap(game, lead, d))
    now = pos.lead if game.has_lead else None
    mine, theirs, deck = pos.hands[0], pos.hands[1], pos.deck
    out: dict[str, object] = {
        "steps": steps,
        "mine": sorted(mine),
        "theirs": sorted(theirs),
        "deck": sorted(deck),
        **({"lead": now} if game.has_lead else {}),
        "over": pos.is_terminal,
        "points": [pos.points[0] - max(start, 0), pos.points[1] - max(-start, 0)],
    }
    if not pos.is_terminal:
        out["value"] = float(sol.value(mine, theirs, deck, now))
        out["by_upcard"] = {
            str(u): float(v) for u, v in sol.prize_values(mine, theirs, deck, now).items()
        }
    return out


def name_cards(reason: str, mine, theirs) -> str:
    """The certificate's reason with its rows and columns named by their cards.

    >>> name_cards("column 2 is (nearly) a best reply too: a near-tie", {1, 2}, {1, 3, 4})
    'their bid 3 is (nearly) a best reply too: a near-tie'
    """
    import re

    cards = {"row": sorted(mine), "column": sorted(theirs)}
    who = {"row": "my bid", "column": "their bid"}

    def named(match):
        kind, i = match.group(1), int(match.group(2))
        line = cards[kind]
        return f"{who[kind]} {line[i - 1]}" if 1 <= i <= len(line) else match.group(0)

    return re.sub(r"\b(row|column) (\d+)\b", named, reason)


def _exact(st) -> dict:
    """An exact equilibrium as "p/q" strings with their digit counts."""
    mine = {str(c): fraction_text(p) for c, p in st.mine.items()}
    theirs = {str(c): fraction_text(p) for c, p in st.theirs.items()}
    return {
        "value": fraction_text(st.value),
        "mine": mine,
        "theirs": theirs,
        "digits": max(len(text) for text in [*mine.values(), *theirs.values()]),
    }


def table(request: Request) -> dict:
    from exact.dp.solve import check_lead

    game, lead = game_query(request)
    n = game.n
    handicap = abs(check_lead(n, lead, "--lead")) if lead else 0
    sol = _solution(request, game.replace(handicap=handicap))
    root = set(range(1, n + 1))
    strategies = {u: sol.strategy(root, root, root, u, lead) for u in range(1, n + 1)}
    gap = max(s.gap for s in strategies.values())
    certified = None
    if _flag(request, "certified"):  # as gops table --certified: each column proved
        from exact.analysis.certified import certify_strategy

        certified = {u: certify_strategy(sol, root, root, root, u, lead) for u in strategies}
    out = table_json(
        n,
        sol.objective,
        lead if game.has_lead else None,
        {u: s.mine for u, s in strategies.items()},
        gap,
        ranges=_table_ranges(request, game, sol) if _flag(request, "ranges") else None,
        certified=certified,
    )
    if "ranges" in out:
        out["ranges_exact"] = n <= EXACT_MAX_N
    return _with_source(out, sol, root, root, root, list(strategies))


def _table_ranges(request: Request, game: GameSpec, sol) -> dict:
    """The ``ranges`` of ``gops table --ranges --json``: each first-move probability's
    range over all optimal strategies (exact.analysis.ranges; exact arithmetic up to
    EXACT_MAX_N, float LPs beyond, as on Explore), for the points objective and the random
    order, with the CLI's one-line refusals otherwise."""
    from exact.analysis.ranges import first_move_ranges, ranges_json

    if game.has_lead:
        raise GopsInputError("--ranges applies to the points objective only")
    if game.order.name != "random":
        raise GopsInputError("--ranges covers the random prize order only")
    if game.n <= EXACT_MAX_N:
        sol = _solution(request, game.replace(arithmetic="rational"))
    return ranges_json(first_move_ranges(sol))


def progress(request: Request) -> dict:
    """The large solves queued or running: what, its level, the fraction done (by the
    cost model's work), seconds so far and the model's estimate."""
    return {"solving": request.app.state.solutions.solving()}


def cancel(request: Request) -> dict:
    """Cancel the solves of the query's game (n, objective; ``order``: a game's order,
    whose solves are of that order and of its mirror, else every order; ``variant``: that
    two-player variant's solves, else the standard game's); what was cancelled."""
    game, _ = game_query(request, game=True)
    variant = variant_name(request)
    orders = None
    if "order" in request.query_params:
        orders = {game.order.name, game.mirrored().order.name}
    return {"cancelled": request.app.state.solutions.cancel(game, orders, variant)}


def variant_limits() -> dict:
    """The N each variant of Play is played at: the variant solver's float limits
    (exact.limits.VARIANT_MAX_N; the twelve-round game needs two cards, as its rules drop
    the last prize), which ``gops play --variant`` applies too."""
    from exact.game.variants import get_variant
    from exact.limits import VARIANT_MAX_N

    return {
        v: {"min_n": 2 if get_variant(v).drop_last else 1, "max_n": VARIANT_MAX_N[v, "float"]}
        for v in PLAY_VARIANTS[1:]
    }


def info(request: Request) -> dict:
    solutions = request.app.state.solutions
    pool = solutions.pool
    return {
        "solvable": solutions.available(),
        "solve_max_n": WEB_SOLVE_MAX_N,
        "variants": variant_limits(),
        "stores": solutions.stores_json(),
        "solves": solutions.solves,
        "limits": solutions.limits
        | {
            "served": solutions.served(),
            "solve_max_bytes": solutions.solve_max_bytes,
            "cache_bytes": solutions.cache_bytes,
            "cached_bytes": solutions.cached_bytes,
            "solvers": pool.workers,
            "queue": pool.limit,
            "running": pool.running,
            "queued": pool.queued,
        },
    }


# -- the game: played by exact.play.engine, replayed from its state -------------------------


def _game(request: Request, bid: bool = False, prize: bool = False) -> dict:
    """The game of the request's state, replayed, with its new ``bid`` or ``prize``."""
    from exact.play.bots import Bot, bot_for
    from exact.play.engine import Game

    game, lead = game_query(request, game=True)
    variant = game_variant(request, game)
    if lead:  # a head start: the computer plays the game solved for it (every lead)
        from exact.dp.solve import check_lead

        game = game.replace(handicap=abs(check_lead(game.n, lead, "the lead")))
    seed = _integer(request, "seed", required=False)
    bids = list(_game_cards(request, "bids"))
    prizes = list(_game_cards(request, "prizes"))
    moves = (
        bids + [_integer(request, "bid")] if bid else bids,
        prizes + [_integer(request, "prize")] if prize else prizes,
    )
    computer: Bot
    if variant == "standard":  # the computer sees the game from the other seat: who
        seen = game.mirrored()  # chooses is mirrored
        computer = bot_for(seen, _solution(request, seen))
    else:  # the variant's equilibrium (a symmetric game, random order: the same seen)
        from exact.play.bots import VariantOptimalBot

        solutions = request.app.state.solutions
        computer = VariantOptimalBot(solutions.variant(variant, game.n, request.state.pinned))
    board = Game(
        game.n,
        [computer],
        variant=variant,
        order=game.order.name,
        seed=seed,
        lead=lead or 0,
    )
    board.replay(*moves)
    out = game_json(board, game.objective, *moves)
    if board.over and variant == "standard":  # the review (the standard game only):
        # your bids against the equilibrium of your seat's game
        review = board.review(_solution(request, game))
        out["review"] = {
            "rounds": [
                r | {"equilibrium": {str(c): p for c, p in r["equilibrium"].items()}}
                for r in review
            ],
            "total_cost": sum(r["cost"] for r in review),
        }
    return out


def variant_name(request: Request) -> str:
    """The query's ``variant`` (standard by default), one of PLAY_VARIANTS."""
    variant = request.query_params.get("variant", "standard")
    if variant not in PLAY_VARIANTS:
        raise GopsInputError(
            f"unknown variant {variant!r}: Play offers " + ", ".join(PLAY_VARIANTS)
        )
    return variant


def game_variant(request: Request, game: GameSpec) -> str:
    """The ``variant`` of a game query (PLAY_VARIANTS; standard by default), checked with
    its game as ``gops play --variant`` checks it: the variants are solved for points in
    the random order (so no lead; the same one-line messages), N within the variant
    solver's limit (its own message: the web app does not import the command line)."""
    variant = variant_name(request)
    if variant != "standard":
        from exact.dp.variant_solver import check_variant_options
        from exact.play.engine import check_setup

        check_setup(variant, game.order.name, game.objective)
        if game.objective != "points":
            raise GopsInputError(f"the {variant} variant is solved for points only")
        check_variant_options(variant, game.n, "float")  # the solver's own limit on N
    return variant


def _game_cards(request: Request, name: str) -> tuple[int, ...]:
    from exact.game.rules import parse_cards

    return parse_cards(request.query_params.get(name, ""))


def game_json(game, objective: str, bids, prizes) -> dict:
    """A two-player game as the page draws it; ``state``: what it sends back.  A variant
    adds its name and rules; with the dummy, its bid and points each round (a tie with
    it splits the prize), its score and prizes; in the twelve-round game, once it is
    over, the ``leftover`` prize that was never bid on."""
    rules = game.rules
    dummy = rules.dummy
    names = ("you", "computer", "dummy") if dummy else ("you", "computer")
    variant = {} if rules.name == "standard" else {"variant": rules.name}

    def who(scorers) -> str:
        return " and ".join(names[i] for i in scorers) or "nobody"

    over = game.awaiting == "over"
    to_come = set() if over else game.position.deck - {game.upcard}  # (a leftover: none)
    if game.order.next != "any":  # a known order: the prizes in the order they come
        to_come = [p for p in game.prizes if p in to_come]
    head = {"lead": game.lead} if objective == "win" else {}
    extra: dict[str, object] = {}
    if variant:
        extra = {"variant_text": VARIANT_TEXT[rules.name], "review_text": NO_REVIEW}
        if rules.drop_last:
            extra["leftover"] = game.leftover
        if dummy:
            extra["dummy_cards"] = sorted(game.position.dummy_hand)
            extra["split"] = {  # prizes shared on a tie for the high bid
                name: [r.prize for r in game.history if len(r.scorers) > 1 and i in r.scorers]
                for i, name in enumerate(names)
            }
    return {
        "n": game.n,
        "objective": objective,
        "order": game.order.name,
        "order_text": game.order.description,
        "seed": game.seed,
        **variant,
        **extra,
        **head,
        "round": game.round,
        "rounds": game.rounds,
        "awaiting": game.awaiting,
        "chooser": game.chooser,
        "choices": game.prize_choices() if game.chooser else [],
        "upcard": game.upcard,
        "prizes_left": sorted(game.position.deck),
        "prizes_to_come": sorted(to_come) if game.order.next == "any" else to_come,
        "won": {
            name: [r.prize for r in game.history if r.scorers == [i]]
            for i, name in enumerate(names)
        },
        "your_cards": game.legal_bids(),
        "computer_cards": sorted(game.position.hands[1]),
        "score": dict(zip(names, (_points(p) for p in game.points))),
        "history": [
            {
                "round": r.number,
                "prize": r.prize,
                "you": r.bids[0],
                "computer": r.bids[1],
                "winner": who(r.scorers),
                "mix": {str(c): float(p) for c, p in sorted(r.mixes[0].items())},
            }
            | (
                {
                    "dummy": r.dummy_bid,
                    "points": dict(zip(names, (_points(p) for p in r.points))),
                }
                if dummy
                else {}
            )
            for r in game.history
        ],
        "winner": (who([game.winner]) if game.winner is not None else "nobody") if over else None,
        "state": {
            "n": game.n,
            "objective": objective,
            "order": game.order.name,
            "seed": game.seed,
            **variant,
            **head,
            "bids": ",".join(map(str, bids)),
            "prizes": ",".join(map(str, prizes)),
        },
    }


#: The rules a variant adds, as the page states them (gops play's VARIANT_RULES).
VARIANT_TEXT = {
    "twelve": "Twelve-round game: the aces are out of both hands, so there is one round "
    "fewer than prizes, and the prize left after the last round is discarded.",
    "dummy": "A dummy bids a random card of a third suit after you both bid; a tie for the "
    "high bid splits the prize between the tied bidders (the dummy included), a "
    "three-way tie discards it.",
}
#: Why a variant's game has no review.
NO_REVIEW = "no review: the review covers the standard game only"


def _points(x):
    """Points as JSON: an integer as such, a half point as 4.5."""
    return int(x) if x == int(x) else float(x)


def game_new(request: Request) -> dict:
    return _game(request)


def game_bid(request: Request) -> dict:
    return _game(request, bid=True)


def game_prize(request: Request) -> dict:
    return _game(request, prize=True)


class CliJSON(JSONResponse):
    """JSON laid out as the command line prints it (``json.dumps`` defaults), so an answer
    is byte for byte what ``gops ... --json`` prints, without its final newline."""

    def render(self, content) -> bytes:
        import json

        return json.dumps(content).encode()


def _api(handler):
    """A JSON endpoint: the handler runs in a worker thread; 400 with the CLI's one-line
    message for bad input; 503 with Retry-After when the solvers are full.  A solution
    being made elsewhere is awaited here, holding no thread, then the handler runs again
    with it pinned (a position needs at most two: float and exact)."""
    from starlette.concurrency import run_in_threadpool

    async def endpoint(request: Request):
        request.state.pinned = {}
        try:
            for _ in range(4):
                try:
                    return CliJSON(await run_in_threadpool(handler, request))
                except Pending as pending:  # shield: a client leaving cancels no solve
                    solution = await asyncio.shield(asyncio.wrap_future(pending.future))
                    request.state.pinned[pending.key] = solution
            raise SolverError("a request kept waiting for solutions")
        except GopsInputError as exc:
            return CliJSON({"error": str(exc)}, status_code=400)
        except Busy as exc:
            return CliJSON(
                {"error": str(exc)}, status_code=503, headers={"Retry-After": str(exc.retry_after)}
            )
        except asyncio.CancelledError:  # the server stops (uvicorn's graceful timeout)
            return CliJSON({"error": "the server is stopping"}, status_code=503)

    return endpoint


async def index(request: Request):
    return FileResponse(STATIC / "index.html")


async def favicon(request: Request):
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


def create_app(
    stores=(),
    cache_bytes: int = WEB_CACHE_BYTES,
    solvers: int = WEB_SOLVERS,
    queue_limit: int = WEB_QUEUE,
) -> Starlette:
    """The app of ``gops serve``; ``stores``: store directories to answer from; the cache
    in bytes, the solver threads and the solves that may wait for them."""
    app = Starlette(
        routes=[
            Route("/", index),
            Route("/favicon.ico", favicon),
            Route("/api/info", _api(info)),
            Route("/api/progress", _api(progress)),
            Route("/api/cancel", _api(cancel), methods=["POST"]),
            Route("/api/strategy", _api(strategy)),
            Route("/api/position", _api(position)),
            Route("/api/table", _api(table)),
            Route("/api/line", _api(line)),
            Route("/api/game/new", _api(game_new)),
            Route("/api/game/bid", _api(game_bid)),
            Route("/api/game/prize", _api(game_prize)),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]
    )
    app.state.solutions = Solutions(stores, cache_bytes, solvers, queue_limit)
    return app
