"""Equilibria of the two-player zero-sum variants of the "Psychological JuJitsu" rules
write-up: the 12-round game and the dummy.

Both variants of :mod:`exact.game.variants` that stay two-player and zero-sum are solved here
(``standard`` too, as a cross-check of the fast solver).  The payoff is player 0's points
minus player 1's; the dummy's points count for neither player.  The recursion is the
paper's (Rhoads & Bartholdi 2012, sec 3) with the variant's round in place of the
standard one.  A state S = (H0, H1, D, P) before an upcard: the two hands, the dummy's
remaining suit (empty without a dummy), the prizes not yet bid on.  With H0 empty f = 0;
otherwise the next prize is uniform over P and

    f(S)      = (1 / |P|) * sum_{u in P} val(M_u)
    M_u[a, b] = mean_{d in D} [ s0 - s1 + f(H0 - a, H1 - b, D - d, P - u) ]

where (s0, s1, s_dummy) = resolve_round(u, (a, b, d), tie rule) scores the round (the
mean over d is a single term without a dummy).  In ``twelve`` |P| = |H0| + 1, so the prize
left when the hands are empty is the discarded 13th diamond, and the hands hold 2..n.

Reduction: the round depends on the bids only through their order, so the bid cards of
all bidders (both hands and the dummy's suit, together) are relabelled 1, 2, ... in order
before a state is looked up (the same argument as :mod:`exact.game.encoding`); the prizes keep
their values.  States are memoised on the relabelled key (and on the raw one, to skip
repeated relabelling); the game is small enough for plain recursion at the sizes allowed
by :data:`exact.limits.VARIANT_MAX_N`.

>>> sol = solve_variant("twelve", 3, arithmetic="rational")
>>> sol.value({3}, {2}, {1, 2})        # one round left: I hold the higher card
Fraction(3, 2)
>>> sol.strategy({2, 3}, {2, 3}, {1, 2, 3}, upcard=3).mine   # bid the 3 on the 3
{2: Fraction(0, 1), 3: Fraction(1, 1)}
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable

from flint import fmpq

from exact.dp.solution import Number, Strategy, arithmetic_of, equilibrium_strategy
from exact.errors import GopsInputError
from exact.game.objectives import GameArithmetic, arithmetic_named
from exact.game.rules import as_card, card_set, format_cards
from exact.game.variants import VARIANTS, Variant, get_variant, resolve_round
from exact.limits import SOLVABLE_VARIANTS, VARIANT_MAX_N, check_n

__all__ = ["SOLVABLE_VARIANTS", "VariantSolution", "check_variant_options", "solve_variant"]


#: The Variants of :data:`~exact.limits.SOLVABLE_VARIANTS` (exact.limits, below the game
#: layer, names them).
SOLVABLE = tuple(get_variant(name) for name in SOLVABLE_VARIANTS)


def check_variant_options(
    variant: Variant | str, n: object, arithmetic: str | GameArithmetic
) -> tuple[Variant, int]:
    """The variant (a Variant, or its name at the Python API's edge: parsed here once) and
    n, or a one-line GopsInputError (the arithmetic a name or the object,
    :mod:`exact.game.objectives`)."""
    v = variant if isinstance(variant, Variant) else VARIANTS.get(variant)
    if v is None or v not in SOLVABLE:
        named = variant.name if isinstance(variant, Variant) else variant
        raise GopsInputError(
            f"the solvable two-player variants are {', '.join(SOLVABLE_VARIANTS)}, not {named!r}"
        )
    name = arithmetic_named(arithmetic).name
    n = check_n(
        n,
        VARIANT_MAX_N[v.name, name],  # the limits' table, keyed by the names
        what=f" in the {v.name} variant ({name} arithmetic)",
    )
    if v.drop_last and n < 2:
        raise GopsInputError(f"the {v.name} variant needs N >= 2")
    return v, n


def _weight(obj) -> int:
    """Bytes of a memo key or value: an int, a number, or a tuple or list of them or of
    arrays (:meth:`VariantSolution.memory_bytes`)."""
    if isinstance(obj, tuple | list):
        return sys.getsizeof(obj) + sum(_weight(x) for x in obj)
    return sys.getsizeof(obj) + int(getattr(obj, "nbytes", 0))


def _mask(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _cards(mask: int) -> list[int]:
    return [c for c in range(mask.bit_length()) if mask >> c & 1]


class VariantSolution:
    """Values and equilibria of one variant for one n; states are solved on first use.

    Every method takes the position from player 0's side ("mine"); the rules treat the two
    players alike, so player 1's equilibrium is the ``mine`` of the swapped position.
    """

    def __init__(self, variant: Variant, n: int, arithmetic: GameArithmetic):
        self.variant = variant
        self.n = n
        self.arithmetic = arithmetic
        self.exact = arithmetic.exact
        self._arith = arithmetic_of(arithmetic)
        self.matrix_games = 0
        self.seconds = 0.0  # solve_variant's wall time
        self._values: dict[tuple[int, int, int, int], object] = {}  # relabelled states
        self._seen: dict[tuple[int, int, int, int], object] = {}  # raw states visited
        self._zero = fmpq(0) if self.exact else 0.0
        # Round scores s0 - s1 by (u, a, b, d), memoised (d = 0 without a dummy).
        self._round: dict[tuple[int, int, int, int], object] = {}
        # (value, x, y) of the first round's games, kept by solve_variant.
        self._first_round: dict[tuple[int, int, int, int, int], tuple] = {}

    def __repr__(self) -> str:
        return (
            f"VariantSolution({self.variant.name!r}, n={self.n}, "
            f"arithmetic={self.arithmetic.name!r})"
        )

    # -- positions -------------------------------------------------------------------------

    def start(self) -> tuple[frozenset[int], frozenset[int], frozenset[int], frozenset[int]]:
        """(hand 0, hand 1, dummy's suit, prizes) at the start of the game."""
        hand = self.variant.bid_cards(self.n)
        suit = frozenset(range(1, self.n + 1))
        return hand, hand, suit if self.variant.dummy else frozenset(), suit

    def _validate(self, mine, theirs, deck, dummy, upcard):
        """Normalised (mine, theirs, dummy, deck, upcard) of a legal position, or raise."""
        n, v = self.n, self.variant
        mine, _ = card_set(mine, "mine")
        theirs, _ = card_set(theirs, "theirs")
        deck, _ = card_set(deck, "deck")
        dummy, _ = card_set(dummy if dummy is not None else (), "dummy")
        low = min(v.bid_cards(n))
        for what, cards, lo in (
            ("mine", mine, low),
            ("theirs", theirs, low),
            ("deck", deck, 1),
            ("dummy", dummy, 1),
        ):
            bad = sorted(c for c in cards if not lo <= c <= n)
            if bad:
                raise GopsInputError(f"{what}: card {bad[0]} is outside {lo}..{n}")
        k = len(mine)
        if len(theirs) != k:
            raise GopsInputError(f"hands differ in size: mine has {k} cards, theirs {len(theirs)}")
        prizes = k + (1 if v.drop_last else 0)
        if len(deck) != prizes:
            raise GopsInputError(
                f"the deck must hold {prizes} prizes when each hand has "
                f"{k} cards in the {v.name} variant, got {len(deck)}"
            )
        if len(dummy) != (k if v.dummy else 0):
            want = f"{k} cards" if v.dummy else "no cards (this variant has no dummy)"
            raise GopsInputError(f"the dummy's suit must hold {want}, got {format_cards(dummy)}")
        if upcard is not None:
            upcard = as_card(upcard, "upcard")
            if upcard not in deck:
                raise GopsInputError(f"upcard {upcard} is not in the deck {format_cards(deck)}")
            if k == 0:
                raise GopsInputError("the game is over: no bids are left")
        return mine, theirs, dummy, deck, upcard

    # -- the recursion ---------------------------------------------------------------------

    def _score(self, u: int, a: int, b: int, d: int):
        """s0 - s1 of one round (d = 0: no dummy bid)."""
        key = (u, a, b, d)
        s = self._round.get(key)
        if s is None:
            bids = (a, b, d) if d else (a, b)
            won = resolve_round(u, bids, self.variant.tie_rule)
            diff = won[0] - won[1]
            s = fmpq(diff.numerator, diff.denominator) if self.exact else float(diff)
            self._round[key] = s
        return s

    @staticmethod
    def _key(h0: int, h1: int, dm: int, pm: int) -> tuple[int, int, int, int]:
        """The memo key of a bitmask state: its bid cards relabelled 1..m in order."""
        union = h0 | h1 | dm
        if union != (1 << (union.bit_count() + 1)) - 2:  # not yet 1..m: relabel
            rank = {c: i + 1 for i, c in enumerate(_cards(union))}
            h0, h1, dm = (_mask(rank[c] for c in _cards(x)) for x in (h0, h1, dm))
        return h0, h1, dm, pm

    def _state_value(self, h0: int, h1: int, dm: int, pm: int):
        """f(S) of bitmask state S, memoised on the relabelled key (and, to skip the
        relabelling on the next visit, on the raw one)."""
        if h0 == 0:
            return self._zero
        raw = (h0, h1, dm, pm)
        value = self._seen.get(raw)
        if value is not None:
            return value
        key = self._key(h0, h1, dm, pm)
        value = self._values.get(key)
        if value is None:
            h0, h1, dm, pm = key
            total = self._zero
            prizes = _cards(pm)
            for u in prizes:
                total += self._solve(self._matrix(h0, h1, dm, pm, u))[0]
            value = total / len(prizes)
            self._values[key] = value
        self._seen[raw] = value
        return value

    def _matrix(self, h0: int, h1: int, dm: int, pm: int, u: int):
        """M_u of the module docstring, rows my cards and columns theirs, increasing."""
        rest = pm & ~(1 << u)
        dummy_bids = _cards(dm) or [0]
        rows = []
        for a in _cards(h0):
            row = []
            for b in _cards(h1):
                acc = self._zero
                for d in dummy_bids:
                    child_d = dm & ~(1 << d) if d else 0
                    acc += self._score(u, a, b, d) + self._state_value(
                        h0 & ~(1 << a), h1 & ~(1 << b), child_d, rest
                    )
                row.append(acc / len(dummy_bids))
            rows.append(row)
        return rows

    def _solve(self, rows):
        """(value, x, y) of the matrix game ``rows``; exact and verified when rational."""
        self.matrix_games += 1
        return self._arith.solve(rows)

    def _number(self, x) -> Number:
        return self._arith.number(x)

    # -- the public interface --------------------------------------------------------------

    def value(self, mine, theirs, deck, dummy=None) -> Number:
        """My expected final point difference at a position before the next upcard."""
        mine, theirs, dummy, deck, _ = self._validate(mine, theirs, deck, dummy, None)
        return self._number(
            self._state_value(_mask(mine), _mask(theirs), _mask(dummy), _mask(deck))
        )

    def matrix(self, mine, theirs, deck, upcard, dummy=None) -> list[list[Number]]:
        """M_u once ``upcard`` is turned: rows my cards, columns theirs (increasing)."""
        mine, theirs, dummy, deck, upcard = self._validate(mine, theirs, deck, dummy, upcard)
        rows = self._matrix(_mask(mine), _mask(theirs), _mask(dummy), _mask(deck), upcard)
        return [[self._number(a) for a in row] for row in rows]

    def strategy(self, mine, theirs, deck, upcard, dummy=None) -> Strategy:
        """The equilibrium once ``upcard`` is turned (``gap`` checked as in Solution)."""
        mine, theirs, dummy, deck, upcard = self._validate(mine, theirs, deck, dummy, upcard)
        game = (_mask(mine), _mask(theirs), _mask(dummy), _mask(deck), upcard)
        rows = self._matrix(*game)
        solved = self._first_round.get(game)
        solved = solved if solved is not None else self._solve(rows)
        return equilibrium_strategy(self._arith, rows, solved, mine, theirs, upcard)

    def first_move_table(self) -> dict[int, dict[int, Number]]:
        """{upcard: {bid: probability}} at the start of the game."""
        mine, theirs, dummy, deck = self.start()
        return {u: self.strategy(mine, theirs, deck, u, dummy).mine for u in sorted(deck)}

    @property
    def states(self) -> int:
        """Relabelled states solved so far."""
        return len(self._values)

    def memory_bytes(self) -> int:
        """An upper bound on what the memo tables weigh in bytes: ``sys.getsizeof`` of each
        table, key and value (a strategy's arrays by their ``nbytes``; the raw states'
        values not again, being the relabelled states' objects).  An int shared by many
        keys is counted in each, so it errs high: about twice what tracemalloc sees
        (tests/test_variant_solver.py).  ``gops serve`` weighs a solved variant in its
        cache with it.  About 2 s a million entries."""
        size = sys.getsizeof
        tables = (self._values, self._seen, self._round, self._first_round)
        total = sum(map(size, tables))
        for table in tables[:3]:  # keys: tuples of ints
            total += sum(size(key) + sum(map(size, key)) for key in table)
        total += sum(map(size, self._values.values())) + sum(map(size, self._round.values()))
        first = self._first_round.items()  # (value, x, y) of the first round's games
        return total + sum(_weight(key) + _weight(solved) for key, solved in first)


def solve_variant(
    variant: Variant | str,
    n: int,
    arithmetic: str | GameArithmetic = "float",
    progress: Callable[[int], None] | None = None,
) -> VariantSolution:
    """Solve every state of ``variant`` reachable from the start of the n-card game
    (a Variant, or its name: ``exact.solve_variant`` is the Python API's edge, the name
    parsed once by :func:`check_variant_options`).

    ``progress(states)`` is called after each first-round upcard with the states solved.
    """
    v, n = check_variant_options(variant, n, arithmetic)
    sol = VariantSolution(v, n, arithmetic_named(arithmetic))
    mine, theirs, dummy, deck = sol.start()
    state = (_mask(mine), _mask(theirs), _mask(dummy), _mask(deck))
    t0 = time.perf_counter()
    total = sol._zero
    for u in sorted(deck):  # solves every state below the first round, upcard by upcard
        solved = sol._solve(sol._matrix(*state, u))
        sol._first_round[state + (u,)] = solved
        total += solved[0]
        if progress is not None:
            progress(sol.states)
    sol._values[sol._key(*state)] = total / len(deck)
    sol.seconds = time.perf_counter() - t0
    return sol
