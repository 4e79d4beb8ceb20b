"""The audit (float solver judged against the exact solution) and the optimal-set ranges."""

import json
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.optimize import linprog

import exact
import exact.analysis.audit as audit_module
from exact.analysis.audit import audit, certificate_reference, exact_reference
from exact.analysis.ranges import first_move_ranges, optimal_set_ranges, simplex_max
from exact.cli import main
from exact.dp.objective import objective_of
from exact.dp.solution import to_fraction
from exact.errors import GopsInputError, SolverError
from exact.game.spec import GameSpec
from exact.kernels.matrix_game import solve_game
from reference import reference_game
from test_paper import TABLE_1  # Rhoads & Bartholdi 2012, Table 1

#: What the float solver must achieve against the exact one for N <= 5.
AUDIT_TOL = 1e-10
#: A perturbation far beyond the audit's default tolerance of 1e-9.
PERTURBATION = 1e-6
#: Float ranges versus exact ranges.
RANGE_TOL = 1e-8
#: Table 1 prints four decimals: an exact entry lies within half a unit of the fourth.
PAPER_HALF_UNIT = Fraction(1, 20000)

POINTS = objective_of(GameSpec.parse(1))


def record_patterns(level):
    """The patterns of a level that the audit judges: one per antisymmetric pair."""
    return level.record_patterns


def exact_matrix(level, below, r, p, m):
    """X^u of record (r, p) for the m-th upcard of prize set r, from the level below."""
    return POINTS.matrix(level, below, r, p, m)


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def reference():
    """reference(n) -> the exact values and supports of n-card GOPS, cached."""
    cache = {}

    def get(n):
        if n not in cache:
            cache[n] = exact_reference(n)
        return cache[n]

    return get


# ---------------------------------------------------------------------------------------
# The audit
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4, 5], ids=lambda n: f"N{n}")
def test_float_solver_passes_the_audit(reference, solved, n):
    report = audit(reference(n), solved(n))
    assert report.ok
    assert report.max_value_error < AUDIT_TOL
    assert report.max_exploitability < AUDIT_TOL
    assert [lv.k for lv in report.levels] == list(range(n + 1))
    assert sum(lv.games for lv in report.levels) == sum(
        lv.prize_sets * len(record_patterns(lv)) * lv.k for lv in reference(n).levels
    )
    assert all(lv.support_differences == 0 for lv in report.levels)


def fraction_exploitability(A, x, y) -> Fraction:
    """max_i (A y)_i - min_j (x^T A)_j with x, y the floats taken exactly and renormalised."""
    x = [Fraction(max(float(p), 0.0)) for p in x]
    y = [Fraction(max(float(q), 0.0)) for q in y]
    x = [p / sum(x) for p in x]
    y = [q / sum(y) for q in y]
    k = len(A)
    return max(sum(A[i][j] * y[j] for j in range(k)) for i in range(k)) - min(
        sum(x[i] * A[i][j] for i in range(k)) for j in range(k)
    )


@pytest.mark.parametrize("strategy", ["float kernel", "uniform"])
def test_exploitability_is_exact(solved, solved_exact, reference, strategy):
    """Each level's max exploitability equals an independent Fraction computation, to the
    last bit (both are the correctly rounded exact number)."""
    n = 4
    fl, ex = solved(n), solved_exact(n)

    def uniform(A):
        k = A.shape[0]
        return 0.0, np.full(k, 1 / k), np.full(k, 1 / k)

    solver = solve_game if strategy == "float kernel" else uniform
    report = audit(reference(n), fl, strategy_solver=solver)
    for level in ex.levels[1:]:
        k = level.k
        worst = Fraction(0)
        for r in range(level.prize_sets):
            for p in record_patterns(level):
                for m in range(k):
                    Aq = exact_matrix(level, ex.values[k - 1], r, int(p), m)
                    A = [[Fraction(int(a.p), int(a.q)) for a in row] for row in Aq]
                    # The strategies are those of the float matrix (from the float values).
                    _, x, y = solver(np.array(exact_matrix(level, fl.values[k - 1], r, int(p), m)))
                    worst = max(worst, fraction_exploitability(A, x, y))
        assert report.levels[k].max_exploitability == float(worst), k


def test_perturbed_float_value_is_caught(reference, solved):
    good = solved(5)
    values = [v.copy() for v in good.values]
    values[3][4, 7] += PERTURBATION
    bad = exact.Solution(GameSpec.parse(5), good.levels, values)
    report = audit(reference(5), bad)
    assert not report.ok
    assert report.levels[3].max_value_error == pytest.approx(PERTURBATION, rel=1e-6)
    # The perturbed child value also moves the strategies of level 4.
    assert report.levels[4].max_exploitability > AUDIT_TOL


