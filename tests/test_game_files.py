"""House rules as data: every shipped preset is a game file that gives its
published figure, and a game file's mistake is one line naming its line."""

from __future__ import annotations

from fractions import Fraction

import pytest
from oracles import chance as oracle

from dicelab.errors import UserError
from dicelab.games.chance.families import FAMILIES, PRESETS, game_from, preset_names
from dicelab.games.chance.solution import solve

#: Each Shut the Box preset's published figure, from its source (not from dicelab).
PUBLISHED = {
    # B. Butler, "Shut the Box Analysis" (durangobill.com): 7.1432 %, 9.7614 %, 7.4194 %
    "butler-two-dice": 0.071432,
    "butler-one-die": 0.097614,
    "butler-two-tiles": 0.074194,
}


@pytest.mark.parametrize(("name", "published"), sorted(PUBLISHED.items()))
def test_butlers_rules_as_files_give_his_figures(name, published):
    assert round(solve(game_from(name)).value(), 6) == published


def test_the_worst_play_as_a_file_gives_unaryplus_fraction():
    # UnaryPlus, shut-the-box-strategy (README): 623306755/58773123072
    assert solve(game_from("worst-play")).exact() == Fraction(623306755, 58773123072)


@pytest.mark.parametrize("name", ["butler-two-dice", "butler-one-die", "butler-two-tiles",
                                  "worst-play"])  # fmt: skip
def test_each_shut_the_box_preset_is_the_plain_recursion(name):
    game = game_from(name)
    kw = {k: getattr(game, k) for k in ("tiles", "one_die", "dice", "score", "shut",
                                        "one_die_must", "worst")}  # fmt: skip
    assert solve(game).exact() == oracle.shut_the_box(**kw)


def test_every_preset_names_a_family_and_builds():
    assert len(preset_names()) >= 6
    for name in preset_names():
        text = (PRESETS / f"{name}.toml").read_text()
        assert "title =" in text
        game = game_from(name)
        assert type(game) in {f.game for f in FAMILIES.values()}


def test_a_setting_on_the_command_line_goes_over_the_files():
    assert game_from("butler-two-tiles", ["shut=any"]).shut == "any"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('game = "pig"\ngoal = 6.5\n', r"house\.toml line 2: pig goal: got 6\.5, expected a whole"),
        ('game = "pig"\n\ndouble = 3\n', r"house\.toml line 3: pig: no setting 'double'"),
        (
            'game = "shut-the-box"\nshut = "three"\n',
            r"house\.toml line 2: shut-the-box shut: got 'three', expected any, two, dice",
        ),
        (
            'game = "shut-the-box"\nworst = "maybe"\n',
            r"house\.toml line 2: shut-the-box worst: got 'maybe', expected true or false",
        ),
        ('game = "yahtzee"\n', r"house\.toml line 1: game: got 'yahtzee', expected one of pig"),
        ('title = 3\ngame = "pig"\n', r"house\.toml line 1: title: got 3, expected text"),
        ('game = "pig"\ngoal = 0\n', r"house\.toml line 2: pig goal: got 0, expected 1 to 1000"),
    ],
)
def test_a_mistake_in_a_game_file_names_its_line(tmp_path, monkeypatch, text, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "house.toml").write_text(text)
    with pytest.raises(UserError, match=message):
        game_from("house.toml")


def test_a_mistake_on_the_command_line_is_said_as_typed():
    with pytest.raises(UserError, match=r"^shut-the-box shut: got 'x', expected any, two"):
        game_from("shut-the-box", ["shut=x"])


def test_games_that_differ_only_in_their_scoring_are_kept_apart_in_the_cache():
    """A solved table is named by every rule of its game, the scoring table included:
    Farkle without three pairs and the straight is not read from the usual one's file."""
    from dicelab.games.chance.saved import game_key

    usual = game_key(game_from("farkle", ["players=2"]), "win", None)
    other = game_key(game_from("farkle", ["players=2", "three_pairs=0", "straight=0"]),
                     "win", None)  # fmt: skip
    assert usual["settings"]["scoring"][:4] == [1000, 750, 1500, "add"]
    assert usual != other


def test_the_page_is_given_each_familys_presets_with_their_settings_as_typed():
    from fastapi.testclient import TestClient

    from dicelab.web.app import create_app

    client = TestClient(create_app(), base_url="http://localhost")
    families = {f["name"]: f for f in client.get("/api/games").json()}
    presets = {p["name"]: p for p in families["shut-the-box"]["presets"]}
    two = presets["butler-two-tiles"]
    assert two["settings"] == {"tiles": "9", "shut": "two", "one_die": "when-sum-6",
                               "one_die_must": "true"}  # fmt: skip
    assert "7.4194" in two["published"]
    assert {p["name"] for p in families["farkle"]["presets"]} >= {"facebook-farkle"}
    # the page plays a preset as its family with those settings
    body = {"game": "shut-the-box", "settings": two["settings"]}
    now = client.post("/api/games/position", json=body).json()
    assert round(now["start_value"], 6) == 0.074194


def test_a_presets_name_mistyped_is_offered_on_the_command_line(monkeypatch, capsys):
    from command_line import run_in_process as dicelab

    for args in (["solve", "butler-two-tile"], ["rules", "show", "butler-one"]):
        assert dicelab(monkeypatch, *args) == 2, args
        assert "or the dice game 'butler-" in capsys.readouterr().err


def test_a_presets_report_names_it_and_its_published_figure(monkeypatch, capsys):
    import json

    from command_line import run_in_process as dicelab

    assert dicelab(monkeypatch, "solve", "butler-two-tiles") == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Shut the Box, at most two tiles a throw (Butler)" in out
    assert "0.074194" in out and "published: 7.4194 %" in out
    assert dicelab(monkeypatch, "solve", "butler-two-tiles", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["title"].startswith("Shut the Box") and "7.4194" in data["published"]
