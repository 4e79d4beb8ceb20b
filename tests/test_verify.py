"""A store is not a proof until re-derived (exact/dp/verify.py, `gops verify`): a level
edited together with its manifest checksum, or a hand-edited radius, is caught by `gops
verify`, and the answers read from a store (table, strategy, solve) never print a claim
they have not checked.  Each edit here is one a hostile user made on the store of a
previous version, which printed a different table and a forged "certified" with exit 0.
"""

import json
import os
import shutil
import stat
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from click.testing import CliRunner

import exact
from exact.cli import main
from exact.dp.objective import PointsObjective
from exact.dp.rederive import SMALL_LEVEL_ITEMS
from exact.dp.store import Store, StoreError, file_sha256, solve_into_store
from exact.dp.verify import RADIUS_SLACK, verify_store
from exact.game.spec import GameSpec
from reference import reference_value
from test_paper import PAPER_DIGITS_TOL, TABLE_1  # Rhoads & Bartholdi 2012, Table 1

N = 7
ALL = ",".join(str(c) for c in range(1, N + 1))
#: Whole-game first move on the king from a store: the answer a forger wants to change.
STRATEGY = ["strategy", "--mine", ALL, "--theirs", ALL, "--deck", ALL, "--upcard", str(N)]
#: tests/reference.py solves each matrix game with HiGHS at 1e-10 tolerances.
REFERENCE_TOL = 1e-8
#: A kernel defect far below what a table shows, far above a level's radius (~1e-13).
DEFECT = 1e-9


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A points store of N = 7 and a win store of N = 5, solved once for the module."""
    root = tmp_path_factory.mktemp("stores")
    solve_into_store(GameSpec.parse(N), root / "points", chunk_items=5000)
    solve_into_store(GameSpec.parse(5, "win"), root / "win")
    return root


@pytest.fixture
def store(pristine, tmp_path):
    """A fresh copy of the N = 7 points store, to be edited by the test."""
    shutil.copytree(pristine / "points", tmp_path / "s")
    return tmp_path / "s"


def gops(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def manifest(root):
    return json.loads((root / "manifest.json").read_text())


def rewrite_manifest(root, data):
    (root / "manifest.json").write_text(json.dumps(data))


def edit_level(root, k, delta=0.5, fix_checksum=True):
    """Add ``delta`` to the first value of level k that a game computed, and (as a careful
    forger would) record the new checksum in the manifest.  Returns the old value."""
    path = root / f"level-{k}.npy"
    values = np.load(path, mmap_mode="r+")
    index = np.argwhere(values != 0.0)[0]
    old = float(values[tuple(index)])
    values[tuple(index)] = old + delta
    values.flush()
    del values
    if fix_checksum:
        data = manifest(root)
        data["levels"][str(k)]["sha256"] = file_sha256(path)
        rewrite_manifest(root, data)
    return old


def set_radius(root, k, radius):
    data = manifest(root)
    data["levels"][str(k)]["radius"] = radius
    rewrite_manifest(root, data)


# -- gops verify on intact stores -------------------------------------------------------------


@pytest.mark.parametrize("kind", ["points", "win"])
def test_an_intact_store_verifies_with_the_radii_it_recorded(pristine, kind):
    verdict = verify_store(pristine / kind)
    assert verdict.bad is None and verdict.complete
    recorded = manifest(pristine / kind)["levels"]
    for check in verdict.checked:
        assert check.difference == 0.0  # the same kernels: the same bits
        assert check.needed == recorded[str(check.k)]["radius"]
        assert check.items == check.total
    result = gops("verify", pristine / kind, "--quiet")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("verified: every value of")


def test_sample_re_derives_the_number_of_items_asked(pristine):
    verdict = verify_store(pristine / "points", sample=7, seed=3)
    assert verdict.bad is None and not verdict.complete
    for check in verdict.checked:  # a small level whole
        assert check.items == (check.total if check.total <= SMALL_LEVEL_ITEMS else 7)
    result = gops("verify", pristine / "points", "--sample", 7, "--quiet")
    assert result.exit_code == 0 and "not a proof" in result.output


def test_levels_can_be_verified_in_separate_runs(pristine):
    verdict = verify_store(pristine / "points", levels=[4, 5])
    assert [c.k for c in verdict.checked] == [4, 5] and not verdict.complete
    result = gops("verify", pristine / "points", "--levels", "4-5", "--quiet")
    assert result.exit_code == 0 and "once every level 0..7 has passed" in result.output


# -- values edited together with their checksum -------------------------------------------


@pytest.mark.parametrize("k", [3, N - 1])
def test_an_edited_level_with_a_recomputed_checksum_fails_verify(store, k):
    old = edit_level(store, k)
    result = gops("verify", store, "--quiet")
    assert result.exit_code == 1
    line = result.output.strip()
    assert line.startswith(f"not verified: level {k}: prizes {{")
    assert f"stored {old + 0.5!r}, re-derived {old!r}" in line


def test_an_edit_below_the_top_is_caught_by_the_level_that_reads_it(store):
    """Level 6 edited: the first-move games read it, so table and strategy re-derive
    what they read and refuse the store (exit 1: contradicted, one line), printing
    nothing else."""
    edit_level(store, N - 1)
    for args in (["table", N, "--store", store], STRATEGY + ["--store", store, "--certified"]):
        result = gops(*args)
        assert result.exit_code == 1, result.output
        assert result.output.startswith(f"gops: error: {store}: level {N - 1}, prizes")
        assert result.output.count("\n") == 1


def test_answers_from_a_store_say_what_they_rest_on(store):
    """An edit two levels down is not seen by the first move: its answer says which
    levels are as stored and how to check them."""
    edit_level(store, 3)
    result = gops("table", N, "--store", store, "--certified")
    assert result.exit_code == 0
    # Level 6 of N = 7: 7 prize sets x 21 pairs of different hands (gops count 7: 301
    # subgames, 43 patterns, one of them identical hands).
    assert (
        f"read from the store {store}: the values of level 6 it reads (147 kernel "
        "items) were re-derived here from level 5 and agree"
    ) in result.output
    assert f"levels 0..5 as stored: `gops verify {store}` re-derives them" in result.output
    out = json.loads(gops("table", N, "--store", store, "--json").output)
    assert out["source"]["unverified_levels"] == [0, 1, 2, 3, 4, 5]
    assert out["source"]["rederived_items"] == 147
    assert gops("verify", store, "--quiet").exit_code == 1


def test_a_checksum_that_does_not_match_fails_verify(store):
    edit_level(store, 4, fix_checksum=False)
    result = gops("verify", store, "--quiet")
    assert result.exit_code == 1
    assert "level 4: the level file does not match the manifest's checksum" in result.output


def test_a_value_the_rules_fix_is_checked_too(store):
    """Identical hands are worth 0 without a game: an edit there is caught as well."""
    levels = exact.game.encoding.build_levels(N)
    level = levels[5]
    same = int(np.flatnonzero(level.swap == np.arange(level.patterns))[0])
    same = int(level.columns().column[same])  # its column in the store
    path = store / "level-5.npy"
    values = np.load(path, mmap_mode="r+")
    values[0, same] = 1.0
    values.flush()
    del values
    set_sha = manifest(store)
    set_sha["levels"]["5"]["sha256"] = file_sha256(path)
    rewrite_manifest(store, set_sha)
    result = gops("verify", store, "--quiet")
    assert result.exit_code == 1 and "level 5:" in result.output
    assert "stored 1.0 where the rules fix 0.0" in result.output


# -- hand-edited radii ----------------------------------------------------------------------


def test_a_zero_radius_fails_verify_and_is_never_printed(store):
    recorded = manifest(store)["levels"][str(N - 1)]["radius"]
    for k in range(N + 1):
        set_radius(store, k, 0.0)
    result = gops("verify", store, "--quiet")
    assert result.exit_code == 1
    assert "level 1: the manifest's radius 0.000e+00 is below" in result.output
    table = gops("table", N, "--store", store, "--certified")
    assert table.exit_code == 1
    assert f"level {N - 1}, the manifest's radius 0.000e+00 is below" in table.output
    assert recorded > 0.0
    # The resumed solve keeps the store's levels: it says the radius is the store's claim.
    solve = gops("solve", N, "--store", store, "--quiet")
    assert "certified" not in solve.output
    assert f"radius, given the stored levels 0..{N} (kept by this resume" in solve.output


@pytest.mark.parametrize("radius", [1e300, float(N * (N + 1) // 2)])
def test_a_radius_that_proves_nothing_is_refused(store, radius):
    """Issue 36 item 16: verify (with --sample too) refuses what table refuses, alike."""
    set_radius(store, 4, radius)
    for args in (
        ["table", N, "--store", store, "--certified"],
        ["solve", N, "--store", store],
        ["verify", store, "--quiet"],
        ["verify", store, "--sample", 5, "--quiet"],
    ):
        result = gops(*args)
        assert result.exit_code == 2, (args, result.output)
        assert "level 4 the radius" in result.output and "proves nothing" in result.output


@pytest.mark.parametrize("radius", [-1e-12, float("nan"), float("inf"), "0.1", True])
def test_a_malformed_radius_is_refused(store, radius):
    set_radius(store, 4, radius)
    for args in (["verify", store], ["table", N, "--store", store]):
        result = gops(*args)
        assert result.exit_code == 2
        assert "has a malformed entry for level '4'" in result.output


def test_a_radius_below_the_level_below_is_refused(store):
    radii = manifest(store)["levels"]
    set_radius(store, 5, radii["4"]["radius"] / 2)
    with pytest.raises(StoreError, match="below level 4's"):
        Store.open(store)
    assert gops("table", N, "--store", store).exit_code == 2


def test_a_slightly_understated_radius_fails_verify(store):
    radius = manifest(store)["levels"]["5"]["radius"]
    set_radius(store, 5, float(np.nextafter(radius, 0.0)))
    result = gops("verify", store, "--levels", "5", "--quiet")
    assert result.exit_code == 1 and "is below the" in result.output


def test_a_sample_sees_a_radius_below_its_items_bounds(store):
    """Level 5's radius set to level 4's (which no crude check refuses): its items' bounds
    exceed it, and a sample of them sees it."""
    below = manifest(store)["levels"]["4"]["radius"]
    set_radius(store, 5, below)
    assert f"level 5: the manifest's radius {below:.3e} is below" in str(
        verify_store(store, levels=[5], sample=5).bad
    )


def test_a_looser_radius_is_not_what_the_solver_wrote(store):
    radius = manifest(store)["levels"]["6"]["radius"]  # the last level with games
    set_radius(store, 6, radius * RADIUS_SLACK * 2)
    result = gops("verify", store, "--levels", "6", "--quiet")
    assert result.exit_code == 1
    assert "is not the" in result.output and "re-derived here" in result.output


def test_the_empty_game_has_radius_zero(store):
    set_radius(store, 0, 1e-15)
    result = gops("table", N, "--store", store)
    assert result.exit_code == 2 and "(level 0) the radius 1e-15, not 0" in result.output


# -- unreadable stores: exit 2, one line ------------------------------------------------


def test_a_fifo_in_place_of_a_level_is_refused_without_hanging(store):
    (store / "level-6.npy").unlink()
    os.mkfifo(store / "level-6.npy")
    for args in (
        ["verify", store],
        ["table", N, "--store", store],
        ["solve", N, "--store", store, "--quiet"],
    ):
        result = gops(*args)
        assert result.exit_code == 2, (args, result.output)
        assert "level-6.npy is a FIFO, not a regular file" in result.output
    assert stat.S_ISFIFO(os.stat(store / "level-6.npy").st_mode)  # nothing replaced


def test_a_fifo_in_place_of_the_manifest_is_refused(store):
    (store / "manifest.json").unlink()
    os.mkfifo(store / "manifest.json")
    result = gops("verify", store)
    assert result.exit_code == 2 and "manifest.json is a FIFO" in result.output


def test_a_deeply_nested_manifest_is_one_line(store):
    (store / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    for args in (
        ["verify", store],
        ["table", N, "--store", store],
        ["solve", N, "--store", store],
        STRATEGY + ["--store", store],
    ):
        result = gops(*args)
        assert result.exit_code == 2, (args, result.output)
        assert result.output == (
            f"gops: error: {store / 'manifest.json'} is corrupted (JSON nested too deeply)\n"
        )


def test_a_boolean_chunk_size_is_refused(store):
    data = manifest(store)
    data["chunk_items"] = True
    rewrite_manifest(store, data)
    result = gops("solve", N, "--store", store)
    assert result.exit_code == 2 and "is not a gops store manifest" in result.output


def test_a_store_path_makes_only_its_last_folder(tmp_path):
    result = gops("solve", 3, "--store", tmp_path / "missing" / "a" / "b")
    assert result.exit_code == 2
    assert result.output == (
        f"gops: error: {tmp_path / 'missing' / 'a'} does not exist: "
        "create it first, or choose another store directory\n"
    )
    assert not (tmp_path / "missing").exists()
    assert gops("solve", 3, "--store", tmp_path / "new", "--quiet").exit_code == 0


def test_a_store_of_another_game_is_refused_before_the_estimate(pristine):
    result = gops("solve", N + 1, "--store", pristine / "points")
    assert result.exit_code == 2
    assert result.output == (
        f"gops: error: {pristine / 'points'} holds N={N} objective=points "
        f"order=random, not N={N + 1} objective=points order=random\n"
    )


def test_verify_names_what_it_cannot_read(tmp_path, pristine):
    assert gops("verify", tmp_path / "none").output == (
        f"gops: error: {tmp_path / 'none'}: no such store directory; make one with "
        f"`gops solve N --store {tmp_path / 'none'}` (add --objective or --order as the "
        "game needs)\n"
    )
    result = gops("verify", pristine / "points", "--levels", "9")
    assert result.exit_code == 2 and "holds levels 0 to 7, not 9" in result.output
    assert gops("verify", pristine / "points", "--levels", "x").exit_code == 2
    assert gops("verify", pristine / "points", "--sample", 0).exit_code == 2


def every_position(n: int, k: int):
    """(mine, theirs, deck) of every position of level k of the n-card game."""
    for deck in combinations(range(1, n + 1), k):
        for mine in combinations(range(1, n + 1), k):
            for theirs in combinations(range(1, n + 1), k):
                yield set(mine), set(theirs), set(deck)


def test_a_loaded_solution_holds_the_games_values(tmp_path):
    """exact.load reads the values of the game itself, checked against sources that share
    no code with the solver: every position of N = 4 against the plain recursion of
    tests/reference.py, and the first moves of N = 5 against the paper's Table 1."""
    solve_into_store(GameSpec.parse(4), tmp_path / "s4")
    solve_into_store(GameSpec.parse(5), tmp_path / "s5")
    sol = exact.load(tmp_path / "s4")
    assert sol.store == tmp_path / "s4" and exact.solve(3).store is None
    for k in range(5):
        for mine, theirs, deck in every_position(4, k):
            want = reference_value(mine, theirs, deck)
            assert abs(sol.value(mine, theirs, deck) - want) <= REFERENCE_TOL, (mine, theirs, deck)
    table = exact.load(tmp_path / "s5").first_move_table()
    for upcard in range(1, 6):
        for bid in range(1, 6):
            paper = TABLE_1[bid - 1][upcard - 1]
            assert abs(table[upcard][bid] - paper) <= PAPER_DIGITS_TOL, (upcard, bid)


