"""The cheap checks of every answer read from a store: the items of the level it reads
re-derived from the stored level below, and what the answer then rests on.

An answer read from level k of a store (a table, a strategy, a position's values) is
certified by the stored values it reads, each within the stored radius r_k of the exact
value.  Before it is given, the kernel items holding those values are re-derived from
the stored level k - 1 (:class:`exact.dp.rederive.LevelVerifier`): each stored value
within the item's certified bound b of the re-derived one, and b + |s - v| within r_k
(the induction of :mod:`exact.dp.verify`, one step).  The claim is then conditional on
levels 0..k - 1 as stored, and says so (:class:`ReadCheck`), unless they were re-derived
in full (``gops ... --rederive``, :func:`exact.dp.verify.check_position`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from exact.dp.device import recorded_bit_exact
from exact.dp.rederive import LevelVerifier, cover, difference, first_bad, same
from exact.dp.store import Store, StoreContradicted
from exact.game.encoding import pattern_rank, prize_rank

#: A manifest radius may exceed the radius the stored values need by this factor at most:
#: the solver writes exactly the largest certified bound of the level's items (the two are
#: equal bit for bit on a store it wrote), so a looser radius was written by someone else.
RADIUS_SLACK = 1.0 + 2.0**-10


def backend_words(info: dict) -> str:
    """A level's backend as the verdicts name it: "cuda (NVIDIA H200)", "cuda-simulator"."""
    return info["backend"] + (f" ({info['device']})" if "device" in info else "")


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


def position_reads(solution, mine, theirs, deck, upcards) -> dict[int, set[int]]:
    """{prize rank: pattern ranks} of level len(deck) - 1 that the games of a position read
    after each of ``upcards`` (Solution.strategy's matrices: the children of every pair
    of bids)."""
    below = solution.levels[len(deck) - 1]
    children = {
        pattern_rank(below, set(mine) - {a}, set(theirs) - {b}) for a in mine for b in theirs
    }
    return {prize_rank(set(deck) - {u}): children for u in upcards}