def test_perturbed_float_strategy_is_caught(reference, solved):
    def perturbed(A):
        value, x, y = solve_game(A)
        k = len(x)
        return value, (1 - PERTURBATION) * x + PERTURBATION / k, y

    report = audit(reference(5), solved(5), strategy_solver=perturbed)
    assert report.max_value_error < AUDIT_TOL
    assert report.max_exploitability > AUDIT_TOL
    assert not report.ok


def test_cli_audit_exit_codes(monkeypatch, solved):
    code, out = run("audit", 4, "--json", "--quiet")
    assert code == 0
    data = json.loads(out)
    assert data["n"] == 4 and data["ok"] is True
    assert data["max_value_error"] < AUDIT_TOL and data["max_exploitability"] < AUDIT_TOL
    assert [lv["k"] for lv in data["levels"]] == [0, 1, 2, 3, 4]

    good = solved(4)
    values = [v.copy() for v in good.values]
    values[2][0, 1] += PERTURBATION
    monkeypatch.setattr(
        audit_module,
        "solve_float",
        lambda n: exact.Solution(GameSpec.parse(n), good.levels, values),
    )
    code, out = run("audit", 4, "--quiet")
    assert code == 1
    assert "FAILED" in out.splitlines()[-1]
    assert run("audit", 4, "--quiet", "--tol", 1e-3)[0] == 0


def test_audit_from_certificate_matches_exact_solve(tmp_path, reference, solved):
    path = tmp_path / "gops-4.cert"
    exact.certify(4, path)
    from_file = audit(certificate_reference(path, 4), solved(4))
    from_solve = audit(reference(4), solved(4))
    assert from_file.levels == from_solve.levels
    assert from_file.source.startswith("certificate")

    code, out = run("audit", 4, "--certificate", path, "--quiet")
    assert code == 0 and out.splitlines()[-1].startswith("ok:")
    code, out = run("audit", 5, "--certificate", path, "--quiet")
    assert code == 2 and "certificate of N=4, not N=5" in out
    truncated = tmp_path / "truncated.cert"
    truncated.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(GopsInputError, match="not a readable certificate"):
        certificate_reference(truncated)
    assert run("audit", 4, "--certificate", truncated)[0] == 2


def test_cli_audit_bad_input():
    assert run("audit", 8)[0] == 2
    assert run("audit", 3, "--tol", -1)[0] == 2
    assert run("audit", 3, "--certificate", "/nonexistent/file.cert")[0] == 2


# ---------------------------------------------------------------------------------------
# Optimal-set ranges
# ---------------------------------------------------------------------------------------

#: Column 3 is never played; the row player is optimal iff x1 = x2, value 1:
#: X* = {(t, t, 1 - 2t) : 0 <= t <= 1/2}.
SEGMENT_GAME = [[2, 0, 5], [0, 2, 5], [1, 1, 5]]
SEGMENT_RANGES = [
    (Fraction(0), Fraction(1, 2)),
    (Fraction(0), Fraction(1, 2)),
    (Fraction(0), Fraction(1)),
]


@pytest.mark.parametrize("shortcut", [True, False], ids=["shortcut", "lp-only"])
def test_ranges_of_a_non_unique_optimum(shortcut):
    ranges = optimal_set_ranges(SEGMENT_GAME, shortcut=shortcut)
    assert [(r.lo, r.hi) for r in ranges] == SEGMENT_RANGES
    assert not any(r.unique for r in ranges)


def test_float_ranges_of_a_non_unique_optimum():
    ranges = optimal_set_ranges(SEGMENT_GAME, "float")
    for r, (lo, hi) in zip(ranges, SEGMENT_RANGES):
        assert r.lo == pytest.approx(float(lo), abs=RANGE_TOL)
        assert r.hi == pytest.approx(float(hi), abs=RANGE_TOL)
        assert not r.unique


@pytest.mark.parametrize("arithmetic", ["rational", "float"])
def test_ranges_of_unique_and_fully_degenerate_games(arithmetic):
    unique = optimal_set_ranges([[3, -1], [-2, 1]], arithmetic)  # x* = (3/7, 4/7)
    assert all(r.unique for r in unique)
    assert [float(r.lo) for r in unique] == pytest.approx([3 / 7, 4 / 7], abs=RANGE_TOL)
    flat = optimal_set_ranges([[1, 1], [1, 1]], arithmetic)  # every x is optimal
    assert [float(end) for r in flat for end in (r.lo, r.hi)] == pytest.approx([0, 1, 0, 1])


#: HiGHS ranges: the optimal set relaxed to x^T A >= v* - HIGHS_SLACK (so that rounding in
#: v* cannot empty it), and the width below which such a range is one point.
HIGHS_SLACK = 1e-9
HIGHS_UNIQUE_WIDTH = 1e-6


