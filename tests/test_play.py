"""``gops play``: the terminal game against the optimal bot, driven by scripted stdin."""

import re

import pytest
from click.testing import CliRunner

from exact.cli import main
from exact.errors import GopsInputError
from exact.game.spec import GameSpec

BID_LINE = re.compile(r"You bid (\d+), the computer bid (\d+): (.*)\.")
ROUND_LINE = re.compile(r"Round (\d+) of (\d+): the (\d+) is up\.")
FINAL_LINE = re.compile(r"Final score: you (\d+) \(.*\), computer (\d+) \(.*\)\. (.*)\.")
#: --reveal prints each probability with 4 decimals.
SHOWN_ROUNDING = 0.5e-4


def play(n, stdin, *extra):
    result = CliRunner().invoke(
        main, ["play", str(n), "--seed", "5", *map(str, extra)], input=stdin
    )
    return result.exit_code, result.output


def test_whole_game_with_invalid_inputs():
    # Round 1: a card not held (9), a non-number, an empty line, then 1.  Round 2: the 1
    # again (no longer held), then 2.  Round 3: 3.  Round 4 plays itself (the 4).
    code, out = play(4, "9\nabc\n\n1\n1\n2\n3\n")
    assert code == 0, out
    assert "You do not hold the 9; type one of 1 2 3 4." in out
    assert "'abc' is not a card number; type one of 1 2 3 4." in out
    assert "Please type the number of one of your cards." in out
    assert "You do not hold the 1; type one of 2 3 4." in out
    assert "Last round: you bid your 4." in out

    prizes = [int(m.group(3)) for m in ROUND_LINE.finditer(out)]
    bids = [(int(m.group(1)), int(m.group(2)), m.group(3)) for m in BID_LINE.finditer(out)]
    assert sorted(prizes) == [1, 2, 3, 4] and len(bids) == 4
    assert [b[0] for b in bids] == [1, 2, 3, 4]
    assert sorted(b[1] for b in bids) == [1, 2, 3, 4]  # the computer used each card once
    # Score the transcript by the rules and compare with the final line.
    you = sum(p for p, (a, b, _) in zip(prizes, bids) if a > b)
    it = sum(p for p, (a, b, _) in zip(prizes, bids) if b > a)
    final = FINAL_LINE.search(out)
    assert final and (int(final.group(1)), int(final.group(2))) == (you, it)
    verdict = "You win" if you > it else "The computer wins" if it > you else "A draw"
    assert final.group(3).startswith(verdict)


def test_each_round_shows_hands_prizes_and_score():
    code, out = play(3, "1\n2\n")
    assert code == 0
    first = out.split("Round 2")[0]
    for label in (
        "prizes left     1 2 3",
        "your cards      1 2 3",
        "computer cards  1 2 3",
        "prizes won      you: -;  computer: -",
        "score           you 0, computer 0",
    ):
        assert label in first


def test_end_of_input_ends_cleanly():
    code, out = play(5, "2\n")
    assert code == 0
    assert "End of input." in out
    assert "Game abandoned in round 2" in out
    assert "Traceback" not in out


def test_quit():
    code, out = play(5, "q\n")
    assert code == 0 and "Game abandoned in round 1" in out


def test_reveal_shows_the_equilibrium_mix_of_each_round():
    """Each round's revealed mix is the computer's equilibrium at that round's position,
    re-derived here from the transcript with the rational solution (as the column player
    would see it from its own seat: its hand is "mine")."""
    import exact

    code, out = play(4, "1\n2\n3\n", "--reveal")
    assert code == 0, out
    prizes = [int(m.group(3)) for m in ROUND_LINE.finditer(out)]
    bids = [(int(m.group(1)), int(m.group(2))) for m in BID_LINE.finditer(out)]
    shown = [
        {int(c): float(p) for c, p in re.findall(r"(\d+): ([0-9.]+)", line)}
        for line in re.findall(r"the computer's equilibrium mix was  (.*)", out)
    ]
    assert len(prizes) == len(bids) == len(shown) == 4
    sol = exact.solve(4, arithmetic="rational")
    you, computer, deck = {1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4}
    uniform = {c: 1 / 4 for c in computer}
    for prize, (mine, theirs), mix in zip(prizes, bids, shown):
        expected = sol.strategy(computer, you, deck, prize).mine
        assert set(mix) <= computer  # only cards it holds, each shown with p > 0
        for card, p in expected.items():
            assert mix.get(card, 0.0) == pytest.approx(float(p), abs=SHOWN_ROUNDING)
        assert theirs in mix  # the card it bid was one its mix plays
        you, computer, deck = you - {mine}, computer - {theirs}, deck - {prize}
    # The first round's mix is not the uniform one (it would be, if --reveal showed the
    # random bot's mix): the equilibrium at N = 4 avoids some card of the first round.
    assert any(abs(shown[0].get(c, 0.0) - q) > SHOWN_ROUNDING for c, q in uniform.items())


