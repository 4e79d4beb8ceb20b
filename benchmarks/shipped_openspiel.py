"""OpenSpiel's own NashConv of every shipped equilibrium of imperfect-information
Goofspiel up to MAX_N cards (exact.imperfect.shipped), beside the bound proven for it.

    python benchmarks/shipped_openspiel.py [MAX_N [ORDER]]   # default 6, every order

``exploitability.nash_conv`` of OpenSpiel (Lanctot et al. 2017) on the turn-based game,
the shipped policy put into a ``TabularPolicy`` as floats; each line: the game, the bound
proven by gops (exact or float with its error bound), OpenSpiel's figure, whether it is at
most the bound (within OPENSPIEL_TOLERANCE, its own float rounding), and its seconds.
"""

from __future__ import annotations

import json
import lzma
import sys
import time
from fractions import Fraction

from open_spiel.python import policy as openspiel_policy
from open_spiel.python.algorithms import exploitability

from exact.imperfect.game import ImperfectGame
from exact.imperfect.policy import openspiel_game
from exact.imperfect.shipped import FOLDER, index

#: OpenSpiel's float NashConv may exceed the exact one by its own rounding.
OPENSPIEL_TOLERANCE = 1e-12


def main(max_n: int, order: str | None = None) -> int:
    print(f"{'game':<24} {'proven <=':>10} {'OpenSpiel':>10} {'ok':>3} {'seconds':>8}")
    failures = 0
    for entry in index():
        if entry["n"] > max_n or order not in (None, entry["order"]):
            continue
        game = ImperfectGame.parse(entry["n"], entry["order"], entry["objective"])
        start = time.perf_counter()
        turn_based = openspiel_game(game)
        tabular = openspiel_policy.TabularPolicy(turn_based)
        data = json.loads(lzma.decompress((FOLDER / entry["file"]).read_bytes()))
        for string, row in tabular.state_lookup.items():
            for action, p in data.get(string, {}).items():
                tabular.action_probability_array[row, int(action)] = float(Fraction(p))
        theirs = exploitability.nash_conv(turn_based, tabular)
        ok = theirs <= entry["nash_conv_float"] + OPENSPIEL_TOLERANCE
        failures += not ok
        name = f"{entry['n']} {entry['order']} {entry['objective']}"
        print(
            f"{name:<24} {entry['nash_conv_float']:>10.2e} {theirs:>10.2e} "
            f"{'yes' if ok else 'NO':>3} {time.perf_counter() - start:>8.1f}",
            flush=True,
        )
    return failures


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 6, *sys.argv[2:3]))
