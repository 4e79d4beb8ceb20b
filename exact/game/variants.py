"""Variants of GOPS from the "Psychological JuJitsu" rules write-up, as rules only (no solver).

:mod:`exact.game.rules` keeps the two-player game; this module generalises one round to two or
three bidders and adds the write-up's variants.  Our reading of the write-up, where it
leaves room for one:

``standard``
    Two players; a tie discards the prize (as :mod:`exact.game.rules`).
``three``
    Three players.  "If there is a tie for high bid in a three-player game the diamond is
    placed between the two high bidders and they each get half value for it."  A
    three-way tie discards the prize: the write-up's four-player remark ("a three-way tie
    bid on every diamond, in which case everyone ends up at zero") says so.
``three-third``
    Three players; "if there is a two-way tie for the high bid, the other player wins that
    diamond" (even with the lowest bid: two 13s and a 1 on the king give the king to the
    1).  A three-way tie discards the prize.
``three-discard``
    Three players; any tie for the high bid discards the prize (OpenSpiel's three-player
    goofspiel).
``dummy``
    Two players and a dummy who "selects bids at random": the remaining suit is shuffled
    and, after both players have bid, its next card is turned up as the dummy's bid.  We
    read "pretend there's a third player" literally: the round is scored by the
    three-player rule (``three``) with the dummy as a bidder.  So if the dummy's card is
    strictly highest the dummy takes the prize and neither player scores; a player tied
    with the dummy for high gets half; both players tied above the dummy get half each;
    all three tied discards it.  The dummy's points are kept but it never wins: the
    winner is the real player with more points.
``twelve``
    Two players, 12 rounds of the 13-card game (in general n - 1 rounds): "the last
    diamond does not get bid on and is discarded", and "you should remove all the aces
    from the bidding suits", so each player bids with 2..n and the prize left after the
    last round scores for nobody.

How a tie is scored is the variant's :class:`~exact.game.ties.TieRule`.

Face-up declarations (the write-up's "another way to score") are a scoring rule for a
finished two-player game: :func:`declaration_score`.

>>> resolve_round(13, (13, 13, 1), "third")      # the write-up's extreme case
(Fraction(0, 1), Fraction(0, 1), Fraction(13, 1))
>>> resolve_round(9, (7, 7, 2), "split")
(Fraction(9, 2), Fraction(9, 2), Fraction(0, 1))
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from exact.errors import GopsInputError, InvalidMoveError
from exact.game.rules import GameRecord, format_cards
from exact.game.ties import DISCARD, SPLIT, THIRD, TieRule, tie_rule_named
from exact.limits import check_n

__all__ = [
    "STANDARD",
    "VARIANTS",
    "DeclarationScore",
    "Variant",
    "VariantPosition",
    "VariantRecord",
    "VariantRound",
    "declaration_score",
    "get_variant",
    "play_variant",
    "resolve_round",
    "score_declarations",
]


def resolve_round(upcard: int, bids: tuple[int, ...], tie_rule) -> tuple[Fraction, ...]:
    """Points each bidder gets from one prize, given all bids (the dummy's included), by
    ``tie_rule`` (a :class:`~exact.game.ties.TieRule`, or its name at a boundary)."""
    return tie_rule_named(tie_rule).score(upcard, bids)


@dataclass(frozen=True)
class Variant:
    """A rule set: bidders, tie rule, the random dummy and the dropped last prize."""

    name: str
    players: int  # real bidders: 2 or 3
    tie_rule: TieRule
    dummy: bool = False  # a random third bidder (two players only)
    drop_last: bool = False  # aces out of the bidding hands; n - 1 rounds

    def __post_init__(self):
        if self.players not in (2, 3):
            raise GopsInputError(f"a variant has 2 or 3 players, got {self.players}")
        if self.dummy and self.players != 2:
            raise GopsInputError("the random dummy plays with two players only")
        if not isinstance(self.tie_rule, TieRule):
            raise GopsInputError(f"a variant's tie rule is a TieRule, not {self.tie_rule!r}")

    @property
    def bidders(self) -> int:
        """Number of bids per round, the dummy's included."""
        return self.players + self.dummy

    def bid_cards(self, n: int) -> frozenset[int]:
        """Each player's starting hand: 1..n, or 2..n when the last prize is dropped."""
        return frozenset(range(2 if self.drop_last else 1, n + 1))

    def rounds(self, n: int) -> int:
        return n - 1 if self.drop_last else n


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("standard", 2, DISCARD),
        Variant("three", 3, SPLIT),
        Variant("three-third", 3, THIRD),
        Variant("three-discard", 3, DISCARD),
        Variant("dummy", 2, SPLIT, dummy=True),
        Variant("twelve", 2, DISCARD, drop_last=True),
    )
}


