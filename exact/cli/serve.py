"""gops serve: the web page to explore the solution and play against it (exact.web)."""

from __future__ import annotations

import click

from exact.cli.common import INTEGER, one_line_errors
from exact.errors import GopsInputError


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0: every interface).")
@click.option("--port", type=INTEGER, default=8000, show_default=True, help="TCP port.")
@click.option("--store", "stores", multiple=True, type=click.Path(file_okay=False),
              help="Also answer from this store (any N it holds, either objective); repeatable.")
@one_line_errors
def serve(host, port, stores):
    """Serve the web page: explore any position, the first move, and play the solution."""
    import uvicorn

    from exact.web.app import create_app

    if not 0 <= port <= 65535:
        raise GopsInputError(f"--port must be between 0 and 65535, got {port}")
    app = create_app(stores)  # a bad store is a one-line error here, before listening
    click.echo(f"gops: serving on http://{host}:{port}/  (Ctrl-C stops)", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    click.echo("gops: stopped", err=True)
