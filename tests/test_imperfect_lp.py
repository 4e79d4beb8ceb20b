"""exact.imperfect.sequence_form and exact_lp: the sequence form (Koller, Megiddo & von
Stengel 1996) of imperfect-information goofspiel, piece by piece on hand-checked
2-card games, and its LP's exact equilibria, checked by our exact best responses
(NashConv exactly 0) and by OpenSpiel's own ``exploitability.nash_conv``."""

import json
import os
import random
from fractions import Fraction

import pytest
from click.testing import CliRunner

from exact.cli import main
from exact.errors import SolverError
from exact.imperfect.exact_lp import (
    basis_rows,
    best_response_value,
    plan_policy,
    solve,
    solve_exactly,
    verify,
)
from exact.imperfect.game import ImperfectGame
from exact.imperfect.nashconv import best_response_value as nashconv_best_response
from exact.imperfect.nashconv import nash_conv
from exact.imperfect.policy import Policy, uniform_policy
from exact.imperfect.sequence_form import (
    get_payoff,
    get_sequences,
    parent_sequence,
    sequence_form,
)

#: OpenSpiel's float NashConv of our exact equilibrium (the brief's bound).
OPENSPIEL_TOLERANCE = 1e-12

ORDERS = ("random", "descending", "ascending")


def two_random():
    return ImperfectGame.parse(2, "random", "points")


# --- the pieces, on the 2-card game with a random order (hand-checked) --------------------
# Chance deals prize 1 or 2 (1/2 each); each player then bids 1 or 2 knowing the prize; the
# other cards play themselves.  Prize 1 first, P0 bids 1, P1 bids 2: P1 wins 1, P0 wins 2,
# P0's return (2 - 1)/2 = 1/2, times 1/2.  Prize 2 first, the same bids: -1/2, times 1/2.


def test_parent_sequence_reads_the_previous_decision_off_the_key():
    assert parent_sequence(((3,), (), ())) == ()
    assert parent_sequence(((3, 2), (1,), (1,))) == (((3,), (), ()), 1)
    assert parent_sequence(((1, 3, 2), (2, 3), (-3, 0))) == (((1, 3), (2,), (-3,)), 3)


def test_sequences_of_the_two_card_random_game():
    seqs = get_sequences(two_random(), 0)
    assert seqs.index == {
        (): 0,
        (((1,), (), ()), 1): 1,
        (((1,), (), ()), 2): 2,
        (((2,), (), ()), 1): 3,
        (((2,), (), ()), 2): 4,
    }
    assert seqs.parents == (0, 0) and seqs.first == (1, 3)


def test_realization_plan_constraints_of_the_two_card_random_game():
    rows, rhs = get_sequences(two_random(), 1).constraints()
    assert rows == [{0: 1}, {0: -1, 1: 1, 2: 1}, {0: -1, 3: 1, 4: 1}]
    assert rhs == [1, 0, 0]


@pytest.mark.parametrize(
    "objective, quarter",
    [("points", Fraction(1, 4)), ("win", Fraction(1, 2))],
    ids=["points", "win"],
)
def test_payoff_of_the_two_card_random_game(objective, quarter):
    game = ImperfectGame.parse(2, "random", objective)
    payoff = get_payoff(game, get_sequences(game, 0), get_sequences(game, 1))
    assert payoff == {(1, 2): quarter, (2, 1): -quarter, (3, 4): -quarter, (4, 3): quarter}


def test_payoff_of_the_three_card_descending_game_by_hand():
    """Prizes 3, 2, 1.  P0 bids 3 then 1, P1 bids 1 then 3: P0 wins the 3, P1 the 2, the
    2s left tie on the 1: (3 - 2)/2, at the pair of second bids (P0 saw a win)."""
    form = sequence_form(ImperfectGame.parse(3, "descending", "points"))
    s0 = form.players[0].index[((3, 2), (3,), (0,)), 1]
    s1 = form.players[1].index[((3, 2), (1,), (0,)), 3]
    assert form.payoff[s0, s1] == Fraction(1, 2)


def random_policy(game, seed) -> Policy:
    """Exact random behaviour strategies (some bids at probability 0)."""
    rng = random.Random(seed)
    tables: tuple[dict, dict] = ({}, {})
    for player in (0, 1):
        for info in game.information_states(player):
            weights = [rng.choice((0, 1, 2, 5)) for _ in info.legal]
            weights[0] += sum(weights) == 0
            total = sum(weights)
            tables[player][info.key] = tuple(
                (a + 1, Fraction(w, total)) for a, w in zip(info.legal, weights)
            )
    return Policy(game, "random", tables)


