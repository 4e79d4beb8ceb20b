"""The ``gops`` command line under hostile input: every mistake is one line on stderr with
the exit code of the table in exact/cli/common.py (2 bad input, 130 interrupted), never a
traceback."""

import datetime
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import exact
from exact.cli import main
from exact.cli.families import TWO, FamilyCommand

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


# -- 10. --lead: one rule (|lead| <= N(N+1)/2) for solve, table, strategy and the API ------

HUGE_LEADS = [2**63 - 15, 10**100, -(2**63)]
STRATEGY = [
    "strategy",
    "--mine",
    "1,2",
    "--theirs",
    "1,2",
    "--deck",
    "1,2",
    "--upcard",
    "1",
    "--n",
    "3",
]


@pytest.mark.parametrize("lead", HUGE_LEADS, ids=["2^63-15", "10^100", "-2^63"])
@pytest.mark.parametrize(
    "command", [["table", "5"], ["solve", "5"], STRATEGY], ids=["table", "solve", "strategy"]
)
def test_huge_lead_is_one_line(command, lead):
    code, out, err = run(
        *command,
        "--objective",
        "win",
        "--lead",
        lead,
        "--quiet" if command[0] != "strategy" else "--json",
    )
    assert_one_line(code, out, err, f"got {lead}")
    assert "--lead must be between" in err


@pytest.mark.parametrize(
    "command, n", [(["table", "3"], 3), (STRATEGY, 3)], ids=["table", "strategy"]
)
def test_lead_limit_is_the_points_of_all_prizes(command, n):
    total = n * (n + 1) // 2
    code, out, err = run(*command, "--objective", "win", "--lead", total + 1)
    assert_one_line(code, out, err, f"--lead must be between -{total} and {total}")
    code, out, err = run(*command, "--objective", "win", "--lead", -total)
    assert code == 0, err


def test_strategy_lead_1000_is_refused_as_by_the_api():
    code, out, err = run(*STRATEGY, "--objective", "win", "--lead", 1000)
    assert_one_line(code, out, err, "got 1000")
    with pytest.raises(exact.GopsInputError, match="handicap must be between 0 and 6"):
        exact.solve(3, "win", handicap=1000)


@pytest.mark.parametrize("handicap", [7, 2**63 - 15, 10**100])
def test_api_refuses_a_handicap_beyond_all_prizes(handicap):
    with pytest.raises(exact.GopsInputError) as e:
        exact.solve(3, "win", handicap=handicap)
    assert "\n" not in str(e.value) and "between 0 and 6" in str(e.value)


def test_lead_on_the_points_objective_is_refused():
    code, out, err = run("table", "3", "--lead", "1")
    assert_one_line(code, out, err, "--lead applies to --objective win only")


# -- 11. gops variant standard N: the standard game through the variant solver ---------------


def test_variant_standard_matches_the_fast_solver():
    code, out, err = run("variant", "standard", "4", "--exact", "--json")
    assert code == 0, err
    import json
    from fractions import Fraction

    data = json.loads(out)
    table = exact.solve(4, arithmetic="rational").first_move_table()
    assert {int(u): [Fraction(p) for p in probs] for u, probs in data["by_upcard"].items()} == {
        u: [table[u][b] for b in range(1, 5)] for u in table
    }
    code, out, err = run("variant", "standard", "3")
    assert code == 0 and "standard rules, by the generic variant recursion" in out


def test_variant_standard_limit():
    code, out, err = run("variant", "standard", "7")
    assert_one_line(code, out, err, "between 1 and 6 for gops variant standard")


# -- 12. gops check: an unreadable certificate is an error on stderr -------------------------


def test_check_unreadable_goes_to_stderr(tmp_path):
    bad = tmp_path / "bad.cert"
    bad.write_bytes(b"not a certificate")
    for path in (bad, tmp_path / "missing.cert"):
        code, out, err = run("check", path, "--quiet")
        assert out == ""
        assert_one_line(code, out, err, "unreadable")


