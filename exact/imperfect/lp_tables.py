"""Player 0's sequence-form LP built straight from the tables' layout, in float64 arrays.

The LP is that of :mod:`exact.imperfect.exact_lp` (Koller, Megiddo & von Stengel,
"Efficient computation of equilibria for extensive two-person games", GEB 14, 1996;
Shoham & Leyton-Brown 2009, sec 5.2.3), in the form HiGHS takes it, row-wise (CSR):

    max_{x, q}  f^T q   s.t.  F^T q - A^T x <= 0   (one row per sequence t of player 1)
                              E x = e               (x[empty] = 1; one row per decision)
                              x >= 0,  q free        (one q per row of F)

with E x = e and F y = f the realization-plan constraints of player 0 and player 1 and A
player 0's payoff at pairs of sequences (:mod:`exact.imperfect.sequence_form`).  The
duals of the first rows, negated, are player 1's equilibrium plan y.

Indexing invariant.  A sequence of player p is a cell (row, card) of the tables of
:mod:`exact.imperfect.tables` (``layout(game)``): ``row`` a decision of p
(``reachable_rows(where, p)``) and ``card`` legal there (``legal_rows(where)``); cell
(row, card) is the flat number ``row * N + card - 1``.  Player p's sequence columns are
the empty sequence, 0, then the sequence cells in increasing flat number, 1, 2, ...:

    columns[p][row, card - 1] = 1 + #{sequence cells of p before (row, card)}
                                (-1 where (row, card) is not a sequence of p)

so that, for a plan z of player p, the behaviour strategy of the tables is

    sigma[row, card - 1] = z[columns[p][row, card - 1]] / z[parents[p][row]]

(Koller et al. 1996; :meth:`TableLP.behaviour`, one array expression, no loop over
decisions), ``parents[p][row]`` being the column of the sequence that leads to
the decision (0, the empty sequence, in round 0), read off the row's mixed-radix parts:
the prizes and own bids without the last digit, the winners without the last round, and
the last own bid.  The LP's columns are x (player 0's sequence columns), then q: column
``n_own`` for F's row y[empty] = 1, column ``n_own + k`` for player 1's k-th decision row
(k = 1, 2, ... in increasing row).  Its rows are player 1's sequence columns (row t is
the constraint of player 1's sequence t), then E: x[empty] = 1, then one row per decision
of player 0 in increasing table row.  Entries of A: a terminal history of the last
decision round L = max(N - 2, 0) (prizes, both players' L bids, then bids a and b; the
last round plays itself from N >= 2 on) is the only one at its pair of sequences, its
entry chance * return computed as one rounded quotient (the float nearest the exact
rational, as ``float(Fraction)``), and zero entries are left out.  Every row's columns
are increasing.

>>> from exact.imperfect.game import ImperfectGame
>>> built = table_lp(ImperfectGame.parse(2, "descending", "points"))
>>> built.lp.n_own, built.lp.n_ub, built.lp.num_col  # x[()], x[1], x[2]; q[0], q[decision]
(3, 3, 5)
>>> built.lp.matrix().toarray()  # rows: y's 3 sequences, then x[()] = 1, x[1] + x[2] = x[()]
array([[ 0. ,  0. ,  0. ,  1. , -1. ],
       [ 0. ,  0. , -0.5,  0. ,  1. ],
       [ 0. ,  0.5,  0. ,  0. ,  1. ],
       [ 1. ,  0. ,  0. ,  0. ,  0. ],
       [-1. ,  1. ,  1. ,  0. ,  0. ]])

(P0 bids 2 and P1 bids 1 on the prize 2, then the last round plays itself, 1 against 2:
P0 wins 2 points, P1 1, so A[x[2], y[1]] = (2 - 1)/2 and the row of y[1] holds -1/2 at
x[2].)  The same code serves the random order (its prizes are one more mixed-radix part
of the rows, its chance weight 1/N! in every entry).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np
import scipy.sparse

from exact.errors import GopsInputError
from exact.imperfect.game import IMP_INFO, ImperfectGame
from exact.imperfect.tables import (
    Layout,
    _card_of_rank,
    layout,
    legal_rows,
    parent_cells,
    reachable_rows,
)

__all__ = ["SequenceFormLP", "TableLP", "table_lp"]

#: HiGHS's "no bound".
INFINITY = np.inf


@dataclass(frozen=True)
class SequenceFormLP:
    """Player 0's LP (module docstring) as HiGHS takes it: the matrix row-wise (``start``,
    ``index`` int32, ``value`` float64), the columns' cost and bounds, the rows' bounds;
    ``n_own`` columns of x come first, ``n_ub`` rows F^T q - A^T x <= 0 first."""

    start: np.ndarray
    index: np.ndarray
    value: np.ndarray
    col_cost: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    n_own: int
    n_ub: int

    @property
    def num_col(self) -> int:
        return len(self.col_cost)

    @property
    def num_row(self) -> int:
        return len(self.row_lower)

    def matrix(self) -> scipy.sparse.csr_array:
        return scipy.sparse.csr_array(
            (self.value, self.index, self.start), shape=(self.num_row, self.num_col)
        )

    @classmethod
    def from_rows(cls, ub, eq, e, n_own: int, f) -> SequenceFormLP:
        """The LP of sparse rows ({column: coefficient}, as ``exact_lp.lp_rows`` gives
        them): ``ub`` the rows <= 0, ``eq`` the rows = ``e``; ``f`` the costs of q."""
        counts = [len(row) for row in [*ub, *eq]]
        start = np.zeros(len(counts) + 1, dtype=np.int32)
        np.cumsum(counts, out=start[1:])
        index = np.empty(start[-1], dtype=np.int32)
        value = np.empty(start[-1])
        k = 0
        for row in [*ub, *eq]:
            for j, v in sorted(row.items()):
                index[k], value[k] = j, float(v)
                k += 1
        return cls._of(start, index, value, n_own, len(f), len(ub), [float(v) for v in e],
                       [float(v) for v in f])  # fmt: skip

    @classmethod
    def _of(cls, start, index, value, n_own, n_q, n_ub, e, f) -> SequenceFormLP:
        return cls(
            start,
            index,
            value,
            np.concatenate([np.zeros(n_own), -np.asarray(f, dtype=np.float64)]),
            np.concatenate([np.zeros(n_own), np.full(n_q, -INFINITY)]),
            np.full(n_own + n_q, INFINITY),
            np.concatenate([np.full(n_ub, -INFINITY), np.asarray(e, dtype=np.float64)]),
            np.concatenate([np.zeros(n_ub), np.asarray(e, dtype=np.float64)]),
            n_own,
            n_ub,
        )


@numba.njit(cache=True, nogil=True)
def _sequence(index, digits, n, out):
    """The cards of the sequence numbered ``index`` (mixed radix N, N - 1, ...) in order."""
    for j in range(digits - 1, -1, -1):
        out[j] = index % (n - j)
        index //= n - j
    mask = 0
    for j in range(digits):
        out[j] = _card_of_rank(mask, out[j], n)
        mask |= 1 << (out[j] - 1)
    return mask


@numba.njit(cache=True, nogil=True)
def _payoff(g, fixed, prize_seqs, own_seqs, offsets, col0, col1, cursor, index, value):
    """The entries -A[s, t] of the rows F^T q - A^T x <= 0 (module docstring): every
    terminal history of the last decision round L, in the order prizes, player 0's L
    bids, player 1's, then a, b (so each row's columns come increasing).  Without
    ``index`` (length 0) it counts each row's entries into ``cursor[t]``; with it, it
    writes them at ``cursor[t]`` and moves the cursor on.  ``g``: N, L, order code, win,
    and the denominator of chance (N! in the random order, else 1)."""
    n, last, order, win, chance = g[0], g[1], g[2], g[3], g[4]
    fill = len(index) > 0
    pow3 = 3**last
    n_seq = own_seqs[last]
    bids = np.zeros((n_seq, max(last, 1)), dtype=np.int64)
    masks = np.zeros(n_seq, dtype=np.int64)
    for s in range(n_seq):
        masks[s] = _sequence(s, last, n, bids[s])
    prizes = np.zeros(last + 1, dtype=np.int64)
    for pidx in range(prize_seqs[last]):
        if order == 0:
            pmask = _sequence(pidx, last + 1, n, prizes)
        else:
            pmask = 0
            for j in range(last + 1):
                prizes[j] = fixed[j]
                pmask |= 1 << (fixed[j] - 1)
        last_prize = 0
        for card in range(1, n + 1):
            if not pmask & (1 << (card - 1)):
                last_prize = card
        base = offsets[last] + pidx * n_seq * pow3
        for s0 in range(n_seq):
            for s1 in range(n_seq):
                widx, diff, weight = 0, 0, 1
                for j in range(last):
                    a, b = bids[s0, j], bids[s1, j]
                    if a > b:
                        diff += prizes[j]
                    elif b > a:
                        diff -= prizes[j]
                        widx += weight
                    else:
                        widx += 2 * weight
                    weight *= 3
                row0 = base + s0 * pow3 + widx
                row1 = base + s1 * pow3 + widx
                for a in range(1, n + 1):
                    if masks[s0] & (1 << (a - 1)):
                        continue
                    s = col0[row0 * n + a - 1]
                    for b in range(1, n + 1):
                        if masks[s1] & (1 << (b - 1)):
                            continue
                        lead = diff + (prizes[last] if a > b else -prizes[last] if b > a else 0)
                        if n >= 2 and last_prize > 0:
                            c0 = c1 = 0
                            for card in range(1, n + 1):
                                bit = 1 << (card - 1)
                                if not (masks[s0] | (1 << (a - 1))) & bit:
                                    c0 = card
                                if not (masks[s1] | (1 << (b - 1))) & bit:
                                    c1 = card
                            lead += last_prize if c0 > c1 else -last_prize if c1 > c0 else 0
                        if lead == 0:
                            continue
                        t = col1[row1 * n + b - 1]
                        if fill:
                            if win:
                                entry = (1.0 if lead > 0 else -1.0) / chance
                            else:
                                entry = lead / (2.0 * chance)
                            index[cursor[t]] = s
                            value[cursor[t]] = -entry
                        cursor[t] += 1


@dataclass(frozen=True)
class TableLP:
    """Player 0's LP of a game and the map between its columns and the tables' cells
    (module docstring): ``columns[p]`` (rows, N) is player p's sequence column of each
    cell (-1: not a sequence), ``parents[p]`` (rows,) the column of the sequence leading
    to each decision row of p (-1: not a decision)."""

    game: ImperfectGame
    where: Layout
    lp: SequenceFormLP
    columns: tuple[np.ndarray, np.ndarray]
    parents: tuple[np.ndarray, np.ndarray]
    payoff_nonzeros: int

    @property
    def sequences(self) -> tuple[int, int]:
        """Each player's number of sequences (the empty one included)."""
        return self.lp.n_own, self.lp.n_ub

    def behaviour(self, player: int, plan: np.ndarray) -> np.ndarray:
        """``sigma[row, card - 1]`` = plan[sequence] / plan[parent] at each decision of
        ``player`` whose parent is reached (plan > 0); 0 elsewhere (the tables' rows
        before :func:`~exact.imperfect.certified.dyadic_rows`)."""
        columns, parents = self.columns[player], self.parents[player]
        reach = np.where(parents >= 0, plan[np.maximum(parents, 0)], 0.0)
        cells = columns >= 0
        sigma = np.where(cells, plan[np.maximum(columns, 0)], 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            sigma = np.where(cells & (reach > 0)[:, None], sigma / reach[:, None], 0.0)
        return sigma


def _columns(where: Layout, decisions: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """A player's sequence column of each cell (module docstring)."""
    cells = (decisions[:, None] & legal).ravel()
    columns = np.full(cells.size, -1, dtype=np.int64)
    columns[cells] = np.arange(1, np.count_nonzero(cells) + 1)
    return columns


def table_lp(game: ImperfectGame) -> TableLP:
    """Player 0's sequence-form LP of ``game`` (module docstring), built in arrays."""
    if game.information != IMP_INFO:
        raise GopsInputError("the LP of the tables is built for OpenSpiel's imp_info game")
    where = layout(game)
    a = where.arrays()
    n, rows, last = where.n, where.rows, where.last
    legal = legal_rows(where)
    decisions = (reachable_rows(where, 0), reachable_rows(where, 1))
    parent_row, parent_card = parent_cells(where)
    flat = [_columns(where, decisions[p], legal) for p in (0, 1)]
    parents = []
    for p in (0, 1):
        parent = np.where(
            parent_row >= 0, flat[p][np.maximum(parent_row, 0) * n + parent_card - 1], 0
        )
        parent[~decisions[p]] = -1
        if np.any(parent[decisions[p]] < 0):
            raise AssertionError("a decision's parent is not a sequence")  # pragma: no cover
        parents.append(parent)
    n_own = 1 + int(np.count_nonzero(flat[0] >= 0))
    n_ub = 1 + int(np.count_nonzero(flat[1] >= 0))
    decision_rows = [np.flatnonzero(decisions[p]) for p in (0, 1)]
    n_q = 1 + len(decision_rows[1])

    # The rows F^T q - A^T x <= 0: row t holds -A[., t] (x columns), then q's of F's row
    # that t is a sequence of (n_own for t = 0, else its decision's), then -1 at the q
    # of each decision t leads to (their rows increase, so do their q columns).
    cursor = np.zeros(n_ub, dtype=np.int64)
    g = np.array([n, last, where.order, int(where.objective_win),
                  math.factorial(n) if where.shuffled else 1],
                 dtype=np.int64)  # fmt: skip
    none = np.zeros(0, dtype=np.int32)
    tables = (a["fixed"], a["prize_sequences"], a["own_sequences"], a["offsets"])
    _payoff(g, *tables, flat[0], flat[1], cursor, none, np.zeros(0))
    payoff_nonzeros = int(cursor.sum())
    children = np.bincount(parents[1][decision_rows[1]], minlength=n_ub)
    counts = cursor + 1 + children
    eq_counts = np.concatenate([[1], 1 + legal[decision_rows[0]].sum(axis=1)])
    start = np.zeros(n_ub + len(eq_counts) + 1, dtype=np.int64)
    np.cumsum(np.concatenate([counts, eq_counts]), out=start[1:])
    if start[-1] >= 2**31:
        raise GopsInputError(f"the LP has {start[-1]:,} nonzeros, beyond HiGHS's 32-bit index")
    index = np.empty(start[-1], dtype=np.int32)
    value = np.empty(start[-1])
    cursor = start[:n_ub].copy()
    _payoff(g, *tables, flat[0], flat[1], cursor, index, value)
    # sequence t's decision row: its cell's row; the q column of decision k: n_own + k
    q_of_row = np.zeros(rows, dtype=np.int64)
    q_of_row[decision_rows[1]] = n_own + 1 + np.arange(len(decision_rows[1]))
    seq_rows = np.concatenate([[-1], np.flatnonzero(flat[1] >= 0) // n])
    own_q = np.where(seq_rows >= 0, q_of_row[np.maximum(seq_rows, 0)], n_own)
    index[cursor] = own_q
    value[cursor] = 1.0
    cursor += 1
    child_parent = parents[1][decision_rows[1]]
    order = np.argsort(child_parent, kind="stable")  # rows increasing within a parent
    slot = cursor[child_parent[order]] + _rank_within(child_parent[order])
    index[slot] = q_of_row[decision_rows[1][order]]
    value[slot] = -1.0

    # E x = e: x[empty] = 1, then per decision of player 0 its bids minus its parent.
    eq = start[n_ub]
    index[eq], value[eq] = 0, 1.0
    d_rows = decision_rows[0]
    d_start = start[n_ub + 1 : -1]
    index[d_start] = parents[0][d_rows]
    value[d_start] = -1.0
    cells = flat[0].reshape(rows, n)[d_rows]
    bids = cells >= 0
    offsets_in_row = np.cumsum(bids, axis=1)
    where_bid = (d_start[:, None] + offsets_in_row)[bids]
    index[where_bid] = cells[bids]
    value[where_bid] = 1.0

    e = np.zeros(1 + len(d_rows))
    e[0] = 1.0
    f = np.zeros(n_q)
    f[0] = 1.0
    lp = SequenceFormLP._of(start.astype(np.int32), index, value, n_own, n_q, n_ub, e, f)
    columns = (flat[0].reshape(rows, n), flat[1].reshape(rows, n))
    return TableLP(game, where, lp, columns, (parents[0], parents[1]), payoff_nonzeros)


def _rank_within(groups: np.ndarray) -> np.ndarray:
    """For a sorted array, each entry's position within its run of equal values."""
    if len(groups) == 0:
        return groups
    starts = np.flatnonzero(np.concatenate([[True], groups[1:] != groups[:-1]]))
    runs = np.diff(np.concatenate([starts, [len(groups)]]))
    return np.arange(len(groups)) - np.repeat(starts, runs)
