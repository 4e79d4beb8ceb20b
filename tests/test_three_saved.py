"""Saved three-player solutions (exact.three.saved, checkpoint, cache): the round trip,
``gops verify FILE`` against edits, hostile files, a solve killed and resumed, and play
from a saved file (terminal; the page in tests/test_web_three_saved.py).

The solutions are made once per session by the CLI (N = 4, each tie rule: 584 stage games,
a few seconds each), as a user makes them.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgpack
import numpy as np
import pytest
from click.testing import CliRunner

import exact.three
from exact.cli import main
from exact.game.ties import DISCARD, SPLIT
from exact.play import three as play_three
from exact.three import certify
from exact.three import saved as saved_module
from exact.three.cache import cache_file
from exact.three.checkpoint import side_file
from exact.three.rules import STAGE_GAMES, ThreeGame
from exact.three.saved import SUFFIX, load

RULES = ("split", "third", "discard")
N = 4


def run(*args, env=None):
    result = CliRunner().invoke(main, [str(a) for a in args], env=env)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="session")
def solutions(tmp_path_factory) -> Path:
    """A folder with the saved 4-card solution of each tie rule (``gops solve 4 --players 3
    --tie-rule R --save FILE``), and each solve's --json summary beside it."""
    folder = tmp_path_factory.mktemp("three-saved")
    for rule in RULES:
        path = folder / f"three-{N}-{rule}-points-random{SUFFIX}"
        code, out, err = run(
            "solve", N, "--players", 3, "--tie-rule", rule, "--json", "--quiet", "--save", path
        )
        assert code == 0, err
        (folder / f"{rule}.json").write_text(out)
    return folder


def saved_file(folder: Path, rule: str = "split") -> Path:
    return folder / f"three-{N}-{rule}-points-random{SUFFIX}"


def summary(folder: Path, rule: str = "split") -> dict:
    return json.loads((folder / f"{rule}.json").read_text())


#: The columns of a version-2 body and their numbers, written out here as the FORMAT of
#: exact.three.saved states them (a writer of our own, as another program would be).
COLUMNS = {
    "sizes": "u1",
    "hands": "u1",
    "prizes": "u1",
    "points": "<u2",
    "stage_positions": "<u4",
    "upcards": "u1",
    "methods": "u1",
    "mixes": "<f8",
    "values": "<f8",
    "regrets": "<f8",
}
METHOD_NAMES = ("forced", "dominance", "logit", "fallback")


def read_body(src: Path) -> tuple[dict, dict]:
    """The header and the body of a saved file, the body as lists in version 1's JSON
    layout (positions [hands, prizes, points], stages [position, upcard, method])."""
    head, _, raw = lzma.decompress(src.read_bytes()).partition(b"\n")
    header, body = json.loads(head), msgpack.unpackb(raw)
    col = {name: np.frombuffer(body[name], dtype=t).tolist() for name, t in COLUMNS.items()}
    positions, at = [], 0
    for i, k in enumerate(col["sizes"]):
        h = col["hands"][3 * at : 3 * at + 3 * k]
        hands = [h[:k], h[k : 2 * k], h[2 * k :]]
        positions.append([hands, col["prizes"][at : at + k], col["points"][3 * i : 3 * i + 3]])
        at += k
    stages = [
        [p, u, METHOD_NAMES[m]]
        for p, u, m in zip(col["stage_positions"], col["upcards"], col["methods"])
    ]
    content = {"game": body["game"], "nashconv": body["nashconv"], "positions": positions}
    content |= {"stages": stages} | {name: col[name] for name in ("mixes", "values", "regrets")}
    return header, content


