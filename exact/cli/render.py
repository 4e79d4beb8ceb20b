"""Exact numbers as text: "p/q" of any length, and LaTeX for the notebooks.

CPython refuses ``str(int)`` beyond 4,300 digits by default (a guard against slow parsing
of untrusted input); the fractions of N >= 6 have tens of thousands to millions of digits,
so every exact number the CLI prints goes through :func:`fraction_text`, which converts
with python-flint's ``fmpz`` instead.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from fractions import Fraction

from exact.views import fraction_text  # the one converter, shared with the JSON views
from exact.views import integer_text as _digits

__all__ = ["fraction_text", "digit_count", "latex_integer", "latex_fraction", "interval_text"]


def digit_count(a: int) -> int:
    """Decimal digits of |a| (any size).

    >>> digit_count(-12345), digit_count(10**5000)
    (5, 5001)
    """
    return len(_digits(abs(a)))


def latex_integer(a: int, max_digits: int = 12, keep: int = 4) -> str:
    r"""An integer in LaTeX, its middle elided when it has more than ``max_digits`` digits.

    >>> latex_integer(12345)
    '12345'
    >>> latex_integer(-10**30 - 7)
    '-1000\\ldots0007\\,(31\\text{ digits})'
    """
    s = _digits(abs(a))
    sign = "-" if a < 0 else ""
    if len(s) <= max_digits:
        return sign + s
    return rf"{sign}{s[:keep]}\ldots{s[-keep:]}\,({len(s)}\text{{ digits}})"


def latex_fraction(x: Fraction, max_digits: int = 12, keep: int = 4) -> str:
    r"""A fraction in LaTeX (sympy's layout); numbers longer than ``max_digits`` are
    abbreviated to their first and last ``keep`` digits and their length.

    >>> latex_fraction(Fraction(313, 25))
    '\\frac{313}{25}'
    >>> latex_fraction(Fraction(-10**20 - 1, 3), max_digits=8)
    '- \\frac{1000\\ldots0001\\,(21\\text{ digits})}{3}'
    """
    x = Fraction(x)
    p, q = x.numerator, x.denominator
    if len(_digits(abs(p))) <= max_digits and len(_digits(q)) <= max_digits:
        import sympy  # here: 0.27 s to import (-X importtime), for the LaTeX alone

        return sympy.latex(sympy.Rational(p, q))
    if q == 1:
        return latex_integer(p, max_digits, keep)
    sign = "- " if p < 0 else ""
    return (
        rf"{sign}\frac{{{latex_integer(abs(p), max_digits, keep)}}}"
        rf"{{{latex_integer(q, max_digits, keep)}}}"
    )


def interval_text(lo: float, hi: float, digits: int = 12) -> str:
    """ "[lo, hi]" with ``digits`` decimals, rounded outward: the printed interval contains
    the true one (a plain format could round an endpoint inward and claim too much).

    >>> interval_text(0.47999999999987, 0.48000000000013, 6)
    '[0.479999, 0.480001]'
    >>> interval_text(0.0, 0.0)
    '0 (exactly)'
    """

    if lo == hi == 0.0:
        return "0 (exactly)"
    unit = Decimal(1).scaleb(-digits)
    low = Decimal(lo).quantize(unit, rounding=ROUND_FLOOR)
    high = Decimal(hi).quantize(unit, rounding=ROUND_CEILING)
    return f"[{low}, {high}]"
