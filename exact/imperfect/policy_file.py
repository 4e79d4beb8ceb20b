"""The policy file of imperfect-information Goofspiel: read in bounded time and memory,
checked, and put straight into the tables of :mod:`exact.imperfect.tables`.

The file is a JSON object {information-state string: {action id: probability}}: the
strings are those of OpenSpiel's turn-based ``goofspiel(imp_info=True)`` (each
decision's, both players'), an action id is a card minus one written as a JSON string,
and a probability is a JSON number (a float, taken at its exact binary value) or a string
(exact: ``"p/q"``, an integer, or a decimal such as ``"0.25"`` or ``"1e-3"``).

Reading bounds what a hostile file can cost, before any of it is used (each a one-line
GopsInputError): at most :data:`MAX_FILE_BYTES`; no key twice in one object (JSON keeps
the last, silently); a JSON number of at most :data:`MAX_NUMBER_CHARS` characters; an
exact string of at most :data:`MAX_EXACT_DIGITS` digits and an exponent of at most
:data:`MAX_EXPONENT`; nesting deeper than JSON's decoder allows is refused, not a crash.

Then the content, as :mod:`exact.imperfect.policy` states it: a string that is not a
decision of this game, an action that is not a legal bid there, a negative or
non-finite probability, probabilities that do not sum to 1 (exactly when every one of a
decision is exact, within :data:`~exact.imperfect.policy.PROBABILITY_TOLERANCE`
otherwise), and a decision the file does not cover (unless ``fill_uniform``).

A state string is parsed, not looked up: its fields are read by one regular expression
and each must be what the game writes there (the hand the complement of the bids, the
prizes those of the order, the points those the winners scored, every number written as
OpenSpiel writes it), and its row must be one some play reaches
(:func:`~exact.imperfect.tables.reachable_rows`).  So a string is accepted exactly when
it is one of the game's, without listing the game's strings.
"""

from __future__ import annotations

import json
import math
import os
import re
from fractions import Fraction
from typing import NoReturn

import numpy as np

from exact.errors import GopsInputError
from exact.game.orders import RANDOM
from exact.imperfect.game import IMP_INFO, TIE, ImperfectGame, InfoKey
from exact.imperfect.policy import (
    PROBABILITY_TOLERANCE,
    Distribution,
    Policy,
    uniform_distribution,
)
from exact.imperfect.tables import Layout, layout, reachable_rows

__all__ = [
    "MAX_EXACT_DIGITS",
    "MAX_EXPONENT",
    "MAX_FILE_BYTES",
    "MAX_NUMBER_CHARS",
    "StateReader",
    "load_policy_file",
    "parse_json",
    "policy_from_json",
    "read_json",
]

#: The largest policy file read (bytes): a 7-card fixed-order policy written with floats
#: is about 140 MB, and JSON's objects take about ten times the text in memory.
MAX_FILE_BYTES = 512 * 2**20
#: The longest JSON number (characters): a float's shortest repr has at most 24.
MAX_NUMBER_CHARS = 100
#: The most digits of the numerator or denominator of an exact string (CPython's own
#: limit on converting a decimal string to an int).
MAX_EXACT_DIGITS = 4300
#: The largest |exponent| of an exact decimal string ("1e-999999999" would build a
#: billion-digit integer).
MAX_EXPONENT = 400

_STATE = re.compile(
    r"Current player: ([01])\nP\1 hand: ((?:\d+ )*)\nP\1 action sequence: ((?:\d+ )*)\n"
    r"Point card sequence: ((?:\d+ )*)\nWin sequence: ((?:(?:0|1|-3) )*)\n"
    r"Points: (\d+) (\d+) \nTerminal\?: 0\n"
)
_EXACT = re.compile(
    rf"(\d{{1,{MAX_EXACT_DIGITS}}})(?:/(\d{{1,{MAX_EXACT_DIGITS}}}))?"
    rf"|(\d{{0,{MAX_EXACT_DIGITS}}}\.\d{{0,{MAX_EXACT_DIGITS}}}|\d{{1,{MAX_EXACT_DIGITS}}})"
    r"[eE]([-+]?\d{1,4})"
    rf"|\d{{0,{MAX_EXACT_DIGITS}}}\.\d{{1,{MAX_EXACT_DIGITS}}}"
)


