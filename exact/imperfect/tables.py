"""The decisions of imperfect-information Goofspiel as flat numpy arrays, indexed once,
for the numba best responses of :mod:`exact.imperfect.fast`.

A decision of a player after r rounds is its :data:`~exact.imperfect.game.InfoKey`
(prizes turned up, the current one last; own bids; the winners of the r rounds).  Each
part is a number in a mixed radix, so that a key is a row of a dense table computed from
the key alone, the same for both players, with no dictionary:

- prizes: the rank of each prize among the prizes still down when it was turned
  (radices N, N - 1, ..., N - r): ``prize_sequences[r] = N! / (N - r - 1)!`` rows in the
  random order, 1 in a fixed order (its prizes are known);
- own bids: the rank of each bid among the cards still in hand (radices N, ..., N - r + 1):
  ``own_sequences[r] = N! / (N - r)!``;
- winners: base 3, round j the digit of weight 3^j (0 or 1 the winner, 2 a tie).

    row(r, key) = offsets[r] + (prizes * own_sequences[r] + own) * 3^r + winners

Rows cover the decisions of rounds 0 .. ``last`` (the last round is played automatically
from N >= 2 on, so ``last`` = max(N - 2, 0)); a row that no play reaches is never read
and stays 0.  A policy is two arrays ``sigma[player][row, card - 1]`` of float64
probabilities: the uniform policy fills every entry of a round-r row with 1/(N - r) (the
kernels read only the cards in hand), a table policy its distributions, each Fraction
rounded to the nearest float (the float error bound of :mod:`exact.imperfect.nashconv`
counts that rounding).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numba
import numpy as np

from exact.errors import GopsInputError
from exact.game.objectives import WIN
from exact.game.orders import ASCENDING, DESCENDING, RANDOM
from exact.imperfect.fast import _decode, _rank
from exact.imperfect.game import TIE, ImperfectGame, InfoKey
from exact.imperfect.policy import Policy

__all__ = [
    "KERNEL_ORDER",
    "MEMORY_SHARE",
    "Layout",
    "check_memory",
    "layout",
    "legal_rows",
    "mirror_rows",
    "own_reach",
    "parent_cells",
    "policy_arrays",
    "reachable_rows",
    "table_bytes_limit",
]

#: The kernels' code of each prize order.
KERNEL_ORDER = {RANDOM: 0, DESCENDING: 1, ASCENDING: 2}
#: The share of this machine's physical memory that the tables of one computation (a
#: NashConv, a CFR+ run) may take: beyond it a one-line GopsInputError says what they
#: would need.  On a 24 GiB machine, 12 GiB: 8 cards in a fixed order need 4.0 GiB for a
#: NashConv and 8.1 GiB for CFR+, 6 cards random 4.2 and 8.5, 9 cards 120 and 246.
MEMORY_SHARE = 0.5
#: The memory assumed where the machine's cannot be read (bytes).
ASSUMED_MEMORY = 8 * 2**30


def table_bytes_limit() -> int:
    """The most memory the tables of one computation may take (:data:`MEMORY_SHARE`)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = ASSUMED_MEMORY
    return int(total * MEMORY_SHARE)


def check_memory(game: ImperfectGame, need: int, what: str) -> None:
    """A one-line GopsInputError where ``need`` bytes of ``what`` exceed
    :func:`table_bytes_limit`."""
    limit = table_bytes_limit()
    if need > limit:
        raise GopsInputError(
            f"the {what} of {game.n}-card imperfect-information goofspiel "
            f"({game.order.name} order) would need {need / 2**30:.1f} GiB, more than the "
            f"{limit / 2**30:.1f} GiB allowed (half of this machine's memory)"
        )