def write_body(header: dict, content: dict, dst: Path, version: int = 2) -> None:
    """A file of ``header`` and ``content`` (read_body's layout), the body written as
    ``version`` lays it out, its SHA-256 made to match: a file as a hostile or buggy
    writer would make it, past the checksum."""
    if version == 1:
        body = json.dumps(content, separators=(",", ":")).encode()
    else:
        positions, stages = content["positions"], content["stages"]
        col = {
            "sizes": [len(p[1]) for p in positions],
            "hands": [c for p in positions for h in p[0] for c in h],
            "prizes": [c for p in positions for c in p[1]],
            "points": [c for p in positions for c in p[2]],
            "stage_positions": [s[0] for s in stages],
            "upcards": [s[1] for s in stages],
            "methods": [m if type(m) is int else METHOD_NAMES.index(m) for _, _, m in stages],
        } | {name: content[name] for name in ("mixes", "values", "regrets")}
        packed = {"game": content["game"], "nashconv": content["nashconv"]}
        packed |= {name: np.array(col[name], dtype=t).tobytes() for name, t in COLUMNS.items()}
        body = msgpack.packb(packed)
    header = header | {"sha256": hashlib.sha256(body).hexdigest()}
    dst.write_bytes(lzma.compress(json.dumps(header).encode() + b"\n" + body))


def reseal(src: Path, dst: Path, edit, version: int = 2) -> None:
    """``src`` with ``edit(header, body)`` applied (read_body's layout), resealed."""
    header, content = read_body(src)
    header["version"] = version
    edit(header, content)
    write_body(header, content, dst, version)


def reseal_raw(src: Path, dst: Path, edit) -> None:
    """``src`` with its body's msgpack map replaced by ``edit(map)`` (bytes), resealed."""
    head, _, raw = lzma.decompress(src.read_bytes()).partition(b"\n")
    header, body = json.loads(head), edit(msgpack.unpackb(raw))
    header["sha256"] = hashlib.sha256(body).hexdigest()
    dst.write_bytes(lzma.compress(json.dumps(header).encode() + b"\n" + body))


def test_the_loaded_solution_is_the_solved_one(solutions):
    """Every stored float reads back bit for bit: the loaded solution's NashConv, proved
    again, is the solve's exactly (==), and its seat values are the solve's."""
    out = summary(solutions)
    loaded = load(saved_file(solutions))
    report = certify(loaded.solution)
    assert report.bound == out["nashconv"]["bound"] == loaded.nashconv["bound"]
    assert report.estimate == out["nashconv"]["estimate"]
    assert list(map(float, loaded.solution.seat_values())) == out["seat_values"]
    assert len(loaded.solution.stages) == STAGE_GAMES[N]
    assert out["saved"]["sha256"] == loaded.sha256
    # the same mixes as a solve in this process
    fresh = exact.three.solve(3, "split")
    three = loaded.for_n(3)  # the 3-card game, read from the 4-card file
    hand = (1, 2, 3)
    for u in hand:
        at = ((hand,) * 3, hand, (0, 0, 0), u)
        for a, b in zip(fresh.mixes(*at), three.mixes(*at)):
            assert list(a) == list(b)
    assert list(three.seat_values()) == list(fresh.seat_values())


def test_verify_proves_a_saved_solution_again(solutions):
    code, out, _ = run("verify", saved_file(solutions, "discard"))
    assert code == 0, out
    bound = summary(solutions, "discard")["nashconv"]["bound"]
    assert out.startswith("verified: three-player GOPS, 4 cards, tie rule discard")
    assert f"NashConv <= {bound:.3g}, proven again from the mixes" in out


def find_stage(body: dict, hands, prizes, upcard) -> int:
    """The index of a stage game in the body (FORMAT of exact.three.saved)."""
    (i,) = [
        i
        for i, (p, u, _) in enumerate(body["stages"])
        if body["positions"][p][:2] == [hands, prizes] and u == upcard
    ]
    return i


def columns(body: dict, i: int) -> tuple[slice, slice, slice]:
    """Stage game i's slices of the mixes, values and regrets columns."""
    k = [len(body["positions"][p][1]) for p, _, _ in body["stages"]]
    start = 3 * sum(k[:i])
    return slice(start, start + 3 * k[i]), slice(3 * i, 3 * i + 3), slice(i, i + 1)


