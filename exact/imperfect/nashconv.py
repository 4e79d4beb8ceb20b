"""Exact NashConv of any policy of imperfect-information Goofspiel.

NashConv(sigma) = sum_i [ max_{sigma_i'} u_i(sigma_i', sigma_-i) - u_i(sigma) ] (Lanctot
et al., "A Unified Game-Theoretic Approach to Multiagent Reinforcement Learning", NIPS
2017, sec 3; OpenSpiel's ``exploitability.nash_conv``).  The game is zero-sum (player
1's return is exactly minus player 0's), so sum_i u_i(sigma) = 0 exactly and NashConv is
the sum of the two best-response values.

The best response of player i to the opponent's policy, over i's information states
(perfect recall: i's decisions form a tree, and a choice at one decision changes only the
values below it).  A decision I of i is (prizes so far, i's bids, the winners of past
rounds); its histories differ only in the opponent's bids B.  Carry the belief
w(B) = chance(prizes) * prod_j sigma_o(I_o(j), b_j), unnormalised, and define

    V(I) = max_a sum_w V(I a w),     the beliefs of I a w:  w(B b) = w(B) sigma_o(b)
                                     over the b with winner(a, b) = w

(the opponent's decision I_o = (prizes, B, winners) does not depend on i's pending bid,
so the same formula serves both players of the turn-based game); a deal is the mean over
the prizes left (random order) or the one prize of a fixed order; once one card is left
in each hand the last round plays itself and V = sum_B w(B) r_i(final history).  Then
V(root) is i's best-response value (the beliefs at the root weigh 1), and branches of
belief 0 are cut (they add 0).

Arithmetic: ``rational`` sums Fractions (the policy's probabilities exactly as given: a
float at its exact binary value), so the NashConv is exact.  ``float`` (the default)
computes the same values in float64 by numba over flat tables (:mod:`exact.imperfect.fast`
over :mod:`exact.imperfect.tables`: the same V, computed bottom up over the information
sets after one walk of the histories) and reports an a-priori bound on its error
(:func:`tables_error_bound`); :func:`best_response_value` with ``exact=False`` runs the
recursion above itself in float64 (bound: :func:`float_error_bound`).  Both bounds follow
Higham, "Accuracy and Stability of Numerical Algorithms", 2002, Lemma 3.1 and sec 4.2:
V is a sum of terms, each a product of at most m rounded factors (the opponent's
probabilities, read as floats, the chance weights 1/k, the products) summed through at
most d additions along its path, so its error is at most gamma_{m + d} times the terms'
absolute sum; a max adds no rounding and moves V by at most the largest error of its
branches; and the terms' absolute sum is at most max|return| times the total belief,
(1 + tolerance)^N.  The recursion: m = 2N + 1, d = N(N + 3) + N!.  The tables: m = 4N
(chance and opponent weights of N - 1 rounds, their 2N - 2 products, the last bid's
weight times the return and that times the reach), d = N + N! + 3N^2 + N (the sum over
the last bid, the sum over the histories of an information set, at most N!, the 3N
children of each of at most N rounds, the first prizes).  Returns are OpenSpiel's:
point_difference is half the point difference.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from exact.errors import GopsInputError
from exact.game.objectives import FLOAT, POINTS, RATIONAL, WIN, GameArithmetic, arithmetic_named
from exact.imperfect.fast import best_response_values
from exact.imperfect.game import TIE, ImperfectGame, round_winner
from exact.imperfect.policy import PROBABILITY_TOLERANCE, Policy
from exact.imperfect.tables import layout, policy_arrays

__all__ = [
    "NashConv",
    "UNITS",
    "best_response_value",
    "float_error_bound",
    "nash_conv",
    "tables_error_bound",
]

#: What a NashConv of each objective is measured in (the JSON says it).
UNITS = {
    POINTS: "OpenSpiel's point_difference: half the point difference",
    WIN: "OpenSpiel's win_loss: +1 a win, -1 a loss, 0 a draw",
}
#: float64's unit roundoff.
UNIT_ROUNDOFF = Fraction(1, 2**53)


@dataclass(frozen=True)
class NashConv:
    """A policy's NashConv and its parts.  ``value`` is a Fraction (``rational``, exact:
    ``error_bound`` 0) or a float within ``error_bound`` of the exact NashConv of the
    policy's probabilities as given."""

    game: ImperfectGame
    policy: str
    arithmetic: GameArithmetic
    value: Fraction | float
    best_responses: tuple[Fraction | float, Fraction | float]
    error_bound: float
    seconds: float

    @property
    def units(self) -> str:
        return UNITS[self.game.objective]

    def to_json(self) -> dict:
        def number(x):
            return str(x) if isinstance(x, Fraction) else x

        return {
            "n": self.game.n,
            "order": self.game.order.name,
            "objective": self.game.objective.name,
            "policy": self.policy,
            "arithmetic": self.arithmetic.name,
            "nash_conv": number(self.value),
            "nash_conv_float": float(self.value),
            "best_response_values": [number(v) for v in self.best_responses],
            "error_bound": self.error_bound,
            "units": self.units,
            "openspiel_game": self.game.openspiel_parameters(),
            "seconds": round(self.seconds, 3),
        }


