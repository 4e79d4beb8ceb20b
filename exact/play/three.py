"""Three-player GOPS against the equilibrium: a computer player that plays it, and the
exact expected points of any bots seated together.

:class:`EquilibriumBot` samples the subgame-perfect equilibrium of :mod:`exact.three`
(each stage's equilibrium the limit of the logit principal branch, McKelvey & Palfrey
1995; backward induction over the public positions, bids revealed each round) of the
points objective with shuffled prizes, under the variant's tie rule (its
:class:`~exact.game.ties.TieRule`: ``three`` splits a two-way tie for the high bid,
``three-third`` gives it to the third player, ``three-discard`` discards it).  The
solution is read from a saved solution where one holds the game (:mod:`exact.three.saved`:
a file of :func:`use_solutions`, or one in a folder of it or in the cache folder of
:mod:`exact.three.cache`; a file of N cards holds every game of n <= N cards), else solved
once per (N, tie rule) and kept in this process (:func:`three_solution`); beyond
:data:`EQUILIBRIUM_MAX_N` it is not solved on the fly, and :func:`computer_players` hands
out the heuristic bots :data:`HEURISTIC` instead, with a note saying so.
:func:`equilibrium_source` says where a game's equilibrium came from (a saved file and
the NashConv its solve proved, or a solve here) and :func:`served_solutions` lists the
saved solutions play reads (``gops serve``'s ``/api/info``).

:func:`evaluate_three` is the exact expected points of each seat when three bots play:
the walk of :mod:`exact.three.walk` over the public positions (three hands, the prizes
left), without best responses

    V(H, P) = (1/|P|) sum_{u in P} sum_a  p_0(a_0) p_1(a_1) p_2(a_2) (r(u, a) + V(H - a, P - u))

with r the round's points by the tie rule (:meth:`exact.game.ties.TieRule.score`) and
p_i seat i's mix at (H, P, u), in exact rationals.  An equilibrium mix is a float array:
it is read as the exact rational of each stored float, scaled by their exact sum, so the
answer is exact for the policy as stored (the policy the certified NashConv of
:func:`exact.three.certify` judges).  Bots whose mix reads the points
(``uses_lead = True``) are refused: the memo keys on hands and prizes only.

Two cards, ``highest`` against two ``lowest``: the first prize (1.5 on average) to the
2 of ``highest``, the second split by the two 2s of the others:

>>> evaluate_three(2, "three", ["highest", "lowest", "lowest"]).points
(Fraction(3, 2), Fraction(3, 4), Fraction(3, 4))
>>> make_three_bot("optimal", 3, get_variant("three"))
Traceback (most recent call last):
...
exact.errors.GopsInputError: the optimal bot plays two-player games only
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import exact.three
from exact.errors import GopsInputError
from exact.game.objectives import POINTS
from exact.game.orders import RANDOM
from exact.game.ties import TieRule
from exact.game.variants import VARIANTS, Variant, VariantPosition, get_variant
from exact.limits import check_n
from exact.play.bots import BOTS, THREE_PLAYER_BOTS, Bot, make_bot
from exact.three import ThreeSolution
from exact.three.cache import cache_dir, find, index
from exact.three.saved import SavedSolution, SavedSolutionError, load, read_header
from exact.three.walk import EXACT, walk_profile

__all__ = [
    "EQUILIBRIUM_MAX_N",
    "equilibrium_source",
    "forget_solutions",
    "saved_solution",
    "served_solutions",
    "use_solutions",
    "HEURISTIC",
    "TIE_RULE_OF",
    "EquilibriumBot",
    "ThreeEvaluation",
    "computer_players",
    "evaluate_three",
    "make_three_bot",
    "three_player_variant",
    "three_solution",
]

#: The three-player variants the web page offers, and their tie rules (``gops play``
#: offers the same: every three-player variant of :mod:`exact.game.variants`).
TIE_RULE_OF = {v: get_variant(v).tie_rule for v in ("three", "three-third", "three-discard")}
#: The three-player variants, as a one-line error offers them.
_THREE_CHOICES = f"(choose from {', '.join(v.name for v in VARIANTS.values() if v.players == 3)})"
#: The largest N whose equilibrium is solved on the fly (in this process, once per tie
#: rule): N = 4 takes about 13 s of CPU on one core, N = 5 several minutes (CHANGELOG.md).
EQUILIBRIUM_MAX_N = 4
#: The computer players beyond EQUILIBRIUM_MAX_N (those of ``gops play`` before the
#: equilibrium was solved).
HEURISTIC = ("upcard+1", "upcard")

_SOLUTIONS: dict[tuple[int, TieRule], ThreeSolution] = {}
#: One solve or load at a time (the web page's requests run in threads): a second
#: request for the same game waits for the first's solution instead of making it again.
_SOLVING = threading.Lock()
#: Saved solutions to read before solving: files (each loaded and checked when named)
#: and folders (indexed when a game is asked); the cache folder is always looked in.
_FILES: list[SavedSolution] = []
_FOLDERS: list[Path] = []
_LOADED: dict[Path, SavedSolution] = {}
#: Where each game of _SOLUTIONS came from: its saved solution, or None (solved here).
_SOURCES: dict[tuple[int, TieRule], SavedSolution | None] = {}


def use_solutions(files: Sequence = (), folders: Sequence = ()) -> list[SavedSolution]:
    """Play from these saved solutions (files loaded and checked now: a bad one is one
    line, exit 2) and the ones in these folders; returns the files' solutions."""
    loaded = [load(f) for f in files]
    with _SOLVING:
        _FILES.extend(loaded)
        _FOLDERS.extend(Path(f) for f in folders)
        _SOLUTIONS.clear()  # a game solved before is now read from them
        _SOURCES.clear()
    return loaded


