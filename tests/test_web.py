"""gops serve (exact/web): the JSON API against the command line's --json, bad input as
HTTP 400, one solve for concurrent requests, stores served, the server's start and stop,
and the page itself in a real headless Chromium (screenshots in tests/artifacts/)."""

import asyncio
import json
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.responses import JSONResponse

from exact.cli import main
from exact.game.spec import GameSpec
from exact.web.app import create_app
from test_paper import PAPER_DIGITS_TOL, TABLE_1  # Rhoads & Bartholdi 2012

testclient = pytest.importorskip("starlette.testclient")
ARTIFACTS = Path(__file__).parent / "artifacts"


@pytest.fixture(scope="module")
def client():
    return testclient.TestClient(create_app())


def cli_json(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def cli_error(*args) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 2
    return result.output.strip().removeprefix("gops: error: ")


POSITIONS = [
    dict(n=5, mine="1,3,5", theirs="2,4,5", deck="1,2,5", upcard=2),
    dict(n=6, mine="1,2,3,4,5,6", theirs="1,2,3,4,5,6", deck="1,2,3,4,5,6", upcard=6),
    dict(n=6, mine="2,6", theirs="1,5", deck="3,4", upcard=4, objective="win", lead=-2),
]


def strategy_args(q):
    args = [
        "strategy",
        "--mine",
        q["mine"],
        "--theirs",
        q["theirs"],
        "--deck",
        q["deck"],
        "--upcard",
        q["upcard"],
        "--n",
        q["n"],
        "--json",
    ]
    if "objective" in q:
        args += ["--objective", q["objective"], "--lead", q["lead"]]
    return args


#: Float answers against hand-derived exact values (a 2 x 2 game solved by hand).
HAND_TOL = 1e-12


def test_a_position_is_its_hand_derived_equilibrium(client):
    """Sec 3.1 of Rhoads & Bartholdi 2012 at N = 5: mine {2, 4}, theirs {1, 3}, prizes
    {4, 5} with the 5 up.  Winning both prizes is +9; 4 on 1 then 2 on 3 is 5 - 4 = +1; 2 on
    3 then 4 on 1 is -5 + 4 = -1: the matrix [[9, -1], [1, 9]] (rows my 2, 4; columns their
    1, 3), whose equilibrium (equalising) is p(2) = 4/9, p(4) = 5/9 for me, q(1) = 5/9,
    q(3) = 4/9 for them, value 41/9 (the paper's 12.52 with 12/25, 13/25 at prizes 12, 13)."""
    q = {"n": 5, "mine": "2,4", "theirs": "1,3", "deck": "4,5", "upcard": 5}
    got = client.get("/api/strategy", params=q).json()
    assert got["value"] == pytest.approx(41 / 9, abs=HAND_TOL)
    assert got["mine"] == {
        k: pytest.approx(v, abs=HAND_TOL) for k, v in {"2": 4 / 9, "4": 5 / 9}.items()
    }
    assert got["theirs"] == {
        k: pytest.approx(v, abs=HAND_TOL) for k, v in {"1": 5 / 9, "3": 4 / 9}.items()
    }
    exact_mix = client.get("/api/position", params=q).json()["exact"]
    assert (exact_mix["value"], exact_mix["mine"]) == ("41/9", {"2": "4/9", "4": "5/9"})


@pytest.mark.parametrize("query", POSITIONS, ids=["n5", "n6-start", "n6-win"])
def test_strategy_is_what_the_cli_prints(client, query):
    """The layout: byte for byte what the command line prints (the values are checked
    against independent references above and in test_the_first_move_is_the_papers_table_1)."""
    r = client.get("/api/strategy", params=query)
    assert r.status_code == 200
    printed = CliRunner().invoke(main, [str(a) for a in strategy_args(query)]).output
    assert r.text == printed.rstrip("\n")  # byte for byte


def test_the_first_move_is_the_papers_table_1(client):
    """/api/table at N = 5 against Rhoads & Bartholdi 2012, Table 1, to its four decimals."""
    table = client.get("/api/table", params={"n": 5}).json()["by_upcard"]
    for upcard in range(1, 6):
        for bid in range(1, 6):
            assert table[str(upcard)][bid - 1] == pytest.approx(
                TABLE_1[bid - 1][upcard - 1], abs=PAPER_DIGITS_TOL
            )


@pytest.mark.parametrize("args", [(5, "points", None), (6, "win", 3)])
def test_table_is_what_the_cli_prints(client, args):
    """The layout, as the strategy's; the values: test_the_first_move_is_the_papers_table_1."""
    n, objective, lead = args
    params = {"n": n, "objective": objective} | ({"lead": lead} if lead is not None else {})
    cli = ["table", n, "--json", "--quiet"] + (
        ["--objective", objective, "--lead", lead] if lead is not None else []
    )
    assert client.get("/api/table", params=params).json() == cli_json(*cli)


def test_position_adds_matrix_certificate_and_exact_mix(client):
    pos = client.get("/api/position", params=POSITIONS[0]).json()
    assert pos["rows"] == [1, 3, 5] and pos["columns"] == [2, 4, 5]
    # sec 3's recursion: entry = u sign(mine - theirs) + value of the child; bid 1 vs 2
    # on upcard 2 loses 2 points, then {3,5} vs {4,5} for prizes {1,5}
    assert pos["matrix"][0][0] == pytest.approx(-3.0, abs=1e-12)
    assert pos["certified"]["unique_and_enclosed"]
    assert pos["exact"]["mine"] == {"1": "2/3", "3": "1/3", "5": "0"}
    lo, hi = pos["certified"]["value"]
    assert lo <= -5 / 3 <= hi


BAD = [
    (
        {"n": 5, "mine": "1,1", "theirs": "2,3", "deck": "1,2", "upcard": 1},
        ["--mine", "1,1", "--theirs", "2,3", "--deck", "1,2", "--upcard", "1", "--n", "5"],
    ),
    (
        {"n": 5, "mine": "1,2", "theirs": "3", "deck": "1,2", "upcard": 1},
        ["--mine", "1,2", "--theirs", "3", "--deck", "1,2", "--upcard", "1", "--n", "5"],
    ),
    (
        {"n": 5, "mine": "1,9", "theirs": "2,3", "deck": "1,2", "upcard": 1},
        ["--mine", "1,9", "--theirs", "2,3", "--deck", "1,2", "--upcard", "1", "--n", "5"],
    ),
    (
        {"n": 5, "mine": "1,x", "theirs": "2,3", "deck": "1,2", "upcard": 1},
        ["--mine", "1,x", "--theirs", "2,3", "--deck", "1,2", "--upcard", "1", "--n", "5"],
    ),
]


@pytest.mark.parametrize("query,cli", BAD, ids=["repeated", "unequal", "beyond-n", "malformed"])
def test_impossible_positions_are_400_with_the_cli_message(client, query, cli):
    r = client.get("/api/strategy", params=query)
    assert r.status_code == 400
    message = r.json()["error"]
    assert message and "\n" not in message
    cli_message = cli_error("strategy", *cli)
    assert message in cli_message or cli_message.endswith(message), (message, cli_message)


@pytest.mark.parametrize(
    "path,params,fragment",
    [
        ("/api/table", {"n": 11}, "between 1 and 10 to solve on the fly"),
        ("/api/table", {"n": "abc"}, "n"),
        ("/api/table", {}, "missing query parameter 'n'"),
        ("/api/table", {"n": 4, "objective": "money"}, "unknown objective"),
        ("/api/table", {"n": 4, "lead": 2}, "--lead applies to --objective win only"),
        ("/api/table", {"n": 4, "objective": "win", "lead": 99}, "lead"),
        (
            "/api/strategy",
            {"n": 99999999999999999999, "mine": "1", "theirs": "1", "deck": "1", "upcard": 1},
            "N must be",
        ),
    ],
)
def test_bad_queries_are_400_never_a_crash(client, path, params, fragment):
    r = client.get(path, params=params)
    assert r.status_code == 400 and fragment in r.json()["error"]
    assert client.get("/api/info").status_code == 200  # still serving


#: Queries an endpoint must refuse, each with its one-line message (issue 36 item 10):
#: a bad value of a parameter it takes, a parameter it does not take, one given twice.
REFUSED = [
    ("/api/table", "n=5&order=sideways", "unknown prize order 'sideways' (choose from random, "),
    ("/api/table", "n=5&n=6", "query parameter 'n' is given 2 times: give it once"),
    ("/api/table", "n=5&variant=twelve", "no such query parameter 'variant' (/api/table takes "),
    ("/api/table", "n=5&colour=red", "no such query parameter 'colour' (/api/table takes "),
    ("/api/position", "n=3&mine=1&theirs=1&deck=1&upcard=1&order=descending", "'order'"),
    ("/api/info", "n=5", "no such query parameter 'n' (/api/info takes none)"),
    ("/api/game/new", "n=4&bid=1", "no such query parameter 'bid' (/api/game/new takes "),
]


@pytest.mark.parametrize("path, query, message", REFUSED)
def test_unknown_repeated_or_bad_parameters_are_400_with_one_line(client, path, query, message):
    r = client.get(f"{path}?{query}")
    assert r.status_code == 400 and message in r.json()["error"]
    assert "\n" not in r.json()["error"]


#: A valid query of each GET endpoint, into which HOSTILE puts one malformed value.
VALID = {
    "/api/strategy": "n=3&mine=1,2,3&theirs=1,2,3&deck=1,2,3&upcard=3",
    "/api/position": "n=3&mine=1,2,3&theirs=1,2,3&deck=1,2,3&upcard=3",
    "/api/line": "n=3&mine=1,2,3&theirs=1,2,3&deck=1,2,3&line=3:1-2",
    "/api/table": "n=3",
    "/api/game/new": "n=3&seed=1",
    "/api/game/bid": "n=3&seed=1&bid=1",
    "/api/game/prize": "n=3&seed=1&order=controlled-by-me&prize=1",
}
#: Malformed values, (name, value, what the one-line error says) as a hostile user types
#: them: bad, huge and empty numbers, unknown names, a repeated parameter; the cards and
#: the moves where the endpoint takes them.
HOSTILE = [
    ("n", "x", "n 'x' is not a whole number"),
    ("n", "5.0", "is not a whole number"),
    ("n", "", "n '' is not a whole number"),
    ("n", "0", "N must be between 1 and 16, got 0"),
    ("n", "99999999999999999999999999", "N must be between 1 and 16"),
    ("n", "9" * 5000, "has more than 4,000 digits"),
    ("n", "3&n=3", "query parameter 'n' is given 2 times"),
    ("objective", "draw", "unknown objective 'draw'"),
    ("objective", "", "unknown objective ''"),
    ("lead", "7&objective=win", "lead must be between -6 and 6"),
    ("colour", "red", "no such query parameter 'colour'"),
]
HOSTILE_CARDS = [
    ("mine", "0,1,2", "bad card '0'"),
    ("mine", "1,2,4", "card 4 is outside 1..3"),
    ("deck", "1,,2", "bad card '' is not a whole number"),
    ("upcard", "", "upcard '' is not a whole number"),
    ("upcard", "7", "upcard 7 is not in the deck"),
]
HOSTILE_MOVES = {
    "/api/line": [("line", "3:9-9", "cannot bid 9"), ("line", "x", "not upcard:mine-theirs")],
    "/api/table": [("order", "sideways", "unknown prize order 'sideways'")],
    "/api/game/new": [("order", "Random", "unknown prize order 'Random'")],
    "/api/game/bid": [
        ("bid", "99999999999999999999999", "you do not hold the 99999999999999999999999"),
        ("seed", "1e99", "seed '1e99' is not a whole number"),
        ("bids", "1,1", "card 1 appears more than once"),
    ],
    "/api/game/prize": [("prize", "0", "the 0 is not a prize left")],
}


def hostile_queries():
    for path, valid in VALID.items():
        cards = [c for c in HOSTILE_CARDS if f"{c[0]}=" in valid]
        for name, value, message in HOSTILE + cards + HOSTILE_MOVES.get(path, []):
            kept = "&".join(kv for kv in valid.split("&") if kv.split("=")[0] != name)
            yield pytest.param(path, f"{kept}&{name}={value}", message, id=f"{path}-{name}")


@pytest.mark.parametrize("path, query, message", list(hostile_queries()))
def test_every_endpoint_refuses_a_hostile_query_with_one_line(client, path, query, message):
    """Each GET endpoint answers a malformed value (HOSTILE) with HTTP 400 and the one
    line that names it: never a 5xx, a traceback or an answer to a query it misread."""
    r = client.get(f"{path}?{query}")
    assert r.status_code == 400, (r.status_code, r.text[:200])
    error = r.json()["error"]
    assert message in error and "\n" not in error and len(error) < 300, error


def test_the_table_and_the_strategy_take_the_order_as_the_cli_does(client):
    """/api/table and /api/strategy honour ``order`` (they ignored it, answering the random
    order): the descending table has one column, upcard 4, where bid 4 is certain."""
    table = client.get("/api/table", params={"n": 4, "order": "descending"}).json()
    assert table["order"] == "descending" and table["by_upcard"] == {"4": [0.0, 0.0, 0.0, 1.0]}
    assert table == cli_json("table", 4, "--order", "descending", "--json")
    position = {"n": 3, "mine": "1,2,3", "theirs": "1,2,3", "deck": "1,2,3", "upcard": 2}
    r = client.get("/api/strategy", params=position | {"order": "descending"})
    assert r.status_code == 400 and r.json()["error"] == cli_error(
        *strategy_args(position), "--order", "descending"
    )
    start = {"n": 5, "mine": "1,2,3,4,5", "theirs": "1,2,3,4,5", "deck": "1,2,3,4,5", "upcard": 1}
    chosen = client.get("/api/strategy", params=start | {"order": "controlled-by-me"}).json()
    # choosing the prizes is worth something (the random order's start is 0 by symmetry)
    assert chosen["value"] > 0.1
    assert chosen == cli_json(*strategy_args(start), "--order", "controlled-by-me")


def test_concurrent_requests_wait_for_one_solve():
    app = create_app()
    c = testclient.TestClient(app)
    codes = []
    threads = [
        threading.Thread(
            target=lambda: codes.append(c.get("/api/table", params={"n": 8}).status_code)
        )
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert codes == [200] * 4 and app.state.solutions.solves == 1


def test_a_store_is_served_beyond_the_on_the_fly_limit(tmp_path):
    from exact.dp.store import solve_into_store

    solve_into_store(GameSpec.parse(6, "win"), tmp_path / "s6")
    app = create_app([tmp_path / "s6"])
    c = testclient.TestClient(app)
    assert c.get("/api/info").json()["stores"] == [{"n": 6, "objective": "win"}]
    r = c.get("/api/table", params={"n": 6, "objective": "win"})
    assert r.status_code == 200 and app.state.solutions.solves == 0
    # It says it comes from the store: level 5 (6 prize sets x 21 record patterns of
    # pairs, identical hands included) re-derived here, levels 0..4 as stored.
    source = r.json()["source"]
    assert source["store"] == str(tmp_path / "s6") and source["level_read"] == 5
    assert source["unverified_levels"] == [0, 1, 2, 3, 4]
    assert source["largest_bound"] <= source["stored_radius"]
    assert source["text"].startswith(
        f"read from the store {tmp_path / 's6'}: the values of level 5"
    )
    cards = "1,2,3,4,5,6"
    r = c.get(
        "/api/strategy",
        params={
            "n": 6,
            "objective": "win",
            "mine": cards,
            "theirs": cards,
            "deck": cards,
            "upcard": 6,
        },
    )
    assert r.json()["source"]["level_read"] == 5
    assert "source" not in c.get("/api/table", params={"n": 5}).json()  # solved here
    result = CliRunner().invoke(main, ["serve", "--store", str(tmp_path / "nowhere")])
    assert result.exit_code == 2 and result.output.count("\n") == 1


def test_a_frontier_store_answers_below_its_levels_as_a_server_without_it(tmp_path, client):
    """Issue 47 item 2: a store made with --keep-from 3 (N = 6) holds levels 3..6 only.
    A position whose games read level 2 is answered by a solve on the fly, as by a server
    without the store (the same answer, no "source"); one that reads level 3 comes from
    the store; where no solve on the fly is made, the refusal says how to get it."""
    from exact.dp.store import solve_into_store

    solve_into_store(GameSpec.parse(6), tmp_path / "f6", keep_from=3)
    app = create_app([tmp_path / "f6"])
    c = testclient.TestClient(app)
    small = {"n": 6, "mine": "2,4,6", "theirs": "1,3,5", "deck": "1,5,6", "upcard": 5}
    for path in ("/api/strategy", "/api/position"):
        r = c.get(path, params=small)
        assert r.status_code == 200, r.text
        assert r.json() == client.get(path, params=small).json() and "source" not in r.json()
    assert app.state.solutions.solves == 1  # one solve answers both
    line = {"n": 6, "mine": "1,2,3,4", "theirs": "1,2,3,4", "deck": "3,4,5,6", "line": "6:4-1"}
    r = c.get("/api/line", params=line)  # reaches 3 prizes left: level 3 and 2 read
    assert r.status_code == 200 and r.json() == client.get("/api/line", params=line).json()
    large = small | {"mine": "1,2,4,6", "theirs": "1,3,5,6", "deck": "1,2,5,6"}
    source = c.get("/api/strategy", params=large).json()["source"]
    assert source["level_read"] == 3 and source["dropped_levels"] == [0, 1, 2]
    assert c.get("/api/table", params={"n": 6}).json()["source"]["level_read"] == 5
    assert app.state.solutions.solves == 1
    tight = testclient.TestClient(create_app([tmp_path / "f6"], cache_bytes=2**10))
    r = tight.get("/api/strategy", params=small)
    assert r.status_code == 400, r.text
    assert r.json()["error"].startswith(
        f"the store {tmp_path / 'f6'} keeps levels 3..6 only (--keep-from 3): it answers "
        "positions with at least 4 prizes left, and this request reads level 2; "
    )
    assert r.json()["error"].endswith(
        "`gops strategy` without --store answers any one position (it solves only the "
        "levels below it)"
    )
    assert tight.get("/api/strategy", params=large).status_code == 200


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_gops_serve_prints_the_url_and_stops_on_ctrl_c():
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from exact.cli import main; sys.argv[0] = 'gops'; main()",
            "serve",
            "--port",
            str(port),
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = proc.stderr.readline()
        assert f"http://127.0.0.1:{port}/" in url
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/info") as r:
                    assert json.load(r)["solve_max_n"] == 10
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the server never answered")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
        assert "Traceback" not in proc.stderr.read()
    finally:
        proc.kill()


# -- the page in a real browser ------------------------------------------------------------


def chromium():
    for browser in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(browser)
        if path and shutil.which("chromedriver"):
            return path
    return None


def serve(app):
    """Serve ``app`` on a free local port in a thread; yields its URL, then stops it."""
    uvicorn = pytest.importorskip("uvicorn")
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(100):
        if server.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def page_server():
    yield from serve(create_app())


@pytest.fixture(scope="module")
def browser():
    path = chromium()
    if path is None:
        pytest.skip("no Chromium and chromedriver here (.ci/run installs Debian's)")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=1200,1000",
    ):
        options.add_argument(arg)
    options.binary_location = path
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    ARTIFACTS.mkdir(exist_ok=True)
    yield driver
    driver.quit()


def load(browser, url: str) -> None:
    """``url`` loaded afresh: from a blank page, so that a link differing from the page
    shown only in its hash is a full load (``get`` alone would only change the hash), with
    no ``refresh`` to race the page's own navigation (Chromium under load aborted one:
    "aborted by navigation")."""
    browser.get("about:blank")
    browser.get(url)


#: Console errors a test may cause on purpose: an API answer of HTTP 400 (bad input,
#: shown on the page) is logged by the browser as a failed resource.
EXPECTED_CONSOLE = ("/api/position", "/api/strategy", "/api/table", "/api/game/")


@pytest.fixture(autouse=True)
def no_console_errors(request):
    """Every test of the page fails on a JavaScript error or a failed load (a 404 of the
    favicon included) in the browser's console."""
    if "browser" not in request.fixturenames:
        yield
        return
    driver = request.getfixturevalue("browser")
    driver.get_log("browser")  # what earlier tests left
    yield
    errors = [
        e
        for e in driver.get_log("browser")
        if e["level"] == "SEVERE"
        and not (
            e.get("source") == "network"
            and " 400 " in e["message"]
            and any(path in e["message"] for path in EXPECTED_CONSOLE)
        )
    ]
    assert not errors, errors


def click_bids(browser, rounds: int, pick) -> None:
    """Play ``rounds`` rounds on the Play tab by clicking the card ``pick(buttons)`` of the
    enabled hand buttons, each time waiting for the history to grow by the round."""
    from selenium.webdriver.common.by import By

    for _ in range(rounds):
        buttons = wait_for(
            browser,
            lambda d: [
                b for b in d.find_elements(By.CSS_SELECTOR, "#hand button") if b.is_enabled()
            ],
        )
        rows = len(browser.find_elements(By.CSS_SELECTOR, "#history tbody tr"))
        pick(buttons).click()
        wait_for(
            browser,
            lambda d, rows=rows: len(d.find_elements(By.CSS_SELECTOR, "#history tbody tr")) > rows,
        )


def wait_for(driver, condition, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition(driver)
        if value:
            return value
        time.sleep(0.1)
    driver.save_screenshot(str(ARTIFACTS / "timeout.png"))
    pytest.fail("the page never got there (tests/artifacts/timeout.png)")


def test_page_shows_the_mix_the_api_returns(page_server, browser, client):
    from selenium.webdriver.common.by import By

    browser.get(f"{page_server}/#explore?n=5&objective=points")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#mine-cards button"))
    # pick mine {1,3,5}, theirs {2,4,5}, prizes {1,2,5}, upcard 2 by clicking cards
    for role, drop in (("mine", (2, 4)), ("theirs", (1, 3)), ("deck", (3, 4))):
        for card in drop:
            browser.find_element(
                By.CSS_SELECTOR, f'button[data-role="{role}"][data-card="{card}"]'
            ).click()
    browser.find_element(By.CSS_SELECTOR, 'button[data-role="upcard"][data-card="2"]').click()
    browser.find_element(By.ID, "solve").click()
    # Read the drawn bars in one script call: element handles go stale if the chart is
    # redrawn between finding and reading them.  The chart first shows the position before
    # the clicks (its own mix): wait until it shows the API's mix of the clicked position.
    api = client.get("/api/strategy", params=POSITIONS[0]).json()

    def shown(d):
        mix = d.execute_script(
            "const bars = document.querySelectorAll('#mine-mix g');"
            "return bars.length ? Object.fromEntries([...bars].map("
            "(g) => [g.dataset.card, Number(g.dataset.p)])) : null;"
        )
        return mix if mix == api["mine"] else None

    assert wait_for(browser, shown) == api["mine"]
    assert "mine=1,3,5" in browser.current_url and "upcard=2" in browser.current_url
    assert "2/3" in browser.find_element(By.ID, "exact").get_attribute("value")
    browser.save_screenshot(str(ARTIFACTS / "explore.png"))


def test_play_a_whole_4_card_game_by_clicking(page_server, browser):
    from selenium.webdriver.common.by import By

    load(browser, f"{page_server}/#play?n=4&objective=points")
    wait_for(browser, lambda d: d.find_element(By.ID, "new-game").is_displayed())
    browser.find_element(By.ID, "new-game").click()
    click_bids(browser, 3, lambda buttons: buttons[0])  # the fourth card plays itself
    outcome = wait_for(browser, lambda d: d.find_element(By.ID, "outcome").text)
    assert outcome.startswith("Game over")
    rows = browser.find_elements(By.CSS_SELECTOR, "#history tbody tr")
    assert len(rows) == 4
    cells = [[td.text for td in r.find_elements(By.TAG_NAME, "td")] for r in rows]
    assert sorted(int(c[1]) for c in cells) == [1, 2, 3, 4]  # every prize once
    assert sorted(int(c[2]) for c in cells) == [1, 2, 3, 4]  # I bid each card once
    assert sorted(int(c[3]) for c in cells) == [1, 2, 3, 4]  # so did the computer
    me = sum(int(c[1]) for c in cells if c[4] == "you")
    assert browser.find_element(By.ID, "score-me").text == str(me)
    browser.find_element(By.ID, "reveal").click()
    assert "its mix" in browser.find_element(By.ID, "revealed").text
    browser.save_screenshot(str(ARTIFACTS / "play.png"))


def test_play_a_whole_twelve_round_game_by_clicking(page_server, browser):
    """The variant menu on Play: a twelve-round game of N = 5 played by clicking (aces out:
    you hold 2..5; four rounds, the last plays itself), the leftover prize stated at the
    end, the order held at shuffled, and no review (said so, not faked)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    load(browser, f"{page_server}/#play?n=5&objective=points")
    wait_for(browser, lambda d: d.find_element(By.ID, "variant").is_displayed())
    menu = Select(browser.find_element(By.ID, "variant"))
    dummy = browser.find_element(By.CSS_SELECTOR, '#variant option[value="dummy"]')
    assert dummy.is_enabled()  # N = 5 is within the dummy's N <= 6
    menu.select_by_value("twelve")
    assert not browser.find_element(By.ID, "order").is_enabled()  # shuffled prizes only
    win = browser.find_element(By.CSS_SELECTOR, '#objective option[value="win"]')
    assert not win.is_enabled()  # points only
    browser.find_element(By.ID, "new-game").click()
    rules = wait_for(browser, lambda d: d.find_element(By.ID, "variant-rules").text)
    assert "aces are out" in rules
    assert "variant=twelve" in browser.current_url
    hand = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#hand button")]
    assert hand == ["2", "3", "4", "5"]
    click_bids(browser, 3, lambda buttons: buttons[-1])  # the fourth card plays itself
    outcome = wait_for(browser, lambda d: d.find_element(By.ID, "outcome").text)
    assert outcome.startswith("Game over")
    rows = browser.find_elements(By.CSS_SELECTOR, "#history tbody tr")
    cells = [[td.text for td in r.find_elements(By.TAG_NAME, "td")] for r in rows]
    assert len(cells) == 4 and all(len(c) == 5 for c in cells)  # no dummy column
    assert sorted(int(c[2]) for c in cells) == [2, 3, 4, 5]
    assert sorted(int(c[3]) for c in cells) == [2, 3, 4, 5]
    prizes = [int(c[1]) for c in cells]
    (leftover,) = set(range(1, 6)) - set(prizes)
    assert browser.find_element(By.ID, "leftover").text == (
        f"The {leftover} was left over: it is never bid on and scores for nobody."
    )
    me = sum(int(c[1]) for c in cells if c[4] == "you")
    them = sum(int(c[1]) for c in cells if c[4] == "computer")
    assert browser.find_element(By.ID, "score-me").text == str(me)
    assert browser.find_element(By.ID, "score-them").text == str(them)
    assert not browser.find_element(By.ID, "review-box").is_displayed()
    assert "standard game only" in browser.find_element(By.ID, "review-note").text
    browser.save_screenshot(str(ARTIFACTS / "play-twelve.png"))


def test_an_impossible_position_shows_the_one_line_error(page_server, browser, client):
    from selenium.webdriver.common.by import By

    link = "#explore?n=5&objective=points&mine=1,2&theirs=3&deck=1,2&upcard=1"
    load(browser, f"{page_server}/{link}")
    error = wait_for(browser, lambda d: d.find_element(By.ID, "error").text)
    api = client.get("/api/strategy", params=BAD[1][0]).json()["error"]
    assert error == api and not error.startswith("gops")  # the line, not the CLI prefix
    browser.save_screenshot(str(ARTIFACTS / "error.png"))


def test_first_move_heatmap_beside_the_papers_table_1(page_server, browser):
    from selenium.webdriver.common.by import By

    load(browser, f"{page_server}/#first?n=5&objective=points")
    cell = wait_for(
        browser,
        lambda d: d.find_elements(
            By.CSS_SELECTOR, '#first-table td[data-bid="1"][data-upcard="1"]'
        ),
    )[0]
    assert cell.text == "0.0470"  # the paper's 0.0470 (Table 1)
    assert browser.find_element(By.ID, "paper-box").is_displayed()
    browser.save_screenshot(str(ARTIFACTS / "first-move.png"))


# -- the game: played by the server (exact.play.engine), the page only draws it ------------


def play_through_api(client, params, choose=min):
    """A whole game through /api/game: each round the card ``choose`` picks from your hand."""
    game = client.get("/api/game/new", params=params).json()
    while game["awaiting"] == "bid":
        r = client.get("/api/game/bid", params=game["state"] | {"bid": choose(game["your_cards"])})
        assert r.status_code == 200, r.text
        game = r.json()
    return game


#: Whole 3-card games in the descending order (the prizes 3, 2, 1) with fixed bids, scored
#: by hand.  The computer's bids are forced: on the 3 with all three cards left it bids 3
#: (``gops strategy --n 3 --order descending`` on the full hands: the 3 with probability
#: 1), and once both hold the same two cards a < b with the prizes u > r to come it bids b
#: (my bid a against its b loses u and wins r, b against a wins u and loses r, equal bids
#: tie both: the matrix [[0, r - u], [u - r, 0]], whose second row and column dominate).
#: Rows: your bids; each round (prize, you, computer, its winner); the final score
#: (you, computer), each side's prizes won and the game's winner.  A tie discards the
#: prize: it scores for nobody.
HAND_SCORED_GAMES = [
    (
        [3, 1, 2],
        [(3, 3, 3, "nobody"), (2, 1, 2, "computer"), (1, 2, 1, "you")],
        (1, 2),
        {"you": [1], "computer": [2]},
        "computer",
    ),
    (
        [3, 2, 1],
        [(3, 3, 3, "nobody"), (2, 2, 2, "nobody"), (1, 1, 1, "nobody")],
        (0, 0),
        {"you": [], "computer": []},
        "nobody",
    ),
]


@pytest.mark.parametrize("seed", [1, 7])
@pytest.mark.parametrize("bids, rounds, score, won, winner", HAND_SCORED_GAMES)
def test_a_game_through_the_api_is_scored_by_the_rules(
    client, seed, bids, rounds, score, won, winner
):
    """A whole game through /api/game with fixed bids is the game scored by hand
    (HAND_SCORED_GAMES): each round's prize, both bids and its winner, a tied round
    scoring for nobody, the final score, the prizes each side won and the game's winner
    (a tied game won by nobody).  The last card plays itself.  The seed changes nothing:
    the order is fixed and the computer's bids are pure."""
    game = client.get("/api/game/new", params={"n": 3, "seed": seed, "order": "descending"}).json()
    for bid in bids[:-1]:
        assert game["awaiting"] == "bid" and bid in game["your_cards"]
        r = client.get("/api/game/bid", params=game["state"] | {"bid": bid})
        assert r.status_code == 200, r.text
        game = r.json()
    assert game["awaiting"] == "over"
    assert [(r["prize"], r["you"], r["computer"], r["winner"]) for r in game["history"]] == rounds
    assert (game["score"]["you"], game["score"]["computer"]) == score
    assert game["won"] == won and game["winner"] == winner


def test_same_seed_same_computer_bids(client):
    first = play_through_api(client, {"n": 6, "seed": 41}, choose=max)
    again = play_through_api(client, {"n": 6, "seed": 41}, choose=max)
    assert first == again
    assert sorted(r["computer"] for r in first["history"]) == [1, 2, 3, 4, 5, 6]
    other = [
        play_through_api(client, {"n": 6, "seed": s}, choose=max)["history"] for s in (42, 43, 44)
    ]
    assert any(h != first["history"] for h in other)
    # the state is the whole game: the same query answers the same game
    state = first["state"]
    assert state["bids"] == "6,5,4,3,2" and state["seed"] == 41
    assert client.get("/api/game/new", params={"n": 6}).json()["seed"] in range(10**6)


@pytest.mark.parametrize(
    "params, fragment",
    [
        ({"n": 4, "seed": 1, "bid": 9}, "you do not hold the 9; your cards are 1 2 3 4"),
        ({"n": 4, "seed": 1, "bids": "1,2", "bid": 1}, "you do not hold the 1; your cards are 3 4"),
        ({"n": 4, "seed": 1, "bids": "1,2,3", "bid": 4}, "the game is over: 4 rounds were played"),
        ({"n": 4, "seed": 1, "bids": "1,1", "bid": 2}, "card 1 appears more than once"),
        ({"n": 4, "seed": 1, "bid": "x"}, "bid 'x' is not a whole number"),
        ({"n": 4, "seed": 1}, "missing query parameter 'bid'"),
        ({"n": 4, "order": "sorted", "bid": 1}, "unknown prize order 'sorted'"),
        ({"n": 4, "lead": 2, "bid": 1}, "--lead applies to --objective win only"),
        ({"n": 4, "objective": "win", "lead": 11, "bid": 1}, "the lead must be between -10 and 10"),
        ({"n": 11, "bid": 1}, "between 1 and 10 to solve on the fly"),
        ({"n": 4, "order": "controlled-by-me", "bid": 1}, "choose the prize of round 1"),
    ],
)
def test_an_illegal_move_is_400_with_a_one_line_error(client, params, fragment):
    r = client.get("/api/game/bid", params=params)
    assert r.status_code == 400
    error = r.json()["error"]
    assert fragment in error and "\n" not in error


def test_you_choose_the_prizes_through_the_api(client):
    game = client.get(
        "/api/game/new", params={"n": 4, "seed": 2, "order": "controlled-by-me"}
    ).json()
    assert game["awaiting"] == "prize" and game["choices"] == [1, 2, 3, 4]
    for prize, bid in ((3, 1), (4, 2), (1, 3)):
        game = client.get("/api/game/prize", params=game["state"] | {"prize": prize}).json()
        assert game["upcard"] == prize and game["awaiting"] == "bid"
        game = client.get("/api/game/bid", params=game["state"] | {"bid": bid}).json()
    assert game["awaiting"] == "over" and [r["prize"] for r in game["history"]] == [3, 4, 1, 2]
    assert game["state"]["prizes"] == "3,4,1" and game["state"]["bids"] == "1,2,3"
    r = client.get("/api/game/prize", params=game["state"] | {"prize": 2})
    assert r.status_code == 400 and "the game is over" in r.json()["error"]


@pytest.mark.parametrize(
    "order", ["random", "ascending", "descending", "controlled-by-me", "controlled-by-them"]
)
def test_every_prize_order_is_the_engines_game(client, order):
    """A game of each prize order through the API (you choose the largest prize left when
    you choose) is the engine's game of the same seed and moves, against the optimal bot
    of the game as the computer sees it (who chooses mirrored)."""
    import exact
    from exact.play.engine import Game, optimal_bot

    n, seed = 5, 8
    game = client.get("/api/game/new", params={"n": n, "seed": seed, "order": order}).json()
    assert game["order"] == order
    while game["awaiting"] != "over":
        if game["awaiting"] == "prize":
            assert game["chooser"] == "me" and game["choices"] == game["prizes_left"]
            move = ("prize", max(game["choices"]))
        else:
            move = ("bid", min(game["your_cards"]))
        r = client.get(f"/api/game/{move[0]}", params=game["state"] | {move[0]: move[1]})
        assert r.status_code == 200, r.text
        game = r.json()
    prizes = [r["prize"] for r in game["history"]]
    if order in ("ascending", "controlled-by-me"):  # I chose the largest: 5 4 3 2 1
        assert prizes == (sorted(prizes) if order == "ascending" else sorted(prizes)[::-1])
    if order == "descending":
        assert prizes == [5, 4, 3, 2, 1]
    seen = GameSpec.parse(n, order=order).mirrored()
    engine = Game(n, [optimal_bot(exact.solve(n, order=seen.order.name))], order=order, seed=seed)
    engine.replay(
        [r["you"] for r in game["history"]][:-1],
        [int(p) for p in game["state"]["prizes"].split(",") if p],
    )
    assert [(r.prize, *r.bids) for r in engine.history] == [
        (r["prize"], r["you"], r["computer"]) for r in game["history"]
    ]
    assert (game["score"]["you"], game["score"]["computer"]) == engine.points
    assert len(game["review"]["rounds"]) == n


# -- the variants on Play: twelve rounds (aces out) and a random dummy -------------------------


def play_variant(client, params, choose):
    """A whole variant game through /api/game: each round ``choose(game)`` picks your bid;
    every answer's state carries the variant."""
    game = client.get("/api/game/new", params=params).json()
    while game["awaiting"] == "bid":
        assert game["state"]["variant"] == params["variant"]
        r = client.get("/api/game/bid", params=game["state"] | {"bid": choose(game)})
        assert r.status_code == 200, r.text
        game = r.json()
    return game


def engine_variant_game(variant, n, seed, bids):
    """The engine's game of the same seed and bids against the variant's optimal bot."""
    from exact.play.bots import VariantOptimalBot, solution_for
    from exact.play.engine import Game

    bot = VariantOptimalBot(solution_for(GameSpec.parse(n), variant=variant))
    game = Game(n, [bot], variant=variant, seed=seed)
    game.replay(bids[:-1])  # the last card plays itself
    return game


def dummy_scores(prize, bids):
    """The dummy variant's rules, written out: the high bid takes the prize; a tie for the
    high bid splits it between the tied bidders (the dummy too); a three-way tie
    discards it.  Points of (you, computer, dummy)."""
    top = max(bids)
    tied = [i for i, b in enumerate(bids) if b == top]
    if len(tied) == 3:
        return (0, 0, 0)
    return tuple(prize / len(tied) if i in tied else 0 for i in range(3))


@pytest.mark.parametrize(
    "variant, n, seed",
    # twelve N = 6 is solved by the solver thread (beyond VARIANT_INLINE_MAX_N)
    [("twelve", 5, 12), ("twelve", 6, 3), ("dummy", 4, 7), ("dummy", 5, 2)],
)
def test_a_variant_game_through_the_api_is_the_engines_game(client, variant, n, seed):
    """A whole variant game via the API is the engine's game of the same seed and bids
    against the variant's equilibrium: the prizes, every bid (the dummy's too), each
    round's points, the score, the winner and the leftover prize."""
    choose = lambda g: g["your_cards"][g["round"] % len(g["your_cards"])]  # noqa: E731
    played = play_variant(client, {"n": n, "seed": seed, "variant": variant}, choose)
    bids = [r["you"] for r in played["history"]]
    engine = engine_variant_game(variant, n, seed, bids)
    assert engine.over and played["awaiting"] == "over"
    assert played["variant"] == variant and played["rounds"] == engine.rounds
    assert [(r["prize"], r["you"], r["computer"], r.get("dummy")) for r in played["history"]] == [
        (r.prize, *r.bids, r.dummy_bid) for r in engine.history
    ]
    names = ("you", "computer", "dummy")
    assert tuple(played["score"][k] for k in names[: len(engine.points)]) == engine.points
    assert played["winner"] == {0: "you", 1: "computer", None: "nobody"}[engine.winner]
    assert played.get("leftover") == engine.leftover
    assert "review" not in played and "standard game only" in played["review_text"]


@pytest.mark.parametrize("seed", range(1, 7))
def test_the_twelve_round_game_scores_by_its_rules(client, seed):
    """Twelve rounds: n - 1 rounds, no ace in either hand, the higher bid takes the prize
    (a tie discards it), and the one prize never turned up is left over."""
    n = 5
    played = play_variant(
        client, {"n": n, "seed": seed, "variant": "twelve"}, lambda g: max(g["your_cards"])
    )
    history = played["history"]
    assert played["rounds"] == len(history) == n - 1
    assert (
        sorted(r["you"] for r in history) == sorted(r["computer"] for r in history) == [2, 3, 4, 5]
    )
    prizes = [r["prize"] for r in history]
    assert sorted(prizes + [played["leftover"]]) == list(range(1, n + 1))
    assert played["prizes_to_come"] == [] and played["prizes_left"] == [played["leftover"]]
    for who, other in (("you", "computer"), ("computer", "you")):
        won = [r["prize"] for r in history if r[who] > r[other]]
        assert played["score"][who] == sum(won)
        assert sorted(played["won"][who]) == sorted(won)


def test_the_dummy_game_scores_by_its_rules_half_points_on_a_tie(client):
    """With the dummy: each round scored by the rules (a tie for the high bid split, the
    dummy included; three-way discarded), the scores their sums, the dummy's suit played
    once, and over these games some prize split (so the half points are tested)."""
    split = 0
    for seed in range(1, 9):
        played = play_variant(
            client, {"n": 4, "seed": seed, "variant": "dummy"}, lambda g: min(g["your_cards"])
        )
        history = played["history"]
        assert sorted(r["dummy"] for r in history) == [1, 2, 3, 4]
        totals = [0, 0, 0]
        for r in history:
            want = dummy_scores(r["prize"], (r["you"], r["computer"], r["dummy"]))
            assert tuple(r["points"][k] for k in ("you", "computer", "dummy")) == want
            totals = [t + w for t, w in zip(totals, want)]
            split += sum(1 for w in want if w) > 1
        assert [played["score"][k] for k in ("you", "computer", "dummy")] == totals
        assert played["dummy_cards"] == []
    assert split > 0


@pytest.mark.parametrize(
    "params, cli",
    [
        ({"variant": "twelve", "objective": "win"}, ["--variant", "twelve", "--objective", "win"]),
        (
            {"variant": "dummy", "objective": "win", "lead": 3},
            ["--variant", "dummy", "--objective", "win", "--lead", 3],
        ),
        ({"variant": "twelve", "lead": 2}, ["--variant", "twelve", "--lead", 2]),
        (
            {"variant": "twelve", "order": "ascending"},
            ["--variant", "twelve", "--order", "ascending"],
        ),
        (
            {"variant": "dummy", "order": "controlled-by-me"},
            ["--variant", "dummy", "--order", "controlled-by-me"],
        ),
        ({"variant": "twelve", "n": 10}, "N must be between 1 and 9 in the twelve variant"),
        ({"variant": "twelve", "n": 1}, "the twelve variant needs N >= 2"),
        ({"variant": "dummy", "n": 7}, "N must be between 1 and 6 in the dummy variant"),
    ],
)
def test_a_bad_variant_game_is_400_with_the_clis_one_line(client, params, cli):
    """A variant with the win objective, a lead, a known or chosen order: HTTP 400 with
    exactly the line gops play prints; N beyond the variant's limit: the variant solver's
    line (the limit gops play applies, said without the command's name); on new and bid."""
    params = dict(params)
    n = params.pop("n", 4)
    want = cli if isinstance(cli, str) else cli_error("play", n, *cli)
    for path, extra in (("new", {}), ("bid", {"bid": 2})):
        r = client.get(f"/api/game/{path}", params={"n": n, **params, **extra})
        assert r.status_code == 400 and "\n" not in want
        error = r.json()["error"]
        assert error == want if not isinstance(cli, str) else error.startswith(want)
    r = client.get("/api/game/new", params={"n": 4, "variant": "four"})
    assert r.status_code == 400 and r.json()["error"].startswith("unknown variant 'four'")


def test_a_head_start_counts_and_the_computer_plays_for_it(client):
    """The win objective with a head start: the score starts at it, the winner is decided
    with it, and the computer's mixes are those of the every-lead solution at the lead of
    each round (its own lead: minus mine)."""
    import exact
    from exact.play.engine import Game, optimal_bot

    n, seed, lead = 5, 3, -4
    params = {"n": n, "seed": seed, "objective": "win", "lead": lead}
    start = client.get("/api/game/new", params=params).json()
    assert start["score"] == {"you": 0, "computer": 4} and start["lead"] == lead
    assert start["state"]["lead"] == lead
    game = play_through_api(client, params, choose=max)
    sol = exact.solve(n, objective="win", handicap=15)
    engine = Game(n, [optimal_bot(sol)], seed=seed, lead=lead)
    engine.replay([r["you"] for r in game["history"]][:-1])
    assert [r.bids for r in engine.history] == [(r["you"], r["computer"]) for r in game["history"]]
    assert (game["score"]["you"], game["score"]["computer"]) == engine.points
    assert game["score"]["computer"] == 4 + sum(game["won"]["computer"])
    assert game["winner"] == {0: "you", 1: "computer", None: "nobody"}[engine.winner]
    # the computer's mix in round 1 is the equilibrium at its lead +4
    cards = set(range(1, n + 1))
    first = game["history"][0]
    mix = sol.strategy(cards, cards, cards, first["prize"], -lead).mine
    assert first["mix"] == {str(c): pytest.approx(float(p), abs=1e-12) for c, p in mix.items()}
    assert len(game["review"]["rounds"]) == n


# -- one parser of a query's game, one cache keyed on it ----------------------------------


class FakeRequest:
    def __init__(self, **params):
        self.query_params = {k: str(v) for k, v in params.items()}


@pytest.mark.parametrize(
    "params, game, lead, want",
    [
        ({"n": 5}, False, None, GameSpec.parse(5)),
        ({"n": 5, "objective": "win"}, False, 0, GameSpec.parse(5, "win")),
        ({"n": 5, "objective": "win", "lead": -3}, False, -3, GameSpec.parse(5, "win")),
        # only a game takes an order; the other endpoints answer the random order, as before
        ({"n": 5, "order": "descending"}, False, None, GameSpec.parse(5)),
        ({"n": 5, "order": "descending"}, True, None, GameSpec.parse(5, order="descending")),
        (
            {"n": 5, "objective": "win", "order": "controlled-by-me"},
            True,
            0,
            GameSpec.parse(5, "win", "controlled-by-me"),
        ),
    ],
)
def test_a_query_is_parsed_once_into_a_gamespec(params, game, lead, want):
    from exact.web.query import game_query

    assert game_query(FakeRequest(**params), with_order=game) == (want, lead)


def test_the_cache_is_keyed_on_the_gamespec():
    """The table, the strategy of a position and a game of one game share one solution;
    another order, objective or arithmetic is another entry."""
    app = create_app()
    c, solutions = testclient.TestClient(app), app.state.solutions
    cards = "1,2,3,4"
    assert c.get("/api/table", params={"n": 4}).status_code == 200
    assert (
        c.get(
            "/api/strategy",
            params={"n": 4, "mine": cards, "theirs": cards, "deck": cards, "upcard": 2},
        ).status_code
        == 200
    )
    assert c.get("/api/game/new", params={"n": 4, "seed": 1}).status_code == 200
    assert list(solutions._cache) == [GameSpec.parse(4)] and solutions.solves == 1
    # the computer chooses the prizes in the game in which you choose them: its own game
    assert c.get("/api/game/new", params={"n": 4, "order": "controlled-by-me"}).status_code == 200
    assert c.get("/api/table", params={"n": 4, "objective": "win", "lead": 1}).status_code == 200
    assert list(solutions._cache) == [
        GameSpec.parse(4),
        GameSpec.parse(4, order="controlled-by-them"),
        GameSpec.parse(4, "win", handicap=10),
    ]
    # lead 0 of the win game: answered by the every-lead solution, no new solve
    assert c.get("/api/table", params={"n": 4, "objective": "win"}).status_code == 200
    assert solutions.solves == 3


def test_a_variants_solution_is_weighed_in_the_same_cache(monkeypatch):
    """A solved variant is kept in the byte-bounded LRU cache beside the standard games,
    weighed by VariantSolution.memory_bytes: it is used again while it fits, dropped when
    the cache needs its room, and never kept when it alone is larger than the cache."""
    import exact
    from exact.dp import variant_solver
    from exact.game.variants import VARIANTS
    from exact.web.cache import solution_bytes
    from exact.web.solutions import VariantKey

    calls = []
    real = variant_solver.solve_variant

    def counted(variant, n, arithmetic, progress=None):
        calls.append((variant, n))
        return real(variant, n, arithmetic, progress=progress)

    monkeypatch.setattr(variant_solver, "solve_variant", counted)
    twelve = {"n": 4, "variant": "twelve", "seed": 1}
    weight = real("twelve", 4, "float").memory_bytes()
    table = solution_bytes(exact.solve(4))
    app = create_app(cache_bytes=weight + table)
    c, solutions = testclient.TestClient(app), app.state.solutions
    assert c.get("/api/game/new", params=twelve).status_code == 200
    assert c.get("/api/game/new", params=twelve | {"seed": 2}).status_code == 200
    key = VariantKey(GameSpec.parse(4), "twelve")
    assert calls == [(VARIANTS["twelve"], 4)] and list(solutions._cache) == [key]
    assert solutions.cached_bytes == weight
    assert c.get("/api/table", params={"n": 4}).status_code == 200  # both fit
    assert list(solutions._cache) == [key, GameSpec.parse(4)]
    assert c.get("/api/table", params={"n": 5}).status_code == 200  # drops the oldest use
    assert list(solutions._cache) == [GameSpec.parse(4), GameSpec.parse(5)]
    assert c.get("/api/game/new", params=twelve).status_code == 200  # solved again
    assert calls == [(VARIANTS["twelve"], 4)] * 2
    small = create_app(cache_bytes=weight - 1)
    c = testclient.TestClient(small)
    for seed in (1, 2):
        assert c.get("/api/game/new", params=twelve | {"seed": seed}).status_code == 200
    assert calls == [(VARIANTS["twelve"], 4)] * 4 and small.state.solutions.cached_bytes == 0


def test_a_store_answers_its_own_order_only(tmp_path):
    """A store of the descending order answers the games of that order, never a table of
    the random order (keyed on (n, objective), it once answered both)."""
    from exact.dp.store import solve_into_store

    solve_into_store(GameSpec.parse(4, order="descending"), tmp_path / "d4")
    app = create_app([tmp_path / "d4"])
    c, solutions = testclient.TestClient(app), app.state.solutions
    assert c.get("/api/info").json()["stores"] == [
        {"n": 4, "objective": "points", "order": "descending"}
    ]
    table = c.get("/api/table", params={"n": 4}).json()
    assert "source" not in table and solutions.solves == 1  # solved here, the random order
    assert table == cli_json("table", 4, "--json")
    game = c.get("/api/game/new", params={"n": 4, "order": "descending", "seed": 3}).json()
    assert game["upcard"] == 4 and solutions.solves == 1  # read from the store
    assert list(solutions._stored) == [GameSpec.parse(4, order="descending")]


# -- the issue of the page's review: progress and cancel, links beyond this server, the
# certificate's cards, charts, numbers, the game's facts and review, phone and keyboard --


@pytest.fixture
def slow_solves(monkeypatch):
    """Every solve goes to the solver thread and sleeps 0.3 s at each progress report, so
    that a small N is a long solve to watch and cancel."""
    import exact.dp.solve as solve_module
    from exact.web import solutions as web

    real = solve_module.solve_game

    def slow(spec, progress=None, top=None):
        def report(level, units):
            time.sleep(0.3)
            if progress is not None:
                progress(level, units)

        return real(spec, report, top)

    monkeypatch.setattr(web, "INLINE_MAX_SECONDS", -1.0)
    monkeypatch.setattr(solve_module, "solve_game", slow)


def test_a_long_solve_reports_progress_and_can_be_cancelled(slow_solves):
    app = create_app()
    c = testclient.TestClient(app)
    answers = []
    waiting = threading.Thread(target=lambda: answers.append(c.get("/api/table", params={"n": 7})))
    waiting.start()
    for _ in range(100):
        solving = c.get("/api/progress").json()["solving"]
        if solving and solving[0]["state"] == "solving" and solving[0]["level"] >= 2:
            break
        time.sleep(0.1)
    (s,) = solving
    assert s["n"] == 7 and s["objective"] == "points" and s["levels"] == 7
    assert 0 < s["fraction"] < 1 and s["what"] == "N = 7, points objective"
    assert c.post("/api/cancel", params={"n": 7}).json()["cancelled"][0]["n"] == 7
    waiting.join(timeout=30)
    (r,) = answers
    assert r.status_code == 400 and "was cancelled" in r.json()["error"]
    assert c.get("/api/progress").json()["solving"] == [] and app.state.solutions.solves == 0
    assert c.get("/api/info").status_code == 200


def wait_until(condition, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail("never happened")


@pytest.fixture
def slow_variants(monkeypatch):
    """Every variant beyond N = 2 is solved by the solver thread and waits up to 1 s at each
    progress report (one per first-round upcard), a long solve to watch and cancel; setting
    the Event returned lets it run at full speed."""
    from exact.dp import variant_solver
    from exact.web import solutions as web

    real = variant_solver.solve_variant
    release = threading.Event()

    def slow(variant, n, arithmetic, progress=None):
        def report(states):
            release.wait(1.0)
            if progress is not None:
                progress(states)

        return real(variant, n, arithmetic, progress=report)

    monkeypatch.setattr(variant_solver, "solve_variant", slow)
    monkeypatch.setattr(web, "VARIANT_INLINE_MAX_N", {"twelve": 2, "dummy": 2})
    return release


def test_a_variants_long_solve_reports_progress_and_can_be_cancelled(slow_variants):
    """A variant beyond VARIANT_INLINE_MAX_N is solved by the solver thread: /api/progress
    shows it (one step per first-round upcard) and /api/cancel with its variant stops it
    (a cancel of the standard game, or of another variant, of the same N does not), its
    game answered 400; solved again, the game is played."""
    c = testclient.TestClient(create_app())
    params = {"n": 4, "variant": "twelve", "seed": 1}
    answers = []
    waiting = threading.Thread(target=lambda: answers.append(c.get("/api/game/new", params=params)))
    waiting.start()
    s = wait_until(
        lambda: next(
            (x for x in c.get("/api/progress").json()["solving"] if x["fraction"] > 0), None
        ),
        timeout=30,
    )
    assert s["variant"] == "twelve" and s["n"] == 4 and s["levels"] == 4
    assert s["what"] == "the twelve variant at N = 4" and s["state"] == "solving"
    # without variant=, a cancel is the standard game's: the variant's solve goes on
    assert c.post("/api/cancel", params={"n": 4}).json()["cancelled"] == []
    assert c.post("/api/cancel", params={"n": 4, "variant": "dummy"}).json()["cancelled"] == []
    bad = c.post("/api/cancel", params={"n": 4, "variant": "poker"})
    assert bad.status_code == 400 and "unknown variant 'poker'" in bad.json()["error"]
    assert [x["state"] for x in c.get("/api/progress").json()["solving"]] == ["solving"]
    cancelled = c.post("/api/cancel", params={"n": 4, "variant": "twelve"}).json()["cancelled"]
    assert [x["variant"] for x in cancelled] == ["twelve"]
    waiting.join(timeout=30)
    (r,) = answers
    assert r.status_code == 400 and "was cancelled" in r.json()["error"]
    assert c.get("/api/progress").json()["solving"] == []
    slow_variants.set()  # full speed from here on
    game = c.get("/api/game/new", params=params).json()
    assert game["variant"] == "twelve" and game["your_cards"] == [2, 3, 4]


def test_a_queued_solve_says_what_it_waits_behind_and_is_cancelled_at_once(slow_solves):
    """With one solver thread busy on N = 8, a solve of N = 6 queues: /api/progress gives
    its place and the solve ahead of it; cancelling it answers its request at once (400)
    and frees its place in the queue (of one place here) while N = 8 goes on, and a new
    request for N = 6 queues a new solve."""
    app = create_app(queue_limit=1)
    c = testclient.TestClient(app)
    answers: dict[int, list] = {8: [], 6: []}

    def ask(n):
        answers[n].append(c.get("/api/table", params={"n": n}))

    first = threading.Thread(target=ask, args=(8,))
    first.start()
    wait_until(lambda: [s for s in c.get("/api/progress").json()["solving"] if s["seconds"]])
    second = threading.Thread(target=ask, args=(6,))
    second.start()
    solving = wait_until(lambda: (s := c.get("/api/progress").json()["solving"])[1:] and s)
    running, queued = solving
    assert (running["n"], running["state"], running["queue_position"]) == (8, "solving", 0)
    assert (queued["n"], queued["state"], queued["queue_position"]) == (6, "queued", 1)
    assert [b["n"] for b in queued["behind"]] == [8] and queued["fraction"] == 0
    assert c.get("/api/table", params={"n": 7}).status_code == 503  # the queue is full
    (cancelled,) = c.post("/api/cancel", params={"n": 6}).json()["cancelled"]
    assert cancelled["n"] == 6 and cancelled["state"] == "cancelled"
    second.join(timeout=10)
    (r,) = answers[6]
    assert r.status_code == 400 and "N = 6, points objective was cancelled" in r.json()["error"]
    (still,) = c.get("/api/progress").json()["solving"]
    assert still["n"] == 8 and still["state"] == "solving" and first.is_alive()
    again = threading.Thread(target=ask, args=(6,))
    again.start()
    solving = wait_until(lambda: (s := c.get("/api/progress").json()["solving"])[1:] and s)
    assert solving[1]["n"] == 6 and solving[1]["state"] == "queued"
    for n in (6, 8):
        c.post("/api/cancel", params={"n": n})
    for t in (first, again):
        t.join(timeout=30)
    assert [a.status_code for n in (8, 6) for a in answers[n]] == [400, 400, 400]
    assert c.get("/api/progress").json()["solving"] == [] and app.state.solutions.solves == 0


def ask_in_background(url: str) -> threading.Thread:
    """Request ``url`` in a thread (a large solve to wait behind, or to queue); the 400 of
    its solve cancelled at the end is expected."""

    def ask():
        try:
            urllib.request.urlopen(url)
        except OSError:
            pass

    thread = threading.Thread(target=ask)
    thread.start()
    return thread


def solves_under_way(api: str) -> list[dict]:
    """The solves under way on a served page (/api/progress)."""
    return json.load(urllib.request.urlopen(f"{api}/progress"))["solving"]


def shown_progress(browser, containing: str = "") -> str:
    """The text of the page's progress box, once it shows one containing ``containing``."""
    from selenium.webdriver.common.by import By

    def text(d):
        shown = d.find_element(By.ID, "progress").is_displayed()
        words = d.find_element(By.ID, "progress-text").text
        return shown and containing in words and words

    return wait_for(browser, text)


def test_the_page_says_a_solve_is_queued_and_cancels_it(page_server, browser, slow_solves):
    """While the solver thread solves N = 8, the page's request for N = 7 waits in the
    queue: the page says so and what it waits behind, and Cancel stops it at once."""
    from selenium.webdriver.common.by import By

    api = f"{page_server}/api"
    ahead = ask_in_background(f"{api}/table?n=8")
    try:
        wait_until(
            lambda: [s for s in solves_under_way(api) if s["n"] == 8 and s["state"] == "solving"]
        )
        load(browser, f"{page_server}/#first?n=7&objective=points")
        text = shown_progress(browser, "queued")
        assert text.startswith("N = 7, points objective: queued (position 1), waiting behind")
        assert "the solve of N = 8, points objective: level" in text
        bar = browser.find_element(By.ID, "progress-bar")
        assert browser.execute_script("return arguments[0].position", bar) == -1  # no bar yet
        browser.save_screenshot(str(ARTIFACTS / "queued.png"))
        browser.find_element(By.ID, "cancel").click()
        error = wait_for(browser, lambda d: d.find_element(By.ID, "error").text)
        assert "cancelled" in error
        assert [s["n"] for s in solves_under_way(api)] == [8]  # N = 7 is gone, N = 8 goes on
    finally:
        req = urllib.request.Request(f"{api}/cancel?n=8", method="POST")
        urllib.request.urlopen(req)
        ahead.join(timeout=30)


def test_the_page_shows_a_long_solve_and_cancels_it(page_server, browser, slow_solves):
    from selenium.webdriver.common.by import By

    load(browser, f"{page_server}/#first?n=7&objective=points")
    text = shown_progress(browser)
    assert "N = 7, points objective" in text
    browser.save_screenshot(str(ARTIFACTS / "progress.png"))
    browser.find_element(By.ID, "cancel").click()
    error = wait_for(browser, lambda d: d.find_element(By.ID, "error").text)
    assert "cancelled" in error
    assert not browser.find_element(By.ID, "progress").is_displayed()


def test_the_page_cancels_a_variants_solve_and_no_other(
    page_server, browser, slow_solves, slow_variants
):
    """Play's new game of the twelve-round variant at N = 7, solved slowly by the solver
    thread, with a standard solve of N = 7 queued behind it: the page shows the
    variant's progress, and its Cancel stops that solve only (the page sends the variant),
    so the standard solve goes on."""
    from selenium.webdriver.common.by import By

    api = f"{page_server}/api"
    load(browser, f"{page_server}/#play?n=7&objective=points&variant=twelve")
    wait_for(browser, lambda d: d.find_element(By.ID, "new-game").is_displayed())
    browser.find_element(By.ID, "new-game").click()
    text = shown_progress(browser, "twelve")
    assert text.startswith("solving the twelve variant at N = 7: level")

    behind = ask_in_background(f"{api}/table?n=7")
    try:
        wait_until(lambda: [x for x in solves_under_way(api) if "variant" not in x and x["n"] == 7])
        browser.find_element(By.ID, "cancel").click()
        error = wait_for(browser, lambda d: d.find_element(By.ID, "error").text)
        assert "cancelled" in error
        slow_variants.set()  # the variant's solve stops at its next report, and the standard
        wait_until(  # solve, not cancelled, takes the solver thread
            lambda: (
                [(x["n"], x.get("variant"), x["state"]) for x in solves_under_way(api)]
                == [(7, None, "solving")]
            )
        )
    finally:
        slow_variants.set()
        req = urllib.request.Request(f"{api}/cancel?n=7", method="POST")
        urllib.request.urlopen(req)
        behind.join(timeout=30)


def test_a_link_beyond_this_server_is_kept_and_says_what_it_needs(page_server, browser):
    from selenium.webdriver.common.by import By

    link = "#explore?n=13&objective=points&mine=1,2&theirs=3,4&deck=12,13&upcard=13"
    load(browser, f"{page_server}/{link}")
    notice = wait_for(browser, lambda d: d.find_element(By.ID, "notice").text)
    assert "N = 13" in notice and "gops serve --store DIR" in notice
    assert "gops solve 13 --store DIR" in notice
    assert not browser.find_element(By.ID, "error").is_displayed()
    for part in ("n=13", "deck=12,13", "upcard=13", "mine=1,2"):
        assert part in browser.current_url
    assert browser.find_element(By.ID, "n").get_attribute("value") == "13"


@pytest.fixture(scope="module")
def store_server(tmp_path_factory):
    """A server of a points store of N = 9 whose cache (``gops serve --cache-mib``) lets it
    solve on the fly up to N = 8 only: a link of N = 9 is beyond what it solves, as N = 11
    is on a default server, through the same page and server code (a store of N = 11
    would take 20 to 40 s to solve here)."""
    from exact.dp.store import solve_into_store
    from exact.web.solutions import solve_size

    pytest.importorskip("uvicorn")
    n = 9
    store = tmp_path_factory.mktemp("web-store") / f"s{n}"
    solve_into_store(GameSpec.parse(n), store)
    app = create_app([store], cache_bytes=solve_size(n - 1, "points")[0])
    assert app.state.solutions.limits["points"]["max_n"] == n - 1
    for url in serve(app):
        yield url, app, n


def test_a_link_beyond_the_on_the_fly_limit_is_answered_by_a_store(store_server, browser):
    """The shared link of a position beyond the server's on-the-fly limit opens on a server
    with a store of that N: the page shows the store's equilibrium (the API's value,
    nothing solved) and keeps the link."""
    from selenium.webdriver.common.by import By

    url, app, n = store_server
    query = {"n": n, "mine": "1,2", "theirs": "3,4", "deck": f"{n - 1},{n}", "upcard": n}
    link = "#explore?" + "&".join(f"{k}={v}" for k, v in {"objective": "points", **query}.items())
    load(browser, f"{url}/{link}")
    shown = wait_for(
        browser,
        lambda d: (
            d.find_element(By.ID, "result").is_displayed() and d.find_element(By.ID, "value").text
        ),
    )
    with urllib.request.urlopen(f"{url}/api/position?" + urllib.parse.urlencode(query)) as r:
        answer = json.loads(r.read())
    assert answer["source"]["store"].endswith(f"s{n}")
    assert shown == f"{answer['value']:.6f}"
    # A claim read from a store says, in its own sentence, the stored levels it rests on:
    # two prizes left, the upcard's games read level 1 (re-derived by the server), which
    # rests on the stored level 0.
    claim = browser.find_element(By.ID, "certified").text
    assert f"given the stored levels 0..0 of {answer['source']['store']}" in claim
    assert claim.startswith(("certified, given", "not certified as unique"))
    assert not browser.find_element(By.ID, "notice").is_displayed()
    assert not browser.find_element(By.ID, "error").is_displayed()
    assert f"n={n}" in browser.current_url and f"deck={n - 1},{n}" in browser.current_url
    assert app.state.solutions.solves == 0


def test_the_certificates_reason_names_cards():
    from exact.web.explore import name_cards

    assert (
        name_cards("column 2 is (nearly) a best reply too: a near-tie", {1, 2}, {1, 3})
        == "their bid 3 is (nearly) a best reply too: a near-tie"
    )
    assert (
        name_cards("row 1 is (nearly) a best reply too", {4, 5}, {1})
        == "my bid 4 is (nearly) a best reply too"
    )


def explore(browser, page_server, hash_):
    from selenium.webdriver.common.by import By

    load(browser, f"{page_server}/{hash_}")
    wait_for(
        browser,
        lambda d: (
            d.find_element(By.ID, "result").is_displayed()
            and d.find_elements(By.CSS_SELECTOR, "#mine-mix g")
        ),
    )


def test_an_edited_position_hides_the_answer_of_the_last_one(page_server, browser):
    """After a card is clicked, the answer of the position before (its value, mixes,
    matrix and exact fractions) is not shown as if it were the new position's: a hand
    without a 2 must not show "bid 2" (issue 35, What a newcomer trips on)."""
    from selenium.webdriver.common.by import By

    explore(
        browser,
        page_server,
        "#explore?n=3&objective=points&mine=1,2,3&theirs=1,2,3&deck=1,2,3&upcard=3",
    )

    def shown() -> list[str]:  # the cards of my mix on the page
        bars = browser.find_elements(By.CSS_SELECTOR, "#mine-mix g")
        return [g.get_attribute("data-card") for g in bars if g.is_displayed()]

    assert shown() == ["1", "2", "3"]
    # a 2-card position: my 2, their 2 and the prize 1 out; the upcard stays the 3
    for role in ("mine", "theirs", "deck"):
        browser.find_element(
            By.CSS_SELECTOR, f'#{role}-cards [data-card="{2 if role != "deck" else 1}"]'
        ).click()
    assert not browser.find_element(By.ID, "result").is_displayed() and shown() == []
    browser.find_element(By.ID, "solve").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "result").is_displayed())
    assert shown() == ["1", "3"]  # mine: 1, 3 (the 3 bid on the 3: 1)


def test_a_pure_bid_keeps_its_label_and_a_zero_value_shows_no_sign(page_server, browser):
    from selenium.webdriver.common.by import By

    # the 3-card game: the equilibrium bids the prize, p = 1; its value is 0
    explore(
        browser,
        page_server,
        "#explore?n=3&objective=points&mine=1,2,3&theirs=1,2,3&deck=1,2,3&upcard=3",
    )
    labels = browser.execute_script(
        "return [...document.querySelectorAll('#mine-mix g')].map((g) => "
        "[g.dataset.p, Number(g.querySelectorAll('text')[1].getAttribute('y')), "
        "g.querySelectorAll('text')[1].textContent]);"
    )
    top = [label for label in labels if float(label[0]) == 1.0]
    assert top and all(y >= 10 and text == "1.000" for _, y, text in top)
    assert browser.find_element(By.ID, "value").text == "0.000000"
    # the heat map is centred on 0: a zero payoff is white; a legend says what colours mean
    zero = browser.execute_script(
        "const td = [...document.querySelectorAll('#matrix td')].find((t) => "
        "Number(t.title) === 0); return td ? getComputedStyle(td).backgroundColor : null;"
    )
    assert zero == "rgb(255, 255, 255)"
    assert browser.find_element(By.ID, "matrix-legend").text.startswith("payoff to me:")
    heading = browser.find_element(By.CSS_SELECTOR, "#exact-box h3").text
    digits = int(heading.split("(")[1].split()[0])
    assert heading == f"exact equilibrium ({digits} digit{'' if digits == 1 else 's'} at most)"


def test_first_move_zero_is_white_and_a_lead_is_in_the_title(page_server, browser):
    from selenium.webdriver.common.by import By

    load(browser, f"{page_server}/#first?n=5&objective=points")
    cell = wait_for(
        browser,
        lambda d: d.find_elements(
            By.CSS_SELECTOR, '#first-table td[data-bid="2"][data-upcard="2"]'
        ),
    )[0]
    assert cell.text == "0"
    assert cell.value_of_css_property("background-color") == "rgba(255, 255, 255, 1)"
    assert "P(bid | upcard)" in browser.find_element(By.ID, "first-legend").text
    load(browser, f"{page_server}/#first?n=5&objective=win&lead=3")
    title = wait_for(
        browser,
        lambda d: (
            "lead" in d.find_element(By.ID, "first-title").text
            and d.find_element(By.ID, "first-title").text
        ),
    )
    assert title == "N = 5, win objective, lead 3 (you start 3 points ahead)"
    assert browser.find_element(By.ID, "lead-label").is_displayed()
    assert not browser.find_element(By.ID, "order-label").is_displayed()  # Play's only
    browser.find_element(By.ID, "tab-play").click()
    assert browser.find_element(By.ID, "lead-label").text.startswith("head start")
    assert browser.find_element(By.ID, "order-label").is_displayed()


def test_explore_takes_a_lead_at_the_start_as_a_handicap(client):
    cards = "1,2,3,4,5"
    r = client.get(
        "/api/position",
        params={
            "n": 5,
            "mine": cards,
            "theirs": cards,
            "deck": cards,
            "upcard": 5,
            "objective": "win",
            "lead": 3,
        },
    )
    table = client.get("/api/table", params={"n": 5, "objective": "win", "lead": 3}).json()
    assert r.status_code == 200 and "exact" not in r.json()  # exact: the real game only
    assert r.json()["mine"] == {
        str(c): p for c, p in zip(range(1, 6), [table["by_upcard"]["5"][i] for i in range(5)])
    }


def test_the_favicon_is_served(client):
    """/favicon.ico is an SVG document (parsed: its root an <svg> with a size), the same
    bytes as the page's <link rel="icon">."""
    import xml.etree.ElementTree as ET

    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(r.content)
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("viewBox")
    assert client.get("/static/favicon.svg").content == r.content


def test_the_footers_api_link_is_a_page_that_describes_the_api(page_server, browser, client):
    """The footer's "API" link opens a page a person reads (HTML naming each endpoint),
    not raw JSON."""
    from selenium.webdriver.common.by import By

    browser.get(page_server)
    link = browser.find_element(By.LINK_TEXT, "API").get_attribute("href")
    r = client.get(link.removeprefix(page_server))
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    for path in ("info", "strategy", "table", "position", "line", "progress", "cancel", "game"):
        assert f"/api/{path}" in r.text


def test_a_finished_game_has_facts_and_a_review(client):
    game = client.get("/api/game/new", params={"n": 5, "seed": 7}).json()
    assert "review" not in game and game["won"] == {"you": [], "computer": []}
    assert game["prizes_to_come"] == sorted(set(range(1, 6)) - {game["upcard"]})
    game = play_through_api(client, {"n": 5, "seed": 7}, choose=max)
    won = game["won"]
    assert sum(won["you"]) == game["score"]["you"]
    assert sum(won["computer"]) == game["score"]["computer"]
    review = game["review"]["rounds"]
    assert [r["you"] for r in review] == [r["you"] for r in game["history"]]
    assert all(r["cost"] >= 0 for r in review) and review[-1]["forced"]
    for r in review:  # a bid in the equilibrium's support costs nothing
        if r["equilibrium"][str(r["you"])] > 1e-9:
            assert r["cost"] == pytest.approx(0, abs=1e-9)
        assert r["cost"] == pytest.approx(max(0.0, r["value"] - r["payoff"]), abs=1e-12)
    assert game["review"]["total_cost"] == pytest.approx(sum(r["cost"] for r in review))


def test_changing_n_mid_game_starts_the_new_game(page_server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    load(browser, f"{page_server}/#play?n=4&objective=points")
    wait_for(browser, lambda d: d.find_element(By.ID, "new-game").is_displayed())
    browser.find_element(By.ID, "new-game").click()
    wait_for(browser, lambda d: "N = 4" in d.find_element(By.ID, "play-what").text)
    Select(browser.find_element(By.ID, "n")).select_by_value("5")
    wait_for(browser, lambda d: "N = 5" in d.find_element(By.ID, "play-what").text)
    assert browser.find_element(By.ID, "round").text == "1 of 5"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#hand button")) == 5
    assert "n=5" in browser.current_url


def test_play_by_keyboard_with_facts_and_the_review(page_server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    load(browser, f"{page_server}/#play?n=4&objective=points")
    wait_for(browser, lambda d: d.find_element(By.ID, "new-game").is_displayed())
    browser.find_element(By.ID, "new-game").click()
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand button"))
    assert browser.find_element(By.ID, "their-cards").text == "1 2 3 4"
    assert len(browser.find_element(By.ID, "to-come").text.split()) == 3
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("2")  # a number key bids that card
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#history tbody tr")) == 1)
    assert browser.find_element(By.CSS_SELECTOR, "#history tbody td:nth-child(3)").text == "2"
    # Tab to a card and Enter bids it
    first = browser.find_elements(By.CSS_SELECTOR, "#hand button")[0]
    browser.execute_script("arguments[0].focus()", first)
    card = first.text
    first.send_keys(Keys.ENTER)
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#history tbody tr")) == 2)
    assert (
        browser.find_elements(By.CSS_SELECTOR, "#history tbody tr")[1]
        .find_elements(By.TAG_NAME, "td")[2]
        .text
        == card
    )
    body.send_keys(browser.find_elements(By.CSS_SELECTOR, "#hand button")[0].text)
    wait_for(browser, lambda d: d.find_element(By.ID, "review-box").is_displayed())
    assert len(browser.find_elements(By.CSS_SELECTOR, "#review tbody tr")) == 4
    won = browser.find_element(By.ID, "won-me").text.split()
    assert sum(map(int, [w for w in won if w != "none"])) == int(
        browser.find_element(By.ID, "score-me").text
    )
    browser.save_screenshot(str(ARTIFACTS / "review.png"))


@pytest.mark.parametrize(
    "hash_",
    ["#explore?n=6&objective=points", "#first?n=8&objective=points", "#play?n=10&objective=points"],
)
def test_phone_width_has_no_horizontal_scroll(page_server, browser, hash_):
    from selenium.webdriver.common.by import By

    browser.set_window_size(390, 844)
    try:
        load(browser, f"{page_server}/{hash_}")
        if hash_.startswith("#explore"):
            wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#mine-cards button"))
            browser.find_element(By.ID, "solve").click()
            wait_for(browser, lambda d: d.find_element(By.ID, "result").is_displayed())
        elif hash_.startswith("#first"):
            wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#first-table td"))
        else:
            wait_for(browser, lambda d: d.find_element(By.ID, "new-game").is_displayed())
            browser.find_element(By.ID, "new-game").click()
            wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand button"))
        width = browser.execute_script(
            "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert width[0] <= width[1], width
        browser.save_screenshot(str(ARTIFACTS / f"phone-{hash_[1:].split('?')[0]}.png"))
    finally:
        browser.set_window_size(1200, 1000)


class HoldInfo:
    """The app with /api/info held until ``release`` is set (or, ``fail``, answered with
    HTTP 500): the page as a slow or broken server leaves it."""

    def __init__(self, app):
        self.app, self.release, self.fail = app, threading.Event(), False

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["path"] == "/api/info":
            while not self.release.is_set():
                await asyncio.sleep(0.05)
            if self.fail:
                await JSONResponse({"error": "the server broke"}, status_code=500)(
                    scope, receive, send
                )
                return
        await self.app(scope, receive, send)


@pytest.fixture
def held_info():
    held = HoldInfo(create_app())
    server = serve(held)
    yield held, next(server)
    held.release.set()
    next(server, None)


def test_the_page_says_it_is_loading_until_info_answers(held_info, browser):
    """While /api/info has not answered, the page says it is loading and draws nothing
    (no card, no error); once it answers, the message goes and the cards are drawn."""
    from selenium.webdriver.common.by import By

    held, url = held_info
    browser.get(f"{url}/#explore?n=4&objective=points")
    time.sleep(0.5)  # the page's script is waiting for /api/info
    assert browser.find_element(By.ID, "loading").is_displayed()
    assert "Loading" in browser.find_element(By.ID, "loading").text
    assert not browser.find_elements(By.CSS_SELECTOR, "#mine-cards button")
    assert not browser.find_element(By.ID, "error").is_displayed()
    held.release.set()
    wait_for(browser, lambda d: not d.find_element(By.ID, "loading").is_displayed())
    cards = browser.find_elements(By.CSS_SELECTOR, "#mine-cards button")
    assert [c.get_attribute("data-card") for c in cards] == ["1", "2", "3", "4"]
    assert not browser.find_element(By.ID, "error").is_displayed()


def test_the_page_says_why_when_info_fails(held_info, browser):
    """A server whose /api/info fails: the loading message goes and the error is shown
    (the page does not say "Loading" for ever)."""
    from selenium.webdriver.common.by import By

    held, url = held_info
    held.fail = True
    held.release.set()
    browser.get(f"{url}/")
    wait_for(browser, lambda d: d.find_element(By.ID, "error").is_displayed())
    assert "the server broke" in browser.find_element(By.ID, "error").text
    assert not browser.find_element(By.ID, "loading").is_displayed()
    browser.get_log("browser")  # the 500 of /api/info, caused on purpose


def test_play_choosing_the_prizes_with_a_head_start(page_server, browser):
    """Play with the prize order "you choose" and the win objective with a head start of
    3: the page offers the prizes left, turns up the one clicked (or typed), and the score
    starts at the head start."""
    from selenium.webdriver.common.by import By

    load(browser, f"{page_server}/#play?n=4&objective=win&lead=3&order=controlled-by-me")
    wait_for(browser, lambda d: d.find_element(By.ID, "new-game").is_displayed())
    assert browser.find_element(By.ID, "order").get_attribute("value") == "controlled-by-me"
    assert browser.find_element(By.ID, "lead").get_attribute("value") == "3"
    browser.find_element(By.ID, "new-game").click()
    choices = wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#choices button"))
    assert [b.text for b in choices] == ["1", "2", "3", "4"]
    assert browser.find_element(By.ID, "score-me").text == "3"
    assert "you started 3 points ahead" in browser.find_element(By.ID, "head-start").text
    assert not any(b.is_enabled() for b in browser.find_elements(By.CSS_SELECTOR, "#hand button"))
    browser.find_element(By.CSS_SELECTOR, '#choices button[data-card="2"]').click()
    wait_for(browser, lambda d: d.find_element(By.ID, "prize").text == "2")
    assert not browser.find_element(By.ID, "choose-box").is_displayed()
    browser.find_element(By.CSS_SELECTOR, '#hand button[data-card="1"]').click()
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#choices button"))
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("4")  # a number key chooses that prize too
    wait_for(browser, lambda d: d.find_element(By.ID, "prize").text == "4")
    body.send_keys("4")  # and then bids that card
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#history tbody tr")) == 2)
    browser.find_element(By.CSS_SELECTOR, '#choices button[data-card="1"]').click()
    wait_for(browser, lambda d: d.find_element(By.ID, "prize").text == "1")
    browser.find_element(By.CSS_SELECTOR, "#hand button").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "review-box").is_displayed())
    rows = browser.find_elements(By.CSS_SELECTOR, "#history tbody tr")
    cells = [[td.text for td in r.find_elements(By.TAG_NAME, "td")] for r in rows]
    assert [c[1] for c in cells] == ["2", "4", "1", "3"]  # the prizes as I chose them
    assert [c[2] for c in cells][:2] == ["1", "4"]
    me = 3 + sum(int(c[1]) for c in cells if c[4] == "you")
    assert browser.find_element(By.ID, "score-me").text == str(me)
    assert "order=controlled-by-me" in browser.current_url
    browser.save_screenshot(str(ARTIFACTS / "play-choose.png"))


# -- Explore: both players' certificates and exact mixes, stepping a line of play ----------


def test_a_line_of_play_is_stepped_by_the_rules(client):
    """/api/line plays each round (upcard:mine-theirs) from a position: the higher bid
    takes the prize (the lead moves by it), a tie discards it; the position reached has
    the value the solution gives, before and after each upcard."""
    import exact

    cards = "1,2,3,4,5"
    params = {"n": 5, "mine": cards, "theirs": cards, "deck": cards, "objective": "win"}
    r = client.get("/api/line", params=params | {"line": "5:5-4,3:1-2,1:3-3"}).json()
    assert [(s["winner"], s["lead"]) for s in r["steps"]] == [("me", 5), ("them", 2), ("nobody", 2)]
    assert (r["mine"], r["theirs"], r["deck"], r["lead"]) == ([2, 4], [1, 5], [2, 4], 2)
    sol = exact.solve(5, objective="win")
    assert r["value"] == sol.value({2, 4}, {1, 5}, {2, 4}, 2)
    assert r["by_upcard"] == {
        str(u): sol.strategy({2, 4}, {1, 5}, {2, 4}, u, 2).value for u in (2, 4)
    }
    assert r["value"] == pytest.approx(sum(r["by_upcard"].values()) / 2, abs=1e-12)
    end = client.get(
        "/api/line",
        params={"n": 2, "mine": "1,2", "theirs": "1,2", "deck": "1,2", "line": "2:2-1,1:1-2"},
    ).json()
    assert end["over"] and end["points"] == [2, 1] and "value" not in end
    for line, fragment in [
        ("5:5-9", "step 1 of the line: player 1 cannot bid 9"),
        ("5:5-4,5:1-1", "step 2 of the line: cannot turn up 5"),
        ("5:5", "not upcard:mine-theirs"),
    ]:
        bad = client.get("/api/line", params=params | {"line": line})
        assert bad.status_code == 400 and fragment in bad.json()["error"]


def test_explore_shows_both_certificates_and_both_exact_mixes(page_server, browser, client):
    from selenium.webdriver.common.by import By

    explore(
        browser,
        page_server,
        "#explore?n=5&objective=points&mine=1,3,5&theirs=2,4,5&deck=1,2,5&upcard=2",
    )
    pos = client.get("/api/position", params=POSITIONS[0]).json()
    theirs = browser.find_element(By.ID, "intervals-theirs").text
    import re
    from fractions import Fraction

    shown = {
        c: (float(lo), float(hi))
        for c, lo, hi in re.findall(r"bid (\d+): \[([-0-9.e]+), ([-0-9.e]+)\]", theirs)
    }
    assert shown.keys() == pos["certified"]["theirs"].keys()
    for c, (lo, hi) in pos["certified"]["theirs"].items():  # shown to 12 digits
        assert shown[c] == (pytest.approx(lo, rel=1e-11), pytest.approx(hi, rel=1e-11))
        exact_p = Fraction(pos["exact"]["theirs"][c])
        assert shown[c][0] - 1e-11 <= exact_p <= shown[c][1] + 1e-11
    assert browser.find_element(By.ID, "intervals-mine").text.startswith("mine: bid 1: [")
    assert browser.find_element(By.ID, "exact-value").text == pos["exact"]["value"] == "-5/3"
    text = browser.find_element(By.ID, "exact").get_attribute("value")
    assert "their mix:\n  bid 2: 1/3\n  bid 4: 2/3\n  bid 5: 0" in text


def test_explore_steps_a_line_of_play_and_shares_it(page_server, browser, client):
    """From the 5-card game (win objective, upcard 5): I bid 5, they bid 4; then turn up
    the 3 and play 1 against 2.  The page shows the position the server's rules reach,
    the lead after each round and the values of the next upcards; the address holds the
    line, and opening it again shows the same place; Back undoes a round."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    full = "1,2,3,4,5"
    explore(
        browser,
        page_server,
        f"#explore?n=5&objective=win&lead=0&mine={full}&theirs={full}&deck={full}&upcard=5",
    )

    def step(mine, theirs):
        Select(browser.find_element(By.ID, "step-mine")).select_by_value(str(mine))
        Select(browser.find_element(By.ID, "step-theirs")).select_by_value(str(theirs))
        browser.find_element(By.ID, "step").click()

    def hand(role):
        return [
            int(b.get_attribute("data-card"))
            for b in browser.find_elements(By.CSS_SELECTOR, f"#{role}-cards button.on")
        ]

    step(5, 4)
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#next-upcards button"))
    assert "line=5:5-4" in browser.current_url and "upcard=" not in browser.current_url
    assert hand("mine") == [1, 2, 3, 4] and hand("theirs") == [1, 2, 3, 5]
    assert hand("deck") == [1, 2, 3, 4]
    assert browser.find_element(By.ID, "lead").get_attribute("value") == "5"
    assert "prize 5: 5 vs 4 (I win it, lead 5)" in browser.find_element(By.ID, "line").text
    api = client.get(
        "/api/line",
        params={
            "n": 5,
            "mine": full,
            "theirs": full,
            "deck": full,
            "objective": "win",
            "lead": 0,
            "line": "5:5-4",
        },
    ).json()
    shown = {
        b.get_attribute("data-card"): float(b.get_attribute("data-value"))
        for b in browser.find_elements(By.CSS_SELECTOR, "#next-upcards button")
    }
    assert shown == api["by_upcard"]
    browser.find_element(By.CSS_SELECTOR, '#next-upcards button[data-card="3"]').click()
    wait_for(browser, lambda d: d.find_element(By.ID, "result").is_displayed())
    pos = client.get(
        "/api/position",
        params={
            "n": 5,
            "mine": "1,2,3,4",
            "theirs": "1,2,3,5",
            "deck": "1,2,3,4",
            "upcard": 3,
            "objective": "win",
            "lead": 5,
        },
    ).json()
    assert browser.find_element(By.ID, "value").text == f"{pos['value']:.6f}"
    assert pos["value"] == pytest.approx(api["by_upcard"]["3"], abs=1e-12)
    step(1, 2)
    wait_for(browser, lambda d: "line=5:5-4,3:1-2" in d.current_url)
    wait_for(browser, lambda d: d.find_element(By.ID, "lead").get_attribute("value") == "2")
    assert hand("mine") == [2, 3, 4] and hand("deck") == [1, 2, 4]
    link = browser.current_url
    assert "mine=1,2,3,4,5" in link and "lead=0" in link  # the start, then the line
    browser.save_screenshot(str(ARTIFACTS / "explore-line.png"))
    browser.get("about:blank")
    browser.get(link)  # the shared link: the same line, the same place
    wait_for(
        browser,
        lambda d: (
            "3:1-2" in d.find_element(By.ID, "line").text
            or "prize 3: 1 vs 2" in d.find_element(By.ID, "line").text
        ),
    )
    assert hand("mine") == [2, 3, 4] and hand("theirs") == [1, 3, 5]
    assert browser.find_element(By.ID, "lead").get_attribute("value") == "2"
    browser.find_element(By.ID, "back").click()  # undo the second round: upcard 3 again
    wait_for(browser, lambda d: d.find_element(By.ID, "result").is_displayed())
    assert hand("mine") == [1, 2, 3, 4] and "upcard=3" in browser.current_url
    assert browser.find_element(By.ID, "value").text == f"{pos['value']:.6f}"


# -- First move: the paper's tables, the proven errata marked ------------------------------

ROOT = Path(__file__).resolve().parents[1]
#: docs/errata.md: the cells (bid, upcard) of Rhoads & Bartholdi 2012, Table 2 whose
#: exact probability provably lies outside the printed number's rounding interval.
TABLE_2_ERRATA = [[1, 11], [4, 5], [6, 3], [11, 10]]


def test_the_table_certified_is_what_the_cli_prints(client):
    assert client.get("/api/table", params={"n": 5, "certified": 1}).json() == cli_json(
        "table", 5, "--json", "--quiet", "--certified"
    )
    r = client.get("/api/table", params={"n": 5, "certified": "maybe"})
    assert r.status_code == 400 and "certified must be 1 or 0" in r.json()["error"]


def test_first_move_n5_is_proved_against_table_1(page_server, browser):
    from selenium.webdriver.common.by import By

    load(browser, f"{page_server}/#first?n=5&objective=points")
    note = wait_for(browser, lambda d: d.find_element(By.ID, "paper-note").text)
    assert note == "all 25 entries agree with the certified enclosures of the exact probabilities"
    assert browser.find_element(By.ID, "paper-title").text.endswith("Table 1 (N = 5)")
    assert browser.find_elements(By.CSS_SELECTOR, "td.erratum") == []
    cell = browser.find_element(By.CSS_SELECTOR, '#paper-table td[data-bid="2"][data-upcard="4"]')
    assert cell.text == "0.07347"  # as printed


#: Float LP ranges (beyond EXACT_MAX_N) against the CLI's exact ones (N <= 7): the LPs'
#: tolerance, far below what the page shows (4 decimals) or calls unique (1e-6).
FLOAT_RANGE_TOLERANCE = 1e-9


def test_the_tables_ranges_are_what_the_cli_prints(client):
    """/api/table?ranges=1 answers the ranges of `gops table N --ranges --json`: equal up
    to EXACT_MAX_N (both exact), within FLOAT_RANGE_TOLERANCE beyond (float LPs here,
    exact rationals in the CLI up to N = 7); a win table is refused with the CLI's line."""
    for n in (3, 6):
        r = client.get("/api/table", params={"n": n, "ranges": 1})
        assert r.status_code == 200 and r.json()["ranges_exact"] is (n <= 5)
        ours = r.json()["ranges"]
        cli = cli_json("table", n, "--ranges", "--json", "--quiet")["ranges"]
        assert ours.keys() == cli.keys()
        for u in cli:
            for (lo, hi), (clo, chi) in zip(ours[u], cli[u], strict=True):
                if n <= 5:
                    assert (lo, hi) == (clo, chi)
                else:
                    assert abs(lo - clo) <= FLOAT_RANGE_TOLERANCE
                    assert abs(hi - chi) <= FLOAT_RANGE_TOLERANCE
    r = client.get("/api/table", params={"n": 4, "objective": "win", "ranges": 1})
    assert (
        r.status_code == 400
        and r.json()["error"] == "--ranges applies to the points objective only"
    )


def test_first_move_marks_the_probabilities_that_range_over_the_optimal_set(page_server, browser):
    """N = 3: on upcard 2 the optimal strategies form a set (bid 2 ranges over 5/9..1, bid
    3 over 0..4/9: gops table 3 --ranges); the page marks those two cells and says so, with
    each range in its cell's title; N = 4 is unique."""
    from selenium.webdriver.common.by import By

    load(browser, f"{page_server}/#first?n=3&objective=points")
    note = wait_for(browser, lambda d: d.find_element(By.ID, "first-ranges").text)
    assert "unique in 2 of 3 columns" in note and "upcard 2 " in note and "(exact)" in note
    marked = browser.find_elements(By.CSS_SELECTOR, "#first-table td.ranged")
    titles = {(c.get_attribute("data-bid"), c.get_attribute("data-upcard")): c for c in marked}
    assert set(titles) == {("2", "2"), ("3", "2")}
    assert "over all optimal strategies from 0.5556 to 1.0000" in titles["2", "2"].get_attribute(
        "title"
    )
    assert "from 0.0000 to 0.4444" in titles["3", "2"].get_attribute("title")
    load(browser, f"{page_server}/#first?n=4&objective=points")
    wait_for(browser, lambda d: "every column" in d.find_element(By.ID, "first-ranges").text)
    assert browser.find_elements(By.CSS_SELECTOR, "#first-table td.ranged") == []


def table_2_answer() -> dict:
    """What /api/table?n=13&certified=1 answers from a store of N = 13 (the float table
    here the midpoints of the committed enclosures, benchmarks/table2_certified.json,
    which `gops table 13 --store DIR --certified` proved)."""
    enclosures = json.loads((ROOT / "benchmarks" / "table2_certified.json").read_text())
    enclosures = enclosures["enclosures"]
    return {
        "n": 13,
        "objective": "points",
        "by_upcard": {u: [(lo + hi) / 2 for lo, hi in iv] for u, iv in enclosures.items()},
        "equilibrium_gap": 1e-15,
        "certified": {
            u: {
                "unique_and_enclosed": True,
                "value": [0, 0],
                "guarantee": [0, 0],
                "mine": {str(b): bounds for b, bounds in enumerate(iv, 1)},
            }
            for u, iv in enclosures.items()
        },
    }


def test_first_move_n13_marks_the_papers_proven_errata(page_server, browser):
    """The page's rule on the certified enclosures of N = 13 marks exactly the four
    proven errata of docs/errata.md, on the paper's Table 2 and on our table.  No store of
    N = 13 is at hand in the tests: the server's answers for N = 13 (/api/info listing
    it, /api/table) are stood in for, in the browser, by what a store's server answers."""
    from selenium.webdriver.common.by import By

    answer = json.dumps(table_2_answer())
    stand_in = (
        "const realFetch = window.fetch;"
        "window.fetch = async (url, opts) => {"
        "  if (String(url).startsWith('/api/table?n=13&'))"
        f"    return new Response(JSON.stringify({answer}));"
        "  const r = await realFetch(url, opts);"
        "  if (String(url).startsWith('/api/info')) {"
        "    const info = await r.json(); info.solvable.points.push(13);"
        "    return new Response(JSON.stringify(info)); }"
        "  return r; };"
    )
    script = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": stand_in})
    try:
        load(browser, f"{page_server}/#first?n=13&objective=points")
        note = wait_for(browser, lambda d: d.find_element(By.ID, "paper-note").text)
        assert note.startswith("165 of 169 entries agree") and "4 proven errata" in note
        for table in ("paper-table", "first-table"):
            marked = [
                [int(td.get_attribute("data-bid")), int(td.get_attribute("data-upcard"))]
                for td in browser.find_elements(By.CSS_SELECTOR, f"#{table} td.erratum")
            ]
            assert sorted(marked) == TABLE_2_ERRATA
        cell = browser.find_element(
            By.CSS_SELECTOR, '#paper-table td[data-bid="1"][data-upcard="11"]'
        )
        assert cell.text == "0.014" and "[0.0145034215" in cell.get_attribute("title")
        browser.save_screenshot(str(ARTIFACTS / "first-move-13.png"))
    finally:
        browser.execute_cdp_cmd(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]}
        )


