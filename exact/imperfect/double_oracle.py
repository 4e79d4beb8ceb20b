"""The sequence-form LP of imperfect-information Goofspiel solved over a growing set of
sequences: a double oracle whose oracle is the exact best response of the tables.

The full LP (:mod:`exact.imperfect.lp_tables`) has 716,794 sequences a player at 7 cards,
beyond an interior point here; an equilibrium's support is a small part of them (12 % at
5 cards).  So, as in the double-oracle algorithms for extensive-form games (McMahan,
Gordon & Blum, "Planning in the presence of cost functions controlled by an adversary",
ICML 2003; Bošanský, Kiekintveld, Lisý & Pěchouček, "An exact double-oracle algorithm
for zero-sum extensive-form games with imperfect information", JAIR 51, 2014), each
player p is allowed a set S_p of bids at each decision, and the LP restricted to the
sequences they make is solved; then each player's best response in the whole game
says which bids to add.

Restriction.  Each player's allowed cells ``allow[p][row, card - 1]`` make a set S_p of
its sequences closed under prefixes, and the LP of the game where each player bids only
within S_p is built from the game tree, walking only the histories both players reach
within their sets (:mod:`exact.imperfect.restricted`): a submatrix of the whole LP that
never needs the whole LP, so that its size follows the restricted game (8 cards: the
whole LP would hold about 1.5 billion payoff entries).

Oracle.  Against the restricted equilibrium (x, y), extended by any bids off its
support (they are never reached), each player's counterfactual best-response values
Q(I, a) (:func:`exact.imperfect.fast.best_response_actions`) give, at each decision I in
play, the gap max_a Q(I, a) - max_{a allowed} Q(I, a).  Where every gap is 0, a best
response in the whole game bids within S_p everywhere it plays, so it is worth no more
than the restricted game's value: (x, y) is an equilibrium of the whole game.
Otherwise the best bid of each decision with a gap above :data:`GAP_TOLERANCE` is
allowed, and the closure allows the best bid of each decision it brings into play.  The
sets only grow, so the loop ends.  The players are interchangeable, so with
``symmetric`` each round starts from the union of both sets, each seen as the other's
(:func:`symmetrize`): a bid one player's best response finds is given to the other too.

Start.  The first sets are a guess of the support: the bids a predictive CFR+ average
plays at least :data:`START_THRESHOLD` of the time, or those of the shipped equilibrium
of one card fewer, lifted (:mod:`exact.imperfect.lift`), or none.

Restricted solver.  Each restricted game is solved by its LP (HiGHS; the stopping rule
above is then exact: no gap left means an equilibrium), or, for a loose target on games
whose restricted LPs are too large (8 cards), approximately by predictive CFR+ over its
sequence form (:mod:`exact.imperfect.restricted_cfr`) to :data:`CFR_SHARE` of the
target, or only to :data:`CFR_RELATIVE` of the last round's proven NashConv while that is
larger (or to where it stalls below :data:`CFR_STALL` of that NashConv), each from the
last restricted game's regrets (bids are only added, as when Brown & Sandholm,
"Simultaneous abstraction and equilibrium finding in games", IJCAI 2015, grow a game
under a running CFR); a gap then may be the approximation's, so such a run stops at its
target, and a round that adds no bid is followed by another on the same restricted game
while the bound falls.

What is proven is the NashConv of the policies of each round, by
:func:`exact.imperfect.certified.certify_with_actions` (float64 plus its proven error
bound, from the same walk of the game that gives the oracle its Q), not the LP's word.
The equilibrium is the restricted LP's vertex (HiGHS's basic solution) that
the loop stops at, uniform at the decisions the restricted game never reaches where that
proves less (:data:`UNIFORM_UNSEEN`): where equilibria are not unique, one of them, the
one this sequence of restricted LPs reaches.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

import numpy as np

from exact.errors import GopsInputError
from exact.game.orders import ASCENDING, DESCENDING, RANDOM
from exact.imperfect.certified import (
    Certificate,
    CertifiedEquilibrium,
    Method,
    certify,
    certify_with_actions,
    default_method,
    dyadic_rows,
    lp_plans,
)
from exact.imperfect.cfr import CFRPlus
from exact.imperfect.checkpoint import read_support, write_support
from exact.imperfect.fast import best_response_actions
from exact.imperfect.game import ImperfectGame
from exact.imperfect.lift import lifted_support
from exact.imperfect.policy_file import load_policy_file
from exact.imperfect.restricted import (
    GameTree,
    closure,
    in_play,
    restricted_lp,
)
from exact.imperfect.restricted_cfr import Regrets, restricted_cfr
from exact.imperfect.shipped import load_shipped
from exact.imperfect.tables import (
    check_memory,
    layout,
    legal_rows,
    mirror_rows,
    own_reach,
    policy_arrays,
)
from exact.imperfect.warm_basis import NamedBasis

__all__ = [
    "GAP_TOLERANCE",
    "BestKeeper",
    "RestrictedSolver",
    "Round",
    "best_of_run",
    "best_round",
    "default_start",
    "double_oracle",
    "pace",
    "solve_double_oracle",
    "symmetrize",
]

#: A decision's gap (in OpenSpiel's units, weighted by the opponent's and chance's
#: reach) above which its best bid is added to the restricted game.
GAP_TOLERANCE = 1e-13
#: The restricted LP's HiGHS solver: the interior point (then crossover) from this many
#: sequences a player, the dual simplex below.
IPM_FROM = 10_000
#: With ``restricted="pcfr+"``, the restricted game is solved by predictive CFR+ until its
#: own NashConv is at most this share of the target, or for at most
#: :data:`CFR_MAX_ITERATIONS` iterations (for targets that the LP's cost does not
#: justify: 8 cards' first restricted LP has over half a million sequences a player).
CFR_SHARE = 0.25
CFR_MAX_ITERATIONS = 20_000
#: While the last round's proven NashConv B is far above the target, predictive CFR+
#: solves the restricted game only to this share of B (the first round of a run from
#: nothing, with no B yet, to its first check; a resumed run's, its checkpoint's B):
#: what the whole game's best responses gain is then mostly the support's, not the
#: approximation's.  At 6 cards descending from the lift, target 1e-3,
#: shares 0 / 0.01 / 0.05 / 0.1 / 0.25 took 15 / 15 / 15 / 16 / 18 rounds in 31 / 21 / 16
#: / 14 / 13 s (benchmarks/RESULTS.md); at 8 cards a round's fixed cost (the tree walks)
#: is minutes, so this share: as few rounds as the tightest, in half its time.
CFR_RELATIVE = 0.05
#: And where its NashConv is already at most this share of B and stalls
#: (:data:`~exact.imperfect.restricted_cfr.STALL_RATIO`), it stops there: the whole
#: game's best responses then gain mostly outside the restricted game (8 cards, round 28:
#: 4.0e-4 inside of a proven 5.5e-3), so a round spends its time adding bids, and B still
#: falls at least fourfold a round once they gain nothing.
CFR_STALL = 0.25
#: ... but only after a round whose bound B was more than this many times its restricted
#: game's NashConv (mostly gained outside; or after a resume, where that is not known):
#: where B is the restricted game's own, stopping early only restarts the average (6
#: cards descending to 1e-5: 18 rounds and 17 s of CPU against 17 and 10 s).
CFR_OUTSIDE = 2.0
#: Predictive CFR+ on each restricted game starts from the last one's regrets (its bids'
#: own; 0 for the bids just added), the averages afresh.  At 6 cards from the lift, target
#: 1e-3: descending 17 rounds and 5,250 iterations in all against 15 and 8,850 from zero;
#: ascending 15 and 6,000 against 22 and 15,000 (benchmarks/RESULTS.md).
WARM_REGRETS = True
#: From this many sequences a player on, a restricted LP after the first is solved by the
#: simplex from the last one's optimal basis (:mod:`exact.imperfect.warm_basis`), not by
#: the interior point from scratch.  Below it the interior point is cheap and its
#: vertices (after crossover) make fewer rounds: at 6 cards ascending, points, symmetric
#: sets (15,000 sequences), 6 rounds and 17 s from scratch against 13 rounds and 45 s
#: warm; at 7 cards (150,000-270,000) each interior point took 16-83 minutes
#: (benchmarks/RESULTS.md).
WARM_FROM = 100_000
#: An LP round's plans are certified twice: as the LP gives them, and uniform at the
#: decisions that no history of the restricted game reaches (where the LP's vertex bids
#: an arbitrary card: those payoffs are all 0 to it); the round keeps the smaller bound
#: (and the oracle that policy's best responses).  Either is an equilibrium of the
#: restricted game, so the loop's stopping rule holds for both.  At 6 cards the first
#: round's bound fell 14-63 % and the rounds to 1e-10 were about as many (33 against 32
#: with symmetric sets, 57 against 50 without; benchmarks/RESULTS.md).
UNIFORM_UNSEEN = True
#: Predictive CFR+ on a restricted game says how far it is every this many iterations.
CFR_TELL_EVERY = 1_000
#: A run's best policy so far (``on_best``) is handed on at most this often (seconds; and
#: at the round that meets the target): at 8 cards writing it takes a minute (360 MB of
#: JSON), half a round.
BEST_EVERY = 600.0
#: The most rounds of one run.
MAX_ROUNDS = 10_000
#: The rounds of this process whose pace (:func:`pace`) estimates the time to the target.
PACE_ROUNDS = 5
#: The proven NashConv a run stops at (OpenSpiel's units).
TARGET = 1e-10
#: CFR+ iterations (predictive CFR+) whose average policy guesses the support to start from.
START_ITERATIONS = 300
#: The largest games whose run starts from a CFR+ guess by default (CFR+ at 8 cards: about
#: 75 s an iteration and 8.1 GiB, so from nothing there).
START_MAX_N = {DESCENDING: 7, ASCENDING: 7, RANDOM: 5}
#: A bid is in the guessed support where the CFR+ average plays it at least this often.
START_THRESHOLD = 0.05


def default_start(game: ImperfectGame) -> int:
    """The CFR+ iterations that guess the support by default (:data:`START_MAX_N`)."""
    return START_ITERATIONS if game.n <= START_MAX_N[game.order] else 0


@dataclass(frozen=True)
class Round:
    """One round of the loop: the restricted LP's size, the proven NashConv of its
    solution in the whole game, the bids added, and its seconds."""

    round: int
    sequences: tuple[int, int]
    nonzeros: int
    certificate: Certificate
    added: tuple[int, int]
    seconds: dict = field(default_factory=dict)
    lp: dict = field(default_factory=dict)


def _gaps(q: np.ndarray, allow: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """At each row of ``rows``: max_a Q - max_{a allowed} Q, and the best bid (index)."""
    best = np.argmax(q[rows], axis=1)
    top = q[rows, best]
    within = np.where(allow[rows], q[rows], -np.inf).max(axis=1)
    return top - within, best


class RestrictedSolver(str, Enum):
    """How each restricted game is solved: its LP's vertex (HiGHS), or an approximate
    equilibrium by predictive CFR+ (:mod:`exact.imperfect.restricted_cfr`)."""

    LP = "lp"
    PCFR = "pcfr+"


def _solve_restricted(
    tree: GameTree,
    built,
    restricted: RestrictedSolver,
    target: float,
    tell: Callable[[str], None],
    last: float = math.inf,
    warm: Regrets | None = None,
    stall: bool = False,
    basis: NamedBasis | None = None,
):
    """Both players' plans of the restricted game (:class:`RestrictedSolver`; predictive
    CFR+ to :data:`CFR_SHARE` of the target or :data:`CFR_RELATIVE` of the last round's
    proven NashConv ``last``, whichever is larger, or, with ``stall``, to where it stalls
    below :data:`CFR_STALL` of ``last``, telling its progress every
    :data:`CFR_TELL_EVERY` iterations; its LP by the simplex from the last round's
    ``basis`` where given and the LP has :data:`WARM_FROM` sequences a player), facts
    (with the LP's final ``basis``), and how it was solved (a text)."""
    lp = built.lp
    if restricted is RestrictedSolver.PCFR:

        def progress(iteration: int, gap: float) -> None:
            if iteration % CFR_TELL_EVERY == 0:
                tell(f"  restricted game: {iteration:,} iterations, its NashConv {gap:.2e}")

        goal = max(target * CFR_SHARE, CFR_RELATIVE * last)
        x, y, facts = restricted_cfr(
            tree, built, goal, CFR_MAX_ITERATIONS, progress, warm,
            stall_gap=CFR_STALL * last if stall else 0.0,
        )  # fmt: skip
        how = (
            f"predictive CFR+, {facts['iterations']:,} iterations"
            f"{' (stalled)' if facts['stalled'] else ''}, restricted NashConv "
            f"{facts['restricted_nash_conv']:.1e}"
        )
        return x, y, {**facts, "how": how}
    cells = tree.legal.size
    large = max(lp.n_own, lp.n_ub) >= WARM_FROM
    start = basis.carried(built, cells) if basis is not None and large else None
    if start is not None:
        x, y, facts = lp_plans(lp, "simplex", start=start)
        how = f"simplex from the last basis, {facts['iterations']:,} iterations"
    elif max(lp.n_own, lp.n_ub) >= IPM_FROM:
        x, y, facts = lp_plans(lp, "ipm")
        how = f"interior point, {facts['ipm_iterations']:,} iterations and crossover"
    else:
        x, y, facts = lp_plans(lp, "simplex")
        how = f"dual simplex, {facts['iterations']:,} iterations"
    if start is not None and not facts["warm_start"]:
        how += " (HiGHS refused the basis: from scratch)"
    kept = {key: facts[key] for key in ("solver", "iterations", "ipm_iterations")}
    final = NamedBasis.of(built, cells, facts["statuses"])
    return x, y, {**kept, "how": how, "basis": final}


def _certified(game, tree: GameTree, built, x: np.ndarray, y: np.ndarray, uniform_unseen: bool):
    """The proven certificate, the oracle's Q and both policies of the restricted plans
    (x, y), put on the grid, uniform where the restricted game does not reach with
    ``uniform_unseen``; and ``uniform_unseen``."""
    sigmas = [
        dyadic_rows(built.behaviour(tree, p, plan, uniform_unseen), tree.legal)
        for p, plan in ((0, x), (1, y))
    ]
    certificate, q = certify_with_actions(game, sigmas[0], sigmas[1])
    return certificate, q, sigmas, uniform_unseen


def double_oracle(
    game: ImperfectGame,
    start: tuple[np.ndarray, np.ndarray] | None = None,
    target: float = 0.0,
    max_rounds: int = MAX_ROUNDS,
    tree: GameTree | None = None,
    progress: Callable[
        [
            Round,
            tuple[np.ndarray, np.ndarray],
            tuple[np.ndarray, np.ndarray],
            Regrets | None,
            NamedBasis | None,
        ],
        None,
    ]
    | None = None,
    first_round: int = 1,
    restricted: RestrictedSolver = RestrictedSolver.LP,
    tell: Callable[[str], None] = lambda _: None,
    last_bound: float = math.inf,
    regrets: Regrets | None = None,
    symmetric: bool = False,
    start_basis: NamedBasis | None = None,
) -> tuple[tuple[np.ndarray, np.ndarray], list[Round]]:
    """An epsilon-equilibrium of ``game`` by the loop of the module docstring: both
    players' policy rows (exact distributions) of the round with the least proven
    NashConv (:func:`best_round`), and the rounds.  ``start``: both players'
    allowed cells to begin with (a guess of the support: a CFR+ average's bids above a
    threshold, or a checkpoint's cells), else none (each decision's best bid against the
    uniform policy); the loop stops when the proven NashConv is at most ``target``, when
    no gap is left, or after ``max_rounds`` rounds.  ``progress(round, allowed cells,
    policy rows, regrets, basis)`` is called after each round with the cells the next
    round starts from, the round's policy rows, the regrets it carries (predictive CFR+
    only) and its LP's final basis (the LP only).  ``last_bound``, ``regrets`` and
    ``start_basis``: the proven NashConv, the regrets and the LP's basis of the round
    before ``first_round`` (a resumed run's), for :data:`CFR_RELATIVE`,
    :data:`WARM_REGRETS` and :data:`WARM_FROM`.  ``symmetric``: each round starts from
    the union of both players' sets, each seen as the other's (:func:`symmetrize`)."""
    tree = tree or GameTree.of(game)
    where, legal = tree.where, tree.legal
    uniform = dyadic_rows(np.zeros(legal.shape), legal)
    _, q = best_response_actions(where, uniform, uniform)
    allow = [np.zeros(legal.shape, dtype=bool), np.zeros(legal.shape, dtype=bool)]
    if start is not None:
        allow = [start[0] & legal, start[1] & legal]
    default = [np.argmax(q[0], axis=1), np.argmax(q[1], axis=1)]
    decisions = [np.flatnonzero(tree.decisions[0]), np.flatnonzero(tree.decisions[1])]
    rounds: list[Round] = []
    least: tuple[float, list[np.ndarray]] = (math.inf, [])  # the best round's bound, policy
    last, outside = last_bound, True
    warm = regrets if WARM_REGRETS else None
    mirror = mirror_rows(where) if symmetric else None
    basis = start_basis
    for number in range(first_round, first_round + max_rounds):
        began = time.perf_counter()
        if mirror is not None:
            symmetrize(allow, mirror)
        in_s = [closure(tree, p, allow[p], default[p]) for p in (0, 1)]
        built = restricted_lp(tree, in_s[0], in_s[1])
        lp = built.lp
        built_at = time.perf_counter()
        x, y, facts = _solve_restricted(
            tree, built, restricted, target, tell, last, warm, stall=outside, basis=basis
        )
        carried = facts.pop("regrets", None)
        warm = carried if WARM_REGRETS else None
        basis = facts.pop("basis", None)
        solved_at = time.perf_counter()
        choices = (
            (False, True) if restricted is RestrictedSolver.LP and UNIFORM_UNSEEN else (False,)
        )
        certificate, q, sigmas, uniform_unseen = min(
            (_certified(game, tree, built, x, y, choice) for choice in choices),
            key=lambda made: made[0].epsilon,
        )
        if uniform_unseen:
            facts["how"] += "; uniform where the restricted game does not reach"
        before, last = last, float(certificate.epsilon)
        if last < least[0]:
            least = (last, sigmas)
        outside = last > CFR_OUTSIDE * facts.get("restricted_nash_conv", math.inf)
        added = [0, 0]
        if certificate.epsilon > target:
            for p in (0, 1):
                rows = decisions[p][in_play(tree, p, in_s[p], decisions[p])]
                gap, best = _gaps(q[p], allow[p] & legal, rows)
                grow = gap > GAP_TOLERANCE
                allow[p][rows[grow], best[grow]] = True
                added[p] = int(grow.sum())
                default[p] = np.argmax(q[p], axis=1)
        seconds = {
            "build": built_at - began,
            "lp": solved_at - built_at,
            "oracle": time.perf_counter() - solved_at,
        }
        rounds.append(
            Round(
                number,
                (lp.n_own, lp.n_ub),
                len(lp.value),
                certificate,
                (added[0], added[1]),
                seconds,
                facts,
            )
        )
        if progress is not None:
            progress(rounds[-1], (allow[0], allow[1]), (sigmas[0], sigmas[1]), warm, basis)
        # with no bid to add, an exact restricted equilibrium is the whole game's; an
        # approximate one goes on while its bound falls
        settled = restricted is RestrictedSolver.LP or last >= before
        if certificate.epsilon <= target or (settled and not any(added)):
            break
    return (least[1][0], least[1][1]), rounds


def symmetrize(allow: list[np.ndarray], mirror: np.ndarray) -> None:
    """Both players' allowed cells (in place) made the union of the two, each player's
    seen as the other's (:func:`~exact.imperfect.tables.mirror_rows`).  The players are
    interchangeable, so a bid one player's best response finds is one the other's may
    need; the sets stay a pair of mirror images, and the restricted game is symmetric.
    At 6 cards from a CFR+ guess, to a proven 1e-10 (benchmarks/RESULTS.md): 5 rounds
    instead of 14 (ascending, win), 9 instead of 11 (descending, points), the restricted
    LPs up to a third larger."""
    union = allow[0] | allow[1][mirror]
    allow[0][:] = union
    allow[1][:] = union[mirror]


def best_round(rounds: list[Round]) -> Round:
    """The round whose policy :func:`double_oracle` returns: the least proven NashConv,
    the earliest of equals (an approximate run's last rounds may bound it worse)."""
    return min(rounds, key=lambda done: done.certificate.epsilon)


def pace(bounds: list[float], seconds: list[float], target: float) -> str:
    """An estimate of the rounds and hours to ``target`` from the last
    :data:`PACE_ROUNDS` rounds' proven bounds and seconds (their median ratio of one
    bound to the last, their median round), or "" where they do not fall or are too
    few to say.  Only an estimate: rounds lengthen as the restricted games ask for more
    iterations, and the bound falls unevenly."""
    bounds, seconds = bounds[-PACE_ROUNDS:], seconds[-PACE_ROUNDS:]
    if len(bounds) < 3 or not 0 < target < bounds[-1]:
        return ""
    ratio = float(np.median([b / a for a, b in zip(bounds, bounds[1:]) if a > 0]))
    if not 0 < ratio < 1:
        return ""
    rounds = math.ceil(math.log(target / bounds[-1]) / math.log(ratio))
    length = float(np.median(seconds))
    return (
        f"; at the last {len(bounds)} rounds' pace (the bound x{ratio:.2f} a round, "
        f"{length / 60:.0f} min a round) the target is about {rounds:,} rounds, "
        f"{rounds * length / 3600:.1f} h away"
    )


@dataclass
class BestKeeper:
    """The policy of least proven NashConv offered so far, handed on (``hand_on``) at
    most every ``every`` seconds, or at once when it meets ``target``: one found sooner
    is held until then, unless a better one replaces it (:data:`BEST_EVERY`).
    ``handed``: the bound and round of the last one handed on (a resumed run's keeper
    starts from its checkpoint's, and hands on only a better one)."""

    hand_on: Callable[[CertifiedEquilibrium], None]
    every: float
    target: float
    bound: float = math.inf
    held: CertifiedEquilibrium | None = None
    held_round: int = 0
    handed_at: float = -math.inf
    handed: tuple[float, int] = (math.inf, 0)

    def __post_init__(self) -> None:
        self.bound = min(self.bound, self.handed[0])

    def offer(
        self, bound: float, make: Callable[[], CertifiedEquilibrium], now: float, round_: int = 0
    ) -> None:
        """Round ``round_``'s proven ``bound``, its policy made by ``make`` where it is the
        best, at the clock's ``now`` (seconds)."""
        if bound < self.bound:
            self.bound, self.held, self.held_round = bound, make(), round_
        due = now - self.handed_at >= self.every or self.bound <= self.target
        if self.held is not None and due:
            self.hand_on(self.held)
            self.handed = (self.bound, self.held_round)
            self.held, self.handed_at = None, now


def _lifted(game: ImperfectGame, tell: Callable[[str], None]) -> tuple[np.ndarray, np.ndarray]:
    """Both players' cells lifted from the shipped equilibrium of one card fewer, where it
    plays a bid at least :data:`START_THRESHOLD` at a decision its own bids reach."""
    small_game = ImperfectGame.parse(game.n - 1, game.order.name, game.objective.name)
    tell(f"guessing the support: the shipped {small_game.n}-card equilibrium, lifted")
    shipped = load_shipped(small_game)
    small_where = layout(small_game)
    sigmas = policy_arrays(small_where, shipped.policy)
    del shipped
    allow = []
    for player, sigma in enumerate(sigmas):
        reached = own_reach(small_where, player, sigma) > 0
        allow.append(lifted_support(game, small_game, sigma * reached[:, None], START_THRESHOLD))
    return allow[0], allow[1]


def solve_double_oracle(
    game: ImperfectGame,
    start_iterations: int = START_ITERATIONS,
    checkpoint=None,
    method: str | None = None,
    progress: Callable[[str], None] | None = None,
    target: float = TARGET,
    lift: bool = False,
    restricted: RestrictedSolver = RestrictedSolver.LP,
    on_best: Callable[[CertifiedEquilibrium], None] | None = None,
    symmetric: bool = False,
) -> CertifiedEquilibrium:
    """An epsilon-equilibrium of ``game`` by the double oracle (module docstring), from
    the support of ``start_iterations`` of predictive CFR+ (none: from nothing), or with
    ``lift`` from the shipped equilibrium of one card fewer (:mod:`exact.imperfect.lift`),
    resumed from ``checkpoint`` where that file exists and saved to it after every
    round; its NashConv proven by ``method`` (default
    :func:`~exact.imperfect.certified.default_method`).  ``on_best`` is given the policy
    whose proven NashConv is the least so far, at most every :data:`BEST_EVERY` seconds
    (to save it as the run goes; :class:`BestKeeper`), in a resumed run only one better
    than every earlier round's (the checkpoint's ``best``: what ``on_best`` was given
    before is kept); ``symmetric``: both players' sets made mirror images each round
    (:func:`symmetrize`).  The result is this process's best round, which in a resumed
    run may be worse than the checkpoint's ``best`` (whose policy only ``on_best``'s
    keeper has)."""
    tell = progress or (lambda _: None)
    begin = time.perf_counter()
    where = layout(game)
    check_memory(game, where.bytes_needed() + where.rows * where.n * 16, "best-response tables")
    first, allow, last_bound, regrets, basis = 1, None, math.inf, None, None
    handed = (math.inf, 0)  # the bound and round of the policy last handed on
    if checkpoint is not None and Path(checkpoint).exists():
        saved = read_support(game, checkpoint)
        first, allow, last_bound, basis = saved.round + 1, saved.allow, saved.bound, saved.basis
        handed = (saved.best, saved.best_round)
        if saved.regrets is not None:
            regrets = Regrets.of_pairs(saved.regrets)
        tell(f"resumed from {checkpoint} after round {saved.round:,}")
    elif lift:
        allow = _lifted(game, tell)
    elif start_iterations > 0:
        tell(f"guessing the support: {start_iterations:,} iterations of predictive CFR+")
        state = CFRPlus.start(game, "pcfr+")
        state.run(start_iterations)
        average = state.average()
        allow = (average[0] >= START_THRESHOLD, average[1] >= START_THRESHOLD)
        del state
    tree = GameTree.of(game)
    tell(f"game tree indexed: {tree.sequences(0):,} sequences per player")

    source = (
        "a double oracle over sequences (Bošanský et al. 2014): restricted sequence-form LPs "
        "(HiGHS) grown by the tables' best responses"
        + (
            f", from the shipped {game.n - 1}-card equilibrium's support, lifted"
            if lift
            else ", from a predictive CFR+ support guess"
            if start_iterations > 0
            else ""
        )
    )
    keeper = BestKeeper(on_best or (lambda _: None), BEST_EVERY, target, handed=handed)
    bounds: list[float] = []
    lengths: list[float] = []

    def report(done: Round, cells, sigmas, warm: Regrets | None, basis: NamedBasis | None) -> None:
        bound = float(done.certificate.epsilon)
        sizes = {"rounds": done.round, "restricted_sequences": list(done.sequences)}
        keeper.offer(
            bound,
            lambda: CertifiedEquilibrium(game, sigmas, done.certificate, sizes, {}, source),
            time.perf_counter(),
            done.round,
        )
        if checkpoint is not None:
            kept = None if warm is None else warm.pairs()
            write_support(checkpoint, game, done.round, cells, bound, kept, basis, keeper.handed)
        bounds.append(bound)
        lengths.append(sum(done.seconds.values()))
        tell(
            f"round {done.round}: restricted LP {done.sequences[0]:,} + {done.sequences[1]:,} "
            f"sequences; NashConv <= {done.certificate.epsilon:.3e} (proven); bids added "
            f"{done.added[0]:,} + {done.added[1]:,}; {lengths[-1]:.0f} s "
            f"(LP {done.seconds['lp']:.0f} s, {done.lp['how']}){pace(bounds, lengths, target)}"
        )

    sigmas, rounds = double_oracle(
        game, allow, target, tree=tree, progress=report, first_round=first,
        restricted=restricted, tell=tell, last_bound=last_bound, regrets=regrets,
        symmetric=symmetric, start_basis=basis,
    )  # fmt: skip
    solved = time.perf_counter()
    proof = Method(method) if method else default_method(game)
    chosen = best_round(rounds)
    certificate = chosen.certificate if proof is Method.BOUND else certify(game, *sigmas, proof)
    sizes = {
        "sequences": [tree.sequences(0), tree.sequences(1)],
        "restricted_sequences": list(chosen.sequences),
        "rounds": chosen.round,
        "start_iterations": start_iterations,
        "lifted": lift,
        "symmetric_sets": symmetric,
    }
    seconds = {"solve": solved - begin, "certify": certificate.seconds}
    return CertifiedEquilibrium(game, sigmas, certificate, sizes, seconds, source)


def best_of_run(
    found: CertifiedEquilibrium, checkpoint, policy_path, method: str | None = None, tell=None
) -> tuple[CertifiedEquilibrium, bool]:
    """The best policy of a run that ``checkpoint`` may have resumed: ``found`` (this
    process's best round), or, where the checkpoint's ``best`` is less than its proven
    NashConv, the policy in ``policy_path`` (where the run's keeper wrote that round's)
    read and proven again by ``method`` -- whichever proves less; and whether it is the
    file's.  A file that is not this game's policy is said (``tell``) and not taken."""
    game = found.game
    if checkpoint is None or policy_path is None or not Path(checkpoint).exists():
        return found, False
    saved = read_support(game, checkpoint)
    if not saved.best < found.certificate.epsilon or not Path(policy_path).is_file():
        return found, False
    try:
        policy = load_policy_file(game, policy_path, fill_uniform=True)
    except GopsInputError as error:
        if tell is not None:
            tell(f"the run's best policy was not read back ({error}): replaced by this one")
        return found, False
    where = layout(game)
    legal = legal_rows(where)
    read = policy_arrays(where, policy)
    sigmas = (dyadic_rows(read[0], legal), dyadic_rows(read[1], legal))
    began = time.perf_counter()
    proof = Method(method) if method else default_method(game)
    certificate = certify(game, *sigmas, proof)
    if certificate.epsilon >= found.certificate.epsilon:
        return found, False
    sizes = {**found.sizes, "rounds": saved.best_round, "restricted_sequences": None}
    seconds = {"read_and_certify": time.perf_counter() - began}
    source = f"{found.source}; the run's best round, read back from {policy_path} and proven again"
    return CertifiedEquilibrium(game, sigmas, certificate, sizes, seconds, source), True