def beyond_radius(root) -> list:
    """The values of the store at ``root`` (N <= 5) farther from the exact ones (rational
    arithmetic: the exact simplex, not the float kernels that verify re-derives with) than
    the radius of their level that ``verify_store`` proved: (position, lead, distance)."""
    verdict = verify_store(root)
    assert verdict.bad is None and verdict.complete, verdict.bad
    radius = {check.k: Fraction(check.recorded) for check in verdict.checked}
    game = Store.open(root).game
    sol = exact.load(root)
    truth = exact.solve(game.n, objective=game.objective.name, arithmetic="rational")
    total = game.n * (game.n + 1) // 2
    far = []
    for k in range(game.n + 1):
        for mine, theirs, deck in every_position(game.n, k):
            played = total - sum(deck)
            for lead in range(-played, played + 1) if game.objective.has_lead else [None]:
                stored = Fraction(float(sol.value(mine, theirs, deck, lead=lead)))
                distance = abs(stored - truth.value(mine, theirs, deck, lead=lead))
                if distance > radius[k]:
                    far.append(((mine, theirs, deck), lead, float(distance)))
    return far


@pytest.mark.parametrize("objective, n", [("points", 5), ("win", 4)])
def test_a_verified_store_holds_the_exact_values_within_its_radii(tmp_path, objective, n):
    """What gops verify proves, checked independently: every stored value lies within the
    verified radius of its level of the exact (rational) value."""
    solve_into_store(GameSpec.parse(n, objective), tmp_path / "s")
    assert beyond_radius(tmp_path / "s") == []


