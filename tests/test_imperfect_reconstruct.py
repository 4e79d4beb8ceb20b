"""exact.imperfect.reconstruct and exact.imperfect.exact_tables: the sparse exact solve
(numeric lifting and rational reconstruction; Wan 2006, Saunders, Wood & Youse 2011) and
the exact equilibria it gives beyond the dense solve.

References, none of them the code under test: systems solved by hand (Cramer's rule), a
triangular system whose solution is 3^-k, python-flint's exact ``fmpq_mat.solve`` on the
same systems, the dense path's best responses (exact_lp.verify: zero duality gap) and the
independent checker (``certificates``) on the plans the new path finds."""

import random
from fractions import Fraction

import msgpack
import numpy as np
import pytest
import scipy.sparse
from flint import fmpq_mat

from certificates import check
from exact.errors import SolverError
from exact.imperfect.certificate import certificate_objects, write_certificate
from exact.imperfect.exact_lp import solve_dense, verify
from exact.imperfect.exact_tables import (
    integer_matrix,
    optimal_basis,
    payoff_scale,
    solve_tables,
    verify_optimal,
)
from exact.imperfect.game import ImperfectGame
from exact.imperfect.lp_tables import table_lp
from exact.imperfect.reconstruct import solve_integer_system
from exact.imperfect.sequence_form import sequence_form


def sparse(rows) -> scipy.sparse.csr_array:
    return scipy.sparse.csr_array(np.array(rows, dtype=np.int64))


def flint_solution(matrix, rhs) -> list[Fraction]:
    """python-flint's exact dense solve (fraction-free elimination), the reference."""
    dense = matrix.toarray().tolist()
    solution = fmpq_mat(dense).solve(fmpq_mat([[int(v)] for v in rhs]))
    return [Fraction(int(solution[i, 0].p), int(solution[i, 0].q)) for i in range(len(rhs))]


# --- the solver on systems with known solutions ------------------------------------------


def test_a_three_by_three_system_solved_by_hand():
    """Cramer's rule: det = 18, z = (6, 6, 12) / 18."""
    result = solve_integer_system(sparse([[2, 1, 0], [1, 3, 1], [0, 1, 4]]), [1, 2, 3])
    assert result.fractions() == [Fraction(1, 3), Fraction(1, 3), Fraction(2, 3)]
    assert result.denominator == 3 and result.numerators == [1, 1, 2]


def test_powers_of_three_need_several_reconstructions():
    """3 z_i - z_{i+1} = 0 (i < n - 1), 3 z_{n-1} = 1: z_i = 3^-(n - i), a denominator of
    3^80 (127 bits), so the first tries (64, 128 bits) cannot succeed."""
    n = 80
    rows = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        rows[i, i] = 3
        if i + 1 < n:
            rows[i, i + 1] = -1
    rhs = [0] * (n - 1) + [1]
    result = solve_integer_system(scipy.sparse.csr_array(rows), rhs)
    assert result.fractions() == [Fraction(1, 3 ** (n - i)) for i in range(n)]
    assert result.denominator == 3**n and result.bits > 2 * 127


@pytest.mark.parametrize("seed", range(12))
def test_random_sparse_systems_equal_flints_exact_solve(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 50)
    rows = [[rng.choice([0, 0, 0, 0, 1, -1, 2, -3, 5, 100]) for _ in range(n)] for _ in range(n)]
    for i in range(n):
        rows[i][i] = rng.choice([1, 2, -7, 50, 3])
    rhs = [rng.randint(-5, 5) for _ in range(n)]
    matrix = sparse(rows)
    try:
        want = flint_solution(matrix, rhs)
    except ZeroDivisionError:
        pytest.skip("this random matrix is singular")
    assert solve_integer_system(matrix, rhs).fractions() == want


def test_a_singular_system_is_a_solver_error():
    with pytest.raises(SolverError, match="singular"):
        solve_integer_system(sparse([[1, 2], [2, 4]]), [1, 0])


def test_a_system_of_the_wrong_shape_is_a_solver_error():
    with pytest.raises(SolverError, match="right-hand sides"):
        solve_integer_system(sparse([[1, 2], [2, 4]]), [1])


# --- the basis systems of the sequence-form LP -------------------------------------------


@pytest.mark.parametrize(
    "n, order, objective",
    [(3, "random", "win"), (4, "ascending", "win"), (4, "descending", "points")],
    ids=["3-random-win", "4-ascending-win", "4-descending-points"],
)
def test_basis_systems_equal_flints_exact_solve(n, order, objective):
    """HiGHS's optimal basis B of the LP over the tables, and B^T: the sparse exact
    solve equals python-flint's dense one, entry by entry.  (python-flint's solve of the
    5-card basis, 2,147 columns, takes 100 s here: the dense solve the new path replaces.)"""
    game = ImperfectGame.parse(n, order, objective)
    built = table_lp(game)
    matrix = integer_matrix(built.lp, payoff_scale(game))
    rows, columns, _ = optimal_basis(built.lp, "simplex")
    square = scipy.sparse.csr_array(matrix[rows][:, columns])
    rhs = np.rint(built.lp.row_upper[rows]).astype(np.int64).tolist()
    cost = np.rint(built.lp.col_cost[columns]).astype(np.int64).tolist()
    assert solve_integer_system(square, rhs).fractions() == flint_solution(square, rhs)
    transposed = scipy.sparse.csr_array(square.T)
    assert solve_integer_system(transposed, cost).fractions() == flint_solution(transposed, cost)


