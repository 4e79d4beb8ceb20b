"""The face-up declarations game of the "Psychological JuJitsu" write-up, solved.

A two-player GOPS in which a player may, before the bids of any round, declare that it
bids face up (first) for the rest of the game, and the winner scores the number of rounds
from the earliest declaration on (1 without one).  Rules and our reading where the
write-up is silent: :mod:`exact.declarations.rules`; the backward induction:
:mod:`exact.declarations.solver`; what the equilibrium does: :mod:`exact.declarations.path`;
the certificate: :mod:`exact.declarations.certificate`.

>>> sol = solve(4, exact=True)
>>> sol.value, sol.earliest_declaration
(0, 2)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from exact.declarations.certificate import write_certificate
from exact.declarations.path import PathStats, path_stats
from exact.declarations.rules import full_position
from exact.declarations.solver import FAMILIES, Tables, solve_tables
from exact.errors import GopsInputError
from exact.limits import DECLARATIONS_MAX_N, check_n

__all__ = ["DeclarationsSolution", "solve"]


@dataclass(frozen=True)
class DeclarationsSolution:
    """A solved declarations game.  ``value``: player 0's expected score minus player 1's
    at the start (exact, or float within ``radius``); ``stats``: the computed
    equilibrium's declarations and scores, exact (None in float: the float strategies
    are another, inexact equilibrium, and their statistics would carry no bound);
    ``positions``: positions solved, by family; ``certificate_records``: records
    written, if a certificate was."""

    n: int
    exact: bool
    value: object
    radius: float
    stats: PathStats | None
    positions: dict
    games_solved: int
    seconds: float
    tables: Tables
    certificate_records: int | None = None

    @property
    def earliest_declaration(self) -> int | None:
        """The first round in which the computed equilibrium declares (None: never)."""
        return self._stats().earliest_declaration

    @property
    def expected_score(self):
        """The winner's expected score under the computed equilibrium (0 for a draw)."""
        return self._stats().expected_score

    def _stats(self) -> PathStats:
        if self.stats is None:
            raise GopsInputError("the equilibrium's declarations and scores need exact=True")
        return self.stats


def solve(n: int, exact: bool = False, certificate=None) -> DeclarationsSolution:
    """Solve the N-card declarations game (float with radii, or ``exact``); write an
    LP-duality certificate to ``certificate`` (a path; exact only)."""
    arithmetic = "exact" if exact else "float"
    n = check_n(n, DECLARATIONS_MAX_N[arithmetic], what=f" for declarations in {arithmetic}")
    if certificate is not None and not exact:
        raise GopsInputError("a declarations certificate needs the exact solve")
    start = time.perf_counter()
    tables = solve_tables(n, exact)
    stats = path_stats(tables) if exact else None
    seconds = time.perf_counter() - start
    records = write_certificate(tables, certificate) if certificate is not None else None
    value, radius = tables.values["open"][full_position(n).key()]
    return DeclarationsSolution(
        n,
        exact,
        value,
        radius,
        stats,
        {f: len(tables.values[f]) for f in FAMILIES},
        tables.games_solved,
        seconds,
        tables,
        records,
    )
