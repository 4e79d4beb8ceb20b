"""One stage of the backward induction: a three-player k x k x k game, its chosen equilibrium.

The game is ``A[i, a0, a1, a2]``, player i's payoff (the round's points plus the
continuation values) when the players bid their a0-th, a1-th and a2-th cards.  Three-player
games have many equilibria, often irrational; the one chosen is defined as

    the limit, as lambda -> infinity, of the principal branch of the logit quantal-response
    correspondence (McKelvey & Palfrey 1995), the branch that starts at the uniform profile
    at lambda = 0, traced by pygambit's ``logit_solve`` (Turocy 2005),

then polished: on the support the traced limit reaches, Newton's method (least squares
steps, so that payoff-equivalent bids keep the equal weights the logit branch gives them)
solves the indifference equations

    sum_{a_-i} A[i, a, a_-i] prod_{j != i} s_j(a_j) = v_i   (a in the support of i),
    sum_a s_i(a) = 1,

to float precision.  Two shortcuts give the same profile without tracing: a one-bid player
has no choice, and a game that iterated elimination of strictly dominated bids (by a margin
of :data:`DOMINANCE_MARGIN`) reduces to one profile has that profile as its only
equilibrium, hence as the limit of every branch.  Where no trace of the branch reaches
its end (our continuation lost it and pygambit's left the symmetric profiles), the stage is
marked ``fallback``: pygambit's end made symmetric and polished, an equilibrium (its
regret is reported) but not necessarily the branch's limit.  Players with identical positions
(``twins``) get identical mixes, as the logit branch of a symmetric game is symmetric.

Invariant: every returned profile has its stage regret (each player's best gain by
deviating, in float) reported; the whole game's NashConv is certified elsewhere
(:mod:`exact.three.nashconv`).
"""

from __future__ import annotations

import resource
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from exact.errors import GopsInputError, SolverError

try:  # pygambit is the optional extra ``three``
    import pygambit as gbt  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - exercised only without the extra
    gbt = None

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
#: Memory a pygambit trace may take beyond the process's present size (bytes).
TRACE_MEMORY = 1 << 30
#: The largest regret (relative to the payoff range) of a pygambit trace we accept.
TRACE_ACCEPT = 1e-5
#: How close twins' traced mixes must be for pygambit's trace to count as symmetric.
TWIN_MATCH = 1e-6
#: Where the symmetric trace stops (regret relative to the payoff range; on the branch the
#: regret falls like 1/lambda, and the polish finishes the limit).
SYMMETRIC_TRACE_REGRET = 1e-6
SYMMETRIC_TRACE_TARGETS = (SYMMETRIC_TRACE_REGRET, 1e-8, 1e-9)


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


def _trace(A: np.ndarray) -> tuple:
    """The logit branch's limit as pygambit traces it."""
    if gbt is None:
        raise GopsInputError(
            "three-player equilibria need pygambit: pip install 'gops-exact[three]'"
        )
    # pygambit 17 builds a table game with StrategicGame.from_arrays and returns one
    # ``equilibrium``; 16.7 had Game.from_arrays and a list ``equilibria``.
    game = getattr(gbt, "StrategicGame", gbt.Game).from_arrays(A[0], A[1], A[2])
    with _memory_cap(TRACE_MEMORY):
        result = gbt.nash.logit_solve(game, use_strategic=True, maxregret=TRACE_REGRET)
    found = getattr(result, "equilibria", None)
    if found is None:
        found = [result.equilibrium] if getattr(result, "equilibrium", None) is not None else []
    if not found:
        raise SolverError("pygambit's logit trace returned no equilibrium")
    eq = found[0]
    return tuple(_mix(eq, player) for player in game.players)


def _mix(eq, player) -> np.ndarray:
    """One player's mix of a pygambit profile, in strategy order (16.7: Player objects and
    eq[strategy]; 17: player labels and eq[label] as (label, probability) pairs)."""
    if hasattr(player, "strategies"):
        return np.array([float(eq[s]) for s in player.strategies])
    return np.array([float(prob) for _, prob in eq[player]])


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


def _class_payoffs(br: _Branch, sig: list[np.ndarray]):
    """U_c(a) for each class's representative, and dU_c(a)/dsigma_m(b) (through every
    opponent of class m)."""
    s = [sig[br.classes[p]] for p in range(3)]
    U, D = [], []
    for c, (j, m) in enumerate(br.opponents):
        dj = br.tensors[c] @ s[m]  # (a, b): the second opponent summed out
        dm = br.swapped[c] @ s[j]  # (a, c): the first opponent summed out
        U.append(dj @ s[j])
        row = [np.zeros((br.sizes[c], len(x))) for x in sig]
        row[br.classes[j]] += dj
        row[br.classes[m]] += dm
        D.append(row)
    return U, D


