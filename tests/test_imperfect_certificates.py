"""Imperfect-information certificates (certificates/FORMAT.md, "Imperfect-information
certificates"): written by exact.imperfect.certificate, validated by the independent
checker certificates.imperfect, and every check of the checker tried on a tampered file.

Independent references: the value of a symmetric zero-sum game is 0 (swapping the
players negates it); OpenSpiel's own information-state strings, best responses and
``exploitability.nash_conv`` on the plans read back from the file; a 2-card certificate
built by hand, without the writer (bid 2 for prize 2 dominates)."""

import io
import json
import math
import re
import subprocess
import sys
from fractions import Fraction

import msgpack
import pytest
from click.testing import CliRunner

from certificates import check
from certificates.imperfect.rules import best_response, sequence_form
from exact.cli import main
from exact.errors import GopsInputError
from exact.imperfect.certificate import certificate_objects, certify, write_certificate
from exact.imperfect.exact_lp import solve
from exact.imperfect.game import ImperfectGame

#: OpenSpiel's float NashConv and best responses against our exact numbers.
OPENSPIEL_TOLERANCE = 1e-12

CASES = [
    pytest.param(n, order, objective, id=f"{n}-{order}-{objective}")
    for n, order, objective in [
        (3, "random", "points"),
        (3, "random", "win"),
        (3, "descending", "points"),
        (3, "descending", "win"),
        (3, "ascending", "points"),
        (3, "ascending", "win"),
        (4, "descending", "points"),
    ]
]

_SOLVED: dict = {}


def equilibrium(n, order, objective):
    """The exact solve, once per game for the whole module."""
    key = (n, order, objective)
    if key not in _SOLVED:
        _SOLVED[key] = solve(ImperfectGame.parse(n, order, objective))
    return _SOLVED[key]


def objects(n=3, order="random", objective="points") -> list:
    return list(certificate_objects(equilibrium(n, order, objective)))


def write(tmp_path, objs, name="t.cert"):
    path = tmp_path / name
    packer = msgpack.Packer(use_bin_type=True)
    path.write_bytes(b"".join(packer.pack(obj) for obj in objs))
    return path


def verdict_of(tmp_path, objs):
    v = check(write(tmp_path, objs))
    assert "\n" not in v.message  # one line, whatever the file holds
    return v


def sections(objs):
    """Indices of (player 0's section header, player 1's, the footer)."""
    heads = [i for i, o in enumerate(objs) if type(o) is dict and "player" in o]
    return heads[0], heads[1], len(objs) - 1


def openspiel_game(n, order, objective):
    pyspiel = pytest.importorskip("pyspiel")
    params = ImperfectGame.parse(n, order, objective).openspiel_parameters()
    return pyspiel.convert_to_turn_based(pyspiel.load_game("goofspiel", params))


def read_plans(path) -> dict:
    """{information-state string: {action: Fraction}} read from the file with msgpack
    alone (no code of the checker or the writer): realization weights over D."""
    plans, d = {}, None
    with open(path, "rb") as fh:
        objs = list(msgpack.Unpacker(fh, raw=False))
    for obj in objs:
        if type(obj) is dict and "denominator" in obj:
            d = obj["denominator"]
        elif type(obj) is list:
            string, actions, weights = obj
            plans[string] = {a: Fraction(w, d) for a, w in zip(actions, weights)}
    return plans


# --- valid certificates ------------------------------------------------------------------


@pytest.mark.parametrize("n, order, objective", CASES)
def test_written_certificates_validate_with_value_zero(tmp_path, n, order, objective):
    """The game is symmetric, so its value is 0 (both objectives); the checker proves it."""
    result = write_certificate(equilibrium(n, order, objective), tmp_path / "c.cert")
    verdict = check(tmp_path / "c.cert")
    assert verdict.ok and verdict.code == 0, verdict.message
    assert verdict.root_value == 0 == result.value
    assert verdict.n == n and verdict.records == sum(result.decisions)
    assert result.bytes == (tmp_path / "c.cert").stat().st_size


