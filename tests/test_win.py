"""The win/loss objective (exact/dp/objective.py, exact/kernels/win.py, exact/dp/drivers.py,
exact/dp/solution.py, exact/analysis/win_exploit.py): payoff +1 / 0 / -1 for ending ahead /
level / behind, the state carrying my lead L."""

import doctest
import importlib
import itertools
import json
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import exact
from exact.cli import main
from reference_win import win_value

#: Float tolerance of values and of the guarantees of float strategies.
TOL = 1e-9
#: Agreement of the float solver with the exact one (N <= 5).
EXACT_TOL = 1e-12
N = 6


def sign(a):
    return (a > 0) - (a < 0)


@pytest.fixture(scope="module")
def win():
    cache = {}

    def get(n, arithmetic="float"):
        if (n, arithmetic) not in cache:
            cache[n, arithmetic] = exact.solve(n, objective="win", arithmetic=arithmetic)
        return cache[n, arithmetic]

    return get


def all_positions(n):
    """Every raw (V, Y, P, L) of n-card GOPS with a lead that can happen (|L| <= played)."""
    total = n * (n + 1) // 2
    cards = range(1, n + 1)
    for k in range(n + 1):
        for V, Y, P in itertools.product(itertools.combinations(cards, k), repeat=3):
            played = total - sum(P)
            for lead in range(-played, played + 1):
                yield frozenset(V), frozenset(Y), frozenset(P), lead


# ---------------------------------------------------------------------------------------
# The seed's sample game, round 11
# ---------------------------------------------------------------------------------------


def test_sample_game_round_11():
    """Seed 000 ("Sample Game", round 11): Charles holds 5, 7, 10, Scott 6, 7, 8; the
    diamonds 4, 6 and the jack remain, the jack is up; Charles trails 25 to 32.  "Scott was
    a 2-to-1 favorite ... play his 6 one-third of the time, and his 7 the rest of the time.
    Charles's best play would be to play his 10 two-thirds of the time, and his 7
    one-third of the time ... Charles would win 1/3 of the time and lose 2/3."
    """
    sol = exact.solve(11, objective="win", arithmetic="rational", top=2)
    s = sol.strategy({5, 7, 10}, {6, 7, 8}, {4, 6, 11}, upcard=11, lead=25 - 32)
    assert s.value == Fraction(-1, 3)
    assert s.mine == {5: 0, 7: Fraction(1, 3), 10: Fraction(2, 3)}
    assert s.theirs == {6: Fraction(1, 3), 7: Fraction(2, 3), 8: 0}


def test_paper_sec_3_1_position_is_a_sure_win():
    """Rhoads & Bartholdi 2012, sec 3.1: with 2, 4 against 1, 3 and the queen and king
    left, "player one can guarantee victory by always playing 4 when the king shows up"."""
    sol = exact.solve(13, objective="win", arithmetic="rational", top=1)
    s = sol.strategy({2, 4}, {1, 3}, {12, 13}, upcard=13)
    assert s.value == 1 and s.mine == {2: 0, 4: 1}


# ---------------------------------------------------------------------------------------
# Against the exact solver and the independent brute force
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(1, 6), ids=lambda n: f"N{n}")
def test_float_matches_exact(win, n):
    fl, ex = win(n), win(n, "rational")
    for k in range(n + 1):
        a, b = fl.values[k], ex.values[k]
        known = np.not_equal(b, None)
        assert np.array_equal(known, ~np.isnan(a))
        exact_values = np.array([float(v) for v in b[known]])
        assert np.max(np.abs(a[known] - exact_values), initial=0) <= EXACT_TOL


@pytest.mark.parametrize("n", range(1, 5), ids=lambda n: f"N{n}")
def test_against_brute_force_reference(win, n):
    """Every raw position of N <= 4, every lead that can happen: the HiGHS recursion of
    tests/reference_win.py (no encoding, no antisymmetry, no lead bounds) agrees."""
    sol = win(n)
    count = 0
    for V, Y, P, lead in all_positions(n):
        assert sol.value(V, Y, P, lead=lead) == pytest.approx(win_value(V, Y, P, lead), abs=TOL)
        count += 1
    assert count == {1: 4, 2: 40, 3: 392, 4: 3806}[n]


def test_exact_values_are_fractions(win):
    sol = win(4, "rational")
    full = {1, 2, 3, 4}
    assert sol.value(full, full, full) == 0 and isinstance(sol.value(full, full, full), Fraction)
    s = sol.strategy({2, 4}, {1, 3}, {3, 4}, upcard=3, lead=1)
    assert sum(s.mine.values()) == 1 and all(isinstance(p, Fraction) for p in s.mine.values())


