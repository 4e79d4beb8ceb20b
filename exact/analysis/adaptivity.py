"""The value of adaptivity: an adaptive GOPS player against one who commits to every bid.

The game.  The *committed* player C writes down a bijection s: prize -> bid card before the
first prize (a strategy of :mod:`exact.analysis.fixed_bids`, written (s(1), ..., s(N)))
and bids s(p) whenever prize p is turned up.  The *adaptive* player A plays GOPS as usual:
the prizes come in a uniformly random order, and A chooses each bid knowing the upcard,
the earlier prizes, its own earlier bids and C's earlier bids (shown after each round).
A scores sum_p p sign(a_p - s(p)), C the negative.  This is a finite two-player zero-sum
game, so it has one value V (von Neumann), whichever optimal strategies are played, and
V >= 0 because A may commit too (the fixed-bid game is symmetric, value 0).  **The value
of adaptivity** is V - 0: the points per game that adapting is worth against the best
committed player, who knows it faces an adaptive one.  It is *not* what one GOPS
equilibrium gains against one fixed-bid equilibrium
(:func:`exact.analysis.fixed_bids.adaptivity_gain`): that number depends on which
equilibria are played (two exactly optimal GOPS equilibria at N = 5 gain 0.397573 and
0.398303 against the same fixed-bid mix).

What A needs to remember.  Against C only the pairs R = {(p, s(p))} revealed so far (a
partial bijection), A's cards H and the upcard p matter: a history of A is reached under s
with probability (chance) x (A's own choices) x [s extends R], what follows depends on
(R, H) and s alone, and the points add up.  So every strategy of A is payoff-equivalent,
against every s, to one that depends on the *state* (R, H, p) only (its choices averaged
over the histories of a state, weighted by A's own reach probabilities, which do not
depend on s).  tests/test_adaptivity.py checks this against the perfect-recall
sequence-form LP at N <= 4.

A's best reply to a mix sigma of C (:func:`best_reply`), a DP over the states:

    U(R, H) = sum_{p not in R} max_{a in H} [ (r-1)! p sum_b m(R, p, b) sign(a - b)
                                               + sum_b U(R + (p, b), H - a) ]

r the number of prizes left, m(R, p, b) the weight of the bijections of sigma that extend
R and bid b on p.  U(R, H) sums A's points over the r! orders of the prizes left and over
sigma; A's expected gain is U(empty, all cards) / (N! sum sigma).  Integer weights give
integers: the exact gain is one division.

The value (:func:`solve_adaptivity`).  One LP over A's *state realisation plans*
(:func:`state_lp`, the sequence form of Koller, Megiddo & von Stengel 1996 on states
instead of histories): y(m, a) >= 0 is the sum over A's histories that reach state m of A's
probability of its own bids there and of a at m; z(R, H) the same before the upcard;

    z(empty, all) = 1,   z(R, H) = sum_{(q, b) in R, a' not in H} y((R - q, H + a', q), a'),
    sum_a y((R, H, p), a) = z(R, H)  for each upcard p,

and A's expected points against s times N! are the linear form
sum_{m: R in s} (N-k-1)! p sign(a - s(p)) y(m, a) (k = |R|; the last round, forced, is
counted with the one before).  LP: max v subject to that >= N! v for each of the N!
bijections; C's optimal mix is the dual of those rows.  HiGHS (interior point with
crossover, a basic solution) solves it in floats: N = 4 in 0.1 s, N = 5 (44,025 bids)
in about 13 s on 2 cores.

Exact, from the float basis (Algorithm notes).  At the LP's vertex A mixes at few states
(83 extra bids at N = 5) and as many bijections are tight (84 at N = 5):

1. *A's side.*  Keep the bids with y > SUPPORT_TOL; at each reached state the largest is
   the flow left over, each other one a free parameter theta.  Propagating the flow gives
   every y as an integer affine function of theta; the tight bijections give the
   equations (points against s) = N! V.  Solved exactly (python-flint).
2. *C's side.*  sigma on the tight bijections; the DP above with *vectors* of integer
   coefficients (one per tight bijection) instead of numbers, each state played by A's
   main bid (or the float argmax where A never goes); every other bid A mixes must tie
   with it (complementary slackness), and U(empty, all) = N! V with sum sigma = 1.
3. *Verify*, independently of 1 and 2: A's strategy is walked through the game tree
   against each of the N! bijections in rationals (:func:`gains_against_bijections`) and
   gains at least V against each; sigma >= 0 sums to 1 and the exact best reply to it
   (the DP maximises over every adaptive strategy) gains exactly V.  The first says A
   guarantees V, the second that C concedes no more: V is the value.  If the float
   support does not give a verified answer a SolverError says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, permutations
from math import factorial, lcm

import numpy as np
from flint import fmpq_mat

from exact.errors import GopsInputError, SolverError
from exact.limits import ADAPTIVITY_VALUE_MAX_N, check_n

#: A float bid probability (realisation weight) above this is in A's support.
SUPPORT_TOL = 1e-9
#: A bijection is tight (A's float strategy gains the float value against it) when the
#: two differ by at most this many points per game; the next ones differ by > 1e-2.
TIGHT_TOL = 1e-7


def _sign(a) -> int:
    return (a > 0) - (a < 0)


def _cards(mask: int, n: int) -> list[int]:
    return [c for c in range(1, n + 1) if mask >> (c - 1) & 1]


def _revealed(s, mask: int, n: int) -> tuple:
    """R: C's bids of the bijection s on the prizes of ``mask``, 0 elsewhere."""
    return tuple(s[q - 1] if mask >> (q - 1) & 1 else 0 for q in range(1, n + 1))


