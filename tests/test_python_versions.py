"""The oldest Python that pyproject.toml admits (requires-python) can parse every source file.

``ast.parse(feature_version=...)`` does not catch all newer syntax (it accepts the 3.11
starred subscript ``table["play", *flag]`` that once made ``gops`` die on 3.10), so the
files are compiled by that interpreter itself when this machine has one (pyenv's or on
PATH); without it the test is skipped, saying so.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOURCES = ["exact", "certificates", "tests", "benchmarks"]


def oldest_python():
    """(major, minor) from requires-python = ">=X.Y"."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'^requires-python\s*=\s*">=\s*(\d+)\.(\d+)"', text, re.M)
    assert found, "requires-python >= X.Y not found in pyproject.toml"
    return int(found.group(1)), int(found.group(2))


def interpreter(version):
    """A runnable interpreter of exactly ``version``, or None."""
    major, minor = version
    home = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    candidates = [
        shutil.which(f"python{major}.{minor}"),
        *sorted(glob.glob(f"{home}/versions/{major}.{minor}.*/bin/python")),
    ]
    for exe in filter(None, candidates):
        try:
            done = subprocess.run(
                [exe, "-c", "import sys; print(*sys.version_info[:2])"],
                capture_output=True,
                text=True,
                timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0 and done.stdout.split() == [str(major), str(minor)]:
            return exe
    return None


def test_every_source_file_compiles_on_the_oldest_python():
    version = oldest_python()
    if sys.version_info[:2] == version:
        exe = sys.executable
    else:
        exe = interpreter(version)
        if exe is None:
            pytest.skip(f"no Python {version[0]}.{version[1]} interpreter on this machine")
    files = sorted(str(p) for d in SOURCES for p in (REPO / d).rglob("*.py"))
    assert len(files) > 100
    # compile() without writing .pyc files; prints each file that does not parse.
    check = (
        "import sys\nbad = []\nfor f in sys.argv[1:]:\n"
        "    try:\n        compile(open(f, encoding='utf-8').read(), f, 'exec')\n"
        "    except SyntaxError as e:\n        bad.append(f'{f}:{e.lineno}: {e.msg}')\n"
        "print('\\n'.join(bad))\n"
    )
    done = subprocess.run([exe, "-c", check, *files], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"not Python {version} syntax:\n{done.stdout}"
