"""``gops evaluate`` and ``gops tournament``: bots against bots, exactly or by sampling.

Bad input (an unknown bot, N out of range, fewer than one game) is one line on stderr, exit 2."""

from __future__ import annotations

import json
import time
from fractions import Fraction
from math import comb

import click

from exact.cli.common import (
    INTEGER,
    SOLVE_PROGRESS_LINE_SECONDS,
    NumberArgumentsCommand,
    game_options,
    order_option,
    presolve,
    presolve_variant,
    time_left,
)
from exact.cli.limits import check_command_n
from exact.cli.render import digit_count, fraction_text
from exact.errors import GopsInputError
from exact.game.objectives import FLOAT, POINTS, RATIONAL, WIN
from exact.game.orders import CONTROLLED_BY_ME, CONTROLLED_BY_THEM, RANDOM, PrizeOrder
from exact.game.spec import GameSpec
from exact.game.variants import STANDARD, Variant, get_variant


class GamesProgress:
    """Progress of a long tournament on stderr: once ``every`` seconds have passed since
    the start or the last line, the games played of all, the rate, and the time left at
    that rate.  A tournament shorter than ``every`` prints nothing."""

    def __init__(self, total: int, every: float | None = None, clock=time.monotonic):
        self.total, self.done, self.clock = total, 0, clock
        self.every = SOLVE_PROGRESS_LINE_SECONDS if every is None else every
        self.start = self.last = clock()

    def __call__(self, games: int) -> None:
        self.done += games
        now = self.clock()
        if now - self.last < self.every or self.done >= self.total:
            return
        rate = self.done / max(now - self.start, 1e-9)
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        click.echo(
            f"gops: tournament: {self.done:,} of {self.total:,} games "
            f"({100 * self.done / self.total:.1f} %), {60 * rate:,.0f} games a minute; "
            f"about {time_left(left)} left",
            err=True,
        )
        self.last = now


def _num(x, exact: bool):
    """JSON form of a number: "p/q" strings when exact (as ``gops strategy --json``)."""
    return fraction_text(x) if exact else float(x)


def _show(x, digits: int = 6, signed: bool = False) -> str:
    """A number for humans: decimal, plus the fraction itself when it is short."""
    text = f"{float(x):+.{digits}f}" if signed else f"{float(x):.{digits}f}"
    if isinstance(x, Fraction):
        if digit_count(x.numerator) + digit_count(x.denominator) <= 28:
            return f"{text} = {fraction_text(x)}"
        return (
            f"{text} (exact fraction of {digit_count(x.numerator)}/"
            f"{digit_count(x.denominator)} digits; --json prints it)"
        )
    return text


