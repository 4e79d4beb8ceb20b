"""Time, memory and disk of a store solve, estimated before it starts (and refused early
when this machine cannot hold it).

The sizes are exact: a level of the points objective holds C(N, k) prize sets times
(P(N, k) + 1) / 2 columns, one per antisymmetric pair of hand patterns
(:func:`exact.game.encoding.column_count`; all P(N, k) under a controlled prize order),
float64 values, the win objective 2 offset_k + 1 leads of each
(:func:`exact.kernels.win.lead_offset`).  Disk is
the sum over the levels.  Memory: the solver maps the level below (copy-on-write) and the
level being built, so the levels live in the system's page cache, not in the process,
whose own memory stays small (0.31 GiB at N = 13); a machine whose memory holds the
largest pair of adjacent levels never rereads a page, and one that holds 70 % of the pair
ran N = 13 just as fast (a 1.2 GiB cgroup for a 1.71 GiB pair: 460 s against 479 s
unlimited; ``benchmarks/bench_store_memory.py``, RESULTS.md), as did N = 14 in a cgroup of
exactly that threshold (7.9 GiB: 46.1 minutes, the levels identical).  The estimate
states the first; the check refuses only below the second.  Both add the process's own
memory: BASE_MEMORY and the transition tables of every level, which the process holds
(:func:`tables_bytes`: 0.1 GiB at N = 13, 1.7 GiB at N = 15, 5.5 GiB at N = 16).
Time is a cost model: about k^2 per matrix game (the simplex's pivots times their
length), k games per item, one item per antisymmetric pair; the constant is fitted on
N = 13 (points) and N = 10 (win) on the 2-core machine and scaled by the cores available.
Estimates, good to about a factor of 2 (the 2-core machine's own speed varied 1.8x
between days): they decide whether to start, never what is computed.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from math import comb
from pathlib import Path

from exact.dp.objective import objective_of
from exact.errors import GopsInputError
from exact.game.encoding import column_count, pattern_count
from exact.game.objectives import POINTS, WIN
from exact.game.spec import GameSpec

GIB = 2**30
#: The process's own memory besides the transition tables (Python, numba, the kernels'
#: scratch), with a margin: 0.31 GiB was measured at N = 13, tables included (module
#: docstring), 254 MiB at N = 8.
BASE_MEMORY = 0.3 * GIB
#: The fraction of the largest pair of adjacent levels that the page cache must hold for
#: full speed: measured at N = 13 (points; the win objective maps its levels alike).
CACHE_FRACTION = 0.7
#: Core-seconds per unit of work (k^3 / 2 per prize set and pattern, per lead for win), by
#: objective.  Points: fitted on N = 13 (846 s on 2 cores); the same machine solved N = 12
#: in half the model's time on a faster day, so this errs on the long side (larger N also
#: cost more per unit: the level below outgrows the caches).  Win: N = 10 took 40 s on that
#: faster day, doubled likewise.
CORE_SECONDS_PER_UNIT = {POINTS: 1.92e-8, WIN: 9.5e-9}


@dataclass(frozen=True)
class Estimate:
    """What a store solve of N cards will take on a machine of ``cores`` cores."""

    n: int
    objective: str
    seconds: float
    memory_bytes: float  # the largest pair of levels in the page cache, plus the process's own
    disk_bytes: int
    cores: int
    minimum_bytes: float = 0.0  # CACHE_FRACTION of the pair, plus the process
    keep_from: int = 0  # the frontier mode's K: disk_bytes is then the peak of the solve

    def describe(self) -> str:
        kept = f" at most (levels {self.keep_from}..{self.n} kept)" if self.keep_from else ""
        took = "under 1 s" if self.seconds < 1 else f"about {format_duration(self.seconds)}"
        return (
            f"{took} on {self.cores} cores, {_memory(self.memory_bytes)} of memory (at least "
            f"{_memory(self.minimum_bytes)}), {_bytes(self.disk_bytes)} of disk{kept}"
        )


def _memory(count: float) -> str:
    """Memory in binary units: MiB below a GiB, GiB with one decimal above.

    >>> _memory(266_338_304), _memory(6.5 * GIB)
    ('254 MiB', '6.5 GiB')
    """
    return f"{count / GIB:.1f} GiB" if count >= GIB else f"{count / 2**20:.0f} MiB"


def _bytes(count: float) -> str:
    """Decimal units, as disks are sold: 2.4 MB, 14 GB.

    >>> _bytes(2_400_000), _bytes(14.4e9), _bytes(418e9)
    ('2.4 MB', '14.4 GB', '418 GB')
    """
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= size:
            value = count / size
            return f"{value:.0f} {unit}" if value >= 100 else f"{value:.1f} {unit}"
    return f"{count:.0f} bytes"


def format_duration(seconds: float) -> str:
    """A time as the estimate says it.

    >>> format_duration(95), format_duration(5400), format_duration(13 * 3600)
    ('95 s', '90 min', '13.0 h')
    """
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def level_bytes(game: GameSpec, k: int) -> int:
    """Bytes of level k's array in a store of the game (its objective's values per
    column: one, or one per lead), computed without building the level.

    >>> level_bytes(GameSpec.parse(13), 7), level_bytes(GameSpec.parse(14), 8)
    (310307712, 2418976560)
    """
    n = game.n
    columns = column_count(n, k, game.order.antisymmetric)
    return 8 * comb(n, k) * columns * objective_of(game).values_per_subgame(n, k)


def level_work(game: GameSpec, k: int) -> float:
    """The cost model's units of work of level k (module docstring): k^3 / 2 per prize
    set, pattern (both of each pair, as the constants were fitted) and lead; a known prize
    order solves one game per item instead of k, a controlled one every pattern (twice the
    items; exact.game.orders)."""
    n = game.n
    subgames = comb(n, k) * pattern_count(n, k) * objective_of(game).values_per_subgame(n, k)
    work = subgames * k**3 / 2
    order = game.order
    work *= len(order.upcard_indices(k)) / max(k, 1) if k else 1.0
    return work if order.antisymmetric else 2 * work


#: How far the work of the levels a position needs (``top``, :func:`check_in_memory`) may
#: exceed a whole game at the in-memory limit (exact.limits.SOLVE_MAX_N) before refused.
IN_MEMORY_SLACK = 1.25


def check_in_memory(game: GameSpec, top: int, limit: int, cores: int | None = None) -> None:
    """GopsInputError (one line, exit 2) if levels 0..top of ``game``, solved in memory
    for a position of a game larger than ``limit`` cards, would cost more than
    IN_MEMORY_SLACK times the whole ``limit``-card game by the cost model: such a
    position is read from a store instead.

    >>> check_in_memory(GameSpec.parse(14), 7, 13)
    >>> check_in_memory(GameSpec.parse(14), 13, 13, cores=2)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: this position needs levels 0 to 13 of 14-card GOPS, about 6.7
    times the work of the whole 13-card game that an in-memory solve is limited to (about
    95 min on 2 cores): solve it into a store (gops solve 14 --store DIR) and read it with
    --store DIR
    """
    work = sum(level_work(game, k) for k in range(top + 1))
    small = game.replace(n=limit, handicap=0)
    budget = sum(level_work(small, k) for k in range(limit + 1))
    if work <= IN_MEMORY_SLACK * budget:
        return
    cores = cores or os.cpu_count() or 1
    seconds = work * CORE_SECONDS_PER_UNIT[game.objective] / cores
    raise GopsInputError(
        f"this position needs levels 0 to {top} of {game.n}-card GOPS, about "
        f"{work / budget:.1f} times the work of the whole {limit}-card game that an "
        f"in-memory solve is limited to (about {format_duration(seconds)} on {cores} "
        f"cores): solve it into a store (gops solve {game.command_flags()} --store DIR) "
        "and read it with --store DIR"
    )


def tables_bytes(game: GameSpec) -> int:
    """Bytes of the transition tables that a solve holds in its own memory (not in the page
    cache), computed without building them: every level's tables
    (:func:`exact.game.encoding.build_levels`: child and sign, 5 k^2 bytes a pattern; the
    key and swap, 12 bytes, and the column maps of the level and of its children, 7 bytes
    each with antisymmetry, 9 without; the prize tables, 8 + 8 k bytes a prize set), plus
    the largest level's child-column table (:func:`exact.kernels.points.child_columns`:
    5 k^2 bytes a solved pattern, and its 4 k^2 child ranks while it is built).  1.29 +
    0.42 GiB at N = 15, whose solve held 1.4 GiB of private memory in level 8 (RESULTS.md).

    >>> round(tables_bytes(GameSpec.parse(15)) / 2**30, 2)
    1.71
    """
    n = game.n
    antisymmetric = game.order.antisymmetric
    column_maps = 7 if antisymmetric else 9  # Columns: patterns, column (int32), mirror
    levels = 0
    child_columns = 0
    for k in range(n + 1):
        patterns = pattern_count(n, k)
        levels += patterns * (5 * k * k + 12 + 2 * column_maps) + comb(n, k) * (8 + 8 * k)
        child_columns = max(child_columns, 9 * k * k * column_count(n, k, antisymmetric))
    return levels + child_columns


def frontier_disk_bytes(sizes: list[int], keep_from: int) -> int:
    """The most bytes of level files on disk at once in a solve that keeps the levels
    ``keep_from``..N only (level j < K deleted once level j + 1 is complete): while level
    k is built, the kept levels below it, level k - 1 and level k itself.

    >>> frontier_disk_bytes([1, 10, 100, 10, 1], 3), frontier_disk_bytes([1, 10, 100, 10, 1], 0)
    (110, 122)
    """
    peak = 0
    for k in range(len(sizes)):
        held = set(range(keep_from, k)) | {k - 1, k} - {-1}
        peak = max(peak, sum(sizes[j] for j in held))
    return peak


def estimate(
    game: GameSpec,
    cores: int | None = None,
    keep_from: int | None = None,
    below_in_memory: bool = False,
) -> Estimate:
    """The :class:`Estimate` of ``gops solve N --store`` (module docstring); with
    ``keep_from`` K, of ``--keep-from K``: its disk the peak of :func:`frontier_disk_bytes`;
    with ``below_in_memory`` too, the disk levels K..N only, and the levels below K held
    in the process's own memory (:func:`frontier_memory_bytes`: needed whole, not 70 %)."""
    if below_in_memory and keep_from:
        return _in_memory_estimate(game, cores, keep_from)
    n = game.n
    cores = cores or os.cpu_count() or 1
    sizes = [level_bytes(game, k) for k in range(n + 1)]
    pair = max((sizes[k - 1] + sizes[k] for k in range(1, n + 1)), default=sizes[0])
    work = sum(level_work(game, k) for k in range(n + 1))
    seconds = work * CORE_SECONDS_PER_UNIT[game.objective] / cores
    process = BASE_MEMORY + tables_bytes(game)
    return Estimate(
        n,
        game.objective.name,
        seconds,
        pair + process,
        frontier_disk_bytes(sizes, keep_from) if keep_from else sum(sizes),
        cores,
        CACHE_FRACTION * pair + process,
        keep_from or 0,
    )