def bijections(n: int) -> list[tuple[int, ...]]:
    """C's pure strategies: (s(1), ..., s(N)), in lexicographic order."""
    return list(permutations(range(1, n + 1)))


@dataclass(frozen=True)
class AdaptivityValue:
    """The value of the game adaptive (A) against committed (C), exact and verified.

    ``value``: A's expected points per game minus C's under optimal play; ``committed``:
    an optimal mix of C (bijection -> probability); ``adaptive``: an optimal strategy of A,
    state (R, H, p) -> {bid: probability} for the states it reaches (R[p-1] = C's bid on
    prize p, 0 while unseen; H a bitmask of A's cards, bit c-1 for card c);
    ``lp_value``: the float LP's value; ``mixed_states``: states where A mixes."""

    n: int
    value: Fraction
    committed: dict
    adaptive: dict
    lp_value: float
    mixed_states: int


def best_reply(n: int, sigma: dict):
    """A's best reply to C's mix ``sigma`` (bijection -> weight, exact or float; it need
    not sum to 1) by the DP of the module docstring.  Returns (gain, table): A's expected
    points per game (a Fraction when every weight is exact) and its bid at every state
    (R, H, p) it can reach against sigma (the lowest among equals).

    >>> best_reply(2, {(1, 2): Fraction(1, 2), (2, 1): Fraction(1, 2)})[0]  # bid 2 on the
    Fraction(1, 2)
    >>> # 2 if the 2 comes first (+2 - 1 or 0), 1 on the 1 if it does (0 or -1 + 2)
    >>> best_reply(3, {(1, 2, 3): 1})[0]  # 2 on the 1, 3 on the 2, 1 on the 3: 1 + 2 - 3
    Fraction(0, 1)
    >>> best_reply(3, {(3, 2, 1): 1})[0]  # 2 on the 3, 3 on the 2, 1 on the 1
    Fraction(4, 1)
    """
    weights = [(tuple(s), w) for s, w in sigma.items() if w != 0]
    if not weights or any(w < 0 for _, w in weights):
        raise GopsInputError("a committed mix needs nonnegative weights, not all 0")
    exact_ = all(isinstance(w, (int, Fraction)) for _, w in weights)
    if exact_:  # integer weights X / D: the DP in integers
        den = lcm(*(Fraction(w).denominator for _, w in weights))
        weights = [(s, int(Fraction(w) * den)) for s, w in weights]
    total_weight = sum(w for _, w in weights)
    memo: dict = {}
    table: dict = {}

    def value(R: tuple, H: int, support):
        key = (R, H)
        got = memo.get(key)
        if got is not None:
            return got
        left = [p for p in range(1, n + 1) if R[p - 1] == 0]
        f = factorial(len(left) - 1) if left else 0
        total = 0
        for p in left:
            groups: dict = {}
            for s, w in support:
                groups.setdefault(s[p - 1], []).append((s, w))
            mass = {b: sum(w for _, w in g) for b, g in groups.items()}
            best = None
            for a in _cards(H, n):
                v = f * p * sum(m * _sign(a - b) for b, m in mass.items())
                v += sum(
                    value(R[: p - 1] + (b,) + R[p:], H & ~(1 << (a - 1)), g)
                    for b, g in groups.items()
                )
                if best is None or v > best[0]:
                    best = (v, a)
            assert best is not None  # A holds a card before each bid
            total += best[0]
            table[(R, H, p)] = best[1]
        memo[key] = total
        return total

    top = value((0,) * n, (1 << n) - 1, weights)
    if exact_:
        return Fraction(top, factorial(n) * total_weight), table
    return top / (factorial(n) * total_weight), table


