"""What a player maximises: the one description of an objective that every driver consumes.

The recursion is always the paper's (Rhoads & Bartholdi 2012, sec 3) over canonical
subgames (:mod:`exact.game.encoding`), level k computed from level k - 1 only:

    f(state)    = (1/k) sum_{u in P} val(X^u)       the mean over the next upcard u
    X^u_ij      = the entry after I bid my i-th smallest card, they their j-th smallest

(the mean is the random prize order's; a known order takes the one upcard it turns up,
a controlled one the chooser's max or min, :mod:`exact.game.orders`).  An objective says
what a state is, what the entry X^u_ij is, and which values need no game at all:

- points (the paper's): the state is (V, Y, P); X_ij = u sign(V_i - Y_j) + f(child);
  f = 0 when the hands are empty.  Antisymmetry f(Y, V, P) = -f(V, Y, P).
- win (P(win) - P(loss), :mod:`exact.kernels.win`): the state adds my lead L;
  X_ij = f(child, L + u sign(V_i - Y_j)); f = sign(L) when the hands are empty or when
  |L| > sum(P) (decided).  Antisymmetry f(Y, V, P, L) = -f(V, Y, P, -L).

Each objective lays a level out as an array (points: ``[prize rank, column]``; win:
``[prize rank, column, L + offset_k]``) with one column per antisymmetric pair under a
symmetric prize order, one per pattern under a controlled one
(:class:`exact.game.encoding.Columns`), names the representatives of its antisymmetric
pairs (the records a rational solve certifies), builds the exact matrix of a record from
the level below (for the rational driver, the audit and every Solution), and hands the
float work of a chunk of a level to its numba kernel (which stays specialised: that is
what makes it fast).  The drivers (:mod:`exact.dp.drivers`) and :class:`exact.dp.solution.Solution`
hold no objective-specific code.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator

import numpy as np
from flint import fmpq

from exact.dp.exact_game import solve_exact_game, solve_saddle_or_lp
from exact.game.encoding import Columns, Level
from exact.game.objectives import POINTS, WIN, GameObjective
from exact.game.orders import RANDOM, PrizeOrder, order_named
from exact.game.spec import GameSpec
from exact.kernels import points as points_kernel
from exact.kernels import win as win_kernel


class Objective(ABC):
    """One objective with its parameters, as the solvers see it; ``rules``: the objective
    as a rule of the game (:mod:`exact.game.objectives`: its name, whether states carry
    a lead, the lead rules)."""

    rules: GameObjective
    #: Items per chunk of an in-memory float solve (a progress update each).
    chunk_items: int
    #: Whether the empty game (level 0) is itself a record (it is certified for points).
    records_empty_game: bool
    #: Who orders the prizes (exact.game.orders): the mean over the upcards, or one of them,
    #: or the chooser's best.
    order: PrizeOrder = RANDOM

    # -- float levels ------------------------------------------------------------------

    @abstractmethod
    def empty_level(self, level: Level) -> np.ndarray:
        """A float level before solving: every value that needs no game already set."""

    def empty_rows(self, level: Level, r0: int, r1: int) -> np.ndarray:
        """Prize sets r0..r1-1 of :meth:`empty_level` (a part of a level, on a cluster)."""
        return self.empty_level(level)[r0:r1]

    def columns(self, level: Level) -> Columns:
        """The columns of a level's array: one per antisymmetric pair (a symmetric prize
        order), one per pattern (a controlled one)."""
        return level.columns(self.order.antisymmetric)

    def below_columns(self, level: Level) -> Columns:
        """The columns of the level below, where ``level``'s children are read."""
        return level.below_columns(self.order.antisymmetric)

    def every_pattern(self, level: Level, values: np.ndarray) -> np.ndarray:
        """A level's values with one column per pattern (mirror images filled in: -f, at
        the opposite lead for the win objective), for tools of small N that index by
        pattern (the audit, the bound certificate).

        >>> from exact.game.encoding import build_levels
        >>> level = build_levels(3)[1]
        >>> PointsObjective().every_pattern(level, np.array([[0.0, 1.5]] * 3))[0].tolist()
        [0.0, 1.5, -1.5]
        """
        columns = self.columns(level)
        out = np.array(values)[:, columns.column]
        flip = columns.mirror < 0
        mirrored = out[:, flip]
        out[:, flip] = -(mirrored[..., ::-1] if out.ndim == 3 else mirrored)
        return out

    def level_shape(self, level: Level) -> tuple[int, ...]:
        """The shape of a float level's array (what a store checks its files against)."""
        return (level.prize_sets, self.columns(level).count)

    def values_per_subgame(self, n: int, k: int) -> int:
        """Values a level of hands of k cards keeps per canonical subgame (pattern, prize
        set) of the n-card game: the last axis of :meth:`level_shape`, if any."""
        return 1

    @abstractmethod
    def level_items(self, level: Level) -> int:
        """Kernel items of a level (the unit of chunks and checkpoints)."""

    @abstractmethod
    def item_patterns(self, level: Level) -> np.ndarray:
        """The pattern of each kernel item of a prize set: item t of the level is (prize
        rank t // len, pattern item_patterns[t % len]); it also writes the pattern's mirror
        image under an antisymmetric order."""

    @abstractmethod
    def solve_chunk(
        self,
        level: Level,
        below: np.ndarray | None,
        out: np.ndarray,
        start: int,
        stop: int,
        radius_below: float,
        row0: int = 0,
    ) -> tuple[int, float]:
        """Solve kernel items [start, stop) of ``level`` into ``out`` (``below``: the values
        of the level below, None for level 0, which has no item); the games solved and
        a certified bound on the error of every value written (given ``radius_below``, the
        bound of the level below; :mod:`exact.kernels.bounds`).  ``out`` holds the level's
        prize sets from ``row0`` on (a part of the level; by default all of it)."""

    # -- exact levels ------------------------------------------------------------------

    # -- a GPU's level kernels (exact.cuda.levels) ---------------------------------------

    @abstractmethod
    def device_tables(self, level: Level) -> tuple[np.ndarray, ...]:
        """The level's read-only tables that its device kernel reads (copied to the device
        once per level by exact.cuda.driver), in the order :meth:`device_kernel` takes."""

    @abstractmethod
    def device_kernel(self, level: Level, tables: tuple, below, radius_below: float):
        """(kernel, arguments): the CUDA kernel of exact.cuda.levels that solves this
        objective's items of ``level``, and its arguments between the items' range
        (start, stop) and the output (out, row0, item_games, item_radius); ``tables``
        (:meth:`device_tables`) and ``below`` are device arrays."""

    @abstractmethod
    def exact_level(self, level: Level) -> np.ndarray:
        """An object array of fmpq for the rational driver (None where never looked up)."""

    @abstractmethod
    def records(self, level: Level, r: int) -> Iterator[tuple[int, int | None]]:
        """(pattern p, lead) of every record of prize set r: one per antisymmetric pair."""

    @abstractmethod
    def payoffs(self, n: int, k: int, row, cells, lead, children: Columns) -> list[list]:
        """The recursion step, X_ij from the child values: ``row`` is the row of level
        k - 1 of the prize set left (P - u), ``cells[i][j]`` the pair (child pattern rank,
        u sign(V_i - Y_j)), ``children`` the columns of level k - 1.  Numbers of ``row``
        (float or fmpq)."""

    def matrix(
        self,
        level: Level,
        below,
        r: int,
        p: int,
        m: int,
        lead=None,
        scale: int = 1,
        children: Columns | None = None,
    ) -> list[list]:
        """X^u of record (r, p, lead) for the m-th smallest upcard u of prize set r, from the
        level below (rows: my cards ascending, columns: theirs), numbers of ``below``.
        ``scale``: the unit of ``below`` when it holds fixed-point integers (the audit's);
        ``children``: the columns of ``below`` (by default the objective's, one per
        antisymmetric pair; ``Columns.every`` for a level indexed by pattern)."""
        k = level.k
        u = int(level.prize_card[r, m]) * scale
        child, sign = level.child[p], level.sign[p]
        cells = [[(int(child[i, j]), u * int(sign[i, j])) for j in range(k)] for i in range(k)]
        if children is None:
            children = self.below_columns(level)
        return self.payoffs(level.n, k, below[int(level.prize_child[r, m])], cells, lead, children)

    @abstractmethod
    def solve_exact_game(self, A):
        """The verified exact equilibrium (:class:`exact.dp.exact_game.ExactEquilibrium`) of a
        record's matrix A (lists of fmpq)."""

    @abstractmethod
    def put(self, out: np.ndarray, level: Level, r: int, p: int, lead, value) -> None:
        """Store a record's value in its column (its mirror image is read through it)."""

    @abstractmethod
    def get(self, values: np.ndarray, level: Level, r: int, p: int, lead):
        """The value of (r, p, lead) of a level: its column's, or minus its mirror image's."""

    @abstractmethod
    def subgames(self, levels) -> int:
        """Canonical states of the levels (SolveStats.subgames)."""

    # -- the objective as a rule of the game (exact.game.objectives) --------------------

    @property
    def name(self) -> str:
        return self.rules.name

    @property
    def has_lead(self) -> bool:
        """Whether states carry a lead."""
        return self.rules.has_lead

    def largest_value(self, n: int) -> float:
        """The largest |f| of any subgame of the n-card game: a radius this large proves
        nothing."""
        return self.rules.largest_value(n)

    def check_lead(self, lead, n: int, deck: frozenset) -> int | None:
        """The lead of a position, validated for this objective and the handicap solved
        for (GopsInputError)."""
        return self.rules.check_position_lead(lead, n, deck, self.handicap)

    def decided(self, deck, lead) -> int | None:
        """The value of a position that needs no solved level, else None."""
        return self.rules.decided(deck, lead)

    # -- what differs between the objectives outside the solve --------------------------

    #: The largest |lead| at the start that is solved for (win objective; 0 otherwise).
    handicap: int = 0

    def progress_units(self, level: Level) -> int:
        """The units a solve reports its progress in, per level (``progress(level, units)``
        of :mod:`exact.dp.drivers`; the bars of exact.cli.common take the level's total
        in the same units): the canonical points items of the level, whatever the
        objective, so that one bar serves every solve."""
        return points_kernel.level_items(level)

    def progress_done(self, level: Level, total: int, start: int, stop: int) -> int:
        """Kernel items [start, stop) of ``total`` in :meth:`progress_units`."""
        units = self.progress_units(level)
        return units * stop // max(total, 1) - units * start // max(total, 1)

    @abstractmethod
    def warm_up(self) -> float:
        """Compile (or load from numba's cache) this objective's level kernel; seconds."""

    def lead_of(self, level: Level, at: int) -> int | None:
        """The lead of index ``at`` of the last axis of a level's array (None: the layout
        has no lead axis)."""
        return None

    def has_identical_hands_column(self) -> bool:
        """Whether a float level's array holds a column of identical hands whose values
        are 0 by antisymmetry (the points objective under a symmetric prize order; the
        win objective's depend on the lead)."""
        return not self.has_lead and self.order.antisymmetric

    def has_values_without_game(self) -> bool:
        """Whether a new level holds values that need no game (the win objective's
        decided leads), written before it is solved; the points objective's are zeros."""
        return self.has_lead


