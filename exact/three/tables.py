"""What a three-player equilibrium says at the start and at any position, with its proof.

:func:`first_move_table` is the first move of a solved game (rows bids, columns upcards:
the three seats hold the same hand, so the symmetric equilibrium gives them one mix) with
each seat's value once each upcard is turned and at the start; :func:`strategy` is the
equilibrium mixes of all three players at any position (three hands, the prizes left with
the upcard, for the ``top`` objective the points so far), checked first: a malformed or
unreachable position is a one-line :class:`~exact.errors.GopsInputError`.

Both carry the :class:`~exact.three.nashconv.NashConvReport` of the whole solution they
come from (its proven NashConv bound): a mix read here is only as good as that bound.

Invariant: the mixes and values are the solution's floats (each seat's mix as stored, in
the seat's own order; values mapped from the canonical players back to the seats).

>>> check_position(ThreeGame.parse(3), ((1, 2), (1, 3), (2, 3)), (1, 3), 2)
Traceback (most recent call last):
...
exact.errors.GopsInputError: upcard 2 is not among the prizes left {1,3}
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from exact.errors import GopsInputError
from exact.three.induction import ThreeSolution
from exact.three.nashconv import NashConvReport, nashconv
from exact.three.rules import ThreeGame

__all__ = [
    "FirstMoveTable",
    "ThreeStrategy",
    "check_position",
    "first_move_table",
    "strategy",
]


@dataclass(frozen=True)
class FirstMoveTable:
    """The first move of a solved three-player game: P(bid | upcard), one mix for all."""

    solution: ThreeSolution
    report: NashConvReport  # the whole solution's certified NashConv
    table: dict[int, dict[int, float]]  # upcard -> {bid: probability}
    upcard_values: dict[int, tuple[float, float, float]]  # each seat's value after upcard
    seat_values: tuple[float, float, float]  # each seat's value at the start

    def to_json(self, epsilon: float) -> dict:
        """The table as JSON, with the certified epsilon it is judged against."""
        return {
            "game": self.solution.game.to_json(),
            "by_upcard": {str(u): [mix[b] for b in sorted(mix)] for u, mix in self.table.items()},
            "upcard_values": {str(u): list(v) for u, v in self.upcard_values.items()},
            "seat_values": list(self.seat_values),
            "nashconv": nashconv_json(self.report, epsilon),
        }


@dataclass(frozen=True)
class ThreeStrategy:
    """The equilibrium at one position, the upcard turned: each seat's mix and value."""

    solution: ThreeSolution
    report: NashConvReport
    hands: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
    prizes: tuple[int, ...]  # ascending, the upcard included
    upcard: int
    points: tuple[Fraction, Fraction, Fraction]  # so far (top objective; zeros otherwise)
    mixes: tuple[dict[int, float], ...]  # seat -> {card: probability}
    values: tuple[float, float, float]  # each seat's value from here, this round included
    stage_regret: float  # the stage's own regret (float), a check on the mixes

    def to_json(self, epsilon: float) -> dict:
        out = {
            "game": self.solution.game.to_json(),
            "hands": [list(h) for h in self.hands],
            "prizes": list(self.prizes),
            "upcard": self.upcard,
            "mixes": [{str(c): p for c, p in m.items()} for m in self.mixes],
            "values": list(self.values),
            "stage_regret": self.stage_regret,
            "nashconv": nashconv_json(self.report, epsilon),
        }
        if self.solution.game.top:
            out["points"] = [str(p) for p in self.points]
        return out


def nashconv_json(report: NashConvReport, epsilon: float) -> dict:
    """The proven NashConv bound of a report and whether it is below ``epsilon``."""
    return {
        "bound": report.bound,
        "estimate": report.estimate,
        "epsilon": epsilon,
        "certified": report.bound <= epsilon,
        "rounding_factors": report.depth,
    }


def certify_solution(sol: ThreeSolution) -> NashConvReport:
    """The solution's NashConv in the whole game (as :func:`exact.three.certify`)."""
    return nashconv(sol.game, sol.mixes)


def first_move_table(sol: ThreeSolution, report: NashConvReport | None = None) -> FirstMoveTable:
    """The first-move table of ``sol`` with each seat's value; ``report`` (the solution's
    certified NashConv) is computed when not given."""
    n = sol.game.n
    hand = tuple(range(1, n + 1))
    table, values = {}, {}
    for u in sol.game.order.next_prizes(hand):
        mixes, values[u], _ = _stage_at(sol, (hand, hand, hand), hand, (0, 0, 0), u)
        table[u] = mixes[0]
    seats = tuple(float(v) for v in sol.seat_values())
    report = certify_solution(sol) if report is None else report
    return FirstMoveTable(sol, report, table, values, seats)  # type: ignore[arg-type]


