"""A proven bound on the error of a float matrix-game value, from the solver's strategies.

The enclosure
-------------
For a zero-sum game with matrix A (row player maximises) and any probability vectors x, y,
the value w(A) satisfies

    min_j (x^T A)_j  <=  w(A)  <=  max_i (A y)_i                                    (1)

(x guarantees its column minimum, y concedes at most its row maximum).  The float solver
returns a value v and strategies x, y of the float matrix Â; (1) applied to Â with x, y
clamped at 0 and divided by their sums gives lo <= w(Â) <= hi, and

    |v - w(Â)| <= max(v - lo, hi - v) =: e.                                         (2)

If every exact entry A*_ij (exact child values) is within d of Â_ij, then
|w(A*) - w(Â)| <= d (the value is 1-Lipschitz in the largest entry change), so
|v - w(A*)| <= e + d.  The drivers take d = r_{k-1} + eps |Â_ij| (the radius of the level
below, plus the rounding of u sign(V_i - Y_j) + f(child) for the points objective).

Rounding, accounted for (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed.,
sec 3.1: a sum or dot product of n terms computed in any order has relative error at most
gamma_n = n eps / (1 - n eps), eps = 2^-53, on the sum of the absolute terms).  Let
a = max |Â_ij|, x~ = max(x, 0), S = fl(sum x~) (so S* = sum x~ lies in
[S / (1 + gamma_k), S / (1 - gamma_k)]), c_j = fl(sum_i x~_i Â_ij) (so
|c_j - c*_j| <= gamma_k a S*) and q_j = fl(c_j / S).  Then x~ / S* is a probability
vector and

    c*_j / S*  >=  c_j / S* - gamma_k a  >=  c_j / S - gamma_k |c_j| / S - gamma_k a
               >=  q_j - eps |q_j| - 2.1 gamma_k a  >=  q_j - 3.2 gamma_k a

since |c_j| / S <= (1 + gamma_k) a / (1 - gamma_k) <= 1.01 a for k <= 16.  So
lo = min_j q_j - 4 gamma_k a - tiny is a rigorous lower bound of w(Â) (the margin from 3.2
to 4 covers the rounding of that subtraction; ``tiny`` = 2^-1000 covers underflow in the
products), and likewise hi = max_i fl(fl(sum_j Â_ij y~_j) / T) + 4 gamma_k a + tiny.
The two subtractions in (2) and the added eps a of the entries are covered by the same
margin doubled: ``value_error`` returns max(v - min q, max r - v) + 10 gamma_k a + tiny,
computed in float; every term is a sum of at most four rounded operations on numbers of
size at most 2a, whose rounding (at most 4 eps 2a) the extra 2 gamma_k a covers.

A NaN anywhere (a failed solve) makes the bound NaN, which the drivers refuse loudly.
"""

from __future__ import annotations

import numba
import numpy as np

EPS = 2.0 ** -53
#: Covers underflow in the products x_i A_ij (each at most 2^-1074 off, k^2 <= 256 of them).
TINY = 2.0 ** -1000


@numba.njit(cache=True, nogil=True)
def gamma(n):
    """Higham's gamma_n = n eps / (1 - n eps): the relative error bound of an n-term sum."""
    return n * EPS / (1.0 - n * EPS)


@numba.njit(cache=True, nogil=True)
def value_error(A, k, x, y, v):
    """A rigorous bound on |v - w(A[:k, :k])| from strategies x, y (module docstring),
    which also covers a relative rounding of eps in every entry of A.

    The largest |A_ij| is gathered while the columns x^T A are formed; x and y are
    clamped at 0 by max(., 0) rather than by branches.
    """
    s = 0.0
    t = 0.0
    for i in range(k):
        s += max(x[i], 0.0)
        t += max(y[i], 0.0)
    if not (s > 0.0 and t > 0.0):
        return numba.float64(float("nan"))
    a = 0.0
    lo = np.inf
    for j in range(k):
        c = 0.0
        for i in range(k):
            e = A[i, j]
            if e != e:
                return e  # NaN: no bound
            a = max(a, abs(e))
            c += max(x[i], 0.0) * e
        lo = min(lo, c / s)
    hi = -np.inf
    for i in range(k):
        r = 0.0
        for j in range(k):
            r += A[i, j] * max(y[j], 0.0)
        hi = max(hi, r / t)
    gap = max(v - lo, hi - v)
    if gap != gap:
        return gap
    return gap + 10.0 * gamma(k) * a + TINY
