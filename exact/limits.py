"""Every limit on N and every measured time quoted beside one, in one place, and the one
check of N.

Each limit says what bounds it.  The times that messages and pages quote (``TIMINGS``)
are measurements on the project's 2-core machine, each with the line of
benchmarks/RESULTS.md it is read from (``tests/test_limits.py`` checks that the line is
still there and shows that time).  The command line states the limits per command
(:mod:`exact.cli.limits` says which limit applies to which command line); the docs pages
read the numbers from here through cog.

>>> TIMINGS["points", "float", 13].about()
'about 9.5 minutes'
>>> LARGEST_SOLVED_N["points"]
15

>>> check_n(7, SOLVE_MAX_N["points", "rational"])
7
>>> check_n(8, SOLVE_MAX_N["points", "rational"], what=" in rational arithmetic")
Traceback (most recent call last):
...
exact.errors.GopsInputError: N must be between 1 and 7 in rational arithmetic, got 8
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

from exact.errors import GopsInputError

#: The rules engine (exact.game.rules): a suit of a deck is 13 cards; 52 is a generous
#: sanity bound, far beyond what any exact solver can handle.
RULES_MAX_N = 52
#: The canonical encoding (exact.game.encoding) packs a hand pattern into 16-bit masks.
ENCODING_MAX_N = 16
#: exact.solve in memory, by (objective, arithmetic): the float N = 13 takes about 9.5
#: minutes and 3 GiB on 2 cores (TIMINGS); the win objective also carries the lead (float
#: N = 10: about 5 minutes and 1.3 GiB, N = 11 would need about 7 GiB); rational N = 7
#: minutes.
SOLVE_MAX_N = {
    ("points", "float"): 13,
    ("points", "rational"): 7,
    ("win", "float"): 10,
    ("win", "rational"): 7,
}
#: Bound certificates: the independent checker verifies every float game in Python
#: (N = 8 in about 11 s, N = 9 in about 80 s on 2 cores).
BOUNDS_MAX_N = 9
#: The face-up declarations game (exact.declarations), a Python backward induction over
#: every reached position in four games: exact N = 6 takes about 70 s of CPU (55 s of it
#: the equilibrium's path statistics, rationals of 25,000 digits), float N = 7 about 2
#: minutes and 1.4 GiB; N = 8 would need about 10 GiB.
DECLARATIONS_MAX_N = {"exact": 6, "float": 7}
#: The audit solves the game in rational arithmetic.
AUDIT_MAX_N = SOLVE_MAX_N["points", "rational"]
#: Exact evaluation enumerates every prize order and every bid of two bots.
EVALUATE_MAX_N = 10
#: Tournaments and play: one suit of a deck.
TOURNAMENT_MAX_N = 13
#: Games per pair (or triple) of a tournament: a game takes 50 microseconds (N = 4) to
#: 0.3 ms (N = 13), so 10^6 games, whose 95 % intervals are about +-0.001 wide, take a
#: minute to 5 minutes per pair.
TOURNAMENT_MAX_GAMES = 1_000_000
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
#: The two-player variants solved by plain recursion (exact.dp.variant_solver).
SOLVABLE_VARIANTS = ("twelve", "dummy", "standard")
VARIANT_MAX_N = {
    ("standard", "float"): 6,
    ("standard", "rational"): 5,
    ("twelve", "float"): 9,
    ("twelve", "rational"): 7,
    ("dummy", "float"): 6,
    ("dummy", "rational"): 5,
}


@dataclass(frozen=True)
class Timing:
    """A measured wall time: ``seconds``, as ``shown`` in ``results_line``, a line (or
    the part of one) of benchmarks/RESULTS.md quoted verbatim."""

    seconds: float
    shown: str
    results_line: str

    def about(self) -> str:
        """The time rounded for a message: "about 4 s", "about 9.5 minutes", "about 7.3
        hours"."""
        if self.seconds < 90:
            return f"about {self.seconds:.0f} s"
        if self.seconds < 20 * 60:  # 569.67 s is about 9.5 minutes, not 9
            return f"about {self.seconds / 60:.1f} minutes".replace(".0 minutes", " minutes")
        if self.seconds < 2 * 3600:
            return f"about {self.seconds / 60:.0f} minutes"
        return f"about {self.seconds / 3600:.1f} hours"


#: The measured times that messages and pages quote, by (objective, how, N): "float" is
#: exact.solve in memory, "store" gops solve N --store, "rational" gops certify, "fixed
#: bids" the double oracle of gops fixed-bids.  All on the project's 2-core machine.
TIMINGS = {
    ("points", "float", 10): Timing(
        3.843, "3.843", "| 10 | 2,273,688 | 6,888,580 | 3.843 | 5.24, 3.84, 3.50 | 203 |"
    ),
    ("points", "float", 13): Timing(
        569.67, "569.67 s", "| float N = 13 | 576.88 s (one run) | 569.67 s (one run) | 0.99 |"
    ),
    ("points", "store", 14): Timing(
        2788.0, "46 min 28 s", "| 14 | 46 min 28 s (2787 s of solving) | 15.9 GiB | 14.4 GB |"
    ),
    ("points", "store", 15): Timing(
        7.3 * 3600,
        "7.3 hours",
        "So points N = 15 is solved: about 7.3 hours of running in all on the 2 cores",
    ),
    ("win", "float", 10): Timing(288.0, "288", "| 10 | float | | ~157,000,000 | 288 | 191 |"),
    ("win", "store", 12): Timing(
        3.1 * 3600, "3.1 hours", "So: about 3.1 hours of running in all on about half of"
    ),
    ("points", "rational", 7): Timing(409.0, "409", "| 7 | | **409** (load ~1, final code);"),
    ("win", "rational", 7): Timing(280.0, "280", "| 7 | rational | | | 280 | 195 | 0.23 GiB |"),
    ("points", "fixed bids", 16): Timing(37.95, "37.95", "16 | 341 | 137 | 2.5e-13 | 37.95 |"),
}
#: The largest N solved so far, by objective (a store; TIMINGS has its time).
LARGEST_SOLVED_N = {"points": 15, "win": 12}
assert LARGEST_SOLVED_N["points"] <= ENCODING_MAX_N


def check_n(n: object, high: int = RULES_MAX_N, low: int = 1, what: str = "") -> int:
    """``n`` as an int if it is an integer in ``low..high``; else a one-line
    GopsInputError "N must be between LOW and HIGH{what}, got N"."""
    if isinstance(n, bool) or not isinstance(n, Integral):
        raise GopsInputError(f"N must be an integer, got {n!r}")
    value = int(n)
    if not low <= value <= high:
        raise GopsInputError(f"N must be between {low} and {high}{what}, got {value}")
    return value