def _text(numbers) -> str:
    return "".join(f"{x} " for x in numbers)


def _where(string: str) -> str:
    return f"state {json.dumps(string)}"


class StateReader:
    """The policy file's strings parsed into rows of ``where`` (module docstring), with
    the parts that repeat across strings (a bid sequence, its winners, a prize sequence)
    checked once each."""

    def __init__(self, game: ImperfectGame, where: Layout):
        self.game, self.where, self.n = game, where, game.n
        self.reachable = (reachable_rows(where, 0), reachable_rows(where, 1))
        #: (player, hand, own, winners text) -> (round, index in the round's block,
        #: {legal action id: card}, winners)
        self._bids: dict[tuple, tuple[int, int, dict[str, int], tuple[int, ...]]] = {}
        self._prizes: dict[str, tuple[tuple[int, ...], int]] = {}

    def row(self, string: str) -> tuple[int, int, dict[str, int]]:
        """(player, row, {legal action id: card}) of a state string, or a one-line
        GopsInputError."""
        match = _STATE.fullmatch(string) if isinstance(string, str) else None
        if match is None:
            raise self._not_a_decision(string)
        player_text, hand, own, prizes_text, wins, p0, p1 = match.groups()
        player = int(player_text)
        part = self._bids.get((player, hand, own, wins))
        if part is None:
            part = self._bids[(player, hand, own, wins)] = self._bid_part(string, hand, own, wins)
        r, index, legal, winners = part
        prize = self._prizes.get(prizes_text)
        if prize is None:
            prize = self._prizes[prizes_text] = self._prize_part(string, prizes_text)
        prizes, prize_index = prize
        if len(prizes) != r + 1:
            raise self._not_a_decision(string)
        scored = [0, 0]
        for prize_card, winner in zip(prizes, winners):
            if winner != TIE:
                scored[winner] += prize_card
        if p0 != str(scored[0]) or p1 != str(scored[1]):
            raise self._not_a_decision(string)
        row = self.where.offsets[r] + prize_index * self.where.own_sequences[r] * 3**r + index
        if not self.reachable[player][row]:
            raise self._not_a_decision(string)
        return player, row, legal

    def _bid_part(self, string, hand, own, wins) -> tuple[int, int, dict[str, int], tuple]:
        """(round, own-bids-and-winners index within the round's block, {legal action id:
        card}, winners)."""
        n = self.n
        bids = [int(x) + 1 for x in own.split()]
        r = len(bids)
        cards = tuple(c for c in range(1, n + 1) if c not in bids)
        canonical = (
            _text(b - 1 for b in bids) == own
            and len(set(bids)) == r
            and all(1 <= b <= n for b in bids)
            and _text(cards) == hand
            and len(wins.split()) == r
            and r <= self.where.last
        )
        if not canonical:
            raise self._not_a_decision(string)
        digits = [2 if w == "-3" else int(w) for w in wins.split()]
        own_index = 0
        for j, bid in enumerate(bids):
            own_index = own_index * (n - j) + bid - 1 - sum(1 for c in bids[:j] if c < bid)
        winner_index = sum(d * 3**j for j, d in enumerate(digits))
        winners = tuple(TIE if d == 2 else d for d in digits)
        return r, own_index * 3**r + winner_index, {str(c - 1): c for c in cards}, winners

    def _prize_part(self, string, text) -> tuple[tuple[int, ...], int]:
        n = self.n
        prizes = tuple(int(x) for x in text.split())
        if (
            _text(prizes) != text
            or len(set(prizes)) != len(prizes)
            or not all(1 <= p <= n for p in prizes)
        ):
            raise self._not_a_decision(string)
        if self.game.order is not RANDOM:
            if prizes != self.where.fixed[: len(prizes)]:
                raise self._not_a_decision(string)
            return prizes, 0
        index = 0
        for j, prize in enumerate(prizes):
            index = index * (n - j) + prize - 1 - sum(1 for c in prizes[:j] if c < prize)
        return prizes, index

    def _not_a_decision(self, string) -> GopsInputError:
        shown = json.dumps(string)[:200] if isinstance(string, str) else repr(string)[:200]
        return GopsInputError(
            f"state {shown} is not a decision of {self.n}-card imperfect-information "
            f"goofspiel ({self.game.order.name} order)"
        )


