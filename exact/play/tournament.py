"""Round-robin tournaments between bots, by sampling, with 95% confidence intervals.

Every pair of listed bots (A, B) plays ``games`` games of n-card GOPS; A sits as player 0
in the even-numbered games and as player 1 in the odd ones.  Results are from A's side:
wins, draws and losses with Wilson score intervals, and the mean point difference
(A minus B) with the normal-approximation interval mean +- z s / sqrt(G), s the sample
standard deviation.  z = 1.959964, the two-sided 95% normal quantile.

``variant`` plays a two-player variant of :mod:`exact.game.variants` instead (``dummy`` or
``twelve``); there the optimal bot samples the variant's own equilibrium
(:mod:`exact.dp.variant_solver`, small N), and ``optimal-win`` is not available.  Half points
of the dummy variant make the differences half-integers.

The three-player variants ``three`` and ``three-third`` are played by
:func:`three_player_tournament`: every triple of bots, seats rotating, each bot's wins
(strictly the most points) with Wilson intervals, games with a shared top, mean points.
There the ``equilibrium`` bot plays the variant's three-player equilibrium
(:mod:`exact.play.three`, solved for N <= EQUILIBRIUM_MAX_N).

Reproducible: the games of a pair draw the prize orders and every bid from one
``random.Random`` seeded by (seed, n, the pair's positions and names), so the same seed
gives the same games whatever else is listed.

>>> res = tournament(4, ["lowest", "highest"], games=4, seed=1)
>>> (res[0].bots, res[0].wins + res[0].draws + res[0].losses)
(('lowest', 'highest'), 4)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

from exact.errors import GopsInputError
from exact.game.rules import play_game
from exact.game.variants import STANDARD, VARIANTS, Variant, get_variant, play_variant
from exact.limits import (
    OPTIMAL_BOT_MAX_N,
    TOURNAMENT_MAX_GAMES,
    TOURNAMENT_MAX_N,
    VARIANT_MAX_N,
    check_n,
)
from exact.play.bots import THREE_PLAYER_BOTS, Bot, make_bot
from exact.play.three import EQUILIBRIUM_MAX_N, make_three_bot

__all__ = [
    "PairResult",
    "TripleResult",
    "Z95",
    "mean_interval",
    "three_player_tournament",
    "tournament",
    "wilson_interval",
]

#: Two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054
#: The bots that need a solved game.
OPTIMAL_BOTS = ("optimal", "optimal-win")


@dataclass(frozen=True)
class PairResult:
    """G games of bot A against bot B, counted from A's side."""

    bots: tuple[str, str]
    games: int
    wins: int
    draws: int
    losses: int
    win_interval: tuple[float, float]  # Wilson 95%
    draw_interval: tuple[float, float]
    loss_interval: tuple[float, float]
    mean_difference: float  # A's points minus B's, averaged over the games
    mean_interval: tuple[float, float] | None  # 95%; None for a single game


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (Wilson 1927).

    >>> lo, hi = wilson_interval(0, 10)
    >>> lo, round(hi, 4)
    (0.0, 0.2775)
    """
    p = successes / trials
    z2 = z * z
    denom = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: list[float], z: float = Z95) -> tuple[float, float] | None:
    """mean +- z s / sqrt(G) with the sample standard deviation s (None if G < 2)."""
    g = len(values)
    if g < 2:
        return None
    mean = sum(values) / g
    var = sum((v - mean) ** 2 for v in values) / (g - 1)
    half = z * math.sqrt(var / g)
    return mean - half, mean + half


#: Variants a tournament can play (see :mod:`exact.game.variants`): two players, or three
#: (``three``, ``three-third``: every triple of bots plays, see :func:`three_player_tournament`).
TOURNAMENT_VARIANTS = ("standard", "dummy", "twelve", "three", "three-third")
THREE_PLAYER_VARIANTS = ("three", "three-third")
_PLAYED = tuple(get_variant(name) for name in TOURNAMENT_VARIANTS)


def tournament_variant(variant: str | Variant) -> Variant:
    """The Variant of one of :data:`TOURNAMENT_VARIANTS` (a Variant, or its name: parsed
    here once); one-line GopsInputError otherwise."""
    rules = variant if isinstance(variant, Variant) else VARIANTS.get(variant)
    if rules not in _PLAYED:
        named = variant.name if isinstance(variant, Variant) else variant
        raise GopsInputError(
            f"tournaments play the variants {', '.join(TOURNAMENT_VARIANTS)}, not {named!r}"
        )
    return rules


def check_tournament_options(
    n: int, names: list[str], games: int, variant: str | Variant = STANDARD
) -> int:
    n = check_n(n, TOURNAMENT_MAX_N, what=" (one suit of a deck)")
    variant = tournament_variant(variant)
    if variant.drop_last and n < 2:
        raise GopsInputError(f"the {variant.name} variant needs N >= 2")
    if variant.players == 3:
        for x in names:
            if x in OPTIMAL_BOTS:
                raise GopsInputError(
                    f"the {x} bot plays two-player games only (no equilibrium "
                    f"is computed for three players)"
                )
        if len(names) < 3:
            raise GopsInputError(
                f"a three-player tournament needs at least 3 bots, got {len(names)}"
            )
        if any(x in THREE_PLAYER_BOTS for x in names):
            check_n(n, EQUILIBRIUM_MAX_N, what=" with the equilibrium bot (solved on the fly)")
    elif any(x in THREE_PLAYER_BOTS for x in names):
        raise GopsInputError(
            "the equilibrium bot plays the three-player variants only (three, three-third)"
        )
    if variant is not STANDARD and "optimal-win" in names:
        raise GopsInputError(
            f"the optimal-win bot plays only the standard game, not {variant.name!r}"
        )
    if any(x in OPTIMAL_BOTS for x in names):
        limit = OPTIMAL_BOT_MAX_N if variant is STANDARD else VARIANT_MAX_N[variant.name, "float"]
        check_n(n, limit, what=" with an optimal bot (solved on the fly)")
    if len(names) < 2:
        raise GopsInputError(f"a tournament needs at least 2 bots, got {len(names)}")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise GopsInputError(f"the number of games must be at least 1, got {games}")
    if games > TOURNAMENT_MAX_GAMES:
        raise GopsInputError(
            f"at most {TOURNAMENT_MAX_GAMES:,} games per pair (95 % intervals about "
            f"+-0.001 wide, minutes per pair), got {games:,}"
        )
    return n


#: A tournament's ``progress(games)`` is called after every this many games of a pair.
PROGRESS_GAMES = 10_000


def play_pair(
    n: int,
    a: Bot,
    b: Bot,
    games: int,
    rng: random.Random,
    variant: str | Variant = STANDARD,
    progress: Callable[[int], None] | None = None,
) -> list:
    """Point differences (A minus B) of ``games`` games, A seated 0 in even games;
    ``progress(g)`` after every PROGRESS_GAMES games and the last ones."""
    rules = get_variant(variant)

    def difference(first, second):
        if rules is STANDARD:
            return play_game(n, _bidder(first, rng), _bidder(second, rng), rng).difference
        rec = play_variant(rules, n, [_bidder(first, rng), _bidder(second, rng)], rng)
        d = rec.points[0] - rec.points[1]
        return int(d) if d.denominator == 1 else d

    diffs = []
    for start in range(0, games, PROGRESS_GAMES):
        stop = min(games, start + PROGRESS_GAMES)
        diffs += [difference(a, b) if g % 2 == 0 else -difference(b, a) for g in range(start, stop)]
        if progress is not None:
            progress(stop - start)
    return diffs


def tournament(
    n: int,
    names: list[str],
    games: int,
    seed: int,
    variant: str | Variant = STANDARD,
    progress: Callable[[int], None] | None = None,
) -> list[PairResult]:
    """Every pair (names[i], names[j]), i < j, plays ``games`` games; see the module doc.
    ``progress(g)`` is told of the games played, every PROGRESS_GAMES of a pair."""
    n = check_tournament_options(n, names, games, variant)
    variant = tournament_variant(variant)
    if variant.players == 3:
        raise GopsInputError(f"{variant.name!r} has three players: use three_player_tournament")
    # Sampling needs no exact mixes: optimal bots use float equilibria.
    bots = [
        make_bot(x, n, arithmetic="float", variant=variant)
        if x == "optimal"
        else make_bot(x, n, arithmetic="float")
        if x in OPTIMAL_BOTS
        else make_bot(x, n)
        for x in names
    ]
    results = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            tag = "" if variant is STANDARD else f":{variant.name}"
            rng = random.Random(f"gops-tournament:{seed}:{n}:{i}:{j}:{names[i]}:{names[j]}{tag}")
            diffs = play_pair(n, bots[i], bots[j], games, rng, variant, progress)
            wins = sum(d > 0 for d in diffs)
            draws = sum(d == 0 for d in diffs)
            losses = games - wins - draws
            results.append(
                PairResult(
                    bots=(names[i], names[j]),
                    games=games,
                    wins=wins,
                    draws=draws,
                    losses=losses,
                    win_interval=wilson_interval(wins, games),
                    draw_interval=wilson_interval(draws, games),
                    loss_interval=wilson_interval(losses, games),
                    mean_difference=float(sum(diffs)) / games,
                    mean_interval=mean_interval([float(d) for d in diffs]),
                )
            )
    return results


@dataclass(frozen=True)
class TripleResult:
    """G games of three bots in a three-player variant; seats rotate every game."""

    bots: tuple[str, ...]  # the three bots
    games: int
    wins: tuple[int, ...]  # games each bot ended with strictly the most points
    shared: int  # games where two or three bots tied for the most points
    win_intervals: tuple[tuple[float, float], ...]  # Wilson 95%, one per bot
    mean_points: tuple[float, ...]  # one per bot


def three_player_tournament(
    n: int,
    names: list[str],
    games: int,
    seed: int,
    variant: str | Variant = "three",
    progress: Callable[[int], None] | None = None,
) -> list[TripleResult]:
    """Every triple (names[i], names[j], names[k]), i < j < k, plays ``games`` games of a
    three-player variant; in game g the bots sit in the rotation g mod 3 of the triple.
    ``progress(g)`` is told of the games played, every PROGRESS_GAMES of a triple."""
    n = check_tournament_options(n, names, games, variant)
    variant = tournament_variant(variant)
    if variant.players != 3:
        raise GopsInputError(f"{variant.name!r} is not a three-player variant")
    bots = [make_three_bot(x, n, variant) for x in names]
    results = []
    for trio in combinations(range(len(names)), 3):
        tag = ":".join(f"{i}:{names[i]}" for i in trio)
        rng = random.Random(f"gops-tournament3:{seed}:{n}:{variant.name}:{tag}")
        wins, shared, points = [0, 0, 0], 0, [0.0, 0.0, 0.0]
        for g in range(games):
            seats = [trio[(s + g) % 3] for s in range(3)]  # seat -> index into names
            bidders = [_bidder(bots[i], rng) for i in seats]
            rec = play_variant(variant, n, bidders, rng)
            for seat, i in enumerate(seats):
                points[trio.index(i)] += float(rec.points[seat])
            if rec.winner is None:
                shared += 1
            else:
                wins[trio.index(seats[rec.winner])] += 1
            if progress is not None and ((g + 1) % PROGRESS_GAMES == 0 or g + 1 == games):
                progress((g % PROGRESS_GAMES) + 1)
        results.append(
            TripleResult(
                bots=tuple(names[i] for i in trio),
                games=games,
                wins=tuple(wins),
                shared=shared,
                win_intervals=tuple(wilson_interval(w, games) for w in wins),
                mean_points=tuple(p / games for p in points),
            )
        )
    return results


def _bidder(bot: Bot, rng: random.Random):
    return lambda pos, player: bot.bid(pos, player, rng)
