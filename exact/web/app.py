"""The web app of ``gops serve``: a JSON API and one static page that uses it.

Starlette (an ASGI toolkit: routing, query parsing, static files, a test client) served
by uvicorn; the page is plain HTML, CSS and JavaScript (SVG charts), so there is no build
step.  The API returns exactly what the command line prints with ``--json``: both build
their answers with :mod:`exact.views`.

    GET /api/info                                   N solvable here, stores served
    GET /api/strategy?n&mine&theirs&deck&upcard[&objective&lead]   = gops strategy --json
    GET /api/table?n[&objective&lead]               = gops table --json
    GET /api/position?...  (as strategy)            strategy + payoff matrix, supports,
                                                    exact mix (small hands), certified
                                                    intervals, value enclosure

Bad input is HTTP 400 with {"error": "<the one line the CLI would print>"}; a position
of an N being solved waits for that one solve (one lock per game).
"""

from __future__ import annotations

import threading
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from exact.errors import GopsInputError
from exact.limits import ENCODING_MAX_N, check_n
from exact.views import fraction_text, strategy_json, table_json

STATIC = Path(__file__).parent / "static"
#: Solved on the fly (and kept) up to this N, both objectives: float N = 10 takes about 4 s
#: (points) and 40 s (win) on 2 cores; larger N come from stores (--store).
WEB_SOLVE_MAX_N = 10
#: The exact equilibrium of a position is shown up to this N (the game solved once in
#: rational arithmetic: about a second at N = 5; N = 6 takes 16 s and its fractions have
#: up to 17,419 digits).
EXACT_MAX_N = 5


class Solutions:
    """The solutions the server answers from: solved on the fly (N <= WEB_SOLVE_MAX_N) or
    read from stores, each made once; concurrent requests for one wait for it."""

    def __init__(self, stores=()):
        from exact.dp.store import read_manifest

        self.stores = {}
        for path in stores:
            manifest = read_manifest(path)
            self.stores[manifest["n"], manifest["objective"]] = str(path)
        self._solutions: dict = {}
        self._locks: dict = {}
        self._guard = threading.Lock()
        self.solves = 0  # games solved on the fly (tests count them)

    def available(self) -> dict:
        on_the_fly = list(range(1, WEB_SOLVE_MAX_N + 1))
        return {objective: sorted(set(on_the_fly) | {n for n, o in self.stores if o == objective})
                for objective in ("points", "win")}

    def get(self, n: int, objective: str, arithmetic: str = "float", handicap: int = 0):
        """The solution of N cards (``handicap``: starting leads up to it are solved, win
        objective; as ``gops table --lead`` does)."""
        key = (n, objective, arithmetic, handicap)
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._solutions:
                self._solutions[key] = self._make(n, objective, arithmetic, handicap)
        return self._solutions[key]

    def _make(self, n: int, objective: str, arithmetic: str, handicap: int):
        import exact

        if arithmetic == "rational":
            return exact.solve(n, objective=objective, arithmetic="rational")
        if (n, objective) in self.stores and handicap == 0:
            return exact.load(self.stores[n, objective], n=n, objective=objective)
        stored = ", ".join(str(m) for m, o in sorted(self.stores) if o == objective)
        check_n(n, WEB_SOLVE_MAX_N, what=f" to solve on the fly for the {objective} objective"
                + (f" (stores served: N = {stored})" if stored else " (serve a store with --store)"))
        self.solves += 1
        return exact.solve(n, objective=objective, handicap=handicap)


# -- query parameters ----------------------------------------------------------------------

def _param(request: Request, name: str, required: bool = True):
    value = request.query_params.get(name)
    if value is None and required:
        raise GopsInputError(f"missing query parameter {name!r}")
    return value


def _integer(request: Request, name: str, required: bool = True):
    from exact.game.rules import parse_integer

    value = _param(request, name, required)
    return None if value is None else parse_integer(value, name)


def _cards(request: Request, name: str):
    from exact.game.rules import parse_cards

    return parse_cards(_param(request, name))


def _objective(request: Request) -> tuple[str, int | None]:
    objective = request.query_params.get("objective", "points")
    if objective not in ("points", "win"):
        raise GopsInputError(f"unknown objective {objective!r} (choose from points, win)")
    lead = _integer(request, "lead", required=False)
    if lead is not None and objective != "win":
        raise GopsInputError("--lead applies to --objective win only")
    return objective, (0 if objective == "win" and lead is None else lead)


