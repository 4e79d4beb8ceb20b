"""Where saved three-player solutions are kept, and the one that answers a game.

The cache folder is ``$GOPS_CACHE/three`` when the environment variable ``GOPS_CACHE`` is
set, else ``$XDG_CACHE_HOME/gops/three``, else ``~/.cache/gops/three`` (the XDG Base
Directory convention).  ``gops solve N --players 3 ... --save`` with no file writes
:func:`cache_file` of its game there; ``gops play --players 3`` and ``gops serve`` look
there (and in the folders of ``--solutions``) before solving anything, so a game solved
once is read, not solved, by every later game.

A file is named by its game: ``three-N-RULE-OBJECTIVE-ORDER.gops3.xz``.  A folder's
index (:func:`index`) reads each file's header only; the file that answers an n-card game
(:func:`find`) is the smallest of the same tie rule, objective and order with N >= n
(one file serves every smaller game whose start it holds:
:meth:`exact.three.saved.SavedSolution.covers`).
"""

from __future__ import annotations

import os
from pathlib import Path

from exact.three.rules import ThreeGame
from exact.three.saved import SUFFIX, SavedSolutionError, read_header

__all__ = ["cache_dir", "cache_file", "find", "index"]


def cache_dir() -> Path:
    """The cache folder of the module docstring (not created here)."""
    root = os.environ.get("GOPS_CACHE")
    if root:
        return Path(root).expanduser() / "three"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "gops" / "three"


def cache_file(game: ThreeGame) -> Path:
    """The file in the cache folder that holds ``game``'s solution."""
    name = f"three-{game.n}-{game.tie_rule.name}-{game.objective.name}-{game.order.name}"
    return cache_dir() / (name + SUFFIX)


def index(folders) -> list[tuple[ThreeGame, Path]]:
    """Every readable saved solution in ``folders`` (files ending SUFFIX), by its header;
    a file that is not one is skipped here (loading it would say why)."""
    out = []
    for folder in folders:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if not name.endswith(SUFFIX):
                continue
            path = Path(folder) / name
            try:
                game, _ = read_header(path)
            except SavedSolutionError:
                continue
            out.append((game, path))
    return out


def find(entries, n: int, tie_rule, objective, order) -> Path | None:
    """The file of ``entries`` (:func:`index`) that answers the n-card game: the same
    tie rule, objective and order, the smallest N >= n; None if there is none."""
    fits = [
        (game.n, str(path))
        for game, path in entries
        if game.n >= n
        and game.tie_rule is tie_rule
        and game.objective is objective
        and game.order is order
    ]
    return Path(min(fits)[1]) if fits else None
