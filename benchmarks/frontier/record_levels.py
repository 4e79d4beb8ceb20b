"""Record the finished levels of a store run: each level's shape, SHA-256 and certified
radius as the store's manifest holds them, and when its file was last written.

The record lets a later run of the same game, on any machine, be compared with this one
level by level (the kernels are deterministic: the same code gives the same bits), and
says how far a run that may not finish in one sitting has come.  It reads the manifest
only; it proves nothing (``gops verify DIR`` re-derives a store).

Run:  python benchmarks/frontier/record_levels.py STORE OUT.json --note "..."
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib


def record(store: pathlib.Path, note: str) -> dict:
    manifest = json.loads((store / "manifest.json").read_text())
    levels = {}
    for k, entry in sorted(manifest["levels"].items(), key=lambda item: int(item[0])):
        written = (store / f"level-{k}.npy").stat().st_mtime
        levels[k] = {
            "shape": entry["shape"],
            "sha256": entry["sha256"],
            "radius": entry["radius"],
            "written_utc": datetime.datetime.fromtimestamp(written, datetime.timezone.utc).strftime(
                "%Y-%m-%d %H:%M:%S"
            ),
        }
    progress = {}
    for path in sorted(store.glob("level-*.progress")):
        items, radius = path.read_text().split()
        progress[path.stem.removeprefix("level-")] = {"items": int(items), "radius": float(radius)}
    return {
        "game": {key: manifest[key] for key in ("n", "objective", "arithmetic")},
        "note": note,
        "levels": levels,
        "under_way": progress,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=pathlib.Path)
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--note", default="", help="the command, commit, machine and date")
    args = parser.parse_args(argv)
    text = json.dumps(record(args.store, args.note), indent=1) + "\n"
    args.out.write_text(text)


if __name__ == "__main__":
    main()
