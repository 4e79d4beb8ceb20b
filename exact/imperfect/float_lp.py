"""The sequence-form LP of player 0 solved in float64 by HiGHS, its basis solved again.

The LP (Koller, Megiddo & von Stengel 1996; :mod:`exact.imperfect.lp_tables` builds it
as a :class:`~exact.imperfect.lp_tables.SequenceFormLP`):

    max_{x, q}  f^T q   s.t.  F^T q - A^T x <= 0,  E x = e,  x >= 0,  q free

1. HiGHS (the copy bundled with scipy, through its highspy interface
   ``scipy.optimize._highspy._core``: ``linprog`` does not return the basis) solves it
   by the dual simplex, or by the interior point method and crossover to a basis
   (:func:`default_solver`: from :data:`IPM_MIN_SEQUENCES` sequences a player on), with
   primal and dual feasibility tolerances :data:`HIGHS_TOLERANCE`
   (:func:`highs_optimum`), or by the simplex from a given basis (a warm start:
   :mod:`exact.imperfect.warm_basis`).  Its final basis B (the nonbasic rows, at their
   bounds, over the basic columns) is square.
2. The plan x of player 0 is solved again from B z = b, and player 1's plan y, the duals
   of the rows F^T q - A^T x <= 0 negated, from B^T pi = c_B, each by a sparse LU
   (SuperLU, scipy) and :data:`REFINEMENT_STEPS` steps of iterative refinement in
   float64 (Wilkinson 1963; Higham, "Accuracy and Stability of Numerical Algorithms",
   2002, ch. 12) (:func:`lp_plans`).  Where SuperLU fails (out of memory, or a singular
   basis) HiGHS's own solution is taken.

Nothing here is a proof: the float plans are certified by :mod:`exact.imperfect.certified`
(a proven bound on their NashConv), and the basis is solved exactly by
:mod:`exact.imperfect.exact_tables` (numeric lifting, then LP optimality checked exactly).
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse
import scipy.sparse.linalg
from scipy.optimize._highspy import _core as highs_core

from exact.errors import SolverError
from exact.imperfect.lp_tables import SequenceFormLP, TableLP

__all__ = [
    "HIGHS_TOLERANCE",
    "IPM_MIN_SEQUENCES",
    "REFINEMENT_STEPS",
    "default_solver",
    "highs_optimum",
    "lp_plans",
]

#: HiGHS's primal and dual feasibility tolerances for the float LP.
HIGHS_TOLERANCE = 1e-10
#: Steps of iterative refinement of the basis solves.
REFINEMENT_STEPS = 3
#: From this many sequences per player on, the float LP is solved by HiGHS's interior
#: point method and crossover: at 6 cards (fixed orders, 37,039 sequences) 27 s against
#: the dual simplex's 395 s; at 5 cards (2,284) both take under 1.3 s, neither ahead on
#: every game; 5 cards random (244,786) 12 minutes (benchmarks/RESULTS.md).
IPM_MIN_SEQUENCES = 10_000


def default_solver(built: TableLP) -> str:
    """HiGHS's solver for the float LP ``built``: ``ipm`` from :data:`IPM_MIN_SEQUENCES`
    sequences per player on, else ``simplex`` (the dual simplex)."""
    return "ipm" if built.sequences[0] >= IPM_MIN_SEQUENCES else "simplex"


def highs_optimum(
    lp: SequenceFormLP,
    solver: str = "simplex",
    options: dict | None = None,
    start: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
    """Step 1: HiGHS's optimal basis of ``lp`` as (nonbasic rows, basic columns), square;
    HiGHS's own primal and dual solution; and facts about the solve (solver, iterations,
    basis size, the optimal value, and ``statuses``: HiGHS's final status codes of the
    columns and rows, :class:`numpy.uint8` arrays).  ``solver``: ``simplex`` (dual) or
    ``ipm`` (interior point, then crossover to a basis); ``options`` more of HiGHS's
    options; ``start``: the status codes of a basis to start the simplex from (a warm
    start; a basis HiGHS refuses is dropped and the solve starts cold)."""
    highs = highs_core._Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("solver", solver)
    highs.setOptionValue("primal_feasibility_tolerance", HIGHS_TOLERANCE)
    highs.setOptionValue("dual_feasibility_tolerance", HIGHS_TOLERANCE)
    for name, value in (options or {}).items():
        highs.setOptionValue(name, value)
    passed = highs.passModel(
        lp.num_col, lp.num_row, len(lp.value), int(highs_core.MatrixFormat.kRowwise),
        int(highs_core.ObjSense.kMinimize), 0.0, lp.col_cost, lp.col_lower, lp.col_upper,
        lp.row_lower, lp.row_upper, lp.start, lp.index, lp.value,
        np.zeros(lp.num_col, dtype=np.int32),  # every column continuous
    )  # fmt: skip
    if passed == highs_core.HighsStatus.kError:
        raise SolverError("HiGHS refused the sequence-form LP")
    warm = start is not None and _set_basis(highs, *start)
    highs.run()
    status = highs.getModelStatus()
    if status != highs_core.HighsModelStatus.kOptimal:
        raise SolverError(f"HiGHS did not solve the sequence-form LP: {status}")
    info = highs.getInfo()
    solution = highs.getSolution()
    own_z, own_pi = np.asarray(solution.col_value), np.asarray(solution.row_dual)
    basis = highs.getBasis()
    basic = highs_core.HighsBasisStatus.kBasic
    col_status = np.array([int(s) for s in basis.col_status], dtype=np.uint8)
    row_status = np.array([int(s) for s in basis.row_status], dtype=np.uint8)
    columns = np.flatnonzero(col_status == int(basic))
    rows = np.flatnonzero(row_status != int(basic))
    if len(columns) != len(rows):
        raise SolverError("HiGHS's final basis is not square")
    facts = {
        "solver": solver,
        "iterations": int(info.simplex_iteration_count),
        "ipm_iterations": int(info.ipm_iteration_count),
        "crossover_iterations": int(info.crossover_iteration_count),
        "basis_size": len(columns),
        "value_float": float(-info.objective_function_value),
        "warm_start": warm,
        "statuses": (col_status, row_status),
    }
    return rows, columns, own_z, own_pi, facts


def _set_basis(highs, col_status: np.ndarray, row_status: np.ndarray) -> bool:
    """Give ``highs`` the basis of these status codes; whether HiGHS took it."""
    basis = highs_core.HighsBasis()
    codes = highs_core.HighsBasisStatus
    basis.col_status = [codes(int(code)) for code in col_status]
    basis.row_status = [codes(int(code)) for code in row_status]
    basis.valid = True
    return highs.setBasis(basis) != highs_core.HighsStatus.kError


def _refined(matrix, rhs: np.ndarray) -> np.ndarray:
    """matrix^-1 rhs by SuperLU plus :data:`REFINEMENT_STEPS` refinement steps."""
    lu = scipy.sparse.linalg.splu(matrix.tocsc())
    z = lu.solve(rhs)
    for _ in range(REFINEMENT_STEPS):
        z = z + lu.solve(rhs - matrix @ z)
    return z


def lp_plans(
    lp: SequenceFormLP,
    solver: str = "simplex",
    options: dict | None = None,
    start: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, dict]:
    """Both players' float equilibrium plans (x, y) of player 0's LP ``lp``: HiGHS's
    optimal basis (:func:`highs_optimum`, from the basis ``start`` where given) re-solved
    by sparse LU with refinement (step 2), and facts about the solve (iterations,
    residuals, the final basis's status codes)."""
    began = time.perf_counter()
    rows, columns, own_z, own_pi, facts = highs_optimum(lp, solver, options, start)
    ran = time.perf_counter()
    square = lp.matrix()[rows][:, columns]
    cost = lp.col_cost[columns]
    z = np.zeros(lp.num_col)
    pi = np.zeros(lp.num_row)
    try:
        z[columns] = _refined(square, lp.row_upper[rows])
        pi[rows] = _refined(square.T, cost)
        basis_solve = "SuperLU with refinement"
    except (MemoryError, RuntimeError) as error:  # SuperLU out of memory, or singular
        z, pi = own_z, own_pi
        basis_solve = f"HiGHS's own solution (SuperLU failed: {error})"
    del own_z, own_pi
    residual = max(
        float(np.abs(square @ z[columns] - lp.row_upper[rows]).max(initial=0.0)),
        float(np.abs(square.T @ pi[rows] - cost).max(initial=0.0)),
    )
    facts.update(
        basis_solve=basis_solve,
        residual=residual,
        highs_seconds=ran - began,
        basis_solve_seconds=time.perf_counter() - ran,
    )
    return z[: lp.n_own], -pi[: lp.n_ub], facts
