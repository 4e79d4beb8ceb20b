"""Both players' best-response values in imperfect-information Goofspiel (float64, numba),
over the flat tables of :mod:`exact.imperfect.tables`.

The method is the best response by counterfactual values over information sets, as
Johanson, Waugh, Bowling & Zinkevich compute it ("Accelerating best response calculation
in large extensive games", IJCAI 2011, pp. 258-265): the opponent's and chance's reach
carried down the tree in one walk, each information set's action values summed over its
histories, then the max (NashConv as in Lanctot et al., "A Unified Game-Theoretic
Approach to Multiagent Reinforcement Learning", NIPS 2017).  For player i, with pi_-i(h)
the product of chance's and the opponent's probabilities on the way to history h:

1. :func:`_walk` (top down, depth first, once for both players): every history h of the
   last decision round L = max(N - 2, 0) (prizes, both bid sequences) is reached with
   pi_-0(h) and pi_-1(h); there, for each own bid a,

       Q_i(I, a) += pi_-i(h) * sum_b sigma_-i(I_-i(h), b) u_i(h a b)

   where I = I_i(h) and u_i(h a b) is i's return once the last round has played itself.
   Branches that both reaches leave at 0 are cut (they add 0).
2. :func:`_best_responses` (bottom up over i's information sets, round L to 0): by
   perfect recall the histories of I a split into i's next information sets J = I a w p
   (w the round's winner, p the next prize), so

       V(I) = max_a Q_i(I, a),    Q_i(I, a) = sum_{w, p} V(I a w p)   (rounds < L)

   and i's best-response value is the sum of V over the first round's information sets
   (one per first prize, chance's 1/N already in the reach).

Work: one visit per history of rounds 0..L and N_-i bids per last-round history, no
dictionary; a row of a table is computed from the key's mixed-radix parts.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["best_response_actions", "best_response_values"]


@numba.njit(cache=True, nogil=True)
def _rank(mask, card):
    """The rank (from 0) of ``card`` among the cards 1..N not in ``mask`` (bit card - 1)."""
    rank = card - 1
    below = mask & ((1 << (card - 1)) - 1)
    while below:
        below &= below - 1
        rank -= 1
    return rank


@numba.njit(cache=True, nogil=True)
def _only(mask, n):
    """The one card 1..N not in ``mask``."""
    for card in range(1, n + 1):
        if not mask & (1 << (card - 1)):
            return card
    return 0


@numba.njit(cache=True, nogil=True)
def _final(diff, win):
    """Player 0's return from its final point lead (OpenSpiel's units)."""
    if win:
        return 1.0 if diff > 0 else -1.0 if diff < 0 else 0.0
    return diff / 2.0


@numba.njit(cache=True, nogil=True)
def _return0(n, win, pmask, prize, amask, bmask, diff, a, b):
    """Player 0's return once player 0 bids a, player 1 bids b in the last decision
    round, and (N >= 2) the last round plays itself."""
    if a > b:
        diff += prize
    elif b > a:
        diff -= prize
    if n >= 2:
        last_prize = _only(pmask, n)
        c0 = _only(amask | (1 << (a - 1)), n)
        c1 = _only(bmask | (1 << (b - 1)), n)
        if c0 > c1:
            diff += last_prize
        elif c1 > c0:
            diff -= last_prize
    return _final(diff, win)


@numba.njit(cache=True, nogil=True)
def _leaf(
    n, win, pmask, prize, amask, bmask, diff, reach0, reach1, key0, key1, last0, sig0, sig1, q0, q1
):
    """Step 1 at a history of the last decision round: both players' Q."""
    if reach0 != 0.0:
        for a in range(1, n + 1):
            if amask & (1 << (a - 1)):
                continue
            total = 0.0
            for b in range(1, n + 1):
                if not bmask & (1 << (b - 1)):
                    total += sig1[key1, b - 1] * _return0(
                        n, win, pmask, prize, amask, bmask, diff, a, b
                    )
            q0[key0 - last0, a - 1] += reach0 * total
    if reach1 != 0.0:
        for b in range(1, n + 1):
            if bmask & (1 << (b - 1)):
                continue
            total = 0.0
            for a in range(1, n + 1):
                if not amask & (1 << (a - 1)):
                    total -= sig0[key0, a - 1] * _return0(
                        n, win, pmask, prize, amask, bmask, diff, a, b
                    )
            q1[key1 - last0, b - 1] += reach1 * total


#: The fields of a history on :func:`_walk`'s stack.
PMASK, PIDX, PRIZE, AMASK, AIDX, BMASK, BIDX, WIDX, DIFF, NEXT = range(10)


