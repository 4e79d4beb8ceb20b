"""The limits on N of every ``gops`` command, in one table, and the one check of N.

Each number, and each time a message quotes, comes from :mod:`exact.limits` (the solvers'
time and memory budgets, the evaluator's enumeration, the measured times); this table
only says which limit applies to which command line, so that every command states its
own::

    $ gops evaluate 14 --bots random,lowest
    gops: error: N must be between 1 and 10 for gops evaluate (every prize order and
    every bid is enumerated), got 14

A key is the command followed by the options that change its limit, as typed
(``("tournament", "--variant dummy", "with an optimal bot")``); the message quotes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from exact.game.objectives import POINTS, GameObjective
from exact.limits import (
    AUDIT_MAX_N,
    BOUNDS_MAX_N,
    ENCODING_MAX_N,
    EVALUATE_MAX_N,
    FIXED_BIDS_ADAPTIVITY_MAX_N,
    FIXED_BIDS_EXACT_MAX_N,
    FIXED_BIDS_MAX_N,
    OPTIMAL_BOT_MAX_N,
    SOLVABLE_VARIANTS,
    SOLVE_MAX_N,
    TIMINGS,
    TOURNAMENT_MAX_N,
    VARIANT_MAX_N,
    check_n,
)


@dataclass(frozen=True)
class Limit:
    """N must lie in ``low..high``; ``why`` says what bounds it, for the message."""

    low: int
    high: int
    why: str


_CARDS = f"hands are encoded in {ENCODING_MAX_N} bits"
_READ_STORE = Limit(1, ENCODING_MAX_N, "the largest game a store holds")


def _solve_limits() -> dict[tuple[str, ...], Limit]:
    """gops solve and table, in memory and from a store."""
    points, win = TIMINGS["points", "float", 13], TIMINGS["win", "float", 10]
    float_points = Limit(
        1,
        SOLVE_MAX_N["points", "float"],
        f"time and memory: N = 13 takes {points.about()} on 2 cores; "
        f"a larger N: gops solve N --store DIR",
    )
    float_win = Limit(
        1,
        SOLVE_MAX_N["win", "float"],
        f"the win objective also tracks the lead: N = 10 takes {win.about()}",
    )
    stored = Limit(
        1,
        ENCODING_MAX_N,
        f"{_CARDS}; a pre-flight estimate refuses what this machine cannot hold (then --cluster)",
    )
    return {
        ("solve",): float_points,
        ("solve", "--objective win"): float_win,
        ("solve", "--store"): stored,
        ("solve", "--objective win", "--store"): stored,
        ("table", "--store"): _READ_STORE,
        ("table", "--objective win", "--store"): _READ_STORE,
        ("table",): float_points,
        ("table", "--objective win"): float_win,
    }


def _exact_limits() -> dict[tuple[str, ...], Limit]:
    """The rational and certified commands."""
    rational = "rational arithmetic: N = 7 takes"
    points, win = TIMINGS["points", "rational", 7], TIMINGS["win", "rational", 7]
    return {
        ("certify",): Limit(1, SOLVE_MAX_N["points", "rational"], f"{rational} {points.about()}"),
        ("certify", "--objective win"): Limit(
            1, SOLVE_MAX_N["win", "rational"], f"{rational} {win.about()}"
        ),
        ("certify", "--bounds"): Limit(
            1,
            BOUNDS_MAX_N,
            "the checker verifies every float game in Python: N = 9 takes about 80 s",
        ),
        ("audit",): Limit(1, AUDIT_MAX_N, "the game is solved in rational arithmetic"),
    }


def _analysis_limits() -> dict[tuple[str, ...], Limit]:
    """strategy, count, compare-objectives, evaluate and fixed-bids."""
    fixed = TIMINGS["points", "fixed bids", 16]
    return {
        ("strategy",): Limit(1, ENCODING_MAX_N, f"{_CARDS}; only the hands left are solved"),
        ("count",): Limit(1, ENCODING_MAX_N, _CARDS),
        ("compare-objectives",): Limit(
            1,
            SOLVE_MAX_N["win", "float"],
            f"the win objective is solved: N = 10 takes {TIMINGS['win', 'float', 10].about()}",
        ),
        ("evaluate",): Limit(1, EVALUATE_MAX_N, "every prize order and every bid is enumerated"),
        ("fixed-bids",): Limit(1, FIXED_BIDS_MAX_N, f"double oracle: N = 16 takes {fixed.about()}"),
        ("fixed-bids", "--exact"): Limit(
            1, FIXED_BIDS_EXACT_MAX_N, "all N! bijections are checked in rationals"
        ),
        ("fixed-bids", "--adaptivity"): Limit(
            1,
            FIXED_BIDS_ADAPTIVITY_MAX_N,
            "a whole game tree is evaluated per bijection of the mix",
        ),
    }


def _play_limits() -> dict[tuple[str, ...], Limit]:
    """gops play and tournament, for every variant."""
    from exact.game.variants import STANDARD, get_variant

    table = {
        ("play",): Limit(
            1,
            OPTIMAL_BOT_MAX_N,
            f"solved on the fly; up to {ENCODING_MAX_N} from "
            "a store: gops solve N --store DIR, then --store DIR",
        ),
        ("play", "--objective win"): Limit(
            1,
            min(OPTIMAL_BOT_MAX_N, SOLVE_MAX_N["win", "float"]),
            "the win objective is solved on the fly",
        ),
        ("play", "--store"): _READ_STORE,
    }
    suit = "one suit of a deck"
    table[("play", "--variant three-discard")] = Limit(
        1, TOURNAMENT_MAX_N, f"{suit}; the others are bots"
    )
    for variant in map(get_variant, ("standard", "twelve", "dummy", "three", "three-third")):
        low = 2 if variant.drop_last else 1  # a bid of 2..n: n >= 2
        flag = () if variant is STANDARD else (f"--variant {variant.name}",)
        table[("tournament", *flag)] = Limit(low, TOURNAMENT_MAX_N, suit)
        if variant.players == 3:
            table[("play", *flag)] = Limit(low, TOURNAMENT_MAX_N, f"{suit}; the others are bots")
            continue
        optimal = OPTIMAL_BOT_MAX_N if variant is STANDARD else VARIANT_MAX_N[variant.name, "float"]
        table[("tournament", *flag, "with an optimal bot")] = Limit(
            low, optimal, "the optimal bot's equilibrium is solved on the fly"
        )
        if variant is not STANDARD:
            table[("play", *flag)] = Limit(low, optimal, "the equilibrium is solved on the fly")
    return table


def _variant_limits() -> dict[tuple[str, ...], Limit]:
    """gops variant, float and --exact."""
    from exact.game.variants import get_variant

    table: dict[tuple[str, ...], Limit] = {}
    for variant in SOLVABLE_VARIANTS:
        low = 2 if get_variant(variant).drop_last else 1  # a bid of 2..n: n >= 2
        table["variant", variant] = Limit(
            low, VARIANT_MAX_N[variant, "float"], "float64 recursion over every state"
        )
        table["variant", variant, "--exact"] = Limit(
            low, VARIANT_MAX_N[variant, "rational"], "rational recursion over every state"
        )
    return table


@cache
def limits() -> dict[tuple[str, ...], Limit]:
    """The table: (command, qualifiers...) -> Limit."""
    return {
        **_solve_limits(),
        **_exact_limits(),
        **_analysis_limits(),
        **_play_limits(),
        **_variant_limits(),
    }


def check_command_n(n: int, command: str, *qualifiers: str | None) -> int:
    """``n`` if it lies in the limits of ``gops COMMAND QUALIFIERS...``, else a one-line
    GopsInputError naming them (qualifiers that are None are left out: the default).

    >>> check_command_n(5, "evaluate")
    5
    >>> check_command_n(0, "variant", "twelve", None)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: N must be between 2 and 9 for gops variant twelve (float64
    recursion over every state), got 0
    """
    key = (command, *(q for q in qualifiers if q))
    limit = limits()[key]
    return check_n(n, limit.high, limit.low, f" for gops {' '.join(key)} ({limit.why})")


def objective_flag(objective: GameObjective) -> str | None:
    """The qualifier of a non-default --objective (None for points)."""
    return None if objective is POINTS else f"--objective {objective.name}"