def test_the_scaled_payoff_is_the_sequence_forms_times_the_scale():
    """2 N! A at 3 cards random: the integer matrix's payoff block is the Fraction
    sequence form's A (exact_lp's reference builder) times 12, as a multiset of entries."""
    game = ImperfectGame.parse(3, "random", "points")
    built = table_lp(game)
    matrix = integer_matrix(built.lp, payoff_scale(game)).tocoo()
    block = (matrix.row < built.lp.n_ub) & (matrix.col < built.lp.n_own)
    ours = sorted(int(v) for v in matrix.data[block])
    reference = sorted(-v * 12 for v in sequence_form(game).payoff.values())
    assert payoff_scale(game) == 12 and ours == reference


# --- the equilibria of the new path ------------------------------------------------------


@pytest.mark.slow
def test_five_cards_fixed_equal_the_dense_path():
    """The value equals the dense path's (0: a symmetric game), and the new plans are an
    equilibrium by the dense path's own exact best responses (zero duality gap).  (The
    plans themselves differ: HiGHS stops at another optimal vertex of the other LP.)  Two
    minutes here under load, nearly all of it the dense path and its Fraction sequence form;
    the CI checks the new path at 5 cards by the independent checker (below)."""
    game = ImperfectGame.parse(5, "descending", "win")
    ours = solve_tables(game)
    assert ours.value == solve_dense(game).value == 0
    assert verify(sequence_form(game), *ours.plans) == 0
    assert ours.plans[0][0] == ours.plans[1][0] == 1


def test_a_five_card_certificate_of_the_new_path_is_valid_and_tampered_is_not(tmp_path):
    equilibrium = solve_tables(ImperfectGame.parse(5, "descending", "points"))
    result = write_certificate(equilibrium, tmp_path / "c.cert")
    verdict = check(tmp_path / "c.cert")
    assert verdict.ok and verdict.root_value == 0 == result.value, verdict.message
    objs = list(certificate_objects(equilibrium))
    record = next(  # player 0's first record with a positive weight on its first bid
        i for i, o in enumerate(objs) if type(o) is list and o[2][0] != 0
    )
    objs[record][2][0] += 1  # one entry changed
    path = tmp_path / "t.cert"
    path.write_bytes(b"".join(msgpack.Packer(use_bin_type=True).pack(o) for o in objs))
    tampered = check(path)
    assert not tampered.ok and tampered.code == 1
    assert "not a realization plan" in tampered.message


def test_a_consistent_tamper_is_a_duality_gap(tmp_path):
    """Player 0's whole weight at a last-round decision (two cards left, no decision
    below it) moved from the bid it plays to the one it never plays: still a realization
    plan, so only the duality check can reject it, and does."""
    equilibrium = solve_tables(ImperfectGame.parse(5, "descending", "points"))
    objs = list(certificate_objects(equilibrium))
    record = next(
        i
        for i, o in enumerate(objs)
        if type(o) is list and len(o[1]) == 2 and sorted(o[2])[0] == 0 < sorted(o[2])[1]
    )
    objs[record][2] = objs[record][2][::-1]
    path = tmp_path / "t.cert"
    path.write_bytes(b"".join(msgpack.Packer(use_bin_type=True).pack(o) for o in objs))
    tampered = check(path)
    assert not tampered.ok and tampered.code == 1
    assert "duality gap" in tampered.message


def _exact_basis(game):
    built = table_lp(game)
    matrix = integer_matrix(built.lp, payoff_scale(game))
    rows, columns, _ = optimal_basis(built.lp, "simplex")
    square = scipy.sparse.csr_array(matrix[rows][:, columns])
    rhs = np.rint(built.lp.row_upper[rows]).astype(np.int64).tolist()
    cost = np.rint(built.lp.col_cost[columns]).astype(np.int64).tolist()
    z = solve_integer_system(square, rhs)
    pi = solve_integer_system(scipy.sparse.csr_array(square.T), cost)
    full_z = np.zeros(built.lp.num_col, dtype=object)
    full_z[columns] = np.array(z.numerators, dtype=object)
    full_pi = np.zeros(built.lp.num_row, dtype=object)
    full_pi[rows] = np.array(pi.numerators, dtype=object)
    return built.lp, matrix, (full_z, z.denominator), (full_pi, pi.denominator)


def test_the_optimality_check_accepts_the_basis_and_refuses_a_changed_one():
    """3 cards descending: the exact basic solution is optimal with value 0; a plan entry
    moved off it, or the duals' sign flipped, is refused."""
    lp, matrix, z, pi = _exact_basis(ImperfectGame.parse(3, "descending", "points"))
    assert verify_optimal(lp, matrix, z, pi) == 0
    moved = z[0].copy()
    moved[1] += 1
    with pytest.raises(SolverError, match="breaks"):
        verify_optimal(lp, matrix, (moved, z[1]), pi)
    with pytest.raises(SolverError, match="negative plan entry"):
        verify_optimal(lp, matrix, z, (-pi[0], pi[1]))


def test_an_entry_that_is_not_an_integer_once_scaled_is_refused():
    built = table_lp(ImperfectGame.parse(3, "random", "points"))
    with pytest.raises(SolverError, match="not an integer once scaled"):
        integer_matrix(built.lp, 6)  # 2 N! = 12 makes them integers, 6 leaves halves
