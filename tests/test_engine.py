"""exact.play.engine: one game against the computer, the loop of `gops play` and of the
web page.  Rounds are scored by the rules of the "Psychological JuJitsu" write-up (the
standard game, its variants, face-up declarations); the computer's bids are drawn from its
bot's mix with the game's seeded RNG, so a seed and your moves replay a game."""

import random
from fractions import Fraction

import pytest

from exact.errors import GopsInputError
from exact.play.bots import face_up_reply, make_bot
from exact.play.engine import Game, check_setup, optimal_bot


def bot(name, n=4):
    return make_bot(name, n)


def test_a_known_game_scored_round_by_round():
    """Ascending prizes 1..4; you bid 1, 2, 3, (4) against the highest card each round:
    the computer takes the 1 (4 > 1) and the 2 (3 > 2), you the 3 (3 > 2) and the 4."""
    game = Game(4, [bot("highest")], order="ascending", seed=0)
    assert game.awaiting == "prize" and game.chooser is None
    game.replay([1, 2, 3])
    assert [(r.prize, r.bids, r.scorers) for r in game.history] == [
        (1, (1, 4), [1]),
        (2, (2, 3), [1]),
        (3, (3, 2), [0]),
        (4, (4, 1), [0]),
    ]
    assert game.over and game.awaiting == "over"
    assert game.points == (Fraction(7), Fraction(3)) and game.winner == 0


def test_a_tie_discards_the_prize_and_equal_points_are_a_draw():
    game = Game(2, [bot("lowest", 2)], order="descending", seed=0)
    game.replay([1])  # 1 v 1 on the 2: discarded; then 2 v 2 on the 1: discarded
    assert [r.scorers for r in game.history] == [[], []]
    assert game.points == (0, 0) and game.winner is None


def test_the_prizes_are_the_seeds_shuffle():
    expected = list(range(1, 7))
    random.Random(11).shuffle(expected)
    game = Game(6, [bot("random", 6)], seed=11)
    game.replay([1, 2, 3, 4, 5])
    assert [r.prize for r in game.history] == expected


def test_same_seed_same_computer_bids_another_seed_other_bids():
    def computer(seed):
        game = Game(8, [bot("random", 8)], seed=seed)
        game.replay([1, 2, 3, 4, 5, 6, 7])
        return [r.bids[1] for r in game.history]

    assert computer(3) == computer(3)
    assert sorted(computer(3)) == list(range(1, 9))
    assert computer(3) != computer(4)


def test_an_illegal_bid_is_one_line_and_changes_nothing():
    game = Game(4, [bot("random")], seed=1)
    game.turn_up()
    with pytest.raises(GopsInputError, match=r"^you do not hold the 9; your cards are 1 2 3 4$"):
        game.play(9)
    with pytest.raises(GopsInputError, match="not an integer"):
        game.play("2")
    game.play(2)
    game.turn_up()
    with pytest.raises(GopsInputError, match="you do not hold the 2; your cards are 1 3 4"):
        game.check_bid(2)
    assert len(game.history) == 1 and game.legal_bids() == [1, 3, 4]


def test_bids_and_prizes_out_of_turn():
    game = Game(3, [bot("random", 3)], seed=1)
    with pytest.raises(GopsInputError, match="no prize is up"):
        game.play(1)
    game.turn_up()
    with pytest.raises(GopsInputError, match="already up"):
        game.turn_up()
    game.replay([1, 2])
    with pytest.raises(GopsInputError, match="the game is over: 3 rounds were played"):
        game.replay([3])


def test_you_choose_the_prizes():
    game = Game(4, [bot("lowest")], order="controlled-by-me", seed=2)
    assert game.chooser == "me" and game.prize_choices() == [1, 2, 3, 4]
    with pytest.raises(GopsInputError, match="choose the next prize: one of 1 2 3 4"):
        game.turn_up()
    with pytest.raises(GopsInputError, match="the 7 is not a prize left"):
        game.turn_up(7)
    with pytest.raises(GopsInputError, match="choose the prize of round 1 before bidding"):
        game.replay([4])
    game.replay([4, 3, 2], [4, 1, 3])  # the last prize (2) comes up by itself
    assert [r.prize for r in game.history] == [4, 1, 3, 2] == game.prizes
    assert [r.bids for r in game.history] == [(4, 1), (3, 2), (2, 3), (1, 4)]
    assert game.points == (5, 5) and game.winner is None


