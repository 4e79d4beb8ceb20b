"""The paper's tables and claims, certified (Rhoads & Bartholdi 2012, Tables 1 and 2, sec 4).

    python benchmarks/certified_paper.py --store13 DIR [--min-n 5] [--json FILE]

DIR is a store of the 13-card game (``gops solve 13 --store DIR``); N = 5..12 are solved
here in memory.  For every N the 13 (or N) first-move games are certified
(exact/analysis/certified.py): each exact probability is enclosed in an interval, and a
probability outside the float support is proved to be exactly 0.  Prints

1. per N: columns certified, the widest interval, and the claims of the paper's sec 4
   (upcard N: never bid N - 1 nor N - 2; upcard N with N even: never bid 1), each
   "proved", "refuted" (an interval excludes the claim) or "open" (not certified);
2. Table 2 (N = 13): every entry's enclosure against the rounding interval of the
   paper's three printed decimals (a printed 0 claims exactly 0); an entry whose
   enclosure misses that interval is a proven erratum; and the sec 4 claim that the first
   bid is a 1 only on upcards 3, 4, 7, 11 and 13; then all 169 entries as certified
   digits (the decimals that the two ends of the enclosure share, so every printed digit
   is proved; "0" where the probability is proved exactly 0), with ``--json FILE`` also
   every enclosure as a pair of floats;
3. Table 1 (N = 5): the paper's four decimals against the exact rational equilibrium.
"""

from __future__ import annotations

import argparse
import sys
import time
from decimal import ROUND_FLOOR, Decimal
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from paper_tables import TABLE_2  # noqa: E402

import exact  # noqa: E402
from exact.analysis.certified import certify_strategy  # noqa: E402
from test_paper import TABLE_1  # noqa: E402

#: Half a unit of the paper's last printed decimal (Table 2 prints three).
HALF_UNIT_3 = Fraction(1, 2000)


def certified_first_move(sol):
    cards = set(range(1, sol.n + 1))
    return {u: certify_strategy(sol, cards, cards, cards, u) for u in sorted(cards)}


def is_zero(game, bid):
    """'proved' if the exact P(bid) is 0, 'refuted' if it is provably positive."""
    if not game.certified:
        return "open"
    lo, hi = game.mine[bid - 1]
    if lo == hi == 0.0:
        return "proved"
    return "refuted" if lo > 0 else "open"


def claims(n, games):
    out = []
    g = games[n]
    out.append(
        (
            "upcard N: never N-1, N-2",
            min((is_zero(g, n - 1), is_zero(g, n - 2)), key=["refuted", "open", "proved"].index),
        )
    )
    if n % 2 == 0:
        out.append(("upcard N, N even: never 1", is_zero(g, 1)))
    return out


def table_2(games):
    errata, agree = [], 0
    for bid in range(1, 14):
        for u in range(1, 14):
            lo, hi = (Fraction(x) for x in games[u].mine[bid - 1])
            paper = Fraction(str(TABLE_2[bid - 1][u - 1]))
            low, high = (paper, paper) if paper == 0 else (paper - HALF_UNIT_3, paper + HALF_UNIT_3)
            if not games[u].certified:
                continue
            if hi < low or lo > high:
                errata.append((bid, u, TABLE_2[bid - 1][u - 1], float(lo), float(hi)))
            else:
                agree += 1
    return agree, errata


def certified_digits(lo: float, hi: float, places: int = 7) -> str:
    """The decimals shared by both ends of [lo, hi] (each digit proved), "0" if exactly 0.

    >>> certified_digits(0.0872999, 0.0873001), certified_digits(0.5, 0.5000001)
    ('0.087', '0.5000000')
    """
    if lo == hi == 0.0:
        return "0"
    # Exact decimal expansions truncated (floored) to ``places``: floor is monotone, so
    # a digit shared by floor(lo) and floor(hi) is shared by every number in between.
    unit = Decimal(1).scaleb(-places)
    a, b = (format(Decimal(t).quantize(unit, rounding=ROUND_FLOOR), "f") for t in (lo, hi))
    common = 0
    while common < len(a) and a[common] == b[common]:
        common += 1
    return a[:common] if common > 2 else "?"


