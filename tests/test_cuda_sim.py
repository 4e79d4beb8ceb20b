"""The CUDA level kernels (exact.cuda) under numba's CUDA simulator, against the CPU kernels.

numba reads NUMBA_ENABLE_CUDASIM once, when numba.cuda is first imported, so the simulator
tests run in a child pytest of this file with the variable set
(:func:`test_the_simulator_tests_pass`, which a plain ``python -m pytest`` runs); in this
process they are skipped, and only the refusals without a GPU are tested here.  The
simulator runs each thread in Python: the games are kept at N <= 5 (the child takes
about 25 s of one core).

The stores a device writes (``gops solve --device cuda --store``) are checked the way a
user checks them: ``gops verify`` on the CPU kernels (in the child, which also holds the
CPU kernels), against a tampered value outside and inside its radius, and in the
frontier mode (``--keep-from``).
"""

import json
import math
import os
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from flint import fmpq
from numba import cuda

import exact
from exact.cli import main
from exact.cuda.rounding import add_rd, add_ru, div_rd, div_ru, mul_rd, mul_ru
from exact.dp.drivers import solve_float_levels
from exact.dp.exact_game import solve_saddle_or_lp
from exact.dp.objective import PointsObjective, WinObjective
from exact.dp.store import Store, file_sha256
from exact.dp.verify import verify_store
from exact.errors import GopsInputError
from exact.game.encoding import build_levels
from exact.game.spec import GameSpec
from exact.kernels.bounds import POLISH_ABOVE, guarantees, rounding_margin, value_error
from exact.kernels.matrix_game import solve_game_unchecked

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
#: The ratio test's deliberate division by +0 (exact.kernels.tableau) run as Python by
#: the simulator: exact.cuda.rounding silences it, pytest's own warning filters restore it.
pytestmark = pytest.mark.filterwarnings(
    r"ignore:divide by zero:RuntimeWarning:exact\.kernels\.tableau"
)
simulator = pytest.mark.skipif(
    not SIMULATED, reason="runs under NUMBA_ENABLE_CUDASIM=1 (test_the_simulator_tests_pass)"
)
#: The child pytest's limit (the simulator tests take about 10 s on one core).
CHILD_SECONDS = 600
#: Random games for the bound's checks, and the largest k among them.
GAMES = 300
GAME_K = 9
#: The largest certified bound on a solved random game (entries up to about 10^3).
SOLVED_BOUND = 1e-9