def nash_conv(
    game: ImperfectGame,
    policy: Policy,
    arithmetic: str | GameArithmetic = "float",
    progress: Callable[[int, int], None] | None = None,
) -> NashConv:
    """NashConv of ``policy`` in ``game`` (module docstring): ``rational`` by the exact
    recursion, ``float`` by the numba tables.  ``progress(done, total)`` is called as each
    first-round bid's subtree of each exact best response is done (the float path takes
    seconds and calls it once, at the end).

    >>> from exact.imperfect.policy import uniform_policy
    >>> game = ImperfectGame.parse(2, "descending", "points")
    >>> nash_conv(game, uniform_policy(game), "rational").value
    Fraction(1, 2)
    """
    exact = arithmetic_named(arithmetic).exact
    if policy.game != game:
        raise GopsInputError("the policy was built for another game")
    start = time.perf_counter()
    values: tuple[Fraction | float, Fraction | float]
    if exact:
        values = (
            best_response_value(game, policy, 0, True, progress),
            best_response_value(game, policy, 1, True, progress),
        )
    else:
        values = fast_best_response_values(game, policy)
        if progress is not None:
            progress(1, 1)
    total = values[0] + values[1]
    bound = 0.0 if exact else tables_error_bound(game, float(total))
    return NashConv(
        game,
        policy.name,
        RATIONAL if exact else FLOAT,
        total,
        values,
        bound,
        time.perf_counter() - start,
    )


def float_error_bound(game: ImperfectGame, total: float) -> float:
    """A bound on |NashConv by the float recursion - exact NashConv| (module docstring):
    both best responses' gamma_K R (1 + tol)^N, with K = 2N + 1 + N(N + 3) + N!, plus the
    final addition's rounding, rounded up."""
    n = game.n
    return _error_bound(game, total, 2 * n + 1 + n * (n + 3) + math.factorial(n))


def tables_error_bound(game: ImperfectGame, total: float) -> float:
    """A bound on |NashConv by the float tables - exact NashConv| (module docstring):
    as :func:`float_error_bound` with K = 4N + N + N! + 3N^2 + N."""
    n = game.n
    return _error_bound(game, total, 4 * n + n + math.factorial(n) + 3 * n * n + n)


def fast_best_response_values(game: ImperfectGame, policy: Policy) -> tuple[float, float]:
    """Both best-response values in float64 by :mod:`exact.imperfect.fast` (a one-line
    GopsInputError where the tables would not fit, :func:`exact.imperfect.tables.layout`)."""
    where = layout(game)
    return best_response_values(where, *policy_arrays(where, policy))


def _error_bound(game: ImperfectGame, total: float, k: int) -> float:
    """2 gamma_k R (1 + tol)^N + u |total|, rounded up."""
    n = game.n
    gamma = k * UNIT_ROUNDOFF / (1 - k * UNIT_ROUNDOFF)
    mass = (1 + Fraction(PROBABILITY_TOLERANCE)) ** n
    bound = 2 * gamma * game.max_return() * mass + UNIT_ROUNDOFF * abs(Fraction(total))
    return math.nextafter(float(bound), math.inf)


