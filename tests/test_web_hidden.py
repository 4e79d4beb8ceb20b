"""Hidden bids (imperfect-information Goofspiel against the shipped equilibrium,
exact.play.hidden) through the API, clicked through in Chromium and typed into
``gops play --hidden-bids``; the table of Play (prize piles, scores) and the page at
phone width (390 px) in every view.

Every score is recomputed here from the history the page or the terminal reveals, by the
rules (the higher bid wins the prize, a tie discards it), never read back from the game.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from test_web import (  # the page's server, browser and helpers
    ARTIFACTS,
    browser,
    click_bids,
    client,
    load,
    no_console_errors,
    page_server,
    wait_for,
)

__all__ = ["browser", "client", "no_console_errors", "page_server"]  # fixtures, used by name


def scored(history) -> tuple[int, int, list[int], list[int]]:
    """Both scores and both prize piles of a revealed history, by the rules."""
    mine, theirs = [], []
    for r in history:
        if r["you"] > r["computer"]:
            mine.append(r["prize"])
        elif r["computer"] > r["you"]:
            theirs.append(r["prize"])
    return sum(mine), sum(theirs), sorted(mine), sorted(theirs)


def winner_of(you: int, computer: int) -> str:
    return "you" if you > computer else "computer" if computer > you else "nobody"


@pytest.mark.parametrize(
    "n, order, objective",
    [(4, "descending", "points"), (5, "ascending", "win"), (4, "random", "points")],
)
def test_a_hidden_game_through_the_api_hides_the_computers_cards(client, n, order, objective):
    params = {"n": n, "order": order, "objective": objective, "variant": "hidden", "seed": 11}
    game = client.get("/api/game/new", params=params).json()
    assert game["hidden"] and game["awaiting"] == "bid", game
    seen = []
    while game["awaiting"] == "bid":
        assert game["upcard"] not in game["prizes_to_come"]
        assert all("computer" not in r and "mix" not in r for r in game["history"])
        assert "computer_cards" not in game
        seen.append(game["upcard"])
        game = client.get(
            "/api/game/bid", params={**game["state"], "bid": max(game["your_cards"])}
        ).json()
    history = game["history"]
    assert len(history) == n and sorted(r["prize"] for r in history) == list(range(1, n + 1))
    assert sorted(r["computer"] for r in history) == list(range(1, n + 1))
    if order != "random":
        assert [r["prize"] for r in history] == sorted(
            range(1, n + 1), reverse=order == "descending"
        )
    for r in history:
        assert r["winner"] == winner_of(r["you"], r["computer"])
        assert r["mix"][str(r["computer"])] > 0  # a bid of its equilibrium mix
    you, them, my_pile, their_pile = scored(history)
    assert game["score"] == {"you": you, "computer": them}
    assert game["won"] == {"you": my_pile, "computer": their_pile}
    # the same seed and bids replay the same game (the state carries both)
    again = client.get("/api/game/new", params={**game["state"]}).json()
    assert again["history"] == history


def test_hidden_bids_are_refused_beyond_the_shipped_games(client):
    for params, message in (
        ({"n": 6, "order": "random"}, "N = 3 to 5 in this order"),
        ({"n": 8, "order": "descending"}, "N = 3 to 7"),
        ({"n": 4, "order": "controlled-by-me"}, "prize orders"),
        ({"n": 4, "order": "descending", "lead": 1}, "no lead"),
    ):
        r = client.get("/api/game/new", params={**params, "variant": "hidden"})
        assert r.status_code == 400 and message in r.json()["error"], r.json()
    r = client.get(
        "/api/game/bid", params={"n": 4, "order": "descending", "variant": "hidden", "bid": 9}
    )
    assert r.status_code == 400 and "you do not hold the 9" in r.json()["error"]
    assert [5, "random", "points"] in client.get("/api/info").json()["hidden"]


def test_play_a_whole_hidden_game_by_clicking(page_server, browser):
    """4 cards, descending: the computer's column shows "?" until the game is over, then
    its cards and mixes; the scores and piles shown are the revealed history's."""
    from selenium.webdriver.common.by import By

    load(browser, f"{page_server}/#play?n=4&objective=points&order=descending&variant=hidden")
    wait_for(browser, lambda d: d.find_element(By.ID, "new-game").is_displayed())
    browser.find_element(By.ID, "new-game").click()
    for _ in range(3):  # the fourth card plays itself
        click_bids(browser, 1, lambda buttons: buttons[-1])
        if browser.find_element(By.ID, "outcome").text:
            break
        cells = browser.find_elements(By.CSS_SELECTOR, "#history tbody td:nth-child(4)")
        assert cells and all(c.text == "?" for c in cells)
        assert "face down" in browser.find_element(By.ID, "their-cards").text
    outcome = wait_for(browser, lambda d: d.find_element(By.ID, "outcome").text)
    assert outcome.startswith("Game over")
    rows = [
        [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        for tr in browser.find_elements(By.CSS_SELECTOR, "#history tbody tr")
    ]
    assert len(rows) == 4
    history = [{"prize": int(r[1]), "you": int(r[2]), "computer": int(r[3])} for r in rows]
    assert [h["prize"] for h in history] == [4, 3, 2, 1]
    assert sorted(h["computer"] for h in history) == [1, 2, 3, 4]
    assert [r[4] for r in rows] == [winner_of(h["you"], h["computer"]) for h in history]
    assert all(r[5] for r in rows)  # its mix, revealed
    you, them, my_pile, their_pile = scored(history)
    assert browser.find_element(By.ID, "score-me").text == str(you)
    assert browser.find_element(By.ID, "score-them").text == str(them)
    assert browser.find_element(By.ID, "won-me").text.split() == [str(c) for c in my_pile] or (
        not my_pile and browser.find_element(By.ID, "won-me").text == "none"
    )
    assert browser.find_element(By.ID, "won-them").text.split() == [str(c) for c in their_pile] or (
        not their_pile and browser.find_element(By.ID, "won-them").text == "none"
    )
    browser.save_screenshot(str(ARTIFACTS / "hidden.png"))


def test_a_two_player_game_by_clicking_scores_both_piles(page_server, browser):
    """The standard game, 5 cards shuffled: both scores and both prize piles are the
    shown history's, scored by hand."""
    from selenium.webdriver.common.by import By

    load(browser, f"{page_server}/#play?n=5&objective=points&seed=3")
    wait_for(browser, lambda d: d.find_element(By.ID, "new-game").is_displayed())
    browser.find_element(By.ID, "new-game").click()
    click_bids(browser, 4, lambda buttons: buttons[len(buttons) // 2])
    wait_for(browser, lambda d: d.find_element(By.ID, "outcome").text)
    rows = [
        [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        for tr in browser.find_elements(By.CSS_SELECTOR, "#history tbody tr")
    ]
    history = [{"prize": int(r[1]), "you": int(r[2]), "computer": int(r[3])} for r in rows]
    assert sorted(h["prize"] for h in history) == [1, 2, 3, 4, 5]
    assert [r[4] for r in rows] == [winner_of(h["you"], h["computer"]) for h in history]
    you, them, my_pile, their_pile = scored(history)
    assert browser.find_element(By.ID, "score-me").text == str(you)
    assert browser.find_element(By.ID, "score-them").text == str(them)
    for pile_id, pile in (("won-me", my_pile), ("won-them", their_pile)):
        text = browser.find_element(By.ID, pile_id).text
        assert sorted(map(int, text.split())) == pile if pile else text == "none"


PHONE_VIEWS = [
    "#explore?n=6&objective=points",
    "#first?n=8&objective=points",
    "#play?n=10&objective=points",
    "#play?n=4&objective=points&order=descending&variant=hidden",
    "#play?n=3&objective=points&variant=three",  # N = 3: its equilibrium in a second
    "#play?n=10&objective=points&variant=dummy",
    "#agent",
    "#play?n=5&objective=points&variant=declaring",
]


@pytest.mark.parametrize("hash_", PHONE_VIEWS)
def test_no_horizontal_scroll_at_390_px_in_any_view(page_server, browser, hash_):
    """At 390 px (a phone) no view scrolls sideways, a finished game's history and
    revealed mixes included."""
    from selenium.webdriver.common.by import By

    browser.set_window_size(390, 844)
    try:
        load(browser, f"{page_server}/{hash_}")
        if hash_.startswith("#explore"):
            wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#mine-cards button"))
            browser.find_element(By.ID, "solve").click()
            wait_for(browser, lambda d: d.find_element(By.ID, "result").is_displayed())
        elif hash_.startswith("#first"):
            wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#first-table td"))
        elif hash_.startswith("#agent"):
            wait_for(browser, lambda d: d.find_element(By.ID, "agent-form").is_displayed())
        elif "declaring" in hash_:  # declare in round 1, then bid: the computer answers
            wait_for(browser, lambda d: d.find_element(By.ID, "new-game").is_displayed())
            browser.find_element(By.ID, "new-game").click()
            wait_for(browser, lambda d: d.find_element(By.ID, "declare2-box").is_displayed())
            browser.find_element(By.ID, "declare-yes").click()
            wait_for(browser, lambda d: not d.find_element(By.ID, "declare2-box").is_displayed())
            click_bids(browser, 4, lambda buttons: buttons[0])
            wait_for(browser, lambda d: d.find_element(By.ID, "outcome").text)
        else:
            wait_for(browser, lambda d: d.find_element(By.ID, "new-game").is_displayed())
            browser.find_element(By.ID, "new-game").click()
            n = int(hash_.split("n=")[1].split("&")[0])
            click_bids(browser, n - 1, lambda buttons: buttons[0])
            wait_for(browser, lambda d: d.find_element(By.ID, "outcome").text)
        width = browser.execute_script("return document.documentElement.scrollWidth")
        assert width <= 390, width
        small = browser.execute_script(
            "return [...document.querySelectorAll('#hand button, #new-game, .tab')]"
            ".filter((b) => b.offsetParent && (b.offsetHeight < 44 || b.offsetWidth < 44))"
            ".map((b) => b.id || b.textContent)"
        )
        assert not small, small  # tap targets of at least 44 px
        name = (
            hash_[1:].split("?")[0]
            + "-"
            + (hash_.split("variant=")[1] if "variant" in hash_ else "standard")
        )
        browser.save_screenshot(str(ARTIFACTS / f"phone-{name}.png"))
    finally:
        browser.set_window_size(1200, 1000)


# -- gops play --hidden-bids ------------------------------------------------------------------


def play_in_terminal(seed: int, bids: list[int]) -> str:
    """The transcript of ``gops play 4 --hidden-bids --order descending`` fed ``bids``."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "exact.cli",
            "play",
            "4",
            "--hidden-bids",
            "--order",
            "descending",
            "--seed",
            str(seed),
        ],
        input="".join(f"{b}\n" for b in bids),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def revealed(transcript: str) -> list[dict]:
    """The revealed table at the end of a transcript."""
    lines = transcript.split("round  prize  you  computer  winner")[1].splitlines()[1:]
    rows = []
    for line in lines:
        number, prize, you, computer, winner = line.split()[:5]
        rows.append(
            {"prize": int(prize), "you": int(you), "computer": int(computer), "winner": winner}
        )
    return rows


#: Every line ``gops play --hidden-bids`` may print before the final score: none has a
#: place for a card of the computer's (the opening lines are matched whole).
BEFORE_THE_END = [
    r"4-card GOPS with hidden bids against the computer \(seed \d+\)\. .* until the game ends\.",
    r"The computer plays the shipped equilibrium goofspiel-imp-4-descending-points\.json\.xz "
    r"\(exact: NashConv 0, re-proved now\); prize order: descending\.",
    r"",
    r"Round \d of 4: the \d is up\.",
    r"  prizes to come: (?:[\d ]+|-);  score: you \d+, computer \d+;  the computer holds \d cards",
    r"Your bid \([\d ]+\): \d",
    r"You bid \d: (?:you win the \d|the computer wins the \d|a tie: the \d is discarded)\.",
    r"Last round: the \d is up, you bid your \d\.",
]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_gops_play_hidden_bids_never_shows_the_computers_card_before_the_end(seed):
    """``gops play 4 --hidden-bids --order descending``, bids fed on stdin: every line
    before the final score is one of :data:`BEFORE_THE_END` (none shows a card of the
    computer's), each round's outcome there is the revealed history's, and the revealed
    history is the rules' (prizes descending, your bids, winners, the final score)."""
    bids = [[1, 2, 3], [4, 3, 2], [2, 4, 1]][seed - 1]
    text = play_in_terminal(seed, bids)
    head, _, tail = text.partition("Final score:")
    history = revealed(tail)
    outcomes = []
    for line in head.splitlines():
        assert any(re.fullmatch(p, line) for p in BEFORE_THE_END), line
        if line.startswith("You bid "):
            outcomes.append(line.split(": ", 1)[1])
    assert [h["prize"] for h in history] == [4, 3, 2, 1]
    assert [h["you"] for h in history[:3]] == bids
    assert sorted(h["computer"] for h in history) == [1, 2, 3, 4]
    said = {
        "you": "you win the {}.",
        "computer": "the computer wins the {}.",
        "nobody": "a tie: the {} is discarded.",
    }
    assert outcomes == [
        said[winner_of(h["you"], h["computer"])].format(h["prize"]) for h in history
    ]
    names = {"you": "you", "computer": "computer", "nobody": "tie"}
    assert [h["winner"] for h in history] == [
        names[winner_of(h["you"], h["computer"])] for h in history
    ]
    you, them, _, _ = scored(history)
    assert tail.startswith(f" you {you}, computer {them}:")


# -- how good is my agent? a policy file uploaded ------------------------------------------------


def uniform_policy_file(path, n=4, order="descending") -> str:
    """A policy file bidding uniformly at every decision of both players."""
    from exact.imperfect.game import ImperfectGame

    game = ImperfectGame.parse(n, order, "points")
    policy = {
        s.string: {str(a): 1 / len(s.legal) for a in s.legal}
        for player in (0, 1)
        for s in game.information_states(player)
    }
    path.write_text(json.dumps(policy))
    return str(path)


def cli_nashconv(path: str, n=4, order="descending") -> dict:
    from click.testing import CliRunner

    from exact.cli import main

    args = ["imperfect", "nashconv", path, "--n", str(n), "--order", order, "--json", "--quiet"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output.strip().splitlines()[-1])


def test_an_uploaded_policys_nashconv_is_the_clis(client, tmp_path):
    path = uniform_policy_file(tmp_path / "uniform.json")
    want = cli_nashconv(path)
    with open(path, "rb") as fh:
        r = client.post("/api/nashconv", params={"n": 4, "order": "descending"}, content=fh.read())
    got = r.json()
    assert r.status_code == 200, got
    for key in ("nash_conv", "best_response_values", "error_bound", "units", "openspiel_game"):
        assert got[key] == want[key], key
    assert got["exploitability"] == want["nash_conv"] / 2 and want["nash_conv"] > 0


def test_an_upload_beyond_the_limit_or_not_a_policy_is_refused(client, tmp_path, monkeypatch):
    from exact.web import upload

    path = uniform_policy_file(tmp_path / "uniform.json")
    body = Path(path).read_bytes()
    monkeypatch.setattr(upload, "UPLOAD_MAX_BYTES", len(body) - 1)
    r = client.post("/api/nashconv", params={"n": 4, "order": "descending"}, content=body)
    assert r.status_code == 413 and "more than the" in r.json()["error"]
    monkeypatch.undo()
    for params, content, message in (
        ({"n": 5, "order": "descending"}, body, "is not a decision of 5-card"),
        ({"n": 4, "order": "descending"}, b"[1, 2", "is not JSON"),
        ({"n": 4, "order": "descending"}, b"", "no policy file"),
        ({"n": 7, "order": "descending"}, body, "at most 6 here"),
        ({"n": 4, "order": "descending", "seed": 1}, body, "no such query parameter"),
    ):
        r = client.post("/api/nashconv", params=params, content=content)
        assert r.status_code == 400 and message in r.json()["error"], r.json()
    assert client.get("/api/info").json()["nashconv"]["upload_max_bytes"] == 64 * 2**20


def test_the_page_reads_an_uploaded_policys_nashconv(page_server, browser, tmp_path):
    """Your agent: the file chosen, its NashConv on the page is gops imperfect
    nashconv's on the same file; the upload limit is stated."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    path = uniform_policy_file(tmp_path / "uniform.json", 3, "ascending")
    want = cli_nashconv(path, 3, "ascending")
    load(browser, f"{page_server}/#agent")
    wait_for(browser, lambda d: d.find_element(By.ID, "agent-form").is_displayed())
    assert "64 MiB" in browser.find_element(By.ID, "upload-limit").text
    n = browser.find_element(By.ID, "agent-n")
    n.clear()
    n.send_keys("3")
    Select(browser.find_element(By.ID, "agent-order")).select_by_value("ascending")
    browser.find_element(By.ID, "agent-file").send_keys(path)
    browser.find_element(By.ID, "agent-go").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "agent-result").is_displayed())
    shown = browser.find_element(By.ID, "agent-nashconv").get_attribute("data-value")
    assert float(shown) == want["nash_conv"]
    assert browser.find_element(By.ID, "agent-br0").text == repr(want["best_response_values"][0])
    browser.save_screenshot(str(ARTIFACTS / "agent.png"))


#: WCAG 2.1's contrast of text (AA, normal size).
AA_TEXT = 4.5

#: The contrast of every visible text node's colour against the first opaque background
#: behind it (up its ancestors), WCAG 2.1's relative luminance; the lowest found.
CONTRAST_SCRIPT = """
const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255;
  return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
  .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
const back = (e) => { for (; e; e = e.parentElement) {
  const c = rgb(getComputedStyle(e).backgroundColor);
  if (c.length === 3 || c[3] > 0.9) return c.slice(0, 3); } return [255, 255, 255]; };
const out = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let t = walker.nextNode(); t; t = walker.nextNode()) {
  const e = t.parentElement;
  if (!t.textContent.trim() || !e.offsetParent || e.closest("[disabled], option, svg")) continue;
  const s = getComputedStyle(e);
  if (Number(s.opacity) < 1 || s.visibility === "hidden") continue;
  const [a, b] = [lum(rgb(s.color).slice(0, 3)), lum(back(e))];
  const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  out.push([ratio, t.textContent.trim().slice(0, 30), e.id || e.className || e.tagName]);
}
return out.sort((x, y) => x[0] - y[0]).slice(0, 5);
"""


@pytest.mark.parametrize(
    "hash_", ["#play?n=4&objective=points&order=descending&variant=hidden", "#agent"]
)
def test_text_has_wcag_aa_contrast(page_server, browser, hash_):
    """Every visible text of Play (a game under way and over) and of Your agent has a
    contrast of at least 4.5:1 against its background (WCAG 2.1 AA)."""
    from selenium.webdriver.common.by import By

    load(browser, f"{page_server}/{hash_}")
    if hash_.startswith("#play"):
        wait_for(browser, lambda d: d.find_element(By.ID, "new-game").is_displayed())
        browser.find_element(By.ID, "new-game").click()
        click_bids(browser, 1, lambda buttons: buttons[0])
        worst = browser.execute_script(CONTRAST_SCRIPT)
        assert worst[0][0] >= AA_TEXT, worst
        click_bids(browser, 2, lambda buttons: buttons[0])
        wait_for(browser, lambda d: d.find_element(By.ID, "outcome").text)
    else:
        wait_for(browser, lambda d: d.find_element(By.ID, "agent-form").is_displayed())
    worst = browser.execute_script(CONTRAST_SCRIPT)
    assert worst[0][0] >= AA_TEXT, worst


# -- declarations in the page ---------------------------------------------------------------------


def test_a_game_with_declarations_through_the_api_is_gops_plays(client):
    """Declaring in round 2 of a seeded 4-card game: the same bids, replies and
    declaration score as ``gops play 4 --seed 5 --declarations`` fed 1, d2, 3."""
    game = client.get("/api/game/new", params={"n": 4, "seed": 5, "declarations": 1}).json()
    for card, declare in ((1, False), (2, True), (3, False)):
        assert game["can_declare"] == (game["declared"] is None)
        game = client.get(
            "/api/game/bid",
            params={**game["state"], "bid": card, **({"declare": 1} if declare else {})},
        ).json()
    assert game["awaiting"] == "over" and game["declared"] == 2
    assert game["face_up"] == [False, True, True, True]
    done = subprocess.run(
        [sys.executable, "-m", "exact.cli", "play", "4", "--seed", "5", "--declarations"],
        input="1\nd2\n3\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = re.findall(r"You bid (\d), the computer bid (\d)", done.stdout)
    assert [(str(r["you"]), str(r["computer"])) for r in game["history"]] == said
    you, them, _, _ = scored(game["history"])
    winner = winner_of(you, them)
    points = 4 - 2 + 1  # the rounds bid face up, from the declaring round on
    assert game["declaration_score"] == {
        "winner": winner,
        "points": points if winner != "nobody" else 0,
        "face_up_rounds": points,
    }
    assert f"so the game scores {points}" in done.stdout
    refused = client.get("/api/game/bid", params={**game["state"], "bid": 4, "declare": 1})
    assert refused.status_code == 400
    r = client.get("/api/game/new", params={"n": 4, "declarations": 1, "objective": "win"})
    assert r.status_code == 400 and "points objective only" in r.json()["error"]


def test_declare_in_the_page(page_server, browser):
    """A 4-card game with declarations clicked through, declaring in round 2: the rounds
    from 2 on are marked face up and the declaration score is the rules'."""
    from selenium.webdriver.common.by import By

    load(browser, f"{page_server}/#play?n=4&objective=points&seed=5")
    wait_for(browser, lambda d: d.find_element(By.ID, "new-game").is_displayed())
    browser.find_element(By.ID, "declarations").click()
    browser.find_element(By.ID, "new-game").click()
    click_bids(browser, 1, lambda buttons: buttons[0])
    wait_for(browser, lambda d: d.find_element(By.ID, "declare-box").is_displayed())
    browser.find_element(By.ID, "declare").click()
    click_bids(browser, 2, lambda buttons: buttons[0])
    wait_for(browser, lambda d: d.find_element(By.ID, "outcome").text)
    rows = [
        [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        for tr in browser.find_elements(By.CSS_SELECTOR, "#history tbody tr")
    ]
    assert [r[2].endswith("(face up)") for r in rows] == [False, True, True, True]
    history = [
        {"prize": int(r[1]), "you": int(r[2].split()[0]), "computer": int(r[3])} for r in rows
    ]
    you, them, _, _ = scored(history)
    winner = {"you": "you", "computer": "the computer", "nobody": "nobody (a draw)"}
    note = browser.find_element(By.ID, "declared-note").text
    assert "you bid face up from round 2" in note
    points = 0 if winner_of(you, them) == "nobody" else 3  # rounds 2, 3 and 4 face up
    assert f"so the game scores {points} for {winner[winner_of(you, them)]}" in note


def test_hidden_bids_by_keyboard(page_server, browser):
    """The number keys bid in a game of hidden bids as in every game of Play."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    load(browser, f"{page_server}/#play?n=3&objective=points&order=ascending&variant=hidden")
    wait_for(browser, lambda d: d.find_element(By.ID, "new-game").is_displayed())
    browser.find_element(By.ID, "new-game").click()
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand button"))
    body = browser.find_element(By.TAG_NAME, "body")
    for key, rows in (("3", 1), ("1", 3)):  # the last round plays itself
        body.send_keys(Keys.ESCAPE)
        browser.execute_script("document.activeElement.blur()")
        body.send_keys(key)
        wait_for(
            browser,
            lambda d, rows=rows: len(d.find_elements(By.CSS_SELECTOR, "#history tbody tr")) == rows,
        )
    cells = [
        [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        for tr in browser.find_elements(By.CSS_SELECTOR, "#history tbody tr")
    ]
    assert [c[2] for c in cells] == ["3", "1", "2"] and [c[1] for c in cells] == ["1", "2", "3"]


# -- declarations against their equilibrium (both may declare) -------------------------------------


def declaration_points(n: int, history: list[dict]) -> tuple[str, int]:
    """The winner and what the game is worth, by the rules: the rounds from the first
    declaration on (1 if nobody declared), to the player with more points."""
    you, them, _, _ = scored(history)
    first = next((r["round"] for r in history if r["declared"]), n)
    winner = winner_of(you, them)
    return winner, 0 if winner == "nobody" else n - first + 1


@pytest.mark.parametrize("seed", range(4))
def test_declarations_against_the_equilibrium_through_the_api(client, seed):
    """Both may declare: once anyone declares every later bid is face up, the computer
    answers your face-up card with the equilibrium's reply, and the declaration score is
    the rules' (exact.declarations.rules)."""
    game = client.get("/api/game/new", params={"n": 4, "variant": "declaring", "seed": seed}).json()
    asked = 0
    while game["awaiting"] != "over":
        if game["awaiting"] == "declare":
            asked += 1
            move = {"declare": int(seed % 2 == 1 and asked == 2)}
            game = client.get("/api/game/declare", params={**game["state"], **move}).json()
        else:
            move = {"bid": game["your_cards"][seed % len(game["your_cards"])]}
            game = client.get("/api/game/bid", params={**game["state"], **move}).json()
        assert "error" not in game, game
    history = game["history"]
    assert sorted(r["prize"] for r in history) == [1, 2, 3, 4]
    assert sorted(r["computer"] for r in history) == [1, 2, 3, 4]
    first = next((r["round"] for r in history if r["declared"]), None)
    assert [r["face_up"] for r in history] == [
        first is not None and r["round"] >= first for r in history
    ]
    assert [r["winner"] for r in history] == [winner_of(r["you"], r["computer"]) for r in history]
    winner, points = declaration_points(4, history)
    assert game["declaration_score"]["winner"] == winner
    assert game["declaration_score"]["points"] == points
    again = client.get("/api/game/new", params=game["state"]).json()  # the state replays it
    assert again["history"] == history


def test_declaring_refusals(client):
    for path, params, message in (
        ("new", {"n": 6, "variant": "declaring"}, "between 1 and 5"),
        ("new", {"n": 4, "variant": "declaring", "objective": "win"}, "shuffled prizes"),
        ("bid", {"n": 4, "variant": "declaring", "seed": 1, "bid": 1}, "say first whether"),
        ("declare", {"n": 4, "variant": "declaring", "seed": 1, "declares": "2"}, "0 (no)"),
    ):
        r = client.get(f"/api/game/{path}", params=params)
        assert r.status_code == 400 and message in r.json()["error"], r.json()


def test_declarations_both_sides_in_the_page(page_server, browser):
    """Declaring in round 1 by clicking, then bidding by clicking: every round face up,
    the declaration score the rules' (4 rounds from round 1 on)."""
    from selenium.webdriver.common.by import By

    load(browser, f"{page_server}/#play?n=4&objective=points&variant=declaring&seed=2")
    wait_for(browser, lambda d: d.find_element(By.ID, "new-game").is_displayed())
    browser.find_element(By.ID, "new-game").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "declare2-box").is_displayed())
    browser.find_element(By.ID, "declare-yes").click()
    wait_for(browser, lambda d: not d.find_element(By.ID, "declare2-box").is_displayed())
    click_bids(browser, 3, lambda buttons: buttons[-1])
    wait_for(browser, lambda d: d.find_element(By.ID, "outcome").text)
    rows = [
        [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        for tr in browser.find_elements(By.CSS_SELECTOR, "#history tbody tr")
    ]
    assert all(r[2].endswith("(face up)") for r in rows)
    history = [
        {
            "round": int(r[0]),
            "prize": int(r[1]),
            "you": int(r[2].split()[0]),
            "computer": int(r[3]),
            "declared": "declared" in r[4],
        }
        for r in rows
    ]
    assert history[0]["declared"]
    winner, points = declaration_points(4, history)
    said = {"you": "you", "computer": "the computer", "nobody": "nobody (a draw)"}[winner]
    note = browser.find_element(By.ID, "declared-note").text
    assert f"so the game scores {points} for {said}" in note, note
