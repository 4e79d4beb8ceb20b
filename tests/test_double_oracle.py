"""exact.imperfect.double_oracle: the sequence-form LP solved over growing restricted games.

The references: the value of each game, 0 (the players are interchangeable in each game
here: a symmetric zero-sum game), the exact
rational NashConv of the policy found (:mod:`exact.imperfect.nashconv`'s recursion over
the game tree in Fractions, not the tables the oracle uses), OpenSpiel's expected
returns of a pure-strategy profile, and the invariants of a restriction (closed under
prefixes; every decision in play has a bid)."""

import json
import math
import random
import zipfile

import numpy as np
import pytest
from click.testing import CliRunner

import exact.imperfect.double_oracle as double_oracle_module
from exact.cli import main
from exact.errors import GopsInputError
from exact.imperfect.certified import certify, lp_plans
from exact.imperfect.checkpoint import read_support, write_support
from exact.imperfect.double_oracle import RestrictedSolver, double_oracle, solve_double_oracle
from exact.imperfect.game import TIE, ImperfectGame
from exact.imperfect.lp_tables import table_lp
from exact.imperfect.restricted import GameTree, closure, restricted_lp
from exact.imperfect.tables import layout, legal_rows, mirror_rows, reachable_rows
from exact.imperfect.warm_basis import NamedBasis

#: The proven NashConv of the oracle's last policy, computed exactly in rationals, is at
#: most this (the restricted LP's vertex is solved in float64).
NASHCONV_TOLERANCE = 1e-12
#: Player 0's best-response value against the oracle's policy and the game's exact value
#: agree this closely.
VALUE_TOLERANCE = 1e-12
#: The seed of the random restrictions (fixed: the same ones in every run).
SEED = 48

GAMES = [
    pytest.param((n, order, objective), id=f"{n}-{order}-{objective}")
    for n, order in ((4, "descending"), (4, "ascending"), (5, "descending"), (3, "random"),
                     (4, "random"))
    for objective in ("points", "win")
]  # fmt: skip


@pytest.mark.parametrize("spec", GAMES)
def test_the_oracle_from_nothing_reaches_the_exact_value(spec):
    game = ImperfectGame.parse(*spec)
    sigmas, rounds = double_oracle(game)
    proof = certify(game, *sigmas, "rational")
    assert proof.epsilon <= NASHCONV_TOLERANCE
    # the players are interchangeable in each of these games: a symmetric zero-sum game
    value = 0
    v0, v1 = proof.best_responses
    # NashConv = v0 + v1 >= 0, and the value lies between -v1 and v0
    assert -v1 <= value <= v0
    assert float(v0 - value) <= VALUE_TOLERANCE
    # the restricted game ended smaller than the whole one, and only grew
    assert rounds[-1].sequences[0] <= table_lp(game).sequences[0]
    sizes = [r.sequences for r in rounds]
    assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(sizes, sizes[1:]))


def _random_allow(legal, rng, share):
    return legal & (rng.random(legal.shape) < share)


def _everything(tree):
    return [closure(tree, p, tree.legal.copy(), np.argmax(tree.legal, axis=1)) for p in (0, 1)]


@pytest.mark.parametrize("spec", [(5, "ascending", "points"), (4, "random", "win")])
def test_a_closure_is_closed_under_prefixes_and_every_decision_in_play_bids(spec):
    game = ImperfectGame.parse(*spec)
    built = table_lp(game)  # its parents: the sequence-column numbering, built apart
    tree = GameTree.of(game)
    legal = tree.legal
    rng = np.random.default_rng(SEED)
    for share in (0.0, 0.2, 0.6):
        for player in (0, 1):
            allow = _random_allow(legal, rng, share)
            before = allow.copy()
            default = np.argmax(legal, axis=1)  # the lowest legal card
            in_s = closure(tree, player, allow, default)
            columns, parents = built.columns[player], built.parents[player]
            sequences = np.zeros(built.sequences[player], dtype=bool)
            sequences[0] = True
            sequences[columns[in_s]] = True
            decisions = np.flatnonzero(reachable_rows(built.where, player))
            in_play = decisions[sequences[parents[decisions]]]
            # closed: a sequence is in S exactly when its decision is in play and it is allowed
            cells = np.zeros_like(allow)
            cells[in_play] = allow[in_play] & legal[in_play]
            assert np.array_equal(cells, in_s)
            # every decision in play bids; only bare decisions gained their default
            assert np.all(cells[in_play].any(axis=1))
            gained = allow & ~before
            assert set(np.flatnonzero(gained.any(axis=1))) <= set(in_play.tolist())
            assert np.all(gained.sum(axis=1) <= 1)


