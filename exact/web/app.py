"""The web app of ``gops serve``: a JSON API and one static page that uses it.

Starlette (an ASGI toolkit: routing, query parsing, static files, a test client) served
by uvicorn; the page is plain HTML, CSS and JavaScript (SVG charts), so there is no build
step.  The API returns exactly what the command line prints with ``--json``: both build
their answers with :mod:`exact.views`.

    GET /api/info                                   N solvable here, stores served, the
                                                    saved three-player solutions read
    GET /api/strategy?n&mine&theirs&deck&upcard[&objective&lead]   = gops strategy --json
    GET /api/table?n[&objective&lead&certified&ranges]
                                                    = gops table --json [--certified]
                                                    [--ranges] (ranges: exact for
                                                    N <= EXACT_MAX_N, float LPs beyond)
    GET /api/position?...  (as strategy)            strategy + payoff matrix, supports,
                                                    exact mix (small hands), certified
                                                    intervals, value enclosure, ranges over
                                                    all optima, values before the upcard
    GET /api/line?n&mine&theirs&deck[&objective&lead]&line=u:b-t,...
                                                    a line of play stepped from a position:
                                                    the position reached, its values
    POST /api/nashconv?n[&order&objective&fill_uniform]   (body: a policy file)
                                                    = gops imperfect nashconv FILE --json,
                                                    plus exploitability (NashConv / 2);
                                                    at most UPLOAD_MAX_BYTES (else 413)
    GET /api/progress                               the large solves under way, how far
                                                    (queued: their place, what is ahead)
    POST /api/cancel?n[&objective&order&variant]    stop them (their requests get 400; a
                                                    queued one at once); variant: that
                                                    variant's solves, else the standard
                                                    game's
    GET /api/game/new?n[&objective&lead&order&seed&variant]
                                                    a game against the equilibrium (lead:
                                                    your head start, win objective;
                                                    variant: standard, twelve, dummy,
                                                    three, three-third or
                                                    three-discard,
                                                    points and the random order only;
                                                    hidden: hidden bids against the
                                                    shipped imperfect-information
                                                    equilibrium, its order and objective)
    GET /api/game/bid?<state>&bid                   your bid: the round played and scored
    (``declarations=1``: face-up declarations, the standard game for points;
    ``declare=1`` with a bid: face up from this round on)
    GET /api/game/declare?<state>&declare=0|1       variant=declaring (declarations
                                                    against their equilibrium, both may
                                                    declare): your declaration this round
    GET /api/game/prize?<state>&prize               your choice of the next prize
                                                    (order=controlled-by-me)
    (a game's answer once it is over adds ``review``: each of your bids against the
    equilibrium, :meth:`exact.play.engine.Game.review`; the standard game only, as the
    review covers it only)

The games keep no state on the server: a game's answer carries ``state`` (n, objective,
its lead, order, seed, variant and your moves so far, ``bids`` and ``prizes``), which the
page sends back with its next move; the server replays the game from it with
:mod:`exact.play.engine` (the game's random seed draws the computer's bids), plays the
move and answers the new game.

Bad input is HTTP 400 with {"error": "<the one line the CLI would print>"}.

The parts: :mod:`exact.web.query` parses a query into typed objects,
:mod:`exact.web.solutions` answers a game from a store, the byte-bounded cache
(:mod:`exact.web.cache`) or a solve (small ones in the request's thread, large ones by the
solver threads of :mod:`exact.web.pool`, watched by :mod:`exact.web.progress`),
:mod:`exact.web.explore` and :mod:`exact.web.play` build the answers
(:mod:`exact.web.game_json` a game's).  A request waiting for a large solve holds no thread
(it awaits the solve's future), so cheap requests (info, the page, cached or small games)
are never queued behind one; a request that would queue beyond the solver threads' queue
is HTTP 503 with ``Retry-After`` (seconds, from the cost model) and a JSON error.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from exact.errors import GopsInputError, SolverError
from exact.game.variants import get_variant
from exact.kernels import points, win
from exact.limits import VARIANT_MAX_N
from exact.play.hidden import shipped_games
from exact.play.three import served_solutions
from exact.web.explore import line, position, strategy, table
from exact.web.play import game_bid, game_declare, game_new, game_prize
from exact.web.pool import WEB_QUEUE, WEB_SOLVERS, Busy
from exact.web.query import PLAY_VARIANTS, check_parameters, game_query, query_variant
from exact.web.solutions import WEB_CACHE_BYTES, WEB_SOLVE_MAX_N, Pending, Solutions
from exact.web.upload import (
    UPLOAD_MAX_BYTES,
    WEB_NASHCONV_MAX_N,
    TooLarge,
    policy_nash_conv,
    read_body,
)

STATIC = Path(__file__).parent / "static"


def warm_up() -> float:
    """Compile (or load from numba's cache) the kernels of both objectives, so that no
    request waits for the compiler; seconds spent (0.3 s from the cache, 10 to 20 s cold)."""
    return points.warm_up() + win.warm_up()


def progress(request: Request) -> dict:
    """The large solves queued or running: what, its level, the fraction done (by the
    cost model's work), seconds so far and the model's estimate."""
    return {"solving": request.app.state.solutions.solving()}


def cancel(request: Request) -> dict:
    """Cancel the solves of the query's game (n, objective; ``order``: a game's order,
    whose solves are of that order and of its mirror, else every order; ``variant``: that
    two-player variant's solves, else the standard game's); what was cancelled."""
    game, _ = game_query(request, with_order=True)
    variant = query_variant(request)  # parsed once
    orders = None
    if "order" in request.query_params:
        orders = {game.order, game.mirrored().order}
    return {"cancelled": request.app.state.solutions.cancel(game, orders, variant)}


def variant_limits() -> dict:
    """The N each variant of Play is played at: the variant solver's float limits
    (exact.limits.VARIANT_MAX_N; the twelve-round game needs two cards, as its rules drop
    the last prize), which ``gops play --variant`` applies too."""
    from exact.play.declaring import DECLARING_MAX_N

    return {
        v: {"min_n": 2 if get_variant(v).drop_last else 1, "max_n": VARIANT_MAX_N[v, "float"]}
        for v in PLAY_VARIANTS[1:]
    } | {"declaring": {"min_n": 1, "max_n": DECLARING_MAX_N}}


def info(request: Request) -> dict:
    solutions = request.app.state.solutions
    pool = solutions.pool
    return {
        "solvable": solutions.available(),
        "solve_max_n": WEB_SOLVE_MAX_N,
        "variants": variant_limits(),
        "hidden": [list(g) for g in shipped_games()],
        "nashconv": {"upload_max_bytes": UPLOAD_MAX_BYTES, "max_n": WEB_NASHCONV_MAX_N},
        "stores": solutions.stores_json(),
        "three_solutions": served_solutions(),
        "solves": solutions.solves,
        "limits": solutions.limits
        | {
            "served": solutions.served(),
            "solve_max_bytes": solutions.solve_max_bytes,
            "cache_bytes": solutions.cache_bytes,
            "cached_bytes": solutions.cached_bytes,
            "solvers": pool.workers,
            "queue": pool.limit,
            "running": pool.running,
            "queued": pool.queued,
        },
    }


class CliJSON(JSONResponse):
    """JSON laid out as the command line prints it (``json.dumps`` defaults), so an answer
    is byte for byte what ``gops ... --json`` prints, without its final newline."""

    def render(self, content) -> bytes:
        return json.dumps(content).encode()


def _api(handler, path: str):
    """The JSON endpoint ``path``: the handler runs in a worker thread; 400 with the CLI's
    one-line message for bad input (a query parameter ``path`` does not take, or one
    given twice, included); 503 with Retry-After when the solvers are full.  A solution
    being made elsewhere is awaited here, holding no thread, then the handler runs again
    with it pinned (a position needs at most two: float and exact)."""

    async def endpoint(request: Request):
        request.state.pinned = {}
        try:
            check_parameters(request, path)
            for _ in range(4):
                try:
                    return CliJSON(await run_in_threadpool(handler, request))
                except Pending as pending:  # shield: a client leaving cancels no solve
                    solution = await asyncio.shield(asyncio.wrap_future(pending.future))
                    request.state.pinned[pending.key] = solution
            raise SolverError("a request kept waiting for solutions")
        except GopsInputError as exc:
            return CliJSON({"error": str(exc)}, status_code=400)
        except Busy as exc:
            return CliJSON(
                {"error": str(exc)}, status_code=503, headers={"Retry-After": str(exc.retry_after)}
            )
        except asyncio.CancelledError:  # the server stops (uvicorn's graceful timeout)
            return CliJSON({"error": "the server is stopping"}, status_code=503)

    return endpoint


async def nashconv_upload(request: Request):
    """POST /api/nashconv: the NashConv of the uploaded policy file (exact.web.upload);
    400 with one line for bad input, 413 for a file beyond the upload limit."""
    try:
        check_parameters(request, "/api/nashconv")
        raw = await read_body(request)
        params = dict(request.query_params)
        return CliJSON(await run_in_threadpool(policy_nash_conv, params, raw))
    except TooLarge as exc:
        return CliJSON({"error": str(exc)}, status_code=413)
    except GopsInputError as exc:
        return CliJSON({"error": str(exc)}, status_code=400)


async def index(request: Request):
    return FileResponse(STATIC / "index.html")


async def favicon(request: Request):
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


#: The JSON endpoints read with GET (POST /api/cancel besides them).
API = {
    "/api/info": info,
    "/api/progress": progress,
    "/api/strategy": strategy,
    "/api/position": position,
    "/api/table": table,
    "/api/line": line,
    "/api/game/new": game_new,
    "/api/game/bid": game_bid,
    "/api/game/prize": game_prize,
    "/api/game/declare": game_declare,
}


def create_app(
    stores=(),
    cache_bytes: int = WEB_CACHE_BYTES,
    solvers: int = WEB_SOLVERS,
    queue_limit: int = WEB_QUEUE,
) -> Starlette:
    """The app of ``gops serve``; ``stores``: store directories to answer from; the cache
    in bytes, the solver threads and the solves that may wait for them."""
    app = Starlette(
        routes=[
            Route("/", index),
            Route("/favicon.ico", favicon),
            *(Route(path, _api(handler, path)) for path, handler in API.items()),
            Route("/api/cancel", _api(cancel, "/api/cancel"), methods=["POST"]),
            Route("/api/nashconv", nashconv_upload, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]
    )
    app.state.solutions = Solutions(stores, cache_bytes, solvers, queue_limit)
    return app
