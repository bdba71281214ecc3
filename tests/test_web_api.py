"""The web server's JSON API: every endpoint, values checked against the tables,
and bad input (including random garbage) answered with a 4xx and a message."""

import http.client
import json
import socket
import subprocess
import sys
import threading
import time
import warnings
from contextlib import contextmanager
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dicelab.engine.objectives.saved as expected_module  # the expected objective's solve
from dicelab.engine.advice.single import Position, advise
from dicelab.engine.objectives.expected import expected_table
from dicelab.play.game import Game, review
from dicelab.rules import builtin_names, load_rules
from dicelab.web import models as m
from dicelab.web import store as store_module
from dicelab.web.app import create_app
from dicelab.web.store import Store

#: The address the test client sends as its Host (the server refuses other sites).
LOCAL = "http://127.0.0.1"

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

YAHTZEE_START = 254.5896095
UPLOAD = """
extends = "yahtzee"
name = "yahtzee-60"
title = "Yahtzee with the bonus at 60"

[upper_bonus]
threshold = 60
points = 35
"""


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(), base_url=LOCAL, raise_server_exceptions=False) as c:
        yield c


def advice(client, **body):
    body.setdefault("rules", "yahtzee")
    return client.post("/api/advice", json=body)


def error(response, status):
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail
    return detail


# -- rules ---------------------------------------------------------------------------
def test_rules_lists_every_builtin(client):
    data = client.get("/api/rules").json()
    builtin = [r for r in data["rules"] if r["source"] == "builtin"]
    assert [r["id"] for r in builtin] == builtin_names()
    yahtzee = next(r for r in builtin if r["id"] == "yahtzee")
    assert (yahtzee["dice"], yahtzee["faces"], yahtzee["rolls"], yahtzee["boxes"]) == (5, 6, 3, 13)


def test_rules_scorecard(client):
    info = client.get("/api/rules/yatzy").json()
    rules = load_rules("yatzy")
    assert info["fingerprint"] == rules.fingerprint()
    assert [c["id"] for c in info["categories"]] == [c.id for c in rules.categories]
    assert sum(c["upper"] for c in info["categories"]) == 6
    assert info["upper_bonus"] == {"threshold": 63, "points": 50}
    assert info["extra_bonus"] is None
    y = client.get("/api/rules/yahtzee").json()["extra_bonus"]
    assert (y["box"], y["points"], y["joker"]) == ("yahtzee", 100, "free")


def test_unknown_rules_is_404(client):
    detail = error(client.get("/api/rules/kniffel-deluxe"), 404)
    assert "unknown rules 'kniffel-deluxe'" in detail and "yahtzee" in detail
    error(advice(client, rules="kniffel-deluxe", dice=[1, 2, 3, 4, 5], rerolls_left=2), 404)
    error(client.get("/api/rules/kniffel-deluxe/expected"), 404)


@pytest.mark.parametrize(("name", "value"), [("yahtzee", YAHTZEE_START), ("yazy", 165.7573)])
def test_expected_score(client, name, value):
    data = client.get(f"/api/rules/{name}/expected").json()
    assert data["expected_score"] == pytest.approx(value, abs=1e-4)


# -- advice --------------------------------------------------------------------------
def test_advice_first_roll_keeps_the_sixes(client):
    data = advice(client, dice=[3, 3, 6, 5, 6], rerolls_left=2).json()
    assert (data["turn"], data["turns"], data["roll"], data["rolls"]) == (1, 13, 1, 3)
    best = data["options"][0]
    assert best["kind"] == "keep" and best["keep"] == [6, 6] and best["best"]
    assert best["cost"] == 0
    assert data["expected_final_score"] == best["expected_final_score"]
    values = [o["expected_final_score"] for o in data["options"]]
    assert values == sorted(values, reverse=True)
    m.AdviceOut.model_validate(data)  # the documented shape
    stops = [o for o in data["options"] if o["stops"]]
    assert len(stops) == 1 and stops[0]["keep"] == [3, 3, 5, 6, 6]
    for o in data["options"]:
        assert o["cost"] == pytest.approx(best["expected_final_score"] - o["expected_final_score"])
        assert o["best"] == (o["cost"] <= 1e-9)


@pytest.mark.slow
def test_advice_explains_every_option_when_asked(client):
    plain = advice(client, dice=[3, 3, 6, 5, 6], rerolls_left=2).json()
    assert all(o["explain"] is None for o in plain["options"])
    data = advice(client, dice=[3, 3, 6, 5, 6], rerolls_left=2, explain=True).json()
    m.AdviceOut.model_validate(data)
    for o in data["options"]:
        why = o["explain"]
        parts = sum(why["box_points"].values()) + why["upper_bonus"] + why["extra_bonus"]
        assert parts == pytest.approx(why["expected_final_score"], abs=1e-9)
        # from the double-precision table: within the single-precision table's 1e-6
        assert why["expected_final_score"] == pytest.approx(o["value"], abs=1e-5)
    assert data["options"][0]["explain"]["text"].startswith("Keeping 6 6 is best")
    target = advice(
        client, dice=[3, 3, 6, 5, 6], rerolls_left=2, objective="target", target=200,
        explain=True,
    ).json()  # fmt: skip
    assert "the chance of 200 or more" in target["options"][1]["explain"]["text"]


def test_the_progress_of_the_split_by_box_can_be_watched(client):
    got = client.get("/api/rules/yazy/progress", params={"objective": "explain"})
    assert got.status_code == 200, got.text
    assert got.json()["state"] in ("idle", "cached", "ready", "solving", "queued")


def test_advice_last_roll_full_house(client):
    data = advice(client, dice=[2, 2, 2, 6, 6], rerolls_left=0).json()
    assert data["roll"] == 3
    best = data["options"][0]
    assert (best["kind"], best["box"], best["points"]) == ("box", "full_house", 25)
    assert {o["box"] for o in data["options"]} == {c.id for c in load_rules("yahtzee").categories}


def test_first_roll_values_average_to_the_game_value(client):
    """Over every first roll, the best option's value averages to the table's value."""
    table = expected_table("yahtzee")
    space = table.game.space
    total = 0.0
    for roll, prob in zip(space.rolls, space.roll_prob, strict=True):
        dice = list(space.faces_of(int(roll)))
        data = advice(client, dice=dice, rerolls_left=2).json()
        total += prob * data["expected_final_score"]
    assert total == pytest.approx(YAHTZEE_START, abs=1e-6)


def test_box_values_follow_the_table(client):
    """A box's value is its points plus the table's value of the next turn start."""
    table = expected_table("yahtzee")
    ids = [c.id for c in table.rules.categories]
    filled = {"ones": 3, "twos": 6, "full_house": 25}
    data = advice(client, dice=[4, 4, 4, 4, 1], rerolls_left=0, filled=filled).json()
    assert data["turn"] == 4 and data["upper_total"] == 9 and data["score_so_far"] == 34
    for o in data["options"]:
        mask = sum(1 << ids.index(b) for b in [*filled, o["box"]])
        upper = 9 + (o["points"] if ids.index(o["box"]) < 6 else 0)
        expect = 34 + o["points"] + table.value(mask, upper, 0)
        assert o["expected_final_score"] == pytest.approx(expect, abs=1e-9)
    assert data["options"][0]["box"] == "fours"


