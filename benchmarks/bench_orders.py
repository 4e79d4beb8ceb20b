"""Prize orders: what choosing the prizes is worth, and what each order costs to solve.

Part 1, the value of controlling the deck: for each N, the value at the start of the game
in which I choose every prize (``controlled-by-me``; the standard game and the known
orders are worth 0 at the start by symmetry, and the game in which they choose is its
mirror image).  Float, with its certified enclosure; exact (rational) for N <= --exact-max.

Part 2, speed: each order solved in memory at --speed-n, --repeats times (median), against
the standard random order measured in the same run: wall time, matrix games, games per
second.

    python benchmarks/bench_orders.py --max-n 12 --exact-max 6 --speed-n 11 --repeats 3
"""

from __future__ import annotations

import time

import harness

import exact
from exact.game.orders import ORDERS
from exact.kernels.points import warm_up


def value_table(max_n: int, exact_max: int) -> None:
    print(
        "N | value when I choose the prizes (float) | certified enclosure | exact | "
        "best first prizes | solve s"
    )
    print("---|---|---|---|---|---")
    for n in range(2, max_n + 1):
        cards = set(range(1, n + 1))
        t0 = time.perf_counter()
        sol = exact.solve(n, order="controlled-by-me")
        seconds = time.perf_counter() - t0
        value = sol.value(cards, cards, cards)
        lo, hi = sol.enclosure(cards, cards, cards)
        choices = sol.prize_values(cards, cards, cards)
        best = ",".join(str(u) for u, v in choices.items() if v == max(choices.values()))
        exact_text = ""
        if n <= exact_max:
            q = exact.solve(n, arithmetic="rational", order="controlled-by-me").value(
                cards, cards, cards
            )
            assert lo <= float(q) <= hi, (n, q, lo, hi)
            exact_text = str(q) if len(str(q)) <= 40 else f"{float(q):.15f} ({len(str(q))} chars)"
        print(
            f"{n} | {value:+.6f} | [{lo:.12f}, {hi:.12f}] | {exact_text} | {best} | {seconds:.1f}",
            flush=True,
        )


def speed(n: int, repeats: int) -> None:
    print(f"\nN = {n}, in memory, median of {repeats}:")
    print("order | wall s (runs) | matrix games | games/s | time / random")
    print("---|---|---|---|---")
    base = None
    for name in ORDERS:
        runs, games = [], 0
        for _ in range(repeats):
            t0 = time.perf_counter()
            sol = exact.solve(n, order=name)
            runs.append(time.perf_counter() - t0)
            games = sol.stats.matrix_games
        med = harness.median(runs)
        base = base or med
        print(
            f"{name} | {med:.2f} ({', '.join(f'{r:.2f}' for r in runs)}) | {games:,} | "
            f"{games / med:,.0f} | {med / base:.2f}",
            flush=True,
        )


def main():
    ap = harness.parser(__doc__, max_n=10, repeats=3)
    ap.add_argument("--exact-max", type=int, default=6)
    ap.add_argument("--speed-n", type=int, default=10)
    args = ap.parse_args()
    warm_up()
    exact.solve(4, order="controlled-by-me")  # compile the order paths outside the timing
    value_table(args.max_n, args.exact_max)
    if args.speed_n:
        speed(args.speed_n, args.repeats)


if __name__ == "__main__":
    harness.main_with_wall_time(main)
