"""The play-along page in a real browser (Debian's headless Chromium via Playwright).

A server runs in a thread on a free 127.0.0.1 port; the tests click through the
page as a player would and check what it shows against the advice of the library.
"""

import contextlib
import json
import os
import re
import socket
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from dicelab.engine.advice.single import Position, advise
from dicelab.engine.objectives.expected import expected_table
from dicelab.play.game import Game, review

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip

pytestmark = [
    pytest.mark.slow,  # a browser per test: the full run (.ci/run) takes them
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no browser at {CHROMIUM}"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]
sync_api = pytest.importorskip("playwright.sync_api")


def shot(name: str) -> str:
    """Where a screenshot for the docs goes: the folder ``DICELAB_SCREENSHOTS`` names
    (``docs/img`` to renew the docs' pictures), else a temporary one; a test run
    never writes into the work tree unasked."""
    folder = os.environ.get("DICELAB_SCREENSHOTS") or tempfile.mkdtemp(prefix="dicelab-shots-")
    return str(Path(folder) / name)


uvicorn = pytest.importorskip("uvicorn")

TIMEOUT = 20_000  # milliseconds for any one wait


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    from dicelab.engine.objectives.explain import explain_table
    from dicelab.engine.objectives.spread import spread_table
    from dicelab.web.app import create_app

    for name in ("yahtzee", "yazy", "generala", "yacht"):  # solved before any timed wait
        table = expected_table(name)
        if not table.rules.has_served:  # and the spread the page shows beside each option
            spread_table(table.game, table)
    explain_table("yahtzee")  # the why of each option
    from dicelab.engine.objectives.win import solve_win

    solve_win("yazy")  # playing yazy to beat a points player
    from dicelab.engine.objectives.remaining import remaining_table

    remaining_table("yacht")  # playing yacht at a table
    port = free_port()
    config = uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    # the first turn's chart of the games the tests start: the server works these out
    # one at a time, and a test's chart must not wait behind another game's
    for name in ("yahtzee", "yacht"):
        body = json.dumps({"rules": name, "filled": {}, "extra_bonuses": 0}).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/distribution",
            data=body,
            headers={"Content-Type": "application/json"},
        )
        urllib.request.urlopen(request, timeout=120).read()
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@contextlib.contextmanager
def open_page(browser, url, width=1400, height=950, setup=None):
    """A fresh browser context (nothing kept from other tests) showing ``url``;
    ``setup(context)`` runs first. No script error may happen on the page."""
    context = browser.new_context(viewport={"width": width, "height": height})
    if setup is not None:
        setup(context)
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT)
    problems = []
    pg.on("pageerror", lambda e: problems.append(str(e)))
    pg.goto(url)
    yield pg
    context.close()
    assert not problems, problems


class HeldAnswers:
    """The server's answers to one kind of request, held back until :meth:`release`."""

    def __init__(self, pg, pattern):
        self.routes, self.holding = [], True
        pg.route(pattern, self._answer)

    def _answer(self, route):
        if self.holding:
            self.routes.append(route)
        else:
            route.continue_()

    def release(self):
        self.holding = False
        for route in self.routes:
            route.continue_()


@pytest.fixture
def page(browser, server):
    with open_page(browser, server + "/?seed=11") as pg:
        expect(pg.locator("#roll-counter")).to_have_text(re.compile("Turn 1 of 13"))
        expect(pg.locator("#expected-now")).to_contain_text("254.59")
        yield pg


def expect(locator):
    return sync_api.expect(locator)


def counter(pg):
    return pg.locator("#roll-counter")


def throw(pg, dice):
    pg.fill("#enter-dice", dice)
    pg.click("#enter-throw")


def test_a_turn_with_real_dice(page):
    pg = page
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 1 of 3")
    throw(pg, "3 3 6 5 6")
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 1 of 3")
    best = pg.locator("tr.option.best")
    expect(best).to_have_count(1)
    expect(best).to_have_attribute("data-keep", "6 6")
    expect(best.locator(".cost")).to_have_text("best")
    # the options and their costs are those of the library
    table = expected_table("yahtzee")
    lib = advise(table, Position(dice=(3, 3, 6, 5, 6), rerolls=2))
    rows = pg.locator("tr.option")
    expect(rows).to_have_count(len(lib.options))
    second = lib.options[1]
    expect(rows.nth(1).locator(".cost")).to_have_text(f"−{second.cost:.2f}")
    # follow the advice: the sixes are kept, then the other dice are thrown again
    best.click()
    expect(pg.locator(".die[aria-pressed=true]")).to_have_count(2)
    throw(pg, "6 6 1 1 2")
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 2 of 3")
    expect(pg.locator("#review-total")).to_contain_text("1 decision, total cost 0.00")
    # stop rolling and take the best box
    pg.click("#score-now")
    expect(counter(pg)).to_contain_text("Roll 2 of 3 · choose a box")
    lib = advise(table, Position(dice=(1, 1, 2, 6, 6), rerolls=0))
    cell = pg.locator(f"#scorecard tr.candidate[data-box={lib.best.box}]")
    expect(cell).to_have_class(re.compile("best"))
    cell.click()
    expect(counter(pg)).to_have_text("Turn 2 of 13 · Roll 1 of 3")
    expect(pg.locator(f"#scorecard tr.filled[data-box={lib.best.box}] .points")).to_have_text(
        str(lib.best.points)
    )
    expect(pg.locator("#total")).to_have_text(str(lib.best.points))
    expect(pg.locator("#review tbody tr")).to_have_count(3)


def test_virtual_dice_and_costs_in_the_review(page):
    pg = page
    pg.click("#roll")
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 1 of 3")
    faces = [int(pg.locator(f"#die-{i}").get_attribute("data-face")) for i in range(5)]
    assert all(1 <= f <= 6 for f in faces)
    expect(pg.locator("tr.option.best")).to_have_count(1)
    # keep nothing on purpose when it is not the best
    nothing = pg.locator('tr.option[data-keep=""]')
    worst_cost = float(nothing.get_attribute("data-cost"))
    pg.click("#roll")
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 2 of 3")
    review = pg.locator("#review-total")
    expect(review).to_contain_text("1 decision")
    assert float(review.get_attribute("data-cost")) == pytest.approx(worst_cost, abs=1e-9)
    pg.click("#roll")
    expect(counter(pg)).to_have_text(re.compile("Roll 3 of 3 · choose a box"))
    expect(pg.locator("#roll")).to_be_disabled()
    expect(pg.locator("#score-now")).to_be_disabled()
    expect(pg.locator("tr.option[data-kind=box]").first).to_be_visible()


def test_keeping_every_die_stops_the_rolling(page):
    pg = page
    throw(pg, "2 2 2 6 6")
    stop = pg.locator('tr.option[data-keep="2 2 2 6 6"]')
    expect(stop).to_contain_text("keep all")
    stop.click()
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 1 of 3 · choose a box")
    expect(pg.locator("tr.option.best")).to_have_attribute("data-box", "full_house")
    # holding every die and rolling means the same
    pg.click("#new-game")
    throw(pg, "2 2 2 6 6")
    for i in range(5):
        pg.click(f"#die-{i}")
    pg.click("#roll")
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 1 of 3 · choose a box")