def test_advice_matches_the_library(client):
    table = expected_table("yacht")
    pos = Position(dice=(1, 1, 5, 5, 5), rerolls=1, filled={"choice": 22, "fives": 10})
    lib = advise(table, pos).to_dict()
    data = advice(
        client, rules="yacht", dice=[1, 1, 5, 5, 5], rerolls_left=1,
        filled={"choice": 22, "fives": 10},
    ).json()  # fmt: skip
    assert [o["label"] for o in data["options"]] == [o["label"] for o in lib["options"]]
    assert data["expected_final_score"] == pytest.approx(lib["expected_final_score"])


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"dice": [1, 2, 3, 4, 5, 6, 1], "rerolls_left": 2}, 400, "dice: got 7, expected 5"),
        ({"dice": [1, 2, 3, 4, 9], "rerolls_left": 2}, 400, "die 9"),
        ({"dice": [1, 2, 3, 4, 0], "rerolls_left": 2}, 400, "die 0"),
        ({"dice": [1, 2, 3, 4, 5], "rerolls_left": 3}, 400, "rerolls left"),
        ({"dice": [1, 2, 3, 4, 5], "rerolls_left": 0, "filled": {"ones": 7}}, 400, "ones"),
        ({"dice": [1, 2, 3, 4, 5], "rerolls_left": 0, "filled": {"seven": 7}}, 400, "unknown box"),
        (
            {
                "dice": [1, 2, 3, 4, 5],
                "rerolls_left": 0,
                "filled": {"ones": None},
                "upper_total": 7,
            },
            400,
            "upper total",
        ),  # fmt: skip
        (
            {"dice": [1, 2, 3, 4, 5], "rerolls_left": 0, "filled": {"ones": 3}, "upper_total": 4},
            400,
            "upper total",
        ),  # fmt: skip
        ({"dice": [1, 2, 3, 4, 5], "rerolls_left": 0, "extra_bonuses": 2}, 400, "extra"),
        ({"dice": [1, 2, 3, 4, 5], "rerolls_left": "two"}, 422, "rerolls_left"),
        ({"dice": [1, 2, 3, 4, 5.5], "rerolls_left": 1}, 422, "dice"),
        ({"dice": [1, 2, 3, 4, True], "rerolls_left": 1}, 422, "dice"),
        ({"dice": "33656", "rerolls_left": 1}, 422, "dice"),
        ({"rerolls_left": 1}, 422, "dice"),
        ({"dice": [1, 2, 3, 4, 5], "rerolls_left": 1, "colour": "red"}, 422, "colour"),
        ({"dice": [1, 2, 3, 4, 5], "rerolls_left": -1}, 422, "rerolls_left"),
    ],
)
def test_bad_advice_requests(client, body, status, words):
    assert words in error(advice(client, **body), status)


def test_full_card_is_an_error(client):
    rules = load_rules("yazy")
    table = expected_table("yazy")
    filled = {c.id: 0 for c in rules.categories}
    with pytest.raises(Exception, match="every box is filled"):
        advise(table, Position(dice=(1, 1, 1, 1, 1), rerolls=0, filled=filled))
    data = advice(client, rules="yazy", dice=[1, 1, 1, 1, 1], rerolls_left=0, filled=filled)
    assert "every box is filled" in error(data, 400)


@pytest.mark.parametrize(
    "raw",
    [b"", b"garbage", b"[1, 2, 3]", b"null", b'{"dice": [1,2', b"\xff\xfe", b'"text"'],
)
def test_garbage_bodies(client, raw):
    for path in ("/api/advice", "/api/review", "/api/rules"):
        r = client.post(path, content=raw, headers={"content-type": "application/json"})
        detail = error(r, 422)
        assert "JSON" in detail or "Input should be" in detail or "required" in detail


def test_body_size_limit(client):
    big = json.dumps({"dice": [1] * 100_000, "rerolls_left": 1}).encode()
    r = client.post("/api/advice", content=big, headers={"content-type": "application/json"})
    assert "request body" in error(r, 413)

    def chunks():
        yield b'{"toml": "'
        for _ in range(40):
            yield b"x" * 8192
        yield b'"}'

    r = client.post("/api/rules", content=chunks(), headers={"content-type": "application/json"})
    assert "request body" in error(r, 413)


# -- other objectives ------------------------------------------------------------------
def test_target_advice_and_outlook_match_the_target_table(client):
    from dicelab.engine.advice.single import advise_target
    from dicelab.engine.objectives.target import target_table

    table = target_table("yazy")
    start = client.post(
        "/api/outlook", json={"rules": "yazy", "objective": "target", "target": 200}
    ).json()
    assert start["value"] == pytest.approx(table.probability(200), abs=1e-12)
    assert start["expected_final_score"] is None
    filled = {"ones": 3, "sixes": 24}
    body = {
        "rules": "yazy",
        "dice": [2, 2, 5, 5, 6],
        "rerolls_left": 1,
        "filled": filled,
        "objective": "target",
        "target": 200,
    }
    got = client.post("/api/advice", json=body).json()
    lib = advise_target(table, Position(dice=(2, 2, 5, 5, 6), rerolls=1, filled=filled), 200)
    assert [o["label"] for o in got["options"]] == [o.label for o in lib.options]
    assert [o["value"] for o in got["options"]] == pytest.approx([o.value for o in lib.options])
    assert got["value"] == pytest.approx(lib.value) and 0 < got["value"] < 1
    assert got["options"][0]["best"] and got["options"][0]["cost"] == 0
    assert got["objective"] == "target" and got["target"] == 200
    # a target already reached is certain; one out of reach is refused
    done = client.post(
        "/api/outlook",
        json={"rules": "yazy", "objective": "target", "target": 20, "filled": filled},
    ).json()
    assert done["value"] == 1.0
    far = client.post("/api/advice", json={**body, "target": 9999})
    assert "best possible score in yazy is 280" in error(far, 400)


def test_win_advice_beats_the_points_player(client):
    from dicelab.engine.objectives.win import solve_win

    report = solve_win("yazy")
    start = client.post("/api/outlook", json={"rules": "yazy", "objective": "win"}).json()
    assert start["value"] == pytest.approx(report.win_probability, abs=1e-12)
    assert start["value"] > report.expected_strategy_win_probability
    got = client.post(
        "/api/advice",
        json={"rules": "yazy", "dice": [3, 3, 6, 5, 6], "rerolls_left": 2, "objective": "win"},
    ).json()
    assert got["objective"] == "win" and 0.4 < got["value"] < 0.6
    values = [o["value"] for o in got["options"]]
    assert values == sorted(values, reverse=True)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"objective": "target"}, "give the final score to reach"),
        ({"target": 200}, "only with objective target"),
        ({"objective": "points"}, "objective"),
    ],
)
def test_bad_objectives(client, body, words):
    got = client.post(
        "/api/advice", json={"rules": "yazy", "dice": [1, 2, 3, 4, 5], "rerolls_left": 2, **body}
    )
    assert words in error(
        got, 400 if "objective" not in body or body["objective"] == "target" else 422
    )
    assert "objective" in error(client.get("/api/rules/yazy/progress?objective=x"), 422)


# -- spread and distribution -----------------------------------------------------------
def test_spread_of_options_and_distribution_from_a_turn_start(client):
    from dicelab.engine.objectives.distribution import score_distribution

    whole = score_distribution("yazy")
    start = client.post("/api/outlook", json={"rules": "yazy"}).json()
    # the forward distribution and the backward moments agree to the table's
    # single-precision turns
    assert start["sd"] == pytest.approx(whole.sd, abs=1e-6)
    got = client.post("/api/distribution", json={"rules": "yazy"}).json()
    lo = got["lowest"]
    assert got["pmf"] == pytest.approx(whole.pmf[lo : got["highest"] + 1].tolist(), abs=1e-15)
    assert sum(got["pmf"]) == pytest.approx(1.0)
    # later in a game: the distribution's mean and sd are those of the outlook (the
    # forward distribution and the backward moments are separate computations)
    card = {"filled": {"ones": 3, "sixes": 24, "full_house": 25}}
    later = client.post("/api/distribution", json={"rules": "yazy", **card}).json()
    outlook = client.post("/api/outlook", json={"rules": "yazy", **card}).json()
    # (the served table's turns ran in single precision: its entries within 1e-6)
    assert later["mean"] == pytest.approx(outlook["value"], abs=1e-6)
    assert later["sd"] == pytest.approx(outlook["sd"], abs=1e-6)
    assert later["lowest"] >= 52 and later["score_so_far"] == 52
    # each option's spread: a box leads to the next turn start's spread
    body = {"rules": "yazy", "dice": [6, 6, 6, 2, 1], "rerolls_left": 0, **card}
    advice = client.post("/api/advice", json=body).json()
    box = next(o for o in advice["options"] if o["kind"] == "box" and o["box"] == "twos")
    after = client.post("/api/outlook", json={
        "rules": "yazy", "filled": {**card["filled"], "twos": 2}}).json()  # fmt: skip
    assert box["sd"] == pytest.approx(after["sd"], abs=1e-9)
    assert all(o["sd"] >= 0 for o in advice["options"])


def test_no_spread_for_served_rules(client):
    got = client.post(
        "/api/advice", json={"rules": "generala", "dice": [1, 2, 3, 4, 6], "rerolls_left": 2}
    ).json()
    assert all(o["sd"] is None for o in got["options"])


# -- the two-player game ---------------------------------------------------------------
@pytest.fixture(scope="module")
def four(client):
    from oracles.duel import FOUR_TOML

    return client.post("/api/rules", json={"toml": FOUR_TOML}).json()["id"]


