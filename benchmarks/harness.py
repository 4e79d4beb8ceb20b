"""What the benchmark scripts share: the command line, a measurement in a fresh process,
the median of repeats, the header that says where a run was measured, a table of fixed
columns, and the wall time of the whole run.

A table pasted into benchmarks/RESULTS.md must carry its date, commit, machine and the
machine's load (CONTRIBUTING.md, "Benchmarks"): ``main_with_wall_time`` prints them first,
as one line starting with "#", then the script's own table, then the wall time.

>>> table = Table([("N", ">3"), ("matrix games", ">14,"), ("median s", ">10.3f")])
>>> table.head()
'  N   matrix games   median s'
>>> table.row(10, 6888580, 3.8431)
' 10      6,888,580      3.843'
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The options several scripts take, by name: (type, help).  ``parser`` adds those given
#: a default.
COMMON_OPTIONS = {
    "min_n": (int, "smallest N"),
    "max_n": (int, "largest N"),
    "n": (int, "N"),
    "repeats": (int, "runs per measurement (the median is reported)"),
}


def parser(doc: str | None, **defaults) -> argparse.ArgumentParser:
    """The script's ArgumentParser, described by the first line of its docstring, with
    the common options given a default here (``parser(__doc__, max_n=10, repeats=3)``)."""
    ap = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    for name, default in defaults.items():
        kind, text = COMMON_OPTIONS[name]
        ap.add_argument(f"--{name.replace('_', '-')}", type=kind, default=default, help=text)
    return ap


def median(values: Iterable[float]) -> float:
    """The median of the repeats (of an even count, the mean of the middle two)."""
    return statistics.median(list(values))


def run_child(code: str, *args) -> str:
    """The last line ``python -c CODE ARGS...`` prints: a measurement in a fresh process
    (its peak memory its own, no JIT or cache of an earlier one)."""
    out = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)], check=True, capture_output=True, text=True
    )
    return out.stdout.strip().splitlines()[-1]


def header() -> str:
    """One line: the date (UTC), the machine (host, cores, memory), its load and the commit
    measured ("+" where the working tree differs from it)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    cores = os.cpu_count()
    try:
        memory = f", {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB"
    except (ValueError, OSError, AttributeError):
        memory = ""
    try:
        load = "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    except OSError:
        load = "load unknown"
    return (
        f"# {now:%Y-%m-%d %H:%M} UTC, {platform.node()} ({cores} cores{memory}), {load}, {commit()}"
    )


def commit() -> str:
    """The commit of this checkout, "+" when its tracked files differ from it."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "--short", "HEAD")
    if not head:
        return "commit unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return f"commit {head}{'+' if dirty else ''}"


class Table:
    """Columns of fixed width: each a title and a format spec (``">12,"``: right-aligned in
    12, thousands separated); the title takes the spec's alignment and width."""

    def __init__(self, columns: list[tuple[str, str]]):
        self.columns = columns

    def head(self) -> str:
        return " ".join(f"{title:{_width(spec)}}" for title, spec in self.columns)

    def row(self, *values) -> str:
        return " ".join(f"{v:{spec}}" for v, (_, spec) in zip(values, self.columns, strict=True))


def _width(spec: str) -> str:
    """The alignment and width of a format spec: ">12" of ">12,", ">10" of ">10.3f"."""
    match = re.match(r"[<>^]?\d*", spec)
    return match.group(0) if match else ""


def main_with_wall_time(main: Callable[[], object]) -> None:
    """The header, ``main()`` (the script's table), then its wall time."""
    print(header(), flush=True)
    started = time.time()
    main()
    print(f"(benchmark wall time {time.time() - started:.0f} s)")