def test_typing_mistakes_are_explained(page):
    pg = page
    throw(pg, "1 2 3 4 9")
    expect(pg.locator("#error")).to_contain_text("faces go from 1 to 6")
    throw(pg, "1 2 3")
    expect(pg.locator("#error")).to_contain_text("type 5 dice")
    throw(pg, "2 2 5 5 6")
    expect(pg.locator("#error")).to_be_hidden()
    pg.click("#die-0")
    pg.click("#die-1")
    throw(pg, "1 3 4 5 6")
    expect(pg.locator("#error")).to_contain_text("the kept dice (2 2) must be part of the throw")
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 1 of 3")


def test_a_whole_game_ends_with_a_summary(page):
    pg = page
    for turn in range(1, 14):
        expect(counter(pg)).to_have_text(f"Turn {turn} of 13 · Roll 1 of 3")
        pg.click("#roll")
        expect(pg.locator("tr.option.best")).to_have_count(1)
        pg.click("#score-now")
        expect(pg.locator("#scorecard tr.candidate").first).to_be_visible()
        pg.locator("tr.option.best").first.click()
    expect(counter(pg)).to_have_text("Game over")
    summary = pg.locator("#summary")
    expect(summary).to_be_visible()
    expect(summary).to_contain_text("254.59")
    total = pg.locator("#total").inner_text()
    expect(pg.locator("#final-score")).to_have_text(total)
    expect(pg.locator("#review tbody tr")).to_have_count(26)
    bonus = pg.locator("#upper-bonus").inner_text()  # the bonus was earned or missed
    assert "to go" not in bonus and (bonus == "35" or bonus == "missed: 0"), bonus
    # the record the page keeps is the record of `dicelab play`: the library agrees
    with pg.expect_download() as dl:
        pg.click("#download")
    record = json.loads(Path(dl.value.path()).read_text(encoding="utf-8"))
    lib = review(expected_table("yahtzee"), record)
    assert lib.finished and lib.score == int(total)
    assert f"{lib.total_cost:.2f}" in pg.locator("#review-total").inner_text()


def play_turn_by_the_advice(pg, rolled=False):
    """Throw (unless ``rolled``), then follow the best option (keeps, a stop) until a
    box is filled."""
    if not rolled:
        pg.click("#roll")
    while True:
        best = pg.locator("tr.option.best").first
        expect(best).to_be_visible()
        kind = best.get_attribute("data-kind")
        best.click()
        if kind == "box":
            return
        if pg.locator("#roll").is_enabled():
            pg.click("#roll")


def test_a_whole_game_of_yacht_by_the_advice_with_the_end_analysis(page):
    # every turn follows the best option with virtual dice (keeps included); the
    # chart shows each turn's distribution, the end gives the analysis
    pg = page
    pg.select_option("#rules-select", "yacht")
    expect(counter(pg)).to_have_text("Turn 1 of 12 · Roll 1 of 3")
    expect(pg.locator("#chart")).to_be_visible()
    expect(pg.locator("#chart-caption")).to_contain_text("mean 191.77")
    for turn in range(1, 13):
        expect(counter(pg)).to_have_text(f"Turn {turn} of 12 · Roll 1 of 3")
        play_turn_by_the_advice(pg)
    expect(counter(pg)).to_have_text("Game over")
    summary = pg.locator("#summary")
    expect(summary).to_contain_text("191.77")
    expect(pg.locator("#by-kind tbody tr")).to_have_count(3)  # keeps, upper, lower boxes
    expect(pg.locator("#by-kind tr[data-kind='keep'] td").nth(2)).to_have_text("0")
    expect(pg.locator("#average-cost")).to_contain_text("0.000 expected points")
    total = pg.locator("#total").inner_text()
    expect(pg.locator("#score-path")).to_have_attribute("aria-label", re.compile(f"to {total}$"))
    n = pg.locator("#review tbody tr").count()
    points = pg.locator("#score-path polyline").get_attribute("points").split()
    assert len(points) == n + 1
    with pg.expect_download() as dl:
        pg.click("#download")
    record = json.loads(Path(dl.value.path()).read_text(encoding="utf-8"))
    assert record["dice"] == "drawn" and record["seed"] is None
    lib = review(expected_table("yacht"), record)
    assert lib.finished and lib.score == int(total) and lib.total_cost < 1e-9
    assert [g["decisions"] for g in lib.by_kind()] == [
        int(pg.locator(f"#by-kind tr[data-kind='{k}'] td").nth(1).inner_text())
        for k in ("keep", "upper box", "lower box")
    ]


UPLOAD = """extends = "yahtzee"
name = "yahtzee-50"
title = "Yahtzee, bonus at 50"

[upper_bonus]
threshold = 50
points = 35
"""


def test_upload_a_rules_file(page):
    pg = page
    pg.set_input_files(
        "#rules-file",
        files=[{"name": "easy.toml", "mimeType": "text/plain", "buffer": UPLOAD.encode()}],
    )
    expect(pg.locator("#rules-title")).to_have_text("Yahtzee, bonus at 50")
    expect(pg.locator("#rules-select")).to_have_value(re.compile("^upload-"))
    expect(pg.locator("#upper-total")).to_have_text("0 / 50")
    # new rules: their table and the spread beside it are solved now (seconds on 2 cores)
    now = pg.locator("#expected-now")
    expect(now).to_contain_text("expected final score now", timeout=30_000)
    throw(pg, "3 3 6 5 6")
    expect(pg.locator("tr.option.best")).to_have_count(1)
    # a broken file is refused with the reason
    pg.set_input_files(
        "#rules-file",
        files=[{"name": "bad.toml", "mimeType": "text/plain", "buffer": b'extends = "/etc/x"'}],
    )
    expect(pg.locator("#error")).to_contain_text("bad.toml")
    expect(pg.locator("#error")).to_contain_text("not a built-in rule set")


def test_undo_the_last_box_or_stop(page):
    pg = page
    expect(pg.locator("#undo")).to_be_disabled()
    throw(pg, "2 2 2 6 6")
    expect(pg.locator("#undo")).to_be_disabled()  # a throw is not taken back
    pg.click("#score-now")
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 1 of 3 · choose a box")
    pg.click("#undo")  # the stop: rolling again is possible
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 1 of 3")
    expect(pg.locator("#roll")).to_be_enabled()
    pg.click("#score-now")
    pg.locator("#scorecard tr.candidate[data-box=full_house]").click()
    expect(pg.locator("#total")).to_have_text("25")
    expect(counter(pg)).to_have_text("Turn 2 of 13 · Roll 1 of 3")
    pg.click("#undo")  # the box: the same dice come back to be placed again
    expect(counter(pg)).to_contain_text("Turn 1 of 13 · Roll 1 of 3 · choose a box")
    expect(pg.locator("#total")).to_have_text("0")
    expect(pg.locator("#scorecard tr.candidate[data-box=sixes]")).to_contain_text("12")
    pg.locator("#scorecard tr.candidate[data-box=sixes]").click()
    expect(pg.locator("#total")).to_have_text("12")
    # the review prices the choices that stand: the stop, and sixes against the full house
    expect(pg.locator("#review-total")).to_contain_text("2 decisions")
    table = expected_table("yahtzee")
    first = advise(table, Position(dice=(2, 2, 2, 6, 6), rerolls=2))
    stop = next(o for o in first.options if o.stops)
    last = advise(table, Position(dice=(2, 2, 2, 6, 6), rerolls=0))
    sixes = next(o for o in last.options if o.box == "sixes")
    cost = float(pg.locator("#review-total").get_attribute("data-cost"))
    assert cost == pytest.approx(stop.cost + sixes.cost, abs=1e-9)
    throw(pg, "1 2 3 4 5")
    expect(pg.locator("#undo")).to_be_disabled()  # the next turn has begun


