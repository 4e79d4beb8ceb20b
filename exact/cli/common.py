"""Pieces every command shares: one-line errors, parameter types, and the printers of
tables and strategies (progress: :mod:`exact.cli.progress`; exit codes, the group and the
command class: :mod:`exact.cli.base`, imported again here for the commands).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import wraps

import click
import numpy as np
from tqdm import tqdm

from exact.analysis.certified import certify_strategy
from exact.cli.base import (  # the commands import these from here too
    EXIT_BAD_INPUT as EXIT_BAD_INPUT,
)
from exact.cli.base import EXIT_CHECK_FAILED as EXIT_CHECK_FAILED
from exact.cli.base import EXIT_INTERRUPTED as EXIT_INTERRUPTED
from exact.cli.base import EXIT_OK as EXIT_OK
from exact.cli.base import INTEGER as INTEGER
from exact.cli.base import NumberArgumentsCommand as NumberArgumentsCommand
from exact.cli.base import OneLineErrorGroup as OneLineErrorGroup
from exact.cli.base import WholeNumber as WholeNumber
from exact.cli.base import fail as fail
from exact.cli.base import negative_numbers_as_arguments as negative_numbers_as_arguments
from exact.cli.base import one_line_errors as one_line_errors
from exact.cli.limits import check_command_n
from exact.cli.progress import (  # the commands import these from here too
    PROGRESS_LINE_SECONDS as PROGRESS_LINE_SECONDS,
)
from exact.cli.progress import (
    SOLVE_PROGRESS_LINE_SECONDS,
    ProgressBar,
    ProgressLines,
)
from exact.cli.progress import time_left as time_left
from exact.cli.progress import utc_now as utc_now
from exact.cli.render import fraction_text, interval_text
from exact.dp import solve as dp_solve  # the module: solve_game looked up at each call
from exact.dp.device import CPU, NAMES, Device
from exact.dp.store import Store
from exact.dp.variant_solver import check_variant_options, solve_variant
from exact.errors import GopsInputError
from exact.game.objectives import OBJECTIVES, WIN, GameObjective, check_lead, objective_named
from exact.game.orders import ORDERS
from exact.game.rules import parse_cards
from exact.game.spec import GameSpec
from exact.game.ties import TIE_RULES
from exact.game.variants import STANDARD, Variant
from exact.imperfect.game import IMPERFECT_ORDERS
from exact.play.bots import solution_for
from exact.views import strategy_json


def solve_with_progress(
    game: GameSpec, top: int | None = None, quiet: bool = False, device: Device = CPU
):
    """The Solution of ``game`` (checked against its arithmetic's limits first,
    :func:`exact.dp.solve.check_limits`), with progress unless ``quiet``: a bar on a
    terminal, a line every SOLVE_PROGRESS_LINE_SECONDS in a log (ProgressLines); its float
    kernels on ``device`` (--device: cpu or cuda)."""

    dp_solve.check_limits(game, top)
    bar = ProgressBar(enabled=not quiet)
    lines = ProgressLines(enabled=not quiet, every=SOLVE_PROGRESS_LINE_SECONDS, game=game)

    def progress(level, done):
        bar(level, done)
        lines(level, done)

    try:
        return dp_solve.solve_game(game, progress=progress, top=top, device=device)
    finally:
        bar.close()


def load_or_solve(game: GameSpec, store_dir, quiet, top=None, device: Device = CPU):
    """The Solution of ``game``: from a store when given (which must hold that game: N,
    objective and prize order), else solved now (its float kernels on ``device``)."""
    if store_dir is None:
        return solve_with_progress(game, top=top, quiet=quiet, device=device)

    return Store.open(store_dir).solution(game.n, game.objective.name, game.order.name)


def presolve_variant(variant: Variant, game: GameSpec):
    """The variant's solution for ``game``'s N and arithmetic (solved once, cached by
    exact.play.bots for its optimal bots; ``standard`` by the variant solver, while the
    bots play the fast solver's), with a bar over the first round's upcards on a terminal
    after 2 s."""

    n, arithmetic = game.n, game.arithmetic
    check_variant_options(variant, n, arithmetic)  # errors before any bar
    bar = tqdm(
        total=n,
        desc=f"{variant.name} N={n}",
        unit="upcard",
        delay=2,
        file=sys.stderr,
        leave=False,
        disable=not sys.stderr.isatty(),
    )

    def progress(states: int) -> None:
        bar.set_postfix(states=f"{states:,}", refresh=False)
        bar.update(1)

    try:
        if variant is STANDARD:  # the variant recursion, a cross-check of `gops table`
            return solve_variant(variant, n, arithmetic, progress=progress)
        return solution_for(game, progress=progress, variant=variant)
    finally:
        bar.close()


def card_list(ctx, param, value):
    """click callback: parse "2,4" into (2, 4) or exit 2 with one line."""
    if value is None:
        return None

    try:
        return parse_cards(value)
    except GopsInputError as exc:
        raise click.BadParameter(str(exc)) from None


# -- the game: flags in, one GameSpec out ---------------------------------------------------


class ObjectiveChoice(click.Choice):
    """--objective: one of the names of :mod:`exact.game.objectives`, handed to the
    command as the objective itself (the one place the command line parses the name)."""

    def convert(self, value, param, ctx):
        if isinstance(value, GameObjective):
            return value
        return objective_named(super().convert(value, param, ctx))


#: The click types of --objective and --order: the names :meth:`GameSpec.parse` knows.
OBJECTIVE = ObjectiveChoice(list(OBJECTIVES))
ORDER = click.Choice(list(ORDERS))


def objective_option(help_text: str):
    """The one --objective option (points, the default, or win); ``help_text`` says what
    it means for the command."""
    return click.option(
        "--objective", type=OBJECTIVE, default="points", show_default=True, help=help_text
    )


def order_option(help_text: str):
    """The one --order option (exact.game.orders: its names, the paper's random order by
    default); ``help_text`` says what it means for the command."""
    return click.option("--order", type=ORDER, default="random", show_default=True, help=help_text)


#: What each tie rule of exact.game.ties does, as --tie-rule's help says it.
TIE_RULE_HELP = (
    "A tie for the high bid among three players: split (the tied share it), third (a "
    "two-way tie gives it to the third player), discard (OpenSpiel: any tie discards it)."
)


def tie_rule_option(default: str | None = "split"):
    """The one --tie-rule option of the three-player commands (gops solve, table,
    strategy and play with --players 3): a name of :data:`exact.game.ties.TIE_RULES`
    (``default`` None: the command picks, as gops play picks the variant's)."""
    return click.option(
        "--tie-rule",
        type=click.Choice(list(TIE_RULES)),
        default=default,
        show_default=default is not None,
        help=TIE_RULE_HELP,
    )


def lead_option():
    """The one --lead option: my points minus theirs at the position asked about (win
    objective only; :func:`game_options` checks it)."""
    return click.option(
        "--lead",
        type=INTEGER,
        default=None,
        help="My points minus theirs so far, a head start included (--objective win only; "
        "default 0; at most N(N+1)/2 either way).",
    )


def device_option(command):
    """--device cpu|cuda|cuda+cpu of gops solve and table: where the float kernels run
    (exact.cuda; without a CUDA GPU, one line and exit 2)."""
    return click.option(
        "--device",
        type=click.Choice(NAMES),
        default=CPU.name,
        callback=lambda ctx, param, name: Device.parse(name),  # parsed here, once
        show_default=True,
        help="Where the float kernels run: the CPU cores, a CUDA GPU (pip install "
        "'gops-exact[cuda]'), or both (each chunk split by their measured speeds).",
    )(command)


def check_device(options: dict, solves_into_store: bool = False) -> None:
    """--device cuda solves in memory, or into a store where the command does
    (``solves_into_store``: gops solve); gops table --store reads a store, solving
    nothing: there, one-line GopsInputError."""
    reads = options.get("store_dir") is not None and not solves_into_store
    if options.get("device", CPU).gpu and reads:
        raise GopsInputError(
            "--device cuda solves; with --store, gops table reads the stored values "
            "(make the store with `gops solve N --device cuda --store DIR`)"
        )


def objective_options(command):
    """--objective points|win, --lead L (win only; exit 2 otherwise) and --order (the
    prize order, exact.game.orders) of gops solve, table and strategy."""
    command = order_option(
        "Who orders the prizes: shuffled (the standard game), a known ascending or "
        "descending sequence, or chosen by me or by them before each round "
        "(both objectives)."
    )(command)
    command = lead_option()(command)
    return objective_option("Maximise the expected point difference or P(win) - P(loss).")(command)


def checked_lead(n: int, objective: GameObjective, lead) -> int | None:
    """The lead of ``--lead``: None for an objective without a lead (where --lead is
    refused), 0 by default for win, else a lead possible in N-card GOPS
    (:func:`exact.game.objectives.check_lead`, the API's rule); one-line GopsInputError
    otherwise."""
    if not objective.has_lead:
        if lead is not None:
            raise GopsInputError("--lead applies to --objective win only")
        return None
    return 0 if lead is None else check_lead(n, lead, "--lead")


def game_options(
    command: str,
    n: Callable[[dict], int] | None = None,
    arithmetic: str | Callable[[dict], str] = "float",
    objective: str = "points",
):
    """The boundary between a command's flags and the game it is about: the decorator
    (under the command's click options, right above its function) that hands the function
    one checked :class:`~exact.game.spec.GameSpec` as ``game`` in place of N, --objective
    and --order (the shared options above: :func:`objective_option`, :func:`order_option`,
    :func:`lead_option`), and the lead as ``lead`` where the command has --lead (None for
    the points objective, an int for win: :func:`checked_lead`).

    Checked in this order, every error one line on stderr with exit 2
    (:func:`one_line_errors`, which the decorator applies):

    1. ``n(options)``: the command's own checks of its raw options (a dict of every
       parameter, as click parsed it), then its N against its limit, returned; by default
       the N argument against the limit of ``gops COMMAND`` (exact.cli.limits);
    2. the lead (--objective win only; at most all the prizes either way);
    3. :meth:`GameSpec.parse` of N, the objective (``objective`` where the command has no
       --objective), the order (random where it has no --order), handicap 0 (a command
       that solves for a lead asks for ``game.replace(handicap=abs(lead))``) and the
       arithmetic: ``arithmetic`` or ``arithmetic(options)``.

    Below this, nothing compares strings: the drivers, the store, the bots take the
    GameSpec (the solvers check their own limits on it, :func:`exact.dp.solve.check_limits`).
    """

    def decorate(function):
        @wraps(function)
        def wrapper(**options):
            rest = {k: v for k, v in options.items() if k not in GAME_PARAMETERS}
            number = (n or (lambda o: check_command_n(o["n"], command)))(options)
            chosen = objective_named(options.get("objective", objective))
            lead = checked_lead(number, chosen, options.get("lead"))
            game = GameSpec.parse(
                number,
                chosen,
                options.get("order", "random"),
                0,
                arithmetic(options) if callable(arithmetic) else arithmetic,
            )
            if "lead" in options:
                rest["lead"] = lead
            return function(game=game, **rest)

        return one_line_errors(wrapper)

    return decorate


#: The parameters :func:`game_options` turns into a GameSpec (``lead`` is handed on, checked).
GAME_PARAMETERS = ("n", "objective", "order", "lead")


WIN_UNITS = WIN.units


def format_table(n: int, table: dict, digits: int = 4) -> str:
    """The paper's layout: one row per bid, one column per upcard (``table[u][bid]``)."""
    width = digits + 3
    upcards = sorted(table)
    lines = ["bid\\up " + "".join(f"{u:>{width}}" for u in upcards)]
    for bid in sorted(table[upcards[0]]):
        cells = []
        for u in upcards:
            p = float(table[u][bid])
            cells.append(f"{'0':>{width}}" if p == 0 else f"{p:>{width}.{digits}f}")
        lines.append(f"{bid:>6} " + "".join(cells))
    return "\n".join(lines)


def print_strategy(
    st,
    exact_: bool,
    as_json: bool,
    where: str,
    units: str,
    json_head=None,
    certified=None,
    hands=None,
    source=None,
):
    """Print an equilibrium (gops strategy): text, or JSON with exact numbers as "p/q".
    ``source``: what an answer read from a store rests on (exact.dp.reads.ReadCheck)."""

    if as_json:
        out = strategy_json(st, exact_, json_head, certified, hands)
        if source is not None:
            out["source"] = source.json()
            if "certified" in out:  # the claim carries its condition (None: proved here)
                out["certified"]["given"] = source.condition()
        click.echo(json.dumps(out))
        return
    fmt = fraction_text if exact_ else (lambda p: f"{p:.6f}")
    click.echo(f"{where}: value {fmt(st.value)} ({units}, this round included)")
    click.echo("my mix:    " + "  ".join(f"{c}: {fmt(p)}" for c, p in st.mine.items()))
    click.echo("their mix: " + "  ".join(f"{c}: {fmt(p)}" for c, p in st.theirs.items()))
    if exact_:
        click.echo("exact; verified: each mix guarantees the value against every pure reply")
    else:
        click.echo(f"float64; checked equilibrium gap {st.gap:.1e}")
    if certified is not None:
        given = None if source is None else source.condition()
        print_certified_strategy(certified, hands[0], hands[1], given)
    if source is not None:
        click.echo(source.describe())


def presolve(game: GameSpec) -> None:
    """Solve ``game`` for an optimal bot (cached by exact.play.bots) with a progress bar."""

    bar = ProgressBar()
    try:
        solution_for(game, progress=bar)
    finally:
        bar.close()


def certified_columns(solution, lead=None) -> dict:
    """{upcard: CertifiedGame} of the first move (exact.analysis.certified), for every
    upcard the prize order can turn up first."""

    root = set(range(1, solution.n + 1))
    return {
        u: certify_strategy(solution, root, root, root, u, lead)
        for u in solution.order.next_prizes(root)
    }


def _claim(word: str, given: str | None) -> str:
    """A claim's opening, with its condition in the same sentence when it has one (a
    claim made from a store's levels not re-derived here, exact.dp.reads.ReadCheck)."""
    return word if given is None else f"{word}, {given}"


def print_certified_table(table: dict, games: dict, given: str | None = None) -> None:
    """What ``gops table --certified`` proves below the table (``given``: the premise of
    a table read from a store, in the claim's sentence)."""

    proved = [u for u, g in games.items() if g.certified]
    if proved:
        slack = 0.0
        for u in proved:
            for (lo, hi), p in zip(games[u].mine, (table[u][b] for b in sorted(table[u]))):
                slack = max(slack, float(p) - lo, hi - float(p))
        slack = float(np.nextafter(slack, np.inf))
        click.echo(
            f"{_claim('certified', given)}: {len(proved)} of {len(games)} columns are the "
            "unique exact "
            f"equilibrium of their game, every exact probability within {slack:.1e} of "
            "the float one (0 exactly where the table shows 0)"
        )
    for u, g in games.items():
        if not g.certified:
            click.echo(
                f"upcard {u}: not certified ({g.reason}); {_claim('proved', given)}: the "
                f"float mix guarantees the exact value to within "
                f"{g.guarantee[1] - g.guarantee[0]:.1e}"
            )


def print_certified_strategy(game, mine, theirs, given: str | None = None) -> None:
    """What ``gops strategy --certified`` proves about the exact equilibrium (``given``:
    the premise of an answer read from a store, in the claim's sentence)."""

    if not game.certified:
        click.echo(
            f"not certified ({game.reason}); {_claim('proved', given)}: the float mixes "
            f"guarantee the exact value within {interval_text(*game.guarantee)}"
        )
        return
    click.echo(
        f"{_claim('certified', given)}: the exact equilibrium is unique; its value lies in "
        f"{interval_text(*game.value)}"
    )
    for who, cards, box in (("my", mine, game.mine), ("their", theirs, game.theirs)):
        click.echo(
            f"  {who} exact mix: "
            + "  ".join(f"{c}: {interval_text(*iv)}" for c, iv in zip(sorted(cards), box))
        )


def imperfect_game_options(command):
    """The options that name an imperfect-information game (`gops imperfect ...`), OpenSpiel's
    parameters: the prize order and the
    returns type."""
    command = click.option(
        "--objective",
        type=OBJECTIVE,
        default="points",
        show_default=True,
        help="points: OpenSpiel's returns_type point_difference (half the point difference); "
        "win: win_loss.",
    )(command)
    return click.option(
        "--order",
        type=click.Choice(IMPERFECT_ORDERS),
        default="random",
        show_default=True,
        help="Prize order (OpenSpiel's points_order).",
    )(command)
