"""An exact Nash equilibrium of imperfect-information Goofspiel by the sequence-form LP.

The zero-sum LP of Koller, Megiddo & von Stengel 1996 (GEB 14; equations (8)-(9) of its
STOC'94 version, which OpenSpiel's ``sequence_form_lp.py`` solves; Shoham & Leyton-Brown
2009, sec 5.2.3), with A player 0's payoff over sequence pairs and E x = e, F y = f the
two players' realization-plan constraints (:mod:`sequence_form`):

    primal (player 0)   max_{x, q}  f^T q   s.t.  F^T q <= A^T x,  E x = e,  x >= 0,  q free
    dual   (player 1)   min_{y, p}  e^T p   s.t.  E^T p >= A y,    F y = f,  y >= 0,  p free

For any plan y of player 1, x^T A y >= q^T F y = f^T q, so f^T q is what x guarantees;
by LP duality both optima are the value v of the game, x and y are equilibrium plans.  The
dual is the primal of player 1 with A replaced by -A^T (and p by -p), so one routine
(:func:`exact_plan`) solves both sides.

Steps, for each side:

1. HiGHS's dual simplex (scipy.optimize.linprog, sparse matrices) finds a float optimal
   vertex.
2. Its active constraints (the equalities, the rows F^T q <= A^T x with slack at most
   :data:`ACTIVE_TOLERANCE`, x = 0 off the support) determine the vertex; a float QR with
   column pivoting picks as many independent ones as there are unknowns (the basis).
3. That square system is solved exactly (python-flint's ``fmpq_mat.solve``).  A singular
   one raises :class:`~exact.errors.SolverError`; nothing is guessed.

Verification, exact (:func:`verify`): x and y are nonnegative and satisfy E x = e,
F y = f; player 1's best-response value against x (min over its plans of x^T A y', by
backward induction over its decisions) equals player 0's against y (max over x' of
x'^T A y): a zero duality gap, so (x, y) is an equilibrium and that number is its value.
No certificate for the independent checker is written here.

Steps 2-3 are dense (the QR and python-flint's solve of the whole basis system): up to
:data:`DENSE_MAX_N` cards.  Beyond, :func:`solve` hands OpenSpiel's imp_info game to
:mod:`exact.imperfect.exact_tables`, which solves HiGHS's optimal basis of the same LP
exactly by sparse numeric lifting and rational reconstruction
(:mod:`exact.imperfect.reconstruct`; Wan 2006, Saunders, Wood & Youse 2011).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.sparse
from flint import fmpq, fmpq_mat

from exact.errors import SolverError
from exact.game.orders import ASCENDING, DESCENDING, RANDOM
from exact.imperfect.equilibrium import Equilibrium, plan_policy, plans_policy
from exact.imperfect.game import IMP_INFO, ImperfectGame
from exact.imperfect.sequence_form import PlayerSequences, SequenceForm, sequence_form

__all__ = [
    "ACTIVE_TOLERANCE",
    "DENSE_MAX_N",
    "Equilibrium",
    "best_response_value",
    "exact_plan",
    "plan_policy",
    "plans_policy",
    "solve",
    "solve_dense",
    "verify",
]

#: A float slack or plan entry at most this is read as 0 (an active constraint).
ACTIVE_TOLERANCE = 1e-9
#: Relative size of QR's diagonal below which a pivot counts as dependent.
RANK_TOLERANCE = 1e-10

SparseRows = list[dict[int, Fraction]]

#: The largest N (by prize order) that :func:`solve` solves by the module's steps, with
#: the dense basis system: beyond, the sparse exact solve of
#: :mod:`exact.imperfect.exact_tables` (6 cards fixed in about 40 s, where the dense
#: system would need about 6 GB; benchmarks/RESULTS.md).
DENSE_MAX_N = {DESCENDING: 5, ASCENDING: 5, RANDOM: 4}

#: How :func:`solve` finds the equilibria it returns (steps 1-3 and the verification).
DENSE_METHOD = (
    "sequence-form LP (Koller, Megiddo & von Stengel 1996): HiGHS, then its vertex solved "
    "exactly (python-flint) and verified (zero duality gap)"
)


def transpose(payoff: dict[tuple[int, int], Fraction]) -> dict[tuple[int, int], Fraction]:
    """-A^T: player 1's payoff, indexed (player 1's sequence, player 0's)."""
    return {(t, s): -v for (s, t), v in payoff.items()}


