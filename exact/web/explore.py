"""The answers of Explore and First move: a position's equilibrium (``/api/strategy``,
and ``/api/position`` with its payoff matrix, certificate, exact mix, ranges over all
optimal strategies and values before the upcard), a line of play stepped from a position
(``/api/line``) and the first-move table (``/api/table``).

``/api/strategy`` and ``/api/table`` return exactly what ``gops strategy --json`` and
``gops table --json`` print: both build them with :mod:`exact.views`.  An answer read
from a store carries the ``source`` of its values (:func:`exact.dp.verify.check_position`).
"""

from __future__ import annotations

import re

from exact.analysis.certified import certify_strategy
from exact.analysis.ranges import first_move_ranges, optimal_set_ranges, ranges_json
from exact.dp.verify import check_position
from exact.errors import GopsInputError
from exact.game.orders import RANDOM
from exact.game.rules import Position, parse_integer, prize_total
from exact.game.spec import GameSpec
from exact.views import certified_json, fraction_text, strategy_json, table_json
from exact.web.query import PositionQuery, flag, game_query, lead_handicap, param
from exact.web.solutions import EXACT_MAX_N, request_solution


def _head(game: GameSpec, lead):
    return {"objective": "win", "lead": lead} if game.has_lead else None


def _position(request, with_order: bool = False) -> tuple:
    """(the query's position, the solution that answers it: its games read the level of
    one prize fewer, the lowest level an answer about the position reads)."""
    q = PositionQuery.parse(request, with_order=with_order)
    return q, request_solution(request, q.game, lowest=len(q.deck) - 1)


def _with_source(out: dict, sol, mine, theirs, deck, upcards) -> dict:
    """An answer read from a store says so: the values its games read, re-derived here
    from the level below (exact.dp.verify.check_reads), and the levels taken as stored."""
    reads = check_position(sol, mine, theirs, deck, upcards)
    if reads is not None:
        out["source"] = reads.json() | {"text": reads.describe()}
    return out


def strategy(request) -> dict:
    """``/api/strategy``: what ``gops strategy --json`` prints, in any prize order."""
    q, sol = _position(request, with_order=True)
    m, t, d, u, lead = q.mine, q.theirs, q.deck, q.upcard, q.lead
    out = strategy_json(sol.strategy(m, t, d, u, lead), False, _head(q.game, lead))
    return _with_source(out, sol, m, t, d, [u])


def position(request) -> dict:
    """``/api/position``: the strategy, its payoff matrix, certificate, exact mix (small
    N), ranges over all optimal strategies and the values before the upcard."""
    q, sol = _position(request)
    game, m, t, d, u, lead = q.game, q.mine, q.theirs, q.deck, q.upcard, q.lead
    st = sol.strategy(m, t, d, u, lead)
    out = strategy_json(st, False, _head(game, lead))
    A = sol.matrix(m, t, d, u, lead)
    out["n"] = sol.n
    out["rows"], out["columns"] = sorted(m), sorted(t)
    out["matrix"] = [[float(a) for a in row] for row in A]
    certified = certify_strategy(sol, m, t, d, u, lead)
    out["certified"] = certified_json(certified, m, t)
    if "reason" in out["certified"]:
        out["certified"]["reason"] = name_cards(out["certified"]["reason"], m, t)
    ranged = A
    if sol.n <= EXACT_MAX_N and abs(lead or 0) <= prize_total(sol.n) - sum(d):
        # (solved in exact arithmetic for the real game only: no handicap)
        exact_sol = request_solution(request, game.replace(arithmetic="rational"))
        out["exact"] = _exact(exact_sol.strategy(m, t, d, u, lead))
        ranged = exact_sol.matrix(m, t, d, u, lead)
    out["ranges"] = position_ranges(ranged, m, t, exact_=ranged is not A)
    out["before_upcard"] = {  # f(V, Y, P) before the upcard, and f_u for each upcard
        "value": float(sol.value(m, t, d, lead)),
        "by_upcard": {str(c): float(v) for c, v in sol.prize_values(m, t, d, lead).items()},
    }
    return _with_source(out, sol, m, t, d, [u])


