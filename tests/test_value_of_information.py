"""The asymmetric information models of imperfect-information Goofspiel and the value of
seeing the bids (exact.imperfect.value_of_information), against independent references:

- a seeing player's information-state string, written out by hand;
- best responses against a fixed mixed opponent, by brute force over the responder's
  pure strategies, each defined here from what the responder sees (N = 3, fixed orders);
- with both players seeing the bids the game is the perfect-information game: every
  history that the LP's equilibrium reaches has the continuation value that exact.solve
  (rational) gives that position (N = 3 every order, N = 4 fixed orders);
- seeing can only help, and it helps either player alike (N = 4 descending).
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

import exact
from exact.cli import main
from exact.errors import GopsInputError
from exact.imperfect.exact_lp import best_response_value
from exact.imperfect.exact_lp import solve as solve_lp
from exact.imperfect.game import TIE, ImperfectGame
from exact.imperfect.sequence_form import sequence_form
from exact.imperfect.value_of_information import (
    total_variation,
    value_bounds,
    value_of_information,
)

MODELS = ("imp_info", "p0-sees-bids", "p1-sees-bids", "both-see-bids")
#: How wide the float LP's proven interval may be at N = 4 (HiGHS solves to about 1e-9).
BOUND_WIDTH = Fraction(1, 10**8)


def test_a_seeing_players_string_shows_the_opponents_bids():
    """P0 bids 2 and P1 bids 3 for the prize 3 (P1 wins it); the prize 2 is up next."""
    game = ImperfectGame.parse(3, "descending", "points", "p0-sees-bids")
    state = game.initial_state().child(1).child(2)
    assert state.information_state_string(0) == (
        "Current player: 0\n"
        "P0 hand: 1 3 \n"
        "P0 action sequence: 1 \n"
        "Opponent action sequence: 2 \n"
        "Point card sequence: 3 2 \n"
        "Win sequence: 1 \n"
        "Points: 0 3 \n"
        "Terminal?: 0\n"
    )
    assert "Opponent" not in state.information_state_string(1)  # P1 does not see
    assert state.information_key(0) == ((3, 2), (2,), (3,))
    assert state.information_key(1) == ((3, 2), (3,), (1,))  # the winner, P1


def test_unknown_information_model_is_one_line():
    with pytest.raises(GopsInputError, match="unknown information model 'p2'"):
        ImperfectGame.parse(3, "random", "points", "p2")


# -- best responses by brute force -----------------------------------------------------


def winner(bid0: int, bid1: int) -> int:
    return 0 if bid0 > bid1 else 1 if bid1 > bid0 else TIE


def seen(sees: bool, me: int, mine: int, theirs: int) -> int:
    """What player ``me`` sees of a round: the opponent's bid, or the winner."""
    if sees:
        return theirs
    return winner(mine, theirs) if me == 0 else winner(theirs, mine)


def opponent_mix(prizes, own, observed) -> dict[int, Fraction]:
    """A fixed mix of the opponent at its decision, by weights: the card itself in round
    1; then the card squared after a first bid of 2, else 4 - card (so that what the
    opponent bid first tells what it bids next)."""
    hand = sorted(set(range(1, 4)) - set(own))
    if not own:
        weights = {c: c for c in hand}
    else:
        weights = {c: c * c if own[0] == 2 else 4 - c for c in hand}
    total = sum(weights.values())
    return {c: Fraction(w, total) for c, w in weights.items()}


def brute_force_best_response(order: str, sees: tuple[bool, bool], responder: int) -> Fraction:
    """Player 0's return (points) when ``responder`` plays its best pure strategy against
    opponent_mix, in 3-card goofspiel: a pure strategy is a first bid and a second bid
    for each thing the responder may see of round 1 (the third round plays itself)."""
    prizes = (3, 2, 1) if order == "descending" else (1, 2, 3)
    cards = (1, 2, 3)
    other = 1 - responder
    best = None
    for first in cards:
        sights = sorted({seen(sees[responder], responder, first, c) for c in cards})
        left = [c for c in cards if c != first]
        for choice in itertools.product(left, repeat=len(sights)):
            second = dict(zip(sights, choice))
            total = Fraction(0)
            for c1, p1 in opponent_mix(prizes[:1], (), ()).items():
                mine2 = second[seen(sees[responder], responder, first, c1)]
                theirs_seen = (seen(sees[other], other, c1, first),)
                for c2, p2 in opponent_mix(prizes[:2], (c1,), theirs_seen).items():
                    mine = (first, mine2, 6 - first - mine2)
                    theirs = (c1, c2, 6 - c1 - c2)
                    bids0, bids1 = (mine, theirs) if responder == 0 else (theirs, mine)
                    score = sum(
                        prize * ((b0 > b1) - (b1 > b0))
                        for prize, b0, b1 in zip(prizes, bids0, bids1)
                    )
                    total += p1 * p2 * Fraction(score, 2)
            better = best is None or (total > best if responder == 0 else total < best)
            best = total if better else best
    assert best is not None
    return best


def opponent_plan(form, player: int) -> list[Fraction]:
    """opponent_mix as a realization plan of ``player`` in the sequence form."""
    seqs = form.players[player]
    plan = [Fraction(0)] * seqs.size
    plan[0] = Fraction(1)
    for k, decision in enumerate(seqs.decisions):
        prizes, own, observed = decision.key
        mix = opponent_mix(prizes, own, observed)
        for j, action in enumerate(decision.legal):
            plan[seqs.first[k] + j] = plan[seqs.parents[k]] * mix[action + 1]
    return plan