class PointsObjective(Objective):
    """The expected point difference (Rhoads & Bartholdi 2012, sec 3), under any prize
    order (:mod:`exact.game.orders`; default the paper's random order)."""

    rules = POINTS
    chunk_items = 1 << 16
    records_empty_game = True

    def __init__(self, order="random"):
        self.order = order_named(order)

    def __repr__(self) -> str:
        if self.order is RANDOM:
            return "PointsObjective()"
        return f"PointsObjective(order={self.order.name!r})"

    def empty_level(self, level):
        return np.zeros(self.level_shape(level))

    def empty_rows(self, level, r0, r1):
        return np.zeros((r1 - r0, self.columns(level).count))

    def level_items(self, level):
        return points_kernel.level_items(level, self.order.code)

    def item_patterns(self, level):
        return points_kernel.solved_patterns(level, self.order.code)

    def solve_chunk(self, level, below, out, start, stop, radius_below, row0=0):
        radius = points_kernel.solve_level(
            level, below, out, start, stop, radius_below, row0, self.order.code
        )
        return (stop - start) * len(self.order.upcard_indices(level.k)), radius

    def device_tables(self, level):
        solved = self.item_patterns(level)
        column, mirror = points_kernel.child_columns(level, solved, self.order.antisymmetric)
        own = self.columns(level).column
        return (solved, column, mirror, level.sign, level.prize_child, level.prize_card, own)

    def device_kernel(self, level, tables, below, radius_below):
        from exact.cuda.levels import points_items  # noqa: PLC0415 - the cuda extra, on a GPU only

        canon, column, mirror, sign, prize_child, prize_card, own = tables
        order = self.order.code
        args = (level.k, canon, column, mirror, sign, prize_child, prize_card, below)
        return points_items, (*args, float(radius_below), order, own)

    def exact_level(self, level):
        return np.full(self.level_shape(level), fmpq(0), dtype=object)

    def records(self, level, r):
        patterns = level.record_patterns if self.order.antisymmetric else range(level.patterns)
        for p in patterns:
            yield int(p), None

    def payoffs(self, n, k, row, cells, lead, children):
        """X_ij = f(child) + u sign(V_i - Y_j), f(child c) = mirror[c] * row[column[c]].

        One card each, the child worth 1/2, the upcard 2 won by me:

        >>> half = np.array([fmpq(1, 2)], dtype=object)
        >>> PointsObjective().payoffs(2, 1, half, [[(0, 2)]], None, Columns.every(1))
        [[5/2]]
        """
        column, mirror = children.column, children.mirror
        return [[row[column[c]] * int(mirror[c]) + won for c, won in line] for line in cells]

    def solve_exact_game(self, A):
        return solve_exact_game(A)

    def put(self, out, level, r, p, lead, value):
        columns = self.columns(level)
        if columns.mirror[p] < 0:  # pragma: no cover - a record is its column's pattern
            raise ValueError(f"pattern {p} is a mirror image, not a record")
        out[r, columns.column[p]] = value

    def get(self, values, level, r, p, lead):
        columns = self.columns(level)
        value = values[r, columns.column[p]]
        return value if columns.mirror[p] > 0 else -value

    def subgames(self, levels):
        return sum(lv.subgames for lv in levels)

    def warm_up(self):
        return points_kernel.warm_up()


