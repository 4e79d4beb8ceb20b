"""A store's manifest (``manifest.json``): its format, and the checks that make every
command read it alike.

Layout::

    {"format": "gops-store", "version": 2, "n": N, "objective": "points" | "win",
     ["order": O,] "arithmetic": "float", "chunk_items": C,
     ["keep_from": K[, "below_in_memory": true]],
     "writer": {"backend": B[, "device": D]},
     "levels": {"k": {"shape": [...], "sha256": ..., "radius": r_k,
                      "backend": B[, "device": D][, "dropped": true]}}}

``backend`` names what computed a level (:data:`exact.dp.device.BACKENDS`; an entry
without one was written by the CPU kernels), ``writer`` the backend of the last solve
into the store.  Invariants checked on every read (:func:`read_manifest`, then
:func:`check_shapes`, :func:`check_radii`, :func:`check_dropped`): no key named twice;
1 <= N <= MAX_CARDS; the levels listed are among 0..N with the shapes N implies; a radius
is finite, >= 0, 0 exactly on a level that solves no game, never below the level
beneath's on a level that solves games, never as large as the game's largest value; a
level below ``keep_from`` whose level above is complete is marked "dropped", and no
level from ``keep_from`` up is.  Version 1 (both values of each antisymmetric pair) is
refused with a line saying how to get a new store.
"""

from __future__ import annotations

import json
from pathlib import Path

from exact.dp.device import BACKENDS, recorded_bit_exact
from exact.dp.objective import Objective
from exact.dp.store_files import (
    StoreError,
    no_store_here,
    path_kind,
    require_regular_file,
    unreadable_reason,
)
from exact.errors import GopsInputError
from exact.game.encoding import MAX_CARDS
from exact.game.orders import ORDERS, RANDOM
from exact.game.spec import GameSpec

FORMAT = "gops-store"


VERSION = 2


#: The layout before version 2: every pattern of every level (both values of each pair).
FULL_LAYOUT_VERSION = 1


MANIFEST = "manifest.json"


#: What wrote a level of a store whose entry names no backend (gops before they were named).
CPU_BACKEND = {"backend": "cpu"}


def game_of(manifest: dict) -> GameSpec:
    """The game a store holds: the real game (no handicap) in floating point, from a
    manifest :func:`read_manifest` has checked (no order: the paper's random one)."""
    return GameSpec.from_json(
        {
            "n": manifest["n"],
            "objective": manifest["objective"],
            "order": manifest.get("order", "random"),
            "arithmetic": "float",
        }
    )


def check_keep_from(keep_from: int | None, n: int) -> None:
    """One-line GopsInputError unless ``keep_from`` is None or a level 1..N - 1 (the
    levels from it up are kept; the table at the start reads level N - 1)."""
    if keep_from is None:
        return
    if isinstance(keep_from, bool) or not isinstance(keep_from, int) or not 1 <= keep_from < n:
        raise GopsInputError(
            f"--keep-from must be a level from 1 to {n - 1} (N - 1: the first move reads "
            f"level N - 1), got {keep_from}"
            if n > 1
            else "--keep-from needs N of at least 2 (a 1-card store has nothing to drop)"
        )


def _is_backend(entry: dict) -> bool:
    """A level entry's (or the writer's) backend and device name, if given, well formed."""
    device = entry.get("device", "")
    return (
        entry.get("backend", "cpu") in BACKENDS
        and isinstance(device, str)
        and len(device) <= 200
        and ("device" not in entry or not recorded_bit_exact(entry))
    )


def _is_sha256(text) -> bool:
    return isinstance(text, str) and len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def _is_level_entry(entry) -> bool:
    shape = entry.get("shape") if isinstance(entry, dict) else None
    return (
        isinstance(shape, list)
        and len(shape) in (2, 3)
        and all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in shape)
        and _is_sha256(entry.get("sha256"))
        and _is_radius(entry.get("radius"))
        and _is_backend(entry)
        and entry.get("dropped", True) is True
    )


def _is_radius(radius) -> bool:
    """A finite float >= 0 (version 2 keeps a radius for every level)."""
    return (
        isinstance(radius, (int, float))
        and not isinstance(radius, bool)
        and 0.0 <= radius < float("inf")
    )


