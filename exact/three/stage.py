"""One stage of the backward induction: a three-player k x k x k game, its chosen equilibrium.

The game is ``A[i, a0, a1, a2]``, player i's payoff (the round's points plus the
continuation values) when the players bid their a0-th, a1-th and a2-th cards.  Three-player
games have many equilibria, often irrational; the one chosen is defined as

    the limit, as lambda -> infinity, of the principal branch of the logit quantal-response
    correspondence (McKelvey & Palfrey 1995), the branch that starts at the uniform profile
    at lambda = 0,

traced by our pseudo-arc-length continuation (the method of Turocy 2005, compiled with
numba; pygambit's ``logit_solve`` traces the same branch and is the fallback where ours
fails), oriented by the sign of det([J; t]) (Allgower & Georg 1990), so that it passes
turning points; where that sign changes (a simple bifurcation point: in degenerate stages
the branch can cross another) the trace keeps its direction.  The trace records its points
at relative regrets 1e-6 ... 1e-9; the limit is extrapolated from the last two (near a
degenerate limit a weight vanishes like 1/lambda, and the 1/lambda term is removed), then
polished: on a support read off the extrapolated point, Newton's method (least-squares
steps, the mixes alone the unknowns, so that the weights the equations leave free keep
the branch's values) solves the indifference equations

    sum_{a_-i} A[i, a, a_-i] prod_{j != i} s_j(a_j) equal over the support of i,
    sum_a s_i(a) = 1,

to float precision.  Two shortcuts give the same profile without tracing: a one-bid player
has no choice, and a game that iterated elimination of strictly dominated bids (by a margin
of :data:`DOMINANCE_MARGIN`) reduces to one profile has that profile as its only
equilibrium, hence as the limit of every branch.  Players with identical positions
(``twins``), or whom swapping leaves every payoff unchanged, get identical mixes, as the
logit branch of a symmetric game is symmetric: their branch is traced within the symmetric
profiles.  Where no trace finishes but pygambit's left the symmetric profiles, the stage is
marked ``fallback``: that end made symmetric and polished, an equilibrium (its regret is
reported) but not necessarily the branch's limit.  pygambit's trace is stopped at
:data:`GAMBIT_POINTS` path points (where its corrector crawls, near lambda ~ 1e8) and its
last point taken as its end.  Where no trace ends near an equilibrium
at all (our trace loses its branch at a bifurcation, pygambit's returns nothing), the
stage's equilibrium is the one nearest (L1) the last point our trace reached, among those
that support enumeration finds (:func:`_nearest_support_equilibrium`), also ``fallback``.
A stage whose polish stops above a regret of :data:`DEEP_ABOVE` (a near-degenerate
stage, whose branch still moves beyond the trace's last target) is traced on to
:data:`DEEP_TARGETS` and polished again; a stage still above :data:`REFINE_ABOVE` takes the
nearest equilibrium support enumeration finds from the polished profile
(:func:`solve_stage`).

Invariant: every returned profile has its stage regret (each player's best gain by
deviating, in float) reported; the whole game's NashConv is certified elsewhere
(:mod:`exact.three.nashconv`).
"""

from __future__ import annotations

import ctypes
import heapq
import resource
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import combinations, product

import numba
import numpy as np

from exact.errors import GopsInputError, SolverError

__all__ = ["StageSolution", "regret", "solve_stage"]

