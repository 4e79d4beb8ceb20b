"""The sequence-form LP of imperfect-information Goofspiel restricted to sets of bids,
built from the game tree without the whole LP.

A sequence of player p is a cell (row, card) of the tables of
:mod:`exact.imperfect.tables`: at the decision ``row`` p bids ``card``; the empty
sequence is implicit.  A decision's parent sequence is the cell (``parent_row``,
``parent_card``) of p's previous decision and bid (the empty sequence in round 0).

Restriction.  Given allowed cells ``allow[p][row, card - 1]``, a decision is *in play*
when its parent sequence is in S_p (round 0's always are), and S_p holds the allowed
legal bids of the decisions in play (:func:`closure`, round by round, giving a decision in
play with no allowed bid a default one).  S_p is closed under prefixes.

The LP.  Player 0's LP of the game where each player bids only within S_p is that of
:mod:`exact.imperfect.lp_tables` (Koller, Megiddo & von Stengel, GEB 14, 1996) with
x[s] = 0 off S_0 and the constraints of player 1's sequences off S_1 dropped:

    max_{x, q}  q[root]   s.t.  F^T q - A^T x <= 0   (one row per t in S_1)
                                E x = e               (x[empty] = 1; a row per decision
                                                       of player 0 in play)
                                x >= 0,  q free       (q[root], then one per decision of
                                                       player 1 in play)

with the same orders as the whole LP's (columns: x[empty], then S_0's cells by
increasing flat number row * N + card - 1, then q[root] and player 1's decisions in play
by increasing row; rows: S_1's sequences likewise, then E's), so that it is the whole
LP's submatrix of those rows and columns (tests/test_double_oracle.py checks it).  The
entries of A are found by walking only the histories both players reach within their
sets (:func:`_walk_pairs`, depth first; a terminal history of the last decision round is
the only one at its pair of sequences, its entry the return of
:func:`exact.imperfect.fast._return0` over chance's N!, 1 in a fixed order), so the work
and memory follow the restricted game, not the whole one: at 8 cards the whole LP would
hold about 1.5 billion payoff entries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np
import scipy.sparse

from exact.imperfect.fast import _rank, _return0
from exact.imperfect.game import ImperfectGame
from exact.imperfect.lp_tables import SequenceFormLP
from exact.imperfect.tables import (
    Layout,
    layout,
    legal_rows,
    parent_cells,
    reachable_rows,
)

__all__ = ["GameTree", "RestrictedLP", "closure", "in_play", "restricted_lp"]


@dataclass(frozen=True)
class GameTree:
    """The decisions of a game over the tables' rows: which cards are legal at each row,
    which rows are decisions of each player, and each row's parent cell."""

    game: ImperfectGame
    where: Layout
    legal: np.ndarray
    decisions: tuple[np.ndarray, np.ndarray]
    parent_row: np.ndarray
    parent_card: np.ndarray

    @classmethod
    def of(cls, game: ImperfectGame) -> GameTree:
        where = layout(game)
        parent_row, parent_card = parent_cells(where)
        decisions = (reachable_rows(where, 0), reachable_rows(where, 1))
        return cls(game, where, legal_rows(where), decisions, parent_row, parent_card)

    def sequences(self, player: int) -> int:
        """The number of ``player``'s sequences in the whole game (the empty one too)."""
        return 1 + int(np.count_nonzero(self.legal[self.decisions[player]]))

    def parent_cells(self, rows: np.ndarray) -> np.ndarray:
        """The flat cell number of each row's parent sequence (-1: the empty one)."""
        parent = self.parent_row[rows]
        cards = self.parent_card[rows]
        return np.where(parent >= 0, parent * self.where.n + cards - 1, -1)


