"""The dice games view in Chromium: a game of Pig and one of Shut the Box played to
the end by clicking, at desktop and phone sizes, with no script error."""

import os
import re
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update"]  # fmt: skip

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no browser at {CHROMIUM}"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]
sync_api = pytest.importorskip("playwright.sync_api")
uvicorn = pytest.importorskip("uvicorn")


def show_view(pg, name: str) -> None:
    """Click a view's button: on a phone, in the header's menu, opened first."""
    toggle = pg.locator("#menu-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
    pg.click(f"#view-{name}")


def shot(name: str) -> str:
    """A screenshot's path: under ``DICELAB_SCREENSHOTS``, else a temporary folder."""
    folder = os.environ.get("DICELAB_SCREENSHOTS") or tempfile.mkdtemp(prefix="dicelab-shots-")
    return str(Path(folder) / name)


@pytest.fixture(scope="module")
def server():
    from dicelab.web.app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port,
                                        log_level="warning"))  # fmt: skip
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


#: The page is ready for a move of the player's, or the game is over.
READY = """(before) => {
    const view = document.querySelector('#games-view');
    if (document.querySelector('#games-review').textContent.includes('Game over')) return true;
    return view.dataset.step !== before && view.dataset.busy === 'false'
        && document.querySelector('#games-moves button:not([disabled])') !== null;
}"""


def open_games(p, url: str, width: int, height: int):
    """A browser at ``url`` of that size, on the dice games view once its families
    are in, and the list its script errors go to."""
    browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    pg = browser.new_page(viewport={"width": width, "height": height})
    problems: list[str] = []
    pg.on("pageerror", lambda e: problems.append(str(e)))
    pg.goto(url)
    show_view(pg, "games")
    pg.wait_for_selector("#games-family option[value=pig]", state="attached")
    return browser, pg, problems


def play_to_the_end(pg, limit=400):
    """Click the first (best) move until the game is over, each time waiting for the
    page to show the next decision (the dice and the computer move by themselves)."""
    pg.wait_for_function(READY, arg="none")
    for _ in range(limit):
        if "Game over" in pg.inner_text("#games-review"):
            return
        before = pg.get_attribute("#games-view", "data-step")
        pg.locator("#games-moves button:not([disabled])").first.click()
        pg.wait_for_function(READY, arg=before)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("width, height", [(1400, 950), (390, 844)])
def test_pig_and_shut_the_box_played_on_the_page(server, width, height):
    with sync_api.sync_playwright() as p:
        browser, pg, problems = open_games(p, f"{server}/?seed=3", width, height)
        pg.click("#games-rules summary")  # the settings, folded under "Rules…"
        goal = pg.locator("#games-settings label", has_text="goal")
        assert "the score that wins (100)" in goal.inner_text()  # the meaning, readable
        assert goal.locator("input").get_attribute("placeholder") == "100"
        assert pg.is_visible("#games-seat-row")  # two players
        pg.fill("#games-settings input[data-setting=goal]", "20")
        pg.click("#games-start")
        status = "document.querySelector('#games-status').textContent"
        pg.wait_for_function(f"{status}.includes('positions')")
        assert "0.6156" in pg.inner_text("#games-status")  # Pig to 20, the first player
        pg.wait_for_selector("#games-moves button")
        assert "roll" in pg.inner_text("#games-moves") and "chance to win" in pg.inner_text(
            "#games-value"
        )
        pg.screenshot(path=shot(f"web-pig-{width}.png"))
        assert pg.is_visible("#games-throw") or pg.inner_text("#games-log") == ""
        seats = pg.locator("#games-board .seat .who").all_inner_texts()
        assert seats == ["you", "computer", "turn total"], seats  # every seat's score
        shown = pg.locator("#games-board .chance").all_inner_texts()
        chances = [float(c.split()[1]) for c in shown]
        assert len(chances) == 2 and sum(chances) == pytest.approx(1, abs=2e-4)  # each seat's
        before = pg.inner_text("#games-text")
        pg.locator("#games-moves button").first.click()  # a move, then taken back
        pg.wait_for_selector("#games-undo:not([hidden])")
        pg.click("#games-undo")
        assert pg.inner_text("#games-text") == before
        seen_log = []  # every line of the game's log, as it came
        pg.expose_function("seenLog", lambda line: seen_log.append(line))
        pg.evaluate("""() => new MutationObserver(() => {
            const items = document.querySelectorAll('#games-log li');
            if (items.length) window.seenLog(items[items.length - 1].textContent);
        }).observe(document.querySelector('#games-log'), {childList: true})""")
        play_to_the_end(pg)
        assert "decisions cost 0.0000 in all" in pg.inner_text("#games-review")
        assert any(": a 1" in line for line in seen_log), seen_log  # a 1 said, not passed over
        ended = pg.inner_text("#games-text")  # with the final scores
        assert re.fullmatch(r"You won \(the other at \d+\)\.|The computer won \(you at \d+\)\.",
                            ended), ended  # fmt: skip
        assert pg.is_visible("#games-throw")  # the last throw, drawn as a die
        assert pg.locator("#games-dice .small-die").count() == 1
        pg.select_option("#games-family", "shut-the-box")
        assert pg.is_hidden("#games-seat-row")
        pg.click("#games-start")
        pg.wait_for_function(f"{status}.includes('positions')")
        assert pg.locator("#games-board .tile").count() == 9  # the tiles as tiles
        play_to_the_end(pg)
        assert pg.locator("#games-board .tile.shut").count() >= 1
        pg.screenshot(path=shot(f"web-shut-the-box-{width}.png"), full_page=True)
        overflow = pg.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1")
        assert not overflow, "the page is wider than the screen"
        pg.fill("#games-settings input[data-setting=tiles]", "99")
        pg.click("#games-start")
        pg.wait_for_function("!document.querySelector('#error').hidden")
        assert "tiles: got 99" in pg.inner_text("#error")
        browser.close()
        assert not problems, problems


