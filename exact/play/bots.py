"""Bots: bidding policies for two-player GOPS, and a registry of them by name.

A bot is any object with

- ``mix(position, player) -> {card: probability}``: its probability of bidding each card
  of ``position.hands[player]`` once ``position.upcard`` is turned (the probabilities are
  ``Fraction`` for an exact bot, ``float`` otherwise, and sum to 1);
- ``bid(position, player, rng) -> card``: one bid drawn from that mix with
  ``rng: random.Random``.

Subclass :class:`Bot` and write ``mix`` only; its ``bid`` samples the mix with a single
``rng.random()`` (cards in increasing order, cumulative probabilities), so a game is
reproducible from ``rng``'s seed.  :func:`exact.analysis.evaluate.evaluate` reads only
``mix``; tournaments and the terminal game call ``bid``.

The built-in bots (the registry :data:`BOTS`; :func:`make_bot` builds one by name):

==========  ===========================================================================
optimal     the Nash equilibrium of the points objective (Rhoads & Bartholdi 2012): as
            player 0 it plays ``solution.strategy(mine=hand0, theirs=hand1, deck,
            upcard).mine``, as player 1 the ``.mine`` of the swapped position.  In a
            variant (``variant="twelve"`` or ``"dummy"``) the variant's equilibrium
            (:mod:`exact.dp.variant_solver`).
optimal-win the equilibrium of the win objective: maximises P(win) - P(loss); its
            mix depends on the lead (``uses_lead = True``).
random      uniform over its remaining cards.
upcard      bids the card equal to the upcard if it holds it, else the nearest card it
            holds above the upcard, else its highest card.
upcard+1    the same rule aimed at upcard + 1: that card if held, else the nearest held
            card above it, else its highest card.
lowest      its lowest remaining card.
highest     its highest remaining card.
==========  ===========================================================================

Every built-in bot but optimal-win is symmetric in the seats and ignores the score: its
mix depends only on its own hand, the opponent's hand, the deck and the upcard
(``uses_lead = False``).
A bot whose mix depends on the score must leave ``uses_lead = True`` (the default of
:class:`Bot`); the exact evaluator then keys its memo on the lead as well, and hands the
bot a position whose points are ``(lead, 0)`` or ``(0, -lead)``.

>>> import random
>>> from exact.game.rules import new_game
>>> pos = new_game(5).turn_up(3)
>>> make_bot("upcard+1", 5).mix(pos, 0)
{4: Fraction(1, 1)}
>>> make_bot("random", 5).bid(pos, 1, random.Random(7)) in {1, 2, 3, 4, 5}
True
>>> make_bot("clever", 5)  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
exact.errors.GopsInputError: unknown bot 'clever' (choose from optimal, optimal-win, random,
upcard, upcard+1, lowest, highest)
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from fractions import Fraction

import exact.dp.solve as dp_solve  # a module: tests stand in for dp_solve.solve_game
from exact.dp.solution import Solution
from exact.dp.variant_solver import VariantSolution, check_variant_options, solve_variant
from exact.errors import GopsInputError
from exact.game.objectives import objective_named
from exact.game.orders import RANDOM
from exact.game.rules import Position
from exact.game.spec import GameSpec
from exact.game.variants import STANDARD, Variant, get_variant
from exact.limits import EXACT_OPTIMAL_MAX_N, EXACT_OPTIMAL_WIN_MAX_N

__all__ = [
    "BOTS",
    "Bot",
    "FixedRuleBot",
    "OptimalBot",
    "RandomBot",
    "THREE_PLAYER_BOTS",
    "VariantOptimalBot",
    "WinOptimalBot",
    "bot_for",
    "bot_names",
    "game_for",
    "make_bot",
    "parse_bot_list",
    "register_bot",
    "solution_for",
]

Number = float | Fraction


class Bot(ABC):
    """Base class of bots: implement :meth:`mix`; :meth:`bid` samples it."""

    #: Name shown in reports (the registry name for built-in bots).
    name: str = "bot"
    #: True when :meth:`mix` returns Fractions (exact evaluation stays exact).
    exact: bool = True
    #: True when :meth:`mix` may depend on the points (see the module docstring).
    uses_lead: bool = True

    @abstractmethod
    def mix(self, position: Position, player: int) -> dict[int, Number]:
        """The probability of each card of ``player``'s hand at ``position`` (upcard turned)."""

    def prize_choice(self, position: Position, player: int) -> dict[int, Number]:
        """Where ``player`` chooses the next prize (a controlled prize order), the
        probability of each prize of ``position.deck`` (no upcard yet): by default each
        equally likely, as if the deck were shuffled."""
        deck = sorted(position.deck)
        return {u: Fraction(1, len(deck)) for u in deck}

    def bid(self, position: Position, player: int, rng: random.Random) -> int:
        """A bid drawn from :meth:`mix` with one ``rng.random()``."""
        mix = self.mix(position, player)
        cards = sorted(c for c, p in mix.items() if p > 0)
        r = rng.random() * float(sum(mix[c] for c in cards))
        acc = 0.0
        for c in cards:
            acc += float(mix[c])
            if r < acc:
                return c
        return cards[-1]  # r within rounding of the total

    def __repr__(self) -> str:
        return f"<bot {self.name}>"