def gains_against_bijections(n: int, strategy: dict, against=None) -> list[Fraction]:
    """A's exact expected points per game against each bijection (all N! by default):
    a plain walk of the game tree over every prize order and every bid A mixes, its mix at
    a state read from ``strategy[(R, H, p)]`` ({bid: probability}).  It shares nothing with
    the LP or the DP, so it checks what they claim.

    >>> always_2_then_1 = {((0, 0), 3, 1): {2: 1}, ((0, 0), 3, 2): {2: 1},
    ...                    ((1, 0), 1, 2): {1: 1}, ((2, 0), 1, 2): {1: 1},
    ...                    ((0, 1), 1, 1): {1: 1}, ((0, 2), 1, 1): {1: 1}}
    >>> gains_against_bijections(2, always_2_then_1)  # vs (1, 2): (1 - 2 + 0) / 2
    [Fraction(-1, 2), Fraction(1, 2)]
    """
    return [
        _expected_points(n, strategy, s) for s in (bijections(n) if against is None else against)
    ]


def _expected_points(n: int, strategy: dict, s) -> Fraction:
    """A's expected points against the bijection s (gains_against_bijections)."""
    memo: dict = {}

    def walk(P: int, H: int) -> Fraction:  # expected points of the rounds left
        key = (P, H)
        if key in memo:
            return memo[key]
        left = [p for p in range(1, n + 1) if not P >> (p - 1) & 1]
        R = _revealed(s, P, n)
        total = Fraction(0)
        for p in left:
            mix = strategy.get((R, H, p))
            if mix is None:
                raise SolverError(f"the adaptive strategy has no bid at state {(R, H, p)}")
            if sum(mix.values()) != 1 or any(q < 0 or not H >> (a - 1) & 1 for a, q in mix.items()):
                raise SolverError(f"the adaptive strategy's mix at {(R, H, p)} is not one")
            for a, q in mix.items():
                if q:
                    after = walk(P | 1 << (p - 1), H & ~(1 << (a - 1)))
                    total += q * (p * _sign(a - s[p - 1]) + after)
        memo[key] = total / len(left) if left else total
        return memo[key]

    return walk(0, (1 << n) - 1)


def _states(n: int) -> list:
    """Every state (R, H, p) of A before its last bid (the last one is forced)."""
    out: list[tuple[tuple, int, int]] = []
    for k in range(max(n - 1, 1)):
        for P in combinations(range(1, n + 1), k):
            for bids in permutations(range(1, n + 1), k):
                R = [0] * n
                for q, b in zip(P, bids):
                    R[q - 1] = b
                for Hc in combinations(range(1, n + 1), n - k):
                    H = sum(1 << (c - 1) for c in Hc)
                    out.extend((tuple(R), H, p) for p in range(1, n + 1) if p not in P)
    return out


def _coefficient(n: int, R: tuple, H: int, p: int, a: int, s) -> int:
    """N! times A's points, per unit of y((R, H, p), a), against the bijection s that
    extends R: (N-k-1)! p sign(a - s(p)), plus the last round when it follows (A's last
    card against C's on the last prize)."""
    k = sum(1 for b in R if b)
    c = factorial(n - k - 1) * p * _sign(a - s[p - 1])
    if k == n - 2:
        last = next(q for q in range(1, n + 1) if q != p and R[q - 1] == 0)
        c += last * _sign((H & ~(1 << (a - 1))).bit_length() - s[last - 1])
    return c