def test_same_seed_same_game():
    assert play(4, "1\n2\n3\n") == play(4, "1\n2\n3\n")


@pytest.mark.parametrize("n", [0, 11])
def test_bad_n_is_one_line_exit_2(n):
    code, out = play(n, "")
    assert code == 2 and out.startswith("gops: error: N must be between 1 and 10 for gops play (")
    assert out.rstrip().endswith(f"got {n}")
    assert out.count("\n") == 1


# -- objectives, stores and variants ----------------------------------------------------------

DUMMY_BID_LINE = re.compile(r"You bid (\d+), the computer bid (\d+), the dummy (\d+): (.*)\.")
FINAL_HALVES = re.compile(r"Final score: you ([\d.]+) \(.*\), computer ([\d.]+) \(.*\)\. (.*)\.")


def test_win_objective_plays_a_whole_game():
    code, out = play(4, "1\n2\n3\n", "--objective", "win", "--reveal")
    assert code == 0, out
    assert "The computer plays to win the game" in out
    assert len(BID_LINE.findall(out)) == 4 and FINAL_LINE.search(out)
    assert len(re.findall(r"equilibrium mix was", out)) == 4


def test_play_from_a_store(tmp_path):
    from exact.dp.store import solve_into_store

    solve_into_store(GameSpec.parse(5), tmp_path / "s5")
    code, out = play(5, "1\n2\n3\n4\n", "--store", tmp_path / "s5")
    assert code == 0, out
    assert len(BID_LINE.findall(out)) == 5 and FINAL_LINE.search(out)
    # It says where its numbers come from: level 4 re-derived here (5 prize sets x 10
    # pairs of different hands: gops count 5 has 21 patterns, one of identical hands), the
    # rest as stored.
    assert out.startswith(
        f"the computer's first move is read from the store {tmp_path / 's5'}: "
        "the values of level 4 it reads (50 kernel items) were re-derived"
    )
    assert f"levels 0..3 as stored: `gops verify {tmp_path / 's5'}`" in out.splitlines()[0]
    code, out = play(6, "", "--store", tmp_path / "s5")
    assert code == 2 and out.count("\n") == 1 and "N=5" in out
    code, out = play(5, "", "--store", tmp_path / "s5", "--objective", "win")
    assert code == 2 and out.count("\n") == 1 and "objective points, not win" in out


def test_twelve_round_variant():
    code, out = play(5, "2\n3\n4\n", "--variant", "twelve")
    assert code == 0, out
    prizes = [int(m.group(3)) for m in ROUND_LINE.finditer(out)]
    assert [int(m.group(2)) for m in ROUND_LINE.finditer(out)] == [4] * 4
    bids = [(int(a), int(b)) for a, b, _ in BID_LINE.findall(out)]
    assert [a for a, _ in bids] == [2, 3, 4, 5]
    assert sorted(b for _, b in bids) == [2, 3, 4, 5]  # the computer holds no ace either
    left = re.search(r"The (\d+) is left over", out)
    assert left and sorted(prizes + [int(left.group(1))]) == [1, 2, 3, 4, 5]
    you = sum(p for p, (a, b) in zip(prizes, bids) if a > b)
    it = sum(p for p, (a, b) in zip(prizes, bids) if b > a)
    final = FINAL_LINE.search(out)
    assert (int(final.group(1)), int(final.group(2))) == (you, it)


def split_rule(prize, a, b, d):
    """(you, computer) points of a round with the dummy: the written three-player split."""
    top = max(a, b, d)
    high = [x == top for x in (a, b, d)]
    if all(high):
        return 0, 0
    share = prize / sum(high)
    return share * high[0], share * high[1]


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_dummy_variant_scores_halves(seed):
    result = CliRunner().invoke(
        main, ["play", "4", "--variant", "dummy", "--seed", str(seed)], input="4\n3\n2\n"
    )
    out = result.output
    assert result.exit_code == 0, out
    assert "dummy's cards" in out
    prizes = [int(m.group(3)) for m in ROUND_LINE.finditer(out)]
    rounds = DUMMY_BID_LINE.findall(out)
    assert len(rounds) == 4 and sorted(int(r[2]) for r in rounds) == [1, 2, 3, 4]
    you = it = 0.0
    for prize, (a, b, d, _) in zip(prizes, rounds):
        x, y = split_rule(prize, int(a), int(b), int(d))
        you, it = you + x, it + y
    final = FINAL_HALVES.search(out)
    assert (float(final.group(1)), float(final.group(2))) == (you, it)