def remove_stage(body: dict, i: int) -> None:
    """Stage game i taken out, and its position with it if it has no other."""
    for name, part in zip(("mixes", "values", "regrets"), columns(body, i)):
        del body[name][part]
    p = body["stages"].pop(i)[0]
    if all(s[0] != p for s in body["stages"]):
        del body["positions"][p]
        for s in body["stages"]:
            s[0] -= s[0] > p


def test_one_mix_entry_edited_fails_verify_naming_the_stage(solutions, tmp_path):
    """Canonical stage: three hands 1,2,3 (all bid alike in round 1, the 1 up), prizes
    2,3,4, upcard 3; canonical player 1's first entry moved by 5e-7 (the mix still sums
    to 1 within MIX_SUM_TOLERANCE, so it loads): the bound is no longer below 1e-9."""

    def edit(header, body):
        i = find_stage(body, [[1, 2, 3]] * 3, [2, 3, 4], 3)
        mixes = columns(body, i)[0]
        body["mixes"][mixes.start + 3] += 5e-7  # player 1 (k = 3 entries a player), bid 1

    bad = tmp_path / "edited.gops3.xz"
    reseal(saved_file(solutions), bad, edit)
    code, out, _ = run("verify", bad)
    assert code == 1, out
    assert out.startswith("not verified: NashConv <= ")
    assert "is not below 1e-09" in out
    assert "stored as hands 1,2,3 | 1,2,3 | 1,2,3, prizes [2, 3, 4], upcard 3" in out


def test_a_claim_below_the_proof_fails_verify(solutions, tmp_path):
    bad = tmp_path / "claim.gops3.xz"

    def edit(header, body):
        header["nashconv"]["bound"] = body["nashconv"]["bound"] = 1e-300

    reseal(saved_file(solutions), bad, edit)
    code, out, _ = run("verify", bad)
    assert code == 1 and "the file claims 1e-300" in out, out


def _drop_a_stage(header, body):
    remove_stage(body, len(body["stages"]) - 1)  # the start's last upcard


def _twice(header, body):
    for name, part in zip(("mixes", "values", "regrets"), columns(body, 0)):
        body[name] += body[name][part]
    body["stages"].append(body["stages"][0])


def _set(name, index, value, entry=None):
    def edit(header, body):
        if entry is None:
            body[name][index] = value
        else:
            body[name][index][entry] = value

    return edit


def _start_hands(hands):
    def edit(header, body):
        (start,) = [p for p in body["positions"] if len(p[1]) == N]
        start[0] = hands

    return edit


def _short(header, body):
    body["mixes"].pop()


def _header(key, value):
    def edit(header, body):
        header[key] = value

    return edit


def _game(key, value):
    def edit(header, body):
        header["game"][key] = body["game"][key] = value

    return edit


