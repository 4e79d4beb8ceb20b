"""Policy files of imperfect-information Goofspiel against hostile input
(exact.imperfect.policy_file): one line and exit 2, in bounded time and memory, for each
file the hostile review tried; and the parse that replaces the game's enumeration checked
against that enumeration (exact.imperfect.game.information_states)."""

import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from exact.cli import main
from exact.errors import GopsInputError
from exact.imperfect import policy_file
from exact.imperfect.game import ImperfectGame
from exact.imperfect.nashconv import nash_conv
from exact.imperfect.policy import uniform_policy
from exact.imperfect.policy_file import load_policy_file, policy_from_json
from exact.imperfect.tables import layout, reachable_rows

#: A hostile file must be refused well within this (seconds); the review's took 60 s and
#: more (killed).
HANG_GUARD = 60


def _uniform_data(game) -> dict:
    """A policy file of the uniform policy, exact strings, from the game's enumeration."""
    data = {}
    for player in (0, 1):
        for info in game.information_states(player):
            data[info.string] = {str(a): f"1/{len(info.legal)}" for a in info.legal}
    return data


def _nashconv(path, *more):
    args = [sys.executable, "-m", "exact.cli", "imperfect", "nashconv", str(path), "--n", "3",
            "--order", "descending", *more]  # fmt: skip
    return subprocess.run(args, capture_output=True, text=True, timeout=HANG_GUARD)


def _one_line(proc) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gops: error: "), proc.stderr[-2000:]
    assert len(lines[0]) < 1000
    return lines[0]


@pytest.fixture(scope="module")
def game():
    return ImperfectGame.parse(3, "descending", "points")


@pytest.fixture(scope="module")
def first(game):
    return next(iter(game.information_states(0))).string


def test_a_huge_json_integer(tmp_path, game, first):
    text = json.dumps(_uniform_data(game))
    text = text.replace('"1/3"', "1" + "0" * 5000, 1)
    path = tmp_path / "digits.json"
    path.write_text(text)
    assert "a JSON integer of 5,001 digits (at most 100 are read)" in _one_line(_nashconv(path))


@pytest.mark.parametrize("bracket", ["[", '{"a":'])
def test_deep_nesting(tmp_path, bracket):
    path = tmp_path / "deep.json"
    close = "]" if bracket == "[" else "}"
    path.write_text(bracket * 100_000 + "1" + close * 100_000)
    assert "nests too deeply to be a policy" in _one_line(_nashconv(path))


def test_a_billion_digit_exponent(tmp_path, game, first):
    data = _uniform_data(game)
    data[first] = {"0": "1e-999999999", "1": "1/2", "2": "1/2"}
    path = tmp_path / "exponent.json"
    path.write_text(json.dumps(data))
    assert "is not a number ('p/q', an integer or a decimal" in _one_line(_nashconv(path))


def test_repeated_keys_are_refused(tmp_path, game, first):
    """JSON keeps the last copy of a repeated key: a file read NashConv 3/2 that way."""
    data = _uniform_data(game)
    text = json.dumps(data)
    body = json.dumps({first: {"0": "1", "1": "0", "2": "0"}})[1:-1]
    twice = tmp_path / "twice.json"
    twice.write_text(text[:-1] + ", " + body + "}")
    assert "appears twice" in _one_line(_nashconv(twice))
    action = tmp_path / "action.json"
    entry = json.dumps(data[first])
    action.write_text(text.replace(entry, entry[:-1] + ', "0": "0"}', 1))
    assert "action '0' appears twice" in _one_line(_nashconv(action))


@pytest.mark.parametrize(
    "value, words",
    [
        ("1e-4300000", "is not a number"),
        ("1" * 5000 + "/3", "is not a number"),
        ("1/0", "divides by zero"),
        ("NaN", "is not a number"),
        ("-1/3", "is not a number"),
        (float("nan"), "is not finite"),
        (1e300, "is more than 1"),
        ([1, 2], "is not a number or a 'p/q' string"),
        ({"a": 1}, "is not a number or a 'p/q' string"),
        (None, "is not a number or a 'p/q' string"),
    ],
)
def test_bad_probabilities(game, first, value, words):
    data = _uniform_data(game)
    data[first] = {"0": value, "1": "1/3", "2": "1/3"}
    with pytest.raises(GopsInputError, match="probability") as caught:
        policy_from_json(game, data)
    assert words in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("value", ["1/3", "0.3333333333333333333333333333333333333333333e0"])
def test_exact_strings_are_read_exactly(game, first, value):
    data = _uniform_data(game)
    data[first] = {"0": value, "1": "1/3", "2": str(Fraction(2, 3) - Fraction(value))}
    policy = policy_from_json(game, data)
    key = next(iter(game.information_states(0))).key
    assert sum(p for _, p in policy.probabilities(0, key)) == 1
    assert dict(policy.probabilities(0, key))[1] == Fraction(value)


