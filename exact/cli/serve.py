"""gops serve: the web page to explore the solution and play against it (exact.web).

The socket is bound before anything is printed, so a port in use or an address that is
not this machine's is one line ``gops: error: ...`` (exit 2) and nothing is claimed; the
kernels are compiled next, so that no request waits for numba.  SIGTERM and Ctrl-C stop
the server within ``GRACE_SECONDS`` plus a moment, solves under way included (their
threads are daemons: abandoned, nothing of them is kept).
"""

from __future__ import annotations

import click

from exact.cli.common import INTEGER, one_line_errors
from exact.errors import GopsInputError

#: uvicorn's graceful shutdown: requests still running after this are cancelled.
GRACE_SECONDS = 2
MIB = 2**20


def listening_socket(host: str, port: int):
    """A TCP socket listening on (host, port) (connections wait in its backlog until
    uvicorn accepts them); one-line error if it cannot."""
    import socket

    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (socket.gaierror, UnicodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise GopsInputError(
            f"cannot listen on {host}:{port}: {reason} (--host must be an address of this machine)"
        ) from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # not a port in use
        sock.bind(address)
        sock.listen(2048)  # uvicorn's backlog
    except OSError as exc:
        sock.close()
        raise GopsInputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def _use_solutions(folders: tuple[str, ...]) -> None:
    """--solutions DIR: each a readable folder (one line, exit 2, if not); its saved
    three-player solutions are read when a game asks (exact.play.three)."""
    import os

    from exact.play.three import use_solutions

    for folder in folders:
        if not os.path.isdir(folder) or not os.access(folder, os.R_OK | os.X_OK):
            raise GopsInputError(f"--solutions {folder}: not a readable folder")
    use_solutions(folders=folders)


@click.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on (0.0.0.0: every interface).",
)
@click.option(
    "--port",
    type=INTEGER,
    default=8000,
    show_default=True,
    help="TCP port (0: any free one, printed).",
)
@click.option(
    "--store",
    "stores",
    multiple=True,
    type=click.Path(file_okay=False),
    help="Also answer from this store (any N it holds, either objective); repeatable.",
)
@click.option(
    "--solutions",
    "solution_dirs",
    multiple=True,
    type=click.Path(file_okay=False),
    help="Play three-player games from the saved solutions in this folder (gops solve N "
    "--players 3 ... --save DIR/FILE; any N each holds), besides the cache folder's; "
    "repeatable.",
)
@click.option(
    "--cache-mib",
    type=INTEGER,
    default=2048,
    show_default=True,
    help="Memory for the solutions kept (least recently used dropped first); one "
    "solve on the fly may fill at most this or 1280 MiB.",
)
@click.option(
    "--solvers",
    type=INTEGER,
    default=1,
    show_default=True,
    help="Solves on the fly at a time (each already uses every core).",
)
@click.option(
    "--queue",
    "queue_limit",
    type=INTEGER,
    default=4,
    show_default=True,
    help="Solves that may wait for a solver; a request beyond is HTTP 503.",
)
@one_line_errors
def serve(
    host: str,
    port: int,
    stores: tuple[str, ...],
    solution_dirs: tuple[str, ...],
    cache_mib: int,
    solvers: int,
    queue_limit: int,
) -> None:
    """Serve the web page: explore any position, the first move, and play the solution."""
    import signal

    import uvicorn

    from exact.web.app import create_app, warm_up

    if not 0 <= port <= 65535:
        raise GopsInputError(f"--port must be between 0 and 65535, got {port}")
    for name, value, low in (
        ("--cache-mib", cache_mib, 1),
        ("--solvers", solvers, 1),
        ("--queue", queue_limit, 0),
    ):
        if value < low:
            raise GopsInputError(f"{name} must be at least {low}, got {value}")
    # a bad store is a one-line error here, before listening
    app = create_app(stores, cache_mib * MIB, solvers, queue_limit)
    _use_solutions(solution_dirs)
    sock = listening_socket(host, port)
    warm_up()
    shown = f"[{host}]" if ":" in host else host
    click.echo(
        f"gops: serving on http://{shown}:{sock.getsockname()[1]}/  (Ctrl-C stops)", err=True
    )
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=GRACE_SECONDS)
    )
    # uvicorn handles SIGINT and SIGTERM while it runs, then raises the signal again for
    # the handlers it found: these, so that a stop is an ordinary exit 0.
    previous = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sock.close()
    click.echo("gops: stopped", err=True)
