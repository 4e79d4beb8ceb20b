"""Count the stage games of a three-player solve without solving them.

    python benchmarks/count_three_stages.py N RULE [--objective top|points]

The induction's own recursion (:class:`exact.three.induction._Solver`) with each stage game
replaced by a zero stand-in: the positions and stage games visited are the solve's (one
per canonical position and upcard), only the mixes are not computed.  This is where the
totals of :data:`exact.three.rules.TOP_STAGE_GAMES` beyond the solved N come from (the
6-card split game: 2,536,486 stage games, 972,376 positions with the terminal ones, 1,145 s
of CPU); for N <= 5 the script gives the solves' counts of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from exact.three.induction import ThreeSolution, _Solver
from exact.three.rules import ThreeGame
from exact.three.stage import StageSolution

#: A progress line every this many stage games.
EVERY = 200_000


class _Counter(_Solver):
    """The recursion, each stage game's children visited (so every position is), none
    solved."""

    def stage(self, key, u) -> StageSolution:
        self.children(key, u)
        self.solved += 1
        if self.solved % EVERY == 0:
            print(f"{self.solved:,} stage games at {time.process_time():.0f} s of CPU", flush=True)
        return StageSolution((np.zeros(0),) * 3, np.zeros(3), 0.0, "forced")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("rule", choices=["split", "third", "discard"])
    parser.add_argument("--objective", default="top", choices=["top", "points"])
    args = parser.parse_args()
    game = ThreeGame.parse(args.n, args.rule, args.objective, "random")
    sol = ThreeSolution(game)
    counter = _Counter(game, sol)
    counter.value(sol.root)
    print(
        f"{game.describe()}: {counter.solved:,} stage games, {len(counter.values):,} "
        f"positions (with the terminal ones), {time.process_time():.0f} s of CPU"
    )


if __name__ == "__main__":
    main()
