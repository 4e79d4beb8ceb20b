"""Certified epsilon-equilibria of imperfect-information Goofspiel beyond exact reach.

Where the exact basis solve of :mod:`exact.imperfect.exact_lp` does not fit, a float
equilibrium is computed and its NashConv bounded from above with proof, so that the
statement "the policy is an epsilon-equilibrium with epsilon <= X" holds exactly:

1. The sequence-form LP of player 0 (Koller, Megiddo & von Stengel 1996; the LP pair of
   :mod:`exact.imperfect.exact_lp`), built in arrays over the tables
   (:mod:`exact.imperfect.lp_tables`), is solved in float64 by HiGHS and its final basis
   solved again by sparse LU with iterative refinement (:mod:`exact.imperfect.float_lp`),
   giving both players' plans x and y.  This step only makes the plans accurate:
   nothing below trusts it.
2. Each plan becomes a behaviour policy, p(a | I) = x[I a] / x[parent(I)] (Koller et
   al. 1996; uniform where the player's own bids never reach I), put on the grid of
   multiples of 2^-52 (:func:`dyadic_rows`): every probability but the largest of a
   decision is rounded to the grid, the largest is 1 minus their sum, computed in
   integers.  So the policy's probabilities are float64 numbers that are >= 0 and sum
   to exactly 1: the policy is exactly a policy, as written to the policy file.
3. Its NashConv is computed by :mod:`exact.imperfect.nashconv`: in exact rationals
   (``rational``: the epsilon is the exact NashConv) or in float64 over the numba
   tables with the a-priori error bound of :func:`~exact.imperfect.nashconv.tables_error_bound`
   (``bound``: epsilon = NashConv + bound, rounded up).  NashConv is the sum of both
   players' gains from deviating (Lanctot et al. 2017), so each player gains at most
   epsilon: the policy is an epsilon-Nash equilibrium, and its exploitability (the mean
   gain, OpenSpiel's ``exploitability``) is at most epsilon / 2.

The same certification (steps 2-3) serves any float policy on the tables, e.g. the
average policy of :mod:`exact.imperfect.cfr`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

import numpy as np

from exact.errors import GopsInputError, SolverError
from exact.game.orders import ASCENDING, DESCENDING, RANDOM
from exact.imperfect.exact_lp import lp_rows
from exact.imperfect.fast import best_response_actions, best_response_values
from exact.imperfect.float_lp import default_solver, lp_plans
from exact.imperfect.game import IMP_INFO, ImperfectGame
from exact.imperfect.lp_tables import SequenceFormLP, table_lp
from exact.imperfect.nashconv import UNITS, nash_conv, tables_error_bound
from exact.imperfect.policy import Policy
from exact.imperfect.sequence_form import SequenceForm
from exact.imperfect.tables import Layout, layout, legal_rows, own_reach

__all__ = [
    "FULL_POLICY_MAX_ROWS",
    "GRID",
    "Certificate",
    "CertifiedEquilibrium",
    "certify",
    "certify_with_actions",
    "check_policy_rows",
    "default_method",
    "default_solver",
    "lp_plans",
    "dyadic_rows",
    "float_plans",
    "plan_arrays",
    "round_up",
    "solve_certified",
]

#: The probabilities of a certified policy are integer multiples of 1 / GRID.
GRID = 2**52
#: Up to this many rows of the tables (7 cards in a fixed order: 686,470) a policy file
#: holds every decision; beyond (8 cards: 16,475,281), only those the player reaches.
FULL_POLICY_MAX_ROWS = 2_000_000
#: Up to this many cards (by prize order) the epsilon is by default the exact rational
#: NashConv: the recursion in Fractions takes 3.5 s on a 6-card fixed-order policy of the
#: grid, seconds at 4 cards random, and grows about 50x a card.
RATIONAL_MAX_N = {DESCENDING: 6, ASCENDING: 6, RANDOM: 4}


class Method(str, Enum):
    """How a NashConv is proven: ``rational`` (the exact NashConv) or ``bound`` (float64
    plus its proven error bound).  Parsed once, by :func:`certify`; compared by identity
    (``method is Method.RATIONAL``).  A member is also the string of its name, for the
    callers and the JSON that spell it.

    >>> Method("bound") is Method.BOUND, f"{Method.RATIONAL}"
    (True, 'rational')
    """

    RATIONAL = "rational"
    BOUND = "bound"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


@dataclass(frozen=True)
class Certificate:
    """A proven upper bound ``epsilon`` on the NashConv of a policy (module docstring):
    ``method`` is ``rational`` (epsilon is the exact NashConv, a Fraction) or ``bound``
    (the float ``nash_conv`` plus its proven ``error_bound``, rounded up)."""

    game: ImperfectGame
    method: Method
    epsilon: Fraction | float
    nash_conv: Fraction | float
    error_bound: float
    best_responses: tuple[Fraction | float, Fraction | float]
    seconds: float

    def to_json(self) -> dict:
        def number(v):
            return str(v) if isinstance(v, Fraction) else v

        return {
            "epsilon": number(self.epsilon),
            "epsilon_float": round_up(self.epsilon),
            "proof": "exact rational NashConv"
            if self.method is Method.RATIONAL
            else "float64 NashConv plus its a-priori error bound (outward)",
            "method": self.method.value,
            "nash_conv": number(self.nash_conv),
            "error_bound": self.error_bound,
            "best_response_values": [number(v) for v in self.best_responses],
            "units": UNITS[self.game.objective],
            "meaning": "NashConv <= epsilon: each player gains at most epsilon by "
            "deviating; exploitability (OpenSpiel's, NashConv / 2) <= epsilon / 2",
        }


def round_up(value: Fraction | float) -> float:
    """The least float >= ``value``."""
    result = float(value)
    return math.nextafter(result, math.inf) if Fraction(result) < value else result


def dyadic_rows(probabilities: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Rows of probabilities on the grid 1/:data:`GRID` that sum to exactly 1 over the
    ``legal`` entries (0 elsewhere): each but the row's largest rounded to the grid, the
    largest the rest (module docstring, step 2).  A row with no positive legal entry
    becomes uniform first.  Non-finite input is refused (a SolverError: the arrays are
    the solver's own; files are checked where they are read).

    >>> dyadic_rows(np.array([[0.1, 0.2, 0.7], [0.0, 0.0, 0.0]]), np.ones((2, 3), bool)).sum(1)
    array([1., 1.])
    """
    if not np.all(np.isfinite(probabilities)):
        raise SolverError("a behaviour strategy holds a number that is not finite")
    p = np.where(legal, np.maximum(probabilities, 0.0), 0.0)
    totals = p.sum(axis=1, keepdims=True)
    empty = totals[:, 0] <= 0
    p[empty] = legal[empty]
    totals[empty] = legal[empty].sum(axis=1, keepdims=True)
    p = p / np.where(totals > 0, totals, 1.0)
    ticks = np.rint(p * GRID).astype(np.int64)
    largest = np.argmax(p, axis=1)
    rows = np.arange(len(p))
    ticks[rows, largest] = 0
    rest = GRID - ticks.sum(axis=1)
    if np.any(rest < 0):
        raise SolverError("a behaviour strategy's probabilities sum to more than 1")
    ticks[rows, largest] = rest
    has_legal = np.asarray(legal.any(axis=1), dtype=bool)
    return np.where(has_legal[:, None], ticks / GRID, 0.0)


