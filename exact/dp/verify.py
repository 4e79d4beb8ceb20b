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
from exact.dp.rederive import (
    LevelVerifier,
    PartCheck,
    check_items,
    check_rows,
    cover,
    difference,
    first_bad,
    fixed_problem,
    pick_items,
    same,
)
from exact.dp.store import (
    Store,
    StoreContradicted,
    StoreError,
    file_sha256,
    require_regular_file,
)
from exact.errors import GopsInputError
from exact.game.encoding import pattern_rank, prize_rank

#: A manifest radius may exceed the radius the stored values need by this factor at most:
#: the solver writes exactly the largest certified bound of the level's items (the two are
#: equal bit for bit on a store it wrote), so a looser radius was written by someone else.
RADIUS_SLACK = 1.0 + 2.0**-10
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


def backend_words(info: dict) -> str:
    """A level's backend as the verdicts name it: "cuda (NVIDIA H200)", "cuda-simulator"."""
    return info["backend"] + (f" ({info['device']})" if "device" in info else "")


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


def radius_problem(recorded: float, needed: float, sampled: bool) -> str | None:
    """What is wrong with a level's recorded radius, given the radius its re-derived items
    need (all of them, or a sample: then only an understated radius is seen)."""
    if recorded < needed:
        return (
            f"the manifest's radius {recorded:.3e} is below the {needed:.3e} that the "
            "re-derived values need: the radius was edited"
        )
    if not sampled and recorded > needed * RADIUS_SLACK:
        return (
            f"the manifest's radius {recorded:.3e} is not the {needed:.3e} re-derived "
            "here: the radius was edited or written by another version"
        )
    return None


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


# -- the cheap checks of every answer read from a store --------------------------------------


@dataclass(frozen=True)
class ReadCheck:
    """What an answer read from a store rests on: the ``items`` of level ``k`` it reads
    were re-derived here from the stored level k - 1 and agree within their bounds (the
    largest ``needed``, bound plus difference), which ``radius``, the radius the answer's
    claims use for level k, covers; levels 0..k - 1 are as stored (the condition of every
    claim made from them) unless ``rederived``: then they were re-derived here in full,
    and the claim has no condition.

    A frontier store (``keep_from`` K > 0) has no levels below K: the claims rest on the
    stored level K at least (``unrederived``: the level read is K itself, whose items
    cannot be re-derived).  ``devices`` names the backends that wrote the levels read
    (none: the CPU kernels); a device's radius is its own bound, and where the items read
    need more, ``radius`` is the larger (:func:`check_reads`)."""

    root: Path
    k: int
    items: int
    needed: float
    radius: float
    rederived: bool = False
    keep_from: int = 0
    unrederived: bool = False
    devices: tuple[str, ...] = ()

    def _premise(self) -> str:
        """The stored levels a claim rests on, in words."""
        root, k, keep = self.root, self.k, self.keep_from
        if not keep:
            below = "level 0" if k == 1 else f"levels 0..{k - 1}"
            return (
                f"the stored {below} of {root} (not re-derived here: "
                f"`gops verify {root}` proves them, or rerun with --rederive)"
            )
        dropped = f"levels 0..{keep - 1} were dropped, --keep-from {keep}"
        if self.unrederived:
            return f"the stored level {k} of {root} itself ({dropped}: no check can re-derive it)"
        if k - 1 == keep:
            return (
                f"the stored level {keep} of {root} within its recorded radius ({dropped}: "
                "no check can re-derive it)"
            )
        above = f"level {k - 1}" if k - 2 == keep else f"levels {keep + 1}..{k - 1}"
        return (
            f"the stored levels {keep}..{k - 1} of {root} ({dropped}; `gops verify {root}` "
            f"re-derives {above} given level {keep})"
        )

    def _device_words(self) -> str:
        if not self.devices:
            return ""
        return (
            f"; levels made by {', '.join(self.devices)}: their recorded radii are the "
            "device's own bounds, and a value read is re-derived here on the CPU"
        )

    def condition(self) -> str | None:
        """The premise of a claim made from the store, for the claim's own sentence
        ("certified, given ...: "); None when there is none (the levels below were
        re-derived here, or the values read are the empty game's)."""
        if self.k == 0 or self.rederived:
            return None
        return "given " + self._premise() + self._device_words()

    def describe(self) -> str:
        if self.k == 0:
            return (
                f"read from the store {self.root}: the values it reads are the empty "
                "game's, set by the rules"
            )
        if self.unrederived:
            return (
                f"read from the store {self.root}: the values of level {self.k} it reads "
                f"as stored (levels 0..{self.k - 1} were dropped, --keep-from "
                f"{self.keep_from}: nothing re-derives them; stored radius {self.radius:.1e})"
                + self._device_words()
            )
        below = "the empty game" if self.k == 1 else f"levels 0..{self.k - 1}"
        if self.keep_from:
            rest = "resting on " + self._premise()
        elif self.rederived:
            rest = (
                f"{below} re-derived here in full (--rederive): no claim above rests on the "
                "store's word"
            )
        else:
            rest = f"{below} as stored: `gops verify {self.root}` re-derives them"
        return (
            f"read from the store {self.root}: the values of level {self.k} it reads "
            f"({self.items:,} kernel items) were re-derived here from level {self.k - 1} "
            "and agree "
            f"(largest bound {self.needed:.1e}, within the {'' if self.devices else 'stored '}"
            f"radius {self.radius:.1e}); " + rest + self._device_words()
        )

    def json(self) -> dict:
        low = self.keep_from
        if self.unrederived:
            unverified = [self.k]
        elif self.rederived:
            unverified = []
        else:
            unverified = list(range(low, self.k))
        out = {
            "store": str(self.root),
            "level_read": self.k,
            "rederived_items": self.items,
            "largest_bound": self.needed,
            "stored_radius": self.radius,
            "unverified_levels": unverified,
        }
        if low:
            out["dropped_levels"] = list(range(low))
        if self.devices:
            out["devices"] = list(self.devices)
        return out


