"""Tests of exact.game.rules: the seed's sample game, legality, scoring and input validation."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exact.errors import GopsInputError, InvalidMoveError
from exact.game.rules import (
    GameRecord,
    Position,
    RoundResult,
    new_game,
    parse_cards,
    play_game,
    validate_position,
)

# The sample game of "Psychological JuJitsu" (seed 000): Charles (clubs) is player 0,
# Scott (spades) is player 1.  Rounds 12-13 are not bid explicitly in the text: "Scott
# will bid 8 on the diamond 6, and 7 for the diamond 4 ... Charles cannot do better than
# tie for the 4.  So Scott picks up 6 points and wins by 2", so Charles bids 5 on the 6
# and 7 on the 4 (a tie).
SAMPLE_UPCARDS = (7, 3, 10, 13, 2, 9, 5, 8, 1, 12, 11, 6, 4)
SAMPLE_CHARLES = (9, 3, 12, 13, 1, 11, 6, 2, 4, 8, 10, 5, 7)
SAMPLE_SCOTT = (2, 1, 9, 13, 3, 12, 4, 10, 5, 11, 6, 8, 7)


def replay(n, upcards, bids0, bids1):
    pos = new_game(n)
    history = []
    for up, b0, b1 in zip(upcards, bids0, bids1):
        pos, result = pos.turn_up(up).play(b0, b1)
        history.append((pos, result))
    return history


def test_sample_game_replay():
    history = replay(13, SAMPLE_UPCARDS, SAMPLE_CHARLES, SAMPLE_SCOTT)
    winners = [r.winner for _, r in history]
    # Charles wins 7, 3, 10; king tied; Scott 2, 9; Charles 5; Scott 8, 1, 12;
    # Charles 11; Scott 6; the 4 is tied.
    assert winners == [0, 0, 0, None, 1, 1, 0, 1, 1, 1, 0, 1, None]

    after10, _ = history[9]
    assert after10.points == (25, 32)  # "Scott is now ahead with 32 points ... to Charles's 25"
    assert after10.hands == (frozenset({5, 7, 10}), frozenset({6, 7, 8}))
    assert after10.deck == frozenset({11, 6, 4})

    after11, _ = history[10]
    assert after11.lead == 4  # "Charles now leads by 4 points"
    assert after11.hands == (frozenset({5, 7}), frozenset({7, 8}))

    final, last = history[-1]
    assert last.is_tie and last.points == 0
    assert final.is_terminal
    assert final.points == (36, 38)
    assert final.lead == -2  # Scott wins by 2
    assert final.discarded == 13 + 4
    assert sum(final.points) + final.discarded == 13 * 14 // 2


def test_sample_game_via_play_game():
    """play_game with scripted bidders and an rng forced to the sample prize order."""

    class FixedOrder(random.Random):
        def shuffle(self, x):
            x[:] = SAMPLE_UPCARDS

    def scripted(bids):
        return lambda pos, player: bids[pos.n - len(pos.deck)]

    rec = play_game(13, scripted(SAMPLE_CHARLES), scripted(SAMPLE_SCOTT), FixedOrder())
    assert isinstance(rec, GameRecord)
    assert rec.prize_order == SAMPLE_UPCARDS
    assert len(rec.rounds) == 13
    assert rec.points == (36, 38)
    assert rec.difference == -2
    assert rec.winner == 1
    assert rec.outcome == -1
    assert rec.rounds[3] == RoundResult(13, (13, 13), None, 0)
    assert rec.discarded == 17


def test_new_game():
    pos = new_game(4)
    assert pos.hands == (frozenset({1, 2, 3, 4}),) * 2
    assert pos.deck == frozenset({1, 2, 3, 4})
    assert pos.upcard is None and pos.points == (0, 0) and pos.n == 4
    assert not pos.is_terminal and pos.lead == 0
    assert pos.legal_bids(0) == (1, 2, 3, 4)
    assert new_game(1).turn_up(1).play(1, 1)[0].is_terminal
    hash(pos)  # positions are hashable (usable as memo keys)


@pytest.mark.parametrize("n", [0, -1, 53, 2.0, "3", True, None])
def test_new_game_rejects_bad_n(n):
    with pytest.raises(GopsInputError) as e:
        new_game(n)
    assert "\n" not in str(e.value)


def test_tie_scores_nobody():
    pos, result = new_game(3).turn_up(3).play(2, 2)
    assert result.winner is None and result.is_tie and result.points == 0
    assert pos.points == (0, 0)
    assert pos.deck == frozenset({1, 2})
    assert pos.hands == (frozenset({1, 3}), frozenset({1, 3}))
    assert pos.discarded == 3


def test_higher_bid_wins():
    pos, result = new_game(3).turn_up(2).play(1, 3)
    assert result == RoundResult(2, (1, 3), 1, 2)
    assert pos.points == (0, 2) and pos.lead == -2 and pos.upcard is None


def test_illegal_moves():
    pos = new_game(3)
    with pytest.raises(InvalidMoveError, match="no prize card is face up"):
        pos.play(1, 1)
    with pytest.raises(InvalidMoveError, match="not in the deck"):
        pos.turn_up(4)
    up = pos.turn_up(3)
    with pytest.raises(InvalidMoveError, match="already face up"):
        up.turn_up(2)
    with pytest.raises(InvalidMoveError, match="player 0 cannot bid 4"):
        up.play(4, 1)
    with pytest.raises(InvalidMoveError, match="player 1 cannot bid 0"):
        up.play(1, 0)
    with pytest.raises(InvalidMoveError):
        up.play(True, 1)
    after, _ = up.play(2, 1)
    with pytest.raises(InvalidMoveError, match="not in the deck"):
        after.turn_up(3)  # a prize already used
    up2 = after.turn_up(1)
    with pytest.raises(InvalidMoveError, match="player 0 cannot bid 2"):
        up2.play(2, 2)  # played twice
    with pytest.raises(InvalidMoveError, match="player 1 cannot bid 1"):
        up2.play(1, 1)
    end = up2.play(1, 2)[0].turn_up(2).play(3, 3)[0]
    assert end.is_terminal
    with pytest.raises(InvalidMoveError, match="game is over"):
        end.play(1, 1)
    with pytest.raises(InvalidMoveError, match="game is over"):
        end.turn_up(1)
    # InvalidMoveError is a GopsInputError (and a ValueError)
    with pytest.raises(ValueError):
        pos.turn_up(9)


def test_play_game_illegal_bid_names_player_and_card():
    def bad(pos, player):
        return 7

    def low(pos, player):
        return min(pos.legal_bids(player))

    with pytest.raises(InvalidMoveError, match=r"player 1 cannot bid 7"):
        play_game(5, low, bad, random.Random(0))

    def repeat(pos, player):
        return 1

    with pytest.raises(InvalidMoveError, match=r"player 0 cannot bid 1"):
        play_game(5, repeat, low, random.Random(0))


def random_bidder(rng):
    return lambda pos, player: rng.choice(pos.legal_bids(player))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 13), seed=st.integers(0, 2**32 - 1))
def test_random_games_conserve_points(n, seed):
    rng = random.Random(seed)
    rec = play_game(n, random_bidder(rng), random_bidder(rng), rng)
    assert sorted(rec.prize_order) == list(range(1, n + 1))
    assert [r.upcard for r in rec.rounds] == list(rec.prize_order)
    for p in (0, 1):
        assert sorted(r.bids[p] for r in rec.rounds) == list(range(1, n + 1))
    assert sum(rec.points) + rec.discarded == n * (n + 1) // 2
    assert rec.difference == rec.points[0] - rec.points[1]
    for r in rec.rounds:
        b0, b1 = r.bids
        assert r.winner == (0 if b0 > b1 else 1 if b1 > b0 else None)
        assert r.points == (0 if r.winner is None else r.upcard)
    assert rec.winner == (0 if rec.difference > 0 else 1 if rec.difference < 0 else None)


def test_play_game_is_reproducible():
    def go(seed):
        rng = random.Random(seed)
        return play_game(8, random_bidder(rng), random_bidder(rng), rng)

    assert go(42) == go(42)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 10), seed=st.integers(0, 2**32 - 1), k=st.integers(0, 10))
def test_swapped_negates_lead(n, seed, k):
    rng = random.Random(seed)
    pos = new_game(n)
    for _ in range(min(k, n)):
        pos = pos.turn_up(rng.choice(sorted(pos.deck)))
        pos, _ = pos.play(rng.choice(pos.legal_bids(0)), rng.choice(pos.legal_bids(1)))
    if not pos.is_terminal and rng.random() < 0.5:
        pos = pos.turn_up(rng.choice(sorted(pos.deck)))
    sw = pos.swapped()
    assert sw.lead == -pos.lead
    assert sw.hands == (pos.hands[1], pos.hands[0])
    assert sw.deck == pos.deck and sw.upcard == pos.upcard and sw.n == pos.n
    assert sw.swapped() == pos
    if pos.upcard is not None:
        b0, b1 = pos.legal_bids(0)[0], pos.legal_bids(1)[-1]
        a, ra = pos.play(b0, b1)
        b, rb = sw.play(b1, b0)
        assert b == a.swapped()
        assert rb.winner == (None if ra.winner is None else 1 - ra.winner)


def test_position_constructor_validates_and_normalises():
    pos = Position(([1, 3], {2, 3}), [3, 1], 3, (2, 0), 3)
    assert pos.hands == (frozenset({1, 3}), frozenset({2, 3}))
    assert pos.deck == frozenset({1, 3}) and pos.upcard == 3
    assert pos == Position((frozenset({1, 3}), frozenset({2, 3})), frozenset({1, 3}), 3, (2, 0), 3)
    with pytest.raises(GopsInputError, match="impossible"):
        Position(({1}, {2}), {3}, None, (2, 2), 3)  # 4 points but only 1+2 gone
    with pytest.raises(GopsInputError, match="impossible"):
        Position(({1}, {2}), {3}, None, (-1, 0), 3)
    with pytest.raises(GopsInputError, match="not in the deck"):
        Position(({1}, {2}), {3}, 2, (0, 0), 3)
    with pytest.raises(GopsInputError, match="outside 1..3"):
        Position(({1}, {4}), {3}, None, (0, 0), 3)
    with pytest.raises(GopsInputError, match="pair"):
        Position(({1},), {3}, None, (0, 0), 3)
    with pytest.raises(GopsInputError, match="player must be 0 or 1"):
        new_game(2).legal_bids(2)


def test_validate_position_ok():
    mine, theirs, deck = validate_position([1, 4], (2, 3), {4, 2}, upcard=4)
    assert (mine, theirs, deck) == (frozenset({1, 4}), frozenset({2, 3}), frozenset({2, 4}))
    assert all(isinstance(x, frozenset) for x in (mine, theirs, deck))
    assert validate_position([], [], [], n=5) == (frozenset(),) * 3
    assert validate_position([1], [1], [1], n=13)[0] == frozenset({1})


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        (([1, 2], [1], [1, 2]), {}, "hands differ in size"),
        (([1, 2], [1, 2], [1]), {}, "deck has 1 cards but each hand has 2"),
        (([1, 1], [1, 2], [1, 2]), {}, "my hand: card 1 appears more than once"),
        (([1, 2], [2, 2], [1, 2]), {}, "their hand: card 2 appears more than once"),
        (([1, 2], [1, 2], [3, 3]), {}, "deck: card 3 appears more than once"),
        (([0, 2], [1, 2], [1, 2]), {}, r"my hand: card 0 is outside 1\.\.2"),
        (([1, 5], [1, 2], [1, 2]), {"n": 4}, r"my hand: card 5 is outside 1\.\.4"),
        (([1, 2], [1, 2], [1, 2]), {"upcard": 3}, "upcard 3 is not in the deck"),
        (([1, "x"], [1, 2], [1, 2]), {}, "my hand: card 'x' is not an integer"),
        (([1, 2.0], [1, 2], [1, 2]), {}, "not an integer"),
        (([True], [1], [1]), {}, "not an integer"),
        (("12", [1, 2], [1, 2]), {}, "my hand must be a collection"),
        ((5, [1, 2], [1, 2]), {}, "my hand must be a collection"),
        (([], [], []), {}, "n must be given"),
        (([1], [1], [1]), {"n": 0}, "N must be between 1 and 52"),
        (([1], [1], [1]), {"n": 53}, "N must be between 1 and 52"),
        (([53], [1], [1]), {}, "my hand: card 53 is outside 1..52"),
        (([1], [1], [1]), {"n": "3"}, "N must be an integer"),
    ],
)
def test_validate_position_errors(args, kwargs, match):
    with pytest.raises(GopsInputError, match=match) as e:
        validate_position(*args, **kwargs)
    assert "\n" not in str(e.value)


def test_parse_cards():
    assert parse_cards("2,4") == (2, 4)
    assert parse_cards("2,4,13") == (2, 4, 13)
    assert parse_cards("7") == (7,)
    assert parse_cards("") == ()


@pytest.mark.parametrize(
    "text, match",
    [
        ("2,x", "bad card 'x'"),
        ("2,,4", "bad card ''"),
        ("2,4,", "bad card ''"),
        ("2;4", "bad card '2;4'"),
        ("2 4", "bad card '2 4'"),
        ("-1", "bad card '-1'"),
        ("0", "bad card '0'"),
        ("1.5", "bad card '1.5'"),
        ("2,\n", r"bad card '\\n'"),
        ("2, 4", "bad card ' 4'"),
        ("   ", "bad card '   '"),
        ("1" * 5000, r"bad card '1{20}\.\.\.'"),
        ("2,3,2", "card 2 appears more than once"),
    ],
)
def test_parse_cards_errors(text, match):
    with pytest.raises(GopsInputError, match=match) as e:
        parse_cards(text)
    assert "\n" not in str(e.value)


def test_parse_cards_rejects_non_string():
    with pytest.raises(GopsInputError):
        parse_cards([1, 2])


def test_parse_then_validate_round_trip():
    mine, theirs, deck = validate_position(
        parse_cards("1,3"), parse_cards("2,3"), parse_cards("4,1"), n=4
    )
    pos = Position((mine, theirs), deck, None, (0, 0), 4)
    assert pos.legal_bids(0) == (1, 3) and pos.legal_bids(1) == (2, 3)
