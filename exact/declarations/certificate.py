"""The LP-duality certificate of an exact solution of the face-up declarations game.

Format (read by the independent checker :mod:`certificates.declarations`, which states it
in full): a stream of msgpack objects, Integers, Rationals and probability vectors encoded
as in certificates/FORMAT.md.

1. header ``{"magic": "GOPS-DECLARATIONS-CERTIFICATE", "version": 1, "rules":
   "gops-2p-face-up-declarations-random-prizes", "n": N}``;
2. for k = 2..N: ``{"level": k, "records": R_k}`` then R_k records
   ``[family, mine, theirs, prizes, lead, value, stages]``, every position of the level
   that the solve reached and the rules do not decide, families in the order sim, lead0,
   lead1, open; ``stages`` has one entry per upcard u of the prizes, increasing:
   ``[u, x, y, v]`` (sim: the sealed-bid game), ``[u, v]`` (lead0, lead1: the face-up
   round's value), ``[u, bx, by, bv, dx, dy, dv]`` (open: the sealed-bid game if nobody
   declares, then the 2 x 2 declaration game, whose value dv is the stage's);
3. footer ``{"end": True, "records": total, "root_value": value of the start}``.

Written atomically (:func:`exact.atomic.atomic_file`): an interrupted write leaves no file.
"""

from __future__ import annotations

import msgpack
from flint import fmpq, fmpz

from exact.atomic import atomic_file
from exact.certificate.writer import pack_integer, pack_rational
from exact.declarations.rules import full_position
from exact.declarations.solver import Tables
from exact.errors import GopsInputError

__all__ = ["DECLARATIONS_MAGIC", "DECLARATIONS_RULES", "write_certificate"]

DECLARATIONS_MAGIC = "GOPS-DECLARATIONS-CERTIFICATE"
DECLARATIONS_RULES = "gops-2p-face-up-declarations-random-prizes"
#: Records of one level are written in this order of their family.
RECORD_ORDER = ("sim", "lead0", "lead1", "open")


def _vector(xs) -> list:
    """A probability vector of fmpq as [[numerators], common denominator]."""
    d = fmpz(1)
    for a in xs:
        d = d.lcm(fmpq(a).q)
    return [[pack_integer(fmpq(a).p * (d // fmpq(a).q)) for a in xs], pack_integer(d)]


def _stage(family: str, st) -> list:
    v = pack_rational(fmpq(st.value))
    if family in ("lead0", "lead1"):
        return [st.upcard, v]
    bx, by, bv = st.bids
    if family == "sim":
        return [st.upcard, _vector(bx), _vector(by), pack_rational(bv)]
    dx, dy, _ = st.declare
    return [st.upcard, _vector(bx), _vector(by), pack_rational(bv), _vector(dx), _vector(dy), v]


def records_by_level(tables: Tables) -> dict[int, list]:
    """The packed records of every level, in the order they are written."""
    levels: dict[int, list] = {k: [] for k in range(2, tables.n + 1)}
    for family in RECORD_ORDER:
        for key, stages in sorted(tables.stages[family].items()):
            mine, theirs, prizes, lead = key
            value = pack_rational(fmpq(tables.values[family][key][0]))
            levels[prizes.bit_count()].append(
                [family, mine, theirs, prizes, lead, value, [_stage(family, s) for s in stages]]
            )
    return levels


def write_certificate(tables: Tables, path) -> int:
    """Write the certificate of exact ``tables`` to ``path``; returns its record count."""
    if not tables.exact:
        raise GopsInputError("a certificate needs the exact solve (--exact)")
    levels = records_by_level(tables)
    total = sum(len(r) for r in levels.values())
    root = fmpq(tables.values["open"][full_position(tables.n).key()][0])
    with atomic_file(path, "wb") as fh:
        pack = msgpack.Packer(use_bin_type=True).pack
        header = {"magic": DECLARATIONS_MAGIC, "version": 1, "rules": DECLARATIONS_RULES}
        fh.write(pack({**header, "n": tables.n}))
        for k, records in levels.items():
            fh.write(pack({"level": k, "records": len(records)}))
            for rec in records:
                fh.write(pack(rec))
        fh.write(pack({"end": True, "records": total, "root_value": pack_rational(root)}))
    return total
