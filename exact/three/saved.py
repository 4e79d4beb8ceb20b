"""Saved three-player solutions: one file holds a solve's every stage game, checked on load.

FORMAT (version 2).  The file is one xz stream (``lzma``, the standard library) in two
parts, separated by the first newline:

1. the header, one line of JSON::

       {"format": "gops-three-solution", "version": 2, "sha256": "<64 hex digits>",
        "game": {"players": 3, "n": 5, "tie_rule": "split", "objective": "points",
                 "order": "random"},
        "nashconv": {"bound": 1.2e-12, "estimate": ..., "depth": ..., "positions": ...},
        "stage_games": 6255,
        "solved": {"seconds": ..., "cpu_seconds": ..., "peak_rss_bytes": ...,
                   "methods": {"logit": ..., ...}}}

   (``solved`` says how the solve went; it is the only part outside the checksum, so that
   two solves of one game write the same body and the same SHA-256)

2. the body, one msgpack map, whose exact bytes ``sha256`` is the SHA-256 of: ``game``
   and ``nashconv`` (the header's, as maps) and the columns of
   :class:`~exact.three.stage_table.Columns`, each a msgpack ``bin`` of little-endian
   numbers (:data:`DTYPES`)::

       sizes, hands, prizes, points          one entry (or 3, or 3k, or k) a position
       stage_positions, upcards, methods     one entry a stage game
       mixes, values, regrets                3k, 3 and 1 float64 a stage game

   The positions are the canonical positions of :mod:`exact.three.canonical` that have
   stage games: ``hands`` three lists of card ranks, ``prizes`` the prizes left
   (ascending), ``points`` the points so far in half points less the smallest (all 0
   under ``points``).  The stage games are in the order the induction solved them; a
   stage game's mixes are canonical player j's probabilities over their hand, ascending,
   for j = 0, 1, 2; ``methods`` indexes :data:`~exact.three.stage_table.METHODS`.

Version 1 (still read) held the same body as JSON: ``positions`` as [hands, prizes,
points] lists, ``stages`` as [position, upcard, method name], the float columns as
lists.  Columns, because at 7 cards (917,616 stage games) JSON lists and a Python
object a stage game take 19-24 s and 1.7-2.6 GB to read, the columns about 4 s and
0.7 GB (benchmarks/RESULTS.md, "Saved three-player solutions as columns").

Why xz and msgpack: the standard library reads xz, msgpack is already a dependency,
``xz -dc FILE | head -1`` shows what a file is, float64 columns read back bit for bit (so
a loaded solution's NashConv equals the solved one's exactly), and the 5-card solution
(6,255 stage games) is 161 KB.

:func:`load` checks everything before it answers, the columns all at once (numpy): the xz
stream (at most :data:`MAX_TEXT_BYTES` of text), the format and version, the SHA-256 of
the body, the game (the header's and the body's alike, and one :meth:`ThreeGame.parse`
accepts), the columns' lengths, each position (prizes of the game, each hand strictly
ascending ranks, the ranks 1..m all used, points this game carries with the smallest 0,
players in (hand, points) order: the canonical form, which :func:`canonical` gives back),
no position twice, each stage game (an upcard among its position's prizes, a known
method, no (position, upcard) twice), every upcard of each position and of the start
present, every number finite and each mix a distribution (non-negative, summing to 1
within :data:`MIX_SUM_TOLERANCE`; the policy judged is each mix scaled by its own sum, as
:mod:`exact.three.nashconv` judges it).  A file failing any check is one
:class:`SavedSolutionError` line (the CLI's exit 2).  The stored NashConv is a claim:
``gops verify FILE`` proves it again from the mixes (:mod:`exact.three.verify`).
"""

from __future__ import annotations

import hashlib
import json
import lzma
import math
import os
from dataclasses import dataclass

import msgpack
import numpy as np

from exact.atomic import atomic_file
from exact.errors import GopsInputError
from exact.three.canonical import Key, canonical
from exact.three.induction import ThreeSolution
from exact.three.nashconv import NashConvReport
from exact.three.rules import ThreeGame
from exact.three.stage import StageSolution
from exact.three.stage_table import METHODS, Columns, PositionValues, StageTable, key_bytes

