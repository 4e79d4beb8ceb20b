"""Screenshots of the web page's three views for docs/web.md: docs/figures/web-*.png.

    python docs/screenshots.py [--out docs/figures]

Starts ``gops serve``'s app (uvicorn, a free port, in this process), opens each view in
headless Chromium through chromedriver (selenium; Debian's chromium and
chromium-driver), waits until the view shows the server's answer and saves a PNG:

    web-explore.png   Explore: a 5-card position, its mixes, payoff heat map, certificate
    web-line.png      Explore: a line of play stepped from the start (win objective)
    web-first.png     First move: the 5-card table beside the paper's Table 1
    web-play.png      Play: a finished 5-card game (lowest card each round) and its review
    web-phone.png     Play at phone width (390 px)
    web-hidden.png    Play: a finished 4-card game of hidden bids (1280 px), all revealed
    web-hidden-phone.png  the same at phone width (390 px)

The same seed and bids give the same game, so the pictures change only when the page does.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import threading
import time
from pathlib import Path

HERE = Path(__file__).parent


def serve():
    """The app on a free local port, in a daemon thread; (url, server)."""
    import uvicorn

    from exact.web.app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    )
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server


def browser(width: int = 1100, height: int = 900):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    path = next(
        filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None
    )
    if path is None or shutil.which("chromedriver") is None:
        raise SystemExit("screenshots.py: needs chromium and chromedriver on the PATH")
    options = Options()
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
        "--hide-scrollbars",
    ):
        options.add_argument(arg)
    options.binary_location = path
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


def wait(driver, condition, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = condition(driver)
        except Exception:  # an element redrawn under us: ask again
            value = None
        if value:
            return value
        time.sleep(0.1)
    raise SystemExit("screenshots.py: the page never got there")


def play_game(driver, url: str, n: int = 5, seed: int = 7):
    """A finished game of ``n`` cards (the lowest card each round), through the page."""
    from selenium.webdriver.common.by import By

    # the page starts a new game with a random seed; a fixed one keeps the picture stable
    driver.get(f"{url}/#play?n={n}&objective=points")
    driver.refresh()
    wait(driver, lambda d: d.find_element(By.ID, "new-game").is_displayed())
    driver.execute_script(
        "const real = window.fetch; window.fetch = (u, o) => real("
        f"String(u).startsWith('/api/game/new') ? u + '&seed={seed}' : u, o);"
    )
    driver.find_element(By.ID, "new-game").click()
    while not driver.find_element(By.ID, "review-box").is_displayed():
        cards = wait(
            driver,
            lambda d: (
                [b for b in d.find_elements(By.CSS_SELECTOR, "#hand button") if b.is_enabled()]
                or d.find_element(By.ID, "review-box").is_displayed()
            ),
        )
        if cards is True:
            break
        rows = len(driver.find_elements(By.CSS_SELECTOR, "#history tbody tr"))
        cards[0].click()
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#history tbody tr")) > rows)  # noqa: B023


def play_hidden(driver, url: str, seed: int = 3):
    """A finished 4-card game of hidden bids (descending; the lowest card each round)."""
    from selenium.webdriver.common.by import By

    driver.get(f"{url}/#play?n=4&objective=points&order=descending&variant=hidden&seed={seed}")
    driver.refresh()
    wait(driver, lambda d: d.find_element(By.ID, "new-game").is_displayed())
    driver.find_element(By.ID, "new-game").click()
    while not driver.find_element(By.ID, "outcome").text:
        cards = wait(
            driver,
            lambda d: (
                [b for b in d.find_elements(By.CSS_SELECTOR, "#hand button") if b.is_enabled()]
                or d.find_element(By.ID, "outcome").text
            ),
        )
        if isinstance(cards, str):
            break
        rows = len(driver.find_elements(By.CSS_SELECTOR, "#history tbody tr"))
        cards[0].click()
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#history tbody tr")) > rows)  # noqa: B023


#: The screenshots made (docs/figures/<name>.png), each shown in docs/web.md.
SHOTS = (
    "web-explore",
    "web-line",
    "web-first",
    "web-play",
    "web-phone",
    "web-hidden",
    "web-hidden-phone",
)


def shoot(out: Path) -> list[Path]:
    from selenium.webdriver.common.by import By

    url, server = serve()
    out.mkdir(parents=True, exist_ok=True)
    made = []
    driver = browser()
    try:

        def save(name):
            height = driver.execute_script("return document.body.scrollHeight")
            width = driver.execute_script("return window.innerWidth")  # outer: 500 at least
            driver.set_window_size(width, min(2400, height + 120))
            driver.execute_script("window.scrollTo(0, 0)")
            time.sleep(0.5)  # the cards' flip (0.35 s) is over
            path = out / f"web-{name}.png"
            driver.save_screenshot(str(path))
            made.append(path)

        driver.get(
            f"{url}/#explore?n=5&objective=points&mine=1,3,4,5&theirs=2,3,4,5&deck=1,2,4,5&upcard=4"
        )
        driver.refresh()
        wait(
            driver,
            lambda d: (
                d.find_element(By.ID, "result").is_displayed()
                and d.find_element(By.ID, "exact").get_attribute("value")
            ),
        )
        save("explore")
        driver.set_window_size(1100, 900)
        full = "1,2,3,4,5"
        driver.get(
            f"{url}/#explore?n=5&objective=win&lead=0&mine={full}&theirs={full}&deck={full}"
            "&line=5:5-4,3:1-2&upcard=4"
        )
        driver.refresh()
        wait(
            driver,
            lambda d: (
                d.find_element(By.ID, "result").is_displayed()
                and d.find_element(By.ID, "line").text
            ),
        )
        save("line")
        driver.set_window_size(1100, 900)
        driver.get(f"{url}/#first?n=5&objective=points")
        driver.refresh()
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#first-table td"))
        save("first")
        driver.set_window_size(1100, 900)
        play_game(driver, url)
        save("play")
        driver.set_window_size(390, 844)
        play_game(driver, url)
        save("phone")
        driver.set_window_size(1280, 900)
        play_hidden(driver, url)
        save("hidden")
        driver.set_window_size(390, 844)
        play_hidden(driver, url)
        save("hidden-phone")
    finally:
        driver.quit()
        server.should_exit = True
    return made


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "figures")
    for path in shoot(parser.parse_args().out):
        print(path)


if __name__ == "__main__":
    main()
