"""The checker's own canonical encoding of subgames (FORMAT.md, "Pattern").

A subgame before the next upcard is (V, Y, P): my hand, their hand, the prizes left, all of
k cards.  Its value depends on V and Y only through their *pattern*: list the cards of
V u Y in increasing order as positions 0..L-1; ``mine`` has bit p set when I hold the card
at position p, ``theirs`` when they do (both, for a card value both hold).  The hands that
the checker uses for a pattern are the smallest realising it: position p is card p + 1.

Only patterns with ``theirs <= mine`` are recorded; f(Y, V, P) = -f(V, Y, P) gives the
others (FORMAT.md, check 3).  This module is written from FORMAT.md alone and shares no
code with the solver's ``exact/game/encoding.py``.
"""

from __future__ import annotations

from functools import cache, lru_cache
from math import comb
from typing import NamedTuple

from .errors import InvalidCertificate
from .text import int_text


def popcount(mask: int) -> int:
    return bin(mask).count("1")


def positions(mask: int) -> list[int]:
    """The set bits of ``mask`` in increasing order.

    >>> positions(0b10110)
    [1, 2, 4]
    """
    return [p for p in range(mask.bit_length()) if mask >> p & 1]


def cards(mask: int) -> list[int]:
    """A card set (bit c-1 for card c) as its cards in increasing order.

    >>> cards(0b11001)
    [1, 4, 5]
    """
    return [p + 1 for p in positions(mask)]


def describe(mine: int, theirs: int, prizes: int, lead: int | None = None) -> str:
    """How error messages name a record.

    >>> describe(0b101, 0b011, 0b11001)
    'record mine=0b101 theirs=0b11 prizes={1,4,5}'
    >>> describe(0b1, 0b1, 0b1, 1)
    'record mine=0b1 theirs=0b1 prizes={1} lead=1'
    >>> describe(0b1, 0b1, 0b1, -10**5000)   # never str() of a big int
    'record mine=0b1 theirs=0b1 prizes={1} lead=~-1e+5000 (about 5,001 digits)'
    """
    text = (
        f"record mine={bin(mine)} theirs={bin(theirs)} "
        f"prizes={{{','.join(map(str, cards(prizes)))}}}"
    )
    return text if lead is None else f"{text} lead={int_text(lead)}"


def check_record_key(mine: int, theirs: int, prizes: int, k: int, n: int) -> None:
    """FORMAT.md check 1: a well-formed pattern and prize set of level k within n cards.

    Pattern: mine and theirs have k bits each, their union is exactly {0..L-1} with
    L <= n, and theirs <= mine.  Prizes: k cards among 1..n.
    """
    if mine < 0 or theirs < 0 or prizes < 0:
        raise InvalidCertificate("negative mask")
    if popcount(mine) != k or popcount(theirs) != k:
        raise InvalidCertificate(
            f"pattern has {popcount(mine)} and {popcount(theirs)} cards, level needs {k}"
        )
    union = mine | theirs
    if union & (union + 1):
        raise InvalidCertificate("pattern has a position held by nobody")
    if union.bit_length() > n:
        raise InvalidCertificate(f"pattern needs {union.bit_length()} cards, N = {n}")
    if theirs > mine:
        raise InvalidCertificate("pattern has theirs > mine (the swapped pattern is recorded)")
    if prizes >> n or popcount(prizes) != k:
        raise InvalidCertificate(f"prize set is not {k} cards among 1..{n}")


# ---------------------------------------------------------------------------------------
# Children: the pattern left after one bid each
# ---------------------------------------------------------------------------------------


class Child(NamedTuple):
    """The subgame left when I bid my i-th card and they bid their j-th card.

    ``sign`` = sign(V_i - Y_j); the child's value is ``negate`` times the recorded value of
    the (``mine``, ``theirs``) pattern, which has ``theirs <= mine``.
    """

    sign: int
    mine: int
    theirs: int
    negate: bool


def remove_bids(mine: int, theirs: int, bit_mine: int, bit_theirs: int) -> tuple[int, int]:
    """Pattern after I bid the card at position ``bit_mine`` and they the one at ``bit_theirs``.

    The two cards leave the hands; a position then held by nobody disappears and the
    positions above it move down, so the result is again a pattern.

    >>> remove_bids(0b011, 0b110, 0, 2)   # V = {1, 2}, Y = {2, 3}: bid 1 and 3
    (1, 1)
    >>> remove_bids(0b0101, 0b1010, 0, 3)   # V = {1, 3}, Y = {2, 4}: bid 1 and 4
    (2, 1)
    """
    mine &= ~(1 << bit_mine)
    theirs &= ~(1 << bit_theirs)
    new_mine = new_theirs = 0
    out = 0
    for p in range((mine | theirs).bit_length()):
        held_mine, held_theirs = mine >> p & 1, theirs >> p & 1
        if held_mine or held_theirs:
            new_mine |= held_mine << out
            new_theirs |= held_theirs << out
            out += 1
    return new_mine, new_theirs