def check_policy_rows(where: Layout, sigmas) -> None:
    """Refuse (a one-line GopsInputError) table arrays that are not a policy, whatever
    made them: each player's array float64 of shape (rows, N), and every row a
    distribution over its legal cards, exactly: entries finite and in [0, 1], 0 at cards
    already bid, and their sum, in exact arithmetic, 1.  The sum is taken in integers on
    the grid 1/:data:`GRID` (x * 2^52 is exact in float64), and over Fractions for a row
    with an entry off the grid.  Every row is checked, reached or not: the certificate's
    best responses then read only distributions, whichever rows they read.
    """
    legal = legal_rows(where)
    for player, sigma in enumerate(sigmas):
        name = f"the policy to certify: player {player}'s table"
        shape = (where.rows, where.n)
        if not isinstance(sigma, np.ndarray) or sigma.dtype != np.float64 or sigma.shape != shape:
            found = getattr(sigma, "dtype", type(sigma).__name__), getattr(sigma, "shape", None)
            raise GopsInputError(f"{name} is not float64 of shape {shape} (found {found})")
        bad = ~np.isfinite(sigma) | (sigma < 0) | (sigma > 1) | (~legal & (sigma != 0))
        if bad.any():
            row = int(np.argwhere(bad)[0][0])
            raise GopsInputError(
                f"{name}: row {row} holds {sigma[row].tolist()}, not probabilities of its "
                "legal cards"
            )
        ticks = sigma * GRID
        on_grid = np.all(ticks == np.floor(ticks), axis=1)
        sums = np.where(on_grid, ticks.astype(np.int64).sum(axis=1), GRID)
        off = np.flatnonzero(sums != GRID).tolist()
        for row in np.flatnonzero(~on_grid).tolist():
            if _exact_sum(sigma[row]) != 1:
                off.append(row)
        if off:
            row = min(off)
            gap = _exact_sum(sigma[row]) - 1
            raise GopsInputError(
                f"{name}: row {row} sums to 1 {'+-'[gap < 0]} {float(abs(gap)):.3g}, not "
                f"exactly 1 ({len(off):,} rows do not)"
            )


