"""Shared fixtures: solved games are cached per session (each N is solved once), and the
work tree is checked to be left as it was found (tests write only under tmp_path)."""

import shutil
import subprocess
from pathlib import Path

import pytest

import exact

REPO = Path(__file__).resolve().parents[1]


def _git_status_paths():
    """The paths ``git status`` reports in the repository holding tests/ (new, modified or
    deleted; untracked files one by one), or None outside a git checkout or without git.
    Ignored paths (.venv, __pycache__, .pytest_cache, .hypothesis...) are not reported."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        return None
    done = subprocess.run(
        ["git", "-C", str(REPO), "status", "--porcelain=v1", "--untracked-files=all"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        return None
    return {line[3:] for line in done.stdout.splitlines() if line}


@pytest.fixture(scope="session", autouse=True)
def work_tree_left_clean():
    """Fail the session if it added, changed or deleted a file that git sees: compared
    with the state before the session, so a developer's own uncommitted changes pass (a
    file already changed before the session and changed again is not caught)."""
    before = _git_status_paths()
    yield
    if before is None:
        return
    after = _git_status_paths() or set()
    appeared = sorted(after - before)
    if appeared:
        pytest.fail(
            "the test session left files in the work tree (write under tmp_path): "
            + ", ".join(appeared[:20])
            + (" ..." if len(appeared) > 20 else ""),
            pytrace=False,
        )


@pytest.fixture(scope="session")
def solved():
    """solved(n) -> the float Solution of n-card GOPS (points objective), cached."""
    cache = {}

    def get(n):
        if n not in cache:
            cache[n] = exact.solve(n)
        return cache[n]

    return get


@pytest.fixture(scope="session")
def solved_exact():
    """solved_exact(n) -> the rational Solution of n-card GOPS, cached."""
    cache = {}

    def get(n):
        if n not in cache:
            cache[n] = exact.solve(n, arithmetic="rational")
        return cache[n]

    return get
