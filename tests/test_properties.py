"""Invariances of GOPS values on random positions (hypothesis).

- antisymmetry: swapping the players negates the value, f(Y, V, P) = -f(V, Y, P);
- identical hands are worth 0;
- an order-preserving relabelling of the hands keeps the value (exact/encoding.py);
- strategies are probability vectors that guarantee the value against every pure reply.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

N = 7
#: Float tolerance of the solver's values and guarantees.
TOL = 1e-9


@st.composite
def positions(draw, n=N):
    """(mine, theirs, deck) with k cards each, drawn from 1..n."""
    k = draw(st.integers(1, n))
    cards = st.lists(st.integers(1, n), min_size=k, max_size=k, unique=True)
    return frozenset(draw(cards)), frozenset(draw(cards)), frozenset(draw(cards))


@pytest.fixture(scope="module")
def sol(solved):
    return solved(N)


@settings(max_examples=200, deadline=None)
@given(positions())
def test_antisymmetry(sol, pos):
    mine, theirs, deck = pos
    assert sol.value(theirs, mine, deck) == pytest.approx(-sol.value(mine, theirs, deck), abs=TOL)


@settings(max_examples=100, deadline=None)
@given(positions())
def test_identical_hands_are_worth_zero(sol, pos):
    mine, _, deck = pos
    assert sol.value(mine, mine, deck) == 0


@settings(max_examples=200, deadline=None)
@given(positions(), st.data())
def test_order_preserving_relabelling(sol, pos, data):
    """Map the cards of both hands increasingly into 1..N: the value is unchanged."""
    mine, theirs, deck = pos
    union = sorted(mine | theirs)
    images = sorted(data.draw(st.lists(st.integers(1, N), min_size=len(union),
                                       max_size=len(union), unique=True)))
    g = dict(zip(union, images))
    moved = sol.value({g[c] for c in mine}, {g[c] for c in theirs}, deck)
    assert moved == pytest.approx(sol.value(mine, theirs, deck), abs=TOL)


@settings(max_examples=200, deadline=None)
@given(positions(), st.data())
def test_strategies_guarantee_the_value(sol, pos, data):
    mine, theirs, deck = pos
    upcard = data.draw(st.sampled_from(sorted(deck)))
    s = sol.strategy(mine, theirs, deck, upcard)
    A = sol.matrix(mine, theirs, deck, upcard)
    x = np.array([s.mine[c] for c in sorted(mine)])
    y = np.array([s.theirs[c] for c in sorted(theirs)])
    assert (x >= 0).all() and (y >= 0).all()
    assert x.sum() == pytest.approx(1, abs=1e-12) and y.sum() == pytest.approx(1, abs=1e-12)
    assert (x @ A).min() >= s.value - TOL
    assert (A @ y).max() <= s.value + TOL
    assert s.gap <= TOL
