"""How the games of one state's upcards combine into its value and certified error bound.

One state of either objective (a points item, a win (item, lead)) solves the matrix game
f_u of each upcard u its prize order turns up (``upcard_range``) and combines them
(exact.game.orders):

    random              f = (1/k) sum_u f_u
    ascending           f = f_{min P}            (the one game of its upcard)
    descending          f = f_{max P}
    controlled-by-me    f = max_u f_u
    controlled-by-them  f = min_u f_u

Each f_u is within its bound e_u (certified_game) plus the radius r of the level below of
its exact value.  The certified bound of f (exact.kernels.points, module docstring):

    random              sum_u e_u / k + r + 3 gamma_k max_u |f_u|   (the mean's rounding)
    the others          max_u e_u + r          (|max v - max v*| <= max |v - v*|: no rounding)

A NaN bound among the e_u makes the bound NaN, which the kernels turn into infinity.

Usage, on scalars (the kernels keep them in arrays or locals as suits their loop order):

    acc, err, big = initial_acc(order), 0.0, 0.0
    for m in range(*upcard_range(order, k)):
        acc, err, big = fold(order, acc, err, big, v_m, e_m)   # m = lo..hi-1, in order
    value, bound = finish(order, acc, err, big, k, radius_below)

Invariant: the floating-point operations and their order (m = lo..hi-1) are fixed; the
stored values of every store depend on them bit for bit.  Each function here is a body
(exact.kernels.target): the CPU's and the GPU's kernels compile this one source.
"""

from __future__ import annotations

import math

import numba

import exact.game.orders as orders
from exact.kernels.bounds import gamma
from exact.kernels.matrix_game import NO_REFCOUNT
from exact.kernels.target import compile_bodies

# The prize orders' codes (exact.game.orders.PrizeOrder.code): module-level integers, which
# numba compiles in as constants.
RANDOM = orders.RANDOM.code
ASCENDING = orders.ASCENDING.code
DESCENDING = orders.DESCENDING.code
CONTROLLED_BY_ME = orders.CONTROLLED_BY_ME.code
CONTROLLED_BY_THEM = orders.CONTROLLED_BY_THEM.code


def mirrored(order):
    """Whether the prize order is antisymmetric (exact.game.orders.PrizeOrder.antisymmetric):
    swapping the hands negates every value, f(swap p) = -f(p), so a level keeps one pattern
    of each mirror pair.  The symmetric orders are the ones that no player chooses."""
    return order <= DESCENDING


def upcard_range(order, k):
    """The upcards (by rank in the prize set) whose games a state solves: the one a known
    order turns up, or all k (exact.game.orders.PrizeOrder.upcard_indices)."""
    if order == ASCENDING:
        return 0, 1
    if order == DESCENDING:
        return k - 1, k
    return 0, k


def initial_acc(order):
    """The accumulator before any game: -inf for max, +inf for min, 0 otherwise."""
    if order == CONTROLLED_BY_ME:
        return -math.inf
    if order == CONTROLLED_BY_THEM:
        return math.inf
    return 0.0


def fold(order, acc, err, big, v, e):
    """(acc, err, big) after one more game of value ``v`` and bound ``e``: under the random
    order the running sums of the values and bounds and the largest |value|; under a known
    order the one game; under a controlled one the chooser's max (min) of the values and
    the largest bound (NaN once any bound is NaN)."""
    if order == RANDOM:
        return acc + v, err + e, max(big, abs(v))
    if order == CONTROLLED_BY_ME:
        acc = max(acc, v)
    elif order == CONTROLLED_BY_THEM:
        acc = min(acc, v)
    else:
        acc = v
    err = max(err, e) if e == e and err == err else math.nan
    return acc, err, big


def finish(order, acc, err, big, k, radius_below):
    """(value, certified bound) of a state from its folded (acc, err, big), its k cards
    and the radius of the level below (module docstring)."""
    if order == RANDOM:
        return acc / k, err / k + radius_below + 3.0 * gamma(k) * big
    return acc, err + radius_below


#: The bodies above, one source for the CPU (compiled below, under their own names) and
#: the GPU (exact.cuda.levels compiles them with exact.kernels.bounds.gamma's).
BODIES = (mirrored, upcard_range, initial_acc, fold, finish)
_CPU = compile_bodies(numba.njit(cache=True, nogil=True, **NO_REFCOUNT), BODIES)
mirrored = _CPU.mirrored
upcard_range = _CPU.upcard_range
initial_acc = _CPU.initial_acc
fold = _CPU.fold
finish = _CPU.finish
