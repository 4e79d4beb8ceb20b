"""exact.game.spec.GameSpec: one value per game, however it is built (the cache keys of the
bots and the web server rely on it), seen from either seat, and which spec answers which."""

import pytest

from exact.errors import GopsInputError
from exact.game.orders import ORDERS, mirrored
from exact.game.spec import GameSpec


@pytest.mark.parametrize("order", list(ORDERS))
def test_one_value_and_hash_per_game(order):
    ways = [
        GameSpec.parse(6, "win", order),
        GameSpec.parse(6, "win", ORDERS[order]),
        GameSpec.from_json(GameSpec.parse(6, "win", order).to_json()),
        GameSpec.parse(6).replace(objective="win", order=order),
        GameSpec.parse(6, "win", mirrored(order)).mirrored(),
    ]
    assert len(set(ways)) == 1 and len({hash(w) for w in ways}) == 1


def test_mirrored_swaps_the_chooser_only():
    spec = GameSpec.parse(5, "win", "controlled-by-me", handicap=3, arithmetic="rational")
    other = spec.mirrored()
    assert other.order.name == "controlled-by-them" and other.mirrored() == spec
    assert other.to_json() | {"order": "controlled-by-me"} == spec.to_json()
    for name in ("random", "ascending", "descending"):
        assert GameSpec.parse(5, order=name).mirrored() == GameSpec.parse(5, order=name)


def test_covers_the_same_game_at_no_more_leads():
    win = GameSpec.parse(5, "win")
    assert win.covers(win) and win.replace(handicap=15).covers(win.replace(handicap=4))
    assert not win.replace(handicap=4).covers(win.replace(handicap=5))
    for other in (
        win.replace(n=6),
        win.replace(objective="points"),
        win.replace(order="ascending"),
        win.replace(arithmetic="rational"),
    ):
        assert not win.replace(handicap=15).covers(other)


def test_a_spec_is_checked_however_it_is_built():
    with pytest.raises(GopsInputError, match="unknown prize order"):
        GameSpec.parse(5).replace(order="sorted")
    with pytest.raises(GopsInputError, match="win objective only"):
        GameSpec.parse(5).replace(handicap=1)


# -- the objective and the arithmetic are objects, parsed once (issue 35, item 1) ----------


def test_the_objective_and_arithmetic_are_objects_never_names():
    from exact.game.objectives import FLOAT, RATIONAL, WIN

    spec = GameSpec.parse(5, objective="win", arithmetic="rational")
    assert spec.objective is WIN and spec.arithmetic is RATIONAL
    assert GameSpec.parse(5).arithmetic is FLOAT
    # A name compared below the boundary fails loudly instead of being silently False.
    for part, name in ((spec.objective, "win"), (spec.arithmetic, "rational")):
        with pytest.raises(TypeError, match="not with the string"):
            _ = part == name
        with pytest.raises(TypeError):
            _ = name != part


def test_json_and_repr_keep_the_names():
    spec = GameSpec.parse(6, objective="win", order="descending", handicap=2)
    data = spec.to_json()
    assert data == {
        "n": 6,
        "objective": "win",
        "order": "descending",
        "handicap": 2,
        "arithmetic": "float",
    }
    assert all(isinstance(v, str) for k, v in data.items() if k not in ("n", "handicap"))
    assert GameSpec.from_json(data) == spec
    assert repr(spec) == (
        "GameSpec(n=6, objective='win', order='descending', handicap=2, arithmetic='float')"
    )


def test_every_objective_of_the_game_has_the_solvers_side():
    from exact.dp.objective import objective_of
    from exact.game.objectives import OBJECTIVES

    for name, rules in OBJECTIVES.items():
        solver = objective_of(GameSpec.parse(4, objective=name))
        assert solver.rules is rules and solver.name == name
        assert solver.largest_value(4) == rules.largest_value(4)
