"""exact.imperfect.nashconv: NashConv (Lanctot et al. 2017, sec 3) of imperfect-information
goofspiel policies, against OpenSpiel's own ``exploitability.nash_conv`` and by hand."""

import json
import random
from fractions import Fraction

import numpy as np
import pytest

from exact.errors import GopsInputError
from exact.imperfect.game import ImperfectGame
from exact.imperfect.nashconv import best_response_value, float_error_bound, nash_conv
from exact.imperfect.policy import policy_from_openspiel, uniform_policy
from exact.imperfect.policy_file import load_policy_file, policy_from_json
from exact.imperfect.tables import layout

pyspiel = pytest.importorskip("pyspiel")
exploitability = pytest.importorskip("open_spiel.python.algorithms.exploitability")
openspiel_policy = pytest.importorskip("open_spiel.python.policy")

#: Our float NashConv against OpenSpiel's (the issue's agreement target).
AGREEMENT = 1e-10

ORDERS = ("random", "descending", "ascending")
CASES = [(n, order) for n in (3, 4) for order in ORDERS] + [(5, "descending")]
IDS = [f"{n}-{order}" for n, order in CASES]


def turn_based(game):
    return pyspiel.convert_to_turn_based(
        pyspiel.load_game("goofspiel", game.openspiel_parameters())
    )


def random_tabular(openspiel_game, seed):
    """A TabularPolicy with seeded random probabilities, about a quarter of them 0."""
    rng = np.random.default_rng(seed)
    policy = openspiel_policy.TabularPolicy(openspiel_game)
    weights = rng.random(policy.action_probability_array.shape)
    weights[rng.random(weights.shape) < 0.25] = 0
    weights *= policy.legal_actions_mask
    weights[weights.sum(axis=1) == 0] = policy.legal_actions_mask[weights.sum(axis=1) == 0]
    policy.action_probability_array = weights / weights.sum(axis=1, keepdims=True)
    return policy


class Asked:
    """A pyspiel-style policy object without tables: only action_probabilities."""

    def __init__(self, tabular):
        self.tabular = tabular

    def action_probabilities(self, state, player):
        return self.tabular.action_probabilities(state, player)


@pytest.mark.parametrize("n,order", CASES, ids=IDS)
def test_uniform_agrees_with_openspiel(n, order):
    game = ImperfectGame.parse(n, order, "points")
    theirs = exploitability.nash_conv(
        turn_based(game), openspiel_policy.UniformRandomPolicy(turn_based(game))
    )
    ours = nash_conv(game, uniform_policy(game), "float")
    assert abs(ours.value - theirs) <= AGREEMENT
    assert ours.error_bound < AGREEMENT


@pytest.mark.parametrize("n,order", CASES, ids=IDS)
def test_random_policies_agree_with_openspiel(n, order):
    for objective, seed in (("points", n), ("win", 100 + n)):
        game = ImperfectGame.parse(n, order, objective)
        theirs_game = turn_based(game)
        tabular = random_tabular(theirs_game, seed)
        theirs = exploitability.nash_conv(theirs_game, tabular)
        ours = nash_conv(game, policy_from_openspiel(game, tabular), "float")
        assert abs(ours.value - theirs) <= AGREEMENT, objective
        if n <= 3:  # the same policy asked state by state, and exactly
            asked = policy_from_openspiel(game, Asked(tabular))
            assert nash_conv(game, asked, "float").value == ours.value
            exact = nash_conv(game, asked, "rational")
            assert abs(exact.value - Fraction(ours.value)) <= ours.error_bound


def test_hand_derived_two_cards():
    """N = 2, descending, uniform.  Prize 2 first; each bids 1 or 2 (1/2 each), the last
    round plays itself.  P0's 2 against 1 wins 2 and loses 1 (difference +1), 1 against 2
    the opposite (-1), a tie ties twice (0).  points (half the difference): bidding 2,
    P0 gets 1/2 * 1/2 + 1/2 * 0 = 1/4, bidding 1, -1/4; so P0's best response is worth
    1/4, P1's too by symmetry, and NashConv = 1/2.  win (the sign): 1/2 * 1 = 1/2 each,
    NashConv = 1."""
    for objective, expected in (("points", Fraction(1, 2)), ("win", Fraction(1))):
        game = ImperfectGame.parse(2, "descending", objective)
        result = nash_conv(game, uniform_policy(game), "rational")
        assert result.value == expected
        assert result.best_responses == (expected / 2, expected / 2)


def test_exact_policy_file_equals_uniform():
    """A file giving every bid "1/k" is the uniform policy, exactly; as floats it is
    within the float path's bound."""
    game = ImperfectGame.parse(3, "random")
    data, floats = {}, {}
    for player in (0, 1):
        for info in game.information_states(player):
            k = len(info.legal)
            data[info.string] = {str(a): f"1/{k}" for a in info.legal}
            floats[info.string] = {str(a): 1 / k for a in info.legal}
    uniform = nash_conv(game, uniform_policy(game), "rational").value
    assert nash_conv(game, policy_from_json(game, data), "rational").value == uniform
    result = nash_conv(game, policy_from_json(game, floats), "float")
    assert abs(Fraction(result.value) - uniform) <= result.error_bound


def _one_state(game, player=0):
    info = next(iter(game.information_states(player)))
    k = len(info.legal)
    return info, {info.string: {str(a): f"1/{k}" for a in info.legal}}