def skewed_kernel(monkeypatch, k: int):
    """The points kernel made to write its first nonzero value of level k DEFECT too high
    (the checksum then computed on the wrong file, as by a defective solver)."""
    real = PointsObjective.solve_chunk

    def skewed(self, level, below, out, start, stop, radius_below, row0=0):
        games, radius = real(self, level, below, out, start, stop, radius_below, row0)
        if level.k == k and start == 0:
            out[tuple(np.argwhere(np.asarray(out) != 0.0)[0])] += DEFECT
        return games, radius

    monkeypatch.setattr(PointsObjective, "solve_chunk", skewed)


def test_a_store_written_by_a_wrong_kernel_is_not_verified(tmp_path, monkeypatch):
    """A value of level 3 written DEFECT off (its checksum and radius as the solve wrote
    them): verify re-derives it with the right kernel and fails at that level, exit 1."""
    with monkeypatch.context() as patch:
        skewed_kernel(patch, 3)
        solve_into_store(GameSpec.parse(5), tmp_path / "s")
    verdict = verify_store(tmp_path / "s")
    assert verdict.bad is not None and verdict.bad.k == 3, verdict.bad
    assert gops("verify", tmp_path / "s", "--quiet").exit_code == 1


def test_a_kernel_defect_verify_cannot_see_is_beyond_the_radius(tmp_path, monkeypatch):
    """The same defect in the kernel that writes and the kernel that verifies: verify
    agrees with itself, and only the exact values find it (why the test above it compares
    with them)."""
    skewed_kernel(monkeypatch, 3)
    solve_into_store(GameSpec.parse(5), tmp_path / "s")
    far = beyond_radius(tmp_path / "s")
    assert far and all(len(deck) >= 3 for (_, _, deck), _, _ in far)


