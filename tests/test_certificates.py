"""Tests of the certificate checker ``certificates`` (format: certificates/FORMAT.md).

Valid certificates come from tests/cert_fixtures.py, a brute-force exact solver written
for these tests alone (no code shared with ``exact`` or ``certificates``).  Every check of
FORMAT.md ("What the checker verifies", 1-6 and the whole-file checks) has a tamper test
that must be rejected with exit 1 and a message naming the record; unreadable files must
exit 2.
"""

from __future__ import annotations

import doctest
import os
import random
import re
import subprocess
import sys
import tracemalloc
from fractions import Fraction
from pathlib import Path

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cert_fixtures as cf
import certificates
from certificates import check
from certificates.patterns import children, pattern_count, record_count, remove_bids
from certificates.spec import MAX_CONTAINERS_PER_OBJECT

PACKAGE = Path(certificates.__file__).parent
EPS = Fraction(1, 10**30)  # the size of every numeric tampering


# ---------------------------------------------------------------------------------------
# Fixtures and helpers
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def objs3():
    """The logical objects of a valid N = 3 certificate (20 records)."""
    return cf.certificate_objects(3)


def verdict_of(objs, tmp_path, name="t.cert"):
    path = tmp_path / name
    cf.write_objects(path, objs)
    return check(path)


def copy(objs):
    return cf.decode(cf.encode(objs))  # deep copy through the encoding


def record_indices(objs, level=None):
    """Indices of the record objects (of one level when given) in ``objs``."""
    out, k = [], None
    for i, o in enumerate(objs):
        if type(o) is dict and "level" in o:
            k = o["level"]
        elif type(o) is list and (level is None or k == level):
            out.append(i)
    return out


def level_header_index(objs, level):
    return next(i for i, o in enumerate(objs) if type(o) is dict and o.get("level") == level)


def hands(rec):
    """Sorted card tuples (V, Y, P) of a record: position p is card p + 1."""
    return tuple(tuple(c + 1 for c in range(16) if m >> c & 1) for m in (rec[0], rec[1], rec[2]))


def name_of(rec):
    return f"record mine={bin(rec[0])} theirs={bin(rec[1])}"


def assert_invalid(verdict, *fragments):
    assert verdict.code == 1, verdict
    assert not verdict.ok
    assert verdict.message.startswith("invalid: ")
    for fragment in fragments:
        assert fragment in verdict.message, (fragment, verdict.message)


def assert_unreadable(verdict, *fragments):
    assert verdict.code == 2, verdict
    assert verdict.message.startswith("unreadable: ")
    for fragment in fragments:
        assert fragment in verdict.message, (fragment, verdict.message)


def scaled(vec, factor):
    """[[n_i], d] with numerators and denominator multiplied by ``factor``."""
    return [[a * factor for a in vec[0]], vec[1] * factor]


# ---------------------------------------------------------------------------------------
# The checker's own pieces
# ---------------------------------------------------------------------------------------


def test_doctests():
    """Every docstring example of every module of the package runs."""
    import importlib
    import pkgutil

    names = [m.name for m in pkgutil.iter_modules([str(PACKAGE)]) if m.name != "__main__"]
    assert {"decoding", "patterns", "payoff", "minimax", "verify", "stream"} <= set(names)
    tested = 0
    for name in ["certificates"] + [f"certificates.{m}" for m in names]:
        failed, attempted = doctest.testmod(importlib.import_module(name))
        assert failed == 0, name
        tested += attempted
    assert tested >= 20


@pytest.mark.parametrize("n", range(1, 8))
def test_record_count_matches_brute_force(n):
    """R_k = canonical patterns (theirs <= mine) x C(n, k), against brute force."""
    for k in range(n + 1):
        assert record_count(n, k) == cf.count_records(n, k)


def test_pattern_count_brute_force():
    """Closed form against brute force on masks (both orientations), N = 6."""
    n = 6
    for k in range(n + 1):
        brute = sum(
            1
            for V in range(1 << n)
            if bin(V).count("1") == k
            for Y in range(1 << n)
            if bin(Y).count("1") == k and ((V | Y) & ((V | Y) + 1)) == 0
        )
        assert pattern_count(n, k) == brute


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_children_match_relabelled_hands(data):
    """remove_bids and children agree with relabelling actual hands after the bids."""
    n = data.draw(st.integers(1, 8))
    k = data.draw(st.integers(1, n))
    V = sorted(data.draw(st.sets(st.integers(1, n), min_size=k, max_size=k)))
    Y = sorted(data.draw(st.sets(st.integers(1, n), min_size=k, max_size=k)))
    i, j = data.draw(st.integers(0, k - 1)), data.draw(st.integers(0, k - 1))

    def pattern(mine_cards, theirs_cards):
        order = sorted(set(mine_cards) | set(theirs_cards))
        return (
            sum(1 << order.index(c) for c in mine_cards),
            sum(1 << order.index(c) for c in theirs_cards),
        )

    mine, theirs = pattern(V, Y)
    expect = pattern([c for c in V if c != V[i]], [c for c in Y if c != Y[j]])
    order = sorted(set(V) | set(Y))
    assert remove_bids(mine, theirs, order.index(V[i]), order.index(Y[j])) == expect
    if theirs <= mine:
        child = children(mine, theirs)[i][j]
        assert child.sign == (V[i] > Y[j]) - (V[i] < Y[j])
        assert child.theirs <= child.mine
        got = (child.theirs, child.mine) if child.negate else (child.mine, child.theirs)
        assert got == expect


