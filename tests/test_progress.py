"""What a long command says while it runs when its stderr is a log, not a terminal (the
CliRunner's stderr is not a terminal): the in-memory solve of `gops table`, `gops
tournament`; and `gops count`, which answers at once at any N."""

import re
import time

import pytest
from click.testing import CliRunner

import exact.cli.bots
import exact.cli.common
import exact.play.tournament
from exact.cli import main
from exact.cli.count import count_rows
from exact.dp.objective import PointsObjective
from exact.game.encoding import count_table

#: `gops count 16` must answer within this many seconds (it took over 2 minutes when it
#: built every level's transition tables).
COUNT_SECONDS = 10.0


def _run(args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_table_in_a_log_prints_progress_lines(monkeypatch):
    quiet = _run(["table", 8])  # shorter than a line's interval: nothing on stderr
    assert quiet.exit_code == 0 and quiet.stderr == ""
    monkeypatch.setattr(exact.cli.common, "SOLVE_PROGRESS_LINE_SECONDS", 0.0)
    monkeypatch.setattr(PointsObjective, "chunk_items", 256)  # several reports per level
    logged = _run(["table", 8])
    assert logged.exit_code == 0
    assert logged.stdout == quiet.stdout  # the table itself is unchanged
    lines = logged.stderr.splitlines()
    assert any(
        re.fullmatch(r"gops: level [4-8]/8 at .* UTC: [\d,]+ of [\d,]+ items .*", x) for x in lines
    )
    assert any(re.fullmatch(r"gops: level \d/8 done at .* UTC: [\d,]+ items", x) for x in lines)


@pytest.mark.parametrize("n", range(1, 11))
def test_count_rows_are_the_levels_counted(n):
    """The closed form against the levels built with their tables (encoding.count_table)."""
    assert count_rows(n) == count_table(n)


def test_count_16_answers_at_once():
    started = time.monotonic()
    result = _run(["count", 16])
    assert time.monotonic() - started < COUNT_SECONDS
    assert result.exit_code == 0
    rows = result.stdout.splitlines()
    # level 1: 3 patterns (mine higher, theirs higher, the same card) x 16 prizes; one
    # matrix game per prize for the antisymmetric pair, none for the identical hands
    assert rows[2].split() == ["1", "3", "16", "48", "16"]
    assert rows[17].split() == ["16", "1", "1", "1", "0"]


def test_a_tournament_beyond_its_limit_is_one_line():
    result = _run(["tournament", 4, "--games", 10**12])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "at most 1,000,000 games per pair" in result.stderr


def test_a_long_tournament_prints_progress_lines(monkeypatch):
    monkeypatch.setattr(exact.play.tournament, "PROGRESS_GAMES", 100)
    monkeypatch.setattr(exact.cli.bots, "SOLVE_PROGRESS_LINE_SECONDS", 0.0)
    for extra in ([], ["--variant", "three"]):
        bots = "lowest,highest" + (",random" if extra else "")
        result = _run(["tournament", 4, "--games", 300, "--bots", bots, *extra])
        assert result.exit_code == 0, result.output
        lines = result.stderr.splitlines()
        assert [line.split(" games")[0] for line in lines] == [
            "gops: tournament: 100 of 300",
            "gops: tournament: 200 of 300",
        ]
