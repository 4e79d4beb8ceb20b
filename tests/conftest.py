"""Shared fixtures: solved games are cached per session (each N is solved once), and the
work tree is checked to be left as it was found (tests write only under tmp_path).  The
Hypothesis profiles: CI draws the same examples every run."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import settings

import exact
import exact.cli

REPO = Path(__file__).resolve().parents[1]

# --- Hypothesis profiles, chosen by HYPOTHESIS_PROFILE (default "ci") -------------------
# "ci": derandomized (the examples are a function of the test alone) and no example
# database, so a run cannot fail by chance or by what an earlier run found.  "random":
# fresh examples each run (``--hypothesis-seed=N`` replays one).  "many": fresh examples,
# MANY_EXAMPLES times each test's own max_examples.
MANY_EXAMPLES = 10
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("random", derandomize=False, print_blob=True)
settings.register_profile("many", derandomize=False, print_blob=True)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)

# gops says "compiling kernels (first run only)" on stderr when numba compiles
# (exact.cli.announce_compiling); in the test process a cold cache would put that line in
# outputs the tests compare, so it is left off here (tests/test_cli_startup.py runs it in
# processes of its own).
exact.cli._announcing = True


def pytest_collection_modifyitems(items):
    """Under the "many" profile, multiply each property test's own max_examples (pinned by
    its @settings, which a profile cannot override) by MANY_EXAMPLES."""
    if PROFILE != "many":
        return
    for item in items:
        test = getattr(item, "obj", None)
        pinned = getattr(test, "_hypothesis_internal_use_settings", None)
        if pinned is not None:
            test._hypothesis_internal_use_settings = settings(
                pinned, max_examples=pinned.max_examples * MANY_EXAMPLES
            )


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


@pytest.fixture(scope="session", autouse=True)
def empty_three_player_cache(tmp_path_factory):
    """Every test sees an empty cache of saved three-player solutions (exact/three/cache.py)
    unless it sets GOPS_CACHE itself: what a user saved never changes what a test sees.
    Commands run in child processes inherit it."""
    patch = pytest.MonkeyPatch()
    patch.setenv("GOPS_CACHE", str(tmp_path_factory.mktemp("gops-cache")))
    yield
    patch.undo()


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
