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
    for mine, theirs, deck in [
        ({1, 3, 5}, {2, 4, 6}, {1, 5, 6}),
        ({6}, {5}, {3}),
        ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}, {1, 2, 3, 4, 6}),
    ]:
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


#: Three real games of the 13-card game (levels 6 and 7; float matrices as hex) where the
#: simplex pivots on a tiny element: some columns repeat another to ~1e-9.  In the first
#: its row strategy is ~2e-8 off (bound ~1e-7), in the second its value ~7e-11; in the
#: third its row support is wrong (bound ~1.5e-9), which only the transposed solve fixes.
NEAR_DEGENERATE_GOPS_GAMES = [
    [
        [
            "0x1.d60b401869830p+3",
            "0x1.d60b401fad2e4p+3",
            "0x1.d60b401fad2e4p+3",
            "0x1.d60b401fad2e4p+3",
            "0x1.0377163633c02p+4",
            "0x1.561aa2c649fd0p+4",
        ],
        [
            "0x1.3b05a00c34c18p+4",
            "0x1.d60b401869830p+3",
            "0x1.d60b401869830p+3",
            "0x1.d60b401869830p+3",
            "0x1.0377163633c02p+4",
            "0x1.561aa2c649fd0p+4",
        ],
        [
            "0x1.414eb0ce10ad6p+4",
            "0x1.41707793ea91bp+4",
            "0x1.41707793ea91bp+4",
            "0x1.41707793ea91bp+4",
            "0x1.e2e0ef27d5236p+3",
            "0x1.e000000000000p+3",
        ],
        [
            "0x1.1c7b5c2b6e786p+4",
            "0x1.1d3f42042efe9p+4",
            "0x1.1d3f42042efe9p+4",
            "0x1.1d3f42042efe9p+4",
            "0x1.41707793ea91bp+4",
            "0x1.898bb7d6ec714p+3",
        ],
        [
            "0x1.8bc28ed5897b2p+3",
            "0x1.8fc33ff0d0e9ap+3",
            "0x1.8fc33ff0d0e9ap+3",
            "0x1.8fc33ff0d0e9ap+3",
            "0x1.d77e9819dd9ffp+3",
            "0x1.64c5dbeb7638ap+4",
        ],
        [
            "0x1.8bc28ed5897b2p+3",
            "0x1.8fc33ff0d0e9ap+3",
            "0x1.8fc33ff0d0e9ap+3",
            "0x1.8fc33ff0d0e9ap+3",
            "0x1.d77e9819dd9ffp+3",
            "0x1.64c5dbeb7638ap+4",
        ],
    ],
    [
        [
            "-0x1.c8d1d05a7e97dp+2",
            "-0x1.c8d11ff10270ep+2",
            "-0x1.c8d11ff10270ep+2",
            "-0x1.c8d11ff10270ep+2",
            "-0x1.12fcce290d740p-3",
            "0x1.156a677049c64p+3",
        ],
        [
            "0x1.ee5c5f4b02d06p+1",
            "-0x1.c8d1d05a7e97dp+2",
            "-0x1.c8d1d05a7e97dp+2",
            "-0x1.c8d1d05a7e97dp+2",
            "-0x1.12fcce290d740p-3",
            "0x1.156a677049c66p+3",
        ],
        [
            "0x1.6dfe8a77e0904p+3",
            "0x1.709b1d5f18a0ap+3",
            "0x1.709b1d5f18a0ap+3",
            "0x1.709b1d5f18a0ap+3",
            "-0x1.dd6063c8a42f6p+1",
            "0x1.42c686bb9dbacp+2",
        ],
        [
            "0x1.6dfe8a77e0904p+3",
            "0x1.709b1d5f18a0ap+3",
            "0x1.709b1d5f18a0ap+3",
            "0x1.709b1d5f18a0ap+3",
            "-0x1.dd6063c8a42f6p+1",
            "0x1.42c686bb9dbacp+2",
        ],
        [
            "0x1.e0a2c398016fdp+2",
            "0x1.e4d1ee9f2019ap+2",
            "0x1.e4d1ee9f2019ap+2",
            "0x1.e4d1ee9f2019ap+2",
            "0x1.d14fce1bade85p+2",
            "0x1.8627993289190p-1",
        ],
        [
            "-0x1.d6eae17acdde0p-1",
            "-0x1.c9c6c375b7e10p-1",
            "-0x1.c9c6c375b7e10p-1",
            "-0x1.c9c6c375b7e10p-1",
            "0x1.7047553d43570p+3",
            "0x1.d14fce1bade85p+2",
        ],
    ],
    [
        [
            "0x1.eae73ec9206a0p+3",
            "0x1.eae73ecb24ab2p+3",
            "0x1.eae73ecb24ab2p+3",
            "0x1.eae73ecb24ab2p+3",
            "0x1.eae73ecb24ab2p+3",
            "0x1.0e5a60c54b77dp+4",
            "0x1.64977e26286f9p+4",
        ],
        [
            "0x1.eae73ec9206a0p+3",
            "0x1.eae73ecb24ab2p+3",
            "0x1.eae73ecb24ab2p+3",
            "0x1.eae73ecb24ab2p+3",
            "0x1.eae73ecb24ab2p+3",
            "0x1.0e5a60c54b77dp+4",
            "0x1.64977e26286f9p+4",
        ],
        [
            "0x1.45739f6490350p+4",
            "0x1.eae73ec9206a0p+3",
            "0x1.eae73ec9206a0p+3",
            "0x1.eae73ec9206a0p+3",
            "0x1.eae73ec9206a0p+3",
            "0x1.0e5a60c54b77dp+4",
            "0x1.64977e26286f9p+4",
        ],
        [
            "0x1.4a09bedcb8b34p+4",
            "0x1.4a188c830a50ap+4",
            "0x1.4a188c830a50ap+4",
            "0x1.4a188c830a50ap+4",
            "0x1.4a188c830a50ap+4",
            "0x1.f431190614a13p+3",
            "0x1.0000000000000p+4",
        ],
        [
            "0x1.23e0b3b8cd242p+4",
            "0x1.247f6612cd236p+4",
            "0x1.247f6612cd236p+4",
            "0x1.247f6612cd236p+4",
            "0x1.247f6612cd236p+4",
            "0x1.4a188c830a50ap+4",
            "0x1.a0c5f45069ce2p+3",
        ],
        [
            "0x1.7ee76ef685a06p+3",
            "0x1.80f1875da7916p+3",
            "0x1.80f1875da7916p+3",
            "0x1.80f1875da7916p+3",
            "0x1.80f1875da7916p+3",
            "0x1.cf39590497ddbp+3",
            "0x1.7062fa2834e71p+4",
        ],
        [
            "0x1.7ee76ef685a06p+3",
            "0x1.80f1875da7916p+3",
            "0x1.80f1875da7916p+3",
            "0x1.80f1875da7916p+3",
            "0x1.80f1875da7916p+3",
            "0x1.cf39590497ddbp+3",
            "0x1.7062fa2834e71p+4",
        ],
    ],
]


