"""The cluster path against the single-process store solver, measured in the same run.

    python benchmarks/bench_cluster.py --n 11,12 [--repeats 3] [--objective points]

For each N and repeat: the single-process store solve (numba on every core), then the
Dask path on a LocalCluster of 1 worker and of W = cores workers, one numba thread per
worker (each cluster started and its kernels loaded before the clock starts).  Prints
the medians, the parallel efficiency T(1 worker) / (W x T(W workers)), the overhead of
the cluster path against the single-process solver (same cores), the parts and the bytes
the parts moved, and a per-core throughput (work units of exact.dp.preflight per second)
that ``--project`` turns into a table for clusters of M machines of C cores.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from exact.dp.cluster import DEFAULT_PART_ITEMS, solve_on_cluster
from exact.dp.preflight import CORE_SECONDS_PER_UNIT, estimate, level_bytes, level_work
from exact.dp.store import solve_into_store
from exact.game.spec import GameSpec


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def cluster_run(n, objective, workers, root, part_items):
    """Seconds of one cluster solve on a fresh LocalCluster of ``workers`` workers, and
    its report (the cluster's start and a warm-up solve of N = 4 are not timed)."""
    import distributed

    cluster = distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    try:
        with distributed.Client(cluster) as client:
            warm = Path(root).with_name(Path(root).name + "-warm")
            solve_on_cluster(GameSpec.parse(4, objective), warm, "", client=client, threads=1)
            shutil.rmtree(warm)
            t0 = time.perf_counter()
            _, report = solve_on_cluster(
                GameSpec.parse(n, objective), root, "", part_items, client=client, threads=1
            )
            return time.perf_counter() - t0, report
    finally:
        cluster.close()


def projection(rate_per_core: float, efficiency: float, objective: str, sizes) -> str:
    """Markdown table: hours for N on M machines of C cores at the measured per-core rate
    and parallel efficiency (compute only; the joins' I/O is listed apart)."""
    rows = [
        "| N | objective | work units | disk GB | "
        + " | ".join(f"{m} x {c} cores" for m, c in sizes)
        + " |",
        "|---|---|---|---|" + "---|" * len(sizes),
    ]
    cases = [(15, "points"), (16, "points"), (12, "win"), (13, "win")]
    for n, obj in cases:
        work = sum(level_work(GameSpec.parse(n, obj), k) for k in range(n + 1))
        scale = CORE_SECONDS_PER_UNIT[obj] / CORE_SECONDS_PER_UNIT[objective]
        disk = sum(level_bytes(GameSpec.parse(n, obj), k) for k in range(n + 1)) / 1e9
        cells = []
        for m, c in sizes:
            seconds = work * scale / (rate_per_core * m * c * efficiency)
            cells.append(
                f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"
            )
        rows.append(f"| {n} | {obj} | {work:.2e} | {disk:,.0f} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="11,12")
    ap.add_argument("--objective", default="points", choices=["points", "win"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--part-items", type=int, default=DEFAULT_PART_ITEMS)
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    tmp = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    print(f"# {cores} cores; LocalCluster of 1 and {cores} workers, one numba thread each")
    results = {}
    try:
        for n in (int(x) for x in args.n.split(",")):
            single, one, many = [], [], []
            for rep in range(args.repeats):
                game = GameSpec.parse(n, args.objective)
                for label, runs, fn in (
                    (
                        "single",
                        single,
                        lambda root, g=game: (timed(lambda: solve_into_store(g, root)), None),
                    ),
                    (
                        "1 worker",
                        one,
                        lambda root, n=n: cluster_run(n, args.objective, 1, root, args.part_items),
                    ),
                    (
                        f"{cores} workers",
                        many,
                        lambda root, n=n: cluster_run(
                            n, args.objective, cores, root, args.part_items
                        ),
                    ),
                ):
                    root = tmp / f"{label.replace(' ', '-')}-{n}-{rep}"
                    seconds, report = fn(root)
                    runs.append(seconds)
                    parts = sum(p for _, p, _, _ in report.levels) if report else 0
                    print(
                        f"# N={n} repeat {rep + 1}: {label:>10}: {seconds:8.2f} s"
                        + (f"  ({parts} parts)" if report else ""),
                        flush=True,
                    )
                    shutil.rmtree(root)
            results[n] = (
                statistics.median(single),
                statistics.median(one),
                statistics.median(many),
            )
        print(
            f"\n| N | single process s | 1 worker s | {cores} workers s | efficiency "
            f"| cluster / single | disk GB |"
        )
        print("|---|---|---|---|---|---|---|")
        for n, (s, o, m) in results.items():
            disk = estimate(GameSpec.parse(n, args.objective)).disk_bytes / 1e9
            print(
                f"| {n} | {s:.2f} | {o:.2f} | {m:.2f} | {o / (cores * m):.0%} | "
                f"{m / s:.2f} | {disk:.2f} |"
            )
        n_top = max(results)
        work = sum(level_work(GameSpec.parse(n_top, args.objective), k) for k in range(n_top + 1))
        rate = work / results[n_top][1]  # units per second of one core (1 worker, 1 thread)
        eff = min(1.0, results[n_top][1] / (cores * results[n_top][2]))
        model = 1 / CORE_SECONDS_PER_UNIT[args.objective]
        print(
            f"\nper-core rate at N={n_top}: {rate:.3e} units/s; the cost model's, fitted "
            f"on N = 13: {model:.3e} units/s (larger N cost more per unit), which the "
            f"projection uses, with the measured efficiency {eff:.0%}:"
        )
        print(
            projection(
                min(rate, model), eff, args.objective, [(1, 16), (4, 16), (16, 16), (64, 16)]
            )
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
