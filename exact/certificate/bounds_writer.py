"""Write bound certificates of the float solver (format: certificates/FORMAT.md, "Bound
certificates").

The float solver (:func:`exact.dp.drivers.solve_float_levels`) proves per level k a radius
r_k with |f_float - f_exact| <= r_k for every canonical subgame of level k
(:mod:`exact.kernels.bounds`).  A bound certificate lets the independent checker
(``certificates``) verify those radii without trusting the float code: it carries, per
record (one per antisymmetric pair, as in the exact certificate), the float value the
solver stored and, per upcard, the float strategies x, y the kernel used; per level the
claimed radius.  Every float is written exactly, as the 64 bits of its IEEE-754 binary64
encoding in a msgpack unsigned int.

The strategies are recomputed here, game by game, exactly as the kernel computes them:
the same matrix (:func:`exact.kernels.points.fill_matrix`, from the same float level
below), the same compiled solver (:func:`exact.kernels.matrix_game.solve_game_unchecked`) and
the same polish of near-degenerate games (:func:`exact.kernels.bounds.certified_game`),
whose strategies are the ones written.
The writer checks that the mean of the recomputed game values equals the stored value
bit for bit and counts the records where it does not (``stats.extra["mismatches"]``,
0 in every run so far); either way it writes what it computed and the checker judges.

Atomic, as :mod:`exact.certificate.writer`: records go to ``FILE.tmp``, which is
flushed, fsynced and renamed to ``FILE`` only after the footer.
"""

from __future__ import annotations

import struct
import time
from pathlib import Path

import msgpack

from exact.atomic import atomic_file
from exact.certificate.writer import RULES
from exact.dp.drivers import solve_float_levels
from exact.dp.objective import PointsObjective
from exact.dp.solution import Solution
from exact.dp.solve import parse_game, points_stats
from exact.errors import GopsInputError
from exact.game.encoding import KEY_SHIFT, build_levels
from exact.game.objectives import FLOAT, POINTS
from exact.game.spec import GameSpec
from exact.kernels.bounds import certified_game
from exact.kernels.matrix_game import game_buffers, solve_game_unchecked
from exact.kernels.points import fill_matrix
from exact.limits import BOUNDS_MAX_N, check_n

BOUND_MAGIC = "GOPS-BOUND-CERTIFICATE"
BOUND_VERSION = 1

_PACK_DOUBLE = struct.Struct("<d")
_UNPACK_BITS = struct.Struct("<Q")


def float_bits(v: float) -> int:
    """The IEEE-754 binary64 encoding of ``v`` as an unsigned 64-bit integer.

    >>> float_bits(1.0) == 0x3FF0000000000000, float_bits(-0.0) == 1 << 63
    (True, True)
    """
    return _UNPACK_BITS.unpack(_PACK_DOUBLE.pack(v))[0]


def _vector_bits(v, k: int) -> list[int]:
    return [float_bits(float(v[i])) for i in range(k)]


def _games(level, below, r: int, p: int, A, x, y) -> tuple[list, float]:
    """The games ``[u, x bits, y bits]`` of record (r, p), in increasing upcard order,
    and the kernel's value of the record (the mean of the game values, summed m = 0..k-1
    as :func:`exact.kernels.points.solve_items` sums them)."""
    k = level.k
    games = []
    acc = 0.0
    children = level.below_columns()
    for m in range(k):
        fill_matrix(
            A,
            k,
            p,
            r,
            m,
            level.child,
            level.sign,
            level.prize_child,
            level.prize_card,
            below,
            children.column,
            children.mirror,
        )
        v, _ = certified_game(A, k, x, y, solve_game_unchecked(A, k, x, y))
        acc += v
        games.append([int(level.prize_card[r, m]), _vector_bits(x, k), _vector_bits(y, k)])
    return games, acc / k


def certify_bounds(n: int, path, progress=None) -> Solution:
    """Solve n-card GOPS in floating point (points objective) and write the bound
    certificate of its values and certified radii to ``path`` (atomically).

    Returns the float Solution; ``stats.extra`` holds ``records``,
    ``certificate_bytes``, ``mismatches`` and ``write_seconds``.
    """
    n = parse_game(n, POINTS, FLOAT).n
    check_n(n, BOUNDS_MAX_N, what=" for a bound certificate")
    path = Path(path)
    if path.is_dir():
        raise GopsInputError(f"{path} is a directory")
    t0 = time.perf_counter()
    levels = build_levels(n)
    objective = PointsObjective()
    sink, games_solved = solve_float_levels(objective, levels, progress)
    values, radii = sink.values, sink.radii
    t_write = time.perf_counter()
    packer = msgpack.Packer(use_bin_type=True)
    full = (1 << n) - 1
    records = mismatches = 0
    with atomic_file(path) as fh:
        fh.write(
            packer.pack(
                {
                    "magic": BOUND_MAGIC,
                    "version": BOUND_VERSION,
                    "rules": RULES,
                    "objective": POINTS.name,
                    "n": n,
                    "root": [full, full, full],
                }
            )
        )
        for level in levels:
            written, wrong = _write_level(fh, packer, objective, level, values, radii, progress)
            records += written
            mismatches += wrong
        root_value = float(values[n][0, 0])
        fh.write(
            packer.pack({"end": True, "records": records, "root_value": float_bits(root_value)})
        )
    extra = {
        "records": records,
        "certificate_bytes": path.stat().st_size,
        "mismatches": mismatches,
        "write_seconds": time.perf_counter() - t_write,
        "radii": list(radii),
    }
    stats = points_stats(levels, t0, extra)
    return Solution(GameSpec.parse(n), levels, values, stats, radii=radii, objective=objective)


def _write_level(fh, packer, objective, level, values, radii, progress) -> tuple[int, int]:
    """Write a level's header and its records (FORMAT.md), one per record pattern and
    prize set, each with its games recomputed from the level below; the records written
    and how many game means differ bit for bit from the stored value."""
    k = level.k
    patterns = level.record_patterns
    radius = float_bits(radii[k])
    fh.write(
        packer.pack({"level": k, "records": level.prize_sets * len(patterns), "radius": radius})
    )
    below = values[k - 1] if k else None
    A, x, y = game_buffers(max(k, 1))
    low = (1 << KEY_SHIFT) - 1
    records = mismatches = 0
    for r in range(level.prize_sets):
        prizes = int(level.prize_masks[r])
        for p in patterns:
            p = int(p)
            key = int(level.pattern_keys[p])
            value = float(values[k][r, level.columns().column[p]])  # a record's column
            games: list = []
            if p != level.swap[p]:  # identical hands: value 0, no game
                games, mean = _games(level, below, r, p, A, x, y)
                mismatches += float_bits(mean) != float_bits(value)
            fh.write(packer.pack([key & low, key >> KEY_SHIFT, prizes, float_bits(value), games]))
            records += 1
        if progress is not None and k:
            progress(level, objective.progress_done(level, level.prize_sets, r, r + 1))
    return records, mismatches
