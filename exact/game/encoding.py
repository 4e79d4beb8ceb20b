"""Canonical subgames of GOPS and their perfect ranks.

The reduction
-------------
A subgame of N-card GOPS before the next upcard is turned is f(V, Y, P): my hand V, their
hand Y and the remaining prize set P, with |V| = |Y| = |P| = k (Rhoads & Bartholdi 2012,
sec 3).  Two facts shrink the state space:

1. *Only the interleaving of the hands matters.*  Let g be the order-preserving bijection
   from V u Y onto {0, ..., L-1}, L = |V u Y|.  Then f(V, Y, P) = f(g(V), g(Y), P).
   Proof: by induction on k.  For k = 0 both sides are 0.  For k > 0 the payoff matrix for
   upcard u is X_ij = u * sign(V_i - Y_j) + f(V - V_i, Y - Y_j, P - u).  The first term
   only compares two cards and g preserves comparisons; for the second, g restricted to
   the smaller hands is again order preserving, so the induction hypothesis applies.  The
   matrices are equal, hence so are their values and their mean over u.
   The prize set P is *not* relabelled: prize values enter the payoff.

   We call (g(V), g(Y)) the *pattern* of the hands: a word over {mine only, theirs only,
   both} of length L = 2k - t, where t = |V n Y|.  Patterns with t shared cards number
   (2k - t)! / (t! (k - t)! (k - t)!), and a pattern needs L <= N distinct cards.

2. *Antisymmetry.*  f(Y, V, P) = -f(V, Y, P), hence f(V, V, P) = 0.  Proof: exchanging the
   players turns each payoff matrix X into -X^T, whose value is minus the value of X
   (von Neumann's minimax theorem); induct on k as above.

A canonical subgame is therefore (pattern, P).  We store a pattern as two bitmasks over
positions 0..L-1 packed in one integer, ``key = mine_mask | theirs_mask << KEY_SHIFT``, and
rank the patterns of one level by sorting their keys: rank = index in the sorted array.
Prize sets of size k are ranked by the combinatorial number system (colex order), a dense
index 0 .. C(N, k) - 1.  A level's values live in a float array of shape
(C(N, k), number of patterns), prize-set-major, so that the k^2 children of one matrix game
(same P minus upcard, different patterns) sit in one row.

Transition tables (built once per N, all integer arrays):
- ``child[p, i, j]``: rank at level k-1 of the pattern left when I bid my i-th smallest card
  and they bid their j-th smallest from pattern p;
- ``sign[p, i, j]``: +1 if my card is higher, -1 if lower, 0 if it is the same card value;
- ``swap[p]``: rank of the pattern with the players exchanged;
- ``prize_child[r, m]``, ``prize_card[r, m]``: for prize set r and its m-th smallest card u,
  the rank of P - {u} at level k-1 and u itself.

Columns: one value per antisymmetric pair
-----------------------------------------
By antisymmetry (2.) a level keeps only one value of each pair {p, swap(p)}: its
*columns* are the record patterns p <= swap(p), in rank order (one per pair, the one pattern
of identical hands included, whose value the rules fix).  ``Columns.column[p]`` is the
column holding p or its mirror image and ``Columns.mirror[p]`` is +1 for a record, -1 for a
mirror image: f(V, Y, P) = mirror[p] * values[P, column[p]].  This halves every level
(:meth:`Level.columns`); a controlled prize order breaks antisymmetry and keeps every
pattern (the identity layout).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from math import comb

import numba
import numpy as np

from exact.errors import GopsInputError
from exact.game.counts import column_count as column_count
from exact.game.counts import pattern_count as pattern_count
from exact.limits import ENCODING_MAX_N, check_n

#: Largest N the encoding supports (masks of 16 bits; the float solver stops earlier).
MAX_CARDS = ENCODING_MAX_N
KEY_SHIFT = 16
_LOW16 = (1 << KEY_SHIFT) - 1


# ---------------------------------------------------------------------------------------
# Patterns
# ---------------------------------------------------------------------------------------


def enumerate_patterns(n: int, k: int) -> np.ndarray:
    """Sorted keys of every pattern of two k-card hands within n cards.

    A pattern of length L = 2k - t: choose the t positions held by both players, then
    which k - t of the remaining positions are mine only.
    """
    keys = []
    for t in range(k + 1):
        length = 2 * k - t
        if length > n:
            continue
        positions = range(length)
        for shared in combinations(positions, t):
            shared_mask = sum(1 << b for b in shared)
            rest = [b for b in positions if not shared_mask >> b & 1]
            full = (1 << length) - 1
            for only_mine in combinations(rest, k - t):
                mine = shared_mask | sum(1 << b for b in only_mine)
                theirs = full & ~mine | shared_mask
                keys.append(mine | theirs << KEY_SHIFT)
    out = np.array(sorted(keys), dtype=np.int64)
    assert len(out) == pattern_count(n, k)
    return out


@numba.njit(cache=True)
def _squeeze(mask: int, bit: int) -> int:
    """Remove position ``bit`` from ``mask``, shifting higher positions down by one."""
    low = mask & ((1 << bit) - 1)
    return low | ((mask >> (bit + 1)) << bit)


@numba.njit(cache=True)
def _nth_bit(mask: int, n: int) -> int:
    """Position of the n-th (0-based) set bit of ``mask``."""
    b = 0
    while True:
        if mask >> b & 1:
            if n == 0:
                return b
            n -= 1
        b += 1


@numba.njit(cache=True)
def child_key(key: int, i: int, j: int) -> int:
    """Pattern key after I bid my i-th smallest card and they bid their j-th smallest."""
    mine = key & 0xFFFF
    theirs = key >> 16
    bi = _nth_bit(mine, i)
    bj = _nth_bit(theirs, j)
    mine &= ~(1 << bi)
    theirs &= ~(1 << bj)
    # Positions nobody holds any more disappear (squeeze the higher one first).
    hi = max(bi, bj)
    lo = min(bi, bj)
    if not ((mine | theirs) >> hi) & 1:
        mine = _squeeze(mine, hi)
        theirs = _squeeze(theirs, hi)
    if lo != hi and not ((mine | theirs) >> lo) & 1:
        mine = _squeeze(mine, lo)
        theirs = _squeeze(theirs, lo)
    return mine | (theirs << 16)


@numba.njit(cache=True)
def _pattern_tables(keys, child_keys, k):
    """child[p, i, j], sign[p, i, j] and swap[p] for one level (see module docstring)."""
    count = keys.shape[0]
    child = np.empty((count, k, k), dtype=np.int32)
    sign = np.empty((count, k, k), dtype=np.int8)
    swap = np.empty(count, dtype=np.int32)
    for p in range(count):
        key = keys[p]
        mine = key & 0xFFFF
        theirs = key >> 16
        swap[p] = np.searchsorted(keys, theirs | (mine << 16))
        for i in range(k):
            bi = _nth_bit(mine, i)
            for j in range(k):
                bj = _nth_bit(theirs, j)
                sign[p, i, j] = 1 if bi > bj else (-1 if bi < bj else 0)
                child[p, i, j] = np.searchsorted(child_keys, child_key(key, i, j))
    return child, sign, swap


# ---------------------------------------------------------------------------------------
# Prize sets: colex rank of k-subsets of {1..n}
# ---------------------------------------------------------------------------------------


def prize_rank(cards) -> int:
    """Colex rank of a prize set among the sets of the same size (cards are 1-based).

    rank({c_0 < c_1 < ...}) = sum_m C(c_m - 1, m + 1).

    >>> [prize_rank(s) for s in ({1, 2}, {1, 3}, {2, 3}, {1, 4})]
    [0, 1, 2, 3]
    """
    return sum(comb(c - 1, m + 1) for m, c in enumerate(sorted(cards)))


def enumerate_prize_sets(n: int, k: int) -> np.ndarray:
    """Bitmasks (bit c-1 for card c) of the k-subsets of {1..n}, indexed by colex rank."""
    masks = np.empty(comb(n, k), dtype=np.int64)
    for subset in combinations(range(1, n + 1), k):
        masks[prize_rank(subset)] = sum(1 << (c - 1) for c in subset)
    return masks


def _prize_tables(masks: np.ndarray, k: int):
    count = masks.shape[0]
    prize_child = np.empty((count, k), dtype=np.int32)
    prize_card = np.empty((count, k), dtype=np.int32)
    for r, mask in enumerate(masks.tolist()):
        cards = [c + 1 for c in range(MAX_CARDS) if mask >> c & 1]
        for m, u in enumerate(cards):
            prize_card[r, m] = u
            prize_child[r, m] = prize_rank(c for c in cards if c != u)
    return prize_child, prize_card


# ---------------------------------------------------------------------------------------
# Levels
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Columns:
    """The columns of a level's value array (module docstring, *Columns*).

    >>> halved = Columns.halved(np.array([2, 1, 0], dtype=np.int32))  # 1 is self-swapped
    >>> halved.patterns.tolist(), halved.column.tolist(), halved.mirror.tolist()
    ([0, 1], [0, 1, 0], [1, 1, -1])
    """

    patterns: np.ndarray  # (columns,) int32: the pattern whose value each column holds
    column: np.ndarray  # (patterns,) int32: the column of pattern p or of its mirror image
    mirror: np.ndarray  # (patterns,) int8: +1 if column[p] holds f(p), -1 if it holds -f(p)

    @staticmethod
    def halved(swap: np.ndarray) -> Columns:
        """One column per pair {p, swap(p)}: the record p <= swap(p)."""
        ranks = np.arange(swap.shape[0], dtype=np.int32)
        record = ranks <= swap
        patterns = np.flatnonzero(record).astype(np.int32)
        column_of_record = np.cumsum(record, dtype=np.int64).astype(np.int32) - 1
        column = np.where(record, column_of_record, column_of_record[swap]).astype(np.int32)
        mirror = np.where(record, 1, -1).astype(np.int8)
        return Columns(patterns, column, mirror)

    @staticmethod
    def every(count: int) -> Columns:
        """One column per pattern (no antisymmetry: a controlled prize order)."""
        ranks = np.arange(count, dtype=np.int32)
        return Columns(ranks, ranks, np.ones(count, dtype=np.int8))

    @property
    def count(self) -> int:
        return int(self.patterns.shape[0])


@dataclass(frozen=True)
class Level:
    """Everything about the canonical subgames with k cards in each hand."""

    n: int
    k: int
    pattern_keys: np.ndarray  # (patterns,) int64, sorted
    prize_masks: np.ndarray  # (prize sets,) int64, by colex rank
    child: np.ndarray  # (patterns, k, k) int32: pattern rank at level k-1
    sign: np.ndarray  # (patterns, k, k) int8
    swap: np.ndarray  # (patterns,) int32
    prize_child: np.ndarray  # (prize sets, k) int32: prize rank at level k-1
    prize_card: np.ndarray  # (prize sets, k) int32: the upcard
    swap_below: np.ndarray = field(repr=False)  # swap of level k - 1 (empty at k = 0)

    def columns(self, antisymmetric: bool = True) -> Columns:
        """The columns of this level's values: one per antisymmetric pair, or (not
        ``antisymmetric``: a controlled prize order) one per pattern."""
        return _columns(self.__dict__, "own", self.swap, antisymmetric)

    def below_columns(self, antisymmetric: bool = True) -> Columns:
        """The columns of level k - 1, where this level's children are read."""
        return _columns(self.__dict__, "below", self.swap_below, antisymmetric)

    @property
    def patterns(self) -> int:
        return self.pattern_keys.shape[0]

    @property
    def prize_sets(self) -> int:
        return self.prize_masks.shape[0]

    @property
    def subgames(self) -> int:
        return self.patterns * self.prize_sets

    @property
    def record_patterns(self) -> np.ndarray:
        """Ranks p with p <= swap[p] (int32): one per pair {pattern, swapped pattern},
        identical hands included (the records an exact solve certifies)."""
        return np.flatnonzero(np.arange(self.patterns) <= self.swap).astype(np.int32)

    @property
    def canonical_patterns(self) -> np.ndarray:
        """Ranks p with p < swap[p]: one per pair {pattern, swapped pattern}.

        Self-swapped patterns (identical hands) are left out: their value is 0.
        """
        return np.flatnonzero(np.arange(self.patterns) < self.swap).astype(np.int32)

    @property
    def matrix_games(self) -> int:
        """Matrix games solved at this level: canonical half x prize sets x upcards."""
        return int(self.canonical_patterns.shape[0]) * self.prize_sets * self.k


