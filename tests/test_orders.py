"""Prize orders (exact.game.orders): ascending, descending, controlled by either player,
against the brute-force references of tests/reference_orders.py."""

from __future__ import annotations

import functools
from itertools import combinations

import numpy as np
import pytest

import exact
from exact.errors import GopsInputError
from exact.game import orders as game_orders
from exact.game.spec import GameSpec
from reference_orders import exact_value, float_value

ORDERS = ["random", "ascending", "descending", "controlled-by-me", "controlled-by-them"]
NEW_ORDERS = ORDERS[1:]
#: The float solver against HiGHS (both float; HiGHS at 1e-10 feasibility tolerances).
TOL = 1e-8


def positions(n: int, k: int):
    """Every raw position (V, Y, P) of k cards each drawn from 1..n."""
    subsets = [frozenset(c) for c in combinations(range(1, n + 1), k)]
    for V in subsets:
        for Y in subsets:
            for P in subsets:
                yield V, Y, P


@pytest.mark.parametrize("order", NEW_ORDERS)
def test_float_values_match_highs_reference(order):
    """Every position of 4-card GOPS, and the start of the 5-card game where the order
    turns up a known card (the controlled orders' N = 5: test_controlled_orders_at_five,
    -m slow)."""
    sol4 = exact.solve(4, order=order)
    failures = []
    for k in range(1, 5):
        for V, Y, P in positions(4, k):
            got, want = sol4.value(V, Y, P), float_value(order, V, Y, P)
            if not abs(got - want) <= TOL:
                failures.append(f"{sorted(V)} {sorted(Y)} {sorted(P)}: {got} != {want}")
    assert not failures, "\n".join(failures[:10])
    if order in ("ascending", "descending"):
        assert_start_of_five_matches_highs(order)


@pytest.mark.slow
@pytest.mark.parametrize("order", ["controlled-by-me", "controlled-by-them"])
def test_controlled_orders_at_five(order):
    """The start of the 5-card game under a controlled order against HiGHS: about 7,000
    reference games, 30 s an order on the 2-core machine."""
    assert_start_of_five_matches_highs(order)


def assert_start_of_five_matches_highs(order):
    full = frozenset(range(1, 6))
    got = exact.solve(5, order=order).value(full, full, full)
    want = float_value(order, full, full, full)
    assert abs(got - want) <= TOL, (got, want)


@pytest.mark.parametrize("order", ORDERS)
def test_rational_values_equal_independent_exact_reference(order):
    """Every position of 3-card GOPS and every full-hands position of 4-card GOPS, `==`."""
    sol3 = exact.solve(3, arithmetic="rational", order=order)
    sol4 = exact.solve(4, arithmetic="rational", order=order)
    for k in range(1, 4):
        for V, Y, P in positions(3, k):
            assert sol3.value(V, Y, P) == exact_value(order, V, Y, P), (V, Y, P)
    for V, Y, P in positions(4, 4):
        assert sol4.value(V, Y, P) == exact_value(order, V, Y, P), (V, Y, P)


def test_controlled_orders_mirror_each_other():
    """f_by_them(V, Y, P) = -f_by_me(Y, V, P), exactly in rationals (N = 5) and within the
    two certified radii in floating point (every stored value of N = 7)."""
    me = exact.solve(5, arithmetic="rational", order="controlled-by-me")
    them = exact.solve(5, arithmetic="rational", order="controlled-by-them")
    for k in (2, 3, 5):
        for V, Y, P in positions(5, k):
            if frozenset(range(1, 6)) == P or k < 5:
                assert them.value(V, Y, P) == -me.value(Y, V, P)
    me, them = exact.solve(7, order="controlled-by-me"), exact.solve(7, order="controlled-by-them")
    for k, level in enumerate(me.levels):
        slack = me.radii[k] + them.radii[k]
        gap = np.abs(them.values[k] + me.values[k][:, level.swap])
        assert gap.max() <= slack, (k, gap.max(), slack)


@pytest.mark.parametrize("order", NEW_ORDERS)
def test_float_values_within_certified_radius_of_exact(order):
    """Every stored float value of 5-card GOPS within its level's radius of the exact one."""
    fl, ex = exact.solve(5, order=order), exact.solve(5, arithmetic="rational", order=order)
    for k in range(6):
        exact_floats = np.vectorize(float, otypes=[float])(ex.values[k])
        assert np.all(np.abs(fl.values[k] - exact_floats) <= fl.radii[k] + 1e-300), k
        assert np.isfinite(fl.radii[k])


