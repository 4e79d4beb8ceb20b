"""Ship the exact 6-card certificates of imperfect-information Goofspiel beside the shipped
equilibria (exact/imperfect/equilibria/), xz-compressed, listed in ``certificates.json``.

    python benchmarks/ship_certificates.py                      # every game of GAMES
    python benchmarks/ship_certificates.py 6:descending:win     # one game
    python benchmarks/ship_certificates.py 6:descending:win --from FILE  # a written one

Each certificate is written by ``gops imperfect certify`` (the LP's basis solved exactly
by numeric lifting: exact.imperfect.exact_tables) in a child process, or taken ``--from``
a file it wrote, then validated by the independent checker (``python -m certificates``)
before it is shipped.  ``certificates.json`` is its own index (not ``index.json``, whose
entries are policy files that ``gops imperfect solve`` reads): one entry per game with
the compressed file's SHA-256 and bytes, the plans' denominator bits and the command that
regenerates it.  Entries of other games are kept as they are.  To check a shipped one:
``xz -dc exact/imperfect/equilibria/FILE.cert.xz > c.cert && python -m certificates c.cert``.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FOLDER = Path(__file__).resolve().parent.parent / "exact" / "imperfect" / "equilibria"
INDEX = FOLDER / "certificates.json"
FORMAT = "gops imperfect certificates 1"
GAMES = [(6, order, objective) for order in ("descending", "ascending")
         for objective in ("points", "win")]  # fmt: skip


def file_name(n: int, order: str, objective: str) -> str:
    return f"goofspiel-imp-{n}-{order}-{objective}.cert.xz"


def entries() -> list[dict]:
    if not INDEX.exists():
        return []
    data = json.loads(INDEX.read_text(encoding="utf-8"))
    if data.get("format") != FORMAT:
        sys.exit(f"{INDEX} is not an index of shipped certificates ({FORMAT!r})")
    return data["certificates"]


def denominator_bits(raw: bytes) -> list[int]:
    """The bits of each plan's common denominator, read off the section headers (an
    Integer: a msgpack int, or big-endian two's-complement bytes: FORMAT.md)."""
    import msgpack

    bits = []
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=len(raw) + 1)
    unpacker.feed(raw)
    for obj in unpacker:
        if type(obj) is dict and "denominator" in obj:
            d = obj["denominator"]
            d = int.from_bytes(d, "big", signed=True) if type(d) is bytes else d
            bits.append(d.bit_length())
    return bits


def one(n: int, order: str, objective: str, source: str) -> dict:
    """Certify (or read ``source``), check, compress and record one game; its entry."""
    from exact.atomic import atomic_file

    command = f"gops imperfect certify {n} --order {order} --objective {objective} --out FILE"
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(source) if source else Path(scratch) / "c.cert"
        start = time.perf_counter()
        report = {}
        if not source:
            child = subprocess.run(
                [sys.executable, "-m", "exact.cli", *command.split()[1:-1], str(path),
                 "--json", "--quiet"],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            report = json.loads(child.stdout)
        certified = time.perf_counter() - start
        checked = subprocess.run(
            [sys.executable, "-m", "certificates", str(path)], capture_output=True, text=True
        )
        if checked.returncode != 0:
            sys.exit(f"the checker rejects {path}: {checked.stdout.strip()}")
        raw = path.read_bytes()
    packed = lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME)
    name = file_name(n, order, objective)
    with atomic_file(FOLDER / name, "wb") as fh:
        fh.write(packed)
    entry = {
        "n": n,
        "order": order,
        "objective": objective,
        "file": name,
        "sha256": hashlib.sha256(packed).hexdigest(),
        "bytes": len(packed),
        "uncompressed_bytes": len(raw),
        "checker": checked.stdout.strip(),
        "command": command,
        "denominator_bits": denominator_bits(raw),
        "seconds": {"certify": round(certified, 1)} if report else {},
    }
    kept = [e for e in entries() if e["file"] != name]
    with atomic_file(INDEX, "w") as fh:
        json.dump({"format": FORMAT, "certificates": [*kept, entry]}, fh, indent=1)
        fh.write("\n")
    return entry


def main(argv: list[str]) -> None:
    source = ""
    if "--from" in argv:
        at = argv.index("--from")
        source, argv = argv[at + 1], argv[:at] + argv[at + 2 :]
    wanted = [tuple(a.split(":")) for a in argv]
    games = [g for g in GAMES if not wanted or (str(g[0]), g[1], g[2]) in wanted]
    if wanted and len(games) != len(wanted) or source and len(games) != 1:
        sys.exit(f"unknown games {argv}, or --from with more than one (games: {GAMES})")
    for n, order, objective in games:
        entry = one(n, order, objective, source)
        print(f"{n} {order} {objective}: {entry['bytes']:,} B xz, {entry['checker']}")


if __name__ == "__main__":
    main(sys.argv[1:])
