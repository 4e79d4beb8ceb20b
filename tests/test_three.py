"""exact.three: three-player GOPS equilibria against hand-derived positions, invariants,
the certified NashConv and OpenSpiel's own NashConv (needs the extras ``three`` and
``openspiel``).

Hand derivation of the 2-card start (hands {1, 2} each, upcard u, the other prize w): a
player bidding 2 now (probability q for each opponent) bids 1 on w, and the payoffs are

    split:   high u(1-q)^2 + (u/2) 2q(1-q) = u(1-q);   low (w/2) 2q(1-q) + w q^2 = w q
    third:   high (u + w)(1-q)^2;                       low (u + w) q^2
    discard: high u(1-q)^2;                             low w q^2

(a three-way tie discards the prize; under ``third`` a lone high bid wins u and then,
the other two tying on w, w as well, and a lone low bid facing two high ones the same).
Each difference falls strictly in q, so the symmetric equilibrium (the logit branch's
limit in a symmetric game) is unique: q = u/(u+w), 1/2, sqrt(u)/(sqrt(u)+sqrt(w)).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from itertools import permutations, product
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import exact.three as three
from exact.cli import main
from exact.errors import GopsInputError
from exact.game.ties import DISCARD, SPLIT, THIRD
from exact.three.canonical import canonical
from exact.three.nashconv import nashconv
from exact.three.openspiel import policy_json
from exact.three.rules import ThreeGame, round_points
from exact.three.stage import solve_stage
from reference_win import win_value

#: Float agreement with a hand-derived irrational probability or value.
TOL = 1e-12
#: The NashConv every solution must be proven below.
EPSILON = 1e-9
#: A polished stage's regret: float rounding of its payoff sums.
POLISHED_REGRET = 1e-13
DATA = Path(__file__).parent / "data"
#: A value below 1 printed with 4 significant digits (%.3e): within half its last unit.
PRINTED_4_DIGITS = 5e-4


def high_probability(rule: str, u: int, w: int) -> float:
    """q of the module docstring."""
    if rule == "split":
        return u / (u + w)
    if rule == "third":
        return 0.5
    return math.sqrt(u) / (math.sqrt(u) + math.sqrt(w))


def high_payoff(rule: str, u: int, w: int) -> float:
    q = high_probability(rule, u, w)
    if rule == "third":
        return (u + w) * (1 - q) ** 2
    return u * (1 - q) if rule == "split" else u * (1 - q) ** 2


@pytest.fixture(scope="module")
def solved():
    cache: dict = {}

    def get(n, rule, objective="points", order="random"):
        key = (n, rule, objective, order)
        if key not in cache:
            cache[key] = three.solve(n, rule, objective, order)
        return cache[key]

    return get


def test_round_points_by_hand():
    # The rules write-up's extreme case, a split, and OpenSpiel's discard of any tie.
    assert round_points(13, (13, 13, 1), THIRD) == (0, 0, 13)
    assert round_points(9, (7, 7, 2), SPLIT) == (Fraction(9, 2), Fraction(9, 2), 0)
    assert round_points(9, (7, 7, 2), DISCARD) == (0, 0, 0)
    assert round_points(9, (7, 7, 7), SPLIT) == (0, 0, 0)
    assert round_points(9, (7, 7, 7), THIRD) == (0, 0, 0)
    assert round_points(9, (2, 8, 7), THIRD) == (0, 9, 0)


@pytest.mark.parametrize("bad", [(0, "split"), (3, "halves"), (8, "split")])
def test_bad_game_is_one_line(bad):
    with pytest.raises(GopsInputError):
        three.ThreeGame.parse(*bad)


def test_canonical_forgets_values_and_seats():
    hands = ((2, 5), (3, 5), (1, 4))
    key, perm = canonical(hands, (3, 6), (0, 0, 0))
    for p in permutations(range(3)):
        other = tuple(tuple(2 * c + 7 for c in hands[i]) for i in p)  # same relative order
        assert canonical(other, (3, 6), (0, 0, 0))[0] == key
    assert key[0] == ((1, 4), (2, 5), (3, 5))  # ranks among 1..5; 5 shared
    assert [hands[i] for i in perm] == [(1, 4), (2, 5), (3, 5)]
    # points shifted by the smallest, then in the canonical order of the hands (2, 0, 1)
    assert canonical(hands, (3, 6), (4, 2, 2))[0][2] == (0, 2, 0)


@pytest.mark.parametrize("rule", ["split", "third", "discard"])
def test_two_card_start_by_hand(solved, rule):
    sol = solved(2, rule)
    for u, w in ((1, 2), (2, 1)):
        mixes = sol.mixes(((1, 2),) * 3, (1, 2), (0, 0, 0), u)
        for mix in mixes:
            assert mix[1] == pytest.approx(high_probability(rule, u, w), abs=TOL)
    value = (high_payoff(rule, 1, 2) + high_payoff(rule, 2, 1)) / 2
    assert sol.seat_values() == pytest.approx([value] * 3, abs=TOL)


@pytest.mark.parametrize("rule", ["split", "third", "discard"])
def test_two_card_subgames_of_three_cards_by_hand(solved, rule):
    """After three equal first bids the hands are equal again: the 2-card derivation."""
    sol = solved(3, rule)
    for c in (1, 2, 3):
        hand = tuple(x for x in (1, 2, 3) if x != c)
        for prizes in ((1, 2), (1, 3), (2, 3)):
            for u in prizes:
                (w,) = (x for x in prizes if x != u)
                for mix in sol.mixes((hand,) * 3, prizes, (0, 0, 0), u):
                    assert mix[1] == pytest.approx(high_probability(rule, u, w), abs=TOL)


@pytest.mark.parametrize("rule", ["split", "third", "discard"])
def test_symmetric_positions_get_symmetric_mixes(solved, rule):
    sol = solved(3, rule)
    for (key, u), st in sol.stages.items():
        hands, _, points = key
        for i in range(3):
            for j in range(i + 1, 3):
                if hands[i] == hands[j] and points[i] == points[j]:
                    assert np.array_equal(st.mixes[i], st.mixes[j]), (key, u)


@pytest.mark.parametrize("rule", ["split", "third", "discard"])
@pytest.mark.parametrize("objective", ["points", "top"])
def test_three_cards_certified(solved, rule, objective):
    sol = solved(3, rule, objective)
    assert len(sol.stages) == sol.game.stage_games  # the progress bar's total
    report = three.certify(sol)
    assert report.bound <= EPSILON
    assert report.bound >= report.estimate
    assert sol.max_stage_regret <= EPSILON


def test_top_shares_the_win():
    # 1 card: everyone bids 1, the prize is discarded, all tie at 0: 1/3 each.
    sol = three.solve(1, "split", "top")
    assert list(sol.seat_values()) == [1 / 3] * 3


def test_nashconv_of_uniform_by_hand():
    """Uniform bids at the 2-card split start: each player gets (u + w)/4 = 3/4 for each
    upcard and a best response max(u/2, w/2) = 1 (module docstring with q = 1/2), so each
    gains 1/4 and NashConv = 3/4."""

    def uniform(hands, prizes, points, upcard):
        return [[0.5, 0.5]] * 3 if len(prizes) == 2 else [[1.0]] * 3

    report = nashconv(three.ThreeGame.parse(2), uniform)
    assert report.estimate == pytest.approx(0.75, abs=TOL)
    assert 0.75 <= report.bound <= 0.75 + TOL
    assert report.values == pytest.approx((0.75, 0.75, 0.75), abs=TOL)


def test_nashconv_sees_a_perturbed_equilibrium(solved):
    sol = solved(3, "split")

    def shifted(hands, prizes, points, upcard):
        mixes = list(sol.mixes(hands, prizes, points, upcard))
        if len(prizes) == 3:  # the first move: player 1 always bids high
            mixes[1] = np.eye(3)[2]
        return mixes

    assert nashconv(three.ThreeGame.parse(3), shifted).estimate > 0.01


def test_stage_regret_of_rock_paper_scissors_like_game():
    # A symmetric 2x2x2 game with a unique symmetric mixed equilibrium: matching pennies
    # for three (payoff 1 to a player in the minority, 0 otherwise); q = 1/2 by symmetry.
    A = np.zeros((3, 2, 2, 2))
    for a in np.ndindex(2, 2, 2):
        for i in range(3):
            A[(i, *a)] = 1.0 if sum(x == a[i] for x in a) == 1 else 0.0
    st = solve_stage(A, [(0, 1, 2)])
    assert st.regret <= TOL
    for m in st.mixes:
        assert m == pytest.approx([0.5, 0.5], abs=TOL)


def test_openspiel_nash_conv_three_cards(solved):
    pytest.importorskip("pyspiel")
    import pyspiel
    from open_spiel.python import policy
    from open_spiel.python.algorithms import exploitability

    table = policy_json(solved(3, "discard"))
    game = pyspiel.convert_to_turn_based(
        pyspiel.load_game(
            "goofspiel",
            {"num_cards": 3, "players": 3, "imp_info": False, "returns_type": "total_points"},
        )
    )

    class Table(policy.Policy):
        def action_probabilities(self, state, player_id=None):
            legal = state.legal_actions()
            if len(legal) == 1:
                return {legal[0]: 1.0}
            mix = table[state.information_state_string()]
            assert sorted(int(a) for a in mix) == legal
            return {int(a): p for a, p in mix.items()}

    conv = exploitability.nash_conv(game, Table(game, [0, 1, 2]))
    assert conv <= EPSILON


def test_policy_out_refuses_other_rules(solved):
    with pytest.raises(GopsInputError):
        policy_json(solved(2, "split"))


def test_cli_json_states_epsilon(tmp_path):
    out = tmp_path / "policy.json"
    result = CliRunner().invoke(
        main,
        [
            "solve",
            "3",
            "--players",
            "3",
            "--tie-rule",
            "discard",
            "--json",
            "--policy-out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["nashconv"]["epsilon"] == EPSILON
    assert data["nashconv"]["certified"] is True
    assert data["game"]["tie_rule"] == "discard"
    assert len(json.loads(out.read_text())) > 0


def test_seven_cards_are_accepted_for_points_only():
    """N = 7 points (917,616 stage games, hours: solved with --save, which resumes) is
    accepted; the top objective, whose positions carry the points so far, stops at 6."""
    assert ThreeGame.parse(7, "split").stage_games == 917_616
    assert ThreeGame.parse(6, "third", "top").n == 6
    with pytest.raises(GopsInputError, match="between 1 and 6 for three players and the top"):
        ThreeGame.parse(7, "split", "top")
    with pytest.raises(GopsInputError, match="between 1 and 7 for three players"):
        ThreeGame.parse(8, "split")


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "3", "--players", "3", "--tie-rule", "halves"],
        ["solve", "9", "--players", "3"],
        ["solve", "8", "--players", "3"],
        ["solve", "7", "--players", "3", "--objective", "top"],
        ["solve", "2", "--players", "3", "--policy-out", "x.json"],
        ["solve", "2", "--players", "4"],
    ],
)
def test_cli_bad_input_exit_2(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_cli_policy_to_stdout_leaves_the_report_to_stderr(solved):
    """--policy-out - with --json: standard output is the policy alone (one JSON
    document), the report goes to stderr, as gops imperfect certify --out - does."""
    args = ["solve", "2", "--players", "3", "--tie-rule", "discard", "--json", "--quiet"]
    result = CliRunner().invoke(main, [*args, "--policy-out", "-"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)
    assert table == policy_json(solved(2, "discard"))
    report = json.loads(result.stderr)
    assert report["game"]["tie_rule"] == "discard" and report["nashconv"]["certified"] is True


THREE_2 = "three-player GOPS, 2 cards, tie rule split, objective points, random prize order"


@pytest.mark.parametrize(
    "players, first_line",
    [
        (["--players", "2", "--players", "3"], THREE_2),
        (["--players", "4", "--players", "3"], THREE_2),
        (["--players", "3", "--players", "2"], "N=2 objective=points arithmetic=float"),
        (["--players=3", "--players", "2"], "N=2 objective=points arithmetic=float"),
        (["--players", "3", "--players=2"], "N=2 objective=points arithmetic=float"),
    ],
)
def test_cli_repeated_players_the_last_wins(players, first_line):
    """One rule for a repeated --players, click's for every repeated option: the last
    occurrence is the one taken."""
    result = CliRunner().invoke(main, ["solve", "2", *players, "--quiet"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == first_line


@pytest.mark.parametrize(
    "players, message",
    [
        (
            ["--players", "3", "--players", "4"],
            "Invalid value for '--players': '4' is not one of '2', '3'.",
        ),
        (["--players", "2", "--players"], "Option '--players' requires an argument."),
    ],
)
def test_cli_repeated_players_bad_last_is_one_line(players, message):
    result = CliRunner().invoke(main, ["solve", "2", "--quiet", *players])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == f"gops: error: {message}\n"


def test_cli_two_players_unchanged():
    """--players 2 is the two-player command: the same summary, line for line (the
    time and memory lines aside), and its value that of the brute-force oracle
    (tests/reference_win.py) to the 4 digits printed."""
    args = ["solve", "4", "--quiet", "--objective", "win", "--lead", "1"]
    outputs = []
    for extra in ([], ["--players", "2"]):
        result = CliRunner().invoke(main, args + extra)
        assert result.exit_code == 0, result.output
        outputs.append(
            [s for s in result.output.splitlines() if not s.startswith(("time:", "peak memory:"))]
        )
    assert outputs[0] == outputs[1]
    (line,) = (s for s in outputs[1] if s.startswith("value at the start, lead 1: "))
    value = float(line.split(": ")[1].split()[0])
    hands = frozenset(range(1, 5))
    assert value == pytest.approx(win_value(hands, hands, hands, 1), abs=PRINTED_4_DIGITS)


def test_own_trace_follows_pygambit_s_branch():
    """On a generic game (no twins) our continuation and pygambit's logit_solve trace the
    same branch to the same limit (Turocy 2005)."""
    from exact.three.gambit import logit_limit, traced_here
    from exact.three.trace import symmetric_trace

    A = np.random.default_rng(1).random((3, 4, 4, 4))
    ours, theirs = symmetric_trace(A, [0, 1, 2]), traced_here(A)
    # The capped child process traces alike, to the last bit.
    assert all(np.array_equal(a, b) for a, b in zip(logit_limit(A), theirs))
    for a, b in zip(ours, theirs):
        assert a == pytest.approx(b, abs=1e-4)  # both stop at a regret near 1e-6


def test_four_cards_discard_certified(solved):
    """OpenSpiel's rule at 4 cards has near-degenerate stages (limits where a weight
    vanishes like 1/lambda): every stage polished to float precision, the whole game's
    NashConv proven below epsilon."""
    sol = solved(4, "discard")
    assert sol.max_stage_regret <= POLISHED_REGRET
    assert three.certify(sol).bound <= EPSILON


@pytest.mark.parametrize("rule", ["split", "third", "discard"])
def test_every_stage_mix_sums_to_one_and_its_regret_is_not_below_rounding(solved, rule):
    """The certificate reads each mix scaled by its sum; a stored mix summing to 1 + 1e-7
    made its stage regret read 1e-7 too low (negative) in the 6-card third game, hiding a
    regret of 4.6e-7.  Every stage of the 4-card games: sums within 4 ulp of 1, and no
    regret below minus the rounding of its payoff sums."""
    sol = solved(4, rule)
    for st in sol.stages.values():
        assert all(abs(m.sum() - 1.0) <= 4 * np.finfo(float).eps for m in st.mixes)
        assert st.regret >= -POLISHED_REGRET


def test_extrapolated_limit_of_a_one_over_lambda_branch():
    """p(lam) = p* + c / lam (a weight vanishing like 1/lambda): two points give p*; a weight
    vanishing exponentially is set to 0."""
    from exact.three.trace import extrapolated as _extrapolated

    star = [np.array([0.0, 0.25, 0.75]), np.array([0.5, 0.5, 0.0])]
    c = [np.array([2.0, -1.0, -1.0]), np.array([0.0, 0.0, 0.0])]

    def point(lam):
        mixes = [s + d / lam for s, d in zip(star, c)]
        mixes[1] = np.array([0.5 - np.exp(-lam / 2e4), 0.5, np.exp(-lam / 2e4)])
        return lam, (mixes[0], mixes[1], mixes[0])

    limit = _extrapolated([point(1e6), point(1e7)])
    assert limit[0] == pytest.approx(star[0], abs=TOL)
    assert limit[1] == pytest.approx(star[1], abs=TOL)


def test_payoff_symmetric_players_are_traced_alike():
    """Players 0 and 1 of a game invariant under swapping them (not declared twins) get
    equal mixes; a generic game has no such pair."""
    from exact.three.polish import payoff_twins as _payoff_twins

    rng = np.random.default_rng(3)
    A = rng.random((3, 3, 3, 3))
    assert _payoff_twins(A, []) == []
    S = (A + A[[1, 0, 2]].transpose(0, 2, 1, 3)) / 2  # symmetric under 0 <-> 1
    assert _payoff_twins(S, []) == [(0, 1)]
    st = solve_stage(S)
    assert np.array_equal(st.mixes[0], st.mixes[1])
    assert st.regret <= POLISHED_REGRET


def test_a_stage_whose_trace_is_lost_gets_the_nearest_equilibrium():
    """A 4 x 4 x 4 stage of the 5-card third-rule game (players 0 and 1 twins) on which
    every trace loses its branch: the stage still ends at a symmetric equilibrium (its
    regret at float precision), flagged ``fallback``."""
    data = np.load(DATA / "three_stage_lost_trace.npz")
    twins = [tuple(int(p) for p in g) for g in data["twins"]]
    st = solve_stage(data["A"], twins)
    assert st.method == "fallback"
    assert st.regret <= POLISHED_REGRET
    assert np.array_equal(st.mixes[0], st.mixes[1])


def gambit_events(monkeypatch) -> list:
    """Every event pygambit's logit trace reports to the solver's callback, in order (the
    list fills as traces run)."""
    import pygambit as gbt

    events: list = []
    real = gbt.nash.logit_solve

    def observed(game, **options):
        forward = options["event_callback"]

        def event(e):
            events.append(e)
            forward(e)

        return real(game, **{**options, "event_callback": event})

    monkeypatch.setattr(gbt.nash, "logit_solve", observed)
    return events


def test_pygambit_crosses_a_bifurcation_where_our_trace_is_lost(monkeypatch):
    """A 4 x 4 x 4 stage of the 6-card third game whose branch our tracer loses: pygambit's
    trace reports a bifurcation (and its symmetry-breaking perturbations) on the way, and
    its end, polished, is the stage's equilibrium (method ``logit``)."""
    from exact.three import gambit, stage

    A = np.load(DATA / "three_stage_gambit_bifurcation.npz")["A"]
    assert stage._our_limit(A, [], stage.TRACE_TARGETS)[0] is None
    events = gambit_events(monkeypatch)
    gambit.traced_here(A)  # the trace solve_stage runs in its capped child, seen here
    assert "LogitBifurcationEvent" in {type(e).__name__ for e in events}
    st = solve_stage(A)
    assert st.method == "logit"
    assert st.regret <= POLISHED_REGRET