class DuplicateKey(Exception):
    """A JSON object that names a key twice (json keeps the last one silently)."""


def _unique_keys(pairs: list) -> dict:
    """json's ``object_pairs_hook``: a dict, refusing a key named twice."""
    out = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(repr(key))
        out[key] = value
    return out


def read_manifest(root) -> dict:
    """Parse and sanity-check a store's manifest; StoreError (one line) otherwise."""
    root = Path(root)
    path = root / MANIFEST
    if path_kind(root) != "a directory":
        raise no_store_here(root)
    require_regular_file(path)
    try:
        manifest = json.loads(path.read_text(), object_pairs_hook=_unique_keys)
    except FileNotFoundError:
        raise StoreError(f"{root} is not a store (no {MANIFEST})") from None
    except OSError as exc:
        raise StoreError(f"{path} {unreadable_reason(exc)}") from None
    except (ValueError, UnicodeDecodeError):
        raise StoreError(f"{path} is corrupted (not JSON)") from None
    except RecursionError:
        raise StoreError(f"{path} is corrupted (JSON nested too deeply)") from None
    except DuplicateKey as exc:
        raise StoreError(f"{path} names {exc} twice: the manifest was edited") from None
    ok = (
        isinstance(manifest, dict)
        and manifest.get("format") == FORMAT
        and manifest.get("version") == VERSION
        and isinstance(manifest.get("n"), int)
        and manifest.get("objective") in ("points", "win")
        and manifest.get("order", "random") in ORDERS
        and manifest.get("arithmetic") == "float"
        and isinstance(manifest.get("chunk_items"), int)
        and not isinstance(manifest["chunk_items"], bool)
        and manifest["chunk_items"] > 0
        and isinstance(manifest.get("levels"), dict)
        and isinstance(manifest.get("writer", {}), dict)
        and _is_backend(manifest.get("writer", {}))
    )
    if (
        not ok
        and isinstance(manifest, dict)
        and manifest.get("format") == FORMAT
        and manifest.get("version") == FULL_LAYOUT_VERSION
    ):
        raise StoreError(
            f"{root} is a store of version {FULL_LAYOUT_VERSION} (both values of every "
            f"antisymmetric pair), which this gops no longer reads: solve again into a new "
            f"directory, `gops solve N --store NEWDIR` (half the size)"
        )
    if not ok:
        raise StoreError(f"{path} is not a gops store manifest of version {VERSION}")
    n = manifest["n"]
    if isinstance(n, bool) or not 1 <= n <= MAX_CARDS:
        raise StoreError(f"{path} says N={n}: a store holds 1 to {MAX_CARDS} cards")
    if manifest.get("below_in_memory", True) is not True or (
        "below_in_memory" in manifest and "keep_from" not in manifest
    ):
        raise StoreError(f"{path} has a malformed below_in_memory: the manifest was edited")
    keep_from = manifest.get("keep_from", 0)
    if isinstance(keep_from, bool) or not isinstance(keep_from, int) or not 0 <= keep_from < n:
        raise StoreError(f"{path} says keep_from={keep_from!r}: not a level below N={n}")
    for key, entry in manifest["levels"].items():
        if key.isdigit() and key.isascii() and int(key) > n:
            raise StoreError(
                f"{path} says N={n} but records level {key}: the manifest was "
                "edited or belongs to another game"
            )
        if key not in {str(k) for k in range(n + 1)} or not _is_level_entry(entry):
            raise StoreError(f"{path} has a malformed entry for level {key!r}")
        if entry.get("dropped") and int(key) >= keep_from:
            raise StoreError(
                f"{path} marks level {key} dropped, but the store keeps levels "
                f"{keep_from}..{n}: the manifest was edited"
            )
    return manifest


def game_difference(held: GameSpec, want: GameSpec) -> str:
    """The first part of the game a store holds that differs from the one wanted."""
    if held.n != want.n:
        return f"N={held.n}, not N={want.n}"
    if held.objective != want.objective:
        return f"objective {held.objective.name}, not {want.objective.name}"
    return (
        f"the {held.order.name} prize order, not {want.order.name} "
        f"(read it with --order {held.order.name})"
    )


