"""Exact evaluation of bots (exact.analysis.evaluate) and tournaments (exact.play.tournament).

The brute force here is written independently of exact.analysis.evaluate: it walks every
prize order and every sequence of pure bids through the rules engine (exact.game.rules),
weighting each sequence by the product of the bots' probabilities.
"""

import json
from fractions import Fraction
from itertools import permutations

import pytest
from click.testing import CliRunner

from exact.analysis.evaluate import evaluate
from exact.cli import main
from exact.errors import GopsInputError
from exact.game.rules import new_game
from exact.play.bots import BOTS, Bot, OptimalBot, make_bot
from exact.play.tournament import tournament, wilson_interval

NAMES = list(BOTS)
OTHERS = [b for b in NAMES if b != "optimal"]


def brute_force(n, bot_a, bot_b):
    """{final difference: probability}, by enumerating prize orders and pure bid sequences."""
    dist = {}
    orders = list(permutations(range(1, n + 1)))

    def walk(pos, order, weight):
        if not order:
            dist[pos.lead] = dist.get(pos.lead, 0) + weight
            return
        up = pos.turn_up(order[0])
        for a, pa in bot_a.mix(up, 0).items():
            for b, pb in bot_b.mix(up, 1).items():
                if pa and pb:
                    walk(up.play(a, b)[0], order[1:], weight * pa * pb)

    for order in orders:
        walk(new_game(n), order, Fraction(1, len(orders)))
    return {d: p for d, p in dist.items() if p}


_OPTIMAL = {}


def bot(name, n, solved_exact):
    """A bot by name; the exact optimal bot of each n is shared (its mixes are cached)."""
    if name != "optimal":
        return make_bot(name, n)
    if n not in _OPTIMAL:
        _OPTIMAL[n] = OptimalBot(solved_exact(n))
    return _OPTIMAL[n]


@pytest.mark.parametrize("a", NAMES)
@pytest.mark.parametrize("b", NAMES)
def test_agrees_with_brute_force_n3(a, b, solved_exact):
    bot_a, bot_b = bot(a, 3, solved_exact), bot(b, 3, solved_exact)
    ev = evaluate(3, bot_a, bot_b)
    assert ev.exact
    assert ev.distribution == brute_force(3, bot_a, bot_b)


@pytest.mark.parametrize(
    "a,b",
    [("optimal", "random"), ("random", "upcard+1"), ("optimal", "highest"), ("upcard", "lowest")],
)
def test_agrees_with_brute_force_n4(a, b, solved_exact):
    bot_a, bot_b = bot(a, 4, solved_exact), bot(b, 4, solved_exact)
    ev = evaluate(4, bot_a, bot_b)
    dist = brute_force(4, bot_a, bot_b)
    assert ev.distribution == dist
    assert ev.expected_difference == sum(d * p for d, p in dist.items())
    assert ev.win == sum(p for d, p in dist.items() if d > 0)
    assert ev.draw == dist.get(0, 0)
    assert ev.win + ev.draw + ev.loss == 1


@pytest.mark.parametrize("n", [4, 5])
@pytest.mark.parametrize("other", NAMES)
def test_optimal_guarantees_its_value(n, other, solved_exact):
    """The equilibrium guarantees value 0 (the game is symmetric) against any bot."""
    ev = evaluate(n, bot("optimal", n, solved_exact), bot(other, n, solved_exact))
    assert isinstance(ev.expected_difference, Fraction)
    assert ev.expected_difference >= 0
    if other in ("random", "lowest", "highest"):
        assert ev.expected_difference > 0
    if other == "optimal":
        assert ev.expected_difference == 0
        assert ev.win == ev.loss


@pytest.mark.parametrize("n", [4, 5])
def test_optimal_against_upcard(solved_exact, n):
    """Against "bid the upcard" the exact evaluation is the brute force's, to the last digit:
    the equilibrium gains nothing at N = 4 and about 0.32 points at N = 5."""
    optimal, upcard = bot("optimal", n, solved_exact), make_bot("upcard", n)
    ev = evaluate(n, optimal, upcard)
    dist = brute_force(n, optimal, upcard)
    assert isinstance(ev.expected_difference, Fraction)
    assert ev.distribution == dist
    assert ev.expected_difference == sum(d * p for d, p in dist.items())
    if n == 4:
        assert ev.expected_difference == 0
    else:
        assert 0.3 < ev.expected_difference < 0.33


