"""CFR+ on imperfect-information Goofspiel (numba, over the tables of
:mod:`exact.imperfect.tables`), for games whose sequence-form LP is too big.

CFR+ (Tammelin, "Solving large imperfect information games using CFR+", arXiv:1407.5042,
2014; Tammelin, Burch, Johanson & Bowling, "Solving heads-up limit Texas hold'em", IJCAI
2015): counterfactual regret minimisation (Zinkevich, Johanson, Bowling & Piccione, NIPS
2007) with regret matching+ (cumulative regrets floored at 0 after every update),
alternating updates (player 0, then player 1 against player 0's new strategy) and the
average strategy weighted linearly (iteration t weighs t).  One iteration, for each
player i in turn:

1. the counterfactual action values of i's last-round decisions,
   Q_i(I, a) = sum_{h in I} pi_-i(h) sum_b sigma_-i(b) u_i(h a b), by
   :func:`exact.imperfect.fast._walk` (the walk of the best response, with player i's
   reach only, zero-reach branches cut);
2. i's own reach pi_i(I) top down, and the average's numerator
   S(I, a) += t pi_i(I) sigma_i(a | I) (:func:`_accumulate`);
3. bottom up (:func:`_update`), with V(I) = sum_a sigma_i(a | I) Q_i(I, a) and
   Q_i(I, a) = sum_{w, p} V(I a w p) below the last round (as the best response sums
   its children, :mod:`exact.imperfect.fast`), R(I, a) <- max(R(I, a) + Q_i(I, a) - V(I), 0)
   and sigma_i(. | I) proportional to R(I, .) (uniform where all are 0).

The average policy S / sum S (uniform where S is 0) converges to a Nash equilibrium; its
NashConv is then *proven*, not estimated, by :func:`exact.imperfect.certified.certify`
(the policy put on the dyadic grid, the float NashConv plus its a-priori error bound).
Nothing here is trusted: CFR only proposes the policy.

State (regrets, strategies, averages, iteration) is saved to and resumed from a checkpoint
(:mod:`exact.imperfect.checkpoint`: written atomically every :data:`CHECKPOINT_SECONDS`
of work and at the end; checked whole before a kernel sees it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from exact.errors import GopsInputError
from exact.imperfect.certified import (
    Certificate,
    CertifiedEquilibrium,
    certify,
    default_method,
    dyadic_rows,
    round_up,
)
from exact.imperfect.checkpoint import MAX_ITERATIONS, read_checkpoint, write_checkpoint
from exact.imperfect.fast import PIDX, PMASK, PRIZE, _decode, _rank, _walk
from exact.imperfect.game import IMP_INFO, ImperfectGame
from exact.imperfect.tables import Layout, check_memory, layout, legal_rows

#: The variants: (prediction weight, power of t in the average's weight).  cfr+: CFR+
#: (Tammelin 2014), linear average; pcfr+: predictive CFR+ (Farina, Kroer & Sandholm,
#: AAAI 2021), the next strategy from [R + r]^+ with r the last instantaneous regret,
#: quadratic average.
VARIANTS = {"cfr+": (0.0, 1), "pcfr+": (1.0, 2)}

__all__ = ["CHECKPOINT_SECONDS", "VARIANTS", "CFRPlus", "average_policy", "solve_cfr"]


@numba.njit(cache=True, nogil=True)
def _child(n, r, order, own_seqs, offsets, pidx, pmask, sidx, own, widx, a, w, p):
    """The row of the decision after bid ``a``, winner ``w`` (0, 1, 2 a tie), prize
    ``p`` at a row of round ``r`` < last (:mod:`exact.imperfect.tables`)."""
    pow3 = 3**r
    sidx2 = sidx * (n - r) + _rank(own, a)
    widx2 = widx + w * pow3
    if order != 0:
        return offsets[r + 1] + sidx2 * pow3 * 3 + widx2
    pidx2 = pidx * (n - r - 1) + _rank(pmask, p)
    return offsets[r + 1] + (pidx2 * own_seqs[r + 1] + sidx2) * pow3 * 3 + widx2


@numba.njit(cache=True, nogil=True)
def _accumulate(n, last, order, prize_seqs, own_seqs, offsets, sigma, weight, reach, avg):
    """Step 2 (module docstring): own reach top down, S += weight reach sigma."""
    reach[offsets[0] : offsets[1]] = 1.0
    for r in range(last + 1):
        pow3 = 3**r
        for pidx in range(prize_seqs[r]):
            pmask = _decode(pidx, r + 1, n) if order == 0 else 0
            for sidx in range(own_seqs[r]):
                own = _decode(sidx, r, n)
                for widx in range(pow3):
                    row = offsets[r] + (pidx * own_seqs[r] + sidx) * pow3 + widx
                    here = reach[row]
                    for a in range(1, n + 1):
                        if own & (1 << (a - 1)):
                            continue
                        mass = here * sigma[row, a - 1]
                        avg[row, a - 1] += weight * mass
                        if r == last:
                            continue
                        for w in range(3):
                            for p in range(1, n + 1):
                                if order == 0 and pmask & (1 << (p - 1)):
                                    continue
                                if order != 0 and p > 1:
                                    break
                                child = _child(
                                    n, r, order, own_seqs, offsets, pidx, pmask, sidx, own,
                                    widx, a, w, p,
                                )  # fmt: skip
                                reach[child] = mass


@numba.njit(cache=True, nogil=True)
def _update(n, last, order, prize_seqs, own_seqs, offsets, q, sigma, regret, values, predict):
    """Step 3 (module docstring): values, regrets (floored at 0) and the new strategy,
    bottom up; returns the player's counterfactual value of the whole game."""
    action = np.zeros(n)
    for r in range(last, -1, -1):
        pow3 = 3**r
        for pidx in range(prize_seqs[r]):
            pmask = _decode(pidx, r + 1, n) if order == 0 else 0
            for sidx in range(own_seqs[r]):
                own = _decode(sidx, r, n)
                for widx in range(pow3):
                    row = offsets[r] + (pidx * own_seqs[r] + sidx) * pow3 + widx
                    value = 0.0
                    for a in range(1, n + 1):
                        action[a - 1] = 0.0
                        if own & (1 << (a - 1)):
                            continue
                        if r == last:
                            action[a - 1] = q[row - offsets[last], a - 1]
                        else:
                            for w in range(3):
                                for p in range(1, n + 1):
                                    if order == 0 and pmask & (1 << (p - 1)):
                                        continue
                                    if order != 0 and p > 1:
                                        break
                                    action[a - 1] += values[
                                        _child(
                                            n,
                                            r,
                                            order,
                                            own_seqs,
                                            offsets,
                                            pidx,
                                            pmask,
                                            sidx,
                                            own,
                                            widx,
                                            a,
                                            w,
                                            p,
                                        )  # fmt: skip
                                    ]
                        value += sigma[row, a - 1] * action[a - 1]
                    values[row] = value
                    total, legal = 0.0, 0
                    for a in range(1, n + 1):
                        if own & (1 << (a - 1)):
                            continue
                        legal += 1
                        gain = action[a - 1] - value
                        regret[row, a - 1] = max(regret[row, a - 1] + gain, 0.0)
                        # predictive: the next strategy also counts this gain once more
                        action[a - 1] = max(regret[row, a - 1] + gain * predict, 0.0)
                        total += action[a - 1]
                    for a in range(1, n + 1):
                        if own & (1 << (a - 1)):
                            continue
                        sigma[row, a - 1] = action[a - 1] / total if total > 0 else 1 / legal
    total = 0.0
    for row in range(offsets[0], offsets[1]):
        total += values[row]
    return total


