"""gops serve under load (hostile review, items 8 and 9): a cache bounded in bytes, one
solve for every lead, size limits stated in the errors, a bounded solver pool answering
503 with Retry-After, cheap requests never behind a solve, the kernels compiled before
"serving on", a socket that cannot be bound as one line (exit 2), and a stop within
seconds while a win solve of N = 10 runs.  Timings live in benchmarks/bench_web_load.py."""

import json
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest
from click.testing import CliRunner

from exact.cli import main
from exact.web import app as web
from exact.web.app import create_app
from exact.web.cache import solution_bytes
from exact.web.solutions import solve_size


@pytest.fixture(autouse=True)
def _no_logging_handlers_on_the_runners_stream(monkeypatch):
    """uvicorn's Config binds logging handlers to sys.stderr, which CliRunner replaces and
    closes: later tests of the same worker would log to a closed file."""
    import uvicorn.config  # noqa: PLC0415

    monkeypatch.setattr(uvicorn.config.Config, "configure_logging", lambda self: None)


testclient = pytest.importorskip("starlette.testclient")
MIB = 2**20


def test_the_cache_is_bounded_in_bytes_least_recently_used_dropped_first():
    # points N = 7 and N = 8 weigh 67,104 and 339,680 bytes (one value per antisymmetric
    # pair): 350,000 hold one of them
    sizes = {n: solve_size(n, "points")[0] for n in (7, 8)}
    assert sizes == {7: 67_104, 8: 339_680}
    app = create_app(cache_bytes=350_000)
    c, solutions = testclient.TestClient(app), app.state.solutions
    for n in (7, 8, 8, 7, 7):
        assert c.get("/api/table", params={"n": n}).status_code == 200
        assert solutions.cached_bytes <= 350_000
    assert solutions.solves == 3  # 7, 8 (dropping 7), again 8 kept, 7 (dropping 8), 7 kept
    assert solutions.cached_bytes == sizes[7]
    assert c.get("/api/info").json()["limits"]["cached_bytes"] == sizes[7]


def test_a_solutions_weight_is_its_value_arrays_nbytes():
    import exact

    sol = exact.solve(6, objective="win")
    assert solution_bytes(sol) == sum(v.nbytes for v in sol.values) == solve_size(6, "win")[0]
    exact5 = exact.solve(4, arithmetic="rational")  # fractions: their objects counted too
    assert solution_bytes(exact5) > sum(v.nbytes for v in exact5.values)


def test_every_lead_of_a_win_table_is_one_solve():
    """The review's 12 requests of leads 1..12 at N = 8 made 12 solves (and 0.66 GiB)."""
    app = create_app()
    c = testclient.TestClient(app)
    tables = [
        c.get("/api/table", params={"n": 6, "objective": "win", "lead": lead})
        for lead in (1, -2, 5, 21)
    ]
    assert [t.status_code for t in tables] == [200] * 4
    assert app.state.solutions.solves == 1
    lead0 = c.get("/api/table", params={"n": 6, "objective": "win"}).json()
    assert lead0["lead"] == 0 and app.state.solutions.solves == 1  # every lead holds 0 too


def test_the_size_limits_are_stated_in_the_errors_and_in_info():
    """By default every game up to N = 10 is solved on the fly (win N = 10 at every lead
    holds 0.77 GiB of values); with 0.7 GiB a solve, win N = 10 is served at lead 0 only."""
    limits = testclient.TestClient(create_app()).get("/api/info").json()["limits"]
    assert limits["win"] == {"max_n": 10, "max_n_every_lead": 10}
    assert limits["served"] == "points N <= 10, win N <= 10 at every lead"
    c = testclient.TestClient(create_app(cache_bytes=int(0.7 * 2**30)))
    limits = c.get("/api/info").json()["limits"]
    assert limits["points"] == {"max_n": 10}
    assert limits["win"] == {"max_n": 10, "max_n_every_lead": 9}
    served = "points N <= 10, win N <= 9 at every lead, N <= 10 at lead 0"
    assert limits["served"] == served
    r = c.get("/api/table", params={"n": 10, "objective": "win", "lead": 1})  # refused at once
    assert r.status_code == 400
    assert r.json()["error"] == (
        "the win objective at N = 10 with a lead (solved for every lead) is not solved on the "
        "fly here: it needs 0.77 GiB of values (about "
        f"{solve_size(10, 'win', 55)[1]:.0f} s), more than the 0.70 GiB one solve may take; "
        f"served without a store: {served}"
    )


def test_a_smaller_cache_shrinks_what_is_solved_on_the_fly():
    c = testclient.TestClient(create_app(cache_bytes=32 * MIB))
    assert c.get("/api/info").json()["limits"]["served"] == (
        "points N <= 10, win N <= 8 at every lead"
    )
    r = c.get("/api/table", params={"n": 9, "objective": "win"})
    assert r.status_code == 400 and "needs 0.09 GiB" in r.json()["error"]


