"""Every notebook in notebooks/ runs top to bottom (as pygambit's test_tutorials.py does).

The notebooks assert what they show (Rhoads & Bartholdi 2012, Table 1 and sec 5; the
certificate check; the audit; uniqueness of the first moves), so a run without an error
reproduces those results.  Figures are written to notebooks/figures/.
"""

import time
from pathlib import Path

import nbclient
import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
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