#: How much better a dominating bid must be against every remaining profile.
DOMINANCE_MARGIN = 1e-9
#: A traced probability below a cut is read as off the support; each cut is tried (an
#: off-support weight falls exponentially along the branch, or like 1/lambda where the
#: limit is degenerate).
SUPPORT_CUTS = (1e-7, 1e-5, 1e-3, 1e-2, 3e-2)
#: Payoff gaps (relative to the payoff range) within which a bid joins the support.
SUPPORT_GAPS = (0.0, 1e-7, 1e-5)
#: The stage regret at which the polish is accepted (float rounding of the tensor sums).
POLISHED = 1e-13
#: pygambit's stopping regret for the trace.  In a degenerate stage (a continuum of
#: equilibria) the polished profile lands within about this of the limit: 1e-6 moved a
#: 3-card value by 3e-5 and was 2-4 times faster.
TRACE_REGRET = 1e-10
#: Successive tangents of the symmetric trace must agree this well (cosine), else the
#: step is halved: a larger turn may have jumped to another part of the curve.
TURN_COSINE = 0.95
#: The same for a second trace where the first reached no target regret (a degenerate
#: stage, its branch crossing bifurcations: one N = 5 third-rule stage of 6,255).
TURN_RETRY = 0.99
#: The most path points of one pygambit trace.  Its ordinary traces take 200-500; in a
#: near-degenerate stage its corrector crawls near lambda ~ 1e8 (124,000 points and 7 s
#: for one 4 x 4 x 4 stage of the 6-card split game, its regret barely moving: 4.8e-9 at
#: point 1,000, 3.3e-9 at the end).  A capped trace's last point is polished instead.
GAMBIT_POINTS = 5_000
#: Memory a pygambit trace may take beyond the process's present size (bytes).
TRACE_MEMORY = 1 << 28
#: A polished end of our trace with a regret (relative to the payoff range) at most this
#: is kept without asking pygambit: near-degenerate stages (payoff ties broken by float
#: noise) stop a little above POLISHED, and pygambit's trace of them is the slow kind
#: (a second or more, growing its path to the memory cap).
NEAR_POLISHED = 1e-10
#: The largest regret (relative to the payoff range) of a pygambit trace we accept.
TRACE_ACCEPT = 1e-5
#: How close twins' traced mixes must be for pygambit's trace to count as symmetric.
TWIN_MATCH = 1e-6
#: Where the symmetric trace stops (regret relative to the payoff range; on the branch the
#: regret falls like 1/lambda, and the polish finishes the limit).
SYMMETRIC_TRACE_REGRET = 1e-6
#: The regrets (relative to the payoff range) at which the trace's points are kept: the
#: last two give the extrapolated limit (:func:`_extrapolated`).
TRACE_TARGETS = (1e-6, 1e-7, 1e-8, 1e-9)
#: The targets of a second, longer trace of a stage whose polish stopped above
#: :data:`DEEP_ABOVE`: where payoffs differ by ~1e-6 of their range (near-equal
#: continuation values) the branch still moves far beyond lambda ~ 1e9 (a 4 x 4 x 4 stage
#: of the 6-card third game: one weight 0.35 at regret 1e-8, 1.0 at 1e-10).
DEEP_TARGETS = TRACE_TARGETS + (1e-10, 1e-11, 1e-12)
#: The corrector accepts a point where |H| <= max(1e-8, CORRECTOR_NOISE * lambda): H holds
#: lambda (U(a) - U(0)) with the payoffs scaled to range 1, whose rounding grows like
#: lambda; a fixed tolerance loses every branch near lambda ~ 1e8.
CORRECTOR_NOISE = 1e-14
#: Two players are twins of the payoffs when swapping them changes no payoff by more than
#: this (relative to the payoff range): float rounding of equal continuation values.
SYMMETRY_TOL = 1e-12
#: The trace crosses a bifurcation point (its tangent reversed by the orientation) only
#: at steps shorter than this (arc length).
FLIP_STEP = 1e-3
#: A step (arc length) is at most 1 + STEP_GROWTH * lambda: far along the branch it is
#: nearly straight (x falls linearly in lambda) and lambda may grow geometrically.
STEP_GROWTH = 0.2
#: The most predictor-corrector steps of one symmetric trace.
TRACE_STEPS = 1_000
#: The most support combinations tried where no trace ends at an equilibrium, or where
#: REFINE_SUPPORTS found none (every one of a 4 x 4 x 4 stage without twins: 15^3).
SUPPORT_ENUMERATION = 4_000
#: A traced and polished stage with a larger regret (payoff units) is traced again, to
#: :data:`DEEP_TARGETS`.  In a near-degenerate stage (payoffs a few 1e-6 apart) the branch
#: is still far from its limit at the first trace's last target: its polish stops at a
#: regret of 1e-10 to 1e-7 on a nearly singular indifference system, and the limit lies
#: 0.01-1.6 away in L1 (the 6-card games: some 200 stages of 73,590).
DEEP_ABOVE = 1e-11
#: A stage whose regret is still larger (payoff units) takes the equilibrium nearest it
#: among those support enumeration finds (:func:`solve_stage`): the whole game's NashConv
#: sums stage regrets weighted by how likely play reaches them, and must stay below 1e-9.
#: (The nearest can be 0.5-3 away in L1: below this regret the branch's approximate limit
#: is kept rather than exchanged for a distant equilibrium.)
REFINE_ABOVE = 1e-9
#: The most support combinations tried first to refine one stage (then SUPPORT_ENUMERATION).
REFINE_SUPPORTS = 300


@dataclass(frozen=True)
class StageSolution:
    """Mixes (one array per player, over its bids ascending), values and how it was found."""

    mixes: tuple[np.ndarray, np.ndarray, np.ndarray]
    values: np.ndarray
    regret: float
    method: str  # "forced", "dominance", "logit" or "fallback" (module docstring)


def payoffs_against(A: np.ndarray, mixes) -> list[np.ndarray]:
    """u_i(a, s_-i) for every player i and bid a."""
    s0, s1, s2 = mixes
    return [
        np.einsum("abc,b,c->a", A[0], s1, s2),
        np.einsum("abc,a,c->b", A[1], s0, s2),
        np.einsum("abc,a,b->c", A[2], s0, s1),
    ]


def regret(A: np.ndarray, mixes) -> float:
    """The largest gain of one player deviating to a pure bid (float)."""
    us = payoffs_against(A, mixes)
    return max(float(u.max() - u @ s) for u, s in zip(us, mixes))


