"""Independent checker of GOPS certificates (format: certificates/FORMAT.md).

The checker only verifies: it never solves a game and imports nothing from the solver
package ``exact`` (its rules, canonical encoding and counts are its own, written from
FORMAT.md).  Exact arithmetic is gmpy2; parsing is msgpack with explicit limits.

>>> from certificates import check
>>> check("/nonexistent.cert").code
2

Modules: :mod:`.spec` (constants of FORMAT.md), :mod:`.errors`, :mod:`.stream` (msgpack
with limits), :mod:`.decoding` (Integers, Rationals, vectors, records),
:mod:`.patterns` (canonical encoding and record counts), :mod:`.payoff` (the rules),
:mod:`.minimax` (the matrix-game inequalities), :mod:`.verify` (the streaming driver),
:mod:`.bounds` (bound certificates), :mod:`.imperfect` (imperfect-information
certificates: the game and its sequence form from the rules, LP duality),
:mod:`.verdict` (``check``), :mod:`.cli` (``main``, run by ``python -m certificates``).
The header's magic names the kind of certificate; one ``check`` reads all three.
"""

from .cli import main
from .errors import CertificateError, InvalidCertificate, UnreadableCertificate
from .verdict import Verdict, check

__all__ = [
    "CertificateError",
    "InvalidCertificate",
    "UnreadableCertificate",
    "Verdict",
    "check",
    "main",
]
