"""The recorded frontier tables (benchmarks/frontier/): the sec 4 claims of Rhoads &
Bartholdi (2012) as benchmarks/frontier/sec4_claims.py reads them off a certified table,
on the recorded win and points tables of N = 12 and on edited copies."""

import copy
import importlib.util
import json
from pathlib import Path

import pytest

FRONTIER = Path(__file__).resolve().parents[1] / "benchmarks" / "frontier"
_spec = importlib.util.spec_from_file_location("sec4_claims", FRONTIER / "sec4_claims.py")
sec4 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sec4)


def recorded(name):
    return json.loads((FRONTIER / name).read_text())


@pytest.mark.parametrize("name", ["points12-table.json", "win12-table.json"])
def test_the_recorded_twelve_card_tables_prove_the_claims(name):
    table = recorded(name)
    assert table["n"] == 12 and len(table["certified"]) == 12
    assert sec4.claims(table) == [(11, "proved"), (10, "proved"), (1, "proved")]
    # the table's own float column agrees: those bids have probability 0
    assert [table["by_upcard"]["12"][bid - 1] for bid in (11, 10, 1)] == [0.0, 0.0, 0.0]


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


def test_the_claims_are_those_of_sec_4():
    import doctest

    assert doctest.testmod(sec4).failed == 0
    assert sec4.claimed_zeros(15) == [14, 13] and sec4.claimed_zeros(14) == [13, 12, 1]


def test_the_recorded_fifteen_card_table_proves_the_claims():
    table = recorded("points15-table.json")
    assert table["n"] == 15 and table["objective"] == "points"
    assert all(column["unique_and_enclosed"] for column in table["certified"].values())
    assert len(table["certified"]) == 15
    assert sec4.claims(table) == [(14, "proved"), (13, "proved")]
    assert [table["by_upcard"]["15"][bid - 1] for bid in (14, 13)] == [0.0, 0.0]
