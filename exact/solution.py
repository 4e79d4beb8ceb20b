"""The solved game's public names (:mod:`exact.dp.solution`, where the dynamic programme
produces them): kept here so that ``exact.solution`` keeps working."""

from exact.dp.solution import (
    ARITHMETICS,
    Arithmetic,
    Number,
    RationalArithmetic,
    Solution,
    SolveStats,
    Strategy,
    equilibrium_gap,
    equilibrium_strategy,
    solve_game,
    to_fraction,
)

__all__ = [
    "ARITHMETICS",
    "Arithmetic",
    "Number",
    "RationalArithmetic",
    "Solution",
    "SolveStats",
    "Strategy",
    "equilibrium_gap",
    "equilibrium_strategy",
    "solve_game",
    "to_fraction",
]
