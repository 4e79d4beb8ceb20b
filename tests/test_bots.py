"""Bots (exact.bots): the fixed rules, the random and optimal mixes, sampling, the registry."""

import random
from dataclasses import dataclass
from fractions import Fraction

import pytest

from exact.play.bots import BOTS, Bot, OptimalBot, make_bot, parse_bot_list, register_bot
from exact.errors import GopsInputError
from exact.game.rules import Position, new_game


def position(hand0, hand1, deck, upcard, n):
    return Position((frozenset(hand0), frozenset(hand1)), frozenset(deck), upcard, (0, 0), n)


@dataclass(frozen=True)
class RuleCase:
    bot: str
    hand: tuple
    upcard: int
    bid: int


RULE_CASES = [
    # upcard: the upcard itself, else the nearest card above, else the highest card.
    RuleCase("upcard", (1, 3, 5), 3, 3),
    RuleCase("upcard", (1, 4, 5), 3, 4),
    RuleCase("upcard", (1, 2), 3, 2),
    # upcard+1: aim at upcard + 1 with the same fallback.
    RuleCase("upcard+1", (1, 3, 4, 5), 3, 4),
    RuleCase("upcard+1", (1, 3, 5), 3, 5),
    RuleCase("upcard+1", (1, 2, 3), 3, 3),
    RuleCase("upcard+1", (2, 5), 5, 5),
    RuleCase("lowest", (2, 4, 5), 1, 2),
    RuleCase("highest", (2, 4, 5), 1, 5),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=f"{c.bot}-{c.hand}-up{c.upcard}")
                                  for c in RULE_CASES])
def test_fixed_rules(case):
    n = 5
    hand = frozenset(case.hand)
    others = [c for c in range(1, n + 1) if c != case.upcard]
    deck = frozenset([case.upcard] + others[: len(hand) - 1])
    pos = position(hand, hand, deck, case.upcard, n)
    bot = make_bot(case.bot, n)
    assert bot.mix(pos, 0) == {case.bid: Fraction(1)}
    assert bot.mix(pos, 1) == {case.bid: Fraction(1)}  # seat-symmetric
    assert bot.bid(pos, 0, random.Random(0)) == case.bid


def test_random_mix_is_uniform_and_exact():
    pos = position({1, 3, 4}, {2, 3, 5}, {1, 2, 5}, 2, 5)
    bot = make_bot("random", 5)
    assert bot.mix(pos, 1) == {2: Fraction(1, 3), 3: Fraction(1, 3), 5: Fraction(1, 3)}
    bids = [bot.bid(pos, 1, random.Random(s)) for s in range(200)]
    assert set(bids) == {2, 3, 5}


def test_bid_sampling_is_reproducible():
    pos = new_game(6).turn_up(4)
    bot = make_bot("optimal", 6, arithmetic="float")
    rng1, rng2 = random.Random(11), random.Random(11)
    assert [bot.bid(pos, 0, rng1) for _ in range(50)] == [bot.bid(pos, 0, rng2) for _ in range(50)]


def test_optimal_player_0_uses_strategy_mine(solved_exact):
    sol = solved_exact(5)
    bot = OptimalBot(sol)
    pos = position({1, 4, 5}, {2, 3, 5}, {1, 3, 4}, 3, 5)
    assert bot.mix(pos, 0) == sol.strategy({1, 4, 5}, {2, 3, 5}, {1, 3, 4}, 3).mine


def test_optimal_player_1_uses_the_swapped_position(solved_exact):
    sol = solved_exact(5)
    bot = OptimalBot(sol)
    pos = position({1, 4, 5}, {2, 3, 5}, {1, 3, 4}, 3, 5)
    assert bot.mix(pos, 1) == sol.strategy({2, 3, 5}, {1, 4, 5}, {1, 3, 4}, 3).mine
    assert sum(bot.mix(pos, 1).values()) == 1


def test_optimal_canonical_cache_matches_direct_call(solved):
    # Hands {2,5,6} / {1,4,6} are cached under ranks {2,4,5} / {1,3,5}: same matrix game.
    sol = solved(6)
    bot = OptimalBot(sol)
    pos = position({2, 5, 6}, {1, 4, 6}, {1, 3, 6}, 6, 6)
    direct = sol.strategy({2, 5, 6}, {1, 4, 6}, {1, 3, 6}, 6).mine
    mix = bot.mix(pos, 0)
    assert set(mix) == set(direct)
    for c in mix:
        assert mix[c] == pytest.approx(float(direct[c]), abs=1e-12)
    assert sum(mix.values()) == pytest.approx(1, abs=1e-15)


def test_optimal_bot_rejects_another_n(solved):
    with pytest.raises(GopsInputError, match="N=4"):
        OptimalBot(solved(4)).mix(new_game(5).turn_up(1), 0)


def test_optimal_is_exact_up_to_6_then_float():
    assert make_bot("optimal", 3).exact
    assert not make_bot("optimal", 3, arithmetic="float").exact


def test_registry_errors():
    with pytest.raises(GopsInputError, match="unknown bot 'clever'"):
        make_bot("clever", 4)
    with pytest.raises(GopsInputError, match="unknown bot 'x'"):
        parse_bot_list("random,x")
    assert parse_bot_list("optimal, random") == ["optimal", "random"]
    with pytest.raises(GopsInputError):
        register_bot("a,b", lambda n: None)


class SecondLowest(Bot):
    """A user bot: only mix() is written; bid() comes from the base class."""

    name = "second-lowest"
    uses_lead = False

    def mix(self, position, player):
        hand = sorted(position.hands[player])
        return {hand[min(1, len(hand) - 1)]: Fraction(1)}


def test_user_bot_and_registration():
    register_bot("second-lowest", lambda n, **_: SecondLowest())
    try:
        bot = make_bot("second-lowest", 4)
        pos = new_game(4).turn_up(4)
        assert bot.bid(pos, 0, random.Random(0)) == 2
    finally:
        del BOTS["second-lowest"]