def print_table_2(games, json_path=None):
    print("\n| bid \\ upcard | " + " | ".join(str(u) for u in range(1, 14)) + " |")
    print("|---" * 14 + "|")
    for bid in range(1, 14):
        cells = [
            certified_digits(*games[u].mine[bid - 1]) if games[u].certified else "open"
            for u in range(1, 14)
        ]
        print(f"| {bid} | " + " | ".join(cells) + " |")
    if json_path:
        import json

        enclosures = {
            str(u): [list(games[u].mine[b]) for b in range(13)] if games[u].certified else None
            for u in range(1, 14)
        }
        Path(json_path).write_text(json.dumps({"n": 13, "enclosures": enclosures}, indent=1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store13", required=True, help="a store of the 13-card game")
    ap.add_argument("--min-n", type=int, default=5)
    ap.add_argument("--json", help="write Table 2's 169 enclosures here")
    args = ap.parse_args()
    print(f"{'N':>3} {'certified':>10} {'widest':>9} {'radius':>9} {'s':>7}  sec 4 claims")
    all_games = {}
    for n in range(args.min_n, 14):
        t0 = time.perf_counter()
        sol = exact.load(args.store13, n=13) if n == 13 else exact.solve(n)
        games = certified_first_move(sol)
        all_games[n] = games
        ok = sum(g.certified for g in games.values())
        width = max(g.width for g in games.values())
        text = "; ".join(f"{c}: {v}" for c, v in claims(n, games))
        print(
            f"{n:>3} {ok:>6}/{n:<3} {width:>9.1e} {max(sol.radii):>9.1e} "
            f"{time.perf_counter() - t0:>7.1f}  {text}",
            flush=True,
        )
    games = all_games[13]
    agree, errata = table_2(games)
    certified = sum(g.certified for g in games.values())
    print(
        f"\nTable 2 (N = 13): {certified} of 13 columns certified; {agree} of "
        f"{13 * certified} entries consistent with the printed three decimals"
    )
    for bid, u, paper, lo, hi in errata:
        print(
            f"  erratum, proved: bid {bid} on upcard {u}: the paper prints {paper:.3f}, "
            f"the exact probability lies in [{lo:.7f}, {hi:.7f}]"
        )
    ones = [u for u in range(1, 14) if is_zero(games[u], 1) == "refuted"]
    zeros = [u for u in range(1, 14) if is_zero(games[u], 1) == "proved"]
    verdict = "proved" if ones == [3, 4, 7, 11, 13] and len(zeros) == 8 else "not proved"
    print(
        f"sec 4 'bid 1 only on upcards 3, 4, 7, 11, 13': {verdict} (positive on {ones}, "
        f"exactly 0 on {zeros})"
    )
    print_table_2(games, args.json)
    ex = exact.solve(5, arithmetic="rational").first_move_table()
    off = [
        (b, u, TABLE_1[b - 1][u - 1], float(ex[u][b]))
        for b in range(1, 6)
        for u in range(1, 6)
        if abs(ex[u][b] - Fraction(str(TABLE_1[b - 1][u - 1]))) > Fraction(1, 20000)
        and not (TABLE_1[b - 1][u - 1] == 0 and ex[u][b] == 0)
    ]
    print(
        f"\nTable 1 (N = 5) against the exact equilibrium: {25 - len(off)} of 25 entries "
        "equal to the printed decimals (within half a unit of the last)"
    )
    for b, u, paper, value in off:
        print(f"  bid {b} on upcard {u}: paper {paper}, exact {value:.7f}")


if __name__ == "__main__":
    main()