def test_value_of_controlling_the_order():
    """At the start, controlling the order is worth something, known orders nothing (they
    are symmetric), and the controller of the order values each prize choice."""
    full = set(range(1, 6))
    for order in ("random", "ascending", "descending"):
        assert exact.solve(5, arithmetic="rational", order=order).value(full, full, full) == 0
    me = exact.solve(5, arithmetic="rational", order="controlled-by-me")
    worth = me.value(full, full, full)
    assert worth > 0
    choices = me.prize_values(full, full, full)
    assert sorted(choices) == [1, 2, 3, 4, 5] and max(choices.values()) == worth


def test_known_order_fixes_the_upcard():
    sol = exact.solve(4, order="descending")
    cards = {1, 2, 3, 4}
    assert list(sol.first_move_table()) == [4]
    assert sol.prize_values(cards, cards, cards).keys() == {4}
    with pytest.raises(GopsInputError, match="descending prize order the next prize is 4, not 2"):
        sol.strategy(cards, cards, cards, 2)
    assert list(exact.solve(4, order="ascending").first_move_table()) == [1]


def test_known_orders_solve_one_game_per_item():
    """A known order solves the one game of its upcard: 1/k of the random order's games."""
    assert (
        exact.solve(6, order="ascending").stats.matrix_games * 6
        < exact.solve(6).stats.matrix_games * 2
    )


def test_unknown_order_is_one_line():
    with pytest.raises(GopsInputError, match="unknown prize order 'shuffled'"):
        exact.solve(3, order="shuffled")


# -- stores and the command line -------------------------------------------------------------


def test_store_keeps_the_order_and_refuses_another(tmp_path):
    from exact.dp.store import StoreError, solve_into_store

    solve_into_store(GameSpec.parse(6, order="controlled-by-them"), tmp_path / "s", chunk_items=50)
    stored = exact.load(tmp_path / "s")
    fresh = exact.solve(6, order="controlled-by-them")
    assert stored.order.name == "controlled-by-them"
    for k in range(7):  # bit-identical to the in-memory solve, identical hands included
        assert np.array_equal(stored.values[k], fresh.values[k])
    with pytest.raises(StoreError, match="holds the controlled-by-them prize order, not random"):
        exact.load(tmp_path / "s", order="random")
    with pytest.raises(
        StoreError, match="order=controlled-by-them, not N=6 objective=points order=random"
    ):
        solve_into_store(GameSpec.parse(6), tmp_path / "s")
    solve_into_store(GameSpec.parse(5, "win", "controlled-by-me"), tmp_path / "w", chunk_items=7)
    stored, fresh = exact.load(tmp_path / "w"), exact.solve(5, "win", order="controlled-by-me")
    for k in range(6):
        assert np.array_equal(stored.values[k], fresh.values[k], equal_nan=True)


def run(*args):
    from click.testing import CliRunner

    from exact.cli import main

    return CliRunner().invoke(main, [str(a) for a in args])


