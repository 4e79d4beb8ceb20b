"""exact.imperfect.lp_tables: player 0's sequence-form LP (Koller, Megiddo & von Stengel
1996) built in arrays over the tables, against the independent Python builder
(:func:`exact.imperfect.exact_lp.lp_rows` over :mod:`exact.imperfect.sequence_form`,
which walks the game's information states and keys sequences by their InfoKeys).

The references: the Python builder's matrix, entry by entry once both LPs' rows and
columns are named by the game's own keys (sequence keys, decision keys); HiGHS's optimal
value of the Python builder's LP; the exact value of the game (0: the two players are
interchangeable in every game here, so a symmetric zero-sum game has value 0); the exact
rational NashConv of the policy (:mod:`exact.imperfect.nashconv`'s recursion in
Fractions, not the tables); and :func:`exact.imperfect.certified.plan_arrays`, the
Python map from plans to the tables' rows."""

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest

import exact.imperfect.float_lp as float_lp
from exact.imperfect.certified import (
    certify,
    dyadic_rows,
    lp_plans,
    plan_arrays,
    solve_certified,
)
from exact.imperfect.exact_lp import lp_rows
from exact.imperfect.game import ImperfectGame
from exact.imperfect.lp_tables import SequenceFormLP, table_lp
from exact.imperfect.sequence_form import sequence_form
from exact.imperfect.tables import legal_rows

#: HiGHS's optimal values of the two builds, and the game's value, agree this closely.
VALUE_TOLERANCE = 1e-12
#: The certified NashConv of the tables' LP's equilibrium (exact, rational) at N <= 5.
NASHCONV_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Case:
    n: int
    order: str
    objective: str


CASES = [
    pytest.param(Case(n, order, objective), id=f"{n}-{order}-{objective}")
    for n in (3, 4, 5)
    for order in ("descending", "ascending")
    for objective in ("points", "win")
] + [
    pytest.param(Case(n, "random", objective), id=f"{n}-random-{objective}")
    for n in (3, 4)
    for objective in ("points", "win")
]


def python_labels(form):
    """The Python builder's rows and columns named by the game's keys: x's and y's
    sequences by (InfoKey, card) or (), q's and E's rows by their decision's InfoKey or
    'root' (F's and E's first rows)."""
    seqs0, seqs1 = form.players
    x_names = {i: key for key, i in seqs0.index.items()}
    y_names = {i: key for key, i in seqs1.index.items()}
    q_names = ["root"] + [d.key for d in seqs1.decisions]
    e_names = ["root"] + [d.key for d in seqs0.decisions]
    columns = [("x", x_names[i]) for i in range(seqs0.size)] + [("q", k) for k in q_names]
    rows = [("y", y_names[i]) for i in range(seqs1.size)] + [("E", k) for k in e_names]
    return rows, columns