def test_the_pages_table_2_is_the_papers(page_server, browser):
    """The page's transcription of Table 2 is benchmarks/paper_tables.py's."""
    import importlib.util

    from selenium.webdriver.common.by import By

    spec = importlib.util.spec_from_file_location(
        "paper_tables", ROOT / "benchmarks" / "paper_tables.py"
    )
    paper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(paper)
    browser.get(f"{page_server}/#first?n=5&objective=points")
    wait_for(
        browser, lambda d: d.find_element(By.ID, "loading").get_attribute("hidden") is not None
    )
    rows = browser.execute_script("return PAPER[13].rows.map((r) => r.map(Number));")
    assert rows == paper.TABLE_2


# -- Explore: the range of each probability over all optimal strategies ---------------------


def test_a_position_has_the_ranges_over_all_optimal_strategies(client):
    """N = 4, my 1, 2 against their 1, 3, prizes 1, 2, the 1 up: I bid 2 for sure, but
    they may play the 1 with any probability in [2/3, 1] (exact LPs, N <= 5); the
    equilibrium's mix lies inside."""
    q = {"n": 4, "mine": "1,2", "theirs": "1,3", "deck": "1,2", "upcard": 1}
    pos = client.get("/api/position", params=q).json()
    r = pos["ranges"]
    assert r["exact"] and r["unique"] == {"mine": True, "theirs": False}
    assert r["mine"] == {"1": [0.0, 0.0], "2": [1.0, 1.0]}
    assert r["theirs"] == {"1": [2 / 3, 1.0], "3": [0.0, 1 / 3]}
    for c, (lo, hi) in r["theirs"].items():
        assert lo - 1e-12 <= pos["theirs"][c] <= hi + 1e-12
    # float LPs beyond N = 5: the 8-card game's first move is unique (as the paper's)
    full = ",".join(map(str, range(1, 9)))
    r = client.get(
        "/api/position", params={"n": 8, "mine": full, "theirs": full, "deck": full, "upcard": 8}
    ).json()["ranges"]
    assert not r["exact"] and r["unique"] == {"mine": True, "theirs": True}