class RandomBot(Bot):
    """Uniform over the remaining cards."""

    name = "random"
    uses_lead = False

    def mix(self, position, player):
        hand = sorted(position.hands[player])
        return {c: Fraction(1, len(hand)) for c in hand}


class FixedRuleBot(Bot):
    """A deterministic bot: ``rule(hand, upcard) -> card`` with probability 1."""

    uses_lead = False

    def __init__(self, name: str, rule: Callable[[frozenset[int], int], int]):
        self.name = name
        self.rule = rule

    def mix(self, position, player):
        return {self.rule(position.hands[player], position.upcard): Fraction(1)}


def aim_at(offset: int) -> Callable[[frozenset[int], int], int]:
    """The rule "bid upcard + offset if held, else the nearest held card above, else the
    highest card"."""

    def rule(hand, upcard):
        target = upcard + offset
        above = [c for c in hand if c >= target]
        return min(above) if above else max(hand)

    return rule


def _lowest(hand, upcard):
    return min(hand)


def _highest(hand, upcard):
    return max(hand)


#: The solutions of :func:`solution_for`, keyed on their game: a GameSpec for the standard
#: game, (Variant, GameSpec) for a variant.
_SOLUTIONS: dict[GameSpec | tuple[Variant, GameSpec], Solution | VariantSolution] = {}
#: Solutions kept by :func:`solution_for` (the oldest is dropped beyond this).
SOLUTIONS_KEPT = 3


def game_for(
    n: int,
    arithmetic: str = "float",
    objective: str = "points",
    variant: str | Variant = STANDARD,
    order: str = "random",
) -> GameSpec:
    """The checked GameSpec of the loose arguments :func:`solution_for` and the optimal
    bots' factories take: the standard game by :func:`exact.dp.solve.parse_game` (the
    messages of :func:`exact.solve`); a variant's N and arithmetic by its own solver's
    limits first (points, random order only).  ``variant``: a Variant, or its name."""
    variant = get_variant(variant)
    if variant is STANDARD:
        return dp_solve.parse_game(n, objective, arithmetic, order=order)
    if objective_named(objective).has_lead:
        raise GopsInputError(f"the {variant.name} variant is solved for points only")
    check_variant_options(variant, n, arithmetic)
    return GameSpec.parse(n, objective, order, 0, arithmetic)


