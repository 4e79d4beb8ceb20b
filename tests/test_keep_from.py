"""The frontier mode of a store (``gops solve --keep-from K``, exact.dp.store): only the
levels K..N kept on disk, every radius recorded, a resume from the frontier, the first
move at the root, and what ``gops verify`` can and cannot re-derive.

The reference is the store that keeps every level (the ordinary solve): a frontier store
must hold the same files for the levels it keeps, bit for bit, and the same radii.
"""

import json
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

import exact
from exact.cli import main
from exact.dp.preflight import estimate
from exact.dp.store import Store, file_sha256, solve_into_store
from exact.dp.verify import verify_store
from exact.errors import GopsInputError
from exact.game.spec import GameSpec


class Interrupt(Exception):
    pass


def _stop_at(k: int):
    """A progress callback that interrupts the solve at its first checkpoint of level k."""

    def progress(level, done):
        if level.k == k:
            raise Interrupt

    return progress


def _files(root) -> list[int]:
    return sorted(int(p.stem.split("-")[1]) for p in root.glob("level-*.npy"))


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    """Stores keeping every level: points N = 6 and win N = 5."""
    root = tmp_path_factory.mktemp("full")
    return {
        "points": solve_into_store(GameSpec.parse(6), root / "p"),
        "win": solve_into_store(GameSpec.parse(5, "win"), root / "w"),
    }


@pytest.mark.parametrize(("objective", "n", "keep"), [("points", 6, 3), ("win", 5, 2)])
def test_the_kept_levels_are_the_full_stores_and_every_radius_is_recorded(
    tmp_path, full, objective, n, keep
):
    reference = full[objective]
    store = solve_into_store(GameSpec.parse(n, objective), tmp_path / "f", keep_from=keep)
    assert _files(store.root) == list(range(keep, n + 1))
    for k in range(n + 1):
        assert store.radius(k) == reference.radius(k)
        assert store.sha256(k) == reference.sha256(k)
        assert store.is_dropped(k) == (k < keep)
        if k >= keep:
            assert file_sha256(store.level_path(k)) == reference.sha256(k)
    # The first move at the root, certified, is the full store's.
    answers = []
    for root in (reference.root, store.root):
        args = ["table", str(n), "--objective", objective, "--store", str(root)]
        result = CliRunner().invoke(main, [*args, "--certified", "--json", "--quiet"])
        assert result.exit_code == 0, result.output
        answers.append(json.loads(result.output))
    for answer in answers:
        answer.pop("source")
        for column in answer["certified"].values():
            column.pop("given")
    assert answers[0] == answers[1]


@pytest.mark.parametrize(("objective", "n", "keep"), [("points", 6, 3), ("win", 5, 2)])
def test_levels_below_k_built_in_memory_only(tmp_path, full, objective, n, keep):
    """--below-in-memory: no file below K is ever written, yet every entry is the full
    store's (the checksum its file would have, the radius), the kept files identical."""
    reference = full[objective]
    written = set()
    game = GameSpec.parse(n, objective)
    store = Store.for_game(tmp_path / "m", game, keep_from=keep, below_in_memory=True)
    store.solve(lambda level, done: written.update(_files(store.root)))
    assert min(written) == keep and _files(store.root) == list(range(keep, n + 1))
    for k in range(n + 1):
        assert store.radius(k) == reference.radius(k)
        assert store.sha256(k) == reference.sha256(k)
        assert store.is_dropped(k) == (k < keep)
    for k in range(keep, n + 1):
        assert file_sha256(store.level_path(k)) == reference.sha256(k)
    disk = estimate(game, keep_from=keep, below_in_memory=True).disk_bytes
    assert disk == sum(reference.load_level(k).nbytes for k in range(keep, n + 1))


def test_a_solve_in_memory_below_k_stopped_early_starts_again(tmp_path, full):
    game = GameSpec.parse(6)
    for stop, unrederived in [(2, []), (3, []), (4, [3])]:
        root = tmp_path / f"stop{stop}"
        first = Store.for_game(root, game, chunk_items=40, keep_from=3, below_in_memory=True)
        with pytest.raises(Interrupt):
            first.solve(_stop_at(stop))
        told: list[str] = []
        store = Store.for_game(root, game, on_repair=lambda k, what, told=told: told.append(what))
        store.solve()
        assert _files(root) == [3, 4, 5, 6]
        for k in range(3, 7):
            assert file_sha256(store.level_path(k)) == full["points"].sha256(k)
        assert store.unrederived == unrederived
        assert any("held in memory only" in t for t in told) == (stop <= 3)


