"""The face-up declarations game solved by backward induction, exactly or in float with radii.

The recursion (rules: :mod:`exact.declarations.rules`).  A position p has k cards a hand,
prizes P and point difference d; u runs over P (each upcard with probability 1/k) and
p(u, a, b) is the position after bids a (player 0) and b (player 1) on u.  The win/loss
game, once the score is fixed, in its three forms:

    S(p)  = mean_u val[ S(p(u, a, b)) ]_{a, b}            both declared: sealed bids
    L0(p) = mean_u max_a min_b L0(p(u, a, b))              player 0 bids face up first
    L1(p) = mean_u min_b max_a L1(p(u, a, b))              player 1 bids face up first

and the game in which nobody has declared yet, with k rounds left (a declaration now
makes the game worth k):

    O(p)  = mean_u val [ val[O(p(u, a, b))]_{a, b}     k L1_u(p) ]
                       [ k L0_u(p)                     k S_u(p)  ]

where rows are player 0's "no" and "declare", columns player 1's, and L0_u, L1_u, S_u are
the games above once u is turned up.  Leaves, from the rules: a decided position (no
prize left, or |d| > the prizes left) is worth sign(d) in S, L0, L1 and k sign(d) in O
(the sure winner declares at once: it scores k, the most any result from here scores);
with one card each the bids are forced and the last round scores 1.

Matrix games are solved by the project's verified exact solver
(:func:`exact.dp.exact_game.solve_saddle_or_lp`: a pure saddle point when there is one,
else the basic solution on the float kernel's supports, checked exactly; von Neumann's
minimax theorem, Shoham & Leyton-Brown 2009, sec 4.1).  In float, by the float kernel
(:func:`exact.kernels.matrix_game.solve_game`) with the proven bound of
:func:`exact.kernels.bounds.value_error` (Higham 2002, sec 3.1): a value is within its
radius of the exact value; the radius of a stage adds the largest radius of its entries
(the value of a matrix game is 1-Lipschitz in its largest entry change) and the rounding
of the means and of the factor k.

Which equilibrium.  Matrix games: the solver's (above); a face-up round: the leader plays
its lowest optimal card and the replier its lowest best reply.  The values do not depend
on these choices; the path statistics (:mod:`exact.declarations.path`) do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from flint import fmpq

from exact.declarations.rules import (
    Position,
    bit_positions,
    child,
    decided_sign,
    full_position,
    sign,
)
from exact.dp.exact_game import solve_saddle_or_lp
from exact.errors import SolverError
from exact.kernels.bounds import value_error
from exact.kernels.matrix_game import solve_game

__all__ = ["FAMILIES", "Stage", "Tables", "leaf", "solve_tables"]

#: The four games a position can be in: nobody declared yet; both declared in the same
#: round (sealed bids); player 0 declared first (it leads); player 1 declared first.
FAMILIES = ("open", "sim", "lead0", "lead1")

EPS = 2.0**-53


def _gamma(n: int) -> float:
    return n * EPS / (1.0 - n * EPS)


@dataclass
class Stage:
    """One upcard's game at a position.  ``value``: its value (for player 0); ``radius``:
    its proven error bound (0 in exact arithmetic).  ``bids``: the sealed-bid game's
    (x, y, v) (families open and sim); ``declare``: the 2 x 2 declaration game's (x, y, v)
    (open only; its entries are ``entries``); ``leader``/``replies``: the face-up round's
    choices (lead0, lead1: the leader's card index, and the replier's index for each of
    the leader's cards)."""

    upcard: int
    value: object
    radius: float = 0.0
    bids: tuple | None = None
    declare: tuple | None = None
    entries: tuple | None = None
    leader: int | None = None
    replies: tuple | None = None


@dataclass
class Tables:
    """Every reached position's value and stages, per family: ``values[family][key]`` =
    (value, radius), ``stages[family][key]`` = the list of its Stage per upcard
    (leaves have a value and no stages)."""

    n: int
    exact: bool
    values: dict = field(default_factory=lambda: {f: {} for f in FAMILIES})
    stages: dict = field(default_factory=lambda: {f: {} for f in FAMILIES})
    games_solved: int = 0

    def value(self, family: str, pos: Position):
        return self.values[family][pos.key()][0]

    def radius(self, family: str, pos: Position) -> float:
        return self.values[family][pos.key()][1]


class _Exact:
    """Rational arithmetic (python-flint fmpq); radii are 0."""

    exact = True

    @staticmethod
    def number(a: int):
        return fmpq(a)

    @staticmethod
    def game(M, radii):
        eq = solve_saddle_or_lp(M)
        return eq.value, (eq.x, eq.y, eq.value), 0.0

    @staticmethod
    def mean(values, radii):
        return sum(values, fmpq(0)) / len(values), 0.0

    @staticmethod
    def times(k: int, v, r):
        return k * v, 0.0


class _Float:
    """float64 with a proven radius on every value (module docstring)."""

    exact = False

    @staticmethod
    def number(a: int):
        return float(a)

    @staticmethod
    def game(M, radii):
        A = np.array(M, dtype=np.float64)
        k = len(M)
        v, x, y = solve_game(A)
        e = float(value_error(A, k, x, y, v))
        if not e == e:
            raise SolverError(f"no proven bound for a {k} x {k} game")
        return v, (tuple(x), tuple(y), v), (e + max(max(r) for r in radii)) * (1 + 4 * EPS)

    @staticmethod
    def mean(values, radii):
        k = len(values)
        top = max(abs(v) for v in values)
        return sum(values) / k, (max(radii) + 2 * _gamma(k + 1) * top) * (1 + 4 * EPS)

    @staticmethod
    def times(k: int, v, r):
        return k * v, (k * r + EPS * abs(k * v)) * (1 + 4 * EPS)


def _last_round(pos: Position) -> int:
    """sign(final difference) of a position with one card each (forced bids)."""
    (i,) = bit_positions(pos.mine)
    (j,) = bit_positions(pos.theirs)
    (u,) = bit_positions(pos.prizes)
    return sign(pos.lead + (u + 1) * sign(i - j))


def _first_min(values: list) -> int:
    """The first index of the least value (the lowest card among ties)."""
    return values.index(min(values))


def leaf(family: str, pos: Position) -> int | None:
    """A position's value from the rules alone (module docstring), or None."""
    s = decided_sign(pos)
    if s is not None:
        return s * pos.cards if family == "open" else s
    if pos.cards == 1:
        return _last_round(pos)
    return None


class _Solver:
    def __init__(self, n: int, exact: bool):
        self.t = Tables(n, exact)
        self.a = _Exact if exact else _Float

    def get(self, family: str, pos: Position):
        """(value, radius) of ``pos`` in ``family``, solving it on first use."""
        key = pos.key()
        table = self.t.values[family]
        got = table.get(key)
        if got is None:
            value = leaf(family, pos)
            if value is not None:
                got = (self.a.number(value), 0.0)
            else:
                stages = [self.stage(family, pos, u + 1) for u in bit_positions(pos.prizes)]
                self.t.stages[family][key] = stages
                got = self.a.mean([s.value for s in stages], [s.radius for s in stages])
            table[key] = got
        return got

    def children(self, family: str, pos: Position, u: int):
        """The matrix of (value, radius) of the children on upcard u: rows player 0's
        cards, columns player 1's, increasing."""
        mine, theirs = bit_positions(pos.mine), bit_positions(pos.theirs)
        return [[self.get(family, child(pos, u, i, j)) for j in theirs] for i in mine]

    def sealed(self, family: str, pos: Position, u: int):
        C = self.children(family, pos, u)
        self.t.games_solved += 1
        return self.a.game([[c[0] for c in row] for row in C], [[c[1] for c in row] for row in C])

    def face_up(self, family: str, pos: Position, u: int) -> Stage:
        """max_a min_b (lead0) or min_b max_a (lead1), lowest cards first among ties."""
        C = self.children(family, pos, u)
        if family == "lead1":  # the leader is player 1: work on the transpose, negated
            C = [[(-C[i][j][0], C[i][j][1]) for i in range(len(C))] for j in range(len(C[0]))]
        replies = tuple(_first_min([c[0] for c in row]) for row in C)
        worst = [row[j] for row, j in zip(C, replies)]
        best = _first_min([-w[0] for w in worst])
        value = worst[best][0] if family == "lead0" else -worst[best][0]
        radius = max(c[1] for row in C for c in row)
        return Stage(u, value, radius, leader=best, replies=replies)

    def stage(self, family: str, pos: Position, u: int) -> Stage:
        if family in ("lead0", "lead1"):
            return self.face_up(family, pos, u)
        v, eq, r = self.sealed(family, pos, u)
        if family == "sim":
            return Stage(u, v, r, bids=eq)
        k = pos.cards
        lead1, lead0, sim = (self.times(k, self.declared(f, pos, u)) for f in FAMILIES[3:0:-1])
        M = [[v, lead1[0]], [lead0[0], sim[0]]]
        R = [[r, lead1[1]], [lead0[1], sim[1]]]
        self.t.games_solved += 1
        value, declare, radius = self.a.game(M, R)
        return Stage(u, value, radius, bids=eq, declare=declare, entries=tuple(M[0] + M[1]))

    def declared(self, family: str, pos: Position, u: int) -> Stage:
        """The stage of upcard u at ``pos`` in a declared family (solving ``pos`` there)."""
        self.get(family, pos)
        return self.t.stages[family][pos.key()][bit_positions(pos.prizes).index(u - 1)]

    def times(self, k: int, s: Stage):
        return self.a.times(k, s.value, s.radius)


def solve_tables(n: int, exact: bool = True, start: Position | None = None) -> Tables:
    """Every position reached from ``start`` (default: the N-card start), in every family
    it can be in."""
    solver = _Solver(n, exact)
    solver.get("open", full_position(n) if start is None else start)
    return solver.t
