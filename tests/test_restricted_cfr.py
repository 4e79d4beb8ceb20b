"""exact.imperfect.restricted_cfr: predictive CFR+ over a restricted game's sequence form.

The references: with every card allowed the restricted game is the whole game, so the
NashConv that the run reports for its average must be the one the numba tables compute
for the same policy (exact.imperfect.fast, independent code); on restricted games, the
average's value lies within its NashConv of the LP's optimal value (HiGHS); and the
double oracle run on it reaches its target with a NashConv proven in rationals."""

import numpy as np
import pytest

import exact.imperfect.double_oracle as double_oracle_module
import exact.imperfect.restricted_cfr as restricted_cfr_module
from exact.imperfect.certified import certify, dyadic_rows, lp_plans
from exact.imperfect.checkpoint import read_support
from exact.imperfect.double_oracle import (
    CFR_OUTSIDE,
    CFR_RELATIVE,
    CFR_SHARE,
    CFR_STALL,
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


def test_a_run_given_a_stall_gap_stops_where_it_stalls_below_it(monkeypatch):
    """The rule of STALL_RATIO, checked against the run's own reports: it stops at the
    first check whose NashConv is at most the stall gap and above STALL_RATIO times the
    one STALL_WINDOW iterations before; without a stall gap the same run goes on."""
    monkeypatch.setattr(restricted_cfr_module, "STALL_WINDOW", 200)
    monkeypatch.setattr(restricted_cfr_module, "STALL_RATIO", 0.97)
    game = ImperfectGame.parse(5, "descending", "points")
    tree = GameTree.of(game)
    built = restricted_lp(tree, *_everything(tree))
    runs = []
    for stall_gap in (1e-3, 0.0):
        gaps: dict[int, float] = {}
        *_, facts = restricted_cfr(tree, built, 0.0, 3_000, gaps.__setitem__, stall_gap=stall_gap)
        runs.append((gaps, facts))
    (gaps, facts), (longer, without) = runs
    stopped = facts["iterations"]
    assert facts["stalled"] and not without["stalled"] and without["iterations"] == 3_000
    assert gaps == {i: gap for i, gap in longer.items() if i <= stopped}  # the same run
    stalled = [i for i, gap in gaps.items()
               if gap <= 1e-3 and gap > 0.97 * gaps.get(i - 200, np.inf)]  # fmt: skip
    assert stalled == [stopped] and facts["restricted_nash_conv"] == gaps[stopped]


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


def test_the_double_oracle_goes_on_while_predictive_cfr_is_short(monkeypatch):
    """With restricted games solved approximately, a round that adds no bid is not the
    end (its gap is the approximation's): the run goes on from the same restricted game
    to its target; and a round may stop predictive CFR+ where it stalls only after a
    round whose bound was mostly gained outside the restricted game."""
    monkeypatch.setattr(double_oracle_module, "CFR_MAX_ITERATIONS", 100)
    calls = []

    def recording(tree, built, target, max_iterations, progress=None, warm=None, **kw):
        calls.append(kw["stall_gap"])
        return restricted_cfr(tree, built, target, max_iterations, progress, warm, **kw)

    monkeypatch.setattr(double_oracle_module, "restricted_cfr", recording)
    game = ImperfectGame.parse(4, "descending", "points")
    sigmas, rounds = double_oracle(game, target=1e-6, restricted=RestrictedSolver.PCFR)
    assert certify(game, *sigmas, "rational").epsilon <= 1e-6
    assert any(r.added == (0, 0) for r in rounds[:-1])
    # (the first round, with no bound yet, stops at its first check whatever the rule)
    for before, stall_gap in zip(rounds, calls[1:]):
        bound = float(before.certificate.epsilon)
        outside = bound > CFR_OUTSIDE * before.lp["restricted_nash_conv"]
        assert stall_gap == (CFR_STALL * bound if outside else 0.0)
    assert 0.0 in calls[1:] and any(0.0 < gap < np.inf for gap in calls[1:])


def test_an_approximate_run_short_of_an_unreachable_target_ends_where_it_stops_falling():
    """Target 0 by predictive CFR+: the rounds with no bid to add go on while the proven
    bound falls, and the run ends at the first that does not lower it."""
    game = ImperfectGame.parse(4, "descending", "points")
    _, rounds = double_oracle(game, target=0.0, restricted=RestrictedSolver.PCFR)
    bounds = [float(r.certificate.epsilon) for r in rounds]
    assert rounds[-1].added == (0, 0) and bounds[-1] >= bounds[-2]
    for before, after, r in zip(bounds, bounds[1:], rounds[1:-1]):
        assert r.added != (0, 0) or after < before


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

    def recording(tree, built, target, max_iterations, progress=None, warm=None, **kw):
        started.append(warm)
        return restricted_cfr(tree, built, target, max_iterations, progress, warm, **kw)

    monkeypatch.setattr(double_oracle_module, "restricted_cfr", recording)
    solve_double_oracle(game, 0, path, "bound", target=1e-2, restricted=RestrictedSolver.PCFR)
    for p in (0, 1):
        assert np.array_equal(started[0].cells[p], saved.regrets[p][0])
        assert np.array_equal(started[0].regrets[p], saved.regrets[p][1])
