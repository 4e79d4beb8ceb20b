"""The rules of GOPS, as the checker knows them: the payoff matrix of one upcard.

Rhoads & Bartholdi 2012, sec 3 (ties discarded; the higher bid wins the upcard from the
opponent, a tie wins nothing): once upcard u of P is turned up, with my hand V and theirs
Y in increasing order,

    X_ij = u * sign(V_i - Y_j) + f(V - V_i, Y - Y_j, P - u),

and f(V, Y, P) is the mean over u in P of the values of these matrix games.  The checker
rebuilds X from the *certified* values of the previous level (FORMAT.md, check 3); the
child with theirs > mine takes minus the value of its swapped record (antisymmetry).

An entry is kept as the triple ``(u * sign, p, q)`` meaning ``u * sign + p / q``, where
``p / q`` is the child's certified Rational as the file gives it (``q > 0``, not reduced):
the checks of :mod:`.minimax` then work on integers only and never pay for a gcd.
"""

from __future__ import annotations

from .errors import InvalidCertificate
from .patterns import children, describe


def child_value(values: dict, mine: int, theirs: int, prizes: int, negate: bool):
    """Certified value ``(p, q)`` of a child subgame, from the previous level's ``values``."""
    try:
        p, q = values[mine, theirs, prizes]
    except KeyError:
        raise InvalidCertificate(f"child {describe(mine, theirs, prizes)} is missing") from None
    return (-p if negate else p), q


def payoff_matrix(mine: int, theirs: int, prizes: int, u: int, values: dict) -> list[list]:
    """X for pattern (mine, theirs), prize set ``prizes`` and upcard ``u``: k x k entries
    ``(w, p, q)`` meaning ``X_ij = w + p / q`` with ``w = u * sign(V_i - Y_j)``.

    ``values`` maps (mine, theirs, prizes) of level k - 1 to certified values ``(p, q)``,
    ``q > 0``.

    >>> from gmpy2 import mpz
    >>> zero = (mpz(0), mpz(1))
    >>> payoff_matrix(0b1, 0b1, 0b1, 1, {(0, 0, 0): zero})   # identical 1-card hands
    [[(0, mpz(0), mpz(1))]]
    >>> payoff_matrix(0b10, 0b01, 0b100, 3, {(0, 0, 0): zero})   # my 2 beats their 1
    [[(3, mpz(0), mpz(1))]]
    """
    rest = prizes & ~(1 << (u - 1))
    get = values.get
    matrix = []
    for row in children(mine, theirs):
        out = []
        for c in row:
            value = get((c.mine, c.theirs, rest))
            if value is None:
                child_value(values, c.mine, c.theirs, rest, c.negate)  # raises: missing
            p, q = value
            out.append((u * c.sign, -p if c.negate else p, q))
        matrix.append(out)
    return matrix
