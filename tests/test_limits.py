"""The limits on N and the measured times: one source (exact.limits), read by every message
and page that quotes them, and each time still the one benchmarks/RESULTS.md records."""

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from exact.cli import main
from exact.cli.limits import limits
from exact.limits import ENCODING_MAX_N, LARGEST_SOLVED_N, SOLVE_MAX_N, TIMINGS

ROOT = Path(__file__).resolve().parent.parent
RESULTS = (ROOT / "benchmarks" / "RESULTS.md").read_text()

#: Seconds per unit, for reading a time as RESULTS.md writes it (independent of Timing).
UNITS = {"s": 1, "min": 60, "minutes": 60, "hours": 3600, "h": 3600}


def _seconds(shown: str) -> float:
    """ "46 min 28 s" -> 2788.0; "7.3 hours" -> 26280.0; a bare number is seconds."""
    parts = re.findall(r"([\d.]+)\s*([a-z]*)", shown)
    return sum(float(number) * UNITS[unit or "s"] for number, unit in parts)


@pytest.mark.parametrize("key", sorted(TIMINGS), ids=lambda k: "-".join(map(str, k)))
def test_each_time_is_the_one_results_md_records(key):
    timing = TIMINGS[key]
    assert timing.results_line in RESULTS
    assert timing.shown in timing.results_line
    assert _seconds(timing.shown) == pytest.approx(timing.seconds, abs=1.0)


def test_each_time_a_limit_message_quotes_is_the_measured_one():
    """ "N = 13 takes about 9.5 minutes": the N's measured time, rounded as Timing.about()."""
    quoted = 0
    for key, limit in limits().items():
        for n, about in re.findall(
            r"N = (\d+) takes (about [\d.]+ [a-z]+|[a-z ]+?)(?: on|[;,)]|$)", limit.why
        ):
            objective = "win" if "win" in " ".join(key) or "win" in limit.why else "points"
            kind = (
                "rational"
                if "rational" in limit.why
                else "fixed bids"
                if key[0] == "fixed-bids"
                else "float"
            )
            if (objective, kind, int(n)) not in TIMINGS:
                continue  # a time no table records (the bound checker's): not quoted here
            assert about == TIMINGS[objective, kind, int(n)].about(), (key, limit.why)
            quoted += 1
    assert quoted >= 6


def test_the_in_memory_limit_message_gives_the_time_and_the_way_beyond():
    result = CliRunner().invoke(main, ["table", str(SOLVE_MAX_N["points", "float"] + 1)])
    assert result.exit_code == 2
    assert TIMINGS["points", "float", 13].about() in result.output
    assert "--store" in result.output


def test_play_says_one_store_limit_in_its_help_and_its_message():
    """gops play's help and its limit message name the limit it applies with --store."""
    store_limit = limits()["play", "--store"].high
    assert store_limit == ENCODING_MAX_N
    help_text = " ".join(CliRunner().invoke(main, ["play", "--help"]).output.split())
    assert re.findall(r"up to (\d+) from --store", help_text) == [str(store_limit)]
    refused = CliRunner().invoke(main, ["play", "11"])
    assert refused.exit_code == 2
    assert re.findall(r"up to (\d+) from a store", refused.output) == [str(store_limit)]


def test_the_docs_home_states_the_largest_solved_n():
    """The home page names the largest N solved, not the encoding's limit as if solved."""
    text = " ".join((ROOT / "docs" / "index.md").read_text().split())
    assert f"the largest solved so far: N = {LARGEST_SOLVED_N['points']}" in text
    top = TIMINGS["points", "store", LARGEST_SOLVED_N["points"]]
    assert top.about() in text