def test_a_file_too_large_is_refused_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(policy_file, "MAX_FILE_BYTES", 1000)
    path = tmp_path / "big.json"
    path.write_text(" " * 2000 + "{}")
    game = ImperfectGame.parse(3, "descending")
    with pytest.raises(GopsInputError, match="has 2,002 bytes, more than the 1,000 read"):
        load_policy_file(game, path)


@pytest.mark.parametrize(
    "string",
    [
        # a field that is not what the game writes there: leading zero, wrong hand, wrong
        # points, a prize out of order, a player 1 string with player 0's hand line
        "Current player: 0\nP0 hand: 1 2 3 \nP0 action sequence: \nPoint card sequence: 03 \n"
        "Win sequence: \nPoints: 0 0 \nTerminal?: 0\n",
        "Current player: 0\nP0 hand: 1 2 \nP0 action sequence: \nPoint card sequence: 3 \n"
        "Win sequence: \nPoints: 0 0 \nTerminal?: 0\n",
        "Current player: 0\nP0 hand: 1 2 \nP0 action sequence: 2 \nPoint card sequence: 3 2 \n"
        "Win sequence: 0 \nPoints: 2 0 \nTerminal?: 0\n",
        "Current player: 0\nP0 hand: 1 2 \nP0 action sequence: 2 \nPoint card sequence: 2 3 \n"
        "Win sequence: 0 \nPoints: 2 0 \nTerminal?: 0\n",
        "Current player: 1\nP0 hand: 1 2 3 \nP0 action sequence: \nPoint card sequence: 3 \n"
        "Win sequence: \nPoints: 0 0 \nTerminal?: 0\n",
        # an unreachable decision: player 0 bid 1 (card 1) and won
        "Current player: 0\nP0 hand: 2 3 \nP0 action sequence: 0 \nPoint card sequence: 3 2 \n"
        "Win sequence: 0 \nPoints: 3 0 \nTerminal?: 0\n",
    ],
)
def test_strings_that_are_not_decisions(game, string):
    data = _uniform_data(game)
    assert string not in data
    data[string] = {"0": 0.5, "1": 0.5}
    with pytest.raises(GopsInputError, match="is not a decision of 3-card"):
        policy_from_json(game, data)


def test_the_written_policy_reads_back_to_the_same_nashconv(tmp_path, game):
    """An exact file and a float file of the uniform policy: the exact one reads exactly
    the uniform policy's NashConv (4/3; OpenSpiel's nash_conv says 1.3333333333333333)."""
    path = tmp_path / "uniform.json"
    path.write_text(json.dumps(_uniform_data(game)))
    exact = nash_conv(game, load_policy_file(game, path), "rational").value
    assert exact == nash_conv(game, uniform_policy(game), "rational").value == Fraction(4, 3)


@pytest.mark.parametrize(
    "n, order",
    [(3, "descending"), (4, "ascending"), (4, "random"), (5, "descending"), (5, "random")],
)
def test_reachable_rows_are_the_games_decisions(n, order):
    """The rows the numba walk marks are exactly the rows of the game's own enumeration
    of its information states (a different walk: the opponent's hands carried along)."""
    game = ImperfectGame.parse(n, order)
    where = layout(game)
    for player in (0, 1):
        infos = list(game.information_states(player))
        rows = sorted(where.row(info.key) for info in infos)
        assert np.flatnonzero(reachable_rows(where, player)).tolist() == rows
        assert all(where.key(where.row(info.key)) == info.key for info in infos)


def test_every_decision_string_of_the_game_reads_back():
    """Each of the game's strings is accepted by the parse, at its own row (4 cards
    random: 3,608 strings, both players)."""
    big = ImperfectGame.parse(4, "random")
    where = layout(big)
    reader = policy_file.StateReader(big, where)
    for player in (0, 1):
        for info in big.information_states(player):
            found, row, legal = reader.row(info.string)
            assert (found, row) == (player, where.row(info.key))
            assert sorted(legal.values()) == [a + 1 for a in info.legal]


def test_cli_reads_a_float_file_as_openspiel_writes_it(tmp_path, game):
    """A float file (as TabularPolicy's tables give it) through the command."""
    data = {
        info.string: {str(a): 1 / len(info.legal) for a in info.legal}
        for player in (0, 1)
        for info in game.information_states(player)
    }
    path = tmp_path / "floats.json"
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(
        main, ["imperfect", "nashconv", str(path), "--n", "3", "--order", "descending", "--json"]
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert abs(answer["nash_conv_float"] - 4 / 3) <= answer["error_bound"] + 1e-15
