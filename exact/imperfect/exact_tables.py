"""An exact equilibrium of imperfect-information Goofspiel from the LP over the tables.

Where the dense exact basis solve of :mod:`exact.imperfect.exact_lp` does not fit (6
cards in a fixed order: 37,039 sequences a player; 5 cards random: 244,786), the same
sequence-form LP (Koller, Megiddo & von Stengel 1996), built in arrays by
:mod:`exact.imperfect.lp_tables`, is solved in floats by HiGHS and its optimal basis is
then solved exactly by numeric lifting and rational reconstruction
(:mod:`exact.imperfect.reconstruct`: Wan 2006; Saunders, Wood & Youse 2011):

1. The LP, player 0's, over x (its plan) and q:  max f^T q  s.t.  F^T q - A^T x <= 0,
   E x = e, x >= 0.  Made integer: A's entries (chance * return) times
   :func:`payoff_scale` = 2 N! (random order) or 2 are integers, read back from the
   float entries by rounding and refused unless each is within
   :data:`INTEGER_TOLERANCE` of an integer (the float is the exact rational rounded
   once, so rounding recovers it); the plans do not change, q and the value scale by it.
2. HiGHS (the interior point and crossover from 10,000 sequences a player, else the dual
   simplex: :func:`exact.imperfect.float_lp.default_solver`) finds an optimal basis:
   the basic columns and the nonbasic rows, at their bounds, a square matrix B.
3. z_B from B z_B = (the nonbasic rows' bounds) and the row duals pi from
   B^T pi = c_B, both exactly (:func:`~exact.imperfect.reconstruct.solve_integer_system`);
   the nonbasic columns are 0.  Player 0's plan is x = z's first columns, player 1's
   y = -pi over the rows F^T q - A^T x <= 0.
4. Verified exactly, as an LP optimality certificate (weak duality): z is feasible
   (x >= 0, E x = e, F^T q - A^T x <= 0, in integers), pi is dual feasible (pi <= 0 on
   those rows, reduced costs c - M^T pi >= 0 on x and = 0 on q, which is F y = f), and
   the two objectives are equal.  So x and y are optimal in the LP pair of
   :mod:`exact.imperfect.exact_lp`, an equilibrium, and the value is f^T q / scale.
   Nothing is trusted to HiGHS: a basis that is optimal only within its float
   tolerances fails here (SolverError), it is never rounded into a claim.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import scipy.sparse

from exact.errors import GopsInputError, SolverError
from exact.game.orders import RANDOM
from exact.imperfect.equilibrium import Equilibrium, plans_policy
from exact.imperfect.float_lp import default_solver, highs_optimum
from exact.imperfect.game import IMP_INFO, ImperfectGame
from exact.imperfect.lp_tables import SequenceFormLP, TableLP, table_lp
from exact.imperfect.reconstruct import RationalVector, solve_integer_system
from exact.imperfect.sequence_form import PlayerSequences, get_sequences

__all__ = ["INTEGER_TOLERANCE", "METHOD", "integer_matrix", "optimal_basis", "solve_tables"]

#: A scaled float payoff entry must be this close to an integer.
INTEGER_TOLERANCE = 1e-6

METHOD = (
    "sequence-form LP (Koller, Megiddo & von Stengel 1996) over the tables: HiGHS's "
    "optimal basis solved exactly by numeric lifting and rational reconstruction (Wan "
    "2006; Saunders, Wood & Youse 2011) and verified (LP optimality, exact)"
)


def payoff_scale(game: ImperfectGame) -> int:
    """The integer that makes every payoff entry an integer (step 1): 2 N! in the random
    order (chance 1/N!, returns in halves), else 2."""
    return 2 * math.factorial(game.n) if game.order is RANDOM else 2


def integer_matrix(lp: SequenceFormLP, scale: int) -> scipy.sparse.csr_array:
    """The LP's matrix in int64 with the payoff block (rows F^T q - A^T x, columns x)
    times ``scale`` (step 1); SolverError where an entry does not come out integral."""
    matrix = lp.matrix()
    rows = np.repeat(np.arange(lp.num_row), np.diff(lp.start))
    payoff = (rows < lp.n_ub) & (lp.index < lp.n_own)
    values = np.where(payoff, lp.value * scale, lp.value)
    integers = np.rint(values)
    if np.abs(values - integers).max(initial=0.0) > INTEGER_TOLERANCE:
        raise SolverError("a payoff entry of the LP is not an integer once scaled")
    return scipy.sparse.csr_array(
        (integers.astype(np.int64), matrix.indices, matrix.indptr), shape=matrix.shape
    )


def optimal_basis(lp: SequenceFormLP, solver: str) -> tuple[np.ndarray, np.ndarray, dict]:
    """Step 2: HiGHS's optimal basis, as (nonbasic rows, basic columns), and its facts."""
    rows, columns, _, _, facts = highs_optimum(lp, solver)
    del facts["value_float"], facts["statuses"], facts["warm_start"]
    return rows, columns, facts


def _bound(lp: SequenceFormLP, rows: np.ndarray) -> list[int]:
    """The nonbasic rows' bounds: 0 for F^T q - A^T x <= 0 (its only bound), e for E."""
    values = lp.row_upper[rows]
    if not np.all(np.isfinite(values)) or np.any(values != np.rint(values)):
        raise SolverError("a nonbasic row of HiGHS's basis is not at an integer bound")
    return [int(v) for v in values]


def _expand(size: int, where: np.ndarray, part: RationalVector) -> tuple[np.ndarray, int]:
    """The full vector's numerators (object array, 0 off ``where``) and its denominator."""
    full = np.zeros(size, dtype=object)
    full[where] = np.array(part.numerators, dtype=object)
    return full, part.denominator


