"""Check an imperfect-information certificate (FORMAT.md, "Imperfect-information
certificates"): read it once, then prove its value by LP duality.

Algorithm notes
---------------
1. The header names the game by OpenSpiel's parameters; the checker builds that game's
   decisions and its sequence form from the rules (:mod:`.rules`), never from the file.
2. Each player's section lists every decision of that player exactly once, by its
   information-state string, with the integer weights of its bids over the section's
   common denominator D: the realization plan x (Koller, Megiddo & von Stengel 1996)
   with x(empty) = 1.  Unknown, missing and repeated decisions are rejected.
3. Each plan must be a realization plan: every weight >= 0 and, at every decision, the
   weights of its bids sum to the weight of the sequence leading to it (D for a first
   decision).
4. Duality: player 1's best response to x gives player 0 at least min_y x^T A y, player
   0's best response to y at most max_x x^T A y.  Since min_y' x^T A y' <= x^T A y <=
   max_x' x'^T A y, both equal to the stated value v prove that v is the value of the
   game and that x and y are equilibrium plans (zero duality gap).

Everything is integer arithmetic (A scaled by 2 N!, plans by D), so no check rounds.
Sizes are bounded by the header (N, FORMAT.md's MAX_N) and by every Integer's bit
length (MAX_INTEGER_BITS), checked as each is read.  Exit codes as for every
certificate: shapes, types and limits are :class:`UnreadableCertificate` (2); a
well-formed file whose content fails a check is :class:`InvalidCertificate` (1).
"""

from __future__ import annotations

from typing import NamedTuple

from gmpy2 import mpq, mpz

from ..decoding import array, integer, keyed_map, rational, small_int, string
from ..errors import InvalidCertificate, UnreadableCertificate
from ..stream import ObjectStream
from ..text import brief, format_rational, int_text
from .rules import Player, SequenceForm, best_response, sequence_form
from .spec import (
    FOOTER_KEYS,
    HEADER_KEYS,
    MAX_INTEGER_BITS,
    MAX_N,
    ORDERS,
    RETURNS_TYPES,
    SECTION_KEYS,
    VERSION,
)


class ImperfectSummary(NamedTuple):
    """What a valid imperfect-information certificate proves."""

    n: int
    order: str
    returns_type: str
    value: mpq
    decisions: tuple[int, int]

    @property
    def message(self) -> str:
        return (
            f"valid: imperfect-information goofspiel N={self.n} ({self.order} order, "
            f"{self.returns_type}), value {format_rational(self.value)} to player 0, "
            f"zero duality gap ({self.decisions[0]} + {self.decisions[1]} information states)"
        )


class Header(NamedTuple):
    n: int
    order: str
    returns_type: str
    value: tuple  # (numerator, denominator > 0)


def bounded(obj, where: str) -> mpz:
    """An Integer of at most MAX_INTEGER_BITS bits (FORMAT.md); beyond it, exit 2."""
    a = integer(obj, where)
    if a.bit_length() > MAX_INTEGER_BITS:
        raise UnreadableCertificate(
            f"{where}: an Integer of {a.bit_length()} bits, beyond the limit of "
            f"{MAX_INTEGER_BITS} bits"
        )
    return a


def _choice(obj, where: str, allowed: tuple[str, ...]) -> str:
    text = string(obj, where)
    if text not in allowed:
        raise UnreadableCertificate(f"{where} {brief(text)} is not one of {', '.join(allowed)}")
    return text


def read_header(obj) -> Header:
    """FORMAT.md, object 1 (its magic already recognised)."""
    if type(obj.get("version")) is not int or obj.get("version") != VERSION:
        raise UnreadableCertificate(
            f"unsupported version {brief(obj.get('version'))}, expected {VERSION}"
        )
    header = keyed_map(obj, "header", HEADER_KEYS)
    if header["imp_info"] is not True:
        raise UnreadableCertificate(
            f"header imp_info is {brief(header['imp_info'])}, expected true"
        )
    order = _choice(header["points_order"], "header points_order", ORDERS)
    returns_type = _choice(header["returns_type"], "header returns_type", RETURNS_TYPES)
    n = small_int(header["num_cards"], "header num_cards")
    if not 1 <= n <= MAX_N[order]:
        raise UnreadableCertificate(
            f"header num_cards = {n} is outside 1..{MAX_N[order]} for the {order} order"
        )
    value = rational(header["value"], "header value")
    for part in value:
        if part.bit_length() > MAX_INTEGER_BITS:
            raise UnreadableCertificate(
                f"header value: an Integer of {part.bit_length()} bits, beyond the limit "
                f"of {MAX_INTEGER_BITS} bits"
            )
    return Header(n, order, returns_type, (value.num, value.den))


def read_section_header(obj, player: int, decisions: int) -> mpz:
    """FORMAT.md, object 2: ``{"player", "decisions", "denominator"}``; returns D."""
    if type(obj) is dict and "end" in obj:
        raise InvalidCertificate(f"footer found where player {player}'s plan was expected")
    if type(obj) is list and player == 1:
        raise InvalidCertificate("player 0's plan has more information states than declared")
    section = keyed_map(obj, f"player {player}'s section header", SECTION_KEYS)
    where = f"player {player}'s section header"
    found = small_int(section["player"], f"{where} player")
    if found != player:
        raise InvalidCertificate(f"player {found}'s plan found where player {player}'s belongs")
    declared = small_int(section["decisions"], f"{where} decisions")
    if declared != decisions:
        raise InvalidCertificate(
            f"player {player}'s plan declares {declared} information states; the game has "
            f"{decisions}"
        )
    d = bounded(section["denominator"], f"{where} denominator")
    if d <= 0:
        raise InvalidCertificate(f"{where}: denominator {int_text(d)} is not positive")
    return d


