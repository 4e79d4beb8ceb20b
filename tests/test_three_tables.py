"""exact.three.tables and exact.three.twoplayer: gops table / gops strategy for three
players, and the exact loss of the two-player equilibrium in the three-player game.

References, none of them the code under test: hand-derived positions (below), the rules
written out again here (:func:`score`), exact.play.three's independent exact evaluation
of seated bots, exact.three.certify's NashConv walk, and the invariant that no deviation
gains more than the certified NashConv bound.

Hand derivation at 2 cards (hands {1, 2} each, upcard u, the other prize w = 3 - u).  The
two-player equilibrium bids the upcard (with u = 2, bidding 2 wins 2 - 1 = +1 in point
difference against a 1, else 0: dominant; with u = 1, symmetrically, bid 1).  Let seat 0
bid the upcard and seats 1, 2 bid 2 with probability q each (independently):

split, q = u/(u+w) (the three-player equilibrium, tests/test_three.py): a player bidding 2
gets u(1 - q') and one bidding 1 gets w q' against two others each high w.p. q'; seat 0 is
high iff u = 2: u = 2 gives 2(1 - 2/3) = 2/3, u = 1 gives w q = 2/3: its value 2/3, the
equilibrium value: the loss is 0.  Seat 1 faces seat 0 (high iff u = 2) and seat 2 (high
w.p. q): u = 2, q = 2/3: high 1 (1-q) + 0 q = 1/3, low w/2 (1-q) + w q = 5/6; u = 1, q =
1/3: high u (1-q) + u/2 q = 5/6, low (w/2) q = 1/3.  Seat 1 plays q, so its value is 1/2
for both upcards and its best response 5/6: a gain of 1/3.

third, q = 1/2: a round-1 lone high or lone low bidder wins both prizes (3 points), the
others nothing.  Seat 0 (pure) is alone w.p. 1/4: 3/4, the equilibrium value: loss 0.  Seat
1 against a pure seat 0 and seat 2 at 1/2: bidding the other way from seat 0 makes it the
odd one out w.p. 1/2 (3/2); its mix at 1/2 gets 3/4: a gain of 3/4.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product

import pytest
from click.testing import CliRunner

import exact.three as three
from exact.cli import main
from exact.errors import GopsInputError
from exact.play.bots import Bot
from exact.play.three import evaluate_three
from exact.three.twoplayer import evaluate_profile, two_player_policy

#: Float mixes of the solver against a hand-derived rational (the solver's polish reaches
#: about 1e-16; values sum a few dozen terms).
TOL = 1e-12
#: The NashConv every reported solution is proven below.
EPSILON = 1e-9


@pytest.fixture(scope="module")
def solved():
    cache: dict = {}

    def get(n: int, rule: str, objective: str = "points"):
        if (n, rule, objective) not in cache:
            cache[n, rule, objective] = three.solve(n, rule, objective)
        return cache[n, rule, objective]

    return get


def score(u: int, bids, rule: str) -> tuple[Fraction, ...]:
    """One round's points by the rules (written out here from the rules write-up)."""
    top = max(bids)
    high = [i for i in range(3) if bids[i] == top]
    out = [Fraction(0)] * 3
    if len(high) == 1:
        out[high[0]] = Fraction(u)
    elif len(high) == 2 and rule == "split":
        for i in high:
            out[i] = Fraction(u, 2)
    elif len(high) == 2 and rule == "third":
        out[3 - sum(high)] = Fraction(u)
    return tuple(out)


# -- the exact walk against hand-derived profiles ---------------------------------------


def hand_policy(q_of_upcard):
    """Seat 0 bids the upcard; seats 1 and 2 bid 2 with probability q(u) (2 cards)."""

    def policy(hands, prizes, u):
        if len(prizes) == 1:
            return ([1], [1], [1])
        q = q_of_upcard(u)
        me = [Fraction(1), Fraction(0)] if u == 1 else [Fraction(0), Fraction(1)]
        return (me, [1 - q, q], [1 - q, q])

    return policy


