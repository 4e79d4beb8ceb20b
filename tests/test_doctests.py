"""The examples in the solver's docstrings are run and must hold: every module of exact."""

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import exact

MODULES = ["exact"] + [
    m.name for m in pkgutil.walk_packages([str(Path(exact.__file__).parent)], prefix="exact.")
    if not m.name.endswith("__main__")
]
#: Modules whose examples need OpenSpiel (an optional extra).
NEEDS = {"exact.play.openspiel": "pyspiel"}


def test_the_list_is_complete():
    assert {"exact.game.encoding", "exact.dp.variant_solver", "exact.play.bots", "exact.analysis.audit"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    if name in NEEDS:
        pytest.importorskip(NEEDS[name])
    failed, attempted = doctest.testmod(importlib.import_module(name))
    assert failed == 0, name
