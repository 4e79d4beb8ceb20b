"""The value of adaptivity (exact.analysis.adaptivity): the game "an adaptive GOPS player
against one who commits to every bid up front", against a perfect-recall sequence-form LP
written out here, the independent best-reply figures of the review, and the inequalities
that tie it to the fixed-bid game."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations
from math import factorial

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

import exact
from exact.analysis.adaptivity import (
    ADAPTIVITY_VALUE_MAX_N,
    best_reply,
    gains_against_bijections,
    solve_adaptivity,
)
from exact.analysis.fixed_bids import adaptivity_gain, solve_fixed_bids
from exact.errors import GopsInputError

#: HiGHS's answer to the sequence-form LP against the exact value (points per game).
TOL = 1e-8

#: The exact values (solve_adaptivity, verified there); N = 5 is checked by the slow test.
VALUES = {
    1: Fraction(0),
    2: Fraction(0),
    3: Fraction(0),
    4: Fraction(262577461, 338197176),
    5: Fraction(
        22420378951299687259440553338053006857844341, 17432186294902307882245702804700767278280830
    ),
}


def sequence_form_value(n: int) -> float:
    """max over A's perfect-recall realisation plans of min over C's bijections of A's
    expected points (Koller, Megiddo & von Stengel 1996), by HiGHS.  A's information set
    is its whole history (prize, its bid, C's bid per round) and the upcard; a sequence is
    an information set and a bid; r(empty) = 1 and sum_a r(I, a) = r(parent of I)."""
    seqs: dict = {}

    def walk(history, hand):  # every information set of A, depth first
        used_prizes = {p for p, _, _ in history}
        used_theirs = {b for _, _, b in history}
        for p in range(1, n + 1):
            if p in used_prizes:
                continue
            for a in hand:
                seqs[(history, p, a)] = len(seqs)
                for b in range(1, n + 1):
                    if b not in used_theirs and len(history) + 1 < n:
                        walk(history + ((p, a, b),), hand - {a})

    walk((), frozenset(range(1, n + 1)))
    rows, cols, vals, rhs, infosets = [], [], [], [], {}
    for (history, p, _), i in seqs.items():
        infosets.setdefault((history, p), []).append(i)
    for r, ((history, _p), members) in enumerate(infosets.items()):
        for i in members:
            rows.append(r), cols.append(i), vals.append(1.0)
        if history:
            *before, (q, a, _b) = history
            rows.append(r), cols.append(seqs[(tuple(before), q, a)]), vals.append(-1.0)
        rhs.append(0.0 if history else 1.0)
    nv = len(seqs)
    a_eq = coo_matrix((vals, (rows, cols)), shape=(len(infosets), nv + 1))
    bijections = list(permutations(range(1, n + 1)))
    rows, cols, vals = [], [], []
    for j, s in enumerate(bijections):
        for (history, p, a), i in seqs.items():
            if all(s[q - 1] == b for q, _, b in history):  # C's bids so far are s's
                chance = factorial(n - len(history) - 1) / factorial(n)  # this prize order
                value = chance * p * ((a > s[p - 1]) - (a < s[p - 1]))
                if value:
                    rows.append(j), cols.append(i), vals.append(-value)
        rows.append(j), cols.append(nv), vals.append(1.0)
    a_ub = coo_matrix((vals, (rows, cols)), shape=(len(bijections), nv + 1))
    res = linprog(
        np.r_[np.zeros(nv), -1.0],
        A_ub=a_ub,
        b_ub=np.zeros(len(bijections)),
        A_eq=a_eq,
        b_eq=rhs,
        bounds=[(0, None)] * nv + [(None, None)],
        method="highs",
    )
    assert res.status == 0, res.message
    return -res.fun


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_value_against_the_perfect_recall_sequence_form(n):
    """The state LP forgets the order of the rounds and A's own past pairings; the
    sequence form remembers everything: the values agree (the reduction is sound)."""
    result = solve_adaptivity(n)
    assert result.value == VALUES[n]
    assert abs(sequence_form_value(n) - float(VALUES[n])) < TOL


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_the_exact_value_is_verified_both_ways(n):
    result = solve_adaptivity(n)
    assert isinstance(result.value, Fraction)
    assert sum(result.committed.values()) == 1 and min(result.committed.values()) > 0
    # A guarantees the value against every bijection (a plain game-tree walk) ...
    gains = gains_against_bijections(n, result.adaptive)
    assert min(gains) == result.value and len(gains) == factorial(n)
    # ... and no adaptive strategy gains more against C's mix (the DP's best reply).
    assert best_reply(n, result.committed)[0] == result.value


def test_adapting_is_worth_nothing_below_four_cards():
    """N <= 3: a committed mix holds every adaptive player to 0, the fixed-bid value."""
    for n in (1, 2, 3):
        assert solve_adaptivity(n).value == 0


@pytest.mark.parametrize("n, expected", [(4, Fraction(25, 24)), (5, Fraction(14633, 7200))])
def test_best_reply_to_todays_fixed_bid_equilibrium(n, expected):
    """Measured by an independent implementation (the hostile review, item 3): a best
    reply that knows today's fixed-bid equilibrium and updates its beliefs on the bids it
    has seen gains exactly 25/24 (N = 4) and 14633/7200 (N = 5) against it."""
    eq = solve_fixed_bids(n, "rational")
    gain, table = best_reply(n, eq.mix)
    assert gain == expected
    # The reply's own bids, walked through the game tree against the mix, gain as much.
    reply = {m: {a: Fraction(1)} for m, a in table.items()}
    walked = gains_against_bijections(n, reply, against=list(eq.mix))
    assert sum(p * g for p, g in zip(eq.mix.values(), walked)) == expected
    # The float DP agrees.
    fgain, _ = best_reply(n, {s: float(p) for s, p in eq.mix.items()})
    assert abs(fgain - float(expected)) < TOL


def test_the_value_sits_between_what_is_guaranteed_and_what_a_best_reply_gains():
    """min over bijections of any adaptive strategy's gain <= V <= an adaptive best
    reply's gain against any committed mix.  At N = 4: our GOPS equilibrium (an adaptive
    strategy, >= 0 against anything) <= V <= 25/24 (today's fixed-bid mix); and the gain
    of our GOPS equilibrium against that mix, the old "adaptivity" figure, is no bound on
    V in either direction, only <= 25/24."""
    from exact.analysis.evaluate import evaluate
    from exact.play.bots import FixedRuleBot, OptimalBot

    n, V = 4, VALUES[4]
    optimal = OptimalBot(exact.solve(n, arithmetic="rational"))
    gops_gains = [
        evaluate(
            n, optimal, FixedRuleBot("s", lambda hand, upcard, s=s: s[upcard - 1])
        ).expected_difference
        for s in permutations(range(1, n + 1))
    ]
    assert 0 <= min(gops_gains) <= V
    eq = solve_fixed_bids(n, "rational")
    assert V <= best_reply(n, eq.mix)[0] == Fraction(25, 24)
    old, bound = adaptivity_gain(eq, exact.solve(n, arithmetic="rational"))
    assert bound == 0 and old < V < Fraction(25, 24)
    # Every pure committed strategy is worse for C than its optimal mix.
    assert all(best_reply(n, {s: 1})[0] > V for s in permutations(range(1, n + 1)))


def test_the_checks_catch_a_wrong_answer():
    """Tamper tests: a committed mix moved off the optimum concedes more than V, and A's
    strategy with one mixed state made pure guarantees less."""
    result = solve_adaptivity(4)
    V = result.value
    (s1, p1), (s2, p2) = sorted(result.committed.items())[:2]
    moved = dict(result.committed)
    moved[s1], moved[s2] = p1 + p2, Fraction(0)
    assert best_reply(4, moved)[0] > V
    state = next(m for m, mix in result.adaptive.items() if len(mix) > 1)
    pure = dict(result.adaptive)
    pure[state] = {max(result.adaptive[state], key=result.adaptive[state].get): Fraction(1)}
    assert min(gains_against_bijections(4, pure)) < V
    with pytest.raises(GopsInputError, match="nonnegative"):
        best_reply(3, {(1, 2, 3): -1})


def test_beyond_the_limit_is_refused():
    with pytest.raises(GopsInputError, match=f"between 1 and {ADAPTIVITY_VALUE_MAX_N}"):
        solve_adaptivity(ADAPTIVITY_VALUE_MAX_N + 1)


@pytest.mark.slow
def test_the_value_at_five_cards():
    """N = 5: one LP of 44,025 bids (about 15-30 s on the 2-core machine), then exact."""
    result = solve_adaptivity(5)
    assert result.value == VALUES[5]
    assert Fraction(397573, 10**6) < result.value < Fraction(14633, 7200)
    assert min(gains_against_bijections(5, result.adaptive)) == result.value
    assert best_reply(5, result.committed)[0] == result.value