@pytest.mark.slow
def test_duel_outlook_and_advice_agree_with_brute_force(client, four):
    from oracles.duel import FOUR_BOXES, duel_brute

    from dicelab.rules import parse_rules

    value, throw = duel_brute(parse_rules(FOUR_BOXES))
    start = client.post("/api/duel/outlook", json={
        "rules": four, "mine": {}, "theirs": {}, "my_seat": "A"}).json()  # fmt: skip
    assert start["to_move"] == "mine"
    # within float32: a duel table cached by another test is stored in single precision
    assert start["win_chance"] == pytest.approx(value((0, 0, 0), (0, 0, 0), 0), abs=1e-6)
    as_b = client.post("/api/duel/outlook", json={
        "rules": four, "mine": {}, "theirs": {}, "my_seat": "B"}).json()  # fmt: skip
    assert as_b["to_move"] == "theirs"
    assert as_b["win_chance"] == pytest.approx(1 - start["win_chance"], abs=1e-9)
    # I (B) have Ones=1, they have Ones=2 and Threes=3: I trail by 4 with 1 and 3 showing
    body = {"rules": four, "dice": [1, 3], "rerolls_left": 1, "mine": {"filled": {"ones": 1}},
            "theirs": {"filled": {"ones": 2, "threes": 3}}}  # fmt: skip
    got = client.post("/api/duel/advice", json=body).json()
    assert got["seat"] == "B" and got["my_score"] - got["their_score"] == -4
    slow = throw((0b0001, 1, 0), (0b0011, 5, 0), -4, (1, 3), 1)
    assert got["value"] == pytest.approx(slow, abs=1e-6)
    assert got["options"][0]["best"] and got["options"][0]["cost"] == 0
    values = [o["value"] for o in got["options"]]
    assert values == sorted(values, reverse=True)
    m.DuelAdviceOut.model_validate(got)
    texts = [o["explain"]["text"] for o in got["options"]]  # the why, in win chance
    assert "the chance to win is" in texts[0] and "chance to win" in texts[-1]
    assert all(o["explain"]["expected_lead"] is None for o in got["options"])
    # with explain: each option's expected final lead (both playing to win)
    from oracles.duel import lead_brute

    led = client.post("/api/duel/advice", json={**body, "rerolls_left": 0, "explain": True})
    assert led.status_code == 200, led.text
    m.DuelAdviceOut.model_validate(led.json())
    value_of, _ = lead_brute(parse_rules(FOUR_BOXES))
    for o in led.json()["options"]:
        c = ["ones", "threes", "pair", "sum"].index(o["box"])
        mine = (0b0001 | 1 << c, 1 + (o["points"] if c < 2 else 0), 0)
        want = -value_of((0b0011, 5, 0), mine, 4 - o["points"])[1]
        assert o["explain"]["expected_lead"] == pytest.approx(want, abs=1e-4)
    progress = client.get(f"/api/rules/{four}/progress?objective=duel-lead").json()
    assert progress["state"] == "ready", progress
    # at the end: 1, 1/2 or 0 by the final scores, upper bonus included
    full = {"ones": 2, "threes": 3, "pair": 0, "sum": 2}
    end = client.post("/api/duel/outlook", json={
        "rules": four, "mine": {"filled": full}, "theirs": {"filled": {**full, "threes": 0}},
        "my_seat": "A"}).json()  # fmt: skip
    assert end["to_move"] is None and end["win_chance"] == 1.0
    assert end["my_score"] == 2 + 3 + 2 + 5 and end["their_score"] == 4


def test_duel_mistakes_are_one_line(client, four):
    bad = client.post("/api/duel/outlook", json={
        "rules": four, "mine": {"filled": {"ones": 1, "threes": 3}}, "theirs": {},
        "my_seat": "A"})  # fmt: skip
    assert "do not alternate" in error(bad, 400)
    big = client.post("/api/duel/outlook", json={"rules": "yahtzee", "mine": {}, "theirs": {},
                                                  "my_seat": "A"})  # fmt: skip
    message = error(big, 400)
    assert "pairs of sheets" in message and "such as yazy" in message
    assert "--allow-large" not in message


def test_match_advice_agrees_with_the_library_and_brute_force(client, four):
    from oracles.duel import FOUR_BOXES
    from oracles.match import lookahead_brute

    from dicelab.engine.advice.duel import Sheet
    from dicelab.engine.advice.match import match_advise
    from dicelab.rules import parse_rules

    rules = parse_rules(FOUR_BOXES)
    body = {"rules": four, "dice": [1, 3], "rerolls_left": 1, "mine": {},
            "theirs": [{"filled": {"threes": 3}}, {}], "method": "lookahead"}  # fmt: skip
    got = client.post("/api/match/advice", json=body)
    assert got.status_code == 200, got.text
    out = m.MatchAdviceOut.model_validate(got.json())
    assert out.players == 3 and out.method.startswith("this turn played to finish first")
    lib = match_advise(rules, Position(dice=(1, 3), rerolls=1),
                       [Sheet({"threes": 3}), Sheet({})], method="lookahead")  # fmt: skip
    assert [o.label for o in out.options] == [o.label for o in lib.advice.options]
    keep, _, throw = lookahead_brute(rules, lib.opponents, (1, 3), 1)
    for o in out.options:  # each chance against the plain expectimax
        want = throw((1, 3), 0) if o.stops else keep(tuple(o.keep), 1)
        assert o.value == pytest.approx(want, abs=1e-6), o.label
    assert out.options[0].best and out.value == out.options[0].value
    # two players, auto: the exact two-player game where it fits
    duel = client.post("/api/match/advice", json={**body, "theirs": [{}], "method": "auto"})
    assert duel.status_code == 200, duel.text
    assert duel.json()["method"].startswith("the exact two-player game")
    progress = client.get(f"/api/rules/{four}/progress?objective=match").json()
    assert progress["state"] == "ready", progress


@pytest.mark.parametrize(
    ("theirs", "words"),
    [
        ([{"filled": {"ones": 1, "threes": 3}}], "opponent 1's sheet has 2 boxes filled"),
        ([{"filled": {"ones": 7}}], "box 'ones': 7 points cannot be scored"),
        ([{"filled": {"nosuch": 1}}], "unknown box 'nosuch'"),
    ],
)
def test_match_mistakes_are_one_line(client, four, theirs, words):
    body = {"rules": four, "dice": [1, 3], "rerolls_left": 1, "mine": {}, "theirs": theirs}
    assert words in error(client.post("/api/match/advice", json=body), 400)


def test_match_refuses_too_many_players(client, four):
    body = {"rules": four, "dice": [1, 3], "rerolls_left": 1, "mine": {}, "theirs": [{}] * 4}
    assert "theirs" in error(client.post("/api/match/advice", json=body), 422)


def test_duel_review_matches_the_library(client, four):
    from dicelab.play.duel import DuelGame, review_duel

    store = client.app.state.store
    entry = store.get(four)
    table, expected = store.table(entry.rules, "duel"), store.table(entry.rules)
    game = DuelGame(table, expected, seed=4, human="A")
    while not game.over:
        g = game.games[game.mover]
        if g.phase == "roll":
            g.roll()
            continue
        options = game.options()
        game.apply(options[-1] if game.mover == "A" else options[0])  # A plays badly
    got = client.post("/api/duel/review", json={"rules": four, "record": game.record}).json()
    lib = review_duel(table, expected, game.record)
    assert [d["chosen"] for d in got["decisions"]] == [d.chosen.label for d in lib]
    assert got["total_cost"] == pytest.approx(sum(d.cost for d in lib))
    assert got["mistakes"] == sum(d.mistake for d in lib) > 0
    # the finished duel is kept in the history, priced in win chance
    record = dict(game.record, rules_source=four)  # as the page names an upload
    kept = client.post("/api/history", json={"record": record}).json()
    assert kept["kept"], kept
    games = client.get("/api/history", params={"rules": entry.rules.name}).json()["games"]
    duel = games[-1]
    assert duel["kind"] == "duel" and duel["total_cost"] == pytest.approx(sum(d.cost for d in lib))
    assert duel["score"] == game.games["A"].score