def solution_for(
    game: GameSpec | int,
    arithmetic: str | None = None,
    progress=None,
    objective: str | None = None,
    variant: str | Variant = STANDARD,
    order: str | None = None,
) -> Solution | VariantSolution:
    """The solution used by optimal bots, solved once and cached, keyed on its game.

    ``game``: a :class:`~exact.game.spec.GameSpec` (its N, objective, order, handicap and
    arithmetic), or N with the loose arguments ``arithmetic`` (default float),
    ``objective`` and ``order`` (checked by :func:`game_for`).  Equal specs share one
    solution however they were built.  ``variant`` twelve or dummy (a Variant or its
    name) gives the :class:`~exact.dp.variant_solver.VariantSolution` of that variant for
    the spec's N and arithmetic (points, random order).  ``progress`` is handed to the solver:
    ``progress(level, items)`` for the standard game, ``progress(states)`` for a variant.

    The variant is not a field of the GameSpec: a GameSpec is the game of the standard
    rules that the fast solver, its stores, cluster tasks and Solution describe; a variant
    changes the rules (rounds, bidders) and is solved by another solver
    (:mod:`exact.dp.variant_solver`) into another kind of solution, so its key here is
    (Variant, GameSpec).
    """
    variant = get_variant(variant)
    if not isinstance(game, GameSpec):
        game = game_for(
            game, arithmetic or "float", objective or "points", variant, order or "random"
        )
    elif (arithmetic, objective, order) != (None, None, None):
        raise TypeError(
            "solution_for(GameSpec) takes the objective, order and arithmetic from the spec"
        )
    key: GameSpec | tuple[Variant, GameSpec] = game if variant is STANDARD else (variant, game)
    if key not in _SOLUTIONS:
        sol: Solution | VariantSolution
        if variant is not STANDARD:
            if game.has_lead or game.order is not RANDOM:
                raise GopsInputError(
                    f"the {variant.name} variant is solved for points in the random prize"
                    " order only"
                )
            sol = solve_variant(variant, game.n, game.arithmetic, progress=progress)
        else:
            sol = dp_solve.solve_game(dp_solve.check_limits(game), progress=progress)
        while len(_SOLUTIONS) >= SOLUTIONS_KEPT:
            del _SOLUTIONS[next(iter(_SOLUTIONS))]
        _SOLUTIONS[key] = sol
    return _SOLUTIONS[key]


def bot_for(game: GameSpec, solution: Solution | None = None) -> OptimalBot:
    """The optimal bot of the standard ``game``: :class:`OptimalBot` for the points
    objective, :class:`WinOptimalBot` for win; it plays ``solution`` (which must be of
    ``game``: a store's, say) or else :func:`solution_for` ``(game)``, solved once."""
    sol = solution_for(game) if solution is None else solution
    if not isinstance(sol, Solution) or not sol.spec.covers(game):
        raise GopsInputError(
            f"the optimal bot of {game.describe()} ({game.arithmetic.name}) cannot play {sol!r}"[
                :200
            ]
        )
    return WinOptimalBot(sol) if game.has_lead else OptimalBot(sol)


