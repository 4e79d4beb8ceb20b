"""The page's three-player games from saved 5-card solutions (``gops serve --solutions
DIR``), clicked through in Chromium under each tie rule, and the saved solutions
``/api/info`` lists.

The server reads the saved 5-card solutions shipped as test data (tests/data/
three-5-RULE-points-random.gops3.xz, one per tie rule, 120-161 KB each), made by the
command a user runs::

    for r in split third discard; do
        gops solve 5 --players 3 --tie-rule $r --save tests/data/three-5-$r-points-random.gops3.xz
    done

(about 40 s of CPU each; the timings are in the header, outside the SHA-256, so a solve
again writes the same body).  The test is not trusting them: each is proved again by
``gops verify FILE`` here (its NashConv recomputed from the mixes, below 1e-9), and
``exact.three.solve`` is made to fail, so nothing is solved on the fly.  For each rule, a
seed whose game has a two-way tie for the high bid is found through the API, then that
game is played by clicking, and what the page shows is checked against the rules scored
by hand from the bids it shows (the "Psychological JuJitsu" write-up: a unique high bid
takes the prize, a three-way tie discards it, a two-way tie splits it (``three``), gives
it to the third player (``three-third``) or discards it (``three-discard``, OpenSpiel's
goofspiel)): each round's winner, the scores, every player's pile of prizes (halves for a
split), that both computers bid cards of their saved equilibrium mix, and that the page
names the saved file and its NashConv.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import exact.three
from exact.play import three as play_three
from exact.three.saved import SUFFIX, load
from exact.web.app import create_app
from test_three_saved import run
from test_web import ARTIFACTS, browser, no_console_errors, serve, testclient, wait_for
from test_web_three import assert_final_scores, hand_points, shown

__all__ = ["browser", "no_console_errors"]  # fixtures, used by name

RULE_OF = {"three": "split", "three-third": "third", "three-discard": "discard"}
NAMES = ("you", "computer 1", "computer 2")
N = 5
DATA = Path(__file__).parent / "data"
#: NashConv below this is what exact.three's solve certifies (exact.three.certify).
CERTIFIED_NASHCONV = 1e-9


def saved_file(rule: str) -> Path:
    return DATA / f"three-{N}-{rule}-points-random{SUFFIX}"


@pytest.mark.parametrize("rule", list(RULE_OF.values()))
def test_the_shipped_solutions_are_proved_again(rule):
    """gops verify FILE recomputes each shipped file's NashConv from its mixes (exit 0),
    and the file holds the 5-card game of its name."""
    code, out, err = run("verify", saved_file(rule))
    assert code == 0, out + err
    assert out.startswith(f"verified: three-player GOPS, {N} cards, tie rule {rule}, ")
    bound = load(saved_file(rule)).nashconv["bound"]
    assert 0 <= bound < CERTIFIED_NASHCONV
    assert f"NashConv <= {bound:.3g}, proven again from the mixes" in out


@pytest.fixture(scope="module")
def saved_app(tmp_path_factory):
    """The page's app, playing three-player games from the shipped saved solutions only
    (an empty cache folder; a solve on the fly fails the test)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(exact.three, "solve", lambda *a, **k: pytest.fail("solved on the fly"))
        mp.setenv("GOPS_CACHE", str(tmp_path_factory.mktemp("no-cache")))
        play_three.forget_solutions()
        play_three.use_solutions(folders=[DATA])
        try:
            yield create_app()
        finally:
            play_three.forget_solutions()


@pytest.fixture(scope="module")
def saved_server(saved_app):
    yield from serve(saved_app)


def bound_shown(bound: float) -> str:
    """A NashConv bound as the page writes it (JavaScript's toExponential(1): 9.6e-13)."""
    mantissa, exponent = f"{bound:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def test_api_info_lists_the_saved_solutions(saved_app):
    """/api/info lists each file of the folder once: its N, tie rule, objective, order
    and the NashConv bound in its header (the one gops verify proves again above)."""
    client = testclient.TestClient(saved_app)
    listed = client.get("/api/info").json()["three_solutions"]
    assert sorted(listed, key=lambda e: e["file"]) == [
        {
            "file": saved_file(rule).name,
            "n": N,
            "tie_rule": rule,
            "objective": "points",
            "order": "random",
            "nashconv": load(saved_file(rule)).nashconv["bound"],
        }
        for rule in ("discard", "split", "third")  # the files' names, sorted
    ]


@pytest.mark.parametrize("n", [N, 3])
def test_a_game_says_which_saved_solution_it_plays(saved_app, n):
    """A game of N = 5, or of 3 cards (read from the 5-card file, which holds every
    smaller game's start), names the saved file and its NashConv; nothing is solved."""
    client = testclient.TestClient(saved_app)
    game = client.get("/api/game/new", params={"n": n, "variant": "three-third"}).json()
    assert game["computers"] == ["equilibrium", "equilibrium"] and game["note"] is None
    assert game["equilibrium"] == {
        "from": "saved",
        "file": saved_file("third").name,
        "n": N,
        "tie_rule": "third",
        "objective": "points",
        "order": "random",
        "nashconv": load(saved_file("third")).nashconv["bound"],
    }