def test_verify_on_a_dask_cluster_finds_the_same_edit(store):
    """Every level's parts at once on a 2-worker LocalCluster: levels 0..3 pass with the
    radii they recorded, level 4 (edited, checksum recomputed) fails as it does here."""
    old = edit_level(store, 4)
    verdict = verify_store(store, cluster="local:2")
    assert [c.k for c in verdict.checked] == [0, 1, 2, 3, 4]
    recorded = manifest(store)["levels"]
    assert all(c.needed == recorded[str(c.k)]["radius"] for c in verdict.checked[:4])
    assert f"stored {old + 0.5!r}, re-derived {old!r}" in str(verdict.bad)
    assert str(verdict.bad) == str(verify_store(store).bad)


# -- a resume builds on nothing it has not checked (issue 36, items 1 and 13) -------------------


def forge_and_truncate(root, k, top):
    """A consistent forgery: every nonzero value of level k moved by +0.5 and its checksum
    recomputed; levels above ``top`` taken out (a resume rebuilds them on the forgery)."""
    path = root / f"level-{k}.npy"
    values = np.load(path, mmap_mode="r+")
    values[values != 0.0] += 0.5
    values.flush()
    del values
    data = manifest(root)
    data["levels"][str(k)]["sha256"] = file_sha256(path)
    for j in range(top + 1, N + 1):
        del data["levels"][str(j)]
        (root / f"level-{j}.npy").unlink()
    rewrite_manifest(root, data)


