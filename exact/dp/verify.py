"""A store re-derived: what makes its values and radii worth believing.

A store's SHA-256 checksums detect accidents, not edits: whoever edits a level file can
edit the manifest too.  What a store claims (every value of level k within the radius
r_k of the exact value) is therefore proved here again, from nothing but the level below,
by the solver's own kernels (:mod:`exact.kernels.points`, :mod:`exact.kernels.win`).

The argument, by induction on k (Rhoads & Bartholdi 2012, sec 3: level k is a function of
level k - 1 only):

- level 0 is the empty game (points 0, win sign(L)): exact, r_0 = 0;
- if every stored value of level k - 1 lies within r_{k-1} of the exact one, re-deriving
  an item of level k from the stored level k - 1 gives values v with |v - f*| <= b, the
  kernel's certified bound of that item (:mod:`exact.kernels.bounds`); the stored value s
  then satisfies |s - f*| <= b + |s - v|.

A level *passes* when every stored value is within b of the one re-derived here (a
stored value farther from it than its own error bound was not written by a solve), when
every value that needs no game is what the rules say (the empty-level template), and when
the manifest's radius r_k covers max(b + |s - v|) without being looser than
``RADIUS_SLACK`` times it (a radius this solver did not write: edited).  Each level is
checked against the manifest's radius of the level below, so the levels can be verified
in any order, in any number of runs (``levels=``), on any number of machines; once every
level has passed, every manifest radius is proved by the induction above.

``sample`` re-derives that many random items per level instead of all: a spot check of a
downloaded store in seconds, not a proof.

A store with levels a device wrote (:mod:`exact.cuda`, the manifest's ``backend``) is
re-derived here on the CPU, but its bits may differ (a fused multiply-add) and its radii
are the device's own directed-rounding bounds, tighter than the CPU kernels' bound: the
recorded r_k cannot be re-derived.  Such a store is checked in the *proved-radius* mode:
the levels in order, each re-derived from the level below with the radius proved for it
here (rho_{k-1}; for the lowest level checked, the recorded r_{k-1}: the premise), a
device's value accepted when within b + r_k of the re-derived one (the two enclosures of
the exact value meet; farther: not written by a solve) and a CPU's within b as above; the
level's proved radius is rho_k = max(b + |s - v|), by the induction above.  The verdict
then states rho_k beside r_k.  A store of CPU levels only is checked as above, bit for bit
and radius for radius.

A frontier store (``gops solve --keep-from K``, :mod:`exact.dp.store`) keeps the files of
levels K..N only: levels K + 1..N are re-derived as above, each from the stored level
below; level K, whose level below is gone, only for its checksum and the values the rules
fix.  What is proved is then conditional: every kept value lies within its level's radius
of the exact value *given* that level K's stored values lie within r_K (which the solve
proved from the dropped levels, and no check can redo).  So a claim read from a frontier
store always names that condition, and ``--rederive`` (a claim with none) is refused
there (:func:`check_position`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from exact.dp.cluster import connect, parts_of, use_threads, worker_threads
from exact.dp.device import recorded_bit_exact
from exact.dp.reads import RADIUS_SLACK as RADIUS_SLACK
from exact.dp.reads import (
    ReadCheck,
    backend_words,
    check_reads,
    position_reads,
    radius_problem,
    store_of,
)
from exact.dp.rederive import (
    LevelVerifier,
    PartCheck,
    check_items,
    check_rows,
    fixed_problem,
    pick_items,
)
from exact.dp.store import (
    Store,
    StoreContradicted,
    StoreError,
    file_sha256,
    require_regular_file,
)
from exact.errors import GopsInputError

#: Kernel items re-derived per call of the kernel (a progress update each).
CHUNK_ITEMS = 1 << 16


@dataclass(frozen=True)
class Discrepancy:
    """The first stored value (or radius) of a level that the re-derivation contradicts."""

    k: int
    what: str

    def __str__(self) -> str:
        return f"level {self.k}: {self.what}"


@dataclass(frozen=True)
class LevelCheck:
    """The verdict on one level: ``items`` kernel items re-derived (of ``total``),
    ``difference`` the largest |stored - re-derived|, ``needed`` the radius the stored
    values need (max of bound + difference), ``recorded`` the manifest's radius."""

    k: int
    items: int
    total: int
    difference: float
    needed: float
    recorded: float
    seconds: float
    bad: Discrepancy | None = None
    #: What computed the level ("cpu", "cuda", "cuda-simulator", with the device's name).
    backend: str = "cpu"
    #: The level was taken as stored (its level below was dropped: --keep-from): only its
    #: checksum and the values the rules fix were checked.
    premise: bool = False

    @property
    def passed(self) -> bool:
        return self.bad is None

    @property
    def proved(self) -> float:
        """The radius proved for the level here (given the level below within the radius it
        was re-derived with): the recorded one for a premise."""
        return self.recorded if self.premise else self.needed


