"""The checker on certificates written by the solver: ``exact.certify(n, path)``.

The solver and the checker share no code; the values the solver certifies for N = 4 are
also compared with tests/cert_fixtures.py, a third, brute-force exact solver.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cert_fixtures as cf
import exact
from certificates import check
from certificates.decoding import integer


@pytest.fixture(scope="module")
def solver_cert(tmp_path_factory):
    """Paths of the solver's certificates for N = 4 and 5."""
    out = {}
    for n in (4, 5):
        path = tmp_path_factory.mktemp("cert") / f"gops{n}.cert"
        exact.certify(n, path)
        out[n] = path
    return out


@pytest.mark.parametrize("n,records", [(4, 80), (5, 357)])
def test_solver_certificate_is_valid(solver_cert, n, records):
    v = check(solver_cert[n])
    assert v.ok, v.message
    assert (v.code, v.n, v.records, v.root_value) == (0, n, records, 0)
    assert v.message == f"valid: N={n}, {records} records, root value 0"


def test_solver_values_match_brute_force(solver_cert):
    """Every certified value of N = 4 equals the brute-force f(V, Y, P)."""
    objs = cf.read_objects(solver_cert[4])
    records = [o for o in objs if type(o) is list]
    assert len(records) == 80
    for mine, theirs, prizes, value, _ in records:
        V, Y, P = (tuple(c + 1 for c in range(4) if m >> c & 1) for m in (mine, theirs, prizes))
        assert Fraction(*value) == cf.value(V, Y, P)


def test_solver_certificate_tampered(solver_cert, tmp_path):
    """A game value of the N = 5 root moved by 1/10^30 is rejected, naming the record."""
    objs = cf.read_objects(solver_cert[5])
    root = next(o for o in objs if type(o) is list and o[0] == 0b11111)
    v = Fraction(*root[4][4][3]) + Fraction(1, 10**30)
    root[4][4][3] = [v.numerator, v.denominator]
    path = tmp_path / "t.cert"
    cf.write_objects(path, objs)
    verdict = check(path)
    assert verdict.code == 1
    assert "level 5, record mine=0b11111 theirs=0b11111 prizes={1,2,3,4,5}, upcard 5" in (
        verdict.message
    )


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_solver_certificate_any_changed_integer(solver_cert, tmp_path, data):
    """One Integer of a record of the N = 4 certificate changed: never accepted
    (denominators of zero Rationals excluded: 0/1 = 0/7)."""
    objs = cf.read_objects(solver_cert[4])
    i = data.draw(st.sampled_from([i for i, o in enumerate(objs) if type(o) is list]))
    rec = objs[i]
    leaves = [(rec, f) for f in range(3)] + [(rec[3], 0)]
    if rec[3][0] != 0:
        leaves.append((rec[3], 1))
    for g in rec[4]:
        leaves += [(g, 0), (g[1], 1), (g[2], 1), (g[3], 0)]
        leaves += [(g[1][0], r) for r in range(len(g[1][0]))]
        leaves += [(g[2][0], r) for r in range(len(g[2][0]))]
        if g[3][0] != 0:
            leaves.append((g[3], 1))
    parent, key = data.draw(st.sampled_from(leaves))
    old = parent[key]
    parent[key] = data.draw(st.integers(-(2**80), 2**80).filter(lambda a: a != old))
    path = tmp_path / "t.cert"
    cf.write_objects(path, objs)
    assert check(path).code in (1, 2)


@pytest.mark.parametrize("a", [2**63, -(2**63) - 1, -(2**71), -(2**79), 7**500, -(7**500)])
def test_writer_integers_are_canonical(a):
    """exact's Integer encoding is the minimal two's complement of FORMAT.md."""
    from exact.certificate.writer import pack_integer

    assert integer(pack_integer(a), "v") == a