@pytest.mark.skipif(SIMULATED, reason="this is the simulator run")
def test_the_simulator_tests_pass():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    cmd = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", __file__]
    run = subprocess.run(
        cmd,
        env=env,
        capture_output=True,
        text=True,
        timeout=CHILD_SECONDS,
        cwd=Path(__file__).parents[1],
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert " passed" in run.stdout and "skipped" in run.stdout  # the one test of this process


@pytest.mark.skipif(SIMULATED, reason="the simulator stands in for a GPU")
def test_without_a_gpu_the_device_is_refused_in_one_line(tmp_path):
    if cuda.is_available():
        pytest.skip("a CUDA GPU is present")
    store = tmp_path / "s"
    with pytest.raises(GopsInputError, match="^no CUDA GPU found: "):
        exact.solve(3, device="cuda")
    with pytest.raises(GopsInputError, match="^no CUDA GPU found: "):
        exact.solve(3, device="cuda", store=store)
    for args in (
        ["solve", "3", "--device", "cuda"],
        ["table", "3", "--device", "cuda"],
        ["solve", "3", "--device", "cuda", "--store", str(store)],
        ["solve", "4", "--device", "cuda", "--store", str(store), "--keep-from", "2"],
    ):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, result.output
        assert "no CUDA GPU found: " in result.output
        assert len(result.output.strip().splitlines()) == 1, result.output  # no estimate
    assert not store.exists()  # refused before anything is written


def test_device_refusals_that_need_no_gpu(tmp_path):
    with pytest.raises(GopsInputError, match="device must be one of cpu, cuda"):
        exact.solve(3, device="tpu")
    exact.solve(3, store=tmp_path / "s")  # a store to read
    for args, words in [
        (["table", "3", "--device", "cuda", "--store", str(tmp_path / "s")], "gops table reads"),
        (["solve", "3", "--device", "cuda", "--store", "x", "--cluster", "local:1"], "drop"),
    ]:
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, result.output
        assert words in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


# -- under the simulator ---------------------------------------------------------------------


def _objectives():
    for order in ("random", "descending"):
        yield PointsObjective(order)
        yield WinObjective(order=order)


@simulator
@pytest.mark.parametrize("objective", list(_objectives()), ids=repr)
@pytest.mark.parametrize("n", [3, 4, 5])
def test_levels_equal_the_cpu_kernels_within_the_radii(n, objective):
    from exact.cuda.driver import DeviceObjective  # noqa: PLC0415 - after the simulator is set

    levels = build_levels(n)
    gpu, gpu_games = solve_float_levels(DeviceObjective(objective), levels)
    cpu, cpu_games = solve_float_levels(objective, levels)
    assert gpu_games == cpu_games
    for k, (g, c) in enumerate(zip(gpu.values, cpu.values, strict=True)):
        assert g.shape == c.shape
        assert np.array_equal(np.isnan(g), np.isnan(c))  # the unreachable leads
        both = ~np.isnan(c)
        assert np.isfinite(gpu.radii[k]) and gpu.radii[k] >= 0.0
        assert np.all(np.abs(g[both] - c[both]) <= gpu.radii[k] + cpu.radii[k])


@simulator
@pytest.mark.parametrize("objective", list(_objectives()), ids=repr)
@pytest.mark.parametrize("chunk", [40, 100])
def test_the_host_cores_beside_the_device_keep_both_copies_equal(chunk, objective):
    """--device cuda+cpu: each chunk's last rows solved by the CPU kernels while the device
    solves the rest; the next level reads the device's copy, so a row of the host's not
    copied there, or a device row copied back over the host's, shows in the levels above."""
    from exact.cuda.driver import DeviceObjective  # noqa: PLC0415 - after the simulator is set

    levels = build_levels(5)
    both = DeviceObjective(objective, host_cores=True)
    mixed, mixed_games = solve_float_levels(both, levels, chunk_items=chunk)
    cpu, cpu_games = solve_float_levels(objective, levels)
    assert mixed_games == cpu_games
    assert both.items["device"] > 0 and both.items["host"] > 0
    assert 0.0 < both.host_share <= 0.5
    for k, (g, c) in enumerate(zip(mixed.values, cpu.values, strict=True)):
        assert np.array_equal(np.isnan(g), np.isnan(c))
        known = ~np.isnan(c)
        assert np.all(np.abs(g[known] - c[known]) <= mixed.radii[k] + cpu.radii[k])


@simulator
def test_a_level_the_store_maps_again_to_read_is_not_copied_to_the_device_again(tmp_path):
    from exact.cuda.driver import DeviceObjective  # noqa: PLC0415 - after the simulator is set

    device = DeviceObjective(PointsObjective())
    path, other = tmp_path / "level-3.npy", tmp_path / "level-2.npy"
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(4, 5))
    out[:] = np.arange(20.0).reshape(4, 5)
    written = device._resident(out)
    out.flush()
    assert device._resident(np.load(path, mmap_mode="c")) is written  # read as the below
    np.save(other, np.zeros((4, 5)))
    assert device._resident(np.load(other, mmap_mode="c")) is not written  # another file
    rewritten = np.lib.format.open_memmap(path, mode="r+")  # written again: copied again
    assert device._resident(rewritten) is not written


