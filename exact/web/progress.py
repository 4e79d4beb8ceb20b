"""How far a solve on the fly has come, for ``/api/progress``, and its cancellation.

A :class:`SolveProgress` is the solver's ``progress(level, units)`` callback
(:mod:`exact.dp.drivers`): it records the level under way and the share of its items
done, and raises :class:`Cancelled` at the solver's next report once :meth:`cancel` was
asked (a queued solve never starts).  The fraction done weighs each level's items by the
cost model's work per item (k^3, :mod:`exact.dp.preflight`), so it runs at about the pace
of the clock.  A :class:`VariantProgress` counts the first round's upcards that the
variant solver (:mod:`exact.dp.variant_solver`) has done.
"""

from __future__ import annotations

import time
from concurrent.futures import Future
from math import comb

from exact.errors import GopsInputError
from exact.game.encoding import pattern_count
from exact.game.spec import GameSpec
from exact.kernels.points import level_items


class Cancelled(GopsInputError):
    """A solve stopped by ``/api/cancel``: the requests waiting for it get HTTP 400."""


class SolveProgress:
    """How far one solve on the fly has come, for ``/api/progress``: the solver's
    ``progress(level, units)`` callback (:mod:`exact.dp.drivers`), which raises Cancelled
    once :meth:`cancel` was asked (the solve stops at its next chunk; a queued one never
    starts).  The fraction done weighs each level's items by the cost model's work per
    item (k^3), so it runs at about the pace of the clock."""

    def __init__(self, game: GameSpec, seconds: float):
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
        k = level.k
        if k != self.level:
            self.level, self._units[k] = k, 0
        self._units[k] += units
        self.level_done = min(1.0, self._units[k] / max(1, level_items(level)))

    def _tick(self):
        """Each call of the solver's callback: Cancelled once :meth:`cancel` was asked;
        the first call marks the time the solver took the job up."""
        if self.cancelled:
            raise Cancelled(f"the solve of {self.describe()} was cancelled")
        if self.started is None:
            self.started = time.monotonic()

    def cancel(self):
        self.cancelled = True

    def describe(self) -> str:
        g = self.game
        return f"N = {g.n}, {g.objective.name} objective" + (" (every lead)" if g.handicap else "")

    def where(self) -> tuple[int, float]:
        """(the level under way, the fraction of the whole work done)."""
        total = sum(self.work) or 1
        done = sum(self.work[: max(0, self.level)]) + self.level_done * (
            self.work[self.level] if self.level >= 0 else 0
        )
        return max(0, self.level), done / total

    def json(self) -> dict:
        level, fraction = self.where()
        return {
            "n": self.game.n,
            "objective": self.game.objective.name,
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


class VariantProgress(SolveProgress):
    """How far a variant's solve has come: the variant solver calls ``progress(states)``
    once per upcard of the first round, so the fraction is the upcards done."""

    def __init__(self, key, seconds: float):
        """``key``: the variant's VariantKey (its ``game`` and ``variant``)."""
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