def lp_rows(
    payoff: dict[tuple[int, int], Fraction], own: PlayerSequences, other: PlayerSequences
) -> tuple[SparseRows, list[Fraction], SparseRows, list[Fraction]]:
    """The primal's rows over the variables (x: own.size, then q: one per row of F):
    F^T q - A^T x <= 0 (one per sequence of ``other``), then E x = e."""
    n_own = own.size
    ub: SparseRows = [{} for _ in range(other.size)]
    for (s, t), v in payoff.items():
        ub[t][s] = -v
    f_rows, f = other.constraints()
    for k, row in enumerate(f_rows):
        for t, coefficient in row.items():
            ub[t][n_own + k] = Fraction(coefficient)
    e_rows, e = own.constraints()
    eq = [{s: Fraction(c) for s, c in row.items()} for row in e_rows]
    return ub, [Fraction(0)] * other.size, eq, [Fraction(v) for v in e]


def _sparse(rows: SparseRows, columns: int) -> scipy.sparse.csr_array:
    data, indices, indptr = [], [], [0]
    for row in rows:
        for j, v in sorted(row.items()):
            indices.append(j)
            data.append(float(v))
        indptr.append(len(indices))
    return scipy.sparse.csr_array((data, indices, indptr), shape=(len(rows), columns))


def float_vertex(ub, eq, e, n_own: int, n_q: int, f) -> tuple[np.ndarray, np.ndarray]:
    """Step 1: HiGHS's optimal vertex (x, q) and the slacks of the rows F^T q <= A^T x."""
    columns = n_own + n_q
    c = np.zeros(columns)
    c[n_own:] = [-float(v) for v in f]  # linprog minimises: -f^T q
    bounds = [(0, None)] * n_own + [(None, None)] * n_q
    result = scipy.optimize.linprog(
        c,
        A_ub=_sparse(ub, columns),
        b_ub=np.zeros(len(ub)),
        A_eq=_sparse(eq, columns),
        b_eq=[float(v) for v in e],
        bounds=bounds,
        method="highs-ds",
    )
    if result.status != 0:
        raise SolverError(f"HiGHS did not solve the sequence-form LP: {result.message}")
    return result.x, result.ineqlin.residual


def basis_rows(rows: SparseRows, unknowns: list[int]) -> list[int]:
    """Step 2: as many linearly independent ``rows`` as ``unknowns`` (float QR with column
    pivoting of the rows' transpose), or SolverError where they have lower rank."""
    where = {j: i for i, j in enumerate(unknowns)}
    dense = np.zeros((len(unknowns), len(rows)))
    for r, row in enumerate(rows):
        for j, v in row.items():
            dense[where[j], r] = float(v)
    _, triangle, order = scipy.linalg.qr(dense, mode="economic", pivoting=True)
    diagonal = np.abs(np.diag(triangle))
    rank = int(np.sum(diagonal > RANK_TOLERANCE * max(diagonal.max(initial=0.0), 1.0)))
    if rank < len(unknowns):
        raise SolverError(
            f"the active constraints of the LP's vertex have rank {rank}, not "
            f"{len(unknowns)}: the basis system is singular"
        )
    return sorted(int(r) for r in order[: len(unknowns)])


def solve_exactly(rows: SparseRows, rhs: list[Fraction], unknowns: list[int]) -> list[Fraction]:
    """Step 3: the square system rows . z = rhs over ``unknowns``, in exact rationals."""
    k = len(unknowns)
    where = {j: i for i, j in enumerate(unknowns)}
    matrix, vector = fmpq_mat(k, k), fmpq_mat(k, 1)
    for r, row in enumerate(rows):
        for j, v in row.items():
            matrix[r, where[j]] = fmpq(v.numerator, v.denominator)
        vector[r, 0] = fmpq(rhs[r].numerator, rhs[r].denominator)
    try:
        solution = matrix.solve(vector)
    except ZeroDivisionError:
        raise SolverError("the basis system of the LP's vertex is singular") from None
    return [Fraction(int(solution[i, 0].p), int(solution[i, 0].q)) for i in range(k)]


