"""The level kernels on a CUDA GPU against the CPU kernels on every core of the same machine.

One run prints, as it goes (each table also written as JSON lines to ``--out``):

1. the machine: the GPU's name, numba and numba-cuda versions, the CPU threads;
2. a check before any timing: N = 6 on the GPU, both objectives, random and descending
   orders, every level within the radii of the CPU's (the simulator tests' check, on a real
   device);
3. the per-game table: random integer k x k games (entries uniform in -200..200, seeded),
   solved one game per GPU thread (:func:`exact.cuda.game.solve_games`, which also writes
   each game's certified bound) and, as the baseline, by the CPU's
   :func:`exact.kernels.matrix_game.solve_game_unchecked` in a ``numba.prange`` loop on
   all cores; millions of games per second, their ratio, the largest certified bound, the
   largest difference of the two values;
4. whole solves, ``exact.solve(n, objective, device="cuda")`` against ``exact.solve(n,
   objective)`` on all cores: seconds (median of ``--repeats``; the first GPU solve of each
   objective is an untimed warm-up at N = 6), the root value, its certified radius on each
   side, and every level's values checked within the two radii.  A CPU solve whose projected
   time (the ratio of the last two sizes) would overrun ``--budget`` is skipped and says so.

Run (on a machine with a CUDA GPU and numba-cuda):
    python benchmarks/bench_cuda.py --points 11,12,13 --win 10,11 --budget 420 --out DIR
numba-cuda with numpy 2.5 needs ``np.row_stack`` (removed there): set below, here only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda imports it; numpy 2.5 dropped it
    np.row_stack = np.vstack  # type: ignore[attr-defined]

import numba  # noqa: E402
from numba import cuda, prange  # noqa: E402
from numba.core.errors import NumbaPerformanceWarning  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
WARM_UP = "from exact.kernels import {0}; {0}.warm_up()"

import exact  # noqa: E402
from exact.cuda import driver  # noqa: E402
from exact.cuda.game import KMAX, solve_games  # noqa: E402
from exact.kernels.matrix_game import solve_game_unchecked  # noqa: E402

#: Entries of the random games are integers in [-GAME_ENTRY, GAME_ENTRY].
GAME_ENTRY = 200
#: A CPU solve projected to take longer (seconds) is run once, not --repeats times.
LONG_SOLVE = 20.0
#: Threads per block of the per-game kernel.
GAME_THREADS = 64

START = time.perf_counter()
# The small levels' launches of a few blocks (a GPU under-used there, as expected).
warnings.simplefilter("ignore", NumbaPerformanceWarning)


def elapsed() -> float:
    return time.perf_counter() - START


class Report:
    """Prints a line and appends a JSON record to DIR/bench_cuda.jsonl."""

    def __init__(self, out: Path | None):
        self.path = None if out is None else out / "bench_cuda.jsonl"
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)

    def __call__(self, text: str, **record) -> None:
        print(f"[{elapsed():6.1f} s] {text}", flush=True)
        if self.path is not None and record:
            with self.path.open("a") as f:
                f.write(json.dumps(record) + "\n")


def machine(report: Report) -> None:
    if numba.config.ENABLE_CUDASIM:  # type: ignore[attr-defined]
        name, cc, free, total = "numba's CUDA simulator", (0, 0), 0, 0
    else:
        device = cuda.get_current_device()
        name = device.name.decode() if isinstance(device.name, bytes) else str(device.name)
        cc = device.compute_capability
        free, total = cuda.current_context().get_memory_info()
    try:
        from importlib.metadata import version  # noqa: PLC0415

        numba_cuda = version("numba-cuda")
    except Exception:  # noqa: BLE001 - the built-in target has no distribution
        numba_cuda = "built-in"
    report(
        f"GPU {name}, compute capability {cc}, "
        f"{total / 2**30:.1f} GiB ({free / 2**30:.1f} free); numba {numba.__version__}, "
        f"numba-cuda {numba_cuda}; CPU threads {numba.config.NUMBA_NUM_THREADS}; "
        f"numpy {np.__version__}",
        table="machine",
        gpu=name,
        cc=list(cc),
        gpu_gib=total / 2**30,
        numba=numba.__version__,
        numba_cuda=numba_cuda,
        cpu_threads=numba.config.NUMBA_NUM_THREADS,
    )


def levels_within_radii(gpu, cpu) -> float:
    """The largest |gpu - cpu| over all levels divided by the sum of the two radii (<= 1
    means every value of the GPU lies within the radii of the CPU's); AssertionError on a
    different shape or a different set of unreachable (NaN) entries."""
    worst = 0.0
    for k, (g, c) in enumerate(zip(gpu.values, cpu.values, strict=True)):
        assert g.shape == c.shape, (k, g.shape, c.shape)
        assert np.array_equal(np.isnan(g), np.isnan(c)), k
        both = ~np.isnan(c)
        if not both.any():
            continue
        diff = float(np.max(np.abs(g[both] - c[both])))
        allowed = gpu.radii[k] + cpu.radii[k]
        worst = max(worst, diff / allowed if allowed > 0 else (0.0 if diff == 0 else np.inf))
    return worst


CHECKS = [(o, order) for o in ("points", "win") for order in ("random", "descending")]


def gpu_checks(report: Report, n: int) -> dict:
    """The GPU's N-card solutions of :data:`CHECKS` (their kernels' first compile)."""
    t0 = time.perf_counter()
    sols = {c: exact.solve(n, objective=c[0], order=c[1], device="cuda") for c in CHECKS}
    report(f"GPU kernels compiled and N = {n} solved in {time.perf_counter() - t0:.1f} s")
    return sols


def check(report: Report, gpu_sols: dict) -> None:
    for objective, order in CHECKS:
        gpu = gpu_sols[objective, order]
        n = gpu.n
        cpu = exact.solve(n, objective=objective, order=order)
        ratio = levels_within_radii(gpu, cpu)
        ok = ratio <= 1.0
        report(
            f"check N={n} {objective} {order}: GPU levels within the radii: {ok} "
            f"(largest |gpu-cpu| / (r_gpu + r_cpu) = {ratio:.3g}); "
            f"largest radius gpu {max(gpu.radii):.3g} cpu {max(cpu.radii):.3g}",
            table="check",
            objective=objective,
            order=order,
            ok=ok,
            ratio=ratio,
        )


#: Games per chunk of the CPU's prange loop (its buffers are allocated once a chunk).
CPU_CHUNK = 1024


@numba.njit(parallel=True, cache=False)
def _cpu_games(games, ks, vs):
    count = games.shape[0]
    for c in prange((count + CPU_CHUNK - 1) // CPU_CHUNK):
        x = np.empty(KMAX)
        y = np.empty(KMAX)
        for g in range(c * CPU_CHUNK, min(count, (c + 1) * CPU_CHUNK)):
            vs[g] = solve_game_unchecked(games[g], ks[g], x, y)


def random_games(k: int, count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    games = np.zeros((count, KMAX, KMAX))
    games[:, :k, :k] = rng.integers(-GAME_ENTRY, GAME_ENTRY + 1, size=(count, k, k))
    return games


def gpu_games(games: np.ndarray, k: int):
    count = games.shape[0]
    d_games = cuda.to_device(games)
    d_ks = cuda.to_device(np.full(count, k, dtype=np.int64))
    d_x = cuda.device_array((count, KMAX))
    d_y = cuda.device_array((count, KMAX))
    d_v = cuda.device_array(count)
    d_b = cuda.device_array(count)
    blocks = (count + GAME_THREADS - 1) // GAME_THREADS
    cuda.synchronize()
    t0 = time.perf_counter()
    solve_games[blocks, GAME_THREADS](d_games, d_ks, d_x, d_y, d_v, d_b)
    cuda.synchronize()
    seconds = time.perf_counter() - t0
    return seconds, d_v.copy_to_host(), d_b.copy_to_host()


def per_game_table(report: Report, sizes, count: int, repeats: int) -> None:
    warm = random_games(3, 1024, 0)
    gpu_games(warm, 3)
    _cpu_games(warm, np.full(1024, 3, dtype=np.int64), np.empty(1024))
    for k in sizes:
        games = random_games(k, count, k)
        ks = np.full(count, k, dtype=np.int64)
        gpu_times, cpu_times = [], []
        for _ in range(repeats):
            seconds, v_gpu, bounds = gpu_games(games, k)
            gpu_times.append(seconds)
            v_cpu = np.empty(count)
            t0 = time.perf_counter()
            _cpu_games(games, ks, v_cpu)
            cpu_times.append(time.perf_counter() - t0)
        g_rate = count / statistics.median(gpu_times) / 1e6
        c_rate = count / statistics.median(cpu_times) / 1e6
        diff = float(np.max(np.abs(v_gpu - v_cpu)))
        worst = float(np.max(bounds))
        report(
            f"k={k:2d}: GPU {g_rate:8.1f} M games/s, CPU {c_rate:6.2f} M games/s, "
            f"ratio {g_rate / c_rate:5.1f}x; largest certified bound {worst:.2g}, "
            f"largest |v_gpu - v_cpu| {diff:.2g} ({count:,} games, median of {repeats})",
            table="games",
            k=k,
            games=count,
            gpu_mgames_s=g_rate,
            cpu_mgames_s=c_rate,
            ratio=g_rate / c_rate,
            largest_bound=worst,
            largest_difference=diff,
        )


def timed_solve(n: int, objective: str, device: str, repeats: int):
    times, sol = [], None
    for _ in range(repeats):
        sol = None
        t0 = time.perf_counter()
        sol = exact.solve(n, objective=objective, device=device)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times, sol


def root(sol) -> tuple[float, float]:
    """The value of the whole game and the largest certified radius of any level (the
    root's own radius is 0: the symmetric root's value is 0 exactly)."""
    deck = set(range(1, sol.n + 1))
    if sol.objective.has_lead:
        return float(sol.value(deck, deck, deck, lead=0)), max(sol.radii)
    return float(sol.value(deck, deck, deck)), max(sol.radii)


#: The largest N solved on the CPU too (--cpu-max-n).
CPU_MAX_N = [99]
#: (N, seconds) of the GPU solves so far, by objective (the projections' data).
GPU_TIMES: dict[str, list[tuple[int, float]]] = {}


def solves(
    report: Report, objective: str, sizes, repeats: int, deadline: float, gpu_only=()
) -> None:
    """GPU and CPU solves of each size (the GPU alone for the sizes in ``gpu_only``, once,
    and only if the last GPU time projects it within the budget)."""
    last_cpu: list[tuple[int, float]] = []
    last_gpu = GPU_TIMES.setdefault(objective, [])
    for n in sizes:
        if n in gpu_only:
            if len(last_gpu) >= 2:
                (n1, t1), (n2, t2) = last_gpu[-2:]
                projected = t2 * (t2 / t1) ** (n - n2)
                if projected > deadline - elapsed():
                    report(f"{objective} N={n}: GPU skipped (projected {projected:.0f} s)")
                    continue
            repeats = 1
        g_time, g_times, gpu = timed_solve(n, objective, "cuda", repeats)
        last_gpu.append((n, g_time))
        g_root, g_radius = root(gpu)
        report(
            f"{objective} N={n}: GPU {g_time:.2f} s (runs {[round(t, 2) for t in g_times]}), "
            f"root {g_root!r}, largest radius {g_radius:.3g}; by level "
            + " ".join(f"{r:.1e}" for r in gpu.radii),
            table="solve",
            objective=objective,
            n=n,
            device="cuda",
            seconds=g_time,
            runs=g_times,
            root=g_root,
            radius=g_radius,
            radii=list(gpu.radii),
        )
        if n in gpu_only or n > CPU_MAX_N[0]:
            if n > CPU_MAX_N[0]:
                report(f"{objective} N={n}: CPU not run (--cpu-max-n {CPU_MAX_N[0]})")
            del gpu
            continue
        projected = None
        if len(last_cpu) >= 2:
            (n1, t1), (n2, t2) = last_cpu[-2:]
            projected = t2 * (t2 / t1) ** (n - n2)
        elif last_cpu:
            projected = last_cpu[-1][1] * 8
        left = deadline - elapsed()
        if projected is not None and projected * repeats > left:
            report(
                f"{objective} N={n}: CPU skipped (projected {projected:.0f} s x {repeats}, "
                f"{left:.0f} s of the budget left)",
                table="solve",
                objective=objective,
                n=n,
                device="cpu",
                skipped=True,
                projected=projected,
            )
            del gpu
            continue
        # Several runs of a CPU solve only where they are short (projected under LONG_SOLVE).
        cpu_repeats = repeats if projected is None or projected < LONG_SOLVE else 1
        c_time, c_times, cpu = timed_solve(n, objective, "cpu", cpu_repeats)
        last_cpu.append((n, c_time))
        c_root, c_radius = root(cpu)
        ratio = levels_within_radii(gpu, cpu)
        report(
            f"{objective} N={n}: CPU {c_time:.2f} s (runs {[round(t, 2) for t in c_times]}), "
            f"root {c_root!r}, largest radius {c_radius:.3g}; GPU {c_time / g_time:.1f}x; "
            f"every level within the radii: {ratio <= 1.0} ({ratio:.3g})",
            table="solve",
            objective=objective,
            n=n,
            device="cpu",
            seconds=c_time,
            runs=c_times,
            root=c_root,
            radius=c_radius,
            speedup=c_time / g_time,
            within_radii=ratio <= 1.0,
            ratio=ratio,
        )
        del gpu, cpu


def threads_sweep(report: Report, n: int, choices) -> None:
    """Time points N = n on the GPU with each number of threads per block, and keep the
    fastest for the solves that follow (exact.cuda.driver.THREADS)."""
    if not choices:
        return
    exact.solve(n, device="cuda")  # the level tables' first build
    times = {}
    for threads in choices:
        driver.THREADS = threads
        t0 = time.perf_counter()
        exact.solve(n, device="cuda")
        times[threads] = time.perf_counter() - t0
    best = min(times, key=times.__getitem__)
    driver.THREADS = best
    report(
        f"threads per block, points N={n}: "
        + ", ".join(f"{t}: {s:.2f} s" for t, s in times.items())
        + f"; {best} kept",
        table="threads",
        n=n,
        seconds={str(t): s for t, s in times.items()},
        kept=best,
    )


def gops(*args: str) -> tuple[float, str]:
    """Run ``python -m exact.cli ARGS`` (as a user would run ``gops``): seconds and stdout;
    CalledProcessError with its stderr on failure."""
    t0 = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "exact.cli", *args], cwd=ROOT, capture_output=True, text=True
    )
    if run.returncode != 0:
        raise RuntimeError(f"gops {' '.join(args)}: exit {run.returncode}: {run.stderr[-800:]}")
    return time.perf_counter() - t0, run.stdout


def gpu_store(report: Report, n: int, directory: Path) -> None:
    """A store made on the GPU, verified on the CPU, and its certified first-move table
    against the CPU's in-memory table: every CPU probability inside the store's interval."""
    if n <= 0:
        return
    directory.mkdir(parents=True, exist_ok=True)
    store = directory / f"gpu-store-{n}"
    made, _ = gops("solve", str(n), "--device", "cuda", "--store", str(store), "--quiet")
    checked, out = gops("verify", str(store))
    report(
        f"store N={n}: made on the GPU in {made:.1f} s; gops verify (CPU) {checked:.1f} s: "
        + out.strip().splitlines()[-1][:400],
        table="store",
        n=n,
        made_seconds=made,
        verify_seconds=checked,
        verdict=out.strip().splitlines()[-1],
    )
    _, table = gops("table", str(n), "--store", str(store), "--certified", "--json")
    _, cpu_table = gops("table", str(n), "--json")
    certified = json.loads(table)["certified"]
    cpu = json.loads(cpu_table)["by_upcard"]
    inside = total = unique = 0
    for upcard, column in certified.items():
        unique += bool(column.get("unique_and_enclosed"))
        for bid, (lo, hi) in column.get("mine", {}).items():
            total += 1
            inside += lo <= cpu[upcard][int(bid) - 1] <= hi
    report(
        f"store N={n}: {unique} of {len(certified)} columns certified unique; {inside} of "
        f"{total} CPU first-move probabilities inside the GPU store's certified intervals",
        table="store-table",
        n=n,
        unique_columns=unique,
        columns=len(certified),
        inside=inside,
        probabilities=total,
    )


def frontier(report: Report, n: int, keep_from: int, directory: Path, deadline: float) -> None:
    """Points N = n on the GPU in the frontier mode (only levels keep_from..n kept), then
    ``gops table N --store --certified`` at its root."""
    if n <= 0:
        return
    times = GPU_TIMES.get("points", [])
    known = dict(times)
    if n in known and known[n] * 2 > deadline - elapsed():
        report(f"frontier N={n}: skipped ({deadline - elapsed():.0f} s of the budget left)")
        return
    directory.mkdir(parents=True, exist_ok=True)
    store = directory / f"gpu-frontier-{n}"
    made, _ = gops(
        "solve", str(n), "--device", "cuda", "--store", str(store), "--keep-from",
        str(keep_from), "--quiet",
    )  # fmt: skip
    read, out = gops("table", str(n), "--store", str(store), "--certified")
    kept = sorted(p.name for p in store.iterdir())
    report(
        f"frontier N={n} --keep-from {keep_from}: made on the GPU in {made:.1f} s (files "
        f"{kept}); gops table --certified {read:.1f} s:\n{out.strip()}",
        table="frontier",
        n=n,
        keep_from=keep_from,
        made_seconds=made,
        table_seconds=read,
        files=kept,
        certified=out.strip().splitlines()[-2:],
    )


def sizes_arg(text: str) -> list[int]:
    return [int(s) for s in text.split(",") if s]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=sizes_arg, default=[6, 7, 8, 10, 13])
    parser.add_argument("--game-count", type=int, default=1 << 20)
    parser.add_argument("--points", type=sizes_arg, default=[11, 12, 13])
    parser.add_argument("--win", type=sizes_arg, default=[10, 11])
    parser.add_argument(
        "--gpu-only", type=sizes_arg, default=[], help="points sizes solved on the GPU alone"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=420.0, help="seconds for the whole run")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--cpu-max-n", type=int, default=99, help="no CPU solve above this N")
    parser.add_argument("--store-n", type=int, default=11, help="N of the GPU store (0: none)")
    parser.add_argument("--frontier-n", type=int, default=0, help="N of a frontier store")
    parser.add_argument("--keep-from", type=int, default=11, help="its --keep-from K")
    parser.add_argument("--store-dir", type=Path, default=Path("/tmp/bench_cuda_stores"))
    parser.add_argument("--threads", type=sizes_arg, default=[], help="e.g. 32,64,128,256")
    parser.add_argument("--sweep-n", type=int, default=12, help="N of the threads sweep")
    parser.add_argument("--check-n", type=int, default=6, help="N of the check before timing")
    parser.add_argument("--skip-check", action="store_true")
    args = parser.parse_args()
    report = Report(args.out)
    CPU_MAX_N[0] = args.cpu_max_n
    machine(report)
    # The CPU level kernels' first compile (one process per objective, into numba's cache)
    # while the GPU kernels compile here.
    warm_ups = [
        subprocess.Popen([sys.executable, "-c", WARM_UP.format(kernel)], cwd=ROOT)
        for kernel in ("points", "win")
    ]
    gpu_sols = gpu_checks(report, args.check_n)
    t0 = time.perf_counter()
    _cpu_games(random_games(3, 64, 0), np.full(64, 3, dtype=np.int64), np.empty(64))
    for w in warm_ups:
        w.wait()
    report(f"CPU kernels compiled ({time.perf_counter() - t0:.1f} s waited)")
    deadline = args.budget
    stages = [
        ("check", lambda: None if args.skip_check else check(report, gpu_sols)),
        ("games", lambda: per_game_table(report, args.games, args.game_count, args.repeats)),
        ("threads", lambda: threads_sweep(report, args.sweep_n, args.threads)),
        ("points", lambda: solves(report, "points", args.points, args.repeats, deadline)),
        ("win", lambda: solves(report, "win", args.win, args.repeats, deadline)),
        ("store", lambda: gpu_store(report, args.store_n, args.store_dir)),
        (
            "frontier",
            lambda: frontier(report, args.frontier_n, args.keep_from, args.store_dir, deadline),
        ),
        (
            "gpu-only",
            lambda: solves(report, "points", args.gpu_only, 1, deadline, args.gpu_only),
        ),
    ]
    for name, stage in stages:
        try:
            stage()
        except Exception as e:  # noqa: BLE001 - one stage's failure must not lose the rest
            report(f"stage {name} failed: {type(e).__name__}: {e}", table="failed", stage=name)
    report(f"done in {elapsed():.0f} s; peak host memory {peak_gib():.1f} GiB")


def peak_gib() -> float:
    import resource  # noqa: PLC0415

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