def frontier_memory_bytes(sizes: list[int], keep_from: int, cache: float = 1.0) -> float:
    """The most bytes of levels held at once by a solve that builds the levels below
    ``keep_from`` K in memory only: while level k < K is built, levels k - 1 and k in the
    process's memory; while K is built, K - 1 there and K in the page cache; above, a pair
    of level files in the page cache.  ``cache``: the share of the page cache's part
    counted (CACHE_FRACTION for the least a machine may hold).

    >>> frontier_memory_bytes([1, 10, 100, 10, 1], 3), frontier_memory_bytes([1, 10, 100, 10, 1], 2)
    (110.0, 110.0)
    >>> frontier_memory_bytes([1, 10, 100, 10, 1], 2, cache=0.5)
    60.0
    """
    below = [sizes[k - 1] + sizes[k] for k in range(1, keep_from)]
    at = sizes[keep_from - 1] + cache * sizes[keep_from]
    above = [cache * (sizes[k - 1] + sizes[k]) for k in range(keep_from + 1, len(sizes))]
    return float(max([*below, at, *above]))


def _in_memory_estimate(game: GameSpec, cores: int | None, keep_from: int) -> Estimate:
    """:func:`estimate` of ``--keep-from K --below-in-memory``: the disk levels K..N."""
    base = estimate(game, cores)
    sizes = [level_bytes(game, k) for k in range(game.n + 1)]
    process = BASE_MEMORY + tables_bytes(game)
    return Estimate(
        game.n,
        base.objective,
        base.seconds,
        frontier_memory_bytes(sizes, keep_from) + process,
        sum(sizes[keep_from:]),
        base.cores,
        frontier_memory_bytes(sizes, keep_from, CACHE_FRACTION) + process,
        keep_from,
    )