def blocked_pool(app):
    """Occupy the app's one solver thread until the returned event is set."""
    release, started = threading.Event(), threading.Event()
    app.state.solutions.pool.submit(lambda: (started.set(), release.wait(60)), 30.0)
    assert started.wait(10)
    return release


def test_a_full_solver_queue_is_503_with_retry_after_and_cheap_requests_still_answer():
    app = create_app(solvers=1, queue_limit=0)
    with testclient.TestClient(app) as c:
        release = blocked_pool(app)
        try:
            # win N = 8: 1.0 s by the cost model, so it goes to the (busy) solver thread
            r = c.get("/api/table", params={"n": 8, "objective": "win"})
            assert r.status_code == 503
            assert int(r.headers["Retry-After"]) == 30  # the blocking job's 30 model seconds
            assert r.json()["error"].startswith(
                "the server is busy: 1 solve(s) running and 0 queued"
            )
            # small games are made in the request's own thread, cached ones answered at once
            assert c.get("/api/table", params={"n": 5}).status_code == 200
            assert c.get("/api/info").status_code == 200
            assert c.get("/static/app.js").status_code == 200
        finally:
            release.set()
        # The blocker's thread counts itself done just after its job returns: wait for that
        # (a request in between is rightly 503), then the game is solved.
        deadline = time.monotonic() + 30
        while app.state.solutions.pool.running and time.monotonic() < deadline:
            time.sleep(0.01)
        assert c.get("/api/table", params={"n": 8, "objective": "win"}).status_code == 200


def test_requests_waiting_for_a_solve_hold_no_thread():
    """45 requests wait for one queued solve, more than the 40 threads of Starlette's pool:
    the page's info still answers, then all 45 get the one solution."""
    app = create_app(solvers=1, queue_limit=1)
    with testclient.TestClient(app) as c:
        release = blocked_pool(app)
        codes: list[int] = []

        def ask():
            codes.append(c.get("/api/table", params={"n": 8, "objective": "win"}).status_code)

        waiting = [threading.Thread(target=ask) for _ in range(45)]
        try:
            for t in waiting:
                t.start()
            while app.state.solutions.pool.queued == 0:  # the solve is queued
                time.sleep(0.01)
            info: list[int] = []
            asker = threading.Thread(target=lambda: info.append(c.get("/api/info").status_code))
            asker.start()
            asker.join(30)
            assert info == [200]
        finally:
            release.set()
        for t in waiting:
            t.join(60)
    assert codes == [200] * 45 and app.state.solutions.solves == 1


def test_the_kernels_are_compiled_before_serving_on_is_printed(monkeypatch):
    import uvicorn

    events = []
    monkeypatch.setattr(web, "warm_up", lambda: events.append("warm up") or 0.0)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: events.append("run"))
    result = CliRunner().invoke(main, ["serve", "--port", "0"])
    assert result.exit_code == 0, result.output
    assert events == ["warm up", "run"]
    assert result.output.startswith("gops: serving on http://127.0.0.1:")


def one_line_error(*args) -> str:
    result = CliRunner().invoke(main, ["serve", *args])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "serving on" not in result.output
    return result.output


def test_a_port_in_use_is_one_line_and_exit_2():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert one_line_error("--port", str(port)) == (
            f"gops: error: cannot listen on 127.0.0.1:{port}: Address already in use\n"
        )


@pytest.mark.parametrize("host", ["999.1.1.1", "no-such-host.invalid"])
def test_an_address_not_of_this_machine_is_one_line_and_exit_2(host):
    out = one_line_error("--host", host, "--port", "0")
    assert out.startswith(f"gops: error: cannot listen on {host}:0: ")
    assert out.endswith("(--host must be an address of this machine)\n")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_the_server_stops_within_seconds_during_a_win_solve_of_n_10(sig):
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from exact.cli import main; sys.argv[0] = 'gops'; main()",
            "serve",
            "--port",
            "0",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = proc.stderr.readline().split()[3]  # gops: serving on URL
        answers: list = []

        def ask():
            try:
                with urllib.request.urlopen(f"{url}api/table?n=10&objective=win") as r:
                    answers.append(r.status)
            except urllib.error.HTTPError as exc:
                answers.append((exc.code, json.load(exc)["error"]))

        threading.Thread(target=ask, daemon=True).start()
        for _ in range(600):  # until the solve runs (a minute of 2 cores when left alone)
            with urllib.request.urlopen(f"{url}api/info") as r:
                if json.load(r)["limits"]["running"] == 1:
                    break
            time.sleep(0.05)
        else:
            pytest.fail("the solve never started")
        proc.send_signal(sig)
        assert proc.wait(timeout=10) == 0
        assert "Traceback" not in proc.stderr.read()
        for _ in range(100):
            if answers:
                break
            time.sleep(0.05)
        assert answers == [(503, "the server is stopping")]
    finally:
        proc.kill()