def _random_game(data, antisymmetric: bool):
    """A k x k matrix of entries (w, p, q) = w + p/q (q > 0, not reduced), x, y and v."""
    from gmpy2 import mpz

    from certificates.decoding import Rational, Vector

    k = data.draw(st.integers(1, 4))
    entry = st.tuples(st.integers(-6, 6), st.integers(-30, 30), st.integers(1, 12))
    X = [[None] * k for _ in range(k)]
    for i in range(k):
        for j in range(k):
            if antisymmetric and j < i:
                w, p, q = X[j][i]
                X[i][j] = (-w, -p, q)
            elif antisymmetric and i == j:
                X[i][j] = (0, mpz(0), mpz(data.draw(st.integers(1, 12))))
            else:
                w, p, q = data.draw(entry)
                X[i][j] = (w, mpz(p), mpz(q))
    weights = st.lists(st.integers(0, 9), min_size=k, max_size=k).filter(any)

    def vector():
        nums = data.draw(weights)
        factor = data.draw(st.integers(1, 7))  # strategies need not be reduced
        return Vector([mpz(a * factor) for a in nums], mpz(sum(nums) * factor))

    x = vector()
    y = x if antisymmetric else vector()
    if antisymmetric:
        v = Rational(mpz(0), mpz(data.draw(st.integers(1, 5))))
    else:  # exact values near the game value: v d may or may not be an integer
        v = Rational(mpz(data.draw(st.integers(-60, 60))), mpz(data.draw(st.integers(1, 12))))
    return X, x, y, v


@settings(max_examples=400, deadline=None)
@given(data=st.data(), antisymmetric=st.booleans(), shared=st.booleans(), horner=st.booleans())
def test_matrix_game_arithmetic_matches_fractions(data, antisymmetric, shared, horner):
    """Check 5 by integers only (minimax.check_matrix_game, with one common denominator
    per line or per matrix, a line summed with a list of cofactors or by Horner's rule,
    with or without the antisymmetric shortcut) accepts exactly when the inequalities
    hold in Fractions, and names the first failing side."""
    from certificates import minimax
    from certificates.errors import InvalidCertificate

    X, x, y, v = _random_game(data, antisymmetric)
    F = [[Fraction(w) + Fraction(int(p), int(q)) for w, p, q in row] for row in X]
    xs = [Fraction(int(a), int(x.d)) for a in x.nums]
    ys = [Fraction(int(a), int(y.d)) for a in y.nums]
    value = Fraction(int(v.num), int(v.den))
    k = len(X)
    columns = [sum(xs[i] * F[i][j] for i in range(k)) for j in range(k)]
    rows = [sum(F[i][j] * ys[j] for j in range(k)) for i in range(k)]
    saved = minimax.SHARED_SCALE_BITS, minimax.COFACTOR_LIST_BITS
    minimax.SHARED_SCALE_BITS = 1 << 30 if shared else -1
    minimax.COFACTOR_LIST_BITS = -1 if horner else 1 << 30
    try:
        minimax.check_matrix_game(X, x, y, v)
        outcome = None
    except InvalidCertificate as exc:
        outcome = str(exc)
    finally:
        minimax.SHARED_SCALE_BITS, minimax.COFACTOR_LIST_BITS = saved
    bad_column = next((j for j in range(k) if columns[j] < value), None)
    bad_row = next((i for i in range(k) if rows[i] > value), None)
    if bad_column is not None:
        assert outcome is not None and outcome.startswith(f"column {bad_column + 1} of {k}")
        assert f"x guarantees {minimax.format_rational(columns[bad_column])} <" in outcome
    elif bad_row is not None:
        assert outcome is not None and outcome.startswith(f"row {bad_row + 1} of {k}")
        assert f"y concedes {minimax.format_rational(rows[bad_row])} >" in outcome
    else:
        assert outcome is None


def test_fixture_matches_seed_example():
    """The fixture solver on R&B 2012, sec 3.1: prizes queen and king left, I hold 2, 4
    and they hold 1, 3; with the king up, play high with 52% probability for an average
    gain of 12.52 (= 626/50, the 2 x 2 formula (ad - bc)/(a - b - c + d) of sec 3.1)."""
    X, x, y, v = cf.game((2, 4), (1, 3), (12, 13), 13)
    assert X == [[25, -1], [1, 25]]
    assert x == [Fraction(12, 25), Fraction(13, 25)]
    assert v == Fraction(626, 50)


