"""The face-up declarations game by N: time, peak memory, the start's value, the earliest
declaration and the winner's expected score of the computed equilibrium, and the
certificate's size and checking time.

    python benchmarks/bench_declarations.py --exact 2 3 4 5 6 --float 5 6 7

Each N runs in a fresh process (its peak resident memory is that process's alone).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ONE = """
import json, sys, time
from exact.declarations import solve
n, exact, cert = int(sys.argv[1]), sys.argv[2] == "exact", sys.argv[3] or None
sol = solve(n, exact=exact, certificate=cert)
st = sol.stats
row = {
    "value": str(sol.value), "radius": sol.radius, "seconds": sol.seconds,
    "positions": sum(sol.positions.values()), "games": sol.games_solved,
    "records": sol.certificate_records,
}
if st is not None:
    row |= {
        "earliest": st.earliest_declaration,
        "declare_by_round": [float(p) for p in st.declare_by_round],
        "expected_score": float(st.expected_score),
    }
print(json.dumps(row))
"""


def run(n: int, exact: bool, folder: str) -> dict:
    cert = os.path.join(folder, f"decl{n}.cert") if exact else ""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", ONE, str(n), "exact" if exact else "float", cert],
        capture_output=True,
        text=True,
        check=True,
    )
    row = json.loads(out.stdout)
    row["wall"] = time.perf_counter() - start
    row["peak_mib"] = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    if exact:
        t = time.perf_counter()
        check = subprocess.run(
            [sys.executable, "-m", "certificates", cert, "--quiet"], capture_output=True, text=True
        )
        row["check"] = check.stdout.strip()
        row["check_seconds"] = time.perf_counter() - t
        row["cert_bytes"] = os.path.getsize(cert)
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--exact", type=int, nargs="*", default=[2, 3, 4, 5])
    parser.add_argument("--float", dest="floats", type=int, nargs="*", default=[5, 6])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for exact, ns in ((True, args.exact), (False, args.floats)):
            for n in ns:
                row = run(n, exact, folder)
                print(f"{'exact' if exact else 'float'} N={n}: {json.dumps(row)}", flush=True)


if __name__ == "__main__":
    main()
