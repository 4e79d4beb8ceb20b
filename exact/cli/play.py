"""``gops evaluate``, ``gops tournament`` and ``gops play``: bots against bots and you.

Registered on the ``gops`` group by :mod:`exact.cli`.  Bad input
(an unknown bot, N out of range, fewer than one game) is one line on stderr, exit 2."""

from __future__ import annotations

import json
import random
import sys
from fractions import Fraction

import click

from exact.errors import GopsInputError
from exact.game.rules import parse_integer

from exact.cli.common import (
    one_line_errors,
    ProgressBar,
    presolve_variant,
    INTEGER,
    NumberArgumentsCommand,
)
from exact.cli.limits import check_n, objective_flag
from exact.cli.render import digit_count, fraction_text


def _num(x, exact: bool):
    """JSON form of a number: "p/q" strings when exact (as ``gops strategy --json``)."""
    return fraction_text(x) if exact else float(x)

def _show(x, digits: int = 6, signed: bool = False) -> str:
    """A number for humans: decimal, plus the fraction itself when it is short."""
    text = f"{float(x):+.{digits}f}" if signed else f"{float(x):.{digits}f}"
    if isinstance(x, Fraction):
        if digit_count(x.numerator) + digit_count(x.denominator) <= 28:
            return f"{text} = {fraction_text(x)}"
        return (f"{text} (exact fraction of {digit_count(x.numerator)}/"
                f"{digit_count(x.denominator)} digits; --json prints it)")
    return text