def _dominance(A: np.ndarray) -> tuple[int, int, int] | None:
    """The one profile left by iterated strict dominance (pure by pure), or None."""
    alive = [list(range(A.shape[1 + i])) for i in range(3)]
    changed = True
    while changed:
        changed = False
        for i in range(3):
            sub = A[i][np.ix_(*alive)]
            sub = np.moveaxis(sub, i, 0).reshape(len(alive[i]), -1)
            keep = [
                a
                for a in range(len(alive[i]))
                if not any(np.all(sub[b] > sub[a] + DOMINANCE_MARGIN) for b in range(len(sub)))
            ]
            if len(keep) < len(alive[i]):
                alive[i] = [alive[i][a] for a in keep]
                changed = True
    if all(len(a) == 1 for a in alive):
        return alive[0][0], alive[1][0], alive[2][0]
    return None


def _pure(A: np.ndarray, profile) -> tuple:
    return tuple(np.eye(A.shape[1 + i])[profile[i]] for i in range(3))


@contextmanager
def _memory_cap(extra: int):
    """The process's address space capped at its present size plus ``extra`` bytes while
    the block runs (Linux; elsewhere no cap): pygambit's trace of a degenerate stage can
    grow its path without bound (std::bad_alloc past 3.5 GiB at N = 5), and a capped one
    fails with MemoryError instead, which the caller answers with our own trace."""
    try:
        with open("/proc/self/statm") as fh:
            size = int(fh.read().split()[0]) * resource.getpagesize()
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    except (OSError, ValueError):
        yield
        return
    cap = size + extra
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _trim() -> None:
    """Hand freed heap memory back to the system (glibc's malloc_trim; elsewhere nothing)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class _Capped(Exception):
    """Raised from pygambit's path callback to stop a trace at GAMBIT_POINTS."""


def _trace(A: np.ndarray) -> tuple:
    """The logit branch's limit as pygambit traces it; a trace that reaches GAMBIT_POINTS
    path points is stopped there and its last point returned."""
    # pygambit (the optional extra ``three``) is imported here, where it is used: it brings
    # pandas and scipy.stats, 0.85 s of every command's start at load 2 (issue 49).
    try:
        import pygambit as gbt  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise GopsInputError(
            "three-player equilibria need pygambit: pip install 'gops-exact[three]'"
        ) from None
    game = gbt.StrategicGame.from_arrays(A[0], A[1], A[2])
    players = list(game.players)
    seen, last = 0, None

    def point(event) -> None:  # bifurcation and perturbation events pass by
        nonlocal seen, last
        if isinstance(event, gbt.LogitPathEvent):
            seen, last = seen + 1, event.qre.profile
            if seen >= GAMBIT_POINTS:
                raise _Capped

    try:
        with _memory_cap(TRACE_MEMORY):
            result = gbt.nash.logit_solve(
                game, use_strategic=True, maxregret=TRACE_REGRET, event_callback=point
            )
    except (MemoryError, RuntimeError, _Capped):  # pygambit 17 wraps _Capped in RuntimeError
        _trim()  # the trace's freed path stays in the heap: the next cap would stack on it
        if seen < GAMBIT_POINTS:
            raise
        return tuple(_normalised(_mix(last, p)) for p in players)
    if result.equilibrium is None:
        raise SolverError("pygambit's logit trace returned no equilibrium")
    return tuple(_normalised(_mix(result.equilibrium, p)) for p in players)


def _mix(profile, player) -> np.ndarray:
    """One player's mix of a pygambit profile, in strategy order."""
    return np.array([float(prob) for _, prob in profile[player]])


class _Branch:
    """The game of a symmetric trace: each class's representative player and its payoff
    tensor with axes (own bid, first opponent's, second opponent's)."""

    def __init__(self, A: np.ndarray, classes: list[int]):
        self.classes = classes
        self.reps = [classes.index(c) for c in range(max(classes) + 1)]
        self.sizes = [A.shape[1 + i] for i in self.reps]
        self.off = np.cumsum([0] + self.sizes)
        self.opponents = [[p for p in range(3) if p != i] for i in self.reps]
        self.tensors = [
            np.ascontiguousarray(np.moveaxis(A[i], (i, j, m), (0, 1, 2)))
            for i, (j, m) in zip(self.reps, self.opponents)
        ]
        self.swapped = [np.ascontiguousarray(T.transpose(0, 2, 1)) for T in self.tensors]


@numba.njit(cache=True)
def _nb_homotopy(T, sizes, off, opp, x, lam):
    """H, J and the mixes (see _homotopy): T[c] is class c's tensor (own, opp 1, opp 2),
    opp[c] the classes of its two opponents."""
    C = sizes.shape[0]
    n = off[C]
    sig = np.exp(x)
    H = np.zeros(n)
    J = np.zeros((n, n + 1))
    for c in range(C):
        k = sizes[c]
        cj, cm = opp[c, 0], opp[c, 1]
        kj, km = sizes[cj], sizes[cm]
        sj = sig[off[cj] : off[cj] + kj]
        sm = sig[off[cm] : off[cm] + km]
        dj = np.zeros((k, kj))
        dm = np.zeros((k, km))
        for a in range(k):
            for b in range(kj):
                for e in range(km):
                    t = T[c, a, b, e]
                    dj[a, b] += t * sm[e]
                    dm[a, e] += t * sj[b]
        U = np.zeros(k)
        for a in range(k):
            for b in range(kj):
                U[a] += dj[a, b] * sj[b]
        r0 = off[c]
        for a in range(1, k):
            row = r0 + a - 1
            H[row] = x[r0 + a] - x[r0] - lam * (U[a] - U[0])
            J[row, r0 + a] += 1.0
            J[row, r0] -= 1.0
            for b in range(kj):
                J[row, off[cj] + b] -= lam * (dj[a, b] - dj[0, b]) * sj[b]
            for e in range(km):
                J[row, off[cm] + e] -= lam * (dm[a, e] - dm[0, e]) * sm[e]
            J[row, n] = -(U[a] - U[0])
        total = 0.0
        for a in range(k):
            total += sig[r0 + a]
            J[r0 + k - 1, r0 + a] = sig[r0 + a]
        H[r0 + k - 1] = total - 1.0
    return H, J, sig


