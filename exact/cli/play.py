"""``gops play``: you against the computer in the terminal (every variant, both objectives).

Bad input at the prompt is asked again; bad options are one line on stderr, exit 2."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from exact.cli.common import (
    INTEGER,
    NumberArgumentsCommand,
    game_options,
    lead_option,
    objective_option,
    order_option,
    presolve,
    presolve_variant,
    tie_rule_option,
)
from exact.cli.limits import check_command_n, limits, objective_flag
from exact.errors import GopsInputError
from exact.game.objectives import POINTS
from exact.game.orders import RANDOM
from exact.game.rules import parse_integer
from exact.game.spec import GameSpec
from exact.game.variants import STANDARD, VARIANTS, Variant
from exact.play.three import EQUILIBRIUM_MAX_N, HEURISTIC


def _play_n(options: dict) -> int:
    """gops play's checks of its rules and options, then its N (the limit depends on the
    variant, --objective and --store)."""
    from exact.play.engine import check_setup

    objective, store = options["objective"], options["store"]
    if options.get("hidden_bids"):
        return _hidden_n(options)
    variant, declarations = _rules_named(
        options["variant"], options["players"], options["tie_rule"], options["declarations"]
    )
    check_setup(variant, options["order"], objective, declarations)
    n = options["n"]
    if options.get("solution") is not None and variant.players == 2:
        raise GopsInputError("--solution is a saved three-player solution: add --players 3")
    if variant.players == 2:
        if options["opponents"] is not None:
            raise GopsInputError(
                "--opponents is for the three-player variants; the "
                "two-player game is played against the optimal bot"
            )
        if store is not None:
            if variant is not STANDARD:
                raise GopsInputError(
                    "a store holds the standard game only; drop --store to "
                    "solve the variants on the fly"
                )
            return check_command_n(n, "play", "--store")
        if variant is STANDARD:
            return check_command_n(n, "play", objective_flag(objective))
        if objective is not POINTS:
            raise GopsInputError(f"the {variant.name} variant is solved for points only")
    elif objective is not POINTS or store is not None:
        raise GopsInputError(
            f"the {variant.name} variant is played against bots: no --objective win or --store"
        )
    return check_command_n(n, "play", f"--variant {variant.name}")


def _hidden_n(options: dict) -> int:
    """gops play --hidden-bids's checks: the shipped equilibria's games, no option of
    the other games."""
    from exact.play.hidden import check_hidden

    others = {
        "--variant": VARIANTS.get(options["variant"]) is not STANDARD,
        "--store": options["store"] is not None,
        "--opponents": options["opponents"] is not None,
        "--declarations": options["declarations"],
        "--lead": bool(options.get("lead")),
        "--reveal": options["reveal"],
        "--solution": options.get("solution") is not None,
    }
    for flag, given in others.items():
        if given:
            raise GopsInputError(
                f"--hidden-bids is played against the shipped equilibrium: drop {flag}"
            )
    check_hidden(options["n"], options["order"], options["objective"])
    return options["n"]


def _play_hidden(game: GameSpec, seed: int | None) -> None:
    """A game of hidden bids (exact.play.hidden): each round the prize, the score and
    your hand; your bid; who won, never the computer's card.  At the end every round with
    the computer's card and its mix."""
    from exact.imperfect.game import ImperfectGame
    from exact.play.hidden import HiddenGame

    board = HiddenGame(ImperfectGame(game.n, game.order, game.objective), seed)
    shipped = board.shipped
    click.echo(
        f"{board.n}-card GOPS with hidden bids against the computer (seed {board.seed}). "
        "Each round you both bid a card face down and keep it hidden: you learn who won "
        "the prize (a tie discards it), never the computer's card, until the game ends."
    )
    proof = (
        "exact: NashConv 0" if shipped.exact else f"NashConv at most {float(shipped.epsilon):.3g}"
    )
    click.echo(
        f"The computer plays the shipped equilibrium {shipped.entry['file']} ({proof}, "
        f"re-proved now); prize order: {board.game.order.name}"
        + (", the computer plays to win." if game.objective is not POINTS else ".")
    )
    while not board.over:
        you, them = board.points
        click.echo("")
        click.echo(f"Round {board.round} of {board.n}: the {board.upcard} is up.")
        click.echo(
            f"  prizes to come: {' '.join(map(str, board.prizes_to_come())) or '-'};  "
            f"score: you {you}, computer {them};  the computer holds "
            f"{board.n - len(board.history)} cards"
        )
        answer = _ask_bid(board.legal_bids())
        if answer is None:
            click.echo(f"Game abandoned in round {board.round}: score you {you}, computer {them}.")
            return
        for i, r in enumerate(board.bid(answer[0])):
            what = {0: f"you win the {r.prize}", 1: f"the computer wins the {r.prize}"}
            outcome = what.get(r.winner, f"a tie: the {r.prize} is discarded")
            if i:  # the last round plays itself
                click.echo(f"Last round: the {r.prize} is up, you bid your {r.you}.")
            click.echo(f"You bid {r.you}: {outcome}.")
    you, them = board.points
    click.echo("")
    verdict = {"you": "you win", "computer": "the computer wins", "nobody": "a tie"}
    click.echo(f"Final score: you {you}, computer {them}: {verdict[board.winner or 'nobody']}.")
    click.echo("The computer's cards, revealed (its mix: the equilibrium at its decision):")
    click.echo("round  prize  you  computer  winner    its mix")
    for r in board.history:
        mix = ", ".join(f"{c}: {p:.3f}" for c, p in r.mix.items() if p > 0)
        who = {0: "you", 1: "computer"}.get(r.winner, "tie")
        click.echo(f"{r.number:>5}  {r.prize:>5}  {r.you:>3}  {r.computer:>8}  {who:<8}  {mix}")