@pytest.mark.parametrize(
    "edit,words",
    [
        (lambda d, s: d.update({"Current player: 0\nnonsense": {"0": 1}}), "is not a decision"),
        (lambda d, s: d[s].update({"7": 0}), "action 7 is not a legal bid"),
        (lambda d, s: d[s].update({"x": 0}), "is not an action id"),
        (lambda d, s: d[s].update({"0": "1/2"}), "sum to 1.1666666666666667, not exactly 1"),
        (lambda d, s: d[s].update({"0": 0.3333}), "not within 1e-09 1"),
        (lambda d, s: d[s].update({"0": -0.5}), "is negative"),
        (lambda d, s: d[s].update({"0": "a/b"}), "is not a number"),
        (lambda d, s: d[s].update({"0": True}), "is not a number"),
    ],
)
def test_bad_policy_files_are_one_line_errors(edit, words):
    game = ImperfectGame.parse(3, "descending")
    info, data = _one_state(game)
    edit(data, info.string)
    with pytest.raises(GopsInputError, match=words) as raised:
        policy_from_json(game, data, fill_uniform=True)
    assert "\n" not in str(raised.value)


def test_float_probabilities_within_tolerance_are_accepted():
    game = ImperfectGame.parse(3, "descending")
    info, data = _one_state(game)
    data[info.string] = {str(a): 1 / 3 for a in info.legal}  # sums to 1 - 1.1e-16
    policy_from_json(game, data, fill_uniform=True)


def test_missing_state_is_named_unless_filled(tmp_path):
    game = ImperfectGame.parse(3, "descending")
    info, data = _one_state(game)
    with pytest.raises(GopsInputError, match="the policy has no state") as raised:
        policy_from_json(game, data)
    assert "\n" not in str(raised.value) and "Current player: 0\\nP0 hand: 2 3" in str(raised.value)
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(data))
    filled = load_policy_file(game, path, fill_uniform=True)
    uniform = nash_conv(game, uniform_policy(game), "rational").value
    assert nash_conv(game, filled, "rational").value == uniform


def test_unreadable_policy_files(tmp_path):
    game = ImperfectGame.parse(3, "descending")
    with pytest.raises(GopsInputError, match="cannot read the policy file"):
        load_policy_file(game, tmp_path / "absent.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(GopsInputError, match="is not JSON"):
        load_policy_file(game, tmp_path / "bad.json")
    (tmp_path / "list.json").write_text("[]")
    with pytest.raises(GopsInputError, match="a policy file is a JSON object"):
        load_policy_file(game, tmp_path / "list.json")


def exact_random_policy(game, seed):
    """A policy file of seeded random exact probabilities ("p/q"), about a quarter of the
    bids at probability 0 (so that whole branches carry no reach)."""
    rng = random.Random(seed)
    data = {}
    for player in (0, 1):
        for info in game.information_states(player):
            weights = [0 if rng.random() < 0.25 else rng.randint(1, 9) for _ in info.legal]
            if not any(weights):
                weights[rng.randrange(len(weights))] = 1
            total = sum(weights)
            data[info.string] = {str(a): f"{w}/{total}" for a, w in zip(info.legal, weights)}
    return policy_from_json(game, data)


FAST_CASES = [
    (n, order, objective)
    for n in (1, 2, 3, 4)
    for order in ORDERS
    for objective in ("points", "win")
    if n > 1 or order == "random"
]


@pytest.mark.parametrize(
    "n,order,objective", FAST_CASES, ids=[f"{n}-{o}-{obj}" for n, o, obj in FAST_CASES]
)
def test_float_tables_within_their_bound_of_the_exact_nashconv(n, order, objective):
    """The numba tables (the float default) against the exact recursion, both players'
    best responses, on seeded random exact policies: within the stated a-priori bound,
    itself below the agreement target."""
    game = ImperfectGame.parse(n, order, objective)
    for seed in (0, 1):
        policy = exact_random_policy(game, 1000 * n + 10 * seed + len(order))
        fast = nash_conv(game, policy, "float")
        exact = nash_conv(game, policy, "rational")
        assert fast.error_bound < AGREEMENT
        assert abs(Fraction(fast.value) - exact.value) <= fast.error_bound
        for ours, truth in zip(fast.best_responses, exact.best_responses):
            assert abs(Fraction(ours) - truth) <= fast.error_bound


def test_float_tables_agree_with_the_float_recursion_at_five_cards():
    """N = 5 descending (too slow for the exact recursion in a test): the tables and the
    plain float recursion, each within its own bound of the same exact value."""
    game = ImperfectGame.parse(5, "descending", "win")
    policy = exact_random_policy(game, 5)
    fast = nash_conv(game, policy, "float")
    walked = sum(best_response_value(game, policy, p, exact=False) for p in (0, 1))
    assert abs(fast.value - walked) <= fast.error_bound + float_error_bound(game, walked)


@pytest.mark.parametrize("order", ORDERS)
def test_table_rows_number_the_decisions_one_to_one(order):
    """Every decision of both players has a row of its own round, and no two decisions
    of a player share one (a shared row would mix two information sets' values)."""
    game = ImperfectGame.parse(4, order)
    where = layout(game)
    for player in (0, 1):
        rows = {}
        for info in game.information_states(player):
            row = where.row(info.key)
            r = len(info.key[1])
            assert where.offsets[r] <= row < where.offsets[r + 1]
            assert rows.setdefault(row, info.key) == info.key
        assert len(rows) == sum(1 for _ in game.information_states(player))


def test_tables_beyond_the_memory_limit_are_a_one_line_error():
    game = ImperfectGame.parse(7, "random")
    with pytest.raises(GopsInputError, match=r"would need \d+\.\d GiB") as raised:
        nash_conv(game, uniform_policy(game))
    assert "\n" not in str(raised.value)
