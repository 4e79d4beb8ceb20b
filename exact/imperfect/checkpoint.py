"""CFR+ checkpoints: the state of :class:`exact.imperfect.cfr.CFRPlus` in a file, read back
only once every part of it is checked against the game it claims to be of.

A checkpoint is a NumPy ``.npz`` archive (``np.savez``) with exactly these members:

- ``format`` (:data:`FORMAT`), ``n``, ``order``, ``objective``: the game;
- ``variant`` (a key of :data:`exact.imperfect.cfr.VARIANTS`), ``iteration`` (an int64,
  0 <= iteration <= :data:`MAX_ITERATIONS`);
- six float64 arrays of the game's tables (:func:`exact.imperfect.tables.layout`), shape
  (rows, N): ``sigma0``/``sigma1`` the current strategies, ``regret0``/``regret1`` the
  cumulative regrets, ``avg0``/``avg1`` the average strategy's numerators.

The invariants of a state that CFR+ reaches (:mod:`exact.imperfect.cfr`), checked on
reading: every number finite; at a card already bid (not legal at the row) every array
is 0; regrets >= 0 (regret matching+ floors them) and averages >= 0; each strategy row a
distribution over the legal cards (>= 0, summing to 1 within :data:`SUM_TOLERANCE`).

Reading (:func:`read_checkpoint`) goes in this order, and the first failure is one
GopsInputError naming the file: a regular file, not empty, a zip archive; its members
exactly those above (``format`` may be absent in files written before it existed);
each member's ``.npy`` header (read before its data, so that a forged shape allocates
nothing) of the dtype and shape the game gives; then the values.  Nothing a kernel
indexes is taken from the file unchecked: the numba kernels index the tables by the
layout, without bounds checks.
"""

from __future__ import annotations

import math
import os
import stat
import zipfile
from typing import Any, NamedTuple

import numpy as np
from numpy.lib import format as npy

from exact.atomic import atomic_file
from exact.errors import GopsInputError
from exact.imperfect.game import ImperfectGame
from exact.imperfect.tables import Layout, layout, legal_rows
from exact.imperfect.warm_basis import NamedBasis

__all__ = [
    "FORMAT",
    "MAX_ITERATIONS",
    "SUM_TOLERANCE",
    "SUPPORT_FORMAT",
    "Support",
    "read_checkpoint",
    "read_support",
    "write_checkpoint",
    "write_support",
]

#: The ``format`` member of a checkpoint.
FORMAT = "gops imperfect CFR+ checkpoint 1"
#: The most iterations a checkpoint may count (and a run may ask for): 10^8 iterations
#: of the 3-card game take days; of the 7-card game, years.
MAX_ITERATIONS = 10**8
#: How far from 1 a strategy row of a checkpoint may sum (the strategies are computed in
#: float64 by regret matching; the certified policy is the average, put on an exact grid
#: by :func:`exact.imperfect.certified.dyadic_rows`, not these rows).
SUM_TOLERANCE = 1e-9
#: The arrays of a checkpoint, each of shape (rows, N).
ARRAYS = ("sigma0", "sigma1", "regret0", "regret1", "avg0", "avg1")
#: The scalar members: name -> dtype kind (i: integer, U: text).
SCALARS = {
    "format": "U",
    "n": "i",
    "order": "U",
    "objective": "U",
    "variant": "U",
    "iteration": "i",
}
#: The ``format`` member of a double oracle's checkpoint (:func:`write_support`).
SUPPORT_FORMAT = "gops imperfect double-oracle checkpoint 1"
#: Its members: the scalars (as :data:`SCALARS`) and two bool arrays of shape (rows, N).
SUPPORT_SCALARS = {"format": "U", "n": "i", "order": "U", "objective": "U", "round": "i"}
SUPPORT_ARRAYS = ("allow0", "allow1")
#: And, where the round's NashConv was proven (from 2026-11-29 d), that bound: it only
#: sets how far the next restricted game is solved (nothing proven rests on it).  And
#: (from 2026-11-30) the proven NashConv and the round of the best policy the run has
#: handed on (written to its policy file) so far (``best``, ``best_round``: both or
#: neither): a resumed run hands on only a better one, and where it finds none, its
#: result is the file's policy, proven again
#: (:func:`exact.imperfect.double_oracle.best_of_run`).
SUPPORT_OPTIONAL = {"bound": "f", "best": "f", "best_round": "i"}
#: And, where the restricted games are solved by predictive CFR+ (from 2026-11-29 f), its
#: last regrets by cell (:class:`exact.imperfect.restricted_cfr.Regrets`): each player's
#: cells (int64, strictly increasing, each a card not yet bid at its row) and regrets
#: (float64, one more: the empty sequence's first; finite, >= 0).  They only warm-start
#: the next restricted game (nothing proven rests on them): all four members or none.
SUPPORT_REGRETS = {"cells0": "<i8", "cells1": "<i8", "regrets0": "<f8", "regrets1": "<f8"}
#: And, where the restricted games are solved by their LP (from 2026-11-30), the last
#: LP's optimal basis (:class:`exact.imperfect.warm_basis.NamedBasis`): the keys of its
#: columns and rows (int64, strictly increasing, each below 2 (rows N + 1)) and their
#: HiGHS status codes (uint8, 0-4, one per key).  It only warm-starts the next restricted
#: LP (nothing proven rests on it; HiGHS repairs or refuses a basis that is not one):
#: all four members or none.
SUPPORT_BASIS = {
    "basis_columns": "<i8",
    "basis_column_status": "|u1",
    "basis_rows": "<i8",
    "basis_row_status": "|u1",
}
#: The largest HiGHS basis status code (``kNonbasic``).
STATUS_MAX = 4
#: The most rounds a double oracle's checkpoint may count.
MAX_ROUNDS = 10**6
#: The longest text member (characters).
TEXT_MAX = 64
#: The largest .npy header read (bytes; np.savez writes about 128).
HEADER_MAX = 4096