def highs_ranges(A) -> list[tuple[float, float]]:
    """(min x_b, max x_b) over the row player's optimal strategies of A, by scipy's HiGHS:
    v* from the oracle's row LP (tests/reference.py), then 2k LPs over the relaxed optimal
    set.  Shares nothing with exact.analysis.ranges (its own simplex in rationals)."""
    A = np.asarray(A, dtype=float)
    k, cols = A.shape
    v = reference_game(A)[0]
    ends = []
    for b in range(k):
        pair = []
        for sense in (1, -1):  # minimise x_b, then maximise it
            c = np.zeros(k)
            c[b] = sense
            res = linprog(
                c,
                A_ub=-A.T,
                b_ub=np.full(cols, HIGHS_SLACK - v),
                A_eq=np.ones((1, k)),
                b_eq=[1],
                bounds=[(0, None)] * k,
                method="highs",
            )
            assert res.status == 0, res.message
            pair.append(sense * res.fun)
        ends.append(tuple(pair))
    return ends


def test_highs_ranges_see_a_segment():
    """The independent ranges above do see a non-unique optimum (SEGMENT_GAME)."""
    for (lo, hi), (want_lo, want_hi) in zip(highs_ranges(SEGMENT_GAME), SEGMENT_RANGES):
        assert lo == pytest.approx(float(want_lo), abs=RANGE_TOL)
        assert hi == pytest.approx(float(want_hi), abs=RANGE_TOL)


def test_first_move_n5_is_unique(solved_exact, solved):
    """Table 1 (Rhoads & Bartholdi 2012) is a property of the game: for every upcard the
    first move of N = 5 is the only optimal one.

    The exact table is checked without the exact matrix-game solver that produced it: it
    is a distribution, it is an equilibrium of the exact payoff matrix by the inequalities
    x^T A >= 0 and A x <= 0 (value 0, the game being symmetric), in Fractions, and it
    agrees with the paper's four decimals.  Uniqueness, claimed by first_move_ranges
    (a rank shortcut here), is checked by HiGHS's min and max of each entry.
    """
    ex = solved_exact(5)
    cards = set(range(1, 6))
    table = ex.first_move_table()
    ranges = first_move_ranges(ex)
    float_ranges = first_move_ranges(solved(5))
    for u in sorted(cards):
        A = [[to_fraction(a) for a in row] for row in ex.matrix(cards, cards, cards, u)]
        x = [table[u][b] for b in sorted(cards)]
        assert all(isinstance(p, Fraction) and p >= 0 for p in x) and sum(x) == 1
        assert min(sum(x[i] * A[i][j] for i in range(5)) for j in range(5)) >= 0, u
        assert max(sum(A[i][j] * x[j] for j in range(5)) for i in range(5)) <= 0, u
        for b, p in zip(sorted(cards), x):
            assert abs(p - Fraction(str(TABLE_1[b - 1][u - 1]))) <= PAPER_HALF_UNIT, (u, b)
        for b, (lo, hi) in zip(sorted(cards), highs_ranges(A)):
            assert hi - lo <= HIGHS_UNIQUE_WIDTH, (u, b)
            assert lo - HIGHS_UNIQUE_WIDTH <= table[u][b] <= hi + HIGHS_UNIQUE_WIDTH, (u, b)
            r, rf = ranges[u][b], float_ranges[u][b]
            assert r.unique and r.lo == r.hi == table[u][b], (u, b)
            assert rf.unique and rf.lo == pytest.approx(lo, abs=HIGHS_UNIQUE_WIDTH), (u, b)


def test_shortcut_agrees_with_lps_on_n4(solved_exact):
    ex = solved_exact(4)
    cards = {1, 2, 3, 4}
    for u in cards:
        A = [list(row) for row in ex.matrix(cards, cards, cards, u)]
        assert optimal_set_ranges(A) == optimal_set_ranges(A, shortcut=False)


def test_simplex_reports_infeasible_and_unbounded():
    with pytest.raises(SolverError, match="infeasible"):
        simplex_max([1, 0], [[1, 1]], [-1], Fraction(0), Fraction(1))  # x0 + x1 = -1
    with pytest.raises(SolverError, match="unbounded"):
        simplex_max([1, 0], [[1, -1]], [0], Fraction(0), Fraction(1))  # x0 = x1, max x0


def test_cli_table_ranges_json():
    code, out = run("table", 4, "--ranges", "--json", "--quiet")
    assert code == 0
    data = json.loads(out)
    assert sorted(data["ranges"]) == ["1", "2", "3", "4"]
    for u, row in data["ranges"].items():
        assert len(row) == 4
        for (lo, hi), p in zip(row, data["by_upcard"][u]):
            assert lo == hi == pytest.approx(p, abs=1e-12)
    code, out = run("table", 4, "--ranges", "--quiet")
    assert code == 0 and "(exact rationals): 16 of 16 unique" in out
