"""Every notebook in notebooks/ runs top to bottom (as pygambit's test_tutorials.py does).

The notebooks assert what they show (Rhoads & Bartholdi 2012, Table 1 and sec 5; the
certificate check; the audit; uniqueness of the first moves), so a run without an error
reproduces those results.  Figures are written to notebooks/figures/.
"""

import importlib.metadata
import re
import sys
import time
from pathlib import Path

import nbclient
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
#: Seconds allowed per cell (the whole reproduce_paper notebook takes about 30 s).
CELL_TIMEOUT = 300


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.stem)
def test_notebook_runs(path, tmp_path, monkeypatch):
    started = time.time()
    scratch = tmp_path / "tmp"  # the kernel's temporary folder: left empty by every notebook
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute()  # raises CellExecutionError, naming the cell, on any failure
    assert not list(scratch.iterdir()), "the notebook left temporary files behind"
    if path.stem == "reproduce_paper":
        figure = NOTEBOOKS / "figures" / "first_move_parity.png"
        assert figure.stat().st_mtime >= started - 1 and figure.stat().st_size > 0


def _imports(path: Path) -> set[str]:
    """The top-level modules a notebook's code cells import."""
    nb = nbformat.read(path, as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    return {m.split(".")[0] for m in re.findall(r"^\s*(?:import|from)\s+([\w.]+)", code, re.M)}


def test_the_notebooks_extra_installs_what_they_import():
    """`pip install -e '.[notebooks]'` brings a kernel, `jupyter execute` and every
    third-party module a notebook imports that the package itself does not."""
    pyproject = (ROOT / "pyproject.toml").read_text()
    (extra,) = re.findall(r"^notebooks = \[(.*?)\]", pyproject, re.M | re.S)
    (core,) = re.findall(r"^dependencies = \[(.*?)\]", pyproject, re.M | re.S)
    wanted = {
        re.split(r"[<>=!~ \[]", r.strip().strip('"'))[0].lower()
        for r in f"{extra},{core}".split(",")
        if r.strip()
    }
    provided = importlib.metadata.packages_distributions()
    needed = {"ipykernel", "nbclient"}
    for path in NOTEBOOKS.glob("*.ipynb"):
        for module in _imports(path) - sys.stdlib_module_names - {"exact", "certificates"}:
            needed |= {d.lower() for d in provided[module]}
    needed -= {"ipython"}  # IPython.display: ipykernel's own dependency
    assert needed <= wanted, needed - wanted


def test_the_docs_name_every_notebook_and_how_to_run_it():
    page = (ROOT / "docs" / "getting-started.md").read_text()
    for path in NOTEBOOKS.glob("*.ipynb"):
        assert f"notebooks/{path.name}" in page
    assert "pip install -e '.[notebooks]'" in page