def _homotopy(br: _Branch, x, lam):
    """H(x, lam) = 0 on the logit branch (x: log-probabilities per class) and its Jacobian
    with respect to (x, lam)."""
    sizes, off = br.sizes, br.off
    sig = [np.exp(x[off[c] : off[c + 1]]) for c in range(len(sizes))]
    U, D = _class_payoffs(br, sig)
    n = off[-1]
    H = np.zeros(n)
    J = np.zeros((n, n + 1))
    for c, k in enumerate(sizes):
        r0 = off[c]
        # x_c(a) - x_c(0) - lam (U_c(a) - U_c(0)) = 0, a >= 1;  sum_a exp(x_c(a)) = 1
        H[r0 : r0 + k - 1] = x[r0 + 1 : r0 + k] - x[r0] - lam * (U[c][1:] - U[c][0])
        H[r0 + k - 1] = sig[c].sum() - 1.0
        rows = slice(r0, r0 + k - 1)
        J[rows, r0 + 1 : r0 + k] += np.eye(k - 1)
        J[rows, r0] -= 1.0
        for m in range(len(sizes)):
            dU = (D[c][m][1:] - D[c][m][0]) * sig[m]  # d/dx = d/dsigma * sigma
            J[rows, off[m] : off[m + 1]] -= lam * dU
        J[rows, n] = -(U[c][1:] - U[c][0])
        J[r0 + k - 1, r0 : r0 + k] = sig[c]
    return H, J, sig


def _tangent(J: np.ndarray, previous) -> np.ndarray:
    """The unit null vector of the n x (n + 1) Jacobian, oriented along ``previous``
    (at the start: lambda increasing)."""
    t = np.linalg.svd(J)[2][-1]
    if previous is None:
        return t if t[-1] > 0 else -t
    return t if t @ previous >= 0 else -t


def _corrected(br: _Branch, z):
    """Newton's corrector (minimum-norm steps) back onto H = 0, or None."""
    for _ in range(8):
        Hz, Jz, _ = _homotopy(br, z[:-1], z[-1])
        dz = np.linalg.lstsq(Jz, -Hz, rcond=None)[0]
        z = z + dz
        if not np.isfinite(z).all():
            return None
        if np.abs(dz).max() < 1e-10:
            break
    if z[-1] < 0 or np.abs(_homotopy(br, z[:-1], z[-1])[0]).max() > 1e-8:
        return None
    return z


def _symmetric_trace(
    A: np.ndarray, classes: list[int], target: float = SYMMETRIC_TRACE_REGRET
) -> tuple:
    """The logit branch within the profiles where players of one class mix alike: pseudo
    arc-length continuation of H(x, lam) = 0 from the centroid at lam = 0 (the method of
    Turocy 2005: tangent predictor, Newton corrector, adaptive step), until the profile's
    regret (relative to the payoff range) is below ``target``."""
    scale = float(A.max() - A.min()) or 1.0
    B = A / scale
    br = _Branch(B, classes)
    sizes = br.sizes
    y = np.concatenate([np.full(k, -np.log(k)) for k in sizes] + [np.zeros(1)])
    h, tangent = 0.1, None
    for _ in range(5_000):
        H, J, sig = _homotopy(br, y[:-1], y[-1])
        profile = tuple(sig[c] for c in classes)
        if y[-1] > 0 and regret(B, profile) < target:
            return profile
        t = _tangent(J, tangent)
        while True:
            z = _corrected(br, y + h * t)
            if z is not None and np.linalg.norm(z - y - h * t) < 0.1 * h:
                t_new = _tangent(_homotopy(br, z[:-1], z[-1])[1], t)
                if t_new @ t > TURN_COSINE:  # a small turn: the same branch, same way
                    break
            h /= 2
            if h < 1e-12:
                raise SolverError("the symmetric logit trace lost its branch")
        y, tangent = z, t
        h = min(h * 1.5, 1.0 + 0.2 * y[-1])
    raise SolverError("the symmetric logit trace did not converge")


def _traced(A: np.ndarray, twins: list[tuple[int, ...]], target: float) -> tuple:
    """The branch's end.  Without twins: pygambit's trace, verified (it stopped short of an
    equilibrium on small degenerate stages), else ours.  With twins: ours, within the
    symmetric profiles (pygambit's can leave the symmetric branch at a bifurcation); if
    ours loses the branch, pygambit's where it kept twins alike."""
    scale = float(A.max() - A.min()) or 1.0
    if not twins:
        try:
            traced = _trace(A)
        except MemoryError:  # a runaway trace (see _memory_cap): ours instead
            return _symmetric_trace(A, [0, 1, 2], target)
        if regret(A, traced) < TRACE_ACCEPT * scale:
            return traced
        return _symmetric_trace(A, [0, 1, 2], target)
    try:
        return _symmetric_trace(A, _classes(twins), target)
    except SolverError:
        try:
            traced = _trace(A)
        except MemoryError:
            raise SolverError("neither trace reached the branch's end") from None
        symmetric = all(
            np.abs(traced[i] - traced[g[0]]).max() < TWIN_MATCH for g in twins for i in g[1:]
        )
        if symmetric and regret(A, traced) < TRACE_ACCEPT * scale:
            return traced
        raise