def position_ranges(A, mine, theirs, exact_: bool) -> dict:
    """The range of each probability over ALL optimal strategies of both players
    (:func:`exact.analysis.ranges.optimal_set_ranges`: the column player's are the row
    player's of -A^T), {"mine": {card: [lo, hi]}, "theirs": ..., "unique": {...},
    "exact": whether found in rationals (else float LPs, a range of width <= 1e-6 a
    point)}; the ends as floats.

    >>> r = position_ranges([[2, 0, 5], [0, 2, 5], [1, 1, 5]], {1, 2, 3}, {1, 2, 3}, True)
    >>> r["mine"], r["unique"]
    ({'1': [0.0, 0.5], '2': [0.0, 0.5], '3': [0.0, 1.0]}, {'mine': False, 'theirs': True})
    """
    how = "rational" if exact_ else "float"
    rows = [list(row) for row in A]
    cols = [[-row[j] for row in rows] for j in range(len(rows))]
    out: dict = {"exact": exact_, "unique": {}}
    for who, matrix, hand in (("mine", rows, mine), ("theirs", cols, theirs)):
        ranges = optimal_set_ranges(matrix, how)
        out[who] = {str(c): [float(r.lo), float(r.hi)] for c, r in zip(sorted(hand), ranges)}
        out["unique"][who] = all(r.unique for r in ranges)
    return out


def line_steps(text: str) -> list[tuple[int, int, int]]:
    """The rounds of a ``line`` query "u:b-t,...": (upcard, my bid, their bid) each.

    >>> line_steps("5:3-4,2:1-1")
    [(5, 3, 4), (2, 1, 1)]
    """
    rounds: list[tuple[int, int, int]] = []
    for i, step in enumerate(filter(None, text.split(","))):
        try:
            up, bids = step.split(":")
            bid, theirs_bid = bids.split("-")
        except ValueError:
            raise GopsInputError(
                f"step {i + 1} of the line is {step!r}, not upcard:mine-theirs (5:3-4)"
            ) from None
        rounds.append(
            (
                parse_integer(up, f"step {i + 1}'s upcard"),
                parse_integer(bid, f"step {i + 1}'s bid"),
                parse_integer(theirs_bid, f"step {i + 1}'s their bid"),
            )
        )
    return rounds


def line(request) -> dict:
    """A line of play from a position before its upcard (n, mine, theirs, deck, lead):
    ``line`` = "u:b-t,...", each round's upcard, my bid and theirs, played by the rules
    (:class:`exact.game.rules.Position`); the rounds scored, the position reached, its
    value before the next upcard and its value once each prize the order can turn up is
    up (``by_upcard``); ``over`` once no card is left."""
    q = PositionQuery.parse(request, upcard=False)
    game, lead, m, t, d = q.game, q.lead, q.mine, q.theirs, q.deck
    rounds = line_steps(param(request, "line", required=False) or "")
    start = lead or 0
    pos = Position._unchecked((m, t), d, None, (max(start, 0), max(-start, 0)), game.n)
    steps = []
    names = {0: "me", 1: "them", None: "nobody"}
    for i, (u, b, c) in enumerate(rounds):
        try:
            pos, result = pos.turn_up(u).play(b, c)
        except GopsInputError as exc:
            raise GopsInputError(f"step {i + 1} of the line: {exc}") from None
        steps.append(
            {"prize": u, "mine": b, "theirs": c, "winner": names[result.winner]}
            | ({"lead": pos.lead} if game.has_lead else {})
        )
    mine, theirs, deck = pos.hands[0], pos.hands[1], pos.deck
    # the values of the position reached read its level and the one below; an end reads none
    sol = request_solution(request, game, lowest=len(deck) - 1 if deck else game.n)
    now = pos.lead if game.has_lead else None
    out: dict[str, object] = {
        "steps": steps,
        "mine": sorted(mine),
        "theirs": sorted(theirs),
        "deck": sorted(deck),
        **({"lead": now} if game.has_lead else {}),
        "over": pos.is_terminal,
        "points": [pos.points[0] - max(start, 0), pos.points[1] - max(-start, 0)],
    }
    if not pos.is_terminal:
        out["value"] = float(sol.value(mine, theirs, deck, now))
        out["by_upcard"] = {
            str(u): float(v) for u, v in sol.prize_values(mine, theirs, deck, now).items()
        }
    return out