def test_a_resume_refuses_to_build_on_a_forged_level(store):
    """The scenario of the issue: level 3 forged with its checksum, levels 4.. deleted.
    The resume re-derives level 3 from level 2 before computing level 4 and refuses
    (exit 1, the level, the item, both values), building nothing."""
    forge_and_truncate(store, 3, 3)
    result = gops("solve", N, "--store", store, "--quiet")
    assert result.exit_code == 1, result.output
    line = result.output.strip().splitlines()[-1]
    assert line.startswith(f"gops: error: {store}: level 3, prizes {{")
    assert "stored " in line and ", re-derived " in line
    assert not (store / "level-4.npy").exists()
    assert sorted(manifest(store)["levels"]) == ["0", "1", "2", "3"]


def test_a_resume_says_how_much_of_each_kept_level_it_re_derived(store):
    """Issue 47 item 2: levels 5..7 removed; the resume keeps levels 0..4 and builds level
    5 on level 4, whose 4,375 items (N = 7) are more than SMALL_LEVEL_ITEMS: it re-derives
    RESUME_SAMPLE = 256 of them at random, so one edited item escapes with probability
    1 - 256 / 4,375; of levels 0..3 (0 + 7 + 126 + 1,085 items) it checks the checksums
    and the values the rules fix only, so an edited item there escapes for certain."""
    data = manifest(store)
    for k in range(5, N + 1):
        del data["levels"][str(k)]
        (store / f"level-{k}.npy").unlink()
    rewrite_manifest(store, data)
    result = gops("solve", N, "--store", store, "--quiet")
    assert result.exit_code == 0, result.output
    assert "spot-checked" not in result.output
    lines = result.output.splitlines()
    at = lines.index(
        "  kept levels 0..3: 0 of 1,218 items re-derived (checksum and the values the rules "
        "fix checked); an edited item escapes with probability 1"
    )
    assert lines[at - 1].startswith("radius, given the stored levels 0..4 (kept by this resume")
    assert lines[at + 1] == (
        "  kept level 4: 256 of 4,375 items re-derived; an edited item escapes with "
        "probability 0.941"
    )
    assert round(1 - 256 / 4375, 3) == 0.941