@numba.njit(cache=True)
def _nb_tangent(J, orientation, prev):
    """The unit null vector t of the n x (n + 1) Jacobian with sign det([J; t]) equal to
    ``orientation`` (Allgower & Georg 1990, sec 2.1 and 8.1: that sign is constant along a
    regular branch, through its turning points too, and changes at a simple bifurcation
    point, where the trace keeps its direction and flips the orientation); ``orientation``
    0: lambda increasing.  ``prev``, the last tangent, is projected on the null space
    (with J of full rank n that is the null vector up to its sign and length)."""
    n = J.shape[0]
    e = np.zeros(n + 1)
    e[n] = 1.0
    if orientation != 0:
        e = prev
    # e minus its part in the row space of J (J^T = Q R): the null vector
    Q = np.ascontiguousarray(np.linalg.qr(np.ascontiguousarray(J.T))[0])
    t = e - Q @ (e @ Q)
    t = t / np.sqrt(np.dot(t, t))
    M = np.empty((n + 1, n + 1))
    M[:n] = J
    M[n] = t
    sign = 1.0 if np.linalg.det(M) >= 0 else -1.0
    if orientation == 0:
        if t[-1] < 0:
            t = -t
            sign = -sign
        return t, sign
    if sign != orientation:
        t = -t
    return t, orientation


@numba.njit(cache=True)
def _nb_corrected(T, sizes, off, opp, z, noise):
    """Newton's corrector (minimum-norm steps); ok False where it failed (``noise``:
    :data:`CORRECTOR_NOISE`)."""
    n = z.shape[0] - 1
    for _ in range(8):
        if z[:n].max() > 1.0 or not np.isfinite(z).all():
            return z, False
        H, J, _ = _nb_homotopy(T, sizes, off, opp, z[:n], z[n])
        # the minimum-norm step: J^T = Q R, dz = -Q R^-T H
        Q, R = np.linalg.qr(np.ascontiguousarray(J.T))
        Q = np.ascontiguousarray(Q)
        dz = -(Q @ np.linalg.solve(np.ascontiguousarray(R.T), H))
        z = z + dz
        if not np.isfinite(z).all():
            return z, False
        if np.abs(dz).max() < 1e-10:
            break
    if z[n] < 0 or z[:n].max() > 1.0:
        return z, False
    H = _nb_homotopy(T, sizes, off, opp, z[:n], z[n])[0]
    return z, np.abs(H).max() <= max(1e-8, noise * z[n])


@numba.njit(cache=True)
def _nb_regret(B, s0, s1, s2):
    """The regret of the profile (each mix scaled to sum 1: the corrector leaves the sums
    within 1e-8 of it)."""
    s0 = s0 / s0.sum()
    s1 = s1 / s1.sum()
    s2 = s2 / s2.sum()
    k0, k1, k2 = s0.shape[0], s1.shape[0], s2.shape[0]
    u0 = np.zeros(k0)
    u1 = np.zeros(k1)
    u2 = np.zeros(k2)
    for a in range(k0):
        for b in range(k1):
            for c in range(k2):
                u0[a] += B[0, a, b, c] * s1[b] * s2[c]
                u1[b] += B[1, a, b, c] * s0[a] * s2[c]
                u2[c] += B[2, a, b, c] * s0[a] * s1[b]
    return max(u0.max() - u0 @ s0, u1.max() - u1 @ s1, u2.max() - u2 @ s2)


