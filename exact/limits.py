"""Every limit on N, in one place, and the one check of N.

Each limit says what bounds it; the numbers were measured on a 2-core machine
(benchmarks/RESULTS.md).  The command line states them per command
(:mod:`exact.cli.limits` says which limit applies to which command line).

>>> check_n(7, SOLVE_MAX_N["points", "rational"])
7
>>> check_n(8, SOLVE_MAX_N["points", "rational"], what=" in rational arithmetic")
Traceback (most recent call last):
...
exact.errors.GopsInputError: N must be between 1 and 7 in rational arithmetic, got 8
"""

from __future__ import annotations

from numbers import Integral

from exact.errors import GopsInputError

#: The rules engine (exact.game.rules): a suit of a deck is 13 cards; 52 is a generous
#: sanity bound, far beyond what any exact solver can handle.
RULES_MAX_N = 52
#: The canonical encoding (exact.game.encoding) packs a hand pattern into 16-bit masks.
ENCODING_MAX_N = 16
#: exact.solve in memory, by (objective, arithmetic): the float N = 13 takes about 15
#: minutes and 3 GiB on 2 cores; the win objective also carries the lead (float N = 10:
#: about 190 s of CPU and 1.3 GiB, N = 11 would need about 7 GiB); rational N = 7 minutes.
SOLVE_MAX_N = {
    ("points", "float"): 13,
    ("points", "rational"): 7,
    ("win", "float"): 10,
    ("win", "rational"): 7,
}
#: Bound certificates: the independent checker verifies every float game in Python
#: (N = 8 in about 11 s, N = 9 in about 80 s on 2 cores).
BOUNDS_MAX_N = 9
#: The audit solves the game in rational arithmetic.
AUDIT_MAX_N = SOLVE_MAX_N["points", "rational"]
#: Exact evaluation enumerates every prize order and every bid of two bots.
EVALUATE_MAX_N = 10
#: Tournaments and play: one suit of a deck.
TOURNAMENT_MAX_N = 13
#: The optimal bots solve their game on the fly (float).
OPTIMAL_BOT_MAX_N = 10
#: The optimal bots play the exact equilibrium up to these N (float above).
EXACT_OPTIMAL_MAX_N = 6
EXACT_OPTIMAL_WIN_MAX_N = 5
#: The fixed-bid game (exact.analysis.fixed_bids): double oracle, one LP and one
#: assignment per iteration; the iterations and the restricted LPs grow with N (N = 16:
#: 38 s on 2 cores, benchmarks/RESULTS.md).
FIXED_BIDS_MAX_N = 16
#: Its exact solve checks all N! bijections in rationals (N = 7: 0.3 s).
FIXED_BIDS_EXACT_MAX_N = 7
#: Its adaptivity gain evaluates a whole game tree per bijection of the mix (N = 8: 29).
FIXED_BIDS_ADAPTIVITY_MAX_N = 8
#: The value of adaptivity (exact.analysis.adaptivity): one LP over what the adaptive
#: player has seen, 44,025 variables at N = 5 (12-26 s), about 900,000 at N = 6 (out of
#: reach of a float LP here); made exact and verified against all N! bijections.
ADAPTIVITY_VALUE_MAX_N = 5
assert ADAPTIVITY_VALUE_MAX_N <= FIXED_BIDS_EXACT_MAX_N
#: The two-player variants (exact.dp.variant_solver), by (variant, arithmetic): a few
#: seconds to about a minute each; "standard" cross-checks the fast solver.
VARIANT_MAX_N = {
    ("standard", "float"): 6,
    ("standard", "rational"): 5,
    ("twelve", "float"): 9,
    ("twelve", "rational"): 7,
    ("dummy", "float"): 6,
    ("dummy", "rational"): 5,
}


def check_n(n: object, high: int = RULES_MAX_N, low: int = 1, what: str = "") -> int:
    """``n`` as an int if it is an integer in ``low..high``; else a one-line
    GopsInputError "N must be between LOW and HIGH{what}, got N"."""
    if isinstance(n, bool) or not isinstance(n, Integral):
        raise GopsInputError(f"N must be an integer, got {n!r}")
    value = int(n)
    if not low <= value <= high:
        raise GopsInputError(f"N must be between {low} and {high}{what}, got {value}")
    return value
