"""What ``gops strategy --json`` and ``gops table --json`` print, built once: the command
line prints these dictionaries and the web API (:mod:`exact.web`) returns them, so the two
agree by construction.

Exact numbers are "p/q" strings of any length (CPython refuses ``str(int)`` beyond 4,300
digits by default, a guard against slow parsing of untrusted input; the fractions of
N >= 6 have tens of thousands to millions of digits, so they go through python-flint's
``fmpz``); floats are JSON numbers.
"""

from __future__ import annotations

from fractions import Fraction

from flint import fmpz


def integer_text(a: int) -> str:
    """``str(a)`` for an integer of any length (fmpz prints any size)."""
    return str(fmpz(a))


def fraction_text(x) -> str:
    """``str(Fraction(x))`` ("p/q", or "p" for an integer) for numbers of any length.

    >>> (fraction_text(Fraction(-3, 6)), fraction_text(Fraction(4)),
    ...  len(fraction_text(Fraction(10**5000, 3))))
    ('-1/2', '4', 5003)
    """
    x = Fraction(x)
    if x.denominator == 1:
        return integer_text(x.numerator)
    return f"{integer_text(x.numerator)}/{integer_text(x.denominator)}"


def certified_json(game, mine, theirs) -> dict:
    """A CertifiedGame (exact.analysis.certified) as JSON: intervals [lo, hi] by card, or
    the guarantee alone with the reason it is not certified."""
    out = {
        "unique_and_enclosed": game.certified,
        "value": list(game.value),
        "guarantee": list(game.guarantee),
    }
    if game.certified:
        out["mine"] = {str(c): list(iv) for c, iv in zip(sorted(mine), game.mine)}
        out["theirs"] = {str(c): list(iv) for c, iv in zip(sorted(theirs), game.theirs)}
    else:
        out["reason"] = game.reason
    return out


def strategy_json(st, exact_: bool, head: dict | None = None, certified=None, hands=None) -> dict:
    """An equilibrium (exact.dp.solution.Strategy) as ``gops strategy --json`` prints it."""
    show = fraction_text if exact_ else float
    out = dict(head or {})
    out["value"] = show(st.value)
    out["mine"] = {str(c): show(p) for c, p in st.mine.items()}
    out["theirs"] = {str(c): show(p) for c, p in st.theirs.items()}
    if not exact_:
        out["equilibrium_gap"] = st.gap
    if certified is not None:
        out["certified"] = certified_json(certified, *hands)
    return out


def table_json(
    n: int, objective: str, lead, table: dict, gap: float, ranges=None, certified=None
) -> dict:
    """A first-move table ({upcard: {bid: probability}}) as ``gops table --json`` prints
    it; ``lead`` None for the points objective; ``ranges`` already as JSON."""
    out = {"n": n, "objective": objective}
    if lead is not None:
        out["lead"] = lead
    out["by_upcard"] = {str(u): [table[u][b] for b in range(1, n + 1)] for u in table}
    out["equilibrium_gap"] = gap
    if ranges is not None:
        out["ranges"] = ranges
    if certified is not None:
        root = set(range(1, n + 1))
        out["certified"] = {str(u): certified_json(g, root, root) for u, g in certified.items()}
    return out
