"""The ``gops`` command line: the click group and its commands.

This is the only module that names the command modules (one per command group); they
import the shared pieces of :mod:`exact.cli.common` and the library, never each other.
A command's module is imported when the command runs (or its help is asked for), not when
``gops`` starts: ``gops --help`` lists the commands from their one-line help kept here
(``COMMANDS``; ``tests/test_cli_startup.py`` checks it against each command's own).
Exit codes: see :mod:`exact.cli.base`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator, MutableMapping

import click

from exact.cli.base import OneLineErrorGroup

__all__ = ["COMMANDS", "COMPILING", "main"]


def _attribute(module: str, name: str) -> Callable[[], click.Command]:
    """The loader of the command ``name`` of ``exact.cli.<module>``."""
    return lambda: getattr(importlib.import_module(f"exact.cli.{module}"), name)


def _families(verb: str) -> Callable[[], click.Command]:
    """gops solve, table or strategy: its game families (two players, --players 3,
    --variant declarations) reached through exact.cli.families."""

    def load() -> click.Command:
        from exact.cli.families import FamilyCommand

        return FamilyCommand(verb)

    return load


def _imperfect() -> click.Command:
    from exact.cli import imperfect, imperfect_certify, imperfect_voi

    group = imperfect.imperfect
    group.add_command(imperfect_voi.value_of_information_command)
    group.add_command(imperfect_certify.certify)
    return group


#: Every command: its loader and its one-line help (the first paragraph of its own help,
#: shown by ``gops --help`` without importing the command's module).
COMMANDS: dict[str, tuple[Callable[[], click.Command], str]] = {
    "audit": (
        _attribute("audit", "audit"),
        "Audit the float solver against the exact solution of N-card GOPS (N <= 7).",
    ),
    "certify": (
        _attribute("certify", "certify"),
        "Solve N-card GOPS exactly and write its LP-duality certificate (N <= 7), or with "
        "--bounds solve it in floating point and write the bound certificate of its "
        "certified radii (N <= 9).",
    ),
    "check": (
        _attribute("certify", "check"),
        "Verify a certificate with the independent checker (exit 0 valid, 1 invalid, "
        "2 unreadable).",
    ),
    "compare-objectives": (
        _attribute("objectives", "compare_objectives"),
        "How much winning the points-optimal strategy gives away (paper sec 5).",
    ),
    "count": (
        _attribute("count", "count"),
        "Number of canonical subgames per level of N-card GOPS.",
    ),
    "evaluate": (
        _attribute("bots", "evaluate"),
        "Exact expected point difference and win/draw/loss of bot A against bot B.",
    ),
    "fixed-bids": (
        _attribute("fixed_bids", "fixed_bids"),
        "Solve the fixed-bid game: each player fixes a bid for every prize before the first.",
    ),
    "imperfect": (
        _imperfect,
        "Imperfect-information Goofspiel, as OpenSpiel's goofspiel(imp_info=True).",
    ),
    "play": (
        _attribute("play", "play"),
        "Play N-card GOPS against the computer (an optimal bot).",
    ),
    "reproduce": (
        _attribute("certify", "reproduce"),
        "Reproduce Rhoads & Bartholdi 2012, Table 1, exactly: solve, certify and check N=5.",
    ),
    "serve": (
        _attribute("serve", "serve"),
        "Serve the web page: explore any position, the first move, and play the solution.",
    ),
    "solve": (
        _families("solve"),
        "Solve N-card GOPS (floating point) and print a summary.",
    ),
    "strategy": (
        _families("strategy"),
        "The equilibrium at any position once the upcard is turned.",
    ),
    "table": (
        _families("table"),
        "The first-move table of N-card GOPS (rows = bids, columns = upcards).",
    ),
    "tournament": (
        _attribute("bots", "tournament"),
        "Every pair of bots plays G games of N-card GOPS; 95% intervals (Wilson, normal).",
    ),
    "variant": (
        _attribute("variants", "variant"),
        "Solve a two-player variant of GOPS and print its first-move table.",
    ),
    "verify": (
        _attribute("verify", "verify"),
        "Re-derive every level of a store from the level below and check each value and "
        "radius (exit 0 verified; 1 contradicted: a value, a radius or a checksum that the "
        "store's readable, well-formed files contradict; 2 unreadable: missing, truncated, "
        "of another type or shape, a manifest no solve writes, or bad options).",
    ),
}


class _LazyCommands(MutableMapping[str, click.Command]):
    """The group's commands by name, each loaded (its module imported) on first use."""

    def __init__(self) -> None:
        self._loaded: dict[str, click.Command] = {}
        self._added: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name in self._added:
            return self._added[name]
        if name not in self._loaded:
            self._loaded[name] = COMMANDS[name][0]()
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._added[name] = command

    def __delitem__(self, name: str) -> None:
        del self._added[name]

    def __iter__(self) -> Iterator[str]:
        return iter({**dict.fromkeys(COMMANDS), **self._added})

    def __len__(self) -> int:
        return len(set(COMMANDS) | set(self._added))

    def __contains__(self, name: object) -> bool:
        return name in COMMANDS or name in self._added


class LazyGroup(OneLineErrorGroup):
    """The ``gops`` group: lists its commands from ``COMMANDS`` and imports a command's
    module only when that command is looked up (run, or its own help shown)."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            # a stand-in with the command's help, shortened as click shortens it
            shown = click.Command(name, help=COMMANDS[name][1]) if name in COMMANDS else None
            command = shown or self.commands[name]  # else a command added by hand
            rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gops-exact")
def main():
    """Solve the Game of Pure Strategy (GOPS, Goofspiel) exactly, fast, and with proof."""
    # click imports the command's module (resolve_command) before it runs this callback:
    # a command whose kernels numba may compile has loaded numba by now; one that has not
    # (gops count) never compiles, and is spared numba's 0.5 s of import.
    if "numba" in sys.modules:
        announce_compiling()


#: The line on stderr when numba compiles a kernel (once a process; the kernels are cached
#: on disk, so a later run loads them).
COMPILING = "gops: compiling kernels (first run only)"
_announcing = False


def announce_compiling() -> None:
    """Say COMPILING on stderr when numba first compiles in this process (not when it loads
    a cached kernel: numba's "numba:compile" event fires on a cache miss only), unless the
    command runs with --quiet."""
    global _announcing
    if _announcing:
        return
    _announcing = True
    # numba is loaded already (main's check); its event module costs nothing more.
    from numba.core import event

    class Notice(event.Listener):
        told = False

        def on_start(self, ev: event.Event) -> None:
            ctx = click.get_current_context(silent=True)
            if self.told or (ctx is not None and ctx.params.get("quiet")):
                return
            self.told = True
            click.echo(COMPILING, err=True)

        def on_end(self, ev: event.Event) -> None:
            pass

    event.register("numba:compile", Notice())


main.commands = _LazyCommands()
