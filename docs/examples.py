"""The examples of README.md and docs/, run for real (cogapp).

Every command shown with its output in README.md or a page of docs/ is written there as a
cog block that calls :func:`shell`; the block's output below it is what the command printed
the last time the examples were regenerated::

    <!-- [[[cog shell("gops table 6") ]]] -->
    ```console
    $ gops table 6
    First move of 6-card GOPS, points objective: P(bid | upcard)
    ...
    ```
    <!-- [[[end]]] -->

``cog -r`` regenerates them all, ``cog --check`` (run by .ci/run) fails when one has gone
stale; both take this module as their prologue (CONTRIBUTING.md has the command line).
Durations change from run to run, so they are masked: every "1.66 s" or "5.8 min" is shown
as "… s" / "… min", and lines that only report time or memory can be dropped (``drop``).
Every command runs in a scratch directory of its page (one per page and cog run), so that a
file one example writes (``gops certify 6 -o gops-6.cert``) is there for the next (``gops
check``) and no page sees another's files.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Durations in the output: "1.66 s", "14.1 minutes", "(0.3 s", "42 min".
#: A solve's progress line on a log (exact.cli.common.ProgressLines, and the three-player
#: solve's, exact.cli.three.solve_with_progress): written only when a run outlasts its
#: interval, as a first kernel compile on a loaded machine can, so it is left out of the
#: outputs shown, as durations are masked.
PROGRESS_LINE = re.compile(
    r"^gops: (?:level \d+/\d+ (?:done )?|three players .*?)at \d{4}-\d\d-\d\d \d\d:\d\d UTC: .*\n?",
    re.M,
)
DURATION = re.compile(r"\b\d+(?:\.\d+)?(?= ?(?:s|ms|min|minutes|seconds|h)\b)")
#: Sizes that depend on the process (memory), not on the game.
MEMORY = re.compile(r"\b\d+(?:\.\d+)? (?=MiB|GiB)")
#: The pre-flight estimate scales by the cores of the machine it runs on.
#: The pre-flight's floor of memory, "(at least 1.0)" (GiB; the process's size in it).
AT_LEAST = re.compile(r"\(at least [0-9.]+\)")
CORES = re.compile(r"\b\d+(?= cores\b)")
#: The line a command writes when numba compiles a kernel (exact.cli.COMPILING): only on a
#: cold cache, so it is left out of the outputs shown, as durations are masked.
COMPILING = re.compile(r"^gops: compiling kernels \(first run only\)\n?", re.M)
#: A whole command may take at most this long (the slowest example takes about 30 s).
TIMEOUT_S = 300

_scratch: dict[str, Path] = {}


def scratch() -> Path:
    """The scratch directory of the page being generated (removed when cog ends)."""
    import cog  # cogapp's module, there while cog runs this

    page = getattr(cog, "inFile", "") or ""
    if page not in _scratch:
        _scratch[page] = Path(tempfile.mkdtemp(prefix="gops-docs-"))
        atexit.register(shutil.rmtree, _scratch[page], ignore_errors=True)
    return _scratch[page]


def mask(text: str, memory: bool = False) -> str:
    """``text`` with its durations and core counts (and, with ``memory``, its memory sizes)
    shown as "…".

    >>> mask("wrote c.cert: N=6, 1,695 records, 1.66 s (plus 0.3 s JIT)")
    'wrote c.cert: N=6, 1,695 records, … s (plus … s JIT)'
    >>> mask("about 95 min on 2 cores")
    'about … min on … cores'
    >>> mask("peak memory: 168 MiB; N=14 needs 6.0 GiB", memory=True)
    'peak memory: … MiB; N=14 needs … GiB'
    >>> mask("1.0 GiB of memory (at least 1.0)", memory=True)
    '… GiB of memory (at least …)'
    """
    text = CORES.sub("…", DURATION.sub("…", text))
    if not memory:
        return text
    return AT_LEAST.sub("(at least …)", MEMORY.sub("… ", text))


def run(command: str, stdin: str | None = None, expect: int = 0) -> str:
    """What ``command`` (a bash command line) prints, stdout and stderr interleaved as a
    terminal shows them, run in the scratch directory; its exit code must be ``expect``."""
    env = dict(os.environ, COLUMNS="100", PYTHONHASHSEED="0")
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=scratch(),
        input=stdin,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        timeout=TIMEOUT_S,
    )
    if done.returncode != expect:
        raise RuntimeError(f"`{command}` exited {done.returncode}, not {expect}:\n{done.stdout}")
    return COMPILING.sub("", PROGRESS_LINE.sub("", done.stdout))


def shell(
    *commands: str,
    stdin: str | None = None,
    expect: int = 0,
    drop: str = "",
    keep: str = "",
    memory: bool = False,
    show: str | None = None,
    setup: str = "",
) -> None:
    """Write a ```console block: each command after "$ ", then what it printed.

    ``stdin`` is fed to the (last) command; ``expect`` is its exit code; ``drop`` is a
    regular expression of output lines to leave out and ``keep`` one of the lines to keep
    (others left out, "..." in their place); ``memory`` masks memory sizes as well as
    durations; ``show`` is the command line as shown, when it differs from the one run
    (a pipe of ``stdin``, say); ``setup`` runs first, unshown.
    """
    import cog  # cogapp's module, there while cog runs this

    if setup:
        run(setup)
    lines = []
    for i, command in enumerate(commands):
        last = i == len(commands) - 1
        out = run(command, stdin if last else None, expect if last else 0)
        shown = show if (show and last) else command
        lines.append(f"$ {shown}")
        body = []
        for line in mask(out, memory).splitlines():
            if drop and re.search(drop, line):
                continue
            if keep and not re.search(keep, line):
                if not body or body[-1] != "...":
                    body.append("...")
                continue
            body.append(line.rstrip())
        lines.extend(body)
    cog.outl("```console")
    for line in lines:
        cog.outl(line)
    cog.outl("```")


