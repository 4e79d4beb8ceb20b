"""Canonical subgames (exact/game/encoding.py) against an independent count and direct checks."""

from itertools import combinations
from math import comb

import numpy as np
import pytest

from exact.game.encoding import (
    build_levels,
    child_key,
    column_count,
    count_table,
    pattern_key,
    prize_rank,
)


def naive_canonical_count(n):
    """Distinct (interleaving of the hands, prize set) over all raw (V, Y, P), by brute force."""
    seen = set()
    cards = range(1, n + 1)
    for k in range(n + 1):
        for V in combinations(cards, k):
            for Y in combinations(cards, k):
                union = sorted(set(V) | set(Y))
                word = tuple((c in V, c in Y) for c in union)
                for P in combinations(cards, k):
                    seen.add((word, P))
    return len(seen)


@pytest.mark.parametrize("n", range(1, 7), ids=lambda n: f"N{n}")
def test_count_matches_brute_force(n):
    assert sum(row["subgames"] for row in count_table(n)) == naive_canonical_count(n)


def test_counts_from_closed_form():
    """exact/game/encoding.py: patterns with t shared cards number (2k-t)!/(t!(k-t)!^2),
    2k - t <= N."""
    from math import factorial

    n = 9
    for row in count_table(n):
        k = row["k"]
        patterns = sum(
            factorial(2 * k - t) // (factorial(t) * factorial(k - t) ** 2)
            for t in range(k + 1)
            if 2 * k - t <= n
        )
        assert row["subgames"] == patterns * comb(n, k)


def test_prize_rank_is_dense_and_bijective():
    for k in range(0, 7):
        ranks = sorted(prize_rank(s) for s in combinations(range(1, 7), k))
        assert ranks == list(range(comb(6, k)))


def test_child_pattern_by_hand():
    # mine {2,4}, theirs {1,3}: pattern B A B A -> mine bits 1,3; theirs bits 0,2.
    key = pattern_key({2, 4}, {1, 3})
    # I bid 4 (my 2nd card), they bid 1 (their 1st): left mine {2}, theirs {3}: A B.
    assert child_key(key, 1, 0) == pattern_key({2}, {3})
    # Shared cards: mine {1,2}, theirs {2,3}; I bid 2 and they bid 2: left {1} vs {3}.
    key = pattern_key({1, 2}, {2, 3})
    assert child_key(key, 1, 0) == pattern_key({1}, {3})


def test_swap_and_child_tables_agree_with_pattern_key():
    levels = build_levels(5)
    for level in levels[1:]:
        for p, key in enumerate(level.pattern_keys.tolist()):
            mine, theirs = key & 0xFFFF, key >> 16
            assert level.pattern_keys[level.swap[p]] == theirs | mine << 16
            for i in range(level.k):
                for j in range(level.k):
                    c = level.child[p, i, j]
                    assert levels[level.k - 1].pattern_keys[c] == child_key(key, i, j)


@pytest.mark.parametrize("n", [1, 4, 6, 9])
def test_columns_keep_one_value_of_each_antisymmetric_pair(n):
    """The halved layout: every pattern's column holds it or its mirror image (the record
    p <= swap p, sign +1 for itself, -1 for the mirror), each pair once, in rank order; its
    size is the closed form, and the controlled orders' layout is the identity."""
    for level in build_levels(n):
        columns = level.columns()
        ranks = np.arange(level.patterns)
        assert columns.count == column_count(n, level.k) == (level.patterns + 1) // 2
        assert (np.diff(columns.patterns) > 0).all()  # rank order: the columns' patterns
        held = columns.patterns[columns.column]
        assert ((held == ranks) | (held == level.swap)).all()  # p or its mirror image
        assert (held <= level.swap[held]).all()  # the record of the pair
        assert ((columns.mirror == 1) == (held == ranks)).all()
        assert (columns.column == columns.column[level.swap]).all()  # a pair shares a column
        every = level.columns(antisymmetric=False)
        assert (every.column == ranks).all() and (every.mirror == 1).all()
        if level.k:
            below = build_levels(n)[level.k - 1].columns()
            assert (level.below_columns().column == below.column).all()


@pytest.mark.parametrize("antisymmetric", [True, False])
def test_composed_child_columns_fill_the_same_games(antisymmetric):
    """The level kernel's composed child table (exact.kernels.points.child_columns) builds
    every game of a level bit for bit as fill_matrix does from child, column and mirror."""
    from exact.kernels.points import child_columns, fill_matrix, fill_solved

    rng = np.random.default_rng(5)
    for level in build_levels(7)[2:]:
        solved = level.canonical_patterns if antisymmetric else np.arange(level.patterns)
        solved = solved.astype(np.int32)
        column, mirror = child_columns(level, solved, antisymmetric)
        children = level.below_columns(antisymmetric)
        below = rng.standard_normal((level.prize_child.max() + 1, children.count))
        k = level.k
        A, B = np.empty((k, k)), np.empty((k, k))
        for q in rng.choice(solved.shape[0], size=min(40, solved.shape[0]), replace=False):
            r, m = rng.integers(level.prize_sets), rng.integers(k)
            p = solved[q]
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
            fill_solved(
                B,
                k,
                q,
                p,
                r,
                m,
                level.sign,
                level.prize_child,
                level.prize_card,
                below,
                column,
                mirror,
            )
            assert A.tobytes() == B.tobytes()