def _seen_by_walking(game, where, in_s):
    """Each player's rows that some history reaches with both players bidding within
    their sets: the game's own turn-based states, walked in Python."""
    seen: list[set] = [set(), set()]

    def walk(state):
        if state.is_terminal():
            return
        if state.is_chance_node():
            for action, _ in state.chance_outcomes():
                walk(state.child(action))
            return
        player = state.current_player()
        row = where.row(state.information_key(player))
        seen[player].add(row)
        for action in state.legal_actions():
            if in_s[player][row, action]:
                walk(state.child(action))

    walk(game.initial_state())
    return seen


@pytest.mark.parametrize("spec", [(4, "random", "points"), (5, "ascending", "win")])
def test_the_rows_the_restricted_game_reaches_are_those_its_histories_reach(spec):
    game = ImperfectGame.parse(*spec)
    tree = GameTree.of(game)
    rng = np.random.default_rng(SEED)
    for share in (0.0, 0.3, 1.0):
        default = [np.argmax(tree.legal, axis=1)] * 2
        allow = [_random_allow(tree.legal, rng, share) for _ in (0, 1)]
        in_s = [closure(tree, p, allow[p], default[p]) for p in (0, 1)]
        built = restricted_lp(tree, in_s[0], in_s[1])
        walked = _seen_by_walking(game, tree.where, in_s)
        for player in (0, 1):
            assert set(np.flatnonzero(built.seen[player]).tolist()) == walked[player]
        assert len(walked[0]) > 1 and len(walked[1]) > 1


def _submatrix(built, in_s):
    """The whole LP's rows and columns of the restriction to the cells ``in_s``: player 1's
    sequences, player 0's decisions in play; player 0's sequences, player 1's decisions
    in play (the restriction as the module docstring derives it)."""
    sequences = []
    for p in (0, 1):
        mask = np.zeros(built.sequences[p], dtype=bool)
        mask[0] = True
        mask[built.columns[p][in_s[p]]] = True
        sequences.append(mask)
    d0 = np.flatnonzero(reachable_rows(built.where, 0))
    d1 = np.flatnonzero(reachable_rows(built.where, 1))
    rows = np.concatenate([sequences[1], [True], sequences[0][built.parents[0][d0]]])
    cols = np.concatenate([sequences[0], [True], sequences[1][built.parents[1][d1]]])
    return rows, cols


@pytest.mark.parametrize(
    "spec", [(3, "random", "win"), (4, "ascending", "points"), (4, "random", "points"),
             (5, "descending", "win")]
)  # fmt: skip
def test_the_restricted_lp_is_the_submatrix_of_the_whole_lp(spec):
    """Built from the tree (walking only the histories both sets reach), the restricted
    LP equals the whole LP's (lp_tables, built over every pair of sequences) rows and
    columns of the restriction, entry for entry; with every card allowed, the whole LP."""
    game = ImperfectGame.parse(*spec)
    built, tree = table_lp(game), GameTree.of(game)
    rng = np.random.default_rng(SEED)
    everything = _everything(tree)
    assert (restricted_lp(tree, *everything).lp.matrix() != built.lp.matrix()).nnz == 0
    for share in (0.3, 0.5, 0.8):
        default = np.argmax(tree.legal, axis=1)
        in_s = [closure(tree, p, _random_allow(tree.legal, rng, share), default) for p in (0, 1)]
        ours = restricted_lp(tree, *in_s).lp
        rows, cols = _submatrix(built, in_s)
        whole = built.lp
        assert (
            ours.matrix() != whole.matrix()[np.flatnonzero(rows)][:, np.flatnonzero(cols)]
        ).nnz == 0
        assert np.array_equal(ours.col_cost, whole.col_cost[cols])
        assert np.array_equal(ours.col_lower, whole.col_lower[cols])
        assert np.array_equal(ours.row_lower, whole.row_lower[rows])
        assert np.array_equal(ours.row_upper, whole.row_upper[rows])
        assert (ours.n_own, ours.n_ub) == (cols[: whole.n_own].sum(), rows[: whole.n_ub].sum())


