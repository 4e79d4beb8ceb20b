"""Predictive CFR+ on a restricted game (exact.imperfect.restricted_cfr): milliseconds an
iteration against the floor in the same run, the iteration's two sparse products alone
(A y and A^T x; the rest of an iteration is the numba passes over each player's
decisions, bottom up and top down).

The restricted games are the whole game of each N (every bid allowed), and at N = 7
(descending) the bids of a 7-card double oracle's checkpoint when --checkpoint7 names one.
Medians of --repeats runs of --iterations iterations each, after one warm-up run (numba
loads its kernels from the cache once per process).

    python benchmarks/bench_restricted_cfr.py --repeats 3
    python benchmarks/bench_restricted_cfr.py --repeats 3 --checkpoint7 oracle7.npz
"""

from __future__ import annotations

import time

import harness
import numpy as np

from exact.imperfect.certified import dyadic_rows
from exact.imperfect.checkpoint import read_support
from exact.imperfect.fast import best_response_actions
from exact.imperfect.game import ImperfectGame
from exact.imperfect.restricted import GameTree, closure, restricted_lp
from exact.imperfect.restricted_cfr import restricted_cfr


def whole(tree: GameTree):
    """Both players' sequences of the whole game."""
    everything = np.argmax(tree.legal, axis=1)
    return [closure(tree, p, tree.legal.copy(), everything) for p in (0, 1)]


def from_checkpoint(game: ImperfectGame, tree: GameTree, path):
    """Both players' sequences of a double oracle's checkpoint (its allowed bids, each
    decision they bring into play given its best bid against the uniform policy)."""
    allow = read_support(game, path).allow
    uniform = dyadic_rows(np.zeros(tree.legal.shape), tree.legal)
    _, q = best_response_actions(tree.where, uniform, uniform)
    return [closure(tree, p, allow[p] & tree.legal, np.argmax(q[p], axis=1)) for p in (0, 1)]


def per_iteration(fn, iterations: int, repeats: int) -> float:
    """Median milliseconds an iteration of ``fn(iterations)`` over ``repeats`` runs."""
    fn(2)
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(iterations)
        runs.append((time.perf_counter() - start) / iterations * 1000)
    return harness.median(runs)


def main():
    ap = harness.parser(__doc__, repeats=3, min_n=4, max_n=6)
    ap.add_argument("--iterations", type=int, default=200, help="iterations a run")
    ap.add_argument("--checkpoint7", default="", help="a 7-card descending points checkpoint")
    args = ap.parse_args()
    table = harness.Table(
        [
            ("game", "<26"),
            ("sequences", ">19"),
            ("nonzeros", ">12,"),
            ("products ms", ">12.2f"),
            ("iteration ms", ">13.2f"),
            ("ratio", ">6.2f"),
        ]
    )
    cases = [(n, "whole game", None) for n in range(args.min_n, args.max_n + 1)]
    if args.checkpoint7:
        cases.append((7, "checkpoint's bids", args.checkpoint7))
    print(table.head(), flush=True)
    for n, what, path in cases:
        game = ImperfectGame.parse(n, "descending", "points")
        tree = GameTree.of(game)
        built = restricted_lp(tree, *(from_checkpoint(game, tree, path) if path else whole(tree)))
        lp = built.lp
        b = lp.matrix()[: lp.n_ub, : lp.n_own].tocsr()
        bt = b.T.tocsr()
        x, y = np.full(lp.n_own, 0.5), np.full(lp.n_ub, 0.5)

        def products(iterations, b=b, bt=bt, x=x, y=y):
            for _ in range(iterations):
                bt @ y
                b @ x

        def solve(iterations, tree=tree, built=built):
            restricted_cfr(tree, built, 0.0, iterations)

        floor = per_iteration(products, args.iterations, args.repeats)
        full = per_iteration(solve, args.iterations, args.repeats)
        sequences = f"{lp.n_own:,} + {lp.n_ub:,}"
        print(table.row(f"{n} cards, {what}", sequences, b.nnz, floor, full, full / floor))


if __name__ == "__main__":
    harness.main_with_wall_time(main)
