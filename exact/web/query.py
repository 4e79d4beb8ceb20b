"""The query of an API request, parsed and checked into typed objects: the game asked
about (a :class:`~exact.game.spec.GameSpec` and the query's lead), a position
(:class:`PositionQuery`), on/off flags, card lists and a game's variant.

Every name is parsed here once, with the command line's parsers
(:mod:`exact.game.rules`, :meth:`GameSpec.parse`), so that bad input is the one-line
GopsInputError the CLI prints (HTTP 400); nothing below this module reads
``request.query_params``.
"""

from __future__ import annotations

from dataclasses import dataclass

from exact.dp.solve import check_lead
from exact.dp.variant_solver import check_variant_options
from exact.errors import GopsInputError
from exact.game.rules import parse_cards, parse_integer, validate_position
from exact.game.spec import GameSpec
from exact.limits import ENCODING_MAX_N, check_n
from exact.play.engine import check_setup
from exact.views import position_handicap

#: The two-player variants Play offers (``gops play --variant``).
PLAY_VARIANTS = ("standard", "twelve", "dummy")


def param(request, name: str, required: bool = True) -> str | None:
    """The query's ``name`` (None if absent and not ``required``)."""
    value = request.query_params.get(name)
    if value is None and required:
        raise GopsInputError(f"missing query parameter {name!r}")
    return value


def integer(request, name: str, required: bool = True) -> int | None:
    """The query's integer ``name`` (None if absent and not ``required``)."""
    value = param(request, name, required)
    return None if value is None else parse_integer(value, name)


def required_integer(request, name: str) -> int:
    value = integer(request, name)
    assert value is not None  # required
    return value


def flag(request, name: str) -> bool:
    """An on/off query parameter: absent, 0 or false is off; 1 or true is on."""
    value = request.query_params.get(name, "0").lower()
    if value not in ("0", "1", "false", "true"):
        raise GopsInputError(f"{name} must be 1 or 0 (true or false), got {value!r}")
    return value in ("1", "true")


def cards(request, name: str, required: bool = True) -> tuple[int, ...]:
    """A list of cards "1,3,5" (absent and not ``required``: none)."""
    return parse_cards(param(request, name, required) or "")


def game_query(request, game: bool = False) -> tuple[GameSpec, int | None]:
    """The one parser of the game a query asks about: a GameSpec of ``n`` (1..16; what
    is solved on the fly is :class:`exact.web.solutions.Solutions`' business),
    ``objective`` (points by default) and, for the endpoints of a ``game`` against the
    computer, ``order`` (random by default; the other endpoints answer the random order),
    with the query's lead: 0 by default for the win objective, None for points (a
    ``lead`` there is refused; a game's lead is your head start).  One-line
    GopsInputError otherwise."""
    params = request.query_params
    n = check_n(integer(request, "n"), ENCODING_MAX_N)
    spec = GameSpec.parse(
        n, params.get("objective", "points"), params.get("order", "random") if game else "random"
    )
    lead = integer(request, "lead", required=False)
    if lead is not None and not spec.has_lead:
        raise GopsInputError("--lead applies to --objective win only")
    return spec, (0 if spec.has_lead and lead is None else lead)


def lead_handicap(n: int, lead: int | None, what: str = "the lead") -> int:
    """The handicap a game started ``lead`` points ahead (or behind) is solved for (a
    lead out of range: the one-line error naming it ``what``)."""
    return abs(check_lead(n, lead, what)) if lead else 0


@dataclass(frozen=True)
class PositionQuery:
    """A position asked about (``mine``, ``theirs``, ``deck``, the ``upcard`` if one is
    turned up), checked by the rules, and ``game``: the game whose solution answers it
    (a win game with the handicap its lead needs, :func:`exact.views.position_handicap`).
    """

    game: GameSpec
    lead: int | None
    mine: frozenset[int]
    theirs: frozenset[int]
    deck: frozenset[int]
    upcard: int | None

    @classmethod
    def parse(cls, request, upcard: bool = True) -> PositionQuery:
        game, lead = game_query(request)
        mine, theirs, deck = (cards(request, name) for name in ("mine", "theirs", "deck"))
        up = integer(request, "upcard") if upcard else None
        m, t, d = validate_position(mine, theirs, deck, up, n=game.n)
        if lead:
            check_lead(game.n, lead, "the lead")
            game = game.replace(handicap=position_handicap(game.n, lead, d))
        return cls(game, lead, m, t, d, up)


def variant_name(request) -> str:
    """The query's ``variant`` (standard by default), one of PLAY_VARIANTS."""
    variant = request.query_params.get("variant", "standard")
    if variant not in PLAY_VARIANTS:
        raise GopsInputError(
            f"unknown variant {variant!r}: Play offers " + ", ".join(PLAY_VARIANTS)
        )
    return variant


def game_variant(request, game: GameSpec) -> str:
    """The ``variant`` of a game query (PLAY_VARIANTS; standard by default), checked with
    its game as ``gops play --variant`` checks it: the variants are solved for points in
    the random order (so no lead; the same one-line messages), N within the variant
    solver's limit (its own message: the web app does not import the command line)."""
    variant = variant_name(request)
    if variant != "standard":
        check_setup(variant, game.order.name, game.objective)
        if game.objective != "points":
            raise GopsInputError(f"the {variant} variant is solved for points only")
        check_variant_options(variant, game.n, "float")  # the solver's own limit on N
    return variant
