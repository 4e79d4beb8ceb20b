"""``exact.solve``: the public entry point that picks the objective and the arithmetic."""

from __future__ import annotations

import resource
import sys
import time

from exact.dp.drivers import solve_float_levels, solve_rational_levels
from exact.dp.objective import objective_of
from exact.dp.preflight import check_in_memory
from exact.dp.solution import Solution, SolveStats
from exact.errors import GopsInputError
from exact.game.encoding import build_levels
from exact.game.spec import ARITHMETICS, OBJECTIVES, GameSpec
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


def check_lead(n: int, lead, what: str = "the lead", signed: bool = True) -> int:
    """``lead`` if it is an integer with |lead| <= N(N+1)/2, else a one-line GopsInputError.

    The one rule for a lead and a handicap, of the API (:func:`solve`'s ``handicap``) and of
    ``gops solve|table|strategy --lead``: nobody can be more than all the prizes, N(N+1)/2
    points, ahead, and from there on every position is decided.  (A position's lead is
    further bounded by the points played so far plus the handicap solved for: the win
    objective's ``check_lead`` in :mod:`exact.dp.objective`.)  ``signed=False`` for a
    handicap, which is >= 0.

    >>> check_lead(3, -6)
    -6
    >>> check_lead(3, 7, "--lead")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: --lead must be between -6 and 6 for 3-card GOPS (its prizes
    are worth 6 points in all), got 7
    """
    total = n * (n + 1) // 2
    low = -total if signed else 0
    if isinstance(lead, bool) or not isinstance(lead, int) or not low <= lead <= total:
        raise GopsInputError(
            f"{what} must be between {low} and {total} for {n}-card GOPS "
            f"(its prizes are worth {total} points in all), got {lead!r}"
        )
    return lead


def parse_game(
    n,
    objective: str = "points",
    arithmetic: str = "float",
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
    if (
        objective in OBJECTIVES
        and arithmetic in ARITHMETICS
        and top is None
        and not (handicap and objective != "win")
    ):
        check_n(n, SOLVE_MAX_N[objective, arithmetic])
    return check_limits(GameSpec.parse(n, objective, order, handicap, arithmetic), top)


def check_limits(spec: GameSpec, top: int | None = None) -> GameSpec:
    """The spec, if its arithmetic can solve it here; one-line GopsInputError otherwise.

    The limit of an arithmetic bounds the subgames solved: N itself, or ``top`` (the
    largest hand solved) when a position of a bigger game needs only its last few levels.
    The limits are ``exact.limits.SOLVE_MAX_N``.
    """
    limit = SOLVE_MAX_N[spec.objective, spec.arithmetic]
    if top is None:
        check_n(spec.n, limit)
    elif not 0 <= top <= min(spec.n, limit):
        raise GopsInputError(
            f"{spec.arithmetic} arithmetic solves hands of at most {limit} cards"
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
                f"too big for the win objective in {spec.arithmetic} "
                f"arithmetic: {cells:,} (subgame, lead) entries, "
                f"at most {budget:,}"
            )
    return spec


def solve(
    n: int,
    objective: str = "points",
    arithmetic: str = "float",
    progress=None,
    top: int | None = None,
    handicap: int = 0,
    order: str = "random",
) -> Solution:
    """Solve N-card GOPS: every canonical subgame value, bottom-up.

    ``objective``: "points" (the expected point difference, as in the paper) or "win"
    (P(win) - P(loss); the Solution's methods then take a ``lead``).  ``progress`` is an
    optional callable ``(level, items_done)`` called as work advances; ``top`` stops after
    the subgames with ``top`` cards in hand (default: the whole game); ``handicap`` (win
    only) solves every lead reachable from a starting lead in [-handicap, handicap]
    (default 0: the real game); ``order``: who orders the prizes (:mod:`exact.game.orders`:
    "random", "ascending", "descending", "controlled-by-me", "controlled-by-them"; for
    either objective and either arithmetic).

    >>> sol = solve(4)
    >>> abs(sol.value({1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4})) < 1e-12
    True
    >>> solve(4, objective="win").strategy({2, 4}, {1, 3}, {3, 4}, upcard=4).mine
    {2: 0.0, 4: 1.0}
    >>> solve(4, arithmetic="rational", order="controlled-by-me").value(
    ...     {1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4})   # what choosing the prizes is worth
    Fraction(148116, 1307731)
    """
    return solve_game(parse_game(n, objective, arithmetic, top, handicap, order), progress, top)


def solve_game(spec: GameSpec, progress=None, top: int | None = None) -> Solution:
    """:func:`solve` of a checked GameSpec (:func:`check_limits`)."""
    t0 = time.perf_counter()
    levels = build_levels(spec.n, top)
    objective = objective_of(spec)
    if spec.arithmetic == "float":
        sink, games = solve_float_levels(objective, levels, progress)
        values, extra, radii = sink.values, {}, sink.radii
    else:
        values, extra = solve_rational_levels(objective, levels, progress)
        games = sum(extra["paths"].values())
        radii = [0.0] * len(levels)  # exact
    stats = SolveStats(
        subgames=objective.subgames(levels),
        matrix_games=games,
        seconds=time.perf_counter() - t0,
        peak_memory_bytes=peak_memory_bytes(),
        extra=extra,
    )
    return Solution(spec, levels, values, stats, radii=radii, objective=objective)