@pytest.mark.parametrize(
    "n, order", [(3, "random"), (4, "descending")], ids=["3-random", "4-descending"]
)
def test_openspiel_nash_conv_of_the_plans_in_the_file(tmp_path, n, order):
    """OpenSpiel's exploitability.nash_conv of the behaviour strategies read off the file's
    plans (p(a | I) = x[I a] / x[I], uniform where x[I] = 0) is 0."""
    exploitability = pytest.importorskip("open_spiel.python.algorithms.exploitability")
    openspiel_policy = pytest.importorskip("open_spiel.python.policy")
    path = tmp_path / "c.cert"
    write_certificate(equilibrium(n, order, "points"), path)
    game = openspiel_game(n, order, "points")
    tabular = openspiel_policy.TabularPolicy(game)
    plans = read_plans(path)
    assert set(plans) == set(tabular.state_lookup)  # every decision, OpenSpiel's strings
    for string, weights in plans.items():
        total = sum(weights.values())
        for a, w in weights.items():
            p = w / total if total else Fraction(1, len(weights))
            tabular.action_probability_array[tabular.state_lookup[string], a] = float(p)
    assert exploitability.nash_conv(game, tabular) < OPENSPIEL_TOLERANCE


def decision_strings(state, out):
    """OpenSpiel's information-state strings of every decision node below ``state``."""
    if state.is_terminal():
        return out
    if state.is_chance_node():
        for action, _ in state.chance_outcomes():
            decision_strings(state.child(action), out)
        return out
    out[state.current_player()].add(state.information_state_string())
    for action in state.legal_actions():
        decision_strings(state.child(action), out)
    return out