def _columns(cache: dict, which: str, swap: np.ndarray, antisymmetric: bool) -> Columns:
    """Columns.halved(swap) or Columns.every(len(swap)), computed once per level (kept in
    the frozen Level's ``__dict__``)."""
    key = f"_columns_{which}_{antisymmetric}"
    if key not in cache:
        cache[key] = Columns.halved(swap) if antisymmetric else Columns.every(swap.shape[0])
    return cache[key]


@lru_cache(maxsize=8)
def build_levels(n: int, top: int | None = None) -> tuple[Level, ...]:
    """The levels k = 0..top (default n) of n-card GOPS with their transition tables.

    Levels below ``top`` suffice to value any position with at most ``top`` cards in hand:
    ``gops strategy`` on a late-game position of the 13-card game needs only a few.
    """
    n = check_n(n, MAX_CARDS)
    top = n if top is None else top
    if not 0 <= top <= n:
        raise GopsInputError(f"level {top} is outside 0..{n}")
    keys = [enumerate_patterns(n, k) for k in range(top + 1)]
    levels: list[Level] = []
    for k in range(top + 1):
        masks = enumerate_prize_sets(n, k)
        if k == 0:
            child = np.zeros((1, 0, 0), np.int32)
            sign = np.zeros((1, 0, 0), np.int8)
            swap = np.zeros(1, np.int32)
        else:
            child, sign, swap = _pattern_tables(keys[k], keys[k - 1], k)
        prize_child, prize_card = _prize_tables(masks, k)
        swap_below = levels[-1].swap if levels else np.zeros(0, np.int32)
        levels.append(
            Level(n, k, keys[k], masks, child, sign, swap, prize_child, prize_card, swap_below)
        )
    return tuple(levels)


