"""Close a double oracle's run by two one-sided LPs, then prove the pair.

    python benchmarks/one_sided_lp.py N ORDER OBJECTIVE --checkpoint C --side 0 --out DIR
    python benchmarks/one_sided_lp.py N ORDER OBJECTIVE --checkpoint C --side 1 --out DIR
    python benchmarks/one_sided_lp.py N ORDER OBJECTIVE --pair DIR [--policy-out FILE]

A restricted game's LP (exact.imperfect.restricted) gives an equilibrium of the game
where *both* players bid within their sets; a vertex of it can be exploited by bids
outside them even when the sets hold an equilibrium's support.  The one-sided LP of
player p keeps p within its set S_p (the checkpoint's, closed) and lets the other bid
anything: player 0's LP of the restricted game with the other's set the whole game,
whose primal (p = 0) or dual (p = 1) plan is p's best strategy within S_p against every
strategy of the other (Koller, Megiddo & von Stengel 1996).  If both LPs reach the
game's value, the two strategies are each a maximin strategy of the whole game, so
together an equilibrium of it (von Neumann's minimax theorem).  Each side runs in its own
process (interior point and crossover, the basis re-solved by sparse LU, as the double
oracle's LPs are); ``--pair`` puts both behaviour tables on the grid 2^-52 and proves
their NashConv (float64 NashConv plus its proven error bound), whatever the LPs said,
and writes the policy file that ``benchmarks/ship_equilibria.py --from`` ships.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from exact.atomic import atomic_file
from exact.imperfect.certified import CertifiedEquilibrium, certify, dyadic_rows
from exact.imperfect.checkpoint import read_support
from exact.imperfect.fast import best_response_actions
from exact.imperfect.float_lp import lp_plans
from exact.imperfect.game import ImperfectGame
from exact.imperfect.restricted import GameTree, closure, restricted_lp


def one_side(game: ImperfectGame, allow: np.ndarray, side: int, tell=print):
    """Player ``side``'s best strategy within the set that ``allow`` (its allowed cells,
    closed as the double oracle closes them) makes, against the whole game of the other:
    (the LP's value to player 0, the behaviour table, float)."""
    began = time.perf_counter()
    tree = GameTree.of(game)
    legal = tree.legal
    uniform = dyadic_rows(np.zeros(legal.shape), legal)
    _, q = best_response_actions(tree.where, uniform, uniform)
    default = [np.argmax(q[p], axis=1) for p in (0, 1)]  # as the double oracle's closure
    other = 1 - side
    kept = closure(tree, side, allow & legal, default[side])
    whole = closure(tree, other, legal.copy(), default[other])
    built = restricted_lp(tree, *((kept, whole) if side == 0 else (whole, kept)))
    lp = built.lp
    tell(
        f"side {side}: {int(kept.sum()):,} sequences kept; LP {lp.num_row:,} rows x "
        f"{lp.num_col:,} columns, {built.payoff_nonzeros:,} payoff nonzeros"
    )
    x, y, facts = lp_plans(lp, "ipm")
    tell(
        f"side {side}: value {facts['value_float']:.3e}, {facts['ipm_iterations']} IPM "
        f"iterations, residual {facts['residual']:.1e}; {time.perf_counter() - began:.0f} s"
    )
    return facts["value_float"], built.behaviour(tree, side, x if side == 0 else y)


def pair(game: ImperfectGame, sigmas, tell=print):
    """Both sides' tables on the grid 2^-52 and their proven NashConv certificate."""
    tree = GameTree.of(game)
    grid = tuple(dyadic_rows(sigma, tree.legal) for sigma in sigmas)
    proof = certify(game, *grid, "bound")
    tell(
        f"NashConv <= {float(proof.epsilon):.4e} (proven: float {float(proof.nash_conv):.4e} "
        f"+ error bound {proof.error_bound:.1e}); best responses "
        f"{float(proof.best_responses[0]):.3e}, {float(proof.best_responses[1]):.3e}"
    )
    return grid, proof


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("order")
    parser.add_argument("objective")
    parser.add_argument("--checkpoint")
    parser.add_argument("--side", type=int, choices=(0, 1))
    parser.add_argument("--out", type=Path)
    parser.add_argument("--pair", type=Path)
    parser.add_argument("--policy-out")
    args = parser.parse_args()
    game = ImperfectGame.parse(args.n, args.order, args.objective)
    if args.pair is not None:
        sigmas = [np.load(args.pair / f"sigma{p}.npy") for p in (0, 1)]
        grid, proof = pair(game, sigmas)
        if args.policy_out:
            found = CertifiedEquilibrium(game, grid, proof, {}, {}, "one-sided LPs")
            with atomic_file(args.policy_out, "w") as fh:
                json.dump(found.policy_json(), fh)
            print(f"policy written to {args.policy_out}")
    elif args.checkpoint and args.side is not None and args.out is not None:
        allow = read_support(game, args.checkpoint).allow[args.side]
        _, sigma = one_side(game, allow, args.side, lambda line: print(line, flush=True))
        args.out.mkdir(parents=True, exist_ok=True)
        with atomic_file(args.out / f"sigma{args.side}.npy", "wb") as fh:
            np.save(fh, sigma)
    else:
        parser.error("give --checkpoint, --side and --out, or --pair")


if __name__ == "__main__":
    main()
