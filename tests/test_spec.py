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