def test_other_built_in_rules(page):
    pg = page
    pg.select_option("#rules-select", "yazy")
    expect(pg.locator("#rules-title")).to_contain_text("Yazy")
    expect(counter(pg)).to_have_text("Turn 1 of 11 · Roll 1 of 3")
    expect(pg.locator("#expected-now")).to_contain_text("165.76")
    expect(pg.locator("#upper-bonus")).to_have_count(0)


def test_forced_order_offers_only_the_box_of_the_turn(page):
    # forced Yatzy: the boxes in scorecard order, the box of the turn marked, and
    # five sixes on the first turn can only go in Ones (for 0)
    pg = page
    pg.select_option("#rules-select", "forced-yatzy")
    expect(counter(pg)).to_have_text("Turn 1 of 15 · Roll 1 of 3")
    expect(pg.locator("#scorecard tr.forced")).to_have_attribute("data-box", "ones")
    throw(pg, "6 6 6 6 6")
    pg.click("#score-now")
    expect(counter(pg)).to_contain_text("choose a box")
    expect(pg.locator("#scorecard tr.candidate")).to_have_count(1)
    pg.click("#scorecard tr.box[data-box=sixes]")  # not the turn's: says which is
    expect(pg.locator("#error")).to_have_text(
        "This turn fills Ones: the boxes are filled in scorecard order."
    )
    expect(counter(pg)).to_contain_text("choose a box")
    cell = pg.locator("#scorecard tr.candidate[data-box=ones]")
    expect(cell).to_contain_text("0")
    cell.click()
    expect(counter(pg)).to_have_text("Turn 2 of 15 · Roll 1 of 3")
    expect(pg.locator("#scorecard tr.filled[data-box=ones] .points")).to_have_text("0")
    expect(pg.locator("#error")).to_be_hidden()
    expect(pg.locator("#scorecard tr.forced")).to_have_attribute("data-box", "twos")


def test_a_served_hand_scores_on_the_first_throw(page):
    pg = page
    pg.select_option("#rules-select", "generala")
    expect(counter(pg)).to_have_text("Turn 1 of 11 · Roll 1 of 3")
    throw(pg, "2 3 4 5 6")
    best = pg.locator("tr.option.best")
    expect(best).to_have_attribute("data-box", "escalera")
    expect(best).to_contain_text("Escalera (25)")
    expect(pg.locator('tr.option[data-keep="2 3 4 5 6"]')).to_have_count(0)
    best.click()  # filled at once from the first throw, with the served points
    expect(counter(pg)).to_have_text("Turn 2 of 11 · Roll 1 of 3")
    expect(pg.locator("#scorecard tr.filled[data-box=escalera] .points")).to_have_text("25")
    expect(pg.locator("#total")).to_have_text("25")
    expect(pg.locator("#review-total")).to_contain_text("total cost 0.00")
    # stopping first and choosing on the scorecard gives the served points too
    throw(pg, "3 3 3 5 5")
    pg.click("#score-now")
    expect(counter(pg)).to_contain_text("choose a box")
    cell = pg.locator("#scorecard tr.candidate[data-box=full]")
    expect(cell).to_contain_text("35")
    cell.click()
    expect(pg.locator("#scorecard tr.filled[data-box=full] .points")).to_have_text("35")
    expect(pg.locator("#total")).to_have_text("60")


def test_a_target_is_played_for_once_chosen_and_as_typed(page):
    pg = page
    pg.select_option("#rules-select", "yazy")
    expect(counter(pg)).to_have_text("Turn 1 of 11 · Roll 1 of 3")
    pg.select_option("#objective", "target")  # its default at once, no Enter
    expect(pg.locator("#target")).to_have_value("250")
    now = pg.locator("#expected-now")
    expect(now).to_contain_text("chance of 250 or more now", timeout=60_000)
    pg.fill("#target", "200")  # typed, and nothing more
    expect(now).to_contain_text("chance of 200 or more now", timeout=60_000)


def test_play_for_a_target_then_to_beat_a_points_player(page):
    from dicelab.engine.advice.single import advise_target
    from dicelab.engine.objectives.target import target_table
    from dicelab.engine.objectives.win import solve_win

    pg = page
    pg.select_option("#rules-select", "yazy")
    expect(counter(pg)).to_have_text("Turn 1 of 11 · Roll 1 of 3")
    pg.select_option("#objective", "target")
    expect(pg.locator("#target")).to_be_visible()
    pg.fill("#target", "200")
    pg.press("#target", "Enter")
    table = target_table("yazy")
    start = f"{100 * table.probability(200):.2f}%"
    expect(pg.locator("#expected-now")).to_have_text(f"(chance of 200 or more now: {start})")
    throw(pg, "2 2 5 5 6")
    lib = advise_target(table, Position(dice=(2, 2, 5, 5, 6), rerolls=2), 200)
    best = pg.locator("tr.option.best").first
    expect(best).to_contain_text(lib.best.label)
    expect(best.locator(".value")).to_have_text(f"{100 * lib.best.value:.2f}%")
    expect(pg.locator("table.options th").nth(1)).to_have_text("chance of 200 or more")
    worst = pg.locator("tr.option").last
    expect(worst.locator(".cost")).to_have_text(f"−{100 * lib.options[-1].cost:.2f}%")
    # the choice survives a reload, with the game
    pg.reload()
    expect(pg.locator("#objective")).to_have_value("target")
    expect(pg.locator("tr.option.best").first).to_contain_text(lib.best.label)
    pg.select_option("#objective", "win")
    expect(pg.locator("#target")).to_be_hidden()
    expect(pg.locator("table.options th").nth(1)).to_have_text("chance to beat a points player")
    pg.locator("tr.option.best").first.click()  # keep, roll on, and fill a box
    pg.click("#roll")
    pg.click("#roll")
    pg.locator("tr.option.best").first.click()
    expect(counter(pg)).to_have_text("Turn 2 of 11 · Roll 1 of 3")
    expect(pg.locator("#expected-now")).to_contain_text("chance to beat a points player now:")
    pg.click("#new-game")
    win = f"{100 * solve_win('yazy').win_probability:.2f}%"
    expect(pg.locator("#expected-now")).to_have_text(f"(chance to beat a points player now: {win})")


