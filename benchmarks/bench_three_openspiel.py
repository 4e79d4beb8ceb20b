"""OpenSpiel's own NashConv of the three-player discard equilibrium (random prize order).

    nice -n 10 python benchmarks/bench_three_openspiel.py 4 [--policy-out FILE]

Solves the ``discard`` game, writes the policy table, and runs
``open_spiel.python.algorithms.exploitability.nash_conv`` on
``convert_to_turn_based(goofspiel(players=3, imp_info=False, returns_type=total_points))``
with it (a state with one legal action plays it), beside our proven bound.
"""

from __future__ import annotations

import argparse
import json
import time

import pyspiel
from open_spiel.python import policy
from open_spiel.python.algorithms import exploitability

import exact.three as three
from exact.three.openspiel import policy_json


class TablePolicy(policy.Policy):
    """A policy table as written by ``--policy-out`` (forced states left out)."""

    def __init__(self, game, table):
        super().__init__(game, list(range(game.num_players())))
        self.table = table

    def action_probabilities(self, state, player_id=None):
        legal = state.legal_actions()
        if len(legal) == 1:
            return {legal[0]: 1.0}
        return {int(a): p for a, p in self.table[state.information_state_string()].items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("--policy-out", default=None)
    args = ap.parse_args()
    t = time.process_time()
    sol = three.solve(args.n, "discard")
    table = policy_json(sol)
    ours = three.certify(sol)
    solve_s = time.process_time() - t
    if args.policy_out:
        with open(args.policy_out, "w") as fh:
            json.dump(table, fh)
    game = pyspiel.convert_to_turn_based(
        pyspiel.load_game(
            "goofspiel",
            {"num_cards": args.n, "players": 3, "imp_info": False, "returns_type": "total_points"},
        )
    )
    t = time.process_time()
    conv = exploitability.nash_conv(game, TablePolicy(game, table))
    print(
        json.dumps(
            {
                "n": args.n,
                "states_in_table": len(table),
                "openspiel_nash_conv": conv,
                "openspiel_cpu_s": round(time.process_time() - t, 1),
                "our_bound": ours.bound,
                "our_estimate": ours.estimate,
                "solve_and_certify_cpu_s": round(solve_s, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
