"""Items of a stored level re-derived from the stored level below: the one primitive that
every check of a store uses (``gops verify``, the checks of a resume, of an answer read
from a store).

An item (a prize set and a solved pattern, :meth:`exact.dp.objective.Objective.item_patterns`)
is re-derived by the solver's own kernel from the stored level k - 1 and its radius
r_{k-1}, which gives values v and the kernel's certified bound b (:mod:`exact.kernels.bounds`):
a stored value s farther than b from v was not written by a solve.  A level a device
wrote (:mod:`exact.cuda`: other bits, its own directed-rounding bound) is compared within
b + r_k instead (``slack``, its recorded radius r_k): both v and s enclose the exact
value, v within b and s within r_k, so the two enclosures meet.  The values no item
writes are the ones the rules fix (:func:`rule_fixed`); they are compared with the rules'
template exactly.

Invariant: nothing here trusts the stored level k beyond reading it; the stored level
k - 1 and r_{k-1} are the premise of every verdict (Rhoads & Bartholdi 2012, sec 3:
level k is a function of level k - 1 only).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from exact.dp.objective import Objective
from exact.game.encoding import Level, key_hands

#: A level of at most this many kernel items is re-derived whole where a sample was asked.
SMALL_LEVEL_ITEMS = 4096
#: Entries of a level compared with the rules' template per block (bounded memory).
FIXED_BLOCK_ENTRIES = 1 << 22


def same(stored: np.ndarray, derived: np.ndarray, allowed: float) -> np.ndarray:
    """Where a stored value agrees with the re-derived one: both NaN (never looked up),
    or both numbers within ``allowed``."""
    both_nan = np.isnan(stored) & np.isnan(derived)
    close = np.abs(stored - derived) <= allowed  # False wherever either is NaN
    return both_nan | close


def difference(stored: np.ndarray, derived: np.ndarray) -> float:
    d = np.abs(stored - derived)
    d = d[~np.isnan(d)]
    return float(d.max()) if d.size else 0.0


def cover(bound: float, difference: float) -> float:
    """bound + difference rounded up: a radius for stored values ``difference`` away from
    values within ``bound`` of the exact ones (exactly ``bound`` when they are equal)."""
    return float(np.nextafter(bound + difference, np.inf)) if difference else bound


class LevelVerifier:
    """Re-derives items of level k of a store from its stored level k - 1."""

    def __init__(
        self,
        objective: Objective,
        level: Level,
        stored: np.ndarray,
        below: np.ndarray | None,
        radius_below: float,
        slack: float = 0.0,
    ):
        self.objective = objective
        self.level = level
        self.stored = stored
        self.below = below
        self.radius_below = radius_below
        #: How far beyond its re-derived bound a stored value may lie: 0 for a level the
        #: CPU kernels wrote (the same bits), its recorded radius for a device's.
        self.slack = slack
        self.patterns = objective.item_patterns(level)
        self.per_row = int(self.patterns.shape[0])
        self.columns = objective.columns(level)

    def rows(self, r0: int, r1: int) -> tuple[np.ndarray, float]:
        """Prize sets [r0, r1) re-derived (every item of them) and the largest bound."""
        out = self.objective.empty_rows(self.level, r0, r1)
        if self.level.k == 0 or self.per_row == 0:
            return out, 0.0
        _, bound = self.objective.solve_chunk(
            self.level,
            self.below,
            out,
            r0 * self.per_row,
            r1 * self.per_row,
            self.radius_below,
            row0=r0,
        )
        return out, bound

    def item(self, t: int) -> tuple[int, np.ndarray, np.ndarray, float]:
        """Item t re-derived: (prize rank, the column it writes (an array of one), its
        values re-derived (one row), its bound)."""
        r, p = divmod(t, self.per_row)
        p = int(self.patterns[p])
        out = self.objective.empty_rows(self.level, r, r + 1)
        _, bound = self.objective.solve_chunk(
            self.level, self.below, out, t, t + 1, self.radius_below, row0=r
        )
        columns = np.array([self.columns.column[p]])
        return r, columns, out[0, columns], bound

    def describe(self, r: int, p: int, at: tuple[int, ...] = ()) -> str:
        """A stored entry in words: the prize set, pattern p's hands, the lead."""
        prizes = int(self.level.prize_masks[r])
        cards = [c for c in range(1, self.level.n + 1) if prizes >> (c - 1) & 1]
        mine, theirs = key_hands(int(self.level.pattern_keys[p]))
        where = (
            f"prizes {{{', '.join(map(str, cards))}}}, hands of pattern {p} "
            f"(mine {list(mine)}, theirs {list(theirs)} by rank)"
        )
        if at:
            where += f", lead {self.objective.lead_of(self.level, at[0])}"
        return where


def first_bad(
    verifier: LevelVerifier,
    r0: int,
    stored: np.ndarray,
    derived: np.ndarray,
    allowed: float,
    columns=None,
) -> str:
    """Words for the first entry of ``stored`` (rows from r0; its columns ``columns``, by
    default all) that disagrees."""
    ok = same(stored, derived, allowed)
    index = tuple(int(i) for i in np.argwhere(~ok)[0])
    r = r0 + index[0]
    column = int(columns[index[1]]) if columns is not None else index[1]
    p = int(verifier.columns.patterns[column])
    s, v = float(stored[index]), float(derived[index])
    return (
        f"{verifier.describe(r, p, index[2:])}: stored {s!r}, re-derived {v!r} "
        f"(at most {allowed:.1e} apart for a value the solver wrote): the store was "
        "edited or is corrupted"
    )


