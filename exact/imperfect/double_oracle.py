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

Restriction.  A set of allowed cells ``allow[p][row, card - 1]`` makes the sequences
S_p closed under prefixes (:func:`closure`): a decision is *in play* when its parent
sequence is in S_p (the empty sequence always is), and its allowed bids are then
sequences of S_p; a decision in play with no allowed bid is given one (its best response
against the last solution).  Fixing x_s = 0 for s outside S_0, and dropping the
constraint of each sequence t of player 1 outside S_1 (y_t = 0 in the dual), leaves the
LP of the game where each player bids only within its sets, a submatrix of the full LP:
the rows of t in S_1 and of player 0's decisions in play, the columns of x in S_0 and
of q at player 1's decisions in play (:func:`restricted_lp`).

Oracle.  Against the restricted equilibrium (x, y), extended by any bids off its
support (they are never reached), each player's counterfactual best-response values
Q(I, a) (:func:`exact.imperfect.fast.best_response_actions`) give, at each decision I in
play, the gap max_a Q(I, a) - max_{a allowed} Q(I, a).  Where every gap is 0, a best
response in the whole game bids within S_p everywhere it plays, so it is worth no more
than the restricted game's value: (x, y) is an equilibrium of the whole game.
Otherwise the best bid of each decision with a gap above :data:`GAP_TOLERANCE` is
allowed, and the closure allows the best bid of each decision it brings into play.  The
sets only grow, so the loop ends.

