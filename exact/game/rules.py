"""The rules of two-player N-card GOPS (Goofspiel, the "Game of Pure Strategy").

Each player holds the cards 1..N of one suit; the prize cards 1..N of a third suit are
shuffled face down.  In each of N rounds one prize is turned up, both players bid one of
their remaining cards face down and simultaneously, and the higher bid wins the prize's
value; on a tie the prize is discarded and scores for nobody.  Bid cards are used up.
After N rounds the zero-sum payoff is the point difference (player 0 minus player 1);
the "win" outcome is its sign (+1, 0 or -1).

Sources: the rules and the sample game of the "Psychological JuJitsu" rules write-up of
GOPS, and G. H. Rhoads and L. Bartholdi,
"Computer Solution to the Game of Pure Strategy", *Games* 3 (2012), section 2.  The
paper splits a tied prize between the players instead of discarding it; that adds the
same amount to both totals, so the point difference (and hence the win outcome) is the
same under either convention.

This module only states the rules: :class:`Position` (an immutable state),
:class:`RoundResult`, :func:`new_game`, :func:`play_game` and :class:`GameRecord`, plus the
shared input validators :func:`validate_position` and :func:`parse_cards` used by the CLI
and the API.  Every user-provoked error is a :class:`~exact.errors.GopsInputError` with a
one-line message; an illegal move is an :class:`~exact.errors.InvalidMoveError`.
"""

from __future__ import annotations

import operator
import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from exact.errors import GopsInputError, InvalidMoveError
from exact.limits import RULES_MAX_N, check_n

__all__ = [
    "MAX_N",
    "Bidder",
    "as_card",
    "card_set",
    "format_cards",
    "GameRecord",
    "Position",
    "RoundResult",
    "new_game",
    "parse_cards",
    "parse_integer",
    "play_game",
    "prize_total",
    "validate_position",
]

#: Largest supported number of cards per suit (exact.limits.RULES_MAX_N).
MAX_N = RULES_MAX_N


def prize_total(n: int) -> int:
    """All the prize points of N-card GOPS: 1 + 2 + ... + N = N(N + 1)/2.

    >>> prize_total(13)
    91
    """
    return n * (n + 1) // 2


def as_card(x: object, what: str) -> int:
    """Return ``x`` as a plain ``int`` (accepting numpy integers), rejecting bools etc."""
    if isinstance(x, bool):
        raise GopsInputError(f"{what}: card {x!r} is not an integer")
    try:
        return int(operator.index(x))  # type: ignore[arg-type]
    except TypeError:
        raise GopsInputError(f"{what}: card {x!r} is not an integer") from None


def card_set(cards: object, what: str) -> tuple[frozenset[int], int]:
    """Normalise an iterable of cards to a frozenset, rejecting repeats and non-ints.

    Returns the set and the number of items given (equal to the set's size on success).
    """
    if isinstance(cards, (str, bytes)) or not isinstance(cards, Iterable):
        raise GopsInputError(
            f"{what} must be a collection of card numbers, got {type(cards).__name__}"
        )
    seen: set[int] = set()
    for x in cards:
        c = as_card(x, what)
        if c in seen:
            raise GopsInputError(f"{what}: card {c} appears more than once")
        seen.add(c)
    return frozenset(seen), len(seen)


def _validate(
    hand0: object,
    hand1: object,
    deck: object,
    upcard: object,
    n: object,
    names: tuple[str, str],
) -> tuple[frozenset[int], frozenset[int], frozenset[int], int | None, int]:
    """Validate a (possibly user-supplied) position; return it normalised, with n."""
    h0, _ = card_set(hand0, names[0])
    h1, _ = card_set(hand1, names[1])
    d, _ = card_set(deck, "deck")
    if n is None:
        n = max(h0 | h1 | d, default=0)
        if n < 1:
            raise GopsInputError("n must be given when there are no cards")
        n = min(n, RULES_MAX_N)  # a larger card is out of range, named below
    n = check_n(n)
    for what, cards in ((names[0], h0), (names[1], h1), ("deck", d)):
        bad = sorted(c for c in cards if not 1 <= c <= n)
        if bad:
            raise GopsInputError(f"{what}: card {bad[0]} is outside 1..{n}")
    if len(h0) != len(h1):
        raise GopsInputError(
            f"hands differ in size: {names[0]} has {len(h0)} cards, {names[1]} has {len(h1)}"
        )
    if len(d) != len(h0):
        raise GopsInputError(
            f"deck has {len(d)} cards but each hand has {len(h0)}; they must be equal"
        )
    up: int | None = None
    if upcard is not None:
        up = as_card(upcard, "upcard")
        if up not in d:
            raise GopsInputError(f"upcard {up} is not in the deck {format_cards(d)}")
    return h0, h1, d, up, n