@numba.njit(cache=True, nogil=True)
def _walk(root, reach, g, t):
    """Step 1 (module docstring) below one history of round 0, depth first with an
    explicit stack (numba's cache does not keep recursive functions).  A history is the
    int64 fields above: the prizes turned up (bit mask, number, the current one), player
    0's bids (mask, number), player 1's, the winners' number, player 0's lead, and the
    next (bid, bid, prize) choice to try, numbered (a - 1) n_b n_p + (b - 1) n_p + p - 1;
    ``reach`` is (pi_-0, pi_-1) of the root.  ``g`` is (N, L, order code, win), ``t``
    the tables (fixed prizes, own_sequences, offsets, sigma_0, sigma_1, Q_0, Q_1)."""
    n, last, order, win = g[0], g[1], g[2], g[3]
    fixed, own_seqs, offsets, sig0, sig1, q0, q1 = t
    stack = np.zeros((last + 1, 10), dtype=np.int64)
    reaches = np.zeros((last + 1, 2))
    stack[0] = root
    reaches[0] = reach
    n_p = n if order == 0 else 1  # prize choices after a round
    r = 0
    while r >= 0:
        h = stack[r]
        pow3 = 3**r
        key0 = offsets[r] + (h[PIDX] * own_seqs[r] + h[AIDX]) * pow3 + h[WIDX]
        key1 = offsets[r] + (h[PIDX] * own_seqs[r] + h[BIDX]) * pow3 + h[WIDX]
        if r == last:
            _leaf(
                n, win, h[PMASK], h[PRIZE], h[AMASK], h[BMASK], h[DIFF], reaches[r, 0],
                reaches[r, 1], key0, key1, offsets[last], sig0, sig1, q0, q1,
            )  # fmt: skip
            r -= 1
            continue
        while h[NEXT] < n * n * n_p:  # the next (a, b, p) that is legal and reached
            k = h[NEXT]
            h[NEXT] += 1
            a, b, p = k // (n * n_p) + 1, (k // n_p) % n + 1, k % n_p + 1
            if order != 0:
                p = fixed[r + 1]
            elif h[PMASK] & (1 << (p - 1)):
                continue
            if h[AMASK] & (1 << (a - 1)) or h[BMASK] & (1 << (b - 1)):
                continue
            chance = 1.0 / (n - r - 1) if order == 0 else 1.0
            r0 = reaches[r, 0] * sig1[key1, b - 1] * chance
            r1 = reaches[r, 1] * sig0[key0, a - 1] * chance
            if r0 == 0.0 and r1 == 0.0:
                continue
            c = stack[r + 1]
            c[PMASK] = h[PMASK] | (1 << (p - 1))
            c[PIDX] = h[PIDX] * (n - r - 1) + _rank(h[PMASK], p) if order == 0 else 0
            c[PRIZE] = p
            c[AMASK], c[BMASK] = h[AMASK] | (1 << (a - 1)), h[BMASK] | (1 << (b - 1))
            c[AIDX] = h[AIDX] * (n - r) + _rank(h[AMASK], a)
            c[BIDX] = h[BIDX] * (n - r) + _rank(h[BMASK], b)
            w = 0 if a > b else 1 if b > a else 2
            c[WIDX] = h[WIDX] + w * pow3
            c[DIFF] = h[DIFF] + (h[PRIZE] if w == 0 else -h[PRIZE] if w == 1 else 0)
            c[NEXT] = 0
            reaches[r + 1, 0], reaches[r + 1, 1] = r0, r1
            r += 1
            break
        else:
            r -= 1


@numba.njit(cache=True, nogil=True)
def _decode(index, digits, n):
    """The set (bit mask) of the first ``digits`` cards of a sequence numbered ``index``
    in the mixed radix N, N - 1, ... (:mod:`exact.imperfect.tables`)."""
    ranks = np.empty(max(digits, 1), dtype=np.int64)
    for j in range(digits - 1, -1, -1):
        ranks[j] = index % (n - j)
        index //= n - j
    mask = 0
    for j in range(digits):
        seen = -1
        for card in range(1, n + 1):
            if not mask & (1 << (card - 1)):
                seen += 1
                if seen == ranks[j]:
                    mask |= 1 << (card - 1)
                    break
    return mask


