"""The polish of a traced profile: Newton's method on the indifference equations of a
support, and the stage regret that judges a profile.

On a support read off a traced point (each cut of :data:`SUPPORT_CUTS`, each payoff gap of
:data:`SUPPORT_GAPS`), Newton's method (least-squares steps, the mixes alone the unknowns,
so that the weights the equations leave free keep the branch's values) solves

    sum_{a_-i} A[i, a, a_-i] prod_{j != i} s_j(a_j) equal over the support of i,
    sum_a s_i(a) = 1,

to float precision (:func:`newton`); :func:`polish` keeps the polished profile nearest the
traced one whose regret is at most :data:`POLISHED`.  Players with identical positions
(``twins``), or whom swapping leaves every payoff unchanged (:func:`payoff_twins`), get
identical mixes (:func:`symmetrise`).

Invariant: :func:`regret` is each player's best gain by deviating to a pure bid, in float;
every profile this module returns has been judged by it.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "POLISHED",
    "classes_of",
    "newton",
    "normalised",
    "payoff_twins",
    "payoffs_against",
    "polish",
    "regret",
    "symmetrise",
]

#: A traced probability below a cut is read as off the support; each cut is tried (an
#: off-support weight falls exponentially along the branch, or like 1/lambda where the
#: limit is degenerate).
SUPPORT_CUTS = (1e-7, 1e-5, 1e-3, 1e-2, 3e-2)
#: Payoff gaps (relative to the payoff range) within which a bid joins the support.
SUPPORT_GAPS = (0.0, 1e-7, 1e-5)
#: The stage regret at which the polish is accepted (float rounding of the tensor sums).
POLISHED = 1e-13
#: Two players are twins of the payoffs when swapping them changes no payoff by more than
#: this (relative to the payoff range): float rounding of equal continuation values.
SYMMETRY_TOL = 1e-12


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


def normalised(mix: np.ndarray) -> np.ndarray:
    return mix / mix.sum()


def _residual(A: np.ndarray, x: np.ndarray, support, offsets, extra=None):
    """The indifference system at x (the mixes on the support, stacked)."""
    mixes = []
    for i in range(3):
        m = np.zeros(A.shape[1 + i])
        m[support[i]] = x[offsets[i] : offsets[i + 1]]
        mixes.append(m)
    return _system(A, mixes, payoffs_against(A, mixes), support, offsets, extra)


def newton(A: np.ndarray, start: tuple, support: list[np.ndarray], extra=None) -> tuple | None:
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
        out.append(normalised(np.maximum(m, 0.0)))
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


def classes_of(twins: list[tuple[int, ...]]) -> list[int]:
    """Each player's class (players in one twin group share a class), numbered 0, 1, ..."""
    label = list(range(3))
    for group in twins:
        for i in group:
            label[i] = group[0]
    names = sorted(set(label))
    return [names.index(x) for x in label]


_SWAPS = {(0, 1): (1, 0, 2), (0, 2): (2, 1, 0), (1, 2): (0, 2, 1)}


def payoff_twins(A: np.ndarray, twins: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """``twins`` joined by the pairs of players whom swapping leaves the game unchanged
    (within SYMMETRY_TOL): positions with different hands can still be payoff-identical,
    and the logit branch of a game symmetric under a swap is symmetric under it (the
    branch starts at the centroid and is unique until it bifurcates, which it does exactly
    there, into the asymmetric branches)."""
    scale = float(A.max() - A.min()) or 1.0
    label = classes_of(twins)
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


def symmetrise(mixes: tuple, twins: list[tuple[int, ...]]) -> tuple:
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


def polish(A: np.ndarray, traced: tuple, twins) -> tuple:
    """The polished profile nearest the traced one (L1) among those whose stage regret is
    at most POLISHED, over the candidate supports; if none is, the profile of least regret
    (the traced one included: a nearly singular system can stop a little short)."""
    found, fallback = [], (regret(A, traced), traced)
    for support, held in _supports(A, traced):
        polished = newton(A, traced, support, held)
        if polished is None:
            continue
        polished = symmetrise(polished, twins)
        r = regret(A, polished)
        if r <= POLISHED:
            found.append((sum(np.abs(p - t).sum() for p, t in zip(polished, traced)), polished))
        elif r < fallback[0]:
            fallback = (r, polished)
    if not found:
        return fallback[1]
    return min(found, key=lambda f: f[0])[1]
