"""How messages show what a file holds: short, and cheap to compute.

A hostile file may hold a 64 MiB Integer where a small number belongs; a message must
not spend seconds or megabytes showing it.  Writing a 64 MiB Integer in decimal takes
longer than checking it (GMP's conversion is subquadratic, not linear), Python refuses to
write an int of more than 4,300 digits at all, and reducing a fraction costs a gcd.  So
the numbers of a message are shown

- in full when small: an integer of at most ``FULL_BITS`` bits, a fraction whose
  numerator and denominator have at most ``EXACT_BITS`` bits together (reduced, with
  its digit counts when long);
- otherwise approximately, from the leading 64 bits of numerator and denominator and the
  bits shifted out, with a digit count estimated from the approximation: the cost does
  not depend on the size of the number.

>>> int_text(-10**5000)
'~-1e+5000 (about 5,001 digits)'
>>> format_rational((mpz(1), mpz(3) * mpz(10)**5000))
'~3.333333333e-5001 (a fraction of about 1/5,001 digits)'
"""

from __future__ import annotations

from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal

from gmpy2 import mpq, mpz

#: The longest text of a string or a bin shown in full in a message.
BRIEF_CHARS = 40
#: Integers of at most this many bits (38 digits) are shown in full.
FULL_BITS = 128
#: Fractions with at most this many bits in numerator and denominator together are
#: reduced and shown exactly when short (a gcd and a str() of this size take microseconds).
EXACT_BITS = 4096
#: A reduced fraction is shown exactly up to this many characters.
EXACT_CHARS = 40
#: Significant digits of an approximation.
DIGITS = 10

# Decimal arithmetic with unbounded exponents: 2^E costs O(log E) operations at 30 digits.
_WIDE = Context(prec=30, Emax=MAX_EMAX, Emin=MIN_EMIN)
_SHOWN = Context(prec=DIGITS, Emax=MAX_EMAX, Emin=MIN_EMIN)


def brief(obj) -> str:
    """A short text of a msgpack object for messages: short values in full, long ones
    by their type and size, containers by their type and length.

    >>> brief("n"), brief(b"\\x01\\x02"), brief(2**63 - 1)
    ("'n'", "b'\\\\x01\\\\x02'", '9223372036854775807')
    >>> brief("x" * 1000), brief(b"\\x00" * 1000), brief([1, 2, 3])
    ('a string of 1000 characters', 'a bin of 1000 bytes', 'an array of 3 entries')
    """
    if type(obj) in (str, bytes) and len(obj) > BRIEF_CHARS:
        return (
            f"a string of {len(obj)} characters"
            if type(obj) is str
            else f"a bin of {len(obj)} bytes"
        )
    if type(obj) is list:
        return f"an array of {len(obj)} entries"
    if type(obj) is dict:
        return f"a map of {len(obj)} entries"
    if type(obj) is int or type(obj) is type(mpz(0)):
        return int_text(obj)
    return repr(obj)  # short str or bytes, bool, None, float


def _approximate(num, *dens) -> Decimal:
    """num / (product of ``dens``, all > 0) to ``DIGITS`` significant digits, from 64
    leading bits of each: relative error below 2^-60 before the final rounding, whatever
    the sizes, and the product of ``dens`` is never formed."""
    num = mpz(num)
    negative = num < 0
    num = abs(num)
    if not num:
        return Decimal(0)
    shift = max(num.bit_length() - 64, 0)
    value = Decimal(int(num >> shift))
    for den in map(mpz, dens):
        shift_den = max(den.bit_length() - 64, 0)
        value = _WIDE.divide(value, Decimal(int(den >> shift_den)))
        shift -= shift_den
    value = _WIDE.multiply(value, _WIDE.power(Decimal(2), Decimal(shift)))
    value = _SHOWN.plus(value).normalize(_SHOWN)
    return -value if negative else value


def approximate(num, den=1) -> str:
    """``~`` and num / den to ``DIGITS`` significant digits, in time independent of the
    sizes of num and den > 0.

    >>> approximate(mpz(2)**100_000, 3)
    '~3.330006977e+30102'
    """
    return f"~{_approximate(num, den):g}"


def _digits(value: Decimal) -> int:
    """The digits of the integer part of ``value`` (1 for 0), from its decimal exponent."""
    return max(value.adjusted() + 1, 1) if value else 1


def int_text(a) -> str:
    """An integer in full when it has at most ``FULL_BITS`` bits, else approximately.

    >>> int_text(-12), int_text(2**127)
    ('-12', '170141183460469231731687303715884105728')
    >>> int_text(mpz(7) * mpz(10)**99_999)
    '~7e+99999 (about 100,000 digits)'
    """
    if a.bit_length() <= FULL_BITS:
        return str(a)
    value = _approximate(a)
    return f"~{value:g} (about {_digits(value):,} digits)"


def _pair(q) -> tuple:
    """(num, den) with den > 0 of a pair ``(num, den)`` (a Rational), an mpq or a Fraction."""
    if isinstance(q, tuple):
        num, den = mpz(q[0]), mpz(q[1])
    else:
        num, den = mpz(q.numerator), mpz(q.denominator)
    return (-num, -den) if den < 0 else (num, den)


def format_rational(q, factor=1) -> str:
    """Short text of a rational for messages: exact if short, else approximate with sizes.

    ``q`` is a pair ``(num, den)`` (a Rational, not reduced), an mpq or a Fraction; with
    ``factor`` > 0, the text is of q / factor, and den * factor is formed only when short.

    >>> format_rational(mpq(-3, 7))
    '-3/7'
    >>> format_rational((mpz(6), mpz(-4)), 5)
    '-3/10'
    >>> format_rational(mpq(10**50 + 1, 3 * 10**49))
    '~3.333333333 (51-digit/50-digit fraction)'
    >>> format_rational((mpz(10)**5000 + 1, mpz(3) * mpz(10)**4999))
    '~3.333333333 (a fraction of about 5,001/5,000 digits)'
    """
    num, den = _pair(q)
    factor = mpz(factor)
    if not num:
        return "0"
    if not den:
        return f"{int_text(num)}/0"
    if num.bit_length() + den.bit_length() + factor.bit_length() <= EXACT_BITS:
        den *= factor
        q = mpq(num, den)
        num_text, den_text = str(abs(q.numerator)), str(q.denominator)
        if len(num_text) + len(den_text) <= EXACT_CHARS:
            return str(q)
        return f"{approximate(num, den)} ({len(num_text)}-digit/{len(den_text)}-digit fraction)"
    digits = (
        _digits(_approximate(num)),
        _digits(_WIDE.multiply(_approximate(den), _approximate(factor))),
    )
    return (
        f"~{_approximate(num, den, factor):g} "
        f"(a fraction of about {digits[0]:,}/{digits[1]:,} digits)"
    )