@pytest.mark.parametrize(
    "rule, q, values, best",
    [
        ("split", lambda u: Fraction(u, 3), (Fraction(2, 3), Fraction(1, 2), Fraction(1, 2)),
         (Fraction(2, 3), Fraction(5, 6), Fraction(5, 6))),
        ("third", lambda u: Fraction(1, 2), (Fraction(3, 4),) * 3,
         (Fraction(3, 4), Fraction(3, 2), Fraction(3, 2))),
    ],
)  # fmt: skip
def test_walk_hand_derived_two_cards(rule, q, values, best):
    got = evaluate_profile(three.ThreeGame.parse(2, rule), hand_policy(q))
    assert got.values == values
    assert got.best == best


def test_loss_two_cards_hand_derived(solved):
    """The solver's own mixes at 2 cards: loss 0, exploitability 1/3 (split), 3/4 (third)."""
    for rule, gain, value in (("split", Fraction(1, 3), Fraction(2, 3)), ("third", 0.75, 0.75)):
        r = three.two_player_loss(solved(2, rule))
        assert abs(r.loss) <= TOL
        assert abs(r.equilibrium_value - value) <= TOL
        assert all(abs(g - gain) <= TOL for g in r.exploitability)


def test_two_player_mix_averages_the_opponents():
    """Hands {1,2} vs {1,2} and {2,3}, prizes {1,3}, upcard 3.  Against {1,2} bidding 2
    wins +2 or ties: bid 2.  Against {2,3} (next prize 1 forced) the point differences are
    bid 1: -4 (vs 2), -3 (vs 3); bid 2: -1, -4: bid 1 with 3/4.  Average: (3/8, 5/8)."""
    mix = two_player_policy(3)(((1, 2), (1, 2), (2, 3)), (1, 3), 3)
    assert mix == [Fraction(3, 8), Fraction(5, 8)]


class StoredMixBot(Bot):
    """A seat that plays the solution's stored float mixes as they are (for
    exact.play.three.evaluate_three, which reads floats exactly and rescales)."""

    name, exact, uses_lead = "stored", False, False

    def __init__(self, sol):
        self.sol = sol

    def mix(self, position, player):
        hands = tuple(tuple(sorted(h)) for h in position.hands)
        mixes = self.sol.mixes(hands, tuple(sorted(position.deck)), (0, 0, 0), position.upcard)
        return {c: float(p) for c, p in zip(hands[player], mixes[player])}


@pytest.mark.parametrize("rule, variant", [("split", "three"), ("third", "three-third")])
def test_equilibrium_values_agree_with_play_evaluation(solved, rule, variant):
    """Two exact evaluations of the same float policy agree exactly."""
    sol = solved(3, rule)
    r = three.two_player_loss(sol)
    bots = [StoredMixBot(sol)] * 3
    assert evaluate_three(3, variant, bots).points == r.equilibrium.values


@pytest.mark.parametrize("rule", ["split", "third", "discard"])
def test_loss_invariants_three_cards(solved, rule):
    """No deviation gains more than the certified NashConv: loss >= v* - B_0 >= -bound;
    the exact NashConv of the float policy is within its proven bound and agrees with
    certify's float estimate."""
    sol = solved(3, rule)
    report = three.certify(sol)
    r = three.two_player_loss(sol)
    exact_nashconv = sum(r.equilibrium.gains)
    assert 0 <= exact_nashconv <= Fraction(report.bound)
    assert abs(exact_nashconv - Fraction(report.estimate)) <= TOL
    assert r.best_response_value - r.equilibrium_value <= Fraction(report.bound)
    assert r.loss >= r.equilibrium_value - r.best_response_value
    assert r.loss > 0  # at 3 cards the two-player equilibrium loses under every rule
    assert all(g > 0 for g in r.exploitability)
    assert r.best_response_value == r.deviation.best[0]  # B_0 reads sigma*_-0 only
    assert all(abs(v - Fraction(w)) <= TOL for v, w in zip(r.equilibrium.values, report.values))


@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_loss_under_a_fixed_order_agrees_with_certify(order):
    """The prize order reaches both walks and the two-player solve alike."""
    sol = three.solve(3, "split", "points", order)
    report = three.certify(sol)
    r = three.two_player_loss(sol)
    assert abs(r.equilibrium_value - Fraction(report.values[0])) <= TOL
    assert abs(sum(r.equilibrium.gains) - Fraction(report.estimate)) <= TOL
    assert r.loss >= -Fraction(report.bound)


