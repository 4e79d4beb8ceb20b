"""Saved three-player solutions: one file holds a solve's every stage game, checked on load.

FORMAT (version 1).  The file is one xz stream (``lzma``, the standard library) of UTF-8
text in two parts, separated by the first newline:

1. the header, one JSON object::

       {"format": "gops-three-solution", "version": 1, "sha256": "<64 hex digits>",
        "game": {"players": 3, "n": 5, "tie_rule": "split", "objective": "points",
                 "order": "random"},
        "nashconv": {"bound": 1.2e-12, "estimate": ..., "depth": ..., "positions": ...},
        "stage_games": 8115}

2. the body, one JSON object, whose exact bytes ``sha256`` is the SHA-256 of::

       {"game": {...the header's game...},
        "nashconv": {...the header's nashconv...},
        "solved": {"seconds": ..., "cpu_seconds": ..., "peak_rss_bytes": ...,
                   "methods": {"logit": ..., ...}},
        "stages": [[hands, prizes, points, upcard, mixes, values, regret, method], ...]}

   one entry per stage game of :mod:`exact.three.induction` (a canonical position of
   :mod:`exact.three.canonical` and its upcard): ``hands`` three lists of card ranks,
   ``prizes`` the prizes left (ascending, the upcard included), ``points`` the points so
   far in half points less the smallest (all 0 under ``points``), ``mixes`` three lists of
   k probabilities (canonical player j's mix over their hand, ascending), ``values`` the
   stage's payoff to each canonical player, ``regret`` its float stage regret and
   ``method`` how it was found (:class:`~exact.three.stage.StageSolution`).

Why JSON in xz: the standard library reads and writes it (no new dependency), ``xz -dc
FILE | head -1`` shows what a file is, Python's float ``repr`` makes every stored float
read back bit for bit (so a loaded solution's NashConv equals the solved one's exactly),
and xz brings the 5-card solution to about 0.3 MB and loads it in a tenth of a second
(benchmarks/three_saved.py).

:func:`load` checks everything before it answers: the xz stream (at most
:data:`MAX_TEXT_BYTES` of text), the format and version, the SHA-256 of the body, the
game (the header's and the body's alike, and one :meth:`ThreeGame.parse` accepts), and
each stage: its shape, a canonical key (:func:`~exact.three.canonical.canonical` gives
it back), an upcard among its prizes, no key twice, every upcard of each position and of
the start present, and each mix a distribution (finite, non-negative, summing to 1 within
:data:`MIX_SUM_TOLERANCE`; the policy judged is each mix scaled by its own sum, as
:mod:`exact.three.nashconv` judges it).  A file failing any check is one
:class:`SavedSolutionError` line (the CLI's exit 2).  The stored NashConv is a claim:
``gops verify FILE`` proves it again from the mixes (:func:`exact.three.certify`).
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
#: The most text a file may expand to: the 6-card solution is about 20 MB, the 7-card one
#: (917,616 stage games) projected at about 300 MB; anything beyond is refused unread.
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
    """A stage game as the list of the FORMAT (floats as Python writes them: exact)."""
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


def decode_stage(
    row, game: ThreeGame, canonical_keys: set | None = None
) -> tuple[tuple[Key, int], StageSolution]:
    """A stage game of the FORMAT, checked (shape, canonical key, each mix a
    distribution); any fault is one SavedSolutionError line naming the stage.
    ``canonical_keys``: keys found canonical already (each position has a stage game per
    upcard), added to."""
    if not isinstance(row, list) or len(row) != 8:
        raise SavedSolutionError("a stage game is not a list of 8 entries")
    hands_raw, prizes_raw, units_raw, upcard, mixes_raw, values_raw, regret, method = row
    prizes = _ints(prizes_raw, "a stage game's prizes")
    k = len(prizes)
    where = f"the stage game at prizes {list(prizes)}, upcard {upcard}"
    if not isinstance(hands_raw, list) or len(hands_raw) != 3:
        raise SavedSolutionError(f"{where}: its hands are not three lists")
    hands = tuple(_ints(h, f"{where}: a hand") for h in hands_raw)
    units = _ints(units_raw, f"{where}: the points")
    if (
        k == 0
        or list(prizes) != sorted(set(prizes))
        or not 1 <= prizes[0] <= prizes[-1] <= game.n
        or type(upcard) is not int
        or upcard not in prizes
    ):
        raise SavedSolutionError(f"{where}: not prizes of the {game.n}-card game and one of them")
    if any(len(h) != k or any(c < 1 for c in h) for h in hands) or len(units) != 3:
        raise SavedSolutionError(f"{where}: hands or points of the wrong shape")
    if any(u < 0 for u in units) or (not game.top and any(units)):
        raise SavedSolutionError(f"{where}: points that this game's positions do not carry")
    key: Key = (hands, prizes, units)
    if canonical_keys is None or key not in canonical_keys:
        if canonical(hands, prizes, units)[0] != key:
            raise SavedSolutionError(f"{where}: hands {hands_raw} are not in canonical form")
        if canonical_keys is not None:
            canonical_keys.add(key)
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
    stages = [encode_stage(key, u, st) for (key, u), st in sol.stages.items()]
    body = {
        "game": sol.game.to_json(),
        "nashconv": nashconv,
        "solved": {
            "seconds": round(sol.seconds, 3),
            "cpu_seconds": round(sol.cpu_seconds, 3),
            "peak_rss_bytes": sol.peak_rss_bytes,
            "methods": dict(sorted(sol.methods.items())),
        },
        "stages": stages,
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
    if body.get("nashconv") != header["nashconv"] or not isinstance(body.get("stages"), list):
        raise SavedSolutionError(f"{path}: the body's NashConv or stages are missing")
    game = _game(body["game"], path)
    sol = ThreeSolution(game)
    solved = body.get("solved")
    if isinstance(solved, dict):
        sol.seconds = float(solved.get("seconds", 0))
        sol.cpu_seconds = float(solved.get("cpu_seconds", 0))
        sol.peak_rss_bytes = int(solved.get("peak_rss_bytes", 0))
    keys: set = set()
    for row in body["stages"]:
        at, st = decode_stage(row, game, keys)
        if at in sol.stages:
            raise SavedSolutionError(f"{path}: the stage game {at} appears twice")
        sol.stages[at] = st
        sol.methods[st.method] = sol.methods.get(st.method, 0) + 1
    _position_values(sol, path)
    return SavedSolution(sol, header["nashconv"], header["sha256"], path)


def _position_values(sol: ThreeSolution, path) -> None:
    """Each position's value, as the induction forms it: the mean over its upcards of
    the stage values (every upcard's stage must be there), the start's included."""
    ups: dict = {}
    for key, u in sol.stages:
        ups.setdefault(key, []).append(u)
    order = sol.game.order
    for key, have in ups.items():
        need = order.next_prizes(key[1])
        if sorted(have) != sorted(need):
            raise SavedSolutionError(f"{path}: the position {key} lacks a stage game")
        vals = [sol.stages[(key, u)].values for u in need]
        sol.values[key] = np.mean(vals, axis=0)
    if sol.root not in sol.values:
        raise SavedSolutionError(f"{path} has no stage game at the start")