@pytest.mark.parametrize(
    "rows", NEAR_DEGENERATE_GOPS_GAMES, ids=["strategy-off", "value-off", "support-off"]
)
def test_certified_game_polishes_a_near_degenerate_game(rows):
    """The polish turns a loose bound into a tight one, the returned strategies prove the
    returned bound, and the exact value of the float matrix (an exact rational LP) lies
    within it, compared exactly."""
    from flint import fmpq

    from exact.dp.exact_game import solve_exact_game
    from exact.kernels.bounds import certified_game
    from exact.kernels.matrix_game import solve_game_unchecked

    A = np.array([[float.fromhex(h) for h in row] for row in rows])
    k = len(rows)
    x, y = np.empty(k), np.empty(k)
    v = solve_game_unchecked(A, k, x, y)  # as the level kernels do
    assert value_error(A, k, x, y, v) > 1e-10  # the simplex's own bound is loose here
    w, e = certified_game(A, k, x, y, v)
    assert e < 1e-12
    assert value_error(A, k, x, y, w) == e  # x, y now hold the strategies of the proof
    exact_value = solve_exact_game(
        [[fmpq(*Fraction(a).as_integer_ratio()) for a in row] for row in A.tolist()]
    ).value
    assert abs(Fraction(w) - as_fraction(exact_value)) <= Fraction(e)


