"""``exact.solve``: the public entry point that picks the objective and the arithmetic."""

from __future__ import annotations

import resource
import sys
import time

from exact.dp.device import CPU, Device
from exact.dp.drivers import solve_float_levels, solve_rational_levels
from exact.dp.objective import objective_of
from exact.dp.preflight import check_in_memory
from exact.dp.solution import Solution, SolveStats
from exact.dp.store import solve_into_store
from exact.errors import GopsInputError
from exact.game.encoding import build_levels
from exact.game.objectives import (
    GameArithmetic,
    GameObjective,
    arithmetic_named,
    check_lead,  # noqa: F401 - the rule's old home, imported by exact.web.query
    objective_named,
)
from exact.game.spec import GameSpec
from exact.kernels.win import win_cells
from exact.limits import SOLVE_MAX_N, check_n


def peak_memory_bytes() -> int:
    """Peak resident memory of this process (ru_maxrss is in KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def points_stats(levels, t0: float, extra: dict | None = None) -> SolveStats:
    """SolveStats of a points-objective solve of ``levels`` that started at ``t0``."""
    return SolveStats(
        subgames=sum(lv.subgames for lv in levels),
        matrix_games=sum(lv.matrix_games for lv in levels),
        seconds=time.perf_counter() - t0,
        peak_memory_bytes=peak_memory_bytes(),
        extra=extra or {},
    )


def parse_game(
    n,
    objective: str | GameObjective = "points",
    arithmetic: str | GameArithmetic = "float",
    top: int | None = None,
    handicap: int = 0,
    order="random",
) -> GameSpec:
    """The checked GameSpec of :func:`solve`'s loose arguments, for the callers that take
    them (the API, the certificate writers, the audit); one-line GopsInputError otherwise.

    A known objective and arithmetic first, then N against their limit (the message names
    it), then the rest (:meth:`GameSpec.parse`, :func:`check_limits`).  The command line
    parses its flags into a GameSpec once (:func:`exact.cli.common.game_options`) and
    calls :func:`check_limits` on it.

    >>> parse_game(5, "win", handicap=2)
    GameSpec(n=5, objective='win', order='random', handicap=2, arithmetic='float')
    >>> parse_game(8, arithmetic="rational")
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: N must be between 1 and 7, got 8
    """
    objective, arithmetic = objective_named(objective), arithmetic_named(arithmetic)
    if top is None and not (handicap and not objective.has_lead):
        check_n(n, SOLVE_MAX_N[objective.name, arithmetic.name])
    return check_limits(GameSpec.parse(n, objective, order, handicap, arithmetic), top)


def solve_limit(spec: GameSpec) -> int:
    """The largest N that ``spec``'s objective and arithmetic solve in memory
    (``exact.limits.SOLVE_MAX_N``, a table by name)."""
    return SOLVE_MAX_N[spec.objective.name, spec.arithmetic.name]


def check_limits(spec: GameSpec, top: int | None = None) -> GameSpec:
    """The spec, if its arithmetic can solve it here; one-line GopsInputError otherwise.

    The limit of an arithmetic bounds the subgames solved: N itself, or ``top`` (the
    largest hand solved) when a position of a bigger game needs only its last few levels.
    The limits are ``exact.limits.SOLVE_MAX_N``.
    """
    limit = solve_limit(spec)
    if top is None:
        check_n(spec.n, limit)
    elif not 0 <= top <= min(spec.n, limit):
        raise GopsInputError(
            f"{spec.arithmetic.name} arithmetic solves hands of at most {limit} cards"
            f"{' for the win objective' if spec.has_lead else ''}, got {top}"
        )
    if top is not None and spec.n > limit:  # the last levels of a bigger game
        check_in_memory(spec, top, limit)
    if spec.has_lead:
        # A few levels of a big game can outweigh a whole small one: bound the entries.
        budget = win_cells(limit) * 5 // 4
        cells = win_cells(spec.n, top, spec.handicap)
        if cells > budget:
            raise GopsInputError(
                f"too big for the win objective in {spec.arithmetic.name} "
                f"arithmetic: {cells:,} (subgame, lead) entries, "
                f"at most {budget:,}"
            )
    return spec


def solve(
    n: int,
    objective: str | GameObjective = "points",
    arithmetic: str | GameArithmetic = "float",
    progress=None,
    top: int | None = None,
    handicap: int = 0,
    order: str = "random",
    device: str | Device = CPU,
    store=None,
    keep_from: int | None = None,
    below_in_memory: bool = False,
) -> Solution:
    """Solve N-card GOPS: every canonical subgame value, bottom-up.

    ``objective``: "points" (the expected point difference, as in the paper) or "win"
    (P(win) - P(loss); the Solution's methods then take a ``lead``).  ``progress`` is an
    optional callable ``(level, items_done)`` called as work advances; ``top`` stops after
    the subgames with ``top`` cards in hand (default: the whole game); ``handicap`` (win
    only) solves every lead reachable from a starting lead in [-handicap, handicap]
    (default 0: the real game); ``order``: who orders the prizes (:mod:`exact.game.orders`:
    "random", "ascending", "descending", "controlled-by-me", "controlled-by-them"; for
    either objective and either arithmetic); ``device``: where the float kernels run
    (:class:`exact.dp.device.Device`, or its name), "cpu" (the default), "cuda" (a CUDA
    GPU through numba, :mod:`exact.cuda`; float arithmetic only; without a GPU a one-line
    GopsInputError "no CUDA GPU found") or
    "cuda+cpu" (the GPU and the CPU cores together, each chunk split between them);
    ``store``: a directory to solve into (:mod:`exact.dp.store`: checkpointed, resumed if
    there, the backend recorded; the real game in float arithmetic, the whole game), the
    Solution then read from it; ``keep_from`` K (with ``store``): keep only the levels
    K..N on disk (the frontier mode; every radius still recorded), and with
    ``below_in_memory`` never write the levels below K.

    >>> sol = solve(4)
    >>> abs(sol.value({1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4})) < 1e-12
    True
    >>> solve(4, objective="win").strategy({2, 4}, {1, 3}, {3, 4}, upcard=4).mine
    {2: 0.0, 4: 1.0}
    >>> solve(4, arithmetic="rational", order="controlled-by-me").value(
    ...     {1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4})   # what choosing the prizes is worth
    Fraction(148116, 1307731)
    """
    spec = parse_game(n, objective, arithmetic, top, handicap, order)
    device = Device.parse(device)
    if store is None:
        if keep_from is not None:
            raise GopsInputError("keep_from applies to a store only (a solve in memory keeps all)")
        return solve_game(spec, progress, top, device)
    if spec.arithmetic.exact or top is not None or handicap:
        raise GopsInputError(
            "a store holds the whole real game in float arithmetic: no top, handicap or "
            "rational arithmetic with store="
        )
    device.wrap(objective_of(spec))  # no GPU: refused before any write
    sink = solve_into_store(
        spec,
        store,
        progress,
        device=device,
        keep_from=keep_from,
        below_in_memory=below_in_memory,
    )
    return sink.solution()


def solve_game(
    spec: GameSpec, progress=None, top: int | None = None, device: Device = CPU
) -> Solution:
    """:func:`solve` of a checked GameSpec (:func:`check_limits`), its float kernels on
    ``device`` (:class:`exact.dp.device.Device`)."""
    t0 = time.perf_counter()
    levels = build_levels(spec.n, top)
    objective = objective_of(spec)
    kernels = device.wrap(objective, spec.arithmetic.exact)
    if spec.arithmetic.exact:
        values, extra = solve_rational_levels(objective, levels, progress)
        games = sum(extra["paths"].values())
        radii = [0.0] * len(levels)  # exact
    else:
        sink, games = solve_float_levels(kernels, levels, progress)
        values, extra, radii = sink.values, {}, sink.radii
    stats = SolveStats(
        subgames=objective.subgames(levels),
        matrix_games=games,
        seconds=time.perf_counter() - t0,
        peak_memory_bytes=peak_memory_bytes(),
        extra=extra,
    )
    return Solution(spec, levels, values, stats, radii=radii, objective=objective)
