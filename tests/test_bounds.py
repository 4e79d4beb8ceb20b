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


# -- certified equilibria (exact/analysis/certified.py) ---------------------------------

from exact.analysis.certified import certify_game, certify_strategy  # noqa: E402

#: The certified first-move intervals must be at least this narrow (N <= 6 here; the
#: target at N = 13 is 1e-9, benchmarks/RESULTS.md).
WIDTH_TARGET = 1e-9


@pytest.mark.parametrize("objective", ["points", "win"])
@pytest.mark.parametrize("n", [3, 4, 5, 6], ids=lambda n: f"N{n}")
def test_certified_first_move_contains_the_exact_equilibrium(objective, n, solved, solved_exact):
    """Certified columns contain the exact probabilities; every column's guarantee contains
    the exact value.  Every column must certify where the first move is unique (points
    N = 4..6, win N = 5, 6); smaller games have columns with several optimal mixes, where a
    refusal is the right answer (points N = 3, upcard 2: their bids 2 and 3 are both best
    against my bid of 2)."""
    fl = solved(n) if objective == "points" else exact.solve(n, objective="win")
    ex = solved_exact(n) if objective == "points" else exact.solve(n, "win", "rational")
    cards = set(range(1, n + 1))
    for u in sorted(cards):
        game = certify_strategy(fl, cards, cards, cards, u)
        truth = ex.strategy(cards, cards, cards, u)
        assert Fraction(game.guarantee[0]) <= truth.value <= Fraction(game.guarantee[1])
        if n < (5 if objective == "win" else 4) and not game.certified:
            continue
        assert game.certified, (u, game.reason)
        for (lo, hi), p in zip(game.mine, truth.mine.values()):
            assert Fraction(lo) <= p <= Fraction(hi)
        for (lo, hi), p in zip(game.theirs, truth.theirs.values()):
            assert Fraction(lo) <= p <= Fraction(hi)
        assert Fraction(game.value[0]) <= truth.value <= Fraction(game.value[1])
        assert game.width < WIDTH_TARGET


@pytest.mark.parametrize("A, why", [
    pytest.param([[1.0, 1.0], [1.0, 1.0]], "near-tie", id="every-strategy-optimal"),
    pytest.param([[1.0, 1.0 + 1e-13], [0.0, 2.0]], "near-tie", id="tie-within-the-radius"),
    pytest.param([[0.0, 1.0], [0.0, 1.0]], "", id="degenerate-rows"),
])
def test_certification_refuses_a_near_degenerate_game(A, why):
    """Where the matrix box holds games with other equilibria, nothing is claimed about the
    probabilities; the guarantee of the float mixes still contains the exact value."""
    game = certify_game(np.array(A), 1e-12)
    assert not game.certified and why in game.reason
    assert game.mine == () and game.width == 0.0
    from flint import fmpq

    from exact.dp.exact_game import solve_exact_game

    rows = [[fmpq(*Fraction(a).as_integer_ratio()) for a in row] for row in A]
    value = solve_exact_game(rows).value
    assert Fraction(game.guarantee[0]) <= as_fraction(value) <= Fraction(game.guarantee[1])


def test_certified_matching_pennies():
    game = certify_game(np.array([[1.0, -1.0], [-1.0, 1.0]]), 0.0)
    assert game.certified
    assert all(lo <= 0.5 <= hi and hi - lo < 1e-15 for lo, hi in game.mine + game.theirs)


def test_cli_certified_table_and_strategy():
    from click.testing import CliRunner

    from exact.cli import main

    out = CliRunner().invoke(main, ["table", "5", "--certified"])
    assert out.exit_code == 0 and "certified: 5 of 5 columns" in out.output
    out = CliRunner().invoke(main, ["strategy", "--mine", "2,4", "--theirs", "1,3", "--deck",
                                    "12,13", "--upcard", "13", "--certified", "--json"])
    import json

    doc = json.loads(out.output)["certified"]
    lo, hi = doc["mine"]["2"]
    assert doc["unique_and_enclosed"] and lo <= 12 / 25 <= hi  # the paper's sec 3.1 example
    bad = CliRunner().invoke(main, ["strategy", "--mine", "2,4", "--theirs", "1,3", "--deck",
                                    "12,13", "--upcard", "13", "--certified", "--exact"])
    assert bad.exit_code == 2
