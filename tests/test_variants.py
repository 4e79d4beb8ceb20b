"""Variants of "Psychological JuJitsu" (seed 000) on hand-made rounds (exact.game.variants)."""

import random
from dataclasses import dataclass
from fractions import Fraction

import pytest

from exact.errors import GopsInputError, InvalidMoveError
from exact.game.rules import play_game
from exact.game.variants import (
    VARIANTS,
    declaration_score,
    get_variant,
    play_variant,
    resolve_round,
    start,
)
from exact.play.bots import make_bot

F = Fraction


@dataclass(frozen=True)
class RoundCase:
    rule: str
    upcard: int
    bids: tuple
    points: tuple


ROUND_CASES = [
    RoundCase("discard", 5, (3, 3), (0, 0)),  # two-player tie: discarded
    RoundCase("discard", 5, (4, 3), (5, 0)),
    RoundCase("split", 9, (7, 7, 2), (F(9, 2), F(9, 2), 0)),  # "they each get half value"
    RoundCase("split", 9, (2, 7, 7), (0, F(9, 2), F(9, 2))),
    RoundCase("split", 9, (6, 6, 6), (0, 0, 0)),  # three-way tie: everyone stays at zero
    RoundCase("split", 9, (8, 6, 7), (9, 0, 0)),
    # "two players might bid 13 on the king of diamonds, while the third player bids 1
    # and wins it!"
    RoundCase("third", 13, (13, 13, 1), (0, 0, 13)),
    RoundCase("third", 13, (13, 1, 13), (0, 13, 0)),
    RoundCase("third", 13, (4, 4, 4), (0, 0, 0)),
    RoundCase("third", 13, (5, 4, 4), (13, 0, 0)),  # a tie below the high bid is no tie
]


@pytest.mark.parametrize("case", [pytest.param(c, id=f"{c.rule}-{c.bids}") for c in ROUND_CASES])
def test_resolve_round(case):
    assert resolve_round(case.upcard, case.bids, case.rule) == tuple(map(F, case.points))


def test_three_player_positions():
    pos = start(get_variant("three"), 5).turn_up(4)
    pos, rnd = pos.play((5, 5, 1))
    assert pos.points == (2, 2, 0) and rnd.points == (2, 2, 0)
    assert pos.hands == (frozenset({1, 2, 3, 4}),) * 2 + (frozenset({2, 3, 4, 5}),)
    with pytest.raises(InvalidMoveError, match="player 0 cannot bid 5"):
        pos.turn_up(3).play((5, 1, 2))


@dataclass(frozen=True)
class DummyCase:
    bids: tuple
    dummy: int
    points: tuple  # player 0, player 1, dummy


DUMMY_CASES = [
    DummyCase((3, 2), 5, (0, 0, 6)),  # dummy strictly highest: neither player scores
    DummyCase((5, 2), 5, (3, 0, 3)),  # a player tied with the dummy gets half
    DummyCase((4, 4), 1, (3, 3, 0)),  # both players tied above the dummy: half each
    DummyCase((4, 4), 4, (0, 0, 0)),  # all three tied: discarded
    DummyCase((4, 3), 1, (6, 0, 0)),
]


@pytest.mark.parametrize("case", DUMMY_CASES, ids=lambda c: f"{c.bids}-dummy{c.dummy}")
def test_dummy_round(case):
    pos = start(get_variant("dummy"), 6).turn_up(6)
    new, rnd = pos.play(case.bids, case.dummy)
    assert new.points == tuple(map(F, case.points))
    assert case.dummy not in new.dummy_hand and len(new.dummy_hand) == 5


def test_dummy_needs_its_card_and_others_refuse_one():
    pos = start(get_variant("dummy"), 4).turn_up(2)
    with pytest.raises(InvalidMoveError, match="dummy"):
        pos.play((1, 2))
    with pytest.raises(InvalidMoveError, match="no dummy"):
        start(get_variant("standard"), 4).turn_up(2).play((1, 2), 3)


def test_dummy_game_turns_the_whole_dummy_suit():
    rec = play_variant(
        "dummy", 6, [lambda p, i: min(p.hands[i]), lambda p, i: max(p.hands[i])], random.Random(3)
    )
    assert sorted(r.dummy_bid for r in rec.rounds) == [1, 2, 3, 4, 5, 6]
    assert sum(rec.points) <= 21