@numba.njit(cache=True)
def _nb_trace(B, T, sizes, off, opp, classes, targets, turn, flip_step, growth, max_steps, noise):
    """The pseudo-arc-length trace of :func:`_trace_points`: returns (status, reached, ys,
    flips, y), ys[t] the first point whose regret is below targets[t] (descending), for the
    first ``reached`` targets; status 0 all reached, 1 the branch lost, 2 out of steps;
    flips the bifurcation points crossed; y the last point reached."""
    C = sizes.shape[0]
    n = off[C]
    ys = np.zeros((targets.shape[0], n + 1))
    reached = 0
    y = np.zeros(n + 1)
    for c in range(C):
        for a in range(sizes[c]):
            y[off[c] + a] = -np.log(sizes[c])
    h = 0.1
    orientation = 0.0
    flips = 0
    t = np.zeros(n + 1)
    for _ in range(max_steps):
        H, J, sig = _nb_homotopy(T, sizes, off, opp, y[:n], y[n])
        if y[n] > 0:
            c0, c1, c2 = classes[0], classes[1], classes[2]
            r = _nb_regret(
                B,
                sig[off[c0] : off[c0] + sizes[c0]],
                sig[off[c1] : off[c1] + sizes[c1]],
                sig[off[c2] : off[c2] + sizes[c2]],
            )
            while reached < targets.shape[0] and r < targets[reached]:
                ys[reached] = y
                reached += 1
            if reached == targets.shape[0]:
                return 0, reached, ys, flips, y
        t, orientation = _nb_tangent(J, orientation, t)
        while True:
            pred = y + h * t
            z, ok = _nb_corrected(T, sizes, off, opp, pred, noise)
            if ok and np.linalg.norm(z - pred) < 0.1 * h:
                J_new = _nb_homotopy(T, sizes, off, opp, z[:n], z[n])[1]
                turned = np.dot(_nb_tangent(J_new, orientation, t)[0], t)
                if turned > turn:
                    break
                if turned < -turn and h < flip_step:
                    # det([J; t]) changes sign however short the step: a bifurcation
                    # point crossed (a long step can land on another part of the curve)
                    orientation = -orientation
                    flips += 1
                    break
            h /= 2
            if h < 1e-12:
                return 1, reached, ys, flips, y
        y = z
        h = min(h * 1.5, 1.0 + growth * y[n])
    return 2, reached, ys, flips, y


class _TraceLost(SolverError):
    """The symmetric trace reached no target; ``last`` is the last profile it reached."""

    def __init__(self, message: str, last: tuple | None):
        super().__init__(message)
        self.last = last


def _trace_points(
    A: np.ndarray, classes: list[int], targets, turn: float = TURN_COSINE
) -> list[tuple[float, tuple]]:
    """The logit branch within the profiles where players of one class mix alike: pseudo
    arc-length continuation of H(x, lam) = 0 from the centroid at lam = 0 (the method of
    Turocy 2005: tangent predictor, Newton corrector, adaptive step).  H, with x the
    log-probabilities of each class's representative and U_c its payoffs, is

        x_c(a) - x_c(0) - lam (U_c(a) - U_c(0)) = 0  (a >= 1),   sum_a exp(x_c(a)) = 1.

    Returns (lam, profile) at the first point whose regret (relative to the payoff range)
    is below each of ``targets`` (descending), for the targets reached before the trace
    ends; raises _TraceLost (with the last profile reached) if it reached none."""
    scale = float(A.max() - A.min()) or 1.0
    B = np.ascontiguousarray(A / scale, dtype=np.float64)
    br = _Branch(B, classes)
    size = max(br.sizes)
    T = np.zeros((len(br.reps), size, size, size))
    for c, t in enumerate(br.tensors):
        T[c, : t.shape[0], : t.shape[1], : t.shape[2]] = t
    opp = np.array([[classes[j], classes[m]] for j, m in br.opponents], dtype=np.int64)
    try:
        status, reached, ys, _, last = _nb_trace(
            B,
            T,
            np.array(br.sizes, dtype=np.int64),
            np.array(br.off, dtype=np.int64),
            opp,
            np.array(classes, dtype=np.int64),
            np.array(targets, dtype=np.float64),
            turn,
            FLIP_STEP,
            STEP_GROWTH,
            TRACE_STEPS,
            CORRECTOR_NOISE,
        )
    except np.linalg.LinAlgError:  # a singular R: the trace is lost
        raise _TraceLost("the symmetric logit trace lost its branch", None) from None

    def profile(y):  # each mix scaled to sum 1 (the corrector leaves the sums near it)
        sig = np.exp(y[:-1])
        return tuple(_normalised(sig[br.off[c] : br.off[c + 1]]) for c in classes)

    if reached == 0:
        what = "lost its branch" if status == 1 else "did not converge"
        raise _TraceLost(f"the symmetric logit trace {what}", profile(last))
    return [(float(y[-1]), profile(y)) for y in ys[:reached]]


def _symmetric_trace(
    A: np.ndarray, classes: list[int], target: float = SYMMETRIC_TRACE_REGRET
) -> tuple:
    """The profile of :func:`_trace_points` at one target regret."""
    return _trace_points(A, classes, [target])[0][1]


def _extrapolated(points: list[tuple[float, tuple]]) -> tuple:
    """The branch's limit estimated from its last two traced points: near a limit where a
    weight vanishes like 1/lam (a degenerate limit) the profile is p* + c / lam +
    O(1 / lam^2), and p* = p2 + (p2 - p1) lam1 / (lam2 - lam1) removes the c / lam term
    (Richardson extrapolation); weights it makes negative (those vanishing exponentially)
    are set to 0."""
    (lam1, p1), (lam2, p2) = points[-2], points[-1]
    if not lam2 > lam1 > 0:
        return p2
    out = []
    for a, b in zip(p1, p2):
        m = np.maximum(b + (b - a) * (lam1 / (lam2 - lam1)), 0.0)
        out.append(m / m.sum() if m.sum() > 0 else b)
    return tuple(out)


