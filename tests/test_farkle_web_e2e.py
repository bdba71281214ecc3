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
        assert pg.is_hidden("#games-seat-row")  # one turn alone by default: no seat
        pg.fill("#games-settings input[data-setting=players]", "2")
        assert pg.is_visible("#games-seat-row")
        assert pg.locator("#games-seat option").count() == 2
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


def test_farkle_dice_are_tapped_to_set_aside_on_a_phone(server):  # noqa: F811
    """One turn alone at 390 px: the thrown dice are tapped; the dice of a keep pick
    that keep's move (and the bank that keeps the same), dice no move keeps are said
    so, and the picked move plays on."""
    import json
    import re

    from test_web_games_e2e import READY, open_games

    with sync_api.sync_playwright() as p:
        browser, pg, problems = open_games(p, f"{server}/?seed=5", 390, 844)
        answers = []
        pg.on("response", lambda r: answers.append(r) if r.url.endswith("/api/games/position")
              else None)  # fmt: skip
        pg.select_option("#games-family", "farkle")
        pg.click("#games-start")
        pg.wait_for_function(READY, arg="none")
        now = json.loads(answers[-1].body())
        first = now["moves"][0]
        assert first["dice"], first  # the dice that keep sets aside
        dice = pg.locator("#games-dice .small-die.tap")
        shown = [int(re.search(r"\d", d).group()) for d in dice.evaluate_all(
            "els => els.map(e => e.getAttribute('aria-label'))")]  # fmt: skip
        left = list(first["dice"])
        for i, face in enumerate(shown):  # tap the keep's dice, one by one
            if face in left:
                left.remove(face)
                dice.nth(i).click()
        assert pg.locator("#games-moves button.picked").first.inner_text().startswith(
            first["move"])  # fmt: skip
        assert "set aside" in pg.inner_text("#games-aside")
        pg.screenshot(path=shot("web-farkle-tapped-390.png"))
        unkept = [i for i, face in enumerate(shown) if face not in (1, 5)]
        if unkept:  # a die that scores with none of these: no move keeps that
            dice.nth(unkept[0]).click()
            assert "no move keeps just these" in pg.inner_text("#games-aside")
            assert pg.locator("#games-moves button.picked").count() == 0
            dice.nth(unkept[0]).click()  # taken back
        before = pg.get_attribute("#games-view", "data-step")
        pg.locator("#games-moves button.picked").first.click()
        pg.wait_for_function(READY, arg=before)
        assert pg.is_hidden("#games-aside")  # a new throw: nothing set aside yet
        browser.close()
        assert not problems, problems
