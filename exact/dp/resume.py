"""What a resume of a store checks of the levels it keeps, and how it says so.

A resume builds on no stored value it has not re-derived where it can: before a kept
level is built on, its kernel items are re-derived from the stored level below (all of
them when there are at most :data:`exact.dp.rederive.SMALL_LEVEL_ITEMS`, else
:data:`RESUME_SAMPLE` drawn at random without replacement), each within its recorded
radius.  An item edited outside its radius then escapes with probability
1 - rederived / items (:func:`exact.dp.rederive.escape_chance`), which
:func:`resume_words` states per level.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from exact.dp.rederive import LevelVerifier, check_items, escape_chance, pick_items

#: Items of a large level re-derived by a resume before it builds on the level.
RESUME_SAMPLE = 256


def spot_check(
    verifier: LevelVerifier, items: int | None, radius: float, rng, item_of=None
) -> tuple[str | None, int, int]:
    """(words for the first of ``items`` kernel items of a level (default all; ``item_of``
    maps their indices to item numbers, default the first ``items``) that its
    re-derivation contradicts, or whose bound exceeds ``radius``, None if none; the
    items re-derived; ``items``).  Every item when there are few
    (:func:`exact.dp.rederive.pick_items`), else :data:`RESUME_SAMPLE` drawn by ``rng``."""
    total = verifier.level.prize_sets * verifier.per_row if verifier.level.k else 0
    items = total if items is None else items
    picked = pick_items(items, RESUME_SAMPLE, rng)
    chosen = np.arange(items) if picked is None else picked
    parts = check_items(verifier, chosen if item_of is None else item_of(chosen))
    bad = next((p.bad for p in parts if p.bad is not None), None)
    needed = max((p.needed for p in parts), default=0.0)
    if bad is None and needed > radius and not verifier.slack:  # a device's: its own bound
        bad = f"its items need the radius {needed:.3e}, above the {radius:.3e} recorded"
    return bad, len(chosen), items


#: What a resume checks of a kept level none of whose items it re-derives.
CHECKSUM_ONLY = "checksum and the values the rules fix checked"


#: The items of a level in progress that a resume takes from its checkpoint.
CHECKPOINT_ITEMS = "the items its checkpoint took as done"


@dataclass(frozen=True)
class ResumeCheck:
    """What a resume checked of a level it keeps as the store held it (whole, or the
    ``items`` a checkpoint takes as done): ``rederived`` of its ``items`` kernel items
    re-derived from the stored level below (every one of a small level, else
    :data:`RESUME_SAMPLE` drawn at random without replacement), and ``note``: what else
    (or why nothing) was checked; ``checkpoint``: the items are a level's in progress.

    >>> str(ResumeCheck(7, 256, 10_000))
    'level 7: 256 of 10,000 items re-derived; an edited item escapes with probability 0.974'
    """

    k: int
    rederived: int
    items: int
    note: str = ""
    checkpoint: bool = False

    def __str__(self) -> str:
        return _check_words(f"level {self.k}", self.rederived, self.items, self.note)


def _check_words(levels: str, rederived: int, items: int, note: str) -> str:
    """``rederived`` of ``items`` in words, with the chance that one edited item is none of
    them (:func:`exact.dp.rederive.escape_chance`: 1 - rederived / items, the items drawn
    without replacement)."""
    note = f" ({note})" if note else ""
    p = probability_text(escape_chance(items, rederived))
    return (
        f"{levels}: {rederived:,} of {items:,} items re-derived{note}; an edited item "
        f"escapes with probability {p}"
    )


def probability_text(p: float) -> str:
    """A probability in words that never rounds a chance to a certainty: 0 and 1 as
    such, else three significant digits, or 1 - q where p would print as 1.

    >>> probability_text(1 - 256 / 10_000), probability_text(1 - 256 / 10**9)
    ('0.974', '1 - 2.6e-07')
    >>> probability_text(0.0), probability_text(1.0)
    ('0', '1')
    """
    if p in (0.0, 1.0):
        return f"{p:g}"
    if f"{p:.3g}" == "1":
        return f"1 - {1.0 - p:.2g}"
    return f"{p:.3g}"


def resume_words(checks: list[ResumeCheck]) -> list[str]:
    """What a resume checked of the levels it kept, a line per level, consecutive levels
    checked alike (nothing re-derived, for the same reason) on one line.

    >>> checks = [ResumeCheck(k, 0, 10 * k, "checksum") for k in range(4)]
    >>> for line in resume_words([*checks, ResumeCheck(4, 40, 40)]):
    ...     print(line)
    levels 0..3: 0 of 60 items re-derived (checksum); an edited item escapes with probability 1
    level 4: 40 of 40 items re-derived; an edited item escapes with probability 0
    """
    groups: list[list[ResumeCheck]] = []
    for check in checks:
        last = groups[-1][-1] if groups else None
        alike = (
            last is not None
            and check.k == last.k + 1
            and check.rederived == last.rederived == 0
            and check.note == last.note
        )
        if alike:
            groups[-1].append(check)
        else:
            groups.append([check])
    lines = []
    for group in groups:
        if len(group) == 1:
            lines.append(str(group[0]))
        else:
            levels = f"levels {group[0].k}..{group[-1].k}"
            items = sum(c.items for c in group)
            lines.append(_check_words(levels, 0, items, group[0].note))
    return lines


@dataclass(frozen=True)
class ResumePoint:
    """Where a solve into an existing store picks up, as its files say (nothing checked
    yet: a damaged level is found, and redone, when the solve reaches it)."""

    stored: tuple[int, ...]  # the levels the manifest lists as complete
    level: int | None  # the first level not listed (None: every level is)
    items: int  # its items recorded as finished (level-K.progress)
    total: int  # its items