def test_twelve_rounds_drop_the_last_diamond():
    """13 cards: aces out of the bidding hands, 12 rounds, the 13th diamond discarded."""
    variant = get_variant("twelve")
    pos = start(variant, 13)
    assert pos.hands == (frozenset(range(2, 14)),) * 2
    bots = [make_bot("upcard", 13), make_bot("random", 13)]
    rng = random.Random(1)
    rec = play_variant(variant, 13, [lambda p, i: bots[i].bid(p, i, rng) for i in range(2)], rng)
    assert len(rec.rounds) == 12
    assert rec.dropped not in rec.prize_order
    assert sorted(rec.prize_order + (rec.dropped,)) == list(range(1, 14))
    assert sum(rec.points) <= 91 - rec.dropped
    assert sorted(r.bids[0] for r in rec.rounds) == list(range(2, 14))


def test_three_player_game_with_bots():
    bots = [make_bot(x, 6) for x in ("upcard", "upcard+1", "highest")]
    rng = random.Random(0)
    rec = play_variant(
        "three-third", 6, [lambda p, i: bots[i].bid(p, i, rng) for i in range(3)], rng
    )
    assert len(rec.rounds) == 6 and len(rec.points) == 3
    assert sum(rec.points) <= 21


def test_unknown_variant_and_bad_bidders():
    with pytest.raises(GopsInputError, match="unknown variant"):
        get_variant("four")
    with pytest.raises(GopsInputError, match="needs 3 bidders"):
        play_variant("three", 4, [min, min], random.Random(0))
    assert set(VARIANTS) == {"standard", "three", "three-third", "three-discard", "dummy", "twelve"}


# -- face-up declarations ---------------------------------------------------------------

# The seed's sample game (see tests/test_rules.py): Scott (player 1) wins by 2.
SAMPLE_UPCARDS = (7, 3, 10, 13, 2, 9, 5, 8, 1, 12, 11, 6, 4)
SAMPLE_CHARLES = (9, 3, 12, 13, 1, 11, 6, 2, 4, 8, 10, 5, 7)
SAMPLE_SCOTT = (2, 1, 9, 13, 3, 12, 4, 10, 5, 11, 6, 8, 7)


def sample_record():
    bids = {0: iter(SAMPLE_CHARLES), 1: iter(SAMPLE_SCOTT)}

    class Fixed(random.Random):
        def shuffle(self, x):
            x[:] = SAMPLE_UPCARDS

    return play_game(13, lambda p, i: next(bids[0]), lambda p, i: next(bids[1]), Fixed())


def test_declaration_sample_game():
    rec = sample_record()
    assert rec.winner == 1 and rec.difference == -2
    # "In the sample game, Scott could have made his last two bids face up, scoring 2."
    assert declaration_score(rec, {1: 12}).score == 2
    # Nobody declared: the last round is always face up, the winner scores 1.
    assert declaration_score(rec) == declaration_score(rec, {})
    assert declaration_score(rec).score == 1
    # Charles declares at round 10 and loses: "the other player will then get the
    # increased score" -- Scott scores 4.
    assert declaration_score(rec, {0: 10}).score == 4
    assert declaration_score(rec, {0: 10}).winner == 1


def test_declaration_draw_and_errors():
    draw = play_game(1, lambda p, i: 1, lambda p, i: 1, random.Random(0))
    assert draw.winner is None and declaration_score(draw, {0: 1}).score == 0
    with pytest.raises(GopsInputError, match="1..1"):
        declaration_score(draw, {0: 2})
    with pytest.raises(GopsInputError, match="player"):
        declaration_score(draw, {2: 1})


# -- tournaments of two-player variants ---------------------------------------------------


def test_tournament_variants():
    from exact.play.tournament import tournament

    twelve = tournament(5, ["upcard", "random"], 40, seed=3, variant="twelve")
    assert twelve == tournament(5, ["upcard", "random"], 40, seed=3, variant="twelve")
    assert twelve != tournament(5, ["upcard", "random"], 40, seed=3)
    dummy = tournament(4, ["lowest", "highest"], 40, seed=3, variant="dummy")
    assert dummy[0].wins + dummy[0].draws + dummy[0].losses == 40
    with pytest.raises(GopsInputError, match="only the standard game"):
        tournament(4, ["optimal-win", "random"], 10, seed=0, variant="dummy")
    with pytest.raises(GopsInputError, match="three_player_tournament"):
        tournament(4, ["lowest", "random", "upcard"], 10, seed=0, variant="three")
    with pytest.raises(GopsInputError, match="between 1 and 13"):
        tournament(14, ["lowest", "random"], 10, seed=0)
    with pytest.raises(GopsInputError, match="not 'four'"):
        tournament(4, ["lowest", "random"], 10, seed=0, variant="four")