def _exact(value: str, where: str) -> Fraction:
    """An exact probability string (module docstring), bounded before Fraction sees it."""
    match = _EXACT.fullmatch(value)
    if match is None or (match[4] is not None and abs(int(match[4])) > MAX_EXPONENT):
        shown = value if len(value) <= 40 else f"{value[:40]}... ({len(value):,} characters)"
        raise GopsInputError(
            f"{where}: probability {shown!r} is not a number ('p/q', an integer or a "
            f"decimal, at most {MAX_EXACT_DIGITS:,} digits, exponent at most {MAX_EXPONENT})"
        )
    if match[2] is not None and int(match[2]) == 0:
        raise GopsInputError(f"{where}: probability {value!r} divides by zero")
    try:
        return Fraction(value)
    except ValueError:  # the pattern's digits are bounded; what Fraction refuses, e.g. ".e1"
        raise GopsInputError(f"{where}: probability {value!r} is not a number") from None


class _Pairs(list):
    """A JSON object as the list of its (key, value) pairs in file order: a key that
    repeats (JSON's dict would keep its last copy, silently) is kept, and refused where
    the object is read.  A C-level list, so that reading stays as fast as json's dicts."""

    __slots__ = ()


def _items(value):
    """The (key, value) pairs of a JSON object (a dict or :class:`_Pairs`), else None."""
    if isinstance(value, dict):
        return value.items()
    return value if isinstance(value, _Pairs) else None


def _integer(text: str) -> int:
    """A JSON integer, bounded (a float's digits cost float() only linear time)."""
    if len(text) > MAX_NUMBER_CHARS:
        raise GopsInputError(
            f"a JSON integer of {len(text):,} digits (at most {MAX_NUMBER_CHARS} are read)"
        )
    return int(text)


def _constant(name: str):
    raise GopsInputError(f"a probability is {name}, not a finite number")


