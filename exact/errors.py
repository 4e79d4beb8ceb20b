"""Exception hierarchy of the solver (after python-flint's ``flint_exceptions``).

Every error a user can provoke with bad input is a :class:`GopsInputError`; the CLI turns
each one into a one-line message and exit code 2.
"""


class GopsError(Exception):
    """Base class of every error raised on purpose by :mod:`exact`."""


class GopsInputError(GopsError, ValueError):
    """Bad input: wrong N, malformed or inconsistent cards, an illegal move."""


class InvalidMoveError(GopsInputError):
    """A bid that the rules do not allow (card not in the bidder's hand, game over...)."""


class SolverError(GopsError, RuntimeError):
    """A solver failed to produce a verified answer (never expected; always a bug)."""
