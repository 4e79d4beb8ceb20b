"""``gops audit``: the float solver judged against the exact solution (exact/analysis/audit.py)."""

from __future__ import annotations

import json
import os
import stat
import sys

import click
from tqdm import tqdm

from exact.analysis.audit import run_audit
from exact.cli.common import (
    EXIT_CHECK_FAILED,
    INTEGER,
    NumberArgumentsCommand,
    ProgressBar,
    one_line_errors,
)
from exact.cli.limits import check_command_n
from exact.errors import GopsInputError


class _ByteProgress:
    """A tqdm bar over the bytes of a certificate being read (shown after 2 s)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.bar = None

    def __call__(self, done, total):
        if not self.enabled:
            return
        if self.bar is None:
            self.bar = tqdm(
                total=total,
                desc="reading",
                unit="B",
                unit_scale=True,
                delay=2,
                file=sys.stderr,
                leave=False,
            )
        self.bar.update(done - self.bar.n)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def format_report(report, reference_seconds: float) -> str:
    head = (
        f"{'k':>3} {'subgames':>9} {'games':>7} {'max |f_float - f_exact|':>24} "
        f"{'max exploit.':>13} {'mean exploit.':>14} {'support diffs':>14}"
    )
    lines = [
        f"audit of {report.n}-card GOPS: float64 solver against the {report.source} "
        f"({reference_seconds:.2f} s; audit {report.seconds:.2f} s)",
        head,
    ]
    for lv in report.levels:
        lines.append(
            f"{lv.k:>3} {lv.subgames:>9,} {lv.games:>7,} {lv.max_value_error:>24.2e} "
            f"{lv.max_exploitability:>13.2e} {lv.mean_exploitability:>14.2e} "
            f"{lv.support_differences:>14,}"
        )
    verdict = "ok" if report.ok else "FAILED"
    lines.append(
        f"{verdict}: max value error {report.max_value_error:.2e}, max exploitability "
        f"{report.max_exploitability:.2e} (tolerance {report.tol:.0e}); exploitability = "
        "max_i (A y)_i - min_j (x^T A)_j in the exact matrix"
    )
    return "\n".join(lines)


def _regular_file(path) -> None:
    """Refuse, before it is opened, a certificate that is not a regular file: opening a
    FIFO would wait forever for a writer (a missing file is left to the reader's error)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode):
        what = (
            "a FIFO"
            if stat.S_ISFIFO(mode)
            else "a directory"
            if stat.S_ISDIR(mode)
            else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a special file"
        )
        raise GopsInputError(
            f"{path} is not a regular file ({what}); --certificate reads a certificate file"
        )


@click.command(cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of the table.")
@click.option(
    "--tol",
    type=float,
    default=1e-9,
    show_default=True,
    help="Largest value error and exploitability accepted (exit 1 beyond).",
)
@click.option(
    "--certificate",
    type=click.Path(dir_okay=False),
    help="Read the exact values from this certificate instead of solving (check it first).",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
@one_line_errors
def audit(n: int, as_json: bool, tol: float, certificate: str | None, quiet: bool) -> None:
    """Audit the float solver against the exact solution of N-card GOPS (N <= 7).

    Per level: the largest value error, the exact exploitability of the float
    strategies in the exact matrix games, and how many supports differ.
    """

    check_command_n(n, "audit")
    if certificate is not None:
        _regular_file(certificate)
    reading = _ByteProgress(enabled=not quiet) if certificate else ProgressBar(enabled=not quiet)
    auditing = ProgressBar(enabled=not quiet)
    try:
        report, reference_seconds = run_audit(n, certificate, tol, auditing, reading)
    finally:
        reading.close()
        auditing.close()
    if as_json:
        click.echo(json.dumps(report.to_json()))
    else:
        click.echo(format_report(report, reference_seconds))
    if not report.ok:
        sys.exit(EXIT_CHECK_FAILED)