def recorded(name: str, show: str) -> None:
    """Write a ```console block of a frontier run's output, recorded in
    benchmarks/frontier/ (``name``.txt: what ``show`` printed; ``name``.json: the same
    command with ``--json``), for runs too long for CI.  The table in the text is checked
    against the JSON's probabilities (the CLI's own format), so the two cannot part."""
    import json

    import cog  # cogapp's module, there while cog runs this

    from exact.cli.common import format_table

    folder = ROOT / "benchmarks" / "frontier"
    text = (folder / f"{name}.txt").read_text()
    data = json.loads((folder / f"{name}.json").read_text())
    table = {
        int(u): {b + 1: p for b, p in enumerate(column)} for u, column in data["by_upcard"].items()
    }
    if format_table(data["n"], table) not in text:
        raise RuntimeError(f"benchmarks/frontier/{name}: the text's table is not the JSON's")
    cog.outl("```console")
    cog.outl(f"$ {show}")
    for line in text.splitlines():
        cog.outl(line.rstrip())
    cog.outl("```")


def _recorded_json(name: str) -> dict:
    """A recorded ``gops table --json --certified``: benchmarks/frontier/``name``.json."""
    import json

    return json.loads((ROOT / "benchmarks" / "frontier" / f"{name}.json").read_text())


