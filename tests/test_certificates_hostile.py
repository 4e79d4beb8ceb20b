"""Hostile certificates (a review of the checker, items 5-9): duplicate map keys, streams
that are not regular files, huge Integers in messages and in the arithmetic.

Each test builds its file from the valid N = 3 certificate of tests/cert_fixtures.py and
asserts the verdict and exit code FORMAT.md documents.
"""

from __future__ import annotations

import subprocess
import sys

import msgpack
import pytest

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
        input=data, capture_output=True, cwd=PACKAGE.parent, timeout=60,
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
    assert proc.stdout.startswith(f"unreadable: truncated: file ends at byte {len(data) - 1}"
                                  .encode())


# ---------------------------------------------------------------------------------------
# Item 7: an Integer beyond 4,300 digits reaches no str()
# ---------------------------------------------------------------------------------------


def win_prefix(n: int = 3) -> list:
    """Header of a win certificate of N = n, the empty level 0 and level 1's header."""
    from certificates.patterns import win_record_count

    full = (1 << n) - 1
    return [
        {"magic": "GOPS-CERTIFICATE", "version": 1,
         "rules": "gops-2p-ties-discarded-random-prizes", "objective": "win",
         "n": n, "root": [full, full, full]},
        {"level": 0, "records": 0},
        {"level": 1, "records": win_record_count(n, 1)},
    ]


@pytest.mark.parametrize("lead", [10**5000, -(10**5000), 2**63, -(2**63) - 1, 2],
                         ids=["5001-digits", "-5001-digits", "2^63", "-2^63-1", "2"])
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

