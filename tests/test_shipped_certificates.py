"""The exact 6-card certificates shipped in exact/imperfect/equilibria/ (written by
benchmarks/ship_certificates.py, listed in certificates.json): each file is the one
listed (SHA-256), names its game in its header, and the independent checker validates it
(value 0: the game is symmetric) and rejects it with one weight changed.  The checker
takes about 20 s a file here, so the full checks are marked slow; the CI checks the
listing and headers, and the smallest file in full."""

import hashlib
import json
import lzma

import msgpack
import pytest

from certificates import check
from exact.imperfect.certificate import pack_integer
from exact.imperfect.shipped import FOLDER

INDEX = FOLDER / "certificates.json"
ENTRIES = json.loads(INDEX.read_text())["certificates"] if INDEX.exists() else []
RETURNS = {"points": "point_difference", "win": "win_loss"}


def unpacked(entry) -> bytes:
    packed = (FOLDER / entry["file"]).read_bytes()
    assert hashlib.sha256(packed).hexdigest() == entry["sha256"]
    assert len(packed) == entry["bytes"]
    return lzma.decompress(packed)


def test_every_6_card_fixed_game_is_shipped():
    games = {(e["n"], e["order"], e["objective"]) for e in ENTRIES}
    assert games == {(6, o, j) for o in ("descending", "ascending") for j in ("points", "win")}


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
def test_shipped_certificate_is_the_listed_file_of_its_game(entry):
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(unpacked(entry)[:4096])
    header = next(unpacker)
    assert header["magic"] == "GOPS-IMPERFECT-CERTIFICATE" and header["imp_info"] is True
    assert (header["num_cards"], header["points_order"], header["returns_type"]) == (
        entry["n"],
        entry["order"],
        RETURNS[entry["objective"]],
    )
    assert header["value"] == [0, 1]


def bumped(weight):
    """An Integer (FORMAT.md: a msgpack int, or two's-complement big-endian bytes) plus 1."""
    if type(weight) is bytes:
        weight = int.from_bytes(weight, "big", signed=True)
    return pack_integer(weight + 1)


def _full_check(tmp_path, entry):
    path = tmp_path / "c.cert"
    path.write_bytes(unpacked(entry))
    verdict = check(path)
    assert verdict.ok and verdict.root_value == 0, verdict.message
    with open(path, "rb") as fh:
        objs = list(msgpack.Unpacker(fh, raw=False))
    record = next(i for i, o in enumerate(objs) if type(o) is list and o[2][-1] != 0)
    objs[record][2][-1] = bumped(objs[record][2][-1])  # one weight changed
    path.write_bytes(b"".join(msgpack.Packer(use_bin_type=True).pack(o) for o in objs))
    tampered = check(path)
    assert not tampered.ok and tampered.code == 1


def test_the_smallest_shipped_certificate_is_valid_and_tampered_is_not(tmp_path):
    _full_check(tmp_path, min(ENTRIES, key=lambda e: e["bytes"]))


@pytest.mark.slow
@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
def test_every_shipped_certificate_is_valid_and_tampered_is_not(tmp_path, entry):
    _full_check(tmp_path, entry)