def format_cards(cards: Iterable[int]) -> str:
    """Format a set of cards as ``{1,2,5}`` for messages."""
    return "{" + ",".join(map(str, sorted(cards))) + "}"


def validate_position(
    mine: Iterable[int],
    theirs: Iterable[int],
    deck: Iterable[int],
    upcard: int | None = None,
    n: int | None = None,
) -> tuple[frozenset[int], frozenset[int], frozenset[int]]:
    """Validate a user-supplied position; return ``(mine, theirs, deck)`` as frozensets.

    The single validator shared by the CLI and the API.  Checks, in order: each of
    ``mine``, ``theirs`` and ``deck`` is a collection of integers with no repeats; ``n``
    (default: the largest card seen) is an integer in ``1..MAX_N``; every card lies in
    ``1..n``; both hands have the same size; the deck has as many cards as a hand; and
    ``upcard``, if given, is in the deck.  Each failure raises
    :class:`~exact.errors.GopsInputError` with a one-line message.
    """
    h0, h1, d, _, _ = _validate(mine, theirs, deck, upcard, n, ("my hand", "their hand"))
    return h0, h1, d


@dataclass(frozen=True)
class RoundResult:
    """The outcome of one round: the prize, the two bids, who won and what they got."""

    upcard: int
    bids: tuple[int, int]
    winner: int | None  # 0, 1, or None for a tie (prize discarded)
    points: int  # points awarded to the winner: ``upcard``, or 0 on a tie

    @property
    def is_tie(self) -> bool:
        """True if the bids were equal and the prize was discarded."""
        return self.winner is None