def test_known_small_values():
    # 3 cards, "upcard+1" against "upcard": the six prize orders end 0,-1,0,-1,-1,0.
    ev = evaluate(3, make_bot("upcard+1", 3), make_bot("upcard", 3))
    assert (ev.expected_difference, ev.win, ev.draw, ev.loss) == (
        Fraction(-1, 2),
        0,
        Fraction(1, 2),
        Fraction(1, 2),
    )
    # "Bid N for the N of diamonds ... ensures that the other player cannot do better
    # than draw" (seed 000, smaller versions): upcard is never behind in 3-card GOPS.
    for other in OTHERS:
        assert evaluate(3, make_bot("upcard", 3), make_bot(other, 3)).loss == 0


@pytest.mark.parametrize("a,b", [("random", "upcard"), ("lowest", "upcard+1")])
def test_swapping_seats_negates(a, b):
    ab = evaluate(4, make_bot(a, 4), make_bot(b, 4))
    ba = evaluate(4, make_bot(b, 4), make_bot(a, 4))
    assert ab.expected_difference == -ba.expected_difference
    assert (ab.win, ab.draw, ab.loss) == (ba.loss, ba.draw, ba.win)


class FloatRandom(Bot):
    """The random bot with float probabilities: forces the float evaluation."""

    name, exact, uses_lead = "float-random", False, False

    def mix(self, position, player):
        hand = position.hands[player]
        return {c: 1 / len(hand) for c in hand}


def test_float_evaluation_within_its_error_bound():
    exact = evaluate(5, make_bot("random", 5), make_bot("upcard+1", 5))
    approx = evaluate(5, FloatRandom(), make_bot("upcard+1", 5))
    assert not approx.exact and 0 < approx.error_bound < 1e-10
    for field in ("expected_difference", "win", "draw", "loss"):
        assert abs(getattr(approx, field) - getattr(exact, field)) <= approx.error_bound


class CatchUp(Bot):
    """A bot that reads the score: highest card when behind, lowest otherwise."""

    name = "catch-up"  # uses_lead = True (the default)

    def mix(self, position, player):
        hand = position.hands[player]
        behind = (position.lead < 0) if player == 0 else (position.lead > 0)
        return {(max if behind else min)(hand): Fraction(1)}


def test_score_reading_bot_is_keyed_on_the_lead():
    for other in ("upcard", "random"):
        ev = evaluate(4, CatchUp(), make_bot(other, 4))
        assert ev.distribution == brute_force(4, CatchUp(), make_bot(other, 4))


class Cheater(Bot):
    name, uses_lead = "cheater", False

    def mix(self, position, player):
        return {99: Fraction(1)}


def test_invalid_mix_is_an_input_error():
    with pytest.raises(GopsInputError, match="card 99, not in its hand"):
        evaluate(3, Cheater(), make_bot("random", 3))
    with pytest.raises(GopsInputError, match="between 1 and 10"):
        evaluate(11, make_bot("random", 11), make_bot("random", 11))


