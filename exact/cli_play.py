"""``gops evaluate``, ``gops tournament`` and ``gops play``: bots against bots and you.

Registered on the ``gops`` group by one import at the end of :mod:`exact.cli`.  Bad input
(an unknown bot, N out of range, fewer than one game) is one line on stderr, exit 2.
"""

from __future__ import annotations

import json
import random
import sys
from fractions import Fraction

import click

from .cli import ProgressBar, main, one_line_errors
from .errors import GopsInputError


def _num(x, exact: bool):
    """JSON form of a number: "p/q" strings when exact (as ``gops strategy --json``)."""
    return str(x) if exact else float(x)


def _show(x, digits: int = 6, signed: bool = False) -> str:
    """A number for humans: decimal, plus the fraction itself when it is short."""
    text = f"{float(x):+.{digits}f}" if signed else f"{float(x):.{digits}f}"
    if isinstance(x, Fraction):
        frac = str(x)
        if len(frac) <= 30:
            return f"{text} = {frac}"
        return (f"{text} (exact fraction of {len(str(abs(x.numerator)))}/"
                f"{len(str(x.denominator))} digits; --json prints it)")
    return text


@main.command()
@click.argument("n", type=int)
@click.option("--bots", "bots", required=True,
              help="Two bots, e.g. optimal,upcard (A is player 0).")
@click.option("--float", "use_float", is_flag=True,
              help="Float equilibrium for the optimal bot even when N <= 6 (much faster).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (exact numbers as \"p/q\").")
