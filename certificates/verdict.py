"""The public entry point: ``check(path) -> Verdict``, which never raises for a bad file.

Outcome codes (FORMAT.md, "Exit codes of the checker"):

====  ============  ==========================================================
code  verdict       meaning
====  ============  ==========================================================
0     ``valid``     every check of FORMAT.md passed
1     ``invalid``   well formed, but a check failed (the message says which)
2     ``unreadable`` not a readable certificate: missing file, bad magic or
                    version, truncated, malformed msgpack, a key twice in a map,
                    limits exceeded (FORMAT.md, "Limits": the size of the
                    integers the checks need included), out of memory
====  ============  ==========================================================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from .declarations import DeclarationsSummary
from .errors import CertificateError
from .imperfect import ImperfectSummary
from .spec import EXIT_UNREADABLE, EXIT_VALID
from .text import format_rational
from .verify import verify_file


@dataclass(frozen=True)
class Verdict:
    """The checker's answer.  ``n``, ``records`` and ``root_value`` are set when valid (for
    an imperfect-information certificate: N, its information states and the game's
    value)."""

    ok: bool
    code: int
    message: str
    n: int | None = None
    records: int | None = None
    root_value: Fraction | None = None
    #: A bound certificate's radii r_0..r_N (FORMAT.md, "Bound certificates"), else None.
    radii: tuple | None = None


def _rejected(code: int, reason: str) -> Verdict:
    word = "unreadable" if code == EXIT_UNREADABLE else "invalid"
    return Verdict(False, code, f"{word}: {reason}")


def check(path, progress: Callable | None = None) -> Verdict:
    """Verify the certificate at ``path``; see :mod:`.verify` for what is checked.

    ``progress(k, n, records)`` is called after each verified level.  Any failure is a
    Verdict, never an exception: a CertificateError carries its own code, an OSError
    (missing file, a directory) is unreadable, and so is any other exception, which can
    only reject, never accept (KeyboardInterrupt still propagates).
    """
    try:
        summary = verify_file(path, progress)
    except CertificateError as exc:
        return _rejected(exc.code, str(exc))
    except OSError as exc:
        return _rejected(EXIT_UNREADABLE, f"{exc.strerror or exc}: {path}")
    except MemoryError:
        return _rejected(EXIT_UNREADABLE, "out of memory")
    except Exception as exc:  # noqa: BLE001 - a checker bug must reject, never accept
        return _rejected(EXIT_UNREADABLE, f"unexpected {type(exc).__name__}: {exc}")
    if isinstance(summary, ImperfectSummary):  # FORMAT.md, "Imperfect-information certificates"
        value = Fraction(int(summary.value.numerator), int(summary.value.denominator))
        return Verdict(True, EXIT_VALID, summary.message, summary.n, sum(summary.decisions), value)
    if isinstance(summary, DeclarationsSummary):  # certificates/declarations.py
        n, records, value = summary.n, summary.records, summary.root_value
        return Verdict(True, EXIT_VALID, summary.message, n, records, value)
    root = Fraction(int(summary.root_value.numerator), int(summary.root_value.denominator))
    radii = getattr(summary, "radii", None)
    if radii is not None:
        top = max(range(len(radii)), key=radii.__getitem__)
        return Verdict(
            True,
            EXIT_VALID,
            f"valid: N={summary.n} bound certificate, {summary.records} records, root value "
            f"{format_rational(summary.root_value)}, every value within its level's radius "
            f"(largest r_{top} = {radii[top]:.6e})",
            summary.n,
            summary.records,
            root,
            radii,
        )
    return Verdict(
        True,
        EXIT_VALID,
        f"valid: N={summary.n}{' (win)' if summary.objective == 'win' else ''}, "
        f"{summary.records} records, "
        f"root value {format_rational(summary.root_value)}",
        summary.n,
        summary.records,
        root,
    )
