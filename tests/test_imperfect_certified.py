"""exact.imperfect.certified and cfr: float equilibria whose NashConv is proven.

The references are independent of the code under test: the exact equilibrium's value
(:mod:`exact.imperfect.exact_lp`), the exact NashConv of the same policy by the rational
recursion of :mod:`exact.imperfect.nashconv` (not the numba tables the bound comes
from), OpenSpiel's own ``exploitability.nash_conv`` of the written policy file, and
OpenSpiel's ``CFRPlusSolver`` for CFR+."""

import json
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from exact.cli import main
from exact.errors import GopsInputError
from exact.imperfect.certified import (
    GRID,
    arrays_policy,
    certify,
    certify_with_actions,
    dyadic_rows,
    solve_certified,
)
from exact.imperfect.cfr import CFRPlus
from exact.imperfect.exact_lp import solve
from exact.imperfect.game import ImperfectGame
from exact.imperfect.nashconv import nash_conv
from exact.imperfect.policy_file import load_policy_file
from exact.imperfect.tables import layout

#: The float LP's equilibria at 3-4 cards are this close (the certified epsilon).
LP_EPSILON = 1e-12
#: OpenSpiel's float NashConv against ours: its own rounding (sums of a few thousand
#: terms of size <= 5).
OPENSPIEL_TOLERANCE = 1e-12
#: CFR+ on 4 cards descending: its average policy after 200 iterations is within this
#: (measured 1.8e-4; CFR+'s regret bound alone guarantees only O(1/sqrt(T))).
CFR_EPSILON_200 = 3e-4


def exact_nash_conv(game, sigmas) -> Fraction:
    """The exact NashConv of table arrays, by the rational recursion."""
    policy = arrays_policy(game, layout(game), sigmas, "arrays")
    return nash_conv(game, policy, "rational").value


@pytest.mark.parametrize(
    "n, order, objective",
    [(3, "random", "points"), (4, "descending", "points"), (4, "ascending", "win")],
    ids=["3-random", "4-descending", "4-ascending-win"],
)
def test_float_lp_certified_epsilon_bounds_the_exact_nash_conv(n, order, objective):
    game = ImperfectGame.parse(n, order, objective)
    found = solve_certified(game, "bound")
    proof = found.certificate
    exact = exact_nash_conv(game, found.sigmas)
    assert 0 <= exact <= Fraction(proof.epsilon) <= LP_EPSILON
    # the best responses against it are worth about the exact game value, both ways
    value = solve(game).value
    v0, v1 = proof.best_responses
    assert abs(v0 - float(value)) <= LP_EPSILON and abs(v1 + float(value)) <= LP_EPSILON
    rational = certify(game, *found.sigmas, "rational")
    assert rational.epsilon == exact and rational.method == "rational"


@given(st.lists(st.floats(0, 1), min_size=1, max_size=6), st.integers(0, 63))
def test_dyadic_rows_are_exact_distributions(values, legal_bits):
    n = len(values)
    legal = np.array([[bool(legal_bits >> j & 1) for j in range(n)]])
    row = dyadic_rows(np.array([values]), legal)[0]
    if not legal.any():
        assert not row.any()
        return
    assert sum(Fraction(float(p)) for p in row) == 1
    assert all(p >= 0 and (p * GRID).is_integer() for p in row)
    assert not row[~legal[0]].any()
    positive = np.array(values) * legal[0]
    if positive.sum() > 0:  # the grid moves each probability by at most n / GRID
        expected = positive / positive.sum()
        assert np.abs(row - expected).max() <= n / GRID + 1e-15


