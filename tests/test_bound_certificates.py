"""Bound certificates of the float solver (certificates/FORMAT.md, "Bound certificates").

Valid certificates come from ``gops certify N --bounds`` (exact.certificate.bounds_writer);
every tamper below edits the logical objects (plain msgpack values, every float as its
IEEE-754 bits) and must be rejected with the exit code of FORMAT.md: 1 and a message
naming the level and record for wrong content, 2 for an unreadable file.  The checker
is about the *bound*: strategies that are not the solver's but still prove the radius
are accepted (tests marked "accepted").
"""

from __future__ import annotations

import math
import os
import struct
import subprocess
import sys

import msgpack
import pytest
from click.testing import CliRunner
from gmpy2 import mpq

import certificates
from certificates import bounds as B
from certificates import check
from exact.certificate import bounds_writer
from exact.certificate.bounds_writer import certify_bounds, float_bits
from exact.cli import main


def to_float(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def read_objects(path) -> list:
    with open(path, "rb") as fh:
        return list(msgpack.Unpacker(fh, raw=False))


def write_objects(path, objs) -> None:
    with open(path, "wb") as fh:
        for obj in objs:
            fh.write(msgpack.packb(obj, use_bin_type=True))


@pytest.fixture(scope="module")
def cert5(tmp_path_factory):
    """A valid N = 5 bound certificate: (path, logical objects, Solution)."""
    path = tmp_path_factory.mktemp("bounds") / "gops5.bcert"
    sol = certify_bounds(5, path)
    return path, read_objects(path), sol


def verdict_of(objs, tmp_path, name="t.bcert"):
    path = tmp_path / name
    write_objects(path, objs)
    return check(path)


def copy(objs):
    return msgpack.unpackb(b"".join(msgpack.packb(o) for o in objs), raw=False)


def copy_objs(objs):
    return [msgpack.unpackb(msgpack.packb(o), raw=False) for o in objs]


def levels(objs):
    """{k: (index of the level header, [indices of its records])}."""
    out, k = {}, None
    for t, obj in enumerate(objs):
        if type(obj) is dict and "level" in obj:
            k = obj["level"]
            out[k] = (t, [])
        elif type(obj) is list:
            out[k][1].append(t)
    return out


def rejected(verdict, code=1, *words):
    assert not verdict.ok and verdict.code == code, verdict.message
    for word in words:
        assert word in verdict.message, verdict.message
    return verdict.message


# ---------------------------------------------------------------------------------------
# Valid certificates
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_a_valid_certificate_is_accepted(n, tmp_path):
    path = tmp_path / f"gops{n}.bcert"
    sol = certify_bounds(n, path)
    verdict = check(path)
    assert verdict.ok and verdict.code == 0, verdict.message
    assert verdict.n == n and verdict.root_value == 0
    assert list(verdict.radii) == sol.radii  # exactly the solver's radii
    assert sol.stats.extra["mismatches"] == 0  # strategies recomputed bit for bit
    assert not (tmp_path / f"gops{n}.bcert.tmp").exists()


def test_cli_certify_bounds_and_check(tmp_path):
    path = tmp_path / "c4.bcert"
    result = CliRunner().invoke(main, ["certify", "4", "--bounds", "-o", str(path), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "bound certificate" in result.output
    result = CliRunner().invoke(main, ["check", str(path), "--quiet"])
    assert result.exit_code == 0 and result.output.startswith("valid: N=4 bound certificate")
    for args in (["certify", "10", "--bounds"], ["certify", "4", "--bounds", "--objective", "win"]):
        result = CliRunner().invoke(main, args + ["-o", str(tmp_path / "x"), "--quiet"])
        assert result.exit_code == 2 and "error" in result.output


def test_an_interrupted_writer_leaves_nothing(tmp_path, monkeypatch):
    path = tmp_path / "gops4.bcert"
    path.write_bytes(b"old")
    calls = []

    def broken(*args):
        calls.append(1)
        raise KeyboardInterrupt

    monkeypatch.setattr(bounds_writer, "_games", broken)
    with pytest.raises(KeyboardInterrupt):
        certify_bounds(4, path)
    assert calls and path.read_bytes() == b"old"
    assert not (tmp_path / "gops4.bcert.tmp").exists()


def test_float_encoding_is_exact():
    for v in (0.1, -2.5, 5e-324, 1.7976931348623157e308, -0.0):
        m, e = B.binary64(float_bits(v), "v")
        assert B.as_mpq((m, e)) == mpq(v)


# ---------------------------------------------------------------------------------------
# Radii: the tightest radius the proof supports is accepted, the next float below is not
# ---------------------------------------------------------------------------------------


def proven_excess(objs):
    """Per level k, max over records of max(f - mean lo, mean hi - f) (FORMAT.md), from
    the claimed values of level k - 1: the least radius of level k is this + r_{k-1}."""
    out = {}
    below = None
    for k, (_h, recs) in sorted(levels(objs).items()):
        current, worst = {}, mpq(0)
        for t in recs:
            mine, theirs, prizes, value, games = objs[t]
            f = B.binary64(value, "v")
            current[mine, theirs, prizes] = f
            if mine == theirs:
                continue
            lo = hi = mpq(0)
            for u, xs, ys in games:
                x, sx = B.strategy(xs, k, "x")
                y, sy = B.strategy(ys, k, "y")
                a, b = B.game_bounds(B.matrix(mine, theirs, prizes, u, below), x, sx, y, sy)
                lo, hi = lo + a, hi + b
            scale = B.as_mpq((1, below.E))
            worst = max(worst, B.as_mpq(f) - lo * scale / k, hi * scale / k - B.as_mpq(f))
        out[k] = worst
        below = B.scale_level(current)
    return out


def floats_around(t: mpq) -> tuple[float, float]:
    """(the largest float < t, the smallest float >= t)."""
    f = float(t)
    above = f if mpq(f) >= t else math.nextafter(f, math.inf)
    return math.nextafter(above, -math.inf), above


@pytest.mark.parametrize("k", [2, 3, 4])
def test_a_narrowed_radius_is_rejected(cert5, tmp_path, k):
    _, objs, sol = cert5
    least = proven_excess(objs)[k] + mpq(sol.radii[k - 1])
    assert 0 < least <= mpq(sol.radii[k])  # the solver's radius holds, with room
    below, above = floats_around(least)
    header = levels(objs)[k][0]
    for radius, ok in ((below, False), (above, True), (sol.radii[k - 1], False)):
        objs2 = copy_objs(objs)
        objs2[header]["radius"] = float_bits(radius)
        verdict = verdict_of(objs2, tmp_path)
        if ok:
            assert verdict.ok, verdict.message
        else:
            rejected(verdict, 1, f"level {k}, record mine=", f"exceeds the radius r_{k}")


def test_level_one_is_exact_so_radius_zero_is_accepted(cert5, tmp_path):
    _, objs, _ = cert5
    assert proven_excess(objs)[1] == 0  # a 1 x 1 game u sign(V_1 - Y_1): no rounding
    objs2 = copy_objs(objs)
    objs2[levels(objs)[1][0]]["radius"] = 0
    assert verdict_of(objs2, tmp_path).ok


@pytest.mark.parametrize("k", [0, 1, 3, 5])
def test_a_negative_radius_is_rejected(cert5, tmp_path, k):
    _, objs, _ = cert5
    objs2 = copy_objs(objs)
    objs2[levels(objs)[k][0]]["radius"] = float_bits(-1e-300)
    rejected(verdict_of(objs2, tmp_path), 1, f"level {k} radius", "negative")


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_radius_that_is_not_finite_is_rejected(cert5, tmp_path, bad):
    _, objs, _ = cert5
    objs2 = copy_objs(objs)
    objs2[levels(objs)[2][0]]["radius"] = float_bits(bad)
    rejected(verdict_of(objs2, tmp_path), 1, "level 2 radius", "not a finite float")


# ---------------------------------------------------------------------------------------
# Probabilities: the check is about the bound, not about the solver's exact strategy
# ---------------------------------------------------------------------------------------


def mixed_games(objs, k):
    """(record index, game index) of level-k games whose x has two positive entries."""
    out = []
    for t in levels(objs)[k][1]:
        for m, (_u, xs, _ys) in enumerate(objs[t][4]):
            if sum(1 for b in xs if to_float(b) > 0) >= 2:
                out.append((t, m))
    return out


def test_a_probability_that_breaks_the_bound_is_rejected(cert5, tmp_path):
    _, objs, _ = cert5
    t, m = mixed_games(objs, 3)[0]
    objs2 = copy_objs(objs)
    xs = objs2[t][4][m][1]
    top = max(range(len(xs)), key=lambda i: to_float(xs[i]))
    objs2[t][4][m][1] = [float_bits(1.0 if i != top else 0.0) for i in range(len(xs))]
    mine, theirs, prizes = objs[t][:3]
    rejected(
        verdict_of(objs2, tmp_path), 1, B.describe(mine, theirs, prizes), "exceeds the radius r_3"
    )


def test_a_probability_of_y_that_breaks_the_bound_is_rejected(cert5, tmp_path):
    _, objs, _ = cert5
    t, m = mixed_games(objs, 4)[0]
    objs2 = copy_objs(objs)
    ys = objs2[t][4][m][2]
    objs2[t][4][m][2] = [float_bits(1.0)] + [0] * (len(ys) - 1)
    rejected(verdict_of(objs2, tmp_path), 1, "level 4, record", "exceeds the radius r_4")


def test_a_probability_that_keeps_the_bound_is_accepted(cert5, tmp_path):
    _, objs, _ = cert5
    t, m = mixed_games(objs, 4)[0]
    objs2 = copy_objs(objs)
    xs = objs2[t][4][m][1]
    i = next(i for i, b in enumerate(xs) if to_float(b) > 0)
    xs[i] = float_bits(math.nextafter(to_float(xs[i]), 1.0))  # one ulp: not the solver's x
    assert objs2 != objs
    assert verdict_of(objs2, tmp_path).ok
    # x and y are normalised exactly: scaling a strategy changes nothing.
    objs3 = copy_objs(objs)
    objs3[t][4][m][2] = [float_bits(3.0 * to_float(b)) for b in objs3[t][4][m][2]]
    assert verdict_of(objs3, tmp_path).ok
    # a negative entry is clamped at 0: adding one changes nothing either.
    objs4 = copy_objs(objs)
    zero = next((i for i, b in enumerate(objs4[t][4][m][1]) if to_float(b) == 0), None)
    if zero is not None:
        objs4[t][4][m][1][zero] = float_bits(-0.75)
        assert verdict_of(objs4, tmp_path).ok


@pytest.mark.parametrize(
    "entries, words",
    [
        ([0, 0, 0, 0], "has no positive entry"),
        ([float_bits(-1.0)] * 4, "has no positive entry"),
        ([float_bits(float("nan")), 0, 0, 0], "not a finite float"),
        ([float_bits(1.0)] * 3, "has 3 entries, expected 4"),
    ],
)
def test_a_malformed_strategy_is_rejected(cert5, tmp_path, entries, words):
    _, objs, _ = cert5
    t, m = mixed_games(objs, 4)[0]
    objs2 = copy_objs(objs)
    objs2[t][4][m][1] = entries
    rejected(verdict_of(objs2, tmp_path), 1, "level 4, record", f"games[{m}]", words)


# ---------------------------------------------------------------------------------------
# Values and records
# ---------------------------------------------------------------------------------------


def test_swapped_children_are_rejected(cert5, tmp_path):
    _, objs, _ = cert5
    recs = [t for t in levels(objs)[2][1] if objs[t][0] != objs[t][1]]
    a = recs[0]
    b = next(t for t in recs if to_float(objs[t][3]) != to_float(objs[a][3]))
    objs2 = copy_objs(objs)
    objs2[a][3], objs2[b][3] = objs[b][3], objs[a][3]
    rejected(verdict_of(objs2, tmp_path), 1, "level 2, record mine=", "exceeds the radius")


def test_a_child_value_is_read_by_its_parents(cert5, tmp_path):
    """A level-3 value moved within its own slack passes level 3, and the parents at
    level 4 rebuild their matrices from it: moved far, it fails; moved a little, the
    bound still holds."""
    _, objs, sol = cert5
    t = next(t for t in levels(objs)[3][1] if objs[t][0] != objs[t][1])
    objs2 = copy_objs(objs)
    objs2[t][3] = float_bits(to_float(objs[t][3]) + 1.0)
    rejected(verdict_of(objs2, tmp_path), 1, "level 3, ")
    objs3 = copy_objs(objs)
    objs3[t][3] = float_bits(to_float(objs[t][3]) + sol.radii[3] / 4)
    assert verdict_of(objs3, tmp_path).ok


@pytest.mark.parametrize("level", [0, 2, 5])
def test_identical_hands_must_be_zero(cert5, tmp_path, level):
    _, objs, _ = cert5
    t = next(t for t in levels(objs)[level][1] if objs[t][0] == objs[t][1])
    objs2 = copy_objs(objs)
    objs2[t][3] = float_bits(1e-300)
    rejected(verdict_of(objs2, tmp_path), 1, f"level {level}, record", "not 0")
    objs3 = copy_objs(objs)
    objs3[t][4] = [[1, [float_bits(1.0)], [float_bits(1.0)]]]
    rejected(verdict_of(objs3, tmp_path), 1, "identical hands carry games")


def test_records_once_each_and_counts(cert5, tmp_path):
    _, objs, _ = cert5
    h, recs = levels(objs)[3]
    dup = copy_objs(objs)
    dup[recs[1]] = dup[recs[0]]
    rejected(verdict_of(dup, tmp_path), 1, "duplicate")
    missing = copy_objs(objs)
    del missing[recs[0]]
    rejected(verdict_of(missing, tmp_path), 1, "level 3 has")
    extra = copy_objs(objs)
    extra.insert(recs[-1], extra[recs[-1]])
    rejected(verdict_of(extra, tmp_path), 1)
    count = copy_objs(objs)
    count[h]["records"] += 1
    rejected(verdict_of(count, tmp_path), 1, "canonical subgames")
    footer = copy_objs(objs)
    footer[-1]["records"] -= 1
    rejected(verdict_of(footer, tmp_path), 1, "footer counts")
    root = copy_objs(objs)
    root[-1]["root_value"] = float_bits(1.0)
    rejected(verdict_of(root, tmp_path), 1, "footer root_value")
    swapped = copy_objs(objs)
    t = next(t for t in recs if objs[t][0] != objs[t][1])
    swapped[t][0], swapped[t][1] = objs[t][1], objs[t][0]
    rejected(verdict_of(swapped, tmp_path), 1, "theirs > mine")


def test_upcards_in_order(cert5, tmp_path):
    _, objs, _ = cert5
    t = next(t for t in levels(objs)[3][1] if objs[t][0] != objs[t][1])
    objs2 = copy_objs(objs)
    objs2[t][4].reverse()
    rejected(verdict_of(objs2, tmp_path), 1, "level 3, record", "increasing order")
    objs3 = copy_objs(objs)
    objs3[t][4].pop()
    rejected(verdict_of(objs3, tmp_path), 1, "games has 2 entries, expected 3")


# ---------------------------------------------------------------------------------------
# Unreadable files (exit 2), as the version-1 checker
# ---------------------------------------------------------------------------------------


def test_a_truncated_file_is_unreadable(cert5, tmp_path):
    path, _, _ = cert5
    data = path.read_bytes()
    for cut in (len(data) - 1, len(data) // 2, 40, 3):
        (tmp_path / "cut.bcert").write_bytes(data[:cut])
        verdict = check(tmp_path / "cut.bcert")
        assert verdict.code == 2 and not verdict.ok, (cut, verdict.message)
    (tmp_path / "long.bcert").write_bytes(data + b"\xc0")
    rejected(check(tmp_path / "long.bcert"), 2, "trailing bytes")


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda o: o[0].update(version=2), "version"),
        (lambda o: o[0].update(objective="win"), "objective"),
        (lambda o: o[0].update(extra=1), "wrong keys"),
        (lambda o: o[1].update(radius="0"), "expected the bits of a float"),  # level 0 header
        (lambda o: o[3].update(radius=-1), "is not a 64-bit pattern"),  # level 1 header
        (lambda o: o[4].__setitem__(3, 1.5), "expected the bits of a float"),  # a record
        (lambda o: o[4].__setitem__(4, 0), "expected an array"),
    ],
)
def test_malformed_objects_are_unreadable(cert5, tmp_path, edit, words):
    _, objs, _ = cert5
    objs2 = copy_objs(objs)
    edit(objs2)
    rejected(verdict_of(objs2, tmp_path), 2, words)


def test_a_key_twice_is_unreadable(cert5, tmp_path):
    path, objs, _ = cert5
    data = bytearray(path.read_bytes())
    # level 1's header {"level": 1, "records": R, "radius": r} with "level" twice
    header = msgpack.packb(objs[levels(objs)[1][0]])
    at = data.find(header)
    twice = b"\x84" + header[1:] + msgpack.packb("level") + msgpack.packb(1)
    (tmp_path / "twice.bcert").write_bytes(
        bytes(data[:at]) + twice + bytes(data[at + len(header) :])
    )
    rejected(check(tmp_path / "twice.bcert"), 2, "twice")


def test_runs_with_solver_unimportable(tmp_path):
    """``python -m certificates`` checks a bound certificate with exact, flint, numpy and
    numba blocked (the BLOCKER of tests/test_certificates.py)."""
    from test_certificates import BLOCKER

    path = tmp_path / "c3.bcert"
    certify_bounds(3, path)
    env = dict(os.environ, PYTHONPATH=str(os.path.dirname(os.path.dirname(certificates.__file__))))
    proc = subprocess.run(
        [sys.executable, "-c", BLOCKER, str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("valid: N=3 bound certificate, 20 records, root value 0")
