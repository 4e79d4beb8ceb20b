"""Our trace of the logit principal branch: pseudo-arc-length continuation, compiled.

The branch of the logit quantal-response correspondence (McKelvey & Palfrey 1995) that
starts at the uniform profile at lambda = 0 is followed by the method of Turocy 2005
(tangent predictor, Newton corrector, adaptive step), within the profiles where players of
one class (twins) mix alike, and oriented by the sign of det([J; t]) (Allgower & Georg
1990), so that it passes turning points; where that sign changes (a simple bifurcation
point: in degenerate stages the branch can cross another) the trace keeps its direction.
:func:`trace_points` records the branch at relative regrets :data:`TRACE_TARGETS`;
:func:`extrapolated` estimates its limit from the last two.

Invariant: nothing here decides which equilibrium a stage takes (:mod:`exact.three.stage`
does); a trace that reaches no target raises :class:`TraceLost` with its last profile.
"""

from __future__ import annotations

import numba
import numpy as np

from exact.errors import SolverError
from exact.three.polish import normalised

__all__ = [
    "DEEP_TARGETS",
    "TRACE_TARGETS",
    "TraceLost",
    "extrapolated",
    "symmetric_trace",
    "trace_points",
]

#: Successive tangents of the symmetric trace must agree this well (cosine), else the
#: step is halved: a larger turn may have jumped to another part of the curve.
TURN_COSINE = 0.95
#: The same for a second trace where the first reached no target regret (a degenerate
#: stage, its branch crossing bifurcations: one N = 5 third-rule stage of 6,255).
TURN_RETRY = 0.99
#: Where the symmetric trace stops (regret relative to the payoff range; on the branch the
#: regret falls like 1/lambda, and the polish finishes the limit).
SYMMETRIC_TRACE_REGRET = 1e-6
#: The regrets (relative to the payoff range) at which the trace's points are kept: the
#: last two give the extrapolated limit (:func:`extrapolated`).
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
#: The trace crosses a bifurcation point (its tangent reversed by the orientation) only
#: at steps shorter than this (arc length).
FLIP_STEP = 1e-3
#: A step (arc length) is at most 1 + STEP_GROWTH * lambda: far along the branch it is
#: nearly straight (x falls linearly in lambda) and lambda may grow geometrically.
STEP_GROWTH = 0.2
#: The most predictor-corrector steps of one symmetric trace.
TRACE_STEPS = 1_000


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
    """The pseudo-arc-length trace of :func:`trace_points`: returns (status, reached, ys,
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


class TraceLost(SolverError):
    """The symmetric trace reached no target; ``last`` is the last profile it reached."""

    def __init__(self, message: str, last: tuple | None):
        super().__init__(message)
        self.last = last


def trace_points(
    A: np.ndarray, classes: list[int], targets, turn: float = TURN_COSINE
) -> list[tuple[float, tuple]]:
    """The logit branch within the profiles where players of one class mix alike: pseudo
    arc-length continuation of H(x, lam) = 0 from the centroid at lam = 0 (the method of
    Turocy 2005: tangent predictor, Newton corrector, adaptive step).  H, with x the
    log-probabilities of each class's representative and U_c its payoffs, is

        x_c(a) - x_c(0) - lam (U_c(a) - U_c(0)) = 0  (a >= 1),   sum_a exp(x_c(a)) = 1.

    Returns (lam, profile) at the first point whose regret (relative to the payoff range)
    is below each of ``targets`` (descending), for the targets reached before the trace
    ends; raises TraceLost (with the last profile reached) if it reached none."""
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
        raise TraceLost("the symmetric logit trace lost its branch", None) from None

    def profile(y):  # each mix scaled to sum 1 (the corrector leaves the sums near it)
        sig = np.exp(y[:-1])
        return tuple(normalised(sig[br.off[c] : br.off[c + 1]]) for c in classes)

    if reached == 0:
        what = "lost its branch" if status == 1 else "did not converge"
        raise TraceLost(f"the symmetric logit trace {what}", profile(last))
    return [(float(y[-1]), profile(y)) for y in ys[:reached]]


def symmetric_trace(
    A: np.ndarray, classes: list[int], target: float = SYMMETRIC_TRACE_REGRET
) -> tuple:
    """The profile of :func:`trace_points` at one target regret."""
    return trace_points(A, classes, [target])[0][1]


def extrapolated(points: list[tuple[float, tuple]]) -> tuple:
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
