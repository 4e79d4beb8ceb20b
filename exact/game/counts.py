"""The sizes of the encoding's levels in closed form (:mod:`exact.game.encoding`, whose
module docstring defines patterns and columns): no tables built, no numpy, so that
``gops count`` and the pre-flight answer at once.

A level k holds the patterns of two k-card hands within N cards: with t cards held by both,
a pattern is a word of length 2k - t <= N over {mine only, theirs only, both}, and there
are C(2k - t, t) C(2k - 2t, k - t) of them (choose the shared positions, then which of the
rest are mine).
"""

from __future__ import annotations

from math import comb


def pattern_count(n: int, k: int) -> int:
    """Number of patterns of two k-card hands drawn from n cards (closed form).

    >>> [pattern_count(5, k) for k in range(6)]
    [1, 3, 13, 43, 21, 1]
    """
    return sum(
        comb(2 * k - t, t) * comb(2 * k - 2 * t, k - t) for t in range(k + 1) if 2 * k - t <= n
    )


def column_count(n: int, k: int, antisymmetric: bool = True) -> int:
    """Columns of a level (module docstring, *Columns*): one per antisymmetric pair of
    patterns, the one pattern of identical hands (every position held by both) alone in
    its pair; every pattern without antisymmetry.

    >>> [column_count(5, k) for k in range(6)], column_count(5, 2, antisymmetric=False)
    ([1, 2, 7, 22, 11, 1], 13)
    """
    count = pattern_count(n, k)
    return (count + 1) // 2 if antisymmetric else count