@dataclass(frozen=True)
class Layout:
    """Where each decision's row lies (module docstring).  ``fixed`` is the prize of
    each round in a fixed order (empty in the random order)."""

    n: int
    last: int
    order: int
    objective_win: bool
    fixed: tuple[int, ...]
    prize_sequences: tuple[int, ...]
    own_sequences: tuple[int, ...]
    offsets: tuple[int, ...]

    @property
    def rows(self) -> int:
        return self.offsets[-1]

    @property
    def shuffled(self) -> bool:
        """Whether the prizes come in the random order (``order`` is its kernel code)."""
        return self.order == KERNEL_ORDER[RANDOM]

    @property
    def last_rows(self) -> int:
        """Rows of the last decision round (its counterfactual values are a table)."""
        return self.offsets[-1] - self.offsets[-2]

    def bytes_needed(self) -> int:
        """Both players' policies, best-response values and last-round action values."""
        return 8 * (2 * self.rows * self.n + 2 * self.rows + 2 * self.last_rows * self.n)

    def cfr_bytes_needed(self) -> int:
        """CFR+'s state (both players' strategies, regrets and averages), its last-round
        action values, reaches and values, and the legal cards."""
        n = self.n
        return 8 * (6 * self.rows * n + 2 * self.last_rows * n + 3 * self.rows) + self.rows * n

    def arrays(self) -> dict[str, np.ndarray]:
        """The layout as int64 arrays, as the kernels take it."""
        return {
            "fixed": np.array(self.fixed or (0,), dtype=np.int64),
            "prize_sequences": np.array(self.prize_sequences, dtype=np.int64),
            "own_sequences": np.array(self.own_sequences, dtype=np.int64),
            "offsets": np.array(self.offsets, dtype=np.int64),
        }

    def row(self, key: InfoKey) -> int:
        """The row of a decision (module docstring).  With 3 cards, descending: round 0
        is row 0, round 1 rows 1-9 (own first bid 1, 2, 3 by winner 0, 1, tie).

        >>> where = layout(ImperfectGame.parse(3, "descending"))
        >>> where.offsets, where.row(((3, 2), (1,), (1,))), where.row(((3, 2), (3,), (TIE,)))
        ((0, 1, 10), 2, 9)
        """
        prizes, own, winners = key
        r = len(own)
        prize_index = _ranks(prizes, self.n) if self.shuffled else 0
        winner_index = sum((2 if w == TIE else w) * 3**j for j, w in enumerate(winners))
        return (
            self.offsets[r]
            + (prize_index * self.own_sequences[r] + _ranks(own, self.n)) * 3**r
            + winner_index
        )

    def key(self, row: int) -> InfoKey:
        """The decision of a row (the inverse of :meth:`row`; a row no play reaches has a
        key too).

        >>> where = layout(ImperfectGame.parse(3, "descending"))
        >>> where.key(2), where.key(9)
        (((3, 2), (1,), (1,)), ((3, 2), (3,), (-3,)))
        """
        r = next(r for r in range(self.last + 1) if row < self.offsets[r + 1])
        index, winner_index = divmod(row - self.offsets[r], 3**r)
        prize_index, own_index = divmod(index, self.own_sequences[r])
        if self.shuffled:
            prizes = _cards_of(prize_index, r + 1, self.n)
        else:
            prizes = self.fixed[: r + 1]
        winners = []
        for _ in range(r):
            winner_index, digit = divmod(winner_index, 3)
            winners.append(TIE if digit == 2 else digit)
        return prizes, _cards_of(own_index, r, self.n), tuple(winners)


def _cards_of(index: int, length: int, n: int) -> tuple[int, ...]:
    """The sequence of distinct cards numbered ``index`` (the inverse of :func:`_ranks`)."""
    ranks = []
    for j in range(length - 1, -1, -1):
        index, rank = divmod(index, n - j)
        ranks.append(rank)
    left = list(range(1, n + 1))
    return tuple(left.pop(rank) for rank in reversed(ranks))


def _ranks(cards, n: int) -> int:
    """The mixed-radix number of a sequence of distinct cards: each card's rank among
    those not yet in the sequence."""
    used: set[int] = set()
    index = 0
    for j, card in enumerate(cards):
        index = index * (n - j) + card - 1 - sum(1 for c in used if c < card)
        used.add(card)
    return index


def layout(game: ImperfectGame) -> Layout:
    """The layout of ``game``'s decisions; a one-line GopsInputError where its
    best-response tables would need more than :func:`table_bytes_limit`."""
    n = game.n
    last = max(n - 2, 0)
    fixed: list[int] = []
    if game.order is not RANDOM:
        while len(fixed) < n:
            prize = game.next_prize(tuple(fixed))
            assert prize is not None
            fixed.append(prize)
    random = game.order is RANDOM
    prizes = tuple(math.perm(n, r + 1) if random else 1 for r in range(last + 1))
    own = tuple(math.perm(n, r) for r in range(last + 1))
    offsets = [0]
    for r in range(last + 1):
        offsets.append(offsets[-1] + prizes[r] * own[r] * 3**r)
    result = Layout(
        n,
        last,
        KERNEL_ORDER[game.order],
        game.objective is WIN,
        tuple(fixed),
        prizes,
        own,
        tuple(offsets),
    )
    check_memory(game, result.bytes_needed(), "best-response tables")
    return result