@simulator
def test_a_store_made_by_the_device_and_the_host_cores_is_accepted_by_verify(tmp_path):
    root = tmp_path / "s"
    args = ["solve", "5", "--device", "cuda+cpu", "--store", str(root), "--chunk-items", "9"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert Store.open(root).backend_of_level(5)["backend"] == "cuda-simulator"
    verdict = verify_store(root)
    assert verdict.bad is None and verdict.proved_mode


@simulator
def test_exact_solve_on_the_device_is_within_its_radius_of_the_exact_values():
    gpu = exact.solve(4, device="cuda")
    rational = exact.solve(4, arithmetic="rational")
    root = {1, 2, 3, 4}
    assert len(gpu.radii) == 5 and max(gpu.radii) > 0.0
    for mine, theirs, deck in [(root, root, root), ({1, 2, 4}, {1, 3, 4}, {1, 2, 3})]:
        exact_value = Fraction(rational.value(mine, theirs, deck))
        assert abs(Fraction(gpu.value(mine, theirs, deck)) - exact_value) <= Fraction(
            max(gpu.radii)
        )


def _random_games(seed: int):
    """GAMES games (k x k, k = 1..GAME_K, entries with non-representable sums) in a
    (GAMES, 16, 16) array, their k, and the CPU solver's strategies and values."""
    rng = np.random.default_rng(seed)
    games = np.zeros((GAMES, 16, 16))
    ks = rng.integers(1, GAME_K + 1, GAMES)
    xs = np.zeros((GAMES, 16))
    ys = np.zeros((GAMES, 16))
    vs = np.zeros(GAMES)
    for g, k in enumerate(ks):
        scale = 10.0 ** rng.integers(-3, 4)
        A = np.ascontiguousarray(rng.integers(-5, 6, (k, k)) + rng.random((k, k)) * scale / 3)
        games[g, :k, :k] = A
        x, y = np.zeros(k), np.zeros(k)
        vs[g] = solve_game_unchecked(A, k, x, y)
        if g % 3 == 0:  # strategies far from optimal too: large gaps
            x, y = rng.random(k) / 7, rng.random(k) / 3
        xs[g, :k], ys[g, :k] = x, y
    return games, ks, xs, ys, vs


def _exact_ends(A, k, x, y):
    """The exact (lo, hi) of the enclosure of exact.kernels.bounds for x~, y~."""
    xf = [Fraction(max(float(t), 0.0)) for t in x[:k]]
    yf = [Fraction(max(float(t), 0.0)) for t in y[:k]]
    Af = [[Fraction(float(A[i, j])) for j in range(k)] for i in range(k)]
    lo = min(sum(xf[i] * Af[i][j] for i in range(k)) for j in range(k)) / sum(xf)
    hi = max(sum(Af[i][j] * yf[j] for j in range(k)) for i in range(k)) / sum(yf)
    return lo, hi


@simulator
def test_the_enclosure_is_rounded_outward():
    from exact.cuda.game import enclosures  # noqa: PLC0415 - after the simulator is set

    games, ks, xs, ys, _ = _random_games(7)
    out = np.zeros((GAMES, 3))
    enclosures[(GAMES + 63) // 64, 64](games, ks, xs, ys, out)
    inexact = 0
    for g, k in enumerate(ks):
        lo, hi = _exact_ends(games[g], k, xs[g], ys[g])
        assert Fraction(out[g, 0]) <= lo and Fraction(out[g, 1]) >= hi, g
        inexact += Fraction(out[g, 0]) != lo
        assert out[g, 2] == np.abs(games[g, :k, :k]).max()
    assert inexact > GAMES // 2  # the games do round: the test can see a wrong direction


@simulator
def test_the_device_bound_is_sound_and_within_the_cpu_bound_on_the_same_games():
    from exact.cuda.game import bound_games  # noqa: PLC0415 - after the simulator is set

    games, ks, xs, ys, vs = _random_games(11)
    out = np.zeros(GAMES)
    bound_games[(GAMES + 63) // 64, 64](games, ks, xs, ys, vs, out)
    for g, k in enumerate(ks):
        A = np.ascontiguousarray(games[g, :k, :k])
        cpu = value_error(A, k, xs[g, :k].copy(), ys[g, :k].copy(), vs[g])
        lo, hi = _exact_ends(A, k, xs[g], ys[g])
        gap = max(Fraction(vs[g]) - lo, hi - Fraction(vs[g]))
        assert Fraction(out[g]) >= gap, g  # |v - w(A)| <= gap <= the device's bound
        assert out[g] <= cpu, (g, out[g], cpu)


def _exact_value(A, k) -> Fraction:
    """The exact value of the float game A[:k, :k] (every entry read as the rational it
    is), by the verified rational solver (a saddle point or an LP checked exactly)."""
    q = [[fmpq(*Fraction(float(A[i, j])).as_integer_ratio()) for j in range(k)] for i in range(k)]
    value = solve_saddle_or_lp(q).value
    return Fraction(int(value.p), int(value.q))


@simulator
def test_the_device_solver_is_within_its_bound_of_the_exact_value():
    """Each device value lies within the bound it certifies of the game's exact rational
    value, and the bounds are small; the CPU target of the same body returns the same
    floats (one source, kernels/target.py, compiled twice)."""
    from exact.cuda.game import solve_games  # noqa: PLC0415 - after the simulator is set

    games, ks, _, _, vs = _random_games(3)
    xs, ys = np.zeros((GAMES, 16)), np.zeros((GAMES, 16))
    values, bounds = np.zeros(GAMES), np.zeros(GAMES)
    solve_games[(GAMES + 63) // 64, 64](games, ks, xs, ys, values, bounds)
    missed = 0
    for g, k in enumerate(ks):
        gap = abs(Fraction(values[g]) - _exact_value(games[g], k))
        assert gap <= Fraction(bounds[g]), (g, float(gap), bounds[g])
        missed += gap > 0
    assert missed > GAMES // 4  # the values do round: a bound too small would show
    assert np.all(bounds < SOLVED_BOUND)
    assert np.array_equal(values, vs)


@cuda.jit
def _directed(a, b, out):
    """The six directed operations on a[t], b[t], one thread each (compiled on first use)."""
    t = cuda.grid(1)
    if t < a.shape[0]:
        out[t, 0], out[t, 1] = add_rd(a[t], b[t]), add_ru(a[t], b[t])
        out[t, 2], out[t, 3] = mul_rd(a[t], b[t]), mul_ru(a[t], b[t])
        out[t, 4], out[t, 5] = div_rd(a[t], b[t]), div_ru(a[t], b[t])


def _outward(nearest: float) -> tuple[float, float]:
    """The simulator's fallback computed on the host: the round-to-nearest result one unit
    in the last place outward each way (exact.cuda.rounding)."""
    return math.nextafter(nearest, -math.inf), math.nextafter(nearest, math.inf)


@pytest.mark.skipif(
    not (SIMULATED or cuda.is_available()), reason="needs the simulator or a CUDA GPU"
)
def test_directed_rounding_brackets_the_exact_result():
    """down <= exact <= up for +, *, / on random operands of magnitudes 1e-30..1e30.  On a
    GPU (libdevice's __nv_d*_rd/_ru, correctly rounded): down is the largest float at or
    below the exact result and up the smallest at or above, each within the host
    fallback's one-unit-outward interval.  Under the simulator libdevice's functions are
    stubs that return None, so there the fallback itself is what runs."""
    rng = random.Random(5)
    a = np.array([rng.uniform(-1, 1) * 10.0 ** rng.randint(-30, 30) for _ in range(200)])
    b = np.array([rng.uniform(-1, 1) * 10.0 ** rng.randint(-30, 30) for _ in range(200)])
    out = np.zeros((200, 6))
    _directed[4, 64](a, b, out)
    inexact = 0
    for t in range(200):
        fa, fb = Fraction(a[t]), Fraction(b[t])
        nearest = (a[t] + b[t], a[t] * b[t], a[t] / b[t])
        for c, exact_result in enumerate((fa + fb, fa * fb, fa / fb)):
            down, up = out[t, 2 * c], out[t, 2 * c + 1]
            assert Fraction(down) <= exact_result <= Fraction(up), (t, c)
            low, high = _outward(float(nearest[c]))
            assert low <= down and up <= high, (t, c)
            if SIMULATED:
                assert (down, up) == (low, high)
            else:  # correctly rounded: no float lies strictly between and the exact result
                assert Fraction(math.nextafter(down, math.inf)) > exact_result, (t, c)
                assert Fraction(math.nextafter(up, -math.inf)) < exact_result, (t, c)
                inexact += down < up
    assert SIMULATED or inexact > 200  # most of the 600 results round


# -- stores made on the (simulated) device, checked on the CPU -------------------------------


def _edit(root: Path, k: int, at: tuple[int, int], delta: float) -> None:
    """Add ``delta`` to the value ``at`` of level k of a store (a points store: prize rank,
    column) and record the file's new checksum in the manifest (an edit that the
    checksums cannot see)."""
    path = root / f"level-{k}.npy"
    values = np.load(path)
    values[at] += delta
    np.save(path, values)
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["levels"][str(k)]["sha256"] = file_sha256(path)
    (root / "manifest.json").write_text(json.dumps(manifest))


@simulator
@pytest.mark.parametrize("objective", ["points", "win"])
def test_a_store_made_on_the_device_is_accepted_by_verify(tmp_path, objective):
    root = tmp_path / "s"
    result = CliRunner().invoke(
        main, ["solve", "5", "--objective", objective, "--device", "cuda", "--store", str(root)]
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["writer"] == {"backend": "cuda-simulator"}
    assert {e["backend"] for e in manifest["levels"].values()} == {"cuda-simulator"}
    verdict = verify_store(root)
    assert verdict.bad is None and verdict.proved_mode
    # The CPU's own solve lies within the proved radius plus its radius of every value.
    cpu = exact.solve(5, objective)
    store = Store.open(root)
    for check in verdict.checked:
        stored, theirs = np.asarray(store.level(check.k)), cpu.values[check.k]
        both = ~np.isnan(theirs)
        assert np.all(np.abs(stored[both] - theirs[both]) <= check.proved + cpu.radii[check.k])
    out = CliRunner().invoke(main, ["verify", str(root), "--quiet"])
    assert out.exit_code == 0 and out.output.startswith("verified: every value of "), out.output
    assert "made by cuda-simulator re-derived on the CPU" in out.output


@simulator
def test_a_value_edited_outside_its_radius_is_rejected_and_inside_it_is_covered(tmp_path):
    root = tmp_path / "s"
    exact.solve(5, device="cuda", store=root)
    recorded = Store.open(root).radius(3)
    bound = verify_store(root).checked[3].needed  # the largest bound of level 3's items
    values = np.load(root / "level-3.npy")
    at = np.unravel_index(np.argmax(np.abs(values)), values.shape)  # a game's value
    _edit(root, 3, at, 1e-9)  # far beyond its bound plus the radius (1e-13)
    verdict = verify_store(root)
    assert verdict.bad is not None and verdict.bad.k == 3 and "re-derived" in verdict.bad.what
    out = CliRunner().invoke(main, ["verify", str(root), "--quiet"])
    assert out.exit_code == 1 and out.output.startswith("not verified: level 3: "), out.output
    _edit(root, 3, at, -1e-9)
    # Beyond every bound, inside the bound plus the device's radius: the enclosures meet,
    # so it is accepted, and the radius proved for the level covers the edit.
    delta = bound + recorded / 2
    _edit(root, 3, at, delta)
    verdict = verify_store(root)
    assert verdict.bad is None
    assert verdict.checked[3].proved >= bound + delta


@simulator
def test_the_frontier_mode_on_the_device(tmp_path):
    root = tmp_path / "f"
    sol = exact.solve(5, "win", device="cuda", store=root, keep_from=2)
    assert sorted(p.name for p in root.glob("level-*.npy")) == [
        f"level-{k}.npy" for k in range(2, 6)
    ]
    assert len(sol.radii) == 6 and all(np.isfinite(sol.radii))
    result = CliRunner().invoke(
        main, ["table", "5", "--objective", "win", "--store", str(root), "--certified", "--json"]
    )
    assert result.exit_code == 0, result.output
    table = json.loads(result.output)
    assert table["source"]["dropped_levels"] == [0, 1]
    assert table["source"]["devices"] == ["cuda-simulator"]
    verdict = verify_store(root)
    assert verdict.bad is None and [c.k for c in verdict.checked] == [2, 3, 4, 5]
    assert verdict.checked[0].premise and not verdict.complete
    # The levels below K in the device's and the host's memory only: the same store.
    memory = exact.solve(
        5, "win", device="cuda", store=tmp_path / "m", keep_from=2, below_in_memory=True
    ).values.store
    assert _files_of(tmp_path / "m") == [2, 3, 4, 5]
    for k in range(6):
        assert memory.sha256(k) == Store.open(root).sha256(k)


@simulator
def test_a_level_begun_on_the_device_is_redone_on_the_cpu(tmp_path):
    """A solve interrupted on the device and resumed on the CPU: the level in progress is
    redone there, each level records its own backend, and verify accepts the mixture."""
    root = tmp_path / "m"

    class Stop(Exception):
        pass

    def stop(level, done):
        if level.k == 3:
            raise Stop

    with pytest.raises(Stop):
        Store.for_game(root, GameSpec.parse(5), chunk_items=40).solve(stop, "cuda")
    assert (root / "level-3.progress").exists()
    repairs = []
    store = Store.for_game(root, GameSpec.parse(5), on_repair=lambda k, w: repairs.append(k))
    store.solve()
    assert repairs == [3]
    backends = [store.backend_of_level(k)["backend"] for k in range(6)]
    assert backends == ["cuda-simulator"] * 3 + ["cpu"] * 3
    verdict = verify_store(root)
    assert verdict.bad is None and verdict.proved_mode


def _files_of(root: Path) -> list[int]:
    return sorted(int(p.stem.split("-")[1]) for p in root.glob("level-*.npy"))


#: The 20 level games of N = 9 (of 250,404 sampled with benchmarks/bench_matrix_game's
#: seed 2024, k = 4..8) whose simplex strategies the CPU polishes: their bound exceeds
#: (1 + POLISH_ABOVE) rounding margins (exact.kernels.bounds.certified_game).
NEAR_DEGENERATE = Path(__file__).parent / "data" / "near_degenerate_games.npz"


@simulator
def test_the_device_polishes_near_degenerate_games_and_stays_sound():
    from exact.cuda.game import KMAX, solve_certified_games, solve_games  # noqa: PLC0415

    data = np.load(NEAR_DEGENERATE)
    small, ks = data["games"], data["ks"]
    n = len(ks)
    games = np.zeros((n, KMAX, KMAX))
    games[:, : small.shape[1], : small.shape[2]] = small
    raw_v, raw_b = np.zeros(n), np.zeros(n)
    solve_games[n, 1](games, ks, np.zeros((n, KMAX)), np.zeros((n, KMAX)), raw_v, raw_b)
    xs, ys, vs, bounds = np.zeros((n, KMAX)), np.zeros((n, KMAX)), np.zeros(n), np.zeros(n)
    solve_certified_games[n, 1](games, ks, xs, ys, vs, bounds)
    tightened = 0
    for g in range(n):
        k = int(ks[g])
        A = games[g, :k, :k]
        x, y = np.zeros(KMAX), np.zeros(KMAX)
        v = solve_game_unchecked(A, k, x, y)
        lo, hi, a = guarantees(A, k, x, y)
        assert value_error(A, k, x, y, v) > (1 + POLISH_ABOVE) * rounding_margin(k, a)
        assert bounds[g] <= raw_b[g]  # the polish keeps the better pair
        tightened += bounds[g] < raw_b[g] / 2
        q = [[fmpq(*Fraction(float(e)).as_integer_ratio()) for e in row] for row in A]
        exact = solve_saddle_or_lp(q).value
        exact_value = Fraction(int(exact.p), int(exact.q))
        assert abs(Fraction(float(vs[g])) - exact_value) <= Fraction(float(bounds[g]))
    assert tightened >= n // 4  # measured: 9 of the 20 bounds at least halved