# -- uploads ---------------------------------------------------------------------------
@pytest.mark.slow
def test_upload_then_advise(client):
    r = client.post("/api/rules", json={"toml": UPLOAD})
    assert r.status_code == 201, r.text
    info = r.json()
    assert info["id"].startswith("upload-") and info["source"] == "upload"
    assert info["upper_bonus"] == {"threshold": 60, "points": 35}
    assert client.post("/api/rules", json={"toml": UPLOAD}).json()["id"] == info["id"]
    listed = [r["id"] for r in client.get("/api/rules").json()["rules"]]
    assert info["id"] in listed
    assert client.get(f"/api/rules/{info['id']}").json()["title"] == "Yahtzee with the bonus at 60"
    ex = client.get(f"/api/rules/{info['id']}/expected").json()["expected_score"]
    assert ex > YAHTZEE_START  # an easier bonus is worth more
    data = advice(client, rules=info["id"], dice=[3, 3, 6, 5, 6], rerolls_left=2).json()
    assert data["rules"] == info["id"] and data["options"][0]["best"]


def test_upload_title(client):
    toml = 'extends = "yacht"\nname = "yacht-2"\nrolls = 2\n'
    info = client.post("/api/rules", json={"toml": toml}).json()
    assert info["title"] == "yacht-2 (based on yacht)" and info["description"] == ""
    assert info["rolls"] == 2
    data = advice(client, rules=info["id"], dice=[1, 1, 5, 5, 5], rerolls_left=1).json()
    assert (data["roll"], data["rolls"]) == (1, 2)
    error(advice(client, rules=info["id"], dice=[1, 1, 5, 5, 5], rerolls_left=2), 400)


@pytest.mark.parametrize(
    ("filename", "name"),
    [
        ("house.toml", "house"),
        ("my house rules.toml", "my-house-rules"),
        ("yacht.toml", "yacht-variant"),
        (None, "yacht-variant"),
    ],
)
def test_an_unnamed_variant_is_named_after_its_file(client, filename, name):
    toml = 'extends = "yacht"\n\n[[categories]]\nid = "full_house"\nscore = 30\n'
    r = client.post("/api/rules", json={"toml": toml, "filename": filename})
    assert r.status_code == 201, r.text
    info = r.json()
    assert (info["name"], info["title"]) == (name, f"{name} (based on yacht)")
    assert info["file"] == filename
    listed = {x["id"]: x for x in client.get("/api/rules").json()["rules"]}
    assert listed[info["id"]]["name"] == name
    titled = client.post(
        "/api/rules", json={"toml": 'title = "Mine"\n' + toml, "filename": filename}
    )
    assert (titled.json()["name"], titled.json()["title"]) == (name, "Mine")


@pytest.mark.parametrize(
    ("toml", "words"),
    [
        ('extends = "/etc/passwd"', "not a built-in rule set"),
        ('extends = "../rules/yahtzee.toml"', "not a built-in rule set"),
        ("extends = 3", "not a built-in rule set"),
        ("name = [", "not valid TOML"),
        ('extends = "yahtzee"\ncolour = "red"', "colour: unknown field"),
        ('extends = "yahtzee"\ndice = 0', "dice"),
        ("", "required"),
    ],
)
def test_bad_uploads(client, toml, words):
    assert words in error(client.post("/api/rules", json={"toml": toml}), 400)


def test_upload_too_large_to_solve(client):
    faces = [f'[[categories]]\nid = "f{i}"\nkind = "face"\nface = {i}\n' for i in range(1, 7)]
    chances = [f'[[categories]]\nid = "c{i}"\nkind = "chance"\n' for i in range(12)]
    head = 'name = "big"\ndice = 5\nfaces = 6\nrolls = 3\n'
    head += "upper_bonus = {threshold = 63, points = 35}"
    toml = "\n".join([head, *faces, *chances])
    assert "too large to solve" in error(client.post("/api/rules", json={"toml": toml}), 400)
    many_dice = 'name = "d"\ndice = 12\nfaces = 20\nrolls = 3\n' + chances[0]
    assert "too large to solve" in error(client.post("/api/rules", json={"toml": many_dice}), 400)


def test_upload_text_limit(client):
    error(client.post("/api/rules", json={"toml": "#" * 70_000}), 422)


# -- review ----------------------------------------------------------------------------
def played_record(turns=3):
    """A game of real dice: (first throw, keep, second throw, box) per turn."""
    table = expected_table("yahtzee")
    game = Game(table, dice="real")
    plan = [
        ([3, 3, 6, 5, 6], [6, 6], [1, 2, 6, 6, 6], "sixes"),
        ([1, 2, 6, 6, 6], [], [2, 2, 2, 6, 6], "chance"),
        ([2, 2, 2, 6, 6], [2, 2, 2], [2, 2, 2, 1, 5], "three_of_a_kind"),
    ]
    for first, keep, second, box in plan[:turns]:
        game.roll(first)
        game.keep(keep)
        game.roll(second)
        game.fill(box)
    return table, game.record


def test_review_matches_the_library(client):
    table, record = played_record()
    r = client.post("/api/review", json={"rules": "yahtzee", "record": record})
    assert r.status_code == 200, r.text
    data = r.json()
    lib = review(table, record).to_dict()
    assert data["total_cost"] == pytest.approx(lib["total_cost"])
    assert [d["chosen"] for d in data["decisions"]] == [d["chosen"] for d in lib["decisions"]]
    assert data["mistakes"] == lib["mistakes"] >= 1
    assert not data["finished"]
    without_rules = client.post("/api/review", json={"record": record}).json()
    assert without_rules["total_cost"] == pytest.approx(data["total_cost"])


def test_review_groups_the_decisions_by_kind(client):
    table = expected_table("yahtzee")
    game = Game(table, dice="real")
    game.roll([2, 2, 2, 6, 6])
    game.keep([2, 2, 2])  # a keep
    game.roll([1, 3])
    game.fill("twos")  # a stop (a keep of every die), then an upper box
    game.roll([1, 2, 3, 4, 6])
    game.keep([1, 2, 3, 4, 6])  # a stop again
    game.fill("chance")  # a lower box
    got = client.post("/api/review", json={"rules": "yahtzee", "record": game.record}).json()
    kinds = [d["kind"] for d in got["decisions"]]
    assert kinds == ["keep", "keep", "upper box", "keep", "lower box"]
    lib = review(table, game.record)
    groups = {g["kind"]: g for g in got["by_kind"]}
    assert groups["keep"]["decisions"] == 3 and groups["upper box"]["decisions"] == 1
    for kind, g in groups.items():
        ds = [d for d in lib.decisions if d.kind == kind]
        assert g["cost"] == pytest.approx(sum(d.cost for d in ds))
        assert g["mistakes"] == sum(d.cost > 1e-9 for d in ds)
    assert got["average_cost"] == pytest.approx(lib.total_cost / 5)


def test_review_box_filled_twice(client):
    _, record = played_record(2)
    record["turns"][1]["box"] = record["turns"][0]["box"]
    record["turns"][1].pop("points")
    detail = error(client.post("/api/review", json={"record": record}), 400)
    assert "sixes" in detail and "already filled" in detail


def test_review_other_rules(client):
    _, record = played_record(1)
    detail = error(client.post("/api/review", json={"rules": "yatzy", "record": record}), 400)
    assert "other rules" in detail


# -- documentation and page ------------------------------------------------------------
def test_openapi_documents_the_api(client):
    spec = client.get("/openapi.json").json()
    for path in ("/api/rules", "/api/rules/{rules_id}", "/api/rules/{rules_id}/expected",
                 "/api/advice", "/api/review"):  # fmt: skip
        assert path in spec["paths"]
    post = spec["paths"]["/api/advice"]["post"]
    assert post["summary"] and post["description"]
    assert "400" in post["responses"] and "422" in post["responses"]
    fields = spec["components"]["schemas"]["AdviceRequest"]["properties"]
    assert fields["rerolls_left"]["description"]
    assert client.get("/docs").status_code == 200


