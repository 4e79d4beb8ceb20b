"""The command line ``python -m certificates FILE [--quiet]``.

Prints a one-line verdict on stdout and exits 0 (valid), 1 (invalid) or 2 (unreadable):

    $ python -m certificates gops5.cert
    valid: N=5, 357 records, root value 0

    $ python -m certificates g4.cert
    valid: imperfect-information goofspiel N=4 (descending order, point_difference), ...

The header's magic says which kind of certificate FILE is (FORMAT.md: exact, bound or
imperfect-information); the command and its exit codes are the same for all three.
Progress goes to stderr, one line per verified level, unless ``--quiet`` (an
imperfect-information certificate, checked in seconds, reports none).  FILE may be a
pipe: ``zstd -dc gops7.cert.zst | python -m certificates /dev/stdin``.
"""

from __future__ import annotations

import argparse
import sys
import time

from .verdict import check


def _progress_printer():
    start = time.perf_counter()

    def report(k: int, n: int, records: int) -> None:
        elapsed = time.perf_counter() - start
        print(f"level {k}/{n}: {records} records verified ({elapsed:.1f} s)", file=sys.stderr)

    return report


def main(argv=None) -> int:
    """Run the checker on ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m certificates",
        description="Verify a GOPS certificate (certificates/FORMAT.md). "
        "Exit 0 valid, 1 invalid, 2 unreadable.",
        epilog="Limits (FORMAT.md, 'Limits'; exit 2 beyond them): N <= 16, Integers of at "
        "most 64 MiB, no integer computed beyond 2^31 bits (checked from bit lengths "
        "before multiplying). Memory: the values of two levels and a few integers of at "
        "most 256 MiB.",
    )
    parser.add_argument("file", help="certificate file (or a pipe: /dev/stdin)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    verdict = check(args.file, None if args.quiet else _progress_printer())
    print(verdict.message)
    return verdict.code
