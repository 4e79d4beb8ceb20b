"""Exact, certified and fast solutions of the Game of Pure Strategy (GOPS, Goofspiel).

>>> import exact
>>> sol = exact.solve(5)
>>> round(sol.first_move_table()[1][1], 4)     # Rhoads & Bartholdi 2012, Table 1
0.047

``dir(exact)`` is the public API (``__all__``) and ``__version__``, the installed
package's version.
"""

from __future__ import annotations

from collections.abc import Callable as _Callable
from importlib import import_module as _import_module
from os import PathLike as _PathLike
from typing import TYPE_CHECKING

from exact.errors import GopsError, GopsInputError, InvalidMoveError, SolverError

if TYPE_CHECKING:
    from exact.dp.solution import Solution, SolveStats, Strategy
    from exact.dp.solve import solve
    from exact.dp.variant_solver import solve_variant

#: The public names that live in the solver's modules, imported on first use (PEP 562):
#: ``import exact`` (and so ``gops --help``) does not load numba and numpy: 0.6 of the 0.7 s
#: of CPU that ``gops --help`` took (benchmarks/RESULTS.md, "Issue 49, session 2026-11-29 b").
_LAZY = {
    "Solution": "exact.dp.solution",
    "SolveStats": "exact.dp.solution",
    "Strategy": "exact.dp.solution",
    "solve": "exact.dp.solve",
    "solve_variant": "exact.dp.variant_solver",
}


def __getattr__(name: str):
    if name == "__version__":  # importlib.metadata: 40 ms of import, for --version only
        from importlib.metadata import version

        return version("gops-exact")
    if name in _LAZY:
        return getattr(_import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'exact' has no attribute {name!r}")


def load(
    root: str | _PathLike[str],
    n: int | None = None,
    objective: str | None = None,
    order: str | None = None,
) -> Solution:
    """The Solution kept in a store directory written by ``gops solve N --store DIR``
    (``n``, ``objective`` and the prize ``order``, when given, must match it)."""
    from exact.dp.store import Store

    return Store.open(root).solution(n, objective, order)


def certify(
    n: int,
    path: str | _PathLike[str],
    objective: str = "points",
    progress: _Callable[..., None] | None = None,
) -> Solution:
    """Solve n-card GOPS exactly and write its LP-duality certificate to ``path``."""
    from exact.certificate.writer import certify as write_certificate

    return write_certificate(n, path, objective, progress)


__all__ = [
    "GopsError",
    "GopsInputError",
    "InvalidMoveError",
    "SolverError",
    "certify",
    "load",
    "Solution",
    "SolveStats",
    "Strategy",
    "solve",
    "solve_variant",
]


def __dir__() -> list[str]:
    """The public names only: not the subpackages imported as a side effect (``atomic``,
    ``dp``, ...) nor this module's helpers."""
    return sorted([*__all__, "__version__"])