@dataclass(frozen=True)
class Position:
    """An immutable GOPS state between bids.

    ``hands[p]`` are player ``p``'s remaining bid cards; ``deck`` are the prizes not yet
    won or discarded (it includes ``upcard`` when one is face up); ``points[p]`` are the
    prize points player ``p`` has won; ``n`` is the number of cards per suit.  Invariants
    (checked on construction): cards lie in ``1..n``, both hands and the deck have the
    same size, the upcard is in the deck, and the points are non-negative and no larger
    than the prizes already gone.  Instances are hashable.
    """

    hands: tuple[frozenset[int], frozenset[int]]
    deck: frozenset[int]
    upcard: int | None
    points: tuple[int, int]
    n: int

    def __post_init__(self) -> None:
        hands = self.hands
        if isinstance(hands, (str, bytes)) or not isinstance(hands, Iterable):
            raise GopsInputError("hands must be a pair of card collections")
        pair = tuple(hands)
        if len(pair) != 2:
            raise GopsInputError(f"hands must be a pair, got {len(pair)} hands")
        h0, h1, d, up, n = _validate(
            pair[0],
            pair[1],
            self.deck,
            self.upcard,
            self.n,
            ("player 0's hand", "player 1's hand"),
        )
        pts = tuple(self.points)
        if len(pts) != 2:
            raise GopsInputError(f"points must be a pair, got {len(pts)} values")
        p0 = as_card(pts[0], "points")
        p1 = as_card(pts[1], "points")
        gone = prize_total(n) - sum(d)
        if p0 < 0 or p1 < 0 or p0 + p1 > gone:
            raise GopsInputError(
                f"points {p0} and {p1} are impossible: prizes already gone total {gone}"
            )
        object.__setattr__(self, "hands", (h0, h1))
        object.__setattr__(self, "deck", d)
        object.__setattr__(self, "upcard", up)
        object.__setattr__(self, "points", (p0, p1))
        object.__setattr__(self, "n", n)

    @classmethod
    def _unchecked(
        cls,
        hands: tuple[frozenset[int], frozenset[int]],
        deck: frozenset[int],
        upcard: int | None,
        points: tuple[int, int],
        n: int,
    ) -> Position:
        """Build a position known to satisfy the invariants, skipping validation."""
        self = object.__new__(cls)
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "deck", deck)
        object.__setattr__(self, "upcard", upcard)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "n", n)
        return self

    @property
    def is_terminal(self) -> bool:
        """True when every round has been played (no cards left anywhere)."""
        return not self.deck

    @property
    def lead(self) -> int:
        """Player 0's points minus player 1's points so far."""
        return self.points[0] - self.points[1]

    @property
    def rounds_left(self) -> int:
        """Number of rounds still to play (including the current one if a card is up)."""
        return len(self.deck)

    @property
    def discarded(self) -> int:
        """Total value of the prizes discarded on ties so far."""
        return self.n * (self.n + 1) // 2 - sum(self.deck) - sum(self.points)

    def legal_bids(self, player: int) -> tuple[int, ...]:
        """The cards ``player`` (0 or 1) may bid, in increasing order."""
        return tuple(sorted(self.hands[_check_player(player)]))

    def turn_up(self, card: int) -> Position:
        """Turn up prize ``card`` from the deck; raise InvalidMoveError if not allowed."""
        if self.upcard is not None:
            raise InvalidMoveError(f"cannot turn up {card!r}: the {self.upcard} is already face up")
        if self.is_terminal:
            raise InvalidMoveError(f"cannot turn up {card!r}: the game is over")
        c = _move_card(card, "turned-up card")
        if c not in self.deck:
            raise InvalidMoveError(
                f"cannot turn up {c}: it is not in the deck {format_cards(self.deck)}"
            )
        return Position._unchecked(self.hands, self.deck, c, self.points, self.n)

    def play(self, bid0: int, bid1: int) -> tuple[Position, RoundResult]:
        """Resolve a round with the given bids; return the new position and the result.

        The new position has no upcard; the prize is removed from the deck and awarded
        to the higher bidder (discarded on a tie); both bid cards leave their hands.
        """
        if self.upcard is None:
            what = "the game is over" if self.is_terminal else "no prize card is face up"
            raise InvalidMoveError(f"cannot bid: {what}")
        bids = (_move_card(bid0, "player 0's bid"), _move_card(bid1, "player 1's bid"))
        for p, b in enumerate(bids):
            if b not in self.hands[p]:
                raise InvalidMoveError(
                    f"player {p} cannot bid {b}: not in their hand {format_cards(self.hands[p])}"
                )
        up = self.upcard
        if bids[0] > bids[1]:
            winner: int | None = 0
            points = (self.points[0] + up, self.points[1])
        elif bids[1] > bids[0]:
            winner = 1
            points = (self.points[0], self.points[1] + up)
        else:
            winner = None
            points = self.points
        new = Position._unchecked(
            (self.hands[0] - {bids[0]}, self.hands[1] - {bids[1]}),
            self.deck - {up},
            None,
            points,
            self.n,
        )
        result = RoundResult(up, bids, winner, 0 if winner is None else up)
        return new, result

    def swapped(self) -> Position:
        """The same position with the players exchanged (negates :attr:`lead`)."""
        return Position._unchecked(
            (self.hands[1], self.hands[0]),
            self.deck,
            self.upcard,
            (self.points[1], self.points[0]),
            self.n,
        )


def _check_player(player: object) -> int:
    if isinstance(player, bool) or player not in (0, 1):
        raise GopsInputError(f"player must be 0 or 1, got {player!r}")
    return int(player)


def _move_card(x: object, what: str) -> int:
    """Like :func:`as_card` but raising InvalidMoveError (a move, not a construction)."""
    try:
        return as_card(x, what)
    except GopsInputError as e:
        raise InvalidMoveError(str(e)) from None


def new_game(n: int) -> Position:
    """The starting position of ``n``-card GOPS (``1 <= n <= 52``), no card turned up."""
    n = check_n(n)
    cards = frozenset(range(1, n + 1))
    return Position._unchecked((cards, cards), cards, None, (0, 0), n)


#: A bidding policy: given the position (with the prize face up) and the player index,
#: return the card to bid.  Both players are asked about the same position, so neither
#: sees the other's bid.
Bidder = Callable[[Position, int], int]


