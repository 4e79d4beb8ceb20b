"""The ``gops`` command line: outputs, JSON shapes and one-line errors with exit code 2."""

import json
import subprocess
import sys
from fractions import Fraction

import pytest
from click.testing import CliRunner

from exact.cli import main

TOL = 1e-9


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output  # click >= 8.2 mixes stderr into output


def test_table_json_matches_paper_table_1():
    code, out = run("table", 5, "--json", "--quiet")
    assert code == 0
    data = json.loads(out)
    assert data["n"] == 5 and data["objective"] == "points"
    assert sorted(data["by_upcard"]) == ["1", "2", "3", "4", "5"]
    assert data["by_upcard"]["1"][0] == pytest.approx(0.0470, abs=0.5e-4)
    assert data["by_upcard"]["5"][4] == pytest.approx(0.8636, abs=0.5e-4)
    for probs in data["by_upcard"].values():
        assert sum(probs) == pytest.approx(1, abs=TOL)


def test_table_text_layout():
    code, out = run("table", 5, "--quiet")
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split() == ["bid\\up", "1", "2", "3", "4", "5"]
    assert lines[2].split()[:2] == ["1", "0.0470"]


def test_strategy_json_worked_example():
    code, out = run(
        "strategy", "--mine", "2,4", "--theirs", "1,3", "--deck", "12,13", "--upcard", 13, "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["value"] == pytest.approx(12.52, abs=TOL)
    assert data["mine"]["4"] == pytest.approx(0.52, abs=TOL)
    assert set(data["theirs"]) == {"1", "3"}


def test_strategy_exact_worked_example():
    code, out = run(
        "strategy",
        "--mine",
        "2,4",
        "--theirs",
        "1,3",
        "--deck",
        "12,13",
        "--upcard",
        13,
        "--exact",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert Fraction(data["value"]) == Fraction(313, 25)
    assert Fraction(data["mine"]["4"]) == Fraction(13, 25)


def test_count_total_n5():
    code, out = run("count", 5)
    assert code == 0
    assert out.splitlines()[-1].split()[:2] == ["all", "682"]


@pytest.mark.parametrize(
    "args, fragment",
    [
        pytest.param(["table", "0"], "between 1 and", id="n-zero"),
        pytest.param(["table", "14"], "between 1 and 13", id="n-too-big-float"),
        pytest.param(["count", "--", "-3"], "between 1 and", id="count-negative"),
        pytest.param(["certify", "8", "-o", "x.cert"], "between 1 and 7", id="n-too-big-exact"),
        pytest.param(
            ["strategy", "--mine", "2,4", "--theirs", "1", "--deck", "1,2", "--upcard", "1"],
            "differ in size",
            id="hands-of-different-sizes",
        ),
        pytest.param(
            ["strategy", "--mine", "2,4", "--theirs", "1,3", "--deck", "1,2,3", "--upcard", "1"],
            "deck",
            id="deck-size",
        ),
        pytest.param(
            ["strategy", "--mine", "2,4", "--theirs", "1,3", "--deck", "1,2", "--upcard", "5"],
            "upcard",
            id="upcard-not-in-deck",
        ),
        pytest.param(
            ["strategy", "--mine", "2,x", "--theirs", "1,3", "--deck", "1,2", "--upcard", "1"],
            "bad card",
            id="malformed-list",
        ),
        pytest.param(
            ["strategy", "--mine", "2,2", "--theirs", "1,3", "--deck", "1,2", "--upcard", "1"],
            "more than once",
            id="repeated-card",
        ),
        pytest.param(
            [
                "strategy",
                "--mine",
                "2,9",
                "--theirs",
                "1,3",
                "--deck",
                "1,2",
                "--upcard",
                "1",
                "--n",
                "5",
            ],
            "9",
            id="card-out-of-range",
        ),
        pytest.param(
            ["strategy", "--mine", "0,2", "--theirs", "1,3", "--deck", "1,2", "--upcard", "1"],
            "bad card",
            id="card-zero",
        ),
        pytest.param(
            [
                "strategy",
                "--mine",
                "1,2,3,4,5,6,7,8,9",
                "--theirs",
                "1,2,3,4,5,6,7,8,9",
                "--deck",
                "1,2,3,4,5,6,7,8,9",
                "--upcard",
                "1",
                "--exact",
            ],
            "at most 7",
            id="exact-too-big",
        ),
        pytest.param(["table", "five"], "is not a whole number", id="n-not-an-integer"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, fragment):
    code, out = run(*args)
    assert code == 2, out
    assert fragment in out
    assert out.count("\n") == 1 and out.startswith("gops: error: "), out


def test_entry_point_bad_input_has_no_traceback():
    """The installed console script prints one line on stderr and exits 2."""
    proc = subprocess.run(
        [sys.executable, "-m", "exact.cli", "table", "0"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr
    assert "N must be between 1 and 13" in proc.stderr


def test_exact_strategy_prints_numbers_beyond_4300_digits(solved_exact):
    """N = 6 first-move probabilities have thousands of digits: CPython's str(int) refuses
    them by default, so the CLI must print them another way (and exactly)."""
    import json
    from fractions import Fraction

    from click.testing import CliRunner
    from flint import fmpz

    from exact.cli import main
    from exact.cli.render import digit_count

    args = [
        "strategy",
        "--mine",
        "1,2,3,4,5,6",
        "--theirs",
        "1,2,3,4,5,6",
        "--deck",
        "1,2,3,4,5,6",
        "--upcard",
        "1",
        "--exact",
    ]
    result = CliRunner().invoke(main, args + ["--json"])
    assert result.exit_code == 0, result.output

    def parse(text):  # Fraction(str) has the same 4,300-digit limit; fmpz does not
        num, _, den = text.partition("/")
        return Fraction(int(fmpz(num)), int(fmpz(den or "1")))

    mine = {int(c): parse(p) for c, p in json.loads(result.output)["mine"].items()}
    cards = set(range(1, 7))
    assert mine == solved_exact(6).strategy(cards, cards, cards, 1).mine
    assert max(digit_count(p.denominator) for p in mine.values()) > 4300
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0 and "exact; verified" in text.output


def test_variant_command_text_and_json():
    import json
    from fractions import Fraction

    from click.testing import CliRunner

    from exact.cli import main

    out = CliRunner().invoke(main, ["variant", "twelve", "4", "--exact", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["bids"] == [2, 3, 4] and data["value"] == "0" and data["exact"]
    for probs in data["by_upcard"].values():
        assert sum(Fraction(p) for p in probs) == 1
    text = CliRunner().invoke(main, ["variant", "dummy", "3"])
    assert text.exit_code == 0 and "First move of 3-card GOPS with a random dummy" in text.output
    bad = CliRunner().invoke(main, ["variant", "twelve", "10"])
    assert bad.exit_code == 2 and bad.output.count("\n") == 1
    assert "N must be between 2 and 9 for gops variant twelve" in bad.output


def test_a_position_of_a_big_game_beyond_memory_is_refused_at_once():
    # Levels 0..13 of 14-card GOPS: ~6.7 times the whole 13-card game (issue 36, item 8);
    # before the refusal the command computed silently for hours.
    hand = ",".join(map(str, range(1, 15)))
    args = ("strategy", "--mine", hand, "--theirs", hand, "--deck", hand, "--upcard", 1)
    code, out = run(*args)
    assert code == 2
    assert out.startswith("gops: error: this position needs levels 0 to 13 of 14-card GOPS")
    assert "--store DIR" in out and len(out.splitlines()) == 1


@pytest.mark.parametrize("objective", ["points", "win"])
def test_chunk_items_without_a_store_is_refused(objective):
    code, out = run("solve", 5, "--objective", objective, "--chunk-items", 100)
    assert (code, out) == (2, "gops: error: --chunk-items applies to --store only\n")
