"""The solved two-player variants (exact.dp.variant_solver): 12-round game and random dummy.

Checked against an independent brute-force reference (tests/reference_variants.py, HiGHS,
raw positions, its own round scoring), against the fast solver on the standard game, by
exact equilibrium conditions on exact matrices, and on hand-worked positions.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import pytest

import exact
from exact.dp.variant_solver import VariantSolution, check_variant_options, solve_variant
from exact.errors import GopsInputError
from exact.limits import VARIANT_MAX_N
from reference import reference_game
from reference_variants import reference_variant_matrix, reference_variant_value

#: Float solver vs the HiGHS reference (both float64, errors ~1e-13 per game).
TOL = 1e-9
F = Fraction


def subsets(cards, k):
    return [frozenset(c) for c in combinations(sorted(cards), k)]


def positions(sol: VariantSolution, k: int):
    """Every position of ``sol``'s game with k cards per hand (dummy's suit included)."""
    n, v = sol.n, sol.variant
    hands = subsets(v.bid_cards(n), k)
    decks = subsets(range(1, n + 1), k + (1 if v.drop_last else 0))
    dummies = subsets(range(1, n + 1), k) if v.dummy else [frozenset()]
    for h0 in hands:
        for h1 in hands:
            for d in dummies:
                for p in decks:
                    yield h0, h1, d, p


@pytest.mark.parametrize(
    "variant, n, k, step",
    [("twelve", 4, 2, 1), ("twelve", 5, 2, 2), ("dummy", 3, 2, 1), ("dummy", 4, 2, 5)],
)
def test_values_match_reference(variant, n, k, step):
    """Every position with k cards a hand (every step-th one), against the reference."""
    sol = solve_variant(variant, n)
    checked = 0
    for h0, h1, d, p in list(positions(sol, k))[::step]:
        got = sol.value(h0, h1, p, d)
        want = reference_variant_value(h0, h1, d if sol.variant.dummy else None, p)
        assert abs(got - want) <= TOL, (h0, h1, d, p, got, want)
        checked += 1
    assert checked >= 30


@pytest.mark.parametrize("variant, n", [("twelve", 5), ("dummy", 3)])
def test_first_moves_match_reference(variant, n):
    """At the start: the game value of every upcard, and our mix guarantees it."""
    sol = solve_variant(variant, n)
    h0, h1, d, p = sol.start()
    assert abs(sol.value(h0, h1, p, d)) <= TOL  # symmetric game
    for u in sorted(p):
        st = sol.strategy(h0, h1, p, u, d)
        M = reference_variant_matrix(h0, h1, d if sol.variant.dummy else None, p, u)
        v_ref = reference_game(M)[0]
        assert abs(st.value - v_ref) <= TOL
        cols = sorted(h1)
        worst = min(
            sum(st.mine[a] * M[i][j] for i, a in enumerate(sorted(h0))) for j, _ in enumerate(cols)
        )
        assert worst >= v_ref - TOL  # our mix guarantees the reference value
        assert st.gap <= TOL


def exact_equilibrium_holds(M, value, x, y) -> bool:
    """x guarantees >= value against every column, y concedes <= value to every row."""
    rows, cols = range(len(M)), range(len(M[0]))
    return (
        all(p >= 0 for p in x)
        and all(q >= 0 for q in y)
        and sum(x) == 1
        and sum(y) == 1
        and all(sum(x[i] * M[i][j] for i in rows) >= value for j in cols)
        and all(sum(M[i][j] * y[j] for j in cols) <= value for i in rows)
    )


@pytest.mark.parametrize("variant, n", [("twelve", 5), ("dummy", 3)])
def test_exact_strategies_are_equilibria(variant, n):
    sol = solve_variant(variant, n, arithmetic="rational")
    flt = solve_variant(variant, n)
    h0, h1, d, p = sol.start()
    assert sol.value(h0, h1, p, d) == 0
    checked = 0
    for k in (n - 2, n - 1):
        for a, b, dd, pp in list(positions(sol, k))[::7]:
            for u in sorted(pp):
                M = sol.matrix(a, b, pp, u, dd)
                st = sol.strategy(a, b, pp, u, dd)
                x = [st.mine[c] for c in sorted(a)]
                y = [st.theirs[c] for c in sorted(b)]
                assert all(isinstance(m, Fraction) for row in M for m in row)
                assert exact_equilibrium_holds(M, st.value, x, y)
                assert abs(float(st.value) - flt.strategy(a, b, pp, u, dd).value) <= TOL
                checked += 1
    assert checked > 20


def test_antisymmetry_exact():
    """Swapping the players negates every value (the rules treat them alike)."""
    sol = solve_variant("dummy", 4, arithmetic="rational")
    seen = set()
    for h0, h1, d, p in list(positions(sol, 2))[::5]:
        v = sol.value(h0, h1, p, d)
        assert v == -sol.value(h1, h0, p, d)
        seen.add(v)
    assert len(seen) > 5  # not all zero


@pytest.mark.parametrize("n", [3, 4])
def test_standard_variant_equals_fast_solver(n, solved_exact):
    """The generic recursion on the standard game gives the fast solver's exact values."""
    sol = solve_variant("standard", n, arithmetic="rational")
    fast = solved_exact(n)
    for k in range(1, n + 1):
        for h0, h1, _, p in positions(sol, k):
            assert sol.value(h0, h1, p) == fast.value(h0, h1, p)


