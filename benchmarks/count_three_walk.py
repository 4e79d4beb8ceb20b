"""Count the positions the three-player NashConv walk visits, without walking it.

    python benchmarks/count_three_walk.py N [--tie-rule split|third|discard]

:func:`exact.three.nashconv.nashconv` proves a top-objective solution by walking every
position of the game in actual cards: (the three hands, the prizes left, the points so
far), each once.  Here the same positions are enumerated level by level as integer keys
in numpy (every upcard left, every bid profile; random prize order), so that the walk's
size, and its memory (about 270 bytes a position in its dict and table), is known before
a walk of hours is started.  At N = 4 split the count, 24,187, is the walk's own
(``gops solve 4 --players 3 --objective top --json``: ``nashconv.positions``);
``tests/test_three.py`` holds the two together at N = 3.
"""

from __future__ import annotations

import argparse
import time
from itertools import product

import numpy as np

from exact.game.ties import TieRule, tie_rule_named

#: Bits of each player's points (half points: at most 2 * N(N + 1) / 2 = 72 at N = 8).
POINT_BITS = 7
#: Children held before they are merged into one sorted array.
MERGE_AT = 50_000_000


def _half_shares(bids: tuple[int, int, int], rule: TieRule) -> tuple[int, ...]:
    """Each player's share of a prize of 1, in half prizes (2 won alone, 1 split)."""
    return tuple(int(2 * x) for x in rule.score(1, bids))


def walk_levels(n: int, rule: TieRule) -> list[int]:
    """The positions with n, n - 1, ..., 0 cards left (random prize order, points kept)."""
    if not 1 <= n <= 8:
        raise ValueError(f"N must be 1..8 here, not {n}")
    nb, pb = n, POINT_BITS
    hand_mask, point_mask = (1 << nb) - 1, (1 << pb) - 1

    def encode(h0, h1, h2, prizes, s0, s1, s2):
        hands = ((h0 << nb | h1) << nb | h2) << nb | prizes
        return ((hands << pb | s0) << pb | s1) << pb | s2

    full = hand_mask
    level = np.array([encode(full, full, full, full, 0, 0, 0)], dtype=np.int64)
    counts = [1]
    for _ in range(n):
        s2, s1, s0 = level & point_mask, level >> pb & point_mask, level >> 2 * pb & point_mask
        rest = level >> 3 * pb
        prizes, h2, h1, h0 = (
            rest & hand_mask,
            rest >> nb & hand_mask,
            rest >> 2 * nb & hand_mask,
            rest >> 3 * nb,
        )
        kids: list[np.ndarray] = []
        for a, b, c in product(range(n), repeat=3):
            share = _half_shares((a + 1, b + 1, c + 1), rule)
            holds = (h0 >> a & 1) & (h1 >> b & 1) & (h2 >> c & 1)
            for u in range(n):
                at = (holds & (prizes >> u & 1)).astype(bool)
                if not at.any():
                    continue
                w = u + 1
                kids.append(
                    np.unique(
                        encode(
                            h0[at] ^ 1 << a,
                            h1[at] ^ 1 << b,
                            h2[at] ^ 1 << c,
                            prizes[at] ^ 1 << u,
                            s0[at] + share[0] * w,
                            s1[at] + share[1] * w,
                            s2[at] + share[2] * w,
                        )
                    )
                )
            if sum(len(k) for k in kids) > MERGE_AT:
                kids = [np.unique(np.concatenate(kids))]
        level = np.unique(np.concatenate(kids))
        counts.append(len(level))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("--tie-rule", default="split", choices=["split", "third", "discard"])
    args = parser.parse_args()
    start = time.process_time()
    counts = walk_levels(args.n, tie_rule_named(args.tie_rule))
    for left, count in zip(range(args.n, -1, -1), counts):
        print(f"{left} cards left: {count:,} positions")
    print(
        f"N = {args.n}, {args.tie_rule}: {sum(counts):,} positions in all "
        f"({time.process_time() - start:.0f} s of CPU)"
    )


if __name__ == "__main__":
    main()