# ---------------------------------------------------------------------------------------
# Valid certificates
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("n,records", [(1, 2), (2, 6), (3, 20), (4, 80)])
def test_valid_fixture_certificates(n, records, tmp_path):
    objs = cf.certificate_objects(n)
    v = verdict_of(objs, tmp_path)
    assert v.ok and v.code == 0
    assert (v.n, v.records, v.root_value) == (n, records, 0)
    assert v.message == f"valid: N={n}, {records} records, root value 0"


def test_records_in_any_order(objs3, tmp_path):
    """FORMAT.md: records of one level may come in any order."""
    objs = copy(objs3)
    for k in range(4):
        idx = record_indices(objs, k)
        block = [objs[i] for i in idx]
        random.Random(k).shuffle(block)
        for i, rec in zip(idx, block):
            objs[i] = rec
    assert verdict_of(objs, tmp_path).ok


def test_rationals_not_in_lowest_terms(objs3, tmp_path):
    """FORMAT.md: lowest terms are not required; rationals compare by value."""
    objs = copy(objs3)
    for i in record_indices(objs):
        rec = objs[i]
        rec[3] = [rec[3][0] * 7, rec[3][1] * 7]
        for g in rec[4]:
            g[1] = scaled(g[1], 3)
            g[3] = [g[3][0] * 10**25, g[3][1] * 10**25]  # beyond int64: bin Integers
    assert verdict_of(objs, tmp_path).ok


# ---------------------------------------------------------------------------------------
# Tampering: every check of FORMAT.md rejects with exit 1 and names the record
# ---------------------------------------------------------------------------------------


def breaking_pairs(X, x, v):
    """(a, b) such that moving EPS of the fraction-free mix x = [numerators, denominator]
    from entry a to b leaves it a probability vector that no longer guarantees the value
    v = [p, q] in the game X (judged with Fractions, not by the checker)."""
    probs = [Fraction(a, x[1]) for a in x[0]]
    for a in range(len(X)):
        for b in range(len(X)):
            if a == b or probs[a] == 0:
                continue
            moved = probs[:]
            moved[a] -= EPS
            moved[b] += EPS
            guarantee = min(sum(p * X[r][c] for r, p in enumerate(moved)) for c in range(len(X[0])))
            if guarantee < Fraction(*v):
                yield a, b


def breaking_moves(objs):
    """(object index, game index, a, b): a breaking pair (:func:`breaking_pairs`) of a
    points record's game, its matrix rebuilt by the fixture."""
    for i in record_indices(objs):
        rec = objs[i]
        V, Y, P = hands(rec)
        for m, (u, x, _, v) in enumerate(rec[4]):
            for a, b in breaking_pairs(cf.payoff(V, Y, P, u), x, v):
                yield i, m, a, b


def test_tamper_probability_moved_keeps_sum(objs3, tmp_path):
    """Check 5: x moved by 1/10^30 between two entries, still a probability vector."""
    objs = copy(objs3)
    i, m, a, b = next(breaking_moves(objs))
    rec = objs[i]
    x = scaled(rec[4][m][1], 10**30)
    x[0][a] -= 1
    x[0][b] += 1
    rec[4][m][1] = x
    assert_invalid(
        verdict_of(objs, tmp_path), name_of(rec), f"upcard {rec[4][m][0]}", "x guarantees"
    )


def test_tamper_probability_changed_breaks_sum(objs3, tmp_path):
    """Check 4: one entry of x lowered by 1/10^30, so x sums to 1 - 1/10^30."""
    objs = copy(objs3)
    i, m, a, _ = next(breaking_moves(objs))
    rec = objs[i]
    x = scaled(rec[4][m][1], 10**30)
    x[0][a] -= 1
    rec[4][m][1] = x
    assert_invalid(verdict_of(objs, tmp_path), name_of(rec), "x sums to", "not 1")


def test_tamper_x_not_summing_to_one(objs3, tmp_path):
    objs = copy(objs3)
    rec = objs[record_indices(objs, 2)[3]]
    rec[4][1][1][1] += 1
    assert_invalid(verdict_of(objs, tmp_path), name_of(rec), "upcard", "x sums to")


def test_tamper_negative_probability(objs3, tmp_path):
    """Check 4: an entry -1/d with the mass moved elsewhere (the sum is still 1)."""
    objs = copy(objs3)
    rec = objs[record_indices(objs, 3)[0]]
    x = rec[4][2][2]  # y of upcard 3
    a = next(r for r, p in enumerate(x[0]) if p > 0)
    b = (a + 1) % 3
    x[0][b] += x[0][a] + 1
    x[0][a] = -1
    assert_invalid(verdict_of(objs, tmp_path), name_of(rec), "upcard 3", f"y[{a}]", "negative")