def write_checkpoint(path, game: ImperfectGame, variant: str, iteration: int, arrays) -> None:
    """The state as an .npz file, written atomically (``arrays``: name -> array, the
    names of :data:`ARRAYS`)."""
    with atomic_file(path, "wb") as fh:
        np.savez(
            fh,
            format=FORMAT,
            n=np.int64(game.n),
            order=game.order.name,
            objective=game.objective.name,
            variant=variant,
            iteration=np.int64(iteration),
            **{name: arrays[name] for name in ARRAYS},
        )


def read_checkpoint(game: ImperfectGame, path, variants) -> dict:
    """The checked contents of the checkpoint at ``path`` for ``game`` (module
    docstring): the six arrays (C-contiguous float64 copies), ``variant`` (one of
    ``variants``) and ``iteration``; a one-line GopsInputError otherwise."""
    where = f"the CFR checkpoint {str(path)!r}"

    def read(archive: zipfile.ZipFile):
        members = _members(archive, where, SCALARS, ARRAYS, ("format",))
        scalars = {name: _scalar(archive, members[name], name, where, SCALARS[name])
                   for name in SCALARS if name in members}  # fmt: skip
        _check_game(game, scalars, variants, where)
        shape = (layout(game).rows, game.n)
        arrays = {name: _array(archive, members[name], name, shape, where, "<f8")
                  for name in ARRAYS}  # fmt: skip
        return scalars, arrays

    scalars, arrays = _read_archive(path, where, read)
    _check_values(layout(game), arrays, where)
    return {**arrays, "variant": scalars["variant"], "iteration": scalars["iteration"]}


def _read_archive(path, where: str, read):
    """``read(archive)`` of the .npz file at ``path``, once it is a regular, non-empty zip
    archive; any failure to read it is one GopsInputError naming ``where``."""
    _check_file(path, where)
    try:
        with zipfile.ZipFile(path) as archive:
            return read(archive)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError) as exc:
        if isinstance(exc, GopsInputError):
            raise
        raise GopsInputError(f"{where} is not a readable .npz archive ({exc})") from None