@pytest.mark.parametrize("width, height", [(1400, 950), (360, 740)])
def test_a_preset_of_house_rules_is_chosen_and_played_on_the_page(server, width, height):
    """Butler's at-most-two-tiles rules, picked under Rules…: the settings filled in,
    the source said, the published chance shown, the game played to its end; a
    setting changed afterwards is no longer the preset."""
    with sync_api.sync_playwright() as p:
        browser, pg, problems = open_games(p, f"{server}/?seed=5", width, height)
        pg.select_option("#games-family", "shut-the-box")
        pg.click("#games-rules summary")
        pg.select_option("#games-preset", "butler-two-tiles")
        assert pg.input_value("#games-settings input[data-setting=shut]") == "two"
        assert pg.input_value("#games-settings input[data-setting=one_die]") == "when-sum-6"
        assert "7.4194 %" in pg.inner_text("#games-preset-source")
        assert "at most two tiles" in pg.inner_text("#games-rules-given")
        pg.click("#games-start")
        status = "document.querySelector('#games-status').textContent"
        pg.wait_for_function(f"{status}.includes('positions')")
        assert "0.0742" in pg.inner_text("#games-status")  # Butler's 7.4194 %
        assert "at most two tiles" in pg.inner_text("#games-status")
        play_to_the_end(pg)
        pg.screenshot(path=shot(f"web-preset-{width}.png"), full_page=True)
        pg.fill("#games-settings input[data-setting=tiles]", "8")
        assert pg.input_value("#games-preset") == ""  # changed: the usual name again
        assert "tiles 8" in pg.inner_text("#games-rules-given")
        assert problems == []
        browser.close()


@pytest.mark.parametrize("width, height", [(1400, 950), (390, 844)])
def test_a_table_of_three_plays_pig_on_the_page(server, width, height):
    """Three players of Pig, the human first (best play at a table of three rolls on
    for the whole goal from the start, so a computer player first could win before
    the human moves): a seat picker of three, every seat's score and chance on the
    board, the two computer players moving by themselves, an end that says who won."""
    with sync_api.sync_playwright() as p:
        browser, pg, problems = open_games(p, f"{server}/?seed=7", width, height)
        pg.click("#games-rules summary")
        pg.fill("#games-settings input[data-setting=players]", "3")
        pg.fill("#games-settings input[data-setting=goal]", "40")
        seats = pg.locator("#games-seat option").all_inner_texts()
        assert seats == ["first", "second", "third"], seats
        pg.select_option("#games-seat", "1")
        pg.click("#games-start")
        status = "document.querySelector('#games-status').textContent"
        pg.wait_for_function(f"{status}.includes('turn starts')")
        said = pg.inner_text("#games-status")
        assert "you" in said and "player 2" in said and "player 3" in said, said
        pg.wait_for_function(READY, arg="none")
        who = pg.locator("#games-board .seat .who").all_inner_texts()
        assert who == ["you", "player 2", "player 3", "turn total"], who
        shown = pg.locator("#games-board .chance").all_inner_texts()
        chances = [float(c.split()[1]) for c in shown]
        assert len(chances) == 3 and sum(chances) == pytest.approx(1, abs=3e-4)
        pg.screenshot(path=shot(f"web-pig-three-{width}.png"), full_page=True)
        play_to_the_end(pg)
        ended = pg.inner_text("#games-text")
        assert re.fullmatch(r"You won\.|Player [23] won \(you at \d+\)\.", ended), ended
        assert "decisions cost 0.0000 in all" in pg.inner_text("#games-review")
        overflow = pg.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1")
        assert not overflow, "the page is wider than the screen"
        browser.close()
        assert not problems, problems