def test_a_whole_duel_against_the_computer(browser, server):
    # a four-box game whose duel solves at once: you (A) play the best options, the
    # computer answers each turn, the win chance is shown; the record is a duel record
    from oracles.duel import FOUR_BOXES, FOUR_TOML, duel_brute

    from dicelab.engine.objectives.duel import duel_table
    from dicelab.play.duel import review_duel
    from dicelab.rules import parse_rules

    with open_page(browser, server + "/?seed=5&fast") as pg:
        expect(counter(pg)).to_have_text(re.compile("Turn 1 of 13"))
        pg.set_input_files(
            "#rules-file",
            files=[{"name": "four.toml", "mimeType": "text/plain", "buffer": FOUR_TOML.encode()}],
        )
        expect(counter(pg)).to_have_text("Turn 1 of 4 · Roll 1 of 2")
        pg.select_option("#objective", "duel")
        value, _ = duel_brute(parse_rules(FOUR_BOXES))
        start = f"{100 * value((0, 0, 0), (0, 0, 0), 0):.2f}%"
        expect(pg.locator("#expected-now")).to_have_text(f"(chance to win the duel now: {start})")
        expect(pg.locator("#scorecard th").nth(2)).to_have_text("computer")
        for turn in range(1, 5):
            expect(counter(pg)).to_have_text(f"Turn {turn} of 4 · Roll 1 of 2")
            if turn == 1:  # the why of an option: its win chance in words, its expected lead
                pg.click("#roll")
                pg.locator("tr.option.best button.why-toggle").first.click()
                why = pg.locator("tr.why-row").first
                expect(why.locator(".why-text")).to_contain_text("the chance to win")
                lead = re.compile(r"expected final lead [+−]\d+\.\d points")
                expect(why.locator(".why-parts")).to_have_text(lead)
                pg.locator("tr.option.best button.why-toggle").first.click()  # folded again
                expect(pg.locator("tr.why-row")).to_have_count(0)
            play_turn_by_the_advice(pg, rolled=turn == 1)
            # the computer's turn: its throws and its box show, then its sheet; the
            # keyboard's focus waits on Roll for your next turn
            expect(pg.locator("#computer-log")).to_contain_text("It filled")
            if turn < 4:
                expect(pg.locator("#roll")).to_be_focused()
            # its boxes, with its upper total, bonus and total
            expect(pg.locator("#scorecard td.computer:not(:empty)")).to_have_count(turn + 3)
            if turn == 2:  # a reload in the middle keeps both sheets and the duel
                pg.reload()
                expect(pg.locator("#objective")).to_have_value("duel")
                expect(pg.locator("#scorecard td.computer:not(:empty)")).to_have_count(5)
        result = pg.locator("#duel-result")
        expect(result).to_be_visible()
        me, it = pg.locator("#total").inner_text(), pg.locator("#computer-total").inner_text()
        verdict = "You win" if int(me) > int(it) else "The computer wins" if int(me) < int(it) \
            else "A tie"  # fmt: skip
        expect(result).to_have_text(f"{verdict}: {me} to {it}")
        expect(counter(pg)).to_contain_text("Game over: ")
        expect(pg.locator("#review-total")).to_contain_text("total cost 0.00% of win chance")
        with pg.expect_download() as dl:
            pg.click("#download")
        record = json.loads(Path(dl.value.path()).read_text(encoding="utf-8"))
    assert record["format"] == "dicelab-duel" and record["human"] == "A"
    rules = parse_rules(FOUR_BOXES)
    table = duel_table(rules, use_cache=False, compare=False)
    decisions = review_duel(table, expected_table(rules, use_cache=False), record)
    assert decisions and all(not d.mistake for d in decisions)
    # the computer played the win-optimal move at every step
    theirs = review_duel(table, expected_table(rules, use_cache=False), record, seat="B")
    assert len(theirs) >= 4 and all(not d.mistake for d in theirs)


def test_a_whole_game_against_computer_players(browser, server):
    # yacht against two computer players: each of your turns is followed by theirs,
    # in their order, with their sheets in columns; a reload keeps the table; the end
    # gives the standings
    with open_page(browser, server + "/?seed=3&fast&rules=yacht") as pg:
        expect(counter(pg)).to_have_text("Turn 1 of 12 · Roll 1 of 3")
        expect(pg.locator("#opponents")).to_be_hidden()
        pg.select_option("#objective", "match")
        pg.select_option("#opponents", "2")
        head = pg.locator("#scorecard th")
        expect(head).to_have_text(["", "you", "computer 1", "computer 2"])
        for turn in range(1, 13):
            expect(counter(pg)).to_have_text(f"Turn {turn} of 12 · Roll 1 of 3")
            if turn > 1:  # nothing loads once advice has come: no "loading" before a roll
                expect(pg.locator("#expected-now")).not_to_contain_text("loading")
            pg.click("#roll")
            expect(pg.locator("#expected-now")).to_contain_text("chance to finish first now")
            expect(pg.locator("#options th").nth(1)).to_have_text("chance to finish first")
            play_turn_by_the_advice(pg, rolled=True)
            log = pg.locator("#computer-log")
            expect(log).to_contain_text("Computer 1 threw")
            expect(log).to_contain_text("Computer 2 threw")
            if turn == 2:  # a reload in the middle keeps every sheet and the table
                pg.reload()
                expect(pg.locator("#objective")).to_have_value("match")
                expect(pg.locator("#opponents")).to_have_value("2")
                expect(head).to_have_text(["", "you", "computer 1", "computer 2"])
            # their boxes so far (two a turn), with their totals
            filled = pg.locator("#scorecard tr.box td.computer:not(:empty)")
            expect(filled).to_have_count(2 * turn)
        me = int(pg.locator("#total").inner_text())
        them = [int(pg.locator(f"#other-total-{k}").inner_text()) for k in (1, 2)]
        place = sum(x > me for x in them)
        verdict = ("you share first place" if me in them else "you finish first") if place == 0 \
            else f"you finish {['second', 'third'][place - 1]}"  # fmt: skip
        expect(counter(pg)).to_have_text(
            f"Game over: {verdict}: you {me}, computer 1 {them[0]}, computer 2 {them[1]}"
        )
        expect(pg.locator("#review-total")).to_contain_text("dicelab match play")
        expect(pg.locator("#undo")).to_be_disabled()  # the computers have moved since


def test_a_game_with_friends_whose_boxes_are_typed(browser, server):
    # a friend's boxes typed as they fill them: the advice reads their sheet; a box
    # out of turn is one clear line, and taking it back clears it
    from dicelab.engine.advice.duel import Sheet
    from dicelab.engine.advice.match import match_advise
    from dicelab.engine.advice.single import Position

    with open_page(browser, server + "/?seed=4&rules=yacht") as pg:
        expect(counter(pg)).to_have_text("Turn 1 of 12 · Roll 1 of 3")
        pg.select_option("#objective", "friends")
        expect(pg.locator("#scorecard th").nth(2)).to_have_text("player 2")
        pg.fill("#friend-1-sixes", "24")
        pg.press("#friend-1-sixes", "Tab")  # they sit before you and filled Sixes
        expect(pg.locator("#other-total-1")).to_have_text("24")
        throw(pg, "2 2 5 5 6")
        got = match_advise("yacht", Position(dice=(2, 2, 5, 5, 6), rerolls=2),
                           [Sheet({"sixes": 24})], method="lookahead")  # fmt: skip
        best = f"{100 * got.win_chance:.2f}%"
        expect(pg.locator("#expected-now")).to_have_text(f"(chance to finish first now: {best})")
        expect(pg.locator("tr.option.best td").first).to_have_text(got.advice.options[0].label)
        pg.fill("#friend-1-ones", "3")  # a second box: out of turn
        pg.press("#friend-1-ones", "Tab")
        expect(pg.locator("#error")).to_contain_text("opponent 1's sheet has 2 boxes filled")
        pg.fill("#friend-1-ones", "")
        pg.press("#friend-1-ones", "Tab")
        expect(pg.locator("#expected-now")).to_have_text(f"(chance to finish first now: {best})")
        expect(pg.locator("#error")).to_be_hidden()
        pg.fill("#friend-1-twos", "x")
        pg.press("#friend-1-twos", "Tab")
        expect(pg.locator("#error")).to_have_text(
            "player 2, Twos: type the points as a whole number, 0 or more"
        )


