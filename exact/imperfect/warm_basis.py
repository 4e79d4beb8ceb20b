"""A restricted LP's optimal basis, its rows and columns named by the game, carried to the
next round's restricted LP as the simplex's starting basis.

Each column of a restricted LP (:mod:`exact.imperfect.restricted`) is named by a key:
x[empty] 0, x of the cell c 1 + c, q[root] K and q of player 1's decision row r K + 1 + r,
where K = 1 + rows * N (the cells' count plus one); each row likewise: player 1's empty
sequence 0, its cell c 1 + c, E's row x[empty] = 1 K, and E's row of player 0's decision
r K + 1 + r.  The LP's orders are those of the keys, increasing.

The double oracle's sets only grow, so the next round's LP holds the last one's rows and
columns and more: as in column generation (Dantzig & Wolfe 1960; Gilmore & Gomory 1961),
what the last LP had keeps its status, a new column is nonbasic at its bound (x at 0, a
free q at 0: HiGHS's "zero"), a new row basic (its slack).  The basis stays square and
nonsingular (the last one's block, and an identity for the new rows) and the simplex
starts from it, primal feasible where only columns were added; HiGHS repairs it where
it is not.  Nothing here is a proof: the round's policies are certified as every round's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from exact.imperfect.restricted import RestrictedLP

__all__ = ["BASIC", "LOWER", "ZERO", "NamedBasis", "column_keys", "row_keys"]

#: HiGHS's basis status codes (``HighsBasisStatus``) used here.
LOWER, BASIC, ZERO = 0, 1, 3


def column_keys(built: RestrictedLP, cells: int) -> np.ndarray:
    """The keys of ``built``'s columns (module docstring); ``cells``: rows * N."""
    return _keys(built.cells[0], built.in_play[1], cells)


def row_keys(built: RestrictedLP, cells: int) -> np.ndarray:
    """The keys of ``built``'s rows (module docstring); ``cells``: rows * N."""
    return _keys(built.cells[1], built.in_play[0], cells)


def _keys(sequences: np.ndarray, decisions: np.ndarray, cells: int) -> np.ndarray:
    """0, 1 + each sequence's cell, K, K + 1 + each decision's row (K = 1 + cells)."""
    k = 1 + cells
    return np.concatenate([[0], 1 + sequences, [k], k + 1 + decisions]).astype(np.int64)


@dataclass(frozen=True)
class NamedBasis:
    """A basis's status codes (HiGHS's) of the columns and rows of the given keys, each
    increasing."""

    columns: np.ndarray
    column_status: np.ndarray
    rows: np.ndarray
    row_status: np.ndarray

    @classmethod
    def of(cls, built: RestrictedLP, cells: int, statuses: tuple[np.ndarray, np.ndarray]):
        """The basis of ``built`` whose status codes are ``statuses`` (columns, rows)."""
        return cls(column_keys(built, cells), statuses[0], row_keys(built, cells), statuses[1])

    def carried(self, built: RestrictedLP, cells: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The status codes of ``built``'s columns and rows, this basis carried over
        (module docstring); None where that is not square (a set shrank)."""
        columns = _carry(self.columns, self.column_status, column_keys(built, cells))
        new = columns == NEW
        is_q = np.arange(len(columns)) >= built.lp.n_own
        columns[new] = np.where(is_q[new], ZERO, LOWER)
        rows = _carry(self.rows, self.row_status, row_keys(built, cells))
        rows[rows == NEW] = BASIC
        basic = np.count_nonzero(columns == BASIC) + np.count_nonzero(rows == BASIC)
        return (columns, rows) if basic == len(rows) else None


#: The mark of a key the old basis does not name.
NEW = 255


def _carry(keys: np.ndarray, status: np.ndarray, new_keys: np.ndarray) -> np.ndarray:
    """The status of each of ``new_keys`` under the old (``keys``, ``status``), both keys
    increasing; :data:`NEW` where the key is new."""
    out = np.full(len(new_keys), NEW, dtype=np.uint8)
    where = np.minimum(np.searchsorted(keys, new_keys), max(len(keys) - 1, 0))
    found = (keys[where] == new_keys) if len(keys) else np.zeros(len(new_keys), dtype=bool)
    out[found] = status[where[found]]
    return out
