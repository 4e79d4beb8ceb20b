"""The ``gops`` command line: the click group and its commands.

This is the only module that imports the command modules (one per command group); they
import the shared pieces of :mod:`exact.cli.common` and the library, never each other.
Exit codes: see :mod:`exact.cli.common`.
"""

# The command modules import what they need at their top: ``import exact.cli`` loads
# numba, flint and scipy through ``exact`` itself, whatever the command, and importing
# the rest inside the commands saved only about 0.15 s of 0.6 s (benchmarks/RESULTS.md).

import click

from exact.cli import (
    audit,
    bots,
    certify,
    declarations,
    fixed_bids,
    imperfect,
    imperfect_certify,
    imperfect_voi,
    objectives,
    play,
    serve,
    solve,
    three,
    variants,
    verify,
)
from exact.cli.common import OneLineErrorGroup


@click.group(cls=OneLineErrorGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gops-exact")
def main():
    """Solve the Game of Pure Strategy (GOPS, Goofspiel) exactly, fast, and with proof."""


declarations.route(solve.solve)  # gops solve N --variant declarations
for command in (
    three.with_three_players(solve.solve, three.solve_three),  # gops solve N --players 3
    three.with_three_players(solve.table, three.table_three),
    three.with_three_players(solve.strategy, three.strategy_three),
    certify.certify,
    certify.check,
    certify.reproduce,
    solve.count,
    audit.audit,
    play.play,
    bots.tournament,
    bots.evaluate,
    objectives.compare_objectives,
    variants.variant,
    serve.serve,
    fixed_bids.fixed_bids,
    verify.verify,
    imperfect.imperfect,
):
    main.add_command(command)
imperfect.imperfect.add_command(imperfect_voi.value_of_information_command)
imperfect.imperfect.add_command(imperfect_certify.certify)

__all__ = ["main"]
