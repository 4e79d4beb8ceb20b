"""Certificates for the win objective (FORMAT.md, "Win records"): the solver's writer
``exact.certify(n, path, objective="win")`` and the independent checker.

Tamper tests judge "this change breaks the certificate" with a test-only rebuild of the
payoff matrices from the rules (:func:`matrix`, over actual card sets), and every value
of N = 3 are compared with tests/reference_win.py, a brute-force recursion.
"""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cert_fixtures as cf
import exact
from certificates import check
from certificates.patterns import lead_limit, pattern_count, win_record_count
from test_certificates import BLOCKER, EPS, PACKAGE, breaking_pairs
from test_certificates import record_indices as records


@pytest.fixture(scope="module")
def win_certs(tmp_path_factory):
    """Paths of the solver's win certificates for N = 3, 4, 5."""
    out = {}
    for n in (3, 4, 5):
        path = tmp_path_factory.mktemp("wcert") / f"w{n}.cert"
        exact.certify(n, path, objective="win")
        out[n] = path
    return out


@pytest.fixture(scope="module")
def objs4(win_certs):
    return cf.read_objects(win_certs[4])


# ---------------------------------------------------------------------------------------
# Test-side helpers: records by key, the rules over card sets
# ---------------------------------------------------------------------------------------


def cards_of(mask):
    return tuple(c + 1 for c in range(16) if mask >> c & 1)


def name_of(rec):
    prizes = ",".join(map(str, cards_of(rec[2])))
    return f"record mine={bin(rec[0])} theirs={bin(rec[1])} prizes={{{prizes}}} lead={rec[3]}"


def sign(a):
    return (a > 0) - (a < 0)


def pattern(V, Y):
    union = sorted(set(V) | set(Y))
    return (sum(1 << union.index(c) for c in V), sum(1 << union.index(c) for c in Y))


def value_of(table, V, Y, P, L):
    """f(V, Y, P, L) from the certified values ``table`` (key -> Fraction) and the rules."""
    if not P or abs(L) > sum(P):
        return Fraction(sign(L))
    mine, theirs = pattern(V, Y)
    if theirs > mine or (theirs == mine and L < 0):
        return -table[theirs, mine, cf.mask(P), -L]
    return table[mine, theirs, cf.mask(P), L]


def matrix(table, rec, u):
    """The payoff matrix of a record for upcard u, from the rules (test-only rebuild)."""
    V, Y, P = cards_of(rec[0]), cards_of(rec[1]), cards_of(rec[2])
    rest = tuple(c for c in P if c != u)
    return [
        [
            value_of(
                table,
                tuple(c for c in V if c != a),
                tuple(c for c in Y if c != b),
                rest,
                rec[3] + u * sign(a - b),
            )
            for b in Y
        ]
        for a in V
    ]


def table_of(objs):
    return {tuple(o[:4]): Fraction(*o[4]) for o in objs if type(o) is list}


def verdict_of(objs, tmp_path, name="t.cert"):
    path = tmp_path / name
    cf.write_objects(path, objs)
    return check(path)


def assert_invalid(verdict, *fragments):
    assert verdict.code == 1 and not verdict.ok, verdict
    assert verdict.message.startswith("invalid: ")
    for fragment in fragments:
        assert fragment in verdict.message, (fragment, verdict.message)


def copy(objs):
    return cf.decode(cf.encode(objs))


# ---------------------------------------------------------------------------------------
# Valid certificates
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("n,total", [(3, 79), (4, 551), (5, 3852)])
def test_win_certificate_is_valid(win_certs, n, total):
    v = check(win_certs[n])
    assert v.ok, v.message
    assert (v.code, v.n, v.records, v.root_value) == (0, n, total, 0)
    assert v.message == f"valid: N={n} (win), {total} records, root value 0"


def test_record_count_matches_brute_force():
    """win_record_count against an enumeration of (pattern, prize set, lead)."""
    from itertools import combinations

    for n in range(1, 7):
        T = n * (n + 1) // 2
        for k in range(n + 1):
            expected = 0
            for P in combinations(range(1, n + 1), k):
                if not P:
                    continue
                s = sum(P)
                lim = min(s, T - s)
                expected += (pattern_count(n, k) - 1) // 2 * (2 * lim + 1) + lim + 1
                assert lead_limit(n, cf.mask(P)) == lim
            assert win_record_count(n, k) == expected, (n, k)