def checkpoint_claiming_all(root, k):
    """Level k taken out of the manifest (and the levels above), its file kept, and a
    ``level-k.progress`` that claims every item done, hashed as a careful forger would."""
    import hashlib

    data = manifest(root)
    for j in range(k, N + 1):
        del data["levels"][str(j)]
    rewrite_manifest(root, data)
    for j in range(k + 1, N + 1):
        (root / f"level-{j}.npy").unlink()
    values = np.load(root / f"level-{k}.npy", mmap_mode="r")
    levels = exact.game.encoding.build_levels(N)
    items = exact.dp.objective.objective_of(GameSpec.parse(N)).level_items(levels[k])
    digest = hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()
    rows = values.shape[0]
    del values
    (root / f"level-{k}.progress").write_text(f"{items} 1e-12 {rows} {digest}")


def test_a_resume_refuses_a_forged_checkpoint(store):
    """One item of level 5 moved by +0.5, its progress file rewritten (with the hash of
    the rows) to claim every item done: the resume re-derives the checkpointed items
    (all of them: the level is small) and refuses the forged one."""
    edit_level(store, 5, fix_checksum=False)
    checkpoint_claiming_all(store, 5)
    result = gops("solve", N, "--store", store, "--quiet")
    assert result.exit_code == 1, result.output
    assert f"gops: error: {store}: level 5, prizes {{" in result.output
    assert not (store / "level-6.npy").exists()


def test_a_resume_says_what_it_re_derived_of_a_checkpoint(store):
    """The genuine level 5 (2,520 items, N = 7) taken out of the manifest, its checkpoint
    claiming every item: the resume re-derives all of them (a small level) and says so."""
    checkpoint_claiming_all(store, 5)
    result = gops("solve", N, "--store", store, "--quiet")
    assert result.exit_code == 0, result.output
    assert (
        "\n  kept level 5: 2,520 of 2,520 items re-derived (the items its checkpoint took as "
        "done); an edited item escapes with probability 0\n"
    ) in result.output


def test_a_checkpoint_that_does_not_hash_its_rows_is_dropped(store, pristine):
    """A progress file rewritten without the hash of the rows it counts vouches for
    nothing: the level is computed again from its first item, and comes out genuine."""
    edit_level(store, 5, fix_checksum=False)
    checkpoint_claiming_all(store, 5)
    text = (store / "level-5.progress").read_text().split()
    (store / "level-5.progress").write_text(" ".join(text[:3] + ["0" * 64]))
    result = gops("solve", N, "--store", store, "--quiet")
    assert result.exit_code == 0, result.output
    assert "level 5: its checkpoint does not match the level file" in result.output
    for k in range(N + 1):
        assert manifest(store)["levels"][str(k)] == manifest(pristine / "points")["levels"][str(k)]


def set_start_value(root, value):
    """The start value (top level, the single column of identical hands), set to
    ``value`` with its checksum recomputed."""
    path = root / f"level-{N}.npy"
    values = np.load(path, mmap_mode="r+")
    assert values.shape == (1, 1) and values[0, 0] == 0.0
    values[0, 0] = value
    values.flush()
    del values
    data = manifest(root)
    data["levels"][str(N)]["sha256"] = file_sha256(path)
    rewrite_manifest(root, data)


def test_a_rerun_checks_the_values_the_rules_fix(store):
    """Issue 36 item 13: the start value is 0 by symmetry; set to 0.5 with its checksum,
    a rerun of the solve refuses the store instead of printing it."""
    set_start_value(store, 0.5)
    result = gops("solve", N, "--store", store, "--quiet")
    assert result.exit_code == 1, result.output
    assert f"gops: error: {store}: level {N}, prizes" in result.output
    assert "stored 0.5 where the rules fix 0.0" in result.output
    assert "value at the start" not in result.output


def test_a_sample_checks_the_values_the_rules_fix(store):
    """Issue 36 item 2: the start value 0 (by symmetry) set to 0.25 with its checksum
    passed `verify --sample 50`: the values no item writes are now checked whole."""
    set_start_value(store, 0.25)
    result = gops("verify", store, "--sample", 50, "--quiet")
    assert result.exit_code == 1, result.output
    assert result.output.startswith(f"not verified: level {N}: prizes")
    assert "stored 0.25 where the rules fix 0.0" in result.output


def test_a_sample_checks_small_levels_whole_and_says_what_escapes_it(pristine):
    """Levels of at most SMALL_LEVEL_ITEMS items are re-derived whole (an edit there
    cannot escape a sample), and the summary says the chance that one edited item of a
    sampled level escapes: 1 - 50 / 4,375 for level 4 of N = 7."""
    verdict = verify_store(pristine / "points", sample=50, seed=1)
    for check in verdict.checked:
        assert check.items == (check.total if check.total <= SMALL_LEVEL_ITEMS else 50)
    result = gops("verify", pristine / "points", "--sample", 50, "--quiet")
    assert result.exit_code == 0, result.output
    assert f"at most {1 - 50 / 4375:.1%} (level 4)" in result.output
    result = gops("verify", pristine / "points", "--sample", 50, "--levels", "5-7", "--quiet")
    assert "every item was re-derived (the levels are small)" in result.output


