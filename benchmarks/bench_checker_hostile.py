"""Hostile certificates: how long the checker takes to reject them, and its peak memory.

Each case is built from a valid small certificate of tests/cert_fixtures.py and checked
in a fresh process (``certificates.check``), ``--repeats`` times; the table gives the
median wall time, the exit code, the child's peak RSS and the start of the message.

- ``valid N=4``: the unmodified certificate (baseline of the same run).
- ``wrong record value``: N = 3, one level-2 record's value p/q written (p G + 1)/(q G),
  G a random 64 MiB - 10 bytes factor (an Integer at the format's limit): check 6 fails.
- ``wrong game value``: the same for a game value of that record: check 5 fails.
- ``product limit``: N = 4; the three level-2 children of one column of a level-3 game
  (x mixes three rows there) get values p G_r / q G_r with distinct 64 MiB factors G_r,
  x is scaled by another (its numerators and d), and that record comes first in its
  level.  The certificate stays valid, but that column multiplies three 2^29-bit
  denominators, a 2^29-bit numerator and a 2^29-bit weight: beyond the checker's limit
  of 2^31 bits, refused (exit 2) by the current checker; the checker before the limit
  computes it (GiBs, minutes), or, under ``--memory-limit-mib``, dies inside GMP.
- ``scaled values`` (``--scaled``): N = 4, every record's value p/q written p F_r / q F_r
  with distinct factors F_r of 10^6 digits: a valid 60 MB certificate.

    python benchmarks/bench_checker_hostile.py [--repeats 3] [--scaled]
        [--checker DIR] [--memory-limit-mib M] [--keep DIR] [--only NAME ...]

``--checker DIR`` checks with the ``certificates`` package found in DIR (for example an
older commit: ``git archive COMMIT certificates | tar -x -C DIR``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import cert_fixtures as cf  # noqa: E402  (test-only builder of small certificates)

#: Bits of a factor that keeps p G + 1 within one 64 MiB Integer (the format's limit).
BIG_BITS = 8 * ((64 << 20) - 10)
#: Bits of a 10^6-digit factor.
MILLION_DIGIT_BITS = 3_321_929

CHILD = """
import json, resource, sys, time
limit = int(sys.argv[2])
if limit:
    resource.setrlimit(resource.RLIMIT_AS, (limit << 20, limit << 20))
