"""The limits on N of every ``gops`` command, in one table, and the one check of N.

Each number comes from the module that imposes it (the solvers' time and memory budgets,
the evaluator's enumeration); this table only says which limit applies to which command
line, so that every command states its own::

    $ gops evaluate 14 --bots random,lowest
    gops: error: N must be between 1 and 10 for gops evaluate (every prize order and
    every bid is enumerated), got 14

A key is the command followed by the options that change its limit, as typed
(``("tournament", "--variant dummy", "with an optimal bot")``); the message quotes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from exact.limits import check_n


@dataclass(frozen=True)
class Limit:
    """N must lie in ``low..high``; ``why`` says what bounds it, for the message."""

    low: int
    high: int
    why: str


@cache
def limits() -> dict[tuple[str, ...], Limit]:
    """The table: (command, qualifiers...) -> Limit."""
    from exact.dp.variant_solver import SOLVABLE_VARIANTS
    from exact.limits import (
        AUDIT_MAX_N,
        BOUNDS_MAX_N,
        ENCODING_MAX_N,
        EVALUATE_MAX_N,
        FIXED_BIDS_ADAPTIVITY_MAX_N,
        FIXED_BIDS_EXACT_MAX_N,
        FIXED_BIDS_MAX_N,
        OPTIMAL_BOT_MAX_N,
        SOLVE_MAX_N,
        TOURNAMENT_MAX_N,
        VARIANT_MAX_N,
    )

    cards = f"hands are encoded in {ENCODING_MAX_N} bits"
    float_points = Limit(
        1,
        SOLVE_MAX_N["points", "float"],
        "time and memory: N = 13 takes about 15 minutes on 2 cores",
    )
    float_win = Limit(
        1,
        SOLVE_MAX_N["win", "float"],
        "the win objective also tracks the lead: N = 10 takes a few minutes",
    )
    stored = Limit(
        1,
        ENCODING_MAX_N,
        f"{cards}; a pre-flight estimate refuses what this machine cannot hold (then --cluster)",
    )
    read_store = Limit(1, ENCODING_MAX_N, "the largest game a store holds")
    table = {
        ("solve",): float_points,
        ("solve", "--objective win"): float_win,
        ("solve", "--store"): stored,
        ("solve", "--objective win", "--store"): stored,
        ("table", "--store"): read_store,
        ("table", "--objective win", "--store"): read_store,
        ("table",): float_points,
        ("table", "--objective win"): float_win,
        ("strategy",): Limit(1, ENCODING_MAX_N, f"{cards}; only the hands left are solved"),
        ("certify",): Limit(
            1, SOLVE_MAX_N["points", "rational"], "rational arithmetic: N = 7 takes minutes"
        ),
        ("certify", "--objective win"): Limit(
            1, SOLVE_MAX_N["win", "rational"], "rational arithmetic: N = 7 takes minutes"
        ),
        ("certify", "--bounds"): Limit(
            1,
            BOUNDS_MAX_N,
            "the checker verifies every float game in Python: N = 9 takes about 80 s",
        ),
        ("count",): Limit(1, ENCODING_MAX_N, cards),
        ("audit",): Limit(1, AUDIT_MAX_N, "the game is solved in rational arithmetic"),
        ("compare-objectives",): Limit(
            1, SOLVE_MAX_N["win", "float"], "the win objective is solved: N = 10 takes minutes"
        ),
        ("evaluate",): Limit(1, EVALUATE_MAX_N, "every prize order and every bid is enumerated"),
        ("play",): Limit(
            1,
            OPTIMAL_BOT_MAX_N,
            f"solved on the fly; up to {SOLVE_MAX_N['points', 'float']} from "
            "a store: gops solve N --store DIR, then --store DIR",
        ),
        ("play", "--objective win"): Limit(
            1,
            min(OPTIMAL_BOT_MAX_N, SOLVE_MAX_N["win", "float"]),
            "the win objective is solved on the fly",
        ),
        ("play", "--store"): read_store,
        ("fixed-bids",): Limit(1, FIXED_BIDS_MAX_N, "double oracle: N = 16 takes about 40 s"),
        ("fixed-bids", "--exact"): Limit(
            1, FIXED_BIDS_EXACT_MAX_N, "all N! bijections are checked in rationals"
        ),
        ("fixed-bids", "--adaptivity"): Limit(
            1,
            FIXED_BIDS_ADAPTIVITY_MAX_N,
            "a whole game tree is evaluated per bijection of the mix",
        ),
    }
    suit = "one suit of a deck"
    for variant in ("standard", "twelve", "dummy", "three", "three-third"):
        low = 2 if variant == "twelve" else 1
        flag = () if variant == "standard" else (f"--variant {variant}",)
        table[("tournament", *flag)] = Limit(low, TOURNAMENT_MAX_N, suit)
        if variant in ("three", "three-third"):
            table[("play", *flag)] = Limit(low, TOURNAMENT_MAX_N, f"{suit}; the others are bots")
            continue
        optimal = OPTIMAL_BOT_MAX_N if variant == "standard" else VARIANT_MAX_N[variant, "float"]
        table[("tournament", *flag, "with an optimal bot")] = Limit(
            low, optimal, "the optimal bot's equilibrium is solved on the fly"
        )
        if variant != "standard":
            table[("play", *flag)] = Limit(low, optimal, "the equilibrium is solved on the fly")
    for variant in SOLVABLE_VARIANTS:
        low = 2 if variant == "twelve" else 1
        table["variant", variant] = Limit(
            low, VARIANT_MAX_N[variant, "float"], "float64 recursion over every state"
        )
        table["variant", variant, "--exact"] = Limit(
            low, VARIANT_MAX_N[variant, "rational"], "rational recursion over every state"
        )
    return table


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


def objective_flag(objective: str) -> str | None:
    """The qualifier of a non-default --objective (None for points)."""
    return None if objective == "points" else f"--objective {objective}"