class OptimalBot(Bot):
    """Samples the equilibrium of a :class:`~exact.dp.solution.Solution`.

    Mixes are cached per canonical position: the cards of both hands are relabelled
    1, 2, ... in order (the deck is kept), which leaves the payoff matrix, hence the
    solver's answer, unchanged (the reduction of :mod:`exact.game.encoding`).  Float mixes
    are cleaned once: negative rounding noise is set to 0 and the mix renormalised.
    ``max_gap`` is the largest checked equilibrium gap of any mix handed out so far
    (0 for an exact solution).
    """

    name = "optimal"
    uses_lead = False

    def __init__(self, solution):
        self.solution = solution
        self.exact = solution.arithmetic.exact
        self.max_gap = 0.0
        self._cache: dict = {}

    def mix(self, position, player):
        self._check_n(position)
        mine, theirs = position.hands[player], position.hands[1 - player]
        return self.equilibrium(mine, theirs, position.deck, position.upcard)

    def _check_n(self, position):
        if position.n != self.solution.n:
            raise GopsInputError(
                f"the {self.name} bot was built for N={self.solution.n}, not N={position.n}"
            )

    def equilibrium(self, mine, theirs, deck, upcard, lead=None) -> dict[int, Number]:
        """My equilibrium mix at (mine, theirs, deck, upcard[, lead]), canonicalised and
        cached (``lead`` only for a win-objective solution)."""
        order = sorted(mine | theirs)
        rank = {c: i + 1 for i, c in enumerate(order)}
        key = (
            frozenset(rank[c] for c in mine),
            frozenset(rank[c] for c in theirs),
            deck,
            upcard,
            lead,
        )
        mix = self._cache.get(key)
        if mix is None:
            extra = {} if lead is None else {"lead": lead}
            st = self.solution.strategy(key[0], key[1], deck, upcard, **extra)
            self.max_gap = max(self.max_gap, st.gap)
            mix = st.mine if self.exact else _clean(st.mine)
            self._cache[key] = mix
        return {order[r - 1]: p for r, p in mix.items()}

    def prize_choice(self, position, player):
        """The prize worth most to me (``position`` before the upcard): the largest f_u of
        my solution, which must be that of the order in which I choose (the smallest such
        prize on a tie)."""
        if self.solution.order.chooser != "me":
            raise GopsInputError(
                f"the {self.name} bot chooses prizes with a solution of the "
                f"controlled-by-me order, not {self.solution.order.name}"
            )
        mine, theirs = position.hands[player], position.hands[1 - player]
        lead = {}
        if self.solution.spec.has_lead:
            lead = {"lead": int(position.points[player] - position.points[1 - player])}
        values = self.solution.prize_values(mine, theirs, position.deck, **lead)
        best = max(values.values())
        return {min(u for u, v in values.items() if v == best): Fraction(1)}


class WinOptimalBot(OptimalBot):
    """Samples the equilibrium of the win objective: maximises P(win) - P(loss).

    Its mix depends on the lead (my points minus theirs so far), read from the position.
    """

    name = "optimal-win"
    uses_lead = True

    def mix(self, position, player):
        self._check_n(position)
        lead = position.points[player] - position.points[1 - player]
        mine, theirs = position.hands[player], position.hands[1 - player]
        return self.equilibrium(mine, theirs, position.deck, position.upcard, int(lead))


class VariantOptimalBot(Bot):
    """Samples the equilibrium of a solved two-player variant (``twelve`` or ``dummy``).

    Plays :class:`~exact.game.variants.VariantPosition` s: it reads the hands, the deck, the
    upcard and the dummy's remaining suit.  Mixes are cached per position.
    """

    name = "optimal"
    uses_lead = False

    def __init__(self, solution):
        self.solution = solution
        self.exact = solution.exact
        self.max_gap = 0.0
        self._cache: dict = {}

    def mix(self, position, player):
        if position.n != self.solution.n or position.variant is not self.solution.variant:
            raise GopsInputError(
                f"the optimal bot was built for the {self.solution.variant.name} variant "
                f"with N={self.solution.n}"
            )
        mine, theirs = position.hands[player], position.hands[1 - player]
        key = (mine, theirs, position.dummy_hand, position.deck, position.upcard)
        mix = self._cache.get(key)
        if mix is None:
            st = self.solution.strategy(
                mine, theirs, position.deck, position.upcard, position.dummy_hand
            )
            self.max_gap = max(self.max_gap, st.gap)
            mix = st.mine if self.exact else _clean(st.mine)
            self._cache[key] = mix
        return mix


def _clean(mix: dict[int, float]) -> dict[int, float]:
    """Clip float rounding noise below 0 and renormalise to sum 1."""
    clipped = {c: max(float(p), 0.0) for c, p in mix.items()}
    total = sum(clipped.values())
    return {c: p / total for c, p in clipped.items()}


