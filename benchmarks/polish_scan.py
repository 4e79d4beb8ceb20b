"""How often the float solver needs its polish, and how far off the simplex was there.

    python benchmarks/polish_scan.py --store DIR --level K

DIR is a store of the points objective (``gops solve N --store DIR``) with level K - 1
complete.  Every matrix game of level K is rebuilt from the stored level K - 1 and solved
again by the simplex; for each game the script takes the bound of the simplex's own
strategies and value (``value_error``) and the bound after the polish
(``certified_game``, exact/kernels/bounds.py), and prints the number of games the polish
touched, the largest bound before and after, and the largest change of a game value.
Single level, both cores (numba prange over prize sets).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numba
import numpy as np
from numba import prange

from exact.game.encoding import build_levels
from exact.kernels.bounds import POLISH_ABOVE, certified_game, guarantees, rounding_margin
from exact.kernels.matrix_game import game_buffers, solve_game_unchecked
from exact.kernels.points import fill_matrix

#: Columns of the per-prize-set results.
RAW, CERTIFIED, CHANGE, POLISHED, GAMES = range(5)


@numba.njit(parallel=True)
def scan(canon, k, child, sign, prize_child, prize_card, below, column, mirror, res, where):
    ncanon = canon.shape[0]
    for r in prange(prize_card.shape[0]):
        A, x, y = game_buffers(k)
        for q in range(ncanon):
            p = canon[q]
            for m in range(k):
                fill_matrix(
                    A, k, p, r, m, child, sign, prize_child, prize_card, below, column, mirror
                )
                v = solve_game_unchecked(A, k, x, y)
                lo, hi, a = guarantees(A, k, x, y)
                raw = max(v - lo, hi - v) + rounding_margin(k, a)
                w, e = certified_game(A, k, x, y, v)
                res[r, GAMES] += 1
                if raw > (1.0 + POLISH_ABOVE) * rounding_margin(k, a):
                    res[r, POLISHED] += 1
                for c, val in ((RAW, raw), (CERTIFIED, e), (CHANGE, abs(w - v))):
                    if val > res[r, c]:
                        res[r, c] = val
                        where[r, c, 0] = p
                        where[r, c, 1] = m


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", required=True, type=Path)
    ap.add_argument("--level", required=True, type=int)
    args = ap.parse_args()
    n = json.loads((args.store / "manifest.json").read_text())["n"]
    level = build_levels(n, args.level)[args.level]
    below = np.load(args.store / f"level-{args.level - 1}.npy")
    res = np.zeros((level.prize_sets, 5))
    where = np.zeros((level.prize_sets, 3, 2), dtype=np.int64)
    t0 = time.perf_counter()
    scan(
        level.canonical_patterns,
        level.k,
        level.child,
        level.sign,
        level.prize_child,
        level.prize_card,
        below,
        level.below_columns().column,
        level.below_columns().mirror,
        res,
        where,
    )
    print(
        f"N = {n}, level {args.level}: {int(res[:, GAMES].sum()):,} games in "
        f"{time.perf_counter() - t0:.0f} s; polished: {int(res[:, POLISHED].sum()):,}"
    )
    for c, name in (
        (RAW, "bound of the simplex's own solution"),
        (CERTIFIED, "bound after the polish"),
        (CHANGE, "change of a game value by the polish"),
    ):
        r = int(np.argmax(res[:, c]))
        print(
            f"largest {name}: {res[r, c]:.3e} (prize set {r}, pattern {where[r, c, 0]}, "
            f"upcard index {where[r, c, 1]})"
        )


if __name__ == "__main__":
    main()
