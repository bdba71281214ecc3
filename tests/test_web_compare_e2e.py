"""The Compare view in Chromium: yazy against a house rule of it (uploaded), at desktop
and phone widths; the figures shown are the library's, the chart has a line per rule
set, the partings are listed, and the page is never wider than the screen."""

import json
import os
import socket
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from test_web_games_e2e import show_view  # noqa: E402

import dicelab
from dicelab.play.simple import simple_strategy

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

#: Yazy with its full house worth 35 (a small rule set: solved in a second).
RICH_HOUSE = (
    'name = "rich-house"\nextends = "yazy"\n\n[[categories]]\nid = "full_house"\nscore = 35\n'
)


#: The elements that reach past the screen's right edge (none, when the page fits).
WIDER = """() => document.documentElement.scrollWidth <= window.innerWidth + 1 ? [] :
    [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
        .map((e) => e.tagName + '#' + e.id + '.' + e.className).slice(0, 8)"""


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
    url = f"http://127.0.0.1:{port}"
    request = urllib.request.Request(f"{url}/api/rules", json.dumps({"toml": RICH_HOUSE}).encode(),
                                     {"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=60) as answer:
        upload = json.load(answer)["id"]
    yield url, upload
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.mark.parametrize("width, height", [(1400, 950), (390, 844)])
def test_compare_view_shows_the_figures_chart_and_partings(server, tmp_path, width, height):
    url, upload = server
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pg = browser.new_page(viewport={"width": width, "height": height})
        problems = []
        pg.on("pageerror", lambda e: problems.append(str(e)))
        pg.goto(url)
        pg.wait_for_selector(f"#rules-select option[value='{upload}']", state="attached")
        show_view(pg, "compare")
        assert pg.is_hidden(".rules-bar") and pg.is_visible("#compare-view")
        pg.select_option("#compare-a", "yazy")
        pg.select_option("#compare-b", upload)
        pg.fill("#compare-games", "80")
        pg.click("#compare-run")
        pg.wait_for_function(
            "['done', 'error'].includes(document.querySelector('#compare-view').dataset.state)",
            timeout=120_000,
        )
        assert pg.get_attribute("#compare-view", "data-state") == "done", pg.inner_text("#error")
        table = pg.inner_text("#compare-table")
        rich = dicelab.load_rules(RICH_HOUSE)
        for rules in ("yazy", rich):
            optimum = dicelab.solve(rules).value()
            assert f"{optimum:.4f}" in table
            assert f"{optimum - simple_strategy(rules).expected:.4f}" in table  # the skill gap
        assert "skill gap" in table and "left out*" in table
        assert pg.locator("#compare-svg polyline").count() == 2
        partings = pg.inner_text("#compare-partings")
        for played in ("yazy", "rich-house"):
            assert f"Played by {played}'s optimum" in partings
        assert "Full house" in partings and pg.locator("table.partings tbody tr").count() >= 2
        wide = pg.evaluate(WIDER)
        name = "web-compare.png" if width > 800 else "web-compare-phone.png"
        pg.screenshot(path=shot(name), full_page=True)
        assert not wide, f"the page is wider than the screen: {wide}"
        assert not problems, problems
        browser.close()


#: A house rule of yazy that names itself nothing: the page names it after its file.
HOUSE = 'extends = "yazy"\n\n[[categories]]\nid = "full_house"\nscore = 30\n'


def test_an_upload_is_offered_at_once_and_named_after_its_file(server, tmp_path):
    url, _ = server
    house = tmp_path / "house.toml"
    house.write_text(HOUSE)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pg = browser.new_page(viewport={"width": 390, "height": 844})
        pg.goto(url)
        pg.wait_for_selector("#rules-select option[value='yazy']", state="attached")
        show_view(pg, "compare")  # the pickers filled, before the upload
        show_view(pg, "play")
        pg.set_input_files("#rules-file", str(house))
        title = pg.locator("#rules-title")
        sync_api.expect(title).to_have_text("house (based on yazy)", timeout=30_000)
        show_view(pg, "compare")
        pg.select_option("#compare-a", "yazy")
        pg.select_option("#compare-b", label="house")  # offered without a reload
        pg.fill("#compare-games", "40")
        pg.click("#compare-run")
        pg.wait_for_function(
            "['done', 'error'].includes(document.querySelector('#compare-view').dataset.state)",
            timeout=120_000,
        )
        assert pg.inner_text("#compare-legend").count("house (mean") == 1
        assert "Played by house's optimum, yazy's best" in pg.inner_text("#compare-partings")
        assert not pg.evaluate(WIDER)
        browser.close()