@dataclass(frozen=True)
class PartCheck:
    """Prize sets [r0, r1) of level k re-derived: ``items`` kernel items, the largest
    |stored - re-derived| and bound + difference, or ``bad``, the first disagreement."""

    k: int
    r0: int
    r1: int
    items: int
    difference: float
    needed: float
    bad: str | None = None

    @classmethod
    def failed(cls, k: int, r0: int, r1: int, bad: str) -> PartCheck:
        """The check of rows [r0, r1) that stopped at the disagreement ``bad``."""
        return cls(k=k, r0=r0, r1=r1, items=0, difference=0.0, needed=0.0, bad=bad)


def check_rows(verifier: LevelVerifier, r0: int, r1: int) -> PartCheck:
    """Re-derive every item of prize sets [r0, r1) and compare the whole rows (the values
    the rules fix included) with the stored ones."""
    k = verifier.level.k
    derived, bound = verifier.rows(r0, r1)
    got = np.asarray(verifier.stored[r0:r1])
    allowed = bound + verifier.slack
    if not same(got, derived, allowed).all():
        return PartCheck.failed(k, r0, r1, first_bad(verifier, r0, got, derived, allowed))
    d = difference(got, derived)
    items = (r1 - r0) * verifier.per_row if k > 0 else 0  # the empty game: no item
    return PartCheck(k=k, r0=r0, r1=r1, items=items, difference=d, needed=cover(bound, d))


def unsolved_columns(objective: Objective, level: Level) -> np.ndarray:
    """The columns of a level whose pattern no item solves (their values the rules fix)."""
    columns = objective.columns(level)
    solved = np.zeros(columns.count, dtype=bool)
    solved[columns.column[objective.item_patterns(level)]] = True
    return np.flatnonzero(~solved)


def rule_fixed(objective: Objective, level: Level, template: np.ndarray) -> np.ndarray:
    """Where a level's entries are fixed by the rules (no item writes them), as a mask of
    ``template`` (:meth:`Objective.empty_rows`).

    The rule: a column whose pattern no item solves holds the template's value (identical
    hands under an antisymmetric order: 0, the start value of the top level among them);
    with a lead in the state, every entry the template sets (a decided lead: sign(L);
    identical hands at lead 0: 0) is fixed too.  Everything else is an item's.
    """
    mask = np.zeros(template.shape, dtype=bool)
    mask[:, unsolved_columns(objective, level)] = True
    if objective.has_lead:
        mask |= ~np.isnan(template)
    return mask


def fixed_problem(verifier: LevelVerifier, r0: int = 0, r1: int | None = None) -> str | None:
    """Words for the first value of prize sets [r0, r1) (default: all) that the rules fix
    and that the stored level contradicts; None when every one is as the rules say.
    Without a lead only the unsolved columns are read (a few of a points level); with
    one, decided leads lie in every column and the whole level is read."""
    objective, level, stored = verifier.objective, verifier.level, verifier.stored
    r1 = level.prize_sets if r1 is None else r1
    wanted = (
        np.arange(stored.shape[1]) if objective.has_lead else unsolved_columns(objective, level)
    )
    if not wanted.size:
        return None
    per_row = max(1, int(np.prod(stored.shape[2:])) * wanted.size)
    step = max(1, FIXED_BLOCK_ENTRIES // per_row)
    for a in range(r0, r1, step):
        b = min(r1, a + step)
        template = objective.empty_rows(level, a, b)
        mask = rule_fixed(objective, level, template)[:, wanted]
        template = template[:, wanted]
        got = np.asarray(stored[a:b, wanted])
        wrong = mask & ~same(got, template, 0.0)
        if wrong.any():
            index = tuple(int(i) for i in np.argwhere(wrong)[0])
            p = int(verifier.columns.patterns[wanted[index[1]]])
            return (
                f"{verifier.describe(a + index[0], p, index[2:])}: stored "
                f"{float(got[index])!r} where the rules fix {float(template[index])!r}: "
                "the store was edited or is corrupted"
            )
    return None


def pick_items(total: int, sample: int | None, rng) -> np.ndarray | None:
    """The items a check re-derives: None for every one (no sample asked, or a level of
    at most :data:`SMALL_LEVEL_ITEMS` items), else ``sample`` distinct random items, sorted."""
    if sample is None or total <= max(sample, SMALL_LEVEL_ITEMS):
        return None
    return np.sort(rng.choice(total, size=sample, replace=False))


def check_items(verifier: LevelVerifier, items) -> list[PartCheck]:
    """Re-derive the kernel items ``items`` (sorted) one by one and compare their stored
    values; the list ends at the first disagreement.  One numba thread: waking a pool of
    threads for one item cost 10x more on a busy machine; each item's bits are the same."""
    k = verifier.level.k
    parts: list[PartCheck] = []
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        for t in items:
            r, columns, derived, bound = verifier.item(int(t))
            got = np.asarray(verifier.stored[r, columns])
            allowed = bound + verifier.slack
            if not same(got, derived, allowed).all():
                bad = first_bad(verifier, r, got[None], derived[None], allowed, columns)
                parts.append(PartCheck.failed(k, r, r + 1, bad))
                break
            d = difference(got, derived)
            parts.append(
                PartCheck(k=k, r0=r, r1=r + 1, items=1, difference=d, needed=cover(bound, d))
            )
    finally:
        numba.set_num_threads(threads)
    return parts


def escape_chance(total: int, checked: int) -> float:
    """The chance that one edited item of ``total`` is not among ``checked`` items drawn
    at random without replacement: 1 - checked / total."""
    return 0.0 if total <= checked else 1.0 - checked / total