@pytest.mark.parametrize("delta", [EPS, -EPS])
def test_tamper_game_value(objs3, tmp_path, delta):
    """Check 5: a game value moved by 1/10^30 fails one side of the duality."""
    objs = copy(objs3)
    rec = objs[record_indices(objs, 3)[0]]
    v = Fraction(*rec[4][1][3]) + delta
    rec[4][1][3] = [v.numerator, v.denominator]
    side = "x guarantees" if delta > 0 else "y concedes"
    assert_invalid(verdict_of(objs, tmp_path), "level 3", name_of(rec), "upcard 2", side)


def test_tamper_record_value(objs3, tmp_path):
    """Check 6: the record's value is not the mean of its game values."""
    objs = copy(objs3)
    rec = objs[record_indices(objs, 2)[5]]
    v = Fraction(*rec[3]) + EPS
    rec[3] = [v.numerator, v.denominator]
    assert_invalid(verdict_of(objs, tmp_path), "level 2", name_of(rec), "is not the mean")


def test_tamper_child_values_swapped(objs3, tmp_path):
    """Two records of level 1 with different values exchange their values."""
    objs = copy(objs3)
    idx = record_indices(objs, 1)
    a, b = next((a, b) for a in idx for b in idx if objs[a][3] != objs[b][3])
    objs[a][3], objs[b][3] = objs[b][3], objs[a][3]
    assert_invalid(verdict_of(objs, tmp_path), "level 1", "record mine=", "is not the mean")


def test_tamper_child_records_relabelled(objs3, tmp_path):
    """Two whole records of level 2 exchange their (mine, theirs, prizes): every record
    is then present once, but its games no longer fit its pattern."""
    objs = copy(objs3)
    idx = record_indices(objs, 2)
    a, b = next(
        (a, b) for a in idx for b in idx if objs[a][3] != objs[b][3] and objs[a][2] == objs[b][2]
    )
    objs[a][:3], objs[b][:3] = objs[b][:3], objs[a][:3]
    assert_invalid(verdict_of(objs, tmp_path), "level 2", "record mine=", "upcard")


def test_tamper_record_removed(objs3, tmp_path):
    """A level with one record fewer than its header declares."""
    objs = copy(objs3)
    del objs[record_indices(objs, 2)[4]]
    assert_invalid(verdict_of(objs, tmp_path), "level 2 has 11 records", "declares 12")


def test_tamper_record_removed_and_count_fixed(objs3, tmp_path):
    """The level header's count lowered to match: R_k is checked against N."""
    objs = copy(objs3)
    del objs[record_indices(objs, 2)[4]]
    objs[level_header_index(objs, 2)]["records"] -= 1
    assert_invalid(
        verdict_of(objs, tmp_path), "level 2 declares 11 records", "12 canonical subgames"
    )


def test_tamper_root_removed(objs3, tmp_path):
    objs = copy(objs3)
    del objs[record_indices(objs, 3)[0]]
    assert_invalid(verdict_of(objs, tmp_path), "level 3 has 0 records")


def test_tamper_record_replaced_by_duplicate(objs3, tmp_path):
    """Check 1: no (mine, theirs, prizes) twice; the count stays right."""
    objs = copy(objs3)
    idx = record_indices(objs, 2)
    objs[idx[7]] = copy(objs[idx[2]])
    assert_invalid(verdict_of(objs, tmp_path), "level 2", name_of(objs[idx[2]]), "duplicate")


def test_tamper_extra_duplicate_record(objs3, tmp_path):
    objs = copy(objs3)
    idx = record_indices(objs, 1)
    objs.insert(idx[-1] + 1, copy(objs[idx[0]]))
    assert_invalid(verdict_of(objs, tmp_path), "level 1 has more than the 6 records")


def test_tamper_extra_duplicate_record_count_fixed(objs3, tmp_path):
    objs = copy(objs3)
    idx = record_indices(objs, 1)
    objs.insert(idx[-1] + 1, copy(objs[idx[0]]))
    objs[level_header_index(objs, 1)]["records"] += 1
    assert_invalid(verdict_of(objs, tmp_path), "level 1 declares 7 records")


@pytest.mark.parametrize("n", [1, 2, 4, 5])
def test_tamper_header_n(objs3, tmp_path, n):
    """Header N changed (with a root consistent with it): the level counts disagree."""
    objs = copy(objs3)
    objs[0]["n"] = n
    objs[0]["root"] = [(1 << n) - 1] * 3
    assert_invalid(verdict_of(objs, tmp_path), "level 1 declares 6 records")


def test_tamper_header_n_only(objs3, tmp_path):
    objs = copy(objs3)
    objs[0]["n"] = 4
    assert_invalid(verdict_of(objs, tmp_path), "header root [7, 7, 7]")