@numba.njit(cache=True, nogil=True)
def _best_responses(n, last, order, prize_seqs, own_seqs, offsets, q, values, actions):
    """Step 2 (module docstring) for one player: ``values[row]`` = V of every decision,
    from the last round's ``q`` up, and where ``actions`` has rows, ``actions[row, a - 1]``
    = Q(I, a) of every legal bid (-inf elsewhere); returns the best-response value."""
    keep = actions.shape[0] > 0
    for r in range(last, -1, -1):
        pow3 = 3**r
        left = n - r - 1
        for pidx in range(prize_seqs[r]):
            pmask = _decode(pidx, r + 1, n) if order == 0 else 0
            for sidx in range(own_seqs[r]):
                own = _decode(sidx, r, n)
                for widx in range(pow3):
                    row = offsets[r] + (pidx * own_seqs[r] + sidx) * pow3 + widx
                    best = -np.inf
                    for a in range(1, n + 1):
                        if own & (1 << (a - 1)):
                            continue
                        if r == last:
                            value = q[row - offsets[last], a - 1]
                        else:
                            value = 0.0
                            sidx2 = sidx * (n - r) + _rank(own, a)
                            for w in range(3):
                                widx2 = widx + w * pow3 * 1
                                if order != 0:
                                    value += values[offsets[r + 1] + sidx2 * pow3 * 3 + widx2]
                                    continue
                                for p in range(1, n + 1):
                                    if pmask & (1 << (p - 1)):
                                        continue
                                    pidx2 = pidx * left + _rank(pmask, p)
                                    value += values[
                                        offsets[r + 1]
                                        + (pidx2 * own_seqs[r + 1] + sidx2) * pow3 * 3
                                        + widx2
                                    ]
                        if keep:
                            actions[row, a - 1] = value
                        if value > best:
                            best = value
                    values[row] = best
    total = 0.0
    for row in range(offsets[0], offsets[1]):
        total += values[row]
    return total


def best_response_values(layout, sig0: np.ndarray, sig1: np.ndarray) -> tuple[float, float]:
    """Player 0's and player 1's best-response values against ``sig1`` and ``sig0``
    (``sigma[row, card - 1]`` as :func:`exact.imperfect.tables.policy_arrays` builds them).

    Two cards, descending, uniform: each best response is worth 1/4 (bid 2 on the prize 2;
    tests/test_imperfect_nashconv.py::test_hand_derived_two_cards derives it by hand).

    >>> from exact.imperfect.game import ImperfectGame
    >>> from exact.imperfect.policy import uniform_policy
    >>> from exact.imperfect.tables import layout, policy_arrays
    >>> game = ImperfectGame.parse(2, "descending", "points")
    >>> where = layout(game)
    >>> best_response_values(where, *policy_arrays(where, uniform_policy(game)))
    (0.25, 0.25)
    """
    values, _ = _best_response(layout, sig0, sig1, keep=False)
    return values


def best_response_actions(
    layout, sig0: np.ndarray, sig1: np.ndarray
) -> tuple[tuple[float, float], tuple[np.ndarray, np.ndarray]]:
    """Both best-response values (as :func:`best_response_values`) and each player's
    counterfactual best-response action values ``Q[row, card - 1]`` (step 2: the bid,
    then a best response; -inf at cards already bid; 0 at rows the opponent and chance
    never reach).

    >>> from exact.imperfect.game import ImperfectGame
    >>> from exact.imperfect.policy import uniform_policy
    >>> from exact.imperfect.tables import layout, policy_arrays
    >>> game = ImperfectGame.parse(2, "descending", "points")
    >>> where = layout(game)
    >>> _, (q0, q1) = best_response_actions(where, *policy_arrays(where, uniform_policy(game)))
    >>> q0[0].tolist()  # bid 1 on the prize 2: lose it half the time; bid 2: win or tie
    [-0.25, 0.25]
    """
    return _best_response(layout, sig0, sig1, keep=True)


def _best_response(layout, sig0, sig1, keep: bool):
    a = layout.arrays()
    n, last, order, win = layout.n, layout.last, layout.order, layout.objective_win
    fixed, prize_seqs, own_seqs, offsets = (
        a["fixed"],
        a["prize_sequences"],
        a["own_sequences"],
        a["offsets"],
    )
    q0 = np.zeros((layout.last_rows, n))
    q1 = np.zeros((layout.last_rows, n))
    g = np.array([n, last, order, int(win)], dtype=np.int64)
    t = (fixed, own_seqs, offsets, sig0, sig1, q0, q1)
    firsts = [int(fixed[0])] if order != 0 else list(range(1, n + 1))
    chance = 1.0 if order != 0 else 1.0 / n
    for p in firsts:
        root = np.zeros(10, dtype=np.int64)
        root[PMASK], root[PIDX], root[PRIZE] = 1 << (p - 1), p - 1 if order == 0 else 0, p
        _walk(root, np.array([chance, chance]), g, t)
    values = np.zeros(layout.rows)
    shape = (layout.rows if keep else 0, n)
    actions = (np.full(shape, -np.inf), np.full(shape, -np.inf))
    v0 = _best_responses(n, last, order, prize_seqs, own_seqs, offsets, q0, values, actions[0])
    v1 = _best_responses(n, last, order, prize_seqs, own_seqs, offsets, q1, values, actions[1])
    return (float(v0), float(v1)), actions