def test_a_computer_turn_cut_off_is_played_again(browser, server):
    from oracles.duel import FOUR_TOML

    with open_page(browser, server + "/?seed=8&fast") as pg:
        expect(counter(pg)).to_have_text(re.compile("Turn 1 of 13"))
        pg.set_input_files(
            "#rules-file",
            files=[{"name": "four.toml", "mimeType": "text/plain", "buffer": FOUR_TOML.encode()}],
        )
        pg.select_option("#objective", "duel")
        expect(pg.locator("#expected-now")).to_contain_text("chance to win the duel now")
        pg.click("#roll")
        pg.click("#score-now")
        box = pg.locator("tr.option.best").first
        expect(box).to_have_attribute("data-kind", "box")
        pg.route("**/api/duel/advice", lambda route: route.abort())
        box.click()
        expect(pg.locator("#error")).to_contain_text("the computer's turn")
        roll = pg.locator("#roll")
        expect(roll).to_have_text("Let the computer play")
        expect(pg.locator("#enter-throw")).to_be_disabled()
        pg.unroute("**/api/duel/advice")
        roll.click()
        expect(pg.locator("#computer-log")).to_contain_text("It filled")
        expect(counter(pg)).to_have_text("Turn 2 of 4 · Roll 1 of 2")
        expect(roll).to_have_text("Roll")
        expect(pg.locator("#error")).to_be_hidden()


def test_a_solve_in_progress_is_shown_and_the_page_stays_usable(page):
    # the server is solving yacht: its progress answers, the solve's own answer is
    # held; the page says how far it has come and how long is left
    pg = page
    held = HeldAnswers(pg, "**/api/rules/yacht/expected")
    advice = HeldAnswers(pg, "**/api/advice")  # waits for the solve, as on the server
    outlook = HeldAnswers(pg, "**/api/outlook")  # this too
    progress = {"id": "yacht", "state": "solving", "done": 0, "total": 10, "seconds": 0.5,
                "estimate_seconds": 42.0}  # fmt: skip
    pg.route("**/api/rules/yacht/progress", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(progress)))  # fmt: skip
    pg.select_option("#rules-select", "yacht")
    expect(pg.locator("#expected-now")).to_have_text(
        "(solving the rules the first time: at most about 42 s)"
    )
    progress.update(done=5, seconds=3.0, left_seconds=2.6)
    expect(pg.locator("#expected-now")).to_have_text("(solving the rules: 50%, about 3 s left)")
    # the dice can be thrown meanwhile; the options wait for the solve, saying so
    throw(pg, "3 3 6 5 6")
    expect(pg.locator("#thinking")).to_have_text("solving the rules: 50%, about 3 s left")
    pg.unroute("**/api/rules/yacht/progress")
    held.release()
    advice.release()
    outlook.release()
    expect(pg.locator("#expected-now")).to_contain_text("expected final score now")
    expect(pg.locator("tr.option.best")).to_have_count(1)


def test_resume_from_a_game_record(page, tmp_path):
    pg = page
    game = Game(expected_table("yahtzee"), dice="real")
    game.roll([2, 2, 2, 6, 6])
    game.fill("full_house")
    game.roll([1, 1, 4, 5, 6])
    game.keep([1, 1])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.record))
    pg.set_input_files("#record-file", str(path))
    expect(counter(pg)).to_have_text("Turn 2 of 13 · Roll 1 of 3")
    expect(pg.locator(".die[aria-pressed=true]")).to_have_count(2)
    expect(pg.locator("#scorecard tr.filled[data-box=full_house] .points")).to_have_text("25")
    pg.click("#roll")
    expect(counter(pg)).to_have_text("Turn 2 of 13 · Roll 2 of 3")
    expect(pg.locator("#review tbody tr")).to_have_count(3)


def test_open_a_record_of_uploaded_rules(page, tmp_path):
    """A record names its rules by fingerprint: an uploaded file's game opens after upload."""
    from dicelab.rules import parse_rules
    from dicelab.web.store import parse_upload

    pg = page
    upload = UPLOAD.replace("50", "55")  # rules no other test uploads
    rules = parse_upload(upload)
    table = expected_table(parse_rules(rules.as_data(), "test"))
    game = Game(table, dice="real", rules_source="easy.toml")
    game.roll([5, 5, 5, 5, 2])
    game.fill("fives")
    path = tmp_path / "easy-game.json"
    path.write_text(json.dumps(game.record))
    pg.set_input_files("#record-file", str(path))
    expect(pg.locator("#error")).to_contain_text("upload their rules file first")
    pg.set_input_files(
        "#rules-file",
        files=[{"name": "easy.toml", "mimeType": "text/plain", "buffer": upload.encode()}],
    )
    expect(pg.locator("#rules-title")).to_have_text("Yahtzee, bonus at 55")
    pg.set_input_files("#record-file", str(path))
    expect(pg.locator("#error")).to_be_hidden()
    expect(counter(pg)).to_have_text("Turn 2 of 13 · Roll 1 of 3")
    expect(pg.locator("#scorecard tr.filled[data-box=fives] .points")).to_have_text("20")
    expect(pg.locator("#upper-total")).to_have_text("20 / 55")


def test_extra_yahtzee_bonus(page):
    pg = page
    throw(pg, "5 5 5 5 5")
    pg.click("#score-now")
    pg.locator("#scorecard tr.candidate[data-box=yahtzee]").click()
    expect(counter(pg)).to_have_text("Turn 2 of 13 · Roll 1 of 3")
    throw(pg, "6 6 6 6 6")
    pg.click("#score-now")
    sixes = pg.locator("#scorecard tr.candidate[data-box=sixes] .points")
    expect(sixes).to_have_text("30 +100")
    pg.locator("#scorecard tr.candidate[data-box=sixes]").click()
    expect(pg.locator("#scorecard tr.sum", has_text="Extra bonuses")).to_contain_text("1 × 100")
    expect(pg.locator("#total")).to_have_text(str(50 + 30 + 100))
    # the next advice counts the bonus already earned
    throw(pg, "1 2 3 4 5")
    expect(pg.locator("#expected-now")).to_contain_text("expected final score now")
    expect(pg.locator("#error")).to_be_hidden()


def test_an_unknown_rules_address_and_the_address_follows_the_rules(browser, server):
    with open_page(browser, server + "/?rules=nosuch&seed=3") as pg:
        expect(pg.locator("#expected-now")).to_contain_text("254.59")  # Yahtzee instead
        expect(pg.locator("#error")).to_contain_text('rules "nosuch"')
        assert "rules=yahtzee" in pg.url and "seed=3" in pg.url
        pg.select_option("#rules-select", "yazy")
        expect(pg.locator("#expected-now")).to_contain_text("165.76")
        assert "rules=yazy" in pg.url
        pg.reload()  # the address now opens the rules chosen
        expect(pg.locator("#expected-now")).to_contain_text("165.76")


def test_the_roll_button_after_the_last_roll(page):
    pg = page
    for k in (1, 2, 3):
        pg.click("#roll")
        expect(counter(pg)).to_have_text(re.compile(f"Roll {k} of 3"))
    expect(pg.locator("#roll")).to_have_text("No rolls left")
    expect(pg.locator("#roll")).to_be_disabled()


