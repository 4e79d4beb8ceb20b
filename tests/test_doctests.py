"""The examples in the solver's docstrings are run and must hold."""

import doctest
import importlib

import pytest

MODULES = ["exact", "exact.encoding", "exact.exact_game", "exact.solution", "exact.solve"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    failed, attempted = doctest.testmod(importlib.import_module(name))
    assert attempted > 0 and failed == 0