def test_explore_draws_the_ranges_as_whiskers(page_server, browser):
    from selenium.webdriver.common.by import By

    explore(
        browser, page_server, "#explore?n=4&objective=points&mine=1,2&theirs=1,3&deck=1,2&upcard=1"
    )
    text = browser.find_element(By.ID, "ranges").text
    assert "my optimal strategy is unique" in text
    assert "their optimal strategies form a set" in text and "bid 1: [0.6667, 1.0000]" in text
    whiskers = browser.execute_script(
        "return [...document.querySelectorAll('#theirs-mix g')].map((g) => "
        "[g.dataset.card, Number(g.dataset.lo), Number(g.dataset.hi), "
        "g.querySelectorAll('line.range').length]);"
    )
    assert whiskers == [["1", 2 / 3, 1.0, 1], ["3", 0.0, 1 / 3, 1]]
    assert browser.find_elements(By.CSS_SELECTOR, "#mine-mix line.range") == []


def test_a_position_has_its_values_before_the_upcard(client):
    """f(V, Y, P) before the upcard is the mean of f_u over the prizes (the random
    order), and f_u of the position's own upcard is its value (sec 3's recursion)."""
    pos = client.get("/api/position", params=POSITIONS[0]).json()
    before = pos["before_upcard"]
    assert set(before["by_upcard"]) == {"1", "2", "5"}
    assert before["by_upcard"]["2"] == pytest.approx(pos["value"], abs=1e-12)
    assert before["value"] == pytest.approx(sum(before["by_upcard"].values()) / 3, abs=1e-12)


