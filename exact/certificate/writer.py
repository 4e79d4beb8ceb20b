"""Write LP-duality certificates of exact GOPS solutions (format: certificates/FORMAT.md).

Both objectives: "points" (records ``[mine, theirs, prizes, value, games]``) and "win"
(records ``[mine, theirs, prizes, lead, value, games]``), as
:func:`exact.dp.drivers.solve_rational_levels` produces them.

The writer streams: records are packed as the exact solver produces them, into
``FILE.tmp``; the footer is written, the file flushed and fsynced, and only then renamed
to ``FILE``.  An interrupted run leaves at most a ``.tmp`` file, never a file that looks
complete, and never touches an existing ``FILE``.
"""

from __future__ import annotations

import time
from pathlib import Path

import msgpack
import numpy as np
from flint import fmpq

from exact.atomic import atomic_file
from exact.dp.drivers import solve_rational_levels
from exact.dp.objective import PointsObjective, WinObjective
from exact.dp.solution import Solution
from exact.dp.solve import parse_game, points_stats
from exact.errors import GopsInputError
from exact.game.encoding import KEY_SHIFT, build_levels
from exact.game.objectives import GameObjective
from exact.kernels.win import lead_limits

FORMAT_VERSION = 1
MAGIC = "GOPS-CERTIFICATE"
RULES = "gops-2p-ties-discarded-random-prizes"
_INT64 = 1 << 63


def pack_integer(a):
    """An Integer of FORMAT.md: msgpack int if it fits in int64, else two's-complement bytes."""
    a = int(a)
    if -_INT64 <= a < _INT64:
        return a
    # Minimal two's-complement length: one sign bit beyond the magnitude bits of a (or ~a).
    return a.to_bytes((a if a >= 0 else ~a).bit_length() // 8 + 1, "big", signed=True)


def pack_rational(a: fmpq):
    return [pack_integer(a.p), pack_integer(a.q)]


def pack_vector(numerators, denominator):
    """A probability vector as [numerators, common denominator]."""
    return [[pack_integer(a) for a in numerators], pack_integer(denominator)]


def _pack_games(games):
    return [
        [
            u,
            pack_vector(eq.x_num, eq.x_den),
            pack_vector(eq.y_num, eq.y_den),
            pack_rational(eq.value),
        ]
        for u, eq in games
    ]


def _pattern(level, p):
    key = int(level.pattern_keys[p])
    return key & ((1 << KEY_SHIFT) - 1), key >> KEY_SHIFT


def _record(level, p, r, lead, value, games):
    """A record of FORMAT.md; the lead field only for objectives with a lead."""
    mine, theirs = _pattern(level, p)
    lead_field = [] if lead is None else [pack_integer(lead)]
    return [
        mine,
        theirs,
        int(level.prize_masks[r]),
        *lead_field,
        pack_rational(value),
        _pack_games(games),
    ]


def win_record_count(level) -> int:
    """Records of a level for the win objective (FORMAT.md): per prize set, with
    lim = min(sum P, T - sum P), 2 lim + 1 leads per pattern with theirs < mine and
    lim + 1 (leads 0..lim) for identical hands; level 0 has none."""
    if level.k == 0:
        return 0
    patterns = level.record_patterns
    identical = int(np.count_nonzero(level.swap[patterns] == patterns))
    others = len(patterns) - identical
    limits = lead_limits(level).astype(np.int64)
    return int(np.sum(others * (2 * limits + 1) + identical * (limits + 1)))


def certify(n: int, path, objective: str | GameObjective = "points", progress=None) -> Solution:
    """Solve n-card GOPS exactly and write its certificate to ``path`` (atomically).

    Returns the exact Solution (its ``stats.extra`` holds the solver path counts).
    """
    game = parse_game(n, objective, "rational")
    n = game.n
    path = Path(path)
    if path.is_dir():
        raise GopsInputError(f"{path} is a directory")
    levels = build_levels(n)
    t0 = time.perf_counter()
    packer = msgpack.Packer(use_bin_type=True)
    full = (1 << n) - 1
    records = 0
    with atomic_file(path) as fh:
        fh.write(
            packer.pack(
                {
                    "magic": MAGIC,
                    "version": FORMAT_VERSION,
                    "rules": RULES,
                    "objective": game.objective.name,
                    "n": n,
                    "root": [full, full, full],
                }
            )
        )
        current: dict[str, int | None] = {"level": None}
        win = game.has_lead
        # Win certificates also carry the identical hands at lead 0 (the root is one).
        spec = WinObjective(zero_lead=True) if win else PointsObjective()

        def on_record(level, p, r, lead, value, games):
            nonlocal records
            if current["level"] != level.k:
                current["level"] = level.k
                count = (
                    win_record_count(level)
                    if win
                    else level.prize_sets * len(level.record_patterns)
                )
                fh.write(packer.pack({"level": level.k, "records": count}))
            fh.write(packer.pack(_record(level, p, r, lead, value, games)))
            records += 1

        if win:  # no prize left: every lead is decided, level 0 has no record
            current["level"] = 0
            fh.write(packer.pack({"level": 0, "records": 0}))
        values, extra = solve_rational_levels(spec, levels, progress, on_record)
        root_value = spec.get(values[n], levels[n], 0, 0, 0 if win else None)
        fh.write(
            packer.pack({"end": True, "records": records, "root_value": pack_rational(root_value)})
        )
    extra = dict(extra, certificate_bytes=path.stat().st_size, records=records)
    stats = points_stats(levels, t0, extra)
    return Solution(game, levels, values, stats, objective=spec)