@pytest.fixture
def forged(store, monkeypatch):
    """The issue's forged store, built as the previous version built it: level 3 moved
    by +0.5 with its checksum, levels 4.. solved again on it (the resume's check of the
    kept level switched off), so every level above agrees with the forgery."""
    import exact.dp.store as store_module

    forge_and_truncate(store, 3, 3)
    monkeypatch.setattr(store_module.Store, "check_resume", lambda self, level: None)
    solve_into_store(GameSpec.parse(N), store)
    monkeypatch.undo()
    return store


def test_a_claim_from_a_store_carries_its_condition(forged):
    """Issue 36 item 1b: the forged store's first move reads consistent levels 5 and 6,
    so its claims stand on levels 0..5 as stored: every "certified" and "proved" says so
    in its own sentence, in text and JSON; none reads as unconditional."""
    given = (
        f"given the stored levels 0..5 of {forged} (not re-derived here: `gops verify "
        f"{forged}` proves them, or rerun with --rederive)"
    )
    table = gops("table", N, "--store", forged, "--certified")
    assert table.exit_code == 0, table.output
    assert f"certified, {given}: " in table.output
    strategy = gops(*STRATEGY, "--store", forged, "--certified")
    assert strategy.exit_code == 0, strategy.output
    assert f"certified, {given}: the exact equilibrium is unique" in strategy.output
    for output in (table.output, strategy.output):
        claims = [line for line in output.splitlines() if line.startswith(("certified", "proved"))]
        assert claims and all(line.startswith(f"certified, {given}") for line in claims)
    out = json.loads(gops("table", N, "--store", forged, "--certified", "--json").output)
    assert out["source"]["unverified_levels"] == [0, 1, 2, 3, 4, 5]
    assert all(column["given"] == given for column in out["certified"].values())
    out = json.loads(gops(*STRATEGY, "--store", forged, "--certified", "--json").output)
    assert out["certified"]["given"] == given


def test_rederive_proves_the_levels_below_or_refuses(forged, pristine):
    """Issue 36 item 1c: --rederive re-derives levels 0..5 here; the forged store is
    refused (exit 1, level 3 named), the genuine one prints claims without condition."""
    for args in (["table", N], STRATEGY):
        result = gops(*args, "--store", forged, "--certified", "--rederive")
        assert result.exit_code == 1, result.output
        assert f"gops: error: {forged}: not verified: level 3: prizes" in result.output
        genuine = gops(*args, "--store", pristine / "points", "--certified", "--rederive")
        assert genuine.exit_code == 0, genuine.output
        assert "\ncertified: " in genuine.output and "given the stored" not in genuine.output
        assert "levels 0..5 re-derived here in full (--rederive)" in genuine.output
    out = json.loads(
        gops(
            "table", N, "--store", pristine / "points", "--certified", "--rederive", "--json"
        ).output
    )
    assert out["source"]["unverified_levels"] == []
    assert all(column["given"] is None for column in out["certified"].values())


# -- messages and exit codes (issue 36 items 3-7, 9, 14, 16) ---------------------------------


def set_level_value(root, k, index, value):
    """One value of level k set to ``value``, its checksum recomputed."""
    path = root / f"level-{k}.npy"
    values = np.load(path, mmap_mode="r+")
    values[index] = value
    values.flush()
    del values
    data = manifest(root)
    data["levels"][str(k)]["sha256"] = file_sha256(path)
    rewrite_manifest(root, data)


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_nan_or_infinite_value_names_the_store_and_level(store, value):
    """Items 3 and 4: NaN was "(a bug)", inf "the game matrix must have finite entries";
    either is an edited store: exit 1, the store and the level named."""
    values = np.load(store / f"level-{N - 2}.npy", mmap_mode="r")
    index = tuple(int(i) for i in np.argwhere(values != 0.0)[0])
    del values
    set_level_value(store, N - 2, index, value)
    for args in (["table", N, "--store", store, "--certified"], [*STRATEGY, "--store", store]):
        result = gops(*args)
        assert result.exit_code == 1, result.output
        assert result.output.startswith(f"gops: error: {store}: level {N - 2} holds ")
        assert "the store is damaged or edited" in result.output
        assert "a bug" not in result.output