def _rules_named(
    variant: str, players: str | None, tie_rule: str | None, declarations: bool
) -> tuple[Variant, bool]:
    """The variant a game plays and whether it scores declarations, from the flags that
    name them alike in every command: --variant declarations is --declarations; --players 3
    --tie-rule R is the three-player variant whose tie rule is R (``--variant three``,
    ``three-third`` and ``three-discard`` name the same games).  The flags' names are
    read here once: the Variant goes on."""
    from exact.game.ties import SPLIT, tie_rule_named

    # --variant's values: a Variant's name, or declarations (the standard game, declared)
    named = {name: (v, False) for name, v in VARIANTS.items()} | {"declarations": (STANDARD, True)}
    rules, declared = named[variant]
    declarations = declarations or declared
    if players is None and tie_rule is None:
        return rules, declarations
    if players == "2" or (players is None and rules.players == 2):
        if rules.players == 3:
            raise GopsInputError(f"--variant {variant} is a three-player game: drop --players 2")
        raise GopsInputError("--tie-rule scores a three-player game: add --players 3")
    rule = tie_rule_named(tie_rule) if tie_rule is not None else None
    if rules.players == 3:
        if rule is not None and rule is not rules.tie_rule:
            raise GopsInputError(
                f"--variant {variant} plays the tie rule {rules.tie_rule.name}, not {tie_rule}"
            )
        return rules, declarations
    if rules is not STANDARD:
        raise GopsInputError(f"the {variant} variant has two players, not --players 3")
    chosen = SPLIT if rule is None else rule
    (three,) = (v for v in VARIANTS.values() if v.players == 3 and v.tie_rule is chosen)
    return three, declarations


def _play_help() -> str:
    """gops play's help, its limits read from the table that enforces them."""
    table = limits()
    return f"""Play N-card GOPS against the computer (an optimal bot).

    Solved on the fly for N <= {table["play",].high} (N <= {table["play", "--variant twelve"].high}
    in the twelve variant, N <= {table["play", "--variant dummy"].high} with the dummy), up to
    {table["play", "--store"].high} from --store.  With --objective win, --lead L gives you a
    head start of L points (the computer, if L < 0), and the computer plays the game solved
    for every lead within |L|.  In the three-player variants the two computer players play
    the three-player equilibrium (from --solution FILE or a saved solution in the cache
    folder, any N it holds; else solved on the fly for N <= {EQUILIBRIUM_MAX_N}; beyond, the
    heuristic bots {HEURISTIC[0]} and {HEURISTIC[1]}, said so), or the bots of --opponents.
    Type a card number to bid; the last round plays itself.  End of input or "q" quits.
    """


