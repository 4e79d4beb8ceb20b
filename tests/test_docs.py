"""README.md and the documentation site (docs/, mkdocs.yml) cannot go stale unnoticed.

Two checks live in .ci/run, beside the tests, because they need the docs extra: ``cog
--check`` re-runs every command whose output is shown (docs/examples.py) and fails on any
difference, and ``mkdocs build --strict`` fails on a broken link or a reference the
docstrings lack.  These tests check the rest: that every output shown *is* one of those
generated blocks, that every Python session shown runs as printed (doctest), that the
README stays short and shows CI's own test command, and that the recorded numbers behind
the figures are still in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import doctest
import importlib
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS))

#: The Markdown users read: README, the site's own pages, the notes beside the code.
PAGES = sorted(
    [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md", *DOCS.rglob("*.md")]
)
#: Results of multi-hour runs that CI cannot repeat, each recorded with its date, commit
#: and machine in benchmarks/RESULTS.md; they are not command transcripts to regenerate.
RECORDED_ONLY = {DOCS / "frontier.md"}
#: A fenced block: its opening fence, its language, its body.
FENCE = re.compile(
    r"^(?P<indent> *)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```", re.S | re.M
)
README_MAX_LINES = 200


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def blocks(path: Path):
    """(language, body, line number, inside a cog block) of every fenced block of a page."""
    text = path.read_text(encoding="utf-8")
    cog_spans = [
        (m.start(), m.end()) for m in re.finditer(r"\[\[\[cog.*?\[\[\[end\]\]\]", text, re.S)
    ]
    for m in FENCE.finditer(text):
        generated = any(a <= m.start() and m.end() <= b for a, b in cog_spans)
        yield m["lang"], m["body"], text.count("\n", 0, m.start()) + 1, generated


def test_the_pages_are_found():
    names = {rel(p) for p in PAGES}
    assert {
        "README.md",
        "docs/index.md",
        "docs/getting-started.md",
        "docs/method.md",
        "docs/errata.md",
        "docs/frontier.md",
    } <= names


def test_the_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


def test_the_readme_shows_ci_s_own_test_command():
    ci_last = (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip("\n").splitlines()[-1]
    assert ci_last.endswith("python -m pytest -q"), ci_last
    shown = [body.strip() for lang, body, _, _ in blocks(ROOT / "README.md") if lang == "sh"]
    assert ci_last in shown


def test_ci_runs_the_doc_checks():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^\S.*\| xargs .*\bcog --check\b", ci, re.M), "cog --check is not in .ci/run"
    assert re.search(r"^(\S+=\S+ )*mkdocs build --strict\b", ci, re.M), (
        "mkdocs build --strict is not in .ci/run"
    )


@pytest.mark.parametrize("path", PAGES, ids=rel)
def test_every_output_shown_is_generated(path):
    """A ```console block (a command and its output) is written by cog, never by hand; a
    fenced block says what it holds."""
    for lang, _, line, generated in blocks(path):
        assert lang, f"{rel(path)}:{line}: a fenced block without a language"
        if lang == "console" and path not in RECORDED_ONLY:
            assert generated, f"{rel(path)}:{line}: a console block outside a cog block"


def sessions(path: Path) -> list[tuple[int, str]]:
    return [(line, body) for lang, body, line, _ in blocks(path) if lang == "pycon"]


WITH_SESSIONS = [p for p in PAGES if sessions(p)]


@pytest.mark.parametrize("path", WITH_SESSIONS, ids=rel)
def test_every_python_session_runs_as_shown(path, tmp_path, monkeypatch):
    """The ```pycon blocks of a page, in order and sharing their names, run by doctest."""
    text = "\n".join(body for _, body in sessions(path))
    for module in re.findall(r"^>>> (?:from|import) (pyspiel|open_spiel)\b", text, re.M):
        pytest.importorskip(module)
    monkeypatch.chdir(tmp_path)  # files the examples write land here
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs: dict = {"__name__": "__docs__"}
    for line, body in sessions(path):
        test = parser.get_doctest(body, globs, f"{rel(path)}:{line}", str(path), line)
        runner.run(test, clear_globs=False)
        globs = test.globs  # a DocTest runs in a copy: the next block sees this one's names
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{rel(path)}: {result.failed} examples failed (above)"


@pytest.mark.parametrize("path", PAGES, ids=rel)
def test_no_page_speaks_of_the_issue_or_the_seed(path):
    text = path.read_text(encoding="utf-8")
    assert not re.search(r"\bthe (issue|seed)\b", text, re.I), rel(path)


def nav_pages() -> set[str]:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = text[text.index("\nnav:") :]
    return set(re.findall(r"([\w./-]+\.md)\s*$", nav, re.M))


def test_every_page_is_in_the_nav():
    pages = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert pages == nav_pages()


def test_the_included_files_exist():
    """The pages that include a repository file whole (pymdownx.snippets)."""
    for path in DOCS.rglob("*.md"):
        for name in re.findall(r'^--8<-- "([^"]+)"', path.read_text(encoding="utf-8"), re.M):
            assert (ROOT / name).is_file(), f"{rel(path)} includes {name}"


def test_the_readme_links_resolve():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if not re.match(r"[a-z]+:", target):
            assert (ROOT / target).exists(), f"README.md links to {target}"


def test_the_commands_shown_exist():
    """Every `gops COMMAND` written in a page names a real command."""
    import click

    from exact.cli import main

    commands = set(main.list_commands(click.Context(main)))
    for path in PAGES:
        text = path.read_text(encoding="utf-8")
        for name in re.findall(r"(?:^|[`$] ?|&& )gops ([a-z][a-z-]*)", text, re.M):
            assert name in commands, f"{rel(path)}: gops {name}"


def test_the_recorded_numbers_are_in_results():
    """The rows of benchmarks/RESULTS.md that the figures and docs/performance.md show."""
    figures = importlib.import_module("figures")
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    for quote in figures.quotes():
        assert quote in results, quote


def test_every_figure_is_made_by_the_script_and_shown():
    """Every picture of the site is made by a committed script (docs/figures.py from real
    results, docs/screenshots.py of the web page) and shown on a page."""
    figures = importlib.import_module("figures")
    made = set(figures.FIGURES) | set(importlib.import_module("screenshots").SHOTS)
    on_disk = {p.stem for p in (DOCS / "figures").glob("*.png")}
    assert on_disk == made
    shown = set()
    for path in DOCS.rglob("*.md"):
        shown |= set(re.findall(r"figures/([\w-]+)\.png", path.read_text(encoding="utf-8")))
    assert shown == made


@pytest.mark.parametrize("module", ["examples", "docstrings"])
def test_the_doc_tools_hold_their_examples(module):
    failed, attempted = doctest.testmod(importlib.import_module(module))
    assert attempted > 0 and failed == 0


def test_cog_is_told_of_every_page_with_generated_output():
    """.ci/run's cog --check covers README.md and every page of docs/ (by glob: the pages
    it is handed, two at a time, are the array ``cog_pages``)."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    line = next(x for x in ci.splitlines() if x.startswith("cog_pages=("))
    line = line.removeprefix("cog_pages=(").removesuffix(")")
    with_cog = {rel(p) for p in PAGES if "[[[cog" in p.read_text(encoding="utf-8")}
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)
        import glob

        covered = {f for word in line.split() for f in glob.glob(word.strip("'\""))}
    finally:
        os.chdir(cwd)
    assert with_cog <= covered, with_cog - covered