def test_a_reload_keeps_the_game(page):
    pg = page
    pg.click("#roll")  # turn 1: roll once and take the best box
    expect(pg.locator("tr.option.best")).to_have_count(1)
    pg.click("#score-now")
    expect(pg.locator("#scorecard tr.candidate").first).to_be_visible()
    pg.locator("tr.option.best").first.click()
    expect(counter(pg)).to_have_text("Turn 2 of 13 · Roll 1 of 3")
    pg.click("#roll")  # turn 2: roll, keep the first die
    expect(pg.locator("tr.option.best")).to_have_count(1)
    pg.click("#die-0")
    expect(pg.locator(".die[aria-pressed=true]")).to_have_count(1)
    faces = [pg.locator(f"#die-{i}").get_attribute("data-face") for i in range(5)]
    total = pg.locator("#total").inner_text()
    filled = pg.locator("#scorecard tr.filled").count()
    pg.reload()
    expect(counter(pg)).to_have_text("Turn 2 of 13 · Roll 1 of 3")
    expect(pg.locator(".die[aria-pressed=true]")).to_have_count(1)
    expect(pg.locator("#die-0")).to_have_attribute("aria-pressed", "true")
    assert [pg.locator(f"#die-{i}").get_attribute("data-face") for i in range(5)] == faces
    expect(pg.locator("#total")).to_have_text(total)
    expect(pg.locator("#scorecard tr.filled")).to_have_count(filled)
    expect(pg.locator("tr.option.best")).to_have_count(1)  # advice for the position again
    expect(pg.locator("#review tbody tr")).to_have_count(2)  # turn 1's keep and box
    pg.click("#new-game")  # a new game replaces the kept one
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 1 of 3")
    pg.reload()
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 1 of 3")


def test_new_game_during_a_pending_request(page):
    pg = page
    answers = HeldAnswers(pg, "**/api/advice")
    pg.click("#roll")
    expect(pg.locator("#roll")).to_be_disabled()  # waiting for the advice
    pg.click("#new-game")
    expect(pg.locator("#roll")).to_be_enabled()  # the new game does not wait for the old
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 1 of 3")
    answers.release()  # the old game's advice arrives late, and is dropped
    pg.click("#roll")
    expect(pg.locator("tr.option.best")).to_have_count(1)
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 1 of 3")


def test_a_lost_connection_can_be_retried(page):
    pg = page
    down = [True]

    def answer(route):  # the server cannot be reached while down[0]
        if down[0]:
            route.abort()
        else:
            route.continue_()

    pg.route("**/api/advice", answer)
    pg.click("#roll")
    expect(pg.locator("#error")).to_contain_text("cannot be reached")
    expect(pg.locator("#retry-advice")).to_be_visible()
    down[0] = False
    pg.click("#retry-advice")
    expect(pg.locator("tr.option.best")).to_have_count(1)
    expect(pg.locator("#error")).to_be_hidden()


def test_the_rules_list_is_not_cut_off(browser, server):
    with open_page(browser, server + "/", width=1280, height=800) as pg:
        expect(pg.locator("#expected-now")).to_contain_text("254.59")
        widest, room = pg.evaluate(
            """() => {
              const s = document.getElementById('rules-select');
              const c = document.createElement('canvas').getContext('2d');
              c.font = getComputedStyle(s).font;
              const texts = [...s.options].map((o) => c.measureText(o.text).width);
              return [Math.max(...texts), s.clientWidth - 32];  // 32 px: padding and arrow
            }"""
        )
    assert widest <= room, (widest, room)


def test_the_old_games_review_stays_out_of_a_new_one(page):
    pg = page
    reviews = HeldAnswers(pg, "**/api/review")
    pg.click("#roll")
    expect(pg.locator("tr.option.best")).to_have_count(1)
    pg.locator("tr.option.best").first.click()  # a keep: the review is asked for
    with pg.expect_request("**/api/review"):
        pg.click("#roll")
    expect(counter(pg)).to_have_text(re.compile("Roll 2 of 3"))
    pg.click("#new-game")
    reviews.release()  # the old game's review arrives late
    pg.click("#roll")
    expect(pg.locator("tr.option.best")).to_have_count(1)
    expect(pg.locator("#review tbody tr")).to_have_count(0)


def test_the_api_reference_works_offline(browser, server):
    outside = []

    def only_this_server(route):  # as on a machine without internet access
        if route.request.url.startswith(server):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    offline = lambda context: context.route("**/*", only_this_server)  # noqa: E731
    with open_page(browser, server + "/docs", 1280, 800, setup=offline) as pg:
        advice = pg.locator("section.endpoint", has_text="/api/advice")
        expect(advice).to_contain_text("rerolls_left")
        expect(advice).to_contain_text("POST")
        spec = json.loads(pg.request.get(server + "/openapi.json").text())
        operations = sum(len(ops) for ops in spec["paths"].values())
        expect(pg.locator("section.endpoint")).to_have_count(operations)
    assert not outside, outside


def test_a_kept_die_cannot_be_corrected_later(page):
    pg = page
    throw(pg, "1 1 2 3 4")
    expect(pg.locator("tr.option.best")).to_have_count(1)
    pg.click("#die-0")
    pg.click("#die-1")
    expect(pg.locator(".die[aria-pressed=true]")).to_have_count(2)
    pg.click("#roll")
    expect(counter(pg)).to_have_text(re.compile("Roll 2 of 3"))
    expect(pg.locator("tr.option.best")).to_have_count(1)
    pg.locator("#dice .slot").nth(0).locator("button[title='one face up']").click()
    expect(pg.locator("#error")).to_contain_text("die 1 was kept from the throw before")
    expect(pg.locator("#die-0")).to_have_attribute("data-face", "1")
    pg.locator("#dice .slot").nth(3).locator("button[title='one face up']").click()
    expect(pg.locator("#error")).to_be_hidden()  # a die of the last throw may change
    expect(pg.locator("tr.option.best")).to_have_count(1)
    with pg.expect_download() as dl:
        pg.click("#download")
    record = json.loads(Path(dl.value.path()).read_text(encoding="utf-8"))
    review(expected_table("yahtzee"), record)  # a valid record: the library reads it


def test_a_turn_by_keyboard_alone(page):
    pg = page
    pg.focus("#roll")
    for k in (1, 2, 3):  # Enter rolls; the focus stays on Roll while it can roll
        pg.keyboard.press("Enter")
        expect(counter(pg)).to_have_text(re.compile(f"Roll {k} of 3"))
        expect(pg.locator("tr.option.best")).to_have_count(1)
    # the rolling is over: the focus is on the best box, and Enter fills it
    expect(pg.locator("tr.option").first).to_be_focused()
    pg.keyboard.press("Enter")
    expect(counter(pg)).to_have_text("Turn 2 of 13 · Roll 1 of 3")
    expect(pg.locator("#roll")).to_be_focused()  # and back to Roll
    for label in ("rules-file", "record-file"):  # the file buttons are reached and opened
        pg.evaluate(
            """(id) => { window.opened = 0;
                document.getElementById(id).addEventListener('click', () => window.opened++); }""",
            label,
        )
        pg.focus(f"label[for={label}]")
        pg.keyboard.press("Enter")
        pg.wait_for_function("() => window.opened === 1")


def tab_to(pg, selector, limit=80):
    """Press Tab until the focused element matches ``selector`` (keyboard only)."""
    for _ in range(limit):
        if pg.evaluate("(sel) => document.activeElement.matches(sel)", selector):
            return
        pg.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def test_a_whole_game_by_keyboard_alone(browser, server):
    # yazy, eleven turns with Tab, Enter and Space only, always taking the best
    # option: every option is a button, and the game is the library's best play
    with open_page(browser, server + "/?rules=yazy&seed=3") as pg:
        expect(counter(pg)).to_have_text("Turn 1 of 11 · Roll 1 of 3")
        tab_to(pg, "#roll")
        for turn in range(1, 12):
            expect(counter(pg)).to_have_text(f"Turn {turn} of 11 · Roll 1 of 3")
            pg.keyboard.press("Enter")  # the first throw
            while True:
                best = pg.locator("tr.option.best")
                expect(best).to_have_count(1)
                expect(best).to_have_attribute("role", "button")
                kind, keep = best.get_attribute("data-kind"), best.get_attribute("data-keep")
                dice = sorted(int(pg.locator(f"#die-{i}").get_attribute("data-face"))
                              for i in range(5))  # fmt: skip
                whole = kind == "keep" and keep == " ".join(map(str, dice))
                if not pg.evaluate("() => document.activeElement.matches('tr.option.best')"):
                    tab_to(pg, "tr.option.best")
                pg.keyboard.press(" ")
                if kind == "box":
                    break  # filled: the next turn, or the game is over
                if not whole:  # the dice to keep are held: roll the others
                    tab_to(pg, "#roll")
                    pg.keyboard.press("Enter")
        expect(counter(pg)).to_have_text("Game over")
        expect(pg.locator("#review-total")).to_contain_text("total cost 0.00")


