"""The fixed-bid game: both players commit to all their bids before the first prize.

The "Psychological JuJitsu" write-up describes this game ("bid X for the ace, Y for the
two, ...", close to Colonel Blotto) and says that adapting bids to earlier rounds is key.
A strategy is a bijection s: prize -> bid card, written as the tuple (s(1), ..., s(N));
the payoff to the first player is

    M(s, t) = sum_p p sign(s(p) - t(p))

(the order of the prizes does not matter: each prize meets its two committed bids).  M is
antisymmetric, M(t, s) = -M(s, t), so the game is symmetric, its value is 0, and a mix x
over bijections is an equilibrium iff it guarantees 0 against every pure reply t.

Solved by double oracle (McMahan, Gordon & Blum, "Planning in the presence of cost
functions controlled by an adversary", ICML 2003): keep a set S of bijections, solve the
game restricted to S (an LP; its value is 0 by symmetry), and add the best reply to its
equilibrium x.  The best reply to x is a linear assignment problem: giving bid c to
prize p is worth w(p, c) = p sum_t x_t sign(c - t(p)), and the reply maximises
sum_p w(p, s(p)) over bijections s (scipy's ``linear_sum_assignment``).  When no reply
gains more than a tolerance, x is an equilibrium of the whole game.

Exact (``arithmetic="rational"``): the restricted game of the final S is solved in exact
rationals (:func:`exact.dp.exact_game.solve_exact_game`, verified), and the exact w is
checked against every one of the N! bijections; a bijection that gains is added to S and
the exact solve repeated, so an exact result is an exact, verified equilibrium.

What our GOPS equilibrium gains against it (:func:`adaptivity_gain`): the GOPS equilibrium
(random prize order) played against the fixed-bid equilibrium as a bot in the real game,
that bot drawing its bijection from x before the first prize: E = sum_s x_s E[GOPS
equilibrium vs the pure bijection s], each term an exact evaluation of the whole game tree
(:mod:`exact.analysis.evaluate`).  E depends on which optimal GOPS equilibrium and which
fixed-bid equilibrium are played (at N = 5 another exactly optimal GOPS equilibrium gains
0.398303 instead of 0.397573), so it is not a property of the game.  The value of
adaptivity, which is one (the value of the game "adaptive against committed"), is
:mod:`exact.analysis.adaptivity`.

scipy (HiGHS for the restricted LPs, the Hungarian-type solver for the replies) is used
because both are well-kept, exact-enough float solvers that a hand-written simplex and
assignment would only repeat; every exact claim is re-verified in rationals.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from itertools import permutations

import numpy as np
from flint import fmpq

from exact.analysis.evaluate import evaluate
from exact.dp.exact_game import solve_exact_game
from exact.errors import GopsInputError
from exact.game.objectives import GameArithmetic, arithmetic_named
from exact.game.orders import RANDOM
from exact.limits import (
    FIXED_BIDS_ADAPTIVITY_MAX_N,
    FIXED_BIDS_EXACT_MAX_N,
    FIXED_BIDS_MAX_N,
    check_n,
)
from exact.play.bots import FixedRuleBot, OptimalBot

#: A best reply must gain more than this (in points) to enter the restricted set.
GAIN_TOL = 1e-9
EXACT_MAX_N = FIXED_BIDS_EXACT_MAX_N
ADAPTIVITY_MAX_N = FIXED_BIDS_ADAPTIVITY_MAX_N


def _sign(a) -> int:
    return (a > 0) - (a < 0)


@dataclass(frozen=True)
class FixedBidEquilibrium:
    """An equilibrium of the N-card fixed-bid game: ``mix`` maps a bijection (the bid for
    prizes 1..N) to its probability; ``exploitability`` is the most any pure reply gains
    against it (0 exactly when ``exact``)."""

    n: int
    mix: Mapping[tuple[int, ...], float | Fraction]
    exact: bool
    exploitability: float | Fraction
    iterations: int


def payoff(s, t) -> int:
    """M(s, t): the first player's points minus the second's (module docstring).

    >>> payoff((1, 2, 3), (3, 2, 1)), payoff((2, 3, 1), (1, 2, 3))
    (2, 0)
    """
    return sum(p * _sign(a - b) for p, (a, b) in enumerate(zip(s, t), start=1))


def reply_weights(n: int, mix: dict, number=float) -> list[list]:
    """w[p-1][c-1] = p sum_t x_t sign(c - t(p)): the worth of bidding c for prize p."""
    w = [[number(0)] * n for _ in range(n)]
    for t, x in mix.items():
        if x == 0:
            continue
        for p in range(1, n + 1):
            for c in range(1, n + 1):
                w[p - 1][c - 1] += p * x * _sign(c - t[p - 1])
    return w


def best_reply(n: int, mix: dict) -> tuple[tuple[int, ...], float]:
    """The best pure reply to ``mix`` (float) and what it gains."""
    # scipy.optimize: 1.5 s to import, for fixed-bids only
    from scipy.optimize import linear_sum_assignment

    w = np.array(reply_weights(n, mix), dtype=float)
    rows, cols = linear_sum_assignment(w, maximize=True)
    reply = tuple(int(c) + 1 for c in cols[np.argsort(rows)])
    return reply, float(w[rows, cols].sum())


def _restricted_float(strategies) -> np.ndarray:
    """The row player's equilibrium of the symmetric game on ``strategies`` (HiGHS):
    maximise v subject to x^T M >= v, sum x = 1, x >= 0."""
    from scipy.optimize import linprog  # scipy.optimize: 1.5 s to import (fixed-bids only)

    m = len(strategies)
    M = np.array([[payoff(s, t) for t in strategies] for s in strategies], dtype=float)
    c = np.zeros(m + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-M.T, np.ones((m, 1))])
    a_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    res = linprog(
        c,
        A_ub=a_ub,
        b_ub=np.zeros(m),
        A_eq=a_eq,
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
        method="highs",
    )
    if res.status != 0:  # pragma: no cover - HiGHS on a bounded, feasible LP
        raise ArithmeticError(f"HiGHS failed on a restricted fixed-bid game: {res.message}")
    x = np.maximum(res.x[:m], 0.0)
    return x / x.sum()


def _restricted_exact(strategies) -> dict:
    M = [[fmpq(payoff(s, t)) for t in strategies] for s in strategies]
    eq = solve_exact_game(M)
    den = Fraction(int(eq.x_den))
    return {s: Fraction(int(num)) / den for s, num in zip(strategies, eq.x_num) if num != 0}


def exact_gain(n: int, mix: dict) -> tuple[Fraction, tuple[int, ...]]:
    """The most a pure reply gains against an exact ``mix``, and such a reply, over all N!
    bijections (exact rationals)."""
    w = reply_weights(n, mix, Fraction)
    replies = permutations(range(1, n + 1))
    arg = next(replies)
    best = sum(w[p][arg[p] - 1] for p in range(n))
    for s in replies:
        gain = sum(w[p][s[p] - 1] for p in range(n))
        if gain > best:
            best, arg = gain, s
    return best, arg


def solve_fixed_bids(
    n: int,
    arithmetic: str | GameArithmetic = "float",
    progress=None,
    max_iterations: int = 10_000,
) -> FixedBidEquilibrium:
    """An equilibrium of the n-card fixed-bid game by double oracle (module docstring).
    ``progress(iteration, support, gain)`` is called after each iteration."""
    n = check_n(n, FIXED_BIDS_MAX_N, what=" for the fixed-bid game")
    exact_ = arithmetic_named(arithmetic).exact
    if exact_:
        check_n(n, EXACT_MAX_N, what=" for the exact fixed-bid game (N! bijections checked)")
    strategies = [tuple(range(1, n + 1))]
    x = np.ones(1)
    for iteration in range(1, max_iterations + 1):
        x = _restricted_float(strategies)
        mix = {s: float(p) for s, p in zip(strategies, x)}
        reply, gain = best_reply(n, mix)
        if progress is not None:
            progress(iteration, len(strategies), gain)
        if gain <= GAIN_TOL or reply in strategies:
            break
        strategies.append(reply)
    else:
        raise ArithmeticError(f"double oracle did not converge in {max_iterations} iterations")
    if not exact_:
        mix = {s: float(p) for s, p in zip(strategies, x) if p > 0}
        return FixedBidEquilibrium(n, mix, False, max(gain, 0.0), iteration)
    while True:  # exact: solve the restricted game exactly, check every bijection
        mix = _restricted_exact(strategies)
        gap, reply = exact_gain(n, mix)
        if gap <= 0:
            return FixedBidEquilibrium(n, mix, True, gap, iteration)
        strategies.append(reply)
        iteration += 1


def _bid_for_prize(bids: tuple[int, ...]) -> Callable[[frozenset[int], int], int]:
    """The rule of a fixed bijection: bid ``bids[upcard - 1]``, whatever the hand."""
    return lambda hand, upcard: bids[upcard - 1]


def adaptivity_gain(equilibrium: FixedBidEquilibrium, solution) -> tuple:
    """(E, bound): E[points of the GOPS equilibrium (``solution``: points objective, random
    prize order) minus those of the fixed-bid equilibrium played as a bot] in the real
    game, over all prize orders and every bid (module docstring), and a bound on its float
    rounding error (0 when both are exact).  What *this* pair of equilibria gives, not the
    value of adaptivity (:func:`exact.analysis.adaptivity.solve_adaptivity`)."""
    if solution.n != equilibrium.n or solution.spec.has_lead or solution.order is not RANDOM:
        raise GopsInputError(
            "the adaptivity gain needs the points solution of the same N "
            "with the random prize order"
        )
    check_n(
        equilibrium.n,
        ADAPTIVITY_MAX_N,
        what=" for the adaptivity gain (a game tree per bijection of the mix)",
    )
    optimal = OptimalBot(solution)
    exact_ = equilibrium.exact and solution.arithmetic.exact
    total, bound = (Fraction(0) if exact_ else 0.0), 0.0
    for s, p in equilibrium.mix.items():
        bot = FixedRuleBot("fixed " + ",".join(map(str, s)), _bid_for_prize(s))
        ev = evaluate(equilibrium.n, optimal, bot)
        total += p * ev.expected_difference
        bound += float(p) * ev.error_bound
    if not exact_:  # the weighted sum itself: at most len(mix) roundings of terms <= N^2
        bound += len(equilibrium.mix) * 2.0**-52 * equilibrium.n**2
    return total, bound
