"""The claims of sec 4 of Rhoads & Bartholdi (2012), read off recorded certified tables:
upcard N is never answered by N - 1 or N - 2, and for even N never by 1.

    python benchmarks/frontier/sec4_claims.py benchmarks/frontier/points12-table.json ...

Each file is what ``gops table N --store DIR --certified --json`` printed.  A claim
"P(bid | upcard N) = 0" is *proved* where the column was certified the unique exact
equilibrium of its game and the bid's enclosure is [0, 0] (proved exactly 0), *refuted*
where the enclosure's lower end is positive, and *open* otherwise.  The proof is the one
``gops table --certified`` made when the file was written; this script only reads it
(``benchmarks/certified_paper.py`` certifies N = 5..13 afresh).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def claimed_zeros(n: int) -> list[int]:
    """The bids that sec 4 says never answer upcard N.

    >>> claimed_zeros(15), claimed_zeros(12)
    ([14, 13], [11, 10, 1])
    """
    return [n - 1, n - 2] + ([1] if n % 2 == 0 else [])


def verdict(column: dict, bid: int) -> str:
    """'proved', 'refuted' or 'open' for P(bid) = 0 in one certified column."""
    lo, hi = column["mine"][str(bid)]
    if column["unique_and_enclosed"] and lo == hi == 0.0:
        return "proved"
    return "refuted" if lo > 0.0 else "open"


def claims(table: dict) -> list[tuple[int, str]]:
    """(bid, verdict) for each claimed zero of a recorded table (upcard N's column)."""
    n = table["n"]
    certified = table.get("certified") or {}
    column = certified.get(str(n))
    if column is None:
        return [(bid, "open") for bid in claimed_zeros(n)]
    return [(bid, verdict(column, bid)) for bid in claimed_zeros(n)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="+", type=Path, help="gops table --certified --json")
    args = parser.parse_args(argv)
    every = True
    for path in args.tables:
        table = json.loads(path.read_text())
        found = claims(table)
        said = "; ".join(f"by {bid}: {what}" for bid, what in found)
        print(f"N={table['n']} {table['objective']}: upcard {table['n']} never answered {said}")
        every &= all(what == "proved" for _, what in found)
    return 0 if every else 1


if __name__ == "__main__":
    sys.exit(main())