# ---------------------------------------------------------------------------------------
# Properties (hypothesis)
# ---------------------------------------------------------------------------------------


@st.composite
def positions(draw, n=N):
    """(mine, theirs, deck, lead) of n-card GOPS with |lead| <= the points played."""
    k = draw(st.integers(0, n))
    cards = st.lists(st.integers(1, n), min_size=k, max_size=k, unique=True)
    deck = frozenset(draw(cards))
    played = n * (n + 1) // 2 - sum(deck)
    return frozenset(draw(cards)), frozenset(draw(cards)), deck, draw(st.integers(-played, played))


@settings(max_examples=200, deadline=None)
@given(positions())
def test_antisymmetry_with_the_lead(win, pos):
    """f(Y, V, P, L) = -f(V, Y, P, -L)."""
    mine, theirs, deck, lead = pos
    sol = win(N)
    assert sol.value(theirs, mine, deck, -lead) == pytest.approx(
        -sol.value(mine, theirs, deck, lead), abs=TOL
    )


@settings(max_examples=100, deadline=None)
@given(positions())
def test_identical_hands_at_lead_zero_are_worth_zero(win, pos):
    mine, _, deck, lead = pos
    sol = win(N)
    assert sol.value(mine, mine, deck) == 0
    # ... and only at lead 0: a lead keeps its sign (f is non-decreasing in L).
    assert sign(sol.value(mine, mine, deck, lead)) in (0, sign(lead))


@settings(max_examples=200, deadline=None)
@given(positions(), st.data())
def test_order_preserving_relabelling(win, pos, data):
    mine, theirs, deck, lead = pos
    union = sorted(mine | theirs)
    images = sorted(
        data.draw(
            st.lists(st.integers(1, N), min_size=len(union), max_size=len(union), unique=True)
        )
    )
    g = dict(zip(union, images))
    sol = win(N)
    moved = sol.value({g[c] for c in mine}, {g[c] for c in theirs}, deck, lead)
    assert moved == pytest.approx(sol.value(mine, theirs, deck, lead), abs=TOL)


@settings(max_examples=100, deadline=None)
@given(positions(), st.data())
def test_strategies_guarantee_the_value(win, pos, data):
    """Probability vectors; x guarantees >= value - TOL against every pure reply, y
    concedes <= value + TOL; and the mean over the upcards is the stored value."""
    mine, theirs, deck, lead = pos
    if not deck:
        return
    sol = win(N)
    total = 0.0
    for u in sorted(deck):
        s = sol.strategy(mine, theirs, deck, u, lead)
        A = sol.matrix(mine, theirs, deck, u, lead)
        x, y = np.array(list(s.mine.values())), np.array(list(s.theirs.values()))
        assert np.all(x >= 0) and np.all(y >= 0)
        assert x.sum() == pytest.approx(1, abs=1e-12) and y.sum() == pytest.approx(1, abs=1e-12)
        assert (x @ A).min() >= s.value - TOL and (A @ y).max() <= s.value + TOL
        assert -1 <= s.value <= 1
        total += s.value
    assert total / len(deck) == pytest.approx(sol.value(mine, theirs, deck, lead), abs=TOL)


@settings(max_examples=100, deadline=None)
@given(positions())
def test_monotone_in_the_lead(win, pos):
    """A bigger lead is never worse (the invariant behind the kernel's bisection)."""
    mine, theirs, deck, lead = pos
    sol = win(N)
    played = N * (N + 1) // 2 - sum(deck)
    if lead < played:
        assert sol.value(mine, theirs, deck, lead + 1) >= sol.value(mine, theirs, deck, lead) - TOL


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 9), st.data())
def test_decided_positions_are_valued_without_solving(n, data):
    """|L| > sum(P): the result is sign(L) -- from a solution with no level solved."""
    sol = exact.solve(n, objective="win", top=0)
    k = data.draw(st.integers(1, n))
    cards = st.lists(st.integers(1, n), min_size=k, max_size=k, unique=True)
    mine, theirs, deck = (frozenset(data.draw(cards)) for _ in range(3))
    played = n * (n + 1) // 2 - sum(deck)
    if played <= sum(deck):
        return
    lead = data.draw(st.integers(sum(deck) + 1, played)) * data.draw(st.sampled_from([1, -1]))
    assert sol.value(mine, theirs, deck, lead) == sign(lead)
    s = sol.strategy(mine, theirs, deck, max(deck), lead)
    assert s.value == sign(lead) and s.gap == 0
    with pytest.raises(exact.GopsInputError, match="at most 0 cards"):
        sol.value(mine, theirs, deck, 0)