def test_two_player_loss_refuses_top(solved):
    with pytest.raises(GopsInputError, match="points objective"):
        three.two_player_loss(solved(2, "split", "top"))


# -- tables and strategies ----------------------------------------------------------------


def test_first_move_table_two_cards(solved):
    """Bid 2 with probability u/(u+w); each seat's value u w/(u+w) = 2/3 (split)."""
    fm = three.first_move_table(solved(2, "split"))
    for u, w in ((1, 2), (2, 1)):
        assert abs(fm.table[u][2] - u / (u + w)) <= TOL
        assert all(abs(v - u * w / (u + w)) <= TOL for v in fm.upcard_values[u])
    assert fm.report.bound <= EPSILON


def stage_payoffs(hands, prizes, u, bids, rule) -> tuple[Fraction, ...]:
    """Two cards left: the round's points plus the forced last round's."""
    (w,) = [p for p in prizes if p != u]
    last = tuple(next(c for c in h if c != b) for h, b in zip(hands, bids))
    return tuple(x + y for x, y in zip(score(u, bids, rule), score(w, last, rule)))


@pytest.mark.parametrize("rule", ["split", "third", "discard"])
def test_strategy_is_an_equilibrium_where_two_cards_are_left(solved, rule):
    """At every position with two cards left (the last round forced) the mixes shown are
    an equilibrium of the stage computed from the rules here, and the values its payoffs."""
    sol = solved(3, rule)
    report = three.certify(sol)
    pairs = [(1, 2), (1, 3), (2, 3)]
    for hands in product(pairs, repeat=3):
        for prizes in pairs:
            for u in prizes:
                st = three.strategy(sol, hands, prizes, u, report=report)
                check_stage(st, hands, prizes, u, rule)


def check_stage(st, hands, prizes, u, rule) -> None:
    mixes = [[st.mixes[i][c] for c in hands[i]] for i in range(3)]
    for i in range(3):
        deviation = []
        for a in range(2):
            total = 0.0
            for b in product(range(2), repeat=2):
                bids = list(b)
                bids.insert(i, a)
                q = 1.0
                for j in range(3):
                    if j != i:
                        q *= mixes[j][bids[j]]
                chosen = tuple(hands[j][bids[j]] for j in range(3))
                total += q * float(stage_payoffs(hands, prizes, u, chosen, rule)[i])
            deviation.append(total)
        value = sum(m * d for m, d in zip(mixes[i], deviation))
        assert abs(value - st.values[i]) <= TOL
        assert max(deviation) - value <= TOL


def test_strategy_hand_derived_position(solved):
    """Split, hands {1,3} {2,3} {1,2}, prizes {1,3}, upcard 3: seats 0 and 1 bid 3 and
    split it (3/2 each), seat 2 bids 1; then the 2s of seats 1 and 2 split the 1: values
    3/2, 2, 1/2 (seat 0 bidding 1 gets only the last prize, seat 1 bidding 2 likewise,
    seat 2 bidding 2 nothing)."""
    st = three.strategy(solved(3, "split"), ((3, 1), (2, 3), (1, 2)), (3, 1), 3)
    assert [st.mixes[i][c] for i, c in ((0, 3), (1, 3), (2, 1))] == [1.0, 1.0, 1.0]
    assert st.values == (1.5, 2.0, 0.5)
    assert st.report.bound <= EPSILON


@pytest.mark.parametrize(
    "hands, prizes, upcard, points, message",
    [
        (((1, 2), (1, 3)), (1, 2), 1, None, "three hands"),
        (((1, 2), (1, 3), (2, 3)), (1, 3), 2, None, "not among the prizes"),
        (((1, 2), (1, 3), (2, 4)), (1, 3), 1, None, "not between 1 and 3"),
        (((1, 2), (1, 3), (1, 2, 3)), (1, 3), 1, None, "holds 3 cards"),
        (((1, 2), (1, 3), (2, 2)), (1, 3), 1, None, "a card twice"),
        (((1, 2), (1, 3), (2, 3)), (1, 3), 1, (0, 1, 0), "top objective only"),
    ],
)
def test_strategy_refuses_malformed_positions(solved, hands, prizes, upcard, points, message):
    with pytest.raises(GopsInputError, match=message):
        three.strategy(solved(3, "split"), hands, prizes, upcard, points)