def test_a_resume_from_the_frontier_builds_the_same_store(tmp_path, full):
    game = GameSpec.parse(6)
    for stop, unrederived in [(4, [3]), (5, [])]:
        root = tmp_path / f"stop{stop}"
        with pytest.raises(Interrupt):
            Store.for_game(root, game, chunk_items=40, keep_from=3).solve(_stop_at(stop))
        assert (root / f"level-{stop}.progress").exists()
        store = Store.for_game(root, game).solve()  # the manifest keeps K
        assert _files(root) == [3, 4, 5, 6]
        for k in range(3, 7):
            assert file_sha256(store.level_path(k)) == full["points"].sha256(k)
        # Level 3's level below is gone: it cannot be re-derived; level 4 was, from 3.
        assert store.unrederived == unrederived


def test_a_damaged_level_whose_level_below_was_dropped_is_refused(tmp_path):
    root = tmp_path / "s"
    with pytest.raises(Interrupt):
        Store.for_game(root, GameSpec.parse(6), chunk_items=40, keep_from=3).solve(_stop_at(4))
    with open(root / "level-3.npy", "r+b") as fh:  # flip bytes in the data
        fh.seek(-16, 2)
        fh.write(b"\x00\x01" * 8)
    result = CliRunner().invoke(main, ["solve", "6", "--store", str(root), "--quiet"])
    assert result.exit_code == 2, result.output
    assert "cannot be recomputed" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_verify_rederives_the_kept_levels_given_the_lowest(tmp_path):
    root = tmp_path / "s"
    solve_into_store(GameSpec.parse(6), root, keep_from=3)
    verdict = verify_store(root)
    assert verdict.bad is None and [c.k for c in verdict.checked] == [3, 4, 5, 6]
    assert verdict.checked[0].premise and not verdict.checked[1].premise
    assert not verdict.complete
    result = CliRunner().invoke(main, ["verify", str(root), "--quiet"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"verified levels 3..6 of {root} (N=6 points) given level 3")
    assert "levels 0..2 were dropped (--keep-from 3)" in result.output
    result = CliRunner().invoke(main, ["verify", str(root), "--sample", "5", "--quiet"])
    assert result.exit_code == 0 and result.output.startswith("spot-checked: ")
    assert "level 3 taken as stored (the levels below it were dropped" in result.output
    assert "chance of at most 100" not in result.output  # level 3 is no sample's
    result = CliRunner().invoke(main, ["verify", str(root), "--levels", "1-2"])
    assert result.exit_code == 2 and "level 1 was dropped" in result.output
    # An edit of a kept level above K is found (its checksum made to match).
    path = root / "level-4.npy"
    values = np.load(path)
    values[np.unravel_index(np.argmax(np.abs(values)), values.shape)] += 1e-9
    np.save(path, values)
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["levels"]["4"]["sha256"] = file_sha256(path)
    (root / "manifest.json").write_text(json.dumps(manifest))
    result = CliRunner().invoke(main, ["verify", str(root), "--quiet"])
    assert result.exit_code == 1 and result.output.startswith("not verified: level 4: ")


def test_a_file_left_below_the_frontier_is_deleted_by_the_next_run(tmp_path):
    root = tmp_path / "s"
    store = solve_into_store(GameSpec.parse(5), root, keep_from=2)
    shutil.copy(store.level_path(3), store.level_path(1))  # as if a crash left it
    manifest = json.loads((root / "manifest.json").read_text())
    del manifest["levels"]["0"]["dropped"]  # and one before it was even marked
    (root / "manifest.json").write_text(json.dumps(manifest))
    shutil.copy(store.level_path(3), store.level_path(0))
    store = Store.for_game(root, GameSpec.parse(5)).solve()
    assert _files(root) == [2, 3, 4, 5] and store.is_dropped(0) and store.is_dropped(1)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["solve", "5", "--keep-from", "2"], "--keep-from applies to --store only"),
        (
            ["solve", "5", "--store", "S", "--keep-from", "5"],
            "--keep-from must be a level from 1 to 4",
        ),
        (
            ["solve", "5", "--store", "S", "--keep-from", "0"],
            "--keep-from must be a level from 1 to 4",
        ),
        (
            ["solve", "5", "--store", "S", "--keep-from", "2", "--cluster", "local:1"],
            "drop --cluster",
        ),
        (["solve", "5", "--store", "KEPT", "--keep-from", "3"], "was made keeping --keep-from 2"),
        (
            ["solve", "5", "--store", "KEPT", "--cluster", "local:1"],
            "it is solved here, drop --cluster",
        ),
        (
            ["solve", "5", "--store", "S", "--below-in-memory"],
            "--below-in-memory needs --keep-from",
        ),
        (
            ["solve", "5", "--store", "KEPT", "--keep-from", "2", "--below-in-memory"],
            "without --below-in-memory",
        ),
        (["table", "4", "--store", "KEPT"], "holds N=5"),
        (
            [
                "strategy",
                "--store",
                "KEPT",
                "--mine",
                "1,2",
                "--theirs",
                "1,2",
                "--deck",
                "4,5",
                "--upcard",
                "5",
            ],
            "level 1 was dropped once level 2 was complete",
        ),
    ],
)
def test_frontier_refusals_are_one_line(tmp_path, args, words):
    kept = tmp_path / "kept"
    solve_into_store(GameSpec.parse(5), kept, keep_from=2)
    args = [{"S": str(tmp_path / "new"), "KEPT": str(kept)}.get(a, a) for a in args]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert words in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "new").exists()