def test_tamper_footer_root_value(objs3, tmp_path):
    objs = copy(objs3)
    objs[-1]["root_value"] = [1, 10**30]
    assert_invalid(verdict_of(objs, tmp_path), "footer root_value")


def test_tamper_footer_count(objs3, tmp_path):
    objs = copy(objs3)
    objs[-1]["records"] = 19
    assert_invalid(verdict_of(objs, tmp_path), "footer counts 19 records")


def test_tamper_root_record_value(objs3, tmp_path):
    """The root's value and the footer both say 1/10^30: the root record's game values
    must then average 1/10^30, which its games' certificates refute."""
    objs = copy(objs3)
    root = objs[record_indices(objs, 3)[0]]
    root[3] = [1, 10**30]
    objs[-1]["root_value"] = [1, 10**30]
    assert_invalid(verdict_of(objs, tmp_path), "level 3", "is not the mean")


def test_tamper_upcards_out_of_order(objs3, tmp_path):
    """Check 2: games list the upcards of P in increasing order."""
    objs = copy(objs3)
    rec = objs[record_indices(objs, 2)[0]]
    rec[4].reverse()
    assert_invalid(verdict_of(objs, tmp_path), name_of(rec), "games list upcards")


def test_tamper_upcard_not_in_prizes(objs3, tmp_path):
    objs = copy(objs3)
    rec = objs[record_indices(objs, 1)[0]]
    rec[4][0][0] = 3 if rec[4][0][0] != 3 else 1
    assert_invalid(verdict_of(objs, tmp_path), name_of(rec), "games list upcards")


def test_tamper_game_missing(objs3, tmp_path):
    objs = copy(objs3)
    rec = objs[record_indices(objs, 2)[0]]
    del rec[4][0]
    assert_invalid(verdict_of(objs, tmp_path), name_of(rec), "games list upcards")


def test_tamper_vector_length(objs3, tmp_path):
    """Check 4: x has k entries."""
    objs = copy(objs3)
    rec = objs[record_indices(objs, 2)[0]]
    rec[4][0][1] = [rec[4][0][1][0] + [0], rec[4][0][1][1]]
    assert_invalid(verdict_of(objs, tmp_path), name_of(rec), "x has 3 entries, expected 2")


def test_tamper_zero_denominator(objs3, tmp_path):
    objs = copy(objs3)
    rec = objs[record_indices(objs, 2)[0]]
    rec[4][0][3][1] = 0
    assert_invalid(verdict_of(objs, tmp_path), name_of(rec), "denominator 0 is not positive")


@pytest.mark.parametrize(
    "changes,fragment",
    [
        ({0: 0b1011}, "pattern has 3 and 2 cards, level needs 2"),
        ({0: 0b1001, 1: 0b1001}, "held by nobody"),  # a gap at positions 1, 2
        ({0: 0b1100, 1: 0b0011}, "pattern needs 4 cards, N = 3"),
        ({0: 0b1100, 1: 0b1010}, "held by nobody"),  # a gap at position 0
        ({0: 0b1110, 1: 0b1101}, "pattern has 3 and 3"),
        ({2: 0b1001}, "prize set is not 2 cards among 1..3"),  # card 4 > N
        ({2: 0b1}, "prize set is not 2 cards"),
        ({0: -3}, "negative mask"),
    ],
)
def test_tamper_malformed_pattern(objs3, tmp_path, changes, fragment):
    """Check 1: pattern and prize set well formed and within N cards."""
    objs = copy(objs3)
    rec = objs[record_indices(objs, 2)[0]]
    for field, value in changes.items():
        rec[field] = value
    assert_invalid(verdict_of(objs, tmp_path), "level 2", fragment)


def test_tamper_swapped_pattern(objs3, tmp_path):
    """Check 1: only theirs <= mine is recorded."""
    objs = copy(objs3)
    rec = next(objs[i] for i in record_indices(objs, 2) if objs[i][0] != objs[i][1])
    rec[0], rec[1] = rec[1], rec[0]
    assert_invalid(verdict_of(objs, tmp_path), "theirs > mine")


def test_tamper_level_zero(objs3, tmp_path):
    """Level 0 is the single record [0, 0, 0, [0, 1], []]."""
    objs = copy(objs3)
    objs[record_indices(objs, 0)[0]][3] = [1, 1]
    assert_invalid(verdict_of(objs, tmp_path), "level 0", "is not 0")


def test_tamper_level_number(objs3, tmp_path):
    objs = copy(objs3)
    objs[level_header_index(objs, 2)]["level"] = 3
    assert_invalid(verdict_of(objs, tmp_path), "level 3 found where level 2 was expected")


def test_tamper_footer_early(objs3, tmp_path):
    objs = copy(objs3)
    i = level_header_index(objs, 3)
    objs = objs[:i] + [objs[-1]]
    assert_invalid(verdict_of(objs, tmp_path), "footer found where level 3 was expected")