def average_policy(avg: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The average strategy S / sum S on the dyadic grid (uniform where S is 0), rows
    summing to exactly 1 (:func:`exact.imperfect.certified.dyadic_rows`)."""
    return dyadic_rows(avg, legal)


@dataclass
class CFRPlus:
    """CFR+ state for one game (module docstring); ``iteration`` iterations done."""

    game: ImperfectGame
    where: Layout
    sigma: list[np.ndarray]
    regret: list[np.ndarray]
    avg: list[np.ndarray]
    iteration: int = 0
    variant: str = "cfr+"

    @classmethod
    def start(cls, game: ImperfectGame, variant: str = "cfr+") -> CFRPlus:
        """Uniform strategies, zero regrets, iteration 0; ``variant`` one of
        :data:`VARIANTS`."""
        if game.information != IMP_INFO:
            raise GopsInputError("CFR+ runs on OpenSpiel's imp_info game")
        if variant not in VARIANTS:
            raise GopsInputError(
                f"the CFR variant is one of {', '.join(VARIANTS)}, not {variant!r}"
            )
        where = layout(game)
        check_memory(game, where.cfr_bytes_needed(), "CFR+ tables")
        legal = legal_rows(where)
        uniform = legal / np.maximum(legal.sum(axis=1, keepdims=True), 1)
        zeros = [np.zeros((where.rows, where.n)) for _ in range(4)]
        return cls(game, where, [uniform.copy(), uniform.copy()], zeros[:2], zeros[2:], 0, variant)

    def _q(self, player: int) -> np.ndarray:
        """Step 1 for ``player``: its last-round counterfactual action values."""
        where = self.where
        a = where.arrays()
        n, order = where.n, where.order
        q = [np.zeros((where.last_rows, n)), np.zeros((where.last_rows, n))]
        g = np.array([n, where.last, order, int(where.objective_win)], dtype=np.int64)
        t = (a["fixed"], a["own_sequences"], a["offsets"], *self.sigma, *q)
        firsts = [int(a["fixed"][0])] if order != 0 else list(range(1, n + 1))
        chance = 1.0 if order != 0 else 1.0 / n
        reach = np.zeros(2)
        reach[player] = chance
        for p in firsts:
            root = np.zeros(10, dtype=np.int64)
            root[PMASK], root[PIDX], root[PRIZE] = 1 << (p - 1), p - 1 if order == 0 else 0, p
            _walk(root, reach, g, t)
        return q[player]

    def step(self) -> None:
        """One CFR+ iteration (both players, alternating)."""
        where = self.where
        a = where.arrays()
        shape = (where.n, where.last, where.order, a["prize_sequences"], a["own_sequences"],
                 a["offsets"])  # fmt: skip
        self.iteration += 1
        predict, power = VARIANTS[self.variant]
        weight = float(self.iteration) ** power
        for player in (0, 1):
            q = self._q(player)
            reach = np.zeros(where.rows)
            _accumulate(*shape, self.sigma[player], weight, reach, self.avg[player])
            values = np.zeros(where.rows)
            _update(*shape, q, self.sigma[player], self.regret[player], values, predict)

    def average(self) -> tuple[np.ndarray, np.ndarray]:
        """Both players' average policies, exactly normalised (module docstring)."""
        legal = legal_rows(self.where)
        return average_policy(self.avg[0], legal), average_policy(self.avg[1], legal)

    def certify(self) -> Certificate:
        """A proven bound on the average policy's NashConv (float NashConv + bound)."""
        return certify(self.game, *self.average(), "bound")

    def run(self, iterations: int) -> None:
        """``iterations`` more iterations."""
        for _ in range(iterations):
            self.step()

    def save(self, path) -> None:
        """The state as a checkpoint (:mod:`exact.imperfect.checkpoint`), written
        atomically."""
        arrays = {f"{name}{player}": getattr(self, name)[player]
                  for name in ("sigma", "regret", "avg") for player in (0, 1)}  # fmt: skip
        write_checkpoint(path, self.game, self.variant, self.iteration, arrays)

    @classmethod
    def load(cls, game: ImperfectGame, path) -> CFRPlus:
        """The state saved by :meth:`save` for ``game``, every part of it checked
        (:func:`~exact.imperfect.checkpoint.read_checkpoint`; a one-line GopsInputError
        otherwise)."""
        data = read_checkpoint(game, path, VARIANTS)
        return cls(
            game,
            layout(game),
            [data["sigma0"], data["sigma1"]],
            [data["regret0"], data["regret1"]],
            [data["avg0"], data["avg1"]],
            data["iteration"],
            data["variant"],
        )


#: A run saves its checkpoint at least this often (seconds of work): a kill loses at most
#: this much.
CHECKPOINT_SECONDS = 300.0
#: A checkpoint also proves the average policy's NashConv bound where the best-response
#: tables take at most this (bytes): up to 7 cards in a fixed order (0.1 GiB, 1.5 s); at
#: 8 cards (4.0 GiB, minutes, beside CFR+'s 8.1 GiB) only the end of a run proves it.
PROVE_AT_CHECKPOINT_BYTES = 2**30
#: A run reports its progress at least this often (seconds), and at every tenth of it.
PROGRESS_SECONDS = 30.0


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _run(
    state: CFRPlus,
    iterations: int,
    checkpoint,
    tell: Callable[[str], None],
    checkpoint_seconds: float | None = None,
) -> None:
    """``iterations`` more iterations of ``state``, with progress lines (iteration, rate,
    time left) and, where ``checkpoint`` is a path, the state saved every
    ``checkpoint_seconds`` (default :data:`CHECKPOINT_SECONDS`) with the proven NashConv
    bound of its average policy."""
    if checkpoint_seconds is None:
        checkpoint_seconds = CHECKPOINT_SECONDS
    start = last_tell = last_save = time.monotonic()
    first = state.iteration
    target = first + iterations
    tenth = max(1, iterations // 10)
    for done in range(1, iterations + 1):
        state.step()
        now = time.monotonic()
        per = (now - start) / done
        if done == 1 and per * iterations > PROGRESS_SECONDS:
            tell(f"CFR+ iteration {state.iteration} took {per:.2f} s: the {iterations:,} "
                 f"iterations asked for take about {_duration(per * iterations)}")  # fmt: skip
        elif done % tenth == 0 or now - last_tell >= PROGRESS_SECONDS:
            tell(f"CFR+ iteration {state.iteration:,} of {target:,} ({per:.2f} s each, about "
                 f"{_duration(per * (iterations - done))} left)")  # fmt: skip
            last_tell = now
        if checkpoint is not None and done < iterations and now - last_save >= checkpoint_seconds:
            state.save(checkpoint)
            saved = f"checkpoint {checkpoint} saved at iteration {state.iteration:,}"
            if state.where.bytes_needed() <= PROVE_AT_CHECKPOINT_BYTES:
                proof = state.certify()
                saved += (f"; the average policy's NashConv <= {round_up(proof.epsilon):.3e} "
                          "(proven bound)")  # fmt: skip
            tell(saved)
            last_save = time.monotonic()


def solve_cfr(
    game: ImperfectGame,
    iterations: int,
    checkpoint=None,
    method: str | None = None,
    progress: Callable[[str], None] | None = None,
    variant: str = "cfr+",
) -> CertifiedEquilibrium:
    """``iterations`` CFR+ iterations on ``game`` (resumed from ``checkpoint`` where that
    file exists, saved to it every :data:`CHECKPOINT_SECONDS` and at the end), and a
    proven bound on the average policy's NashConv (``method``: ``rational`` or ``bound``;
    default :func:`~exact.imperfect.certified.default_method`)."""
    tell = progress or (lambda _: None)
    start = time.perf_counter()
    if checkpoint is not None and Path(checkpoint).exists():
        state = CFRPlus.load(game, checkpoint)
        if state.iteration + iterations > MAX_ITERATIONS:
            raise GopsInputError(
                f"{iterations:,} more iterations from iteration {state.iteration:,} pass the "
                f"{MAX_ITERATIONS:,} a checkpoint may count"
            )
        tell(f"resumed from {checkpoint} at iteration {state.iteration:,}")
    else:
        state = CFRPlus.start(game, variant)
    _run(state, iterations, checkpoint, tell)
    if checkpoint is not None:
        state.save(checkpoint)
    solved = time.perf_counter()
    sigmas = state.average()
    method = method or default_method(game)
    certificate = certify(game, *sigmas, method)
    sizes = {"iterations": state.iteration, "table_rows": state.where.rows}
    seconds = {"cfr": solved - start, "certify": certificate.seconds}
    source = "CFR+ (Tammelin 2014; alternating updates, linear averaging), its average policy"
    return CertifiedEquilibrium(game, sigmas, certificate, sizes, seconds, source)