def _exact_sum(row: np.ndarray) -> Fraction:
    return sum(map(Fraction, row.tolist()), Fraction(0))


def plan_arrays(
    form: SequenceForm, where: Layout, plans: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Both players' behaviour strategies of float realization plans, as the tables'
    ``sigma[row, card - 1]``, on the dyadic grid (module docstring, step 2); a row that
    no decision of the game has (never read) is uniform, so that every row is a
    distribution (:func:`check_policy_rows`)."""
    legal = legal_rows(where)
    sigmas = []
    for player, plan in enumerate(plans):
        seqs = form.players[player]
        sigma = np.zeros((where.rows, where.n))
        for k, decision in enumerate(seqs.decisions):
            row, first = where.row(decision.key), seqs.first[k]
            reach = plan[seqs.parents[k]]
            for j, action in enumerate(decision.legal):
                sigma[row, action] = plan[first + j] / reach if reach > 0 else 0.0
        sigmas.append(dyadic_rows(sigma, legal))
    return sigmas[0], sigmas[1]


def arrays_policy(game: ImperfectGame, where: Layout, sigmas, name: str) -> Policy:
    """The exact :class:`Policy` of table arrays (each float at its exact binary value)."""
    tables: tuple[dict, dict] = ({}, {})
    for player in (0, 1):
        sigma = sigmas[player]
        for decision in game.information_states(player):
            row = sigma[where.row(decision.key)]
            tables[player][decision.key] = tuple(
                (a + 1, Fraction(float(row[a]))) for a in decision.legal
            )
    return Policy(game, name, tables)


def default_method(game: ImperfectGame) -> Method:
    """``rational`` up to :data:`RATIONAL_MAX_N` cards, else ``bound``."""
    return Method.RATIONAL if game.n <= RATIONAL_MAX_N[game.order] else Method.BOUND


def certify(
    game: ImperfectGame, sig0: np.ndarray, sig1: np.ndarray, method: str = Method.BOUND
) -> Certificate:
    """A proven upper bound on the NashConv of the table policy (sig0, sig1), whose rows
    must be exact distributions (as :func:`dyadic_rows` makes them; anything else is
    refused by :func:`check_policy_rows` before a number is computed): ``rational``
    computes it exactly, ``bound`` in float64 plus the proven error bound (module
    docstring)."""
    try:
        method = Method(method)
    except ValueError:
        raise GopsInputError(
            f"the certification method is rational or bound, not {method!r}"
        ) from None
    start = time.perf_counter()
    where = layout(game)
    check_policy_rows(where, (sig0, sig1))
    if method is Method.RATIONAL:
        result = nash_conv(game, arrays_policy(game, where, (sig0, sig1), "certified"), "rational")
        value = result.value
        return Certificate(
            game, method, value, value, 0.0, result.best_responses, time.perf_counter() - start
        )
    return _bound(game, best_response_values(where, sig0, sig1), start)


def certify_with_actions(
    game: ImperfectGame, sig0: np.ndarray, sig1: np.ndarray
) -> tuple[Certificate, tuple[np.ndarray, np.ndarray]]:
    """:func:`certify` by ``bound``, and each player's counterfactual best-response action
    values Q (:func:`~exact.imperfect.fast.best_response_actions`) from the same walk of
    the game: the double oracle's proof and oracle at the cost of one."""
    start = time.perf_counter()
    where = layout(game)
    check_policy_rows(where, (sig0, sig1))
    values, q = best_response_actions(where, sig0, sig1)
    return _bound(game, values, start), q


def _bound(game: ImperfectGame, values: tuple[float, float], start: float) -> Certificate:
    """The certificate of the float64 best-response values plus their proven error bound."""
    total = values[0] + values[1]
    bound = tables_error_bound(game, total)
    epsilon = round_up(Fraction(total) + Fraction(bound))
    seconds = time.perf_counter() - start
    return Certificate(game, Method.BOUND, epsilon, total, bound, values, seconds)


def float_plans(form: SequenceForm, solver: str = "simplex") -> tuple[np.ndarray, np.ndarray, dict]:
    """:func:`lp_plans` of the LP built by :func:`exact.imperfect.exact_lp.lp_rows` from
    the sequence form (Python and Fractions; the reference the tables' LP of
    :mod:`exact.imperfect.lp_tables` is tested against)."""
    seqs0, seqs1 = form.players
    ub, _, eq, e = lp_rows(form.payoff, seqs0, seqs1)
    _, f = seqs1.constraints()
    return lp_plans(SequenceFormLP.from_rows(ub, eq, e, seqs0.size, f), solver)


@dataclass(frozen=True)
class CertifiedEquilibrium:
    """A float equilibrium's table policy and its :class:`Certificate`."""

    game: ImperfectGame
    sigmas: tuple[np.ndarray, np.ndarray]
    certificate: Certificate
    sizes: dict
    seconds: dict
    source: str

    def policy_json(self) -> dict:
        """The policy file: {information-state string: {action id: probability}}, every
        probability a float (exact as written: a multiple of 2^-52) summing to 1.  Up to
        :data:`FULL_POLICY_MAX_ROWS` rows it holds every decision; beyond, only those the
        player's own bids reach (read back with ``fill_uniform``): a policy's NashConv
        depends on it only through its realization plan (Koller, Megiddo & von Stengel
        1996), which is 0 below the others."""
        where = layout(self.game)
        data = {}
        if where.rows <= FULL_POLICY_MAX_ROWS:
            for player in (0, 1):
                sigma = self.sigmas[player]
                for decision in self.game.information_states(player):
                    row = sigma[where.row(decision.key)]
                    data[decision.string] = {str(a): float(row[a]) for a in decision.legal}
            return data
        legal = legal_rows(where)
        for player in (0, 1):
            sigma = self.sigmas[player]
            for row in np.flatnonzero(own_reach(where, player, sigma) > 0).tolist():
                key = where.key(row)
                data[self.game.information_string(player, key)] = {
                    str(a): float(sigma[row, a]) for a in np.flatnonzero(legal[row]).tolist()
                }
        return data

    def to_json(self) -> dict:
        return {
            "n": self.game.n,
            "order": self.game.order.name,
            "objective": self.game.objective.name,
            "exact": False,
            "method": self.source,
            "certified": self.certificate.to_json(),
            "sizes": self.sizes,
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "openspiel_game": self.game.openspiel_parameters(),
        }


def solve_certified(
    game: ImperfectGame,
    method: str | None = None,
    progress: Callable[[str], None] | None = None,
    solver: str | None = None,
    options: dict | None = None,
) -> CertifiedEquilibrium:
    """A float equilibrium of ``game`` by the sequence-form LP, built straight into arrays
    over the tables (:mod:`exact.imperfect.lp_tables`) and solved by HiGHS's ``solver``
    (default :func:`default_solver`; ``options`` more of HiGHS's), and a proven bound on
    its NashConv (module docstring); ``method`` is the certification (default
    :func:`default_method`)."""
    if game.information != IMP_INFO:
        raise GopsInputError("certified equilibria are computed for OpenSpiel's imp_info game")
    tell = progress or (lambda _: None)
    where = layout(game)  # the tables must fit before anything is solved
    start = time.perf_counter()
    built = table_lp(game)
    made = time.perf_counter()
    solver = solver or default_solver(built)
    tell(
        f"sequence-form LP built: {built.sequences[0]:,} sequences per player, "
        f"{built.payoff_nonzeros:,} payoff nonzeros"
    )
    x, y, facts = lp_plans(built.lp, solver, options)
    del facts["statuses"], facts["warm_start"]
    solved = time.perf_counter()
    tell(
        f"LP solved ({solver}): {facts['iterations']} simplex, {facts['ipm_iterations']} "
        f"IPM, {facts['crossover_iterations']} crossover iterations"
    )
    legal = legal_rows(where)
    sigmas = (dyadic_rows(built.behaviour(0, x), legal), dyadic_rows(built.behaviour(1, y), legal))
    method = method or default_method(game)
    certificate = certify(game, *sigmas, method)
    sizes = {
        "sequences": list(built.sequences),
        "payoff_nonzeros": built.payoff_nonzeros,
        **facts,
    }
    seconds = {
        "sequence_form": made - start,
        "lp": solved - made,
        "certify": certificate.seconds,
    }
    source = (
        "sequence-form LP (Koller, Megiddo & von Stengel 1996) in float64, built over the "
        f"tables: HiGHS ({solver}), its basis re-solved by sparse LU with iterative "
        "refinement"
    )
    return CertifiedEquilibrium(game, (sigmas[0], sigmas[1]), certificate, sizes, seconds, source)