def forget_solutions() -> None:
    """Back to no saved solution named and nothing solved (for tests: the registry of
    :func:`use_solutions` is this process's)."""
    with _SOLVING:
        _FILES.clear()
        _FOLDERS.clear()
        _LOADED.clear()
        _SOLUTIONS.clear()
        _SOURCES.clear()


def _saved_file(n: int, rule: TieRule) -> SavedSolution | None:
    """The saved solution that holds the n-card game (points, shuffled prizes, ``rule``):
    the files of :func:`use_solutions` first, then the smallest file of its folders and
    of the cache folder (:func:`exact.three.cache.find`); None if none does.  A file
    found in a folder that fails its checks is an error (one line)."""
    for saved in _FILES:
        g = saved.game
        if g.tie_rule is rule and g.objective is POINTS and g.order is RANDOM and saved.covers(n):
            return saved
    path = find(index([*_FOLDERS, cache_dir()]), n, rule, POINTS, RANDOM)
    if path is None:
        return None
    if path not in _LOADED:
        _LOADED[path] = load(path)
    saved = _LOADED[path]
    return saved if saved.covers(n) else None


def saved_solution(n: int, rule: TieRule) -> ThreeSolution | None:
    """The n-card game (points, shuffled prizes, ``rule``) read from the saved solution
    that holds it (:func:`_saved_file`), or None."""
    saved = _saved_file(n, rule)
    return None if saved is None else saved.for_n(n)


def _served_entry(game, path, nashconv: dict) -> dict:
    """A saved solution as /api/info and the page name it (the bound None where the
    header's is not a number)."""
    bound = nashconv.get("bound")
    return {
        "file": Path(path).name,
        "n": game.n,
        "tie_rule": game.tie_rule.name,
        "objective": game.objective.name,
        "order": game.order.name,
        "nashconv": bound if type(bound) is float and math.isfinite(bound) else None,
    }


def served_solutions() -> list[dict]:
    """The saved solutions play reads (for ``/api/info``): the files of
    :func:`use_solutions`, then those of its folders and of the cache folder, by their
    headers (:func:`exact.three.cache.index`), each once: its file name, N (it serves every
    n <= N), tie rule, objective, order and the NashConv bound its solve proved (the
    file's claim, under its SHA-256, checked on load; ``gops verify FILE`` proves it
    again)."""
    with _SOLVING:
        files = list(_FILES)
        folders = [*_FOLDERS, cache_dir()]
    out, seen = [], set()
    for saved in files:
        seen.add(Path(saved.path).resolve())
        out.append(_served_entry(saved.game, saved.path, saved.nashconv))
    for game, path in index(folders):
        if path.resolve() in seen:
            continue
        seen.add(path.resolve())
        try:
            claim = read_header(path)[1]["nashconv"]
        except SavedSolutionError:  # gone or replaced since the index read it
            continue
        out.append(_served_entry(game, path, claim))
    return out