def test_page_and_static_files(client):
    page = client.get("/")
    assert page.status_code == 200 and 'id="roll-counter"' in page.text
    for name in ("js/main.js", "js/state.js", "js/playfor.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    error(client.get("/static/nothing.js"), 404)
    error(client.get("/api/nothing"), 404)
    error(client.delete("/api/rules"), 405)


# -- the command ------------------------------------------------------------------------
def test_serve_command_starts_and_answers():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "dicelab.cli", "serve", "--port", str(port),
           "--log-level", "warning"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", "/api/health")
                assert json.loads(conn.getresponse().read()) == {"status": "ok"}
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.slow
def test_serve_command_bad_options():
    for args in (
        ["--port", "70000"],
        ["--log-level", "loud"],
        ["--max-memory", "lots"],
        ["--max-memory", "10K"],
        ["--max-solve-seconds", "0"],
        ["--cache-limit", "lots"],
    ):
        out = subprocess.run(
            [sys.executable, "-m", "dicelab.cli", "serve", *args], capture_output=True, text=True
        )
        assert out.returncode == 2 and "Traceback" not in out.stderr


# -- the table store -------------------------------------------------------------------
def test_store_solves_each_rule_set_once(monkeypatch):
    calls = []
    real = expected_module.expected_table

    def counting(rules, **kwargs):
        calls.append(rules.rules.name)  # the compiled game
        return real(rules, **kwargs)

    monkeypatch.setattr(expected_module, "expected_table", counting)
    store = Store(processes=False)
    rules = store.get("yazy").rules
    threads = [threading.Thread(target=store.table, args=(rules,)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == ["yazy"]


def test_a_solve_in_progress_holds_up_no_other_endpoint(monkeypatch):
    # a solve is held half done while more advice requests wait on it than the server
    # has request threads; health, the rules list and the progress answer within a
    # second, and every waiting request gets its advice once the solve ends
    started, release = threading.Event(), threading.Event()
    real = expected_module.expected_table

    def held(rules, **kwargs):
        kwargs["progress"](5, 10)
        started.set()
        release.wait(60)
        return real(rules, **kwargs)

    monkeypatch.setattr(expected_module, "expected_table", held)
    body = {"rules": "yacht", "dice": [3, 3, 6, 5, 6], "rerolls_left": 2}
    codes = []
    with TestClient(create_app(Store(processes=False)), base_url=LOCAL) as client:
        assert client.get("/api/rules/yacht/progress").json()["state"] in ("idle", "cached")
        waiting = [
            threading.Thread(target=lambda: codes.append(client.post("/api/advice", json=body)
                                                         .status_code))
            for _ in range(60)
        ]  # fmt: skip
        for t in waiting:
            t.start()
        assert started.wait(30)
        time.sleep(0.5)  # every request has reached the wait
        t0 = time.monotonic()
        assert client.get("/api/health").json() == {"status": "ok"}
        assert len(client.get("/api/rules").json()["rules"]) >= 8
        progress = client.get("/api/rules/yacht/progress").json()
        assert time.monotonic() - t0 < 1.0
        assert progress["state"] == "solving" and (progress["done"], progress["total"]) == (5, 10)
        assert progress["estimate_seconds"] >= 0
        release.set()
        for t in waiting:
            t.join(60)
        assert codes == [200] * 60
        assert client.get("/api/rules/yacht/progress").json()["state"] == "ready"


# -- garbage ---------------------------------------------------------------------------
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=12), inner,
                                                                 max_size=6),
    max_leaves=25,
)  # fmt: skip
DIE = st.integers(-2, 8)
ADVICE = st.fixed_dictionaries(
    {},
    optional={
        "rules": st.sampled_from(["yahtzee", "yazy", "nope", ""]) | JSON,
        "dice": st.lists(DIE, max_size=8) | JSON,
        "rerolls_left": st.integers(-1, 4) | JSON,
        "filled": st.dictionaries(
            st.sampled_from(["ones", "sixes", "yahtzee", "chance", "full_house", "x"]),
            st.none() | st.integers(-1, 60), max_size=6,
        ) | JSON,
        "upper_total": st.none() | st.integers(-5, 200) | JSON,
        "extra_bonuses": st.integers(-1, 5) | JSON,
    },
)  # fmt: skip
TURN = st.fixed_dictionaries(
    {"throws": st.lists(st.lists(DIE, min_size=4, max_size=6), max_size=4) | JSON},
    optional={
        "keeps": st.lists(st.lists(DIE, max_size=6), max_size=3) | JSON,
        "box": st.sampled_from(["ones", "chance", "yahtzee", "13", "Full house", "x"]) | JSON,
        "points": JSON,
        "extra_bonus": JSON,
    },
)
RECORD = st.fixed_dictionaries(
    {
        "format": st.just("dicelab-game"),
        "version": st.just(1),
        "fingerprint": st.just(load_rules("yahtzee").fingerprint()),
        "dice": st.sampled_from(["real", "virtual"]),
        "turns": st.lists(TURN, max_size=4),
    },
    optional={"rules": st.just("yahtzee") | JSON, "seed": JSON, "final_score": JSON},
)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


def no_crash(response):
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert isinstance(response.json()["detail"], str)


@FUZZ
@given(body=ADVICE | JSON)
def test_fuzz_advice(client, body):
    no_crash(client.post("/api/advice", json=body))


@FUZZ
@given(record=RECORD | JSON, rules=st.none() | st.sampled_from(["yahtzee", "zz"]))
def test_fuzz_review(client, record, rules):
    body = {"record": record} if rules is None else {"record": record, "rules": rules}
    no_crash(client.post("/api/review", json=body))


@FUZZ
@given(toml=st.text(max_size=200) | st.sampled_from([UPLOAD, UPLOAD.replace("60", "x")]))
def test_fuzz_upload(client, toml):
    no_crash(client.post("/api/rules", json={"toml": toml}))


@FUZZ
@given(raw=st.binary(max_size=200), path=st.sampled_from(["/api/advice", "/api/review"]))
def test_fuzz_raw_bytes(client, raw, path):
    no_crash(client.post(path, content=raw, headers={"content-type": "application/json"}))


@FUZZ
@given(name=st.text(min_size=1, max_size=40))
def test_fuzz_rules_names(client, name):
    no_crash(client.get("/api/rules/" + quote(name, safe="")))


def test_uploads_write_no_tables_to_the_disk(client):
    from dicelab.engine.runtime import cache as tables

    toml = 'extends = "yazy"\nname = "yazy-2"\nrolls = 2\n'
    before = {t.path for t in tables.list_tables()}
    info = client.post("/api/rules", json={"toml": toml}).json()
    assert client.get(f"/api/rules/{info['id']}/expected").status_code == 200
    assert {t.path for t in tables.list_tables()} == before
    client.get("/api/rules/yazy/expected")  # a built-in one is kept on disk
    assert any(t.rules == "yazy" for t in tables.list_tables())


def test_time_left_counts_the_solve_now_ticking(monkeypatch):
    # the rate is taken from the first tick of each table's solve: the seconds spent
    # compiling or on an earlier table do not inflate it, and a new total starts over
    now = [100.0]
    monkeypatch.setattr(store_module.time, "monotonic", lambda: now[0])
    job = store_module.Solve(started=0.0)
    job.tick(0, 1000)
    assert job.left_seconds() is None  # no rate yet
    now[0] = 110.0
    job.tick(100, 1000)
    assert job.left_seconds() == pytest.approx(90.0)
    now[0] = 120.0
    job.tick(200, 1000)
    assert job.left_seconds() == pytest.approx(80.0)
    job.tick(10, 50)  # the next table's solve
    now[0] = 121.0
    job.tick(30, 50)
    assert job.left_seconds() == pytest.approx(1.0)


def _estimated(client, url):
    """The progress at ``url`` once its estimate is worked out: the first answer
    comes at once, without it, while the layouts are measured apart."""
    deadline = time.monotonic() + 30
    while True:
        t0 = time.monotonic()
        found = client.get(url).json()
        assert time.monotonic() - t0 < 1.0
        if "estimate_seconds" in found:
            return found
        assert time.monotonic() < deadline
        time.sleep(0.05)