def _residual(A: np.ndarray, x: np.ndarray, support, offsets, extra=None):
    """The indifference system at x (the mixes on the support, stacked)."""
    mixes = []
    for i in range(3):
        m = np.zeros(A.shape[1 + i])
        m[support[i]] = x[offsets[i] : offsets[i + 1]]
        mixes.append(m)
    return _system(A, mixes, payoffs_against(A, mixes), support, offsets, extra)


def _newton(A: np.ndarray, start: tuple, support: list[np.ndarray], extra=None) -> tuple | None:
    """Polish ``start`` on ``support``: least-squares Newton on the indifference equations,
    each step halved until the residual falls (a continuum of equilibria makes the system
    singular, and a full minimum-norm step can leave the simplex).  The unknowns are the
    mixes alone, so a minimum-norm step leaves alone the mixes the equations do not fix
    (an indifferent player's keeps the traced weights)."""
    sizes = [len(s) for s in support]
    offsets = np.cumsum([0] + sizes)
    x = np.concatenate([start[i][support[i]] for i in range(3)])
    res, jac = _residual(A, x, support, offsets, extra)
    for _ in range(40):
        norm = np.abs(res).max()
        if norm < 1e-15:
            break
        step = np.linalg.lstsq(jac, -res, rcond=None)[0]
        for _ in range(30):
            trial = x + step
            new_res, new_jac = _residual(A, trial, support, offsets, extra)
            if np.isfinite(trial).all() and np.abs(new_res).max() < norm:
                break
            step = step / 2
        else:
            break
        x, res, jac = trial, new_res, new_jac
    out = []
    for i in range(3):
        m = np.zeros(A.shape[1 + i])
        m[support[i]] = x[offsets[i] : offsets[i + 1]]
        if not np.isfinite(m).all() or m.min() < -1e-12:
            return None
        out.append(_normalised(np.maximum(m, 0.0)))
    return tuple(out)


def _system(A, mixes, us, support, offsets, extra=None):
    """Residuals and Jacobian of the indifference equations u_i(a) - u_i(r_i) = 0 (r_i the
    first bid of i's support, a the rest of it) and sum_a s_i(a) = 1; the bids of
    ``extra`` (off the support) are held indifferent too, at weight 0."""
    n = offsets[-1]
    equal = [list(support[i][1:]) + list(extra[i] if extra else []) for i in range(3)]
    rows = sum(len(s) for s in equal) + 3
    res = np.zeros(rows)
    jac = np.zeros((rows, n))
    s0, s1, s2 = mixes
    # d u_i(a) / d s_j(b): the tensor contracted with the third player's mix.
    d = {
        (0, 1): np.einsum("abc,c->ab", A[0], s2),
        (0, 2): np.einsum("abc,b->ac", A[0], s1),
        (1, 0): np.einsum("abc,c->ba", A[1], s2),
        (1, 2): np.einsum("abc,a->bc", A[1], s0),
        (2, 0): np.einsum("abc,b->ca", A[2], s1),
        (2, 1): np.einsum("abc,a->cb", A[2], s0),
    }
    r = 0
    for i in range(3):
        ref = support[i][0]
        for a in equal[i]:
            res[r] = us[i][a] - us[i][ref]
            for j in range(3):
                if j != i:
                    jac[r, offsets[j] : offsets[j + 1]] = (d[(i, j)][a] - d[(i, j)][ref])[
                        support[j]
                    ]
            r += 1
    for i in range(3):
        res[r] = mixes[i][support[i]].sum() - 1.0
        jac[r, offsets[i] : offsets[i + 1]] = 1.0
        r += 1
    return res, jac


def _classes(twins: list[tuple[int, ...]]) -> list[int]:
    """Each player's class (players in one twin group share a class), numbered 0, 1, ..."""
    label = list(range(3))
    for group in twins:
        for i in group:
            label[i] = group[0]
    names = sorted(set(label))
    return [names.index(x) for x in label]


#: The axes of a player's payoff tensor after swapping two players' bids.
_SWAPS = {(0, 1): (1, 0, 2), (0, 2): (2, 1, 0), (1, 2): (0, 2, 1)}