def test_one_pure_strategy_each_the_lp_value_is_openspiels_return_of_the_profile():
    pytest.importorskip("pyspiel")
    from open_spiel.python import policy as openspiel_policy
    from open_spiel.python.algorithms import expected_game_score

    from exact.imperfect.policy import openspiel_game

    game = ImperfectGame.parse(4, "descending", "points")
    tree = GameTree.of(game)
    where, legal = tree.where, tree.legal
    rng = np.random.default_rng(SEED)
    # each player a random pure strategy: one random legal card at every row
    picks = [np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in legal])
             for _ in (0, 1)]  # fmt: skip
    pure = [np.zeros(legal.shape, dtype=bool) for _ in (0, 1)]
    for p in (0, 1):
        pure[p][np.arange(len(legal)), picks[p]] = True
        pure[p] &= legal
    in_s = [closure(tree, p, pure[p].copy(), picks[p]) for p in (0, 1)]
    ours = lp_plans(restricted_lp(tree, *in_s).lp)[2]["value_float"]
    turn_based = openspiel_game(game)
    tabular = openspiel_policy.TabularPolicy(turn_based)
    for player in (0, 1):
        for decision in game.information_states(player):
            index = tabular.state_lookup[decision.string]
            tabular.action_probability_array[index] = pure[player][where.row(decision.key)]
    theirs = expected_game_score.policy_value(turn_based.new_initial_state(), [tabular] * 2)
    assert ours == pytest.approx(theirs[0], abs=VALUE_TOLERANCE)
    assert ours != 0  # the profile is not a draw: the check could fail


