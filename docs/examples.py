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
DURATION = re.compile(r"\b\d+(?:\.\d+)?(?= ?(?:s|ms|min|minutes|seconds|h)\b)")
#: Sizes that depend on the process (memory), not on the game.
MEMORY = re.compile(r"\b\d+(?:\.\d+)? (?=MiB|GiB)")
#: The pre-flight estimate scales by the cores of the machine it runs on.
CORES = re.compile(r"\b\d+(?= cores\b)")
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
    """
    text = CORES.sub("…", DURATION.sub("…", text))
    return MEMORY.sub("… ", text) if memory else text


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
    return done.stdout


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
