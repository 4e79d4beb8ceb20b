"""Canonical positions of three-player GOPS: hands by their relative order, players sorted.

Only the order of the bids decides a round (:meth:`exact.game.ties.TieRule.score`
compares bids), so a position's hands can be replaced by the ranks of their cards among
all the cards the three hands hold, equal cards keeping equal ranks (the three-hand form
of the interleaving patterns of Rhoads & Bartholdi 2012, sec 3.2).  The prizes keep their
values (they are the points).  The points so far matter only to the ``top`` objective and
only by their differences: they are kept minus the smallest.  Finally the players are
permuted to put (hand, points) in the smallest order: a position and its permutations
share one canonical form, and players with equal (hand, points) are ``twins``.

Invariant: :func:`canonical` returns ``(key, perm)`` with canonical player j being actual
player ``perm[j]``; ``key`` is equal for positions that differ only by card values with
the same relative order, a shift of every score, or a permutation of the players.

>>> canonical(((2, 5), (3, 5), (1, 4)), (3, 6), (0, 0, 0))
((((1, 4), (2, 5), (3, 5)), (3, 6), (0, 0, 0)), (2, 0, 1))
"""

from __future__ import annotations

from itertools import permutations

__all__ = ["PERMUTATIONS", "Key", "canonical", "rank_hands", "twins"]

PERMUTATIONS = tuple(permutations(range(3)))
#: (hands as ranks, prizes ascending, points so far minus the smallest, in half points)
Key = tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...]]


def rank_hands(hands) -> tuple[tuple[int, ...], ...]:
    """Each card replaced by its rank (1 = smallest) among all cards held; ties kept."""
    values = sorted(set().union(*hands))
    rank = {v: r for r, v in enumerate(values, 1)}
    return tuple(tuple(rank[c] for c in sorted(h)) for h in hands)


def canonical(hands, prizes, points) -> tuple[Key, tuple[int, int, int]]:
    """The canonical key of a position and the permutation taking it there."""
    ranked = rank_hands(hands)
    low = min(points)
    shifted = tuple(p - low for p in points)
    best = None
    for perm in PERMUTATIONS:
        cand = (tuple(ranked[p] for p in perm), tuple(shifted[p] for p in perm))
        if best is None or cand < best[0]:
            best = (cand, perm)
    assert best is not None
    (h, s), perm = best
    return (h, tuple(prizes), s), perm  # type: ignore[return-value]


def twins(key: Key) -> list[tuple[int, ...]]:
    """Groups (of 2 or 3) of canonical players with identical hands and points."""
    hands, _, points = key
    groups: dict[tuple, list[int]] = {}
    for i in range(3):
        groups.setdefault((hands[i], points[i]), []).append(i)
    return [tuple(g) for g in groups.values() if len(g) > 1]