def test_a_crawling_pygambit_trace_is_stopped_near_its_limit(monkeypatch):
    """A 4 x 4 x 4 stage of the 6-card split game on which pygambit's corrector crawls
    (124,000 path points uncapped): the trace stops at GAMBIT_POINTS, far along the branch
    (lambda > 1e7) with a regret already below 1e-9 of the payoff range, and the stage
    still ends at an equilibrium of the logit branch within REFINE_ABOVE."""
    from exact.three import gambit, stage

    A = np.load(DATA / "three_stage_gambit_crawl.npz")["A"]
    events = gambit_events(monkeypatch)
    traced = gambit.traced_here(A)
    lams = [e.qre.lam for e in events if type(e).__name__ == "LogitPathEvent"]
    assert len(lams) == gambit.GAMBIT_POINTS
    assert lams[-1] > 1e7
    assert stage.regret(A, traced) < 1e-9 * (A.max() - A.min())
    st = solve_stage(A)
    assert st.method == "logit"
    assert st.regret <= stage.REFINE_ABOVE


def test_support_enumeration_picks_the_equilibrium_nearest_the_point():
    """Three players each paid 1 when all bid alike, else 0: both pure coordinations are
    equilibria; from a point leaning to bid 0 (or 1) the enumeration returns that one."""
    from exact.three.supports import nearest_support_equilibrium as _nearest_support_equilibrium

    A = np.zeros((3, 2, 2, 2))
    A[:, 0, 0, 0] = A[:, 1, 1, 1] = 1.0
    for lean, bid in ((0.8, 0), (0.2, 1)):
        near = (np.array([lean, 1 - lean]),) * 3
        found = _nearest_support_equilibrium(A, [(0, 1, 2)], near)
        assert all(np.array_equal(m, np.eye(2)[bid]) for m in found)