@pytest.mark.parametrize("order", ["descending", "ascending"])
@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("responder", [0, 1])
def test_best_responses_match_brute_force(order, model, responder):
    game = ImperfectGame.parse(3, order, "points", model)
    form = sequence_form(game)
    plan = opponent_plan(form, 1 - responder)
    expected = brute_force_best_response(order, game.information.sees_bids, responder)
    assert best_response_value(form, plan, responder) == expected


@pytest.mark.parametrize("order", ["descending", "ascending"])
def test_seeing_the_bids_is_worth_something_against_a_fixed_opponent(order):
    """The reference itself tells the models apart (else the test above proves little)."""
    assert brute_force_best_response(order, (True, False), 0) > brute_force_best_response(
        order, (False, False), 0
    )
    assert brute_force_best_response(order, (False, True), 1) < brute_force_best_response(
        order, (False, False), 1
    )


# -- both players see the bids: the perfect-information game ---------------------------


def continuation_values(state, policy, reach, found):
    """Expected return of player 0 from ``state`` under ``policy``; for every decision of
    player 0 reached with positive probability, (state, value) appended to ``found``."""
    if state.is_terminal():
        return state.returns()[0]
    if state.is_chance_node():
        return sum(
            p * continuation_values(state.child(a), policy, reach * p, found)
            for a, p in state.chance_outcomes()
        )
    player = state.current_player()
    mix = policy.probabilities(player, state.information_key(player))
    value = sum(
        (
            p * continuation_values(state.child(card - 1), policy, reach * p, found)
            for card, p in mix
            if p
        ),
        Fraction(0),
    )
    if player == 0 and reach > 0:
        found.append((state, value))
    return value


@pytest.mark.parametrize(
    ("n", "order", "objective"),
    [
        (3, "random", "points"),
        (3, "random", "win"),
        (3, "descending", "points"),
        (3, "ascending", "win"),
        (4, "descending", "points"),
        (4, "descending", "win"),
        (4, "ascending", "points"),
    ],
)
def test_both_seeing_is_the_perfect_information_game(n, order, objective):
    """Every position the LP's equilibrium reaches has exact.solve's value: player 0's
    return is half the point difference (points) or the sign of it (win)."""
    game = ImperfectGame.parse(n, order, objective, "both-see-bids")
    equilibrium = solve_lp(game)
    found: list = []
    root = continuation_values(game.initial_state(), equilibrium.policy, Fraction(1), found)
    assert root == equilibrium.value
    perfect = exact.solve(n, objective, "rational", order=order)
    cards = set(range(1, n + 1))
    assert len(found) >= n - 1  # a decision of every round but the last, at least
    for state, value in found:
        p0 = sum(u for u, a, b in zip(state.prizes, state.bids0, state.bids1) if a > b)
        p1 = sum(u for u, a, b in zip(state.prizes, state.bids0, state.bids1) if b > a)
        *played, upcard = state.prizes
        mine, theirs, deck = cards - set(state.bids0), cards - set(state.bids1), cards - set(played)
        if objective == "points":
            f = perfect.prize_values(mine, theirs, deck)[upcard]
            assert value == Fraction(p0 - p1 + f, 2)
        else:
            assert value == perfect.prize_values(mine, theirs, deck, lead=p0 - p1)[upcard]


# -- the value of seeing ---------------------------------------------------------------


def test_seeing_helps_either_player_alike_and_the_bounds_hold():
    """At N = 4 ascending seeing is worth something: the value is not 0 on either side,
    so the symmetry is a real check; the float bounds enclose each exact value."""
    result = value_of_information(4, "ascending", "points")
    values = result.values
    assert values["imp_info"] == 0  # the players are symmetric
    assert values["p0-sees-bids"] >= values["imp_info"] >= values["p1-sees-bids"]
    assert result.symmetric and values["p1-sees-bids"] == -values["p0-sees-bids"]
    assert result.value_of_seeing == values["p0-sees-bids"]
    for move in result.first_moves:
        assert move.upcard == 1
        assert sum(move.perfect.values()) == sum(move.seeing.values()) == 1
    for model, value in values.items():
        lower, upper = value_bounds(ImperfectGame.parse(4, "ascending", "points", model))
        assert lower <= value <= upper
        assert upper - lower < BOUND_WIDTH


def test_total_variation_by_hand():
    p = {1: Fraction(1, 2), 2: Fraction(1, 2)}
    q = {2: Fraction(1, 4), 3: Fraction(3, 4)}
    assert total_variation(p, q) == Fraction(3, 4)  # (1/2 + 1/4 + 3/4) / 2
    assert total_variation(p, p) == 0


def test_cli_json_and_refusal():
    runner = CliRunner()
    result = runner.invoke(
        main, ["imperfect", "value-of-information", "3", "--order", "ascending", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["values"] == {"imp_info": "0", "p0-sees-bids": "0", "p1-sees-bids": "0"}
    assert [m["upcard"] for m in data["first_moves"]] == [1]
    refused = runner.invoke(
        main, ["imperfect", "value-of-information", "6", "--order", "descending"]
    )
    assert refused.exit_code == 2
    assert len(refused.stderr.strip().splitlines()) == 1 and "306,187" in refused.stderr
    bounded = runner.invoke(
        main, ["imperfect", "value-of-information", "3", "--bounds", "--json", "--quiet"]
    )
    assert bounded.exit_code == 0, bounded.output
    for lower, upper in json.loads(bounded.stdout)["values"].values():
        assert Fraction(lower) <= 0 <= Fraction(upper)  # every 3-card random value is 0