@dataclass(frozen=True)
class GameRecord:
    """A complete played game."""

    prize_order: tuple[int, ...]
    rounds: tuple[RoundResult, ...]
    points: tuple[int, int]
    difference: int  # points[0] - points[1]
    winner: int | None  # 0, 1, or None for a draw

    @property
    def discarded(self) -> int:
        """Total value of the prizes discarded on ties."""
        return sum(r.upcard for r in self.rounds if r.winner is None)

    @property
    def outcome(self) -> int:
        """+1 if player 0 won, -1 if player 1 won, 0 for a draw."""
        return (self.difference > 0) - (self.difference < 0)


def play_game(n: int, bidder0: Bidder, bidder1: Bidder, rng: random.Random) -> GameRecord:
    """Play a whole game of ``n``-card GOPS between two bidders.

    ``rng`` shuffles the prize order.  Each round the next prize is turned up and both
    bidders are called on the same position; an illegal bid raises
    :class:`~exact.errors.InvalidMoveError` naming the player and the card.
    """
    pos = new_game(n)
    order = list(range(1, pos.n + 1))
    rng.shuffle(order)
    rounds: list[RoundResult] = []
    for prize in order:
        pos = pos.turn_up(prize)
        bid0 = bidder0(pos, 0)
        bid1 = bidder1(pos, 1)
        pos, result = pos.play(bid0, bid1)
        rounds.append(result)
    diff = pos.lead
    return GameRecord(
        prize_order=tuple(order),
        rounds=tuple(rounds),
        points=pos.points,
        difference=diff,
        winner=0 if diff > 0 else 1 if diff < 0 else None,
    )


#: A whole number as typed: ASCII digits with an optional leading minus (``re``'s
#: ``[0-9]`` is ASCII only, unlike ``str.isdigit`` and ``int``, which take "５" and "٣").
_INTEGER = re.compile(r"-?[0-9]+")
#: Longest number parsed (CPython's ``int(str)`` refuses more than 4,300 digits).
_MAX_DIGITS = 4000


def parse_integer(text: str, what: str = "") -> int:
    """Parse a whole number typed by a user: ASCII digits, optionally after a '-'.

    The one parser of the command line: N, ``--n``, ``--upcard``, ``--lead``,
    ``--chunk-items`` and each card of a card list.  Nothing else is accepted, not even
    the spaces, '+', '_' and non-ASCII digits that ``int()`` allows; ``what`` (e.g.
    "bad card") starts the message.

    >>> parse_integer("-12")
    -12
    >>> parse_integer(" 5")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: ' 5' is not a whole number (ASCII digits 0-9, optionally
    after a '-', no spaces)
    >>> parse_integer("５", "bad card")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: bad card '５' is not a whole number (ASCII digits 0-9,
    optionally after a '-', no spaces)
    """
    if not isinstance(text, str):
        raise GopsInputError(f"a number must be given as text, got {type(text).__name__}")
    shown = repr(text if len(text) <= 20 else text[:20] + "...")
    prefix = f"{what} " if what else ""
    if not _INTEGER.fullmatch(text):
        raise GopsInputError(
            f"{prefix}{shown} is not a whole number (ASCII digits 0-9, "
            "optionally after a '-', no spaces)"
        )
    if len(text) > _MAX_DIGITS:
        raise GopsInputError(f"{prefix}{shown} has more than {_MAX_DIGITS:,} digits")
    return int(text)


def parse_cards(text: str) -> tuple[int, ...]:
    """Parse a comma-separated card list such as ``"2,4"`` into ``(2, 4)``.

    The list is split on ``,`` and each card is read by :func:`parse_integer`, the rule of
    every number (ASCII digits, no spaces: ``"2, 4"`` is refused as ``' 4'``, as N ``' 5'``
    is); the empty string gives ``()``.  Each card must be at least 1; a bad token or a
    repeated card raises :class:`~exact.errors.GopsInputError` naming the token.  Range
    checks against ``n`` are left to :func:`validate_position`.
    """
    if not isinstance(text, str):
        raise GopsInputError(f"card list must be a string, got {type(text).__name__}")
    if not text:
        return ()
    cards: list[int] = []
    for token in text.split(","):
        c = parse_integer(token, "bad card")
        if c < 1:
            raise GopsInputError(f"bad card {token!r}: cards are numbered from 1")
        if c in cards:
            raise GopsInputError(f"card {c} appears more than once in card list")
        cards.append(c)
    return tuple(cards)