def test_a_checkpoint_round_trips_and_resumes(tmp_path):
    game = ImperfectGame.parse(5, "descending", "points")
    path = tmp_path / "oracle.npz"
    first = solve_double_oracle(game, 100, path, "rational")
    done, allow, bound, regrets, basis, best, best_round = read_support(game, path)
    assert done == first.sizes["rounds"]
    assert (best, best_round) == (bound, done)  # the last round was the run's best
    assert regrets is None  # the restricted games were solved by their LPs
    assert basis is not None  # ... whose last basis is kept
    # the last round's proven bound (float64 plus its error bound) is kept: it sets how
    # far a resumed run's first restricted game is solved
    assert first.certificate.epsilon <= bound <= NASHCONV_TOLERANCE
    rounds = []
    real = double_oracle_module.double_oracle

    def recording(*args, **kwargs):
        found = real(*args, **kwargs)
        rounds.extend(found[1])
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(double_oracle_module, "double_oracle", recording)
        patch.setattr(double_oracle_module, "WARM_FROM", 0)  # this LP is small
        again = solve_double_oracle(game, 100, path, "rational")
    # resumed after the last round, from its restricted game and its LP's optimal basis:
    # the simplex has nothing to do, the vertex is the last one, no bid is added
    assert [done.round for done in rounds] == [done + 1]
    assert rounds[0].lp["iterations"] == 0
    assert rounds[0].sequences == tuple(first.sizes["restricted_sequences"])
    assert again.certificate.epsilon == first.certificate.epsilon


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d.update(n=np.int64(5)), "is of the game"),
        (lambda d: d.update(format="something else"), "is of format"),
        (lambda d: d.update(round=np.int64(-1)), "is not between 0"),
        (lambda d: d.update(allow0=d["allow0"].astype(np.float64)), "not bool"),
        (lambda d: d.update(allow1=d["allow1"][:-1]), "has shape"),
        (lambda d: d.update(allow0=np.ones_like(d["allow0"])), "cards already bid"),
        (lambda d: d.pop("allow1"), "lacks allow1"),
        (lambda d: d.update(extra=np.int64(1)), "no checkpoint has"),
        (lambda d: d.update(bound=np.float64(-1.0)), "not a number >= 0"),
        (lambda d: d.update(bound=np.float64("nan")), "not a number >= 0"),
        (lambda d: d.update(bound=np.float64("inf")), "not a number >= 0"),
        (lambda d: d.update(best=np.float64("nan")), "the best nan is not a number"),
        (lambda d: d.pop("best_round"), "one of best and best_round"),
        (lambda d: d.update(best_round=np.int64(4)), "best_round 4 is not between 0"),
        (lambda d: d.update(bound=np.array([1.0, 2.0])), "not a float"),
        (lambda d: d.update(bound="small"), "not a float"),
        (lambda d: d.pop("regrets1"), "but not regrets1"),
        (lambda d: d.update(cells0=d["cells0"].astype(np.int32)), "not int64"),
        (lambda d: d.update(cells0=d["cells0"].reshape(1, -1)), "not one axis"),
        (lambda d: d.update(regrets0=np.zeros(d["allow0"].size + 2)), "not one axis of at most"),
        (lambda d: d.update(regrets0=d["regrets0"][:-1]), "one more than cells0"),
        (lambda d: d.update(cells1=d["cells1"][::-1].copy()), "not strictly increasing"),
        (lambda d: d.update(cells1=d["cells1"] + 10**9), "not strictly increasing"),
        (lambda d: d.update(cells0=d["cells0"] - d["cells0"][0] - 1), "not strictly increasing"),
        (
            lambda d: d.update(cells0=np.flatnonzero(~d["allow0"])[:3], regrets0=np.zeros(4)),
            "cells0 holds cards already bid",
        ),
        (lambda d: d.update(regrets1=-d["regrets1"] - 1), "not finite and >= 0"),
        (lambda d: d.update(regrets1=d["regrets1"] * np.nan), "not finite and >= 0"),
        (lambda d: d.pop("basis_rows"), "but not basis_rows"),
        (lambda d: d.update(basis_rows=d["basis_rows"][:-1]), "has 8 entries, not 7"),
        (lambda d: d.update(basis_columns=d["basis_columns"][::-1].copy()), "not strictly"),
        (lambda d: d.update(basis_columns=d["basis_columns"] - 1), "not strictly increasing"),
        (lambda d: d.update(basis_rows=d["basis_rows"] * 10**6), "not strictly increasing"),
        (lambda d: d.update(basis_row_status=d["basis_row_status"] + 5), "codes above 4"),
        (lambda d: d.update(basis_column_status=d["basis_columns"]), "not uint8"),
    ],
)
def test_an_edited_checkpoint_is_one_line(tmp_path, edit, message):
    game = ImperfectGame.parse(4, "descending", "points")
    legal = legal_rows(table_lp(game).where)
    path = tmp_path / "oracle.npz"
    write_support(path, game, 3, (legal.copy(), legal.copy()))
    assert read_support(game, path)[2] == math.inf  # a checkpoint without its bound
    write_support(path, game, 3, (legal.copy(), legal.copy()), 0.25)
    assert read_support(game, path)[2] == 0.25
    cells = np.flatnonzero(legal)
    regrets = [(cells, np.arange(len(cells) + 1.0)), (cells[1:], np.ones(len(cells)))]
    basis = NamedBasis(np.arange(9) * 3, np.ones(9, np.uint8), np.arange(8), np.zeros(8, np.uint8))
    write_support(path, game, 3, (legal.copy(), legal.copy()), 0.25, regrets, basis, (0.5, 2))
    assert read_support(game, path).regrets[1][1].tolist() == [1.0] * len(cells)
    assert read_support(game, path).basis.columns.tolist() == list(range(0, 27, 3))
    with np.load(path) as archive:
        data = {name: archive[name] for name in archive.files}
    edit(data)
    with open(path, "wb") as fh:
        np.savez(fh, **data)
    with pytest.raises(GopsInputError, match=message) as error:
        read_support(game, path)
    assert "\n" not in str(error.value)


