"""CFR+ checkpoints and the certifier, against hostile input: a proven NashConv is never
printed for a checkpoint or a policy that is not what it claims (exact.imperfect.checkpoint,
exact.imperfect.certified.check_policy_rows).

The honest outcomes are checked against an independent reference: the exact rational
NashConv of the written policy file by :mod:`exact.imperfect.nashconv`'s recursion over
the game tree (not the numba tables the CFR state lives in)."""

import json
import os
import random
import signal
import subprocess
import sys
import time
import zipfile
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from exact.cli import main
from exact.errors import GopsInputError
from exact.imperfect import cfr
from exact.imperfect.certified import certify, check_policy_rows, dyadic_rows
from exact.imperfect.cfr import CFRPlus, solve_cfr
from exact.imperfect.checkpoint import ARRAYS, read_checkpoint
from exact.imperfect.game import ImperfectGame
from exact.imperfect.nashconv import nash_conv
from exact.imperfect.policy import uniform_policy
from exact.imperfect.policy_file import load_policy_file
from exact.imperfect.tables import layout, legal_rows

#: The seed of the fuzz test (fixed: the same edits in every run).
FUZZ_SEED = 47
#: Edits the fuzz test tries.
FUZZ_CASES = 60


def _solve(checkpoint, *more, n="3", iterations="1"):
    args = ["imperfect", "solve", n, "--order", "descending", "--method", "cfr",
            "--iterations", iterations, "--checkpoint", str(checkpoint), *more]  # fmt: skip
    return CliRunner().invoke(main, args)


def _refused(result) -> str:
    """The one-line refusal of an invalid input: exit 2, no proven number."""
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gops: error: "), result.output
    assert "proven" not in result.output and "NashConv <=" not in result.output
    return lines[0]


@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    """A 30-iteration checkpoint of 4 cards descending, and of 3 cards descending."""
    folder = tmp_path_factory.mktemp("cfr")
    paths = {}
    for n in (3, 4):
        state = CFRPlus.start(ImperfectGame.parse(n, "descending", "points"))
        state.run(30)
        paths[n] = folder / f"c{n}.npz"
        state.save(paths[n])
    return paths


def _edited(source, target, **changes):
    data = dict(np.load(source))
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value(data[key]) if callable(value) else value
    np.savez(target, **data)
    return target


def _set(a, where, value):
    a = a.copy()
    a[where] = value
    return a


def _nan_row(a):
    a = a.copy()
    a[5] = np.nan
    return a


@pytest.mark.parametrize("n", [3, 4])
def test_a_nan_in_the_average_is_refused_before_anything_is_proven(honest, tmp_path, n):
    """Hostile review, item 1: NaN became INT64_MIN on the grid and a "proven" NashConv of
    1.065e-02 (4 cards; 4.463e+03 at 3 cards) was printed, and a policy written."""
    bad = _edited(honest[n], tmp_path / "nan.npz", avg0=_nan_row)
    out = tmp_path / "bad.json"
    line = _refused(_solve(bad, "--policy-out", str(out), n=str(n)))
    assert f"avg0 holds {n} non-finite numbers" in line
    assert not out.exists()


@pytest.mark.parametrize(
    "key, edit, message",
    [
        ("regret0", lambda a: a[:3], "regret0 has shape (3, 4), not (121, 4)"),
        ("sigma0", lambda a: a[:5], "sigma0 has shape (5, 4)"),
        ("avg0", lambda a: a[:10], "avg0 has shape (10, 4)"),
        ("avg0", lambda a: a.ravel(), "avg0 has shape (484,)"),
        ("avg0", lambda a: a.astype(str), "avg0 is <U32, not float64"),
        ("avg0", lambda a: np.hstack([a, a[:, :1]]), "avg0 has shape (121, 5)"),
        ("avg0", lambda a: a.astype(complex), "avg0 is complex128, not float64"),
        ("avg1", lambda a: a.astype(np.float32), "avg1 is float32, not float64"),
        ("variant", "xyz", "the variant 'xyz' is not one of cfr+, pcfr+"),
        ("iteration", -1, "the iteration -1 is not between 0 and 100,000,000"),
        ("iteration", 2.5, "iteration is not an integer"),
        ("n", 5, "is of the game (5, 'descending', 'points')"),
        ("format", "gops 99", "is of format 'gops 99'"),
        ("regret1", None, "lacks regret1"),
        ("sigma1", lambda a: _set(a, (0, 2), -1e-3), "sigma1 holds 1 negative numbers"),
        ("sigma1", lambda a: 2 * a, "121 rows of sigma1 do not sum to 1"),
        ("regret0", lambda a: a + 1, "regret0 is not 0 at cards already bid"),
    ],
)
def test_every_edit_of_a_checkpoint_is_one_line(honest, tmp_path, key, edit, message):
    bad = _edited(honest[4], tmp_path / "bad.npz", **{key: edit})
    assert message in _refused(_solve(bad, n="4"))