@click.command(cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@click.option("--bots", "bots", required=True,
              help="Two bots, e.g. optimal,upcard (A is player 0).")
@click.option("--float", "use_float", is_flag=True,
              help="Float equilibria for optimal bots even when N <= 6 (optimal-win: N <= 5); "
                   "much faster.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (exact numbers as \"p/q\").")
@one_line_errors
def evaluate(n, bots, use_float, as_json):
    """Exact expected point difference and win/draw/loss of bot A against bot B.

    Every prize order and every bid of both bots' mixes is enumerated (no sampling).
    Bots: optimal, optimal-win, random, upcard, upcard+1, lowest, highest.  The optimal
    bot is exact for N <= 6 (minutes at N = 6 against a mixing bot; --float is faster),
    optimal-win for N <= 5, and float64 above; N >= 8 with two mixing bots takes very long.
    """
    from exact.play.bots import EXACT_OPTIMAL_MAX_N, EXACT_OPTIMAL_WIN_MAX_N, make_bot, parse_bot_list
    from exact.analysis.evaluate import evaluate as run_evaluation
    from exact.play.tournament import OPTIMAL_BOTS

    n = check_n(n, "evaluate")
    names = parse_bot_list(bots)
    if len(names) != 2:
        raise GopsInputError(f"--bots takes exactly two bots, got {len(names)}")
    made = []
    for x in names:
        if x in OPTIMAL_BOTS:
            objective = "win" if x == "optimal-win" else "points"
            most = EXACT_OPTIMAL_WIN_MAX_N if objective == "win" else EXACT_OPTIMAL_MAX_N
            arithmetic = "float" if use_float or n > most else "rational"
            _presolve(n, arithmetic, objective)
            made.append(make_bot(x, n, arithmetic=arithmetic))
        else:
            made.append(make_bot(x, n))
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
    optimal = [x for x in names if x in OPTIMAL_BOTS]
    if ev.exact:
        how = ""
        if optimal:
            how = f" (the {optimal[0]} bot plays the exact rational equilibrium)"
        click.echo(f"exact: rational arithmetic throughout{how}")
    else:
        if optimal:
            click.echo(f"NOT exact: the {optimal[0]} bot plays the float64 equilibrium (largest "
                       f"checked gap {ev.equilibrium_gap:.1e} per matrix game)")
        click.echo(f"float64 evaluation: every number above is within {ev.error_bound:.1e} "
                   "of the exact value for these mixes (a-priori rounding bound)")

@click.command(cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@click.option("--bots", "bots", default="optimal,random,upcard,upcard+1,lowest,highest",
              show_default=True, help="Comma-separated bots; every pair plays.")
@click.option("--games", "games", type=INTEGER, default=1000, show_default=True,
              help="Games per pair (seats alternate).")
@click.option("--seed", "seed", type=INTEGER, default=0, show_default=True, help="Random seed.")
@click.option("--variant", "variant", default="standard", show_default=True,
              type=click.Choice(["standard", "dummy", "twelve", "three", "three-third"]),
              help="standard, dummy (a random third bidder) or twelve (n - 1 rounds); in a "
                   "variant the optimal bot plays the variant's own equilibrium.  three or "
                   "three-third: three players, every triple of bots plays.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@one_line_errors
def tournament(n, bots, games, seed, variant, as_json):
    """Every pair of bots plays G games of N-card GOPS; 95% intervals (Wilson, normal).

    Bots: optimal, optimal-win, random, upcard, upcard+1, lowest, highest.
    """
    from exact.play.bots import parse_bot_list
    from exact.play.tournament import OPTIMAL_BOTS, THREE_PLAYER_VARIANTS, check_tournament_options
    from exact.play.tournament import tournament as run_tournament

    names = parse_bot_list(bots)
    optimal = variant not in THREE_PLAYER_VARIANTS and any(x in OPTIMAL_BOTS for x in names)
    check_n(n, "tournament", None if variant == "standard" else f"--variant {variant}",
            "with an optimal bot" if optimal else None)
    n = check_tournament_options(n, names, games, variant)
    if variant in THREE_PLAYER_VARIANTS:
        return _three_player_tournament(n, names, games, seed, variant, as_json)
    if variant == "standard":
        for x in names:
            if x in ("optimal", "optimal-win"):
                _presolve(n, "float", "win" if x == "optimal-win" else "points")
    elif "optimal" in names:

        presolve_variant(variant, n, "float")
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

def _three_player_tournament(n, names, games, seed, variant, as_json):
    """Print the triples of a three-player tournament (``gops tournament --variant three``)."""
    from exact.play.tournament import three_player_tournament

    results = three_player_tournament(n, names, games, seed, variant)
    if as_json:
        click.echo(json.dumps({
            "n": n, "games": games, "seed": seed, "variant": variant,
            "triples": [
                {"bots": list(r.bots), "wins": list(r.wins), "shared": r.shared,
                 "win_intervals": [list(iv) for iv in r.win_intervals],
                 "mean_points": list(r.mean_points)}
                for r in results
            ],
        }))
        return
    click.echo(f"{n}-card GOPS ({variant} variant, three players), {games} games per triple "
               f"(seats rotate), seed {seed}; a win is strictly the most points, 95% intervals")
    width = max(len(x) for x in names)
    for r in results:
        click.echo("")
        click.echo(f"{'bot':>{width}}  {'wins':<19} mean points")
        for name, w, iv, pts in zip(r.bots, r.wins, r.win_intervals, r.mean_points):
            click.echo(f"{name:>{width}}  {w / games:.3f} [{iv[0]:.3f},{iv[1]:.3f}] {pts:.3f}")
        click.echo(f"{'shared':>{width}}  {r.shared / games:.3f} (two or three tied for most)")

@click.command(cls=NumberArgumentsCommand)
@click.argument("n", type=INTEGER)
@click.option("--objective", type=click.Choice(["points", "win"]), default="points",
              show_default=True,
              help="What the computer plays for: expected points, or P(win) - P(loss).")
@click.option("--variant", type=click.Choice(["standard", "twelve", "dummy", "three",
                                              "three-third"]),
              default="standard", show_default=True,
              help="twelve: n - 1 rounds, aces out, the last prize discarded; dummy: a "
                   "random third bidder (the computer plays these variants' equilibria); "
                   "three, three-third: you against two computer players (--opponents).")
@click.option("--opponents", default=None,
              help="The two bots of a three-player variant [default: upcard+1,upcard].")
@click.option("--store", "store", type=click.Path(file_okay=False, path_type=str),
              default=None, help="Play from a store of `gops solve N --store DIR` (N <= 13).")
@click.option("--seed", "seed", type=INTEGER, default=None,
              help="Random seed (default: random; printed).")
@click.option("--reveal", is_flag=True,
              help="Show the computer's mix (its equilibrium) after each round.")
@click.option("--declarations", is_flag=True,
              help="Face-up declaration scoring (\"Psychological JuJitsu\"): type d<card> "
                   "to bid face up from this round on; the computer then answers each bid "
                   "it sees.")
@one_line_errors
def play(n, objective, variant, opponents, store, seed, reveal, declarations):
    """Play N-card GOPS against the computer (an optimal bot).

    Solved on the fly for N <= 10 (N <= 9 in the twelve variant, N <= 6 with the dummy),
    up to 13 from --store.  In the three-player variants the two computer players are
    bots (no equilibrium is computed for three players).  Type a card number to bid; the
    last round plays itself.  End of input or "q" quits.
    """
    from exact.game.variants import get_variant, start

    rules = get_variant(variant)
    if declarations and (variant != "standard" or objective != "points"):
        raise GopsInputError("--declarations plays the standard game with the points "
                             "objective only")
    computers = _computers(n, objective, rules, opponents, store)
    if seed is None:
        seed = random.SystemRandom().randrange(10**6)
    rng = random.Random(seed)
    pos = start(rules, n)
    order = list(range(1, n + 1))
    rng.shuffle(order)
    dummy_order = list(range(1, n + 1))
    if rules.dummy:
        rng.shuffle(dummy_order)
    rounds = rules.rounds(n)
    # Labels: in lists of the round ("short") and as the subject of a sentence.
    if rules.players == 2:
        short, subject = ["you", "computer"], ["you", "the computer"]
        tie = "." if rules.dummy else ", a tie discards it."
        click.echo(f"{n}-card GOPS against the computer (seed {seed}). Each round you both "
                   f"bid a card face down; the higher bid wins the prize{tie}")
    else:
        short = subject = ["you", "computer 1", "computer 2"]
        click.echo(f"{n}-card GOPS against two computer players, computer 1 "
                   f"({computers[0].name}) and computer 2 ({computers[1].name}) (seed {seed}). "
                   "Each round all three of you bid a card face down; the highest bid wins "
                   "the prize.")
    if variant != "standard":
        click.echo(VARIANT_RULES[variant])
    if objective == "win":
        click.echo("The computer plays to win the game (maximising P(win) - P(loss)), "
                   "not for points.")
    if declarations:
        click.echo("Face-up declarations: type d<card> (e.g. d5) to bid that card face up "
                   "and every later bid too; the winner scores the number of face-up rounds "
                   "(1 if you never declare).")
    declared = None  # the round from which your bids are face up
    won: list[list[str]] = [[] for _ in short]
    for rnd, prize in enumerate(order[:rounds], 1):
        pos = pos.turn_up(prize)
        click.echo("")
        click.echo(f"Round {rnd} of {rounds}: the {prize} is up.")
        _show_table(pos, short, won)
        if len(pos.hands[0]) == 1:
            mine = next(iter(pos.hands[0]))
            click.echo(f"Last round: you bid your {mine}.")
        else:
            answer = _ask_bid(pos.hands[0], can_declare=declarations and declared is None)
            if answer is None:
                click.echo(f"Game abandoned in round {rnd}: score "
                           f"{_scores(short, pos.points)}.")
                return
            mine, declaring = answer
            if declaring:
                declared = rnd
                click.echo(f"You declare: your bids are face up from round {rnd} on.")
        if declared is not None:  # the computer sees your bid before its own
            theirs = [_face_up_reply(computers[0].solution, pos, mine)]
            click.echo(f"The computer sees your {mine} and answers with its {theirs[0]}.")
        else:  # sampled only now, but independently of your bid
            theirs = [bot.bid(pos, i, rng) for i, bot in enumerate(computers, 1)]
        mixes = [bot.mix(pos, i) for i, bot in enumerate(computers, 1)]
        pos, result = pos.play((mine, *theirs), dummy_order[rnd - 1] if rules.dummy else None)
        bids = "".join(f", {who} bid {b}" for who, b in zip(subject[1:], theirs))
        dummy = f", the dummy {result.dummy_bid}" if rules.dummy else ""
        names = subject + (["the dummy"] if rules.dummy else [])
        click.echo(f"You bid {mine}{bids}{dummy}: {_outcome(prize, result.points, names, won)}.")
        if reveal:
            what = "equilibrium mix" if rules.players == 2 else "mix"
            if declared is not None:
                what += " (not used: your bid was face up)"
            _show_mixes(subject[1:], mixes, what)
    if rules.drop_last:
        click.echo("")
        click.echo(f"The {order[-1]} is left over: it is never bid on and scores for nobody.")
    click.echo("")
    click.echo("Final score: " + ", ".join(
        f"{who} {_pts(p)} ({_won(w)})" for who, p, w in zip(short, pos.points, won))
        + f". {_verdict(subject, pos.points[:len(short)])}.")
    if declarations:
        _print_declaration_score(rounds, pos.points, declared)

def _face_up_reply(solution, pos, mine: int) -> int:
    """The computer's best answer to a bid it can see: the card maximising its value of
    the round, M[its card, your bid] with M its payoff matrix at this position (the
    continuation values of the equilibrium); the lowest such card on ties."""
    its, yours = sorted(pos.hands[1]), sorted(pos.hands[0])
    M = solution.matrix(pos.hands[1], pos.hands[0], pos.deck, pos.upcard)
    column = [M[i][yours.index(mine)] for i in range(len(its))]
    return its[column.index(max(column))]

def _print_declaration_score(rounds: int, points, declared: int | None) -> None:
    from exact.game.variants import score_declarations

    winner = None if points[0] == points[1] else (0 if points[0] > points[1] else 1)
    result = score_declarations(rounds, winner, {0: declared} if declared else None)
    how = (f"you bid face up from round {declared} of {rounds}" if declared
           else "you never declared (the last round is always face up)")
    if result.winner is None:
        click.echo(f"Declaration scoring: {how}; a draw scores 0.")
    else:
        who = "you" if result.winner == 0 else "the computer"
        click.echo(f"Declaration scoring: {how}, so the game scores {result.score} for {who}.")

def _show_table(pos, short: list[str], won: list[list[str]]) -> None:
    """The state of the table once the prize is up: prizes, hands, prizes won, score."""
    click.echo(f"  prizes left     {_cards(pos.deck)}")
    click.echo(f"  your cards      {_cards(pos.hands[0])}")
    for i in range(1, len(short)):
        label = "computer cards" if len(short) == 2 else short[i]
        click.echo(f"  {label:<15} {_cards(pos.hands[i])}")
    if pos.variant.dummy:
        click.echo(f"  dummy's cards   {_cards(pos.dummy_hand)}")
    click.echo("  prizes won      " + ";  ".join(
        f"{who} {_won(w)}" for who, w in zip(short, won)))
    click.echo(f"  score           {_scores(short, pos.points)}")

def _show_mixes(who: list[str], mixes: list[dict], what: str) -> None:
    for name, mix in zip(who, mixes):
        shown = "  ".join(f"{c}: {float(p):.4f}" for c, p in sorted(mix.items()) if p > 0)
        click.echo(f"  {name}'s {what} was  {shown}")

def _verdict(subject: list[str], points) -> str:
    """"You win", "The computer wins by 3", "A draw" (two players) or who has the most."""
    best = max(points)
    leaders = [i for i, p in enumerate(points) if p == best]
    if len(leaders) > 1:
        return "A draw" if len(points) == 2 else "A tie for the most points"
    i = leaders[0]
    who = "You win" if i == 0 else f"{subject[i][0].upper()}{subject[i][1:]} wins"
    if len(points) == 2:
        return f"{who} by {_pts(abs(points[0] - points[1]))}"
    return who

def _scores(short: list[str], points) -> str:
    return ", ".join(f"{who} {_pts(p)}" for who, p in zip(short, points))

#: One line on the rules of each variant ``gops play`` offers, shown at the start.
VARIANT_RULES = {
    "twelve": "Twelve-round game: the aces are out of both hands, and the prize left after "
              "the last round is discarded.",
    "dummy": "A dummy bids a random card of a third suit after you both bid; a tie for the "
             "high bid splits the prize between the tied bidders (the dummy included), a "
             "three-way tie discards it.",
    "three": "A tie for the high bid splits the prize between the two tied players; a "
             "three-way tie discards it.",
    "three-third": "A two-way tie for the high bid gives the prize to the third player; a "
                   "three-way tie discards it.",
}

def _computers(n: int, objective: str, rules, opponents: str | None, store: str | None):
    """The computer players: one optimal bot (solved with a progress bar, or read from a
    store), or the two bots of a three-player variant."""
    from exact.play.bots import make_bot, parse_bot_list
    from exact.play.tournament import OPTIMAL_BOTS

    if rules.players == 2:
        if opponents is not None:
            raise GopsInputError("--opponents is for the three-player variants; the "
                                 "two-player game is played against the optimal bot")
        return [_computer(n, objective, rules.name, store)]
    if objective != "points" or store is not None:
        raise GopsInputError(f"the {rules.name} variant is played against bots: no "
                             "--objective win or --store")
    n = check_n(n, "play", f"--variant {rules.name}")
    names = parse_bot_list(opponents or "upcard+1,upcard")
    if len(names) != 2:
        raise GopsInputError(f"--opponents takes exactly two bots, got {len(names)}")
    for x in names:
        if x in OPTIMAL_BOTS:
            raise GopsInputError(f"the {x} bot plays two-player games only")
    return [make_bot(x, n) for x in names]

def _computer(n: int, objective: str, variant: str, store: str | None):
    """The optimal bot of a two-player game, solved (with a progress bar) or loaded from a
    store."""
    from exact.play.bots import OptimalBot, VariantOptimalBot, WinOptimalBot, solution_for

    if store is not None:
        if objective != "points" or variant != "standard":
            raise GopsInputError("a store holds the standard game's points objective only; "
                                 "drop --store to solve the others on the fly")
        import exact

        return OptimalBot(exact.load(store, n=check_n(n, "play", "--store"), objective="points"))
    if variant != "standard":
        if objective != "points":
            raise GopsInputError(f"the {variant} variant is solved for points only")

        n = check_n(n, "play", f"--variant {variant}")
        return VariantOptimalBot(presolve_variant(variant, n, "float"))
    check_n(n, "play", objective_flag(objective))
    _presolve(n, "float", objective)
    if objective == "win":
        return WinOptimalBot(solution_for(n, "float", objective="win"))
    return OptimalBot(solution_for(n, "float"))

def _won(prizes: list[str]) -> str:
    """Prizes won, in increasing order ("5(half)" for a shared one), or "-"."""
    return " ".join(sorted(prizes, key=lambda t: int(t.split("(")[0]))) or "-"

def _pts(x) -> str:
    """Points: an integer as such, a half point as 4.5."""
    return str(int(x)) if x == int(x) else f"{float(x):g}"

def _outcome(prize: int, points, names: list[str], won: list[list[str]]) -> str:
    """Describe who scored the prize (``points`` per player, then the dummy's) and record
    it in ``won`` (players only)."""
    scorers = [i for i, p in enumerate(points) if p]
    for i in scorers:
        if i < len(won):
            won[i].append(str(prize) if points[i] == prize else f"{prize}(half)")
    if not scorers:
        return f"a tie: the {prize} is discarded"
    if len(scorers) == 1:
        i = scorers[0]
        verb = "win" if i == 0 else "takes" if names[i] == "the dummy" else "wins"
        return f"{names[i]} {verb} the {prize}"
    return (f"{' and '.join(names[i] for i in scorers)} split the {prize}, "
            f"{_pts(points[scorers[0]])} each")

def _presolve(n: int, arithmetic: str, objective: str = "points") -> None:
    """Solve n-card GOPS for an optimal bot (cached by exact.play.bots) with a progress bar."""
    from exact.play.bots import solution_for

    bar = ProgressBar()
    try:
        solution_for(n, arithmetic, progress=bar, objective=objective)
    finally:
        bar.close()

def _cards(cards) -> str:
    return " ".join(str(c) for c in sorted(cards))

def _ask_bid(hand: frozenset[int], can_declare: bool = False) -> tuple[int, bool] | None:
    """Read a card of ``hand`` from stdin, asking again until valid: (card, declared), or
    None at end of input or on "q".  With ``can_declare``, "d5" bids the 5 and declares."""
    hint = "; d<card> declares" if can_declare else ""
    while True:
        click.echo(f"Your bid ({_cards(hand)}{hint}): ", nl=False)
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
        declaring = can_declare and text[0] in "dD"
        if declaring:
            text = text[1:].strip()
        try:
            card = parse_integer(text)  # the command line's parser: ASCII digits only
        except GopsInputError:
            shown = text if len(text) <= 20 else text[:20] + "..."
            click.echo(f"{shown!r} is not a card number; type one of {_cards(hand)}.")
            continue
        if card not in hand:
            click.echo(f"You do not hold the {card}; type one of {_cards(hand)}.")
            continue
        return card, declaring
