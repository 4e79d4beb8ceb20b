"""Invariances of GOPS values on random positions (hypothesis), each checked on numbers
that something actually computed.

The solver stores one value per pair {pattern, swapped pattern} and writes the other as
its negative, writes 0 for identical hands without solving anything, and looks every
position up by the pattern of its hands (exact/game/encoding.py, exact/kernels/points.py).
So f(Y, V, P) = -f(V, Y, P), f(V, V, P) = 0 and f(g(V), g(Y), P) = f(V, Y, P) hold for
its stored values by construction: asking the Solution twice proves nothing.  Here:

- the brute-force oracle tests/reference.py recurses over raw positions, with no
  relabelling and no antisymmetry, so it computes both orientations, identical hands and
  relabelled hands on its own; the properties are asserted on its numbers and the
  solver's values and matrices are compared with them;
- the solver's matrix games at a position and at the swapped one (A and -A^T) are both
  solved by its kernel, and so is the game at identical hands (skew-symmetric, value 0);
- strategies are probability vectors that guarantee the value against every pure reply.

The oracle is slow (tens of ms per new position with 3 cards in hand), so its positions
have at most ``REFERENCE_K`` cards in hand.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from reference import reference_matrix, reference_value

N = 7
#: Largest hand of the positions given to the brute-force oracle.
REFERENCE_K = 3
#: Float tolerance of the solver's values and guarantees, and of the oracle (HiGHS, 1e-10).
TOL = 1e-9


@st.composite
def positions(draw, n=N, max_k=N):
    """(mine, theirs, deck) with k <= max_k cards each, drawn from 1..n."""
    k = draw(st.integers(1, max_k))
    cards = st.lists(st.integers(1, n), min_size=k, max_size=k, unique=True)
    return frozenset(draw(cards)), frozenset(draw(cards)), frozenset(draw(cards))


@pytest.fixture(scope="module")
def sol(solved):
    return solved(N)


@settings(max_examples=40, deadline=None)
@given(positions(max_k=REFERENCE_K), st.data())
def test_antisymmetry(sol, pos, data):
    """f(Y, V, P) = -f(V, Y, P) on the oracle's two separate computations; the solver's
    value of each orientation (the swapped one is a negated copy) equals the oracle's, and
    its kernel solves A and the swapped game -A^T to opposite values."""
    mine, theirs, deck = pos
    forward, swapped = reference_value(mine, theirs, deck), reference_value(theirs, mine, deck)
    assert swapped == pytest.approx(-forward, abs=TOL)
    assert sol.value(mine, theirs, deck) == pytest.approx(forward, abs=TOL)
    assert sol.value(theirs, mine, deck) == pytest.approx(swapped, abs=TOL)
    u = data.draw(st.sampled_from(sorted(deck)))
    there, back = sol.strategy(mine, theirs, deck, u), sol.strategy(theirs, mine, deck, u)
    assert back.value == pytest.approx(-there.value, abs=TOL)
    # The swapped game's equilibrium is the original one with the roles exchanged.
    A = reference_matrix(mine, theirs, deck, u)
    x = np.array([back.theirs[c] for c in sorted(mine)])
    assert (x @ A).min() >= there.value - TOL


@settings(max_examples=40, deadline=None)
@given(positions(max_k=REFERENCE_K))
def test_identical_hands_are_worth_zero(sol, pos):
    """The oracle computes f(V, V, P) = 0 by recursion (it never assumes it), which is
    what the solver writes without solving; the solver's matrices at V = Y, built from
    child values it did compute (off the diagonal), are the oracle's."""
    hand, _, deck = pos
    assert reference_value(hand, hand, deck) == pytest.approx(0, abs=TOL)
    assert sol.value(hand, hand, deck) == 0
    for u in sorted(deck):
        np.testing.assert_allclose(
            sol.matrix(hand, hand, deck, u), reference_matrix(hand, hand, deck, u), rtol=0, atol=TOL
        )


@settings(max_examples=100, deadline=None)
@given(positions())
def test_identical_hands_matrix_games_are_worth_zero(sol, pos):
    """At V = Y the kernel solves each upcard's game (skew-symmetric: children of swapped
    bids are opposite) to 0, and the mean of those games is the stored 0; an optimal mix
    of mine holds the opponent to 0 as well (x^T A >= 0 and A x <= 0)."""
    hand, _, deck = pos
    games = []
    for u in sorted(deck):
        s = sol.strategy(hand, hand, deck, u)
        A = sol.matrix(hand, hand, deck, u)
        x = np.array([s.mine[c] for c in sorted(hand)])
        assert s.value == pytest.approx(0, abs=TOL)
        assert (x @ A).min() >= -TOL and (A @ x).max() <= TOL
        games.append(s.value)
    assert np.mean(games) == pytest.approx(sol.value(hand, hand, deck), abs=TOL)


@settings(max_examples=40, deadline=None)
@given(positions(max_k=REFERENCE_K), st.data())
def test_order_preserving_relabelling(sol, pos, data):
    """Map the cards of both hands increasingly into 1..N, not all onto themselves: the
    oracle, which never relabels, computes the same value for both hands; the solver's
    value and matrix of the moved hands are the oracle's."""
    mine, theirs, deck = pos
    union = sorted(mine | theirs)
    images = sorted(
        data.draw(
            st.lists(st.integers(1, N), min_size=len(union), max_size=len(union), unique=True)
        )
    )
    assume(images != union)
    g = dict(zip(union, images))
    moved_mine, moved_theirs = {g[c] for c in mine}, {g[c] for c in theirs}
    moved = reference_value(moved_mine, moved_theirs, deck)
    assert moved == pytest.approx(reference_value(mine, theirs, deck), abs=TOL)
    assert sol.value(moved_mine, moved_theirs, deck) == pytest.approx(moved, abs=TOL)
    u = data.draw(st.sampled_from(sorted(deck)))
    np.testing.assert_allclose(
        sol.matrix(moved_mine, moved_theirs, deck, u),
        reference_matrix(moved_mine, moved_theirs, deck, u),
        rtol=0,
        atol=TOL,
    )


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
