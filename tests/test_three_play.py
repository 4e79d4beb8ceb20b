"""Three-player GOPS against the equilibrium: the computer player, gops play, exact
evaluation of bots (exact.play.three) and tournaments.

References independent of the code under test: the rules of the "Psychological JuJitsu"
write-up scored by hand (a unique high bid takes the prize, a three-way tie discards it,
a two-way tie splits it under ``three`` and goes to the third player under
``three-third``), hand-derived games of deterministic bots, and the certified NashConv
walk of exact.three.nashconv (its own recursion over actual positions).
"""

import json
import re
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from exact.cli import main
from exact.errors import GopsInputError
from exact.game.variants import VariantPosition, get_variant
from exact.play.three import (
    EQUILIBRIUM_MAX_N,
    EquilibriumBot,
    computer_players,
    evaluate_three,
    three_solution,
)
from exact.play.tournament import check_tournament_options, three_player_tournament
from exact.three.nashconv import nashconv
from exact.three.rules import ThreeGame

ROUND_LINE = re.compile(r"Round (\d+) of (\d+): the (\d+) is up\.")
BID_LINE = re.compile(r"You bid (\d+), computer 1 bid (\d+), computer 2 bid (\d+): (.*)\.")
FINAL_LINE = re.compile(
    r"Final score: you ([\d.]+) \(.*\), computer 1 ([\d.]+) \(.*\), "
    r"computer 2 ([\d.]+) \(.*\)\. (.*)\."
)
MIX_LINE = re.compile(r"  computer (\d)'s mix was  (.*)")
#: The certified NashConv the equilibrium is solved to (exact.three's target).
NASHCONV_TARGET = 1e-9
#: Float agreement of two computations of one float policy's value.
VALUE_TOL = 1e-12


def hand_points(prize, bids, variant):
    """One round scored by the write-up's rules, written out."""
    top = max(bids)
    high = [b == top for b in bids]
    if sum(high) == 1:
        return [Fraction(prize) * h for h in high]
    if sum(high) == 3:
        return [Fraction(0)] * 3
    if variant == "three":
        return [Fraction(prize, 2) * h for h in high]
    return [Fraction(prize) * (not h) for h in high]


# -- the terminal game ----------------------------------------------------------------------