def test_hand_worked_positions():
    twelve = solve_variant("twelve", 3, arithmetic="rational")
    # One round left, 1 or 2 up, I hold the higher card: 3/2 on average.
    assert twelve.value({3}, {2}, {1, 2}) == F(3, 2)
    # First round: the 3 against a mean remaining prize of 3/2 (1 or 2 bid next, one is
    # discarded): bidding the 3 dominates; on the 1 (mean 5/2 left) the 2 does.
    assert twelve.strategy({2, 3}, {2, 3}, {1, 2, 3}, 3).mine == {2: 0, 3: 1}
    assert twelve.strategy({2, 3}, {2, 3}, {1, 2, 3}, 1).mine == {2: 1, 3: 0}
    dummy = solve_variant("dummy", 2, arithmetic="rational")
    # Last round on the 2: I tie the dummy's 2 for high, they bid 1: I get half.
    assert dummy.value({2}, {1}, {2}, dummy={2}) == 1
    assert dummy.value({1}, {2}, {2}, dummy={2}) == -1
    # Both players tie above the dummy: half each, difference 0.
    assert dummy.value({2}, {2}, {2}, dummy={1}) == 0
    # The dummy's 2 beats both: nobody scores.
    assert dummy.value({1}, {1}, {1}, dummy={2}) == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (("three", 4, "float"), "solvable two-player variants"),
        (
            ("twelve", VARIANT_MAX_N["twelve", "float"] + 1, "float"),
            "between 1 and 9 in the twelve variant",
        ),
        (
            ("dummy", VARIANT_MAX_N["dummy", "rational"] + 1, "rational"),
            "between 1 and 5 in the dummy variant",
        ),
        (("twelve", 1, "float"), "needs N >= 2"),
        (("twelve", 4, "decimal"), "arithmetic"),
        (("twelve", 0, "float"), "between 1"),
    ],
)
def test_bad_options(args, message):
    with pytest.raises(GopsInputError, match=message):
        check_variant_options(*args)


@pytest.mark.parametrize(
    "variant, call, message",
    [
        ("twelve", lambda s: s.value({1, 2}, {2, 3}, {1, 2, 3}), "outside 2..4"),
        ("twelve", lambda s: s.value({2, 3}, {2, 3}, {1, 2}), "deck must hold 3"),
        ("twelve", lambda s: s.value({2}, {3}, {1, 2}, dummy={1}), "no dummy"),
        ("dummy", lambda s: s.value({2}, {3}, {1}), "dummy's suit must hold 1"),
        ("dummy", lambda s: s.strategy({2}, {3}, {1}, 4, dummy={1}), "upcard 4"),
        ("dummy", lambda s: s.value({2}, {3, 4}, {1}, dummy={1}), "differ in size"),
    ],
)
def test_bad_positions(variant, call, message):
    sol = solve_variant(variant, 4)
    with pytest.raises(GopsInputError, match=message):
        call(sol)


def test_exact_package_exports():
    assert exact.solve_variant is solve_variant


#: memory_bytes counts an int shared by many memo keys in each of them: an upper bound,
#: about twice the bytes allocated (2.0 at twelve N = 7 and dummy N = 5, up to 3.1 on the
#: small solves tested here).
MEMORY_OVERCOUNT = 3.5


@pytest.mark.parametrize("variant, n", [("twelve", 6), ("dummy", 4)])
def test_memory_bytes_bounds_what_the_solve_allocated(variant, n):
    """VariantSolution.memory_bytes, the weight gops serve gives a variant in its cache,
    against what tracemalloc saw the solve allocate and keep: never below it, at most
    MEMORY_OVERCOUNT times it."""
    import tracemalloc

    solve_variant(variant, 3)  # imports and first-use caches outside the measurement
    tracemalloc.start()
    try:
        sol = solve_variant(variant, n)
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    weight = sol.memory_bytes()
    print(f"{variant} N = {n}: {weight} bytes counted, {kept} allocated")
    assert kept <= weight <= MEMORY_OVERCOUNT * kept, (weight, kept)