#: The two-player game of :mod:`exact.game.rules`: below the parsers a variant is asked
#: ``is STANDARD`` (identity), never compared by its name.
STANDARD = VARIANTS["standard"]


def get_variant(name: str | Variant) -> Variant:
    """The Variant called ``name`` (a Variant is returned as it is)."""
    if isinstance(name, Variant):
        return name
    try:
        return VARIANTS[name]
    except (KeyError, TypeError):
        raise GopsInputError(
            f"unknown variant {name!r} (choose from {', '.join(VARIANTS)})"
        ) from None


@dataclass(frozen=True)
class VariantRound:
    upcard: int
    bids: tuple[int, ...]  # the players' bids
    dummy_bid: int | None
    points: tuple[Fraction, ...]  # awarded to each player, then the dummy if any


@dataclass(frozen=True)
class VariantPosition:
    """A state of a variant game between rounds, or with ``upcard`` turned.

    ``hands`` has one entry per real player (bots of :mod:`exact.play.bots` that read only
    ``hands[player]`` and ``upcard`` can bid here); ``deck`` holds the prizes not yet bid
    on, the upcard included; ``points`` one entry per player, then the dummy's.
    """

    variant: Variant
    n: int
    hands: tuple[frozenset[int], ...]
    deck: frozenset[int]
    upcard: int | None
    points: tuple[Fraction, ...]
    dummy_hand: frozenset[int] = frozenset()

    @property
    def rounds_left(self) -> int:
        return len(self.hands[0])

    @property
    def is_terminal(self) -> bool:
        return self.rounds_left == 0

    def turn_up(self, card: int) -> VariantPosition:
        if self.upcard is not None or self.is_terminal:
            raise InvalidMoveError(f"cannot turn up {card!r} now")
        if card not in self.deck:
            raise InvalidMoveError(
                f"cannot turn up {card}: it is not in the deck {format_cards(self.deck)}"
            )
        return VariantPosition(
            self.variant, self.n, self.hands, self.deck, card, self.points, self.dummy_hand
        )

    def play(self, bids: tuple[int, ...], dummy_bid: int | None = None):
        """Resolve the round; return the new position and its :class:`VariantRound`."""
        if self.upcard is None:
            raise InvalidMoveError("cannot bid: no prize card is face up")
        if len(bids) != self.variant.players:
            raise InvalidMoveError(f"expected {self.variant.players} bids, got {len(bids)}")
        for p, b in enumerate(bids):
            if b not in self.hands[p]:
                raise InvalidMoveError(
                    f"player {p} cannot bid {b}: not in their hand {format_cards(self.hands[p])}"
                )
        everyone = tuple(bids)
        if self.variant.dummy:
            if dummy_bid not in self.dummy_hand:
                raise InvalidMoveError(f"the dummy cannot bid {dummy_bid!r}: not in its hand")
            everyone += (dummy_bid,)
        elif dummy_bid is not None:
            raise InvalidMoveError("this variant has no dummy")
        won = resolve_round(self.upcard, everyone, self.variant.tie_rule)
        new = VariantPosition(
            self.variant,
            self.n,
            tuple(h - {b} for h, b in zip(self.hands, bids)),
            self.deck - {self.upcard},
            None,
            tuple(p + w for p, w in zip(self.points, won)),
            self.dummy_hand - {dummy_bid} if self.variant.dummy else frozenset(),
        )
        return new, VariantRound(self.upcard, tuple(bids), dummy_bid, won)


def start(variant: Variant, n: int) -> VariantPosition:
    """The first position of ``variant`` with n cards per suit."""
    n = check_n(n)
    if variant.drop_last and n < 2:
        raise GopsInputError("the dropped-prize variant needs n >= 2")
    hand = variant.bid_cards(n)
    return VariantPosition(
        variant,
        n,
        (hand,) * variant.players,
        frozenset(range(1, n + 1)),
        None,
        (Fraction(0),) * variant.bidders,
        frozenset(range(1, n + 1)) if variant.dummy else frozenset(),
    )


