"""``exact.solve``: the public entry point that picks the objective and the arithmetic."""

from __future__ import annotations

import resource
import sys
import time

from .encoding import build_levels, check_n
from .errors import GopsInputError
from .solution import Solution, SolveStats

OBJECTIVES = ("points",)
ARITHMETICS = ("float", "rational")
#: Largest N each arithmetic supports in memory (the float N = 13 takes about half an hour).
MAX_N = {"float": 13, "rational": 7}


def peak_memory_bytes() -> int:
    """Peak resident memory of this process (ru_maxrss is in KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def check_options(n, objective: str, arithmetic: str, top: int | None = None) -> int:
    """Validate the solve options; one-line GopsInputError otherwise.

    The limit of an arithmetic bounds the subgames solved: N itself, or ``top`` (the
    largest hand solved) when a position of a bigger game needs only its last few levels.
    """
    if objective not in OBJECTIVES:
        raise GopsInputError(f"unknown objective {objective!r} (choose from {', '.join(OBJECTIVES)})")
    if arithmetic not in ARITHMETICS:
        raise GopsInputError(f"unknown arithmetic {arithmetic!r} (choose from {', '.join(ARITHMETICS)})")
    if top is None:
        return check_n(n, MAX_N[arithmetic])
    n = check_n(n)
    if not 0 <= top <= min(n, MAX_N[arithmetic]):
        raise GopsInputError(
            f"{arithmetic} arithmetic solves hands of at most {MAX_N[arithmetic]} cards, got {top}"
        )
    return n


def solve(
    n: int,
    objective: str = "points",
    arithmetic: str = "float",
    progress=None,
    top: int | None = None,
) -> Solution:
    """Solve N-card GOPS: every canonical subgame value, bottom-up.

    ``progress`` is an optional callable ``(level, items_done)`` called as work advances;
    ``top`` stops after the subgames with ``top`` cards in hand (default: the whole game).

    >>> sol = solve(4)
    >>> abs(sol.value({1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4})) < 1e-12
    True
    """
    n = check_options(n, objective, arithmetic, top)
    t0 = time.perf_counter()
    levels = build_levels(n, top)
    if arithmetic == "float":
        from .float_dp import solve_all_levels

        values = solve_all_levels(levels, progress)
        solution_class = Solution
        extra = {}
    else:
        from .exact_dp import RationalSolution, solve_all_levels_exact

        values, extra = solve_all_levels_exact(levels, progress)
        solution_class = RationalSolution
    stats = SolveStats(
        subgames=sum(lv.subgames for lv in levels),
        matrix_games=sum(lv.matrix_games for lv in levels),
        seconds=time.perf_counter() - t0,
        peak_memory_bytes=peak_memory_bytes(),
        extra=extra,
    )
    return solution_class(n, objective, arithmetic, levels, values, stats)