def test_cfr_plus_matches_openspiel_cfr_plus():
    """Our CFR+ (alternating updates, linear averaging, regret matching+) is OpenSpiel's
    CFRPlusSolver: the same average policy, so the same NashConv by OpenSpiel's code."""
    pytest.importorskip("pyspiel")
    cfr = pytest.importorskip("open_spiel.python.algorithms.cfr")
    exploitability = pytest.importorskip("open_spiel.python.algorithms.exploitability")
    from exact.imperfect.policy import openspiel_game, policy_from_openspiel

    game = ImperfectGame.parse(3, "random", "points")
    solver = cfr.CFRPlusSolver(openspiel_game(game))
    for _ in range(30):
        solver.evaluate_and_update_policy()
    theirs = policy_from_openspiel(game, solver.average_policy())
    state = CFRPlus.start(game)
    state.run(30)
    ours = state.average()
    where = layout(game)
    for player in (0, 1):
        for key, distribution in theirs.tables[player].items():
            row = ours[player][where.row(key)]
            for card, p in distribution:
                assert abs(row[card - 1] - float(p)) <= 1e-12
    openspiel_value = exploitability.nash_conv(openspiel_game(game), solver.average_policy())
    proof = certify(game, *ours)
    assert abs(openspiel_value - proof.nash_conv) <= proof.error_bound + OPENSPIEL_TOLERANCE


def test_cfr_plus_converges_and_its_bound_is_proven():
    game = ImperfectGame.parse(4, "descending", "points")
    state = CFRPlus.start(game)
    state.run(50)
    early = certify(game, *state.average())
    state.run(150)
    proof = certify(game, *state.average())
    assert proof.epsilon < early.epsilon / 10 and proof.epsilon <= CFR_EPSILON_200
    exact = exact_nash_conv(game, state.average())
    assert exact <= Fraction(proof.epsilon) and proof.epsilon - exact <= 2 * proof.error_bound


def test_one_walk_proves_the_bound_and_gives_each_best_response():
    game = ImperfectGame.parse(4, "descending", "points")
    state = CFRPlus.start(game)
    state.run(20)
    sigmas = state.average()
    proof, (q0, q1) = certify_with_actions(game, *sigmas)
    exact = nash_conv(game, arrays_policy(game, layout(game), sigmas, "arrays"), "rational")
    assert exact.value <= Fraction(proof.epsilon) <= exact.value + 2 * Fraction(proof.error_bound)
    assert proof.epsilon == certify(game, *sigmas, "bound").epsilon
    # one prize order, one first decision (row 0): its best bid is the best response
    best = (q0[0].max(), q1[0].max())
    for ours, theirs in zip(best, exact.best_responses):
        assert abs(ours - float(theirs)) <= OPENSPIEL_TOLERANCE


def test_cfr_checkpoint_resumes_where_it_stopped(tmp_path):
    game = ImperfectGame.parse(3, "descending", "points")
    straight = CFRPlus.start(game, "pcfr+")
    straight.run(40)
    first = CFRPlus.start(game, "pcfr+")
    first.run(25)
    first.save(tmp_path / "cfr.npz")
    resumed = CFRPlus.load(game, tmp_path / "cfr.npz")
    resumed.run(15)
    assert resumed.iteration == 40 and resumed.variant == "pcfr+"
    for a, b in zip(straight.average(), resumed.average()):
        assert np.array_equal(a, b)