@dataclass(frozen=True)
class StateLP:
    """The float LP's answer: ``value`` (points per game), ``variables`` [(state, bid)],
    ``y`` their realisation weights, ``sigma`` C's mix (the duals, bijection -> float)."""

    value: float
    variables: list
    y: np.ndarray
    sigma: dict


def state_lp(n: int) -> StateLP:
    """The whole game as one LP over A's state realisation plans (module docstring),
    solved by HiGHS (interior point, then crossover to a basic solution)."""
    from scipy.optimize import linprog  # scipy.optimize: 1.5 s to import, for this LP only
    from scipy.sparse import coo_matrix

    n = check_n(n, ADAPTIVITY_VALUE_MAX_N, what=" for the adaptive-against-committed game")
    states = _states(n)
    nodes = sorted({(R, H) for R, H, _ in states})
    node_index = {m: i for i, m in enumerate(nodes)}
    variables = [(m, a) for m in states for a in _cards(m[1], n)]
    var_index = {v: i for i, v in enumerate(variables)}
    nv, nz = len(variables), len(nodes)
    rows, cols, vals, b_eq = [], [], [], []
    for i, (R, H) in enumerate(nodes):  # z(R, H) - inflow = [first round]
        rows.append(i), cols.append(nv + i), vals.append(1.0)
        b_eq.append(0.0 if any(R) else 1.0)
        for q in range(1, n + 1):
            if R[q - 1]:
                before = R[: q - 1] + (0,) + R[q:]
                for a in range(1, n + 1):
                    if not H >> (a - 1) & 1:
                        rows.append(i), cols.append(var_index[((before, H | 1 << (a - 1), q), a)])
                        vals.append(-1.0)
    for i, (R, H, p) in enumerate(states, start=nz):  # sum_a y - z = 0
        b_eq.append(0.0)
        rows.append(i), cols.append(nv + node_index[(R, H)]), vals.append(-1.0)
        for a in _cards(H, n):
            rows.append(i), cols.append(var_index[((R, H, p), a)]), vals.append(1.0)
    a_eq = coo_matrix((vals, (rows, cols)), shape=(nz + len(states), nv + nz + 1)).tocsr()
    by_R: dict = {}
    for v, ((R, _, _), _) in enumerate(variables):
        by_R.setdefault(R, []).append(v)
    pure = bijections(n)
    rows, cols, vals = [], [], []
    for j, s in enumerate(pure):  # N! v - (N! times A's points against s) <= 0
        for mask in range(1 << n):
            for v in by_R.get(_revealed(s, mask, n), ()):
                (R, H, p), a = variables[v]
                coeff = _coefficient(n, R, H, p, a, s)
                if coeff:
                    rows.append(j), cols.append(v), vals.append(-float(coeff))
        rows.append(j), cols.append(nv + nz), vals.append(float(factorial(n)))
    a_ub = coo_matrix((vals, (rows, cols)), shape=(len(pure), nv + nz + 1)).tocsr()
    c = np.zeros(nv + nz + 1)
    c[-1] = -1.0
    res = linprog(
        c,
        A_ub=a_ub,
        b_ub=np.zeros(len(pure)),
        A_eq=a_eq,
        b_eq=b_eq,
        bounds=[(0, None)] * (nv + nz) + [(None, None)],
        method="highs-ipm",
    )
    if res.status != 0:  # pragma: no cover - a bounded, feasible LP
        raise SolverError(f"HiGHS failed on the adaptive-against-committed LP: {res.message}")
    sigma = np.maximum(-res.ineqlin.marginals, 0.0)
    return StateLP(-res.fun, variables, res.x[:nv], dict(zip(pure, sigma / sigma.sum())))


def _solve_unique(rows: list[list[int]], unknowns: int):
    """The unique rational solution of the linear system ``rows`` (each: ``unknowns``
    integer coefficients, then the right-hand side), or None (python-flint rref)."""
    R, rank = fmpq_mat(rows).rref()
    if rank != unknowns or any(R[i, i] != 1 for i in range(unknowns)):
        return None  # not unique, or the right-hand side a pivot (inconsistent)
    return [Fraction(int(R[i, unknowns].p), int(R[i, unknowns].q)) for i in range(unknowns)]


