"""Hostile certificates (a review of the checker, items 5-9): duplicate map keys, streams
that are not regular files, huge Integers in messages and in the arithmetic.

The files are built from the valid N = 3 certificate of tests/cert_fixtures.py (or a win
header and one record) and each test asserts the verdict and exit code that FORMAT.md
documents; the size limit's arithmetic (certificates.minimax.line_sum) is also checked
against Fractions.  benchmarks/bench_checker_hostile.py times the full-size cases.
"""

from __future__ import annotations

import random
import subprocess
import sys
from fractions import Fraction

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cert_fixtures as cf
from certificates import check
from test_certificates import PACKAGE, assert_unreadable, copy, write


@pytest.fixture(scope="module")
def objs3():
    return cf.certificate_objects(3)


def pack_pairs(pairs) -> bytes:
    """A msgpack map written pair by pair, so that a key may appear twice."""
    assert len(pairs) < 16
    return bytes([0x80 | len(pairs)]) + b"".join(
        msgpack.packb(cf.encode(key), use_bin_type=True)
        + msgpack.packb(cf.encode(value), use_bin_type=True)
        for key, value in pairs
    )


# ---------------------------------------------------------------------------------------
# Item 8: a map with a key twice has two readings
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("which", [0, 1, -1], ids=["header", "level-0-header", "footer"])
def test_duplicate_map_key_is_unreadable(objs3, tmp_path, which):
    """Header ``n = 4`` then ``n = 3`` (msgpack keeps the last: a valid N = 3 file), the
    level count twice, the footer's count twice: one reading or none."""
    objs = copy(objs3)
    index = which % len(objs)
    key = {0: "n", 1: "records", len(objs) - 1: "records"}[index]
    pairs = list(objs[index].items())
    pairs.insert(0, (key, 4))  # the first of the two; the valid one comes last
    data = b"".join(
        pack_pairs(pairs) if i == index else cf.pack_objects([o]) for i, o in enumerate(objs)
    )
    assert_unreadable(check(write(tmp_path, data)), f"key '{key}' twice")


# ---------------------------------------------------------------------------------------
# Item 9: a pipe has no file size
# ---------------------------------------------------------------------------------------


def run_checker_on_stdin(data: bytes):
    """``python -m certificates /dev/stdin --quiet`` with ``data`` written to a pipe."""
    return subprocess.run(
        [sys.executable, "-m", "certificates", "/dev/stdin", "--quiet"],
        input=data,
        capture_output=True,
        cwd=PACKAGE.parent,
        timeout=60,
    )


def test_certificate_on_a_pipe(objs3):
    proc = run_checker_on_stdin(cf.pack_objects(objs3))
    assert (proc.returncode, proc.stdout) == (0, b"valid: N=3, 20 records, root value 0\n")


@pytest.mark.parametrize("tail", [b"\x00", b"\xdc", b"\x00" * (3 << 20)])
def test_trailing_bytes_on_a_pipe(objs3, tail):
    """Bytes after the footer, a complete object, a partial one, more than one read."""
    proc = run_checker_on_stdin(cf.pack_objects(objs3) + tail)
    assert proc.returncode == 2
    assert proc.stdout.startswith(b"unreadable: trailing bytes after the footer")


def test_truncated_on_a_pipe(objs3):
    data = cf.pack_objects(objs3)
    proc = run_checker_on_stdin(data[:-1])
    assert proc.returncode == 2
    assert proc.stdout.startswith(
        f"unreadable: truncated: file ends at byte {len(data) - 1}".encode()
    )


# ---------------------------------------------------------------------------------------
# Item 7: an Integer beyond 4,300 digits reaches no str()
# ---------------------------------------------------------------------------------------


def win_prefix(n: int = 3) -> list:
    """Header of a win certificate of N = n, the empty level 0 and level 1's header."""
    from certificates.patterns import win_record_count

    full = (1 << n) - 1
    return [
        {
            "magic": "GOPS-CERTIFICATE",
            "version": 1,
            "rules": "gops-2p-ties-discarded-random-prizes",
            "objective": "win",
            "n": n,
            "root": [full, full, full],
        },
        {"level": 0, "records": 0},
        {"level": 1, "records": win_record_count(n, 1)},
    ]