def test_check_valid_verdict_on_stdout(tmp_path):
    cert = tmp_path / "g2.cert"
    assert run("certify", "2", "-o", cert, "--quiet")[0] == 0
    code, out, err = run("check", cert, "--quiet")
    assert code == 0 and out.startswith("valid: N=2") and err == ""
    code, out, err = run("check", cert)
    assert code == 0 and "level 2/2" in err  # progress on stderr without --quiet


# -- 13. bare gops, negative N, Ctrl-C -------------------------------------------------------


def test_bare_gops_prints_the_command_list():
    code, out, err = run()
    assert code == 2
    text = out + err
    assert re.match(r"Usage: \S+ \[OPTIONS\] COMMAND", text) and "Commands:" in text
    for name in main.commands:
        assert re.search(rf"^  {re.escape(name)}\b", text, re.M), name
    assert "error" not in text


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["table", "-1"], "between 1 and 13 for gops table"),
        (["count", "-3"], "between 1 and 16 for gops count"),
        (["variant", "twelve", "-1"], "between 2 and 9 for gops variant twelve"),
        (["evaluate", "-2", "--bots", "random,lowest"], "between 1 and 10 for gops evaluate"),
        (["certify", "-o", "x.cert", "-5"], "between 1 and 7 for gops certify"),
    ],
)
def test_negative_n_is_a_bad_n(args, fragment):
    code, out, err = run(*args)
    assert_one_line(code, out, err, fragment)
    assert "got -" in err


def test_negative_numbers_still_reach_options_and_unknown_options_fail():
    code, out, err = run("table", "3", "--objective", "win", "--lead", "-2", "--json", "--quiet")
    assert code == 0 and '"lead": -2' in out, err
    code, out, err = run("table", "3", "--bogus")
    assert_one_line(code, out, err, "No such option")


def test_ctrl_c_in_play_exits_130(monkeypatch):
    import exact.cli.play

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(exact.cli.play, "_ask_bid", interrupted)
    code, out, err = run("play", "2", "--seed", "1")
    assert code == 130, (out, err)
    assert err.strip() == "gops: interrupted"


