"""Why a certificate is rejected: two exceptions, one per exit code of FORMAT.md.

- :class:`UnreadableCertificate` (exit 2): not a certificate this checker can read: bad
  magic or version, truncated stream, malformed msgpack, a key twice in a map, wrong
  types or shapes, limits exceeded (the size of the integers its checks need included),
  file not found.
- :class:`InvalidCertificate` (exit 1): the file parses, but its content is wrong: a
  mathematical check fails, a record is missing, duplicated or out of place, a count or
  the root value does not match.

Both carry a one-line message; :func:`located` prefixes where it happened
("level 3, record mine=0b111 ...") as the error travels up from a field to its record.
"""

from __future__ import annotations

from contextlib import contextmanager

from .spec import EXIT_INVALID, EXIT_UNREADABLE


class CertificateError(Exception):
    """Base class: a certificate was rejected; ``code`` is the checker's exit code."""

    code: int = EXIT_UNREADABLE

    def within(self, context: str) -> CertificateError:
        """The same error with ``context`` prefixed to its message.

        >>> str(InvalidCertificate("x is negative").within("level 2"))
        'level 2: x is negative'
        """
        return type(self)(f"{context}: {self}")


class UnreadableCertificate(CertificateError):
    """Exit 2: the file is not a readable version-1 GOPS certificate."""

    code = EXIT_UNREADABLE


class InvalidCertificate(CertificateError):
    """Exit 1: a well-formed certificate whose content fails a check of FORMAT.md."""

    code = EXIT_INVALID


@contextmanager
def located(context: str):
    """Prefix ``context`` to any CertificateError raised in the block.

    >>> with located("level 1"):
    ...     raise UnreadableCertificate("x: expected an array")
    Traceback (most recent call last):
    ...
    certificates.errors.UnreadableCertificate: level 1: x: expected an array
    """
    try:
        yield
    except CertificateError as exc:
        raise exc.within(context) from None