def _exact_adaptive(n: int, lp: StateLP):
    """Step 1 of the algorithm notes: A's exact strategy and the value, from the float
    support.  Returns (V, strategy, tight bijections, main bid per state, supports)."""
    support = _float_support(lp)
    params = [(m, a) for m, bids in support.items() for a in bids[1:]]
    d = len(params)
    theta_index = {pa: i for i, pa in enumerate(params)}
    y_float = {v: w for v, w in zip(lp.variables, lp.y)}
    theta_float = np.zeros(d)
    for (m, a), i in theta_index.items():
        theta_float[i] = y_float[(m, a)]
    y = _affine_plan(n, support, theta_index)
    points = _bijection_points(n, y, d)
    full = factorial(n)
    tight = [
        s
        for s, total in points.items()
        if abs((total[:d] @ theta_float + total[d]) / full - lp.value) <= TIGHT_TOL
    ]
    # points[s] . (theta, 1) = N! V for s tight: unknowns theta and V.
    solution = _solve_unique(
        [[int(c) for c in points[s][:d]] + [-full, -int(points[s][d])] for s in tight], d + 1
    )
    if solution is None:
        raise SolverError("the float LP's support does not give A's exact strategy")
    theta, V = solution[:d], solution[d]
    strategy = _exact_strategy(y, theta, d)
    _add_last_round(n, strategy)
    return V, strategy, tight, support


def _float_support(lp: StateLP) -> dict:
    """The bids of each state that the float LP plays, heaviest first (ties by bid)."""
    support: dict = {}
    for ((R, H, p), a), w in zip(lp.variables, lp.y):
        if w > SUPPORT_TOL:
            support.setdefault((R, H, p), []).append((float(w), a))
    return {
        m: [a for _, a in sorted(bids, key=lambda t: (-t[0], t[1]))] for m, bids in support.items()
    }


def _affine_plan(n: int, support: dict, theta_index: dict) -> dict:
    """A's realisation plan y on the support as integer affine functions of theta (one
    parameter per bid after the first of each state): vectors (coefficients..., constant),
    the flow into each state pushed round by round from the start."""
    d = len(theta_index)
    flow: dict = {((0,) * n, (1 << n) - 1): np.eye(d + 1, dtype=np.int64)[d]}
    y: dict = {}
    for _ in range(max(n - 1, 1)):
        nxt: dict = {}
        for (R, H), z in flow.items():
            if not z.any():
                continue
            theirs = [b for b in range(1, n + 1) if b not in R]
            for p in range(1, n + 1):
                if R[p - 1]:
                    continue
                bids = support.get((R, H, p))
                if bids is None:
                    raise SolverError("the float LP's support misses a state A reaches")
                main = z.copy()
                for a in bids[1:]:
                    unit = np.zeros(d + 1, dtype=np.int64)
                    unit[theta_index[((R, H, p), a)]] = 1
                    y[((R, H, p), a)] = unit
                    main -= unit
                y[((R, H, p), bids[0])] = main
                if sum(1 for b in R if b) + 1 < n - 1:  # the next round is not the last
                    for a in bids:
                        for b in theirs:
                            key = (R[: p - 1] + (b,) + R[p:], H & ~(1 << (a - 1)))
                            nxt[key] = nxt.get(key, 0) + y[((R, H, p), a)]
        flow = nxt
    return y


def _bijection_points(n: int, y: dict, d: int) -> dict:
    """N! times A's expected points against each bijection s, as an integer affine
    function of theta (its vector of coefficients and constant)."""
    by_R: dict = {}
    for m, a in y:
        by_R.setdefault(m[0], []).append((m, a))
    points = {}
    for s in bijections(n):
        total = np.zeros(d + 1, dtype=np.int64)
        for mask in range(1 << n):
            for m, a in by_R.get(_revealed(s, mask, n), ()):
                total += _coefficient(n, m[0], m[1], m[2], a, s) * y[(m, a)]
        points[s] = total
    return points


def _exact_strategy(y: dict, theta, d: int) -> dict:
    """A's behaviour strategy from the exact plan y(theta): each state's weights
    normalised (states of weight 0 dropped); SolverError for a negative weight."""
    strategy: dict = {}
    for (m, a), vec in y.items():
        w = sum((int(c) * t for c, t in zip(vec[:d], theta) if c), Fraction(int(vec[d])))
        if w < 0:
            raise SolverError("A's exact realisation plan has a negative weight")
        strategy.setdefault(m, {})[a] = w
    for m, mix in strategy.items():
        z = sum(mix.values())
        strategy[m] = {a: w / z for a, w in mix.items()} if z else {}
    return {m: mix for m, mix in strategy.items() if mix}


