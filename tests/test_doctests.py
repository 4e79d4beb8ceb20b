"""The examples in the solver's docstrings are run and must hold: every module of exact."""

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import exact

MODULES = ["exact"] + [
    f"exact.{m.name}" for m in pkgutil.iter_modules([str(Path(exact.__file__).parent)])
    if m.name != "__main__"
]
#: Modules whose examples need OpenSpiel (an optional extra).
NEEDS = {"exact.openspiel": "pyspiel"}


def test_the_list_is_complete():
    assert {"exact.encoding", "exact.variant_solver", "exact.bots", "exact.audit"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    if name in NEEDS:
        pytest.importorskip(NEEDS[name])
    failed, attempted = doctest.testmod(importlib.import_module(name))
    assert failed == 0, name