def _cards(cards) -> str:
    return "{" + ",".join(str(c) for c in sorted(cards)) + "}"


def check_position(game: ThreeGame, hands, prizes, upcard: int, points=None) -> tuple:
    """The position of ``game`` in a standard form (three ascending tuples, prizes
    ascending, points as Fractions) or a one-line GopsInputError saying what is wrong."""
    n = game.n
    if points is not None and not game.top:
        raise GopsInputError("the points so far matter to the top objective only")
    if len(hands) != 3:
        raise GopsInputError(f"a three-player position has three hands, got {len(hands)}")
    prizes = tuple(sorted(prizes))
    k = len(prizes)
    if k == 0:
        raise GopsInputError("no prizes left: the game is over")
    if len(set(prizes)) != k:
        raise GopsInputError(f"a prize appears twice among the prizes left {list(prizes)}")
    if upcard not in prizes:
        raise GopsInputError(f"upcard {upcard} is not among the prizes left {_cards(prizes)}")
    named = [("the prizes left", prizes), *((f"hand {i}", h) for i, h in enumerate(hands))]
    for what, cards in named:
        bad = [c for c in cards if not 1 <= c <= n]
        if bad:
            raise GopsInputError(f"card {bad[0]} of {what} is not between 1 and {n}")
    for i, h in enumerate(hands):
        if len(set(h)) != len(h):
            raise GopsInputError(f"hand {i} holds a card twice: {list(h)}")
        if len(h) != k:
            raise GopsInputError(
                f"hand {i} {_cards(h)} holds {len(h)} cards but {k} prizes are left "
                "(each player holds one card per prize left)"
            )
    if len(game.order.next_prizes(range(1, n + 1))) == 1:  # a known sequence of prizes
        left = list(range(1, n + 1))
        while len(left) > k:
            left.remove(game.order.next_prizes(left)[0])
        if prizes != tuple(left) or upcard not in game.order.next_prizes(prizes):
            raise GopsInputError(
                f"prizes left {_cards(prizes)} and upcard {upcard} do not occur under the "
                f"{game.order.name} prize order"
            )
    return tuple(tuple(sorted(h)) for h in hands), prizes, _check_points(n, prizes, points)


def _check_points(n: int, prizes, points) -> tuple[Fraction, Fraction, Fraction]:
    if points is None:
        return (Fraction(0),) * 3
    if len(points) != 3:
        raise GopsInputError(f"the points so far are three numbers, got {len(points)}")
    exact = tuple(Fraction(p) for p in points)
    if any(p < 0 or (2 * p).denominator != 1 for p in exact):
        raise GopsInputError("points so far are non-negative multiples of 1/2")
    gone = sum(range(1, n + 1)) - sum(prizes)
    if sum(exact) > gone:
        raise GopsInputError(
            f"the points so far ({', '.join(str(p) for p in exact)}) add up to more than "
            f"the prizes gone ({gone})"
        )
    return exact  # type: ignore[return-value]


def _stage_at(sol: ThreeSolution, hands, prizes, points, upcard: int) -> tuple:
    """Each seat's mix ({card: p}) and value at a checked position, and the stage regret
    (KeyError where nothing was solved)."""
    st, perm = sol.stage(hands, prizes, points, upcard)
    mixes: list = [None] * 3
    values = [0.0] * 3
    for j in range(3):
        mixes[perm[j]] = {c: float(p) for c, p in zip(hands[perm[j]], st.mixes[j])}
        values[perm[j]] = float(st.values[j])
    return tuple(mixes), tuple(values), float(st.regret)


def strategy(
    sol: ThreeSolution,
    hands,
    prizes,
    upcard: int,
    points=None,
    report: NashConvReport | None = None,
) -> ThreeStrategy:
    """The equilibrium mixes of all three seats at a position of ``sol``'s game, the
    upcard turned; ``points`` (the points so far) only for the ``top`` objective.
    ``report`` (the solution's certified NashConv) is computed when not given."""
    game = sol.game
    hands, prizes, points = check_position(game, hands, prizes, upcard, points)
    try:
        mixes, values, regret = _stage_at(sol, hands, prizes, points, upcard)
    except KeyError:
        raise GopsInputError(
            f"the position is not reachable in the {game.n}-card game ({game.order.name} prize "
            "order): no equilibrium was solved there"
        ) from None
    report = certify_solution(sol) if report is None else report
    return ThreeStrategy(
        sol,
        report,
        hands,
        prizes,
        upcard,
        points,
        mixes,
        values,
        regret,
    )