def test_tamper_extra_level(objs3, tmp_path):
    objs = copy(objs3)
    objs.insert(-1, {"level": 4, "records": 0})
    assert_invalid(verdict_of(objs, tmp_path), "a level header follows level N")


def integer_paths(objs):
    """(object index, path, is_zero_denominator) of every Integer of a certificate."""
    out = []

    def rational(i, path, q):
        out.append((i, path + (0,), False))
        out.append((i, path + (1,), q[0] == 0))

    def vec(i, path, x):
        out.extend((i, path + (0, r), False) for r in range(len(x[0])))
        out.append((i, path + (1,), False))

    for i, o in enumerate(objs):
        if type(o) is list:
            out.extend((i, (f,), False) for f in range(3))
            rational(i, (3,), o[3])
            for m, g in enumerate(o[4]):
                out.append((i, (4, m, 0), False))
                vec(i, (4, m, 1), g[1])
                vec(i, (4, m, 2), g[2])
                rational(i, (4, m, 3), g[3])
        elif "magic" in o:
            out += [(i, ("n",), False), (i, ("version",), False)]
            out += [(i, ("root", r), False) for r in range(3)]
        elif "level" in o:
            out += [(i, ("level",), False), (i, ("records",), False)]
        else:
            out.append((i, ("records",), False))
            rational(i, ("root_value",), o["root_value"])
    return out


def get_path(obj, path):
    for p in path:
        obj = obj[p]
    return obj


def set_path(obj, path, value):
    get_path(obj, path[:-1])[path[-1]] = value


@pytest.fixture(scope="module")
def paths3(objs3):
    return integer_paths(objs3)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_changed_integer_is_rejected(objs3, paths3, tmp_path, data):
    """Change any one Integer of a valid certificate to a different value: never accepted.

    The one value-preserving change is excluded: the denominator of a zero Rational (0/1
    and 0/7 are the same number, FORMAT.md); there the new denominator is made <= 0.
    """
    i, path, zero_den = data.draw(st.sampled_from(paths3))
    old = get_path(objs3[i], path)
    new = data.draw(
        st.one_of(
            st.integers(-8, 8), st.integers(-(2**70), 2**70), st.integers(-(2**300), 2**300)
        ).filter(lambda a: a != old)
    )
    if zero_den:
        new = -abs(new)
    objs = copy(objs3)
    set_path(objs[i], path, new)
    v = verdict_of(objs, tmp_path)
    assert v.code in (1, 2) and not v.ok, (i, path, old, new, v)


# ---------------------------------------------------------------------------------------
# Unreadable files: exit 2
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bytes3(objs3):
    return cf.pack_objects(objs3)


