"""The web page's three-player game: you against two computers playing the three-player
equilibrium (exact.play.three), through the API and clicked through in Chromium.

The scores are checked against the rules of the "Psychological JuJitsu" write-up scored by
hand from the bids the page shows (a unique high bid takes the prize, a three-way tie
discards it, a two-way tie splits it under ``three``, gives it to the third player under
``three-third``).
"""

from fractions import Fraction

import pytest

from exact.play.three import EQUILIBRIUM_MAX_N
from test_web import (  # the page's server, browser and helpers
    ARTIFACTS,
    browser,
    click_bids,
    client,
    no_console_errors,
    page_server,
    wait_for,
)

__all__ = ["browser", "client", "no_console_errors", "page_server"]  # fixtures, used by name


def hand_points(prize: int, bids, variant: str) -> list[Fraction]:
    """One round scored by the rules: the highest bid alone takes the prize; a three-way
    tie, or any tie under the discard rule, scores for nobody; a two-way tie splits it
    (three) or gives it to the third player (three-third)."""
    top = max(bids)
    high = [b == top for b in bids]
    if sum(high) == 1:
        return [Fraction(prize) * h for h in high]
    if sum(high) == 3 or variant == "three-discard":
        return [Fraction(0)] * 3
    if variant == "three":
        return [Fraction(prize, 2) * h for h in high]
    return [Fraction(prize) * (not h) for h in high]


def shown(x: Fraction) -> str:
    """Points as the page shows them (4.5 for a half)."""
    return str(int(x)) if x.denominator == 1 else str(float(x))


def assert_final_scores(browser, totals, outcome: str) -> None:
    """The page's three scores are ``totals`` and its last line names the winner (or a
    tie for the most points)."""
    from selenium.webdriver.common.by import By

    scores = [
        browser.find_element(By.ID, x).text for x in ("score-me", "score-them", "score-second")
    ]
    assert scores == [shown(t) for t in totals]
    leaders = [i for i, t in enumerate(totals) if t == max(totals)]
    verdict = (
        "a tie for the most points."
        if len(leaders) > 1
        else ["you win.", "computer 1 wins.", "computer 2 wins."][leaders[0]]
    )
    assert outcome == (
        f"Game over: you {scores[0]}, computer 1 {scores[1]}, computer 2 {scores[2]}: {verdict}"
    )


@pytest.mark.parametrize("variant", ["three", "three-third"])
def test_a_three_player_game_through_the_api(client, variant):
    r = client.get("/api/game/new", params={"n": 3, "variant": variant, "seed": 7})
    game = r.json()
    assert r.status_code == 200, game
    assert game["computers"] == ["equilibrium", "equilibrium"] and game["note"] is None
    # no saved solution here (conftest's empty cache folder): solved on the fly
    rule = {"three": "split", "three-third": "third"}[variant]
    assert game["equilibrium"] == {"from": "solved", "n": 3, "tie_rule": rule}
    for card in (3, 2):
        game = client.get("/api/game/bid", params={**game["state"], "bid": card}).json()
    assert game["awaiting"] == "over" and len(game["history"]) == 3
    totals = [Fraction(0)] * 3
    for row in game["history"]:
        got = hand_points(row["prize"], [row["you"], row["computer"], row["computer2"]], variant)
        totals = [t + g for t, g in zip(totals, got)]
        assert float(row["mix"][str(row["computer"])]) > 0  # a bid of the computer's mix
    assert [Fraction(str(game["score"][k])) for k in ("you", "computer", "computer2")] == totals


def test_three_player_refusals_and_the_heuristic_note(client):
    note = client.get("/api/game/new", params={"n": EQUILIBRIUM_MAX_N + 1, "variant": "three"})
    assert note.status_code == 200 and "heuristic bots upcard+1 and upcard" in note.json()["note"]
    assert note.json()["computers"] == ["upcard+1", "upcard"]
    assert note.json()["equilibrium"] is None  # the page then shows no equilibrium source
    assert client.get("/api/info").json()["three_solutions"] == []  # none saved here
    for params, message in (
        ({"n": 3, "variant": "three", "objective": "win"}, "for points with shuffled prizes"),
        ({"n": 3, "variant": "three-third", "lead": 1}, "no lead"),
        ({"n": 14, "variant": "three"}, "between 1 and 13"),
    ):
        r = client.get("/api/game/new", params=params)
        assert r.status_code == 400 and message in r.json()["error"], r.json()
    r = client.get("/api/game/prize", params={"n": 3, "variant": "three", "prize": 1})
    assert r.status_code == 400 and "shuffled" in r.json()["error"]


@pytest.mark.parametrize("variant", ["three", "three-third"])
def test_play_a_whole_three_player_game_by_clicking(page_server, browser, variant):
    """A 3-card game against the two equilibrium computers, clicked through (the last
    card plays itself); the scores shown are those of the bids shown, scored by hand."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(f"{page_server}/#play?n=3&objective=points")
    browser.refresh()
    wait_for(browser, lambda d: d.find_element(By.ID, "variant").is_displayed())
    Select(browser.find_element(By.ID, "variant")).select_by_value(variant)
    browser.find_element(By.ID, "new-game").click()
    what = wait_for(browser, lambda d: d.find_element(By.ID, "play-what").text)
    assert "computers: equilibrium and equilibrium" in what
    assert not browser.find_element(By.ID, "play-note").is_displayed()
    assert browser.find_element(By.ID, "play-source").text == (
        "The computers play the three-player equilibrium, solved on this server for this game."
    )
    click_bids(browser, 2, lambda buttons: buttons[0])
    outcome = wait_for(browser, lambda d: d.find_element(By.ID, "outcome").text)
    rows = browser.find_elements(By.CSS_SELECTOR, "#history tbody tr")
    cells = [[td.text for td in r.find_elements(By.TAG_NAME, "td")] for r in rows]
    assert len(cells) == 3 and all(len(c) == 6 for c in cells)
    for seat in (2, 3, 4):  # you and both computers used each card once
        assert sorted(int(c[seat]) for c in cells) == [1, 2, 3]
    totals = [Fraction(0)] * 3
    for c in cells:
        got = hand_points(int(c[1]), [int(c[2]), int(c[3]), int(c[4])], variant)
        totals = [t + g for t, g in zip(totals, got)]
    assert_final_scores(browser, totals, outcome)
    browser.save_screenshot(str(ARTIFACTS / f"play-{variant}.png"))
