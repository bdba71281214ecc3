"""Farkle in the page's dice games view, in Chromium: a turn alone and a short game
against the computer played to the end by clicking, with no script error."""

import os

import pytest
from test_web_games_e2e import ARGS, CHROMIUM, play_to_the_end, server, shot  # noqa: F401

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no browser at {CHROMIUM}"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]
sync_api = pytest.importorskip("playwright.sync_api")


def test_farkle_played_on_the_page(server):  # noqa: F811
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pg = browser.new_page(viewport={"width": 1400, "height": 950})
        problems = []
        pg.on("pageerror", lambda e: problems.append(str(e)))
        pg.goto(f"{server}/?seed=5")
        pg.click("#view-games")
        pg.wait_for_selector("#games-family option[value=farkle]", state="attached")
        pg.click("#games-rules summary")  # the settings, folded under "Rules…"
        pg.select_option("#games-family", "farkle")
        assert pg.is_visible("#games-seat-row")
        pg.fill("#games-settings input[data-setting=players]", "1")
        assert pg.is_hidden("#games-seat-row")  # one player: no seat to choose
        pg.click("#games-start")
        pg.wait_for_function("document.querySelector('#games-status').textContent"
                             ".includes('positions')")  # fmt: skip
        assert "548.8576" in pg.inner_text("#games-status")
        pg.wait_for_selector("#games-moves button")
        assert "keep" in pg.inner_text("#games-moves")
        pg.screenshot(path=shot("web-farkle.png"))
        play_to_the_end(pg)
        assert "cost 0.0000 in all" in pg.inner_text("#games-review")
        pg.fill("#games-settings input[data-setting=players]", "2")
        pg.fill("#games-settings input[data-setting=goal]", "500")
        pg.fill("#games-settings input[data-setting=dice]", "3")
        pg.click("#games-start")
        pg.wait_for_function("document.querySelector('#games-status').textContent"
                             ".includes('farkle to 500')")  # fmt: skip
        play_to_the_end(pg)
        pg.fill("#games-settings input[data-setting=players]", "2")  # to 10000: turn starts
        pg.fill("#games-settings input[data-setting=goal]", "")
        pg.fill("#games-settings input[data-setting=dice]", "")
        pg.click("#games-start")
        pg.wait_for_function("document.querySelector('#games-status').textContent"
                             ".includes('s left')", timeout=60_000)  # fmt: skip
        assert pg.is_visible("#games-progress")  # the worker's progress, with the time left
        pg.screenshot(path=shot("web-farkle-solving.png"))
        pg.wait_for_function("document.querySelector('#games-status').textContent"
                             ".includes('farkle to 10000')", timeout=180_000)  # fmt: skip
        assert pg.is_hidden("#games-progress")
        assert "0.5354" in pg.inner_text("#games-status")
        pg.screenshot(path=shot("web-farkle-10000.png"))
        pg.fill("#games-settings input[data-setting=players]", "1")  # alone to 100000: too large
        pg.fill("#games-settings input[data-setting=play]", "goal")
        pg.fill("#games-settings input[data-setting=goal]", "100000")
        pg.click("#games-start")
        pg.wait_for_function("!document.querySelector('#error').hidden")
        refused = pg.inner_text("#error")  # one line, in the page's terms
        assert "positions" in refused and "Choose smaller settings" in refused
        assert "--" not in refused and "\n" not in refused.strip()
        pg.screenshot(path=shot("web-farkle-refused.png"))
        browser.close()
        assert not problems, problems