def exact_plan(
    payoff: dict[tuple[int, int], Fraction], own: PlayerSequences, other: PlayerSequences
) -> tuple[list[Fraction], list[Fraction]]:
    """``own``'s exact equilibrium plan and the LP's q (the module's steps 1-3)."""
    ub, _, eq, e = lp_rows(payoff, own, other)
    _, f = other.constraints()
    n_own, n_q = own.size, len(f)
    z, slack = float_vertex(ub, eq, e, n_own, n_q, f)
    support = [s for s in range(n_own) if z[s] > ACTIVE_TOLERANCE]
    unknowns = support + list(range(n_own, n_own + n_q))
    kept = set(unknowns)
    active = eq + [ub[t] for t in range(len(ub)) if slack[t] <= ACTIVE_TOLERANCE]
    rhs = e + [Fraction(0)] * (len(active) - len(eq))
    active = [{j: v for j, v in row.items() if j in kept} for row in active]
    chosen = basis_rows(active, unknowns)
    values = solve_exactly([active[r] for r in chosen], [rhs[r] for r in chosen], unknowns)
    full = [Fraction(0)] * (n_own + n_q)
    for j, v in zip(unknowns, values):
        full[j] = v
    return full[:n_own], full[n_own:]


def best_response_value(form: SequenceForm, plan: list[Fraction], responder: int) -> Fraction:
    """The responder's best value against the opponent's ``plan``, in player 0's terms
    (player 0 maximises x^T A y, player 1 minimises it): each sequence's own payoff plus,
    for each decision it leads to, the best of that decision's bids, decisions taken
    deepest first (they come depth first, so reversed order is bottom-up)."""
    seqs = form.players[responder]
    value = [Fraction(0)] * seqs.size
    for (s, t), v in form.payoff.items():
        if responder == 0:
            value[s] += v * plan[t]
        else:
            value[t] += v * plan[s]
    choose = max if responder == 0 else min
    for k in reversed(range(len(seqs.decisions))):
        first = seqs.first[k]
        best = choose(value[first : first + len(seqs.decisions[k].legal)])
        value[seqs.parents[k]] += best
    return value[0]


def _check_plan(seqs: PlayerSequences, plan: list[Fraction], who: str) -> None:
    if any(v < 0 for v in plan):
        raise SolverError(f"{who}'s exact plan has a negative entry")
    rows, rhs = seqs.constraints()
    for row, b in zip(rows, rhs):
        if sum(c * plan[j] for j, c in row.items()) != b:
            raise SolverError(f"{who}'s exact plan breaks a realization-plan constraint")


def verify(form: SequenceForm, x: list[Fraction], y: list[Fraction]) -> Fraction:
    """The value of the game if (x, y) is exactly an equilibrium (module docstring),
    else SolverError."""
    _check_plan(form.players[0], x, "player 0")
    _check_plan(form.players[1], y, "player 1")
    guaranteed = best_response_value(form, x, 1)  # what x guarantees player 0
    conceded = best_response_value(form, y, 0)  # the most y concedes
    if guaranteed != conceded:
        raise SolverError(
            f"the exact plans are not an equilibrium: duality gap {conceded - guaranteed}"
        )
    return guaranteed


def solve(game: ImperfectGame, progress: Callable[[str], None] | None = None) -> Equilibrium:
    """An exact equilibrium of ``game`` and its value: :func:`solve_dense` up to
    :data:`DENSE_MAX_N` cards and in every other information model, else (OpenSpiel's
    imp_info game beyond) the LP over the tables with its basis solved exactly by numeric
    lifting (:func:`exact.imperfect.exact_tables.solve_tables`).  ``progress`` is told
    each step of the latter."""
    if game.information == IMP_INFO and game.n > DENSE_MAX_N[game.order]:
        # imported here: it loads numba (0.11 s of this module's 0.60 s; RESULTS.md), which
        # the dense solve does not need
        from exact.imperfect.exact_tables import solve_tables

        return solve_tables(game, progress)
    return solve_dense(game)


def solve_dense(game: ImperfectGame) -> Equilibrium:
    """An exact equilibrium of ``game`` and its value (module docstring)."""
    start = time.perf_counter()
    form = sequence_form(game)
    built = time.perf_counter()
    seqs0, seqs1 = form.players
    x, _ = exact_plan(form.payoff, seqs0, seqs1)
    y, _ = exact_plan(transpose(form.payoff), seqs1, seqs0)
    solved = time.perf_counter()
    value = verify(form, x, y)
    verified = time.perf_counter()
    sizes = {
        "sequences": [seqs0.size, seqs1.size],
        "decisions": [len(seqs0.decisions), len(seqs1.decisions)],
        "payoff_nonzeros": len(form.payoff),
        "support": [sum(v > 0 for v in x), sum(v > 0 for v in y)],
    }
    seconds = {
        "sequence_form": built - start,
        "lp_and_exact": solved - built,
        "verify": verified - solved,
    }
    policy = plan_policy(form, (x, y))
    return Equilibrium(game, value, (x, y), policy, sizes, seconds, DENSE_METHOD)