def plans_of(form, policy):
    """The realization plans of a behaviour policy: x[I a] = x[parent(I)] p(a | I)."""
    plans = []
    for player, seqs in enumerate(form.players):
        plan = [Fraction(0)] * seqs.size
        plan[0] = Fraction(1)
        for k, decision in enumerate(seqs.decisions):
            for j, (_, p) in enumerate(policy.probabilities(player, decision.key)):
                plan[seqs.first[k] + j] = plan[seqs.parents[k]] * p
        plans.append(plan)
    return plans


def tree_value(state, policy):
    """Player 0's expected return by walking the turn-based tree itself."""
    if state.is_terminal():
        return state.returns()[0]
    if state.is_chance_node():
        return sum(p * tree_value(state.child(a), policy) for a, p in state.chance_outcomes())
    player = state.current_player()
    key = state.information_key(player)
    return sum(
        p * tree_value(state.child(card - 1), policy)
        for card, p in policy.probabilities(player, key)
        if p
    )


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("objective", ("points", "win"))
def test_x_A_y_is_the_expected_return_of_the_tree(order, objective):
    """Koller et al. 1996: x^T A y equals the expected payoff of the behaviour
    strategies, here against a walk of the turn-based tree, exactly."""
    game = ImperfectGame.parse(3, order, objective)
    form = sequence_form(game)
    for seed in range(3):
        policy = random_policy(game, seed)
        x, y = plans_of(form, policy)
        assert form.expected_return(x, y) == tree_value(game.initial_state(), policy)


def test_sequence_form_best_responses_agree_with_nashconv():
    """Our backward induction over sequences against nashconv's over information states."""
    game = ImperfectGame.parse(3, "random", "points")
    form = sequence_form(game)
    policy = random_policy(game, 7)
    x, y = plans_of(form, policy)
    assert best_response_value(form, y, 0) == nashconv_best_response(game, policy, 0)
    assert best_response_value(form, x, 1) == -nashconv_best_response(game, policy, 1)


# --- the exact LP ----------------------------------------------------------------------


def test_two_card_random_equilibrium_by_hand():
    """Whatever the prize, bidding 1 on prize 1 and 2 on prize 2 strictly dominates: the
    unique equilibrium plans are [1, 1, 0, 0, 1] for both, value 0."""
    equilibrium = solve(two_random())
    assert equilibrium.plans == ([1, 1, 0, 0, 1], [1, 1, 0, 0, 1])
    assert equilibrium.value == 0


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("objective", ("points", "win"))
def test_three_card_exact_equilibrium(order, objective):
    """Value 0 (the game is symmetric); NashConv exactly 0 by the exact best responses."""
    game = ImperfectGame.parse(3, order, objective)
    equilibrium = solve(game)
    assert equilibrium.value == 0
    result = nash_conv(game, equilibrium.policy, "rational")
    assert result.value == 0 and result.best_responses == (0, 0)


def test_verify_detects_a_non_equilibrium():
    """verify: a feasible but non-equilibrium pair shows its duality gap; a plan off its
    polytope is refused."""
    game = ImperfectGame.parse(3, "random", "points")
    form = sequence_form(game)
    x, y = solve(game).plans
    ux, _ = plans_of(form, uniform_policy(game))
    with pytest.raises(SolverError, match="duality gap"):
        verify(form, ux, y)
    broken = list(x)
    broken[0] = Fraction(2)
    with pytest.raises(SolverError, match="realization-plan constraint"):
        verify(form, broken, y)
    negative = list(y)
    negative[1] = Fraction(-1)
    with pytest.raises(SolverError, match="negative"):
        verify(form, x, negative)


def test_singular_basis_is_refused_not_guessed():
    rows = [{0: Fraction(1), 1: Fraction(1)}, {0: Fraction(2), 1: Fraction(2)}]
    with pytest.raises(SolverError, match="rank 1, not 2"):
        basis_rows(rows, [0, 1])
    with pytest.raises(SolverError, match="singular"):
        solve_exactly(rows, [Fraction(1), Fraction(2)], [0, 1])


