"""Certified equilibria from float solutions: an interval for every probability that
contains the EXACT equilibrium probability, or a plain statement that it could not be
proved.

The argument (for one matrix game, after the upcard is turned)
--------------------------------------------------------------
The exact matrix A* is unknown, but every entry lies in a ball around the float entry:
A*_ij in [Â_ij - d_ij, Â_ij + d_ij], d_ij = r_{k-1} + eps |Â_ij| (the certified radius of
the level below, :mod:`exact.kernels.bounds`, plus the rounding of the entry itself).
Take the supports S, T of the float equilibrium (|S| = |T| = s) and solve, in ball
arithmetic over the whole box (python-flint's ``arb_mat.solve``: the result contains the
solution for every matrix in the balls), the two square indifference systems

    sum_{i in S} x_i A_ij = v  (j in T),  sum x = 1;
    sum_{j in T} A_ij y_j = w  (i in S),  sum y = 1.

Then verify, over the whole box:
  (a) x_i > 0 on S and y_j > 0 on T;
  (b) sum_{i in S} x_i A_ij - v > 0 for every column j outside T, and
      w - sum_{j in T} A_ij y_j > 0 for every row i outside S.
For A* (one matrix of the box) the solutions are then an equilibrium (x guarantees v
against every column, y concedes at most w = v against every row, so v = w is the value),
and it is the only one: complementary slackness puts every optimal y inside T and every
optimal x inside S, where the nonsingular systems have one solution each.  So the exact
equilibrium probabilities lie in the intervals, and every probability outside the
supports is exactly 0.

When a check fails (supports of different sizes, a singular or ill-conditioned system, a
near-tie in (b)) nothing is claimed about the probabilities; what remains proved is the
epsilon-optimality of the float strategies: x guarantees at least ``guarantee[0]`` and y
concedes at most ``guarantee[1]`` in the exact game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from flint import arb, arb_mat, ctx

from exact.errors import SolverError
from exact.kernels.bounds import EPS, certified_game
from exact.kernels.matrix_game import solve_game

#: A float probability above this is in the support (as in exact/dp/exact_game.py).
SUPPORT_TOL = 1e-9
#: Working precision (bits) of the ball arithmetic.
PRECISION_BITS = 128

Interval = tuple[float, float]


@dataclass(frozen=True)
class CertifiedGame:
    """What is proved about the exact equilibrium of one matrix game.

    ``certified``: the exact equilibrium is unique and ``mine`` / ``theirs`` hold an
    interval for each of its probabilities (exactly (0, 0) outside the supports) and
    ``value`` one for its value; otherwise ``reason`` says which check failed, and only
    ``guarantee`` (and ``value``) are proved.
    """

    certified: bool
    value: Interval
    mine: tuple[Interval, ...]
    theirs: tuple[Interval, ...]
    guarantee: Interval
    reason: str = ""

    @property
    def width(self) -> float:
        """The widest probability interval (0 when not certified: nothing is claimed)."""
        if not self.certified:
            return 0.0
        return max(hi - lo for lo, hi in self.mine + self.theirs)


def _interval(b: arb) -> Interval:
    """A float interval containing the ball b, rounded outward."""
    lo, hi = b.lower(), b.upper()
    return (
        float(np.nextafter(float(lo.mid()) - float(lo.rad()), -np.inf)),
        float(np.nextafter(float(hi.mid()) + float(hi.rad()), np.inf)),
    )


def _positive(b: arb) -> bool:
    return bool(b > 0)


def _indifference(M, support_rows, support_cols):
    """Solve sum_{i in rows} z_i M[i][j] = t (j in cols), sum z = 1 over the balls M:
    (z, t) as arb, or None if the system cannot be proved nonsingular."""
    s = len(support_rows)
    rows = []
    for j in support_cols:
        rows.append([M[i][j] for i in support_rows] + [arb(-1)])
    rows.append([arb(1)] * s + [arb(0)])
    rhs = arb_mat([[arb(0)] for _ in support_cols] + [[arb(1)]])
    try:
        # Preconditioned by the midpoint's approximate inverse (arb_mat_solve_precond):
        # the width is then about |M^-1| times the radii, as the perturbation bound
        # says.  Plain ball LU compounds the radii at every elimination step: at N = 13
        # its widest interval was 5.1e-8 against 2.2e-11 now.
        sol = arb_mat(rows).solve(rhs, algorithm="precond")
    except ZeroDivisionError:
        return None
    z = [sol[i, 0] for i in range(s)]
    return z, sol[s, 0]


def certify_game(A, radius: float, x=None, y=None, value=None) -> CertifiedGame:
    """Certify the exact equilibrium of a game whose exact matrix lies within
    ``radius + eps |A_ij|`` of the float matrix ``A`` (rows: the maximiser).

    ``x``, ``y``, ``value``: the float solution (solved here when not given).
    """
    A = np.asarray(A, dtype=np.float64)
    k = A.shape[0]
    if value is None:
        value, x, y = solve_game(A)
    x, y = np.array(x, dtype=np.float64), np.array(y, dtype=np.float64)  # copies: polished
    value, e = certified_game(A, k, x, y, float(value))
    if not np.isfinite(e) or not np.isfinite(radius):
        raise SolverError("no certified bound for this game (a NaN, or an unknown radius)")
    bound = e + radius
    guarantee = (
        float(np.nextafter(value - bound, -np.inf)),
        float(np.nextafter(value + bound, np.inf)),
    )

    S = [i for i in range(k) if x[i] > SUPPORT_TOL]
    T = [j for j in range(k) if y[j] > SUPPORT_TOL]
    if len(S) != len(T):
        return _refused(
            guarantee,
            f"supports of different sizes ({len(S)} rows, {len(T)} columns): a degenerate game",
        )
    old = ctx.prec
    ctx.prec = PRECISION_BITS
    try:
        return _certify_on_support(A, radius, S, T, guarantee)
    finally:
        ctx.prec = old


def _refused(guarantee: tuple[float, float], reason: str) -> CertifiedGame:
    return CertifiedGame(False, guarantee, (), (), guarantee, reason)


def _certify_on_support(A, radius: float, S, T, guarantee) -> CertifiedGame:
    """The ball arithmetic of :func:`certify_game` on the supports S (rows), T (columns)
    of the float solution (at the working precision its caller sets)."""
    k = A.shape[0]
    M = [
        [arb(float(A[i, j]), radius + EPS * abs(float(A[i, j]))) for j in range(k)]
        for i in range(k)
    ]
    Mt = [[M[i][j] for i in range(k)] for j in range(k)]
    rows = _indifference(M, S, T)
    cols = _indifference(Mt, T, S)
    if rows is None or cols is None:
        return _refused(guarantee, "the indifference system is (numerically) singular")
    xs, v = rows
    ys, w = cols
    if not all(_positive(p) for p in xs + ys):
        return _refused(guarantee, "a probability of the support is not provably positive")
    tie = _near_tie(M, S, T, xs, v, ys, w)
    if tie is not None:
        return _refused(guarantee, tie)
    mine = [(0.0, 0.0)] * k
    theirs = [(0.0, 0.0)] * k
    for a, i in enumerate(S):
        mine[i] = _interval(xs[a])
    for b, j in enumerate(T):
        theirs[j] = _interval(ys[b])
    lo = max(_interval(v)[0], _interval(w)[0], guarantee[0])
    hi = min(_interval(v)[1], _interval(w)[1], guarantee[1])
    return CertifiedGame(True, (lo, hi), tuple(mine), tuple(theirs), guarantee)


def _near_tie(M, S, T, xs, v, ys, w) -> str | None:
    """Why a pure strategy off a support may be a best reply too (then the equilibrium is
    not proved unique on these supports), or None: each is provably worse."""
    k = len(M)
    for j in range(k):
        if j not in T and not _positive(
            sum((xs[a] * M[i][j] for a, i in enumerate(S)), arb(0)) - v
        ):
            return f"column {j + 1} is (nearly) a best reply too: a near-tie"
    for i in range(k):
        if i not in S and not _positive(
            w - sum((M[i][j] * ys[b] for b, j in enumerate(T)), arb(0))
        ):
            return f"row {i + 1} is (nearly) a best reply too: a near-tie"
    return None


def certify_strategy(solution, mine, theirs, deck, upcard, lead=None) -> CertifiedGame:
    """The certified equilibrium of a position of a float Solution (rows: sorted ``mine``,
    columns: sorted ``theirs``), from its certified radius of the level below."""
    if solution.arithmetic.exact:
        raise SolverError("certify_strategy certifies float solutions (rational ones are exact)")
    A = solution.matrix(mine, theirs, deck, upcard, lead)
    k = len(set(deck))
    return certify_game(A, solution.radii[k - 1])