@click.command(cls=NumberArgumentsCommand, help=_play_help())
@click.argument("n", type=INTEGER)
@objective_option("What the computer plays for: expected points, or P(win) - P(loss).")
@click.option(
    "--variant",
    type=click.Choice(
        ["standard", "twelve", "dummy", "declarations", "three", "three-third", "three-discard"]
    ),
    default="standard",
    show_default=True,
    help="twelve: n - 1 rounds, aces out, the last prize discarded; dummy: a "
    "random third bidder (the computer plays these variants' equilibria); "
    "declarations: as --declarations; three, three-third, three-discard: --players 3 "
    "with the tie rule split, third, discard.",
)
@click.option(
    "--players",
    type=click.Choice(["2", "3"]),
    default=None,
    help="3: you against two computer players (--tie-rule, --opponents) [default: 2, or "
    "the variant's].",
)
@tie_rule_option(default=None)
@click.option(
    "--opponents",
    default=None,
    help="The two bots of a three-player variant (equilibrium, or the heuristic bots) "
    f"[default: equilibrium,equilibrium for N <= {EQUILIBRIUM_MAX_N}, else "
    f"{','.join(HEURISTIC)}].",
)
@click.option(
    "--store",
    "store",
    type=click.Path(file_okay=False, path_type=str),
    default=None,
    help="Play from a store of `gops solve N --store DIR` (either objective).",
)
@click.option(
    "--solution",
    "solution",
    type=click.Path(dir_okay=False, path_type=str),
    default=None,
    help="Three players: the computers play the equilibrium saved by `gops solve M "
    "--players 3 --tie-rule R --save FILE` (any N <= M, tie rule R) [default: a saved "
    "solution in the cache folder, else solved on the fly for N <= "
    f"{EQUILIBRIUM_MAX_N}].",
)
@order_option(
    "Who orders the prizes: shuffled, ascending, descending, or chosen before "
    "each round by you (controlled-by-me) or by the computer "
    "(controlled-by-them); the computer plays that game's equilibrium."
)
@click.option(
    "--seed", "seed", type=INTEGER, default=None, help="Random seed (default: random; printed)."
)
@click.option(
    "--reveal", is_flag=True, help="Show the computer's mix (its equilibrium) after each round."
)
@lead_option()
@click.option(
    "--declarations",
    is_flag=True,
    help='Face-up declaration scoring ("Psychological JuJitsu"): type d<card> '
    "to bid face up from this round on; the computer then answers each bid "
    "it sees.",
)
@click.option(
    "--hidden-bids",
    "hidden_bids",
    is_flag=True,
    help="Imperfect information: the computer's bids stay face down until the game ends "
    "(you see who won each round); it plays the shipped equilibrium (3-7 cards "
    "descending, 3-6 ascending and 7 for --objective win, 3-5 random).",
)
@game_options("play", n=_play_n)
def play(
    game: GameSpec,
    lead: int | None,
    variant: str,
    opponents: str | None,
    store: str | None,
    seed: int | None,
    reveal: bool,
    declarations: bool,
    players: str | None,
    tie_rule: str | None,
    hidden_bids: bool = False,
    solution: str | None = None,
) -> None:
    """Play N-card GOPS against the computer (an optimal bot); its help: _play_help()."""
    from exact.play.engine import Game

    if hidden_bids:
        _play_hidden(game, seed)
        return

    rules, declarations = _rules_named(variant, players, tie_rule, declarations)
    n = game.n
    if lead:
        if store is not None:
            raise GopsInputError(
                "--lead plays a game solved for its head start: drop --store "
                "(a store holds the game from an even start)"
            )
        game = game.replace(handicap=abs(lead))  # every lead reachable from the head start
    if solution is not None:
        _use_solution(solution, n, rules)
    computers, note = _computers(game, rules, opponents, store)
    board = Game(n, computers, rules, game.order, seed, declarations, lead=lead or 0)
    # Labels: in lists of the round ("short") and as the subject of a sentence.
    if rules.players == 2:
        short, subject = ["you", "computer"], ["you", "the computer"]
    else:
        short = subject = ["you", "computer 1", "computer 2"]
    _introduce(board, computers, game.has_lead, lead, declarations)
    if note:
        click.echo(note)
    won: list[list[str]] = [[] for _ in short]
    while not board.over:
        rnd = board.round
        if not _play_round(board, short, subject, won, reveal):
            click.echo(f"Game abandoned in round {rnd}: score {_scores(short, board.points)}.")
            return
    _finish(board, short, subject, won, declarations)


def _introduce(board, computers, has_lead: bool, lead, declarations) -> None:
    """The opening lines: who plays, the variant's rules, the objective, the head start,
    the prize order and the declarations."""
    rules = board.rules
    if rules.players == 2:
        tie = "." if rules.dummy else ", a tie discards it."
        click.echo(
            f"{board.n}-card GOPS against the computer (seed {board.seed}). Each round you "
            f"both bid a card face down; the higher bid wins the prize{tie}"
        )
    else:
        click.echo(
            f"{board.n}-card GOPS against two computer players, computer 1 "
            f"({computers[0].name}) and computer 2 ({computers[1].name}) (seed "
            f"{board.seed}). Each round all three of you bid a card face down; the "
            "highest bid wins the prize."
        )
    if rules is not STANDARD:
        click.echo(VARIANT_RULES[rules.name])
    if has_lead:
        click.echo(
            "The computer plays to win the game (maximising P(win) - P(loss)), not for points."
        )
    if lead:
        ahead = "you start" if lead > 0 else "the computer starts"
        click.echo(f"Head start: {ahead} {abs(lead)} point{'s' * (abs(lead) != 1)} ahead.")
    if board.order is not RANDOM:
        click.echo(
            f"Prize order: {board.order.description.replace('I choose', 'you choose')}".replace(
                "they choose", "the computer chooses"
            )
            + "."
        )
    if declarations:
        click.echo(
            "Face-up declarations: type d<card> (e.g. d5) to bid that card face up "
            "and every later bid too; the winner scores the number of face-up rounds "
            "(1 if you never declare)."
        )


