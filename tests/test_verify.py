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

import numpy as np
import pytest
from click.testing import CliRunner

import exact
from exact.cli import main
from exact.dp.store import StoreError, check_radii, file_sha256, solve_into_store
from exact.dp.verify import RADIUS_SLACK, verify_store
from exact.game.spec import GameSpec

N = 7
ALL = ",".join(str(c) for c in range(1, N + 1))
#: Whole-game first move on the king from a store: the answer a forger wants to change.
STRATEGY = ["strategy", "--mine", ALL, "--theirs", ALL, "--deck", ALL, "--upcard", str(N)]


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
    for check in verdict.checked:
        assert check.items == min(7, check.total)
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
    what they read and refuse the store (exit 2, one line), printing nothing else."""
    edit_level(store, N - 1)
    for args in (["table", N, "--store", store], STRATEGY + ["--store", store, "--certified"]):
        result = gops(*args)
        assert result.exit_code == 2, result.output
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
    assert "stored 1.0, re-derived 0.0" in result.output


# -- hand-edited radii ----------------------------------------------------------------------


def test_a_zero_radius_fails_verify_and_is_never_printed(store):
    recorded = manifest(store)["levels"][str(N - 1)]["radius"]
    for k in range(N + 1):
        set_radius(store, k, 0.0)
    result = gops("verify", store, "--quiet")
    assert result.exit_code == 1
    assert "level 1: the manifest's radius 0.000e+00 is below" in result.output
    table = gops("table", N, "--store", store, "--certified")
    assert table.exit_code == 2
    assert f"level {N - 1}: the manifest's radius 0.000e+00 is below" in table.output
    assert recorded > 0.0
    # The resumed solve keeps the store's levels: it says the radius is the store's claim.
    solve = gops("solve", N, "--store", store, "--quiet")
    assert "certified" not in solve.output
    assert f"levels 0..{N}, kept as the store held them, are intact: `gops verify" in solve.output


@pytest.mark.parametrize("radius", [1e300, float(N * (N + 1) // 2)])
def test_a_radius_that_proves_nothing_is_refused(store, radius):
    set_radius(store, 4, radius)
    for args in (["table", N, "--store", store, "--certified"], ["solve", N, "--store", store]):
        result = gops(*args)
        assert result.exit_code == 2
        assert "level 4 the radius" in result.output and "proves nothing" in result.output
    assert gops("verify", store, "--quiet").exit_code == 1


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
        check_radii(store, manifest(store))
    assert gops("table", N, "--store", store).exit_code == 2


def test_a_slightly_understated_radius_fails_verify(store):
    radius = manifest(store)["levels"]["5"]["radius"]
    set_radius(store, 5, float(np.nextafter(radius, 0.0)))
    result = gops("verify", store, "--levels", "5", "--quiet")
    assert result.exit_code == 1 and "is below the" in result.output


def test_a_sample_sees_a_radius_below_its_items_bounds(store):
    set_radius(store, 5, 1e-300)
    assert "level 5: the manifest's radius 1.000e-300 is below" in str(
        verify_store(store, levels=[5], sample=5).bad
    )


def test_a_looser_radius_is_not_what_the_solver_wrote(store):
    radius = manifest(store)["levels"]["5"]["radius"]
    set_radius(store, 5, radius * RADIUS_SLACK * 2)
    result = gops("verify", store, "--levels", "5", "--quiet")
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
    assert (
        gops("verify", tmp_path / "none").output
        == f"gops: error: {tmp_path / 'none'}: no such store directory\n"
    )
    result = gops("verify", pristine / "points", "--levels", "9")
    assert result.exit_code == 2 and "holds levels 0 to 7, not 9" in result.output
    assert gops("verify", pristine / "points", "--levels", "x").exit_code == 2
    assert gops("verify", pristine / "points", "--sample", 0).exit_code == 2


def test_a_loaded_solution_names_its_store(pristine):
    sol = exact.load(pristine / "points")
    assert sol.store == pristine / "points"
    assert repr(sol) == (
        f"Solution(n={N}, objective='points', arithmetic='float', "
        f"store={str(pristine / 'points')!r})"
    )
    assert exact.solve(3).store is None


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