CONTRAST = """() => {
  const lum = (rgb) => {
    const c = rgb.map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const parse = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const background = (el) => {
    for (; el; el = el.parentElement) {
      const c = parse(getComputedStyle(el).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !el.offsetParent || el.closest("[disabled]")) continue;
    const style = getComputedStyle(el);
    const fg = lum(parse(style.color).slice(0, 3));
    const bg = lum(background(el));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    const text = node.textContent.trim().slice(0, 30);
    if (ratio < (large ? 3 : 4.5)) bad.push(`${text}: ${ratio.toFixed(2)}`);
  }
  return bad;
}"""


def test_text_contrast_meets_wcag_aa(page):
    pg = page
    pg.click("#roll")
    expect(pg.locator("tr.option.best")).to_have_count(1)
    pg.click("#die-0")
    pg.click("#roll")
    expect(pg.locator("#review tbody tr")).to_have_count(1)
    expect(pg.locator("tr.option.best")).to_have_count(1)
    assert pg.evaluate(CONTRAST) == []


def test_the_why_of_an_option_unfolds_under_it(page):
    from dicelab.engine.objectives.explain import explain_table

    pg = page
    throw(pg, "3 3 6 5 6")
    best = pg.locator("tr.option.best")
    expect(best).to_have_attribute("data-keep", "6 6")
    expect(pg.locator("tr.why-row")).to_have_count(0)  # folded until asked for
    best.locator("button.why-toggle").click()
    expect(pg.locator(".die[aria-pressed=true]")).to_have_count(0)  # the row was not followed
    text = pg.locator("tr.why-row .why-text")
    expect(text).to_have_text(re.compile(r"^Keeping 6 6 is best, "))
    # the figures are the library's
    lib = explain_table("yahtzee").advise(Position(dice=(3, 3, 6, 5, 6), rerolls=2))
    expect(text).to_have_text(lib.explanations[0].text)
    p = lib.explanations[0].p_upper_bonus
    expect(pg.locator("tr.why-row .why-parts")).to_contain_text(f"upper bonus {100 * p:.0f}%")
    sixes = lib.explanations[0].box_points["sixes"]
    expect(pg.locator("tr.why-row .why-parts")).to_contain_text(f"Sixes {sixes:.1f}")
    pg.screenshot(path=shot("web-why.png"))
    # a second option's why, from the same answer; folding hides it again
    second = pg.locator("tr.option").nth(1)
    second.locator("button.why-toggle").click()
    expect(pg.locator("tr.why-row")).to_have_count(2)
    expect(pg.locator("tr.why-row .why-text").nth(1)).to_have_text(lib.explanations[1].text)
    best.locator("button.why-toggle").click()
    expect(pg.locator("tr.why-row")).to_have_count(1)


def test_keys_hold_dice_roll_and_follow_the_best_option(page):
    pg = page
    pg.locator("body").press("r")
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 1 of 3")
    expect(pg.locator("tr.option.best")).to_have_count(1)
    pg.locator("body").press("1")
    expect(pg.locator("#die-0")).to_have_attribute("aria-pressed", "true")
    pg.locator("body").press("1")
    expect(pg.locator("#die-0")).to_have_attribute("aria-pressed", "false")
    keep = pg.locator("tr.option.best").get_attribute("data-keep")
    pg.locator("body").press("Enter")
    held = pg.locator(".die[aria-pressed=true]")
    expect(held).to_have_count(len(keep.split()) if keep else 0)
    pg.locator("body").press("r")
    expect(counter(pg)).to_have_text("Turn 1 of 13 · Roll 2 of 3")


def test_training_view_grades_each_answer_and_keeps_the_session(page):
    pg = page
    pg.click("#view-train")
    expect(pg.locator("#train-view")).to_be_visible()
    expect(pg.locator("#play-view")).to_be_hidden()
    pg.fill("#train-count", "3")
    pg.click("#train-start")
    expect(pg.locator("#train-counter")).to_contain_text("Question 1 of 3")
    for n in range(3):
        expect(pg.locator("#train-counter")).to_contain_text(f"Question {n + 1} of 3")
        # the library's grading of the first option shown
        dice = [int(f) for f in pg.locator("#train-question .die").evaluate_all(
            "els => els.map(e => e.getAttribute('aria-label').split(' ').pop())")]  # fmt: skip
        assert len(dice) == 5
        first = pg.locator(".train-options button").first
        label = first.get_attribute("data-label")
        first.click()
        graded = pg.locator("#train-graded")
        expect(graded).to_be_visible()
        text = graded.text_content()
        assert text.startswith("Best: " + label) or text.startswith("Costs ")
        if text.startswith("Costs "):
            expect(pg.locator(".train-options button.best")).to_have_count(1)
            expect(pg.locator("#train-result .why-text")).not_to_be_empty()
            if n == 0:
                pg.screenshot(path=shot("web-training.png"))
        pg.click("#train-next")
    expect(pg.locator("#train-score")).to_contain_text("3 answered")
    expect(pg.locator("#train-summary")).to_contain_text("Kept in your history")
    pg.click("#view-history")
    expect(pg.locator("tr.history-game").first).to_contain_text("training")
    pg.click("#view-play")
    expect(pg.locator("#play-view")).to_be_visible()


def test_history_view_lists_the_games_and_draws_the_trend(browser, server):
    import urllib.request

    from dicelab.play.game import Game

    table = expected_table("yahtzee")
    for seed in (21, 22, 23):  # three finished games, one with a mistake at every keep
        game = Game(table, seed=seed)
        while game.phase != "over":
            if game.phase == "roll":
                game.roll()
                continue
            best = game.advice().best
            if best.kind == "box":
                game.fill(best.box)
            else:
                game.keep([] if seed == 22 else list(best.keep))
        req = urllib.request.Request(
            server + "/api/history", data=json.dumps({"record": game.record}).encode(),
            headers={"Content-Type": "application/json"},
        )  # fmt: skip
        urllib.request.urlopen(req).read()
    with open_page(browser, server + "/?seed=3") as pg:
        expect(pg.locator("#roll-counter")).to_have_text(re.compile("Turn 1 of 13"))
        pg.click("#view-history")
        rows = pg.locator("tr.history-game")
        expect(rows.first).to_be_visible()
        assert rows.count() >= 3
        expect(pg.locator("#history-chart")).to_be_visible()
        expect(pg.locator("#history-score circle")).not_to_have_count(0)
        expect(pg.locator("#history-summary")).to_contain_text("points lost per decision")
        pg.screenshot(path=shot("web-history.png"))