def read_record(obj, player: int, who: Player, plan: list, seen: set) -> None:
    """One ``[string, actions, weights]``: a decision of ``player`` not seen before, its
    legal actions in increasing order, nonnegative weights, stored into ``plan``."""
    fields = array(obj, f"player {player}'s record", 3)
    text = string(fields[0], f"player {player}'s information state")
    d = who.by_string.get(text)
    shown = repr(text)
    if d is None:
        raise InvalidCertificate(
            f"player {player}: {shown} is not an information state of player {player} in this game"
        )
    where = f"player {player}, information state {shown}"
    if d in seen:
        raise InvalidCertificate(f"{where}: listed twice")
    seen.add(d)
    decision = who.decisions[d]
    actions = [small_int(a, f"{where}: action") for a in array(fields[1], f"{where}: actions")]
    legal = [c - 1 for c in decision.cards]
    if actions != legal:
        raise InvalidCertificate(
            f"{where}: actions {actions} are not the legal actions {legal} in increasing order"
        )
    weights = array(fields[2], f"{where}: weights", len(legal))
    for j, obj_w in enumerate(weights):
        w = bounded(obj_w, f"{where}: weight of action {legal[j]}")
        if w < 0:
            raise InvalidCertificate(
                f"{where}: weight of action {legal[j]} is negative ({int_text(w)})"
            )
        plan[decision.first + j] = w


def read_plan(stream: ObjectStream, player: int, who: Player) -> tuple[list, mpz]:
    """Player ``player``'s section: the plan's numerators (index 0, the empty sequence,
    is D) and D."""
    d = read_section_header(
        stream.next(f"player {player}'s section header"), player, len(who.decisions)
    )
    plan: list = [None] * who.sequences
    plan[0] = d
    seen: set = set()
    for r in range(len(who.decisions)):
        obj = stream.next(f"player {player}'s record {r + 1} of {len(who.decisions)}")
        if type(obj) is dict:
            raise InvalidCertificate(
                f"player {player}'s plan has {r} information states, its header declares "
                f"{len(who.decisions)}"
            )
        read_record(obj, player, who, plan, seen)
    return plan, d


def check_realization_plan(player: int, who: Player, plan: list) -> None:
    """Step 3: at every decision the weights of its bids sum to its parent sequence's."""
    for decision in who.decisions:
        first, k = decision.first, len(decision.cards)
        total = sum(plan[first : first + k], mpz(0))
        if total != plan[decision.parent]:
            raise InvalidCertificate(
                f"player {player}'s plan is not a realization plan: at {decision.string!r} "
                f"its bids weigh {format_rational((total, plan[0]))} in all, the sequence "
                f"leading there {format_rational((plan[decision.parent], plan[0]))}"
            )


def check_duality(form: SequenceForm, plans, header: Header) -> None:
    """Step 4: both best responses equal the stated value (exact integers)."""
    (x, dx), (y, dy) = plans
    guaranteed = best_response(form, 1, x)  # / (scale * dx): what x guarantees player 0
    conceded = best_response(form, 0, y)  # / (scale * dy): the most y concedes
    low = (mpz(guaranteed), mpz(form.scale) * dx)
    high = (mpz(conceded), mpz(form.scale) * dy)
    if low[0] * high[1] != high[0] * low[1]:
        raise InvalidCertificate(
            f"duality gap: player 0's plan guarantees {format_rational(low)}, player 1's "
            f"plan concedes up to {format_rational(high)}, so the plans are not an equilibrium"
        )
    p, q = header.value
    if low[0] * q != p * low[1]:
        raise InvalidCertificate(
            f"the stated value {format_rational(header.value)} is not the value "
            f"{format_rational(low)} that both plans prove"
        )


def check_footer(obj, total: int) -> None:
    """FORMAT.md, object 3: ``{"end": true, "decisions": D_0 + D_1}``."""
    if type(obj) is list:
        raise InvalidCertificate("player 1's plan has more information states than declared")
    footer = keyed_map(obj, "footer", FOOTER_KEYS)
    if footer["end"] is not True:
        raise UnreadableCertificate(f"footer end is {brief(footer['end'])}, expected true")
    count = small_int(footer["decisions"], "footer decisions")
    if count != total:
        raise InvalidCertificate(f"footer counts {count} information states, the file has {total}")


def verify_imperfect_stream(header_obj: dict, stream: ObjectStream) -> ImperfectSummary:
    """Check the rest of an imperfect-information certificate whose header (its magic
    already recognised) is ``header_obj``; return what it proves or raise a
    CertificateError."""
    header = read_header(header_obj)
    form = sequence_form(header.n, header.order, header.returns_type)
    plans = []
    for player in (0, 1):
        who = form.players[player]
        plan, d = read_plan(stream, player, who)
        plans.append((plan, d))
    counts = (len(form.players[0].decisions), len(form.players[1].decisions))
    check_footer(stream.next("the footer"), sum(counts))
    stream.expect_end()
    for player in (0, 1):
        check_realization_plan(player, form.players[player], plans[player][0])
    check_duality(form, plans, header)
    value = mpq(*header.value)
    return ImperfectSummary(header.n, header.order, header.returns_type, value, counts)