def fresh_manifest(
    game: GameSpec, chunk_items: int, keep_from: int | None, below_in_memory: bool = False
) -> dict:
    """The manifest of a new store of ``game`` (no level yet, written by the CPU)."""
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "n": game.n,
        "objective": game.objective.name,
    }
    if game.order is not RANDOM:  # a store of the paper's game says nothing (version 1)
        manifest["order"] = game.order.name
    manifest = {**manifest, "arithmetic": "float", "chunk_items": chunk_items}
    if keep_from:
        manifest["keep_from"] = keep_from
    if keep_from and below_in_memory:
        manifest["below_in_memory"] = True
    return {**manifest, "writer": dict(CPU_BACKEND), "levels": {}}


def check_shapes(root: Path, manifest: dict, objective: Objective, levels) -> None:
    """Every completed level's recorded shape must be the one N implies: a manifest that
    says otherwise was edited or belongs to another game (StoreError, nothing written)."""
    n = manifest["n"]
    for key, entry in manifest["levels"].items():
        want = list(objective.level_shape(levels[int(key)]))
        if entry["shape"] != want:
            raise StoreError(
                f"{root / MANIFEST} says N={n} but records level {key} with shape "
                f"{entry['shape']}, while N={n} implies {want}: the manifest was edited "
                "or belongs to another game"
            )


def check_radii(root: Path, manifest: dict, objective: Objective) -> None:
    """Refuse radii that no solve writes (StoreError, one line).  The rule, for each
    recorded level k: a level that solves no matrix game has radius 0 (the empty game,
    level 0; and the top level under an antisymmetric prize order, identical hands whose
    values the rules fix: 0 by symmetry); every other level has a radius at least level
    k - 1's (each of its games' bounds adds to it, :mod:`exact.kernels.bounds`), so 0
    only if level k - 1's is 0; and no radius reaches the largest |value| of the game
    (it would prove nothing).  This catches the crude edits;
    :func:`exact.dp.reads.check_reads` and ``gops verify`` the others."""
    n = manifest["n"]
    ceiling = objective.largest_value(n)
    radii = {int(k): entry["radius"] for k, entry in manifest["levels"].items()}
    where = root / MANIFEST
    for k in sorted(radii):
        radius, below = radii[k], radii.get(k - 1)
        solves = k > 0 and not (k == n and objective.order.antisymmetric)
        if not solves and radius != 0.0:
            what = "the empty game (level 0)" if k == 0 else f"level {k} (no game to solve)"
            raise StoreError(
                f"{where} gives {what} the radius {radius!r}, not 0: the manifest was edited"
            )
        if radius >= ceiling:
            raise StoreError(
                f"{where} gives level {k} the radius {radius!r}, which proves "
                f"nothing (values are at most {ceiling:g} in size): the manifest "
                "was edited"
            )
        if solves and below is not None and radius < below:
            raise StoreError(
                f"{where} gives level {k} the radius {radius!r}, below level "
                f"{k - 1}'s {below!r}: no solve writes that (the manifest was "
                "edited)"
            )


def check_dropped(root: Path, manifest: dict, game: GameSpec) -> None:
    """Refuse a frontier store whose level j < K is complete, its level j + 1 too, and
    not marked "dropped" (StoreError, one line).  The rule: a solve marks level j
    dropped as soon as level j + 1 is complete (:meth:`exact.dp.store.Store.finish`), so
    such an entry was edited, or left by a solve stopped between the two writes of the
    manifest; a solve into the store drops it
    (:meth:`exact.dp.store.Store.drop_below_frontier`).  A store to read never has one, so
    that no command reads its file where another says it is gone."""
    keep = manifest.get("keep_from", 0)
    levels = manifest["levels"]
    for k in range(keep):
        complete = str(k) in levels and str(k + 1) in levels
        if complete and levels[str(k)].get("dropped") is not True:
            raise StoreError(
                f"{root / MANIFEST} does not mark level {k} dropped, but the store "
                f"keeps levels {keep}..{game.n} (--keep-from {keep}) and level "
                f"{k + 1} is complete: the manifest was edited, or a solve stopped "
                f"before dropping it (`gops solve {game.command_flags()} --store "
                f"{root}` drops it)"
            )