What is proven is the NashConv of the policies of the last round, by
:func:`exact.imperfect.certified.certify` (float64 plus its proven error bound), not the
LP's word.  The equilibrium is the restricted LP's vertex (HiGHS's basic solution) that
the loop stops at: where equilibria are not unique, one of them, the one this sequence of
restricted LPs reaches.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from exact.imperfect.certified import (
    Certificate,
    CertifiedEquilibrium,
    certify,
    default_method,
    dyadic_rows,
    lp_plans,
)
from exact.imperfect.cfr import CFRPlus
from exact.imperfect.checkpoint import read_support, write_support
from exact.imperfect.fast import best_response_actions
from exact.imperfect.game import ImperfectGame
from exact.imperfect.lp_tables import SequenceFormLP, TableLP, table_lp
from exact.imperfect.tables import check_memory, layout, legal_rows, reachable_rows

__all__ = [
    "GAP_TOLERANCE",
    "Round",
    "closure",
    "double_oracle",
    "restricted_lp",
    "solve_double_oracle",
]

#: A decision's gap (in OpenSpiel's units, weighted by the opponent's and chance's
#: reach) above which its best bid is added to the restricted game.
GAP_TOLERANCE = 1e-13
#: The restricted LP's HiGHS solver: the interior point (then crossover) from this many
#: sequences a player, the dual simplex below.
IPM_FROM = 10_000
#: The most rounds of one run.
MAX_ROUNDS = 10_000
#: The proven NashConv a run stops at (OpenSpiel's units).
TARGET = 1e-10
#: CFR+ iterations (predictive CFR+) whose average policy guesses the support to start from.
START_ITERATIONS = 300
#: A bid is in the guessed support where the CFR+ average plays it at least this often.
START_THRESHOLD = 0.05


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


def closure(
    built: TableLP, player: int, allow: np.ndarray, default: np.ndarray, legal: np.ndarray
) -> np.ndarray:
    """Player ``player``'s sequences S (a bool per sequence column) made by ``allow``
    (module docstring), round by round from the empty sequence; ``allow`` gains
    ``default[row]`` (a card index) at each decision in play with no allowed bid."""
    where = built.where
    columns, parents = built.columns[player], built.parents[player]
    in_s = np.zeros(built.sequences[player], dtype=bool)
    in_s[0] = True
    decisions = reachable_rows(where, player)
    for r in range(where.last + 1):
        rows = where.offsets[r] + np.flatnonzero(decisions[where.offsets[r] : where.offsets[r + 1]])
        rows = rows[in_s[parents[rows]]]
        allowed = allow[rows] & legal[rows]
        bare = rows[~allowed.any(axis=1)]
        allow[bare, default[bare]] = True
        allowed = allow[rows] & legal[rows]
        in_s[columns[rows][allowed]] = True
    return in_s


def restricted_lp(
    built: TableLP, in0: np.ndarray, in1: np.ndarray
) -> tuple[SequenceFormLP, np.ndarray, np.ndarray]:
    """The submatrix of the full LP that is the game restricted to the sequences in0 of
    player 0 and in1 of player 1 (module docstring), and which of the full LP's rows and
    columns it keeps (bool; rows: player 1's sequences, then player 0's decisions;
    columns: player 0's sequences, then player 1's decisions)."""
    lp = built.lp
    d0 = np.flatnonzero(reachable_rows(built.where, 0))
    d1 = np.flatnonzero(reachable_rows(built.where, 1))
    eq_rows = np.concatenate([[True], in0[built.parents[0][d0]]])
    rows = np.concatenate([in1, eq_rows])
    q_cols = np.concatenate([[True], in1[built.parents[1][d1]]])
    cols = np.concatenate([in0, q_cols])
    matrix = lp.matrix()[np.flatnonzero(rows)][:, np.flatnonzero(cols)]
    matrix.sort_indices()
    restricted = SequenceFormLP(
        matrix.indptr.astype(np.int32),
        matrix.indices.astype(np.int32),
        matrix.data,
        lp.col_cost[cols],
        lp.col_lower[cols],
        lp.col_upper[cols],
        lp.row_lower[rows],
        lp.row_upper[rows],
        int(in0.sum()),
        int(in1.sum()),
    )
    return restricted, rows, cols


def _gaps(q: np.ndarray, allow: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """At each row of ``rows``: max_a Q - max_{a allowed} Q, and the best bid (index)."""
    best = np.argmax(q[rows], axis=1)
    top = q[rows, best]
    within = np.where(allow[rows], q[rows], -np.inf).max(axis=1)
    return top - within, best


def double_oracle(
    game: ImperfectGame,
    start: tuple[np.ndarray, np.ndarray] | None = None,
    target: float = 0.0,
    max_rounds: int = MAX_ROUNDS,
    built: TableLP | None = None,
    progress: Callable[[Round, tuple[np.ndarray, np.ndarray]], None] | None = None,
    first_round: int = 1,
) -> tuple[tuple[np.ndarray, np.ndarray], list[Round]]:
    """An epsilon-equilibrium of ``game`` by the loop of the module docstring: both
    players' policy rows (exact distributions) and the rounds.  ``start``: both players'
    allowed cells to begin with (a guess of the support: a CFR+ average's bids above a
    threshold, or a checkpoint's cells), else none (each decision's best bid against the
    uniform policy); the loop stops when the proven NashConv is at most ``target``, when
    no gap is left, or after ``max_rounds`` rounds.  ``progress(round, allowed cells)``
    is called after each round with the cells the next round starts from."""
    built = built or table_lp(game)
    where = built.where
    legal = legal_rows(where)
    uniform = dyadic_rows(np.zeros(legal.shape), legal)
    _, q = best_response_actions(where, uniform, uniform)
    allow = [np.zeros(legal.shape, dtype=bool), np.zeros(legal.shape, dtype=bool)]
    if start is not None:
        allow = [start[0] & legal, start[1] & legal]
    default = [np.argmax(q[0], axis=1), np.argmax(q[1], axis=1)]
    decisions = [reachable_rows(where, 0), reachable_rows(where, 1)]
    rounds: list[Round] = []
    for number in range(first_round, first_round + max_rounds):
        began = time.perf_counter()
        in_s = [closure(built, p, allow[p], default[p], legal) for p in (0, 1)]
        lp, _, _ = restricted_lp(built, in_s[0], in_s[1])
        built_at = time.perf_counter()
        solver = "ipm" if max(lp.n_own, lp.n_ub) >= IPM_FROM else "simplex"
        x, y, _ = lp_plans(lp, solver)
        solved_at = time.perf_counter()
        plans = [np.zeros(built.sequences[p]) for p in (0, 1)]
        plans[0][in_s[0]], plans[1][in_s[1]] = x, y
        sigmas = [dyadic_rows(built.behaviour(p, plans[p]), legal) for p in (0, 1)]
        certificate = certify(game, sigmas[0], sigmas[1], "bound")
        added = [0, 0]
        if certificate.epsilon > target:
            _, q = best_response_actions(where, sigmas[0], sigmas[1])
            for p in (0, 1):
                parents = built.parents[p]
                rows = np.flatnonzero(decisions[p])
                rows = rows[in_s[p][parents[rows]]]
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
            )
        )
        if progress is not None:
            progress(rounds[-1], (allow[0], allow[1]))
        if certificate.epsilon <= target or not any(added):
            return (sigmas[0], sigmas[1]), rounds
    return (sigmas[0], sigmas[1]), rounds