def test_variant_optimal_bot_in_tournaments():
    """In the twelve and dummy variants the optimal bot plays the variant's equilibrium:
    it never loses significantly and beats the fixed rules and random play on average."""
    from exact.play.bots import VariantOptimalBot
    from exact.play.tournament import tournament

    for variant, n in (("twelve", 5), ("dummy", 4)):
        res = tournament(
            n, ["optimal", "random", "lowest", "highest"], 300, seed=11, variant=variant
        )
        for r in res[:3]:  # optimal against each other bot
            assert r.bots[0] == "optimal"
            assert r.mean_interval[0] > 0, r
    bot = make_bot("optimal", 5, arithmetic="float", variant="twelve")
    assert isinstance(bot, VariantOptimalBot)
    pos = start(get_variant("twelve"), 5).turn_up(5)
    mix = bot.mix(pos, 0)
    assert set(mix) == {2, 3, 4, 5} and abs(sum(mix.values()) - 1) < 1e-12
    with pytest.raises(GopsInputError, match="twelve variant with N=5"):
        bot.mix(start(get_variant("dummy"), 5).turn_up(5), 0)


def test_three_player_tournaments_follow_the_tie_rules():
    """N=4, two 'highest' bots and a 'lowest' one: the two always bid alike, 4 and 3 in
    rounds 1-2 against the lowest bot's 1 and 2, then 2 and 1 against its 3 and 4, so the
    lowest bot wins rounds 3-4 outright.  Under the three-third rule it also gets rounds
    1-2 (a two-way tie for high goes to the third player): all 10 points, every game.
    Under the split rule the pair halves rounds 1-2, so the pair always ties each other and
    nothing is discarded: the points sum to 10, and the top is shared exactly when the
    first two prizes are 3 and 4 (3.5 each against 3)."""
    from exact.play.tournament import three_player_tournament, wilson_interval

    third = three_player_tournament(
        4, ["highest", "highest", "lowest"], 30, seed=1, variant="three-third"
    )
    assert [(r.wins, r.shared, r.mean_points) for r in third] == [((0, 0, 30), 0, (0, 0, 10))]
    (split,) = three_player_tournament(
        4, ["highest", "highest", "lowest"], 300, seed=1, variant="three"
    )
    assert split.wins[:2] == (0, 0) and split.wins[2] + split.shared == 300
    assert split.mean_points[0] == split.mean_points[1]
    assert abs(sum(split.mean_points) - 10) < 1e-12
    lo, hi = wilson_interval(split.shared, 300)
    assert lo <= 1 / 6 <= hi  # P(first two prizes are {3, 4}) = 2 * 2 / 24
    # Three identical bids every round: every prize discarded, nobody scores.
    same = three_player_tournament(5, ["lowest"] * 3, 10, seed=1, variant="three")
    assert (same[0].shared, same[0].mean_points) == (10, (0, 0, 0))


def test_three_player_tournament_counts_and_seed():
    from exact.play.tournament import three_player_tournament

    names = ["upcard", "upcard+1", "random", "highest"]
    res = three_player_tournament(6, names, 60, seed=4, variant="three")
    assert len(res) == 4  # C(4, 3) triples
    for r in res:
        assert sum(r.wins) + r.shared == 60
        assert sum(r.mean_points) <= 21 + 1e-9
    assert res == three_player_tournament(6, names, 60, seed=4, variant="three")
    assert res != three_player_tournament(6, names, 60, seed=5, variant="three")


@pytest.mark.parametrize(
    "bots, message",
    [
        ("optimal,random,lowest", "two-player games only"),
        ("random,lowest", "at least 3 bots"),
    ],
)
def test_three_player_tournament_errors(bots, message):
    from click.testing import CliRunner

    from exact.cli import main

    result = CliRunner().invoke(main, ["tournament", "5", "--variant", "three", "--bots", bots])
    assert result.exit_code == 2 and message in result.output
    assert result.output.count("\n") == 1


def test_three_player_tournament_cli_json():
    import json

    from click.testing import CliRunner

    from exact.cli import main

    result = CliRunner().invoke(
        main,
        [
            "tournament",
            "4",
            "--variant",
            "three-third",
            "--bots",
            "highest,highest,lowest",
            "--games",
            "9",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["triples"][0]["wins"] == [0, 0, 9]
    assert out["triples"][0]["mean_points"] == [0, 0, 10]
