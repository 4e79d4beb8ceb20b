"""exact.imperfect.restricted_cfr: predictive CFR+ over a restricted game's sequence form.

The references: with every card allowed the restricted game is the whole game, so the
NashConv that the run reports for its average must be the one the numba tables compute
for the same policy (exact.imperfect.fast, independent code); on restricted games, the
average's value lies within its NashConv of the LP's optimal value (HiGHS); and the
double oracle run on it reaches its target with a NashConv proven in rationals."""

import numpy as np
import pytest

import exact.imperfect.double_oracle as double_oracle_module
from exact.imperfect.certified import certify, dyadic_rows, lp_plans
from exact.imperfect.checkpoint import read_support
from exact.imperfect.double_oracle import (
    CFR_RELATIVE,
    CFR_SHARE,
    RestrictedSolver,
    double_oracle,
    solve_double_oracle,
)
from exact.imperfect.game import ImperfectGame
from exact.imperfect.restricted import GameTree, closure, restricted_lp
from exact.imperfect.restricted_cfr import Regrets, restricted_cfr

#: The restricted NashConv each run stops at.
TARGET = 1e-5
#: The float tables' NashConv and the run's own agree this closely (sums of a few
#: thousand float64 terms of size <= 5).
FLOAT_TOLERANCE = 1e-10
#: The seed of the random restrictions.
SEED = 52


def _everything(tree):
    return [closure(tree, p, tree.legal.copy(), np.argmax(tree.legal, axis=1)) for p in (0, 1)]


@pytest.mark.parametrize(
    "spec", [(4, "descending", "points"), (4, "ascending", "win"), (3, "random", "points")]
)
def test_on_the_whole_game_its_nash_conv_is_the_tables(spec):
    game = ImperfectGame.parse(*spec)
    tree = GameTree.of(game)
    built = restricted_lp(tree, *_everything(tree))
    x, y, facts = restricted_cfr(tree, built, TARGET, 5_000)
    assert facts["restricted_nash_conv"] <= TARGET
    sigmas = [built.behaviour(tree, p, plan) for p, plan in ((0, x), (1, y))]
    # the plans are realization plans: behaviour rows sum to 1 where reached
    proof = certify(game, *[dyadic_rows(s, tree.legal) for s in sigmas], "bound")
    assert abs(proof.nash_conv - facts["restricted_nash_conv"]) <= FLOAT_TOLERANCE
    assert proof.nash_conv <= TARGET + FLOAT_TOLERANCE


@pytest.mark.parametrize("spec", [(5, "descending", "points"), (4, "random", "win")])
def test_on_a_restricted_game_its_value_is_the_lps(spec):
    game = ImperfectGame.parse(*spec)
    tree = GameTree.of(game)
    rng = np.random.default_rng(SEED)
    for share in (0.4, 0.7):
        allow = [tree.legal & (rng.random(tree.legal.shape) < share) for _ in (0, 1)]
        in_s = [closure(tree, p, allow[p], np.argmax(tree.legal, axis=1)) for p in (0, 1)]
        built = restricted_lp(tree, *in_s)
        value = lp_plans(built.lp)[2]["value_float"]
        x, y, facts = restricted_cfr(tree, built, TARGET, 20_000)
        lp = built.lp
        ours = -float(y @ (lp.matrix()[: lp.n_ub, : lp.n_own] @ x))
        gap = facts["restricted_nash_conv"]
        assert gap <= TARGET
        assert abs(ours - value) <= gap + FLOAT_TOLERANCE


def test_regrets_carry_over_by_cell_to_a_larger_restricted_game():
    game = ImperfectGame.parse(5, "ascending", "points")
    tree = GameTree.of(game)
    rng = np.random.default_rng(SEED)
    small = [tree.legal & (rng.random(tree.legal.shape) < 0.4) for _ in (0, 1)]
    large = [cells | (tree.legal & (rng.random(tree.legal.shape) < 0.3)) for cells in small]
    default = np.argmax(tree.legal, axis=1)
    built = [
        restricted_lp(tree, *[closure(tree, p, allow[p], default) for p in (0, 1)])
        for allow in (small, large)
    ]
    *_, facts = restricted_cfr(tree, built[0], TARGET, 200)
    warm = facts["regrets"]
    assert isinstance(warm, Regrets)
    for p in (0, 1):
        carried = warm.on(built[1], p)
        old = dict(zip(built[0].cells[p].tolist(), warm.regrets[p][1:].tolist()))
        expected = [old.get(cell, 0.0) for cell in built[1].cells[p].tolist()]
        assert carried[1:].tolist() == expected
        assert len(built[1].cells[p]) > len(built[0].cells[p]) and any(expected)
    # started from them, the run still finds the larger game's value
    x, y, again = restricted_cfr(tree, built[1], TARGET, 20_000, warm=warm)
    lp = built[1].lp
    ours = -float(y @ (lp.matrix()[: lp.n_ub, : lp.n_own] @ x))
    value = lp_plans(lp)[2]["value_float"]
    assert again["restricted_nash_conv"] <= TARGET
    assert abs(ours - value) <= again["restricted_nash_conv"] + FLOAT_TOLERANCE


def test_the_double_oracle_with_it_reaches_a_loose_target():
    game = ImperfectGame.parse(5, "ascending", "points")
    sigmas, rounds = double_oracle(game, target=1e-3, restricted=RestrictedSolver.PCFR)
    proof = certify(game, *sigmas, "rational")
    assert proof.epsilon <= 1e-3
    assert rounds[-1].lp["how"].startswith("predictive CFR+")
    # each restricted game is solved only as far as the last round's bound asks
    goals = [max(1e-3 * CFR_SHARE, CFR_RELATIVE * r.certificate.epsilon) for r in rounds[:-1]]
    reached = [r.lp["restricted_nash_conv"] for r in rounds[1:]]
    assert all(gap <= goal for gap, goal in zip(reached, goals))
    assert any(gap > 1e-3 * CFR_SHARE for gap in reached)


def test_a_resumed_run_starts_from_the_checkpoints_regrets(tmp_path, monkeypatch):
    """The checkpoint keeps the last restricted game's regrets bit for bit, and the first
    restricted game of a run resumed from it starts from them (not from zero: at 8 cards
    a cold first round took 1,913 s and added 62,500 bids a player, a warm one 810 s and
    14,000)."""
    game = ImperfectGame.parse(5, "ascending", "points")
    path = tmp_path / "oracle.npz"
    first = solve_double_oracle(
        game, 0, path, "bound", target=1e-2, restricted=RestrictedSolver.PCFR
    )
    saved = read_support(game, path)
    assert saved.round == first.sizes["rounds"]
    assert saved.bound == float(first.certificate.epsilon)
    assert saved.regrets is not None
    for p in (0, 1):
        cells, regrets = saved.regrets[p]
        assert len(cells) + 1 == first.sizes["restricted_sequences"][p] == len(regrets)
        assert regrets.max() > 0
    started = []

    def recording(tree, built, target, max_iterations, progress=None, warm=None):
        started.append(warm)
        return restricted_cfr(tree, built, target, max_iterations, progress, warm)

    monkeypatch.setattr(double_oracle_module, "restricted_cfr", recording)
    solve_double_oracle(game, 0, path, "bound", target=1e-2, restricted=RestrictedSolver.PCFR)
    for p in (0, 1):
        assert np.array_equal(started[0].cells[p], saved.regrets[p][0])
        assert np.array_equal(started[0].regrets[p], saved.regrets[p][1])