def _check_file(path, where: str) -> None:
    try:
        info = os.stat(path)
    except OSError as exc:
        raise GopsInputError(f"cannot read {where}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise GopsInputError(f"{where} is not a regular file")
    if info.st_size == 0:
        raise GopsInputError(f"{where} is empty")
    with open(path, "rb") as fh:
        if fh.read(4) != b"PK\x03\x04":
            raise GopsInputError(f"{where} is not an .npz archive (np.savez)")


def _members(
    archive: zipfile.ZipFile, where: str, scalars, arrays, optional=()
) -> dict[str, zipfile.ZipInfo]:
    """Member name (without .npy) -> its entry; exactly the expected names (those of
    ``optional`` may be absent)."""
    members: dict[str, zipfile.ZipInfo] = {}
    for info in archive.infolist():
        name = info.filename.removesuffix(".npy")
        if (name not in scalars and name not in arrays) or not info.filename.endswith(".npy"):
            raise GopsInputError(f"{where} has a member {info.filename!r} no checkpoint has")
        if name in members:
            raise GopsInputError(f"{where} has the member {info.filename!r} twice")
        members[name] = info
    missing = [name for name in (*scalars, *arrays) if name not in members and name not in optional]
    if missing:
        raise GopsInputError(f"{where} lacks {', '.join(missing)}")
    return members


def _header(fh, name: str, where: str) -> tuple[tuple[int, ...], np.dtype]:
    """The shape and dtype a member's .npy header declares (no data read)."""
    version = npy.read_magic(fh)
    if version == (1, 0):
        shape, fortran, dtype = npy.read_array_header_1_0(fh, max_header_size=HEADER_MAX)
    elif version == (2, 0):
        shape, fortran, dtype = npy.read_array_header_2_0(fh, max_header_size=HEADER_MAX)
    else:
        raise GopsInputError(f"{where}: {name} is in .npy format {version}, not 1.0 or 2.0")
    if fortran:
        raise GopsInputError(f"{where}: {name} is stored in Fortran order")
    return shape, dtype


def _read(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, where: str, check):
    """A member's array, once ``check(shape, dtype)`` accepted its header."""
    with archive.open(info) as fh:
        check(*_header(fh, name, where))
    with archive.open(info) as fh:
        return npy.read_array(fh, allow_pickle=False, max_header_size=HEADER_MAX)


def _scalar(archive, info, name: str, where: str, kind: str):
    def check(shape, dtype) -> None:
        ok = shape == () and dtype.kind == kind and not dtype.hasobject
        if ok and kind == "U":
            ok = dtype.itemsize <= 4 * TEXT_MAX
        if ok and kind in "if":
            ok = dtype.itemsize <= 8
        if not ok:
            what = {"i": "an integer", "f": "a float"}.get(
                kind, f"a text of at most {TEXT_MAX} characters"
            )
            raise GopsInputError(f"{where}: {name} is not {what} (found {dtype}, shape {shape})")

    value = _read(archive, info, name, where, check)
    return {"i": int, "f": float}.get(kind, str)(value)


def _array(archive, info, name: str, shape: tuple[int, int], where: str, kind: str) -> np.ndarray:
    def check(found, dtype) -> None:
        if dtype != np.dtype(kind):
            raise GopsInputError(f"{where}: {name} is {dtype}, not {np.dtype(kind)}")
        if found != shape:
            raise GopsInputError(
                f"{where}: {name} has shape {found}, not {shape} (the game's tables)"
            )

    return np.ascontiguousarray(_read(archive, info, name, where, check))


def _check_game(game: ImperfectGame, scalars: dict, variants, where: str) -> None:
    if "format" in scalars and scalars["format"] != FORMAT:
        raise GopsInputError(f"{where} is of format {scalars['format']!r}, not {FORMAT!r}")
    _check_same_game(game, scalars, where)
    if scalars["variant"] not in variants:
        raise GopsInputError(
            f"{where}: the variant {scalars['variant']!r} is not one of {', '.join(variants)}"
        )
    if not 0 <= scalars["iteration"] <= MAX_ITERATIONS:
        raise GopsInputError(
            f"{where}: the iteration {scalars['iteration']} is not between 0 and {MAX_ITERATIONS:,}"
        )


def _check_same_game(game: ImperfectGame, scalars: dict, where: str) -> None:
    saved = (scalars["n"], scalars["order"], scalars["objective"])
    wanted = (game.n, game.order.name, game.objective.name)
    if saved != wanted:
        raise GopsInputError(f"{where} is of the game {saved}, not {wanted}")


def _check_values(where_: Layout, arrays: dict[str, np.ndarray], where: str) -> None:
    """The invariants of the module docstring."""
    legal = legal_rows(where_)
    for name, array in arrays.items():
        bad = ~np.isfinite(array)
        if bad.any():
            raise GopsInputError(f"{where}: {name} holds {_count(bad)} non-finite numbers")
        if np.any(array[~legal] != 0):
            raise GopsInputError(f"{where}: {name} is not 0 at cards already bid")
        if np.any(array < 0):
            raise GopsInputError(f"{where}: {name} holds {_count(array < 0)} negative numbers")
        if name.startswith("sigma"):
            off = np.abs(array.sum(axis=1) - 1) > SUM_TOLERANCE
            if off.any():
                raise GopsInputError(
                    f"{where}: {_count(off)} rows of {name} do not sum to 1 "
                    f"(within {SUM_TOLERANCE:g})"
                )


def _count(mask: np.ndarray) -> str:
    return f"{int(mask.sum()):,}"


class Support(NamedTuple):
    """A double oracle's checkpoint, read and checked (:func:`read_support`)."""

    round: int
    allow: tuple[np.ndarray, np.ndarray]
    #: The last round's proven NashConv (inf where the file has none).
    bound: float
    #: Each player's (cells, regrets) of :data:`SUPPORT_REGRETS`, or None.
    regrets: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None
    #: The last restricted LP's basis (:data:`SUPPORT_BASIS`), or None.
    basis: NamedBasis | None = None
    #: The bound and round of the best policy the run handed on (inf, 0: none known).
    best: float = math.inf
    best_round: int = 0


def write_support(
    path,
    game: ImperfectGame,
    round_: int,
    allow: tuple[np.ndarray, np.ndarray],
    bound: float = math.inf,
    regrets: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None,
    basis: NamedBasis | None = None,
    best: tuple[float, int] = (math.inf, 0),
) -> None:
    """A double oracle's state (:mod:`exact.imperfect.double_oracle`): the rounds done,
    both players' allowed cells, the last round's proven NashConv ``bound`` (where
    finite), each player's (cells, regrets) of the last restricted game, the last
    restricted LP's ``basis`` and the run's ``best`` (bound, round) (where given), as an
    .npz file written atomically."""
    extra: dict[str, Any] = {"bound": np.float64(bound)} if math.isfinite(bound) else {}
    if math.isfinite(best[0]):
        extra |= {"best": np.float64(best[0]), "best_round": np.int64(best[1])}
    if regrets is not None:
        for player, (cells, values) in enumerate(regrets):
            extra[f"cells{player}"] = np.asarray(cells, dtype="<i8")
            extra[f"regrets{player}"] = np.asarray(values, dtype="<f8")
    if basis is not None:
        extra["basis_columns"] = np.asarray(basis.columns, dtype="<i8")
        extra["basis_column_status"] = np.asarray(basis.column_status, dtype="u1")
        extra["basis_rows"] = np.asarray(basis.rows, dtype="<i8")
        extra["basis_row_status"] = np.asarray(basis.row_status, dtype="u1")
    with atomic_file(path, "wb") as fh:
        np.savez(
            fh,
            format=SUPPORT_FORMAT,
            n=np.int64(game.n),
            order=game.order.name,
            objective=game.objective.name,
            round=np.int64(round_),
            allow0=np.asarray(allow[0], dtype=bool),
            allow1=np.asarray(allow[1], dtype=bool),
            **extra,
        )


def read_support(game: ImperfectGame, path) -> Support:
    """The rounds, allowed cells, last proven bound and regrets of a double oracle's
    checkpoint for ``game``, checked as :func:`read_checkpoint` checks a CFR+ one (file,
    members, headers before data, the game, bool arrays of the tables' shape, nothing
    allowed at a card already bid, a bound that is a number >= 0, the regrets of
    :data:`SUPPORT_REGRETS`, the basis of :data:`SUPPORT_BASIS`); a one-line
    GopsInputError otherwise."""
    where = f"the double-oracle checkpoint {str(path)!r}"
    shape = (layout(game).rows, game.n)
    cells_max = shape[0] * shape[1]
    keys_max = 2 * (cells_max + 1)

    def read(archive: zipfile.ZipFile):
        kinds = {**SUPPORT_SCALARS, **SUPPORT_OPTIONAL}
        optional = (*SUPPORT_OPTIONAL, *SUPPORT_REGRETS, *SUPPORT_BASIS)
        arrays_named = (*SUPPORT_ARRAYS, *SUPPORT_REGRETS, *SUPPORT_BASIS)
        members = _members(archive, where, kinds, arrays_named, optional)
        scalars = {name: _scalar(archive, members[name], name, where, kind)
                   for name, kind in kinds.items() if name in members}  # fmt: skip
        if scalars["format"] != SUPPORT_FORMAT:
            raise GopsInputError(
                f"{where} is of format {scalars['format']!r}, not {SUPPORT_FORMAT!r}"
            )
        _check_same_game(game, scalars, where)
        if not 0 <= scalars["round"] <= MAX_ROUNDS:
            raise GopsInputError(
                f"{where}: the round {scalars['round']} is not between 0 and {MAX_ROUNDS:,}"
            )
        arrays = [_array(archive, members[name], name, shape, where, "|b1")
                  for name in SUPPORT_ARRAYS]  # fmt: skip
        vectors: dict[str, np.ndarray] = {}
        for group, longest in ((SUPPORT_REGRETS, cells_max + 1), (SUPPORT_BASIS, keys_max)):
            present = [name for name in group if name in members]
            if present and len(present) < len(group):
                missing = [name for name in group if name not in members]
                raise GopsInputError(
                    f"{where} has {', '.join(present)} but not {', '.join(missing)}"
                )
            vectors |= {name: _vector(archive, members[name], name, longest, where, kind)
                        for name, kind in group.items() if name in members}  # fmt: skip
        return scalars, arrays, vectors

    scalars, allow, vectors = _read_archive(path, where, read)
    legal = legal_rows(layout(game))
    for name, array in zip(SUPPORT_ARRAYS, allow, strict=True):
        if np.any(array & ~legal):
            raise GopsInputError(
                f"{where}: {name} allows {_count(array & ~legal)} cards already bid"
            )
    for name in ("bound", "best"):
        if name in scalars and not 0 <= scalars[name] < math.inf:
            raise GopsInputError(f"{where}: the {name} {scalars[name]!r} is not a number >= 0")
    if ("best" in scalars) != ("best_round" in scalars):
        raise GopsInputError(f"{where} has one of best and best_round without the other")
    best, best_round = scalars.get("best", math.inf), scalars.get("best_round", 0)
    if not 0 <= best_round <= scalars["round"]:
        raise GopsInputError(
            f"{where}: best_round {best_round} is not between 0 and the round {scalars['round']}"
        )
    bound = scalars.get("bound", math.inf)
    regrets = None
    if "cells0" in vectors:
        regrets = tuple(_checked_regrets(vectors, p, legal.ravel(), where) for p in (0, 1))
    basis = _checked_basis(vectors, keys_max, where) if "basis_rows" in vectors else None
    return Support(scalars["round"], (allow[0], allow[1]), bound, regrets, basis, best, best_round)


def _vector(archive, info, name: str, longest: int, where: str, kind: str) -> np.ndarray:
    """A one-dimensional member of dtype ``kind`` and at most ``longest`` entries."""

    def check(found, dtype) -> None:
        if dtype != np.dtype(kind):
            raise GopsInputError(f"{where}: {name} is {dtype}, not {np.dtype(kind)}")
        if len(found) != 1 or found[0] > longest:
            raise GopsInputError(
                f"{where}: {name} has shape {found}, not one axis of at most {longest:,}"
            )

    return np.ascontiguousarray(_read(archive, info, name, where, check))


def _checked_regrets(vectors: dict, player: int, legal: np.ndarray, where: str):
    """Player's (cells, regrets), once they hold the invariants of :data:`SUPPORT_REGRETS`."""
    cells, values = vectors[f"cells{player}"], vectors[f"regrets{player}"]
    if len(values) != len(cells) + 1:
        raise GopsInputError(
            f"{where}: regrets{player} has {len(values):,} entries, not {len(cells) + 1:,} "
            f"(one more than cells{player})"
        )
    if len(cells) and (cells[0] < 0 or cells[-1] >= len(legal) or np.any(np.diff(cells) <= 0)):
        raise GopsInputError(
            f"{where}: cells{player} is not strictly increasing within the game's tables"
        )
    if not legal[cells].all():
        raise GopsInputError(f"{where}: cells{player} holds cards already bid")
    if not np.isfinite(values).all() or np.any(values < 0):
        raise GopsInputError(f"{where}: regrets{player} holds numbers not finite and >= 0")
    return cells, values


def _checked_basis(vectors: dict, keys_max: int, where: str) -> NamedBasis:
    """The basis of :data:`SUPPORT_BASIS`, once it holds its invariants."""
    for kind in ("column", "row"):
        keys, status = vectors[f"basis_{kind}s"], vectors[f"basis_{kind}_status"]
        if len(keys) != len(status):
            raise GopsInputError(
                f"{where}: basis_{kind}_status has {len(status):,} entries, not {len(keys):,}"
            )
        if len(keys) and (keys[0] < 0 or keys[-1] >= keys_max or np.any(np.diff(keys) <= 0)):
            raise GopsInputError(
                f"{where}: basis_{kind}s is not strictly increasing below {keys_max:,}"
            )
        if np.any(status > STATUS_MAX):
            raise GopsInputError(f"{where}: basis_{kind}_status holds codes above {STATUS_MAX}")
    return NamedBasis(
        vectors["basis_columns"], vectors["basis_column_status"],
        vectors["basis_rows"], vectors["basis_row_status"],
    )  # fmt: skip
