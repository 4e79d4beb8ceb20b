"""How fast `gops serve` answers: a position of a solved N, and the page load.

    python benchmarks/bench_web.py [--n 10] [--requests 200] [--loads 7]

Starts the real server (uvicorn) on a free port, solves N once (the first request, timed
apart), then times ``/api/strategy`` and ``/api/position`` over random positions of that
N (fresh HTTP connections, as a browser tab makes them) and prints medians and the 90th
percentile.  With Chromium and chromedriver installed it also loads the page ``--loads``
times in headless Chromium and prints the median time to the load event (navigation
timing) and to the first mix drawn for a shared position link.  Targets (issue 15): a
position under 100 ms, the page under 1 s.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import socket
import statistics
import threading
import time
import urllib.parse
import urllib.request

import uvicorn

from exact.web.app import create_app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> float:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url) as response:
        json.load(response)
    return time.perf_counter() - t0


def random_position(n: int, rng: random.Random) -> dict:
    """A position after some rounds: both hands and the prizes of the same size k >= 2."""
    k = rng.randint(2, n)
    cards = list(range(1, n + 1))
    mine, theirs, deck = (sorted(rng.sample(cards, k)) for _ in range(3))
    return {
        "n": n,
        "mine": ",".join(map(str, mine)),
        "theirs": ",".join(map(str, theirs)),
        "deck": ",".join(map(str, deck)),
        "upcard": rng.choice(deck),
    }


def summary(label: str, seconds: list[float]) -> str:
    ms = sorted(1000 * s for s in seconds)
    p90 = ms[int(0.9 * (len(ms) - 1))]
    return f"{label:<28} median {statistics.median(ms):7.1f} ms   p90 {p90:7.1f} ms   (n={len(ms)})"


def page_loads(base: str, n: int, loads: int) -> list[str]:
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        return ["page load: skipped (no chromium and chromedriver)"]
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.binary_location = shutil.which("chromium")
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    load, mix = [], []
    try:
        link = f"{base}/#explore?n={n}&objective=points&mine=1,3,5&theirs=2,4,5&deck=1,2,5&upcard=2"
        for i in range(loads + 1):  # the first load warms the browser's own caches
            t0 = time.perf_counter()
            driver.get(link)
            driver.refresh()
            while not driver.find_elements(By.CSS_SELECTOR, "#mine-mix g"):
                time.sleep(0.005)
            drawn = time.perf_counter() - t0
            timing = driver.execute_script(
                "const t = performance.getEntriesByType('navigation')[0];"
                "return t.loadEventEnd - t.startTime;"
            )
            if i:
                load.append(timing / 1000)
                mix.append(drawn)
    finally:
        driver.quit()
    return [summary("page load event", load), summary("shared link to mix drawn", mix)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--loads", type=int, default=7)
    args = ap.parse_args()
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    try:
        rng = random.Random(1)
        first = get(f"{base}/api/table?n={args.n}")
        print(f"# N={args.n}: first request (solves the game) {first:.2f} s")
        lines = []
        for endpoint in ("strategy", "position"):
            times = [
                get(
                    f"{base}/api/{endpoint}?" + urllib.parse.urlencode(random_position(args.n, rng))
                )
                for _ in range(args.requests)
            ]
            lines.append(summary(f"/api/{endpoint} N={args.n}", times))
        lines += page_loads(base, 5, args.loads)
        print("\n".join(lines))
    finally:
        server.should_exit = True
        thread.join(timeout=10)


if __name__ == "__main__":
    main()