@one_line_errors
def evaluate(n, bots, use_float, as_json):
    """Exact expected point difference and win/draw/loss of bot A against bot B.

    Every prize order and every bid of both bots' mixes is enumerated (no sampling).
    Bots: optimal, random, upcard, upcard+1, lowest, highest.  The optimal bot is exact
    for N <= 6 (minutes at N = 6 against a mixing bot; --float is faster) and float64
    above; N >= 8 with two mixing bots takes very long.
    """
    from .bots import EXACT_OPTIMAL_MAX_N, make_bot, parse_bot_list
    from .evaluate import MAX_EVALUATE_N
    from .evaluate import evaluate as run_evaluation
    from .rules import _check_n

    names = parse_bot_list(bots)
    if len(names) != 2:
        raise GopsInputError(f"--bots takes exactly two bots, got {len(names)}")
    n = _check_n(n)
    if n > MAX_EVALUATE_N:
        raise GopsInputError(f"N must be between 1 and {MAX_EVALUATE_N} to evaluate, got {n}")
    if "optimal" in names:
        arithmetic = "float" if use_float or n > EXACT_OPTIMAL_MAX_N else "rational"
        _presolve(n, arithmetic)
        made = [make_bot(x, n, arithmetic=arithmetic) if x == "optimal" else make_bot(x, n)
                for x in names]
    else:
        made = [make_bot(x, n) for x in names]
    ev = run_evaluation(n, *made)
    if as_json:
        out = {
            "n": n,
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
        click.echo(json.dumps(out))
        return
    a, b = ev.bots
    click.echo(f"{a} (player 0) against {b} (player 1), {n}-card GOPS: every prize order, "
               f"every bid ({ev.states:,} positions)")
    click.echo(f"expected point difference  {_show(ev.expected_difference, signed=True)}")
    click.echo(f"P(win)                     {_show(ev.win)}")
    click.echo(f"P(draw)                    {_show(ev.draw)}")
    click.echo(f"P(loss)                    {_show(ev.loss)}")
    if ev.exact:
        how = ""
        if "optimal" in names:
            how = " (the optimal bot plays the exact rational equilibrium)"
        click.echo(f"exact: rational arithmetic throughout{how}")
    else:
        if "optimal" in names:
            click.echo(f"NOT exact: the optimal bot plays the float64 equilibrium (largest "
                       f"checked gap {ev.equilibrium_gap:.1e} per matrix game)")
        click.echo(f"float64 evaluation: every number above is within {ev.error_bound:.1e} "
                   "of the exact value for these mixes (a-priori rounding bound)")


@main.command()
@click.argument("n", type=int)
@click.option("--bots", "bots", default="optimal,random,upcard,upcard+1,lowest,highest",
              show_default=True, help="Comma-separated bots; every pair plays.")
@click.option("--games", "games", type=int, default=1000, show_default=True,
              help="Games per pair (seats alternate).")
@click.option("--seed", "seed", type=int, default=0, show_default=True, help="Random seed.")
@click.option("--variant", "variant", default="standard", show_default=True,
              help="standard, dummy (a random third bidder) or twelve (n - 1 rounds).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@one_line_errors
def tournament(n, bots, games, seed, variant, as_json):
    """Every pair of bots plays G games of N-card GOPS; 95% intervals (Wilson, normal)."""
    from .bots import parse_bot_list
    from .tournament import check_tournament_options
    from .tournament import tournament as run_tournament

    names = parse_bot_list(bots)
    n = check_tournament_options(n, names, games, variant)
    if "optimal" in names:
        _presolve(n, "float")
    results = run_tournament(n, names, games, seed, variant)
    if as_json:
        out = {
            "n": n, "games": games, "seed": seed, "variant": variant,
            "pairs": [
                {
                    "bots": list(r.bots), "wins": r.wins, "draws": r.draws, "losses": r.losses,
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
    rules = "" if variant == "standard" else f" ({variant} variant)"
    click.echo(f"{n}-card GOPS{rules}, {games} games per pair (seats alternate), seed {seed}; "
               "counts from A's side, 95% intervals")
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


@main.command()
@click.argument("n", type=int)
@click.option("--seed", "seed", type=int, default=None,
              help="Random seed (default: random; printed).")
@click.option("--reveal", is_flag=True,
              help="Show the computer's equilibrium mix after each round.")
@one_line_errors
def play(n, seed, reveal):
    """Play N-card GOPS against the computer (the optimal bot), N <= 10.

    Type a card number to bid; the last round plays itself.  End of input or "q" quits.
    """
    from .bots import make_bot
    from .rules import new_game
    from .tournament import MAX_OPTIMAL_N

    if isinstance(n, bool) or not 1 <= n <= MAX_OPTIMAL_N:
        raise GopsInputError(f"N must be between 1 and {MAX_OPTIMAL_N}, got {n}")
    if seed is None:
        seed = random.SystemRandom().randrange(10**6)
    rng = random.Random(seed)
    _presolve(n, "float")
    computer = make_bot("optimal", n, arithmetic="float")
    pos = new_game(n)
    order = list(range(1, n + 1))
    rng.shuffle(order)
    won: tuple[list[int], list[int]] = ([], [])
    click.echo(f"{n}-card GOPS against the computer (seed {seed}). Each round you both "
               "bid a card face down; the higher bid wins the prize, a tie discards it.")
    for rnd, prize in enumerate(order, 1):
        pos = pos.turn_up(prize)
        click.echo("")
        click.echo(f"Round {rnd} of {n}: the {prize} is up.")
        click.echo(f"  prizes left     {_cards(pos.deck)}")
        click.echo(f"  your cards      {_cards(pos.hands[0])}")
        click.echo(f"  computer cards  {_cards(pos.hands[1])}")
        click.echo(f"  prizes won      you {_cards(won[0]) or '-'};  "
                   f"computer {_cards(won[1]) or '-'}")
        click.echo(f"  score           you {pos.points[0]}, computer {pos.points[1]}")
        theirs = computer.bid(pos, 1, rng)
        if len(pos.hands[0]) == 1:
            mine = next(iter(pos.hands[0]))
            click.echo(f"Last round: you bid your {mine}.")
        else:
            mine = _ask_bid(pos.hands[0])
            if mine is None:
                click.echo(f"Game abandoned in round {rnd}: score you {pos.points[0]}, "
                           f"computer {pos.points[1]}.")
                return
        mix = computer.mix(pos, 1)
        pos, result = pos.play(mine, theirs)
        if result.winner is None:
            outcome = f"a tie: the {prize} is discarded"
        else:
            won[result.winner].append(prize)
            outcome = f"{'you win' if result.winner == 0 else 'the computer wins'} the {prize}"
        click.echo(f"You bid {mine}, the computer bid {theirs}: {outcome}.")
        if reveal:
            shown = "  ".join(f"{c}: {p:.4f}" for c, p in sorted(mix.items()) if p > 0)
            click.echo(f"  the computer's equilibrium mix was  {shown}")
    you, it = pos.points
    verdict = ("You win" if you > it else "The computer wins" if it > you else "A draw")
    margin = f" by {abs(you - it)}" if you != it else ""
    click.echo("")
    click.echo(f"Final score: you {you} ({_cards(won[0]) or '-'}), computer {it} "
               f"({_cards(won[1]) or '-'}). {verdict}{margin}.")


def _presolve(n: int, arithmetic: str) -> None:
    """Solve n-card GOPS for the optimal bot (cached by exact.bots) with a progress bar."""
    from .bots import solution_for

    bar = ProgressBar()
    try:
        solution_for(n, arithmetic, progress=bar)
    finally:
        bar.close()


def _cards(cards) -> str:
    return " ".join(str(c) for c in sorted(cards))


def _ask_bid(hand: frozenset[int]) -> int | None:
    """Read a card of ``hand`` from stdin, asking again until valid; None at end of input."""
    while True:
        click.echo(f"Your bid ({_cards(hand)}): ", nl=False)
        line = sys.stdin.readline()
        if line and not sys.stdin.isatty():
            click.echo(line.rstrip("\n"))  # scripted input: keep the transcript readable
        if not line:
            click.echo("")
            click.echo("End of input.")
            return None
        text = line.strip()
        if text.lower() in ("q", "quit", "exit"):
            return None
        if not text:
            click.echo("Please type the number of one of your cards.")
            continue
        if not text.isdigit():
            shown = text if len(text) <= 20 else text[:20] + "..."
            click.echo(f"{shown!r} is not a card number; type one of {_cards(hand)}.")
            continue
        card = int(text)
        if card not in hand:
            click.echo(f"You do not hold the {card}; type one of {_cards(hand)}.")
            continue
        return card