def work_left(game: GameSpec, stored, level: int | None, items: int, total: int) -> float:
    """The fraction of the cost model's work (:func:`level_work`) that a solve into a
    store still has to do: every level not ``stored``, less the ``items`` of ``total``
    already finished in ``level`` (the first level not stored).

    >>> game = GameSpec.parse(9)
    >>> work_left(game, range(10), None, 0, 0), work_left(game, (), 0, 0, 1)
    (0.0, 1.0)
    """
    work = [level_work(game, k) for k in range(game.n + 1)]
    stored = set(stored)
    left = sum(w for k, w in enumerate(work) if k not in stored)
    if level is not None and total:
        left -= work[level] * items / total
    return left / sum(work)


def memory_total() -> int:
    """Physical memory of this machine in bytes."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def disk_free(root) -> int:
    """Free bytes on the file system that holds (or will hold) ``root``."""
    path = Path(root).resolve()
    while not path.exists():
        path = path.parent
    return shutil.disk_usage(path).free


def stored_bytes(root) -> int:
    """Bytes of the level files already in a store (a resume needs only the rest)."""
    root = Path(root)
    if not root.is_dir():
        return 0
    return sum(p.stat().st_size for p in root.glob("level-*.npy") if p.is_file())


def check_fits(
    est: Estimate, root, cluster: bool = False, memory: int | None = None, free: int | None = None
) -> None:
    """GopsInputError (one line, exit 2) naming what is short if this machine cannot run
    the solve: memory (not checked for a cluster, whose workers hold parts) or disk."""
    memory = memory_total() if memory is None else memory
    free = disk_free(root) if free is None else free
    disk_needed = max(0, est.disk_bytes - stored_bytes(root))
    short = []
    if not cluster and est.minimum_bytes > 0.9 * memory:
        short.append(
            f"memory: at least {est.minimum_bytes / GIB:.1f} GiB needed, "
            f"{memory / GIB:.1f} GiB here"
        )
    if disk_needed > free:
        short.append(
            f"disk: about {_bytes(disk_needed)} more needed in {root}, {_bytes(free)} free"
        )
    if short:
        hint = (
            "use a store on a larger disk"
            if cluster
            else "run it on a Dask cluster with --cluster (docs/beyond-one-machine.md)"
        )
        raise GopsInputError(
            f"N={est.n} ({est.objective}) does not fit this machine: {'; '.join(short)}; {hint}"
        )