def test_the_computer_chooses_its_best_prize():
    """controlled-by-them: the computer takes the prize of the largest f_u of its
    controlled-by-me solution (its bot's prize_choice)."""
    from exact.play.bots import solution_for

    sol = solution_for(4, "float", order="controlled-by-me")
    game = Game(4, [optimal_bot(sol)], order="controlled-by-them", seed=5)
    assert game.chooser == "them"
    values = sol.prize_values({1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4})
    best = max(values.values())
    assert game.turn_up() == min(u for u, v in values.items() if v == best)
    with pytest.raises(GopsInputError, match="you do not choose the prizes"):
        Game(4, [optimal_bot(sol)], order="controlled-by-them", seed=5).turn_up(1)


def test_twelve_rounds_aces_out_and_the_last_prize_left_over():
    game = Game(5, [bot("highest", 5)], variant="twelve", seed=9)
    assert game.rounds == 4 and game.legal_bids() == [2, 3, 4, 5]
    game.replay([2, 3, 4])
    assert game.over and game.leftover == game.prizes[-1]
    assert sorted([r.prize for r in game.history] + [game.leftover]) == [1, 2, 3, 4, 5]


def test_three_third_a_two_way_tie_gives_the_prize_to_the_third():
    """The write-up's extreme case: two 3s and a 1 on the 3 give the 3 to the 1."""
    game = Game(
        3, [bot("highest", 3), bot("highest", 3)], variant="three-third", order="random", seed=4
    )
    game.turn_up()
    first = game.play(1)
    assert first.bids == (1, 3, 3) and first.points == (first.prize, 0, 0)


def test_the_dummy_splits_a_tie_with_the_high_bid():
    game = Game(3, [bot("lowest", 3)], variant="dummy", seed=6)
    game.replay([3, 2])
    for r in game.history:  # the written three-bidder split, the dummy a bidder
        top = max(*r.bids, r.dummy_bid)
        high = [b == top for b in (*r.bids, r.dummy_bid)]
        share = 0 if all(high) else Fraction(r.prize, sum(high))
        assert r.points == tuple(share * h for h in high)
    assert sorted(r.dummy_bid for r in game.history) == [1, 2, 3]


def test_declarations_the_computer_answers_a_bid_it_sees(solved):
    sol = solved(5)
    game = Game(5, [optimal_bot(sol)], seed=7, declarations=True)
    game.turn_up()
    game.play(1)
    assert not game.history[0].face_up and game.can_declare
    game.turn_up()
    before = game.position
    second = game.play(2, declare=True)
    assert second.face_up and game.declared == 2 and not game.can_declare
    assert second.bids[1] == face_up_reply(sol, before, 2)
    game.turn_up()
    with pytest.raises(GopsInputError, match="you declared in round 2"):
        game.play(game.legal_bids()[0], declare=True)
    game.replay(game.legal_bids()[:2])  # the last card plays itself
    assert game.over and all(r.face_up for r in game.history[1:])
    score = game.declaration_score()
    assert score.face_up_rounds == 4
    assert (score.winner, score.score) == (
        (game.winner, 4) if game.winner is not None else (None, 0)
    )


def test_bad_setups_are_one_line():
    with pytest.raises(GopsInputError, match="--order plays the standard game only"):
        Game(4, [bot("random")], variant="dummy", order="descending")
    with pytest.raises(GopsInputError, match="--declarations plays the standard game"):
        check_setup("standard", objective="win", declarations=True)
    with pytest.raises(GopsInputError, match="played against 2 computer"):
        Game(4, [bot("random")], variant="three")
    with pytest.raises(GopsInputError, match="unknown prize order"):
        Game(4, [bot("random")], order="sorted")
    with pytest.raises(GopsInputError, match="declarations are off"):
        game = Game(4, [bot("random")], seed=1)
        game.turn_up()
        game.play(1, declare=True)


def test_a_head_start_is_in_the_score_and_decides_the_winner():
    """A lead of 3 at N = 3 ascending against the highest card (3, 2, 1): you bid 2, 1,
    (3), the computer takes 1 and 2 (3 points), you the 3, so 3 + 3 = 6 beats 3; without
    the head start, 3 - 3 is a draw.  The computer's share of a negative lead is its head start."""
    game = Game(3, [bot("highest", 3)], order="ascending", seed=0, lead=3)
    assert game.points == (3, 0) and game.lead == 3
    game.replay([2, 1])
    assert game.points == (6, 3) and game.winner == 0
    plain = Game(3, [bot("highest", 3)], order="ascending", seed=0)
    plain.replay([2, 1])
    assert plain.points == (3, 3) and plain.winner is None
    assert Game(3, [bot("highest", 3)], seed=0, lead=-2).points == (0, 2)
    with pytest.raises(GopsInputError, match="between -6 and 6"):
        Game(3, [bot("highest", 3)], lead=7)
    with pytest.raises(GopsInputError, match="two-player standard game only"):
        Game(5, [bot("highest", 5)], variant="twelve", lead=1)
