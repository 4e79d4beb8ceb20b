"""The examples in the docstrings are run and must hold: every module of exact and of
certificates, found by walking the packages (a new module is tested without being named)."""

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import certificates
import exact


def _modules(package):
    return [package.__name__] + [
        m.name
        for m in pkgutil.walk_packages(
            [str(Path(package.__file__).parent)], prefix=package.__name__ + "."
        )
    ]


ALL = _modules(exact) + _modules(certificates)
#: ``python -m`` entry points: exact.cli.__main__ runs the command line when imported.
MAINS = [name for name in ALL if name.endswith(".__main__")]
MODULES = [name for name in ALL if name not in MAINS]
#: Modules whose examples need OpenSpiel (an optional extra).
NEEDS = {"exact.play.openspiel": "pyspiel"}
#: Modules whose examples are all marked ``+SKIP``, with the reason: nothing else skips.
ALL_SKIPPED = {"exact.play.openspiel": "OpenSpiel's NashConv; tests/test_openspiel.py runs it"}


def _source(name):
    spec = importlib.util.find_spec(name)
    return Path(spec.origin).read_text(encoding="utf-8")


def test_the_walk_finds_both_packages():
    assert len(MODULES) > 40
    assert {
        "exact.game.encoding",
        "exact.dp.variant_solver",
        "exact.play.bots",
        "exact.analysis.audit",
        "certificates.payoff",
        "certificates.minimax",
    } <= set(MODULES)


def test_the_entry_points_left_out_have_no_examples():
    assert MAINS  # exact.cli.__main__ and certificates.__main__
    for name in MAINS:
        assert ">>>" not in _source(name), name


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    if name in NEEDS:
        pytest.importorskip(NEEDS[name])
    module = importlib.import_module(name)
    examples = [e for t in doctest.DocTestFinder().find(module) for e in t.examples]
    skipped = [e for e in examples if e.options.get(doctest.SKIP)]
    failed, attempted = doctest.testmod(module)
    assert failed == 0, name
    # Examples written are examples found (not in a string doctest never reads), and every
    # one found and not marked +SKIP was run.
    assert (">>>" in _source(name)) == bool(examples), name
    assert attempted == len(examples) - len(skipped), name
    if name in ALL_SKIPPED:
        assert examples and len(skipped) == len(examples), name
    elif examples:
        assert attempted > 0, name
