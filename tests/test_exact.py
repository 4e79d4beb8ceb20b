"""The exact solver: agreement with the float solver, with sympy's rational simplex (a
third, independent oracle), the paper's worked example, and the exact matrix-game solver's
verification and fallback."""

from fractions import Fraction
from math import gcd

import pytest
import sympy
from flint import fmpq
from sympy.solvers.simplex import lpmax

import exact
from exact.dp.exact_game import exact_simplex, solve_exact_game
from exact.dp.solution import to_fraction
from test_paper import TABLE_1  # Rhoads & Bartholdi 2012, Table 1

#: Float solver versus exact values.
FLOAT_TOL = 1e-12
#: Table 1 prints four decimals: an exact entry lies within half a unit of the fourth.
PAPER_HALF_UNIT = Fraction(1, 20000)


def sympy_game_value(A):
    """Value of the game A (rows maximise) by sympy's rational simplex: max v s.t. x A >= v."""
    k = len(A)
    # Shift the game so that every entry is >= 1; then v >= 1 and every variable is bounded
    # below (sympy's lpmax treats free variables as unbounded in both directions).
    shift = 1 - min(min(row) for row in A)
    xs = sympy.symbols(f"x0:{k}")
    v = sympy.Symbol("v")
    cons = [sum(xs[i] * (A[i][j] + shift) for i in range(k)) >= v for j in range(len(A[0]))]
    cons += [x >= 0 for x in xs] + [v >= 0, sympy.Eq(sum(xs), 1)]
    value, _ = lpmax(v, cons)
    value = sympy.Rational(value) - shift
    return Fraction(int(value.p), int(value.q))


@pytest.mark.parametrize("n", [3, 4, 5], ids=lambda n: f"N{n}")
def test_exact_values_agree_with_float(solved, solved_exact, n):
    fl, ex = solved(n), solved_exact(n)
    for k in range(n + 1):
        diff = abs(fl.values[k] - ex.values[k].astype(float)).max()
        assert diff < FLOAT_TOL, (k, diff)


def test_exact_first_move_agrees_with_float(solved, solved_exact):
    fl, ex = solved(5).first_move_table(), solved_exact(5).first_move_table()
    for u in fl:
        for b in fl[u]:
            assert isinstance(ex[u][b], Fraction)
            assert abs(fl[u][b] - float(ex[u][b])) < FLOAT_TOL


def test_exact_matrix_games_equal_sympy_oracle(solved_exact):
    """Every matrix game of 4-card GOPS with 3 cards in hand: value == sympy's (exactly)."""
    sol = solved_exact(4)
    level = sol.levels[3]
    checked = 0
    for r in range(level.prize_sets):
        deck = {c + 1 for c in range(4) if int(level.prize_masks[r]) >> c & 1}
        for key in level.pattern_keys[:12].tolist():
            from exact.game.encoding import key_hands

            mine, theirs = key_hands(key)
            if max(mine + theirs) > 4:
                continue
            for u in sorted(deck):
                A = sol.matrix(set(mine), set(theirs), deck, u)
                fr = [[Fraction(int(a.p), int(a.q)) for a in row] for row in A]
                s = sol.strategy(set(mine), set(theirs), deck, u)
                assert s.value == sympy_game_value(
                    [[sympy.Rational(a.numerator, a.denominator) for a in row] for row in fr]
                )
                checked += 1
    assert checked >= 100


def test_paper_worked_example_exactly():
    """Rhoads & Bartholdi 2012 sec 3.1: value 313/25 (= 12.52), play the 4 w.p. 13/25."""
    sol = exact.solve(13, arithmetic="rational", top=1)
    s = sol.strategy({2, 4}, {1, 3}, {12, 13}, 13)
    assert s.value == Fraction(313, 25)
    assert s.mine == {2: Fraction(12, 25), 4: Fraction(13, 25)}
    assert s.theirs == {1: Fraction(13, 25), 3: Fraction(12, 25)}