def test_plan_policy_is_uniform_where_own_bids_never_reach():
    game = two_random()
    form = sequence_form(game)
    plans = ([Fraction(1), Fraction(1), Fraction(0), Fraction(0), Fraction(1)],) * 2
    policy = plan_policy(form, plans)
    assert policy.probabilities(0, ((1,), (), ())) == ((1, Fraction(1)), (2, Fraction(0)))
    three = ImperfectGame.parse(3, "descending", "points")
    form3 = sequence_form(three)
    x, y = solve(three).plans
    unreached = [
        d for k, d in enumerate(form3.players[0].decisions) if x[form3.players[0].parents[k]] == 0
    ]
    assert unreached
    for decision in unreached:
        k = len(decision.legal)
        assert plan_policy(form3, (x, y)).probabilities(0, decision.key) == tuple(
            (a + 1, Fraction(1, k)) for a in decision.legal
        )


# --- the command, and OpenSpiel's judgement of the policy file ---------------------------


def solve_to_file(tmp_path, n, order, objective="points"):
    out = tmp_path / f"eq{n}{order}.json"
    result = CliRunner().invoke(
        main,
        ["imperfect", "solve", str(n), "--order", order, "--objective", objective,
         "--method", "exact", "--policy-out", str(out), "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return json.loads(result.output), out


def test_solve_command_policy_is_exactly_an_equilibrium(tmp_path):
    answer, out = solve_to_file(tmp_path, 3, "random")
    assert answer["value"] == "0" and answer["sizes"]["sequences"] == [94, 94]
    data = json.loads(out.read_text())
    assert all("/" in p for row in data.values() for p in row.values())
    result = CliRunner().invoke(
        main, ["imperfect", "nashconv", str(out), "--n", "3", "--rational", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["nash_conv"] == "0"


@pytest.mark.parametrize(
    "args, message",
    [
        (["6", "--order", "random", "--recompute"], "N must be at most 5 for gops imperfect"),
        (["7", "--order", "descending", "--method", "exact"], "N = 7 has 716,794 sequences"),
        (["0"], "N must be"),
        (["3", "--objective", "lead"], "lead"),
    ],
    ids=["6-random", "7-descending", "zero", "objective"],
)
def test_solve_command_refusals(args, message):
    result = CliRunner().invoke(main, ["imperfect", "solve", *args])
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1


def test_solve_command_refuses_a_fifo_before_solving(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result = CliRunner().invoke(main, ["imperfect", "solve", "3", "--policy-out", str(fifo)])
    assert result.exit_code == 2 and "(a FIFO); nothing was written" in result.output


@pytest.mark.parametrize(
    "n, order",
    [(3, "random"), (3, "descending"), (4, "descending")],
    ids=["3-random", "3-descending", "4-descending"],
)
def test_openspiel_nash_conv_of_the_written_policy(tmp_path, n, order):
    """OpenSpiel's own exploitability.nash_conv of our policy file, loaded into a
    TabularPolicy of its turn-based goofspiel(imp_info=True)."""
    pyspiel = pytest.importorskip("pyspiel")
    exploitability = pytest.importorskip("open_spiel.python.algorithms.exploitability")
    openspiel_policy = pytest.importorskip("open_spiel.python.policy")
    _, out = solve_to_file(tmp_path, n, order)
    game = ImperfectGame.parse(n, order, "points")
    turn_based = pyspiel.convert_to_turn_based(
        pyspiel.load_game("goofspiel", game.openspiel_parameters())
    )
    tabular = openspiel_policy.TabularPolicy(turn_based)
    data = json.loads(out.read_text())
    covered = 0
    for string, row in tabular.state_lookup.items():
        if string in data:
            covered += 1
            for action, p in data[string].items():
                tabular.action_probability_array[row, int(action)] = float(Fraction(p))
    assert covered == len(data)
    assert exploitability.nash_conv(turn_based, tabular) < OPENSPIEL_TOLERANCE


@pytest.mark.slow
@pytest.mark.parametrize(
    "n, order, objective",
    [(4, "ascending", "points"), (4, "random", "points"), (5, "descending", "points"),
     (5, "ascending", "win")],
    ids=["4-ascending", "4-random", "5-descending", "5-ascending-win"],
)  # fmt: skip
def test_larger_exact_equilibria(n, order, objective):
    game = ImperfectGame.parse(n, order, objective)
    equilibrium = solve(game)
    assert equilibrium.value == 0
    assert nash_conv(game, equilibrium.policy, "rational").value == 0