def test_openspiel_nash_conv_of_the_written_cfr_policy(tmp_path):
    """gops imperfect solve --method cfr writes a policy file; OpenSpiel's own
    exploitability.nash_conv of it lies within the proven bound of ours."""
    pyspiel = pytest.importorskip("pyspiel")
    exploitability = pytest.importorskip("open_spiel.python.algorithms.exploitability")
    openspiel_policy = pytest.importorskip("open_spiel.python.policy")
    out = tmp_path / "cfr4.json"
    result = CliRunner().invoke(
        main,
        ["imperfect", "solve", "4", "--order", "descending", "--method", "cfr",
         "--iterations", "100", "--certify", "bound", "--policy-out", str(out), "--json",
         "--quiet"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)["certified"]
    game = ImperfectGame.parse(4, "descending", "points")
    turn_based = pyspiel.convert_to_turn_based(
        pyspiel.load_game("goofspiel", game.openspiel_parameters())
    )
    tabular = openspiel_policy.TabularPolicy(turn_based)
    data = json.loads(out.read_text())
    for string, row in tabular.state_lookup.items():
        for action, p in data.get(string, {}).items():
            tabular.action_probability_array[row, int(action)] = p
    theirs = exploitability.nash_conv(turn_based, tabular)
    assert theirs <= answer["epsilon_float"] + OPENSPIEL_TOLERANCE
    assert abs(theirs - answer["nash_conv"]) <= answer["error_bound"] + OPENSPIEL_TOLERANCE
    # the file is an exact policy: the rational NashConv of it is within the bound too
    exact = nash_conv(game, load_policy_file(game, out), "rational").value
    assert exact <= Fraction(answer["epsilon"])


def test_solve_method_lp_command(tmp_path):
    out = tmp_path / "lp4.json"
    result = CliRunner().invoke(
        main,
        ["imperfect", "solve", "4", "--order", "descending", "--method", "lp",
         "--policy-out", str(out), "--json", "--quiet"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["exact"] is False and answer["certified"]["method"] == "rational"
    epsilon = Fraction(answer["certified"]["epsilon"])
    assert epsilon <= LP_EPSILON
    game = ImperfectGame.parse(4, "descending", "points")
    assert nash_conv(game, load_policy_file(game, out), "rational").value == epsilon


@pytest.mark.parametrize(
    "args, message",
    [
        (["9", "--order", "descending", "--method", "cfr"], "N must be at most 8"),
        (["7", "--order", "descending", "--method", "lp"], "use --method cfr"),
        (["7", "--order", "descending", "--recompute"], "--method oracle or cfr gives a certified"),
        (["3", "--method", "cfr", "--iterations", "0"], "--iterations must be between 1 and"),
        (["3", "--method", "lp", "--iterations", "5"], "are for --method cfr"),
        (["3", "--certify", "bound"], "--certify is for --method lp or cfr"),
    ],
    ids=["9-cfr", "7-lp", "7-exact", "zero-iterations", "lp-iterations", "exact-certify"],
)
def test_solve_method_refusals(args, message):
    result = CliRunner().invoke(main, ["imperfect", "solve", *args])
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1


def test_a_bad_checkpoint_is_one_line(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_text("not a checkpoint")
    other = tmp_path / "other.npz"
    CFRPlus.start(ImperfectGame.parse(3, "descending", "points")).save(other)
    for path, message in ((bad, "is not an .npz archive"), (other, "is of the game")):
        result = CliRunner().invoke(
            main, ["imperfect", "solve", "3", "--method", "cfr", "--checkpoint", str(path)]
        )
        assert result.exit_code == 2 and message in result.output
        assert len(result.output.strip().splitlines()) == 1


def test_a_policy_file_of_the_reached_decisions_only_has_the_same_nash_conv(monkeypatch):
    """Beyond FULL_POLICY_MAX_ROWS a policy file holds only the decisions a player's own
    bids reach; read back with the rest uniform, its exact NashConv is the whole file's
    (NashConv depends on a policy through its realization plan only)."""
    import exact.imperfect.certified as certified
    from exact.imperfect.policy_file import policy_from_json

    game = ImperfectGame.parse(4, "descending", "points")
    found = solve_certified(game, "rational")
    whole = found.policy_json()
    monkeypatch.setattr(certified, "FULL_POLICY_MAX_ROWS", 0)
    reached = found.policy_json()
    assert set(reached) < set(whole)  # the LP's vertex leaves some decisions unreached
    assert all(whole[s] == reached[s] for s in reached)
    with pytest.raises(GopsInputError, match="the policy has no state"):
        policy_from_json(game, reached)
    exact_whole = nash_conv(game, policy_from_json(game, whole), "rational").value
    filled = policy_from_json(game, reached, fill_uniform=True)
    assert nash_conv(game, filled, "rational").value == exact_whole
    assert exact_whole == found.certificate.epsilon