# -- the command line ---------------------------------------------------------------------


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def test_evaluate_json_is_exact():
    code, out = run("evaluate", 4, "--bots", "optimal,upcard+1", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["exact"] and data["bots"] == ["optimal", "upcard+1"]
    assert Fraction(data["expected_difference"]) > 0
    assert sum(Fraction(p) for p in data["distribution"].values()) == 1


def test_evaluate_text_says_exact_or_float():
    code, out = run("evaluate", 4, "--bots", "optimal,upcard")
    assert code == 0 and "exact: rational arithmetic" in out
    assert "expected point difference  +0.000000 = 0" in out
    code, out = run("evaluate", 4, "--bots", "optimal,upcard", "--float")
    assert code == 0 and "NOT exact: the optimal bot plays the float64 equilibrium" in out
    assert "within" in out


@pytest.mark.parametrize(
    "args,message",
    [
        (("evaluate", 4, "--bots", "optimal,clever"), "unknown bot 'clever'"),
        (("evaluate", 4, "--bots", "optimal"), "exactly two bots"),
        (("evaluate", 0, "--bots", "random,lowest"), "between 1 and"),
        (("tournament", 4, "--bots", "random,lowest", "--games", 0), "at least 1"),
        (("tournament", 11, "--bots", "optimal,lowest"), "between 1 and 10"),
        (("tournament", 4, "--bots", "random"), "at least 2 bots"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, message):
    code, out = run(*args)
    assert code == 2
    assert out.count("\n") == 1 and out.startswith("gops: error: ") and message in out


# -- tournaments ----------------------------------------------------------------------------

GAMES = 600  # per pair; about 1 s for the 10 pairs at N = 4


def test_tournament_means_cover_the_exact_expectations():
    """Each pair's 95% interval of the mean should contain evaluate's exact expectation.

    With 10 pairs some miss at a 5% rate by chance; the seed is fixed, so we ask for at
    most one miss, and every exact value within the 99.99% interval (z = 3.89).
    """
    n, names = 4, ["optimal", "random", "upcard", "lowest", "highest"]
    results = tournament(n, names, GAMES, seed=2024)
    bots = {
        x: make_bot(x, n, arithmetic="float") if x == "optimal" else make_bot(x, n) for x in names
    }
    misses = 0
    for r in results:
        exact = float(evaluate(n, bots[r.bots[0]], bots[r.bots[1]]).expected_difference)
        lo, hi = r.mean_interval
        misses += not lo <= exact <= hi
        half = (hi - lo) / 2
        wide = half / 1.959963984540054 * 3.89
        assert abs(r.mean_difference - exact) <= wide + 1e-12, r
        assert r.wins + r.draws + r.losses == GAMES
    assert misses <= 1


def test_tournament_same_seed_same_output():
    args = ("tournament", 3, "--bots", "optimal,random,upcard", "--games", 50, "--seed", 7)
    first, second = run(*args), run(*args)
    assert first == second and first[0] == 0
    other = run("tournament", 3, "--bots", "optimal,random,upcard", "--games", 50, "--seed", 8)
    assert other[1] != first[1]


def test_tournament_json_shape():
    code, out = run("tournament", 3, "--bots", "lowest,highest", "--games", 5, "--json")
    assert code == 0
    data = json.loads(out)
    (pair,) = data["pairs"]
    assert pair["bots"] == ["lowest", "highest"]
    assert pair["wins"] + pair["draws"] + pair["losses"] == 5


def test_wilson_interval():
    # Wilson (1927): 0 successes in 10 trials -> [0, 0.2775]; symmetric around 1/2.
    assert wilson_interval(0, 10)[1] == pytest.approx(0.27753, abs=1e-5)
    lo, hi = wilson_interval(5, 10)
    assert lo + hi == pytest.approx(1, abs=1e-12)


# -- the win objective's optimal bot ------------------------------------------------------


@pytest.mark.parametrize("n", [4, 5])
@pytest.mark.parametrize("other", [b for b in NAMES if b != "optimal-win"])
def test_optimal_win_guarantees_its_value(n, other):
    """The win equilibrium guarantees P(win) - P(loss) >= 0 (its value) against any bot,
    exactly; a lead-reading bot, so the evaluation is keyed on the lead."""
    win_bot = make_bot("optimal-win", n)
    assert win_bot.exact and win_bot.uses_lead
    ev = evaluate(n, win_bot, make_bot(other, n))
    assert isinstance(ev.win, Fraction)
    assert ev.win - ev.loss >= 0
    if other in ("random", "lowest", "highest"):
        assert ev.win - ev.loss > 0
    if n == 4 and other != "random":
        assert ev.distribution == brute_force(n, win_bot, make_bot(other, n))


def test_optimal_win_beats_the_points_equilibrium_more_often():
    """Against the points equilibrium the win bot wins more often than it loses, while the
    points bot still gains in expected points (each optimises its own objective)."""
    ev = evaluate(5, make_bot("optimal-win", 5), make_bot("optimal", 5))
    assert ev.win > ev.loss
    assert ev.expected_difference <= 0