def equilibrium_source(n: int, variant: Variant) -> dict | None:
    """Where the equilibrium of the n-card three-player ``variant`` that play uses came
    from, once :func:`three_solution` has it: ``{"from": "saved", ...}`` with the file's
    entry of :func:`served_solutions`, or ``{"from": "solved", "n": n, "tie_rule": ...}``
    (solved in this process); None if it has not been asked for."""
    rule = _three_players(variant).tie_rule
    with _SOLVING:
        if (n, rule) not in _SOLUTIONS:
            return None
        saved = _SOURCES.get((n, rule))
    if saved is None:
        return {"from": "solved", "n": n, "tie_rule": rule.name}
    return {"from": "saved"} | _served_entry(saved.game, saved.path, saved.nashconv)


def three_player_variant(variant: Variant | str) -> Variant:
    """The three-player Variant ``variant``, parsed where it is a name: the Python API's
    edge (:func:`three_solution` and :func:`evaluate_three` take either; the functions
    below them take the Variant); a one-line error for any other."""
    rules = variant if isinstance(variant, Variant) else VARIANTS.get(variant)
    if rules is None:
        raise GopsInputError(f"{variant!r} is not a three-player variant {_THREE_CHOICES}")
    return _three_players(rules)


def _three_players(variant: Variant) -> Variant:
    """``variant``, a Variant of three players (a one-line error otherwise)."""
    if variant.players != 3:
        raise GopsInputError(f"{variant.name!r} is not a three-player variant {_THREE_CHOICES}")
    return variant


def three_solution(
    n: int, variant: Variant | str, on_solve: Callable[[str], None] | None = None
) -> ThreeSolution:
    """The equilibrium of the n-card three-player ``variant`` (points, shuffled prizes),
    solved once and cached; ``on_solve(message)`` is told before and after a solve."""
    rule = three_player_variant(variant).tie_rule
    with _SOLVING:
        if (n, rule) not in _SOLUTIONS:
            saved = _saved_file(n, rule)
            if saved is not None:
                _SOURCES[n, rule] = saved
                _SOLUTIONS[n, rule] = saved.for_n(n)
                return _SOLUTIONS[n, rule]
        if (n, rule) not in _SOLUTIONS:
            n = check_n(
                n,
                EQUILIBRIUM_MAX_N,
                what=" for the three-player equilibrium (solved on the fly; beyond, save it: "
                f"gops solve {n} --players 3 --tie-rule {rule.name} --save)",
            )
            if on_solve is not None:
                on_solve(f"solving the three-player equilibrium, N = {n}, tie rule {rule.name} ...")
            start = time.perf_counter()
            _SOLUTIONS[n, rule] = exact.three.solve(n, rule, POINTS, RANDOM)
            _SOURCES[n, rule] = None
            if on_solve is not None:
                on_solve(f"solved in {time.perf_counter() - start:.1f} s")
        return _SOLUTIONS[n, rule]


class EquilibriumBot(Bot):
    """Samples the three-player equilibrium of a :class:`~exact.three.ThreeSolution`
    (points objective) at a :class:`~exact.game.variants.VariantPosition`.  Float mixes:
    negative rounding noise is set to 0 and each mix renormalised."""

    name = "equilibrium"
    exact = False
    uses_lead = False

    def __init__(self, solution: ThreeSolution):
        if solution.game.top or solution.game.order is not RANDOM:
            raise GopsInputError("the equilibrium bot plays the points objective, shuffled prizes")
        self.solution = solution
        self._cache: dict = {}

    def mix(self, position, player):
        if position.n != self.solution.game.n or len(position.hands) != 3:
            raise GopsInputError(
                f"the equilibrium bot was built for three players and N={self.solution.game.n}"
            )
        hands = tuple(tuple(sorted(h)) for h in position.hands)
        key = (hands, tuple(sorted(position.deck)), position.upcard)
        mixes = self._cache.get(key)
        if mixes is None:
            raw = self.solution.mixes(hands, key[1], (0, 0, 0), position.upcard)
            mixes = self._cache[key] = tuple(_clean(h, m) for h, m in zip(hands, raw))
        return mixes[player]


def _clean(hand: tuple[int, ...], mix) -> dict[int, float]:
    clipped = [max(float(p), 0.0) for p in mix]
    total = sum(clipped)
    return {c: p / total for c, p in zip(hand, clipped)}