@pytest.mark.parametrize("order", ["random", "descending", "ascending"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_checker_builds_openspiels_information_states(n, order):
    want = decision_strings(openspiel_game(n, order, "points").new_initial_state(), [set(), set()])
    form = sequence_form(n, order, "point_difference")
    for player in (0, 1):
        assert [d.string for d in form.players[player].decisions]
        assert {d.string for d in form.players[player].decisions} == want[player]
        assert len(form.players[player].decisions) == len(want[player])


def uniform_plan(form, player):
    """The uniform realization plan over the common denominator N!: a bid at a decision
    with k cards left is reached with probability 1/N * 1/(N - 1) * ... * 1/k = (k - 1)!/N!."""
    who = form.players[player]
    plan = [math.factorial(form.n)] + [0] * (who.sequences - 1)
    for decision in who.decisions:
        k = len(decision.cards)
        for j in range(k):
            plan[decision.first + j] = math.factorial(k - 1)
    return plan, math.factorial(form.n)


@pytest.mark.parametrize("returns_type", ["point_difference", "win_loss"])
@pytest.mark.parametrize("n, order", [(3, "random"), (4, "ascending")])
def test_checker_best_responses_are_openspiels(n, order, returns_type):
    """The checker's best-response values against the uniform plan equal OpenSpiel's
    (BestResponsePolicy, player 0's return either way)."""
    best_response_module = pytest.importorskip("open_spiel.python.algorithms.best_response")
    openspiel_policy = pytest.importorskip("open_spiel.python.policy")
    objective = "points" if returns_type == "point_difference" else "win"
    game = openspiel_game(n, order, objective)
    uniform = openspiel_policy.UniformRandomPolicy(game)
    form = sequence_form(n, order, returns_type)
    for responder in (0, 1):
        plan, d = uniform_plan(form, 1 - responder)
        ours = Fraction(best_response(form, responder, plan), form.scale * d)
        theirs = best_response_module.BestResponsePolicy(game, responder, uniform).value(
            game.new_initial_state()
        )
        assert abs(float(ours) - (theirs if responder == 0 else -theirs)) < OPENSPIEL_TOLERANCE


def two_card_certificate(bid: int, value=(0, 1)) -> list:
    """A 2-card descending certificate built by hand: both players bid ``bid`` for the
    prize 2 (the last round plays itself).  Bid 2 dominates: P0 bidding 2 against 1 wins
    2 and loses 1, (2 - 1)/2 = 1/2; so (2, 2) is the equilibrium, value 0."""
    weights = [1, 0] if bid == 1 else [0, 1]
    records = [{"player": p, "decisions": 1, "denominator": 1} for p in (0, 1)]
    strings = [
        f"Current player: {p}\nP{p} hand: 1 2 \nP{p} action sequence: \n"
        "Point card sequence: 2 \nWin sequence: \nPoints: 0 0 \nTerminal?: 0\n"
        for p in (0, 1)
    ]
    header = {
        "magic": "GOPS-IMPERFECT-CERTIFICATE",
        "version": 1,
        "num_cards": 2,
        "imp_info": True,
        "points_order": "descending",
        "returns_type": "point_difference",
        "value": list(value),
    }
    return [
        header,
        records[0],
        [strings[0], [0, 1], weights],
        records[1],
        [strings[1], [0, 1], weights],
        {"end": True, "decisions": 2},
    ]


def test_two_card_certificate_built_by_hand(tmp_path):
    assert verdict_of(tmp_path, two_card_certificate(2)).ok
    low = verdict_of(tmp_path, two_card_certificate(1))  # both bid 1: each can gain 1/2
    assert low.code == 1 and "duality gap" in low.message
    assert "guarantees -1/2" in low.message and "up to 1/2" in low.message
    wrong = verdict_of(tmp_path, two_card_certificate(2, (1, 2)))
    assert wrong.code == 1 and "stated value 1/2 is not the value 0" in wrong.message


# --- tampered certificates -----------------------------------------------------------------


def tampered(change):
    objs = objects()
    change(objs)
    return objs


def _set_weight(objs, delta):
    """Add ``delta`` to the weight of the first bid of player 0's first decision."""
    start = sections(objs)[0]
    objs[start + 1][2][0] += delta


def _uniform(player):
    """The player's plan replaced by the uniform one over N! = 6 (a bid at a decision with
    k cards left weighs (k - 1)!/N!): a realization plan, not optimal."""

    def change(objs):
        start, end = sections(objs)[player : player + 2]
        objs[start]["denominator"] = math.factorial(3)
        for i in range(start + 1, end):
            k = len(objs[i][1])
            objs[i][2] = [math.factorial(k - 1)] * k

    return change


def _header(key, value):
    def change(objs):
        objs[0][key] = value

    return change


def _swap(i, j):
    def change(objs):
        objs[i], objs[j] = objs[j], objs[i]

    return change


#: An Integer of 72,008 bits (a minimal two's-complement bin), beyond the 65,536 allowed.
HUGE = b"\x01" + bytes(9000)

TAMPERS = [
    ("one weight changed", lambda o: _set_weight(o, 1), 1, "is not a realization plan"),
    ("a negative weight", lambda o: _set_weight(o, -10**6), 1, "is negative"),
    ("P0 uniform, not optimal", _uniform(0), 1, "duality gap"),
    ("P1 uniform, not optimal", _uniform(1), 1, "duality gap"),
    ("wrong value", _header("value", [1, 3]), 1, "stated value 1/3 is not the value 0"),
    ("value denominator 0", _header("value", [1, 0]), 1, "denominator 0 is not positive"),
    ("N swapped", _header("num_cards", 4), 1, "declares 45 information states; the game has"),
    ("order swapped", _header("points_order", "descending"), 1, "the game has 8"),
    ("unknown order", _header("points_order", "controlled"), 2, "points_order 'controlled'"),
    ("imp_info false", _header("imp_info", False), 2, "imp_info is False, expected true"),
    ("num_cards a string", _header("num_cards", "3"), 2, "num_cards: expected an int"),
    ("N beyond the limit", _header("num_cards", 13), 2, "outside 1..5 for the random order"),
    ("version 2", _header("version", 2), 2, "unsupported version 2"),
    ("an unknown key", _header("comment", "hi"), 2, "unexpected ['comment']"),
    ("weight a string", lambda o: o[2][2].__setitem__(0, "1/2"), 2, "expected an Integer"),
    ("weight a float", lambda o: o[2][2].__setitem__(0, 0.5), 2, "expected an Integer"),
    ("a huge weight", lambda o: o[2][2].__setitem__(0, HUGE), 2, "beyond the limit"),
    ("a missing weight", lambda o: o[2][2].pop(), 2, "expected an array of"),
    ("actions reordered", lambda o: o[2][1].reverse(), 1, "are not the legal actions"),
    ("an unknown state", lambda o: o[2].__setitem__(0, "Current player: 0\nhi"), 1,
     "is not an information state"),
    ("the other player's state", lambda o: o[2].__setitem__(0, o[sections(o)[1] + 1][0]), 1,
     "is not an information state of player 0"),
    ("a state twice", lambda o: o.__setitem__(3, o[2]), 1, "listed twice"),
    ("sections swapped", lambda o: o.insert(1, o.pop(sections(o)[1])), 1,
     "player 1's plan found where player 0's"),
    ("a record dropped", lambda o: o.pop(2), 1, "player 0's plan has 44 information states"),
    ("a record added", lambda o: o.insert(sections(o)[1], o[2]), 1, "player 0's plan has more"),
    ("footer count", lambda o: o[-1].__setitem__("decisions", 89), 1, "footer counts 89"),
    ("footer end false", lambda o: o[-1].__setitem__("end", False), 2, "footer end is False"),
    ("no footer", lambda o: o.pop(), 2, "truncated"),
    ("trailing object", lambda o: o.append({"end": True}), 2, "trailing bytes"),
]  # fmt: skip


@pytest.mark.parametrize("change, code, reason", [pytest.param(*t[1:], id=t[0]) for t in TAMPERS])
def test_tampered_certificates_are_rejected(tmp_path, change, code, reason):
    verdict = verdict_of(tmp_path, tampered(change))
    assert not verdict.ok
    assert verdict.code == code, verdict.message
    assert reason in verdict.message


def test_returns_type_swapped_is_a_duality_gap(tmp_path):
    """The 4-card descending points equilibrium, declared for win_loss: the checker builds
    the win_loss payoffs, against which the plans leave a gap (at N = 3 the points
    equilibria happen to be win_loss equilibria too, and are accepted as such)."""
    objs = objects(4, "descending", "points")
    objs[0]["returns_type"] = "win_loss"
    verdict = verdict_of(tmp_path, objs)
    assert verdict.code == 1 and "duality gap" in verdict.message, verdict.message


@pytest.mark.parametrize(
    "cut, reason",
    [(lambda b: b[: len(b) // 2], "truncated"), (lambda b: b[:-1], "truncated")],
    ids=["half", "last byte"],
)
def test_truncated_bytes_are_unreadable(tmp_path, cut, reason):
    path = write(tmp_path, objects())
    path.write_bytes(cut(path.read_bytes()))
    verdict = check(path)
    assert verdict.code == 2 and reason in verdict.message and "\n" not in verdict.message


def test_corrupted_bytes_are_unreadable(tmp_path):
    """0xc1 is never used by msgpack: a byte overwritten with it is malformed."""
    path = write(tmp_path, objects())
    data = bytearray(path.read_bytes())
    data[len(data) // 2] = 0xC1
    path.write_bytes(bytes(data))
    verdict = check(path)
    assert verdict.code == 2 and "malformed msgpack" in verdict.message


def test_every_byte_flip_is_rejected_or_still_proves_value_zero(tmp_path):
    """Flipping one bit anywhere in a 3-card descending certificate: the checker either
    rejects it in one line with exit 1 or 2, or it still proves exactly the value 0 (a
    flip in a weight that keeps the plan an equilibrium) - never a traceback."""
    good = write(tmp_path, objects(3, "descending", "points")).read_bytes()
    path = tmp_path / "flip.cert"
    for i in range(0, len(good), 7):
        data = bytearray(good)
        data[i] ^= 1 << (i % 8)
        path.write_bytes(bytes(data))
        verdict = check(path)
        assert "\n" not in verdict.message, i
        assert not re.search(r"unexpected \w+(Error|Exception)", verdict.message), i
        assert verdict.code in (1, 2) or verdict.root_value == 0, (i, verdict.message)


# --- the command lines -------------------------------------------------------------------


def test_python_m_certificates_exit_codes(tmp_path):
    """The checker's command line: valid 0, invalid 1, unreadable 2, one line each."""
    files = {
        0: write(tmp_path, objects(), "valid.cert"),
        1: write(tmp_path, tampered(_uniform(0)), "invalid.cert"),
        2: write(tmp_path, tampered(_header("imp_info", False)), "unreadable.cert"),
    }
    for code, path in files.items():
        run = subprocess.run(
            [sys.executable, "-m", "certificates", str(path), "--quiet"],
            capture_output=True,
            text=True,
        )
        assert run.returncode == code, run.stdout + run.stderr
        assert len(run.stdout.splitlines()) == 1 and not run.stderr
        assert run.stdout.startswith(("valid", "invalid", "unreadable")[code])


def test_certify_command_writes_a_certificate_gops_check_validates(tmp_path):
    out = tmp_path / "c.cert"
    result = CliRunner().invoke(
        main, ["imperfect", "certify", "3", "--order", "ascending", "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["value"] == "0" and data["bytes"] == out.stat().st_size
    assert data["openspiel_game"]["imp_info"] is True
    checked = CliRunner().invoke(main, ["check", str(out), "--quiet"])
    assert checked.exit_code == 0 and checked.output.startswith("valid: imperfect-information")


def test_certify_command_overwrites_only_with_force(tmp_path):
    out = tmp_path / "c.cert"
    out.write_bytes(b"precious")
    args = ["imperfect", "certify", "2", "--out", str(out)]
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code == 2 and "exists; pass --force" in refused.output
    assert out.read_bytes() == b"precious"
    assert CliRunner().invoke(main, [*args, "--force"]).exit_code == 0
    assert check(out).ok


def test_certify_command_to_stdout_carries_the_certificate_alone():
    """`--out -`: standard output is the certificate, the report goes to stderr."""
    result = CliRunner().invoke(
        main, ["imperfect", "certify", "2", "--order", "descending", "--out", "-", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    objs = list(msgpack.Unpacker(io.BytesIO(result.stdout_bytes), raw=False))
    assert objs[0]["magic"] == "GOPS-IMPERFECT-CERTIFICATE" and objs[-1]["end"] is True
    assert "value of 2-card" in result.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["7", "--order", "descending"], "N must be at most 6 for gops imperfect certify"),
        (["6", "--order", "random"], "N must be at most 5"),
        (["0"], "N must be"),
    ],
    ids=["7-descending", "6-random", "0"],
)
def test_certify_command_refuses_sizes_beyond_exact_reach(tmp_path, args, message):
    out = tmp_path / "c.cert"
    result = CliRunner().invoke(main, ["imperfect", "certify", *args, "--out", str(out)])
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not out.exists()


def test_certify_refuses_a_game_where_a_player_sees_the_bids(tmp_path):
    """The checker knows OpenSpiel's imp_info game only; another information model would
    be written under its name, so it is refused before anything is written."""
    game = ImperfectGame.parse(2, "descending", "points", "p0-sees-bids")
    with pytest.raises(GopsInputError, match="imp_info game only"):
        certify(game, tmp_path / "c.cert")
    assert not (tmp_path / "c.cert").exists()
