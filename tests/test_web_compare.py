"""``POST /api/compare``: the page's comparison gives the command line's figures, and
refuses bad requests in one line (4xx, never a traceback)."""

import warnings

import pytest

import dicelab
from dicelab.play.simple import simple_strategy
from dicelab.web.app import create_app
from dicelab.web.store import Store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

RICH_HOUSE = (
    'name = "rich-house"\nextends = "yazy"\n\n[[categories]]\nid = "full_house"\nscore = 35\n'
)


@pytest.fixture(scope="module")
def client():
    app = create_app(Store(processes=False))
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        yield c


def test_compare_gives_the_command_lines_figures(client):
    upload = client.post("/api/rules", json={"toml": RICH_HOUSE}).json()["id"]
    answer = client.post("/api/compare", json={"rules": ["yazy", upload], "games": 20,
                                               "boxes": True})  # fmt: skip
    assert answer.status_code == 200, answer.text
    body = answer.json()
    yazy, rich = body["rule_sets"]
    assert (yazy["id"], rich["id"], rich["rules"]) == ("yazy", upload, "rich-house")
    for found, rules in (
        (yazy, dicelab.load_rules("yazy")),
        (rich, dicelab.load_rules(RICH_HOUSE)),
    ):
        dist = dicelab.solve(rules).distribution()
        assert found["expected_score"] == pytest.approx(dicelab.solve(rules).value(), abs=1e-9)
        assert found["sd"] == pytest.approx(dist.sd, rel=1e-12)
        assert found["skill_gap"] == pytest.approx(
            found["expected_score"] - simple_strategy(rules).expected, abs=1e-9
        )
        assert sum(found["box_points"].values()) == pytest.approx(found["expected_score"], abs=1e-6)
        assert len(found["pmf"]) == found["highest"] - found["lowest"] + 1
        assert sum(found["pmf"]) == pytest.approx(1, abs=1e-12)
        assert [b["id"] for b in found["boxes"]] == [c.id for c in rules.categories]
        assert found["duel"]["first_player_chance"] is None  # never solved by the page
    there, back = body["partings"]["pairs"]
    assert (there["played"], back["played"]) == ("yazy", "rich-house")
    assert there["games"] == 20 and len(there["largest"]) <= 8


def test_compare_tells_rule_sets_of_one_name_apart(client):
    house = RICH_HOUSE.replace('"rich-house"', '"yazy"')
    upload = client.post("/api/rules", json={"toml": house, "filename": "house.toml"}).json()
    assert upload["name"] == "yazy"
    answer = client.post("/api/compare", json={"rules": ["yazy", upload["id"]], "games": 20})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert [s["label"] for s in body["rule_sets"]] == ["yazy (built-in)", "yazy (house.toml)"]
    there, back = body["partings"]["pairs"]
    assert (there["played"], there["other"]) == ("yazy (built-in)", "yazy (house.toml)")
    assert (back["played"], back["other"]) == ("yazy (house.toml)", "yazy (built-in)")
    other = client.post("/api/compare", json={"rules": ["yazy", "yacht"], "games": 0}).json()
    assert [s["label"] for s in other["rule_sets"]] == ["yazy", "yacht"]


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ({"rules": ["yazy"]}, 422, "at least 2"),
        ({"rules": ["yazy", "yazy"]}, 400, "each rule set once"),
        ({"rules": ["yazy", "no-such-rules"]}, 404, "no-such-rules"),
        ({"rules": ["yazy", "maxi-yatzy-saved"]}, 400, "saved"),
        ({"rules": ["yazy", "yacht"], "games": 5000}, 422, "games"),
        ({"rules": ["yazy", "yacht"], "extra": 1}, 422, "extra"),
    ],
)
def test_compare_refuses_in_one_line(client, body, status, says):
    answer = client.post("/api/compare", json=body)
    assert answer.status_code == status, answer.text
    detail = answer.json()["detail"]
    assert isinstance(detail, str) and says in detail and "\n" not in detail
