"""`gops serve` under load: cheap requests while expensive solves run, memory, errors.

    python benchmarks/bench_web_load.py [--clients 50] [--requests 20] [--spread 60]
                                        [--runs 3] [--deadline 180] [--seed 1]

Each run starts the real server (``gops serve --port 0``, default limits: a 2 GiB cache,
one solver thread, four queued solves) in a fresh process, then:

1. idle: every client makes 4 cheap requests over about 10 s (the baseline);
2. mixed: every client makes ``--requests`` requests spread over about ``--spread``
   seconds (random pauses), 15 % of them expensive (each waits in a thread of its own
   while the client goes on, as the page's requests do): tables that need a solve on the
   solver thread (points N = 10, win N = 8 and 9 at a lead, win N = 9 and N = 10 at
   lead 0), win N = 10 at a lead (refused: 400), and a strategy of N = 9 (points, a
   small solve made in the request's thread the first time).  Cheap: /api/info, the page
   and its script, tables N <= 6, strategies and positions of N = 5 and 6 (their games
   solved once before the baseline).

Every request is a fresh HTTP connection on 127.0.0.1 with a timeout at the deadline;
the run stops by itself at ``--deadline`` seconds (abandoned requests are counted).  It
prints, per run and as medians over the runs: p50/p99 of the cheap requests idle and while
an expensive request was in flight (client side), the server's peak RSS (VmHWM), the
answers by status (503: intended, the solver queue full; any other 5xx or a failed
connection is an error) and how long the server took to stop on SIGTERM.  The clients'
threads share one interpreter (their GIL adds to their latencies), so one more client, a
probe in a process of its own, asks for a cheap request every 0.2 s during the mixed
phase.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter

CHEAP = [
    "/api/info",
    "/",
    "/static/app.js",
    "/api/table?n=4",
    "/api/table?n=6",
    "/api/table?n=6&objective=win&lead=3",
    "/api/strategy?n=5&mine=1,3,5&theirs=2,4,5&deck=1,2,5&upcard=2",
    "/api/position?n=5&mine=1,3,5&theirs=2,4,5&deck=1,2,5&upcard=2",
    "/api/position?n=6&mine=2,6&theirs=1,5&deck=3,4&upcard=4&objective=win&lead=-2",
]
EXPENSIVE = [
    "/api/strategy?n=9&mine=1,3,5&theirs=2,4,5&deck=1,2,5&upcard=2",  # a small solve, once
    "/api/table?n=10",
    "/api/table?n=9&objective=win",
    "/api/table?n=10&objective=win",
    "/api/table?n=9&objective=win&lead={lead}",
    "/api/table?n=8&objective=win&lead={lead}",
    "/api/table?n=10&objective=win&lead={lead}",  # refused: 400
]
EXPENSIVE_SHARE = 0.15


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Run:
    """One server process and the clients' records: (kind, start, seconds, status)."""

    def __init__(self, deadline: float):
        self.end = time.monotonic() + deadline
        self.records: list[tuple[str, float, float, object]] = []
        self.expensive_in_flight = 0
        self.lock = threading.Lock()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "exact.cli", "serve", "--port", "0"],
            stderr=subprocess.PIPE,
            text=True,
        )
        t0 = time.perf_counter()
        line = self.proc.stderr.readline()
        self.startup = time.perf_counter() - t0
        self.base = line.split()[3].rstrip("/")  # gops: serving on URL
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()  # drain

    def get(self, path: str, kind: str):
        timeout = self.end - time.monotonic()
        if timeout <= 0:
            with self.lock:
                self.records.append((kind, 0.0, 0.0, "abandoned"))
            return
        expensive = kind == "expensive"
        with self.lock:
            during = self.expensive_in_flight > 0
            self.expensive_in_flight += expensive
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(self.base + path, timeout=timeout) as r:
                r.read()
                status: object = r.status
        except urllib.error.HTTPError as exc:
            exc.read()
            status = exc.code
        except TimeoutError:  # at the deadline
            status = "timed out"
        except OSError as exc:  # refused, reset
            status = f"failed: {type(exc).__name__}"
        seconds = time.perf_counter() - t0
        with self.lock:
            self.expensive_in_flight -= expensive
            label = "cheap-during" if kind == "cheap" and during else kind
            self.records.append((label, path, seconds, status))

    def peak_rss(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        return 0

    def stop(self) -> float:
        t0 = time.perf_counter()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return float("inf")
        return time.perf_counter() - t0


def client(run: Run, rng: random.Random, requests: int, spread: float):
    """A page's user: its expensive requests wait in the background (as the page's do)
    while it goes on with cheap ones."""
    waiting = []
    for _ in range(requests):
        time.sleep(rng.uniform(0, 2 * spread / requests))
        if rng.random() < EXPENSIVE_SHARE:
            path = rng.choice(EXPENSIVE).format(lead=rng.randint(1, 12))
            waiting.append(threading.Thread(target=run.get, args=(path, "expensive")))
            waiting[-1].start()
        else:
            run.get(rng.choice(CHEAP), "cheap")
    for t in waiting:
        t.join()


def idle_client(run: Run, rng: random.Random, requests: int = 4, spread: float = 10.0):
    """The baseline: the same pace as the mixed phase, cheap requests only."""
    for _ in range(requests):
        time.sleep(rng.uniform(0, 2 * spread / requests))
        run.get(rng.choice(CHEAP), "idle")


def probe(base: str, stop, results):
    """One more user, in a process of its own (no other client's threads), asking for a
    cheap request every 0.2 s during the mixed phase: milliseconds of those answered."""
    ms, paths = [], [p for p in CHEAP if p != "/api/info"]
    while not stop.is_set():
        for path in paths:
            t0 = time.perf_counter()
            try:
                with urllib.request.urlopen(base + path, timeout=60) as r:
                    r.read()
                ms.append(1000 * (time.perf_counter() - t0))
            except OSError:
                ms.append(float("inf"))
            time.sleep(0.2)
            if stop.is_set():
                break
    results.put(ms)


def one_run(args, seed: int) -> dict:
    run = Run(args.deadline)
    try:
        rng = random.Random(seed)
        for path in CHEAP:  # their small games solved and kept before the baseline
            run.get(path, "first")
        idle = [
            threading.Thread(target=idle_client, args=(run, random.Random(rng.random())))
            for _ in range(args.clients)
        ]
        for t in idle:
            t.start()
        for t in idle:
            t.join()
        t0 = time.perf_counter()
        results: multiprocessing.Queue = multiprocessing.Queue()
        stop_probe = multiprocessing.Event()
        probe_process = multiprocessing.Process(target=probe, args=(run.base, stop_probe, results))
        probe_process.start()
        clients = [
            threading.Thread(
                target=client, args=(run, random.Random(rng.random()), args.requests, args.spread)
            )
            for _ in range(args.clients)
        ]
        for t in clients:
            t.start()
        for t in clients:
            t.join(max(0.0, run.end - time.monotonic()) + 5)
        wall = time.perf_counter() - t0
        stop_probe.set()
        probed = results.get(timeout=60)
        probe_process.join(10)
        with urllib.request.urlopen(run.base + "/api/info", timeout=30) as r:
            solves = json.load(r)["solves"]
        peak = run.peak_rss()
    finally:
        stop = run.stop()
    with run.lock:
        records = list(run.records)
    ms = {
        kind: [1000 * s for k, _, s, st in records if k == kind and st == 200]
        for kind in ("idle", "cheap", "cheap-during")
    }
    statuses = Counter(str(st) for _, _, _, st in records)
    server_errors = sum(
        n for st, n in statuses.items() if st.isdigit() and int(st) >= 500 and st != "503"
    )
    failed = sum(n for st, n in statuses.items() if st.startswith("failed"))
    expensive = Counter(str(st) for k, _, _, st in records if k == "expensive")
    cheap_timed_out = sum(1 for k, _, _, st in records if k != "expensive" and st == "timed out")
    return {
        "startup s": run.startup,
        "mixed wall s": wall,
        "idle p50 ms": percentile(ms["idle"], 0.5),
        "idle p99 ms": percentile(ms["idle"], 0.99),
        "during p50 ms": percentile(ms["cheap-during"], 0.5),
        "during p99 ms": percentile(ms["cheap-during"], 0.99),
        "during n": len(ms["cheap-during"]),
        "probe p50 ms": percentile(probed, 0.5),
        "probe p99 ms": percentile(probed, 0.99),
        "probe n": len(probed),
        "cheap, none in flight p50 ms": percentile(ms["cheap"], 0.5),
        "peak RSS GiB": peak / 2**30,
        "solves": solves,
        "expensive 200": expensive["200"],
        "expensive 400": expensive["400"],
        "expensive timed out": expensive["timed out"],
        "cheap timed out": cheap_timed_out,
        "503": statuses["503"],
        "5xx but 503": server_errors,
        "failed": failed,
        "abandoned": statuses["abandoned"],
        "requests": len(records),
        "stop s": stop,
        "statuses": dict(statuses),
        "slowest": slowest(records),
    }


def slowest(records, count: int = 4) -> str:
    """The cheap paths with the largest p99 while an expensive request ran."""
    by_path: dict[str, list[float]] = {}
    for kind, path, seconds, status in records:
        if kind == "cheap-during" and status == 200:
            by_path.setdefault(path, []).append(1000 * seconds)
    worst = sorted(by_path.items(), key=lambda item: -percentile(item[1], 0.99))[:count]
    return "; ".join(
        f"{path} p50 {percentile(v, 0.5):.0f} p99 {percentile(v, 0.99):.0f} ms (n={len(v)})"
        for path, v in worst
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=20)
    ap.add_argument("--spread", type=float, default=60.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--deadline", type=float, default=180.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(
        f"# {args.clients} clients x {args.requests} requests over ~{args.spread:.0f} s, "
        f"{args.runs} run(s), deadline {args.deadline:.0f} s; "
        f"load before: {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    results = []
    for i in range(args.runs):
        result = one_run(args, args.seed + i)
        results.append(result)
        print(
            f"# run {i + 1}: statuses {result.pop('statuses')}; slowest cheap: "
            f"{result.pop('slowest')}",
            flush=True,
        )
    keys = list(results[0])
    print("| " + " | ".join(["run"] + keys) + " |")
    print("|" + "---|" * (len(keys) + 1))
    rows = [(str(i + 1), r) for i, r in enumerate(results)]
    rows.append(("median", {k: statistics.median(r[k] for r in results) for k in keys}))
    for label, r in rows:
        cells = [f"{r[k]:.2f}" if isinstance(r[k], float) else str(r[k]) for k in keys]
        print("| " + " | ".join([label] + cells) + " |")
    print(f"# load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
