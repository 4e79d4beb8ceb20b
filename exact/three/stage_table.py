"""A solved three-player game held as columns: the read-only mappings of a loaded solution.

A solve (:mod:`exact.three.induction`) keeps its stage games in a dict; a saved solution
(:mod:`exact.three.saved`) reads them back as the flat arrays of :class:`Columns` and
answers the same two questions through :class:`StageTable` ((position, upcard) ->
:class:`~exact.three.stage.StageSolution`) and :class:`PositionValues` (position -> the
value vector), building each answer when it is asked for.  A 7-card solution has 917,616
stage games over 236,251 positions: holding them as a million small Python objects made
loading take 24 s, the columns take a few seconds and a fraction of the memory.

Invariant: the mappings answer exactly what the dicts of the solve they were saved from
answer (the same keys in the same order, the same floats), so a loaded solution's
NashConv is the solved one's to the bit (tests/test_three_saved.py).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from exact.three.canonical import Key
from exact.three.stage import StageSolution

__all__ = ["METHODS", "Columns", "PositionValues", "StageTable", "key_bytes"]

#: How each stage game was found (:mod:`exact.three.stage`), by its code in ``methods``.
METHODS = ("forced", "dominance", "logit", "fallback")


def key_bytes(key: Key) -> bytes:
    """A canonical position as the bytes :class:`Columns` indexes it by: k (the prizes
    left), the three hands, the prizes, then the three points as little-endian uint16.
    Raises ValueError or struct.error for a key no column can hold."""
    hands, prizes, units = key
    return bytes((len(prizes), *hands[0], *hands[1], *hands[2], *prizes)) + struct.pack(
        "<3H", *units
    )


@dataclass(frozen=True)
class Columns:
    """Positions and stage games as flat arrays (the body of a version-2 saved solution).

    Position p has ``sizes[p]`` = k prizes left; its three hands (k card ranks each) are
    ``hands[3 * first[p] : 3 * first[p] + 3 * k]``, its prizes ``prizes[first[p] :
    first[p] + k]`` (``first`` the running sum of the sizes) and its points ``points[p]``
    (three, half points less the smallest).  Stage game s is at position
    ``stage_positions[s]`` and upcard ``upcards[s]``, found by ``METHODS[methods[s]]``;
    its three mixes are 3k consecutive entries of ``mixes``, its values ``values[s]`` and
    its float stage regret ``regrets[s]``.  Stage games are in the order the induction
    solved them."""

    sizes: np.ndarray  # uint8 (P,)
    hands: np.ndarray  # uint8 (3 * sum(sizes),)
    prizes: np.ndarray  # uint8 (sum(sizes),)
    points: np.ndarray  # uint16 (P, 3)
    stage_positions: np.ndarray  # int64 (S,)
    upcards: np.ndarray  # uint8 (S,)
    methods: np.ndarray  # uint8 (S,)
    mixes: np.ndarray  # float64 (3 * sum of the stage games' k,)
    values: np.ndarray  # float64 (S, 3)
    regrets: np.ndarray  # float64 (S,)
    first: np.ndarray = field(init=False, repr=False)  # int64 (P + 1,)
    mix_first: np.ndarray = field(init=False, repr=False)  # int64 (S + 1,)

    def __post_init__(self):
        first = np.zeros(len(self.sizes) + 1, dtype=np.int64)
        np.cumsum(self.sizes, out=first[1:])
        ks = self.sizes[self.stage_positions].astype(np.int64)
        mix_first = np.zeros(len(ks) + 1, dtype=np.int64)
        np.cumsum(3 * ks, out=mix_first[1:])
        object.__setattr__(self, "first", first)
        object.__setattr__(self, "mix_first", mix_first)

    @classmethod
    def build(cls, keys: list, stage_positions, upcards, methods, mixes, values, regrets):
        """Columns of the positions ``keys`` (Keys) and of stage games given as columns."""
        return cls(
            np.array([len(k[1]) for k in keys], dtype=np.uint8),
            np.array([c for k in keys for h in k[0] for c in h], dtype=np.uint8),
            np.array([c for k in keys for c in k[1]], dtype=np.uint8),
            np.array([k[2] for k in keys], dtype=np.uint16).reshape(-1, 3),
            np.asarray(stage_positions, dtype=np.int64),
            np.asarray(upcards, dtype=np.uint8),
            np.asarray(methods, dtype=np.uint8),
            np.asarray(mixes, dtype=np.float64),
            np.asarray(values, dtype=np.float64).reshape(-1, 3),
            np.asarray(regrets, dtype=np.float64),
        )

    @classmethod
    def of(cls, stages: Mapping) -> Columns:
        """The columns of a solve's stage games ({(Key, upcard): StageSolution}), in its
        order."""
        index: dict = {}
        positions, upcards, methods, regrets = [], [], [], []
        mixes: list[np.ndarray] = []
        values: list[np.ndarray] = []
        for (key, u), st in stages.items():
            positions.append(index.setdefault(key, len(index)))
            upcards.append(u)
            methods.append(METHODS.index(st.method))
            mixes.extend(st.mixes)
            values.append(st.values)
            regrets.append(st.regret)
        flat = np.concatenate(mixes) if mixes else np.zeros(0)
        return cls.build(list(index), positions, upcards, methods, flat, values, regrets)

    @property
    def positions(self) -> int:
        return len(self.sizes)

    def group(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The positions of k prizes left: their indices, hands (P_k, 3, k) and prizes
        (P_k, k)."""
        rows = np.flatnonzero(self.sizes == k)
        at = self.first[rows][:, None]
        hands = self.hands[3 * at + np.arange(3 * k)].reshape(-1, 3, k)
        return rows, hands, self.prizes[at + np.arange(k)]

    def key(self, p: int) -> Key:
        """Position p as the solve's dictionaries key it."""
        lo, k = int(self.first[p]), int(self.sizes[p])
        h = self.hands[3 * lo : 3 * lo + 3 * k].tolist()
        return (
            (tuple(h[:k]), tuple(h[k : 2 * k]), tuple(h[2 * k :])),
            tuple(self.prizes[lo : lo + k].tolist()),
            tuple(self.points[p].tolist()),
        )

    def index(self) -> dict[bytes, int]:
        """Each position's :func:`key_bytes`, to its index (a position twice keeps its
        last index; the loader refuses such a file)."""
        out: dict[bytes, int] = {}
        for k in np.unique(self.sizes).tolist():
            rows, hands, prizes = self.group(k)
            record = np.concatenate(
                [
                    np.full((len(rows), 1), k, dtype=np.uint8),
                    hands.reshape(len(rows), -1),
                    prizes,
                    self.points[rows].astype("<u2").view(np.uint8).reshape(len(rows), -1),
                ],
                axis=1,
            )
            width, raw = record.shape[1], record.tobytes()
            out.update(zip((raw[i : i + width] for i in range(0, len(raw), width)), rows.tolist()))
        return out

    def stage(self, s: int) -> StageSolution:
        """Stage game s, its arrays views of the columns."""
        o, k = int(self.mix_first[s]), int(self.sizes[self.stage_positions[s]])
        m = self.mixes
        return StageSolution(
            (m[o : o + k], m[o + k : o + 2 * k], m[o + 2 * k : o + 3 * k]),
            self.values[s],
            float(self.regrets[s]),
            METHODS[self.methods[s]],
        )