@pytest.mark.parametrize(
    "args, message",
    [
        (("--variant", "dummy", "--objective", "win"), "points only"),
        (("--variant", "twelve", "--store", "nowhere"), "--store"),
        (("--store", "/nonexistent/store"), "store"),
    ],
)
def test_bad_combinations_are_one_line(args, message):
    code, out = play(5, "", *args)
    assert code == 2 and out.count("\n") == 1 and message in out, out


def test_variant_n_limits():
    code, out = play(7, "", "--variant", "dummy")
    assert code == 2 and "between 1 and 6 for gops play --variant dummy" in out
    code, out = play(1, "", "--variant", "twelve")
    assert code == 2 and "between 2 and" in out


THREE_BID_LINE = re.compile(r"You bid (\d+), computer 1 bid (\d+), computer 2 bid (\d+): (.*)\.")
FINAL_THREE = re.compile(
    r"Final score: you ([\d.]+) \(.*\), computer 1 ([\d.]+) \(.*\), "
    r"computer 2 ([\d.]+) \(.*\)\. (.*)\."
)


def three_player_points(prize, bids, rule):
    """The three-player round of the "Psychological JuJitsu" rules, written out: a unique
    high bid takes the prize; a three-way tie discards it; a two-way tie splits it
    ("three") or gives it to the third player ("three-third")."""
    top = max(bids)
    high = [b == top for b in bids]
    if sum(high) == 1:
        return [prize * h for h in high]
    if sum(high) == 3:
        return [0, 0, 0]
    if rule == "three":
        return [prize / 2 * h for h in high]
    return [prize * (not h) for h in high]


@pytest.mark.parametrize(
    "rule, seed, opponents",
    [
        ("three", 3, "random,highest"),
        ("three-third", 2, "upcard+1,upcard"),
        ("three-third", 8, "random,lowest"),
    ],
)
def test_three_player_game_scores_by_the_written_rules(rule, seed, opponents):
    result = CliRunner().invoke(
        main,
        ["play", "6", "--variant", rule, "--seed", str(seed), "--opponents", opponents],
        input="6\n5\n4\n3\n2\n",
    )
    out = result.output
    assert result.exit_code == 0, out
    prizes = [int(m.group(3)) for m in ROUND_LINE.finditer(out)]
    rounds = THREE_BID_LINE.findall(out)
    assert len(rounds) == 6 and [int(r[0]) for r in rounds] == [6, 5, 4, 3, 2, 1]
    totals = [0.0, 0.0, 0.0]
    for prize, r in zip(prizes, rounds):
        got = three_player_points(prize, [int(x) for x in r[:3]], rule)
        totals = [t + g for t, g in zip(totals, got)]
    final = FINAL_THREE.search(out)
    assert [float(final.group(i)) for i in (1, 2, 3)] == totals
    best = max(totals)
    leaders = [i for i, t in enumerate(totals) if t == best]
    expected = (
        "A tie for the most points"
        if len(leaders) > 1
        else ["You win", "Computer 1 wins", "Computer 2 wins"][leaders[0]]
    )
    assert final.group(4) == expected


@pytest.mark.parametrize(
    "args, message",
    [
        (("--variant", "three", "--opponents", "optimal,random"), "two-player games only"),
        (("--variant", "three", "--opponents", "random"), "exactly two bots"),
        (("--opponents", "random,lowest"), "three-player variants"),
        (("--variant", "three-third", "--objective", "win"), "played against bots"),
    ],
)
def test_three_player_bad_options(args, message):
    code, out = play(5, "", *args)
    assert code == 2 and out.count("\n") == 1 and message in out, out


def test_three_player_n_limit():
    code, out = play(14, "", "--variant", "three")
    assert code == 2 and out.count("\n") == 1 and "between 1 and 13" in out


# -- face-up declarations -----------------------------------------------------------------

ROUND_BLOCK = re.compile(
    r"Round (\d+) of \d+: the (\d+) is up\.\n  prizes left     ([\d ]+)\n"
    r"  your cards      ([\d ]+)\n  computer cards  ([\d ]+)\n"
)
FACE_UP = re.compile(r"The computer sees your (\d+) and answers with its (\d+)\.")