def in_play(tree: GameTree, player: int, in_s: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Which of ``player``'s decision ``rows`` are in play: their parent sequence is in
    S (``in_s``, a bool per cell), the empty one always."""
    parent = tree.parent_row[rows]
    cards = tree.parent_card[rows]
    inside = in_s[np.maximum(parent, 0), np.maximum(cards - 1, 0)]
    return (parent < 0) | inside


def closure(tree: GameTree, player: int, allow: np.ndarray, default: np.ndarray) -> np.ndarray:
    """S of ``player`` (a bool per cell, shape (rows, N)) made by ``allow`` (module
    docstring), round by round; ``allow`` gains ``default[row]`` (a card index) at each
    decision in play with no allowed legal bid."""
    where, legal = tree.where, tree.legal
    in_s = np.zeros(legal.shape, dtype=bool)
    for r in range(where.last + 1):
        lo, hi = where.offsets[r], where.offsets[r + 1]
        rows = lo + np.flatnonzero(tree.decisions[player][lo:hi])
        rows = rows[in_play(tree, player, in_s, rows)]
        bare = rows[~(allow[rows] & legal[rows]).any(axis=1)]
        allow[bare, default[bare]] = True
        in_s[rows] = allow[rows] & legal[rows]
    return in_s


@numba.njit(cache=True, nogil=True)
def _walk_pairs(g, fixed, own_seqs, offsets, in0, in1, cursor, t_out, s_out, v_out, seen0, seen1):
    """Every terminal history of the last decision round L that both players reach within
    their sets ``in0``, ``in1`` (flat bool per cell), depth first from round 0 (an
    explicit stack, as :func:`exact.imperfect.fast._walk`): its entry -A[s, t] = -return
    / chance, written at ``cursor[0]`` onwards as (cell t of player 1, cell s of player 0,
    value), and each player's row at every history on the way marked in ``seen0``,
    ``seen1`` (where they are not empty); with empty outputs it only counts.  Returns the
    count.  ``g``: N, L, order code, win, chance's denominator."""
    n, last, order, win, chance = g[0], g[1], g[2], g[3], g[4]
    fill = len(t_out) > 0
    mark = len(seen0) > 0
    # per level: prize mask, prize index, prize, own masks, own indices, winners, lead, next
    st = np.zeros((last + 1, 10), dtype=np.int64)
    n_p = n if order == 0 else 1
    firsts = n if order == 0 else 1
    count = 0
    for first in range(firsts):
        p0 = first + 1 if order == 0 else fixed[0]
        st[0, 0], st[0, 1], st[0, 2] = 1 << (p0 - 1), p0 - 1 if order == 0 else 0, p0
        st[0, 3:10] = 0
        r = 0
        while r >= 0:
            h = st[r]
            pow3 = 3**r
            key0 = offsets[r] + (h[1] * own_seqs[r] + h[4]) * pow3 + h[7]
            key1 = offsets[r] + (h[1] * own_seqs[r] + h[5]) * pow3 + h[7]
            if mark:
                seen0[key0] = True
                seen1[key1] = True
            if r == last:
                for a in range(1, n + 1):
                    if h[3] & (1 << (a - 1)) or not in0[key0 * n + a - 1]:
                        continue
                    for b in range(1, n + 1):
                        if h[6] & (1 << (b - 1)) or not in1[key1 * n + b - 1]:
                            continue
                        ret = _return0(n, win, h[0], h[2], h[3], h[6], h[8], a, b)
                        if ret == 0.0:
                            continue
                        if fill:
                            t_out[count] = key1 * n + b - 1
                            s_out[count] = key0 * n + a - 1
                            v_out[count] = -ret / chance
                        count += 1
                r -= 1
                continue
            while h[9] < n * n * n_p:
                k = h[9]
                h[9] += 1
                a, b, p = k // (n * n_p) + 1, (k // n_p) % n + 1, k % n_p + 1
                if order != 0:
                    p = fixed[r + 1]
                elif h[0] & (1 << (p - 1)):
                    continue
                if h[3] & (1 << (a - 1)) or h[6] & (1 << (b - 1)):
                    continue
                if not in0[key0 * n + a - 1] or not in1[key1 * n + b - 1]:
                    continue
                c = st[r + 1]
                c[0] = h[0] | (1 << (p - 1))
                c[1] = h[1] * (n - r - 1) + _rank(h[0], p) if order == 0 else 0
                c[2] = p
                c[3], c[6] = h[3] | (1 << (a - 1)), h[6] | (1 << (b - 1))
                c[4] = h[4] * (n - r) + _rank(h[3], a)
                c[5] = h[5] * (n - r) + _rank(h[6], b)
                w = 0 if a > b else 1 if b > a else 2
                c[7] = h[7] + w * pow3
                c[8] = h[8] + (h[2] if w == 0 else -h[2] if w == 1 else 0)
                c[9] = 0
                r += 1
                break
            else:
                r -= 1
    return count


@dataclass(frozen=True)
class RestrictedLP:
    """Player 0's LP of the restricted game (module docstring) and its sequences:
    ``cells[p]`` the flat cell numbers of S_p, increasing (sequence k + 1 of the LP), and
    ``in_play[p]`` the rows of p's decisions in play, increasing (player 0's: E's rows 1,
    2, ...; player 1's: the columns of q after q[root])."""

    lp: SequenceFormLP
    cells: tuple[np.ndarray, np.ndarray]
    in_play: tuple[np.ndarray, np.ndarray]
    payoff_nonzeros: int
    #: Each player's rows (a bool per row of the tables) that some history of the
    #: restricted game reaches (both players bidding within their sets).
    seen: tuple[np.ndarray, np.ndarray]

    def behaviour(
        self, tree: GameTree, player: int, plan: np.ndarray, unseen_uniform: bool = False
    ) -> np.ndarray:
        """``sigma[row, card - 1]`` = plan[sequence] / plan[parent] at each cell of S_p
        whose parent is reached (plan > 0), 0 elsewhere (Koller et al. 1996); with
        ``unseen_uniform``, 0 also at each decision that no history of the restricted
        game reaches (``seen``: there the LP's plan is any split of its parent's, its
        payoffs all 0), so that :func:`~exact.imperfect.certified.dyadic_rows` makes it
        uniform over the legal cards."""
        n = tree.where.n
        cells = self.cells[player]
        rows = cells // n
        parents = tree.parent_cells(rows)
        parent_plan = np.where(
            parents >= 0, plan[1 + np.searchsorted(cells, np.maximum(parents, 0))], plan[0]
        )
        sigma = np.zeros(tree.legal.shape)
        own = plan[1 : 1 + len(cells)]
        reached = parent_plan > 0
        sigma.ravel()[cells[reached]] = own[reached] / parent_plan[reached]
        if unseen_uniform:
            sigma[~self.seen[player]] = 0.0
        return sigma


def restricted_lp(tree: GameTree, in0: np.ndarray, in1: np.ndarray) -> RestrictedLP:
    """Player 0's LP of the game restricted to the sequences ``in0`` of player 0 and
    ``in1`` of player 1 (bools per cell, closed: :func:`closure`), module docstring."""
    where, n = tree.where, tree.where.n
    a = where.arrays()
    g = np.array([n, where.last, where.order, int(where.objective_win),
                  math.factorial(n) if where.shuffled else 1],
                 dtype=np.int64)  # fmt: skip
    flat0, flat1 = in0.ravel(), in1.ravel()
    tables = (a["fixed"], a["own_sequences"], a["offsets"], flat0, flat1)
    none = np.zeros(0, dtype=np.int64)
    nowhere = np.zeros(0, dtype=bool)
    total = _walk_pairs(g, *tables, none, none, none, np.zeros(0), nowhere, nowhere)
    t_cell, s_cell, value = np.empty(total, np.int64), np.empty(total, np.int64), np.empty(total)
    seen = (np.zeros(where.rows, dtype=bool), np.zeros(where.rows, dtype=bool))
    _walk_pairs(g, *tables, none, t_cell, s_cell, value, *seen)
    cells = (np.flatnonzero(flat0), np.flatnonzero(flat1))
    n_own, n_ub = 1 + len(cells[0]), 1 + len(cells[1])

    def column(player: int, cell: np.ndarray) -> np.ndarray:  # -1: the empty sequence
        return np.where(cell >= 0, 1 + np.searchsorted(cells[player], np.maximum(cell, 0)), 0)

    d0 = np.flatnonzero(tree.decisions[0])
    d0 = d0[in_play(tree, 0, in0, d0)]
    d1 = np.flatnonzero(tree.decisions[1])
    d1 = d1[in_play(tree, 1, in1, d1)]
    n_q = 1 + len(d1)
    q_of = np.full(where.rows, -1, dtype=np.int64)
    q_of[d1] = n_own + 1 + np.arange(len(d1))
    parts_r, parts_c, parts_v = [column(1, t_cell)], [column(0, s_cell)], [value]
    # F^T q: sequence t at q of its decision (q[root] for the empty one), -1 at the q of
    # each decision in play that t leads to
    parts_r += [np.arange(n_ub), column(1, tree.parent_cells(d1))]
    parts_c += [np.concatenate([[n_own], q_of[cells[1] // n]]), q_of[d1]]
    parts_v += [np.ones(n_ub), np.full(len(d1), -1.0)]
    # E x = e: x[empty] = 1; each decision in play: its bids in S_0 minus its parent
    eq = n_ub + np.arange(1 + len(d0))
    bid_rows = np.searchsorted(d0, cells[0] // n)
    parts_r += [eq[:1], eq[1:], eq[1 + bid_rows]]
    parts_c += [np.zeros(1, np.int64), column(0, tree.parent_cells(d0)), 1 + np.arange(n_own - 1)]
    parts_v += [np.ones(1), np.full(len(d0), -1.0), np.ones(n_own - 1)]
    num_row, num_col = n_ub + 1 + len(d0), n_own + n_q
    matrix = scipy.sparse.coo_array(
        (np.concatenate(parts_v), (np.concatenate(parts_r), np.concatenate(parts_c))),
        shape=(num_row, num_col),
    ).tocsr()
    matrix.sort_indices()
    e = np.zeros(1 + len(d0))
    e[0] = 1.0
    f = np.zeros(n_q)
    f[0] = 1.0
    lp = SequenceFormLP._of(matrix.indptr.astype(np.int32), matrix.indices.astype(np.int32),
                            matrix.data, n_own, n_q, n_ub, e, f)  # fmt: skip
    return RestrictedLP(lp, cells, (d0, d1), total, seen)