def lowest_card(buttons):
    return buttons[0]


def tied_seed(app, variant: str) -> int:
    """A seed whose game, your lowest card bid each round, has a two-way tie for the
    high bid (played through the API)."""
    client = testclient.TestClient(app)
    for seed in range(200):
        game = client.get("/api/game/new", params={"n": N, "variant": variant, "seed": seed})
        game = game.json()
        for _ in range(N - 1):
            bid = min(game["your_cards"])
            game = client.get("/api/game/bid", params={**game["state"], "bid": bid}).json()
        for r in game["history"]:
            bids = [r["you"], r["computer"], r["computer2"]]
            if bids.count(max(bids)) == 2:
                return seed
    pytest.fail("no seed in 200 has a two-way tie")


@pytest.mark.parametrize("variant", list(RULE_OF))
def test_a_whole_game_from_a_saved_solution(saved_app, saved_server, browser, variant):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from test_web import click_bids

    seed = tied_seed(saved_app, variant)
    browser.get("about:blank")
    browser.get(f"{saved_server}/#play?n={N}&objective=points")
    wait_for(browser, lambda d: d.find_element(By.ID, "variant").is_displayed())
    Select(browser.find_element(By.ID, "variant")).select_by_value(variant)
    browser.find_element(By.ID, "seed").send_keys(str(seed))
    browser.find_element(By.ID, "new-game").click()
    what = wait_for(browser, lambda d: d.find_element(By.ID, "play-what").text)
    assert "computers: equilibrium and equilibrium" in what
    assert not browser.find_element(By.ID, "play-note").is_displayed()
    saved = load(saved_file(RULE_OF[variant]))
    assert browser.find_element(By.ID, "play-source").text == (
        f"The computers play the saved {N}-card equilibrium {saved_file(RULE_OF[variant]).name} "
        f"(NashConv \u2264 {bound_shown(saved.nashconv['bound'])})."
    )
    click_bids(browser, N - 1, lowest_card)
    outcome = wait_for(browser, lambda d: d.find_element(By.ID, "outcome").text)
    rows = browser.find_elements(By.CSS_SELECTOR, "#history tbody tr")
    cells = [[td.text for td in r.find_elements(By.TAG_NAME, "td")] for r in rows]
    assert len(cells) == N

    # the bids: each seat plays each card once, the computers from their saved mixes
    solution = saved.solution
    full = tuple(range(1, N + 1))
    hands, prizes = [set(full) for _ in range(3)], set(full)
    totals = [Fraction(0)] * 3
    piles: list[list[tuple[str, str]]] = [[], [], []]
    ties = 0
    for c in cells:
        prize, bids = int(c[1]), [int(c[2]), int(c[3]), int(c[4])]
        at = (tuple(sorted(h) for h in hands), tuple(sorted(prizes)), (0, 0, 0), prize)
        mixes = solution.mixes(*at)
        for seat in (1, 2):
            assert mixes[seat][sorted(hands[seat]).index(bids[seat])] > 0, (c, mixes)
        got = hand_points(prize, bids, variant)
        ties += bids.count(max(bids)) == 2
        totals = [t + g for t, g in zip(totals, got)]
        for seat, g in enumerate(got):
            if g:
                piles[seat].append((str(prize), "1" if g == prize else "1/2"))
        winners = [NAMES[s] for s, g in enumerate(got) if g]
        each = f" ({shown(max(got))} each)" if len(winners) == 2 else ""  # a split
        assert c[5] == (" and ".join(winners) or "nobody") + each, c
        for seat in range(3):
            hands[seat].remove(bids[seat])
        prizes.remove(prize)
    assert ties >= 1 and not any(hands) and not prizes

    # the scores, the verdict and every player's pile
    assert_final_scores(browser, totals, outcome)
    for seat, box in enumerate(("won-me", "won-them", "won-second")):
        faces = browser.find_elements(By.CSS_SELECTOR, f"#{box} .face")
        got = [(f.get_attribute("data-prize"), f.get_attribute("data-share")) for f in faces]
        assert got == piles[seat], (box, got, piles[seat])
        if not piles[seat]:
            assert browser.find_element(By.ID, box).text == "none"
    assert browser.find_element(By.ID, "won-second").is_displayed()
    if variant == "three":
        assert any(share == "1/2" for pile in piles for _, share in pile)
    reveal = browser.find_element(By.ID, "reveal")
    assert reveal.text == "Show the computers' mixes last round"
    reveal.click()
    revealed = browser.find_element(By.ID, "revealed").text
    assert revealed.startswith("computer 1's mix: ") and "; computer 2's mix: " in revealed
    browser.save_screenshot(str(ARTIFACTS / f"play-{variant}-saved.png"))
    # at phone width the finished game, the saved file's name included, does not scroll
    browser.set_window_size(390, 844)
    try:
        width = browser.execute_script("return document.documentElement.scrollWidth")
        assert width <= 390, width
    finally:
        browser.set_window_size(1200, 1000)  # the fixture's size
