"""Exact, certified and fast solutions of the Game of Pure Strategy (GOPS, Goofspiel).

>>> import exact
>>> sol = exact.solve(5)
>>> round(sol.first_move_table()[1][1], 4)     # Rhoads & Bartholdi 2012, Table 1
0.047
"""

from collections.abc import Callable
from os import PathLike

from exact.certificate.writer import certify as _certify
from exact.dp.solution import Solution, SolveStats, Strategy
from exact.dp.solve import solve
from exact.dp.store import load as _load
from exact.dp.variant_solver import solve_variant
from exact.errors import GopsError, GopsInputError, InvalidMoveError, SolverError


def load(
    root: str | PathLike[str],
    n: int | None = None,
    objective: str | None = None,
    order: str | None = None,
) -> Solution:
    """The Solution kept in a store directory written by ``gops solve N --store DIR``
    (``n``, ``objective`` and the prize ``order``, when given, must match it)."""
    return _load(root, n, objective, order)


def certify(
    n: int,
    path: str | PathLike[str],
    objective: str = "points",
    progress: Callable[..., None] | None = None,
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