def _residual(A: np.ndarray, x: np.ndarray, support, offsets, extra=None):
    """The indifference system at x (mixes on the support; v set to the mixes' values)."""
    mixes = []
    for i in range(3):
        m = np.zeros(A.shape[1 + i])
        m[support[i]] = x[offsets[i] : offsets[i + 1]]
        mixes.append(m)
    us = payoffs_against(A, mixes)
    v = np.array([us[i][support[i]] @ mixes[i][support[i]] for i in range(3)])
    return _system(A, mixes, us, support, offsets, v, extra)


def _newton(A: np.ndarray, start: tuple, support: list[np.ndarray], extra=None) -> tuple | None:
    """Polish ``start`` on ``support``: least-squares Newton on the indifference equations,
    each step halved until the residual falls (a continuum of equilibria makes the system
    singular, and a full minimum-norm step can leave the simplex)."""
    sizes = [len(s) for s in support]
    offsets = np.cumsum([0] + sizes)
    x = np.concatenate([start[i][support[i]] for i in range(3)] + [np.zeros(3)])
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
        m = np.maximum(m, 0.0)
        out.append(m / m.sum())
    return tuple(out)


def _system(A, mixes, us, support, offsets, v, extra=None):
    """Residuals and Jacobian of the indifference equations (unknowns: mixes, then v); the
    bids of ``extra`` (off the support) are held indifferent too, at weight 0."""
    n = offsets[-1]
    equal = [list(support[i]) + list(extra[i] if extra else []) for i in range(3)]
    rows = sum(len(s) for s in equal) + 3
    res = np.zeros(rows)
    jac = np.zeros((rows, n + 3))
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
        for a in equal[i]:
            res[r] = us[i][a] - v[i]
            for j in range(3):
                if j != i:
                    jac[r, offsets[j] : offsets[j + 1]] = d[(i, j)][a, support[j]]
            jac[r, n + i] = -1.0
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
    seen = []
    for cut in SUPPORT_CUTS:
        for gap in SUPPORT_GAPS:
            weighted = [np.flatnonzero(m > cut) for m in traced]
            best = [np.flatnonzero(u >= u.max() - gap * scale) for u in us]
            joined = [np.union1d(w, b) for w, b in zip(weighted, best)]
            held = [np.setdiff1d(b, w) for w, b in zip(weighted, best)]
            for candidate in ((joined, None), (weighted, held)):
                key = tuple(tuple(x) for part in candidate if part for x in part)
                if key not in seen and all(len(w) for w in candidate[0]):
                    seen.append(key)
                    yield candidate


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


def _traced_and_polished(A: np.ndarray, twins: list[tuple[int, ...]]) -> tuple[tuple, str]:
    """The trace's end polished; where no polish reaches POLISHED, our own trace follows
    the branch further (each of SYMMETRIC_TRACE_TARGETS) and is polished again (at a
    degenerate limit the support shows only late).  The profile of least regret wins."""
    best, best_regret = None, np.inf
    for attempt, target in enumerate(SYMMETRIC_TRACE_TARGETS):
        try:
            if attempt == 0:
                traced = _traced(A, twins, target)
            else:
                traced = _symmetric_trace(A, _classes(twins), target)
        except SolverError:
            continue
        traced = _symmetrise(traced, twins)
        mixes = _symmetrise(_polish(A, traced, twins), twins)
        r = regret(A, mixes)
        if r < best_regret:
            best, best_regret = mixes, r
        if best_regret <= POLISHED:
            break
    if best is None or best_regret > POLISHED:
        # Last resort (counted as "fallback"): pygambit's trace made symmetric, polished.
        try:
            traced = _symmetrise(_trace(A), twins)
        except MemoryError:
            if best is None:
                raise SolverError("no trace reached the logit branch's end") from None
            return best, "logit"
        mixes = _symmetrise(_polish(A, traced, twins), twins)
        if best is None or regret(A, mixes) < best_regret:
            return mixes, "fallback"
    return best, "logit"


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
        mixes, method = _traced_and_polished(A, list(twins))
    values = np.array([u @ s for u, s in zip(payoffs_against(A, mixes), mixes)])
    return StageSolution(mixes, values, regret(A, mixes), method)