@pytest.mark.parametrize(
    "seed, stdin, declared",
    [
        (5, "1\nd2\n3\n4\n", 2),
        (7, "d5\n4\n3\n2\n", 1),
        (9, "3\n1\n5\nd2\n", 4),
        (3, "2\n4\n1\n5\n", None),
    ],
)
def test_declarations_face_up_replies_and_score(seed, stdin, declared, solved):
    result = CliRunner().invoke(
        main, ["play", "5", "--seed", str(seed), "--declarations"], input=stdin
    )
    out = result.output
    assert result.exit_code == 0, out
    blocks = ROUND_BLOCK.findall(out)
    replies = FACE_UP.findall(out)
    assert len(blocks) == 5
    assert len(replies) == (0 if declared is None else 5 - declared + 1)
    sol = solved(5)
    face_up_rounds = blocks[declared - 1 :] if declared else []
    for (_, up, deck, mine, theirs), (bid, answer) in zip(face_up_rounds, replies):
        cards = [frozenset(map(int, x.split())) for x in (deck, mine, theirs)]
        M = sol.matrix(cards[2], cards[1], cards[0], int(up))
        its = sorted(cards[2])
        column = [M[i][sorted(cards[1]).index(int(bid))] for i in range(len(its))]
        assert int(answer) == its[column.index(max(column))]  # its best answer, lowest on ties
    final = FINAL_LINE.search(out)
    you, it = int(final.group(1)), int(final.group(2))
    line = re.search(r"Declaration scoring: .*", out).group(0)
    if you == it:
        assert line.endswith("a draw scores 0.")
    else:
        score = 1 if declared is None else 5 - declared + 1
        assert line.endswith(f"scores {score} for {'you' if you > it else 'the computer'}.")


@pytest.mark.parametrize("args", [("--variant", "twelve"), ("--objective", "win")])
def test_declarations_standard_points_only(args):
    code, out = play(5, "", "--declarations", *args)
    assert code == 2 and out.count("\n") == 1 and "--declarations" in out


# -- the engine ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, stdin, extra",
    [
        (5, "2\n4\n1\n5\n", ()),
        (4, "1\n2\n3\n", ("--objective", "win")),
        (5, "3\n2\n1\n4\n", ("--order", "descending")),
    ],
)
def test_the_terminal_game_is_the_engines_game(n, stdin, extra):
    """gops play prints the game exact.play.engine plays: the same seed (5) and bids give
    the same prizes, computer bids and final score."""
    from exact.play.bots import solution_for
    from exact.play.engine import Game, optimal_bot

    code, out = play(n, stdin, *extra)
    assert code == 0, out
    objective = extra[1] if extra[:1] == ("--objective",) else "points"
    order = extra[1] if extra[:1] == ("--order",) else "random"
    sol = solution_for(n, "float", objective=objective, order=order)
    game = Game(n, [optimal_bot(sol)], order=order, seed=5)
    game.replay(int(b) for b in stdin.split())
    prizes = [int(m.group(3)) for m in ROUND_LINE.finditer(out)]
    bids = [(int(a), int(b)) for a, b, _ in BID_LINE.findall(out)]
    assert [(r.prize, *r.bids) for r in game.history] == [(p, *b) for p, b in zip(prizes, bids)]
    final = FINAL_LINE.search(out)
    assert (int(final.group(1)), int(final.group(2))) == game.points


@pytest.mark.parametrize("lead", [3, -2])
def test_a_head_start_is_the_engines_game_solved_for_it(lead):
    """--lead L: the score starts at L for you (the computer, L < 0), the computer plays the
    win game solved for every lead within |L|, and the terminal prints the engine's game."""
    from exact.play.bots import solution_for
    from exact.play.engine import Game, optimal_bot

    stdin = "2\n4\n1\n"
    code, out = play(4, stdin, "--objective", "win", "--lead", lead)
    assert code == 0, out
    who = "you start 3 points" if lead > 0 else "the computer starts 2 points"
    assert f"Head start: {who} ahead." in out
    assert "score           " + ("you 3, computer 0" if lead > 0 else "you 0, computer 2") in out
    seen = GameSpec.parse(4, "win", handicap=abs(lead)).mirrored()
    game = Game(4, [optimal_bot(solution_for(seen))], seed=5, lead=lead)
    game.replay(int(b) for b in stdin.split())
    bids = [(int(a), int(b)) for a, b, _ in BID_LINE.findall(out)]
    assert [r.bids for r in game.history] == bids
    final = FINAL_LINE.search(out)
    assert (int(final.group(1)), int(final.group(2))) == game.points
    start = (max(lead, 0), max(-lead, 0))
    won = [sum(r.prize for r in game.history if r.bids[i] > r.bids[1 - i]) for i in (0, 1)]
    assert game.points == (start[0] + won[0], start[1] + won[1])