def test_certified_game_leaves_a_well_solved_game_alone():
    """Below the polish threshold the solver's value and strategies are kept bit for bit
    (so that the values of well-conditioned games do not change)."""
    from exact.kernels.bounds import certified_game
    from exact.kernels.matrix_game import solve_game

    A = np.array([[3.0, -1.0, 0.5], [-2.0, 1.0, 0.25], [0.0, 0.5, -1.0]])
    v, x, y = solve_game(A)
    x0, y0 = x.copy(), y.copy()
    w, e = certified_game(A, 3, x, y, v)
    assert (w, e) == (v, value_error(A, 3, x0, y0, v))
    assert (x == x0).all() and (y == y0).all()


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
    with pytest.raises(exact.SolverError, match="level 3: .*a matrix game failed"):
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


@pytest.mark.parametrize(
    "A, why",
    [
        pytest.param([[1.0, 1.0], [1.0, 1.0]], "near-tie", id="every-strategy-optimal"),
        pytest.param([[1.0, 1.0 + 1e-13], [0.0, 2.0]], "near-tie", id="tie-within-the-radius"),
        pytest.param([[0.0, 1.0], [0.0, 1.0]], "", id="degenerate-rows"),
    ],
)
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
    out = CliRunner().invoke(
        main,
        [
            "strategy",
            "--mine",
            "2,4",
            "--theirs",
            "1,3",
            "--deck",
            "12,13",
            "--upcard",
            "13",
            "--certified",
            "--json",
        ],
    )
    import json

    doc = json.loads(out.output)["certified"]
    lo, hi = doc["mine"]["2"]
    assert doc["unique_and_enclosed"] and lo <= 12 / 25 <= hi  # the paper's sec 3.1 example
    bad = CliRunner().invoke(
        main,
        [
            "strategy",
            "--mine",
            "2,4",
            "--theirs",
            "1,3",
            "--deck",
            "12,13",
            "--upcard",
            "13",
            "--certified",
            "--exact",
        ],
    )
    assert bad.exit_code == 2


@pytest.mark.parametrize(
    "rows", NEAR_DEGENERATE_GOPS_GAMES, ids=["strategy-off", "value-off", "support-off"]
)
def test_solve_game_meets_its_bound_on_the_near_degenerate_games(rows):
    """The checked solver (exact.kernels.matrix_game.solve_game) answers those games within
    GAP_BOUND by itself: its bound needs no polish."""
    from exact.kernels.matrix_game import GAP_BOUND, solve_game

    A = np.array([[float.fromhex(h) for h in row] for row in rows])
    v, x, y = solve_game(A)
    assert value_error(A, len(rows), x, y, v) <= GAP_BOUND * max(1.0, np.abs(A).max())


#: A 2 x 2 game of value 23/70 (row strategy (1/7, 6/7), column (3/7, 4/7)), and
#: strategies the enclosure (1) cannot use (issue 36 item 11): each made the bound exclude
#: the exact value before guarantees checked its preconditions.
GAME_23_70 = np.array([[0.5, 0.2], [0.3, 0.35]])
GOOD_X = np.array([1 / 7, 6 / 7])
GOOD_Y = np.array([3 / 7, 4 / 7])
UNUSABLE = {
    "infinite weight": np.array([np.inf, 0.0]),
    "sum overflows": np.array([1e308, 1e308]),
    "subnormal": np.array([5e-324, 5e-324]),
}


@pytest.mark.parametrize("player", ["row", "column"])
@pytest.mark.parametrize("bad", UNUSABLE.values(), ids=UNUSABLE.keys())
@pytest.mark.parametrize("claimed", [0.0, 23 / 70 + 0.1, 23 / 70 - 0.1])
def test_unusable_strategies_give_no_bound(player, bad, claimed):
    """guarantees, value_error and certified_game answer NaN ("no bound", refused by every
    caller) for such a strategy, never a bound that leaves out the exact value."""
    from exact.kernels.bounds import certified_game, guarantees

    x, y = (bad, GOOD_Y) if player == "row" else (GOOD_X, bad)
    assert all(np.isnan(guarantees(GAME_23_70, 2, x, y)))
    assert np.isnan(value_error(GAME_23_70, 2, x, y, claimed))
    _, e = certified_game(GAME_23_70, 2, x.copy(), y.copy(), claimed)
    assert np.isnan(e)


def test_the_good_strategies_bound_the_game():
    """The same game with its optimal strategies: a bound of rounding size that holds."""
    e = value_error(GAME_23_70, 2, GOOD_X, GOOD_Y, 23 / 70)
    assert 0 < e < 1e-14
    assert abs(Fraction(23 / 70) - Fraction(23, 70)) <= Fraction(e)