def test_a_zero_radius_above_a_positive_one_is_refused(store):
    """Item 5: only a level that solves no game (level 0; the top level of an
    antisymmetric order) may have radius 0."""
    set_radius(store, N - 1, 0.0)
    result = gops("table", N, "--store", store)
    assert result.exit_code == 2
    assert f"gives level {N - 1} the radius 0.0, below level {N - 2}'s" in result.output
    set_radius(store, N - 1, manifest(store)["levels"][str(N - 2)]["radius"])
    set_radius(store, N, 1e-15)
    result = gops("table", N, "--store", store)
    assert result.exit_code == 2
    assert f"gives level {N} (no game to solve) the radius 1e-15, not 0" in result.output


def test_a_manifest_with_a_duplicate_key_is_refused(store):
    """Item 6: json keeps the last of two equal keys; a manifest never has two."""
    text = (store / "manifest.json").read_text()
    entry = json.dumps({**manifest(store)["levels"]["4"], "radius": 1e-3})
    (store / "manifest.json").write_text(
        text.replace('"levels": {', f'"levels": {{"4": {entry}, ', 1)
    )
    for args in (["table", N, "--store", store], ["verify", store]):
        result = gops(*args)
        assert result.exit_code == 2
        assert "manifest.json names '4' twice: the manifest was edited" in result.output


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_bytes(path.read_bytes()[:-200]),  # truncated
        lambda path: np.save(path, np.load(path).astype(np.float32)),
        lambda path: np.save(path, np.ascontiguousarray(np.load(path).T)),
    ],
    ids=["truncated", "float32", "transposed"],
)
@pytest.mark.parametrize("fix_checksum", [False, True])
def test_a_level_that_cannot_be_read_is_exit_2_for_every_command(store, damage, fix_checksum):
    """Item 7: one rule (README, docs/solve-and-stores.md): a level that is not a
    complete float64 array of its shape is unreadable, exit 2, for verify as for table
    (a truncated level was exit 1 for verify)."""
    path = store / "level-4.npy"
    damage(path)
    if fix_checksum:  # as a careful forger would
        data = manifest(store)
        data["levels"]["4"]["sha256"] = file_sha256(path)
        rewrite_manifest(store, data)
    for args in (["verify", store, "--quiet"], ["verify", store, "--sample", 3, "--quiet"]):
        result = gops(*args)
        assert result.exit_code == 2, (args, result.output)
        assert str(path) in result.output


def test_a_store_path_that_is_no_directory_says_what_it_is(tmp_path):
    """Item 9: /dev/null and a FIFO were "no such store directory"; a file in the parent
    path was "does not exist"."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, kind in (("/dev/null", "a device or socket"), (fifo, "a FIFO")):
        result = gops("table", 6, "--store", path)
        assert result.exit_code == 2
        assert result.output == f"gops: error: {path} is {kind}, not a store directory\n"
    (tmp_path / "file").write_text("")
    result = gops("solve", 5, "--store", tmp_path / "file" / "x")
    assert result.exit_code == 2
    assert result.output == (
        f"gops: error: {tmp_path / 'file'} is a file, not a directory: choose another "
        "store directory\n"
    )


def test_a_refused_scheduler_fails_at_once_in_one_line(store):
    """Item 9: `--cluster tcp://127.0.0.1:1` took 36 s and printed two lines."""
    import time

    t0 = time.perf_counter()
    result = gops("verify", store, "--cluster", "tcp://127.0.0.1:1")
    assert time.perf_counter() - t0 < 10.0
    assert result.exit_code == 2
    assert result.output == (
        "gops: error: cannot reach the Dask scheduler at tcp://127.0.0.1:1: Connection refused\n"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--levels", "0-99999999999999999999"],
        ["--sample", "3", "--seed", "-5"],
    ],
)
def test_verify_options_out_of_range_are_one_line_exit_2(pristine, args):
    """Item 14: an OverflowError and a ValueError traceback, exit 1 ("contradicted")."""
    result = gops("verify", pristine / "points", *args)
    assert result.exit_code == 2
    assert result.output.startswith("gops: error: ") and result.output.count("\n") == 1


def test_verify_refuses_a_manifest_of_another_arithmetic(store):
    """Item 16: "verified" was said of a manifest whose arithmetic is "rational"."""
    data = manifest(store)
    data["arithmetic"] = "rational"
    rewrite_manifest(store, data)
    for args in (["verify", store], ["table", N, "--store", store]):
        result = gops(*args)
        assert result.exit_code == 2
        assert "is not a gops store manifest of version 2" in result.output
