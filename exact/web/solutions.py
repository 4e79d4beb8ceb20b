"""The solutions ``gops serve`` answers from: read from stores, or solved on the fly.

A request names a game (a GameSpec); :meth:`Solutions.get` answers it from a store that
holds that game, from the byte-bounded cache (:mod:`exact.web.cache`), or by a solve:

- A solve on the fly may take at most ``WEB_SOLVE_MAX_BYTES`` of values (and the cache's
  size): points and win up to N = 10, win N = 10 at every lead included (0.77 GiB of
  values, one per antisymmetric pair; at lead 0 only, 0.56 GiB).  Beyond is a one-line
  GopsInputError saying what is served and why.  A win game with a lead is solved once
  for every lead (handicap :func:`exact.game.rules.prize_total`), so leads 1..55 make one
  solve, not 55.
- Small solves (estimated under ``INLINE_MAX_SECONDS`` by the cost model of
  :mod:`exact.dp.preflight`: points N <= 9, win N <= 7, exact N <= 5) are made in the
  request's thread; larger ones by the solver threads (:mod:`exact.web.pool`), raised as
  :class:`Pending` so that the request awaits its future holding no thread, their
  progress kept for ``/api/progress`` (:mod:`exact.web.progress`).
- Concurrent requests for one game wait for one solve: a solution is registered as being
  made, under the lock, before it is made.
- A frontier store (``gops solve --keep-from K``) holds levels K..N only: it answers a
  request whose answer reads levels K and above (``lowest``, the lowest level read);
  one that reads below K is answered as on a server without that store, by a solve on
  the fly, or refused in one line saying how to get the answer.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future
from typing import NamedTuple

import exact
from exact.dp import preflight, variant_solver
from exact.dp import solve as dp_solve
from exact.dp.store import Store
from exact.errors import GopsInputError
from exact.game.objectives import OBJECTIVES, GameObjective
from exact.game.orders import RANDOM, PrizeOrder
from exact.game.rules import prize_total
from exact.game.spec import GameSpec
from exact.game.variants import STANDARD, Variant, get_variant
from exact.limits import check_n
from exact.web.cache import SolutionCache, solution_bytes
from exact.web.pool import WEB_QUEUE, WEB_SOLVERS, SolverPool
from exact.web.progress import Cancelled, SolveProgress, VariantProgress

GIB = 2**30
#: Solved on the fly up to this N (within WEB_SOLVE_MAX_BYTES); larger N come from stores
#: (--store).  Float N = 10 takes about 3 s (points) and 40 to 80 s (win) on 2 cores.
WEB_SOLVE_MAX_N = 10
#: The values one solve on the fly may fill: win N = 10 at lead 0 holds 0.56 GiB, at every
#: lead 0.77 GiB, win N = 9 at every lead 0.12 GiB (solve_size).
WEB_SOLVE_MAX_BYTES = int(1.25 * GIB)
#: The solutions kept, by their values' bytes (``gops serve --cache-mib``).
WEB_CACHE_BYTES = 2 * GIB
#: A solve the cost model puts under this is made in the request's own thread (points
#: N = 9 is 0.4 s by the model, 0.6 s measured; win N = 8 is 1.0 s by the model).
INLINE_MAX_SECONDS = 0.5
#: The exact equilibrium of a position is shown up to this N (the game solved once in
#: rational arithmetic: 0.12 s at N = 5; N = 6 takes 16 s and its fractions have up to
#: 17,419 digits).
EXACT_MAX_N = 5
#: The two-player variants of Play (:data:`exact.web.query.PLAY_VARIANTS`) are solved on
#: the fly by :mod:`exact.dp.variant_solver` for points in the random order: the largest N
#: of each solved in the request's thread, and the seconds expected of the larger N (for
#: /api/progress), measured on 2 cores beside a long solve: twelve N = 5 0.5 s, dummy
#: N = 4 0.1 s; twelve N = 7 and dummy N = 5 5 s, twelve N = 8 20 s, dummy N = 6 90 s,
#: twelve N = 9 200 s.
VARIANT_INLINE_MAX_N = {"twelve": 5, "dummy": 4}
VARIANT_SECONDS = {
    "twelve": {6: 1.0, 7: 5.0, 8: 20.0, 9: 200.0},
    "dummy": {5: 5.0, 6: 90.0},
}


def solve_size(n: int, objective, handicap: int = 0) -> tuple[int, float]:
    """Bytes of values and estimated seconds (exact.dp.preflight's sizes and cost model,
    this machine's cores) of a float solve of N cards: one value per antisymmetric pair.

    >>> [round(solve_size(10, "win", h)[0] / 2 ** 30, 2) for h in (0, prize_total(10))]
    [0.56, 0.77]
    """
    game = GameSpec.parse(n, objective, handicap=handicap)
    size = sum(preflight.level_bytes(game, k) for k in range(n + 1))
    work = sum(preflight.level_work(game, k) for k in range(n + 1))
    return size, work * preflight.CORE_SECONDS_PER_UNIT[game.objective] / (os.cpu_count() or 1)


class Pending(Exception):
    """The solution ``key`` is being made by another thread: the endpoint awaits ``future``
    (holding no thread) and then asks again with the solution pinned."""

    def __init__(self, key, future: Future):
        super().__init__(key)
        self.key, self.future = key, future


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

    @property
    def rules(self) -> Variant:
        """The Variant the key names."""
        return get_variant(self.variant)


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
        #: The stores served, by the game each holds (the real game, float).
        self.stores: dict[GameSpec, str] = {}
        #: The lowest level each store keeps (a frontier store's K; 0: every level).
        self.keep_from: dict[GameSpec, int] = {}
        for path in stores:
            store = Store.open(path)
            self.stores[store.game] = str(path)
            self.keep_from[store.game] = store.keep_from
        self.cache_bytes = cache_bytes
        self.solve_max_bytes = min(WEB_SOLVE_MAX_BYTES, cache_bytes)
        self.pool = SolverPool(solvers, queue_limit)
        # (solution, bytes) of the solutions solved here, oldest use first: a Solution by
        # its GameSpec, a variant's VariantSolution by its VariantKey
        self._cache = SolutionCache(cache_bytes)
        self._stored: dict[GameSpec, object] = {}  # Solutions read from stores (memory-mapped)
        self._making: dict[SolutionKey | VariantKey, Future] = {}  # the solutions being made
        #: The large solves queued or running (in the solver threads), for /api/progress.
        self.progress: dict[SolutionKey | VariantKey, SolveProgress] = {}
        self._guard = threading.Lock()
        self.solves = 0  # games solved on the fly (tests count them)
        self.limits = {o.name: self._largest(o) for o in OBJECTIVES.values()}

    def _largest(self, objective: GameObjective) -> dict:
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
        if objective.has_lead:
            out["max_n_every_lead"] = top(prize_total)
        return out

    @property
    def cached_bytes(self) -> int:
        """Bytes of the solutions kept in the cache."""
        return self._cache.used

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
            objective.name: sorted(
                set(range(1, self.limits[objective.name]["max_n"] + 1))
                | {g.n for g in self.stores if g.objective is objective}
            )
            for objective in OBJECTIVES.values()
        }

    def stores_json(self) -> list[dict]:
        """The stores served, for /api/info: N, objective, and the order where not random."""
        return [
            {"n": g.n, "objective": g.objective.name}
            | ({} if g.order is RANDOM else {"order": g.order.name})
            for g in sorted(self.stores, key=lambda g: (g.n, g.objective.name, g.order.code))
        ]

    def _check_size(self, game: GameSpec):
        n, objective, handicap = game.n, game.objective.name, game.handicap
        stored = ", ".join(
            str(m) for m in sorted({g.n for g in self.stores if g.objective is game.objective})
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

    def get(self, game: GameSpec, pinned: dict | None = None, lowest: int = 0):
        """The solution of ``game`` (a win game with a handicap: one solved for every lead,
        as ``gops table --lead`` does; a store answers the game it holds if it keeps
        level ``lowest``, the lowest level the answer reads), from ``pinned``
        (SolutionKey -> solution, this request's) or the cache, else made here (small) or
        raised as Pending (large)."""
        pinned = {} if pinned is None else pinned
        key, make, seconds, size = self._recipe(game, lowest)
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

    def _recipe(self, game: GameSpec, lowest: int = 0):
        """(key, make, seconds, size) of the solution that answers ``game`` down to level
        ``lowest``: its key, the function of a progress callback that makes it, the cost
        model's seconds and its bytes of values (0 for a store, mapped from disk, and for
        exact arithmetic)."""
        if game in self.stores and lowest < self.keep_from[game]:
            return self._below_frontier(game, lowest)
        if game in self.stores:  # the real game (handicap 0) in floating point
            path = self.stores[game]

            def load(progress):
                return exact.load(
                    path, n=game.n, objective=game.objective.name, order=game.order.name
                )

            return SolutionKey(game, stored=True), load, 0.0, 0
        if game.arithmetic.exact:
            check_n(game.n, EXACT_MAX_N, what=" in exact arithmetic on this server")
            exact_key = SolutionKey(game.replace(handicap=0))

            def solve_exact(progress):
                return dp_solve.solve_game(dp_solve.check_limits(exact_key.game))

            return exact_key, solve_exact, 0.0, 0
        return self._solve_recipe(game)

    def _solve_recipe(self, game: GameSpec):
        """The recipe of a float solve on the fly of ``game`` (:meth:`_recipe`),
        GopsInputError where it exceeds what this server solves (:meth:`_check_size`)."""
        # one solve for every lead
        key = SolutionKey(game.replace(handicap=prize_total(game.n) if game.handicap else 0))
        self._check_size(key.game)
        size, seconds = solve_size(game.n, game.objective.name, key.game.handicap)

        def solve(progress):
            return dp_solve.solve_game(dp_solve.check_limits(key.game), progress)

        return key, solve, seconds, size

    def _below_frontier(self, game: GameSpec, lowest: int):
        """The recipe of a solve on the fly of ``game``, whose frontier store does not keep
        level ``lowest`` (as a server without the store makes it); GopsInputError (one
        line, saying how to get the answer) where none is made here."""
        keep, path = self.keep_from[game], self.stores[game]
        try:
            return self._solve_recipe(game)
        except GopsInputError as exc:
            raise GopsInputError(
                f"the store {path} keeps levels {keep}..{game.n} only (--keep-from {keep}): "
                f"it answers positions with at least {keep + 1} prizes left, and this "
                f"request reads level {lowest}; {exc}; `gops strategy` without --store "
                "answers any one position (it solves only the levels below it)"
            ) from None

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

    def variant(self, variant: Variant, n: int, pinned: dict | None = None):
        """The solution of a two-player ``variant`` (twelve, dummy) of N cards, for points
        in the random order (its N checked by the caller): kept in the cache once solved
        (weighed by VariantSolution.memory_bytes), solved in this thread when small
        (VARIANT_INLINE_MAX_N), else by the solver threads (raised as Pending, with
        progress and cancel as the standard game's solves).  The cache key and the
        VARIANT_* tables name the variant (a key is a boundary: /api/progress shows it)."""
        name = variant.name
        key = VariantKey(GameSpec.parse(n), name)
        pinned = {} if pinned is None else pinned
        if key in pinned:
            return pinned[key]
        with self._guard:
            kept = self._cache.get(key)
            if kept is not None:
                pinned[key] = kept
                return kept
            if key in self._making:
                raise Pending(key, self._making[key])
            seconds = VARIANT_SECONDS.get(name, {}).get(n, 0.0)
            progress = VariantProgress(key, seconds)

            def make(progress):
                return variant_solver.solve_variant(variant, n, "float", progress=progress)

            job = lambda: self._make(key, make, 0, progress)  # noqa: E731
            future = self._start(key, job, progress, seconds, n <= VARIANT_INLINE_MAX_N[name])
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
        self, game: GameSpec, orders: set[PrizeOrder] | None = None, variant: Variant = STANDARD
    ) -> list[dict]:
        """Cancel the solves under way of ``game``'s N and objective, at any lead and of
        the prize ``orders`` (None: every order), of the standard game or of one
        two-player ``variant`` (the requests waiting for them get 400); the solves
        cancelled.  A running solve stops at its next chunk; a queued one answers its
        requests at once and is forgotten (a new request for its game queues a new
        solve), its thread skips it."""

        def wanted(key) -> bool:
            if isinstance(key, VariantKey):
                return key.rules is variant
            return variant is STANDARD and (orders is None or key.game.order in orders)

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
        found = self._cache.find(lambda have: isinstance(have, GameSpec) and have.covers(key.game))
        return None if found is None else (SolutionKey(found[0]), found[1])

    def _make(self, key: SolutionKey | VariantKey, make, size: int, progress: SolveProgress):
        with self._guard:
            self._cache.reserve(size)
        try:
            progress()  # Cancelled while it waited in the queue: never started
            solution = make(progress)
        except BaseException:
            with self._guard:
                self._cache.release(size)
                self._forget(key, progress)
            raise
        # the cache's key and weight: a variant's own key, a game's GameSpec
        entry: GameSpec | VariantKey
        if isinstance(key, VariantKey):
            entry, weight, counted = key, solution.memory_bytes(), True
        else:
            entry, counted = key.game, not key.game.arithmetic.exact
            weight = 0 if key.stored else solution_bytes(solution)
        with self._guard:  # kept and no longer being made in one step: no second solve
            self._cache.release(size)
            self._forget(key, progress)
            if key.stored:
                self._stored[key.game] = solution
            else:
                self.solves += counted
                self._cache.put(entry, solution, weight)
        return solution


def request_solution(request, game: GameSpec, lowest: int = 0):
    """:meth:`Solutions.get` of the app's solutions with the request's pinned solutions
    (``request.state.pinned``, the solutions awaited for it: :func:`exact.web.app.api`);
    ``lowest``: the lowest level the answer reads (a game played to its end: 0)."""
    return request.app.state.solutions.get(game, pinned=request.state.pinned, lowest=lowest)
