"""Certified radii of the float solver (exact/kernels/bounds.py, exact/dp/drivers.py):
every exact value lies within its level's radius of the float value."""

from fractions import Fraction

import numpy as np
import pytest

import exact
from exact.dp.drivers import solve_float_levels
from exact.dp.objective import PointsObjective
from exact.game.encoding import build_levels
from exact.kernels.bounds import value_error

#: The radius target of the certified float solver at N <= 13 (each level).
RADIUS_TARGET = 1e-11


def as_fraction(x) -> Fraction:
    return Fraction(int(x.p), int(x.q))


@pytest.mark.parametrize("objective", ["points", "win"])
@pytest.mark.parametrize("n", range(1, 7), ids=lambda n: f"N{n}")
def test_exact_values_lie_within_the_radius(objective, n, solved_exact, solved):
    """Every subgame (every lead for the win objective): |f_float - f_exact| <= r_k,
    compared exactly (a float is a dyadic rational)."""
    fl = solved(n) if objective == "points" else exact.solve(n, objective="win")
    ex = solved_exact(n) if objective == "points" else exact.solve(n, "win", "rational")
    for k in range(n + 1):
        radius = Fraction(fl.radii[k])
        F, E = np.asarray(fl.values[k]), ex.values[k]
        for idx in np.ndindex(F.shape):
            if E[idx] is None:  # unreachable lead: never solved in either arithmetic
                assert np.isnan(F[idx])
                continue
            assert abs(Fraction(F[idx]) - as_fraction(E[idx])) <= radius, (k, idx)
        assert 0 <= fl.radii[k] < RADIUS_TARGET


def test_enclosure_contains_the_exact_value(solved, solved_exact):
    fl, ex = solved(6), solved_exact(6)
    for mine, theirs, deck in [({1, 3, 5}, {2, 4, 6}, {1, 5, 6}), ({6}, {5}, {3}),
                               ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}, {1, 2, 3, 4, 6})]:
        lo, hi = fl.enclosure(mine, theirs, deck)
        assert Fraction(lo) <= ex.value(mine, theirs, deck) <= Fraction(hi)
        assert 0 < hi - lo < 2 * RADIUS_TARGET


def test_value_error_bounds_a_perturbed_strategy():
    """Matching pennies has value 0; with x = (0.6, 0.4) the row player only guarantees
    -0.2, and the bound must say at least that much."""
    A = np.array([[1.0, -1.0], [-1.0, 1.0]])
    e = value_error(A, 2, np.array([0.6, 0.4]), np.array([0.5, 0.5]), 0.0)
    assert e >= 0.2 and e < 0.2 + 1e-12
    exact_strategies = value_error(A, 2, np.array([0.5, 0.5]), np.array([0.5, 0.5]), 0.0)
    assert 0 < exact_strategies < 1e-14  # only the rounding margin


def test_value_error_of_a_nan_game_is_nan():
    A = np.array([[np.nan, 0.0], [0.0, 1.0]])
    assert np.isnan(value_error(A, 2, np.array([0.5, 0.5]), np.array([0.5, 0.5]), 0.0))


def test_a_nan_below_is_a_loud_solver_error():
    """A level whose games see a NaN child has no bound: SolverError, never a number."""

    class PoisonedLevels:
        """In-memory levels whose level 2 is poisoned before level 3 reads it."""

        def __init__(self, inner):
            self.inner = inner

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def finish(self, level, out, radius):
            if level.k == 2:
                out[0, :] = np.nan
            return self.inner.finish(level, out, radius)

    from exact.dp.drivers import InMemoryLevels

    spec = PointsObjective()
    with pytest.raises(exact.SolverError, match="level 3: a matrix game failed"):
        solve_float_levels(spec, build_levels(5), sink=PoisonedLevels(InMemoryLevels(spec)))
