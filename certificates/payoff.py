"""The rules of GOPS, as the checker knows them: the payoff matrix of one upcard.

Rhoads & Bartholdi 2012, sec 3 (ties discarded; the higher bid wins the upcard from the
opponent, a tie wins nothing): once upcard u of P is turned up, with my hand V and theirs
Y in increasing order,

    X_ij = u * sign(V_i - Y_j) + f(V - V_i, Y - Y_j, P - u),

and f(V, Y, P) is the mean over u in P of the values of these matrix games.  The checker
rebuilds X from the *certified* values of the previous level (FORMAT.md, check 3); the
child with theirs > mine takes minus the value of its swapped record (antisymmetry).
"""

from __future__ import annotations

from .errors import InvalidCertificate
from .patterns import children, describe


def child_value(values: dict, mine: int, theirs: int, prizes: int, negate: bool):
    """Certified value of a child subgame, read from the previous level's ``values``."""
    try:
        value = values[mine, theirs, prizes]
    except KeyError:
        raise InvalidCertificate(f"child {describe(mine, theirs, prizes)} is missing") from None
    return -value if negate else value


def payoff_matrix(mine: int, theirs: int, prizes: int, u: int, values: dict) -> list[list]:
    """X for pattern (mine, theirs), prize set ``prizes`` and upcard ``u`` (k x k, mpq).

    ``values`` maps (mine, theirs, prizes) of level k - 1 to certified values (mpq).

    >>> from gmpy2 import mpq
    >>> payoff_matrix(0b1, 0b1, 0b1, 1, {(0, 0, 0): mpq(0)})   # identical 1-card hands
    [[mpq(0,1)]]
    >>> payoff_matrix(0b10, 0b01, 0b100, 3, {(0, 0, 0): mpq(0)})   # my 2 beats their 1
    [[mpq(3,1)]]
    """
    rest = prizes & ~(1 << (u - 1))
    return [
        [u * c.sign + child_value(values, c.mine, c.theirs, rest, c.negate) for c in row]
        for row in children(mine, theirs)
    ]
