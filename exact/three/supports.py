"""Support enumeration: the equilibria of a stage found support by support, and the one
nearest a given profile.

Each combination of supports (twins sharing one) is solved by Newton's method
(:func:`exact.three.polish.newton`) from the given profile restricted to it and from its
uniform profile; where every combination is tried, one is the support of an equilibrium
(Nash's theorem, in its symmetric form where there are twins), though Newton's method need
not reach it.  The stage cascade (:mod:`exact.three.stage`) takes the equilibrium found
nearest (L1) the last point a trace reached, or its polished profile.
"""

from __future__ import annotations

import heapq
from itertools import combinations, product

import numpy as np

from exact.three.polish import POLISHED, classes_of, newton, regret, symmetrise

__all__ = ["SUPPORT_ENUMERATION", "nearest_support_equilibrium", "support_equilibria"]

#: The most support combinations tried where no trace ends at an equilibrium, or where
#: REFINE_SUPPORTS found none (every one of a 4 x 4 x 4 stage without twins: 15^3).
SUPPORT_ENUMERATION = 4_000


def support_equilibria(A: np.ndarray, twins, near: tuple, limit: int):
    """The equilibria that support enumeration finds, in the order of their supports.

    Each combination of supports (twins sharing one), in order of the weight of ``near``
    off it, then of its size, at most ``limit`` of them, is solved by :func:`newton` from
    ``near`` restricted to it and from its uniform profile; a profile with stage regret at
    most POLISHED is an equilibrium, yielded.  Where every combination is tried, one is the
    support of an equilibrium (Nash's theorem, in its symmetric form where there are
    twins), but Newton's method need not reach it."""
    classes = classes_of(twins)
    owner = [classes.index(c) for c in range(max(classes) + 1)]
    subsets = [
        [np.array(c) for r in range(1, k + 1) for c in combinations(range(k), r)]
        for k in (A.shape[1 + i] for i in owner)
    ]

    def keyed():
        for index, chosen in enumerate(product(*subsets)):
            support = [chosen[c] for c in classes]
            off = sum(near[i].sum() - near[i][support[i]].sum() for i in range(3))
            yield (off, sum(len(x) for x in support), index), support

    for _, support in heapq.nsmallest(limit, keyed(), key=lambda c: c[0]):
        restricted, uniform = [], []
        for i in range(3):
            m = np.zeros(A.shape[1 + i])
            m[support[i]] = 1.0 / len(support[i])
            uniform.append(m)
            w = np.zeros(A.shape[1 + i])
            w[support[i]] = near[i][support[i]]
            restricted.append(w / w.sum() if w.sum() > 0 else m)
        for origin in (tuple(restricted), tuple(uniform)):
            found = newton(A, origin, support)
            if found is None:
                continue
            found = symmetrise(found, twins)
            if regret(A, found) <= POLISHED:
                yield found


def nearest_support_equilibrium(
    A: np.ndarray, twins, near: tuple, limit: int = SUPPORT_ENUMERATION
) -> tuple | None:
    """Among the equilibria of :func:`support_equilibria` (at most ``limit`` supports),
    the one nearest (L1) ``near``; None if none was found."""
    best, best_distance = None, np.inf
    for found in support_equilibria(A, twins, near, limit):
        distance = sum(np.abs(s - t).sum() for s, t in zip(found, near))
        if distance < best_distance:
            best, best_distance = found, distance
    return best
