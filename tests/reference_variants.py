"""Brute-force reference for the two-player variants (12-round game, random dummy).

Independent of ``exact``: raw positions (no relabelling), the round scored by its own
reading of the seed's rules, every matrix game by HiGHS (``reference.reference_game``).

    f(H0, H1, D, P) = 0 when H0 is empty, else (1/|P|) sum_{u in P} val(M_u),
    M_u[a][b] = mean over the dummy's card d in D (no mean without a dummy) of
                (player 0's points - player 1's from the round) + f(H0-a, H1-b, D-d, P-u).

Round scoring: with a dummy, the highest of the three bids takes the prize; two bidders
tied for highest get half each; all three tied: nobody.  Without a dummy the higher bid
takes it, a tie discards it.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from reference import reference_game


def round_difference(u: int, a: int, b: int, d: int | None) -> Fraction:
    """Player 0's points minus player 1's from one round (d None: no dummy)."""
    if d is None or d < max(a, b):
        return Fraction(u) * ((a > b) - (a < b))
    if d > max(a, b):
        return Fraction(0)  # the dummy takes it
    # d ties the highest bid
    if a == b:
        return Fraction(0)  # three-way tie
    return Fraction(u, 2) if a > b else Fraction(-u, 2)  # the high player halves with d


@cache
def reference_variant_value(
    h0: frozenset, h1: frozenset, dummy: frozenset | None, deck: frozenset
) -> float:
    if not h0:
        return 0.0
    total = 0.0
    for u in deck:
        total += reference_game(reference_variant_matrix(h0, h1, dummy, deck, u))[0]
    return total / len(deck)


def reference_variant_matrix(h0, h1, dummy, deck, u) -> list[list[float]]:
    rows = []
    for a in sorted(h0):
        row = []
        for b in sorted(h1):
            cards = sorted(dummy) if dummy is not None else [None]
            acc = 0.0
            for d in cards:
                rest_dummy = None if d is None else dummy - {d}
                acc += float(round_difference(u, a, b, d)) + reference_variant_value(
                    h0 - {a}, h1 - {b}, rest_dummy, deck - {u}
                )
            row.append(acc / len(cards))
        rows.append(row)
    return rows