def test_the_estimate_states_the_disk_a_frontier_solve_peaks_at(full):
    """The pre-flight's disk for --keep-from 3 at N = 6: the most bytes of level data at
    once, from the full store's levels (while level k is built: the kept levels below it,
    level k - 1 and level k)."""
    sizes = [full["points"].load_level(k).nbytes for k in range(7)]  # the data, no header
    peak = max(sum(sizes[j] for j in set(range(3, k)) | {k - 1, k} if j >= 0) for k in range(7))
    assert peak < sum(sizes)
    assert estimate(GameSpec.parse(6), keep_from=3).disk_bytes == peak
    assert estimate(GameSpec.parse(6)).disk_bytes == sum(sizes)


def test_the_api_solves_into_a_frontier_store_and_refuses_what_a_store_cannot_hold(tmp_path):
    sol = exact.solve(5, store=tmp_path / "s", keep_from=3)
    assert _files(tmp_path / "s") == [3, 4, 5] and sol.store == tmp_path / "s"
    root = {1, 2, 3, 4, 5}
    assert sol.value(root, root, root) == exact.solve(5).value(root, root, root)
    for kwargs in [
        {"arithmetic": "rational", "store": tmp_path / "r"},
        {"handicap": 2, "objective": "win", "store": tmp_path / "r"},
        {"keep_from": 2},
        {"keep_from": 5, "store": tmp_path / "r"},
    ]:
        with pytest.raises(GopsInputError):
            exact.solve(5, **kwargs)
    assert not (tmp_path / "r").exists()


def _forge_lowest_and_truncate(root, keep: int, n: int) -> None:
    """Issue 47 item 2: every value 0.5 < |v| < 20 of the lowest kept level negated, its
    checksum recomputed (as a careful forger would), the levels above it removed."""
    path = root / f"level-{keep}.npy"
    values = np.load(path)
    flip = (np.abs(values) > 0.5) & (np.abs(values) < 20)
    assert flip.any()
    values[flip] = -values[flip]
    np.save(path, values)
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["levels"][str(keep)]["sha256"] = file_sha256(path)
    for k in range(keep + 1, n + 1):
        del manifest["levels"][str(k)]
        (root / f"level-{k}.npy").unlink()
    (root / "manifest.json").write_text(json.dumps(manifest))