def solve_double_oracle(
    game: ImperfectGame,
    start_iterations: int = START_ITERATIONS,
    checkpoint=None,
    method: str | None = None,
    progress: Callable[[str], None] | None = None,
    target: float = TARGET,
) -> CertifiedEquilibrium:
    """An epsilon-equilibrium of ``game`` by the double oracle (module docstring), from
    the support of ``start_iterations`` of predictive CFR+ (none: from nothing), resumed
    from ``checkpoint`` where that file exists and saved to it after every round; its
    NashConv proven by ``method`` (default :func:`~exact.imperfect.certified.default_method`)."""
    tell = progress or (lambda _: None)
    begin = time.perf_counter()
    where = layout(game)
    check_memory(game, where.bytes_needed() + where.rows * where.n * 16, "best-response tables")
    first, allow = 1, None
    if checkpoint is not None and Path(checkpoint).exists():
        done, allow = read_support(game, checkpoint)
        first = done + 1
        tell(f"resumed from {checkpoint} after round {done:,}")
    elif start_iterations > 0:
        tell(f"guessing the support: {start_iterations:,} iterations of predictive CFR+")
        state = CFRPlus.start(game, "pcfr+")
        state.run(start_iterations)
        average = state.average()
        allow = (average[0] >= START_THRESHOLD, average[1] >= START_THRESHOLD)
        del state
    built = table_lp(game)
    tell(f"sequence-form LP built: {built.sequences[0]:,} sequences per player")

    def report(done: Round, cells) -> None:
        if checkpoint is not None:
            write_support(checkpoint, game, done.round, cells)
        tell(
            f"round {done.round}: restricted LP {done.sequences[0]:,} + {done.sequences[1]:,} "
            f"sequences; NashConv <= {done.certificate.epsilon:.3e} (proven); bids added "
            f"{done.added[0]:,} + {done.added[1]:,}; {sum(done.seconds.values()):.0f} s"
        )

    sigmas, rounds = double_oracle(
        game, allow, target, built=built, progress=report, first_round=first
    )
    solved = time.perf_counter()
    method = method or default_method(game)
    certificate = rounds[-1].certificate if method == "bound" else certify(game, *sigmas, method)
    sizes = {
        "sequences": list(built.sequences),
        "restricted_sequences": list(rounds[-1].sequences),
        "rounds": rounds[-1].round,
        "start_iterations": start_iterations,
    }
    seconds = {"solve": solved - begin, "certify": certificate.seconds}
    source = (
        "a double oracle over sequences (Bošanský et al. 2014): restricted sequence-form LPs "
        "(HiGHS) grown by the tables' best responses"
        + (", from a predictive CFR+ support guess" if start_iterations > 0 else "")
    )
    return CertifiedEquilibrium(game, sigmas, certificate, sizes, seconds, source)
