"""Bots (exact.play.bots): fixed rules, the random and optimal mixes, sampling, the registry."""

import random
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest

from exact.errors import GopsInputError
from exact.game.rules import Position, new_game
from exact.play.bots import BOTS, Bot, OptimalBot, make_bot, parse_bot_list, register_bot
from reference import reference_game, reference_matrix


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


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=f"{c.bot}-{c.hand}-up{c.upcard}") for c in RULE_CASES]
)
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


#: Prizes {2, 4, 5}, the 4 turned up: hands {2, 5, 6} / {1, 4, 6} and two order-preserving
#: relabellings of them that move cards (2 -> 3; 4 -> 3 and 5 -> 4), one pattern: the bot
#: caches a mix once, under the ranks {2, 4, 5} / {1, 3, 5}, and hands it back relabelled.
#: The equilibrium is fully mixed and differs from card to card, so a mix handed back on
#: the wrong cards does not guarantee the value.
RELABELLINGS = [
    ({2: 2, 5: 5, 6: 6}, {1: 1, 4: 4, 6: 6}),
    ({2: 3, 5: 5, 6: 6}, {1: 1, 4: 4, 6: 6}),
    ({2: 2, 5: 4, 6: 6}, {1: 1, 4: 3, 6: 6}),
]
#: The oracle's HiGHS tolerance (tests/reference.py) bounds the float comparisons.
REFERENCE_TOL = 1e-9


class CountingSolution:
    """A Solution that counts the equilibria asked of it."""

    def __init__(self, solution):
        self.solution, self.strategies = solution, 0

    def __getattr__(self, name):
        return getattr(self.solution, name)

    def strategy(self, *args, **kwargs):
        self.strategies += 1
        return self.solution.strategy(*args, **kwargs)


def test_optimal_mix_is_relabelled_with_the_cards(solved):
    """The first call fills the cache; the relabelled hands are served from it (one entry):
    each mix is on the position's own cards, carries the first mix's probabilities to the
    images of its cards, and guarantees the value of the position's payoff matrix as the
    brute-force oracle computes it on the raw cards (tests/reference.py never relabels)."""
    sol = CountingSolution(solved(6))
    bot = OptimalBot(sol)
    deck, upcard = {2, 4, 5}, 4
    first = None
    for g_mine, g_theirs in RELABELLINGS:
        mine, theirs = set(g_mine.values()), set(g_theirs.values())
        for player in (0, 1):  # the same hands, in either seat
            hands = (mine, theirs) if player == 0 else (theirs, mine)
            mix = bot.mix(position(*hands, deck, upcard, 6), player)
            assert set(mix) == mine
            if first is None:
                first = {c: mix[c] for c in g_mine}  # the original hands' mix
            assert {c: mix[g_mine[c]] for c in g_mine} == first
            A = reference_matrix(mine, theirs, deck, upcard)
            x = [mix[c] for c in sorted(mine)]
            assert min(x) > 0.2  # fully mixed: a misplaced probability would show
            assert (np.array(x) @ A).min() >= reference_game(A)[0] - REFERENCE_TOL
    assert sol.strategies == 1


def test_optimal_cache_is_keyed_on_the_deck_and_upcard(solved):
    """The hands of RELABELLINGS with other prizes get their own equilibrium, not the
    cached one: with {1, 3, 6} and the 6 up both players bid their 6."""
    bot = OptimalBot(solved(6))
    mine, theirs = {2, 5, 6}, {1, 4, 6}
    assert min(bot.mix(position(mine, theirs, {2, 4, 5}, 4, 6), 0).values()) > 0.2
    assert bot.mix(position(mine, theirs, {1, 3, 6}, 6, 6), 0) == pytest.approx(
        {2: 0, 5: 0, 6: 1}, abs=1e-12
    )
    assert bot.mix(position(mine, theirs, {1, 3, 6}, 6, 6), 1) == pytest.approx(
        {1: 0, 4: 0, 6: 1}, abs=1e-12
    )


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