def _play_round(board, short: list[str], subject: list[str], won, reveal: bool) -> bool:
    """One round: the prize (chosen by you, the computer or the deck), your bid, the
    others' bids and who won; False if you quit."""
    rules, rnd, chooser, chosen = board.rules, board.round, board.chooser, None
    if chooser == "me":
        chosen = _ask_prize(board.prize_choices())
        if chosen is None:
            return False
    prize = board.turn_up(chosen)
    if chooser == "them":
        click.echo(f"The computer chooses the next prize: the {prize}.")
    click.echo("")
    click.echo(f"Round {rnd} of {board.rounds}: the {prize} is up.")
    _show_table(board.position, short, won)
    mine, declaring = board.forced_bid, False
    if mine is not None:
        click.echo(f"Last round: you bid your {mine}.")
    else:
        answer = _ask_bid(board.legal_bids(), can_declare=board.can_declare)
        if answer is None:
            return False
        mine, declaring = answer
    played = board.play(mine, declare=declaring)
    theirs = played.bids[1:]
    if declaring:
        click.echo(f"You declare: your bids are face up from round {rnd} on.")
    if played.face_up:
        click.echo(f"The computer sees your {mine} and answers with its {theirs[0]}.")
    bids = "".join(f", {who} bid {b}" for who, b in zip(subject[1:], theirs))
    dummy = f", the dummy {played.dummy_bid}" if rules.dummy else ""
    names = subject + (["the dummy"] if rules.dummy else [])
    click.echo(f"You bid {mine}{bids}{dummy}: {_outcome(prize, played.points, names, won)}.")
    if reveal:
        what = "equilibrium mix" if rules.players == 2 else "mix"
        if played.face_up:
            what += " (not used: your bid was face up)"
        _show_mixes(subject[1:], played.mixes, what)
    return True


def _finish(board, short: list[str], subject: list[str], won, declarations: bool) -> None:
    """The prize left over, the final score and the verdict (and the declaration score)."""
    if board.leftover is not None:
        click.echo("")
        click.echo(f"The {board.leftover} is left over: it is never bid on and scores for nobody.")
    click.echo("")
    click.echo(
        "Final score: "
        + ", ".join(f"{who} {_pts(p)} ({_won(w)})" for who, p, w in zip(short, board.points, won))
        + f". {_verdict(subject, board.points[: len(short)], board.winner)}."
    )
    if declarations:
        _print_declaration_score(board)


def _print_declaration_score(game) -> None:
    result, declared, rounds = game.declaration_score(), game.declared, game.rounds
    how = (
        f"you bid face up from round {declared} of {rounds}"
        if declared
        else "you never declared (the last round is always face up)"
    )
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
    click.echo("  prizes won      " + ";  ".join(f"{who}: {_won(w)}" for who, w in zip(short, won)))
    click.echo(f"  score           {_scores(short, pos.points)}")


def _show_mixes(who: Sequence[str], mixes: Sequence[dict], what: str) -> None:
    for name, mix in zip(who, mixes):
        shown = "  ".join(f"{c}: {float(p):.4f}" for c, p in sorted(mix.items()) if p > 0)
        click.echo(f"  {name}'s {what} was  {shown}")


def _verdict(subject: list[str], points, winner: int | None) -> str:
    """ "You win", "The computer wins by 3", "A draw" (two players) or who has the most
    (``winner``: the game's, None on a tie for the most)."""
    if winner is None:
        return "A draw" if len(points) == 2 else "A tie for the most points"
    i = winner
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
    "three-discard": "Any tie for the high bid discards the prize (OpenSpiel's rule).",
}


