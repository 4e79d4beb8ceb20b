"""The command line's one boundary to a game (exact.cli.common.game_options): every command
that solves a game gets one checked GameSpec from its flags, the same spec from the same
flags, and every --objective and --order is the shared option with the names GameSpec.parse
knows."""

import click
import pytest
from click.testing import CliRunner

import exact.dp.solve
from exact.cli import common, main
from exact.cli.families import TWO, FamilyCommand
from exact.game.spec import GameSpec
from exact.play import bots


class Solved(Exception):
    """Raised by the stand-in solver: the command got as far as solving this game."""

    def __init__(self, game, top):
        super().__init__(game)
        self.game, self.top = game, top


@pytest.fixture
def solved_game(monkeypatch):
    """Run ``gops ARGS`` up to its first solve; the GameSpec (and top) it solves.  Every
    command solves through exact.dp.solve.solve_game (directly, or through the optimal
    bots' cache, emptied here so that nothing is answered from it)."""

    def stand_in(game, progress=None, top=None, device="cpu"):
        raise Solved(game, top)

    monkeypatch.setattr(exact.dp.solve, "solve_game", stand_in)
    monkeypatch.setattr(bots, "_SOLUTIONS", {})

    def run(*args, stdin=None):
        result = CliRunner().invoke(main, [str(a) for a in args], input=stdin)
        assert isinstance(result.exception, Solved), (result.exit_code, result.output)
        return result.exception.game, result.exception.top

    return run


CARDS = ["--mine", "1,2,3,4", "--theirs", "1,2,3,4", "--deck", "1,2,3,4"]


@pytest.mark.parametrize(
    "flags",
    [
        (),
        ("--objective", "win"),
        ("--order", "descending"),
        ("--objective", "win", "--order", "ascending"),
        ("--order", "controlled-by-me"),
        ("--objective", "win", "--order", "controlled-by-them"),
    ],
    ids=lambda f: " ".join(f) or "default",
)
def test_every_command_gets_the_same_spec_from_the_same_flags(solved_game, flags):
    objective = flags[flags.index("--objective") + 1] if "--objective" in flags else "points"
    order = flags[flags.index("--order") + 1] if "--order" in flags else "random"
    want = GameSpec.parse(4, objective, order)
    # the prize the order turns up first
    upcard = {"descending": "4"}.get(order, "1")
    assert solved_game("solve", 4, *flags, "--quiet") == (want, None)
    assert solved_game("table", 4, *flags, "--quiet") == (want, None)
    assert solved_game("strategy", *CARDS, "--upcard", upcard, *flags) == (want, 3)
    # the computer and bot B see the game from the other seat: who chooses is mirrored
    assert solved_game("play", 4, *flags, "--seed", 1) == (want.mirrored(), None)
    bot = "optimal-win" if objective == "win" else "optimal"
    assert solved_game(
        "evaluate",
        4,
        "--bots",
        f"{bot},random",
        "--float",
        *flags[flags.index("--order") :] if "--order" in flags else (),
    ) == (want, None)
    assert solved_game(
        "evaluate",
        4,
        "--bots",
        f"random,{bot}",
        "--float",
        *flags[flags.index("--order") :] if "--order" in flags else (),
    ) == (want.mirrored(), None)
    if order == "random":
        assert solved_game("tournament", 4, "--bots", f"{bot},random") == (want, None)
        if objective == "win":
            assert solved_game("compare-objectives", 4) == (want.replace(objective="points"), None)


@pytest.mark.parametrize("lead", [2, -2])
def test_a_lead_is_solved_as_the_same_handicap_by_solve_and_table(solved_game, lead):
    want = GameSpec.parse(5, "win", handicap=2)
    assert solved_game("solve", 5, "--objective", "win", "--lead", lead, "--quiet") == (want, None)
    assert solved_game("table", 5, "--objective", "win", "--lead", lead, "--quiet") == (want, None)


def test_strategy_solves_its_arithmetic_and_the_leads_it_reaches(solved_game):
    cards = ["--mine", "1,2", "--theirs", "1,3", "--deck", "2,4", "--upcard", "4", "--n", 4]
    assert solved_game("strategy", *cards, "--exact") == (
        GameSpec.parse(4, arithmetic="rational"),
        1,
    )
    # 4 points played: a lead of 5 is one more than the prizes played (handicap 1)
    assert solved_game("strategy", *cards, "--objective", "win", "--lead", 5) == (
        GameSpec.parse(4, "win", handicap=1),
        1,
    )