def name_cards(reason: str, mine, theirs) -> str:
    """The certificate's reason with its rows and columns named by their cards.

    >>> name_cards("column 2 is (nearly) a best reply too: a near-tie", {1, 2}, {1, 3, 4})
    'their bid 3 is (nearly) a best reply too: a near-tie'
    """
    cards = {"row": sorted(mine), "column": sorted(theirs)}
    who = {"row": "my bid", "column": "their bid"}

    def named(match):
        kind, i = match.group(1), int(match.group(2))
        line = cards[kind]
        return f"{who[kind]} {line[i - 1]}" if 1 <= i <= len(line) else match.group(0)

    return re.sub(r"\b(row|column) (\d+)\b", named, reason)


def _exact(st) -> dict:
    """An exact equilibrium as "p/q" strings with their digit counts."""
    mine = {str(c): fraction_text(p) for c, p in st.mine.items()}
    theirs = {str(c): fraction_text(p) for c, p in st.theirs.items()}
    return {
        "value": fraction_text(st.value),
        "mine": mine,
        "theirs": theirs,
        "digits": max(len(text) for text in [*mine.values(), *theirs.values()]),
    }


def table(request) -> dict:
    """``/api/table``: what ``gops table --json [--certified] [--ranges]`` prints, in any
    prize order (a known order: the columns of the first prize it can turn up; one that a
    player chooses: each first prize's value too, ``prize_values``)."""
    game, lead = game_query(request, with_order=True)
    n = game.n
    solved = game.replace(handicap=lead_handicap(n, lead, "--lead"))
    sol = request_solution(request, solved, lowest=n - 1)  # the first move reads level N - 1
    root = set(range(1, n + 1))
    strategies = {u: sol.strategy(root, root, root, u, lead) for u in sol.order.next_prizes(root)}
    gap = max(s.gap for s in strategies.values())
    certified = None
    if flag(request, "certified"):  # as gops table --certified: each column proved
        certified = {u: certify_strategy(sol, root, root, root, u, lead) for u in strategies}
    out = table_json(
        n,
        sol.objective.name,
        lead if game.has_lead else None,
        {u: s.mine for u, s in strategies.items()},
        gap,
        ranges=_table_ranges(request, game, sol) if flag(request, "ranges") else None,
        certified=certified,
    )
    if game.order is not RANDOM:
        out["order"] = game.order.name
    if sol.order.chooser:
        out["prize_values"] = {str(u): s.value for u, s in strategies.items()}
    if "ranges" in out:
        out["ranges_exact"] = n <= EXACT_MAX_N
    return _with_source(out, sol, root, root, root, list(strategies))


def _table_ranges(request, game: GameSpec, sol) -> dict:
    """The ``ranges`` of ``gops table --ranges --json``: each first-move probability's
    range over all optimal strategies (exact.analysis.ranges; exact arithmetic up to
    EXACT_MAX_N, float LPs beyond, as on Explore), for the points objective and the random
    order, with the CLI's one-line refusals otherwise."""
    if game.has_lead:
        raise GopsInputError("--ranges applies to the points objective only")
    if game.order is not RANDOM:
        raise GopsInputError("--ranges covers the random prize order only")
    if game.n <= EXACT_MAX_N:
        sol = request_solution(request, game.replace(arithmetic="rational"))
    return ranges_json(first_move_ranges(sol))
