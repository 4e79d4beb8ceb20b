"""Warm-started matrix games (:func:`exact.kernels.matrix_game.solve_game_warm`) on the real
sequence of games of a GOPS solve, against the cold simplex.

The games of levels k of the N-card solve (points objective, random prize order) are
replayed in the level kernel's loop order (exact.kernels.points.solve_items): for each
prize set r, for each upcard m, for each canonical pattern.  Every game is built from the
solved level below exactly as the kernel builds it (u * sign + the child's value; a
copy of fill_matrix reading a full pattern-indexed row, so that this file does not
depend on the store layout of the level below), and solved by

* ``cold``: solve_game_unchecked (the simplex; what the kernels do now);
* ``prev``: solve_game_warm with the support of the previous game in loop order (the
  previous pattern, same upcard; one integer of state);
* ``upcard``: solve_game_warm with the same item's support at the previous upcard (a
  per-item memo, one integer per item of the prize set; the first upcard is solved
  cold);
* ``prizeset``: solve_game_warm with the support of the same pattern and upcard (its
  rank m in the prize set) in the previous prize set (a memo of k integers per
  pattern; the first prize set cold);
* ``card``: the same with the upcard's value u instead of its rank: the support of the
  same pattern in the last prize set that turned up u (a memo of N integers per
  pattern).

A chain of two guesses (prizeset, and on a miss upcard) was tried and is not worth its
second attempt (N = 10: 70-73% hits instead of 65-67%, 0.7-0.9x the cold time).

Hit rates (the share of games whose guess was accepted, by guess) come from a separate,
untimed pass, which also checks every warm value against the cold one: both are
certified (exact.kernels.bounds.certified_game), so |v_warm - v_cold| <= e_warm + e_cold
must hold, and an accepted guess must never be polished.

Times: each mode replays the whole level (or ``--prize-sets`` consecutive ones) in chunks
of whole prize sets (>= ~20,000 games), the modes interleaved in every repeat, each
mode's memo carried from chunk to chunk.  Two figures per mode, both with the time of
a ``fill`` pass (the same loop building the matrices, no solve) subtracted: ``min``, the
sum over the chunks of each chunk's best time over the repeats (robust on a shared
machine: a slow spell spoils single chunks of single repeats), and ``med``, the median
over the repeats of the level's total.  Speedups: cold / mode of the ``min`` times, and
the median over the repeats of cold / mode (the baseline always from the same run).

Results (2 shared cores, load 4-5: the 'min' columns; the medians scatter by 20-50%).
N = 10, whole levels 6..9 (3.3M, 2.1M, 240k, 4k games): hit rates prev 21-41%, upcard
13-39%, prizeset 65-69%, card 71-73%; speedup of the solve against cold: prev
0.64-0.88, upcard 0.76-0.83, prizeset 0.89-1.17, card 0.80-1.18.  N = 11, 60 prize sets
of levels 7..9 (3.5M, 2.5M, 0.5M games): hits prizeset 66-69%, card 72-74%; speedup
prizeset 1.06-1.27, card 1.09-1.35 (prev and upcard 0.62-0.89).  Every warm value
within the certified bounds of the cold one (at most 0.23 of e_warm + e_cold), no
accepted guess polished.  Per game (real games, interleaved, best of 30-40): a hit
costs 0.45-0.55 of the cold simplex (k = 6..8: 0.23 / 0.42, 0.31 / 0.56, 0.37 / 0.81
us), a miss 0.45-0.55 of it on top; certified_game adds ~0.08-0.11 us to either.

Not implemented, measured on 3,000 real games per k (N = 10): iterated weak dominance
would shrink the games of k = 6, 7, 8 to 4.1, 5.4, 6.5 rows (13% of the k = 7 games
unchanged; a strictly dominated line in 58-61% of them), for an O(k^3) test per game;
pure saddles are 0-2.5% of the games (the cold path tests them first anyway).

Run:  python benchmarks/bench_matrix_game_warm.py [--n 10] [--levels 6 7 8 9]
      [--repeats 5] [--prize-sets COUNT]
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numba
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from exact.kernels.bounds import certified_game  # noqa: E402
from exact.kernels.matrix_game import (  # noqa: E402
    NO_REFCOUNT,
    solve_game_unchecked,
    solve_game_warm,
    solve_on_support,
)

MODES = ("fill", "cold", "prev", "upcard", "prizeset", "card")


@numba.njit(cache=True, nogil=True, **NO_REFCOUNT)
def fill_full(A, k, p, r, m, child, sign, prize_child, prize_card, full):
    """A[i, j] = u * sign(V_i - Y_j) + f(child pattern, P - u), u the m-th card of P, from
    a pattern-indexed value array ``full`` of the level below (the kernel's fill_matrix
    before the columns layout; the same bits)."""
    u = prize_card[r, m]
    row = full[prize_child[r, m]]
    for i in range(k):
        for j in range(k):
            A[i, j] = u * sign[p, i, j] + row[child[p, i, j]]


def full_values(sol, k):
    """Level k of a Solution as a (prize sets, patterns) array: expanded from the columns
    layout (one value per antisymmetric pair) if the store keeps that."""
    vals = np.asarray(sol.values[k])
    level = sol.levels[k]
    if vals.shape[1] != level.patterns:
        cols = level.columns()
        vals = vals[:, cols.column] * cols.mirror
    return np.ascontiguousarray(vals, dtype=np.float64)


@numba.njit(cache=True, nogil=True)
def replay(mode, k, canon, child, sign, prize_child, prize_card, full, prize_sets, memo):
    """Replay the games of the given prize sets in the kernel's order; returns the sum of
    the game values (so that nothing is optimised away).  ``mode``: index into MODES;
    ``memo``: see :func:`new_memo` (carried from call to call, so that a level can be
    replayed in chunks of prize sets)."""
    A = np.empty((k, k))
    x = np.empty(k)
    y = np.empty(k)
    nc = canon.shape[0]
    total = 0.0
    prev = memo[k + 1, 0]
    for r in prize_sets:
        for m in range(k):
            card = k + 2 + prize_card[r, m]
            for q in range(nc):
                fill_full(A, k, canon[q], r, m, child, sign, prize_child, prize_card, full)
                if mode == 0:
                    v = A[0, 0]
                elif mode == 1:
                    v = solve_game_unchecked(A, k, x, y)
                elif mode == 2:
                    v, prev = solve_game_warm(A, k, x, y, prev)
                elif mode == 3:
                    v, memo[k, q] = solve_game_warm(A, k, x, y, memo[k, q] if m > 0 else 0)
                elif mode == 4:
                    v, memo[m, q] = solve_game_warm(A, k, x, y, memo[m, q])
                else:
                    v, memo[card, q] = solve_game_warm(A, k, x, y, memo[card, q])
                total += v
    memo[k + 1, 0] = prev
    return total


def new_memo(k, n, patterns):
    """Zero memos of every mode: rows 0..k-1 prizeset (by upcard rank), row k upcard,
    [k + 1, 0] prev, row k + 2 + u card (by upcard value u = 1..n)."""
    return np.zeros((k + 3 + n, patterns), dtype=np.int64)


@numba.njit(cache=True, nogil=True)
def count(k, canon, child, sign, prize_child, prize_card, full, prize_sets, memo, stats):
    """The untimed pass: hit counts and the certified comparison with the cold solve.

    stats[0] games, stats[1 + 2 g] tries and stats[2 + 2 g] hits of guess g = 0 (prev),
    1 (upcard), 2 (prizeset), 3 (card); [9] largest |v_warm - v_cold| / (e_warm + e_cold)
    over accepted guesses; [10] accepted guesses that certified_game polished; [11]
    games with a pure saddle point; [12] sum of the support sizes (for the mean).
    """
    A = np.empty((k, k))
    x = np.empty(k)
    y = np.empty(k)
    xc = np.empty(k)
    yc = np.empty(k)
    nc = canon.shape[0]
    prev = 0
    for r in prize_sets:
        for m in range(k):
            card = k + 2 + prize_card[r, m]
            for q in range(nc):
                fill_full(A, k, canon[q], r, m, child, sign, prize_child, prize_card, full)
                vc, code = solve_game_warm(A, k, xc, yc, 0)
                vc, ec = certified_game(A, k, xc, yc, vc)
                stats[0] += 1
                size = 0
                for i in range(k):
                    size += xc[i] > 0.0
                stats[11] += size == 1
                stats[12] += size
                for g in range(4):
                    if g == 0:
                        guess = prev
                    elif g == 1:
                        guess = memo[k, q] if m > 0 else 0
                    elif g == 2:
                        guess = memo[m, q]
                    else:
                        guess = memo[card, q]
                    if guess == 0:
                        continue
                    stats[1 + 2 * g] += 1
                    ok, v = solve_on_support(A, k, x, y, guess)
                    if ok:
                        stats[2 + 2 * g] += 1
                        w, e = certified_game(A, k, x, y, v)
                        if w != v:  # polished: the accepted strategies were not enough
                            stats[10] += 1
                        stats[9] = max(stats[9], abs(w - vc) / (e + ec))
                prev = code
                memo[k, q] = code
                memo[m, q] = code
                memo[card, q] = code


def _level_args(sol, k, count):
    """The replay's arguments for level k: every prize set, or ``count`` consecutive ones
    from the middle of the level (colex order; a memo needs the previous prize set)."""
    level = sol.levels[k]
    full = full_values(sol, k - 1)
    count = level.prize_sets if count is None else min(count, level.prize_sets)
    first = (level.prize_sets - count) // 2
    prize_sets = np.arange(first, first + count, dtype=np.int64)
    canon = np.ascontiguousarray(level.canonical_patterns)
    return (
        k,
        canon,
        level.child,
        level.sign,
        level.prize_child,
        level.prize_card,
        full,
        prize_sets,
    )


def main(argv=None):
    import exact

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10, help="cards (default 10)")
    ap.add_argument("--levels", type=int, nargs="+", default=[6, 7, 8, 9])
    ap.add_argument("--repeats", type=int, default=5, help="timed repeats (default 5)")
    ap.add_argument(
        "--prize-sets",
        type=int,
        default=None,
        help="replay only this many consecutive prize sets of each level, from "
        "its middle (default: the whole level)",
    )
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    sol = exact.solve(args.n)
    print(
        f"N = {args.n}: float solve {time.perf_counter() - t0:.1f} s "
        f"(numba threads {numba.get_num_threads()}; the replay is serial)"
    )

    rows = []
    for k in args.levels:
        la = _level_args(sol, k, args.prize_sets)
        nc = la[1].shape[0]
        sets = la[-1]
        games = sets.shape[0] * k * nc
        memo = new_memo(k, args.n, nc)
        stats = np.zeros(13)
        count(*la, memo, stats)
        n = stats[0]
        hits = [stats[2 + 2 * g] / max(stats[1 + 2 * g], 1.0) for g in range(4)]
        assert stats[9] <= 1.0, f"k = {k}: a warm value outside the certified bounds"
        # chunks of whole prize sets, >= ~20,000 games each
        per = max(1, -(-20_000 // (k * nc)))
        chunks = [sets[i : i + per] for i in range(0, sets.shape[0], per)]
        for mode in range(len(MODES)):  # compile / load every path
            replay(mode, *la[:-1], chunks[0][:1], new_memo(k, args.n, nc))
        best = np.full((len(MODES), len(chunks)), np.inf)
        totals = np.zeros((len(MODES), args.repeats))
        for rep in range(args.repeats):
            for mode in range(len(MODES)):
                memo[:] = 0
                for c, chunk in enumerate(chunks):
                    t = time.perf_counter()
                    replay(mode, *la[:-1], chunk, memo)
                    dt = time.perf_counter() - t
                    best[mode, c] = min(best[mode, c], dt)
                    totals[mode, rep] += dt
        us_min = {name: 1e6 * best[i].sum() / games for i, name in enumerate(MODES)}
        us_med = {name: 1e6 * float(np.median(totals[i])) / games for i, name in enumerate(MODES)}
        ratio = {
            name: float(np.median((totals[1] - totals[0]) / (totals[i] - totals[0])))
            for i, name in enumerate(MODES)
            if i > 0
        }
        rows.append((k, games, hits, us_min, us_med, ratio))
        print(
            f"k = {k}: {games:,} games; hit rates prev {hits[0]:.1%}, upcard {hits[1]:.1%}, "
            f"prizeset {hits[2]:.1%}, card {hits[3]:.1%} (of the games with a guess); "
            f"saddles {stats[11] / n:.1%}, mean support {stats[12] / n:.2f}; "
            f"max |v_warm - v_cold| / (e_warm + e_cold) {stats[9]:.2g}, "
            f"accepted guesses polished: {int(stats[10])}",
            flush=True,
        )

    print()
    print(
        "hit = accepted guesses / games with a guess (upcard: m > 0; prizeset, card: "
        "after the first prize set with that upcard)"
    )
    print(
        "us/game (solve only: the fill subtracted): 'min' = sum over chunks of prize sets "
        "of the best time over the repeats,"
    )
    print(
        "'med' = median over the repeats of the whole level; x mode = cold / mode, both "
        "fill-subtracted (min: of the 'min' times; med: median over repeats of the ratio)"
    )
    head = (
        f"{'k':>2} {'games':>10} {'hit prev':>9} {'hit upcard':>11} {'hit prizeset':>13} "
        f"{'hit card':>10} {'fill':>6}"
    )
    for name in MODES[1:]:
        head += f" {name:>15}"
    print(head)
    sub = f"{'':>2} {'':>10} {'':>9} {'':>11} {'':>13} {'':>10} {'min':>6}"
    for _ in MODES[1:]:
        sub += f" {'min / med us':>15}"
    print(sub)
    for k, games, hits, us_min, us_med, _ in rows:
        line = (
            f"{k:>2} {games:>10,} {hits[0]:>9.1%} {hits[1]:>11.1%} {hits[2]:>13.1%} "
            f"{hits[3]:>10.1%} {us_min['fill']:>6.3f}"
        )
        for name in MODES[1:]:
            line += f" {us_min[name] - us_min['fill']:>7.3f} {us_med[name] - us_med['fill']:>7.3f}"
        print(line)
    print()
    print(f"{'k':>2} " + " ".join(f"{'x ' + name + ' min/med':>20}" for name in MODES[2:]))
    for k, _, _, us_min, _, ratio in rows:
        cold = us_min["cold"] - us_min["fill"]
        print(
            f"{k:>2} "
            + " ".join(
                f"{cold / (us_min[name] - us_min['fill']):>13.2f} {ratio[name]:>6.2f}"
                for name in MODES[2:]
            )
        )


if __name__ == "__main__":
    main()