def test_decided_and_trivial_games_are_skipped(win):
    """Solved matrix games < subgames x upcards: antisymmetric halves, sure wins and sure
    losses (bisection on the lead) are not solved."""
    st_ = win(N).stats
    assert 0 < st_.matrix_games < st_.subgames


# ---------------------------------------------------------------------------------------
# API boundaries
# ---------------------------------------------------------------------------------------


def test_lead_validation(win):
    sol = win(4)
    full = {1, 2, 3, 4}
    with pytest.raises(exact.GopsInputError, match="impossible"):
        sol.value(full, full, full, lead=1)  # nothing has been played
    with pytest.raises(exact.GopsInputError, match="integer"):
        sol.value({1}, {2}, {3}, lead=0.5)
    handicapped = exact.solve(4, objective="win", handicap=2)
    assert handicapped.value(full, full, full, lead=2) > 0
    assert handicapped.first_move_table(lead=2)[4][4] == pytest.approx(
        float(exact.solve(4, "win", "rational", handicap=2).first_move_table(lead=2)[4][4]), abs=TOL
    )


def test_points_api_is_unchanged():
    """The points objective has no lead: one Solution class, and a clear error for a lead."""
    sol = exact.solve(3)
    for call in (
        lambda: sol.value({1}, {2}, {3}, lead=0),
        lambda: sol.strategy({1}, {2}, {3}, 3, lead=1),
        lambda: sol.first_move_table(lead=0),
    ):
        with pytest.raises(exact.GopsInputError, match="the points objective has no lead"):
            call()
    with pytest.raises(exact.GopsInputError, match="win objective only"):
        exact.solve(3, handicap=1)
    with pytest.raises(exact.GopsInputError, match="between 1 and 10"):
        exact.solve(11, objective="win")
    with pytest.raises(exact.GopsInputError, match="between 1 and 7"):
        exact.solve(8, objective="win", arithmetic="rational")


def test_win_certificate_options(tmp_path):
    """Win certificates exist (tests/test_certificates_win.py); bad options still fail."""
    with pytest.raises(exact.GopsInputError, match="unknown objective"):
        exact.certify(3, tmp_path / "w.cert", objective="draw")
    with pytest.raises(exact.GopsInputError, match="between 1 and 7"):
        exact.certify(8, tmp_path / "w.cert", objective="win")
    assert not list(tmp_path.iterdir())


def test_exact_records_expose_equilibria():
    """on_record receives every solved (pattern, prizes, lead) with verified equilibria."""
    from exact.dp.drivers import solve_rational_levels
    from exact.dp.objective import WinObjective
    from exact.game.encoding import build_levels

    records = []

    def on_record(level, p, r, lead, value, games):
        assert len(games) == level.k
        assert value == sum(eq.value for _, eq in games) / level.k
        records.append((level.k, p, r, lead))

    _, extra = solve_rational_levels(WinObjective(), build_levels(4), on_record=on_record)
    assert len(records) == len(set(records))
    assert sum(k for k, *_ in records) == sum(extra["paths"].values())  # k games a record


def test_doctests():
    for name in (
        "exact.kernels.win",
        "exact.dp.objective",
        "exact.dp.solution",
        "exact.analysis.win_exploit",
        "exact.dp.solve",
    ):
        failed, attempted = doctest.testmod(importlib.import_module(name))
        assert failed == 0 and attempted > 0, name


# ---------------------------------------------------------------------------------------
# The points strategy against a win-maximising best response
# ---------------------------------------------------------------------------------------


def test_best_response_matches_raw_recursion():
    """exact/analysis/win_exploit.py against a plain recursion over raw (V, Y, P, L) that uses
    only the points Solution's public strategies (N = 4)."""
    from exact.analysis.win_exploit import best_response_to_points

    n = 4
    points = exact.solve(n)

    @cache
    def g(V, Y, P, lead):
        if not P:
            return float(sign(lead)), float(lead == 0)
        G = T = 0.0
        for u in P:
            mix = points.strategy(V, Y, P, u).mine
            replies = []
            for b in sorted(Y):
                parts = [
                    (xa, g(V - {a}, Y - {b}, P - {u}, lead + u * sign(a - b)))
                    for a, xa in mix.items()
                ]
                replies.append(
                    (sum(x * gv for x, (gv, _) in parts), sum(x * tv for x, (_, tv) in parts))
                )
            best = min(replies, key=lambda r: r[0])
            G, T = G + best[0], T + best[1]
        return G / len(P), T / len(P)

    root = frozenset(range(1, n + 1))
    br = best_response_to_points(points)
    got = br.value(root, root, root)
    want = g(root, root, root, 0)
    assert got == pytest.approx(want, abs=TOL)
    assert got[0] < -0.2  # the points strategy loses a lot of winning chances
    # The root is the mean over the first upcard of the best reply's continuation.
    best = [
        min(br.replies(root, root, root, u)[1].values(), key=lambda r: r[0]) for u in sorted(root)
    ]
    assert got == pytest.approx(tuple(np.mean(best, axis=0)), abs=TOL)


