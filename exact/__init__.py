"""Exact, certified and fast solutions of the Game of Pure Strategy (GOPS, Goofspiel).

>>> import exact
>>> sol = exact.solve(5)
>>> round(sol.first_move_table()[1][1], 4)     # Rhoads & Bartholdi 2012, Table 1
0.047
"""

from .errors import GopsError, GopsInputError, InvalidMoveError, SolverError
from .solution import Solution, SolveStats, Strategy
from .solve import solve

__all__ = [
    "GopsError",
    "GopsInputError",
    "InvalidMoveError",
    "SolverError",
    "Solution",
    "SolveStats",
    "Strategy",
    "solve",
]