HOSTILE = [
    ("empty", lambda good: b"", "not an xz file"),
    ("garbage", lambda good: b"not a solution\n" * 20, "not an xz file"),
    ("truncated", lambda good: good[: len(good) // 2], "truncated"),
    ("trailing data", lambda good: good + b"more", "data after its xz stream"),
    ("xz of text", lambda good: lzma.compress(b"hello\nworld"), "not a saved three-player"),
    ("xz of deep JSON", lambda good: lzma.compress(b"[" * 100000 + b"\n"), "not a saved"),
]


def _swap_players(header, body):
    (p,) = [p for p in body["positions"] if p[0] == [[1], [2], [3]]][:1]
    p[0] = [[2], [1], [3]]


def _raw(name, value):
    def edit(body):
        body[name] = value(body[name])
        return msgpack.packb(body)

    return edit


RESEALED = [
    ("a stage dropped", _drop_a_stage, "lacks a stage game"),
    ("a stage twice", _twice, "appears twice"),
    ("a position twice", lambda h, b: b["positions"].append(b["positions"][0]), "appears twice"),
    ("NaN in a mix", _set("mixes", 0, float("nan")), "mixes holds a number that is not finite"),
    ("a mix not summing to 1", _set("mixes", 0, 0.75), "not a distribution over 1 bids"),
    ("a negative entry", _set("mixes", 0, -1e-3), "not a distribution"),
    ("a mix too short", _short, "mixes is not"),
    (
        "hands not canonical",
        _start_hands([[4, 3, 2, 1], [1, 2, 3, 4], [1, 2, 3, 4]]),
        "not in canonical",
    ),
    ("players out of order", _swap_players, "not in canonical"),
    ("a rank skipped", _start_hands([[1, 2, 3, 5]] * 3), "not in canonical"),
    ("points in a points game", _set("positions", 0, [0, 2, 0], entry=2), "points this game"),
    ("a prize of 99", _set("positions", 0, [99], entry=1), "not prizes of the 4-card game"),
    ("an upcard not a prize", _set("stages", 0, 99, entry=1), "not [position, upcard, method]"),
    ("no such position", _set("stages", 0, 10**6, entry=0), "a stage game of no position"),
    ("an unknown method", _set("stages", 0, 9, entry=2), "not [position, upcard, method]"),
    ("version 3", _header("version", 3), "version 3 of the format"),
    ("version true", _header("version", True), "version True of the format"),
    ("another format", _header("format", "gops-store"), "not a saved three-player"),
    ("a game of 99 cards", _game("n", 99), "not one gops solves"),
    ("a bool for N", _game("n", True), "not one gops solves"),
]

#: Faults only version 1's JSON can hold.
RESEALED_V1 = [
    ("NaN in a mix", _set("mixes", 0, float("nan")), "not JSON"),
    ("true for a probability", _set("mixes", 0, True), "mixes is not"),
    ("a string for values", _set("values", 4, "x"), "values is not"),
    ("a number past float64", _set("values", 4, 10**400), "values holds a number too large"),
    ("points past the game's", _set("positions", 0, [0, 0, 10**6], entry=2), "points that"),
    ("a string for a stage", _set("stages", 0, "mixes"), "not [position, upcard, method]"),
    ("an unknown method", _set("stages", 0, "magic", entry=2), "not [position, upcard, method]"),
    ("hands not canonical", _swap_players, "not in canonical form"),
    ("a stage twice", _twice, "appears twice"),
]

#: Faults in version 2's columns themselves.
RESEALED_RAW = [
    ("a column cut short", _raw("mixes", lambda b: b[:-3]), "mixes is not a column of float64"),
    ("a list for a column", _raw("values", lambda b: [1.0, 2.0]), "values is not a column"),
    ("no sizes", lambda body: msgpack.packb(body | {"sizes": None}), "sizes is not a column"),
    ("not msgpack", lambda body: b"\xc1" * 10, "is not msgpack"),
    ("deep msgpack", lambda body: b"\x91" * 100000, "is not msgpack"),
]


@pytest.mark.parametrize("name,make,message", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_broken_file_is_one_line_exit_2(solutions, tmp_path, name, make, message):
    bad = tmp_path / "bad.gops3.xz"
    bad.write_bytes(make(saved_file(solutions).read_bytes()))
    for args in (["verify", bad], ["play", 3, "--players", 3, "--solution", bad]):
        code, out, err = run(*args)
        assert code == 2 and err.count("\n") == 1 and message in err, (args, out, err)
        assert err.startswith("gops: error: ")


@pytest.mark.parametrize("name,edit,message", RESEALED, ids=[r[0] for r in RESEALED])
def test_a_resealed_bad_file_is_one_line_exit_2(solutions, tmp_path, name, edit, message):
    bad = tmp_path / "bad.gops3.xz"
    reseal(saved_file(solutions), bad, edit)
    code, _, err = run("verify", bad)
    assert code == 2 and err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize("name,edit,message", RESEALED_V1, ids=[r[0] for r in RESEALED_V1])
def test_a_resealed_bad_version_1_file_is_one_line_exit_2(solutions, tmp_path, name, edit, message):
    bad = tmp_path / "bad.gops3.xz"
    reseal(saved_file(solutions), bad, edit, version=1)
    code, _, err = run("verify", bad)
    assert code == 2 and err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize("name,edit,message", RESEALED_RAW, ids=[r[0] for r in RESEALED_RAW])
def test_a_bad_column_is_one_line_exit_2(solutions, tmp_path, name, edit, message):
    bad = tmp_path / "bad.gops3.xz"
    reseal_raw(saved_file(solutions), bad, edit)
    code, _, err = run("verify", bad)
    assert code == 2 and err.count("\n") == 1 and message in err, err


def test_a_version_1_file_reads_as_the_same_solution(solutions, tmp_path):
    """The JSON layout of version 1 (files saved before version 2) still loads: the same
    stage games, values and SHA-free content as the version-2 file it was rewritten from,
    and the same NashConv proved again."""
    old = tmp_path / "old.gops3.xz"
    reseal(saved_file(solutions), old, lambda header, body: None, version=1)
    a, b = load(saved_file(solutions)).solution, load(old).solution
    assert list(a.stages) == list(b.stages) and list(a.values) == list(b.values)
    for at in a.stages:
        x, y = a.stages[at], b.stages[at]
        assert [list(m) for m in x.mixes] == [list(m) for m in y.mixes]
        assert list(x.values) == list(y.values) and x.regret == y.regret
        assert x.method == y.method
    assert certify(b).bound == certify(a).bound == summary(solutions)["nashconv"]["bound"]


def test_a_position_missing_fails_verify(solutions, tmp_path):
    """A last-round position (one stage game) taken out: the file loads, but the proof
    reaches it, and says so (exit 1)."""

    def edit(header, body):
        remove_stage(body, find_stage(body, [[1], [1], [2]], [4], 4))

    bad = tmp_path / "short.gops3.xz"
    reseal(saved_file(solutions), bad, edit)
    code, out, _ = run("verify", bad)
    assert code == 1 and "lacks a stage game that play reaches" in out, out


def test_an_edit_past_the_checksum_is_exit_2(solutions, tmp_path):
    text = lzma.decompress(saved_file(solutions).read_bytes())
    bad = tmp_path / "bad.gops3.xz"
    bad.write_bytes(lzma.compress(text[:-1] + bytes([text[-1] ^ 1])))  # the last regret's
    code, _, err = run("verify", bad)
    assert code == 2 and "its SHA-256 does not match its content" in err, err


def test_an_xz_bomb_is_refused(solutions, monkeypatch):
    monkeypatch.setattr(saved_module, "MAX_TEXT_BYTES", 1000)
    code, _, err = run("verify", saved_file(solutions))
    assert code == 2 and "expands past 1,000 bytes: refused" in err, err


def test_a_killed_solve_resumes_to_the_same_solution(solutions, tmp_path):
    """SIGKILL a child solving the 4-card third-rule game once its side file holds 100
    stage games, cut its last line short (a crash mid-write), then run the same command
    again: it resumes ("k of 584 stage games from the checkpoint") and saves the solution
    the uninterrupted solve saved, stage for stage, bit for bit."""
    path = tmp_path / f"three-4-third{SUFFIX}"
    side = side_file(path)
    cmd = [sys.executable, "-m", "exact.cli", "solve", "4", "--players", "3"]
    cmd += ["--tie-rule", "third", "--quiet", "--save", str(path)]
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and child.poll() is None:
            if side.exists() and side.read_bytes().count(b"\n") > 100:
                break
            time.sleep(0.01)
        assert child.poll() is None, "the solve ended before it could be killed"
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    assert not path.exists() and side.exists()
    with side.open("ab") as fh:
        fh.write(b"[[[1,2],[1,")  # a line cut short
    code, out, err = run(*cmd[3:])
    assert code == 0, err
    (line,) = [x for x in err.splitlines() if "resuming" in x]
    k = int(line.split("resuming: ")[1].split(" of ")[0].replace(",", ""))
    assert 100 <= k < STAGE_GAMES[N] and f" of {STAGE_GAMES[N]} stage games from" in line
    assert not side.exists()
    resumed, uninterrupted = load(path).solution, load(saved_file(solutions, "third")).solution
    assert list(resumed.stages) == list(uninterrupted.stages)  # the same order, too
    for at, st in uninterrupted.stages.items():
        got = resumed.stages[at]
        assert [list(m) for m in got.mixes] == [list(m) for m in st.mixes]
        assert list(got.values) == list(st.values) and got.method == st.method


def test_a_checkpoint_of_another_game_is_refused(tmp_path):
    path = tmp_path / f"x{SUFFIX}"
    side_file(path).write_text(
        json.dumps(
            {"format": "gops-three-checkpoint", "version": 1, "game": {"n": 5, "players": 3}}
        )
        + "\n"
    )
    code, _, err = run("solve", 3, "--players", 3, "--tie-rule", "split", "--save", path)
    assert code == 2 and "the checkpoint of another game" in err, err


def test_save_without_a_file_goes_to_the_cache_and_play_reads_it(tmp_path, monkeypatch):
    """GOPS_CACHE chooses the cache folder; a game of --players 3 then reads the saved
    solution there, with no solve (exact.three.solve made to fail)."""
    monkeypatch.setenv("GOPS_CACHE", str(tmp_path))
    code, out, err = run("solve", 2, "--players", 3, "--tie-rule", "discard", "--save")
    game = ThreeGame.parse(2, "discard")
    assert code == 0 and f"saved to {cache_file(game)}" in out, err
    assert cache_file(game) == tmp_path / "three" / f"three-2-discard-points-random{SUFFIX}"
    monkeypatch.setattr(exact.three, "solve", lambda *a, **k: pytest.fail("solved again"))
    play_three.forget_solutions()
    try:
        sol = play_three.three_solution(2, "three-discard")
        assert sol.game.n == 2 and sol.game.tie_rule is DISCARD
        assert play_three.saved_solution(1, DISCARD) is not None  # the 1-card game in it
        assert play_three.saved_solution(3, DISCARD) is None
        assert play_three.saved_solution(2, SPLIT) is None
    finally:
        play_three.forget_solutions()


def test_play_from_a_saved_solution_in_the_terminal(solutions, monkeypatch):
    """gops play 3 from the 4-card file (no solve): the discard rule, every bid a 1, a
    three-way tie each round: nobody scores."""
    monkeypatch.setattr(exact.three, "solve", lambda *a, **k: pytest.fail("solved again"))
    play_three.forget_solutions()
    try:
        args = ["play", 3, "--players", 3, "--tie-rule", "discard", "--seed", 5]
        args += ["--solution", saved_file(solutions, "discard")]
        result = CliRunner().invoke(main, [str(a) for a in args], input="1\n2\n")
        assert result.exit_code == 0, result.output
        assert "computer 1 (equilibrium) and computer 2 (equilibrium)" in result.output
        assert "Any tie for the high bid discards the prize" in result.output
        assert "Final score: you " in result.output
        code, _, err = run(*args[:-1], saved_file(solutions, "split"))
        assert code == 2 and "not the game of --tie-rule discard" in err
        code, _, err = run("play", 5, *args[2:-1], saved_file(solutions, "discard"))
        assert code == 2 and "holds the 4-card game: it has no 5-card game" in err
    finally:
        play_three.forget_solutions()


def test_progress_lines_say_the_total_and_the_time_to_go(monkeypatch):
    """Off a terminal, a line per PROGRESS_SECONDS (here every stage game): the count of
    the total (STAGE_GAMES: 63 at N = 3) and the time to go."""
    from exact.cli import three as cli_three

    monkeypatch.setattr(cli_three, "PROGRESS_SECONDS", 0.0)
    code, _, err = run("solve", 3, "--players", 3, "--tie-rule", "split")
    assert code == 0
    lines = [x for x in err.splitlines() if "stage games solved" in x]
    assert len(lines) == STAGE_GAMES[3] == 63
    for k, line in enumerate(lines, 1):
        assert f": {k} stage games solved (of 63) in " in line and " s to go" in line