def test_values_match_reference_n3(win_certs):
    """Every certified value of N = 3 equals the brute-force recursion's (floats)."""
    from reference_win import win_value

    objs = cf.read_objects(win_certs[3])
    for i in records(objs):
        mine, theirs, prizes, lead, value, _ = objs[i]
        V, Y, P = (frozenset(cards_of(m)) for m in (mine, theirs, prizes))
        assert abs(float(Fraction(*value)) - win_value(V, Y, P, lead)) < 1e-9


def test_leads_and_decided_children(objs4):
    """The records hold exactly the leads of FORMAT.md; the test-side rebuild of every
    matrix (decided children included) agrees with the certified game values."""
    table = table_of(objs4)
    for i in records(objs4):
        rec = objs4[i]
        lim = lead_limit(4, rec[2])
        assert -lim <= rec[3] <= lim and (rec[0] != rec[1] or rec[3] >= 0)
        for u, x, _y, v in rec[5]:
            X = matrix(table, rec, u)
            xs = [Fraction(a, x[1]) for a in x[0]]
            assert min(
                sum(p * X[r][c] for r, p in enumerate(xs)) for c in range(len(X))
            ) == Fraction(*v)


def test_cli_certify_and_check(tmp_path):
    from click.testing import CliRunner

    from exact.cli import main

    out = tmp_path / "w3.cert"
    result = CliRunner().invoke(
        main, ["certify", "3", "--objective", "win", "-o", str(out), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output and "79 records" in result.output
    result = CliRunner().invoke(main, ["check", str(out), "--quiet"])
    assert result.exit_code == 0
    assert "valid: N=3 (win), 79 records, root value 0" in result.output


# ---------------------------------------------------------------------------------------
# Tampering: rejected with exit 1, naming the record
# ---------------------------------------------------------------------------------------


def breaking_move(objs):
    """(record index, game index, a, b): moving EPS of x from a to b keeps x a probability
    vector but no longer guarantees v (judged by the test-side rebuild)."""
    table = table_of(objs)
    for i in reversed(records(objs)):
        rec = objs[i]
        for m, (u, x, _, v) in enumerate(rec[5]):
            for a, b in breaking_pairs(matrix(table, rec, u), x, v):
                return i, m, a, b
    raise AssertionError("no breaking move")


def test_tamper_probability_moved(objs4, tmp_path):
    objs = copy(objs4)
    i, m, a, b = breaking_move(objs)
    rec = objs[i]
    x = rec[5][m][1]
    x[0] = [p * 10**30 for p in x[0]]
    x[1] *= 10**30
    x[0][a] -= 1
    x[0][b] += 1
    assert_invalid(
        verdict_of(objs, tmp_path), name_of(rec), f"upcard {rec[5][m][0]}", "x guarantees"
    )


def test_tamper_value_changed(objs4, tmp_path):
    objs = copy(objs4)
    rec = objs[records(objs, 3)[7]]
    v = Fraction(*rec[4]) + EPS
    rec[4] = [v.numerator, v.denominator]
    assert_invalid(verdict_of(objs, tmp_path), "level 3", name_of(rec), "is not the mean")


@pytest.mark.parametrize("delta", [EPS, -EPS])
def test_tamper_root_game_value(objs4, tmp_path, delta):
    objs = copy(objs4)
    root = objs[records(objs, 4)[0]]
    assert root[:4] == [15, 15, 15, 0]
    v = Fraction(*root[5][1][3]) + delta
    root[5][1][3] = [v.numerator, v.denominator]
    side = "x guarantees" if delta > 0 else "y concedes"
    assert_invalid(verdict_of(objs, tmp_path), "level 4", name_of(root), "upcard 2", side)


def test_tamper_record_removed(objs4, tmp_path):
    objs = copy(objs4)
    declared = next(o for o in objs if type(o) is dict and o.get("level") == 2)["records"]
    del objs[records(objs, 2)[10]]
    assert_invalid(
        verdict_of(objs, tmp_path), f"level 2 has {declared - 1} records", f"declares {declared}"
    )
    next(o for o in objs if type(o) is dict and o.get("level") == 2)["records"] -= 1
    assert_invalid(verdict_of(objs, tmp_path), f"level 2 declares {declared - 1} records")


def test_tamper_child_values_swapped(objs4, tmp_path):
    """Two records of level 2 exchange their values (and then also their games)."""
    objs = copy(objs4)
    idx = records(objs, 2)
    a, b = next((a, b) for a in idx for b in idx if objs[a][4] != objs[b][4])
    objs[a][4], objs[b][4] = objs[b][4], objs[a][4]
    assert_invalid(verdict_of(objs, tmp_path), "level 2", "lead=", "is not the mean")
    objs[a][5], objs[b][5] = objs[b][5], objs[a][5]  # now each record is self-consistent
    v = verdict_of(objs, tmp_path)
    assert_invalid(v, "level 2", "lead=", "upcard")


def test_tamper_lead_changed(objs4, tmp_path):
    objs = copy(objs4)
    rec = objs[
        next(
            i
            for i in records(objs, 2)
            if objs[i][0] != objs[i][1] and objs[i][3] < lead_limit(4, objs[i][2])
        )
    ]
    rec[3] += 1  # its games no longer fit, or (written after) the lead is a duplicate
    assert_invalid(verdict_of(objs, tmp_path), "level 2", name_of(rec))
    rec[3] -= 1
    last = objs[next(i for i in records(objs, 2) if objs[i][3] == lead_limit(4, objs[i][2]))]
    last[3] -= 1  # the record of that lead came first (increasing leads)
    assert_invalid(verdict_of(objs, tmp_path), "level 2", name_of(last), "duplicate")
    last[3] += 1
    rec[3] = lead_limit(4, rec[2]) + 1
    assert_invalid(verdict_of(objs, tmp_path), name_of(rec), "outside")
    objs = copy(objs4)
    ident = objs[next(i for i in records(objs, 2) if objs[i][0] == objs[i][1] and objs[i][3] == 1)]
    ident[3] = -1
    assert_invalid(verdict_of(objs, tmp_path), name_of(ident), "identical hands")


def test_tamper_header_objective(objs4, tmp_path):
    objs = copy(objs4)
    objs[0]["objective"] = "points"
    assert_invalid(verdict_of(objs, tmp_path), "level 0 declares 0 records")


def test_points_header_on_win_record_count(win_certs, tmp_path):
    """A points certificate relabelled "win" is rejected too."""
    objs = cf.certificate_objects(3)
    objs[0]["objective"] = "win"
    assert_invalid(verdict_of(objs, tmp_path), "level 0 declares 1 records")


def leaf_paths(objs):
    """(object index, path) of every Integer of the records, skipping denominators of
    zero Rationals (0/1 = 0/7: not a change of value)."""
    out = []
    for i in records(objs):
        rec = objs[i]
        out += [(i, (f,)) for f in range(4)] + [(i, (4, 0))]
        if rec[4][0] != 0:
            out.append((i, (4, 1)))
        for m, g in enumerate(rec[5]):
            out += [(i, (5, m, 0)), (i, (5, m, 1, 1)), (i, (5, m, 2, 1)), (i, (5, m, 3, 0))]
            out += [(i, (5, m, 1, 0, r)) for r in range(len(g[1][0]))]
            out += [(i, (5, m, 2, 0, r)) for r in range(len(g[2][0]))]
            if g[3][0] != 0:
                out.append((i, (5, m, 3, 1)))
    return out


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_changed_integer_is_rejected(win_certs, tmp_path, data):
    objs = cf.read_objects(win_certs[3])
    i, path = data.draw(st.sampled_from(leaf_paths(objs)))
    parent = objs[i]
    for p in path[:-1]:
        parent = parent[p]
    old = parent[path[-1]]
    parent[path[-1]] = data.draw(
        st.one_of(st.integers(-8, 8), st.integers(-(2**80), 2**80)).filter(lambda a: a != old)
    )
    v = verdict_of(objs, tmp_path)
    assert v.code in (1, 2) and not v.ok, (i, path, old, v)


def test_runs_with_solver_unimportable(win_certs):
    env = dict(os.environ, PYTHONPATH=str(PACKAGE.parent))
    proc = subprocess.run(
        [sys.executable, "-c", BLOCKER, str(win_certs[4])],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "valid: N=4 (win), 551 records, root value 0\n"