@pytest.mark.slow
def test_progress_of_one_target(tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    with TestClient(create_app(Store()), base_url=LOCAL) as client:
        url = "/api/rules/yacht/progress?objective=target"
        every = _estimated(client, url)
        one = _estimated(client, url + "&target=200")
        assert every["state"] == one["state"] == "idle"
        assert 0 < one["estimate_seconds"] < every["estimate_seconds"]
        body = {"rules": "yacht", "dice": [3, 3, 6, 5, 6], "rerolls_left": 2,
                "objective": "target", "target": 200}  # fmt: skip
        assert client.post("/api/advice", json=body).status_code == 200
        assert client.get(url + "&target=200").json()["state"] == "ready"
        assert client.get(url + "&target=201").json()["state"] == "idle"
        assert client.get(url).json()["state"] == "idle"
        assert "target" in error(client.get(url + "&target=-3"), 422)


def test_a_distribution_no_one_awaits_is_dropped_before_it_starts():
    # the forward pass is held busy; two callers wait on one queued distribution:
    # the first leaving keeps it, the second leaving drops it, a kept one still comes
    store = Store()
    rules = load_rules("yazy")
    busy = threading.Event()
    store._forward.submit(busy.wait, 30)
    start, other = (0, 0, 0, 0), (1, 0, 0, 1)
    first = store.distribution_future(rules, start)
    assert store.distribution_future(rules, start) is first
    kept = store.distribution_future(rules, other)
    store.release(rules, start, gone=True)
    assert not first.cancelled()
    store.release(rules, start, gone=True)
    assert first.cancelled()
    assert store.distribution_future(rules, start) is not first  # asked again: queued anew
    busy.set()
    assert kept.result(60).mean > 0
    store.release(rules, other)  # a caller that got its answer leaves nothing behind
    assert store._waiting == {(rules.fingerprint(), *start): 1}


def test_a_distribution_under_way_that_no_one_awaits_stops_at_its_next_layer(monkeypatch):
    # a chart the page left behind must not hold up the next one: the forward pass
    # checks between its layers whether anyone still awaits it
    from dicelab.engine.objectives import distribution
    from dicelab.web.worker import Cancelled

    gate = threading.Event()

    def layers(game, table, start, progress):
        for k in range(50):
            gate.wait()
            progress(k + 1, 50)
            time.sleep(0.01)
        return "done"

    monkeypatch.setattr(distribution, "score_distribution", layers)
    store = Store()
    rules = load_rules("yazy")
    start, other = (0, 0, 0, 0), (1, 0, 0, 1)
    left = store.distribution_future(rules, start)
    while not left.running():
        time.sleep(0.01)
    store.release(rules, start, gone=True)  # its only caller leaves while it runs
    gate.set()
    assert isinstance(left.exception(30), Cancelled)
    again = store.distribution_future(rules, start)
    assert again is not left  # asked again later: worked out anew
    assert again.result(30) == "done"
    store.release(rules, start)
    gate.clear()
    kept = store.distribution_future(rules, other)
    while not kept.running():
        time.sleep(0.01)
    store.release(rules, other, gone=True)
    assert store.distribution_future(rules, other) is kept  # awaited again before its next layer
    gate.set()
    assert kept.result(30) == "done"


# -- the Host header: a page elsewhere reaching this server by DNS rebinding ---------------
@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8000", "localhost.evil.example", "127.0.0.1.nip.io"]
)
def test_foreign_host_is_refused(client, host):
    for method, path in [("GET", "/api/rules"), ("POST", "/api/rules"), ("GET", "/")]:
        r = client.request(method, path, headers={"Host": host}, json={"toml": "x"})
        assert r.status_code == 400, (method, path, r.text)
        detail = r.json()["detail"]
        assert host.split(":")[0] in detail and "--allow-host" in detail


@pytest.mark.parametrize(
    "host",
    ["localhost", "LOCALHOST:8000", "localhost.", "127.0.0.1:8000", "[::1]:8000", "10.0.0.7"],
)
def test_local_hosts_and_addresses_are_served(client, host):
    r = client.get("/api/health", headers={"Host": host})
    assert r.status_code == 200, r.text


def test_allowed_host_names_are_served():
    from fastapi.testclient import TestClient

    with TestClient(create_app(hosts=["dice.lan"]), base_url="http://dice.lan:8000") as c:
        assert c.get("/api/health").status_code == 200
        assert c.get("/api/health", headers={"Host": "other.lan"}).status_code == 400


def test_host_name_parsing():
    from dicelab.web.guards import host_name

    assert host_name("Example.COM:80") == "example.com"
    assert host_name("[::1]:8000") == "::1"
    assert host_name("[::1]") == "::1"
    assert host_name("localhost.") == "localhost"
    assert host_name("::1") == "::1"  # a bare IPv6 address: no port to take off


# -- nested input and methods ------------------------------------------------------------
def test_nested_input_is_a_400(client):
    r = client.post("/api/rules", json={"toml": "a = " + "[" * 500 + "]" * 500})
    assert "nested too deeply" in error(r, 400)
    deep = '{"rules": "yahtzee", "dice": ' + "[" * 100_000 + "]" * 100_000 + "}"
    for path in ["/api/advice", "/api/review", "/api/duel/review", "/api/rules", "/api/outlook"]:
        r = client.post(path, content=deep, headers={"content-type": "application/json"})
        assert "could not be read as JSON" in error(r, 400), path


@pytest.mark.parametrize(
    "method, path, allow",
    [
        ("OPTIONS", "/api/rules", "GET, POST"),
        ("DELETE", "/api/rules", "GET, POST"),
        ("GET", "/api/advice", "POST"),
        ("POST", "/api/rules/yahtzee/progress", "GET"),
    ],
)
def test_a_wrong_method_lists_every_method_of_the_path(client, method, path, allow):
    r = client.request(method, path)
    assert r.status_code == 405
    assert r.headers["allow"] == allow


# -- a damaged memory-mapped table met by the server ---------------------------------------
def _damage_every_block(path):
    from dicelab.engine.runtime import cache

    header = cache.read_header(path)
    raw = bytearray(path.read_bytes())
    raw[header["_offset"] :] = bytes(len(raw) - header["_offset"])  # the array zeroed
    path.write_bytes(bytes(raw))


def test_a_damaged_mapped_table_is_solved_anew_by_the_server(tmp_path, monkeypatch):
    from fastapi.testclient import TestClient

    from dicelab.engine.objectives.utility import reach_table
    from dicelab.engine.runtime import cache

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    reach_table("yazy", 150)  # solved and cached, as `dicelab solve yazy --target 150` does
    [path] = [p for p in tmp_path.iterdir() if ".target." in p.name]
    body = {"rules": "yazy", "dice": [1, 2, 3, 4, 5], "rerolls_left": 2}
    body.update(objective="target", target=150)
    with TestClient(create_app(Store()), base_url=LOCAL) as c:
        before = c.post("/api/advice", json=body).json()
    _damage_every_block(path)
    damaged = path.stat().st_mtime_ns
    for _ in range(2):  # a server started anew over the damaged file
        with TestClient(create_app(Store()), base_url=LOCAL) as c:
            r = c.post("/api/advice", json=body)
            assert r.status_code == 200, r.text
            assert r.json()["options"] == before["options"]
            assert str(tmp_path) not in r.text
            look = {k: body[k] for k in ("rules", "objective", "target")}
            assert c.post("/api/outlook", json=look).status_code == 200
        assert path.stat().st_mtime_ns != damaged  # dropped and solved anew at once
    assert cache.load_table(path, {"objective": "target"}) is not None  # whole again


# -- stopping during a solve ----------------------------------------------------------------
def _http(port, method, path, body=None, timeout=5):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"content-type": "application/json"}
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    r = conn.getresponse()
    return r.status, json.loads(r.read())


@pytest.mark.slow
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_a_stop_during_a_solve_takes_seconds(tmp_path, sig):
    import signal

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(__import__("os").environ, DICELAB_CACHE_DIR=str(tmp_path))
    cmd = [sys.executable, "-m", "dicelab.cli", "serve", "--port", str(port),
           "--log-level", "critical"]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    answers = []
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _http(port, "GET", "/api/health")
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        body = {"rules": "maxi-yatzy", "dice": [1, 2, 3, 4, 5, 6], "rerolls_left": 2}
        waiting = threading.Thread(
            target=lambda: answers.append(_http(port, "POST", "/api/advice", body, timeout=120))
        )
        waiting.start()
        while _http(port, "GET", "/api/rules/maxi-yatzy/progress")[1]["state"] != "solving":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        time.sleep(1)  # well inside the solve (about a minute), or its compile
        start = time.monotonic()
        proc.send_signal(getattr(signal, sig))
        proc.wait(timeout=30)
        assert time.monotonic() - start <= 5
        waiting.join(timeout=10)
    finally:
        proc.kill()
        proc.wait()
    status, answer = answers[0]
    assert status == 503 and "stopping" in answer["detail"]
    assert [p.name for p in tmp_path.iterdir()] == []  # nothing half-written


# -- solves in worker processes -------------------------------------------------------------
def _until(check, seconds=60):
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.05)


def _timed(call):
    t0 = time.monotonic()
    out = call()
    return out, time.monotonic() - t0