@click.command(cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@click.option(
    "--bots", "bots", required=True, help="Two bots, e.g. optimal,upcard (A is player 0)."
)
@click.option(
    "--float",
    "use_float",
    is_flag=True,
    help="Float equilibria for optimal bots even when N <= 6 (optimal-win: N <= 5); much faster.",
)
@order_option(
    "The prize order; controlled-by-me: bot A chooses each prize, "
    "controlled-by-them: bot B (an optimal bot takes its best prize, others "
    "choose uniformly); optimal bots play that order's equilibrium."
)
@click.option(
    "--variant",
    type=click.Choice(["standard", "three", "three-third"]),
    default="standard",
    show_default=True,
    help="three, three-third: --bots names three bots, seated 0, 1, 2 (equilibrium: the "
    "three-player equilibrium, N <= 4); each seat's exact expected points.",
)
@click.option("--json", "as_json", is_flag=True, help='Print JSON (exact numbers as "p/q").')
@game_options("evaluate")
def evaluate(game: GameSpec, bots: str, use_float: bool, variant: str, as_json: bool) -> None:
    """Exact expected point difference and win/draw/loss of bot A against bot B.

    Every prize order and every bid of both bots' mixes is enumerated (no sampling).
    Bots: optimal, optimal-win, random, upcard, upcard+1, lowest, highest.  The optimal
    bot is exact for N <= 6 (minutes at N = 6 against a mixing bot; --float is faster),
    optimal-win for N <= 5, and float64 above; N >= 8 with two mixing bots takes very long.
    With --variant three or three-third, three bots (equilibrium among them): each seat's
    exact expected points.
    """
    rules = get_variant(variant)
    if rules is not STANDARD:
        _evaluate_three(game, bots, use_float, rules, as_json)
        return
    from exact.analysis.evaluate import evaluate as run_evaluation
    from exact.play.bots import parse_bot_list
    from exact.play.tournament import OPTIMAL_BOTS

    n, order = game.n, game.order
    names = parse_bot_list(bots)
    if len(names) != 2:
        raise GopsInputError(f"--bots takes exactly two bots, got {len(names)}")
    made = _evaluation_bots(game, names, use_float)
    ev = run_evaluation(n, made[0], made[1], order=order)
    if as_json:
        click.echo(json.dumps(_evaluation_json(ev, n, order)))
        return
    _print_evaluation(ev, n, order, [x for x in names if x in OPTIMAL_BOTS])


def _evaluate_three(
    game: GameSpec, bots: str, use_float: bool, rules: Variant, as_json: bool
) -> None:
    """gops evaluate --variant three|three-third: each seat's exact expected points
    (:func:`exact.play.three.evaluate_three`)."""
    variant = rules.name  # for the messages and the JSON
    from exact.play.bots import parse_bot_list
    from exact.play.three import evaluate_three, three_solution

    if use_float or game.order is not RANDOM:
        raise GopsInputError(f"--variant {variant} is evaluated exactly with shuffled prizes")
    names = parse_bot_list(bots)
    if len(names) != 3:
        raise GopsInputError(f"--variant {variant} seats three bots, got {len(names)}")
    ev = evaluate_three(game.n, rules, names)
    if as_json:
        seats = [{"bot": b, "points": fraction_text(p)} for b, p in zip(names, ev.points)]
        click.echo(json.dumps({"n": ev.n, "variant": variant, "seats": seats}))
        return
    click.echo(
        f"{ev.n}-card GOPS ({variant} variant, three players, shuffled prizes): each seat's "
        "exact expected points"
    )
    for seat, (name, p) in enumerate(zip(names, ev.points)):
        click.echo(f"  seat {seat}  {name:<12} {_show(p)}")
    if "equilibrium" in names:
        value = float(three_solution(ev.n, rules).seat_values()[0])
        click.echo(
            "exact for the mixes as stored: the equilibrium's float mixes read as exact "
            f"rationals, each scaled to sum 1; its own value is {value:.6f} a seat"
        )


def _evaluation_bots(game: GameSpec, names: list[str], use_float: bool) -> list:
    """Bot A's and bot B's for gops evaluate: an optimal bot's game solved here (exact up
    to its limit unless --float), seen from its own seat."""
    from exact.limits import EXACT_OPTIMAL_MAX_N, EXACT_OPTIMAL_WIN_MAX_N
    from exact.play.bots import bot_for, make_bot
    from exact.play.tournament import OPTIMAL_BOTS

    n = game.n
    made: list = []  # bot A's, bot B's
    for player, x in enumerate(names):
        if x in OPTIMAL_BOTS:
            objective = WIN if x == "optimal-win" else POINTS
            most = EXACT_OPTIMAL_WIN_MAX_N if objective.has_lead else EXACT_OPTIMAL_MAX_N
            arithmetic = FLOAT if use_float or n > most else RATIONAL
            seen = game.replace(objective=objective, arithmetic=arithmetic)
            if player == 1:  # B sees the game from its seat
                seen = seen.mirrored()
            presolve(seen)
            made.append(bot_for(seen))
        else:
            made.append(make_bot(x, n))
    return made


def _evaluation_json(ev, n: int, order: PrizeOrder) -> dict:
    """gops evaluate --json."""
    return {
        "n": n,
        **({} if order is RANDOM else {"order": order.name}),
        "bots": list(ev.bots),
        "exact": ev.exact,
        "expected_difference": _num(ev.expected_difference, ev.exact),
        "win": _num(ev.win, ev.exact),
        "draw": _num(ev.draw, ev.exact),
        "loss": _num(ev.loss, ev.exact),
        "distribution": {str(d): _num(p, ev.exact) for d, p in ev.distribution.items()},
        "error_bound": ev.error_bound,
        "equilibrium_gap": ev.equilibrium_gap,
    }


def _print_evaluation(ev, n: int, order: PrizeOrder, optimal: list[str]) -> None:
    """gops evaluate's text: the game, the expected difference, P(win/draw/loss), and
    whether it is exact (``optimal``: the optimal bots among the two)."""
    a, b = ev.bots
    prizes = {
        RANDOM: "every prize order",
        CONTROLLED_BY_ME: "player 0 chooses the prizes",
        CONTROLLED_BY_THEM: "player 1 chooses the prizes",
    }.get(order, f"the prizes in {order.name} order")
    click.echo(
        f"{a} (player 0) against {b} (player 1), {n}-card GOPS: {prizes}, "
        f"every bid ({ev.states:,} positions)"
    )
    click.echo(f"expected point difference  {_show(ev.expected_difference, signed=True)}")
    click.echo(f"P(win)                     {_show(ev.win)}")
    click.echo(f"P(draw)                    {_show(ev.draw)}")
    click.echo(f"P(loss)                    {_show(ev.loss)}")
    if ev.exact:
        how = ""
        if optimal:
            how = f" (the {optimal[0]} bot plays the exact rational equilibrium)"
        click.echo(f"exact: rational arithmetic throughout{how}")
    else:
        if optimal:
            click.echo(
                f"NOT exact: the {optimal[0]} bot plays the float64 equilibrium (largest "
                f"checked gap {ev.equilibrium_gap:.1e} per matrix game)"
            )
        click.echo(
            f"float64 evaluation: every number above is within {ev.error_bound:.1e} "
            "of the exact value for these mixes (a-priori rounding bound)"
        )


def _tournament_n(options: dict) -> int:
    """gops tournament's bots, then its N (the limit depends on the variant and on an
    optimal bot playing)."""
    from exact.play.bots import parse_bot_list
    from exact.play.tournament import OPTIMAL_BOTS

    variant, names = get_variant(options["variant"]), parse_bot_list(options["bots"])
    optimal = variant.players == 2 and any(x in OPTIMAL_BOTS for x in names)
    return check_command_n(
        options["n"],
        "tournament",
        None if variant is STANDARD else f"--variant {variant.name}",
        "with an optimal bot" if optimal else None,
    )


@click.command(cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@click.option(
    "--bots",
    "bots",
    default="optimal,random,upcard,upcard+1,lowest,highest",
    show_default=True,
    help="Comma-separated bots; every pair plays.",
)
@click.option(
    "--games",
    "games",
    type=INTEGER,
    default=1000,
    show_default=True,
    help="Games per pair (seats alternate).",
)
@click.option("--seed", "seed", type=INTEGER, default=0, show_default=True, help="Random seed.")
@click.option(
    "--variant",
    "variant",
    default="standard",
    show_default=True,
    type=click.Choice(["standard", "dummy", "twelve", "three", "three-third"]),
    help="standard, dummy (a random third bidder) or twelve (n - 1 rounds); in a "
    "variant the optimal bot plays the variant's own equilibrium.  three or "
    "three-third: three players, every triple of bots plays.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@game_options("tournament", n=_tournament_n)
def tournament(
    game: GameSpec, bots: str, games: int, seed: int, variant: str, as_json: bool
) -> None:
    """Every pair of bots plays G games of N-card GOPS; 95% intervals (Wilson, normal).

    Bots: optimal, optimal-win, random, upcard, upcard+1, lowest, highest.
    """
    from exact.play.bots import parse_bot_list
    from exact.play.tournament import check_tournament_options, tournament_variant
    from exact.play.tournament import tournament as run_tournament

    names = parse_bot_list(bots)
    n = check_tournament_options(game.n, names, games, variant)
    rules = tournament_variant(variant)
    if rules.players == 3:
        return _three_player_tournament(n, names, games, seed, rules, as_json)
    if rules is STANDARD:  # the bots' solutions, solved here with a bar, then cached
        for x in names:
            if x in ("optimal", "optimal-win"):
                presolve(game.replace(objective="win" if x == "optimal-win" else "points"))
    elif "optimal" in names:
        presolve_variant(rules, game)
    progress = GamesProgress(comb(len(names), 2) * games)
    results = run_tournament(n, names, games, seed, rules, progress)
    _print_pairs(results, n, names, games, seed, rules, as_json)


def _print_pairs(results, n: int, names, games: int, seed: int, variant: Variant, as_json: bool):
    """gops tournament's answer for two-player games: JSON, or a line per pair."""
    if as_json:
        out = {
            "n": n,
            "games": games,
            "seed": seed,
            "variant": variant.name,
            "pairs": [
                {
                    "bots": list(r.bots),
                    "wins": r.wins,
                    "draws": r.draws,
                    "losses": r.losses,
                    "win_interval": list(r.win_interval),
                    "draw_interval": list(r.draw_interval),
                    "loss_interval": list(r.loss_interval),
                    "mean_difference": r.mean_difference,
                    "mean_interval": None if r.mean_interval is None else list(r.mean_interval),
                }
                for r in results
            ],
        }
        click.echo(json.dumps(out))
        return
    rules = "" if variant is STANDARD else f" ({variant.name} variant)"
    click.echo(
        f"{n}-card GOPS{rules}, {games} games per pair (seats alternate), seed {seed}; "
        "counts from A's side, 95% intervals"
    )
    width = max(len(x) for x in names)
    click.echo(f"{'A':>{width}} {'B':>{width}}  {'win':<19} {'draw':<19} {'loss':<19} mean A-B")

    def share(count, iv):
        return f"{count / games:.3f} [{iv[0]:.3f},{iv[1]:.3f}]"

    for r in results:
        mean = f"{r.mean_difference:+.3f}"
        if r.mean_interval is not None:
            mean += f" [{r.mean_interval[0]:+.3f},{r.mean_interval[1]:+.3f}]"
        click.echo(
            f"{r.bots[0]:>{width}} {r.bots[1]:>{width}}  {share(r.wins, r.win_interval)} "
            f"{share(r.draws, r.draw_interval)} {share(r.losses, r.loss_interval)} {mean}"
        )


def _three_player_tournament(n, names, games, seed, variant: Variant, as_json):
    """Print the triples of a three-player tournament (``gops tournament --variant three``)."""
    from exact.play.tournament import three_player_tournament

    progress = GamesProgress(comb(len(names), 3) * games)
    results = three_player_tournament(n, names, games, seed, variant, progress)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "n": n,
                    "games": games,
                    "seed": seed,
                    "variant": variant.name,
                    "triples": [
                        {
                            "bots": list(r.bots),
                            "wins": list(r.wins),
                            "shared": r.shared,
                            "win_intervals": [list(iv) for iv in r.win_intervals],
                            "mean_points": list(r.mean_points),
                        }
                        for r in results
                    ],
                }
            )
        )
        return
    click.echo(
        f"{n}-card GOPS ({variant.name} variant, three players), {games} games per triple "
        f"(seats rotate), seed {seed}; a win is strictly the most points, 95% intervals"
    )
    width = max(len(x) for x in names)
    for r in results:
        click.echo("")
        click.echo(f"{'bot':>{width}}  {'wins':<19} mean points")
        for name, w, iv, pts in zip(r.bots, r.wins, r.win_intervals, r.mean_points):
            click.echo(f"{name:>{width}}  {w / games:.3f} [{iv[0]:.3f},{iv[1]:.3f}] {pts:.3f}")
        click.echo(f"{'shared':>{width}}  {r.shared / games:.3f} (two or three tied for most)")