def test_the_bots_of_a_tournament_and_of_evaluate_share_one_solution(monkeypatch):
    """The bots' cache is keyed on the GameSpec: the solution presolved by the command
    (with its bar) is the one the bots play, not a second solve."""
    monkeypatch.setattr(bots, "_SOLUTIONS", {})
    calls = []
    real = exact.dp.solve.solve_game
    monkeypatch.setattr(
        exact.dp.solve,
        "solve_game",
        lambda game, progress=None, top=None: calls.append(game) or real(game, progress, top),
    )
    result = CliRunner().invoke(
        main, ["tournament", "4", "--games", "4", "--bots", "optimal,optimal-win,random"]
    )
    assert result.exit_code == 0, result.output
    assert calls == [GameSpec.parse(4), GameSpec.parse(4, "win")]
    calls.clear()
    result = CliRunner().invoke(main, ["evaluate", "4", "--bots", "optimal,random", "--float"])
    assert result.exit_code == 0, result.output
    assert calls == []  # the tournament's solution, cached under the same spec


def test_every_objective_and_order_option_is_the_shared_one():
    """A command that declared its own --objective or --order could accept a name
    GameSpec.parse refuses (a traceback) or refuse one it knows."""
    seen = set()
    for name, command in main.commands.items():
        if isinstance(command, FamilyCommand):  # the two-player family's (three: points, top)
            command = TWO.command(name)
        for param in command.params:
            if param.name == "objective":
                assert param.type is common.OBJECTIVE, name
                seen.add(("objective", name))
            if param.name == "order":
                assert param.type is common.ORDER, name
                seen.add(("order", name))
    assert {c for o, c in seen if o == "objective"} == {
        "solve",
        "table",
        "strategy",
        "certify",
        "play",
    }
    assert {c for o, c in seen if o == "order"} == {
        "solve",
        "table",
        "strategy",
        "play",
        "evaluate",
    }
    assert set(common.OBJECTIVE.choices) == {"points", "win"}


def command(**decorator):
    """A small command behind game_options, returning what its function received."""
    got = {}

    @click.command(cls=common.NumberArgumentsCommand)
    @click.argument("n", type=common.INTEGER)
    @common.objective_options
    @click.option("--exact", "exact_", is_flag=True)
    @common.game_options("table", **decorator)
    def cmd(**kwargs):
        got.update(kwargs)

    return cmd, got


def test_the_function_gets_a_gamespec_and_no_strings():
    cmd, got = command(arithmetic=lambda o: "rational" if o["exact_"] else "float")
    result = CliRunner().invoke(
        cmd, ["5", "--objective", "win", "--order", "descending", "--lead", "-3", "--exact"]
    )
    assert result.exit_code == 0, result.output
    assert got == {
        "game": GameSpec.parse(5, "win", "descending", arithmetic="rational"),
        "lead": -3,
        "exact_": True,
    }
    assert got["game"].order is GameSpec.parse(5, order="descending").order  # the PrizeOrder
    result = CliRunner().invoke(cmd, ["5"])
    assert got["game"] == GameSpec.parse(5) and got["lead"] is None


@pytest.mark.parametrize(
    "args, message",
    [
        (["14"], "N must be between 1 and 13 for gops table"),  # the command's limit, not 16
        (["5", "--lead", "1"], "--lead applies to --objective win only"),
        (["5", "--objective", "win", "--lead", "16"], "--lead must be between -15 and 15"),
        (["20", "--lead", "1"], "N must be between 1 and 13 for gops table"),  # N first
    ],
)
def test_the_boundary_errors_are_one_line_exit_2(args, message):
    cmd, got = command()
    result = CliRunner().invoke(cmd, args)
    assert result.exit_code == 2 and not got
    assert result.stderr.startswith("gops: error: ") and result.stderr.count("\n") == 1
    assert message in result.stderr


def test_a_command_without_objective_gets_its_fixed_objective():
    got = {}

    @click.command()
    @click.argument("n", type=common.INTEGER)
    @common.game_options("compare-objectives", objective="win")
    def cmd(**kwargs):
        got.update(kwargs)

    assert CliRunner().invoke(cmd, ["6"]).exit_code == 0
    assert got == {"game": GameSpec.parse(6, "win")}