def test_the_first_why_of_a_rule_set_waits_for_its_split_and_shows_it(browser, server):
    with open_page(browser, server + "/?rules=yacht&seed=4") as pg:
        expect(pg.locator("#roll-counter")).to_have_text(re.compile("Turn 1 of 12"))
        throw(pg, "3 3 6 5 6")
        best = pg.locator("tr.option.best")
        expect(best).to_have_count(1)
        best.locator("button.why-toggle").click()
        expect(pg.locator("tr.why-row .why-text")).to_have_text(re.compile(" is best, "))
        expect(pg.locator("tr.why-row .why-parts")).to_contain_text("upper bonus")


def test_the_dice_cannot_be_thrown_before_the_rules_have_come(browser, server):
    # a click on Roll while the page still loads would be lost: the button waits with it
    with open_page(browser, "about:blank") as pg:
        held = HeldAnswers(pg, re.compile(r"/api/rules/yahtzee$"))
        pg.goto(server + "/?seed=3&rules=yahtzee")
        for control in ("#roll", "#score-now", "#undo", "#enter-throw", "#enter-dice"):
            expect(pg.locator(control)).to_be_disabled()
        held.release()
        expect(pg.locator("#roll")).to_be_enabled()
        pg.click("#roll")
        expect(pg.locator("#options tbody tr").first).to_be_visible()


#: What lies beyond the right edge of the screen (elements shown, and the page itself).
BEYOND = """() => ({
    page: document.documentElement.scrollWidth,
    out: [...document.querySelectorAll('body *')].filter(e => e.offsetParent !== null
        && !e.closest('.review-scroll') && e.getBoundingClientRect().right > innerWidth + 1)
        .map(e => e.tagName + '#' + e.id + '.' + e.className),
})"""


@pytest.mark.parametrize("width", [360, 390, 414])
def test_on_a_phone_nothing_lies_beyond_the_screen(browser, server, width):
    # after the first roll, with every why unfolded, and with the boxes to choose from
    with open_page(browser, server + "/?seed=3&rules=yahtzee", width=width, height=800) as pg:
        pg.click("#roll")
        expect(pg.locator("#options tbody tr").first).to_be_visible()
        pg.locator("button.why-toggle").first.click()
        expect(pg.locator("tr.why-row .why-text").first).to_be_visible()
        seen = pg.evaluate(BEYOND)
        assert seen["page"] <= width and not seen["out"], seen
        pg.click("#score-now")  # the boxes the dice may go in
        expect(pg.locator("#options tbody tr.option").first).not_to_contain_text("keep")
        seen = pg.evaluate(BEYOND)
        assert seen["page"] <= width and not seen["out"], seen
        if width == 390:
            pg.screenshot(path=shot("web-phone.png"), full_page=False)
        pg.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # at the review
        roll = pg.locator("#roll").bounding_box()  # Roll stays under the thumb
        assert roll["y"] + roll["height"] <= 800 and roll["y"] > 700, roll


def menu(pg, open_it: bool = True) -> None:
    """On a phone the views, rules and aim are in the header's menu: open (or close) it."""
    toggle = pg.locator("#menu-toggle")
    if toggle.is_visible() and (toggle.get_attribute("aria-expanded") == "true") != open_it:
        toggle.click()


def _fits(pg, width: int, what: str) -> None:
    """Nothing beyond the right edge, the header one row, the page no wider (the
    caller has waited for the view's own state: its options or its view shown)."""
    seen = pg.evaluate(BEYOND)
    assert seen["page"] <= width and not seen["out"], (what, seen)
    header = pg.locator("header").bounding_box()
    assert header["height"] <= 60, (what, header)  # one row: the title and the menu


@pytest.mark.parametrize("width", [360, 390])
def test_every_view_and_mode_fits_a_phone_with_its_actions_on_screen(browser, server, width):
    """Play alone, at a table of 3 and 4, the duel, training, history, the dice games
    and compare: every one fits at 360 and 390 px, the header is one row with the
    views, rules and aim in its menu, and Roll / Score now / Undo stay on screen."""

    def set_up(context):
        context.add_init_script(
            "Object.defineProperty(navigator, 'maxTouchPoints', {get: () => 5})"
        )  # fmt: skip  a touch screen

    with open_page(browser, server + "/?seed=3&rules=yazy", width=width, height=740,
                   setup=set_up) as pg:  # fmt: skip
        expect(pg.locator("#roll-counter")).to_have_text(re.compile("Turn 1 of"))
        assert pg.is_hidden("nav.views") and pg.is_hidden("#rules-select")
        expect(pg.locator("#menu-now")).to_have_text("Play · Yazy")
        assert pg.is_hidden("p.keys")  # no keyboard hints on a touch screen
        for mode, others in [("play", None), ("match", "2"), ("match", "3"), ("duel", None)]:
            if mode != "play":
                menu(pg)
                pg.select_option("#objective", mode)
                if others:
                    pg.select_option("#opponents", others)
                menu(pg, False)
            pg.click("#roll")
            # the first width solves yazy's duel (about two minutes on 2 quiet cores)
            wait = 360_000 if mode == "duel" else 120_000
            expect(pg.locator("#options tbody tr.option").first).to_be_visible(timeout=wait)
            _fits(pg, width, f"{mode} {others}")
            for end in ("top", "bottom"):
                pg.evaluate(
                    f"window.scrollTo(0, {'0' if end == 'top' else 'document.body.scrollHeight'})"
                )
                for button in ("#roll", "#score-now", "#undo"):
                    box = pg.locator(button).bounding_box()
                    assert box["x"] >= 0 and box["x"] + box["width"] <= width, (mode, button, box)
                    assert box["y"] + box["height"] <= 740, (mode, end, button, box)
            if width == 360 and others == "3":
                pg.screenshot(path=shot("phone-table-of-4.png"), full_page=True)
        for view in ("train", "history", "games", "compare"):
            menu(pg)
            pg.click(f"#view-{view}")
            assert pg.get_attribute("#menu-toggle", "aria-expanded") == "false"  # closed
            expect(pg.locator(f"#{view}-view")).to_be_visible()
            _fits(pg, width, view)
        menu(pg)
        pg.click("#view-games")
        pg.click("#games-start")  # Pig to 100 on the phone
        expect(pg.locator("#games-moves button").first).to_be_visible(timeout=60_000)
        _fits(pg, width, "a game of pig")


def test_on_a_desktop_nothing_lies_beyond_the_screen(browser, server):
    with open_page(browser, server + "/?seed=3&rules=yazy", width=1280, height=800) as pg:
        pg.click("#roll")
        expect(pg.locator("#options tbody tr").first).to_be_visible()
        pg.select_option("#objective", "risk")
        expect(pg.locator("#theta")).to_be_visible()
        expect(pg.locator("#objective-note")).to_contain_text("change it")  # laid out
        pg.wait_for_timeout(300)
        seen = pg.evaluate(BEYOND)
        assert seen["page"] <= 1280 and not seen["out"], seen  # what lies beyond, if any
        pg.press("#theta", "Enter")  # asked for now: its table is made, its advice shown
        header = pg.locator("table.options th").nth(1)  # a table solved in a worker: seconds
        expect(header).to_have_text("sure score, theta 0.02", timeout=60_000)


def test_what_cannot_be_made_here_is_offered_disabled_with_the_reason(browser, server):
    with open_page(browser, server + "/?rules=yahtzee") as pg:
        duel = pg.locator('#objective option[value="duel"]')
        expect(duel).to_be_disabled(timeout=30_000)
        expect(duel).to_have_text("a duel with the computer (too large here)")
        assert "two-player game" in duel.get_attribute("title")
        pg.select_option("#rules-select", "yazy")  # a rule set whose duel fits
        expect(duel).to_be_enabled()
        expect(duel).to_have_text("a duel with the computer")
