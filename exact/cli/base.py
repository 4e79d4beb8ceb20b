"""What ``gops`` needs before a command is chosen, and what a light command needs: the exit
codes, the one-line errors, the group and command classes and the integer type (click,
the standard library, exact.errors and exact.game.rules only: no numpy, no numba, so that
``gops --help`` and ``gops count`` answer at once).

Exit codes (every command):
    0    success
    1    a check failed (a certificate or an audit found something wrong)
    2    bad input: wrong N, malformed cards, an unreadable file; a one-line message on
         stderr ("gops: error: ...").  Bare ``gops`` prints the help, the list of
         commands, on stderr with this code, as click does.
    130  interrupted (Ctrl-C): "gops: interrupted" on stderr, the shells' 128 + SIGINT
"""

from __future__ import annotations

import re
import sys
from functools import wraps

import click

from exact.errors import GopsError, GopsInputError
from exact.game.rules import parse_integer

EXIT_OK, EXIT_CHECK_FAILED, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130


def fail(message: str, code: int = EXIT_BAD_INPUT):
    click.echo(f"gops: error: {message}", err=True)
    sys.exit(code)


def one_line_errors(command):
    """Turn every error the user can provoke into one line on stderr and exit code 2."""

    @wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except GopsError as exc:  # exit_code 1: a store contradicted (exact.dp.store)
            fail(
                str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                getattr(exc, "exit_code", EXIT_BAD_INPUT),
            )
        except BrokenPipeError:  # e.g. `gops table 13 | head`: the reader left
            sys.stderr.close()
            sys.exit(EXIT_OK)
        except MemoryError:
            fail("out of memory")
        except OSError as exc:
            fail(f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc))

    return wrapper


class WholeNumber(click.ParamType):
    """The click type of every integer on the command line (N, --n, --upcard, --lead,
    --chunk-items, --games, --seed): :func:`exact.game.rules.parse_integer`, the parser of the
    cards too, so each accepts ASCII digits with an optional '-' and nothing else."""

    name = "integer"

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            return value  # a default
        try:
            return parse_integer(value)
        except GopsInputError as exc:
            self.fail(str(exc), param, ctx)


INTEGER = WholeNumber()


_NEGATIVE_NUMBER = re.compile(r"-[0-9]+")


def negative_numbers_as_arguments(command: click.Command, args: list[str]) -> list[str]:
    """``args`` with every negative number that is not an option's value moved, in order
    with the other arguments, behind a "--": click would take "-1" for an option.

    >>> cmd = click.Command("t", params=[click.Argument(["n"]), click.Option(["--lead"])])
    >>> negative_numbers_as_arguments(cmd, ["--lead", "-2", "-1"])
    ['--lead', '-2', '--', '-1']
    """
    if not any(_NEGATIVE_NUMBER.fullmatch(a) for a in args):
        return args
    takes_value = {
        name
        for p in command.params
        if isinstance(p, click.Option) and not p.is_flag and not p.count
        for name in p.opts
    }
    options: list[str] = []
    arguments: list[str] = []
    rest = iter(args)
    for a in rest:
        if a == "--":
            arguments.extend(rest)
        elif _NEGATIVE_NUMBER.fullmatch(a) or not a.startswith("-") or a == "-":
            arguments.append(a)
        else:
            options.append(a)
            value = next(rest, None) if a in takes_value else None
            if value is not None:  # the option's value, negative or not
                options.append(value)
    return options + ["--"] + arguments


class NumberArgumentsCommand(click.Command):
    """A command whose N may be negative on the command line: ``gops table -1`` is a bad N
    (reported with the command's limit), not "No such option '-1'"."""

    def parse_args(self, ctx, args):
        return super().parse_args(ctx, negative_numbers_as_arguments(self, args))


class OneLineErrorGroup(click.Group):
    """A click group whose usage errors are one line on stderr (exit 2), like ours."""

    command_class = NumberArgumentsCommand

    def main(self, args=None, prog_name=None, **kwargs):
        try:
            return super().main(args, prog_name or "gops", standalone_mode=False, **kwargs)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.exceptions.Abort as exc:
            if isinstance(exc.__cause__, EOFError):
                fail("unexpected end of input")
            click.echo("gops: interrupted", err=True)  # Ctrl-C
            sys.exit(EXIT_INTERRUPTED)
        except click.exceptions.NoArgsIsHelpError as exc:  # bare `gops`: the command list
            click.echo(exc.format_message(), err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            fail(exc.format_message().splitlines()[0], exc.exit_code)
