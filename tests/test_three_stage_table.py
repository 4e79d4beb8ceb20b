"""The columns of a loaded three-player solution (exact.three.stage_table) and their
checks in exact.three.saved: the vectorised canonical-form check agrees with
:func:`exact.three.canonical.canonical` itself on seeded random positions, canonical or
not, and the mappings answer as the solve's dicts."""

from __future__ import annotations

import random

import pytest

from exact.three import saved
from exact.three.canonical import canonical
from exact.three.induction import solve_game
from exact.three.rules import ThreeGame
from exact.three.stage_table import Columns, PositionValues, StageTable

SEED = 20261129
CASES = 400


def _accepted(key, game) -> bool:
    c = Columns.build([key], [], [], [], [], [], [])
    try:
        saved._check_positions(c, game, "f")
    except saved.SavedSolutionError:
        return False
    return True


def _random_key(rng: random.Random, n: int):
    """A position as canonical() makes it, or one edit away from it: players swapped,
    points shifted, or one hand's card changed (hands stay sets of distinct ranks)."""
    k = rng.randint(1, n)
    hands = tuple(tuple(sorted(rng.sample(range(1, n + 1), k))) for _ in range(3))
    prizes = tuple(sorted(rng.sample(range(1, n + 1), k)))
    points = tuple(rng.randint(0, 6) for _ in range(3))
    key, _ = canonical(hands, prizes, points)
    (h0, h1, h2), pr, pts = key
    edit = rng.randrange(4)
    if edit == 1:
        h0, h1 = h1, h0
        pts = (pts[1], pts[0], pts[2])
    elif edit == 2:
        pts = tuple(p + 1 for p in pts)
    elif edit == 3:
        free = sorted(set(range(1, 3 * k + 2)) - set(h0))
        h0 = tuple(sorted(h0[1:] + (rng.choice(free),)))
    return ((h0, h1, h2), pr, pts)


@pytest.mark.parametrize("n", [3, 4, 6])
def test_the_columns_check_is_canonical_form(n):
    rng = random.Random(SEED + n)
    game = ThreeGame.parse(n, "split", "top", "random")
    verdicts = set()
    for _ in range(CASES):
        key = _random_key(rng, n)
        want = canonical(*key)[0] == key
        assert _accepted(key, game) == want, key
        verdicts.add(want)
    assert verdicts == {True, False}  # both kinds were met


def test_the_mappings_answer_as_the_solve():
    sol = solve_game(ThreeGame.parse(4, "third", "top", "random"))
    c = Columns.of(sol.stages)
    index = c.index()
    stage_of = saved._stage_table(c, sol.game, "f")
    table = StageTable(c, index, stage_of)
    assert list(table) == list(sol.stages) and len(table) == len(sol.stages)
    for at, st in sol.stages.items():
        got = table[at]
        assert [list(m) for m in got.mixes] == [list(m) for m in st.mixes]
        assert list(got.values) == list(st.values) and got.method == st.method
    rows = saved._position_values(c, sol.game, stage_of, "f")
    values = PositionValues(c, index, rows)
    assert set(values) == {k for k in sol.values if k[1]}  # positions with prizes left
    for key in values:
        assert list(values[key]) == list(sol.values[key])
    hand = (1, 2, 3, 4)
    assert (((hand,) * 3, hand, (0, 0, 0)), 5) not in table  # not a prize
    assert (((hand,) * 3, hand, (0, 0, 300000)), 1) not in table  # no such position
    assert "junk" not in values
