"""The fixed-bid game (exact.analysis.fixed_bids) against a brute-force LP over every
bijection, and what our GOPS equilibrium gains against its equilibrium (the value of
adaptivity itself: tests/test_adaptivity.py)."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import permutations

import numpy as np
import pytest
from scipy.optimize import linprog

import exact
from exact.analysis.fixed_bids import adaptivity_gain, solve_fixed_bids
from exact.errors import GopsInputError

#: A float equilibrium's largest gain against a pure reply (HiGHS and double oracle).
TOL = 1e-8


def brute_matrix(n):
    """Every bijection (bids for prizes 1..n) and the payoff matrix, written out here."""
    bijections = list(permutations(range(1, n + 1)))
    M = [
        [sum(p * ((a > b) - (a < b)) for p, a, b in zip(range(1, n + 1), s, t)) for t in bijections]
        for s in bijections
    ]
    return bijections, M


def brute_value(M) -> float:
    """max_x min_t x^T M by HiGHS over the whole game."""
    m = len(M)
    A = np.array(M, dtype=float)
    res = linprog(
        np.r_[np.zeros(m), -1.0],
        A_ub=np.hstack([-A.T, np.ones((m, 1))]),
        b_ub=np.zeros(m),
        A_eq=np.r_[np.ones(m), 0.0][None, :],
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
        method="highs",
    )
    return -res.fun


def guarantee(mix, bijections, M):
    """min over pure replies t of sum_s x_s M[s][t]."""
    index = {s: i for i, s in enumerate(bijections)}
    return min(sum(p * M[index[s]][j] for s, p in mix.items()) for j in range(len(bijections)))


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_exact_equilibrium_against_the_whole_game(n):
    bijections, M = brute_matrix(n)
    assert abs(brute_value(M)) < 1e-9  # symmetric: value 0
    eq = solve_fixed_bids(n, "rational")
    assert eq.exact and eq.exploitability <= 0
    assert sum(eq.mix.values()) == 1 and all(isinstance(p, Fraction) for p in eq.mix.values())
    assert guarantee(eq.mix, bijections, M) == 0  # exactly: no reply gains, some ties


@pytest.mark.parametrize("n", [4, 5])
def test_float_equilibrium_guarantees_the_value(n):
    bijections, M = brute_matrix(n)
    eq = solve_fixed_bids(n)
    assert abs(sum(eq.mix.values()) - 1) < TOL
    assert guarantee(eq.mix, bijections, M) >= -TOL
    assert eq.exploitability <= TOL


def test_exact_at_five_is_verified_independently():
    bijections, M = brute_matrix(5)
    eq = solve_fixed_bids(5, "rational")
    assert guarantee(eq.mix, bijections, M) == 0
    assert len(eq.mix) > 1  # a mixed equilibrium: no bijection is safe alone
    assert all(guarantee({s: Fraction(1)}, bijections, M) < 0 for s in bijections)


def test_adaptivity_gain_exact_and_float_agree():
    eq = solve_fixed_bids(4, "rational")
    gain, bound = adaptivity_gain(eq, exact.solve(4, arithmetic="rational"))
    assert isinstance(gain, Fraction) and bound == 0
    assert gain > 0  # the GOPS equilibrium guarantees 0 against anything, and gains here
    fgain, fbound = adaptivity_gain(eq, exact.solve(4))
    assert abs(fgain - float(gain)) <= fbound + 1e-12


def test_adaptivity_needs_the_random_points_solution():
    eq = solve_fixed_bids(3)
    with pytest.raises(GopsInputError, match="random prize order"):
        adaptivity_gain(eq, exact.solve(3, order="ascending"))


def run(*args):
    from click.testing import CliRunner

    from exact.cli import main

    return CliRunner().invoke(main, [str(a) for a in args])


def test_cli_fixed_bids():
    out = run("fixed-bids", 4, "--exact", "--adaptivity", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    mix = {tuple(m["bids"]): Fraction(m["p"]) for m in data["mix"]}
    bijections, M = brute_matrix(4)
    assert guarantee(mix, bijections, M) == 0 and data["exploitability"] == "0"
    # The value of adaptivity (the adaptive-against-committed game, tests/test_adaptivity.py)
    # and, labelled apart, what our GOPS equilibrium gains against the printed mix.
    assert Fraction(data["adaptivity_value"]) == Fraction(262577461, 338197176)
    assert sum(Fraction(m["p"]) for m in data["committed_optimal_mix"]) == 1
    assert Fraction(data["best_reply_gain_against_this_mix"]) == Fraction(25, 24)
    assert Fraction(data["our_equilibrium_gain"]) > 0
    assert data["our_equilibrium_gain_error_bound"] == 0
    text = run("fixed-bids", 4, "--exact", "--adaptivity").output
    assert "value of adaptivity: 262577461/338197176 = 0.776403" in text
    assert "against our equilibrium: our GOPS equilibrium gains" in text
    text = run("fixed-bids", 5).output
    assert "value 0 (symmetric)" in text and "double-oracle iterations" in text
    for args, message in (
        ((17,), "between 1 and 16 for gops fixed-bids (double oracle"),
        ((8, "--exact"), "between 1 and 7 for gops fixed-bids --exact"),
        ((9, "--adaptivity"), "between 1 and 8 for gops fixed-bids --adaptivity"),
    ):
        bad = run("fixed-bids", *args)
        assert bad.exit_code == 2 and message in bad.output, bad.output
