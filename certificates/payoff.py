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

from gmpy2 import mpz

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
            if value is None:  # missing: child_value raises the checker's error
                value = child_value(values, c.mine, c.theirs, rest, False)
            p, q = value
            out.append((u * c.sign, -p if c.negate else p, q))
        matrix.append(out)
    return matrix


_SIGN = {1: (mpz(1), mpz(1)), 0: (mpz(0), mpz(1)), -1: (mpz(-1), mpz(1))}


def win_payoff_matrix(
    mine: int, theirs: int, prizes: int, u: int, lead: int, values: dict
) -> list[list]:
    """X of the win objective (FORMAT.md, "Win records") for upcard ``u`` at ``lead``:
    ``X_ij = f(V - V_i, Y - Y_j, P - u, L')`` with L' = L + u * sign(V_i - Y_j), as
    entries ``(0, p, q)``.  A child with no prize left or |L'| > sum(P - u) is decided,
    sign(L'); any other is the certified value of level k - 1 from ``values``, keyed
    (mine, theirs, prizes, lead): minus the value at (swapped pattern, -L') when the
    child has theirs > mine, or identical hands and L' < 0.

    >>> win_payoff_matrix(0b10, 0b01, 0b100, 3, -2, {})   # my 2 beats their 1: 1 point up
    [[(0, mpz(1), mpz(1))]]
    >>> values = {(1, 1, 1, 1): (mpz(1), mpz(2)), (2, 1, 1, -1): (mpz(1), mpz(3))}
    >>> win_payoff_matrix(0b11, 0b11, 0b11, 2, -1, values)   # identical hands {1, 2}
    [[(0, mpz(-1), mpz(2)), (0, mpz(-1), mpz(1))], [(0, mpz(-1), mpz(3)), (0, mpz(-1), mpz(2))]]
    """
    rest = prizes & ~(1 << (u - 1))
    left = sum(c + 1 for c in range(rest.bit_length()) if rest >> c & 1)
    get = values.get
    matrix = []
    for row in children(mine, theirs):
        out = []
        for c in row:
            child_lead = lead + u * c.sign
            if not rest or abs(child_lead) > left:
                p, q = _SIGN[(child_lead > 0) - (child_lead < 0)]
                out.append((0, p, q))
                continue
            negate = c.negate or (c.mine == c.theirs and child_lead < 0)
            key_lead = -child_lead if negate else child_lead
            value = get((c.mine, c.theirs, rest, key_lead))
            if value is None:
                raise InvalidCertificate(
                    f"child {describe(c.mine, c.theirs, rest, key_lead)} is missing"
                )
            p, q = value
            out.append((0, -p if negate else p, q))
        matrix.append(out)
    return matrix
