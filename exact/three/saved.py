"""Saved three-player solutions: one file holds a solve's every stage game, checked on load.

FORMAT (version 1).  The file is one xz stream (``lzma``, the standard library) of UTF-8
text in two parts, separated by the first newline:

1. the header, one JSON object::

       {"format": "gops-three-solution", "version": 1, "sha256": "<64 hex digits>",
        "game": {"players": 3, "n": 5, "tie_rule": "split", "objective": "points",
                 "order": "random"},
        "nashconv": {"bound": 1.2e-12, "estimate": ..., "depth": ..., "positions": ...},
        "stage_games": 6255,
        "solved": {"seconds": ..., "cpu_seconds": ..., "peak_rss_bytes": ...,
                   "methods": {"logit": ..., ...}}}

   (``solved`` says how the solve went; it is the only part outside the checksum, so that
   two solves of one game write the same body and the same SHA-256)

2. the body, one JSON object, whose exact bytes ``sha256`` is the SHA-256 of::

       {"game": {...the header's game...},
        "nashconv": {...the header's nashconv...},
        "positions": [[hands, prizes, points], ...],
        "stages": [[position, upcard, method], ...],
        "mixes": [...], "values": [...], "regrets": [...]}

   ``positions`` are the canonical positions of :mod:`exact.three.canonical` that have
   stage games: ``hands`` three lists of card ranks, ``prizes`` the prizes left
   (ascending), ``points`` the points so far in half points less the smallest (all 0
   under ``points``).  ``stages`` has one entry per stage game of
   :mod:`exact.three.induction`, in the order the induction solved them: the index of its
   position, its upcard (one of the prizes) and ``method``, how it was found
   (:class:`~exact.three.stage.StageSolution`).  The float columns follow the stage
   games: ``mixes`` holds each one's three mixes one after the other (canonical player
   j's probabilities over their hand, ascending; k = the prizes left, so 3k numbers a
   stage game), ``values`` its payoff to each canonical player (3 a stage game),
   ``regrets`` its float stage regret (1 a stage game).  Columns rather than a record
   a stage game make loading one numpy pass: the 5-card file loads in a fraction of a
   second.

Why JSON in xz: the standard library reads and writes it (no new dependency), ``xz -dc
FILE | head -1`` shows what a file is, Python's float ``repr`` makes every stored float
read back bit for bit (so a loaded solution's NashConv equals the solved one's exactly),
and xz brings the 5-card solution (6,255 stage games) to 181 KB, loaded and checked in
about a fifth of a second on a loaded machine (benchmarks/three_saved.py,
benchmarks/RESULTS.md).

:func:`load` checks everything before it answers: the xz stream (at most
:data:`MAX_TEXT_BYTES` of text), the format and version, the SHA-256 of the body, the
game (the header's and the body's alike, and one :meth:`ThreeGame.parse` accepts), and
each stage: its shape, a canonical key (:func:`~exact.three.canonical.canonical` gives
it back), an upcard among its prizes, no key twice, every upcard of each position and of
the start present, and each mix a distribution (finite, non-negative, summing to 1 within
:data:`MIX_SUM_TOLERANCE`; the policy judged is each mix scaled by its own sum, as
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

import numpy as np

from exact.atomic import atomic_file
from exact.errors import GopsInputError
from exact.three.canonical import Key, canonical
from exact.three.induction import ThreeSolution
from exact.three.nashconv import NashConvReport
from exact.three.rules import ThreeGame
from exact.three.stage import StageSolution

__all__ = [
    "FORMAT",
    "MIX_SUM_TOLERANCE",
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
VERSION = 1
#: The file name ending of a saved solution.
SUFFIX = ".gops3.xz"
#: How far from 1 a stored mix may sum: the solver's mixes sum to 1 within float rounding
#: (a few 1e-16); a mix further off is not the distribution it claims to be.
MIX_SUM_TOLERANCE = 1e-6
#: The most text a file may expand to: the 6-card solution is about 15 MB, the 7-card one
#: (917,616 stage games) projected at about 200 MB; a file expanding beyond is refused
#: once this much is read.
MAX_TEXT_BYTES = 2**30
#: The first bytes of every xz file (the .xz format, sec 2.1.1.1).
XZ_MAGIC = b"\xfd7zXZ\x00"
#: How each stage game was found (:mod:`exact.three.stage`).
METHODS = ("forced", "dominance", "logit", "fallback")


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
    if any(u < 0 for u in units) or (not game.top and any(units)):
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
    """The body of the FORMAT: positions, stage games and the flat float columns."""
    index: dict = {}
    positions: list[list] = []
    stages: list[list] = []
    mixes: list[float] = []
    values: list[float] = []
    regrets: list[float] = []
    for (key, u), st in sol.stages.items():
        if key not in index:
            index[key] = len(positions)
            positions.append([[list(h) for h in key[0]], list(key[1]), list(key[2])])
        stages.append([index[key], u, st.method])
        for m in st.mixes:
            mixes.extend(float(p) for p in m)
        values.extend(float(v) for v in st.values)
        regrets.append(float(st.regret))
    body = {
        "game": sol.game.to_json(),
        "nashconv": nashconv,
        "positions": positions,
        "stages": stages,
        "mixes": mixes,
        "values": values,
        "regrets": regrets,
    }
    return json.dumps(body, separators=(",", ":"), allow_nan=False).encode()


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
    if header.get("version") != VERSION:
        raise SavedSolutionError(
            f"{path} is version {header.get('version')!r} of the format; this gops reads {VERSION}"
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
    body = _json(body_bytes, f"the body of {path}")
    if not isinstance(body, dict) or body.get("game") != header["game"]:
        raise SavedSolutionError(f"{path}: the body's game is not the header's")
    if body.get("nashconv") != header["nashconv"]:
        raise SavedSolutionError(f"{path}: the body's NashConv is not the header's")
    game = _game(body["game"], path)
    sol = ThreeSolution(game)
    solved = header.get("solved")
    if isinstance(solved, dict):  # not checked: what the solve took, shown as it is
        try:
            sol.seconds = float(solved.get("seconds", 0))
            sol.cpu_seconds = float(solved.get("cpu_seconds", 0))
            sol.peak_rss_bytes = int(solved.get("peak_rss_bytes", 0))
        except (TypeError, ValueError):
            pass
    values = _stages(sol, body, path)
    _position_values(sol, values, path)
    return SavedSolution(sol, header["nashconv"], header["sha256"], path)


def _column(body: dict, name: str, size: int, path) -> np.ndarray:
    """The float column ``name`` of the body: ``size`` finite numbers (no true/false)."""
    raw = body.get(name)
    if not isinstance(raw, list) or len(raw) != size or not set(map(type, raw)) <= {float, int}:
        raise SavedSolutionError(f"{path}: {name} is not {size:,} numbers")
    column = np.array(raw, dtype=float)
    if not np.isfinite(column).all():
        raise SavedSolutionError(f"{path}: {name} holds a number that is not finite")
    return column


def _stages(sol: ThreeSolution, body: dict, path) -> np.ndarray:
    """The stage games of the body, every check of the module docstring made; the mixes
    are checked all at once (numpy), each stage's arrays views of the columns.  Returns
    the values, a row a stage game."""
    game = sol.game
    for name in ("positions", "stages"):
        if not isinstance(body.get(name), list):
            raise SavedSolutionError(f"{path}: the body has no {name}")
    keys = [
        decode_position(raw, game, f"{path}: position {i}")
        for i, raw in enumerate(body["positions"])
    ]
    rows = body["stages"]
    ks = np.empty(len(rows), dtype=np.int64)
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
        ks[i] = len(keys[row[0]][1])
    starts = np.concatenate([[0], np.cumsum(3 * ks)])
    mixes = _column(body, "mixes", int(starts[-1]), path)
    values = _column(body, "values", 3 * len(rows), path)
    regrets = _column(body, "regrets", len(rows), path)
    # each mix a distribution: non-negative, its sum within MIX_SUM_TOLERANCE of 1
    lengths = np.repeat(ks, 3)
    firsts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    sums = np.add.reduceat(mixes, firsts) if len(rows) else np.zeros(0)
    bad = (np.abs(sums - 1) > MIX_SUM_TOLERANCE) | (np.minimum.reduceat(mixes, firsts) < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0]) // 3
        key = keys[rows[i][0]]
        raise SavedSolutionError(
            f"{path}: the stage game at hands {list(key[0])}, prizes {list(key[1])}, upcard "
            f"{rows[i][1]} has a mix that is not a distribution over {ks[i]} bids"
        )
    for i, (p, u, method) in enumerate(rows):
        at = (keys[p], u)
        if at in sol.stages:
            raise SavedSolutionError(f"{path}: the stage game {at} appears twice")
        k, o = int(ks[i]), int(starts[i])
        parts = (mixes[o : o + k], mixes[o + k : o + 2 * k], mixes[o + 2 * k : o + 3 * k])
        sol.stages[at] = StageSolution(parts, values[3 * i : 3 * i + 3], float(regrets[i]), method)
        sol.methods[method] = sol.methods.get(method, 0) + 1
    return values.reshape(-1, 3)


def _position_values(sol: ThreeSolution, values: np.ndarray, path) -> None:
    """Each position's value, as the induction forms it (np.mean over its upcards, in the
    order's order, of the stage values: the same sums in the same order, so the same
    floats), for the positions of each number of upcards at once; every upcard's stage
    game must be there, the start's included.  ``values``: the stage games' values, a
    row each, in the order of ``sol.stages``."""
    row = {at: i for i, at in enumerate(sol.stages)}
    ups: dict = {}
    for key, u in sol.stages:
        ups.setdefault(key, []).append(u)
    order = sol.game.order
    groups: dict[int, tuple[list, list]] = {}
    for key, have in ups.items():
        need = order.next_prizes(key[1])
        if sorted(have) != sorted(need):
            raise SavedSolutionError(f"{path}: the position {key} lacks a stage game")
        keys, rows = groups.setdefault(len(need), ([], []))
        keys.append(key)
        rows.append([row[(key, u)] for u in need])
    for keys, rows in groups.values():
        means = np.mean(values[np.array(rows)], axis=1)  # (positions, upcards, 3) -> (., 3)
        sol.values.update(zip(keys, means))
    if sol.root not in sol.values:
        raise SavedSolutionError(f"{path} has no stage game at the start")