def test_a_resumed_run_keeps_the_runs_best_policy(tmp_path):
    """A resumed run whose rounds are all worse than an earlier process's best leaves
    that policy in its file and answers with it, proven again (the file is not rewritten
    by a worse one)."""
    game = ImperfectGame.parse(5, "descending", "points")
    checkpoint, policy = tmp_path / "oracle.npz", tmp_path / "policy.json"
    command = ["imperfect", "solve", "5", "--order", "descending", "--objective", "points",
               "--method", "oracle", "--certify", "bound", "--checkpoint", str(checkpoint),
               "--policy-out", str(policy), "--json", "--quiet"]  # fmt: skip
    runner = CliRunner()
    result = runner.invoke(main, command)
    assert result.exit_code == 0, result.output
    first = json.loads(result.output.strip().splitlines()[-1])
    written = policy.read_bytes()
    saved = read_support(game, checkpoint)
    assert saved.best <= NASHCONV_TOLERANCE and saved.best_round == first["sizes"]["rounds"]
    # the next process starts from almost nothing (as if the sets had been lost): its
    # first round is far from an equilibrium, and a target of 100 stops it there
    nothing = np.zeros_like(saved.allow[0])
    write_support(checkpoint, game, saved.round, (nothing, nothing.copy()), saved.bound,
                  best=(saved.best, saved.best_round))  # fmt: skip
    result = runner.invoke(main, [*command, "--target", "100"])
    assert result.exit_code == 0, result.output
    again = json.loads(result.output.strip().splitlines()[-1])
    assert read_support(game, checkpoint).round == saved.round + 1
    assert policy.read_bytes() == written
    assert again["certified"]["epsilon_float"] == first["certified"]["epsilon_float"]
    assert again["sizes"]["rounds"] == saved.best_round


def test_files_that_are_not_checkpoints(tmp_path):
    game = ImperfectGame.parse(4, "descending", "points")
    for content in (b"", b"not a zip", b"PK\x03\x04broken"):
        path = tmp_path / "bad.npz"
        path.write_bytes(content)
        with pytest.raises(GopsInputError):
            read_support(game, path)
    with zipfile.ZipFile(tmp_path / "z.npz", "w") as archive:
        archive.writestr("allow0.npy", b"\x93NUMPY garbage")
    with pytest.raises(GopsInputError):
        read_support(game, tmp_path / "z.npz")