@pytest.mark.parametrize(
    "args, message",
    [
        (("--lead", "2"), "--lead applies to --objective win only"),
        (("--objective", "win", "--lead", "16"), "lead"),
        (("--objective", "win", "--lead", "2", "--store", "x"), "drop --store"),
    ],
)
def test_bad_head_starts_are_one_line(args, message):
    code, out = play(5, "", *args)
    assert code == 2 and out.count("\n") == 1 and message in out, out


# -- the optimal bots' cache: keyed on the GameSpec ------------------------------------------


@pytest.fixture
def empty_cache(monkeypatch):
    from exact.play import bots

    monkeypatch.setattr(bots, "_SOLUTIONS", {})
    return bots


def test_equal_specs_built_differently_share_one_solution(empty_cache):
    """The cache of exact.play.bots.solution_for is keyed on the game, however it was
    described: loose arguments, GameSpec.parse, from_json, replace, the other seat's view."""
    from exact.game.orders import CONTROLLED_BY_ME

    bots = empty_cache
    first = bots.solution_for(4, "float", order="controlled-by-me")
    same = [
        bots.solution_for(GameSpec.parse(4, order="controlled-by-me")),
        bots.solution_for(GameSpec.parse(4, "points", CONTROLLED_BY_ME, 0, "float")),
        bots.solution_for(
            GameSpec.from_json(
                {"n": 4, "objective": "points", "order": "controlled-by-me", "arithmetic": "float"}
            )
        ),
        bots.solution_for(GameSpec.parse(4).replace(order="controlled-by-me")),
        bots.solution_for(GameSpec.parse(4, order="controlled-by-them").mirrored()),
        bots.make_bot("optimal", 4, arithmetic="float", order="controlled-by-me").solution,
    ]
    assert all(s is first for s in same)
    assert len(bots._SOLUTIONS) == 1


def test_different_games_are_different_entries(empty_cache):
    bots = empty_cache
    base = GameSpec.parse(4, "win")
    solutions = [
        bots.solution_for(g)
        for g in (base, base.replace(handicap=2), base.replace(order="ascending"))
    ]
    assert len({id(s) for s in solutions}) == 3
    assert [s.spec for s in solutions] == [
        base,
        base.replace(handicap=2),
        base.replace(order="ascending"),
    ]
    # a variant of the same N is another game: keyed (variant, spec), never the standard one
    twelve = bots.solution_for(GameSpec.parse(4), variant="twelve")
    assert twelve is not bots.solution_for(GameSpec.parse(4))
    assert twelve is bots.make_bot("optimal", 4, arithmetic="float", variant="twelve").solution


def test_bots_are_built_from_a_gamespec(empty_cache):
    bots = empty_cache
    win = GameSpec.parse(4, "win", "descending")
    bot = bots.bot_for(win)
    assert isinstance(bot, bots.WinOptimalBot) and bot.solution.spec == win
    assert (
        bot.solution
        is bots.make_bot("optimal-win", 4, arithmetic="float", order="descending").solution
    )
    assert type(bots.bot_for(GameSpec.parse(4))) is bots.OptimalBot
    # a bot must play its own game's solution
    with pytest.raises(GopsInputError, match="cannot play"):
        bots.bot_for(GameSpec.parse(4), bot.solution)
    with pytest.raises(TypeError):
        bots.solution_for(GameSpec.parse(4), objective="win")  # the spec says points


def test_a_shared_prize_reads_apart_from_the_players_names():
    """ "computer 1 1(half)" read as two ones (issue 49): a shared prize is "half of 1",
    the prizes are listed with commas, and the prizes-won line puts a colon after each
    player."""
    from exact.cli.play import _outcome, _won

    won: list[list[str]] = [[], [], []]
    names = ["you", "computer 1", "computer 2"]
    assert _outcome(1, (0.5, 0.5, 0), names, won) == "you and computer 1 split the 1, 0.5 each"
    _outcome(3, (0, 0, 3), names, won)
    _outcome(6, (2, 2, 2), names, won)
    assert [_won(w) for w in won] == ["half of 1, 1/3 of 6", "half of 1, 1/3 of 6", "3, 1/3 of 6"]
    assert _won([]) == "-"
