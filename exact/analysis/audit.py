"""Audit the float64 solver against the exact solution, level by level.

For N-card GOPS (N <= 7) the audit compares, at every level k:

- **value error**: max |f_float - f_exact| over all canonical subgames, computed exactly
  (the float is a dyadic rational) and rounded to float64 once at the end;
- **exploitability** of the float strategies in every matrix game (subgame, upcard) of the
  exact game.  The float strategies x, y (solved by the float kernel from the float child
  values) are converted exactly to rationals, clipped at 0 and renormalised to sum 1, and
  judged against the *exact* matrix A (Rhoads & Bartholdi 2012, sec 3):

      exploitability(x, y) = max_i (A y)_i - min_j (x^T A)_j
                           = (v - min_j (x^T A)_j) + (max_i (A y)_i - v)   (v = exact value)

  the sum of what a best response gains against each player ("NashConv"); it is >= 0 and
  is 0 exactly when (x, y) is an equilibrium.  It needs no v, so no matrix game is solved
  exactly again.  Reported: max and mean over the games of the level;
- **support differences**: the games whose float supports (probabilities > 1e-9) differ
  from those of the exact equilibrium, for either player.  Where the optimum is not
  unique this is not an error; it is reported, not judged.

The audit fails (exit 1 in ``gops audit``) if a value error or an exploitability exceeds
the tolerance.  Matrix games are taken once per pair {pattern, swapped pattern} (the
records of a certificate): exchanging the players turns A into -A^T and swaps x and y.

Algorithm notes
---------------
Exact values of N = 7 have up to ~10^6 digits and a rational addition costs a gcd (~0.5 s
at that size), so no fraction is added in the main loop.  Each exact value f = p/q is
rounded once to a fixed-point integer F = floor(f 2^P) (P = 256 bits), with a flag for
"exact".  With x = a/S and y = b/T (integers a, b from the floats' binary expansions), the
scaled best-response payoffs sum_i a_i F_ij and sum_j b_j F_ij are small integers that
enclose the exact ones, and so enclose the exploitability in an interval of width about
k 2^-P.  When both ends of that interval round to the same float64, that float is the
correctly rounded exploitability.  Otherwise (the exploitability is 0 or below ~2^-200, as
for a pure saddle point) the candidate best responses are recomputed in exact rationals.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np
from flint import fmpz

from exact.certificate.reader import ExactValues, Rational, read_certificate
from exact.dp.drivers import solve_rational_levels
from exact.dp.objective import PointsObjective
from exact.dp.solve import parse_game, solve
from exact.errors import GopsInputError
from exact.game.encoding import Columns, build_levels
from exact.kernels.matrix_game import solve_game
from exact.limits import AUDIT_MAX_N, check_n

POINTS = PointsObjective()
#: Default tolerance on value errors and exploitabilities.
DEFAULT_TOL = 1e-9
#: Fixed-point bits of the value enclosures.
PRECISION_BITS = 256
#: A float probability above this counts as "in the support" (as in exact_game).
SUPPORT_TOL = 1e-9


@dataclass(frozen=True)
class LevelAudit:
    """The audit of the subgames with k cards in hand."""

    k: int
    subgames: int  # canonical subgames (value errors measured on all of them)
    games: int  # matrix games (record, upcard) whose float strategies were judged
    max_value_error: float
    max_exploitability: float
    mean_exploitability: float
    support_differences: int
    exact_fallbacks: int  # games whose exploitability needed exact rationals (see notes)


@dataclass(frozen=True)
class AuditReport:
    n: int
    tol: float
    source: str  # where the exact values came from
    levels: tuple[LevelAudit, ...]
    seconds: float

    @property
    def max_value_error(self) -> float:
        return max((lv.max_value_error for lv in self.levels), default=0.0)

    @property
    def max_exploitability(self) -> float:
        return max((lv.max_exploitability for lv in self.levels), default=0.0)

    @property
    def ok(self) -> bool:
        return self.max_value_error <= self.tol and self.max_exploitability <= self.tol

    def to_json(self) -> dict:
        return {
            "n": self.n,
            "max_value_error": self.max_value_error,
            "max_exploitability": self.max_exploitability,
            "tol": self.tol,
            "ok": self.ok,
            "source": self.source,
            "levels": [asdict(lv) for lv in self.levels],
        }


# ---------------------------------------------------------------------------------------
# Exact references
# ---------------------------------------------------------------------------------------


def _mask(numerators) -> int:
    return sum(1 << i for i, a in enumerate(numerators) if a != 0)


def exact_reference(n: int, progress=None) -> ExactValues:
    """Solve n-card GOPS exactly and keep its values and equilibrium supports."""
    n = parse_game(n, "points", "rational").n
    levels = build_levels(n)
    supports: list[dict] = [{} for _ in levels]

    def on_record(level, p, r, lead, value, games):
        supports[level.k][(r, p)] = [(_mask(eq.x_num), _mask(eq.y_num)) for _, eq in games]

    objective = PointsObjective()
    values, _ = solve_rational_levels(objective, levels, progress, on_record)
    values = [objective.every_pattern(level, v) for level, v in zip(levels, values)]  # by pattern,
    return ExactValues(n, levels, values, supports, source="exact solve")  # as a certificate


def certificate_reference(path, n: int | None = None, progress=None) -> ExactValues:
    """The exact values stored in a certificate (not verified: see certificate_reader)."""
    ref = read_certificate(path, progress)
    if n is not None and ref.n != n:
        raise GopsInputError(f"{path} is a certificate of N={ref.n}, not N={n}")
    return ref


def solve_float(n: int):
    """The float solution the audit judges (a seam for tests that inject a perturbed one)."""
    return solve(n)


# ---------------------------------------------------------------------------------------
# Exact arithmetic on integers
# ---------------------------------------------------------------------------------------


def ratio_to_float(num, den) -> float:
    """num / den correctly rounded (Python's int true division), den > 0."""
    return int(num) / int(den)


def value_error(f_float: float, f) -> float:
    """|f_float - f| exactly, rounded to float64 (f has integer attributes p, q > 0).

    >>> from flint import fmpq
    >>> value_error(0.1, fmpq(1, 10))      # 0.1 is 3602879701896397 / 2^55
    5.551115123125783e-18
    """
    if not math.isfinite(f_float):
        return math.inf
    m, e = float(f_float).as_integer_ratio()  # f_float = m / e, e a power of 2
    return abs(ratio_to_float(fmpz(m) * f.q - f.p * e, f.q * e))


def fixed_point(f, bits: int = PRECISION_BITS) -> tuple[int, bool]:
    """(floor(f 2^bits), whether that is exact): f lies in [F, F + 1] / 2^bits.

    >>> from flint import fmpq
    >>> fixed_point(fmpq(-1, 3), 4), fixed_point(fmpq(1, 2), 4)
    ((-6, False), (8, True))
    """
    F, rem = divmod(f.p << bits, f.q)
    return int(F), rem == 0


def dyadic_integers(probabilities) -> tuple[list[int], int]:
    """Integers a and S with a / S the float probabilities exactly, clipped at 0 and
    renormalised (S = sum a).

    >>> dyadic_integers([0.25, 0.75, -1e-17])
    ([1, 3, 0], 4)
    """
    ratios = [max(float(p), 0.0).as_integer_ratio() for p in probabilities]
    den = max(d for _, d in ratios)  # powers of 2: the largest is their lcm
    a = [m * (den // d) for m, d in ratios]
    total = sum(a)
    if total <= 0:
        raise GopsInputError("a float strategy has no positive probability")
    return a, total


def _weighted_sum(terms, scale):
    """sum_t c_t f_t / scale as an unreduced pair (num, den): multiplications, no gcd.

    ``terms`` are (integer c, exact rational f with .p, .q > 0).
    """
    num, den = fmpz(0), fmpz(1)
    for c, f in terms:
        if f.q == den:
            num += c * f.p
        else:
            num, den = num * f.q + c * f.p * den, den * f.q
    return num, den * scale


def _exact_exploitability(entries, a, S, b, T, rows, cols) -> tuple:
    """max_{i in rows} (A y)_i - min_{j in cols} (x^T A)_j in exact integers, as (num, den).

    ``entries[i][j]`` is an exact rational with .p, .q; only the candidate rows and
    columns that the fixed-point enclosure could not rule out are computed.  Rationals
    are compared by cross-multiplication (n1 d2 < n2 d1), never reduced.
    """
    k = len(a)
    best_row = best_col = None
    for i in rows:
        s = _weighted_sum([(b[j], entries[i][j]) for j in range(k) if b[j]], T)
        if best_row is None or s[0] * best_row[1] > best_row[0] * s[1]:
            best_row = s
    for j in cols:
        c = _weighted_sum([(a[i], entries[i][j]) for i in range(k) if a[i]], S)
        if best_col is None or c[0] * best_col[1] < best_col[0] * c[1]:
            best_col = c
    assert best_row is not None and best_col is not None  # rows and cols are never empty
    return best_row[0] * best_col[1] - best_col[0] * best_row[1], best_row[1] * best_col[1]


# ---------------------------------------------------------------------------------------
# The audit
# ---------------------------------------------------------------------------------------


def audit(
    reference: ExactValues,
    float_solution,
    tol: float = DEFAULT_TOL,
    progress=None,
    strategy_solver=solve_game,
) -> AuditReport:
    """Judge ``float_solution`` (a float :class:`~exact.Solution` of the same N) against
    the exact ``reference``.

    ``strategy_solver(A) -> (value, x, y)`` solves a float matrix game; tests inject a
    perturbed one.  ``progress(level, items)`` is called as subgames are done.

    >>> import exact
    >>> report = audit(exact_reference(3), exact.solve(3))
    >>> report.ok, report.max_value_error < 1e-15, report.max_exploitability < 1e-15
    (True, True, True)
    """
    t0 = time.perf_counter()
    n = reference.n
    if float_solution.n != n or len(float_solution.values) != n + 1:
        raise GopsInputError(f"the float solution is not a full solution of N={n}")
    levels = reference.levels
    below_fixed = below_exact = None
    results = []
    for level in levels:
        k = level.k
        float_vals = POINTS.every_pattern(  # the exact reference is indexed by pattern
            level, np.asarray(float_solution.values[k], dtype=np.float64)
        )
        fixed, exact_flag, max_err = _enclosures(level, reference.values[k], float_vals)
        games = fallbacks = differences = 0
        worst = total = 0.0
        if k > 0:
            judged = _judge_level(
                reference,
                level,
                np.asarray(float_solution.values[k - 1], dtype=np.float64),
                below_fixed,
                below_exact,
                strategy_solver,
                progress,
            )
            games, fallbacks, differences, worst, total = judged
        results.append(
            LevelAudit(
                k=k,
                subgames=level.subgames,
                games=games,
                max_value_error=max_err,
                max_exploitability=worst,
                mean_exploitability=total / games if games else 0.0,
                support_differences=differences,
                exact_fallbacks=fallbacks,
            )
        )
        below_fixed, below_exact = fixed, exact_flag
    return AuditReport(n, tol, reference.source, tuple(results), time.perf_counter() - t0)


def _enclosures(level, exact_vals, float_vals) -> tuple[np.ndarray, np.ndarray, float]:
    """The fixed-point enclosures of a level's exact values (read by the level above),
    which of them are exact, and the largest error of the float values against them."""
    patterns = [int(p) for p in level.record_patterns]
    fixed = np.empty(exact_vals.shape, dtype=object)
    exact_flag = np.zeros(exact_vals.shape, dtype=bool)
    max_err = 0.0
    for r in range(level.prize_sets):
        for p in range(level.patterns):  # all: the float table might break antisymmetry
            max_err = max(max_err, value_error(float_vals[r, p], exact_vals[r, p]))
        for p in patterns:
            F, is_exact = fixed_point(exact_vals[r, p])
            s = int(level.swap[p])
            fixed[r, p], exact_flag[r, p] = F, is_exact
            fixed[r, s], exact_flag[r, s] = (-F if is_exact else -F - 1), is_exact
    return fixed, exact_flag, max_err


def _judge_level(
    reference, level, float_below, below_fixed, below_exact, strategy_solver, progress
) -> tuple[int, int, int, float, float]:
    """Every matrix game of a level's records judged (:func:`_judge_game`): the games, the
    exact fallbacks, the support differences, the worst and the total exploitability."""
    k = level.k
    children = reference.levels[k - 1].columns()
    one = 1 << PRECISION_BITS
    games = fallbacks = differences = 0
    worst = total = 0.0
    for r in range(level.prize_sets):
        for p in (int(q) for q in level.record_patterns):
            exact_supports = reference.supports[k][(r, p)]
            for m in range(k):
                e, fell_back, sx, sy = _judge_game(
                    level,
                    r,
                    p,
                    m,
                    float_below,
                    children,
                    below_fixed,
                    below_exact,
                    reference.values[k - 1],
                    one,
                    strategy_solver,
                )
                games += 1
                fallbacks += fell_back
                differences += (sx, sy) != exact_supports[m]
                worst = max(worst, e)
                total += e
        if progress is not None:
            progress(level, int(level.canonical_patterns.shape[0]))
    return games, fallbacks, differences, worst, total


def _judge_game(
    level,
    r,
    p,
    m,
    float_below,
    children,
    below_fixed,
    below_exact,
    below_values,
    one,
    strategy_solver,
):
    """Exploitability of the float strategies of one matrix game; also their supports.
    ``float_below``: the float level below, in its ``children`` columns; the fixed-point
    and exact tables are indexed by pattern."""
    k = level.k
    u = int(level.prize_card[r, m])
    rc = int(level.prize_child[r, m])
    child = level.child[p]
    sign = level.sign[p]
    A = np.array(POINTS.matrix(level, float_below, r, p, m, children=children), dtype=np.float64)
    if not np.all(np.isfinite(A)):  # a broken float table: nothing to judge
        return math.inf, False, 0, 0
    _, x, y = strategy_solver(A)
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return math.inf, False, 0, 0
    sx = sum(1 << i for i in range(k) if x[i] > SUPPORT_TOL)
    sy = sum(1 << j for j in range(k) if y[j] > SUPPORT_TOL)
    a, S = dyadic_integers(x)
    b, T = dyadic_integers(y)
    # Fixed-point matrix: the exact A_ij lies in [F_ij, F_ij + W_ij] / 2^P, W_ij in {0, 1}.
    row_exact = below_exact[rc]
    F = POINTS.matrix(
        level, below_fixed, r, p, m, scale=one, children=Columns.every(below_fixed.shape[1])
    )
    W = [[0 if row_exact[child[i, j]] else 1 for j in range(k)] for i in range(k)]
    # Column payoffs of x (units 2^-P / S) and row payoffs of y (units 2^-P / T).
    col_lo = [sum(a[i] * F[i][j] for i in range(k) if a[i]) for j in range(k)]
    col_hi = [c + sum(a[i] * W[i][j] for i in range(k) if a[i]) for j, c in enumerate(col_lo)]
    row_lo = [sum(b[j] * F[i][j] for j in range(k) if b[j]) for i in range(k)]
    row_hi = [c + sum(b[j] * W[i][j] for j in range(k) if b[j]) for i, c in enumerate(row_lo)]
    lo = max(row_lo) * S - min(col_hi) * T
    hi = max(row_hi) * S - min(col_lo) * T
    scale = S * T * one
    e_lo, e_hi = lo / scale, hi / scale
    if e_lo == e_hi and hi >= 0:
        return max(e_hi, 0.0), False, sx, sy
    # Undecided: recompute the candidate best responses exactly.
    rows = [i for i in range(k) if row_hi[i] >= max(row_lo)]
    cols = [j for j in range(k) if col_lo[j] <= min(col_hi)]
    below = below_values[rc]
    entries = [
        [_shift(below[child[i, j]], u * int(sign[i, j])) for j in range(k)] for i in range(k)
    ]
    num, den = _exact_exploitability(entries, a, S, b, T, rows, cols)
    if num < 0:
        raise AssertionError("negative exploitability: the exact values are inconsistent")
    return ratio_to_float(num, den), True, sx, sy


def _shift(f, c: int) -> Rational:
    """f + c for an exact rational f (fmpq or Rational) and an integer c, without a gcd."""
    return Rational(f.p + c * f.q, f.q)


def run_audit(
    n: int, certificate=None, tol: float = DEFAULT_TOL, progress=None, read_progress=None
) -> tuple[AuditReport, float]:
    """What ``gops audit`` does: the exact reference (solved or read), the float solve, the
    audit.  Returns the report and the seconds spent building the exact reference."""
    n = check_n(n, AUDIT_MAX_N)
    if not tol >= 0:
        raise GopsInputError(f"the tolerance must be >= 0, got {tol}")
    t0 = time.perf_counter()
    if certificate is not None:
        reference = certificate_reference(certificate, n, read_progress)
    else:
        reference = exact_reference(n, read_progress)
    reference_seconds = time.perf_counter() - t0
    report = audit(reference, solve_float(n), tol, progress)
    return report, reference_seconds
