"""gops certify, check and reproduce: LP-duality certificates, written and checked."""

from __future__ import annotations

import filecmp
import os
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import click

from certificates import check as check_certificate
from exact.atomic import output_kind
from exact.certificate.bounds_writer import certify_bounds
from exact.certificate.writer import certify as write
from exact.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_CHECK_FAILED,
    INTEGER,
    NumberArgumentsCommand,
    ProgressBar,
    fail,
    format_table,
    game_options,
    objective_option,
    one_line_errors,
)
from exact.cli.limits import check_command_n, objective_flag
from exact.errors import GopsInputError
from exact.game.spec import GameSpec


def _certify_n(options: dict) -> int:
    """gops certify's N: its limit depends on --objective, or on --bounds (points only)."""
    if options["bounds"]:
        if options["objective"].has_lead:
            raise GopsInputError("bound certificates are written for the points objective only")
        return check_command_n(options["n"], "certify", "--bounds")
    return check_command_n(options["n"], "certify", objective_flag(options["objective"]))


@click.command(cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@click.option(
    "-o",
    "--output",
    "output",
    required=True,
    type=click.Path(dir_okay=False),
    help="Certificate file to write (atomically); - (or /dev/stdout) writes it to standard output.",
)
@click.option("--force", is_flag=True, help="Overwrite the certificate file if it exists.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@objective_option("What the certified values are (FORMAT.md).")
@click.option(
    "--bounds",
    is_flag=True,
    help="Write a bound certificate of the float solver instead: its values, the "
    "strategies it used and its certified radii (points, N <= 9; FORMAT.md, "
    "'Bound certificates').",
)
@game_options(
    "certify", n=_certify_n, arithmetic=lambda options: "float" if options["bounds"] else "rational"
)
def certify(game: GameSpec, output: str, force: bool, quiet: bool, bounds: bool) -> None:
    """Solve N-card GOPS exactly and write its LP-duality certificate (N <= 7), or with
    --bounds solve it in floating point and write the bound certificate of its certified
    radii (N <= 9).  Both are checked by gops check.

    An existing file is overwritten only with --force; with -o - the certificate goes to
    standard output and the summary to stderr."""

    if bounds:
        _certify_bounds(game, output, quiet, force)
        return
    n = game.n
    target = _output(output, force)
    bar = ProgressBar(enabled=not quiet)
    try:
        sol = write(n, target, game.objective, progress=bar)
    finally:
        bar.close()
    st = sol.stats
    assert st is not None  # a solve records its stats
    say, size = _summary(output, st.extra["certificate_bytes"])
    say(f"wrote {output}: N={n}, {st.extra['records']:,} records, {size}{st.seconds:.2f} s")
    paths = st.extra["paths"]
    saddle = f"{paths['saddle']:,} pure saddle points, " if "saddle" in paths else ""
    say(
        f"exact matrix games: {saddle}{paths.get('basis', 0):,} from the float basis "
        f"guess, {paths.get('simplex', 0):,} by the exact simplex fallback"
    )


def _output(output: str, force: bool, regular: bool = False) -> str:
    """Where the writer writes ``-o output``, checked before any solve: an existing file
    needs --force (gops certify and gops reproduce alike); a FIFO, a folder... are refused
    (exact.atomic.output_kind); ``regular``: a file only, not standard output or a device."""

    kind = output_kind(output)
    if regular and kind not in ("file", "new"):
        raise GopsInputError(
            f"{output} is not a regular file; gops reproduce reads its "
            "certificate back: pass -o FILE"
        )
    if (kind == "file" or kind == "new" and os.path.lexists(output)) and not force:
        raise GopsInputError(
            f"{output} exists; pass --force to overwrite it, or -o FILE to "
            "write the certificate elsewhere"
        )
    if kind == "stdout":
        return "/dev/stdout"  # the writers stat their file; exact.atomic writes sys.stdout
    if os.fspath(Path(output)) == "-":
        return os.path.abspath(output)  # ./- is a file named "-", not standard output
    return output


def _summary(output: str, size: int):
    """(click.echo, on stderr when the certificate itself goes to standard output; the
    size "N bytes, " of a file, "" where a device or a pipe cannot tell it)."""

    kind = output_kind(output)
    size_text = f"{size:,} bytes, " if kind in ("file", "new") else ""
    return (lambda line: click.echo(line, err=kind == "stdout")), size_text


def _certify_bounds(game: GameSpec, output, quiet, force=False):
    """gops certify N --bounds: the float solve and its bound certificate (the points
    objective: :func:`_certify_n`)."""

    n = game.n
    target = _output(output, force)
    bar = ProgressBar(enabled=not quiet)
    try:
        sol = certify_bounds(n, target, progress=bar)
    finally:
        bar.close()
    st = sol.stats
    assert st is not None  # a solve records its stats
    extra = st.extra
    say, size = _summary(output, extra["certificate_bytes"])
    say(
        f"wrote {output}: N={n} bound certificate, {extra['records']:,} records, "
        f"{size}{st.seconds:.2f} s"
    )
    same = (
        "yes"
        if not extra["mismatches"]
        else f"no, {extra['mismatches']:,} records differ (the checker judges the bound)"
    )
    say(
        f"certified radii: largest {max(sol.radii):.3e} (level "
        f"{sol.radii.index(max(sol.radii))}); strategies recomputed bit for bit: {same}"
    )


@click.command(cls=NumberArgumentsCommand)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--quiet", is_flag=True, help="No progress on stderr.")
def check(file: str, quiet: bool) -> None:
    """Verify a certificate with the independent checker (exit 0 valid, 1 invalid, 2 unreadable).

    FILE is an exact certificate (gops certify) or a bound certificate (gops certify
    --bounds); the checker tells them apart by their magic.

    The verdict ("valid: ..." or "invalid: ...") is printed on stdout; an unreadable file
    is an error on stderr, like every other command's.  Progress goes to stderr, one line
    per verified level, unless --quiet.
    """

    verdict = check_certificate(file, None if quiet else level_printer())
    if verdict.code == EXIT_BAD_INPUT:
        fail(verdict.message.splitlines()[0])
    click.echo(verdict.message)
    sys.exit(verdict.code)


def level_printer():
    """The checker's progress callback: one line per verified level on stderr."""
    start = time.perf_counter()

    def report(k: int, n: int, records: int) -> None:
        click.echo(
            f"level {k}/{n}: {records:,} records verified ({time.perf_counter() - start:.1f} s)",
            err=True,
        )

    return report


@click.command(cls=NumberArgumentsCommand)
@click.option(
    "-o",
    "--output",
    "output",
    default="gops-5.cert",
    show_default=True,
    type=click.Path(dir_okay=False),
    help="Where to write the N=5 certificate (by default into the current folder).",
)
@click.option("--force", is_flag=True, help="Overwrite the certificate file if it exists.")
@one_line_errors
def reproduce(output: str, force: bool) -> None:
    """Reproduce Rhoads & Bartholdi 2012, Table 1, exactly: solve, certify and check N=5.

    The certificate is written to gops-5.cert in the current folder (-o FILE: elsewhere);
    one already there is kept if it is this solve's certificate, byte for byte.
    """

    # A certificate already there (a second run in the same folder) is compared with the
    # one this solve writes (the writer is deterministic): the same bytes are kept and
    # checked; other bytes are refused as before, without --force.
    there = not force and output_kind(output) == "file"
    output = _output(output, force or there, regular=True)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gops-reproduce-") as scratch:
        written = os.path.join(scratch, "gops-5.cert") if there else output
        sol = write(5, written)
        if there and not filecmp.cmp(written, output, shallow=False):
            raise GopsInputError(
                f"{output} exists and is not the certificate this solve writes; pass "
                "--force to overwrite it, or -o FILE to write the certificate elsewhere"
            )
    st = sol.stats
    assert st is not None  # a solve records its stats
    done = (
        f"its certificate {output} is already there, byte for byte"
        if there
        else f"wrote its certificate {output}"
    )
    click.echo(
        f"solved 5-card GOPS exactly and {done} "
        f"({st.extra['certificate_bytes']:,} bytes, {st.seconds:.2f} s)"
    )
    verdict = check_certificate(output)
    click.echo(f"independent checker: {verdict.message}")
    if not verdict.ok:
        sys.exit(EXIT_CHECK_FAILED)
    table = sol.first_move_table()
    click.echo("\nTable 1 (first move, N = 5), from the exact certified equilibrium:")
    click.echo(format_table(5, table))
    entry = Fraction(table[1][1])  # a Fraction already: the solve is exact
    click.echo("\nThe paper's 0.0470 (upcard 1, bid 1) is exactly p/q with")
    click.echo(f"p = {entry.numerator}")
    click.echo(f"q = {entry.denominator}")
    click.echo(
        f"({len(str(entry.numerator))} and {len(str(entry.denominator))} digits; "
        f"p/q = {float(entry):.10f})"
    )
    click.echo(f"total {time.perf_counter() - t0:.1f} s")
