"""The query of an API request, parsed and checked into typed objects: the game asked
about (a :class:`~exact.game.spec.GameSpec` and the query's lead), a position
(:class:`PositionQuery`), on/off flags, card lists and a game's variant.

Every name is parsed here once, with the command line's parsers
(:mod:`exact.game.rules`, :meth:`GameSpec.parse`), so that bad input is the one-line
GopsInputError the CLI prints (HTTP 400); nothing below this module reads
``request.query_params``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from exact.dp.solve import check_lead
from exact.dp.variant_solver import check_variant_options
from exact.errors import GopsInputError
from exact.game.objectives import POINTS
from exact.game.rules import parse_cards, parse_integer, validate_position
from exact.game.spec import GameSpec
from exact.game.variants import STANDARD, Variant, get_variant
from exact.limits import ENCODING_MAX_N, check_n
from exact.play.engine import check_setup

#: The two-player variants Play offers (``gops play --variant``).
PLAY_VARIANTS = ("standard", "twelve", "dummy")
_PLAYED = {name: get_variant(name) for name in PLAY_VARIANTS}

_POSITION = ("n", "mine", "theirs", "deck", "upcard", "objective", "lead")
_GAME = (
    "n",
    "objective",
    "lead",
    "order",
    "seed",
    "variant",
    "bids",
    "prizes",
    "declarations",
    "declared",
    "declares",
)
#: The query parameters each endpoint takes: any other, or one given twice, is refused
#: (:func:`check_parameters`) rather than ignored.
PARAMETERS: dict[str, tuple[str, ...]] = {
    "/api/info": (),
    "/api/progress": (),
    "/api/cancel": ("n", "objective", "order", "variant"),
    "/api/nashconv": ("n", "order", "objective", "fill_uniform"),
    "/api/strategy": (*_POSITION, "order"),
    "/api/position": _POSITION,
    "/api/line": ("n", "mine", "theirs", "deck", "objective", "lead", "line"),
    "/api/table": ("n", "objective", "lead", "order", "certified", "ranges"),
    "/api/game/new": _GAME,
    "/api/game/bid": (*_GAME, "bid", "declare"),
    "/api/game/prize": (*_GAME, "prize"),
    "/api/game/declare": (*_GAME, "declare"),
}


def check_parameters(request, path: str) -> None:
    """A one-line GopsInputError for a query parameter that ``path`` does not take
    (:data:`PARAMETERS`) or that is given more than once (the command line would take
    the last one silently; a query that says two things is refused).

    >>> class Query:
    ...     def __init__(self, *items):
    ...         self.query_params = type("P", (), {"multi_items": lambda self: list(items)})()
    >>> check_parameters(Query(("n", "5"), ("variant", "twelve")), "/api/table")
    ... # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: no such query parameter 'variant' (/api/table takes n,
    objective, lead, order, certified, ranges)
    >>> check_parameters(Query(("n", "5"), ("n", "6")), "/api/table")
    Traceback (most recent call last):
    ...
    exact.errors.GopsInputError: query parameter 'n' is given 2 times: give it once
    """
    takes = PARAMETERS[path]
    for name, times in Counter(name for name, _ in request.query_params.multi_items()).items():
        if name not in takes:
            raise GopsInputError(
                f"no such query parameter {name!r} ({path} takes {', '.join(takes) or 'none'})"
            )
        if times > 1:
            raise GopsInputError(f"query parameter {name!r} is given {times} times: give it once")


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


def game_query(request, with_order: bool = False) -> tuple[GameSpec, int | None]:
    """The one parser of the game a query asks about: a GameSpec of ``n`` (1..16; what
    is solved on the fly is :class:`exact.web.solutions.Solutions`' business),
    ``objective`` (points by default) and, ``with_order`` (the endpoints that take it),
    ``order`` (random by default; the other endpoints answer the random order),
    with the query's lead: 0 by default for the win objective, None for points (a
    ``lead`` there is refused; a game's lead is your head start).  One-line
    GopsInputError otherwise."""
    params = request.query_params
    n = check_n(integer(request, "n"), ENCODING_MAX_N)
    spec = GameSpec.parse(
        n,
        params.get("objective", "points"),
        params.get("order", "random") if with_order else "random",
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
    (a win game with the handicap its lead needs,
    :meth:`exact.game.objectives.GameObjective.position_handicap`).
    """

    game: GameSpec
    lead: int | None
    mine: frozenset[int]
    theirs: frozenset[int]
    deck: frozenset[int]
    upcard: int | None

    @classmethod
    def parse(cls, request, upcard: bool = True, with_order: bool = False) -> PositionQuery:
        """The position of the query (``upcard``: one is turned up; ``with_order``: the
        query may name the prize order)."""
        game, lead = game_query(request, with_order)
        mine, theirs, deck = (cards(request, name) for name in ("mine", "theirs", "deck"))
        up = integer(request, "upcard") if upcard else None
        m, t, d = validate_position(mine, theirs, deck, up, n=game.n)
        if lead:
            check_lead(game.n, lead, "the lead")
            game = game.replace(handicap=game.objective.position_handicap(game.n, lead, d))
        return cls(game, lead, m, t, d, up)


def query_variant(request) -> Variant:
    """The query's ``variant`` (standard by default), one of PLAY_VARIANTS, parsed here
    once into its Variant."""
    variant = request.query_params.get("variant", "standard")
    rules = _PLAYED.get(variant)
    if rules is None:
        raise GopsInputError(
            f"unknown variant {variant!r}: Play offers " + ", ".join(PLAY_VARIANTS)
        )
    return rules


def game_variant(request, game: GameSpec) -> Variant:
    """The ``variant`` of a game query (PLAY_VARIANTS; standard by default), checked with
    its game as ``gops play --variant`` checks it: the variants are solved for points in
    the random order (so no lead; the same one-line messages), N within the variant
    solver's limit (its own message: the web app does not import the command line)."""
    variant = query_variant(request)
    if variant is not STANDARD:
        check_setup(variant, game.order, game.objective)
        if game.objective is not POINTS:
            raise GopsInputError(f"the {variant.name} variant is solved for points only")
        check_variant_options(variant, game.n, "float")  # the solver's own limit on N
    return variant