@pytest.mark.parametrize("variant, seed", [("three", 5), ("three-third", 11)])
def test_a_terminal_game_against_two_equilibrium_computers(variant, seed):
    result = CliRunner().invoke(
        main, ["play", "3", "--variant", variant, "--seed", str(seed), "--reveal"], input="3\n1\n"
    )
    out = result.output
    assert result.exit_code == 0, out
    assert "computer 1 (equilibrium) and computer 2 (equilibrium)" in out
    assert "heuristic" not in out
    prizes = [int(m.group(3)) for m in ROUND_LINE.finditer(out)]
    rounds = BID_LINE.findall(out)
    assert sorted(prizes) == [1, 2, 3] and len(rounds) == 3
    assert [int(r[0]) for r in rounds] == [3, 1, 2]  # yours; the last played itself
    for seat in (1, 2):
        assert sorted(int(r[seat]) for r in rounds) == [1, 2, 3]  # each card once
    # Each computer bid a card its revealed mix gives a positive probability.
    mixes = MIX_LINE.findall(out)
    assert len(mixes) == 6
    for k, (who, shown) in enumerate(mixes):
        support = {int(c) for c, p in re.findall(r"(\d+): ([\d.]+)", shown) if float(p) > 0}
        assert int(rounds[k // 2][int(who)]) in support
    totals = [Fraction(0)] * 3
    for prize, r in zip(prizes, rounds):
        got = hand_points(prize, [int(x) for x in r[:3]], variant)
        totals = [t + g for t, g in zip(totals, got)]
    final = FINAL_LINE.search(out)
    assert final and [Fraction(final.group(i)) for i in (1, 2, 3)] == totals
    leaders = [i for i, t in enumerate(totals) if t == max(totals)]
    want = (
        "A tie for the most points"
        if len(leaders) > 1
        else ["You win", "Computer 1 wins", "Computer 2 wins"][leaders[0]]
    )
    assert final.group(4) == want


def test_beyond_the_solved_n_the_heuristic_plays_and_says_so():
    result = CliRunner().invoke(
        main, ["play", str(EQUILIBRIUM_MAX_N + 1), "--variant", "three", "--seed", "1"], input=""
    )
    assert result.exit_code == 0, result.output
    assert "computer 1 (upcard+1) and computer 2 (upcard)" in result.output
    n = EQUILIBRIUM_MAX_N + 1
    assert (
        f"The three-player equilibrium is solved on the fly for N <= {EQUILIBRIUM_MAX_N} "
        f"only, and no saved solution holds N = {n} (gops solve {n} --players 3 --tie-rule "
        "split --save): the computers play the heuristic bots upcard+1 and upcard." in result.output
    )


def test_the_equilibrium_named_beyond_its_n_is_one_line():
    result = CliRunner().invoke(
        main, ["play", "5", "--variant", "three", "--opponents", "equilibrium,upcard"], input=""
    )
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "between 1 and 4 for the three-player equilibrium" in result.output


# -- the computer player --------------------------------------------------------------------


@pytest.mark.parametrize("variant, rule", [("three", "split"), ("three-third", "third")])
def test_the_bot_as_a_policy_is_a_certified_equilibrium(variant, rule):
    """The bot's mixes at actual positions (any seat, any hands) make a profile whose
    NashConv, by the independent walk of exact.three.nashconv, is certified below the
    target: a seat or a card mapped wrong, or the other tie rule's solution, fails."""
    bot = EquilibriumBot(three_solution(3, variant))
    rules = get_variant(variant)

    def policy(hands, prizes, points, upcard):
        pos = VariantPosition(
            rules, 3, tuple(map(frozenset, hands)), frozenset(prizes), upcard, points
        )
        return [np.array([bot.mix(pos, i)[c] for c in hands[i]]) for i in range(3)]

    report = nashconv(ThreeGame.parse(3, rule), policy)
    assert report.bound < NASHCONV_TARGET


def test_the_bot_refuses_another_game():
    bot = EquilibriumBot(three_solution(2, "three"))
    pos = VariantPosition(
        get_variant("three"), 3, (frozenset({1}),) * 3, frozenset({1}), 1, (Fraction(0),) * 3
    )
    with pytest.raises(GopsInputError, match="built for three players and N=2"):
        bot.mix(pos, 0)


def test_computer_players_default_and_fallback():
    bots, note = computer_players(2, get_variant("three-third"))
    assert [b.name for b in bots] == ["equilibrium", "equilibrium"] and note is None
    bots, note = computer_players(EQUILIBRIUM_MAX_N + 1, get_variant("three"))
    assert [b.name for b in bots] == ["upcard+1", "upcard"] and "heuristic" in note
    with pytest.raises(GopsInputError, match="two-player games only"):
        computer_players(3, get_variant("three"), ["optimal", "random"])
    with pytest.raises(GopsInputError, match="'dummy' is not a three-player variant"):
        computer_players(3, get_variant("dummy"))


# -- exact evaluation ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, variant, bots, points",
    [
        # Everyone bids alike every round: three-way ties discard every prize.
        pytest.param(3, "three", ["lowest"] * 3, (0, 0, 0), id="all-alike"),
        # highest bids 2 on the first prize (mean 3/2) against two 1s; then two 2s tie
        # over its 1 on the second: split, 3/4 each on average; under three-third the
        # second prize goes to highest.
        pytest.param(
            2,
            "three",
            ["highest", "lowest", "lowest"],
            (Fraction(3, 2), Fraction(3, 4), Fraction(3, 4)),
            id="split-2",
        ),
        pytest.param(2, "three-third", ["highest", "lowest", "lowest"], (3, 0, 0), id="third-2"),
        # Three cards, three-third: highest wins round 1 (3 over two 1s), round 2 is a
        # three-way tie of 2s, round 3 two 3s tie over its 1: mean 2 + 2.
        pytest.param(3, "three-third", ["highest", "lowest", "lowest"], (4, 0, 0), id="third-3"),
        # Two cards, upcard (it bids the upcard) against two random bots, by hand: prize
        # order (1, 2): the random bids (1,1) discard both prizes, (2,1) and (1,2) give
        # 1 point to each player, (2,2) gives 2 to upcard and 1/2 to each random bot;
        # order (2, 1) the same totals in the other cases.  Means: 1, 5/8, 5/8.
        pytest.param(
            2,
            "three",
            ["upcard", "random", "random"],
            (1, Fraction(5, 8), Fraction(5, 8)),
            id="upcard-random-2",
        ),
    ],
)
def test_evaluation_against_hand_scored_games(n, variant, bots, points):
    assert evaluate_three(n, variant, bots).points == tuple(Fraction(p) for p in points)


@pytest.mark.parametrize("variant, rule", [("three", "split"), ("three-third", "third")])
def test_evaluation_of_the_equilibrium_and_of_deviations(variant, rule):
    """Three equilibrium players: each seat's exact value agrees with the independent
    walk's float value; a heuristic bot seated instead gains at most the certified
    NashConv (the equilibrium's defining property); seats are interchangeable."""
    sol = three_solution(3, variant)
    report = nashconv(ThreeGame.parse(3, rule), sol.mixes)
    values = evaluate_three(3, variant, ["equilibrium"] * 3).points
    assert max(abs(float(v) - w) for v, w in zip(values, report.values)) < VALUE_TOL
    for bot in ("random", "upcard", "upcard+1", "lowest", "highest"):
        alone = evaluate_three(3, variant, [bot, "equilibrium", "equilibrium"]).points
        assert float(alone[0]) <= report.values[0] + report.bound
        moved = evaluate_three(3, variant, ["equilibrium", bot, "equilibrium"]).points
        assert moved == (alone[1], alone[0], alone[2])


def test_evaluation_takes_the_variant_or_its_name():
    """The Variant handed on (gops evaluate, play) and its name (the Python API's edge)
    give one evaluation.  By hand, 3 cards, tie rule split: highest bids 3 on the first
    prize (mean 2) over two 1s and takes it; round 2 is a three-way tie of 2s (discarded);
    round 3 the two lowest bots' 3s tie over its 1 and split the last prize (mean 2)."""
    three = get_variant("three")
    bots = ["highest", "lowest", "lowest"]
    typed, named = evaluate_three(3, three, bots), evaluate_three(3, "three", bots)
    assert typed.points == named.points == (2, 1, 1)
    assert typed.variant is named.variant is three


def test_evaluation_refuses_bad_input():
    with pytest.raises(GopsInputError, match="seats three bots"):
        evaluate_three(3, "three", ["random", "random"])
    with pytest.raises(GopsInputError, match="not a three-player variant"):
        evaluate_three(3, "dummy", ["random"] * 3)
    with pytest.raises(GopsInputError, match="two-player games only"):
        evaluate_three(3, "three", ["optimal", "random", "random"])


def test_gops_evaluate_three_players():
    result = CliRunner().invoke(
        main,
        ["evaluate", "3", "--variant", "three-third", "--bots", "highest,lowest,lowest", "--json"],
    )
    assert result.exit_code == 0, result.output
    seats = json.loads(result.output)["seats"]
    assert [(s["bot"], s["points"]) for s in seats] == [
        ("highest", "4"),
        ("lowest", "0"),
        ("lowest", "0"),
    ]
    for args, message in (
        (["--bots", "random,lowest"], "seats three bots"),
        (["--bots", "random,lowest,lowest", "--float"], "evaluated exactly"),
    ):
        bad = CliRunner().invoke(main, ["evaluate", "3", "--variant", "three", *args])
        assert bad.exit_code == 2 and message in bad.output and bad.output.count("\n") == 1


# -- tournaments ---------------------------------------------------------------------------


def test_the_equilibrium_in_a_tournament():
    res = three_player_tournament(3, ["equilibrium", "lowest", "highest"], 30, seed=2)
    assert res[0].bots == ("equilibrium", "lowest", "highest")
    assert sum(res[0].wins) + res[0].shared == 30
    with pytest.raises(GopsInputError, match="three-player variants only"):
        check_tournament_options(3, ["equilibrium", "random"], 10)
    with pytest.raises(GopsInputError, match="with the equilibrium bot"):
        check_tournament_options(5, ["equilibrium", "random", "lowest"], 10, "three")
    two = CliRunner().invoke(main, ["evaluate", "3", "--bots", "equilibrium,random"])
    assert two.exit_code == 2 and "three-player variants only" in two.output


def test_play_takes_the_solve_flags_and_every_tie_rule():
    """``gops play N --players 3 --tie-rule R`` is the game ``gops solve N --players 3
    --tie-rule R`` solves, under every rule (discard included: OpenSpiel's), the same game
    as ``--variant three-discard``; ``--variant declarations`` is ``--declarations``."""
    moves = "4\n3\n2\n"
    discard = ["play", "4", "--players", "3", "--tie-rule", "discard", "--seed", "5"]
    played = CliRunner().invoke(main, [*discard, "--reveal"], input=moves)
    assert played.exit_code == 0, played.output
    assert "Any tie for the high bid discards the prize (OpenSpiel's rule)." in played.output
    assert "computer 1 (equilibrium) and computer 2 (equilibrium)" in played.output
    assert "Final score: you " in played.output
    # A tie for the high bid scores for nobody under this rule: every "split" is absent.
    assert " split the " not in played.output
    alias = ["play", "4", "--variant", "three-discard", "--seed", "5", "--reveal"]
    again = CliRunner().invoke(main, alias, input=moves).output  # solved once: no solve lines
    assert again == played.output[played.output.index("4-card GOPS") :]
    for rule in ("split", "third"):
        other = CliRunner().invoke(
            main, ["play", "3", "--players", "3", "--tie-rule", rule, "--seed", "1"], input="3\n2\n"
        )
        assert other.exit_code == 0 and "Final score" in other.output, other.output
    declared = ["play", "3", "--seed", "2"]
    one = CliRunner().invoke(main, [*declared, "--declarations"], input="d3\n2\n")
    two = CliRunner().invoke(main, [*declared, "--variant", "declarations"], input="d3\n2\n")
    assert one.exit_code == 0 and "Declaration scoring:" in one.output
    assert two.output == one.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--tie-rule", "third"], "--tie-rule scores a three-player game: add --players 3"),
        (["--variant", "three", "--tie-rule", "third"], "plays the tie rule split, not third"),
        (["--variant", "twelve", "--players", "3"], "the twelve variant has two players"),
        (["--variant", "three", "--players", "2"], "is a three-player game: drop --players 2"),
    ],
)
def test_play_flags_that_contradict_each_other_are_one_line(args, message):
    result = CliRunner().invoke(main, ["play", "3", *args], input="")
    assert result.exit_code == 2
    assert message in result.output