def _product(matrix: scipy.sparse.csr_array, vector: np.ndarray) -> np.ndarray:
    """matrix @ vector in Python integers."""
    terms = matrix.data.astype(object) * vector[matrix.indices]
    out = np.zeros(matrix.shape[0], dtype=object)
    full = np.flatnonzero(np.diff(matrix.indptr) > 0)
    if len(full):
        out[full] = np.add.reduceat(terms, matrix.indptr[full].astype(np.intp))
    return out


def verify_optimal(lp: SequenceFormLP, matrix, z: tuple, pi: tuple) -> Fraction:
    """Step 4: the LP's optimal value -f^T q (HiGHS minimises c^T z = -f^T q) if z and pi
    are an exact optimality certificate, else SolverError."""
    (nz, dz), (npi, dpi) = z, pi
    n_ub, n_own = lp.n_ub, lp.n_own
    cost = np.rint(lp.col_cost).astype(np.int64).astype(object)
    e = np.rint(lp.row_upper[n_ub:]).astype(np.int64).astype(object)
    if any(v < 0 for v in nz[:n_own].tolist()):
        raise SolverError("the exact basic solution has a negative plan entry (x)")
    rows = _product(matrix, nz)
    if any(v > 0 for v in rows[:n_ub].tolist()):
        raise SolverError("the exact basic solution breaks a row F^T q - A^T x <= 0")
    if any(v != b * dz for v, b in zip(rows[n_ub:].tolist(), e.tolist())):
        raise SolverError("the exact basic solution breaks a realization-plan row E x = e")
    if any(v > 0 for v in npi[:n_ub].tolist()):
        raise SolverError("the exact duals have a negative plan entry (y)")
    reduced = cost * dpi - _product(scipy.sparse.csr_array(matrix.T), npi)
    if any(v < 0 for v in reduced[:n_own].tolist()):
        raise SolverError("the exact duals leave a negative reduced cost: not optimal")
    if any(v != 0 for v in reduced[n_own:].tolist()):
        raise SolverError("the exact duals break a realization-plan row F y = f")
    primal = Fraction(int(np.dot(cost, nz)), dz)
    dual = Fraction(int(np.dot(e, npi[n_ub:])), dpi)
    if primal != dual:
        raise SolverError(f"the exact basis is not optimal: duality gap {primal - dual}")
    return primal


def sequence_columns(built: TableLP, seqs: PlayerSequences) -> np.ndarray:
    """Each sequence of ``seqs`` (its index) as its LP column of the tables: the empty
    sequence 0, a decision's bids at columns[player][its row, bid - 1]."""
    columns = built.columns[seqs.player]
    where = built.where
    out = np.zeros(seqs.size, dtype=np.int64)
    for k, decision in enumerate(seqs.decisions):
        row, first = where.row(decision.key), seqs.first[k]
        for j, action in enumerate(decision.legal):
            out[first + j] = columns[row, action]
    if np.any(out[1:] <= 0):
        raise AssertionError("a sequence has no column in the LP")  # pragma: no cover
    return out


def _plan(numerators: np.ndarray, denominator: int, columns: np.ndarray) -> list[Fraction]:
    return [Fraction(int(p), denominator) for p in numerators[columns].tolist()]


def solve_tables(game: ImperfectGame, progress: Callable[[str], None] | None = None) -> Equilibrium:
    """An exact equilibrium of ``game`` and its value (module docstring), as
    :func:`exact.imperfect.exact_lp.solve` returns it."""
    if game.information != IMP_INFO:
        raise GopsInputError("the LP of the tables is built for OpenSpiel's imp_info game")
    say = progress or (lambda _: None)
    start = time.perf_counter()
    built = table_lp(game)
    lp, scale = built.lp, payoff_scale(game)
    matrix = integer_matrix(lp, scale)
    made = time.perf_counter()
    solver = default_solver(built)
    say(f"LP built: {lp.n_own:,} + {lp.n_ub:,} sequences; HiGHS ({solver}) solving it")
    rows, columns, facts = optimal_basis(lp, solver)
    solved = time.perf_counter()
    say(f"optimal basis of {len(columns):,} columns; solving it exactly")
    square = scipy.sparse.csr_array(matrix[rows][:, columns])
    z_part = solve_integer_system(square, _bound(lp, rows))
    cost = np.rint(lp.col_cost[columns]).astype(np.int64)
    pi_part = solve_integer_system(scipy.sparse.csr_array(square.T), cost.tolist())
    exact = time.perf_counter()
    z = _expand(lp.num_col, columns, z_part)
    pi = _expand(lp.num_row, rows, pi_part)
    optimum = verify_optimal(lp, matrix, z, pi)
    value = -optimum / scale
    seqs = (get_sequences(game, 0), get_sequences(game, 1))
    x = _plan(z[0], z[1], sequence_columns(built, seqs[0]))
    y = _plan(-pi[0], pi[1], sequence_columns(built, seqs[1]))
    verified = time.perf_counter()
    sizes = {
        "sequences": [lp.n_own, lp.n_ub],
        "decisions": [len(seqs[0].decisions), len(seqs[1].decisions)],
        "payoff_nonzeros": built.payoff_nonzeros,
        "support": [sum(v > 0 for v in x), sum(v > 0 for v in y)],
        **facts,
        "lifting_bits": [z_part.bits, pi_part.bits],
        "denominator_digits": [len(str(z_part.denominator)), len(str(pi_part.denominator))],
    }
    seconds = {
        "sequence_form": made - start,
        "lp": solved - made,
        "exact_basis": exact - solved,
        "verify": verified - exact,
    }
    policy = plans_policy(game, seqs, (x, y))
    return Equilibrium(game, value, (x, y), policy, sizes, seconds, METHOD)
