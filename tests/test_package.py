"""What a newcomer sees of the package: its version, its public names, where `gops
reproduce` writes, and the documentation's steps shown in full."""

import re
import subprocess
from pathlib import Path

from click.testing import CliRunner

import exact
from exact.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_the_version_is_the_projects():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert [exact.__version__] == re.findall(r'^version = "(.*)"$', pyproject, re.M)


def test_dir_shows_the_public_api_only():
    names = dir(exact)
    assert not {"Callable", "PathLike", "atomic", "dp", "annotations"} & set(names)
    assert set(names) == {*exact.__all__, "__version__"}
    for name in exact.__all__:
        assert getattr(exact, name) is not None


def test_reproduce_says_where_it_writes():
    text = " ".join(CliRunner().invoke(main, ["reproduce", "--help"]).output.split())
    assert "gops-5.cert in the current folder" in text


def test_what_reproduce_writes_is_not_committed_by_accident():
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "gops-5.cert"], cwd=ROOT, check=False
    ).returncode
    assert ignored == 0
    kept = subprocess.run(
        ["git", "check-ignore", "-q", "tests/x.cert"], cwd=ROOT, check=False
    ).returncode
    assert kept == 1  # only the repository's root folder


def test_the_tampered_certificate_is_made_before_the_readers_eyes():
    """docs/certificates.md: every file a shown command reads is made by a shown step (a
    cog comment's hidden setup is not shown)."""
    page = (ROOT / "docs" / "certificates.md").read_text()
    assert "setup=" not in page
    shown = re.sub(r"<!--.*?-->", "", page, flags=re.S)
    making = shown.index('open("bad.cert", "wb")')
    assert making < shown.index("$ gops check bad.cert")