def table_labels(built):
    """The same names for the tables' LP, through its indexing invariant (module
    docstring of exact.imperfect.lp_tables) and Layout.key."""
    where, n = built.where, built.where.n

    def sequences(player):
        cells = np.flatnonzero(built.columns[player].ravel() >= 0)
        return [()] + [(where.key(int(c // n)), int(c % n) + 1) for c in cells]

    def decisions(player):
        return ["root"] + [where.key(int(r)) for r in np.flatnonzero(built.parents[player] >= 0)]

    columns = [("x", s) for s in sequences(0)] + [("q", k) for k in decisions(1)]
    rows = [("y", s) for s in sequences(1)] + [("E", k) for k in decisions(0)]
    return rows, columns


def labelled_entries(lp: SequenceFormLP, rows, columns) -> Counter:
    matrix = lp.matrix().tocoo()
    return Counter(
        (rows[i], columns[j], float(v))
        for i, j, v in zip(matrix.row.tolist(), matrix.col.tolist(), matrix.data.tolist())
    )


def python_lp(form) -> SequenceFormLP:
    seqs0, seqs1 = form.players
    ub, _, eq, e = lp_rows(form.payoff, seqs0, seqs1)
    _, f = seqs1.constraints()
    return SequenceFormLP.from_rows(ub, eq, e, seqs0.size, f)


@pytest.mark.parametrize("case", CASES)
def test_the_tables_lp_is_the_python_builders_lp(case):
    game = ImperfectGame.parse(case.n, case.order, case.objective)
    form = sequence_form(game)
    reference = python_lp(form)
    built = table_lp(game)
    lp = built.lp
    assert (lp.n_own, lp.n_ub) == (form.players[0].size, form.players[1].size)
    assert built.payoff_nonzeros == len(form.payoff)
    rows, columns = table_labels(built)
    ref_rows, ref_columns = python_labels(form)
    # the same rows and columns (each named once), then the same entries
    assert sorted(map(repr, rows)) == sorted(map(repr, ref_rows))
    assert sorted(map(repr, columns)) == sorted(map(repr, ref_columns))
    assert labelled_entries(lp, rows, columns) == labelled_entries(reference, ref_rows, ref_columns)
    # the same costs, bounds and right-hand sides, by name
    for ours, theirs, names, ref_names in (
        ((lp.col_cost, lp.col_lower), (reference.col_cost, reference.col_lower), columns,
         ref_columns),
        ((lp.row_lower, lp.row_upper), (reference.row_lower, reference.row_upper), rows,
         ref_rows),
    ):  # fmt: skip
        for a, b in zip(ours, theirs):
            assert dict(zip(map(repr, names), a.tolist())) == dict(
                zip(map(repr, ref_names), b.tolist())
            )
    # every row's columns increase (HiGHS takes them as given)
    for i in range(lp.num_row):
        assert np.all(np.diff(lp.index[lp.start[i] : lp.start[i + 1]]) > 0)


@pytest.mark.parametrize("case", CASES)
def test_the_tables_lp_solves_to_the_game_value_and_certifies(case):
    game = ImperfectGame.parse(case.n, case.order, case.objective)
    form = sequence_form(game)
    built = table_lp(game)
    x, y, facts = lp_plans(built.lp, "simplex")
    _, _, reference = lp_plans(python_lp(form), "simplex")
    assert abs(facts["value_float"] - reference["value_float"]) <= VALUE_TOLERANCE
    assert abs(facts["value_float"]) <= VALUE_TOLERANCE  # the game's exact value, 0
    # the behaviours through the invariant are plan_arrays' of the same plans, mapped
    # to the Python builder's sequence numbers by key
    where = built.where
    legal = legal_rows(where)
    sigmas = tuple(dyadic_rows(built.behaviour(p, z), legal) for p, z in enumerate((x, y)))
    rows, columns = table_labels(built)
    plans = []
    for player, plan in enumerate((x, y)):
        names = (
            [c[1] for c in columns if c[0] == "x"]
            if player == 0
            else [r[1] for r in rows if r[0] == "y"]
        )
        index = form.players[player].index
        mapped = np.zeros(len(names))
        for name, value in zip(names, plan):
            mapped[index[name]] = value
        plans.append(mapped)
    expected = plan_arrays(form, where, (plans[0], plans[1]))
    for ours, theirs in zip(sigmas, expected):
        assert np.array_equal(ours, theirs)
    proof = certify(game, *sigmas, "rational")
    assert isinstance(proof.epsilon, Fraction)
    assert 0 <= proof.epsilon <= NASHCONV_TOLERANCE
    v0, v1 = proof.best_responses
    assert abs(v0) <= NASHCONV_TOLERANCE and abs(v1) <= NASHCONV_TOLERANCE


@pytest.mark.parametrize(
    "n, order, objective, solver",
    [(5, "descending", "points", "ipm"), (5, "ascending", "win", "ipm"),
     (4, "random", "points", "simplex")],
    ids=["5-descending-ipm", "5-ascending-win-ipm", "4-random"],
)  # fmt: skip
def test_solve_certified_goes_through_the_tables(n, order, objective, solver):
    game = ImperfectGame.parse(n, order, objective)
    found = solve_certified(game, "rational", solver=solver)
    proof = found.certificate
    assert proof.method == "rational" and 0 <= proof.epsilon <= NASHCONV_TOLERANCE
    assert found.sizes["sequences"] == [s.size for s in sequence_form(game).players]
    assert found.sizes["solver"] == solver


def test_a_failed_basis_solve_falls_back_to_highs_own_solution(monkeypatch):
    """Where SuperLU fails (out of memory at 7 cards, say), HiGHS's own primal and duals
    are taken: the policy still certifies, by the exact rational NashConv."""

    def fails(matrix, rhs):
        raise MemoryError("SuperLU: not enough memory")

    monkeypatch.setattr(float_lp, "_refined", fails)
    game = ImperfectGame.parse(4, "descending", "points")
    found = solve_certified(game, "rational", solver="ipm")
    assert found.sizes["basis_solve"].startswith("HiGHS's own solution")
    assert 0 <= found.certificate.epsilon <= NASHCONV_TOLERANCE