def test_a_resume_on_the_frontier_says_it_re_derived_nothing_of_level_k(tmp_path):
    """Level 3 of a --keep-from 3 store forged: the resume cannot re-derive it (level 2
    was dropped), so it rebuilds levels 4..6 on it, and says what it checked of it: none
    of its 620 items (N = 6, level 3: 20 prize sets x 31 solved patterns), an edited item
    escaping with probability 1; no "spot-checked"."""
    root = tmp_path / "f"
    solve_into_store(GameSpec.parse(6), root, keep_from=3)
    _forge_lowest_and_truncate(root, 3, 6)
    result = CliRunner().invoke(main, ["solve", "6", "--store", str(root), "--keep-from", "3"])
    assert result.exit_code == 0, result.output
    assert "spot-checked" not in result.output
    assert (
        "\n  kept level 3: 0 of 620 items re-derived (level 2 was dropped, --keep-from 3: "
        "checksum and the values the rules fix checked); an edited item escapes with "
        "probability 1\n"
    ) in result.output
    assert (
        "radius, given the stored level 3 (kept by this resume, in whole or in part, not "
        f"re-derived in full: `gops verify {root}` re-derives the levels above 3 given level "
        "3, which no check can re-derive (--keep-from 3)): every stored value within "
    ) in result.output


def test_rederive_on_a_frontier_store_is_refused_in_one_line(tmp_path):
    """Issue 47 item 2: --rederive promises a claim resting on nothing stored, which a
    store whose lowest level cannot be re-derived cannot give: one line naming level 3 and
    --keep-from 3, exit 2, for the forged store and a genuine one alike.  Without
    --rederive the claim names its condition in its own sentence."""
    forged, genuine = tmp_path / "forged", tmp_path / "genuine"
    solve_into_store(GameSpec.parse(6), genuine, keep_from=3)
    shutil.copytree(genuine, forged)
    _forge_lowest_and_truncate(forged, 3, 6)
    solve_into_store(GameSpec.parse(6), forged)
    five = "1,2,3,4,5"
    position = ["strategy", "--mine", five, "--theirs", five, "--deck", five, "--upcard", "2"]
    for root in (forged, genuine):
        for args in (position, ["table", "6"]):
            result = CliRunner().invoke(
                main, [*args, "--store", str(root), "--certified", "--rederive"]
            )
            assert result.exit_code == 2, result.output
            assert result.output.count("\n") == 1, result.output
            assert result.output.startswith(
                f"gops: error: --rederive: {root} keeps levels 3..6 only (--keep-from 3): "
                "level 3 cannot be re-derived"
            )
    result = CliRunner().invoke(main, [*position, "--store", str(genuine), "--certified"])
    assert result.exit_code == 0, result.output
    claims = [line for line in result.output.splitlines() if line.startswith("certified")]
    assert claims == [
        line
        for line in claims
        if line.startswith(
            f"certified, given the stored level 3 of {genuine} within its recorded radius "
            "(levels 0..2 were dropped, --keep-from 3: no check can re-derive it): "
        )
    ]
    assert claims and "rerun with --rederive" not in result.output


@pytest.mark.parametrize("level", [2, 0])
def test_a_level_below_k_not_marked_dropped_reads_alike_everywhere(tmp_path, level):
    """Issue 47 item 2: "dropped" taken out of a level's entry below K.  Every command that
    reads the store refuses it alike (one line, exit 2), where verify refused it and
    table --certified answered; a solve into the store drops the level again."""
    root = tmp_path / "f"
    solve_into_store(GameSpec.parse(6), root, keep_from=3)
    manifest = json.loads((root / "manifest.json").read_text())
    del manifest["levels"][str(level)]["dropped"]
    (root / "manifest.json").write_text(json.dumps(manifest))
    six = "1,2,3,4,5,6"
    words = f"does not mark level {level} dropped, but the store keeps levels 3..6"
    for args in (
        ["verify", str(root)],
        ["table", "6", "--store", str(root), "--certified"],
        ["strategy", "--mine", six, "--theirs", six, "--deck", six, "--upcard", "6"]
        + ["--store", str(root)],
    ):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        assert words in result.output and result.output.count("\n") == 1, result.output
    with pytest.raises(GopsInputError, match=words):
        exact.load(root)
    assert "gops solve 6 --store" in result.output
    Store.for_game(root, GameSpec.parse(6)).solve()
    assert Store.open(root).is_dropped(level)
    result = CliRunner().invoke(main, ["table", "6", "--store", str(root), "--certified"])
    assert result.exit_code == 0, result.output