def _sec4_claims():
    """benchmarks/frontier/sec4_claims.py, the reading of the paper's sec 4 claims off a
    recorded table (a script, not a package module)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "sec4_claims", ROOT / "benchmarks" / "frontier" / "sec4_claims.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _recorded_table(name: str) -> tuple[dict, dict]:
    """({upcard: [P(bid 1), ...]}, {upcard: [[lo, hi] of bid 1, ...]}) of a recorded
    ``gops table --json --certified`` (benchmarks/frontier/``name``.json), every column
    checked to be proved unique."""
    data = _recorded_json(name)
    certified = data["certified"]
    if not all(certified[u]["unique_and_enclosed"] for u in data["by_upcard"]):
        raise RuntimeError(f"benchmarks/frontier/{name}: a column is not proved unique")
    n = data["n"]
    bounds = {
        int(u): [certified[u]["mine"][str(b)] for b in range(1, n + 1)] for u in data["by_upcard"]
    }
    return {int(u): column for u, column in data["by_upcard"].items()}, bounds


def _or_list(bids: list[int]) -> str:
    """'11, 10 or 1': the bids of a sec 4 claim, as a sentence names them."""
    return ", ".join(map(str, bids[:-1])) + f" or {bids[-1]}"


def sec4_sentence(name: str) -> None:
    """One sentence: the paper's sec 4 claims (upcard N never answered by N - 1 or N - 2,
    nor by 1 for even N) as benchmarks/frontier/sec4_claims.py reads them off a recorded
    ``gops table --certified --json`` (benchmarks/frontier/``name``.json)."""
    import cog  # cogapp's module, there while cog runs this

    table = _recorded_json(name)
    found = _sec4_claims().claims(table)  # [(bid, "proved" | "refuted" | "open")]
    n, said = table["n"], _or_list([bid for bid, _ in found])
    if all(what == "proved" for _, what in found):
        cog.outl(
            f"The paper's sec 4 claims hold at N = {n}: the {n} is never answered by {said} "
            "(zeros certified when the table was recorded)."
        )
        return
    verdicts = "; ".join(f"by {bid}: {what}" for bid, what in found)
    cog.outl(f"The paper's sec 4 claims at N = {n} (upcard {n} never answered): {verdicts}.")


def objective_comparison(win: str, points: str, sentence: bool = False) -> None:
    """How the recorded win and points first moves (proved unique) differ: a table of the
    bids in one support only and the total variation distance per upcard or, with
    ``sentence``, one sentence of README's; then the paper's sec 4 claims (upcard N never
    answered by N - 1 or N - 2, nor by 1 for even N) checked on the win table's certified
    zeros."""
    import cog  # cogapp's module, there while cog runs this

    w, w_bounds = _recorded_table(win)
    p, p_bounds = _recorded_table(points)
    n = len(w)
    rows, differ, distances = [], 0, []
    for u in sorted(w):
        # a bid is in a support iff its certified interval excludes 0 (the zeros are exact)
        sw = {b + 1 for b, (lo, _) in enumerate(w_bounds[u]) if lo > 0}
        sp = {b + 1 for b, (lo, _) in enumerate(p_bounds[u]) if lo > 0}
        tv = sum(abs(a - b) for a, b in zip(w[u], p[u])) / 2
        differ += sw != sp
        distances.append(tv)
        only = [", ".join(map(str, sorted(s))) or "-" for s in (sw - sp, sp - sw)]
        rows.append(f"| {u} | {only[0]} | {only[1]} | {tv:.3f} |")
    found = _sec4_claims().claims(_recorded_json(win))  # [(bid, "proved" | ...)]
    claims = [bid for bid, _ in found]
    zeros = all(what == "proved" for _, what in found)
    if sentence:
        cog.outl(
            f"Playing to win is not playing for points: the supports differ in {differ} of "
            f"the {n} columns, by {min(distances):.2f} to {max(distances):.2f} in total "
            f"variation.  The paper's sec 4 claims "
            + ("hold" if zeros else "do NOT hold")
            + f" for it as well: the {n} is never answered by {_or_list(claims)} (zeros "
            "certified when the table was recorded)."
        )
        return
    cog.outl(
        "| upcard | bids of the win strategy only | of the points strategy only | total variation |"
    )
    cog.outl("|---|---|---|---|")
    for row in rows:
        cog.outl(row)