def test_cli_progress_lines_count_the_stage_games(monkeypatch):
    """In a log (stderr not a terminal) a line every PROGRESS_SECONDS (0 here: one a
    stage) counts the stage games solved; the last count is the summary's total; --quiet
    prints none."""
    import re

    import exact.cli.three as cli_three

    monkeypatch.setattr(cli_three, "PROGRESS_SECONDS", 0.0)
    args = ["solve", "3", "--players", "3", "--tie-rule", "third"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    line = re.compile(r"gops: three players N=3 third points at \S+ \S+ UTC: (\d+) stage games")
    counts = [int(m.group(1)) for m in line.finditer(result.stderr)]
    stages = re.search(r"stage games (.*)", result.stdout).group(1)
    total = sum(int(part.split()[-1]) for part in stages.split(", "))
    assert counts == list(range(1, total + 1))
    quiet = CliRunner().invoke(main, [*args, "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_cli_progress_lines_count_the_positions_the_nashconv_walk_proves(monkeypatch):
    """Then the NashConv walk says how far it is (every TELL_EVERY positions: 1 here), its
    counts increasing to the positions the summary reports; --quiet prints none."""
    import importlib
    import re

    import exact.cli.three as cli_three

    walk = importlib.import_module("exact.three.nashconv")  # the package re-exports the function
    monkeypatch.setattr(cli_three, "PROGRESS_SECONDS", 0.0)
    monkeypatch.setattr(walk, "TELL_EVERY", 1)
    args = ["solve", "3", "--players", "3", "--tie-rule", "split", "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    line = re.compile(r"the NashConv walk, ([\d,]+) positions in \d+ s")
    counts = [int(m.group(1).replace(",", "")) for m in line.finditer(result.stderr)]
    positions = json.loads(result.stdout)["nashconv"]["positions"]
    assert counts == list(range(1, positions + 1))
    quiet = CliRunner().invoke(main, [*args, "--quiet"])
    assert quiet.exit_code == 0 and "NashConv walk" not in quiet.stderr


def test_a_near_singular_stage_is_refined_to_an_equilibrium():
    """A 4 x 4 x 4 stage of the 6-card third-rule game (players 1 and 2 twins) whose
    polished profile keeps a regret above 1e-9 (its indifference equations nearly
    singular): the stage ends at an equilibrium, its twins alike."""
    from exact.three.polish import payoff_twins as _payoff_twins
    from exact.three.stage import REFINE_ABOVE, _traced_and_polished, regret

    data = np.load(DATA / "three_stage_near_singular.npz")
    A, twins = data["A"], [tuple(int(p) for p in g) for g in data["twins"]]
    polished, _ = _traced_and_polished(A, _payoff_twins(A, twins))
    assert regret(A, polished) > REFINE_ABOVE  # the case: the polish alone stops short
    st = solve_stage(A, twins)
    assert st.regret <= POLISHED_REGRET
    assert np.array_equal(st.mixes[1], st.mixes[2])


def test_a_near_degenerate_stage_is_traced_on_to_its_branch_limit():
    """A 4 x 4 x 4 stage of the 6-card third-rule game whose payoffs differ by about 1e-6
    (near-equal continuation values): where the first trace stops (regret 1e-9 of the
    payoff range) the branch is still moving, and the polish stops at a regret near 1e-8;
    traced on to DEEP_TARGETS the stage ends at the branch's limit, an equilibrium in which
    player 0 bids its lowest card, on the traced branch (within 1e-9 of its point at
    lambda above 1e11) and 0.7 away (L1) from where the first trace stopped."""
    from exact.three.stage import DEEP_TARGETS, _traced_and_polished, regret
    from exact.three.trace import trace_points as _trace_points

    A = np.load(DATA / "three_stage_deep_limit.npz")["A"]
    first, _ = _traced_and_polished(A, [])
    assert regret(A, first) > 1e-9
    st = solve_stage(A, [])
    assert st.method == "logit"
    assert st.regret <= POLISHED_REGRET
    assert np.array_equal(st.mixes[0], [1.0, 0.0, 0.0, 0.0])
    points = _trace_points(A, [0, 1, 2], DEEP_TARGETS)
    # the corrector leaves a sum within 1e-14 lambda of 1; the points are scaled to 1
    assert all(abs(m.sum() - 1.0) <= 4 * np.finfo(float).eps for _, p in points for m in p)
    lam, point = points[-1]
    assert lam > 1e11
    assert max(np.abs(p - m).max() for p, m in zip(point, st.mixes)) < 1e-9
    assert sum(np.abs(p - m).sum() for p, m in zip(first, st.mixes)) > 0.5


@pytest.mark.slow
def test_a_stage_whose_traces_stop_short_takes_the_nearest_enumerated_equilibrium():
    """A 4 x 4 x 4 stage of the 6-card discard-rule game on which our trace stops at lambda
    ~ 5e6 with regret 1.3e-6, even traced on: the first REFINE_SUPPORTS supports hold no
    equilibrium, so the stage takes the nearest among those SUPPORT_ENUMERATION finds (about
    half a minute of CPU), an equilibrium."""
    from exact.three.stage import DEEP_TARGETS, REFINE_ABOVE, REFINE_SUPPORTS, _our_limit
    from exact.three.supports import nearest_support_equilibrium as _nearest_support_equilibrium

    A = np.load(DATA / "three_stage_lost_deep.npz")["A"]
    deep, deep_regret, _ = _our_limit(A, [], DEEP_TARGETS)
    assert deep_regret > REFINE_ABOVE  # the case
    assert _nearest_support_equilibrium(A, [], deep, REFINE_SUPPORTS) is None
    st = solve_stage(A, [])
    assert st.regret <= POLISHED_REGRET


@pytest.mark.parametrize("rule", [SPLIT, THIRD, DISCARD], ids=lambda r: r.name)
def test_nashconv_scores_rounds_apart_from_the_tie_rule(rule):
    """The NashConv walk keeps its own scoring of a round (exact.three.nashconv._score);
    it agrees with the game layer's TieRule.score on every bid triple of 4 cards."""
    from exact.three.nashconv import _score

    for bids in product(range(1, 5), repeat=3):
        assert _score(7, bids, rule) == rule.score(7, bids), bids


def test_a_tie_rule_is_never_a_string():
    with pytest.raises(TypeError, match="not with the string 'split'"):
        assert SPLIT == "split"
    assert three.ThreeGame.parse(3, "discard").tie_rule is DISCARD


#: Float walks of a 3-card game agree to within this (a few hundred roundings of values
#: below 10).
WALK_TOL = 1e-12


@pytest.mark.parametrize("rule", ["split", "third", "discard"])
def test_the_shared_walk_agrees_with_the_independent_nashconv(solved, rule):
    """exact.three.walk, in float and in exact rationals, against the NashConv's own walk
    and own scoring of a round (exact.three.nashconv): each seat's value and best-response
    gain at 3 cards, for the equilibrium and for uniform bids (gains far from 0)."""
    from exact.three.walk import EXACT, FLOAT, walk_profile

    sol = solved(3, rule)
    g = sol.game

    def equilibrium(hands, prizes, u):
        return sol.mixes(hands, prizes, (0, 0, 0), u)

    def uniform(hands, prizes, u):
        return [[1.0] * len(h) for h in hands]

    for policy in (equilibrium, uniform):
        report = nashconv(g, lambda h, p, points, u, policy=policy: policy(h, p, u))
        for arithmetic in (FLOAT, EXACT):
            got = walk_profile(g.n, g.tie_rule, g.order, policy, arithmetic)
            assert max(abs(float(v) - w) for v, w in zip(got.values, report.values)) < WALK_TOL
            assert max(abs(float(x) - y) for x, y in zip(got.gains, report.gains)) < WALK_TOL
        if policy is uniform:
            assert min(report.gains) > 0.1  # a policy far from equilibrium: the check bites


def test_families_reach_their_commands_unchanged():
    """gops solve reaches each family's own command through click's parse of --players
    and --variant: every family's command keeps its parameters and callback, and each
    help names the others."""
    from exact.cli import declarations, families, solve
    from exact.cli import three as three_cli

    before = {
        c: (list(c.params), c.callback)
        for c in (solve.solve, three_cli.solve_three, declarations.solve_declarations)
    }
    runner = CliRunner()
    assert runner.invoke(main, ["solve", "2", "--players", "3", "--quiet"]).exit_code == 0
    assert runner.invoke(main, ["solve", "2", "--quiet"]).exit_code == 0
    assert runner.invoke(main, ["solve", "2", "--variant", "declarations"]).exit_code == 0
    for command, (params, callback) in before.items():
        assert command.params == params and command.callback is callback
    assert not {p.name for p in solve.solve.params} & {"players", "variant", "tie_rule"}
    assert "players" not in {p.name for p in three_cli.solve_three.params}
    front = main.commands["solve"]
    assert isinstance(front, families.FamilyCommand)
    assert [f.name for f in front.families] == [
        "two players",
        "three players",
        "the declarations game",
    ]
    assert "Three players" not in (solve.solve.epilog or "")
    assert "gops solve --players 3 --help" in (solve.solve.epilog or "")
    assert "gops solve --variant declarations --help" in (solve.solve.epilog or "")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--exact"], "--exact applies to --variant declarations only, not to two players"),
        (
            ["--players", "3", "--store", "s"],
            "--store applies to --players 2 only, not to three players",
        ),
        (
            ["--players", "3", "--variant", "declarations"],
            "--variant declarations is a two-player game: drop --players 3",
        ),
        (
            ["--variant", "declarations", "--tie-rule", "split"],
            "--tie-rule applies to --players 3 only, not to the declarations game",
        ),
    ],
)
def test_an_option_of_another_family_is_refused_by_name(args, message):
    result = CliRunner().invoke(main, ["solve", "2", *args])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == f"gops: error: {message}\n"


@pytest.mark.parametrize("rule", ["split", "third", "discard"])
def test_the_walks_positions_are_counted_before_it_runs(rule):
    """benchmarks/count_three_walk.py enumerates, in numpy and from the rules alone, the
    positions the NashConv walk of the top objective visits (what sizes a 6-card walk
    before hours of it): at N = 3 its count is the walk's own, for every tie rule."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "count_three_walk.py"
    spec = importlib.util.spec_from_file_location("count_three_walk", path)
    counter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(counter)
    game = ThreeGame.parse(3, rule, "top", "random")
    uniform = nashconv(game, lambda hands, prizes, points, u: [np.ones(len(h)) for h in hands])
    levels = counter.walk_levels(3, game.tie_rule)
    assert sum(levels) == uniform.positions
    assert levels[0] == 1 and len(levels) == 4
