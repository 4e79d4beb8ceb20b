"""gops imperfect certify N: an exact equilibrium of imperfect-information Goofspiel
(OpenSpiel's goofspiel(imp_info=True)) and its LP-duality certificate, written for the
independent checker (``python -m certificates FILE``; certificates/FORMAT.md,
"Imperfect-information certificates").  Registered on the ``gops imperfect`` group by
:mod:`exact.cli`."""

from __future__ import annotations

import json
import os

import click

from exact.atomic import output_kind
from exact.cli.common import INTEGER, imperfect_game_options, one_line_errors
from exact.errors import GopsInputError
from exact.imperfect.certificate import certify as write_imperfect_certificate
from exact.imperfect.game import ImperfectGame


@click.command()
@click.argument("n", type=INTEGER)
@imperfect_game_options
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False),
    help="Where to write the certificate (msgpack; written atomically; - for stdout).",
)
@click.option("--force", is_flag=True, help="Overwrite the certificate file if it exists.")
@click.option("--json", "as_json", is_flag=True, help='Print JSON (exact numbers as "p/q").')
@click.option("--quiet", is_flag=True, help="No progress lines on stderr.")
@one_line_errors
def certify(
    n: int, order: str, objective, out: str, force: bool, as_json: bool, quiet: bool
) -> None:
    """Solve N-card imperfect-information goofspiel exactly and write its certificate.

    The certificate holds both players' exact realization plans (keyed by OpenSpiel's
    information-state strings) and the value; `python -m certificates FILE` (or `gops
    check FILE`) proves the value from the rules alone: both plans are realization plans
    and both best responses give the stated value (zero duality gap).  N at most 5 in
    the random order, 6 in the fixed orders.  An existing FILE is overwritten only with
    --force; with --out - the certificate goes to standard output, the report to stderr.
    """
    game = ImperfectGame.parse(n, order, objective)
    kind = output_kind(out)  # a folder or a FIFO refused here, before the solve
    if (kind == "file" or kind == "new" and os.path.lexists(out)) and not force:
        raise GopsInputError(f"{out} exists; pass --force to overwrite it")

    def progress(line: str) -> None:
        if not quiet:
            click.echo(f"gops: {line}", err=True)

    result = write_imperfect_certificate(game, out, progress)
    # The certificate itself may go to standard output (`--out -`): the report then
    # goes to stderr, so that the pipe carries the certificate alone.
    to_stderr = kind == "stdout"
    if as_json:
        click.echo(json.dumps(result.to_json()), err=to_stderr)
        return
    click.echo(
        f"value of {n}-card imperfect-information goofspiel ({order} order, "
        f"{game.objective.name}) to player 0: {result.value} (exact)",
        err=to_stderr,
    )
    click.echo(
        f"certificate: {result.decisions[0]} + {result.decisions[1]} information states, "
        f"{result.bytes:,} bytes, written to {out}",
        err=to_stderr,
    )
    target = "/dev/stdin (pipe it there)" if to_stderr else out
    click.echo(f"check it: python -m certificates {target}", err=to_stderr)