# ---------------------------------------------------------------------------------------
# From cards to ranks
# ---------------------------------------------------------------------------------------


def pattern_key(mine, theirs) -> int:
    """Key of the pattern of two hands (any sets of ints of the same size).

    >>> pattern_key({2, 4}, {1, 3}) == pattern_key({12, 40}, {11, 13})
    True
    """
    cards = sorted(set(mine) | set(theirs))
    position = {c: b for b, c in enumerate(cards)}
    mine_mask = sum(1 << position[c] for c in mine)
    theirs_mask = sum(1 << position[c] for c in theirs)
    return mine_mask | theirs_mask << KEY_SHIFT


def pattern_rank(level: Level, mine, theirs) -> int:
    key = pattern_key(mine, theirs)
    rank = int(np.searchsorted(level.pattern_keys, key))
    if rank >= level.patterns or level.pattern_keys[rank] != key:
        raise GopsInputError("these hands do not fit in the game's cards")
    return rank


def key_hands(key: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The hands of a pattern as 1-based card tuples (the smallest cards realising it)."""
    mine, theirs = key & _LOW16, key >> KEY_SHIFT
    return (
        tuple(b + 1 for b in range(KEY_SHIFT) if mine >> b & 1),
        tuple(b + 1 for b in range(KEY_SHIFT) if theirs >> b & 1),
    )


def count_table(n: int) -> list[dict]:
    """Per level: patterns, prize sets, canonical subgames, matrix games to solve."""
    return [
        {
            "k": lv.k,
            "patterns": lv.patterns,
            "prize_sets": lv.prize_sets,
            "subgames": lv.subgames,
            "matrix_games": lv.matrix_games,
        }
        for lv in build_levels(n)
    ]