@lru_cache(maxsize=1 << 16)
def children(mine: int, theirs: int) -> tuple[tuple[Child, ...], ...]:
    """``children(mine, theirs)[i][j]``: the :class:`Child` for bids V_i, Y_j.

    >>> children(0b1, 0b1)[0][0]
    Child(sign=0, mine=0, theirs=0, negate=False)
    >>> children(0b01, 0b10)[0][0].sign   # my 1 against their 2
    -1
    """
    rows = []
    for bi in positions(mine):
        row = []
        for bj in positions(theirs):
            cm, ct = remove_bids(mine, theirs, bi, bj)
            sign = (bi > bj) - (bi < bj)
            if ct <= cm:
                row.append(Child(sign, cm, ct, False))
            else:
                row.append(Child(sign, ct, cm, True))
        rows.append(tuple(row))
    return tuple(rows)


# ---------------------------------------------------------------------------------------
# How many records a level must hold
# ---------------------------------------------------------------------------------------


def pattern_count(n: int, k: int) -> int:
    """Patterns of two k-card hands within n cards (both orientations).

    A pattern with t cards in both hands has length L = 2k - t <= n: choose the t shared
    positions among L, C(L, t), then which k - t of the other 2(k - t) are mine only.

    >>> [pattern_count(5, k) for k in range(6)]
    [1, 3, 13, 43, 21, 1]
    """
    return sum(
        comb(2 * k - t, t) * comb(2 * (k - t), k - t) for t in range(k + 1) if 2 * k - t <= n
    )


def record_count(n: int, k: int) -> int:
    """R_k of FORMAT.md: canonical subgames of level k = patterns with theirs <= mine,
    times the C(n, k) prize sets.

    Swapping the players pairs the patterns; the only pattern equal to its swap is
    mine = theirs (all k cards shared, L = k <= n), so (count + 1) / 2 have theirs <= mine.

    >>> [record_count(3, k) for k in range(4)]
    [1, 6, 12, 1]
    """
    return (pattern_count(n, k) + 1) // 2 * comb(n, k)


# ---------------------------------------------------------------------------------------
# The win objective: leads (FORMAT.md, "Win records")
# ---------------------------------------------------------------------------------------


def lead_limit(n: int, prizes: int) -> int:
    """The largest |L| recorded for prize set P: min(sum P, T - sum P), T = n(n+1)/2.

    |L| <= sum P (beyond, the game is decided) and |L| <= T - sum P (the points already
    played: no larger lead is reachable from the root).

    >>> lead_limit(5, 0b11000)   # P = {4, 5}: 9 left, 6 played
    6
    """
    s = sum(cards(prizes))
    return min(s, n * (n + 1) // 2 - s)


def check_lead(mine: int, theirs: int, prizes: int, lead: int, n: int) -> None:
    """A win record's lead: |L| <= :func:`lead_limit`, and L >= 0 for identical hands
    (f(V, V, P, -L) = -f(V, V, P, L) gives the others).  A lead of any size (an Integer
    of up to 64 MiB) is compared, never turned to decimal text.

    >>> check_lead(1, 1, 1, 2**20000, 3)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    certificates.errors.InvalidCertificate: lead ~3.98027684e+6020 (about 6,021 digits) is
    outside -1..1
    """
    limit = lead_limit(n, prizes)
    if not -limit <= lead <= limit:
        raise InvalidCertificate(f"lead {int_text(lead)} is outside -{limit}..{limit}")
    if mine == theirs and lead < 0:
        raise InvalidCertificate(f"lead {lead} < 0 with identical hands (L >= 0 is recorded)")


@cache
def prize_sum_counts(n: int, k: int) -> dict:
    """How many k-card prize sets among 1..n have each sum: {sum: count}.

    >>> prize_sum_counts(4, 2)
    {3: 1, 4: 1, 5: 2, 6: 1, 7: 1}
    """
    table = [[0] * (n * (n + 1) // 2 + 1) for _ in range(k + 1)]  # table[j][s]
    table[0][0] = 1
    for card in range(1, n + 1):
        for j in range(min(card, k), 0, -1):
            row, prev = table[j], table[j - 1]
            for s in range(len(row) - 1, card - 1, -1):
                row[s] += prev[s - card]
    return {s: c for s, c in enumerate(table[k]) if c}


def win_record_count(n: int, k: int) -> int:
    """R_k of a win certificate: for each k-card prize set P with lim = min(sum P,
    T - sum P), 2 lim + 1 leads for each pattern with theirs < mine and lim + 1 (leads
    0..lim) for identical hands.  Level 0 has no record (no prize left: decided).

    >>> [win_record_count(3, k) for k in range(4)]
    [0, 24, 54, 1]
    """
    if k == 0:
        return 0
    others = (pattern_count(n, k) - 1) // 2  # theirs < mine; one identical pattern
    total_points = n * (n + 1) // 2
    return sum(
        count * (others * (2 * lim + 1) + lim + 1)
        for s, count in prize_sum_counts(n, k).items()
        for lim in [min(s, total_points - s)]
    )