def _add_last_round(n: int, strategy: dict) -> None:
    """The forced last bid at every state that follows one of ``strategy``."""
    if n == 1:
        return
    for (R, H, p), mix in list(strategy.items()):
        if sum(1 for b in R if b) != n - 2:
            continue
        last = next(q for q in range(1, n + 1) if q != p and R[q - 1] == 0)
        for a, w in mix.items():
            if w:
                for b in range(1, n + 1):
                    if b not in R:
                        rest = H & ~(1 << (a - 1))
                        after = R[: p - 1] + (b,) + R[p:]
                        strategy[(after, rest, last)] = {rest.bit_length(): Fraction(1)}


def _exact_committed(n: int, lp: StateLP, tight: list, support: dict):
    """Step 2 of the algorithm notes: C's exact mix on the tight bijections, from the DP
    with vectors of coefficients.  Returns (V, sigma)."""
    t = len(tight)
    sigma_float = np.array([lp.sigma[s] for s in tight])
    memo: dict = {}
    equations: list = []

    def value(R: tuple, H: int, alive: list):
        key = (R, H)
        got = memo.get(key)
        if got is not None:
            return got
        left = [p for p in range(1, n + 1) if R[p - 1] == 0]
        f = factorial(len(left) - 1) if left else 0
        total = np.zeros(t, dtype=np.int64)
        for p in left:
            groups: dict = {}
            for j in alive:
                groups.setdefault(tight[j][p - 1], []).append(j)
            q = {}
            for a in _cards(H, n):
                vec = np.zeros(t, dtype=np.int64)
                for b, js in groups.items():
                    vec[js] += f * p * _sign(a - b)
                    vec += value(R[: p - 1] + (b,) + R[p:], H & ~(1 << (a - 1)), js)
                q[a] = vec
            bids = support.get((R, H, p))
            if bids:  # A's main bid; every other bid it mixes ties with it
                main = bids[0]
                equations.extend(q[a] - q[main] for a in bids[1:])
            else:
                main = max(q, key=lambda a: (float(q[a] @ sigma_float), -a))
            total += q[main]
        memo[key] = total
        return total

    top = value((0,) * n, (1 << n) - 1, list(range(t)))
    full = factorial(n)
    # Unknowns sigma (t) and V: ties = 0, top . sigma - N! V = 0, sum sigma = 1.
    rows = [[int(c) for c in e] + [0, 0] for e in equations if e.any()]
    rows.append([int(c) for c in top] + [-full, 0])
    rows.append([1] * t + [0, 1])
    solution = _solve_unique(rows, t + 1)
    if solution is None:
        raise SolverError("the float LP's support does not give C's exact mix")
    return solution[t], dict(zip(tight, solution[:t]))


def solve_adaptivity(n: int) -> AdaptivityValue:
    """The value of the game adaptive against committed, exact and verified (module
    docstring, algorithm notes 1-3).

    >>> solve_adaptivity(3).value  # at N = 3 adapting is worth nothing
    Fraction(0, 1)
    """
    n = check_n(n, ADAPTIVITY_VALUE_MAX_N, what=" for the adaptive-against-committed game")
    lp = state_lp(n)
    V, strategy, tight, support = _exact_adaptive(n, lp)
    V2, sigma = _exact_committed(n, lp, tight, support)
    # Verify, with code that shares nothing with the two solves.
    if V2 != V:
        raise SolverError(f"A's side gives {V}, C's side {V2}")
    if min(gains_against_bijections(n, strategy)) != V:
        raise SolverError("A's exact strategy does not guarantee the value")
    if min(sigma.values()) < 0 or sum(sigma.values()) != 1:
        raise SolverError("C's exact mix is not a probability vector")
    if best_reply(n, sigma)[0] != V:
        raise SolverError("an adaptive strategy gains more than the value against C's mix")
    mixed = sum(1 for mix in strategy.values() if sum(1 for w in mix.values() if w) > 1)
    return AdaptivityValue(n, V, {s: w for s, w in sigma.items() if w}, strategy, lp.value, mixed)
