"""The main solver (``exact``) against the brute-force oracle (``tests/reference.py``).

The oracle recurses over raw positions (V, Y, P) with no reduction at all and
solves every matrix game with HiGHS, so agreement here checks the main
solver's relabelling / symmetry reductions and its LP solving end to end.

The oracle's memo (an ``lru_cache`` in ``reference``) is shared by every test
in the session, so the whole N = 5 tree is solved by the oracle only once
(~15-25 s on a small machine); everything else is lookups.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

import numpy as np
import pytest

import exact
from reference import reference_game, reference_matrix, reference_value

TOL = 1e-9

MAX_N = 5


@cache
def _solution(n: int):
    return exact.solve(n)


def _positions(n: int, k: int):
    """Every raw position with |V| = |Y| = |P| = k over cards 1..n, hands
    overlapping arbitrarily (they need not be disjoint)."""
    cards = range(1, n + 1)
    for V in combinations(cards, k):
        for Y in combinations(cards, k):
            for P in combinations(cards, k):
                yield set(V), set(Y), set(P)


def _fmt(V, Y, P, u=None):
    s = f"V={sorted(V)} Y={sorted(Y)} P={sorted(P)}"
    return s if u is None else f"{s} u={u}"


def _report(failures, what):
    if failures:
        shown = "\n  ".join(failures[:20])
        more = f"\n  ... and {len(failures) - 20} more" if len(failures) > 20 else ""
        pytest.fail(f"{len(failures)} {what}:\n  {shown}{more}")


# --- values of every position ---------------------------------------------

_LEVELS = [(n, k) for n in range(1, MAX_N + 1) for k in range(0, n + 1)]


@pytest.mark.parametrize("n, k", _LEVELS, ids=[f"N{n}-k{k}" for n, k in _LEVELS])
def test_value_every_position(n, k):
    """exact.solve(n).value(V, Y, P) == reference_value(V, Y, P) within TOL for
    every V, Y, P subset of {1..n} with |V| = |Y| = |P| = k.

    All levels are checked, including N = 5 in full: over k = 0..5 that is
    1 + 125 + 1000 + 1000 + 125 + 1 = 2252 positions (k = 0 is the empty,
    finished game, value 0).
    """
    sol = _solution(n)
    failures = []
    count = 0
    for V, Y, P in _positions(n, k):
        count += 1
        got = float(sol.value(V, Y, P))
        want = reference_value(V, Y, P)
        if not abs(got - want) <= TOL:
            failures.append(f"{_fmt(V, Y, P)}: exact {got!r} reference {want!r}")
    assert count > 0
    _report(failures, f"value mismatches at N={n}, k={k}")


# --- strategies -------------------------------------------------------------

_STRAT_N = 4
_STRAT_LEVELS = list(range(1, _STRAT_N + 1))


def _distribution(probs: dict, hand: set, who: str, where: str, failures: list) -> np.ndarray:
    """Turn a {card: prob} dict into a vector over sorted(hand), checking it."""
    extra = set(probs) - set(hand)
    if extra:
        failures.append(f"{where}: {who} strategy has cards {sorted(extra)} not in hand")
    p = np.array([float(probs.get(c, 0.0)) for c in sorted(hand)])
    if p.min() < -TOL or abs(p.sum() - 1.0) > TOL:
        failures.append(f"{where}: {who} strategy is not a distribution: {probs}")
    return p


@pytest.mark.parametrize("k", _STRAT_LEVELS, ids=[f"N{_STRAT_N}-k{k}" for k in _STRAT_LEVELS])
def test_strategies_guarantee_reference_value(k):
    """For N = 4, every position at level k and every upcard u:

    * strategy(...).value equals the oracle's value of the matrix game;
    * the main solver's strategy for me guarantees at least that value against
      every pure reply (column) of the oracle's payoff matrix, and its strategy
      for the opponent holds me to at most that value against every row.

    Optimal strategies need not be unique, so guarantees are compared, not
    probability vectors.
    """
    n = _STRAT_N
    sol = _solution(n)
    failures = []
    for V, Y, P in _positions(n, k):
        total = 0.0
        for u in sorted(P):
            where = _fmt(V, Y, P, u)
            X = reference_matrix(V, Y, P, u)
            ref_v = reference_game(X)[0]
            st = sol.strategy(V, Y, P, u)
            got_v = float(st.value)
            total += got_v
            if not abs(got_v - ref_v) <= TOL:
                failures.append(f"{where}: strategy value {got_v!r} reference {ref_v!r}")
            x = _distribution(st.mine, V, "my", where, failures)
            y = _distribution(st.theirs, Y, "their", where, failures)
            worst_for_me = float((x @ X).min())
            best_for_me = float((X @ y).max())
            if worst_for_me < ref_v - TOL:
                failures.append(
                    f"{where}: my strategy guarantees only {worst_for_me!r} < {ref_v!r}"
                )
            if best_for_me > ref_v + TOL:
                failures.append(f"{where}: their strategy concedes {best_for_me!r} > {ref_v!r}")
        # f(V, Y, P) is the mean of the f_u.
        if not abs(total / len(P) - reference_value(V, Y, P)) <= TOL:
            failures.append(
                f"{_fmt(V, Y, P)}: mean of strategy values {total / len(P)!r} "
                f"!= reference value {reference_value(V, Y, P)!r}"
            )
    _report(failures, f"strategy failures at N={n}, k={k}")


@pytest.mark.parametrize("n", range(1, MAX_N + 1), ids=[f"N{n}" for n in range(1, MAX_N + 1)])
def test_first_move_table_guarantees_value(n):
    """first_move_table()[u] is an optimal first bid for every upcard u: it
    guarantees the oracle's root value f_u (0, the game being symmetric)
    against every pure reply."""
    sol = _solution(n)
    S = set(range(1, n + 1))
    table = sol.first_move_table()
    assert set(table) == S
    failures = []
    for u in sorted(S):
        where = f"N={n} u={u}"
        X = reference_matrix(S, S, S, u)
        ref_v = reference_game(X)[0]
        assert abs(ref_v) <= TOL
        x = _distribution(table[u], S, "first-move", where, failures)
        worst = float((x @ X).min())
        if worst < ref_v - TOL:
            failures.append(f"{where}: first-move bid guarantees only {worst!r} < {ref_v!r}")
    _report(failures, f"first-move table failures at N={n}")