@pytest.mark.parametrize(
    "lead",
    [10**5000, -(10**5000), 2**63, -(2**63) - 1, 2],
    ids=["5001-digits", "-5001-digits", "2^63", "-2^63-1", "2"],
)
def test_lead_out_of_range_is_invalid(tmp_path, lead):
    """Lead of record (mine {1}, theirs {1}, P = {1}) outside -1..1: exit 1 (a range check),
    whatever its size; Python's int-to-str limit (4,300 digits) is never reached."""
    objs = win_prefix() + [[1, 1, 1, lead, [0, 1], []]]
    v = check(write(tmp_path, cf.pack_objects(objs)))
    assert v.code == 1, v
    assert v.message.startswith("invalid: level 1, record mine=0b1 theirs=0b1 prizes={1} lead=")
    assert v.message.endswith("is outside -1..1")
    if abs(lead) > 10**100:
        assert "about 5,001 digits" in v.message
        assert len(v.message) < 200


# ---------------------------------------------------------------------------------------
# Item 6: messages never show a huge number in full (nor reduce it, nor turn it to text)
# ---------------------------------------------------------------------------------------

F = 10**100_000  # a factor of 100,001 digits: every number it scales is "huge"
#: The longest message allowed for a rejection caused by a huge number.
SHORT = 300


def _scale_value(rec, field, extra=0):
    """Record field ``field`` (a Rational [p, q]) as [p F + extra, q F]."""
    p, q = rec[field]
    rec[field] = [p * F + extra, q * F]


def _scale_game_value(rec, extra=0):
    u, x, y, v = rec[4][1]
    rec[4][1][3] = [v[0] * F + extra, v[1] * F]


def _negative_x(rec):
    """x of the first game scaled by F, one entry -1 (the sum still d)."""
    nums, d = rec[4][0][1]
    nums = [a * F for a in nums]
    nums[1] += nums[0] + 1
    nums[0] = -1
    rec[4][0][1] = [nums, d * F]


def _x_off_by_one(rec):
    nums, d = rec[4][0][1]
    rec[4][0][1] = [[a * F for a in nums], d * F + 1]


@pytest.mark.parametrize(
    "tamper,code,fragment",
    [
        (lambda r: _scale_value(r, 3, extra=1), 1, "is not the mean"),
        (lambda r: _scale_game_value(r, extra=1), 1, "x guarantees 0 < v = ~"),
        (lambda r: _scale_game_value(r, extra=-1), 1, "y concedes 0 > v = ~-"),
        (lambda r: r.__setitem__(3, [1, -F]), 1, "denominator ~-1e+100000"),
        (_negative_x, 1, "x[0] = ~-"),
        (_x_off_by_one, 1, "x sums to ~1"),
    ],
    ids=["record-value", "game-value-high", "game-value-low", "denominator", "negative", "sum"],
)
def test_huge_wrong_number_gives_a_short_message(objs3, tmp_path, tamper, code, fragment):
    """A wrong 100,001-digit number is named by an approximation and a digit count."""
    objs = copy(objs3)
    index = next(i for i in range(len(objs)) if type(objs[i]) is list and objs[i][2] == 0b11)
    tamper(objs[index])
    v = check(write(tmp_path, cf.pack_objects(objs)))
    assert v.code == code, v.message[:500]
    assert "record mine=" in v.message and fragment in v.message, v.message[:500]
    assert "100,001 digits" in v.message and len(v.message) < SHORT, v.message[:500]


@pytest.mark.parametrize(
    "where,key,value,code,fragment",
    [
        (0, "version", b"\x01" * 100_000, 2, "unsupported version a bin of 100000 bytes"),
        (-1, "end", b"\x01" * 100_000, 2, "footer end is a bin of 100000 bytes"),
        (-1, "root_value", [1, F], 1, "footer root_value ~1e-100000"),
        (-1, "root_value", [F, 1], 1, "footer root_value ~1e+100000"),
    ],
)
def test_huge_header_or_footer_field_gives_a_short_message(
    objs3, tmp_path, where, key, value, code, fragment
):
    objs = copy(objs3)
    objs[where][key] = value
    v = check(write(tmp_path, cf.pack_objects(objs)))
    assert v.code == code and fragment in v.message, v.message[:500]
    assert len(v.message) < SHORT, v.message[:500]


def test_huge_unexpected_key_gives_a_short_message(objs3, tmp_path):
    objs = copy(objs3)
    objs[0][b"\x00" * 100_000] = 1
    v = check(write(tmp_path, cf.pack_objects(objs)))
    assert v.code == 2 and "unexpected ['a bin of 100000 bytes']" in v.message, v.message[:500]