def test_strategy_top_objective_reads_the_points(solved):
    sol = solved(3, "split", "top")
    with pytest.raises(GopsInputError, match="more than the prizes gone"):
        three.strategy(sol, ((1, 3), (2, 3), (1, 2)), (1, 3), 3, (0, 0, 3))
    with pytest.raises(GopsInputError, match="not reachable"):
        three.strategy(sol, ((1, 3), (2, 3), (1, 2)), (1, 3), 3, (2, 0, 0))
    st = three.strategy(sol, ((1, 3), (2, 3), (1, 2)), (1, 3), 3, (0, 0, 2))
    assert abs(sum(st.values) - 1) <= TOL  # the chances of finishing on top add up to 1


# -- the command line ---------------------------------------------------------------------


def test_cli_table_json_states_epsilon():
    result = CliRunner().invoke(main, ["table", "2", "--players", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["nashconv"]["epsilon"] == EPSILON and data["nashconv"]["certified"] is True
    assert abs(data["by_upcard"]["2"][1] - 2 / 3) <= TOL  # bid 2 on the 2: u/(u+w)
    assert data["game"] == {
        "players": 3,
        "n": 2,
        "tie_rule": "split",
        "objective": "points",
        "order": "random",
    }


def test_cli_table_text():
    result = CliRunner().invoke(main, ["table", "2", "--players", "3", "--tie-rule", "third"])
    assert result.exit_code == 0, result.output
    assert "tie rule third" in result.output
    assert "0.5000" in result.output  # third: bid 2 with probability 1/2
    assert "(proven; below epsilon 1e-09)" in result.output


def test_cli_strategy_hand_derived_position():
    args = ["strategy", "--players", "3", "--hands", "1,3", "2,3", "1,2"]
    result = CliRunner().invoke(main, [*args, "--deck", "1,3", "--upcard", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["values"] == [1.5, 2.0, 0.5]
    assert data["mixes"][2] == {"1": 1.0, "2": 0.0}
    assert data["nashconv"]["epsilon"] == EPSILON and data["nashconv"]["certified"] is True


@pytest.mark.parametrize(
    "args",
    [
        ["--hands", "1,3", "2,3", "--deck", "1,3", "--upcard", "3"],
        ["--hands", "1,3", "2,3", "1,2", "--deck", "1,3", "--upcard", "2"],
        ["--hands", "1,3", "2,3", "1,x", "--deck", "1,3", "--upcard", "3"],
        ["--hands", "1,3", "2,3", "1,2,3", "--deck", "1,3", "--upcard", "3"],
        ["--hands", "1,3", "2,3", "1,2", "--deck", "1,3", "--upcard", "3", "--n", "9"],
        ["--hands", "1,3", "2,3", "1,2", "--deck", "1,3", "--upcard", "3", "--points", "0,1,0"],
        ["--hands", "1,3", "2,3", "1,2", "--deck", "1,3", "--upcard", "3", "--order", "ascending"],
        ["--hands", "1,3", "2,3", "1,2", "--deck", "1,3", "--upcard", "3", "--objective", "top",
         "--points", "0,a,0"],
    ],
)  # fmt: skip
def test_cli_strategy_bad_input_one_line_exit_2(args):
    result = CliRunner().invoke(main, ["strategy", "--players", "3", *args])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_cli_table_bad_n_exit_2():
    result = CliRunner().invoke(main, ["table", "9", "--players", "3"])
    assert result.exit_code == 2 and "between 1 and 7" in result.output


@pytest.mark.parametrize("command", ["table", "strategy", "solve"])
def test_two_player_help_names_three_player_form(command):
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0
    assert f"gops {command} --players 3 --help" in " ".join(result.output.split())


def test_two_player_commands_unchanged():
    table = CliRunner().invoke(main, ["table", "3", "--players", "2", "--quiet", "--json"])
    assert table.exit_code == 0, table.output
    assert json.loads(table.output)["by_upcard"]["3"] == [0.0, 0.0, 1.0]  # bid the upcard
    args = ["strategy", "--mine", "1,2", "--theirs", "1,2", "--deck", "1,3", "--upcard", "3"]
    strategy = CliRunner().invoke(main, args)
    assert strategy.exit_code == 0, strategy.output