import certificates
t = time.perf_counter()
v = certificates.check(sys.argv[1])
seconds = time.perf_counter() - t
print(json.dumps({"code": v.code, "seconds": seconds, "message": v.message[:150],
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def factor(rng: random.Random, bits: int) -> int:
    """A random odd integer of exactly ``bits`` bits."""
    return rng.getrandbits(bits) | 1 | 1 << (bits - 1)


def level_records(objs, level: int) -> list[int]:
    out, k = [], None
    for i, o in enumerate(objs):
        if type(o) is dict and "level" in o:
            k = o["level"]
        elif type(o) is list and k == level:
            out.append(i)
    return out


def wrong_value(game: bool) -> list:
    objs = cf.certificate_objects(3)
    rec = objs[level_records(objs, 2)[-1]]
    G = factor(random.Random(1), BIG_BITS)
    if game:
        p, q = rec[4][0][3]
        rec[4][0][3] = [p * G + 1, q * G]
    else:
        p, q = rec[3]
        rec[3] = [p * G + 1, q * G]
    return objs


def children_of_column(rec, m: int, j: int, support: list[int]) -> list[tuple]:
    """Keys (mine, theirs, prizes) of the level-(k-1) records behind column j of game m:
    the child of bids (V_i, Y_j), i in ``support``, in its recorded orientation."""
    V = tuple(c + 1 for c in range(16) if rec[0] >> c & 1)
    Y = tuple(c + 1 for c in range(16) if rec[1] >> c & 1)
    u = rec[4][m][0]
    rest = cf.mask([c for c in range(1, 17) if rec[2] >> (c - 1) & 1 and c != u])
    keys = []
    for i in support:
        v = [c for c in V if c != V[i]]
        y = [c for c in Y if c != Y[j]]
        union = sorted(set(v) | set(y))
        mine = sum(1 << union.index(c) for c in v)
        theirs = sum(1 << union.index(c) for c in y)
        keys.append(
            (max(mine, theirs), min(mine, theirs), rest) if theirs != mine else (mine, theirs, rest)
        )
    return keys


def product_limit() -> list:
    """N = 4: a level-3 column whose x mixes three rows over three distinct children with
    nonzero values; those children scaled by distinct 64 MiB factors, the record first."""
    objs = cf.certificate_objects(4)
    by_key = {tuple(objs[i][:3]): i for i in level_records(objs, 2)}
    for i in level_records(objs, 3):
        rec = objs[i]
        for m, (_, x, _, _) in enumerate(rec[4]):
            support = [r for r, a in enumerate(x[0]) if a]
            if len(support) < 3:
                continue
            for j in range(3):
                keys = children_of_column(rec, m, j, support)
                if len(set(keys)) == 3 and all(objs[by_key[key]][3][0] for key in keys):
                    rng = random.Random(2)
                    for key in keys:
                        child = objs[by_key[key]]
                        G = factor(rng, BIG_BITS - 16)
                        child[3] = [child[3][0] * G, child[3][1] * G]
                    H = factor(rng, BIG_BITS - 16)
                    rec[4][m][1] = [[a * H for a in x[0]], x[1] * H]
                    first = level_records(objs, 3)[0]
                    objs[first], objs[i] = objs[i], objs[first]
                    return objs
    raise AssertionError("no level-3 column mixing three distinct children")


def scaled_values() -> list:
    objs = cf.certificate_objects(4)
    rng = random.Random(3)
    for o in objs:
        if type(o) is list:
            F = factor(rng, MILLION_DIGIT_BITS)
            o[3] = [o[3][0] * F, o[3][1] * F]
    return objs


CASES = {
    "valid N=4": lambda: cf.certificate_objects(4),
    "wrong record value": lambda: wrong_value(game=False),
    "wrong game value": lambda: wrong_value(game=True),
    "product limit": product_limit,
    "scaled values": scaled_values,
}


def run_child(path: Path, checker: Path, memory_limit_mib: int) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(memory_limit_mib)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(checker), "PATH": ""},
        cwd=path.parent,  # not the repository: python -c puts the cwd first on sys.path
    )
    if proc.returncode != 0:
        return {
            "code": proc.returncode,
            "seconds": float("nan"),
            "peak_mib": float("nan"),
            "message": (proc.stderr.strip().splitlines() or [""])[-1][:150],
        }
    return json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scaled", action="store_true", help="also the valid 60 MB scaled case")
    parser.add_argument(
        "--checker",
        type=Path,
        default=ROOT,
        help="directory holding the certificates package to run",
    )
    parser.add_argument(
        "--memory-limit-mib",
        type=int,
        default=0,
        help="RLIMIT_AS of the checking process (0: none)",
    )
    parser.add_argument("--keep", type=Path, help="write the certificates here")
    parser.add_argument("--only", nargs="*", help="case names to run")
    args = parser.parse_args()
    names = args.only or [n for n in CASES if n != "scaled values" or args.scaled]
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="hostile-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(
        f"checker: {args.checker}; repeats: {args.repeats}; "
        f"memory limit: {args.memory_limit_mib or 'none'} MiB"
    )
    print("| case | file MB | build s | exit | check s (median) | peak MiB | message |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        t = time.perf_counter()
        path = workdir / (name.replace(" ", "-").replace("=", "") + ".cert")
        if not path.exists():
            cf.write_objects(path, CASES[name]())
        built = time.perf_counter() - t
        runs = [run_child(path, args.checker, args.memory_limit_mib) for _ in range(args.repeats)]
        seconds = statistics.median(r["seconds"] for r in runs)
        peak = max(r["peak_mib"] for r in runs)
        print(
            f"| {name} | {path.stat().st_size / 1e6:.1f} | {built:.1f} | "
            f"{','.join(sorted({str(r['code']) for r in runs}))} | {seconds:.2f} | "
            f"{peak:.0f} | {runs[-1]['message'][:90]} |",
            flush=True,
        )
        if not args.keep:
            path.unlink()


if __name__ == "__main__":
    main()