@dataclass(frozen=True)
class VariantRecord:
    """A finished variant game."""

    variant: str
    prize_order: tuple[int, ...]  # the prizes bid on, in order
    dropped: int | None  # the prize never bid on (``twelve``), else None
    rounds: tuple[VariantRound, ...]
    points: tuple[Fraction, ...]  # per player, then the dummy's
    winner: int | None  # the real player with the most points; None on a tie for most


VariantBidder = Callable[[VariantPosition, int], int]


def play_variant(
    variant: Variant | str, n: int, bidders: list[VariantBidder], rng: random.Random
) -> VariantRecord:
    """Play a whole variant game.  ``rng`` shuffles the prizes and the dummy's suit."""
    if isinstance(variant, str):
        variant = get_variant(variant)
    if len(bidders) != variant.players:
        raise GopsInputError(f"{variant.name} needs {variant.players} bidders, got {len(bidders)}")
    pos = start(variant, n)
    order = list(range(1, pos.n + 1))
    rng.shuffle(order)
    dummy_order = list(range(1, pos.n + 1)) if variant.dummy else []
    rng.shuffle(dummy_order)
    played = order[: variant.rounds(pos.n)]
    rounds = []
    for r, prize in enumerate(played):
        pos = pos.turn_up(prize)
        bids = tuple(bidder(pos, p) for p, bidder in enumerate(bidders))
        # The dummy's card is turned only after every player has bid.
        pos, result = pos.play(bids, dummy_order[r] if variant.dummy else None)
        rounds.append(result)
    real = pos.points[: variant.players]
    best = max(real)
    leaders = [p for p, x in enumerate(real) if x == best]
    return VariantRecord(
        variant=variant.name,
        prize_order=tuple(played),
        dropped=order[-1] if variant.drop_last else None,
        rounds=tuple(rounds),
        points=pos.points,
        winner=leaders[0] if len(leaders) == 1 else None,
    )


@dataclass(frozen=True)
class DeclarationScore:
    """The score of one game under face-up declarations."""

    winner: int | None  # 0, 1, or None for a draw
    score: int  # what the winner scores for the game (0 for a draw)
    face_up_rounds: int  # rounds the declaring player bid face up (1 if nobody declared)


def declaration_score(
    record: GameRecord, declared: Mapping[int, int] | None = None
) -> DeclarationScore:
    """Score a finished two-player game under the write-up's face-up declarations.

    ``declared`` maps a player (0 or 1) to the round (1-based) from which that player made
    every bid face up.  The write-up: "the score for the game is then equal to the number of
    rounds in which that player's bids were face up", won by the winner of the game
    (including when the *other* player declared: "the other player will then get the
    increased score").  Our simple reading: the earliest declaration counts, so the score
    is ``rounds - r + 1`` for the earliest declared round r; with no declaration the score
    is 1 ("the last round's bids can always be made face up"); a drawn game scores 0.

    >>> from exact.game.rules import new_game, play_game
    >>> rec = play_game(3, lambda pos, p: max(pos.hands[p]), lambda pos, p: min(pos.hands[p]),
    ...                 random.Random(1))
    >>> declaration_score(rec, {1: 2})
    DeclarationScore(winner=0, score=2, face_up_rounds=2)
    """
    return score_declarations(len(record.rounds), record.winner, declared)


def score_declarations(
    rounds: int, winner: int | None, declared: Mapping[int, int] | None = None
) -> DeclarationScore:
    """:func:`declaration_score` of a game of ``rounds`` rounds won by ``winner`` (None:
    a draw)."""
    first = rounds
    for player, r in (declared or {}).items():
        if player not in (0, 1):
            raise GopsInputError(f"player must be 0 or 1, got {player!r}")
        if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= rounds:
            raise GopsInputError(f"declared round must be in 1..{rounds}, got {r!r}")
        first = min(first, r)
    face_up = rounds - first + 1
    if winner is None:
        return DeclarationScore(None, 0, face_up)
    return DeclarationScore(winner, face_up, face_up)