class _Indexed:
    """Shared by the two mappings: the columns and a position lookup by key."""

    def __init__(self, columns: Columns, index: dict[bytes, int]):
        self.columns = columns
        self._index = index

    def _position(self, key) -> int:
        try:
            return self._index[key_bytes(key)]
        except (TypeError, ValueError, struct.error):
            raise KeyError(key) from None


class StageTable(_Indexed, Mapping):
    """(canonical position, upcard) -> StageSolution, over :class:`Columns`; iterates in
    the solve's order.  ``stage_of[p, u]`` is stage game s at position p and upcard u
    (-1: none)."""

    def __init__(self, columns: Columns, index: dict[bytes, int], stage_of: np.ndarray):
        super().__init__(columns, index)
        self.stage_of = stage_of

    def _find(self, at) -> int:
        key, u = at
        p = self._position(key)
        ok = isinstance(u, (int, np.integer)) and not isinstance(u, bool)
        if not ok or not 0 <= u < self.stage_of.shape[1] or self.stage_of[p, u] < 0:
            raise KeyError(at)
        return int(self.stage_of[p, u])

    def __getitem__(self, at) -> StageSolution:
        return self.columns.stage(self._find(at))

    def __contains__(self, at) -> bool:
        try:
            self._find(at)
        except (KeyError, TypeError, ValueError):
            return False
        return True

    def __iter__(self) -> Iterator[tuple[Key, int]]:
        c = self.columns
        keys: dict[int, Key] = {}
        for p, u in zip(c.stage_positions.tolist(), c.upcards.tolist()):
            key = keys.get(p)
            if key is None:
                key = keys[p] = c.key(p)
            yield key, u

    def __len__(self) -> int:
        return len(self.columns.upcards)


class PositionValues(_Indexed, Mapping):
    """canonical position -> its value vector (``rows[p]``), over :class:`Columns`."""

    def __init__(self, columns: Columns, index: dict[bytes, int], rows: np.ndarray):
        super().__init__(columns, index)
        self.rows = rows

    def __getitem__(self, key) -> np.ndarray:
        return self.rows[self._position(key)]

    def __contains__(self, key) -> bool:
        try:
            self._position(key)
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[Key]:
        return (self.columns.key(p) for p in range(self.columns.positions))

    def __len__(self) -> int:
        return self.columns.positions