def best_response_value(
    game: ImperfectGame,
    policy: Policy,
    player: int,
    exact: bool = True,
    progress: Callable[[int, int], None] | None = None,
):
    """max over ``player``'s strategies of its expected return against the opponent's
    ``policy`` (a Fraction, or a float with ``exact=False``)."""
    return _BestResponse(game, policy, player, exact, progress).value()


class _BestResponse:
    """The recursion V of the module docstring for one player."""

    def __init__(self, game, policy, player, exact, progress):
        self.game, self.player, self.opponent = game, player, 1 - player
        self.exact, self.progress = exact, progress
        self.cards = frozenset(range(1, game.n + 1))
        self.sign = 1 if player == 0 else -1
        self.cache: dict = {}
        self.policy = policy
        self.done = 0

    def number(self, x: Fraction):
        return x if self.exact else float(x)

    def distribution(self, key):
        """The opponent's (card, probability) at ``key``, in this arithmetic, cached."""
        found = self.cache.get(key)
        if found is None:
            found = tuple(
                (card, self.number(p))
                for card, p in self.policy.probabilities(self.opponent, key)
                if p != 0
            )
            self.cache[key] = found
        return found

    def value(self):
        one = self.number(Fraction(1))
        return self.node((), (), (), {(): one})

    def final(self, prizes, winners) -> Fraction | float:
        """Player's return of a finished game."""
        return self.number(self.sign * self.game.terminal_return(prizes, winners))

    def node(self, prizes, own, winners, beliefs):
        n, rounds = self.game.n, len(own)
        if not beliefs:
            return self.number(Fraction(0))
        if rounds == n:
            return sum(beliefs.values()) * self.final(prizes, winners)
        if rounds == n - 1 and rounds >= 1:
            return self.last_round(prizes, own, winners, beliefs)
        if len(prizes) == rounds:
            return self.deal(prizes, own, winners, beliefs)
        return self.decide(prizes, own, winners, beliefs)

    def report(self) -> None:
        """One first-round bid's subtree is done (of n per first decision, both players)."""
        if self.progress is not None:
            self.done += 1
            firsts = self.game.n if self.game.next_prize(()) is None else 1
            self.progress(self.player * firsts * self.game.n + self.done, 2 * firsts * self.game.n)

    def deal(self, prizes, own, winners, beliefs):
        fixed = self.game.next_prize(prizes)
        if fixed is not None:
            return self.node((*prizes, fixed), own, winners, beliefs)
        left = sorted(self.cards - set(prizes))
        total = sum(self.node((*prizes, u), own, winners, beliefs) for u in left)
        return total * self.number(Fraction(1, len(left)))

    def last_round(self, prizes, own, winners, beliefs):
        """The round that plays itself: the last prize, my last card, theirs."""
        (prize,) = self.cards - set(prizes)
        (mine,) = self.cards - set(own)
        total = self.number(Fraction(0))
        for theirs, weight in beliefs.items():
            (bid,) = self.cards - set(theirs)
            pair = (mine, bid) if self.player == 0 else (bid, mine)
            total += weight * self.final((*prizes, prize), (*winners, round_winner(*pair)))
        return total

    def decide(self, prizes, own, winners, beliefs):
        """max over my bids a of the sum over the round's winners of V(I a w)."""
        opponent_bids = [
            (theirs, weight, self.distribution((prizes, theirs, winners)))
            for theirs, weight in beliefs.items()
        ]
        best = None
        for mine in sorted(self.cards - set(own)):
            after: dict[int, dict] = {}
            for theirs, weight, distribution in opponent_bids:
                for bid, p in distribution:
                    winner = TIE if bid == mine else self.player if mine > bid else self.opponent
                    after.setdefault(winner, {})[(*theirs, bid)] = weight * p
            value = sum(
                self.node(prizes, (*own, mine), (*winners, w), after[w]) for w in sorted(after)
            )
            if best is None or value > best:
                best = value
            if not own:
                self.report()
        return best


def units_of(game: ImperfectGame) -> str:
    """The units of a NashConv of ``game``."""
    return UNITS[game.objective]