@pytest.mark.parametrize("upcard", range(1, 6), ids=lambda u: f"upcard{u}")
def test_table_1_entries_are_exact_equilibrium_fractions(solved_exact, upcard):
    """Rhoads & Bartholdi 2012, Table 1 (N = 5, first move), in exact rationals.

    Each column is a Fraction distribution in lowest terms (the fmpq -> Fraction boundary
    skips the gcd, so this is not automatic), within half a unit of the paper's fourth
    decimal, and an equilibrium of the exact payoff matrix by the inequalities themselves,
    x^T A >= 0 and A x <= 0 (value 0: the game is symmetric), checked here in Fractions
    rather than by the verification inside solve_exact_game.
    """
    sol = solved_exact(5)
    cards = set(range(1, 6))
    x = [sol.first_move_table()[upcard][b] for b in sorted(cards)]
    assert all(isinstance(p, Fraction) and p >= 0 for p in x) and sum(x) == 1
    assert all(gcd(p.numerator, p.denominator) == 1 and p.denominator > 0 for p in x)
    for b, p in zip(sorted(cards), x):
        assert abs(p - Fraction(str(TABLE_1[b - 1][upcard - 1]))) <= PAPER_HALF_UNIT, b
    A = [[to_fraction(a) for a in row] for row in sol.matrix(cards, cards, cards, upcard)]
    assert min(sum(x[i] * A[i][j] for i in range(5)) for j in range(5)) >= 0
    assert max(sum(A[i][j] * x[j] for j in range(5)) for i in range(5)) <= 0


def F(*rows):
    return [[fmpq(a) for a in row] for row in rows]


@pytest.mark.parametrize(
    "A, value",
    [
        pytest.param(F([3, -1], [-2, 1]), Fraction(1, 7), id="2x2-mixed"),
        pytest.param(F([0, 1, -1], [-1, 0, 1], [1, -1, 0]), Fraction(0), id="rock-paper-scissors"),
        pytest.param(F([1, 1, 1], [1, 1, 1], [1, 1, 1]), Fraction(1), id="constant-degenerate"),
        pytest.param(F([2, 2, 0], [2, 2, 0], [0, 0, 1]), Fraction(2, 3), id="duplicate-rows"),
        pytest.param(F([5, 1], [3, 4]), Fraction(17, 5), id="no-saddle"),
        pytest.param(F([4, 2], [3, 1]), Fraction(2), id="saddle"),
    ],
)
def test_exact_game_solver_verified(A, value):
    eq = solve_exact_game(A)
    assert Fraction(int(eq.value.p), int(eq.value.q)) == value
    v2, x, y = exact_simplex(A)  # the fallback alone agrees
    assert v2 == eq.value
    assert sum(x, fmpq(0)) == 1 and sum(y, fmpq(0)) == 1


def test_to_fraction_keeps_lowest_terms():
    """The fmpq -> Fraction boundary skips Fraction's gcd; the result must still be the
    same reduced Fraction, sign on the numerator, and behave in arithmetic."""
    for p, q in [(6, 4), (-6, 4), (6, -4), (0, 5), (10**400 + 1, 3 * 10**399), (-7, 1)]:
        got = to_fraction(fmpq(p, q))
        want = Fraction(p, q)
        assert got == want
        assert (got.numerator, got.denominator) == (want.numerator, want.denominator)
        assert got + 1 == want + 1 and hash(got) == hash(want)


def test_an_exact_game_is_solved_when_the_float_guess_fails(monkeypatch):
    """The float kernel only guesses the supports: where it gives up (SolverError), the
    exact simplex still solves the game (Rhoads & Bartholdi 2012, sec 3.1's 2 x 2 game at
    N = 13: value 313/25, mixes 12/25, 13/25)."""
    from flint import fmpq

    from exact.dp import exact_game
    from exact.errors import SolverError

    def gives_up(A):
        raise SolverError("the float kernel missed its bound")

    monkeypatch.setattr(exact_game, "solve_game", gives_up)
    # I hold 2, 4, they hold 1, 3, the king (13) is up and the queen (12) left: rows my
    # bids 2, 4, columns theirs 1, 3; the last round's 12 goes to the higher card left.
    A = [[fmpq(13 + 12), fmpq(-13 + 12)], [fmpq(13 - 12), fmpq(13 + 12)]]
    eq = exact_game.solve_exact_game(A)
    assert eq.path == "simplex"
    assert eq.value == fmpq(313, 25)
    assert (eq.x, eq.y) == ([fmpq(12, 25), fmpq(13, 25)], [fmpq(13, 25), fmpq(12, 25)])