def read_json(path) -> object:
    """The JSON at ``path`` within the bounds of the module docstring."""
    shown = repr(str(path))
    try:
        size = os.stat(path).st_size
        if size > MAX_FILE_BYTES:
            raise GopsInputError(
                f"the policy file {shown} has {size:,} bytes, more than the {MAX_FILE_BYTES:,} read"
            )
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise GopsInputError(f"cannot read the policy file {shown}: {exc.strerror}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise GopsInputError(f"the policy file {shown} has more than {MAX_FILE_BYTES:,} bytes")
    return parse_json(raw, str(path))


def parse_json(raw: bytes, name: str) -> object:
    """The JSON of a policy file's bytes within the bounds of the module docstring
    (``name`` says which file, in errors)."""
    shown = repr(name)
    try:
        return json.loads(
            raw.decode("utf-8"),
            object_pairs_hook=_Pairs,
            parse_int=_integer,
            parse_constant=_constant,
        )
    except UnicodeDecodeError as exc:
        raise GopsInputError(f"the policy file {shown} is not UTF-8: {exc.reason}") from None
    except json.JSONDecodeError as exc:
        raise GopsInputError(f"the policy file {shown} is not JSON: {exc}") from None
    except RecursionError:
        raise GopsInputError(f"the policy file {shown} nests too deeply to be a policy") from None
    except GopsInputError as exc:
        raise GopsInputError(f"the policy file {shown}: {exc}") from None


def policy_from_json(
    game: ImperfectGame, data, fill_uniform: bool = False, name: str = "policy file"
) -> Policy:
    """The policy of a parsed policy file (module docstring), its float tables filled as
    it is read; the exact distributions are made on demand (:class:`FilePolicy`)."""
    if game.information != IMP_INFO:
        raise GopsInputError("policy files are of OpenSpiel's imp_info game")
    pairs = _items(data)
    if pairs is None:
        raise GopsInputError(
            "a policy file is a JSON object {information-state string: {action: probability}}"
        )
    where = layout(game)
    reader = StateReader(game, where)
    sigmas = (np.zeros((where.rows, game.n)), np.zeros((where.rows, game.n)))
    given = (np.zeros(where.rows, dtype=bool), np.zeros(where.rows, dtype=bool))
    exact: tuple[dict[int, Distribution], dict[int, Distribution]] = ({}, {})
    for string, entry in pairs:
        player, row, legal = reader.row(string)
        if given[player][row]:
            raise GopsInputError(f"{_where(string)} appears twice")
        given[player][row] = True
        fractions = _fill(sigmas[player][row], entry, legal, string)
        if fractions is not None:
            exact[player][row] = fractions
    for player in (0, 1):
        _check_sums(sigmas[player], given[player], exact[player], reader, where, player)
        _cover(game, where, player, reader.reachable[player], given[player], sigmas[player],
               fill_uniform)  # fmt: skip
    return FilePolicy(game, name, where, sigmas, given, exact)


def _fill(row: np.ndarray, entry, legal: dict[str, int], string: str) -> Distribution | None:
    """Write one decision's probabilities into its row of the float table; its exact
    distribution where a probability is given exactly (None where all are floats)."""
    pairs = _items(entry)
    if pairs is None:
        raise GopsInputError(f"{_where(string)}: expected {{action: probability}}")
    values: dict[int, Fraction | float] = {}
    for action, value in pairs:
        card = legal.get(action)
        if card is None:
            _card(action, legal, string)
        if card in values:
            raise GopsInputError(f"{_where(string)}: action {action!r} appears twice")
        if type(value) is float and 0.0 <= value <= 1.0:  # the file's usual case
            values[card] = value
        else:
            values[card] = _probability(value, string)
    any_exact = False
    for card, value in values.items():
        row[card - 1] = value
        any_exact = any_exact or type(value) is not float
    if not any_exact:
        return None
    floats_too = any(type(v) is float for v in values.values())
    distribution = tuple((card, Fraction(values.get(card, 0))) for card in sorted(legal.values()))
    total = sum((p for _, p in distribution), Fraction(0))
    if total != 1 and (not floats_too or abs(total - 1) > PROBABILITY_TOLERANCE):
        how = f"within {PROBABILITY_TOLERANCE:g}" if floats_too else "exactly"
        raise GopsInputError(
            f"{_where(string)}: the probabilities sum to {float(total)!r}, not {how} 1"
        )
    return distribution


def _probability(value, string: str) -> Fraction | float:
    """A probability other than a float in [0, 1]: a Fraction, or a one-line refusal."""
    where = _where(string)
    if type(value) is float:
        why = (
            "is not finite"
            if not math.isfinite(value)
            else "is negative"
            if value < 0
            else ("is more than 1")
        )
        raise GopsInputError(f"{where}: probability {value!r} {why}")
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        shown = repr(value) if len(repr(value)) <= 60 else f"a {type(value).__name__}"
        raise GopsInputError(f"{where}: probability {shown} is not a number or a 'p/q' string")
    exact = Fraction(value) if isinstance(value, int) else _exact(value, where)
    if exact < 0:
        raise GopsInputError(f"{where}: probability {value!r} is negative")
    return exact


def _card(action, legal: dict[str, int], string: str) -> NoReturn:
    """Refuse an action that is not a legal bid's id, saying why."""
    shown = repr(action)[:60]
    if not isinstance(action, str) or not action.isascii() or not action.isdigit():
        raise GopsInputError(f"{_where(string)}: action {shown} is not an action id (card - 1)")
    shown = action if len(action) <= 20 else f"{action[:20]}..."
    raise GopsInputError(
        f"{_where(string)}: action {shown} is not a legal bid there (legal: {', '.join(legal)})"
    )


#: How far a float row sum (numpy's, N terms) may be from the exact sum: rows within this
#: of the tolerance's edge are summed again exactly.
_SUM_SLACK = 1e-12


def _check_sums(sigma, given, exact, reader: StateReader, where: Layout, player: int) -> None:
    """Every given row whose probabilities are all floats sums to 1 within the tolerance,
    in exact arithmetic (rows near the edge are summed as Fractions)."""
    rows = np.flatnonzero(given)
    if exact:
        rows = rows[~np.isin(rows, np.fromiter(exact, dtype=np.int64))]
    gap = np.abs(sigma[rows].sum(axis=1) - 1)
    suspect = rows[gap > PROBABILITY_TOLERANCE - _SUM_SLACK]
    for row in suspect.tolist():
        total = sum(map(Fraction, sigma[row].tolist()), Fraction(0))
        if abs(total - 1) > PROBABILITY_TOLERANCE:
            string = reader.game.information_string(player, where.key(row))
            raise GopsInputError(
                f"{_where(string)}: the probabilities sum to {float(total)!r}, not within "
                f"{PROBABILITY_TOLERANCE:g} 1"
            )


def _cover(game, where: Layout, player: int, reachable, given, sigma, fill_uniform) -> None:
    """Every decision given, or (``fill_uniform``) its row made uniform."""
    missing = np.flatnonzero(reachable & ~given)
    if missing.size == 0:
        return
    if not fill_uniform:
        string = game.information_string(player, where.key(int(missing[0])))
        raise GopsInputError(
            f"the policy has no {_where(string)} (fill_uniform / --fill-uniform bids "
            "uniformly where it has none)"
        )
    for row in missing.tolist():
        own = where.key(row)[1]
        sigma[row, [c - 1 for c in range(1, game.n + 1) if c not in own]] = 1 / (game.n - len(own))


class FilePolicy(Policy):
    """A policy read from a file: its float tables (``arrays``, what the float NashConv
    reads), and its exact distributions made on demand from them (a float at its exact
    binary value) or from the exact strings the file gave, or uniform where the file
    gave nothing (``fill_uniform``)."""

    def __init__(self, game, name, where: Layout, sigmas, given, exact):
        super().__init__(game, name, None)
        self.where, self.given, self.exact = where, given, exact
        self.sigmas: tuple[np.ndarray, np.ndarray] = sigmas
        self.arrays = sigmas

    def probabilities(self, player: int, key: InfoKey) -> Distribution:
        row = self.where.row(key)
        if row in self.exact[player]:
            return self.exact[player][row]
        if not self.given[player][row]:
            return uniform_distribution(self.game.n, key[1])
        sigma = self.sigmas[player][row]
        hand = [c for c in range(1, self.game.n + 1) if c not in key[1]]
        return tuple((card, Fraction(float(sigma[card - 1]))) for card in hand)


def load_policy_file(game: ImperfectGame, path, fill_uniform: bool = False) -> Policy:
    """:func:`policy_from_json` of the file at ``path``, read within the bounds of the
    module docstring (a one-line GopsInputError otherwise)."""
    return policy_from_json(game, read_json(path), fill_uniform, name=str(path))
