"""gops imperfect nashconv: outputs, the JSON's units, one-line errors with exit code 2."""

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from exact.cli import main
from exact.cli.imperfect import _Progress
from exact.imperfect.game import ImperfectGame

#: The float NashConv's proven bound at N = 2: the rounding of a few dozen sums.
FLOAT_BOUND_TWO_CARDS = 1e-12


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output  # click >= 8.2 mixes stderr into output


def test_uniform_json_is_exact_and_states_its_units():
    """N = 2 descending uniform: NashConv 1/2 (derived by hand in
    tests/test_imperfect_nashconv.py::test_hand_derived_two_cards)."""
    code, out = run(
        "imperfect",
        "nashconv",
        "uniform",
        "--n",
        2,
        "--order",
        "descending",
        "--rational",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert data["nash_conv"] == "1/2" and data["best_response_values"] == ["1/4", "1/4"]
    assert data["units"] == "OpenSpiel's point_difference: half the point difference"
    assert data["openspiel_game"]["returns_type"] == "point_difference"


@pytest.mark.parametrize(
    "objective,nash_conv,units",
    [
        ("win", Fraction(1), "OpenSpiel's win_loss: +1 a win, -1 a loss, 0 a draw"),
        ("points", Fraction(1, 2), "OpenSpiel's point_difference: half the point difference"),
    ],
)
def test_text_output_and_win_units(objective, nash_conv, units):
    """N = 2 ascending, uniform, by hand: prize 1 first, each bids 1 or 2 (1/2 each), the
    last round plays itself.  P0's 1 against 2 loses prize 1 and wins prize 2 (a win,
    difference +1), its 2 against 1 the opposite, a tie ties both.  win: bidding 1 is
    worth 1/2 * 1 = 1/2, bidding 2 -1/2, so each best response is worth 1/2 (P1's by
    symmetry) and NashConv = 1; points (half the difference): 1/4 each, NashConv 1/2.
    The text shows each number within the bound it prints."""
    command = "imperfect nashconv uniform --n 2 --order ascending --objective"
    code, out = run(*command.split(), objective)
    assert code == 0
    head, responses, unit_line = out.strip().splitlines()
    title = (
        "NashConv of uniform in 2-card imperfect-information goofspiel "
        f"(ascending order, {objective}): "
    )
    assert head.startswith(title)
    value, bound = head.removeprefix(title).removesuffix(")").split(" (+- ")
    assert 0 < float(bound) < FLOAT_BOUND_TWO_CARDS
    assert abs(Fraction(value) - nash_conv) <= Fraction(bound)
    p0, p1 = responses.removeprefix("best responses: P0 ").split(", P1 ")
    for response in (p0, p1):
        assert abs(Fraction(response) - nash_conv / 2) <= Fraction(bound)
    assert unit_line == f"units: {units}"


def test_policy_file_and_fill_uniform(tmp_path):
    game = ImperfectGame.parse(3, "random")
    info = next(iter(game.information_states(0)))
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({info.string: {str(a): f"1/{len(info.legal)}" for a in info.legal}}))
    code, out = run("imperfect", "nashconv", path, "--n", 3)
    assert code == 2 and out.startswith("gops: error: the policy has no state")
    assert len(out.strip().splitlines()) == 1
    code, out = run(
        "imperfect", "nashconv", path, "--n", 3, "--fill-uniform", "--rational", "--json"
    )
    assert code == 0 and json.loads(out)["nash_conv"] == "4/3"


@pytest.mark.parametrize(
    "args,words",
    [
        (("absent.json", "--n", 3), "cannot read the policy file"),
        (("uniform", "--n", 7, "--order", "random"), "N must be at most 6"),
        (("uniform", "--n", 0), "N must be between 1 and 13"),
        (("uniform", "--n", 3, "--order", "controlled-by-me"), "Invalid value for '--order'"),
    ],
)
def test_errors_are_one_line_exit_2(args, words):
    code, out = run("imperfect", "nashconv", *args)
    assert code == 2
    assert out.startswith("gops: error: ") and words in out
    assert len(out.strip().splitlines()) == 1


@pytest.mark.parametrize("method", ["exact", "lp"])
def test_solve_policy_to_stdout_leaves_the_report_to_stderr(method):
    """--policy-out - with --json: standard output is the policy alone (one JSON
    document), the report goes to stderr, as gops imperfect certify --out - does.  N = 2
    descending: one decision each, the bid on prize 2, where card 2 (action 1) wins or
    ties whatever the other bids: both play it for sure."""
    args = ["imperfect", "solve", "2", "--order", "descending", "--method", method, "--json"]
    result = CliRunner().invoke(main, [*args, "--policy-out", "-", "--quiet"])
    assert result.exit_code == 0, result.output
    policy = json.loads(result.stdout)
    assert len(policy) == 2
    assert all(
        Fraction(str(mix["1"])) == 1 == 1 - Fraction(str(mix["0"])) for mix in policy.values()
    )
    report = json.loads(result.stderr)
    assert report["policy_out"] == "-" and report["n"] == 2 and report["order"] == "descending"


def test_progress_lines_once_a_run_takes_a_while(capsys):
    _Progress(True, after=0.0)(3, 10)
    _Progress(True, after=0.0)(10, 10)  # the last: nothing
    _Progress(True, after=3600.0)(3, 10)  # a short run: nothing
    _Progress(False, after=0.0)(3, 10)  # --quiet
    assert capsys.readouterr().err == "gops: best responses: 3 of 10 first-round bids done\n"
