"""The game families of ``gops solve``, ``gops table`` and ``gops strategy``, registered
once, and the one command that reaches them.

A family is a game with its own command for each verb it answers: two players (the
default), three players (``--players 3``, :mod:`exact.cli.three`) and the declarations
game (``--variant declarations``, :mod:`exact.cli.declarations`, ``gops solve`` only).
:class:`FamilyCommand` is ``gops VERB``: click parses its selectors (``--players``, and
``--variant`` where a family of the verb has one; a repeated option counts by its last
occurrence, as click takes every option), keeps the rest of the command line as it was
given (click's ``ignore_unknown_options``: the arguments it does not know, in order), and
hands that rest to the chosen family's own command, which parses it and runs.  No family's
command is changed or copied: each is a plain click command, and its help is its own
(``gops solve --players 3 --help``).  An option of another family of the verb is refused
in one line that names the family it belongs to.

A family's command module is imported when that family is chosen: ``gops solve 5`` does
not import the three-player solver.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

import click

__all__ = ["DECLARATIONS", "FAMILIES", "THREE", "TWO", "FamilyCommand", "settings"]


@dataclass(frozen=True)
class Family:
    """A game family: what selects it and its command for each verb.

    ``variant`` is the name ``--variant`` selects it by, None for the families of the
    standard game (selected by ``--players`` alone); ``commands`` maps a verb (``solve``)
    to the attribute of ``exact.cli.<module>`` that is the family's command; ``usage`` is
    the line the other families' help shows for it."""

    name: str
    players: str
    variant: str | None
    module: str
    commands: dict[str, str]
    usage: dict[str, str] = field(default_factory=dict)

    @property
    def flags(self) -> str:
        """The flags that select the family ("--players 3")."""
        if self.variant is not None:
            return f"--variant {self.variant}"
        return f"--players {self.players}"

    @property
    def selected(self) -> str:
        """The flags a command line names the family by ("" for the default)."""
        return "" if self is TWO else self.flags

    def command(self, verb: str) -> click.Command:
        """The family's command for ``verb`` (its module imported here)."""
        module = importlib.import_module(f"exact.cli.{self.module}")
        return getattr(module, self.commands[verb])

    def has_option(self, verb: str, option: str) -> bool:
        return any(option in (*p.opts, *p.secondary_opts) for p in self.command(verb).params)


TWO = Family(
    "two players",
    "2",
    None,
    "solve",
    {"solve": "solve", "table": "table", "strategy": "strategy"},
    {
        "solve": "gops solve N",
        "table": "gops table N",
        "strategy": "gops strategy --mine A --theirs B --deck D --upcard U",
    },
)
THREE = Family(
    "three players",
    "3",
    None,
    "three",
    {"solve": "solve_three", "table": "table_three", "strategy": "strategy_three"},
    {
        "solve": "gops solve N --players 3 --tie-rule split|third|discard",
        "table": "gops table N --players 3 --tie-rule split|third|discard",
        "strategy": "gops strategy --players 3 --hands A B C --deck D --upcard U",
    },
)
DECLARATIONS = Family(
    "the declarations game",
    "2",
    "declarations",
    "declarations",
    {"solve": "solve_declarations"},
    {"solve": "gops solve N --variant declarations [--exact] [--certificate FILE]"},
)
#: ``--variant``'s name for the standard game (the families whose ``variant`` is None).
STANDARD = "standard"
#: The number of players in words.
PLAYERS = {"2": "two", "3": "three"}
#: Every family, the default (two players) first.
FAMILIES = (TWO, THREE, DECLARATIONS)


def _of(verb: str) -> list[Family]:
    return [f for f in FAMILIES if verb in f.commands]


def settings(verb: str, family: Family) -> dict:
    """The click.command settings of ``family``'s command for ``verb``: its usage line
    names the family's flags, its epilog the other families' forms.

    >>> settings("table", THREE)["options_metavar"]
    '--players 3 [OPTIONS]'
    >>> print(settings("table", THREE)["epilog"])
    Other games: two players: gops table N (gops table --help).
    """
    others = [
        f"{other.name}: {other.usage[verb]} ({_help_line(verb, other)})"
        for other in _of(verb)
        if other is not family
    ]
    return {
        "options_metavar": "[OPTIONS]" if family is TWO else f"{family.flags} [OPTIONS]",
        "epilog": "Other games: " + "; ".join(others) + ".",
    }


def _help_line(verb: str, family: Family) -> str:
    """The command line that shows ``family``'s help for ``verb``."""
    return " ".join(filter(None, ("gops", verb, family.selected, "--help")))


class FamilyCommand(click.Command):
    """``gops VERB``: its families' selectors parsed by click, the rest of the command line
    parsed and run by the chosen family's command (see the module's docstring)."""

    def __init__(self, verb: str) -> None:
        families = _of(verb)
        params: list[click.Parameter] = [
            click.Option(
                ["--players"],
                type=click.Choice(sorted({f.players for f in families})),
                default="2",
            )
        ]
        # --variant's names, parsed into the family they name (None: the standard game)
        self.variants: dict[str, Family | None] = {STANDARD: None}
        self.variants |= {f.variant: f for f in families if f.variant is not None}
        if len(self.variants) > 1:
            params.append(
                click.Option(
                    ["--variant"],
                    type=click.Choice(sorted(self.variants)),
                    default=STANDARD,
                    callback=lambda ctx, param, name: self.variants[name],
                )
            )
        super().__init__(
            verb,
            params=params,
            add_help_option=False,  # --help goes on to the family's command
            context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
            help=TWO.command(verb).help,
        )
        self.families = families

    def family(self, players: str, variant: Family | None) -> Family:
        """The family that ``--players`` and ``--variant`` (parsed: the family it names,
        None for the standard game) select, or a usage error."""
        if variant is None:
            for family in self.families:
                if family.variant is None and family.players == players:
                    return family
            raise click.UsageError(f"no game has --players {players}")  # pragma: no cover
        if variant.players != players:
            raise click.UsageError(
                f"--variant {variant.variant} is a {PLAYERS[variant.players]}-player game: "
                f"drop --players {players}"
            )
        return variant

    def invoke(self, ctx: click.Context):
        family = self.family(ctx.params["players"], ctx.params.get("variant"))
        command = family.command(self.name or "")
        try:
            sub = command.make_context(ctx.info_name, list(ctx.args), parent=ctx.parent)
        except click.NoSuchOption as exc:
            raise self._elsewhere(exc, family) from None
        with sub:
            return command.invoke(sub)

    def _elsewhere(self, exc: click.NoSuchOption, family: Family) -> click.UsageError:
        """An option unknown to ``family``'s command: named with the families that take
        it, else click's own error."""
        verb = self.name or ""
        owners = [f.flags for f in self.families if f.has_option(verb, exc.option_name)]
        if not owners:
            return exc
        return click.UsageError(
            f"{exc.option_name} applies to {' and '.join(owners)} only, not to {family.name}"
        )