@contextmanager
def closing(store):
    """Close the store on the way out, also after a failure: the requests waiting on
    its solves end then, and so does the test client."""
    try:
        yield store
    finally:
        store.close()


def _workers() -> list[str]:
    """The worker processes of this test run's servers (children of this process)."""
    pid = str(__import__("os").getpid())
    out = subprocess.run(
        ["pgrep", "-P", pid, "-f", "dicelab.web.worker"], capture_output=True, text=True
    )
    return out.stdout.split()


def test_a_solve_in_a_worker_holds_up_nothing_that_needs_no_solve(tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    Store(processes=False).table(load_rules("yazy"), "spread")  # both yazy tables on disk
    store = Store()
    answers = []

    def ask(body):
        thread = threading.Thread(
            target=lambda: answers.append(client.post("/api/advice", json=body))
        )
        thread.start()
        return thread

    with TestClient(create_app(store), base_url=LOCAL) as client, closing(store):
        waiting = ask({"rules": "maxi-yatzy", "dice": [1, 2, 3, 4, 5, 6], "rerolls_left": 2})
        progress = "/api/rules/maxi-yatzy/progress"
        _until(lambda: client.get(progress).json()["state"] == "solving")
        _until(lambda: bool(_workers()))  # the solve runs in a process of its own
        body = {"rules": "yazy", "dice": [1, 2, 3, 4, 5], "rerolls_left": 2}
        r, seconds = _timed(lambda: client.post("/api/advice", json=body))
        assert r.status_code == 200 and seconds < 1.0
        duel = {**body, "rules": "yahtzee", "mine": {}, "theirs": {}}
        r, seconds = _timed(lambda: client.post("/api/duel/advice", json=duel))
        assert "two-player game" in error(r, 400) and seconds < 1.0  # refused, not queued
        target = {"rules": "yahtzee", "dice": [1, 2, 3, 4, 5], "rerolls_left": 2}
        behind = ask({**target, "objective": "target", "target": 250})
        queued = "/api/rules/yahtzee/progress?objective=target&target=250"
        _until(lambda: client.get(queued).json()["state"] == "queued")
        assert client.get(queued).json()["position"] == 1
        for path in ("/api/health", "/api/rules", progress, queued):
            r, seconds = _timed(lambda path=path: client.get(path))
            assert r.status_code == 200 and seconds < 1.0
        store.close()  # as a stop does: the worker is killed, nothing is left behind
        waiting.join(30)
        behind.join(30)
    _until(lambda: not _workers(), 10)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-")] == []


@pytest.mark.slow
def test_a_worker_killed_midway_costs_one_answer(tmp_path, monkeypatch):
    import signal

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    store = Store()
    body = {"rules": "yacht", "dice": [1, 2, 3, 4, 5], "rerolls_left": 2}
    body.update(objective="target", target=150)  # some seconds: solved in a worker
    with TestClient(create_app(store), base_url=LOCAL) as client:
        answers = []
        waiting = threading.Thread(
            target=lambda: answers.append(client.post("/api/advice", json=body))
        )
        waiting.start()
        _until(lambda: _workers())
        for pid in _workers():
            __import__("os").kill(int(pid), signal.SIGKILL)
        waiting.join(60)
        assert "the solve was killed" in error(answers[0], 400)
        assert client.post("/api/advice", json=body).status_code == 200  # solved anew


def test_a_solve_past_the_time_limit_is_stopped(tmp_path, monkeypatch):
    from dicelab.web.worker import Limits

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    store = Store(limits=Limits(seconds=1))
    body = {"rules": "maxi-yatzy", "dice": [1, 2, 3, 4, 5, 6], "rerolls_left": 2}
    with TestClient(create_app(store), base_url=LOCAL) as client:
        r, seconds = _timed(lambda: client.post("/api/advice", json=body))
        assert "limit of 1 s" in error(r, 400) and seconds < 10
    assert not _workers() and list(tmp_path.iterdir()) == []


def test_a_table_past_the_memory_budget_is_refused_before_it_starts(tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("DICELAB_MAX_MEMORY", str(100 * 2**20))
    body = {"rules": "yahtzee", "dice": [1, 2, 3, 4, 5], "rerolls_left": 2}
    body.update(objective="target", target=250)
    with TestClient(create_app(Store()), base_url=LOCAL) as client:
        r, seconds = _timed(lambda: client.post("/api/advice", json=body))
        assert "more than the 100.0 MiB allowed here" in error(r, 400) and seconds < 2
    assert not _workers()


def test_sizes_of_max_memory():
    from dicelab.cli.commands.serve import parse_bytes

    assert parse_bytes("4G") == 4 * 2**30
    assert parse_bytes("500M") == 500 * 2**20
    assert parse_bytes("1.5GiB") == int(1.5 * 2**30)
    assert parse_bytes(str(2**27)) == 2**27


def test_a_queued_solve_no_one_awaits_is_dropped_before_it_starts(tmp_path, monkeypatch):
    # the solver is held busy; two callers wait on one queued solve: the first
    # leaving keeps it, the second leaving drops it, and asking again queues it anew
    from dicelab.web.worker import Cancelled

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    store = Store(processes=False)
    busy = threading.Event()
    store._solver.submit(busy.wait, 60)
    rules = load_rules("yahtzee")
    first = store.table_future(rules, "target:250", wait=True)
    assert store.table_future(rules, "target:250", wait=True) is first
    _until(lambda: store.progress(rules, "target:250")["state"] == "queued")
    store.release_table(rules, "target:250", gone=True)
    assert store.progress(rules, "target:250")["state"] == "queued"
    store.release_table(rules, "target:250", gone=True)
    with pytest.raises(Cancelled, match="no one waits"):
        first.result(5)
    assert store.progress(rules, "target:250")["state"] == "idle"
    again = store.table_future(rules, "target:250", wait=True)
    assert again is not first
    _until(lambda: store.progress(rules, "target:250")["state"] == "queued")
    store.close()
    busy.set()


# -- the coach: training and the history ------------------------------------------------
def test_training_questions_grading_and_finish(client):
    out = client.post("/api/training", json={"rules": "yazy", "questions": 4, "seed": 9})
    assert out.status_code == 200, out.text
    data = out.json()
    m.TrainingOut.model_validate(data)
    assert len(data["questions"]) == 4 and data["seed"] == 9
    table = expected_table("yazy")
    answers = []
    for q in data["questions"]:
        answer = q["options"][0]
        body = {k: q[k] for k in ("dice", "rerolls_left", "filled", "extra_bonuses")}
        graded = client.post("/api/training/answer", json={"rules": "yazy", **body,
                                                           "answer": answer}).json()  # fmt: skip
        lib = advise(table, Position(tuple(q["dice"]), q["rerolls_left"], q["filled"]))
        mine = next(o for o in lib.options if o.label == answer)
        assert graded["cost"] == pytest.approx(mine.cost) and graded["best"] == lib.best.label
        assert bool(graded["why"]) == (mine.cost > 1e-9)
        answers.append({**body, "answer": answer})
    done = client.post("/api/training/finish", json={"rules": "yazy", "seed": 9,
                                                     "answers": answers}).json()  # fmt: skip
    assert done["questions"] == 4 and done["kept"]
    again = client.post("/api/training/finish", json={"rules": "yazy", "seed": 9,
                                                      "answers": answers}).json()  # fmt: skip
    assert not again["kept"]  # the same session is kept once
    listed = client.get("/api/history", params={"rules": "yazy"}).json()
    m.HistoryOut.model_validate(listed)
    assert listed["games"][-1]["kind"] == "training"
    daily = [client.post("/api/training", json={"rules": "yazy", "questions": 3,
                                                "date": "2026-11-26"}).json()
             for _ in range(2)]  # fmt: skip
    assert daily[0]["questions"] == daily[1]["questions"] and daily[0]["daily"] == "2026-11-26"


def test_a_finished_page_game_is_kept_once(client):
    from played import finished_game

    record = finished_game(12)
    first = client.post("/api/history", json={"record": record}).json()
    assert first["kept"] and first["id"] > 0
    assert not client.post("/api/history", json={"record": record}).json()["kept"]
    unfinished = dict(record, turns=record["turns"][:2], finished=False,
                      final_score=None)  # fmt: skip
    detail = error(client.post("/api/history", json={"record": unfinished}), 400)
    assert "not finished" in detail


@pytest.mark.parametrize(
    "path, body, words",
    [
        ("/api/training", {"rules": "yazy", "questions": 0}, "questions"),
        ("/api/training", {"rules": "yazy", "date": "26.11.2026"}, "date"),
        ("/api/training", {"rules": "yazy", "daily": True, "seed": 3}, "seed"),
        (
            "/api/training/answer",
            {"rules": "yazy", "dice": [1, 2, 3, 4, 5], "rerolls_left": 2, "answer": "keep 6 6"},
            "not among",
        ),  # fmt: skip
    ],
)
def test_bad_training_requests(client, path, body, words):
    out = client.post(path, json=body)
    assert out.status_code in (400, 422)
    assert words in out.json()["detail"]


def test_a_review_is_priced_in_the_chance_played_for(client):
    from dicelab.engine.objectives.utility import reach_table
    from dicelab.play.game import Game, review_chance

    table = expected_table("yazy")
    game = Game(table, seed=3)
    for _ in range(3):  # three turns, keeping nothing
        game.roll()
        while game.phase == "keep":
            game.keep([])
            game.roll()
        game.fill(game.advice().best.box)
    body = {"rules": "yazy", "record": game.record, "objective": "target", "target": 170}
    data = client.post("/api/review", json=body).json()
    m.ReviewOut.model_validate(data)
    lib = review_chance(table, reach_table("yazy", 170), game.record, {"target": 170})
    assert data["measure"] == "chance"
    assert data["total_cost"] == pytest.approx(lib.total_cost, abs=1e-6)
    assert data["expected_score"] == pytest.approx(lib.expected_score, abs=1e-6)
    plain = client.post("/api/review", json={"rules": "yazy", "record": game.record}).json()
    assert plain["measure"] == "points" and plain["total_cost"] > 1
    assert all(d.get("why") is None for d in plain["decisions"])
    why = client.post("/api/review", json={"rules": "yazy", "record": game.record,
                                           "explain": True}).json()  # fmt: skip
    costly = [d for d in why["decisions"] if d["cost"] > 1e-9]
    assert costly and all(d["why"].startswith("Rerolling every die instead of") for d in costly)


def test_a_review_played_for_a_risk_attitude_is_priced_in_sure_points(client):
    from dicelab.engine.objectives.risk import risk_table
    from dicelab.play.game import Game, review_chance

    table = expected_table("yazy")
    game = Game(table, seed=5)
    for _ in range(2):  # two turns, keeping nothing
        game.roll()
        while game.phase == "keep":
            game.keep([])
            game.roll()
        game.fill(game.advice().best.box)
    body = {"rules": "yazy", "record": game.record, "objective": "risk", "theta": 0.05}
    data = client.post("/api/review", json=body).json()
    m.ReviewOut.model_validate(data)
    risk = risk_table("yazy", 0.05)
    lib = review_chance(table, risk, game.record, {}, "points")
    assert data["measure"] == "points"
    assert data["expected_score"] == pytest.approx(risk.value(), abs=1e-6)  # a sure score
    assert data["total_cost"] == pytest.approx(lib.total_cost, abs=1e-6) and lib.total_cost > 1


def test_advice_for_a_risk_attitude_in_sure_points_with_why(client):
    body = {"rules": "yazy", "dice": [6, 6, 6, 2, 1], "rerolls_left": 2, "objective": "risk",
            "theta": 0.05, "explain": True}  # fmt: skip
    data = client.post("/api/advice", json=body).json()
    m.AdviceOut.model_validate(data)
    assert data["objective"] == "risk" and data["theta"] == 0.05
    best = data["options"][0]
    assert best["label"] == "keep 6 6 6" and best["expected_final_score"] is None
    assert best["explain"]["text"].startswith("Keeping 6 6 6 is best: worth a sure")
    assert "theta" in error(client.post("/api/advice", json={**body, "theta": 1.0}), 422)
    assert "objective risk: give the risk attitude" in error(client.post("/api/advice", json={
        k: v for k, v in body.items() if k != "theta"}), 400)  # fmt: skip


def test_progress_says_when_a_table_would_be_refused_here(client):
    url = "/api/rules/{}/progress?objective=duel"
    deadline = time.monotonic() + 30
    while True:
        big = client.get(url.format("yahtzee")).json()
        if "estimate_seconds" in big or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert big["refused"].startswith("yahtzee's two-player game has")
    assert "--allow-large" not in big["refused"]
    small = _estimated(client, url.format("yazy"))
    assert "refused" not in small


def test_work_dropped_on_purpose_leaves_no_traceback_in_the_log(caplog):
    import asyncio
    import gc
    from concurrent.futures import Future

    from dicelab.web.routes import awaitable
    from dicelab.web.worker import Cancelled

    async def dropped(wrap):
        work = Future()
        waiting = wrap(work)  # the client leaves: no one awaits it any more
        work.set_exception(Cancelled("no one awaits this distribution any more"))
        await asyncio.sleep(0.05)
        del waiting

    asyncio.run(dropped(asyncio.wrap_future))  # a plain wrap: the log has a traceback
    gc.collect()
    assert "exception was never retrieved" in caplog.text
    caplog.clear()
    asyncio.run(dropped(awaitable))
    gc.collect()
    assert "never retrieved" not in caplog.text


def test_a_solve_no_one_waits_for_any_more_is_stopped(tmp_path, monkeypatch):
    # a table of every target for yacht takes seconds in a worker; its one client leaves
    from concurrent.futures import CancelledError

    from dicelab.web.worker import Cancelled

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    store = Store()
    try:
        rules = store.get("yacht").rules
        key = (rules.fingerprint(), "target")
        future = store.table_future(rules, "target", wait=True)
        deadline = time.monotonic() + 60
        while True:
            job = store._solving.get(key)
            if job is not None and job.state == "solving" and job.child is not None:
                break
            assert time.monotonic() < deadline, store.progress(rules, "target")
            time.sleep(0.05)
        child = job.child
        store.release_table(rules, "target", gone=True)
        with pytest.raises((Cancelled, CancelledError)):
            future.result(timeout=10)
        child.proc.wait(timeout=10)  # the worker is gone, no file of it left
        assert store.progress(rules, "target")["state"] == "idle"
        assert not list(tmp_path.glob("*.dlt"))
    finally:
        store.close()


def test_a_queued_table_says_what_it_waits_behind():
    from dicelab.web.store import Solve

    store = Store(processes=False)
    try:
        rules = store.get("yacht").rules
        running = Solve(time.monotonic() - 10, state="solving", label="yahtzee, target:250")
        running.tick(0, 1000)
        running.since -= 10  # half done in ten seconds: ten seconds left
        running.tick(500, 1000)
        queued = Solve(time.monotonic(), state="queued", label="yacht, win")
        store._solving[("other", "target:250")] = running
        store._solving[(rules.fingerprint(), "win")] = queued
        p = store.progress(rules, "win")
        assert p["state"] == "queued" and p["position"] == 1
        assert p["behind"] == "yahtzee, target:250"
        assert p["behind_left_seconds"] == pytest.approx(10.0, abs=0.5)
    finally:
        store._solving.clear()
        store.close()


def test_a_bad_scorecard_is_refused_before_any_table_is_solved():
    from dicelab.web.store import Store

    store = Store()
    with TestClient(create_app(store), base_url=LOCAL) as c:
        body = {"rules": "yahtzee", "filled": {}, "extra_bonuses": 215, "objective": "win"}
        answer = c.post("/api/outlook", json=body)
        assert answer.status_code == 400 and "extra bonuses" in answer.json()["detail"]
        rules = store.get("yahtzee").rules
        assert store.loaded(rules, "win") is None  # no win table was solved for it
        schema = c.get("/openapi.json").json()
    assert "413" in schema["paths"]["/api/outlook"]["post"]["responses"]


def test_a_worker_reports_done_only_once_its_table_is_on_disk(tmp_path, monkeypatch):
    # the points to come are stored in a thread of their own (the first advice need
    # not wait for the disk): the child finishes the file before it says done and
    # exits, and the server then loads it
    import numpy as np

    from dicelab.engine.objectives.remaining import remaining_table

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(store_module, "QUICK_SECONDS", 0.0)  # in a worker, however small
    store = Store()
    with closing(store):
        table = store.table(load_rules("yazy"), "match")
    assert table.cached  # loaded from the file the child wrote before it said done
    fresh = remaining_table("yazy", use_cache=False)
    assert np.array_equal(np.asarray(table.values), np.asarray(fresh.values))
