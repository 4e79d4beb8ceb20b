"""The face-up declarations game: its rules, as we read the "Psychological JuJitsu" write-up.

The write-up ("another way to score"): "On any round, a player can declare that he is going
to make this bid and all subsequent bids face-up, showing his bid before the opponent
chooses his bid.  The score for the game is then equal to the number of rounds in which
that player's bids were face up. ... the last round's bids can always be made face up ...
if you make a mistake and realise too late that your face up bids will let the other
player win, you can't stop! You must make all your remaining bids face up, and the other
player will then get the increased score for the game."

Our rules (two players, N cards each, N prizes turned up in uniformly random order, a tied
bid discards the prize, as :mod:`exact.game.rules`):

1. *Who wins.*  The player with more prize points at the end; equal points are a draw.
2. *The score.*  If the earliest declaration was made in round r (1-based), the game is
   worth s = N - r + 1 (the rounds from r on, all face up); with no declaration it is
   worth 1 (the last round is always face up).  The winner scores s, whoever declared
   (the write-up's "the other player will then get the increased score"); a draw scores
   nothing.  This is :func:`exact.game.variants.score_declarations`.
3. *The objective.*  Zero-sum: player 0 receives +s when it wins, -s when it loses, 0 on
   a draw; each player maximises its expected score minus the opponent's.
4. *A round in which nobody has declared.*  The prize is turned up; then both players say
   at the same time whether they declare, and both hear the answers; then they bid:
   - neither declared: sealed bids, as in GOPS;
   - one declared: the declarer lays its bid face up, the other sees it and bids;
   - both declared in the same round (the write-up is silent): both bids are laid face
     up at the same moment, so neither sees the other's before bidding.
   Declaring in the last round changes nothing (one card each, the score is 1 either
   way), so declarations are choices of rounds 1..N-1 only.
5. *Once declared.*  The declarer stays face up for the rest of the game: every later
   round it bids first and the other replies having seen its bid.  A later declaration by
   the other player changes neither the score (the earliest counts) nor what anyone sees
   (the first declarer already bids before it), so it is not a move.  After a
   declaration in the same round by both, every later round is a simultaneous one.

So once the score s is fixed, what is left is the win/loss game (payoff sign of the final
point difference) times s, in one of three forms: player 0 leads, player 1 leads, or
simultaneous (both declared).

Canonical states.  A round's result depends on the bids only through their order, so a
position is the *pattern* of the two hands (bit i of ``mine``/``theirs``: the hand holds
the i-th smallest card of their union; a position in both is a value both hold), the set
of prizes left (a bit mask over the values 1..N) and the point difference d so far.  A
position with |d| > sum of the prizes left is decided.
"""

from __future__ import annotations

from dataclasses import dataclass

from exact.errors import GopsInputError

__all__ = [
    "Position",
    "bit_positions",
    "child",
    "compress",
    "decided_sign",
    "full_position",
    "position_of",
    "prize_total",
    "sign",
]


def sign(d: int) -> int:
    """-1, 0 or 1."""
    return (d > 0) - (d < 0)


def bit_positions(mask: int) -> list[int]:
    """The set bits of ``mask``, increasing (card positions, or prize values - 1)."""
    out = []
    i = 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return out


def prize_total(prizes: int) -> int:
    """The sum of the prize values in the mask (bit c - 1 for prize c)."""
    return sum(i + 1 for i in bit_positions(prizes))


def compress(mine: int, theirs: int) -> tuple[int, int]:
    """The pattern of two hands given as masks over positions: positions that neither
    hand holds are dropped, the others renumbered from 0 in order.

    >>> compress(0b101, 0b100)
    (3, 2)
    """
    out_m = out_t = 0
    j = 0
    union = mine | theirs
    i = 0
    while union >> i:
        if union >> i & 1:
            out_m |= (mine >> i & 1) << j
            out_t |= (theirs >> i & 1) << j
            j += 1
        i += 1
    return out_m, out_t


@dataclass(frozen=True, order=True)
class Position:
    """A canonical position at the start of a round (before the prize is turned up).

    ``mine``/``theirs``: the hands' pattern (player 0, player 1); ``prizes``: the prizes
    left (bit c - 1 for prize c); ``lead``: player 0's points minus player 1's so far.
    """

    mine: int
    theirs: int
    prizes: int
    lead: int

    @property
    def cards(self) -> int:
        """Cards left in each hand (= prizes left = rounds left)."""
        return self.prizes.bit_count()

    def key(self) -> tuple[int, int, int, int]:
        return (self.mine, self.theirs, self.prizes, self.lead)


def full_position(n: int) -> Position:
    """The start of the N-card game: both hands 1..N (the same pattern), every prize."""
    full = (1 << n) - 1
    return Position(full, full, full, 0)


def position_of(mine, theirs, prizes, lead: int = 0) -> Position:
    """The canonical position of hands and prizes given as card values (lead: player 0's
    points minus player 1's).

    >>> position_of({7, 8}, {5, 7}, {4, 6}, -4)
    Position(mine=6, theirs=3, prizes=40, lead=-4)
    """
    mine, theirs, prizes = set(mine), set(theirs), set(prizes)
    if not (len(mine) == len(theirs) == len(prizes)) or min(mine | theirs | prizes, default=1) < 1:
        raise GopsInputError("hands and prizes must have as many cards each, values 1 and up")
    order = sorted(mine | theirs)
    m = sum(1 << order.index(c) for c in mine)
    t = sum(1 << order.index(c) for c in theirs)
    return Position(m, t, sum(1 << (c - 1) for c in prizes), int(lead))


def child(pos: Position, upcard: int, i: int, j: int) -> Position:
    """The position after the prize ``upcard`` (a value) was bid on with player 0's card at
    pattern position ``i`` and player 1's at ``j``: the higher position wins the prize,
    equal positions (the same value) discard it."""
    lead = pos.lead + (upcard if i > j else -upcard if i < j else 0)
    mine, theirs = compress(pos.mine & ~(1 << i), pos.theirs & ~(1 << j))
    return Position(mine, theirs, pos.prizes & ~(1 << (upcard - 1)), lead)


def decided_sign(pos: Position) -> int | None:
    """sign(final point difference) if it is already certain (no prize left, or a lead
    larger than every prize left together), else None."""
    if abs(pos.lead) > prize_total(pos.prizes) or pos.prizes == 0:
        return sign(pos.lead)
    return None
