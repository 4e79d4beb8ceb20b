"""``gops solve N --variant declarations [--exact] [--certificate FILE [--force]] [--json]``:
the face-up declarations game (:mod:`exact.declarations`), a family of
:mod:`exact.cli.families` (its one command, :data:`solve_declarations`).

Exact rationals too long to read are printed as an interval of six decimals that contains
them (outward rounding); the JSON keeps them whole, as "p/q" strings.  An existing
certificate FILE is overwritten only with --force (as by gops certify); with
--certificate - the certificate goes to standard output and the report to stderr.
"""

from __future__ import annotations

import json
import os

import click
from flint import fmpq

import exact.declarations as declarations
from exact.atomic import output_kind
from exact.cli.common import INTEGER, NumberArgumentsCommand, one_line_errors
from exact.cli.families import DECLARATIONS, settings
from exact.errors import GopsInputError

#: Exact rationals with more digits than this (numerator or denominator) print as intervals.
SHORT_DIGITS = 12


def exact_text(q) -> str:
    """A rational as "p/q" when short, else an enclosing interval of six decimals (any
    length: python-flint prints integers beyond Python's 4,300-digit str limit).

    >>> exact_text(fmpq(3, 7))
    '3/7 (0.428571...)'
    >>> exact_text(fmpq(10**20 + 1, 3 * 10**20))
    'in [0.333333, 0.333334] (a rational of 21/21 digits)'
    >>> exact_text(fmpq(10**5000 + 1, 2 * 10**5000))
    'in [0.500000, 0.500001] (a rational of 5001/5001 digits)'
    """
    q = fmpq(q)
    p, d = q.p, q.q
    if d == 1:
        return str(p)
    digits = len(str(abs(p))), len(str(d))
    if max(digits) <= SHORT_DIGITS:
        return f"{p}/{d} ({int(p) / int(d):.6f}...)"
    lo = int((p * 10**6) // d)
    hi = -int((-p * 10**6) // d)
    return f"in [{lo / 10**6:.6f}, {hi / 10**6:.6f}] (a rational of {digits[0]}/{digits[1]} digits)"


def _report(sol) -> dict:
    """The JSON of a solution: exact numbers as "p/q" strings."""
    stats = sol.stats
    text = str if sol.exact else float
    out = {
        "n": sol.n,
        "variant": "declarations",
        "arithmetic": "exact" if sol.exact else "float",
        "value": text(sol.value),
        "radius": sol.radius,
        "positions": sol.positions,
        "matrix_games_solved": sol.games_solved,
        "seconds": round(sol.seconds, 3),
    }
    if sol.exact:
        out |= {
            "earliest_declaration": stats.earliest_declaration,
            "first_declaration_by_round": [str(p) for p in stats.declare_by_round],
            "expected_score": str(stats.expected_score),
            "score_distribution": [str(p) for p in stats.score_distribution],
        }
    if sol.certificate_records is not None:
        out["certificate_records"] = sol.certificate_records
    return out


def _print(sol, certificate, echo) -> None:
    arithmetic = "exact" if sol.exact else "float"
    echo(f"N={sol.n} variant=declarations arithmetic={arithmetic}")
    words = ", ".join(f"{f} {c:,}" for f, c in sol.positions.items())
    echo(f"positions solved: {sum(sol.positions.values()):,} ({words})")
    echo(f"matrix games solved: {sol.games_solved:,}")
    echo(f"time: {sol.seconds:.2f} s")
    if sol.exact:
        echo(f"value at the start: {sol.value} (player 0's score minus player 1's)")
    else:
        echo(f"value at the start: {sol.value:+.3e}, proven radius {sol.radius:.3e}")
        echo("declarations and scores along the equilibrium: with --exact")
        return
    stats = sol.stats
    when = stats.earliest_declaration
    echo(f"earliest declaration: {'never' if when is None else f'round {when}'}")
    for r, p in enumerate(stats.declare_by_round, 1):
        if p:
            echo(f"  first declaration in round {r}: {exact_text(p)}")
    echo(f"expected score of the winner: {exact_text(stats.expected_score)}")
    for s, p in enumerate(stats.score_distribution):
        if p:
            echo(f"  score {s}: {exact_text(p)}")
    if certificate is not None:
        target = (
            "/dev/stdin (pipe it there)" if output_kind(certificate) == "stdout" else certificate
        )
        echo(
            f"certificate: {certificate} ({sol.certificate_records:,} records; "
            f"python -m certificates {target} checks it)"
        )


def _certificate_on_stdout(certificate, force: bool) -> bool:
    """Whether the certificate goes to standard output; checked before the solve: an
    existing file needs --force, a folder or a FIFO is refused (exact.atomic)."""
    if certificate is None:
        return False
    kind = output_kind(certificate)
    if (kind == "file" or kind == "new" and os.path.lexists(certificate)) and not force:
        raise GopsInputError(f"{certificate} exists; pass --force to overwrite it")
    return kind == "stdout"


@click.command("solve", cls=NumberArgumentsCommand, **settings("solve", DECLARATIONS))
@click.argument("n", type=INTEGER)
@click.option("--exact", is_flag=True, help="Rational arithmetic.")
@click.option(
    "--certificate",
    type=click.Path(dir_okay=False),
    default=None,
    help="With --exact: write its LP-duality certificate to FILE (atomically; - for "
    "stdout, the report then on stderr).",
)
@click.option("--force", is_flag=True, help="With --certificate: overwrite FILE if it exists.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--quiet", is_flag=True, help="No progress (this solve shows none).")
@one_line_errors
def solve_declarations(n, exact, certificate, force, as_json, quiet) -> None:
    """Solve N-card GOPS with face-up declarations (docs/declarations.md): its value, and
    with --exact the declarations and scores along the equilibrium."""
    to_stderr = _certificate_on_stdout(certificate, force)
    sol = declarations.solve(n, exact, certificate)
    if as_json:
        click.echo(json.dumps(_report(sol), indent=2), err=to_stderr)
    else:
        _print(sol, certificate, lambda line: click.echo(line, err=to_stderr))