def _position(request: Request, solutions: Solutions):
    """(solution, mine, theirs, deck, upcard, lead, objective) of a position query."""
    from exact.game.rules import validate_position

    n = check_n(_integer(request, "n"), ENCODING_MAX_N)
    objective, lead = _objective(request)
    mine, theirs, deck = _cards(request, "mine"), _cards(request, "theirs"), _cards(request, "deck")
    upcard = _integer(request, "upcard")
    m, t, d = validate_position(mine, theirs, deck, upcard, n=n)
    sol = solutions.get(n, objective)
    return sol, m, t, d, upcard, lead, objective


# -- endpoints ------------------------------------------------------------------------------

def _head(objective, lead):
    return {"objective": "win", "lead": lead} if objective == "win" else None


def strategy(request: Request) -> dict:
    sol, m, t, d, u, lead, objective = _position(request, request.app.state.solutions)
    return strategy_json(sol.strategy(m, t, d, u, lead), False, _head(objective, lead))


def position(request: Request) -> dict:
    from exact.analysis.certified import certify_strategy
    from exact.views import certified_json

    sol, m, t, d, u, lead, objective = _position(request, request.app.state.solutions)
    st = sol.strategy(m, t, d, u, lead)
    out = strategy_json(st, False, _head(objective, lead))
    A = sol.matrix(m, t, d, u, lead)
    out["n"] = sol.n
    out["rows"], out["columns"] = sorted(m), sorted(t)
    out["matrix"] = [[float(a) for a in row] for row in A]
    game = certify_strategy(sol, m, t, d, u, lead)
    out["certified"] = certified_json(game, m, t)
    if sol.n <= EXACT_MAX_N:
        exact_sol = request.app.state.solutions.get(sol.n, objective, "rational")
        out["exact"] = _exact(exact_sol.strategy(m, t, d, u, lead))
    return out


def _exact(st) -> dict:
    """An exact equilibrium as "p/q" strings with their digit counts."""
    mine = {str(c): fraction_text(p) for c, p in st.mine.items()}
    return {"value": fraction_text(st.value), "mine": mine,
            "theirs": {str(c): fraction_text(p) for c, p in st.theirs.items()},
            "digits": max(len(text) for text in mine.values())}


def table(request: Request) -> dict:
    from exact.dp.solve import check_lead

    n = check_n(_integer(request, "n"), ENCODING_MAX_N)
    objective, lead = _objective(request)
    handicap = abs(check_lead(n, lead, "--lead")) if lead else 0
    sol = request.app.state.solutions.get(n, objective, handicap=handicap)
    root = set(range(1, n + 1))
    strategies = {u: sol.strategy(root, root, root, u, lead) for u in range(1, n + 1)}
    gap = max(s.gap for s in strategies.values())
    return table_json(n, sol.objective, lead if objective == "win" else None,
                      {u: s.mine for u, s in strategies.items()}, gap)


def info(request: Request) -> dict:
    solutions = request.app.state.solutions
    return {"solvable": solutions.available(), "solve_max_n": WEB_SOLVE_MAX_N,
            "stores": [{"n": n, "objective": o} for n, o in sorted(solutions.stores)]}


class CliJSON(JSONResponse):
    """JSON laid out as the command line prints it (``json.dumps`` defaults), so an answer
    is byte for byte what ``gops ... --json`` prints, without its final newline."""

    def render(self, content) -> bytes:
        import json

        return json.dumps(content).encode()


def _api(handler):
    """A JSON endpoint: 400 with the CLI's one-line message for bad input, run in a worker
    thread (solving blocks)."""
    from starlette.concurrency import run_in_threadpool

    async def endpoint(request: Request):
        try:
            return CliJSON(await run_in_threadpool(handler, request))
        except GopsInputError as exc:
            return CliJSON({"error": str(exc)}, status_code=400)

    return endpoint


async def index(request: Request):
    return FileResponse(STATIC / "index.html")


def create_app(stores=()) -> Starlette:
    """The app of ``gops serve``; ``stores``: store directories to answer from."""
    app = Starlette(routes=[
        Route("/", index),
        Route("/api/info", _api(info)),
        Route("/api/strategy", _api(strategy)),
        Route("/api/position", _api(position)),
        Route("/api/table", _api(table)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])
    app.state.solutions = Solutions(stores)
    return app