def make_three_bot(name: str, n: int, variant: Variant) -> Bot:
    """The bot ``name`` of the n-card three-player ``variant``: ``equilibrium`` (solved
    here, N <= EQUILIBRIUM_MAX_N) or a heuristic bot of :data:`exact.play.bots.BOTS`."""
    if name in THREE_PLAYER_BOTS:
        return EquilibriumBot(three_solution(n, variant))
    if name in ("optimal", "optimal-win"):
        raise GopsInputError(f"the {name} bot plays two-player games only")
    if name not in BOTS:
        choices = [*THREE_PLAYER_BOTS, *(x for x in BOTS if x not in ("optimal", "optimal-win"))]
        raise GopsInputError(f"unknown bot {name!r} (choose from {', '.join(choices)})")
    return make_bot(name, n)


def computer_players(
    n: int,
    variant: Variant,
    names: Sequence[str] | None = None,
    on_solve: Callable[[str], None] | None = None,
) -> tuple[list[Bot], str | None]:
    """The two computer players of a three-player game, and a note when the heuristic
    stands in for the equilibrium.  ``names``: the two bots asked for; by default the
    equilibrium up to EQUILIBRIUM_MAX_N, the :data:`HEURISTIC` bots beyond."""
    _three_players(variant)
    note = None
    if names is None:
        if n <= EQUILIBRIUM_MAX_N or has_saved(n, variant):
            three_solution(n, variant, on_solve)
            names = ("equilibrium", "equilibrium")
        else:
            names = HEURISTIC
            rule = variant.tie_rule.name
            note = (
                f"The three-player equilibrium is solved on the fly for N <= "
                f"{EQUILIBRIUM_MAX_N} only, and no saved solution holds N = {n} (gops solve "
                f"{n} --players 3 --tie-rule {rule} --save): the computers play the heuristic "
                f"bots {HEURISTIC[0]} and {HEURISTIC[1]}."
            )
    elif len(names) != 2:
        raise GopsInputError(f"--opponents takes exactly two bots, got {len(names)}")
    elif "equilibrium" in names:
        three_solution(n, variant, on_solve)
    return [make_three_bot(x, n, variant) for x in names], note


def has_saved(n: int, variant: Variant) -> bool:
    """Whether a saved solution holds the n-card game of the three-player ``variant``
    (points, shuffled)."""
    rule = _three_players(variant).tie_rule
    if (n, rule) in _SOLUTIONS:
        return True
    with _SOLVING:
        return _saved_file(n, rule) is not None


@dataclass(frozen=True)
class ThreeEvaluation:
    """Each seat's exact expected points when three bots play (seat 0 first)."""

    n: int
    variant: Variant
    bots: tuple[str, str, str]
    points: tuple[Fraction, Fraction, Fraction]
    positions: int  # public positions (hands, prizes left) evaluated, the last included


def evaluate_three(n: int, variant: Variant | str, bots: Sequence[str | Bot]) -> ThreeEvaluation:
    """The exact expected points of each seat, ``bots`` seated 0, 1, 2 (names or
    :class:`~exact.play.bots.Bot` objects), by the recursion of the module docstring."""
    rules = three_player_variant(variant)
    n = check_n(n, what=" for an exact three-player evaluation")
    if len(bots) != 3:
        raise GopsInputError(f"a three-player evaluation seats three bots, got {len(bots)}")
    made = [make_three_bot(b, n, rules) if isinstance(b, str) else b for b in bots]
    for b in made:
        if b.uses_lead:
            raise GopsInputError(f"the {b.name} bot reads the points: not evaluated exactly")

    def policy(hands, prizes, u) -> list[list]:
        # Bots read hands[player], the deck and the upcard: a VariantPosition serves (as
        # in play_variant), though Bot.mix is typed for the two-player Position.
        held = tuple(frozenset(h) for h in hands)
        pos: Any = VariantPosition(rules, n, held, frozenset(prizes), u, (Fraction(0),) * 3)
        return [[b.mix(pos, i).get(c, 0) for c in hands[i]] for i, b in enumerate(made)]

    walked = walk_profile(n, rules.tie_rule, RANDOM, policy, EXACT, best=False)
    names = tuple(b.name for b in made)
    return ThreeEvaluation(n, rules, names, walked.values, walked.positions)  # type: ignore[arg-type]
