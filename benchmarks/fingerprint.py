"""Fingerprints of what users see, to compare two versions of the code byte for byte.

Prints the SHA-256 of the output of table, strategy, audit, evaluate and variant (--json)
and compare-objectives (text, its timing line left out) at small N, and of every level of
the stores of the given N.  Run it once per version and diff the two files; for an older
revision, check it out with ``git worktree add`` and put that folder first on PYTHONPATH:

    python benchmarks/fingerprint.py --stores 10,11,12 > new.txt
    git worktree add /tmp/old REV && (cd /tmp/old && PYTHONPATH=/tmp/old \
        python /path/to/benchmarks/fingerprint.py --stores 10,11,12 > old.txt)
    diff old.txt new.txt
"""

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

COMMANDS = [
    "table 5 --json",
    "table 7 --json",
    "table 6 --json --objective win",
    "table 5 --json --objective win --lead 2",
    "table 5 --json --ranges",
    "strategy --mine 1,3,5 --theirs 2,4,5 --deck 1,2,5 --upcard 2 --n 5 --json",
    "strategy --mine 1,3,5 --theirs 2,4,5 --deck 1,2,5 --upcard 2 --n 5 --json --exact",
    "strategy --mine 1,3,5,6 --theirs 2,4,5,6 --deck 1,2,5,6 --upcard 6 --n 6 --json"
    " --objective win --lead 1",
    "strategy --mine 1,3,5 --theirs 2,4,5 --deck 1,2,5 --upcard 2 --n 5 --json --exact"
    " --objective win --lead -1",
    "audit 5 --json --quiet",
    "evaluate 4 --json --bots optimal,upcard",
    "evaluate 4 --json --bots optimal-win,random",
    "evaluate 5 --json --bots optimal,lowest --float",
    "variant twelve 5 --json",
    "variant dummy 4 --json",
    "variant twelve 4 --json --exact",
    "compare-objectives 5 --quiet",
    "compare-objectives 6 --upcard 3 --quiet",
]


# The installed entry point, whichever `exact` is first on the path (python -m exact.cli
# would run cli.py as __main__, apart from the commands its sibling modules register).
GOPS = "import sys; from exact.cli import main; sys.argv[0] = 'gops'; main()"


def without_timings(out: bytes) -> bytes:
    """The output with its wall-clock fields ("seconds") removed: they differ run to run."""
    try:
        doc = json.loads(out)
    except ValueError:  # text: drop the lines that report a time ("float64; 3.2 s")
        return b"\n".join(
            line for line in out.split(b"\n") if not re.search(rb"\d s$|\d s\)", line)
        )
    if isinstance(doc, dict) and "seconds" in doc:
        doc.pop("seconds")
        return json.dumps(doc).encode()
    return out


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stores", default="")
    ap.add_argument("--store-root", default="/var/tmp/gops-fingerprint")
    ap.add_argument("--no-json", action="store_true")
    args = ap.parse_args()
    for cmd in [] if args.no_json else COMMANDS:
        r = subprocess.run([sys.executable, "-c", GOPS, *cmd.split()], capture_output=True)
        print(f"{sha(without_timings(r.stdout))[:16]} rc={r.returncode} gops {cmd}", flush=True)
    for n in [int(x) for x in args.stores.split(",") if x]:
        root = Path(args.store_root) / f"s{n}"
        shutil.rmtree(root, ignore_errors=True)
        subprocess.run(
            [sys.executable, "-m", "exact.cli", "solve", str(n), "--store", str(root), "--quiet"],
            check=True,
            capture_output=True,
        )
        for k in range(n + 1):
            print(f"{sha((root / f'level-{k}.npy').read_bytes())} N={n} level {k}", flush=True)
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