def write(tmp_path, data, name="u.cert"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_truncated_at_every_offset(bytes3, tmp_path):
    """A file without its footer (an interrupted run) is unreadable, wherever it stops."""
    for cut in range(len(bytes3)):
        assert_unreadable(check(write(tmp_path, bytes3[:cut])), "truncated")


def test_truncated_inside_big_integer(objs3, tmp_path):
    objs = copy(objs3)
    rec = objs[record_indices(objs, 3)[0]]
    rec[3] = [0, 10**5000]
    data = cf.pack_objects(objs)
    start = data.index((10**5000).to_bytes(2077, "big", signed=True)[:20])
    for cut in (start - 3, start, start + 1000, start + 2076):
        assert_unreadable(check(write(tmp_path, data[:cut])), "truncated")


def test_empty_file(tmp_path):
    assert_unreadable(check(write(tmp_path, b"")), "truncated")


@pytest.mark.parametrize("seed", range(20))
def test_random_bytes(tmp_path, seed):
    rng = random.Random(seed)
    data = bytes(rng.randrange(256) for _ in range(rng.choice([1, 10, 1000, 10000])))
    assert_unreadable(check(write(tmp_path, data)))


def test_random_bytes_after_valid_prefix(objs3, tmp_path):
    head = cf.pack_objects(objs3[:3])
    for seed in range(20):
        rng = random.Random(seed)
        tail = bytes(rng.randrange(256) for _ in range(500))
        v = check(write(tmp_path, head + tail))
        assert v.code in (1, 2) and not v.ok


@pytest.mark.parametrize(
    "key,value,fragment",
    [
        ("magic", "GOPS-CERTIFICATE!", "not a GOPS certificate"),
        ("version", 2, "unsupported version 2"),
        ("version", "1", "unsupported version"),
        ("rules", "gops-2p-ties-split", "unsupported rules"),
        ("objective", "draw", "unsupported objective"),  # "win": test_certificates_win.py
        ("n", 17, "outside 1..16"),
        ("n", 0, "outside 1..16"),
        ("n", "3", "expected an int"),
        ("root", [7, 7], "expected an array of 3"),
    ],
)
def test_bad_header(objs3, tmp_path, key, value, fragment):
    objs = copy(objs3)
    objs[0][key] = value
    assert_unreadable(verdict_of(objs, tmp_path), fragment)


def test_header_extra_key(objs3, tmp_path):
    objs = copy(objs3)
    objs[0]["comment"] = "hello"
    assert_unreadable(verdict_of(objs, tmp_path), "unexpected ['comment']")


def test_not_a_map_header(tmp_path):
    assert_unreadable(check(write(tmp_path, msgpack.packb([1, 2, 3]))), "not a GOPS certificate")


def test_trailing_bytes(bytes3, tmp_path):
    assert_unreadable(check(write(tmp_path, bytes3 + b"\x00")), "trailing")
    assert_unreadable(check(write(tmp_path, bytes3 + b"\xdc")), "trailing")


def test_missing_file_and_directory(tmp_path):
    assert_unreadable(check(tmp_path / "nope.cert"), "nope.cert")
    assert_unreadable(check(tmp_path))


@pytest.mark.parametrize(
    "mutate,fragment",
    [
        (lambda r: r.__setitem__(3, "1/2"), "value: expected an array"),
        (lambda r: r.__setitem__(3, [1.5, 2]), "expected an Integer, found float"),
        (lambda r: r.__setitem__(3, [True, 2]), "expected an Integer, found bool"),
        (lambda r: r.__setitem__(0, None), "expected an int, found NoneType"),
        (lambda r: r.pop(), "expected an array of 5"),
        (lambda r: r[4][0].pop(), "expected an array of 4"),
        (lambda r: r[4][0].__setitem__(1, [[1, 0]]), "expected an array of 2"),
    ],
)
def test_wrong_types(objs3, tmp_path, mutate, fragment):
    """Wrong shapes and types are unreadable (exit 2), named by level and record."""
    objs = copy(objs3)
    mutate(objs[record_indices(objs, 2)[0]])
    assert_unreadable(verdict_of(objs, tmp_path), "level 2", fragment)


def test_footer_end_not_true(objs3, tmp_path):
    objs = copy(objs3)
    objs[-1]["end"] = 1
    assert_unreadable(verdict_of(objs, tmp_path), "footer end")


def test_non_canonical_integers(objs3, tmp_path):
    """FORMAT.md: msgpack int when it fits in int64, else minimal two's-complement bin."""
    head = cf.pack_objects(objs3[:2])  # header and level 0 header

    def record_with_value(num):
        return msgpack.packb([0, 0, 0, [num, 1], []], use_bin_type=True)

    assert_unreadable(
        check(write(tmp_path, head + record_with_value(b"\x00\x05"))),
        "non-canonical",
        "fits in int64",
    )
    big = (1 << 70).to_bytes(10, "big", signed=True)
    assert_unreadable(
        check(write(tmp_path, head + record_with_value(b"\x00" + big))),
        "non-canonical",
        "11 bytes where 9 suffice",
    )
    assert_unreadable(check(write(tmp_path, head + record_with_value(2**64 - 1))), "outside int64")
    assert_unreadable(check(write(tmp_path, head + record_with_value(b""))), "empty bin")


@pytest.mark.parametrize(
    "a",
    [
        2**63,
        -(2**63) - 1,
        -(2**64),
        2**64,
        -(2**71),
        -(2**71) - 1,
        2**71 - 1,
        2**71,
        -(2**79),
        3**1000,
        -(3**1000),
    ],
)
def test_integer_encoding_boundaries(a):
    """Minimal two's complement: e.g. -2^71 takes 9 bytes, -2^71 - 1 takes 10."""
    from certificates.decoding import integer
    from certificates.errors import UnreadableCertificate

    data = cf.encode(a)
    assert type(data) is bytes
    assert integer(data, "v") == a
    with pytest.raises(UnreadableCertificate, match="non-canonical"):
        integer((b"\xff" if a < 0 else b"\x00") + data, "v")


def test_negative_power_of_two_needs_fewer_bytes():
    """-2^71 fits in 9 bytes; 10 bytes (what a.bit_length()-based lengths give) is
    non-minimal and rejected."""
    from certificates.decoding import integer
    from certificates.errors import UnreadableCertificate

    a = -(2**71)
    assert len(cf.encode(a)) == 9
    with pytest.raises(UnreadableCertificate, match="10 bytes where 9 suffice"):
        integer(a.to_bytes((a.bit_length() + 8) // 8, "big", signed=True), "v")


def prefix_then(objs3, payload: bytes) -> bytes:
    """Header and level-0 header, then ``payload`` where the level-0 record belongs."""
    return cf.pack_objects(objs3[:2]) + payload


@pytest.mark.parametrize(
    "payload,fragment",
    [
        (b"\xdd\xff\xff\xff\xff", "exceeds max_array_len"),  # array32 of 4 G entries
        (b"\x95\xdd\xff\xff\xff\xff", "exceeds max_array_len"),
        (b"\xdf\xff\xff\xff\xff", "exceeds max_map_len"),  # map32
        (b"\x95\xdb\xff\xff\xff\xff" + b"a" * 1000, "truncated"),  # str32 of 4 GiB
        (b"\x95\xc6\xff\xff\xff\xff" + b"a" * (1 << 20), "truncated"),  # bin32 of 4 GiB
        (b"\xdc\x00\x41" + b"\x00" * 65, "exceeds max_array_len"),  # 65 entries
        (b"\x91" * 5000 + b"\x00", ""),  # deep nesting
        (b"\xd7\xff" + b"\x00" * 8, "exceeds max_ext_len"),  # timestamp ext
        (b"\xc1", "malformed msgpack"),
    ],
)
def test_limits(objs3, tmp_path, payload, fragment):
    """Hostile lengths are refused before anything of that size is allocated."""
    path = write(tmp_path, prefix_then(objs3, payload))
    tracemalloc.start()
    try:
        v = check(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert_unreadable(v, fragment)
    assert peak < 8 << 20, peak


def test_wide_nesting_budget(objs3, tmp_path):
    """64 x 64 x 64 nested arrays (260 kB of msgpack): stopped by the container budget."""
    leaf = b"\x90"
    level2 = b"\xdc\x00\x40" + leaf * 64
    level1 = b"\xdc\x00\x40" + level2 * 64
    top = b"\xdc\x00\x40" + level1 * 64
    assert MAX_CONTAINERS_PER_OBJECT < 64**2
    assert_unreadable(check(write(tmp_path, prefix_then(objs3, top))), "arrays and maps")


def test_bin_above_64_mib_is_refused(objs3, tmp_path):
    """An Integer of more than 64 MiB: refused once 64 MiB + a little is buffered."""
    size = (64 << 20) + 1
    payload = b"\x95\x00\x00\x00\x92\xc6" + size.to_bytes(4, "big") + b"\x01" * size
    assert_unreadable(check(write(tmp_path, prefix_then(objs3, payload))), "max_bin_len")


# ---------------------------------------------------------------------------------------
# Command line and independence from the solver
# ---------------------------------------------------------------------------------------


def test_cli_main(objs3, tmp_path, capsys):
    path = tmp_path / "c.cert"
    cf.write_objects(path, objs3)
    assert certificates.main([str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == "valid: N=3, 20 records, root value 0\n"
    assert "level 3/3: 1 records verified" in err
    assert certificates.main([str(path), "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    bad = copy(objs3)
    bad[-1]["records"] = 3
    cf.write_objects(path, bad)
    assert certificates.main([str(path), "--quiet"]) == 1
    assert capsys.readouterr().out.startswith("invalid: footer counts 3 records")
    path.write_bytes(b"")
    assert certificates.main([str(path), "--quiet"]) == 2
    assert capsys.readouterr().out.startswith("unreadable: truncated")


BLOCKER = """
import runpy, sys

class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("exact", "flint", "numba", "numpy"):
            raise ImportError("blocked by the independence test: " + name)
        return None

sys.meta_path.insert(0, Blocker())
sys.argv = ["certificates", sys.argv[1], "--quiet"]
try:
    runpy.run_module("certificates", run_name="__main__", alter_sys=True)
finally:
    assert not {"exact", "flint"} & set(sys.modules), sorted(sys.modules)
"""


def test_runs_with_solver_unimportable(objs3, tmp_path):
    """``python -m certificates`` validates with exact, flint, numpy and numba blocked."""
    path = tmp_path / "c.cert"
    cf.write_objects(path, objs3)
    env = dict(os.environ, PYTHONPATH=str(PACKAGE.parent))
    proc = subprocess.run(
        [sys.executable, "-c", BLOCKER, str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "valid: N=3, 20 records, root value 0\n"
    path.write_bytes(b"junk")
    proc = subprocess.run(
        [sys.executable, "-c", BLOCKER, str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr


def test_python_m_exit_codes(objs3, tmp_path):
    path = tmp_path / "c.cert"
    bad = copy(objs3)
    bad[-1]["root_value"] = [1, 2]
    cf.write_objects(path, bad)
    proc = subprocess.run(
        [sys.executable, "-m", "certificates", str(path), "--quiet"],
        capture_output=True,
        text=True,
        cwd=PACKAGE.parent,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stdout.startswith("invalid: footer root_value 1/2")


def test_sources_do_not_import_the_solver():
    """No module of the checker names the solver or python-flint in an import."""
    sources = sorted(PACKAGE.glob("*.py"))
    assert len(sources) >= 8
    for source in sources:
        text = source.read_text()
        assert "import exact" not in text and "from exact" not in text, source
        assert not re.search(r"^\s*(from|import)\s+(\.\.|exact|flint)", text, re.M), source
