"""The face-up declarations game (exact.declarations, certificates.declarations).

References, none of them the solver: positions derived by hand from the "Psychological
JuJitsu" write-up's sample game; the whole game's sequence form (Koller, Megiddo & von
Stengel 1996) built here from the rules, on card values and full histories, and solved by
scipy's HiGHS; the independent checker; invariants (swapping the players negates).
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import msgpack
import numpy as np
import pytest
from click.testing import CliRunner
from flint import fmpq
from scipy.optimize import linprog
from scipy.sparse import lil_matrix

from certificates import check
from exact.cli import main
from exact.declarations import solve
from exact.declarations.rules import Position, position_of
from exact.declarations.solver import FAMILIES, solve_tables
from exact.errors import GopsInputError

#: HiGHS's answers are floats: agreement with the exact value within this.
HIGHS_TOLERANCE = 1e-7

# ---------------------------------------------------------------------------------------
# Hand-derived positions
# ---------------------------------------------------------------------------------------

#: The write-up's round 11: Scott (player 0) {6, 7, 8}, Charles {5, 7, 10}, the diamonds
#: 11, 6 and 4 left, Scott ahead 32 to 25.
JACK = position_of({6, 7, 8}, {5, 7, 10}, {11, 6, 4}, 7)


def _stage(tables, family, pos, upcard):
    stages = tables.stages[family][pos.key()]
    return next(s for s in stages if s.upcard == upcard)


def test_the_write_ups_jack_sealed_once_both_declared():
    """Write-up: on the jack "Scott was a 2-to-1 favorite. He could ... play his 6
    one-third of the time, and his 7 the rest of the time. Charles's best play would be to
    play his 10 two-thirds of the time, and his 7 one-third of the time ... Charles would
    win 1/3 of the time and lose 2/3": with the score fixed (sim) the stage is worth
    2/3 - 1/3, and those strategies are the computed ones."""
    t = solve_tables(13, True, JACK)
    st = _stage(t, "sim", JACK, 11)
    assert st.value == fmpq(1, 3)
    x, y, _ = st.bids
    assert list(x) == [fmpq(1, 3), fmpq(2, 3), 0]
    assert list(y) == [0, fmpq(1, 3), fmpq(2, 3)]


def test_the_write_ups_jack_face_up():
    """By hand from the write-up's reasoning: if Scott must show his bid first, Charles
    answers 6 with 7 and anything else with 10 and wins ("if Scott does not play his 6,
    Charles must play his 10"): -1.  If Charles shows first, Scott answers 10 with 6 ("Scott
    has a sure victory") and 5 or 7 with a higher card: +1."""
    t = solve_tables(13, True, JACK)
    assert _stage(t, "lead0", JACK, 11).value == -1
    assert _stage(t, "lead1", JACK, 11).value == 1


def test_the_write_ups_jack_nobody_declares():
    """By hand: the sealed bids on the jack lead to positions of two cards whose sure
    winner declares (worth +-2), except Scott 7 / Charles 10 (0: a matching-pennies
    guess, nobody declares) and Scott 8 / Charles 10 (-1/3); the matrix over Scott 6, 7, 8
    and Charles 5, 7, 10 is [[2, -2, 2], [2, 2, 0], [2, 2, -1/3]], worth 2/3 with Scott
    6 : 7 = 1 : 2 and Charles 7 : 10 = 1 : 2.  Declaring now would make the game worth 3:
    [[2/3, 3 * 1], [3 * -1, 3 * 1/3]] has the saddle point (no, no)."""
    t = solve_tables(13, True, JACK)
    st = _stage(t, "open", JACK, 11)
    assert st.bids[2] == fmpq(2, 3)
    assert list(st.bids[0]) == [fmpq(1, 3), fmpq(2, 3), 0]
    assert list(st.bids[1]) == [0, fmpq(1, 3), fmpq(2, 3)]
    assert list(st.entries) == [fmpq(2, 3), 3, -3, 1]
    assert st.value == fmpq(2, 3)
    assert (list(st.declare[0]), list(st.declare[1])) == ([1, 0], [1, 0])


def test_the_write_ups_last_two_rounds_score_two():
    """Write-up: "In the sample game, Scott could have made his last two bids face up,
    scoring 2": Scott {7, 8}, Charles {5, 7}, diamonds 6 and 4 left, Scott behind by 4
    (his 8 takes the 6, his 7 at least ties the 4).  Whichever diamond comes first, he
    declares and scores 2."""
    pos = position_of({7, 8}, {5, 7}, {4, 6}, -4)
    t = solve_tables(13, True, pos)
    assert t.value("open", pos) == 2
    for st in t.stages["open"][pos.key()]:
        assert st.declare[0][1] == 1  # Scott declares


def test_two_cards_never_declare():
    """By hand, N = 2: identical bids draw; 2 against 1 on the upcard u wins u and loses
    3 - u, so the sealed game on u = 2 is [[0, -1], [1, 0]] (saddle 2 v 2) and on u = 1
    [[0, 1], [-1, 0]] (saddle 1 v 1), worth 0; shown first, a bid is matched: 0.  Every
    declaration entry is 0, the game is a draw and scores nothing."""
    sol = solve(2, exact=True)
    assert sol.value == 0
    assert sol.earliest_declaration is None
    assert sol.stats.score_distribution == (1, 0, 0)


def test_three_cards_bid_the_prize_and_draw():
    """Write-up: with 3 cards "each player bids N for the N of diamonds. This ensures
    that the other player cannot do better than draw": the computed equilibrium draws
    every game, so nobody ever scores."""
    sol = solve(3, exact=True)
    assert sol.stats.score_distribution == (1, 0, 0, 0)
    assert sol.expected_score == 0


# ---------------------------------------------------------------------------------------
# The sequence form, built from the rules on card values (no canonical patterns, no DP)
# ---------------------------------------------------------------------------------------


class SequenceForm:
    """The game tree walked once: the payoff A[s0, s1] (chance included), and each
    player's information sets with their parent sequence and their actions' sequences."""

    def __init__(self):
        self.seqs = [{(): 0}, {(): 0}]
        self.infosets = [{}, {}]  # key -> (parent sequence, [sequence of each action])
        self.payoff: dict = {}

    def act(self, player, key, parent, actions):
        """The sequences of ``actions`` at information set ``key``."""
        if key not in self.infosets[player]:
            seqs = []
            for a in actions:
                seqs.append(len(self.seqs[player]))
                self.seqs[player][(key, a)] = seqs[-1]
            self.infosets[player][key] = (parent, seqs)
        return self.infosets[player][key][1]


def _walk(sf, hands, prizes, lead, mode, stake, hist, seq, p):
    """Every history from here.  ``mode``: None (nobody declared), "both", 0 or 1 (that
    player declared first); ``seq``: each player's last sequence; ``p``: chance."""
    if not prizes:
        s = (lead > 0) - (lead < 0)
        key = (seq[0], seq[1])
        sf.payoff[key] = sf.payoff.get(key, 0.0) + p * stake * s
        return
    k = len(prizes)
    for u in sorted(prizes):
        h = hist + (("u", u),)
        if mode is None and k >= 2:
            d0 = sf.act(0, ("d", h), seq[0], (0, 1))
            d1 = sf.act(1, ("d", h), seq[1], (0, 1))
            for a in (0, 1):
                for b in (0, 1):
                    new = None if not (a or b) else "both" if a and b else (0 if a else 1)
                    _bids(
                        sf,
                        hands,
                        prizes,
                        lead,
                        u,
                        new,
                        k if new is not None else 1,
                        h + (("d", a, b),),
                        (d0[a], d1[b]),
                        p / k,
                    )
        else:
            _bids(sf, hands, prizes, lead, u, mode, stake, h, seq, p / k)


def _bids(sf, hands, prizes, lead, u, mode, stake, h, seq, p):
    cards = [sorted(hands[0]), sorted(hands[1])]

    def on(a, b, seq2):
        new_hands = (hands[0] - {a}, hands[1] - {b})
        new_lead = lead + (u if a > b else -u if a < b else 0)
        _walk(sf, new_hands, prizes - {u}, new_lead, mode, stake, h + (("b", a, b),), seq2, p)

    if mode in (0, 1):  # the leader bids, the other sees it and replies
        first = sf.act(mode, ("b", h), seq[mode], cards[mode])
        for i, c in enumerate(cards[mode]):
            other = 1 - mode
            reply = sf.act(other, ("r", h, c), seq[other], cards[other])
            for j, r in enumerate(cards[other]):
                pair = (c, r) if mode == 0 else (r, c)
                seq2 = (first[i], reply[j]) if mode == 0 else (reply[j], first[i])
                on(*pair, seq2)
    else:  # sealed (nobody declared, or both in the same round)
        s0 = sf.act(0, ("b", h), seq[0], cards[0])
        s1 = sf.act(1, ("b", h), seq[1], cards[1])
        for i, a in enumerate(cards[0]):
            for j, b in enumerate(cards[1]):
                on(a, b, (s0[i], s1[j]))


def sequence_form_value(mine, theirs, prizes, lead) -> float:
    """max_{x, q} q_root  s.t.  E x = e, x >= 0, F^T q <= A^T x (the sequence-form LP of
    Koller, Megiddo & von Stengel 1996), by HiGHS."""
    sf = SequenceForm()
    _walk(
        sf, (frozenset(mine), frozenset(theirs)), frozenset(prizes), lead, None, 1, (), (0, 0), 1.0
    )
    n0, n1 = len(sf.seqs[0]), len(sf.seqs[1])
    m0, m1 = len(sf.infosets[0]) + 1, len(sf.infosets[1]) + 1
    # Variables: x (n0 sequences of player 0), q (m1 values: P1's root and information sets).
    E = lil_matrix((m0, n0 + m1))
    E[0, 0] = 1
    for r, (parent, seqs) in enumerate(sf.infosets[0].values(), 1):
        E[r, parent] = -1
        for s in seqs:
            E[r, s] = 1
    e = np.zeros(m0)
    e[0] = 1
    # One row per sequence t of player 1: sum over its information sets' q, minus (A^T x)_t.
    G = lil_matrix((n1, n0 + m1))
    G[0, n0] = 1
    for r, (parent, seqs) in enumerate(sf.infosets[1].values(), 1):
        G[parent, n0 + r] -= 1
        for s in seqs:
            G[s, n0 + r] += 1
    for (s0, s1), a in sf.payoff.items():
        G[s1, s0] -= a
    c = np.zeros(n0 + m1)
    c[n0] = -1
    bounds = [(0, None)] * n0 + [(None, None)] * m1
    res = linprog(
        c, A_ub=G.tocsr(), b_ub=np.zeros(n1), A_eq=E.tocsr(), b_eq=e, bounds=bounds, method="highs"
    )
    assert res.status == 0, res.message
    return -res.fun


SEQUENCE_FORM_CASES = [
    pytest.param((1, 2, 3), (1, 2, 3), (1, 2, 3), 0, id="N=3 start"),
    pytest.param((2, 3), (1, 2), (1, 2), 0, id="a dominating hand"),
    pytest.param((1, 3, 5), (2, 3, 4), (1, 2, 4), 1, id="a sure win"),
    pytest.param((2, 3, 6), (1, 3, 5), (1, 4, 6), -1, id="behind by 1"),
    pytest.param((2, 3, 5), (2, 3, 6), (3, 5, 6), -1, id="a weaker hand"),
    pytest.param((1, 4, 6), (1, 2, 5), (3, 4, 5), 1, id="ahead by 1"),
    pytest.param((2, 4, 5), (2, 3, 6), (4, 5, 6), 0, id="even, uneven hands"),
]


@pytest.mark.parametrize("mine, theirs, prizes, lead", SEQUENCE_FORM_CASES)
def test_the_dp_equals_the_whole_games_sequence_form(mine, theirs, prizes, lead):
    """The backward induction (subgames solved apart, canonical patterns, rules' leaves)
    against the whole game's sequence-form LP over full histories and card values."""
    pos = position_of(mine, theirs, prizes, lead)
    exact = solve_tables(6, True, pos).value("open", pos)
    assert abs(float(exact) - sequence_form_value(mine, theirs, prizes, lead)) < HIGHS_TOLERANCE


def test_the_sequence_form_sees_an_uneven_position():
    """The comparison above is not trivial: the uneven positions are worth neither a draw
    nor a sure result (no integer), and differ from each other."""
    values = {round(sequence_form_value(*case.values), 6) for case in SEQUENCE_FORM_CASES[3:]}
    assert len(values) == 4 and all(abs(v - round(v)) > 0.05 for v in values)


# ---------------------------------------------------------------------------------------
# Invariants and arithmetic
# ---------------------------------------------------------------------------------------


def test_swapping_the_players_negates_every_value():
    """open(A, B, P, d) = -open(B, A, P, -d), sim likewise, lead0(A, B, P, d) =
    -lead1(B, A, P, -d), over every position reached at N = 4."""
    t = solve_tables(4, True)
    mirror = {"open": "open", "sim": "sim", "lead0": "lead1", "lead1": "lead0"}
    checked = 0
    for family in FAMILIES:
        for (m, th, p, d), (v, _) in t.values[family].items():
            other = t.values[mirror[family]].get((th, m, p, -d))
            if other is not None:
                assert other[0] == -v
                checked += 1
    assert checked > 1000


def test_float_values_lie_within_their_radii():
    """Every float value at N = 4, in every family, within its proven radius of the exact."""
    exact, flt = solve_tables(4, True), solve_tables(4, False)
    for family in FAMILIES:
        for key, (v, _) in exact.values[family].items():
            f, r = flt.values[family][key]
            assert abs(Fraction(f) - Fraction(int(fmpq(v).p), int(fmpq(v).q))) <= Fraction(r)
            assert r < 1e-12


def _play_out(tables, hands, prizes, points, mode, first, rnd, p, out):
    """Brute force over the whole game tree of card values and points (no canonical
    positions, no merged states), every choice drawn from the computed equilibrium's
    stages as the rules of docs/declarations.md read them: ``mode`` is who bids face up
    (None: nobody declared; "both"; 0 or 1: that player leads), ``first`` the round of
    the earliest declaration (None: none yet).  Adds p to ``out`` per (first, score,
    signed score)."""
    n = tables.n
    left = sum(prizes)
    diff = points[0] - points[1]
    if abs(diff) > left or not prizes:
        if mode is None and prizes and len(prizes) > 1:
            first = rnd  # the sure winner declares at once (the value O assumes it)
        score = n - first + 1 if first is not None else 1  # rule 2: the rounds face up
        winner = (diff > 0) - (diff < 0)
        out[first, score if winner else 0, winner * score] += p
        return
    mine, theirs = sorted(hands[0]), sorted(hands[1])
    key = position_of(mine, theirs, prizes, diff).key()
    k = len(prizes)

    def bid(u, i, j, q, mode_, first_):
        u_points = [0, 0]
        if i != j:
            u_points[0 if i > j else 1] = u
        _play_out(
            tables,
            (hands[0] - {i}, hands[1] - {j}),
            prizes - {u},
            (points[0] + u_points[0], points[1] + u_points[1]),
            mode_,
            first_,
            rnd + 1,
            q,
            out,
        )

    def sealed(u, stage_bids, q, mode_, first_):
        x, y, _ = stage_bids
        for a, i in enumerate(mine):
            for b, j in enumerate(theirs):
                if x[a] * y[b] != 0:
                    bid(u, i, j, q * x[a] * y[b], mode_, first_)

    def face_up(u, leader, stage, q, first_):
        hand_l, hand_r = (mine, theirs) if leader == 0 else (theirs, mine)
        shown, reply = hand_l[stage.leader], hand_r[stage.replies[stage.leader]]
        bid(u, *((shown, reply) if leader == 0 else (reply, shown)), q, leader, first_)

    for idx, u in enumerate(sorted(prizes)):
        q = p / k
        if k == 1:  # the bids are forced; a declaration now changes nothing
            bid(u, mine[0], theirs[0], q, mode, first)
        elif mode == "both":
            sealed(u, tables.stages["sim"][key][idx].bids, q, "both", first)
        elif mode in (0, 1):
            face_up(u, mode, tables.stages[f"lead{mode}"][key][idx], q, first)
        else:
            st = tables.stages["open"][key][idx]
            x, y, _ = st.declare
            sealed(u, st.bids, q * x[0] * y[0], None, None)
            for leader, w in ((0, x[1] * y[0]), (1, x[0] * y[1])):
                if w != 0:
                    face_up(u, leader, tables.stages[f"lead{leader}"][key][idx], q * w, rnd)
            if x[1] * y[1] != 0:
                sealed(u, tables.stages["sim"][key][idx].bids, q * x[1] * y[1], "both", rnd)


def test_four_cards_declare_from_round_two():
    """N = 4: the path statistics equal a brute force over the whole game tree of card
    values and points (``_play_out``, its own scoring by rule 2), which also reproduces
    the value (equilibrium play earns it); the first declaration comes in round 2."""
    sol = solve(4, exact=True)
    st = sol.stats
    out: dict = defaultdict(lambda: fmpq(0))
    cards = frozenset(range(1, 5))
    _play_out(sol.tables, (cards, cards), cards, (0, 0), None, None, 1, fmpq(1), out)
    assert sum(out.values()) == 1
    assert sum(p * signed for (_, _, signed), p in out.items()) == sol.value == 0
    by_round = [sum(p for (r, _, _), p in out.items() if r == rnd) for rnd in range(1, 5)]
    scores = [sum(p for (_, s, _), p in out.items() if s == score) for score in range(5)]
    assert list(st.declare_by_round) == by_round
    assert list(st.score_distribution) == scores
    assert st.expected_score == sum(p * s for (_, s, _), p in out.items())
    assert st.earliest_declaration == 2
    assert by_round[0] == 0 and by_round[1] > 0
    # A first declaration in round r makes the game worth N - r + 1 to its winner, and a
    # declarer is a sure winner (test below), so no such game is drawn.
    assert st.declare_by_round[1] == st.score_distribution[3]
    assert st.declare_by_round[2] == st.score_distribution[2]


def test_the_brute_force_earns_the_value_of_an_uneven_position():
    """The reference above, from round 2 of N = 4 (hands 1, 2, 4 against 2, 3, 4, prizes
    1, 3, 4, player 0 ahead by 2): equilibrium play earns the position's value, -365/936,
    so its scoring is the solver's game."""
    mine, theirs, prizes = {1, 2, 4}, {2, 3, 4}, {1, 3, 4}
    pos = position_of(mine, theirs, prizes, 2)
    tables = solve_tables(4, True, pos)
    out: dict = defaultdict(lambda: fmpq(0))
    hands = (frozenset(mine), frozenset(theirs))
    _play_out(tables, hands, frozenset(prizes), (2, 0), None, None, 2, fmpq(1), out)
    assert sum(out.values()) == 1
    assert sum(p * signed for (_, _, signed), p in out.items()) == tables.value("open", pos)
    assert tables.value("open", pos) == fmpq(-365, 936)


def test_the_equilibrium_declares_only_when_sure():
    """N = 4: wherever the computed equilibrium declares with positive probability, the
    declarer's face-up game is won for certain (L0 = 1 for player 0, L1 = -1 for player 1)
    (docs/declarations.md, "When declaring pays"); and such stages exist."""
    t = solve_tables(4, True)
    declaring = 0
    for key, stages in t.stages["open"].items():
        for idx, st in enumerate(stages):
            x, y, _ = st.declare
            if x[1] > 0:
                assert t.stages["lead0"][key][idx].value == 1
                declaring += 1
            if y[1] > 0:
                assert t.stages["lead1"][key][idx].value == -1
                declaring += 1
    assert declaring > 100


@pytest.mark.slow
def test_the_six_card_numbers_of_the_docs():
    """docs/declarations.md quotes the N = 6 statistics outside cog (a minute to compute):
    recomputed here, rounded as shown."""
    page = (Path(__file__).parent.parent / "docs" / "declarations.md").read_text()
    st = solve(6, exact=True).stats
    rounds = ", ".join(
        f"{r}: {float(p):.4f}" for r, p in enumerate(st.declare_by_round, 1) if r > 2 and p
    )
    shown = " ".join(page.split())
    assert st.earliest_declaration == 2
    assert f"in round 2 with probability {float(st.declare_by_round[1]):.4f}, {rounds}," in shown
    assert f"expected score is {float(st.expected_score):.4f};" in shown
    assert f"drawn with probability {float(st.score_distribution[0]):.4f}." in shown


def test_bad_input_is_one_line():
    with pytest.raises(GopsInputError, match="between 1 and 6"):
        solve(7, exact=True)
    with pytest.raises(GopsInputError, match="exact"):
        solve(3, certificate="x.cert")
    with pytest.raises(GopsInputError, match="exact=True"):
        solve(3).expected_score  # noqa: B018 - the property raises
    with pytest.raises(GopsInputError, match="as many cards"):
        position_of({1, 2}, {1}, {1, 2})


# ---------------------------------------------------------------------------------------
# Certificates
# ---------------------------------------------------------------------------------------


def _objects(path):
    with open(path, "rb") as fh:
        return list(msgpack.Unpacker(fh, raw=False))


def _write(path, objects):
    with open(path, "wb") as fh:
        for obj in objects:
            fh.write(msgpack.packb(obj, use_bin_type=True))


@pytest.fixture(scope="module")
def cert4(tmp_path_factory):
    path = tmp_path_factory.mktemp("decl") / "decl4.cert"
    solve(4, exact=True, certificate=path)
    return path


def test_a_certificate_is_valid(cert4):
    verdict = check(cert4)
    assert verdict.ok and verdict.root_value == 0
    assert verdict.message.startswith("valid: N=4 face-up declarations")


def _first(objects, family, mixed_in=None):
    """Index of the first record of ``family`` (with a mixed vector at ``mixed_in``)."""
    for i, obj in enumerate(objects):
        if type(obj) is list and obj[0] == family:
            if mixed_in is None:
                return i
            for stage in obj[6]:
                if sum(1 for a in stage[mixed_in][0] if a) > 1:
                    return i
    raise AssertionError("no such record")


def _tamper(path, tmp_path, change):
    objects = _objects(path)
    change(objects)
    out = tmp_path / "tampered.cert"
    _write(out, objects)
    return check(out)


def test_a_changed_probability_is_rejected(cert4, tmp_path):
    """A mixed strategy moved onto its first card: no pure strategy guarantees the value
    (the solver takes a pure saddle point whenever there is one)."""

    def change(objects):
        rec = objects[_first(objects, "sim", mixed_in=1)]
        for stage in rec[6]:
            nums, d = stage[1]
            if sum(1 for a in nums if a) > 1:
                first = next(i for i, a in enumerate(nums) if a)
                stage[1] = [[d if i == first else 0 for i in range(len(nums))], d]
                return

    verdict = _tamper(cert4, tmp_path, change)
    assert verdict.code == 1 and "x gets" in verdict.message
    assert "\n" not in verdict.message


def test_a_wrong_value_is_rejected(cert4, tmp_path):
    def change(objects):
        rec = objects[_first(objects, "lead0")]
        u, (num, den) = rec[6][0]
        rec[6][0] = [u, [num + 1, den]]

    verdict = _tamper(cert4, tmp_path, change)
    assert verdict.code == 1 and "face-up round is worth" in verdict.message


def test_a_wrong_record_value_is_rejected(cert4, tmp_path):
    def change(objects):
        rec = objects[_first(objects, "open")]
        num, den = rec[5]
        rec[5] = [num + 1, den]

    verdict = _tamper(cert4, tmp_path, change)
    assert verdict.code == 1 and "not the mean" in verdict.message


def test_a_wrong_declaration_value_is_rejected(cert4, tmp_path):
    """The declaration game's value raised by 1 and the record's mean with it: only the
    2 x 2 game's inequalities can catch it."""

    def change(objects):
        rec = objects[_first(objects, "open")]
        k = len(rec[6])
        stage = rec[6][0]
        num, den = stage[6]
        stage[6] = [num + den, den]
        num, den = rec[5]
        rec[5] = [num * k + den, den * k]

    verdict = _tamper(cert4, tmp_path, change)
    assert verdict.code == 1 and "declare:" in verdict.message


def test_a_missing_record_is_rejected(cert4, tmp_path):
    def change(objects):
        i = _first(objects, "open")  # a level-2 record (levels are in increasing order)
        del objects[i]
        objects[i - 1 - next(j for j in range(i) if type(objects[i - 1 - j]) is dict)][
            "records"
        ] -= 1
        objects[-1]["records"] -= 1

    verdict = _tamper(cert4, tmp_path, change)
    assert verdict.code == 1 and "has no record" in verdict.message


def test_a_corrupted_file_is_unreadable(cert4, tmp_path):
    data = cert4.read_bytes()
    out = tmp_path / "cut.cert"
    out.write_bytes(data[: len(data) // 2])
    run = subprocess.run(
        [sys.executable, "-m", "certificates", str(out), "--quiet"], capture_output=True, text=True
    )
    assert run.returncode == 2
    assert run.stdout.startswith("unreadable:") and run.stdout.count("\n") == 1


def _integer(a: int):
    """An Integer as FORMAT.md encodes it: a msgpack int in int64, else a minimal
    two's-complement big-endian bin."""
    if -(2**63) <= a < 2**63:
        return a
    return a.to_bytes((a if a >= 0 else ~a).bit_length() // 8 + 1, "big", signed=True)


def _as_int(obj) -> int:
    return obj if type(obj) is int else int.from_bytes(obj, "big", signed=True)


def test_an_inflated_strategy_is_beyond_what_a_valid_certificate_holds(cert4, tmp_path):
    """A level-2 strategy scaled by 2^(2^20): the same probabilities, so every inequality
    still holds, but a 2 x 2 game of values in {-1, 0, 1} has extreme strategies of at
    most 6 bits (Shapley & Snow 1950, Hadamard's inequality: certificates/declarations.py),
    so the 1-Mbit Integers are refused (exit 2) before any arithmetic, in one short line."""
    scale = 1 << (1 << 20)

    def change(objects):
        rec = objects[_first(objects, "sim")]
        nums, d = rec[6][0][1]
        rec[6][0][1] = [[_integer(_as_int(a) * scale) for a in nums], _integer(_as_int(d) * scale)]

    verdict = _tamper(cert4, tmp_path, change)
    assert verdict.code == 2, verdict.message
    assert "an Integer of 1,048,57" in verdict.message and "beyond the 6 bits" in verdict.message
    assert len(verdict.message) < 300 and "\n" not in verdict.message


def test_a_lead_beyond_the_points_of_n_cards_is_one_short_line(cert4, tmp_path):
    """A 5,001-digit lead: more points than 4 cards hold (10), refused (exit 2) in a line
    that shows it shortened, not a 5,001-digit message or an error of str()."""

    def change(objects):
        objects[_first(objects, "sim")][4] = _integer(10**5000)

    verdict = _tamper(cert4, tmp_path, change)
    assert verdict.code == 2, verdict.message
    assert "lead ~1e+5000 (about 5,001 digits) is beyond the 10 points of 4 cards" in (
        verdict.message
    )
    assert len(verdict.message) < 200


@pytest.fixture(scope="module")
def cert5(tmp_path_factory):
    path = tmp_path_factory.mktemp("decl") / "decl5.cert"
    solve(5, exact=True, certificate=path)
    return path


def test_a_wrong_value_of_many_digits_gets_a_short_verdict(cert5, tmp_path):
    """The longest record value of the N = 5 certificate (a level-4 mean of 181 bits)
    raised by 1 / its denominator: not the mean of its stages (exit 1), and the verdict
    shows it reduced, to 10 significant digits with its digit counts, not in full."""
    changed = []

    def change(objects):
        def size(rec):
            return max(abs(_as_int(a)).bit_length() for a in rec[5])

        rec = max((obj for obj in objects if type(obj) is list), key=size)
        assert size(rec) == 181
        num, den = rec[5]
        rec[5] = [_integer(_as_int(num) + 1), den]
        changed.append((rec[:5], Fraction(_as_int(num) + 1, _as_int(den))))

    verdict = _tamper(cert5, tmp_path, change)
    (family, *key), value = changed[0]
    digits = len(str(abs(value.numerator))), len(str(value.denominator))
    assert min(digits) > 50
    assert verdict.code == 1 and verdict.message == (
        f"invalid: level 4, {family} {key}: value ~{float(value):.10g} "
        f"({digits[0]}-digit/{digits[1]}-digit fraction) is not the mean of its stages"
    )


def test_the_command_line_checker_accepts_it(cert4):
    run = subprocess.run(
        [sys.executable, "-m", "certificates", str(cert4), "--quiet"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0 and run.stdout.startswith("valid: N=4 face-up declarations")


# ---------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------


def test_gops_solve_variant_declarations_json(tmp_path):
    cert = tmp_path / "c.cert"
    args = [
        "solve",
        "4",
        "--variant",
        "declarations",
        "--exact",
        "--json",
        "--certificate",
        str(cert),
    ]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    got = json.loads(out.output)
    assert got["value"] == "0" and got["earliest_declaration"] == 2
    assert Fraction(got["expected_score"]) == sum(
        s * Fraction(p) for s, p in enumerate(got["score_distribution"])
    )
    assert check(cert).ok


def test_gops_solve_variant_declarations_overwrites_only_with_force(tmp_path):
    """The rule of gops certify and gops imperfect certify: an existing certificate FILE
    is refused (one line, exit 2, before the solve) unless --force."""
    cert = tmp_path / "c.cert"
    cert.write_bytes(b"precious")
    args = ["solve", "3", "--variant", "declarations", "--exact", "--certificate", str(cert)]
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr == f"gops: error: {cert} exists; pass --force to overwrite it\n"
    assert cert.read_bytes() == b"precious"
    forced = CliRunner().invoke(main, [*args, "--force"])
    assert forced.exit_code == 0, forced.output
    verdict = check(cert)
    assert verdict.ok and verdict.n == 3 and verdict.records == 88


def test_gops_solve_variant_declarations_certificate_to_stdout():
    """--certificate -: standard output carries the certificate alone, the report goes to
    stderr (as gops certify -o - and gops imperfect certify --out - do)."""
    args = ["solve", "3", "--variant", "declarations", "--exact", "--json", "--certificate", "-"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    objects = list(msgpack.Unpacker(io.BytesIO(result.stdout_bytes), raw=False))
    assert objects[0]["magic"] == "GOPS-DECLARATIONS-CERTIFICATE" and objects[-1]["end"] is True
    assert sum(type(obj) is list for obj in objects) == objects[-1]["records"] == 88
    report = json.loads(result.stderr)
    assert report["value"] == "0" and report["certificate_records"] == 88


@pytest.mark.parametrize(
    "args, words",
    [
        (["solve", "9", "--variant", "declarations"], "between 1 and 7"),
        (
            ["solve", "3", "--variant", "declarations", "--objective", "win"],
            "--objective applies to --players 2 and --players 3 only",
        ),
        (["solve", "3", "--exact"], "--exact applies to --variant declarations only"),
        (["solve", "3", "--variant", "declarations", "--certificate", "x"], "exact solve"),
    ],
)
def test_gops_solve_variant_declarations_refuses(args, words):
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 2 and words in out.output
    assert "Traceback" not in out.output


def test_the_start_is_a_position():
    assert position_of({1, 2, 3}, {1, 2, 3}, {1, 2, 3}) == Position(7, 7, 7, 0)