@dataclass
class StoreVerdict:
    """Every level checked by :func:`verify_store`, in order; ``bad`` the first failure."""

    root: Path
    n: int
    objective: str
    order: str
    sample: int | None
    checked: list[LevelCheck] = field(default_factory=list)
    #: The frontier store's K (0: every level kept).
    keep_from: int = 0
    #: Whether levels a device wrote were checked in the proved-radius mode (module
    #: docstring); the device levels' backends, in words.
    proved_mode: bool = False
    devices: tuple[str, ...] = ()

    @property
    def bad(self) -> Discrepancy | None:
        return next((c.bad for c in self.checked if c.bad is not None), None)

    @property
    def complete(self) -> bool:
        """Every level 0..n re-derived in full (a proof, not a spot check)."""
        return (
            self.sample is None
            and self.keep_from == 0
            and {c.k for c in self.checked} == set(range(self.n + 1))
        )


def open_level_pair(store: Store, k: int, radius_below: float | None = None) -> LevelVerifier:
    """The verifier of level k: the stored level k and, mapped copy-on-write, k - 1 with
    ``radius_below`` (default the manifest's radius; StoreError if it has none); a level a
    device wrote is compared within its recorded radius too (``slack``, rederive.py).  A
    level whose level below was dropped gets no level below (its items cannot be
    re-derived)."""
    stored = store.load_level(k, verify=False, mode="r")
    below, rb = None, 0.0
    if k > 0 and not store.is_dropped(k - 1):
        below = store.load_level(k - 1, verify=False, mode="c")
        rb = store.radius(k - 1) if radius_below is None else radius_below
    slack = 0.0 if recorded_bit_exact(store.backend_of_level(k)) else store.radius(k)
    return LevelVerifier(store.objective, store.levels[k], stored, below, rb, slack)


def checksum_problem(store: Store, k: int) -> str | None:
    """Whether level k's file has the manifest's checksum (StoreError if it is no regular
    file: reading a FIFO would block)."""
    path = store.level_path(k)
    require_regular_file(path)
    if file_sha256(path) != store.sha256(k):
        return "the level file does not match the manifest's checksum: the store is corrupted"
    return None


def level_verdict(
    k: int,
    total: int,
    parts: list[PartCheck],
    recorded: float,
    sampled: bool,
    seconds: float,
    bad: str | None = None,
    judge: bool = True,
) -> LevelCheck:
    """One level's verdict, the one builder of every LevelCheck (the full proof, its Dask
    version, the sample): ``bad`` if given (a problem found before any item), else the
    first bad part (in row order), else (unless not ``judge``: a device's radius) the
    radius the parts need against ``recorded``."""
    needed = max((p.needed for p in parts), default=0.0)
    bad = bad or next((p.bad for p in parts if p.bad is not None), None)
    if bad is None and judge:
        bad = radius_problem(recorded, needed, sampled)
    return LevelCheck(
        k=k,
        items=sum(p.items for p in parts),
        total=total,
        difference=max((p.difference for p in parts), default=0.0),
        needed=needed,
        recorded=recorded,
        seconds=seconds,
        bad=None if bad is None else Discrepancy(k, bad),
    )