# ---------------------------------------------------------------------------------------
# Item 5: the sizes the checker multiplies are bounded before GMP allocates them
# ---------------------------------------------------------------------------------------


def scaled_children(objs3, bits: int) -> list:
    """The N = 3 certificate with every level-2 value p/q written p G_r / q G_r, G_r
    distinct odd factors of ``bits`` bits: still valid, but the root's lines multiply
    numerators and denominators of about ``bits`` bits."""
    rng = random.Random(bits)
    objs = copy(objs3)
    for i in range(len(objs)):
        rec = objs[i]
        if type(rec) is list and bin(rec[2]).count("1") == 2:
            factor = rng.getrandbits(bits) | 1 | 1 << (bits - 1)
            rec[3] = [rec[3][0] * factor, rec[3][1] * factor]
    return objs


def test_product_limit_refuses_before_multiplying(objs3, tmp_path, monkeypatch):
    """With the limit lowered to 2^13 bits, level-2 values p G / q G with 7,000-bit
    factors G pass their own checks (7,000-bit products) and are refused at the root
    (exit 2, named), whose lines multiply such a numerator by such a denominator; under
    the real limit, 2^31 bits, the same file is valid."""
    from certificates import minimax

    path = write(tmp_path, cf.pack_objects(scaled_children(objs3, 7000)))
    assert check(path).ok
    monkeypatch.setattr(minimax, "MAX_PRODUCT_BITS", 1 << 13)
    v = check(path)
    assert_unreadable(
        v,
        "level 3, record mine=0b111 theirs=0b111 prizes={1,2,3}, upcard 1",
        "column 2 of 3 needs integers of up to 14,008 bits",
        "beyond the checker's limit of 8,192 bits",
    )


def test_line_sum_bound_is_exact_at_the_limit(monkeypatch):
    """A line is refused exactly when its bound (minimax.sum_bits) exceeds the limit,
    before any product: the limit at the bound passes, one bit less refuses."""
    from gmpy2 import mpz

    from certificates import minimax
    from certificates.errors import UnreadableCertificate

    entries = [(1, mpz(3) ** 900, mpz(7) ** 800), (0, -(mpz(5) ** 700), mpz(11) ** 600)]
    weights = [mpz(2) ** 100, mpz(3)]
    bound = minimax.sum_bits(entries, weights)
    monkeypatch.setattr(minimax, "MAX_PRODUCT_BITS", bound)
    T, L = minimax.line_sum(entries, weights)
    assert Fraction(int(T), int(L)) == sum(
        n * (w + Fraction(int(p), int(q))) for (w, p, q), n in zip(entries, map(int, weights))
    )
    monkeypatch.setattr(minimax, "MAX_PRODUCT_BITS", bound - 1)
    with pytest.raises(UnreadableCertificate, match="beyond the checker's limit"):
        minimax.line_sum(entries, weights)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), horner=st.booleans())
def test_line_sum_matches_fractions_within_its_bound(data, horner):
    """line_sum equals the Fraction sum, L is positive, and T and L fit the bound that
    sum_bits computed before multiplying; with the cofactors L / q from one list or (for
    large L, ``horner``) by Horner's rule."""
    from gmpy2 import mpz

    from certificates import minimax

    k = data.draw(st.integers(1, 8))
    dens = data.draw(st.lists(st.integers(1, 2**200), min_size=1, max_size=3))
    entries = [
        (
            data.draw(st.integers(-16, 16)),
            mpz(data.draw(st.integers(-(2**300), 2**300) | st.integers(-3, 3))),
            mpz(data.draw(st.sampled_from(dens + [1]))),
        )
        for _ in range(k)
    ]
    weights = [mpz(data.draw(st.integers(1, 2**150))) for _ in range(k)]
    saved = minimax.COFACTOR_LIST_BITS
    minimax.COFACTOR_LIST_BITS = -1 if horner else 1 << 30
    try:
        T, L = minimax.line_sum(entries, weights)
    finally:
        minimax.COFACTOR_LIST_BITS = saved
    exact = sum(
        n * (w + Fraction(int(p), int(q))) for (w, p, q), n in zip(entries, map(int, weights))
    )
    assert L > 0 and Fraction(int(T), int(L)) == exact
    bound = minimax.sum_bits(entries, weights)
    assert T.bit_length() <= bound and L.bit_length() <= bound