def test_files_that_are_not_checkpoints(honest, tmp_path):
    empty = tmp_path / "empty.npz"
    empty.touch()
    npy = tmp_path / "array.npz"
    with open(npy, "wb") as fh:
        np.save(fh, np.zeros(3))
    extra = tmp_path / "extra.npz"
    np.savez(extra, **dict(np.load(honest[3])), more=np.zeros(2))
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(honest[3].read_bytes()[:700])
    for path, message in [
        ("/dev/null", "'/dev/null' is not a regular file"),
        ("/dev/full", "'/dev/full' is not a regular file"),
        (empty, "empty.npz' is empty"),
        (npy, "array.npz' is not an .npz archive"),
        (extra, "has a member 'more.npy' no checkpoint has"),
        (truncated, "truncated.npz' is not a readable .npz archive"),
    ]:
        assert message in _refused(_solve(path))


def test_a_forged_shape_allocates_nothing(honest, tmp_path):
    """A member whose .npy header declares 10^12 rows is refused from its header, before
    numpy allocates its data (8 TB)."""
    data = dict(np.load(honest[3]))
    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000, 3), }"
    header += b" " * (118 - len(header)) + b"\n"
    body = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header
    rebuilt = tmp_path / "rebuilt.npz"
    with zipfile.ZipFile(rebuilt, "w") as archive:
        for key, value in data.items():
            if key == "avg0":
                archive.writestr("avg0.npy", body)
            else:
                with archive.open(f"{key}.npy", "w") as fh:
                    np.lib.format.write_array(fh, value)
    assert "avg0 has shape (1000000000000, 3)" in _refused(_solve(rebuilt))


def test_the_certifier_refuses_what_is_not_a_policy():
    """Whatever made the arrays: every row an exact distribution over its legal cards."""
    game = ImperfectGame.parse(3, "descending", "points")
    where = layout(game)
    legal = legal_rows(where)
    uniform = legal / legal.sum(axis=1, keepdims=True)
    with pytest.raises(GopsInputError, match=r"row 0 sums to 1 - 5.55e-17, not exactly 1"):
        certify(game, uniform, uniform)  # 1/2 + 1/2 = 1, but 3 x fl(1/3) != 1 exactly
    grid = dyadic_rows(uniform, legal)  # 1/3 rounded to the grid: within 2^-51 of 4/3
    exact = nash_conv(game, uniform_policy(game), "rational").value
    assert exact == Fraction(4, 3)  # OpenSpiel: nash_conv(uniform) = 1.3333333333333333
    assert abs(certify(game, grid, grid, "rational").epsilon - exact) <= Fraction(1, 2**50)
    cases = []
    for value, message in [
        (np.nan, "not probabilities of its legal cards"),
        (-2048.0, "not probabilities of its legal cards"),
        (2.0, "not probabilities of its legal cards"),
    ]:
        bad = grid.copy()
        bad[1, 1] = value
        cases.append((bad, message))
    off = grid.copy()
    off[4, legal[4].argmax()] -= 2.0**-52  # one tick short of 1
    cases.append((off, "row 4 sums to"))
    illegal = grid.copy()
    illegal[1, 0] = 0.25  # card 1 already bid at row 1
    cases.append((illegal, "not probabilities of its legal cards"))
    cases.append((grid[:5], "is not float64 of shape (10, 3)"))
    cases.append((grid.astype(np.float32), "is not float64 of shape (10, 3)"))
    for bad, message in cases:
        for method in ("rational", "bound"):
            with pytest.raises(GopsInputError, match="the policy to certify") as caught:
                certify(game, grid, bad, method)
            assert message in str(caught.value)


def test_an_exact_row_off_the_grid_is_accepted():
    """Entries that are not multiples of 2^-52 but sum to exactly 1 are a policy."""
    game = ImperfectGame.parse(3, "descending", "points")
    where = layout(game)
    legal = legal_rows(where)
    sigma = legal / legal.sum(axis=1, keepdims=True)
    sigma[0] = [2.0**-53, 2.0**-53, 1 - 2.0**-52]
    check_policy_rows(where, (sigma, sigma.copy()))
    sigma[0] = [2.0**-53, 2.0**-54, 1 - 2.0**-52]
    with pytest.raises(GopsInputError, match="row 0 sums to"):
        check_policy_rows(where, (sigma, sigma.copy()))


