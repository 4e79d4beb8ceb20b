"""The ``gops`` command line under hostile input: every mistake is one line on stderr with
the exit code of the table in exact/cli.py (2 bad input, 130 interrupted), never a
traceback."""

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import exact
from exact.cli import main

ROOT = Path(__file__).resolve().parent.parent


def run(*args, **kwargs):
    """(exit code, stdout, stderr) of ``gops ARGS``."""
    result = CliRunner().invoke(main, [str(a) for a in args], **kwargs)
    return result.exit_code, result.stdout, result.stderr


def assert_one_line(code, out, err, fragment, expected_code=2):
    assert code == expected_code, (out, err)
    assert err.startswith("gops: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in out + err
    assert fragment in err, err


# -- 14. one integer parser for N, --n, --upcard, --lead, --chunk-items and cards ------------

NOT_A_NUMBER = "is not a whole number (ASCII digits 0-9, optionally after a '-', no spaces)"


@pytest.mark.parametrize("text", ["５", " 5 ", "5\t", "\t5", "+5", "5.0", "٣", "", "5-"],
                         ids=["fullwidth", "spaces", "tab-after", "tab-before", "plus",
                              "decimal", "arabic-indic", "empty", "minus-after"])
def test_n_is_ascii_digits_only(text):
    code, out, err = run("count", text)
    assert_one_line(code, out, err, NOT_A_NUMBER)


@pytest.mark.parametrize("option", ["--n", "--upcard", "--lead"])
def test_integer_options_use_the_same_parser(option):
    values = {"--n": "2", "--upcard": "1", "--lead": "0"}
    values[option] = "５"
    argv = ["strategy", "--mine", "1,2", "--theirs", "1,2", "--deck", "1,2",
            "--objective", "win"]
    for name, value in values.items():
        argv += [name, value]
    code, out, err = run(*argv)
    assert_one_line(code, out, err, NOT_A_NUMBER)


@pytest.mark.parametrize("option", ["--chunk-items", "--games", "--seed"])
def test_other_integer_options_use_the_same_parser(option, tmp_path):
    argv = {"--chunk-items": ["solve", "3", "--store", tmp_path / "s"],
            "--games": ["tournament", "3"], "--seed": ["tournament", "3"]}[option]
    code, out, err = run(*argv, option, " 3")
    assert_one_line(code, out, err, NOT_A_NUMBER)


@pytest.mark.parametrize("card", ["５", "٣"])
def test_cards_use_the_same_parser(card):
    code, out, err = run("strategy", "--mine", f"1,{card}", "--theirs", "1,2", "--deck", "1,2",
                         "--upcard", "1")
    assert_one_line(code, out, err, NOT_A_NUMBER)
    assert f"bad card {card!r}" in err


def test_parse_integer():
    from exact.rules import parse_integer

    assert parse_integer("42") == 42 and parse_integer("-7") == -7 and parse_integer("007") == 7
    for text in ["５", " 1", "1 ", "+1", "--1", "1_000", "0x10", ""]:
        with pytest.raises(exact.GopsInputError, match=re.escape(NOT_A_NUMBER)):
            parse_integer(text)
    with pytest.raises(exact.GopsInputError, match="digits"):
        parse_integer("1" * 5000)


def test_play_prompt_uses_the_same_parser():
    result = CliRunner().invoke(main, ["play", "2", "--seed", "1"], input="１\n1\n")
    assert result.exit_code == 0, result.output
    assert "'１' is not a card number" in result.output