def policy_arrays(layout: Layout, policy: Policy) -> tuple[np.ndarray, np.ndarray]:
    """Both players' probabilities, ``sigma[player][row, card - 1]`` (module docstring)."""
    n = layout.n
    if policy.arrays is not None:  # a policy file's, filled as it was read
        return policy.arrays
    sigmas = (np.zeros((layout.rows, n)), np.zeros((layout.rows, n)))
    if policy.tables is None:  # uniform: 1/(cards in hand) at every row of round r
        for sigma in sigmas:
            for r in range(layout.last + 1):
                sigma[layout.offsets[r] : layout.offsets[r + 1]] = 1 / (n - r)
        return sigmas
    for player, sigma in enumerate(sigmas):
        for key, distribution in policy.tables[player].items():
            row = sigma[layout.row(key)]
            for card, probability in distribution:
                row[card - 1] = float(probability)
    return sigmas


@numba.njit(cache=True, nogil=True)
def _legal(n, last, order, prize_seqs, own_seqs, offsets, legal):
    """legal[row, card - 1]: the cards still in hand at each row."""
    for r in range(last + 1):
        pow3 = 3**r
        for pidx in range(prize_seqs[r]):
            for sidx in range(own_seqs[r]):
                own = _decode(sidx, r, n)
                base = offsets[r] + (pidx * own_seqs[r] + sidx) * pow3
                for widx in range(pow3):
                    for a in range(1, n + 1):
                        legal[base + widx, a - 1] = not own & (1 << (a - 1))


def legal_rows(where: Layout) -> np.ndarray:
    """legal[row, card - 1] of every row of the tables (reached or not): the cards still in
    the hand of the row's own bids.

    >>> legal_rows(layout(ImperfectGame.parse(3, "descending")))[[0, 1, 4]].astype(int)
    array([[1, 1, 1],
           [0, 1, 1],
           [1, 0, 1]])
    """
    a = where.arrays()
    legal = np.zeros((where.rows, where.n), dtype=np.bool_)
    _legal(where.n, where.last, where.order, a["prize_sequences"], a["own_sequences"],
           a["offsets"], legal)  # fmt: skip
    return legal


@numba.njit(cache=True, nogil=True)
def _reachable(n, last, player, own_seqs, starts, out):
    """out[starts[r] + own * 3^r + winners] for each (own bids, winners) of ``player``'s
    decisions in round r that some distinct bids of the opponent produce: depth first over
    both players' bids, an explicit stack (round r's bid pair (a, b) at a[r], b[r])."""
    own = np.zeros(last + 2, dtype=np.int64)
    opp = np.zeros(last + 2, dtype=np.int64)
    sidx = np.zeros(last + 2, dtype=np.int64)
    widx = np.zeros(last + 2, dtype=np.int64)
    a_at = np.ones(last + 2, dtype=np.int64)
    b_at = np.zeros(last + 2, dtype=np.int64)
    out[starts[0]] = True
    r = 0
    while r >= 0:
        if r == last:
            r -= 1
            continue
        b_at[r] += 1
        if b_at[r] > n:
            b_at[r] = 1
            a_at[r] += 1
        a, b = a_at[r], b_at[r]
        if a > n:
            r -= 1
            continue
        if own[r] & (1 << (a - 1)) or opp[r] & (1 << (b - 1)):
            continue
        digit = 2 if a == b else (player if a > b else 1 - player)
        pow3 = 3**r
        own[r + 1] = own[r] | (1 << (a - 1))
        opp[r + 1] = opp[r] | (1 << (b - 1))
        sidx[r + 1] = sidx[r] * (n - r) + _rank(own[r], a)
        widx[r + 1] = widx[r] + digit * pow3
        out[starts[r + 1] + sidx[r + 1] * pow3 * 3 + widx[r + 1]] = True
        r += 1
        a_at[r], b_at[r] = 1, 0