# ---------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def test_cli_strategy_sample_game_exact():
    code, out = run(
        "strategy",
        "--mine",
        "5,7,10",
        "--theirs",
        "6,7,8",
        "--deck",
        "4,6,11",
        "--upcard",
        11,
        "--objective",
        "win",
        "--lead",
        -7,
        "--exact",
        "--json",
    )
    assert code == 0
    data = json.loads(out.splitlines()[-1])
    assert data["value"] == "-1/3" and data["objective"] == "win" and data["lead"] == -7
    assert data["mine"] == {"5": "0", "7": "1/3", "10": "2/3"}


def test_cli_table_json_win():
    code, out = run("table", 4, "--objective", "win", "--json", "--quiet")
    assert code == 0
    data = json.loads(out)
    assert data["objective"] == "win" and data["lead"] == 0
    for probs in data["by_upcard"].values():
        assert sum(probs) == pytest.approx(1, abs=TOL)


@pytest.mark.parametrize(
    "args",
    [
        ("table", 4, "--lead", 1),
        ("solve", 4, "--lead", 0),
        (
            "strategy",
            "--mine",
            "1,2",
            "--theirs",
            "1,2",
            "--deck",
            "1,2",
            "--upcard",
            1,
            "--lead",
            1,
        ),
        ("table", 4, "--objective", "win", "--ranges"),
        ("solve", 4, "--objective", "win", "--lead", 2, "--store", "{tmp}/store"),
        ("table", 11, "--objective", "win"),
        ("table", 4, "--objective", "money"),
    ],
    ids=[
        "table-lead-points",
        "solve-lead-points",
        "strategy-lead-points",
        "ranges-win",
        "store-win-lead",
        "too-big",
        "bad-objective",
    ],
)
def test_cli_bad_objective_options_exit_2(args, tmp_path):
    code, out = run(*(str(a).replace("{tmp}", str(tmp_path)) for a in args))
    assert code == 2 and out.count("\n") == 1 and out.startswith("gops: error:")
    assert not any(tmp_path.iterdir())  # refused before anything is written


def test_cli_solve_and_compare_objectives():
    code, out = run("solve", 4, "--objective", "win", "--quiet")
    assert code == 0 and "objective=win" in out and "value at the start, lead 0: +0.000e+00" in out
    code, out = run("compare-objectives", 4, "--quiet")
    assert code == 0
    assert "points-optimal strategy vs its best response: -0.27" in out
    assert "upcard 4 first:" in out


@pytest.mark.parametrize("objective", ["points", "win"])
def test_a_solve_reports_each_level_whole_in_its_objectives_progress_units(objective):
    # Each level's progress adds up to the objective's units of that level (what the bars
    # take as their total), whatever the kernel's own items.
    from exact.dp.objective import objective_of
    from exact.game.spec import GameSpec

    done = {}
    sol = exact.solve(
        6, objective=objective, progress=lambda lv, u: done.update({lv.k: done.get(lv.k, 0) + u})
    )
    units = objective_of(GameSpec.parse(6, objective=objective)).progress_units
    reported = {k: u for k, u in done.items() if u}
    assert reported == {lv.k: units(lv) for lv in sol.levels if units(lv)}  # 0: no game


def test_the_lead_of_a_stored_index_is_read_from_the_layout():
    # Index i of a win level's last axis is the lead i - offset_k, -offset_k at 0 (what a
    # damaged entry's message names); the points layout has no lead axis.
    from exact.dp.objective import objective_of
    from exact.game.encoding import build_levels
    from exact.game.spec import GameSpec

    win, points = (
        objective_of(GameSpec.parse(5, objective=o, handicap=h))
        for o, h in (("win", 2), ("points", 0))
    )
    for level in build_levels(5)[1:]:
        leads = win.level_shape(level)[2]
        assert [win.lead_of(level, i) for i in range(leads)] == list(
            range(-(leads // 2), leads // 2 + 1)
        )
        assert points.lead_of(level, 0) is None