def _contradiction(root, k: int, what: str) -> StoreContradicted:
    return StoreContradicted(f"{root}: level {k}, {what}")


def store_of(solution) -> Store | None:
    """The Store behind a store-backed Solution's values (None for one solved here)."""
    return getattr(solution.values, "store", None)


def read_devices(store: Store | None, k: int) -> tuple[str, ...]:
    """The backends (other than the CPU) that wrote the store's levels 0..k, in words."""
    if store is None:
        return ()
    return tuple(
        sorted({backend_words(store.backend_of_level(j)) for j in store.device_levels() if j <= k})
    )


def check_reads(solution, k: int, reads: dict[int, set[int]], rederived=False) -> ReadCheck:
    """Re-derive the items of level k of a store-backed ``solution`` that hold the values
    ``reads`` ({prize rank: pattern ranks}) and check them against the store: each stored
    value within its re-derived bound, each bound (plus the difference) within the stored
    radius of level k, each value the rules fix as they fix it.  StoreContradicted (one
    line, naming the value; exit 1) when the store contradicts itself.

    A level a device wrote: each value within its bound plus the stored radius (the
    enclosures meet), and where the items read need more than the device's radius, the
    solution's radius of level k is raised to what they need (the claims then rest on the
    CPU's bound).  A level whose level below was dropped (--keep-from) is read as stored."""
    root, objective = solution.store, solution.objective
    store = store_of(solution)
    keep = store.keep_from if store is not None else 0
    devices = read_devices(store, k)
    level = solution.levels[k]
    radius = solution.radii[k]
    if k > 0 and store is not None and store.is_dropped(k - 1):
        return ReadCheck(Path(root), k, 0, 0.0, radius, rederived, keep, True, devices)
    stored = solution.values[k]
    below = solution.values[k - 1] if k > 0 else None
    radius_below = solution.radii[k - 1] if k > 0 else 0.0
    device = store is not None and not recorded_bit_exact(store.backend_of_level(k))
    slack = radius if device else 0.0
    verifier = LevelVerifier(objective, level, stored, below, radius_below, slack)
    slot = np.full(level.patterns, -1, dtype=np.int64)  # pattern -> its item of a prize set
    slot[verifier.patterns] = np.arange(verifier.per_row)
    layout = verifier.columns
    items, largest = 0, 0.0
    for r, patterns in sorted(reads.items()):
        todo = set()
        for p in patterns:
            c = int(layout.column[p])  # p's value, or its mirror image's, is column c's
            q = int(layout.patterns[c])
            if slot[q] >= 0:
                todo.add(r * verifier.per_row + int(slot[q]))
            elif not same(
                np.asarray(stored[r, c]), objective.empty_rows(level, r, r + 1)[0, c], 0.0
            ).all():  # no item writes it: the rules set it
                raise _contradiction(
                    root,
                    k,
                    f"{verifier.describe(r, q)}: a value the rules fix was changed: the "
                    "store was edited or is corrupted",
                )
        for t in sorted(todo):
            needed = _check_item(verifier, t, root, k, radius, device)
            items, largest = items + 1, max(largest, needed)
    if device and largest > radius:
        solution.radii[k] = radius = largest  # the claims rest on the CPU's bound
    return ReadCheck(Path(root), k, items, largest, radius, rederived, keep, False, devices)


def _check_item(verifier: LevelVerifier, t: int, root, k: int, radius: float, device: bool):
    """Item t of level k re-derived and compared with the store (:func:`check_reads`);
    the radius its stored values need."""
    layout = verifier.columns
    r_, columns, derived, bound = verifier.item(t)
    got = np.asarray(verifier.stored[r_, columns])
    if not np.isfinite(bound):  # a NaN or an infinity read from level k - 1
        raise _contradiction(
            root,
            k - 1,
            f"read by {verifier.describe(r_, int(layout.patterns[columns[0]]))} of "
            f"level {k}: a value that is NaN or infinite, which no solve writes: "
            "the store is damaged or edited",
        )
    allowed = bound + verifier.slack
    if not same(got, derived, allowed).all():
        raise _contradiction(
            root, k, first_bad(verifier, r_, got[None], derived[None], allowed, columns)
        )
    needed = cover(bound, difference(got, derived))
    if needed > radius and not device:
        raise _contradiction(root, k, str(radius_problem(radius, needed, sampled=True)))
    return needed


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


def position_reads(solution, mine, theirs, deck, upcards) -> dict[int, set[int]]:
    """{prize rank: pattern ranks} of level len(deck) - 1 that the games of a position read
    after each of ``upcards`` (Solution.strategy's matrices: the children of every pair
    of bids)."""
    below = solution.levels[len(deck) - 1]
    children = {
        pattern_rank(below, set(mine) - {a}, set(theirs) - {b}) for a in mine for b in theirs
    }
    return {prize_rank(set(deck) - {u}): children for u in upcards}
