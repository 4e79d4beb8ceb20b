"""The recorded frontier tables (benchmarks/frontier/) and the sec 4 claims of Rhoads &
Bartholdi (2012) as benchmarks/frontier/sec4_claims.py reads them off a certified table.

The records are checked against what must hold of any first move, by arithmetic of their
own (a column sums to 1, the symmetric start gives both players the same mix and the value
0, the printed table is the JSON's rounded); the format and the reading against a table
written now at small N, whose exact equilibrium (rational arithmetic) is the reference.
"""

import copy
import importlib.util
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

import exact
from exact.cli import main

FRONTIER = Path(__file__).resolve().parents[1] / "benchmarks" / "frontier"
_spec = importlib.util.spec_from_file_location("sec4_claims", FRONTIER / "sec4_claims.py")
sec4 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sec4)

#: A float column of a solved table sums to 1 within this (simplex round-off).
SUM_TOL = 1e-9
#: A float probability lies within this of its exact enclosure (the records say 1.9e-11).
FLOAT_TOL = 1e-10
#: The records, with the bids sec 4 says never answer upcard N (written out from the paper:
#: N - 1 and N - 2, and 1 for even N).
RECORDS = {
    "points12-table": [11, 10, 1],
    "win12-table": [11, 10, 1],
    "points15-table": [14, 13],
}


def recorded(name):
    return json.loads((FRONTIER / name).read_text())


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_a_recorded_table_is_a_first_move(name):
    table = recorded(f"{name}.json")
    n = table["n"]
    assert sorted(map(int, table["by_upcard"])) == sorted(map(int, table["certified"]))
    assert len(table["by_upcard"]) == n
    for upcard, column in table["certified"].items():
        floats = table["by_upcard"][upcard]
        assert abs(sum(floats) - 1) < SUM_TOL
        assert column["unique_and_enclosed"]
        # the start is symmetric: one mix for both players, the value 0
        assert column["mine"] == column["theirs"]
        low, high = column["value"]
        assert low <= 0 <= high
        boxes = [column["mine"][str(bid)] for bid in range(1, n + 1)]
        assert sum(lo for lo, _ in boxes) <= 1 <= sum(hi for _, hi in boxes)
        for p, (lo, hi) in zip(floats, boxes):
            assert lo - FLOAT_TOL <= p <= hi + FLOAT_TOL
            assert (lo == hi == 0.0) == (p == 0.0)  # proved 0 exactly where 0 is printed


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_the_printed_record_is_the_json_rounded(name):
    table = recorded(f"{name}.json")
    rows = [
        line.split()
        for line in (FRONTIER / f"{name}.txt").read_text().splitlines()
        if re.fullmatch(r"\s*\d+(\s+[\d.]+)+", line)
    ]
    assert [int(row[0]) for row in rows] == list(range(1, table["n"] + 1))
    for row in rows:
        bid = int(row[0])
        for upcard, shown in enumerate(row[1:], start=1):
            p = table["by_upcard"][str(upcard)][bid - 1]
            assert shown == ("0" if p == 0 else f"{p:.4f}")


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_the_records_prove_the_claims_of_sec_4(name):
    table = recorded(f"{name}.json")
    top = table["certified"][str(table["n"])]
    for bid in RECORDS[name]:
        assert top["mine"][str(bid)] == [0.0, 0.0]  # proved exactly 0 (unique, above)
    assert sec4.claims(table) == [(bid, "proved") for bid in RECORDS[name]]


@pytest.mark.parametrize(
    ("n", "objective", "recorded_like"),
    [(6, "points", "points12-table.json"), (5, "win", "win12-table.json")],
)
def test_a_table_written_now_reads_as_the_exact_equilibrium(n, objective, recorded_like):
    """`gops table N --certified --json`, the command that wrote the records, at a small N:
    its format is the records', every exact probability (rational arithmetic) lies in its
    enclosure, and sec4_claims proves a claim exactly where the exact probability is 0."""
    args = ["table", str(n), "--certified", "--json", "--objective", objective]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)
    like = recorded(recorded_like)
    assert set(table) == set(like) - {"source"}  # a store's table adds its source
    assert set(table["certified"][str(n)]) == set(like["certified"][str(like["n"])])
    exact_table = exact.solve(n, objective=objective, arithmetic="rational").first_move_table()
    for upcard in range(1, n + 1):
        column = table["certified"][str(upcard)]
        for bid in range(1, n + 1):
            lo, hi = column["mine"][str(bid)]
            assert Fraction(lo) <= exact_table[upcard][bid] <= Fraction(hi)
    expected = [
        (bid, "proved" if exact_table[n][bid] == 0 else "refuted") for bid in sec4.claimed_zeros(n)
    ]
    assert sec4.claims(table) == expected


def test_an_enclosure_above_zero_refutes_and_an_uncertified_column_is_open(capsys):
    table = recorded("points12-table.json")
    positive = copy.deepcopy(table)
    positive["certified"]["12"]["mine"]["11"] = [0.001, 0.002]
    assert sec4.claims(positive)[0] == (11, "refuted")
    loose = copy.deepcopy(table)
    loose["certified"]["12"]["unique_and_enclosed"] = False
    assert sec4.claims(loose) == [(11, "open"), (10, "open"), (1, "open")]
    loose["certified"] = None  # a table printed without --certified
    assert sec4.claims(loose)[2] == (1, "open")


def test_the_script_exits_1_unless_every_claim_is_proved(tmp_path, capsys):
    path = tmp_path / "t.json"
    table = recorded("win12-table.json")
    path.write_text(json.dumps(table))
    assert sec4.main([str(path)]) == 0
    table["certified"]["12"]["mine"]["10"] = [0.0, 0.003]
    path.write_text(json.dumps(table))
    assert sec4.main([str(path)]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == (
        "N=12 win: upcard 12 never answered by 11: proved; by 10: open; by 1: proved"
    )


def test_the_claimed_bids_are_those_of_sec_4():
    """Sec 4: upcard N is never answered by N - 1 or N - 2, and by 1 when N is even."""
    assert sec4.claimed_zeros(13) == [12, 11]
    assert sec4.claimed_zeros(14) == [13, 12, 1]