__all__ = [
    "FORMAT",
    "MIX_SUM_TOLERANCE",
    "READS",
    "SUFFIX",
    "VERSION",
    "SavedSolution",
    "SavedSolutionError",
    "decode_position",
    "decode_stage",
    "encode_stage",
    "load",
    "read_header",
    "save",
]

FORMAT = "gops-three-solution"
#: The version written; :data:`READS` the versions read.
VERSION = 2
READS = (1, 2)
#: Each column of a version-2 body, as its numbers are stored (little-endian).
DTYPES = {
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
#: The file name ending of a saved solution.
SUFFIX = ".gops3.xz"
#: How far from 1 a stored mix may sum: the solver's mixes sum to 1 within float rounding
#: (a few 1e-16); a mix further off is not the distribution it claims to be.
MIX_SUM_TOLERANCE = 1e-6
#: The most text a file may expand to: the 7-card solution (917,616 stage games) is about
#: 200 MB as version 1's JSON, less as version 2's columns; a file expanding beyond is
#: refused once this much is read.
MAX_TEXT_BYTES = 2**30
#: The first bytes of every xz file (the .xz format, sec 2.1.1.1).
XZ_MAGIC = b"\xfd7zXZ\x00"


class SavedSolutionError(GopsInputError):
    """A file that is not a whole, well-formed saved solution (the CLI's exit 2)."""


@dataclass(frozen=True)
class SavedSolution:
    """A loaded, checked solution: its stages (a :class:`ThreeSolution`), the NashConv it
    claims, the SHA-256 of its body and where it was read from."""

    solution: ThreeSolution
    nashconv: dict  # the claim: bound, estimate, depth, positions
    sha256: str
    path: str

    @property
    def game(self) -> ThreeGame:
        return self.solution.game

    def covers(self, n: int) -> bool:
        """Whether the n-card game's start is among the stages (every n <= N for the
        shuffled and descending orders: after three equal bids on the largest prize, the
        position is the (N-1)-card game's start)."""
        if n > self.game.n or n < 1:
            return False
        hand = tuple(range(1, n + 1))
        key, _ = canonical((hand, hand, hand), hand, (0, 0, 0))
        return all((key, u) in self.solution.stages for u in self.game.order.next_prizes(hand))

    def for_n(self, n: int) -> ThreeSolution:
        """The n-card game's solution, read from these stages (the same dictionaries)."""
        if not self.covers(n):
            raise GopsInputError(
                f"{self.path} holds the {self.game.n}-card game: it has no {n}-card game"
            )
        g = self.game
        game = ThreeGame(n, g.tie_rule, g.objective, g.order)
        return ThreeSolution(game, self.solution.values, self.solution.stages)


def encode_stage(key: Key, upcard: int, st: StageSolution) -> list:
    """A stage game as one list (a line of a checkpoint, :mod:`exact.three.checkpoint`):
    [hands, prizes, points, upcard, mixes, values, regret, method], floats as Python
    writes them (exact)."""
    hands, prizes, units = key
    return [
        [list(h) for h in hands],
        list(prizes),
        list(units),
        upcard,
        [[float(p) for p in m] for m in st.mixes],
        [float(v) for v in st.values],
        float(st.regret),
        st.method,
    ]


def _ints(x, what: str) -> tuple[int, ...]:
    if not isinstance(x, list) or not all(type(c) is int for c in x):
        raise SavedSolutionError(f"{what} is not a list of integers")
    return tuple(x)


def _floats(x, k: int, what: str) -> list[float]:
    if not isinstance(x, list) or len(x) != k:
        raise SavedSolutionError(f"{what} is not {k} finite numbers")
    for p in x:
        if (type(p) is not float and type(p) is not int) or not math.isfinite(p):
            raise SavedSolutionError(f"{what} is not {k} finite numbers")
    return x


def _most_points(game: ThreeGame) -> int:
    """The most half points a player can hold: every prize, 2 (1 + ... + N)."""
    return game.n * (game.n + 1)


def decode_position(raw, game: ThreeGame, where: str) -> Key:
    """[hands, prizes, points] of the FORMAT, checked: shapes, prizes of the game, points
    this game carries, and the canonical form (:func:`canonical` gives it back)."""
    if not isinstance(raw, list) or len(raw) != 3:
        raise SavedSolutionError(f"{where} is not [hands, prizes, points]")
    hands_raw, prizes_raw, units_raw = raw
    prizes = _ints(prizes_raw, f"{where}: the prizes")
    k = len(prizes)
    where = f"{where} (prizes {list(prizes)})"
    if not isinstance(hands_raw, list) or len(hands_raw) != 3:
        raise SavedSolutionError(f"{where}: its hands are not three lists")
    hands = tuple(_ints(h, f"{where}: a hand") for h in hands_raw)
    units = _ints(units_raw, f"{where}: the points")
    if k == 0 or list(prizes) != sorted(set(prizes)) or not 1 <= prizes[0] <= prizes[-1] <= game.n:
        raise SavedSolutionError(f"{where}: not prizes of the {game.n}-card game")
    if any(len(h) != k or any(c < 1 for c in h) for h in hands) or len(units) != 3:
        raise SavedSolutionError(f"{where}: hands or points of the wrong shape")
    if any(not 0 <= u <= _most_points(game) for u in units) or (not game.top and any(units)):
        raise SavedSolutionError(f"{where}: points that this game's positions do not carry")
    key: Key = (hands, prizes, units)
    if canonical(hands, prizes, units)[0] != key:
        raise SavedSolutionError(f"{where}: hands {hands_raw} are not in canonical form")
    return key


def decode_stage(row, game: ThreeGame) -> tuple[tuple[Key, int], StageSolution]:
    """A stage game as :func:`encode_stage` writes it (a line of a checkpoint), checked
    (shape, canonical key, each mix a distribution); a fault is one SavedSolutionError."""
    if not isinstance(row, list) or len(row) != 8:
        raise SavedSolutionError("a stage game is not a list of 8 entries")
    key = decode_position(row[:3], game, "a stage game's position")
    upcard, mixes_raw, values_raw, regret, method = row[3:]
    k = len(key[1])
    where = f"the stage game at prizes {list(key[1])}, upcard {upcard}"
    if type(upcard) is not int or upcard not in key[1]:
        raise SavedSolutionError(f"{where}: an upcard that is not one of the prizes")
    if not isinstance(mixes_raw, list) or len(mixes_raw) != 3:
        raise SavedSolutionError(f"{where}: not three mixes")
    for m in mixes_raw:
        _floats(m, k, f"{where}: a mix")
        if min(m) < 0 or abs(math.fsum(m) - 1) > MIX_SUM_TOLERANCE:
            raise SavedSolutionError(f"{where}: a mix that is not a distribution over {k} bids")
    _floats(values_raw, 3, f"{where}: the values")
    if type(regret) not in (float, int) or not math.isfinite(regret) or method not in METHODS:
        raise SavedSolutionError(f"{where}: a bad regret or method")
    mixes = tuple(np.array(m, dtype=float) for m in mixes_raw)
    values = np.array(values_raw, dtype=float)
    return (key, upcard), StageSolution(mixes, values, float(regret), method)  # type: ignore[arg-type]


def _body(sol: ThreeSolution, nashconv: dict) -> bytes:
    """The body of the FORMAT: the game, the claim and the columns of the stage games."""
    c = Columns.of(sol.stages)
    body: dict = {"game": sol.game.to_json(), "nashconv": nashconv}
    for name, dtype in DTYPES.items():
        body[name] = np.ascontiguousarray(getattr(c, name), dtype=dtype).tobytes()
    return msgpack.packb(body, use_bin_type=True)


def claim(report: NashConvReport) -> dict:
    """The NashConv a file claims, from a certified report."""
    return {
        "bound": report.bound,
        "estimate": report.estimate,
        "depth": report.depth,
        "positions": report.positions,
    }


def save(sol: ThreeSolution, report: NashConvReport, path) -> str:
    """Write ``sol`` and its certified NashConv to ``path`` (atomically: exact.atomic);
    the SHA-256 of the body is returned."""
    nashconv = claim(report)
    body = _body(sol, nashconv)
    digest = hashlib.sha256(body).hexdigest()
    header = {
        "format": FORMAT,
        "version": VERSION,
        "sha256": digest,
        "game": sol.game.to_json(),
        "nashconv": nashconv,
        "stage_games": len(sol.stages),
        "solved": {
            "seconds": round(sol.seconds, 3),
            "cpu_seconds": round(sol.cpu_seconds, 3),
            "peak_rss_bytes": sol.peak_rss_bytes,
            "methods": dict(sorted(sol.methods.items())),
        },
    }
    text = json.dumps(header, separators=(",", ":")).encode() + b"\n" + body
    with atomic_file(path, "wb") as fh:
        fh.write(lzma.compress(text, preset=6))
    return digest


def _text(path, limit: int | None = None) -> bytes:
    """The file's text: all of it (at most MAX_TEXT_BYTES) when ``limit`` is None, else
    what its first ``limit`` bytes expand to (at most ``limit`` bytes: the header)."""
    whole = limit is None
    try:
        with open(path, "rb") as fh:
            raw = fh.read() if whole else fh.read(limit)
    except OSError as exc:
        raise SavedSolutionError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not raw.startswith(XZ_MAGIC):
        raise SavedSolutionError(f"{path} is not a saved solution (not an xz file)")
    dec = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
    try:
        text = dec.decompress(raw, max_length=MAX_TEXT_BYTES if limit is None else limit)
    except lzma.LZMAError:
        raise SavedSolutionError(f"{path} is not a saved solution (not an xz file)") from None
    if whole and not dec.eof:
        if dec.needs_input:
            raise SavedSolutionError(f"{path} is truncated (its xz stream ends early)")
        raise SavedSolutionError(f"{path} expands past {MAX_TEXT_BYTES:,} bytes: refused")
    if whole and dec.unused_data:
        raise SavedSolutionError(f"{path} has data after its xz stream")
    return text


def _json(text: bytes, what: str):
    def no_constant(name):
        raise ValueError(name)

    try:
        return json.loads(text, parse_constant=no_constant)
    except (ValueError, RecursionError):
        raise SavedSolutionError(f"{what} is not JSON") from None


def _header(text: bytes, path) -> dict:
    line, newline, _ = text.partition(b"\n")
    try:
        header = _json(line, "its header") if newline else None
    except SavedSolutionError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise SavedSolutionError(f"{path} is not a saved three-player solution")
    version = header.get("version")
    if type(version) is not int or version not in READS:
        raise SavedSolutionError(
            f"{path} is version {version!r} of the format; this gops reads"
            f" {' and '.join(map(str, READS))}"
        )
    for name, kind in (("sha256", str), ("game", dict), ("nashconv", dict)):
        if not isinstance(header.get(name), kind):
            raise SavedSolutionError(f"the header of {path} has no {name}")
    return header


def _game(found, path) -> ThreeGame:
    if not isinstance(found, dict) or found.get("players") != 3:
        raise SavedSolutionError(f"{path} does not name a three-player game")
    try:
        return ThreeGame.parse(found["n"], found["tie_rule"], found["objective"], found["order"])
    except (KeyError, TypeError, GopsInputError) as exc:
        raise SavedSolutionError(f"{path}: its game is not one gops solves ({exc})") from None


def read_header(path) -> tuple[ThreeGame, dict]:
    """The game and header of a saved solution, from its first bytes (for an index of a
    folder; nothing else is checked until :func:`load`)."""
    header = _header(_text(path, limit=1 << 16), path)
    return _game(header["game"], path), header


def load(path) -> SavedSolution:
    """The saved solution at ``path``, every check of the module docstring passed."""
    path = os.fspath(path)
    text = _text(path)
    header = _header(text, path)
    body_bytes = text.partition(b"\n")[2]
    if hashlib.sha256(body_bytes).hexdigest() != header["sha256"]:
        raise SavedSolutionError(f"{path}: its SHA-256 does not match its content")
    v1 = header["version"] == 1
    body = _json(body_bytes, f"the body of {path}") if v1 else _unpack(body_bytes, path)
    if not isinstance(body, dict) or body.get("game") != header["game"]:
        raise SavedSolutionError(f"{path}: the body's game is not the header's")
    if body.get("nashconv") != header["nashconv"]:
        raise SavedSolutionError(f"{path}: the body's NashConv is not the header's")
    game = _game(body["game"], path)
    columns = _columns_v1(body, game, path) if v1 else _columns(body, path)
    sol = _checked(columns, game, path)
    solved = header.get("solved")
    if isinstance(solved, dict):  # not checked: what the solve took, shown as it is
        try:
            sol.seconds = float(solved.get("seconds", 0))
            sol.cpu_seconds = float(solved.get("cpu_seconds", 0))
            sol.peak_rss_bytes = int(solved.get("peak_rss_bytes", 0))
        except (TypeError, ValueError):
            pass
    return SavedSolution(sol, header["nashconv"], header["sha256"], path)


def _unpack(body: bytes, path) -> dict:
    try:
        return msgpack.unpackb(body, raw=False, strict_map_key=True)
    except (ValueError, TypeError, msgpack.UnpackException):
        raise SavedSolutionError(f"the body of {path} is not msgpack") from None


def _columns(body: dict, path) -> Columns:
    """A version-2 body's columns, each of whole numbers of its type."""
    raw = {}
    for name, dtype in DTYPES.items():
        data = body.get(name)
        size = np.dtype(dtype).itemsize
        if not isinstance(data, bytes) or len(data) % size:
            raise SavedSolutionError(f"{path}: {name} is not a column of {np.dtype(dtype)}")
        raw[name] = np.frombuffer(data, dtype=dtype)
    sizes, points = raw["sizes"], raw["points"]
    if len(points) != 3 * len(sizes):
        raise SavedSolutionError(f"{path}: points is not 3 numbers a position")
    stages = len(raw["upcards"])
    if len(raw["values"]) != 3 * stages:
        raise SavedSolutionError(f"{path}: values is not {3 * stages:,} numbers")
    if len(raw["stage_positions"]) != stages or len(raw["methods"]) != stages:
        raise SavedSolutionError(f"{path}: stage_positions, upcards and methods differ in length")
    if len(raw["stage_positions"]) and int(raw["stage_positions"].max()) >= len(sizes):
        raise SavedSolutionError(f"{path}: a stage game of no position")
    return Columns(
        sizes,
        raw["hands"],
        raw["prizes"],
        points.reshape(-1, 3),
        raw["stage_positions"].astype(np.int64),
        raw["upcards"],
        raw["methods"],
        raw["mixes"],
        raw["values"].reshape(-1, 3),
        raw["regrets"],
    )


def _columns_v1(body: dict, game: ThreeGame, path) -> Columns:
    """A version-1 (JSON) body as columns, each position and stage entry of the right
    types (:func:`decode_position`)."""
    for name in ("positions", "stages"):
        if not isinstance(body.get(name), list):
            raise SavedSolutionError(f"{path}: the body has no {name}")
    keys = [
        decode_position(raw, game, f"{path}: position {i}")
        for i, raw in enumerate(body["positions"])
    ]
    rows = body["stages"]
    for i, row in enumerate(rows):
        if (
            not isinstance(row, list)
            or len(row) != 3
            or type(row[0]) is not int
            or not 0 <= row[0] < len(keys)
            or type(row[1]) is not int
            or row[1] not in keys[row[0]][1]
            or row[2] not in METHODS
        ):
            raise SavedSolutionError(f"{path}: stage game {i} is not [position, upcard, method]")
    floats = {}
    for name in ("mixes", "values", "regrets"):
        raw = body.get(name)
        if not isinstance(raw, list) or not set(map(type, raw)) <= {float, int}:
            raise SavedSolutionError(f"{path}: {name} is not a list of numbers")
        try:
            floats[name] = np.array(raw, dtype=float)
        except OverflowError:
            raise SavedSolutionError(f"{path}: {name} holds a number too large") from None
    if len(floats["values"]) != 3 * len(rows):
        raise SavedSolutionError(f"{path}: values is not {3 * len(rows):,} numbers")
    return Columns.build(
        keys,
        [r[0] for r in rows],
        [r[1] for r in rows],
        [METHODS.index(r[2]) for r in rows],
        floats["mixes"],
        floats["values"],
        floats["regrets"],
    )


def _fail(path, columns: Columns, p: int, what: str):
    hands, prizes, _ = columns.key(p)
    raise SavedSolutionError(
        f"{path}: position {p} (hands {[list(h) for h in hands]}, prizes {list(prizes)}): {what}"
    )


def _first(bad: np.ndarray, rows: np.ndarray) -> int | None:
    """The first of ``rows`` where ``bad`` holds, or None."""
    return int(rows[np.flatnonzero(bad)[0]]) if bad.any() else None


def _check_positions(c: Columns, game: ThreeGame, path) -> None:
    """The positions' checks of the module docstring, a group of equal k at a time."""
    n, sizes = game.n, c.sizes
    if len(c.hands) != 3 * int(c.first[-1]) or len(c.prizes) != int(c.first[-1]):
        raise SavedSolutionError(f"{path}: hands or prizes is not the length its sizes say")
    if len(sizes) and not 1 <= int(sizes.min()) <= int(sizes.max()) <= n:
        raise SavedSolutionError(f"{path}: a position of a size the {n}-card game has not")
    if len(sizes) and int(c.points.min(axis=1).max()) != 0:
        _fail(path, c, int(np.flatnonzero(c.points.min(axis=1))[0]), "points less the least not 0")
    beyond = (c.points > _most_points(game)).any(axis=1) | (not game.top and c.points.any(axis=1))
    if beyond.any():
        _fail(path, c, int(np.flatnonzero(beyond)[0]), "points this game has not")
    for k in np.unique(sizes).tolist():
        rows, hands, prizes = c.group(k)
        p = _first((prizes[:, 0] < 1) | (prizes[:, -1] > n) | (np.diff(prizes) <= 0).any(1), rows)
        if p is not None:
            _fail(path, c, p, f"not prizes of the {n}-card game")
        flat = hands.reshape(len(rows), -1).astype(np.int64)
        top = flat.max(axis=1)
        wrong = (flat.min(axis=1) < 1) | (top > 3 * k) | (np.diff(hands, axis=2) <= 0).any((1, 2))
        used = np.zeros((len(rows), 3 * k + 1), dtype=bool)
        used[np.arange(len(rows))[:, None], np.minimum(flat, 3 * k)] = True
        wrong |= used[:, 1:].sum(axis=1) != top  # the ranks 1..top, each held
        # the players in (hand, points) order, lexicographically
        record = np.concatenate([hands, c.points[rows][:, :, None]], axis=2).astype(np.int64)
        for j in (0, 1):
            a, b = record[:, j], record[:, j + 1]
            differ = a != b
            at = differ.argmax(axis=1)
            line = np.arange(len(rows))
            wrong |= differ.any(axis=1) & (a[line, at] > b[line, at])
        p = _first(wrong, rows)
        if p is not None:
            _fail(path, c, p, "hands not in canonical form")


def _stage_table(c: Columns, game: ThreeGame, path) -> np.ndarray:
    """stage_of[p, u], the stage game at position p and upcard u (-1: none), checked: an
    upcard among the prizes, a known method, no (position, upcard) twice."""
    n, positions = game.n, c.positions
    member = np.zeros((positions, n + 1), dtype=bool)
    member[np.repeat(np.arange(positions), c.sizes), c.prizes] = True
    sp, up = c.stage_positions, c.upcards.astype(np.int64)
    bad = (up > n) | (c.methods >= len(METHODS))
    bad[~bad] = ~member[sp[~bad], up[~bad]]
    if bad.any():
        s = int(np.flatnonzero(bad)[0])
        raise SavedSolutionError(f"{path}: stage game {s} is not [position, upcard, method]")
    cell = sp * (n + 1) + up
    count = np.bincount(cell, minlength=positions * (n + 1))
    if (count > 1).any():
        s = int(np.flatnonzero(count[cell] > 1)[0])
        at = (c.key(int(sp[s])), int(up[s]))
        raise SavedSolutionError(f"{path}: the stage game {at} appears twice")
    stage_of = np.full(positions * (n + 1), -1, dtype=np.int64)
    stage_of[cell] = np.arange(len(cell))
    return stage_of.reshape(positions, n + 1)


def _check_mixes(c: Columns, path) -> None:
    """Every number finite, each mix a distribution (MIX_SUM_TOLERANCE)."""
    stages = len(c.upcards)
    sizes = {"mixes": int(c.mix_first[-1]), "values": 3 * stages, "regrets": stages}
    for name, size in sizes.items():
        column = getattr(c, name)
        if column.size != size:
            raise SavedSolutionError(f"{path}: {name} is not {size:,} numbers")
        if not np.isfinite(column).all():
            raise SavedSolutionError(f"{path}: {name} holds a number that is not finite")
    if not stages:
        return
    ks = c.sizes[c.stage_positions].astype(np.int64)
    firsts = (c.mix_first[:-1, None] + np.arange(3) * ks[:, None]).ravel()  # each player's mix
    sums = np.add.reduceat(c.mixes, firsts)
    bad = (np.abs(sums - 1) > MIX_SUM_TOLERANCE) | (np.minimum.reduceat(c.mixes, firsts) < 0)
    if bad.any():
        s = int(np.flatnonzero(bad)[0]) // 3
        hands, prizes, _ = c.key(int(c.stage_positions[s]))
        raise SavedSolutionError(
            f"{path}: the stage game at hands {list(hands)}, prizes {list(prizes)}, upcard "
            f"{int(c.upcards[s])} has a mix that is not a distribution over {ks[s]} bids"
        )


def _position_values(c: Columns, game: ThreeGame, stage_of: np.ndarray, path) -> np.ndarray:
    """Each position's value, as the induction forms it (np.mean over its upcards, in the
    order's order, of the stage values: the same sums in the same order, so the same
    floats), a group of equal k at a time; every upcard's stage game must be there, and
    no other."""
    rows_out = np.zeros((c.positions, 3))
    count = np.bincount(c.stage_positions, minlength=c.positions)
    for k in np.unique(c.sizes).tolist():
        rows, _, prizes = c.group(k)
        lo, hi = game.order.upcard_range(k)
        stages = stage_of[rows[:, None], prizes[:, lo:hi]]
        p = _first((stages < 0).any(axis=1) | (count[rows] != hi - lo), rows)
        if p is not None:
            raise SavedSolutionError(f"{path}: the position {c.key(p)} lacks a stage game")
        rows_out[rows] = np.mean(c.values[stages], axis=1)  # (P_k, upcards, 3) -> (P_k, 3)
    return rows_out


def _checked(c: Columns, game: ThreeGame, path) -> ThreeSolution:
    """The solution the columns hold, every check of the module docstring made."""
    _check_positions(c, game, path)
    index = c.index()
    if len(index) != c.positions:
        raise SavedSolutionError(f"{path}: a position appears twice")
    stage_of = _stage_table(c, game, path)
    _check_mixes(c, path)
    rows = _position_values(c, game, stage_of, path)
    sol = ThreeSolution(game, PositionValues(c, index, rows), StageTable(c, index, stage_of))
    if key_bytes(sol.root) not in index:
        raise SavedSolutionError(f"{path} has no stage game at the start")
    counts = np.bincount(c.methods, minlength=len(METHODS))
    sol.methods = {m: int(counts[i]) for i, m in enumerate(METHODS) if counts[i]}
    return sol