def check_level(
    store: Store,
    k: int,
    sample: int | None = None,
    rng=None,
    progress=None,
    radius_below: float | None = None,
    proved_mode: bool = False,
) -> LevelCheck:
    """Re-derive level k of the store from its level k - 1 (module docstring), with
    ``radius_below`` (default the manifest's); ``proved_mode``: the recorded radius is not
    judged, the proved one reported (a store with levels a device wrote)."""
    t0 = time.perf_counter()
    recorded = store.radius(k)
    verifier = open_level_pair(store, k, radius_below)  # unreadable: exit 2
    level = verifier.level
    total = level.prize_sets * verifier.per_row if k > 0 else 0
    backend = backend_words(store.backend_of_level(k))
    bad = checksum_problem(store, k) or fixed_problem(verifier)
    if bad is not None or (k > 0 and verifier.below is None):  # its level below dropped
        check = level_verdict(k, total, [], recorded, True, 0.0, bad=bad)
        return replace(check, items=0, needed=recorded, premise=True, backend=backend)
    picked = pick_items(total, sample, rng)
    parts = []
    if picked is None:  # every item: the whole level, or a sample of a small one
        for r0, r1 in parts_of(level, verifier.per_row, CHUNK_ITEMS):
            parts.append(check_rows(verifier, r0, r1))
            if parts[-1].bad is not None:
                break
            if progress is not None:
                progress(level, parts[-1].items, total)
    else:
        parts = check_items(verifier, picked)
        if progress is not None:
            progress(level, len(parts), len(parts))
    sampled = picked is not None or proved_mode  # proved mode: no radius is understated
    seconds = time.perf_counter() - t0
    check = level_verdict(k, total, parts, recorded, sampled, seconds, judge=not proved_mode)
    return replace(check, backend=backend)


def verify_part(root: str, k: int, r0: int, r1: int, threads: int | None) -> PartCheck:
    """Rows [r0, r1) of level k of the store at ``root`` re-derived: a Dask task (the
    store on a file system every worker mounts at the same path)."""
    use_threads(threads)
    return check_rows(open_level_pair(Store.open(root), k), r0, r1)


def check_levels_on_cluster(
    store: Store, wanted: list[int], cluster: str, on_level=None
) -> list[LevelCheck]:
    """Every part of every wanted level at once on Dask (each level needs only the stored
    level below and its manifest radius, so all levels run side by side); the verdicts
    in level order."""
    client, local = connect(cluster)
    threads = worker_threads(cluster)
    objective, levels, root = store.objective, store.levels, store.root
    checks = []
    try:
        futures, t0 = {}, time.perf_counter()
        for k in wanted:
            per_row = int(objective.item_patterns(levels[k]).shape[0])
            futures[k] = [
                client.submit(
                    verify_part, str(root.resolve()), k, r0, r1, threads, pure=False, retries=3
                )
                for r0, r1 in parts_of(levels[k], per_row, CHUNK_ITEMS)
            ]
        for k in wanted:
            recorded = store.radius(k)
            bad = checksum_problem(store, k)
            per_row = int(objective.item_patterns(levels[k]).shape[0])
            total = levels[k].prize_sets * per_row if k > 0 else 0
            if bad is not None:
                check = level_verdict(k, total, [], recorded, False, 0.0, bad=bad)
            else:
                parts = [f.result() for f in futures[k]]
                check = level_verdict(k, total, parts, recorded, False, time.perf_counter() - t0)
            checks.append(check)
            if on_level is not None:
                on_level(check)
            if not check.passed:
                break
    finally:
        client.close()
        if local is not None:
            local.close()
    return checks


