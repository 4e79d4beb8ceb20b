"""exact.imperfect.warm_basis: a restricted LP's basis carried to a larger one.

The references: the keys against the LP's own rows and columns (the restricted LP is the
whole LP's submatrix, tests/test_double_oracle.py), HiGHS's iteration count (a basis
carried to the same LP is optimal: 0 iterations; one named wrongly is not), and the
value of the grown LP solved from scratch."""

import numpy as np
import pytest

from exact.imperfect.certified import lp_plans
from exact.imperfect.game import ImperfectGame
from exact.imperfect.restricted import GameTree, closure, restricted_lp
from exact.imperfect.warm_basis import BASIC, LOWER, ZERO, NamedBasis, column_keys, row_keys

#: The grown LP's optimal values from the carried basis and from scratch agree this closely.
VALUE_TOLERANCE = 1e-12
#: The seed of the random restrictions.
SEED = 50


def _restricted(tree: GameTree, allow):
    """The restricted LP of the allowed cells (closure adds default bids to ``allow``, so
    that, as in the double oracle, a later LP of more allowed cells holds this one)."""
    default = [np.argmax(tree.legal, axis=1)] * 2
    in_s = [closure(tree, p, allow[p], default[p]) for p in (0, 1)]
    return restricted_lp(tree, in_s[0], in_s[1])


@pytest.mark.parametrize("order", ["descending", "random"])
def test_a_basis_carried_to_a_grown_lp_keeps_its_statuses_and_starts_the_simplex(order):
    game = ImperfectGame.parse(4, order, "points")
    tree = GameTree.of(game)
    cells = tree.legal.size
    rng = np.random.default_rng(SEED)
    small = [tree.legal & (rng.random(tree.legal.shape) < 0.3) for _ in (0, 1)]
    before = _restricted(tree, small)
    grown = [s | (tree.legal & (rng.random(tree.legal.shape) < 0.2)) for s in small]
    after = _restricted(tree, grown)
    for built in (before, after):
        columns, rows = column_keys(built, cells), row_keys(built, cells)
        assert (len(columns), len(rows)) == (built.lp.num_col, built.lp.num_row)
        assert np.all(np.diff(columns) > 0) and np.all(np.diff(rows) > 0)
    assert after.lp.num_col > before.lp.num_col and after.lp.num_row > before.lp.num_row
    # the keys name the same sequences and decisions in both: the smaller LP is the larger
    # one's submatrix at the rows and columns of its keys
    at_col = np.searchsorted(column_keys(after, cells), column_keys(before, cells))
    at_row = np.searchsorted(row_keys(after, cells), row_keys(before, cells))
    assert (after.lp.matrix()[at_row][:, at_col] != before.lp.matrix()).nnz == 0
    assert np.array_equal(after.lp.col_cost[at_col], before.lp.col_cost)
    assert np.array_equal(after.lp.row_upper[at_row], before.lp.row_upper)

    _, _, facts = lp_plans(before.lp)
    basis = NamedBasis.of(before, cells, facts["statuses"])
    same = basis.carried(before, cells)
    assert same is not None
    _, _, again = lp_plans(before.lp, start=same)
    assert again["warm_start"] and again["iterations"] == 0  # named rightly: still optimal
    assert again["value_float"] == pytest.approx(facts["value_float"], abs=VALUE_TOLERANCE)

    carried = basis.carried(after, cells)
    assert carried is not None
    col_status, row_status = carried
    old = np.isin(column_keys(after, cells), basis.columns)
    assert old.sum() == len(basis.columns)  # the sets grew: every old column is still there
    assert col_status[old].tolist() == basis.column_status.tolist()
    new_q = ~old & (np.arange(after.lp.num_col) >= after.lp.n_own)
    assert set(col_status[~old & ~new_q].tolist()) <= {LOWER}
    assert set(col_status[new_q].tolist()) <= {ZERO}
    assert set(row_status[~np.isin(row_keys(after, cells), basis.rows)].tolist()) == {BASIC}
    assert np.count_nonzero(col_status == BASIC) + np.count_nonzero(row_status == BASIC) == len(
        row_status
    )
    _, _, warm = lp_plans(after.lp, start=carried)
    _, _, cold = lp_plans(after.lp)
    assert warm["warm_start"] and not cold["warm_start"]
    assert warm["value_float"] == pytest.approx(cold["value_float"], abs=VALUE_TOLERANCE)


def test_a_basis_of_a_larger_lp_does_not_carry_to_a_smaller_one():
    game = ImperfectGame.parse(4, "descending", "points")
    tree = GameTree.of(game)
    cells = tree.legal.size
    whole = _restricted(tree, [tree.legal, tree.legal])
    small = _restricted(tree, [np.zeros_like(tree.legal)] * 2)
    _, _, facts = lp_plans(whole.lp)
    basis = NamedBasis.of(whole, cells, facts["statuses"])
    assert basis.carried(small, cells) is None  # not square: the solve starts cold