class WinObjective(Objective):
    """P(win) - P(loss), with the lead in the state (:mod:`exact.kernels.win`).

    ``handicap`` H: the largest |lead| at the start of the game (0 for the real game);
    every lead reachable from [-H, H] is solved.
    """

    rules = WIN
    chunk_items = 1 << 14
    records_empty_game = False

    def __init__(self, handicap: int = 0, zero_lead: bool = False, order="random"):
        self.handicap = handicap
        self.order = order_named(order)
        # Identical hands at lead 0 are worth 0 by antisymmetry; ``zero_lead`` makes them
        # records anyway (their equilibria are wanted by the certificate writer).
        self.zero_lead = zero_lead

    def __repr__(self) -> str:
        order = "" if self.order is RANDOM else f", order={self.order.name!r}"
        return f"WinObjective(handicap={self.handicap}{order})"

    def offset(self, level: Level) -> int:
        return win_kernel.lead_offset(level.n, level.k, self.handicap)

    def empty_level(self, level):
        return win_kernel.empty_level(level, self.handicap, antisymmetric=self.order.antisymmetric)

    def empty_rows(self, level, r0, r1):
        return win_kernel.empty_level(level, self.handicap, slice(r0, r1), self.order.antisymmetric)

    def level_shape(self, level):
        return (level.prize_sets, self.columns(level).count, 2 * self.offset(level) + 1)

    def values_per_subgame(self, n, k):
        return (
            2 * win_kernel.lead_offset(n, k, self.handicap) + 1
        )  # every lead L in [-off_k, off_k]

    def level_items(self, level):
        return win_kernel.level_items(level, self.order.code)

    def item_patterns(self, level):
        return win_kernel.solved_patterns(level, self.order.code)

    def solve_chunk(self, level, below, out, start, stop, radius_below, row0=0):
        return win_kernel.solve_win_level(
            level, below, out, self.handicap, start, stop, radius_below, row0, self.order.code
        )

    def device_tables(self, level):
        children = self.below_columns(level)
        return (
            self.item_patterns(level),
            level.swap,
            self.columns(level).column,
            win_kernel.lead_limits(level, self.handicap),
            level.child,
            level.sign,
            level.prize_child,
            level.prize_card,
            children.column,
            children.mirror,
        )

    def device_kernel(self, level, tables, below, radius_below):
        from exact.cuda.levels import win_items  # noqa: PLC0415 - the cuda extra, on a GPU only

        patterns, swap, own, limits, child, sign, prize_child, prize_card = tables[:8]
        offb = win_kernel.lead_offset(level.n, level.k - 1, self.handicap)
        g = (level.k, child, sign, prize_child, prize_card, below, *tables[8:])  # WinGames'
        g = (*g, offb, float(radius_below), self.order.code)
        return win_items, (patterns, swap, own, limits, g, self.offset(level))

    def exact_level(self, level):
        template = self.empty_level(level)
        out = np.empty(template.shape, dtype=object)
        for value in (1.0, -1.0, 0.0):
            out[template == value] = fmpq(int(value))
        out[np.isnan(template)] = None
        return out

    def records(self, level, r):
        lim = int(win_kernel.lead_limits(level, self.handicap)[r])
        mirrored = self.order.antisymmetric
        for p in level.record_patterns if mirrored else range(level.patterns):
            p = int(p)
            first = (0 if self.zero_lead else 1) if p == level.swap[p] and mirrored else -lim
            for lead in range(first, lim + 1):
                yield p, lead

    def payoffs(self, n, k, row, cells, lead, children):
        # X_ij = f(child, L + u sign(V_i - Y_j)); a child lead beyond the offset of level
        # k - 1 is decided: sign(L'); a mirror image is read as -f(column, -L').
        offb = win_kernel.lead_offset(n, k - 1, self.handicap)
        one = fmpq(1) if row.dtype == object else 1.0
        A = []
        for line in cells:
            out = []
            for c, won in line:
                lc = lead + won
                out.append(
                    one if lc > offb else -one if lc < -offb else _read(row, children, c, lc, offb)
                )
            A.append(out)
        return A

    def solve_exact_game(self, A):
        return solve_saddle_or_lp(A)  # most games of the win objective have a saddle point

    def put(self, out, level, r, p, lead, value):
        off = self.offset(level)
        columns = self.columns(level)
        if columns.mirror[p] < 0:  # pragma: no cover - a record is its column's pattern
            raise ValueError(f"pattern {p} is a mirror image, not a record")
        col = columns.column[p]
        out[r, col, lead + off] = value
        if not self.order.antisymmetric or p != level.swap[p]:  # no mirror image in this column
            return
        if lead == 0 and value != 0:  # pragma: no cover - solver bug
            raise ArithmeticError(f"identical hands at lead 0 valued {value}")
        out[r, col, off - lead] = -value  # identical hands: f(p, -L) = -f(p, L)

    def get(self, values, level, r, p, lead):
        return _read(values[r], self.columns(level), p, lead, self.offset(level))

    def subgames(self, levels):
        return win_kernel.subgame_count(levels, self.handicap)

    def warm_up(self):
        return win_kernel.warm_up()

    def lead_of(self, level, at):
        return at - self.offset(level)


def _read(row, columns: Columns, p: int, lead: int, off: int):
    """f(p, L) from one prize set's row of a win level: row[column, L], or for a mirror
    image -row[column, -L] (f(swap p, L) = -f(p, -L)); None stays None (never solved)."""
    col = columns.column[p]
    if columns.mirror[p] > 0:
        return row[col, lead + off]
    value = row[col, off - lead]
    return None if value is None else -value


def objective_of(spec: GameSpec) -> Objective:
    """The Objective of a game (exact.game.spec): its layout, records and kernel.

    >>> objective_of(GameSpec.parse(5, objective="win", handicap=2))
    WinObjective(handicap=2)
    """
    return _OBJECTIVES[spec.objective](spec)


#: The solvers' side of each objective of the game (exact.game.objectives).
_OBJECTIVES = {
    POINTS: lambda spec: PointsObjective(spec.order),
    WIN: lambda spec: WinObjective(spec.handicap, order=spec.order),
}


def warm_up_all() -> float:
    """Compile (or load) every objective's level kernel, for a command that reads a store
    of either (``gops verify``); seconds spent."""
    return PointsObjective().warm_up() + WinObjective().warm_up()
