"""Exact, certified and fast solutions of the Game of Pure Strategy (GOPS, Goofspiel).

>>> import exact
>>> sol = exact.solve(5)
>>> round(sol.first_move_table()[1][1], 4)     # Rhoads & Bartholdi 2012, Table 1
0.047

``dir(exact)`` is the public API (``__all__``) and ``__version__``, the installed
package's version.
"""

from collections.abc import Callable as _Callable
from importlib.metadata import version as _version
from os import PathLike as _PathLike

from exact.certificate.writer import certify as _certify
from exact.dp.solution import Solution, SolveStats, Strategy
from exact.dp.solve import solve
from exact.dp.store import Store as _Store
from exact.dp.variant_solver import solve_variant
from exact.errors import GopsError, GopsInputError, InvalidMoveError, SolverError

__version__ = _version("gops-exact")


def load(
    root: str | _PathLike[str],
    n: int | None = None,
    objective: str | None = None,
    order: str | None = None,
) -> Solution:
    """The Solution kept in a store directory written by ``gops solve N --store DIR``
    (``n``, ``objective`` and the prize ``order``, when given, must match it)."""
    return _Store.open(root).solution(n, objective, order)


def certify(
    n: int,
    path: str | _PathLike[str],
    objective: str = "points",
    progress: _Callable[..., None] | None = None,
) -> Solution:
    """Solve n-card GOPS exactly and write its LP-duality certificate to ``path``."""
    return _certify(n, path, objective, progress)


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