def _optimal(
    n: int,
    arithmetic: str | None = None,
    variant: str | Variant = STANDARD,
    order: str = "random",
) -> Bot:
    variant = get_variant(variant)
    if variant is not STANDARD:
        game = game_for(n, arithmetic or "float", variant=variant)
        return VariantOptimalBot(solution_for(game, variant=variant))
    if arithmetic is None:
        arithmetic = "rational" if n <= EXACT_OPTIMAL_MAX_N else "float"
    return bot_for(game_for(n, arithmetic, order=order))


def _optimal_win(n: int, arithmetic: str | None = None, order: str = "random", **_) -> Bot:
    if arithmetic is None:
        arithmetic = "rational" if n <= EXACT_OPTIMAL_WIN_MAX_N else "float"
    return bot_for(game_for(n, arithmetic, "win", order=order))


#: The registry: name -> factory(n, **options) -> Bot.  Extend it with
#: :func:`register_bot`.
BOTS: dict[str, Callable[..., Bot]] = {
    "optimal": _optimal,
    "optimal-win": _optimal_win,
    "random": lambda n, **_: RandomBot(),
    "upcard": lambda n, **_: FixedRuleBot("upcard", aim_at(0)),
    "upcard+1": lambda n, **_: FixedRuleBot("upcard+1", aim_at(1)),
    "lowest": lambda n, **_: FixedRuleBot("lowest", _lowest),
    "highest": lambda n, **_: FixedRuleBot("highest", _highest),
}


#: Bots of the three-player variants only (:mod:`exact.play.three` builds them): names
#: :func:`parse_bot_list` accepts, outside :data:`BOTS` (whose list the two-player
#: commands show).
THREE_PLAYER_BOTS = ("equilibrium",)


def register_bot(name: str, factory: Callable[..., Bot]) -> None:
    """Add a bot to the registry: ``factory(n, **options)`` returns a :class:`Bot`."""
    if not name or "," in name:
        raise GopsInputError(f"bad bot name {name!r} (no commas, not empty)")
    BOTS[name] = factory


def bot_names() -> list[str]:
    return list(BOTS)


def make_bot(name: str, n: int, **options) -> Bot:
    """Build the bot ``name`` for n-card GOPS.

    ``options`` go to the factory; the optimal bot takes ``arithmetic`` ("rational" or
    "float"; default rational for n <= 6, float above).
    """
    factory = BOTS.get(name)
    if name in THREE_PLAYER_BOTS:
        raise GopsInputError(
            f"the {name} bot plays the three-player variants only (three, three-third)"
        )
    if factory is None:
        raise GopsInputError(f"unknown bot {name!r} (choose from {', '.join(BOTS)})")
    return factory(n, **options)


def parse_bot_list(text: str, at_least: int = 1) -> list[str]:
    """Split ``"optimal,random"`` into known bot names (those of :data:`BOTS` and
    :data:`THREE_PLAYER_BOTS`); one-line GopsInputError otherwise."""
    names = [t.strip() for t in text.split(",")]
    for name in names:
        if name not in BOTS and name not in THREE_PLAYER_BOTS:
            raise GopsInputError(f"unknown bot {name!r} (choose from {', '.join(BOTS)})")
    if len(names) < at_least:
        raise GopsInputError(f"give at least {at_least} bots, got {len(names)}")
    return names


def face_up_reply(solution, pos, mine: int) -> int:
    """The computer's best answer to a bid it can see: the card maximising its value of
    the round, M[its card, your bid] with M its payoff matrix at this position (the
    continuation values of the equilibrium); the lowest such card on ties."""
    its, yours = sorted(pos.hands[1]), sorted(pos.hands[0])
    M = solution.matrix(pos.hands[1], pos.hands[0], pos.deck, pos.upcard)
    column = [M[i][yours.index(mine)] for i in range(len(its))]
    return its[column.index(max(column))]