def test_cli_table_of_a_controlled_order_names_the_best_first_prize():
    import json

    out = run("table", 4, "--order", "controlled-by-me", "--quiet", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["order"] == "controlled-by-me" and sorted(data["by_upcard"]) == ["1", "2", "3", "4"]
    best = max(data["prize_values"].values())
    ex = exact.solve(4, arithmetic="rational", order="controlled-by-me")
    cards = {1, 2, 3, 4}
    assert abs(best - float(ex.value(cards, cards, cards))) < TOL
    text = run("table", 4, "--order", "controlled-by-me", "--quiet").output
    assert "I turn up the best for me, 2" in text


def test_cli_known_order_and_refusals():
    out = run("table", 4, "--order", "ascending", "--quiet")
    assert out.exit_code == 0 and "bid\\up       1\n" in out.output
    bad = run(
        "strategy",
        "--mine",
        "1,2",
        "--theirs",
        "1,2",
        "--deck",
        "1,2",
        "--upcard",
        1,
        "--order",
        "descending",
    )
    assert bad.exit_code == 2 and "the next prize is 2, not 1" in bad.output
    win = run("table", 4, "--objective", "win", "--order", "controlled-by-them", "--quiet")
    assert win.exit_code == 0 and "win objective, controlled-by-them prize order" in win.output
    assert "they turn up the worst for me" in win.output
    ranges = run("table", 4, "--order", "ascending", "--ranges")
    assert ranges.exit_code == 2 and "--ranges covers the random prize order only" in ranges.output
    solved = run("solve", 5, "--order", "controlled-by-me", "--quiet")
    assert solved.exit_code == 0 and "value at the start: +0.303195" in solved.output


# -- the win objective under the known orders ------------------------------------------------


@pytest.mark.parametrize("order", NEW_ORDERS)
def test_win_objective_under_new_orders_matches_references(order):
    """Every position of 4-card GOPS at leads -played, 0 and played, against the exact
    reference: the exact solver's value equal, the float one within TOL and its certified
    enclosure around it."""
    from reference_orders import win_exact_value

    fl, ex = exact.solve(4, "win", order=order), exact.solve(4, "win", "rational", order=order)
    for k in range(1, 5):
        for V, Y, P in positions(4, k):
            played = 10 - sum(P)
            for L in range(-played, played + 1, max(1, played)):  # -played, 0, played
                want = win_exact_value(order, V, Y, P, L)
                assert ex.value(V, Y, P, lead=L) == want, (V, Y, P, L)
                assert abs(fl.value(V, Y, P, lead=L) - want) <= TOL, (V, Y, P, L)
                lo, hi = fl.enclosure(V, Y, P, lead=L)
                assert lo <= want <= hi


def test_win_controlled_orders_mirror_each_other():
    """f_by_them(V, Y, P, L) = -f_by_me(Y, V, P, -L) on every stored entry (N = 6, float:
    within the two radii)."""
    me = exact.solve(6, "win", order="controlled-by-me")
    them = exact.solve(6, "win", order="controlled-by-them")
    for k, level in enumerate(me.levels):
        mirrored = -me.values[k][:, level.swap, ::-1]
        known = ~np.isnan(them.values[k])
        assert np.array_equal(known, ~np.isnan(mirrored))
        slack = me.radii[k] + them.radii[k]
        assert np.abs(them.values[k][known] - mirrored[known]).max(initial=0) <= slack


# -- exact evaluation of bots under a known order ---------------------------------------------


def test_evaluate_under_a_known_order_matches_a_direct_recursion():
    """gops evaluate's recursion with the prizes ascending, against a few lines here: the
    optimal bot (the ascending equilibrium, exact) against the uniformly random bot."""
    from fractions import Fraction

    from exact.analysis.evaluate import evaluate
    from exact.play.bots import make_bot

    sol = exact.solve(4, arithmetic="rational", order="ascending")

    @functools.cache
    def mean(V, Y, P):
        if not P:
            return Fraction(0)
        u = min(P)
        x = sol.strategy(set(V), set(Y), set(P), u).mine
        return sum(
            x[a] * Fraction(1, len(Y)) * (u * ((a > b) - (a < b)) + mean(V - {a}, Y - {b}, P - {u}))
            for a in V
            for b in Y
        )

    full = frozenset(range(1, 5))
    ev = evaluate(
        4, make_bot("optimal", 4, order="ascending"), make_bot("random", 4), order="ascending"
    )
    assert ev.exact and ev.expected_difference == mean(full, full, full) > 0
    assert sum(ev.distribution.values()) == 1
    out = run("evaluate", 4, "--bots", "optimal,upcard", "--order", "descending")
    assert out.exit_code == 0 and "the prizes in descending order" in out.output


def test_evaluate_the_chooser_of_the_prizes():
    """Both optimal bots of the controlled game, the chooser taking its best prize: the
    exact evaluation is the game's value.  A bot that is no optimal chooser chooses
    uniformly, which makes the controlled order the random one."""
    from exact.analysis.evaluate import evaluate
    from exact.play.bots import make_bot

    full = {1, 2, 3, 4}
    for order, other in (
        ("controlled-by-me", "controlled-by-them"),
        ("controlled-by-them", "controlled-by-me"),
    ):
        a = make_bot("optimal", 4, arithmetic="rational", order=order)
        b = make_bot("optimal", 4, arithmetic="rational", order=other)
        ev = evaluate(4, a, b, order=order)
        assert ev.expected_difference == a.solution.value(full, full, full)
    shuffled = evaluate(4, make_bot("random", 4), make_bot("upcard", 4))
    chosen = evaluate(4, make_bot("random", 4), make_bot("upcard", 4), order="controlled-by-me")
    assert chosen.distribution == shuffled.distribution
    with pytest.raises(GopsInputError, match="not controlled-by-them"):  # the wrong solution
        evaluate(
            4,
            make_bot("optimal", 4, arithmetic="rational", order="controlled-by-them"),
            make_bot("random", 4),
            order="controlled-by-me",
        )
    text = run("evaluate", 4, "--bots", "optimal,optimal", "--order", "controlled-by-me").output
    assert "player 0 chooses the prizes" in text and "148116/1307731" in text


def test_play_with_every_order():
    import re

    from click.testing import CliRunner

    from exact.cli import main

    def play(order, keys):
        out = CliRunner().invoke(
            main,
            ["play", "4", "--order", order, "--seed", "3"],
            input="".join(f"{k}\n" for k in keys),
        )
        assert out.exit_code == 0, out.output
        ups = re.findall(r"Round \d of 4: the (\d+) is up", out.output)
        return out.output, [int(u) for u in ups]

    text, prizes = play("descending", [1, 2, 3])
    assert prizes == [4, 3, 2, 1] and "the largest remaining prize next" in text
    assert play("ascending", [1, 2, 3])[1] == [1, 2, 3, 4]
    # I choose the 2 and bid 1; choose the 2 again (gone: asked again), the 3, bid 2;
    # choose the 4, bid 3; the last prize and bid play themselves.
    text, prizes = play("controlled-by-me", [2, 1, 2, 3, 2, 4, 3])
    assert prizes == [2, 3, 4, 1] and "'2' is not a prize left" in text
    # The computer chooses its best first prize: the 2, worth most to the chooser at N = 4.
    text, prizes = play("controlled-by-them", [1, 2, 3])
    assert prizes[0] == 2 and "The computer chooses the next prize: the 2." in text
    assert sorted(prizes) == [1, 2, 3, 4]


#: The cost model counts the identical-hands pattern of each level as half an antisymmetric
#: pair (exact.dp.preflight): 1 pattern in P(N, k), a relative error of 6e-4 at N = 10.
MODEL_REL = 1e-3


def games_by_level(n, order):
    """The matrix games each level of the n-card game solves under ``order``, counted over
    the patterns and prize sets of exact.game.encoding.build_levels: a symmetric order
    solves one pattern of each antisymmetric pair (identical hands have value 0), a
    controlled order every pattern; a known order one upcard per prize set, the others k."""
    from exact.game.encoding import build_levels

    games = []
    for level in build_levels(n):
        ranks = np.arange(level.patterns)
        if order.startswith("controlled"):
            patterns = level.patterns
        else:
            patterns = int(np.count_nonzero(ranks < level.swap))
        upcards = 1 if order in ("ascending", "descending") else level.k
        games.append(patterns * level.prize_sets * upcards)
    return games


@pytest.mark.parametrize("order", ORDERS)
def test_the_solver_solves_the_games_counted(order):
    """The count above is what exact.solve really solves (its SolveStats)."""
    assert exact.solve(6, order=order).stats.matrix_games == sum(games_by_level(6, order))


@pytest.mark.parametrize("order", NEW_ORDERS)
def test_preflight_time_follows_the_games_each_order_solves(order):
    """The estimate's time under each order, relative to the random order's, is the ratio
    of the games counted (k^2 work per game of level k: the module's cost model)."""
    from exact.dp.preflight import estimate

    def work(o):
        return sum(k * k * g for k, g in enumerate(games_by_level(10, o)))

    counted = work(order) / work("random")
    modelled = (
        estimate(GameSpec.parse(10, order=order)).seconds / estimate(GameSpec.parse(10)).seconds
    )
    assert modelled == pytest.approx(counted, rel=MODEL_REL)


@pytest.mark.parametrize("order", list(game_orders.ORDERS.values()), ids=lambda o: o.name)
def test_the_kernels_mirror_exactly_the_antisymmetric_orders(order):
    """The kernels keep one pattern of each mirror pair where ``combine.mirrored`` says so:
    that must be the order's own antisymmetry (a chooser of the prizes breaks it)."""
    from exact.kernels.combine import mirrored

    assert bool(mirrored(order.code)) == order.antisymmetric == (order.chooser is None)