def _random_edit(rng: random.Random, data: dict) -> dict:
    """One random edit of a checkpoint's members: a key, a shape, a dtype or values."""
    data = dict(data)
    key = rng.choice(sorted(data))
    kind = rng.choice(["drop", "add", "shape", "dtype", "value", "scalar"])
    if kind == "drop":
        del data[key]
    elif kind == "add":
        data[rng.choice(["extra", "sigma2", "avg"])] = np.zeros(rng.randint(1, 5))
    elif kind == "shape" and data[key].ndim == 2:
        a = data[key]
        data[key] = rng.choice([a[: rng.randint(0, len(a) - 1)], a.T, a.ravel(), a[:, :-1],
                                np.vstack([a, a])])  # fmt: skip
    elif kind == "dtype" and data[key].dtype.kind != "U":
        data[key] = data[key].astype(rng.choice([np.float32, np.int64, complex, str, bool]))
    elif kind == "value" and data[key].ndim == 2:
        a = data[key].copy()
        row, col = rng.randrange(a.shape[0]), rng.randrange(a.shape[1])
        a[row, col] = rng.choice([np.nan, np.inf, -np.inf, -1.0, 1e300, -1e-300, 0.5, 0.0])
        data[key] = a
    else:
        data[key] = rng.choice([np.int64(-5), np.float64(3.5), "xyz", np.int64(10**12),
                                np.array([1, 2]), np.int64(0)])  # fmt: skip
    return data


def test_seeded_fuzz_of_checkpoints(honest, tmp_path):
    """Random edits of keys, shapes, dtypes and values: every run ends in exit 2 with one
    line and no proven number, or exit 0 with a policy whose exact NashConv (by the
    rational recursion, over the written file) is at most the bound printed."""
    rng = random.Random(FUZZ_SEED)
    source = dict(np.load(honest[3]))
    game = ImperfectGame.parse(3, "descending", "points")
    outcomes = {0: 0, 2: 0}
    for case in range(FUZZ_CASES):
        path = tmp_path / f"fuzz{case}.npz"
        with open(path, "wb") as fh:
            np.savez(fh, **_random_edit(rng, source))
        out = tmp_path / f"fuzz{case}.json"
        result = _solve(path, "--policy-out", str(out), "--json", "--quiet")
        assert result.exit_code in (0, 2), (case, result.output)
        outcomes[result.exit_code] += 1
        if result.exit_code == 2:
            _refused(result)
            assert not out.exists()
            continue
        claimed = Fraction(json.loads(result.output)["certified"]["epsilon"])
        assert nash_conv(game, load_policy_file(game, out), "rational").value == claimed
    assert outcomes[2] >= FUZZ_CASES // 2  # most random edits break an invariant


def test_a_killed_run_resumes_from_its_last_checkpoint(tmp_path):
    """Checkpoints are written during the run (here every 0.2 s of work), atomically: a
    run killed with SIGKILL leaves a valid checkpoint of some iteration, and the run
    resumes from it."""
    path = tmp_path / "run.npz"
    code = (
        "import sys; from exact.imperfect import cfr; from exact.imperfect.game import "
        "ImperfectGame; cfr.CHECKPOINT_SECONDS = 0.2; "
        "cfr.solve_cfr(ImperfectGame.parse(4, 'descending', 'points'), 10**6, sys.argv[1])"
    )
    child = subprocess.Popen([sys.executable, "-c", code, str(path)])
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not path.exists():
            time.sleep(0.1)
        time.sleep(1.0)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    game = ImperfectGame.parse(4, "descending", "points")
    saved = read_checkpoint(game, path, cfr.VARIANTS)
    assert saved["iteration"] > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.npz"]  # no temporary left
    found = solve_cfr(game, 2, path, "bound")
    assert found.sizes["iterations"] == saved["iteration"] + 2


def test_progress_lines_and_periodic_checkpoints(tmp_path, monkeypatch):
    monkeypatch.setattr(cfr, "CHECKPOINT_SECONDS", 0.0)
    lines: list[str] = []
    game = ImperfectGame.parse(3, "descending", "points")
    solve_cfr(game, 4, tmp_path / "c.npz", "bound", lines.append)
    saves = [line for line in lines if line.startswith("checkpoint ")]
    assert len(saves) == 3  # after iterations 1-3; the 4th is saved at the end
    assert "saved at iteration 3; the average policy's NashConv <= " in saves[-1]
    assert any(line.startswith("CFR+ iteration 4 of 4") for line in lines)
    assert read_checkpoint(game, tmp_path / "c.npz", cfr.VARIANTS)["iteration"] == 4


def test_iterations_are_bounded(honest, tmp_path):
    line = _refused(_solve(honest[3], iterations=str(10**9)))
    assert "--iterations must be between 1 and 100,000,000" in line
    edited = _edited(honest[3], tmp_path / "late.npz", iteration=np.int64(10**8 - 1))
    assert "pass the 100,000,000 a checkpoint may count" in _refused(_solve(edited, iterations="5"))


def test_a_checkpoint_lists_exactly_its_members(honest):
    with np.load(honest[3]) as data:
        assert sorted(data.files) == sorted(
            ["format", "n", "order", "objective", "variant", "iteration", *ARRAYS]
        )