def mirror_rows(where: Layout) -> np.ndarray:
    """mirror[row]: the row of the same prizes and own bids with the winners 0 and 1
    swapped (ties kept) -- a decision of one player seen as the other's.  The players of
    two-player Goofspiel are interchangeable, so player 0's decision ``row`` is player 1's
    ``mirror[row]``; an involution.

    >>> where = layout(ImperfectGame.parse(3, "descending"))
    >>> [where.key(int(row)) for row in mirror_rows(where)[[2, 9]]]
    [((3, 2), (1,), (0,)), ((3, 2), (3,), (-3,))]
    """
    out = np.empty(where.rows, dtype=np.int64)
    for r in range(where.last + 1):
        winners = np.arange(3**r)
        swapped = np.zeros(3**r, dtype=np.int64)
        for j in range(r):
            digit = winners // 3**j % 3
            swapped += np.where(digit == 2, 2, 1 - digit) * 3**j
        lo, hi = where.offsets[r], where.offsets[r + 1]
        blocks = np.arange((hi - lo) // 3**r, dtype=np.int64)[:, None] * 3**r
        out[lo:hi] = (lo + blocks + swapped[None, :]).ravel()
    return out


def reachable_rows(where: Layout, player: int) -> np.ndarray:
    """reachable[row]: whether the row is a decision of ``player`` (some bids of both
    players and some prizes reach it), for every row of the tables.  Whether bids reach
    a row does not depend on the prizes, so each round's block of (own bids, winners) is
    computed once and repeated for every prize sequence.

    >>> from exact.imperfect.game import ImperfectGame
    >>> where = layout(ImperfectGame.parse(3, "descending"))
    >>> [where.key(int(row))[1:] for row in np.flatnonzero(~reachable_rows(where, 0))]
    [((1,), (0,)), ((3,), (1,))]
    """
    sizes = [where.own_sequences[r] * 3**r for r in range(where.last + 1)]
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    block = np.zeros(int(starts[-1]), dtype=np.bool_)
    _reachable(where.n, where.last, player, np.array(where.own_sequences, dtype=np.int64),
               starts, block)  # fmt: skip
    out = np.empty(where.rows, dtype=np.bool_)
    for r in range(where.last + 1):
        rows = out[where.offsets[r] : where.offsets[r + 1]].reshape(where.prize_sequences[r], -1)
        rows[:] = block[starts[r] : starts[r + 1]]
    return out


@numba.njit(cache=True, nogil=True)
def _card_of_rank(mask, rank, n):
    """The card 1..N of the given rank (from 0) among those not in ``mask``."""
    seen = -1
    for card in range(1, n + 1):
        if not mask & (1 << (card - 1)):
            seen += 1
            if seen == rank:
                return card
    return 0


@numba.njit(cache=True, nogil=True)
def _parents(n, last, order, own_seqs, offsets, parent_row, parent_card):
    """Each row's parent decision row and the own bid made there (module docstring), -1
    and 0 in round 0: the last digit of each mixed-radix part dropped."""
    for r in range(last + 1):
        pow3 = 3**r
        for row in range(offsets[r], offsets[r + 1]):
            if r == 0:
                parent_row[row], parent_card[row] = -1, 0
                continue
            rest, widx = divmod(row - offsets[r], pow3)
            pidx, sidx = divmod(rest, own_seqs[r])
            prev_sidx, rank = divmod(sidx, n - r + 1)
            prev_pidx = pidx // (n - r) if order == 0 else 0
            prev = pow3 // 3
            parent_row[row] = offsets[r - 1] + (prev_pidx * own_seqs[r - 1] + prev_sidx) * prev
            parent_row[row] += widx % prev
            parent_card[row] = _card_of_rank(_decode(prev_sidx, r - 1, n), rank, n)


def parent_cells(where: Layout) -> tuple[np.ndarray, np.ndarray]:
    """Each row's parent decision row and the own bid made there (-1 and 0 in round 0),
    for every row of the tables (reached or not)."""
    a = where.arrays()
    parent_row = np.empty(where.rows, dtype=np.int64)
    parent_card = np.empty(where.rows, dtype=np.int64)
    _parents(where.n, where.last, where.order, a["own_sequences"], a["offsets"],
             parent_row, parent_card)  # fmt: skip
    return parent_row, parent_card


def own_reach(where: Layout, player: int, sigma: np.ndarray) -> np.ndarray:
    """reach[row]: the product of ``player``'s own probabilities ``sigma`` on the way to
    each of its decisions (its realization plan at the row's parent sequence; 1 in round
    0), 0 at rows that are not its decisions."""
    parent_row, parent_card = parent_cells(where)
    decisions = reachable_rows(where, player)
    reach = np.zeros(where.rows)
    reach[where.offsets[0] : where.offsets[1]] = 1.0
    for r in range(1, where.last + 1):
        rows = np.arange(where.offsets[r], where.offsets[r + 1])
        parent = parent_row[rows]
        reach[rows] = reach[parent] * sigma[parent, parent_card[rows] - 1]
    return np.where(decisions, reach, 0.0)