def _ask_prize(choices: list[int]) -> int | None:
    """Read the next prize, one of ``choices``, from stdin, asking again until valid;
    None if you quit."""
    while True:
        click.echo(f"Choose the next prize ({_cards(choices)}): ", nl=False)
        line = sys.stdin.readline()
        if line and not sys.stdin.isatty():
            click.echo(line.rstrip("\n"))  # scripted input: keep the transcript readable
        text = line.strip()
        if not line or text.lower() in ("q", "quit", "exit"):
            if not line:
                click.echo("")
                click.echo("End of input.")
            return None
        try:
            prize = parse_integer(text)
        except GopsInputError:
            prize = None
        if prize in choices:
            return prize
        shown = text if len(text) <= 20 else text[:20] + "..."
        click.echo(f"{shown!r} is not a prize left; type one of {_cards(choices)}.")


def _use_solution(path: str, n: int, rules) -> None:
    """--solution FILE: loaded and checked (one line, exit 2, if it fails), and it must
    hold the n-card game of the variant's tie rule (points, shuffled prizes)."""
    from exact.play.three import use_solutions

    (saved,) = use_solutions(files=[path])
    g = saved.game
    if g.tie_rule is not rules.tie_rule or g.objective is not POINTS or g.order is not RANDOM:
        raise GopsInputError(
            f"{path} holds {g.describe()}: not the game of --tie-rule {rules.tie_rule.name} "
            "for points with shuffled prizes"
        )
    if not saved.covers(n):
        raise GopsInputError(f"{path} holds the {g.n}-card game: it has no {n}-card game")
    click.echo(
        f"The computers play the equilibrium saved in {path} ({g.n} cards, NashConv <= "
        f"{saved.nashconv['bound']:.3g} proven when saved; gops verify proves it again)."
    )


def _computers(game: GameSpec, rules, opponents: str | None, store: str | None):
    """The computer players (their options checked by :func:`_play_n`) and a note to show:
    one optimal bot (solved with a progress bar, or read from a store), or the two of a
    three-player variant (:func:`exact.play.three.computer_players`: the equilibrium where
    it is solved, else the heuristic bots, said so by the note)."""
    from exact.play.bots import parse_bot_list
    from exact.play.three import computer_players

    if rules.players == 2:
        return [_computer(game, rules, store)], None
    names = None if opponents is None else parse_bot_list(opponents)
    return computer_players(game.n, rules, names, on_solve=lambda m: click.echo(m, err=True))


def _computer(game: GameSpec, variant: Variant, store: str | None):
    """The optimal bot of a two-player game, solved (with a progress bar) or loaded from a
    store.  The computer sees the game from the other seat: who chooses is mirrored."""
    from exact.play.bots import VariantOptimalBot, bot_for

    seen = game.mirrored()
    if store is not None:
        import exact
        from exact.dp.verify import check_position

        sol = exact.load(store, n=seen.n, objective=seen.objective.name, order=seen.order.name)
        cards = set(range(1, sol.n + 1))
        reads = check_position(sol, cards, cards, cards, sol.order.next_prizes(cards))
        assert reads is not None  # exact.load's solution reads a store
        click.echo(
            f"the computer's first move is {reads.describe()}; later rounds read the store as it is"
        )
        return bot_for(seen, sol)
    if variant is not STANDARD:
        return VariantOptimalBot(presolve_variant(variant, game))
    presolve(seen)
    return bot_for(seen)


def _won(prizes: list[str]) -> str:
    """Prizes won, in increasing order ("half of 5" for a shared one), or "-"."""
    return ", ".join(sorted(prizes, key=lambda t: int(t.split()[-1]))) or "-"


def _pts(x) -> str:
    """Points: an integer as such, a half point as 4.5."""
    return str(int(x)) if x == int(x) else f"{float(x):g}"


def _outcome(prize: int, points, names: list[str], won: list[list[str]]) -> str:
    """Describe who scored the prize (``points`` per player, then the dummy's) and record
    it in ``won`` (players only)."""
    scorers = [i for i, p in enumerate(points) if p]
    for i in scorers:
        if i < len(won):
            share = "half" if len(scorers) == 2 else f"1/{len(scorers)}"
            won[i].append(str(prize) if points[i] == prize else f"{share} of {prize}")
    if not scorers:
        return f"a tie: the {prize} is discarded"
    if len(scorers) == 1:
        i = scorers[0]
        verb = "win" if i == 0 else "takes" if names[i] == "the dummy" else "wins"
        return f"{names[i]} {verb} the {prize}"
    return (
        f"{' and '.join(names[i] for i in scorers)} split the {prize}, "
        f"{_pts(points[scorers[0]])} each"
    )


def _cards(cards) -> str:
    return " ".join(str(c) for c in sorted(cards))


def _ask_bid(hand: list[int], can_declare: bool = False) -> tuple[int, bool] | None:
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