def test_the_command_line(tmp_path):
    runner = CliRunner()
    result = runner.invoke(
        main,
        ["imperfect", "solve", "5", "--order", "ascending", "--objective", "win",
         "--method", "oracle", "--iterations", "0", "--json", "--quiet"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["certified"]["method"] == "rational"
    assert float(data["certified"]["epsilon_float"]) <= NASHCONV_TOLERANCE
    assert data["sizes"]["start_iterations"] == 0
    for args, message in (
        (["9", "--order", "descending", "--method", "oracle"], "at most 8"),
        (["7", "--order", "random", "--method", "oracle"], "at most 6"),
        (["5", "--method", "oracle", "--target", "0"], "positive number"),
        (["5", "--method", "cfr", "--target", "1e-3"], "for --method oracle"),
        (["5", "--method", "oracle", "--iterations", "-1"], "between 0"),
        (["5", "--method", "lp", "--iterations", "5"], "cfr or oracle"),
        # a shipped game (no --method) refuses the oracle's options, not ignores them
        (["5", "--symmetric-sets"], "--symmetric-sets is for --method oracle"),
        (["5", "--lift"], "--lift is for --method oracle"),
        (["5", "--restricted-solver", "pcfr+"], "--restricted-solver is for"),
        (["5", "--target", "1e-3"], "for --method oracle"),
    ):
        result = runner.invoke(main, ["imperfect", "solve", *args])
        assert result.exit_code == 2 and message in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1


def test_random_restrictions_never_beat_the_value():
    """Restricting one player (the other free) can only hurt it: the restricted LP's value
    for player 0 is at most the game's value, 0 (the players are interchangeable), and
    restricting player 1 only helps player 0."""
    game = ImperfectGame.parse(4, "ascending", "points")
    tree = GameTree.of(game)
    legal = tree.legal
    value = 0.0  # a symmetric zero-sum game
    rng = random.Random(SEED)
    everything = _everything(tree)
    for _ in range(5):
        share = rng.choice((0.3, 0.5, 0.8))
        allow = _random_allow(legal, np.random.default_rng(rng.randrange(10**6)), share)
        in0 = closure(tree, 0, allow.copy(), np.argmax(legal, axis=1))
        lp = restricted_lp(tree, in0, everything[1]).lp
        assert lp_plans(lp)[2]["value_float"] <= value + VALUE_TOLERANCE
        in1 = closure(tree, 1, allow.copy(), np.argmax(legal, axis=1))
        lp = restricted_lp(tree, everything[0], in1).lp
        assert lp_plans(lp)[2]["value_float"] >= value - VALUE_TOLERANCE


def _one_sided_lp_script():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "one_sided_lp.py"
    spec = importlib.util.spec_from_file_location("one_sided_lp", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_two_one_sided_lps_make_a_pair_whose_nashconv_is_their_values_gap():
    """benchmarks/one_sided_lp.py: each player's best strategy within its set against the
    whole game of the other.  Their NashConv is exactly the gap between the two LPs'
    values (each player's best response earns the other's guarantee), whatever the sets;
    with both sets the whole game it is an equilibrium."""
    script = _one_sided_lp_script()
    game = ImperfectGame.parse(4, "ascending", "points")
    tree = GameTree.of(game)
    rng = np.random.default_rng(SEED)
    quiet = lambda _: None  # noqa: E731
    for share in (0.5, 0.8, 1.0):
        allow = [_random_allow(tree.legal, rng, share) for _ in (0, 1)]
        (v0, s0), (v1, s1) = (script.one_side(game, allow[p], p, quiet) for p in (0, 1))
        _, proof = script.pair(game, (s0, s1), quiet)
        assert v0 <= VALUE_TOLERANCE and v1 >= -VALUE_TOLERANCE  # the value is 0
        assert abs(float(proof.nash_conv) - (v1 - v0)) <= NASHCONV_TOLERANCE
        if share == 1.0:
            assert proof.epsilon <= NASHCONV_TOLERANCE


def test_a_long_run_keeps_its_best_policy_as_it_goes(tmp_path, monkeypatch):
    """--policy-out is written at each round whose proven NashConv is the least so far (at
    most every BEST_EVERY seconds: here always), so that a run stopped keeps its best; the
    file at the end is the policy proven."""
    monkeypatch.setattr(double_oracle_module, "BEST_EVERY", 0.0)
    out = tmp_path / "p.json"
    result = CliRunner().invoke(
        main,
        ["imperfect", "solve", "5", "--order", "ascending", "--method", "oracle",
         "--restricted-solver", "pcfr+", "--target", "1e-3", "--policy-out", str(out), "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if "the best so far" in line]
    bounds = [float(line.split("NashConv <= ")[1].split(" ")[0])
              for line in result.output.splitlines() if line.startswith("gops: round") and
              "NashConv <= " in line]  # fmt: skip
    assert len(lines) >= 1 and len(lines) == sum(
        1 for i, b in enumerate(bounds) if b < min(bounds[:i], default=float("inf"))
    )
    answer = json.loads(result.output.splitlines()[-1])
    game = ImperfectGame.parse(5, "ascending", "points")
    from exact.imperfect.nashconv import nash_conv
    from exact.imperfect.policy_file import load_policy_file

    proven = nash_conv(game, load_policy_file(game, out), "rational").value
    assert proven <= 1e-3 and float(proven) <= answer["certified"]["epsilon_float"]


def test_the_best_policy_is_written_at_most_every_best_every_seconds(tmp_path, monkeypatch):
    """With BEST_EVERY longer than the run, the first round's policy is written, then
    only the one that meets the target."""
    monkeypatch.setattr(double_oracle_module, "BEST_EVERY", 1e9)
    result = CliRunner().invoke(
        main,
        ["imperfect", "solve", "5", "--order", "ascending", "--method", "oracle",
         "--restricted-solver", "pcfr+", "--target", "1e-3", "--policy-out",
         str(tmp_path / "p.json")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rounds = [line for line in result.output.splitlines() if line.startswith("gops: round")]
    written = [line for line in rounds if "the best so far" in line]
    bounds = [float(line.split("NashConv <= ")[1].split(" ")[0]) for line in rounds if "<=" in line]
    assert len(bounds) >= 3 and bounds[-1] <= 1e-3 < min(bounds[:-1])
    assert [line.split("'")[0] for line in written] == [
        "gops: round 1",
        f"gops: round {len(bounds)}",
    ]


def test_the_pace_estimate():
    # bounds halving each round, 10 minutes a round: from 1/16 to 1/1024 is 6 rounds, an hour
    bounds = [1 / 2, 1 / 4, 1 / 8, 1 / 16]
    said = double_oracle_module.pace(bounds, [600.0] * 4, 1 / 1024)
    assert "x0.50 a round" in said and "about 6 rounds, 1.0 h away" in said
    # a bound that rose over the rounds, too few rounds, or a target met: nothing said
    assert double_oracle_module.pace([1.0, 2.0, 4.0], [60.0] * 3, 0.1) == ""
    assert double_oracle_module.pace([1.0, 0.5], [60.0] * 2, 0.1) == ""
    assert double_oracle_module.pace([1.0, 0.5, 0.25], [60.0] * 3, 0.5) == ""
    # only the last PACE_ROUNDS rounds count: a slow start is forgotten
    slow = [4.0, 3.9, 3.8, 3.7, 3.6, 0.8, 0.4, 0.2, 0.1]
    assert "x0.50 a round" in double_oracle_module.pace(slow, [60.0] * 9, 0.1 / 8)


def test_the_best_policy_found_between_writes_is_held_until_the_next():
    """A better policy found less than BEST_EVERY after the last write is held, replaced
    only by a better one, and handed on at the first round after the interval; one that
    meets the target is handed on at once."""
    handed = []
    keeper = double_oracle_module.BestKeeper(handed.append, every=600.0, target=1.0)
    offers = [(5.0, 0.0), (3.0, 10.0), (4.0, 20.0), (3.5, 650.0), (2.0, 700.0), (1.0, 710.0)]
    for bound, now in offers:
        keeper.offer(bound, lambda b=bound: f"policy {b}", now)
    assert handed == ["policy 5.0", "policy 3.0", "policy 1.0"]
    assert keeper.held is None and keeper.bound == 1.0
    # a resumed run's keeper starts from the policy its run handed on last (2.5, round 7)
    handed.clear()
    keeper = double_oracle_module.BestKeeper(handed.append, 600.0, 1.0, handed=(2.5, 7))
    for round_, bound in ((8, 3.0), (9, 2.0)):
        keeper.offer(bound, lambda b=bound: f"policy {b}", 1000.0 * round_, round_)
    assert handed == ["policy 2.0"] and keeper.handed == (2.0, 9)


def test_an_approximate_run_returns_its_best_round():
    """With predictive CFR+ and an unreachable target the last round may bound its policy
    worse than an earlier one did (4 cards random: 7.5e-8, then 1.1e-7): the run returns
    the policy of the least bound."""
    game = ImperfectGame.parse(4, "random", "points")
    sigmas, rounds = double_oracle(game, target=0.0, restricted=RestrictedSolver.PCFR)
    bounds = [float(r.certificate.epsilon) for r in rounds]
    chosen = double_oracle_module.best_round(rounds)
    assert float(chosen.certificate.epsilon) == min(bounds) < bounds[-1]
    proven = float(certify(game, *sigmas, "bound").epsilon)
    assert proven < bounds[-1] and math.isclose(proven, min(bounds), rel_tol=1e-6)


def test_mirror_rows_swap_the_winners_of_the_same_decision():
    """mirror_rows, against the decisions' keys: same prizes and own bids, winners 0 and 1
    swapped; an involution taking player 0's decisions onto player 1's."""
    where = layout(ImperfectGame.parse(4, "random"))
    mirror = mirror_rows(where)
    swap = {0: 1, 1: 0, TIE: TIE}
    for row in range(where.rows):
        prizes, own, winners = where.key(row)
        assert where.key(int(mirror[row])) == (prizes, own, tuple(swap[w] for w in winners))
    assert np.array_equal(mirror[mirror], np.arange(where.rows))
    assert np.array_equal(reachable_rows(where, 0)[mirror], reachable_rows(where, 1))


@pytest.mark.parametrize("spec", [(4, "ascending", "points"), (4, "random", "win")])
def test_symmetric_sets_are_mirror_images_and_reach_the_exact_value(spec):
    game = ImperfectGame.parse(*spec)
    mirror = mirror_rows(layout(game))
    seen = []

    def progress(done, cells, sigmas, warm, basis):
        seen.append((cells[0].copy(), cells[1].copy()))

    sigmas, rounds = double_oracle(game, progress=progress, symmetric=True)
    proof = certify(game, *sigmas, "rational")
    assert proof.epsilon <= NASHCONV_TOLERANCE
    # each round began from mirror images (the oracle's additions come after)
    starts = [r.sequences for r in rounds]
    assert all(a == b for a, b in starts)
    for allow0, allow1 in seen[:-1]:
        symmetric = [allow0.copy(), allow1.copy()]
        double_oracle_module.symmetrize(symmetric, mirror)
        assert np.array_equal(symmetric[0][mirror], symmetric[1])
        assert (symmetric[0] >= allow0).all() and (symmetric[1] >= allow1).all()