def _payoff_twins(A: np.ndarray, twins: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """``twins`` joined by the pairs of players whom swapping leaves the game unchanged
    (within SYMMETRY_TOL): positions with different hands can still be payoff-identical,
    and the logit branch of a game symmetric under a swap is symmetric under it (the
    branch starts at the centroid and is unique until it bifurcates, which it does exactly
    there, into the asymmetric branches)."""
    scale = float(A.max() - A.min()) or 1.0
    label = _classes(twins)
    for (i, j), axes in _SWAPS.items():
        if label[i] == label[j] or A.shape[1 + i] != A.shape[1 + j]:
            continue
        p = [0, 1, 2]
        p[i], p[j] = j, i
        if all(
            np.abs(A[p[q]].transpose(axes) - A[q]).max() <= SYMMETRY_TOL * scale for q in range(3)
        ):
            label = [label[i] if x == label[j] else x for x in label]
    groups: dict[int, list[int]] = {}
    for player, c in enumerate(label):
        groups.setdefault(c, []).append(player)
    return [tuple(g) for g in groups.values() if len(g) > 1]


def _symmetrise(mixes: tuple, twins: list[tuple[int, ...]]) -> tuple:
    out = list(mixes)
    for group in twins:
        mean = sum(out[i] for i in group) / len(group)
        for i in group:
            out[i] = mean.copy()
    return tuple(out)


def _supports(A: np.ndarray, traced: tuple):
    """Candidate supports of the limit, as (support, held): the bids a trace weights above
    a cut, with the bids whose payoff is within a gap of the best either joined to the
    support or held indifferent at weight 0 (at a degenerate limit a bid whose weight falls
    like 1/lambda is a best response there, and that equation picks the limit out of a
    continuum of equilibria)."""
    scale = float(A.max() - A.min()) or 1.0
    us = payoffs_against(A, traced)
    seen = set()
    for cut in SUPPORT_CUTS:
        weighted = [tuple(np.flatnonzero(m > cut).tolist()) for m in traced]
        if not all(weighted):
            continue
        for gap in SUPPORT_GAPS:
            best = [set(np.flatnonzero(u >= u.max() - gap * scale).tolist()) for u in us]
            joined = [tuple(sorted(b.union(w))) for w, b in zip(weighted, best)]
            held = [tuple(sorted(b.difference(w))) for w, b in zip(weighted, best)]
            for support, extra in ((joined, None), (weighted, held if any(held) else None)):
                key = (tuple(support), tuple(extra) if extra else None)
                if key not in seen:
                    seen.add(key)
                    yield (
                        [np.array(x, dtype=np.int64) for x in support],
                        [np.array(x, dtype=np.int64) for x in extra] if extra else None,
                    )


def _polish(A: np.ndarray, traced: tuple, twins) -> tuple:
    """The polished profile nearest the traced one (L1) among those whose stage regret is
    at most POLISHED, over the candidate supports; if none is, the profile of least regret
    (the traced one included: a nearly singular system can stop a little short)."""
    found, fallback = [], (regret(A, traced), traced)
    for support, held in _supports(A, traced):
        polished = _newton(A, traced, support, held)
        if polished is None:
            continue
        polished = _symmetrise(polished, twins)
        r = regret(A, polished)
        if r <= POLISHED:
            found.append((sum(np.abs(p - t).sum() for p, t in zip(polished, traced)), polished))
        elif r < fallback[0]:
            fallback = (r, polished)
    if not found:
        return fallback[1]
    return min(found, key=lambda f: f[0])[1]


def _support_equilibria(A: np.ndarray, twins, near: tuple, limit: int):
    """The equilibria that support enumeration finds, in the order of their supports.

    Each combination of supports (twins sharing one), in order of the weight of ``near``
    off it, then of its size, at most ``limit`` of them, is solved by :func:`_newton` from
    ``near`` restricted to it and from its uniform profile; a profile with stage regret at
    most POLISHED is an equilibrium, yielded.  Where every combination is tried, one is the
    support of an equilibrium (Nash's theorem, in its symmetric form where there are
    twins), but Newton's method need not reach it."""
    classes = _classes(twins)
    owner = [classes.index(c) for c in range(max(classes) + 1)]
    subsets = [
        [np.array(c) for r in range(1, k + 1) for c in combinations(range(k), r)]
        for k in (A.shape[1 + i] for i in owner)
    ]

    def keyed():
        for index, chosen in enumerate(product(*subsets)):
            support = [chosen[c] for c in classes]
            off = sum(near[i].sum() - near[i][support[i]].sum() for i in range(3))
            yield (off, sum(len(x) for x in support), index), support

    for _, support in heapq.nsmallest(limit, keyed(), key=lambda c: c[0]):
        restricted, uniform = [], []
        for i in range(3):
            m = np.zeros(A.shape[1 + i])
            m[support[i]] = 1.0 / len(support[i])
            uniform.append(m)
            w = np.zeros(A.shape[1 + i])
            w[support[i]] = near[i][support[i]]
            restricted.append(w / w.sum() if w.sum() > 0 else m)
        for origin in (tuple(restricted), tuple(uniform)):
            found = _newton(A, origin, support)
            if found is None:
                continue
            found = _symmetrise(found, twins)
            if regret(A, found) <= POLISHED:
                yield found


def _nearest_support_equilibrium(
    A: np.ndarray, twins, near: tuple, limit: int = SUPPORT_ENUMERATION
) -> tuple | None:
    """Among the equilibria of :func:`_support_equilibria` (at most ``limit`` supports),
    the one nearest (L1) ``near``; None if none was found."""
    best, best_distance = None, np.inf
    for found in _support_equilibria(A, twins, near, limit):
        distance = sum(np.abs(s - t).sum() for s, t in zip(found, near))
        if distance < best_distance:
            best, best_distance = found, distance
    return best


def _our_limit(
    A: np.ndarray, twins: list[tuple[int, ...]], targets
) -> tuple[tuple | None, float, tuple | None]:
    """Our trace (within the symmetric profiles where there are twins) to each of
    ``targets``, its limit extrapolated (:func:`_extrapolated`) and polished; if that
    polish does not reach POLISHED, the last traced point polished.  Returns the polished
    profile of least regret (None where the trace reached no target), its regret, and the
    last profile the trace reached."""
    points: list = []
    last = None
    for turn in (TURN_COSINE, TURN_RETRY):  # finer steps where the first trace got nowhere
        try:
            points = _trace_points(A, _classes(twins), targets, turn)
            last = points[-1][1]
            break
        except _TraceLost as lost:
            last = lost.last if lost.last is not None else last
    starts = ([_extrapolated(points)] if len(points) > 1 else []) + [p for _, p in points[-1:]]
    best: tuple | None = None
    best_regret = np.inf
    for start in starts:
        mixes = _symmetrise(_polish(A, _symmetrise(start, twins), twins), twins)
        r = regret(A, mixes)
        if r < best_regret:
            best, best_regret = mixes, r
        if r <= POLISHED:
            break
    return best, best_regret, last


def _traced_and_polished(A: np.ndarray, twins: list[tuple[int, ...]]) -> tuple[tuple, str]:
    """The branch's limit by :func:`_our_limit` to TRACE_TARGETS.  Where our trace fails,
    pygambit's (verified: it returned non-equilibria on small degenerate stages, and kept
    twins alike, else it left the symmetric branch).  The profile of least regret wins; a
    stage that only pygambit's asymmetric end solves is ``fallback``."""
    scale = float(A.max() - A.min()) or 1.0
    best, best_regret, last = _our_limit(A, twins, TRACE_TARGETS)
    if best is not None and best_regret <= max(POLISHED, NEAR_POLISHED * scale):
        return best, "logit"
    try:
        traced = _trace(A)
    except (MemoryError, RuntimeError, SolverError):  # bad_alloc comes as RuntimeError
        traced = None
    if traced is not None and regret(A, traced) < TRACE_ACCEPT * scale:
        symmetric = all(
            np.abs(traced[i] - traced[g[0]]).max() < TWIN_MATCH for g in twins for i in g[1:]
        )
        mixes = _symmetrise(_polish(A, _symmetrise(traced, twins), twins), twins)
        r = regret(A, mixes)
        if r < best_regret:
            best, best_regret = mixes, r
            if not symmetric and r <= TRACE_ACCEPT * scale:
                return best, "fallback"
    if best is not None and best_regret <= TRACE_ACCEPT * scale:
        return best, "logit"
    # No trace ends at an equilibrium: the equilibrium nearest the trace's last point.
    uniform = tuple(np.full(k, 1.0 / k) for k in A.shape[1:])
    found = _nearest_support_equilibrium(A, twins, uniform if last is None else last)
    if found is not None:
        return found, "fallback"
    if best is None:  # nothing found: the uniform profile polished, flagged
        return _symmetrise(_polish(A, uniform, twins), twins), "fallback"
    return best, "fallback"


def solve_stage(A: np.ndarray, twins: list[tuple[int, ...]] = ()) -> StageSolution:  # type: ignore[assignment]
    """The chosen equilibrium of the stage game ``A`` (shape (3, k0, k1, k2)).

    ``twins``: groups of players whose positions are identical (the game is symmetric
    under swapping them); their mixes come out identical.
    """
    if max(A.shape[1:]) == 1:
        mixes, method = _pure(A, (0, 0, 0)), "forced"
    elif (profile := _dominance(A)) is not None:
        mixes, method = _pure(A, profile), "dominance"
    else:
        groups = _payoff_twins(A, list(twins))
        mixes, method = _traced_and_polished(A, groups)
        r = regret(A, mixes)
        if r > DEEP_ABOVE:  # a near-degenerate stage: the branch traced further
            deep, deep_regret, _ = _our_limit(A, groups, DEEP_TARGETS)
            if deep is not None and deep_regret < r:
                mixes, r = deep, deep_regret
        for limit in (REFINE_SUPPORTS, SUPPORT_ENUMERATION):
            if r <= REFINE_ABOVE:
                break
            # still: the nearest equilibrium support enumeration finds
            found = _nearest_support_equilibrium(A, groups, mixes, limit)
            if found is not None:
                mixes, r = found, regret(A, found)
    return _solution(A, mixes, method)


def _normalised(mix: np.ndarray) -> np.ndarray:
    return mix / mix.sum()


def _solution(A: np.ndarray, mixes: tuple, method: str) -> StageSolution:
    """The stage's solution: each mix scaled to sum 1 (as the certificate reads it), its
    regret and values computed from those (a mix summing to 1 + 1e-7 makes the regret of
    its unscaled form read up to 1e-7 too low, even negative)."""
    mixes = tuple(_normalised(np.asarray(m, dtype=float)) for m in mixes)
    r = regret(A, mixes)
    values = np.array([u @ s for u, s in zip(payoffs_against(A, mixes), mixes)])
    return StageSolution(mixes, values, r, method)