def test_sigint_in_play_exits_130():
    """The real thing: SIGINT while `gops play` waits for a bid."""
    # SIGINT back to its default in the child: a test run started in the background
    # (``cmd &``) inherits SIGINT ignored, and Python then installs no handler for it.
    proc = subprocess.Popen(
        [sys.executable, "-m", "exact.cli", "play", "3", "--seed", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        seen = ""
        while "Your bid" not in seen:
            ch = proc.stdout.read(1)
            assert ch, seen
            seen += ch
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.strip() == "gops: interrupted" and "Traceback" not in err


def test_python_m_exact_cli_knows_every_command():
    proc = subprocess.run(
        [sys.executable, "-m", "exact.cli", "variant", "dummy", "2"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr


def test_exit_code_table_documents_130():
    import exact.cli.base

    assert re.search(r"^\s*130\s+interrupted", exact.cli.base.__doc__, re.M)


# -- 14. one integer parser for N, --n, --upcard, --lead, --chunk-items and cards ------------

NOT_A_NUMBER = "is not a whole number (ASCII digits 0-9, optionally after a '-', no spaces)"


@pytest.mark.parametrize(
    "text",
    ["５", " 5 ", "5\t", "\t5", "+5", "5.0", "٣", "", "5-"],
    ids=[
        "fullwidth",
        "spaces",
        "tab-after",
        "tab-before",
        "plus",
        "decimal",
        "arabic-indic",
        "empty",
        "minus-after",
    ],
)
def test_n_is_ascii_digits_only(text):
    code, out, err = run("count", text)
    assert_one_line(code, out, err, NOT_A_NUMBER)


@pytest.mark.parametrize("option", ["--n", "--upcard", "--lead"])
def test_integer_options_use_the_same_parser(option):
    values = {"--n": "2", "--upcard": "1", "--lead": "0"}
    values[option] = "５"
    argv = ["strategy", "--mine", "1,2", "--theirs", "1,2", "--deck", "1,2", "--objective", "win"]
    for name, value in values.items():
        argv += [name, value]
    code, out, err = run(*argv)
    assert_one_line(code, out, err, NOT_A_NUMBER)


@pytest.mark.parametrize("option", ["--chunk-items", "--games", "--seed"])
def test_other_integer_options_use_the_same_parser(option, tmp_path):
    argv = {
        "--chunk-items": ["solve", "3", "--store", tmp_path / "s"],
        "--games": ["tournament", "3"],
        "--seed": ["tournament", "3"],
    }[option]
    code, out, err = run(*argv, option, " 3")
    assert_one_line(code, out, err, NOT_A_NUMBER)


@pytest.mark.parametrize("card", ["５", "٣"])
def test_cards_use_the_same_parser(card):
    code, out, err = run(
        "strategy", "--mine", f"1,{card}", "--theirs", "1,2", "--deck", "1,2", "--upcard", "1"
    )
    assert_one_line(code, out, err, NOT_A_NUMBER)
    assert f"bad card {card!r}" in err


def test_parse_integer():
    from exact.game.rules import parse_integer

    assert parse_integer("42") == 42 and parse_integer("-7") == -7 and parse_integer("007") == 7
    for text in ["５", " 1", "1 ", "+1", "--1", "1_000", "0x10", ""]:
        with pytest.raises(exact.GopsInputError, match=re.escape(NOT_A_NUMBER)):
            parse_integer(text)
    with pytest.raises(exact.GopsInputError, match="digits"):
        parse_integer("1" * 5000)


@pytest.mark.parametrize("cards", ["2, 4", "2 ,4", " 2,4", "2,4 ", "2,\t4"])
def test_cards_allow_no_spaces_as_n_does(cards):
    code, out, err = run(
        "strategy", "--mine", cards, "--theirs", "1,3", "--deck", "1,2", "--upcard", "1"
    )
    assert_one_line(code, out, err, NOT_A_NUMBER)
    token = [t for t in cards.split(",") if t.strip() != t][0]
    assert f"bad card {token!r}" in err


@pytest.mark.parametrize("card, n", [("99999999999999999999", ""), ("53", ""), ("6", "5")])
def test_a_card_out_of_range_is_named(card, n):
    extra = ["--n", n] if n else []
    code, out, err = run(
        "strategy",
        "--mine",
        f"2,4,{card}",
        "--theirs",
        "1,3,5",
        "--deck",
        "1,2,3",
        "--upcard",
        "1",
        *extra,
    )
    assert_one_line(code, out, err, f"my hand: card {card} is outside 1..{n or 52}")
    assert "N must" not in err


def test_play_prompt_uses_the_same_parser():
    result = CliRunner().invoke(main, ["play", "2", "--seed", "1"], input="１\n1\n")
    assert result.exit_code == 0, result.output
    assert "'１' is not a card number" in result.output


# -- 15. every command states its own limit on N ---------------------------------------------

#: For each command with an N argument: its arguments around N, and its limits.
N_COMMANDS = {
    "solve": ([], [], (1, 13)),
    "table": ([], [], (1, 13)),
    "count": ([], [], (1, 16)),
    "certify": ([], ["-o", "never.cert"], (1, 7)),
    "audit": ([], [], (1, 7)),
    "compare-objectives": ([], [], (1, 10)),
    "evaluate": ([], ["--bots", "random,lowest"], (1, 10)),
    "tournament": ([], ["--bots", "random,lowest"], (1, 13)),
    "play": ([], [], (1, 10)),
    "variant": (["dummy"], [], (1, 6)),
    "fixed-bids": ([], [], (1, 16)),
}


def test_every_n_command_is_listed():
    """Every command with an N argument (gops solve and table: their two-player form)."""
    with_n = {
        name
        for name, cmd in main.commands.items()
        if any(
            p.name == "n" and not p.opts[0].startswith("-")
            for p in (TWO.command(name) if isinstance(cmd, FamilyCommand) else cmd).params
        )
    }
    assert with_n == set(N_COMMANDS)


@pytest.mark.parametrize("name", sorted(N_COMMANDS))
@pytest.mark.parametrize("side", ["low", "high"])
def test_each_command_states_its_own_limit(name, side):
    before, after, (low, high) = N_COMMANDS[name]
    n = low - 1 if side == "low" else high + 1
    code, out, err = run(name, *before, n, *after)
    full = " ".join([name, *before])
    assert_one_line(code, out, err, f"N must be between {low} and {high} for gops {full}")
    assert err.rstrip().endswith(f"got {n}")


@pytest.mark.parametrize(
    "args, fragment",
    [
        (
            ["tournament", "11", "--bots", "optimal,lowest"],
            "between 1 and 10 for gops tournament with an optimal bot",
        ),
        (
            ["tournament", "7", "--variant", "dummy", "--bots", "optimal,lowest"],
            "between 1 and 6 for gops tournament --variant dummy with an optimal bot",
        ),
        (
            ["tournament", "1", "--variant", "twelve", "--bots", "random,lowest"],
            "between 2 and 13 for gops tournament --variant twelve (one suit of a deck)",
        ),
        (["play", "7", "--variant", "dummy"], "between 1 and 6 for gops play --variant dummy"),
        (["play", "14", "--variant", "three"], "between 1 and 13 for gops play --variant three"),
        (["play", "17", "--store", "nowhere"], "between 1 and 16 for gops play --store"),
        (["solve", "11", "--objective", "win"], "between 1 and 10 for gops solve --objective win"),
        (["table", "11", "--objective", "win"], "between 1 and 10 for gops table --objective win"),
        (
            ["certify", "8", "--objective", "win", "-o", "x"],
            "between 1 and 7 for gops certify --objective win",
        ),
        (["variant", "twelve", "8", "--exact"], "between 2 and 7 for gops variant twelve --exact"),
        (
            [
                "strategy",
                "--mine",
                "1",
                "--theirs",
                "1",
                "--deck",
                "1",
                "--upcard",
                "1",
                "--n",
                "17",
            ],
            "between 1 and 16 for gops strategy",
        ),
    ],
)
def test_limits_depend_on_objective_variant_and_arithmetic(args, fragment):
    code, out, err = run(*args)
    assert_one_line(code, out, err, fragment)


# -- 16. gops reproduce does not overwrite; the notebook leaves nothing behind ----------------


def test_reproduce_refuses_to_overwrite(tmp_path):
    target = tmp_path / "gops-5.cert"
    target.write_bytes(b"precious")
    code, out, err = run("reproduce", "-o", target)
    assert_one_line(code, out, err, "--force")
    assert target.read_bytes() == b"precious"
    code, out, err = run("reproduce", "-o", target, "--force")
    assert code == 0 and "independent checker: valid" in out, err
    assert target.read_bytes() != b"precious"


def test_reproduce_default_path_refuses_too(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gops-5.cert").write_bytes(b"precious")
    code, out, err = run("reproduce")
    assert_one_line(code, out, err, "gops-5.cert exists and is not the certificate this solve")
    assert (tmp_path / "gops-5.cert").read_bytes() == b"precious"


def test_reproduce_run_again_checks_the_certificate_it_finds(tmp_path, monkeypatch):
    """The README's main command run twice in one folder (issue 49): the second run finds
    the very certificate it would write, says so, checks it and prints the table."""
    monkeypatch.chdir(tmp_path)
    code, first, err = run("reproduce")
    assert code == 0, err
    written = (tmp_path / "gops-5.cert").read_bytes()
    code, again, err = run("reproduce")
    assert code == 0, err
    assert "its certificate gops-5.cert is already there, byte for byte" in again
    assert "independent checker: valid" in again
    assert again.split("Table 1")[1] == first.split("Table 1")[1].replace(
        first.splitlines()[-1], again.splitlines()[-1]
    )
    assert (tmp_path / "gops-5.cert").read_bytes() == written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gops-5.cert"]


# -- 18. user-facing texts name their sources ------------------------------------------------

#: How the sources were once named inside the project ("the seed of rng" is a random seed).
INTERNAL = re.compile(r"\bthe seed\b(?! of)|\bseed's|\bseed \d{3}|/seeds/|\bthe issue\b", re.I)


def test_sources_are_named_by_title():
    hits = []
    sources = sorted((ROOT / "exact").glob("*.py")) + sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in sources:
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if INTERNAL.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not hits, "\n".join(hits)


@pytest.mark.parametrize("command", sorted(main.commands))
def test_help_texts_do_not_speak_of_the_seed(command):
    code, out, err = run(command, "--help")
    assert code == 0
    text = re.sub(r"--seed|[Rr]andom seed|seed \{|seed \d", "", out)
    assert not re.search(r"\bseed\b|\bissue\b", text, re.I), out


#: The time of day a FakeClock's progress lines are stamped with.
WALL = datetime.datetime(2026, 11, 26, 14, 10, 59, tzinfo=datetime.timezone.utc)


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_a_long_store_solve_in_a_log_writes_a_line_every_ten_minutes(capsys, monkeypatch):
    """ProgressLines (gops solve --store with stderr not a terminal): nothing in the first
    PROGRESS_LINE_SECONDS, then a line with the level, the items done, this run's rate in
    the level and the time left in it, and a line when such a level is done; a resumed
    level's rate counts this run's items only; a short level says nothing."""
    from exact.cli.common import PROGRESS_LINE_SECONDS, ProgressLines
    from exact.game.encoding import build_levels
    from exact.kernels.points import level_items

    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    clock = FakeClock()
    lines = ProgressLines(clock=clock, wall=lambda: WALL)
    levels = build_levels(9)
    short, long = levels[3], levels[5]
    lines(short, level_items(short))  # level 3 done at once: no line
    total = level_items(long)  # 90,090 items
    clock.now = 60.0
    lines(long, 10_000)  # resumed: 10,000 items found done
    clock.now = PROGRESS_LINE_SECONDS - 1
    lines(long, 1_000)  # before the first 10 minutes: no line
    assert capsys.readouterr().err == ""
    clock.now = PROGRESS_LINE_SECONDS + 60.0  # 10 minutes after the resume
    lines(long, 1_000)  # 2,000 items this run in 10 minutes: 200 a minute
    err = capsys.readouterr().err
    assert err == (  # 78,090 items left at 200 a minute: 6.5 hours
        "gops: level 5/9 at 2026-11-26 14:10 UTC: 12,000 of 90,090 items (13.3 %), "
        "200 items a minute; about 6.5 h left in it\n"
    )
    clock.now += 60.0
    lines(long, 1_000)  # within 10 minutes of that line: nothing
    assert capsys.readouterr().err == ""
    lines(long, total - 13_000)
    assert capsys.readouterr().err == "gops: level 5/9 done at 2026-11-26 14:10 UTC: 90,090 items\n"
    quiet = ProgressLines(enabled=False, clock=clock)
    clock.now += 10 * PROGRESS_LINE_SECONDS
    quiet(long, 1)
    assert capsys.readouterr().err == ""


def test_a_progress_line_of_a_known_game_says_the_time_left_in_the_run(capsys, monkeypatch):
    """Given the game, ProgressLines adds the time left in the whole run: the levels above
    weighed by the cost model (k^3 / 2 per prize set and pattern), at the rate the level
    keeps.  The expected figure is computed here from the counts, not by level_work."""
    from math import comb

    from exact.cli.common import PROGRESS_LINE_SECONDS, ProgressLines
    from exact.game.encoding import build_levels, pattern_count
    from exact.game.spec import GameSpec

    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    clock = FakeClock()
    lines = ProgressLines(clock=clock, game=GameSpec.parse(9), wall=lambda: WALL)
    levels = build_levels(9)
    lines(levels[5], 10_000)
    clock.now = PROGRESS_LINE_SECONDS
    lines(levels[5], 2_000)  # 200 items a minute; 78,090 of 90,090 left
    work = [comb(9, k) * pattern_count(9, k) * k**3 / 2 for k in range(10)]
    minutes = 78_090 / 200 + sum(work[6:]) / work[5] * 90_090 / 200
    assert round(minutes / 60, 1) == 22.9
    assert capsys.readouterr().err == (
        "gops: level 5/9 at 2026-11-26 14:10 UTC: 12,000 of 90,090 items (13.3 %), "
        "200 items a minute; about 6.5 h left in it, 22.9 h in the run\n"
    )