def test_explore_turns_up_another_prize_from_the_values_before_it(page_server, browser, client):
    from selenium.webdriver.common.by import By

    explore(
        browser,
        page_server,
        "#explore?n=5&objective=points&mine=1,3,5&theirs=2,4,5&deck=1,2,5&upcard=2",
    )
    assert browser.find_element(By.ID, "before").text.startswith("before the prize is turned up: ")
    browser.find_element(By.CSS_SELECTOR, '#before button[data-card="5"]').click()
    wait_for(browser, lambda d: "upcard=5" in d.current_url)
    want = client.get("/api/strategy", params=POSITIONS[0] | {"upcard": 5}).json()["value"]
    wait_for(browser, lambda d: d.find_element(By.ID, "value").text == f"{want:.6f}")


def test_a_seed_in_the_address_replays_the_game(page_server, browser, client):
    from selenium.webdriver.common.by import By

    load(browser, f"{page_server}/#play?n=6&objective=points&seed=5")
    wait_for(browser, lambda d: d.find_element(By.ID, "new-game").is_displayed())
    assert browser.find_element(By.ID, "seed").get_attribute("value") == "5"
    browser.find_element(By.ID, "new-game").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "play-seed").text == "seed 5")
    want = client.get("/api/game/new", params={"n": 6, "seed": 5}).json()
    assert browser.find_element(By.ID, "prize").text == str(want["upcard"])
    assert "seed=5" in browser.current_url
    browser.find_element(By.ID, "seed").clear()  # empty: a random seed, shown and linked
    browser.find_element(By.ID, "new-game").click()
    seed = wait_for(
        browser,
        lambda d: (
            d.find_element(By.ID, "play-seed").text != "seed 5"
            and d.find_element(By.ID, "play-seed").text
        ),
    )
    assert f"seed={seed.split()[1]}" in browser.current_url