def verify_store(
    root,
    levels: list[int] | None = None,
    sample: int | None = None,
    seed: int = 0,
    progress=None,
    on_level=None,
    cluster: str | None = None,
) -> StoreVerdict:
    """Re-derive the levels of the store at ``root`` (a directory, or a :class:`Store`
    already open) (all, or those listed) and check every stored value and radius (module
    docstring); stops at the first level that fails.
    ``cluster``: run the parts on Dask (``local:W`` or a scheduler address,
    :mod:`exact.dp.cluster`) instead of in this process.

    ``progress(level, items, total)`` after each re-derived block; ``on_level(check)``
    after each level.  StoreError (one line) for a store that cannot be read at all.
    """
    if sample is not None and sample < 1 or seed < 0:
        raise GopsInputError(
            f"a sample of at least 1 item and a seed of 0 or more, not {sample}, {seed}"
        )
    store = root if isinstance(root, Store) else Store.open(root)  # the radii checked too
    root, n = store.root, store.game.n
    keep = store.keep_from
    wanted = list(range(keep, n + 1)) if levels is None else sorted(set(levels))
    outside = [k for k in wanted if not 0 <= k <= n]
    if outside:
        raise StoreError(f"{root} holds levels 0 to {n}, not {outside[0]}")
    dropped = [k for k in wanted if store.is_dropped(k)]
    if dropped:
        raise store.dropped_error(dropped[0])
    missing = [
        k for k in wanted if not store.is_complete(k) or (k > 0 and not store.is_complete(k - 1))
    ]
    if missing:
        raise StoreError(
            f"{root}: level {missing[0]} (or the level below it) is not complete; "
            "finish the solve first (rerun it to resume)"
        )
    game = store.game
    devices = tuple(
        sorted({backend_words(store.backend_of_level(k)) for k in store.device_levels()})
    )
    verdict = StoreVerdict(
        root, n, game.objective.name, game.order.name, sample, [], keep, bool(devices), devices
    )
    if cluster is not None:
        if sample is not None:
            raise StoreError("--sample runs here: drop --cluster (a sample takes seconds)")
        if keep or devices:
            raise StoreError(
                "a store "
                + ("with levels a device wrote" if devices else "made with --keep-from")
                + " is verified here, each level from the radius proved for the one below: "
                "drop --cluster"
            )
        verdict.checked = check_levels_on_cluster(store, wanted, cluster, on_level)
        return verdict
    rng = np.random.default_rng(seed)
    proved: dict[int, float] = {}  # the proved-radius mode: rho_k of the levels passed
    for k in wanted:
        below = proved.get(k - 1) if verdict.proved_mode else None
        check = check_level(store, k, sample, rng, progress, below, verdict.proved_mode)
        proved[k] = check.proved
        verdict.checked.append(check)
        if on_level is not None:
            on_level(check)
        if not check.passed:
            break
    return verdict


def check_position(
    solution, mine, theirs, deck, upcards, rederive: bool = False
) -> ReadCheck | None:
    """:func:`check_reads` of the values the games of a position read after each of
    ``upcards``, for a solution read from a store; None for one computed in this process
    (nothing to re-derive).  ``rederive``: first re-derive every level below the one read
    in full (:func:`verify_store`), so that the claims made from it have no condition;
    the radii proved there replace, where larger, the recorded ones of a store with levels
    a device wrote.  StoreContradicted (exit 1) if one fails.  A frontier store refuses
    ``rederive`` (GopsInputError, one line): its lowest kept level K cannot be re-derived
    (its level below was dropped), so every claim made from it rests on level K as stored
    and says so in its own sentence."""
    if solution.store is None:
        if rederive:
            raise GopsInputError("--rederive applies to --store only (nothing else is stored)")
        return None
    k = len(deck) - 1
    store = store_of(solution)
    keep = store.keep_from if store is not None else 0
    if rederive and keep:
        raise GopsInputError(
            f"--rederive: {solution.store} keeps levels {keep}..{solution.n} only (--keep-from "
            f"{keep}): level {keep} cannot be re-derived (the levels below it were dropped), "
            f"so no claim can be free of it; drop --rederive (each claim then names level "
            f"{keep} as its condition)"
        )
    if rederive and k > 0:
        verdict = verify_store(solution.values.store, levels=list(range(k)))
        if verdict.bad is not None:
            raise StoreContradicted(f"{solution.store}: not verified: {verdict.bad}")
        for check in verdict.checked:
            solution.radii[check.k] = max(solution.radii[check.k], check.proved)
    reads = position_reads(solution, mine, theirs, deck, upcards)
    return check_reads(solution, k, reads, rederived=rederive)
