"""``dicelab compare``'s partings (where the best moves differ between variants) and
the first player's edge in the two-player game.

A parting's cost is checked against the advice of the rule set played
(:meth:`dicelab.engine.table.SolvedTable.advise`, the NumPy turn, where the partings
ask the compiled one), and the first player's chance against the duel's brute force.
"""

import json

import pytest
from command_line import run_in_process as dicelab_cli
from oracles.duel import FOUR_BOXES, FOUR_TOML, duel_brute_force

import dicelab
from dicelab.engine.objectives.expected import expected_table
from dicelab.errors import UserError
from dicelab.play.variants import not_comparable, partings
from dicelab.rules import parse_rules

#: Yazy with its full house worth 35: the other boxes as they were.
RICH_HOUSE = (
    'name = "rich-house"\nextends = "yazy"\n\n[[categories]]\nid = "full_house"\nscore = 35\n'
)


@pytest.fixture(scope="module")
def house(tmp_path_factory):
    path = tmp_path_factory.mktemp("variants") / "rich-house.toml"
    path.write_text(RICH_HOUSE)
    return str(path)


def option_like(advice, label: str):
    """The option of an advice that a parting's label names."""
    for o in advice.options:
        if o.kind == "box" and o.box_name == label:
            return o
        if o.kind == "keep" and (o.stops and label == "keep all"):
            return o
        if (
            o.kind == "keep"
            and not o.stops
            and label == "keep " + (" ".join(map(str, o.keep)) if o.keep else "nothing")
        ):
            return o
    raise AssertionError(f"no option {label!r}")


def test_partings_are_priced_as_the_advice_prices_them(monkeypatch, capsys, house):
    args = ("compare", "yazy", house, "--json", "--games", "60", "--top", "50")
    assert dicelab_cli(monkeypatch, *args) == 0
    out = json.loads(capsys.readouterr().out)
    there, back = out["partings"]["pairs"]
    assert (there["played"], there["other"]) == ("yazy", "rich-house")
    assert (back["played"], back["other"]) == ("rich-house", "yazy")
    tables = {"yazy": dicelab.solve("yazy"), "rich-house": dicelab.solve(dicelab.load_rules(house))}
    for rep in (there, back):
        assert rep["games"] == 60 and 0 < rep["differing"] < rep["decisions"]
        assert sum(p["met"] for p in rep["largest"]) <= rep["differing"]
        weights = [p["points_per_game"] for p in rep["largest"]]
        assert weights == sorted(weights, reverse=True)
        table = tables[rep["played"]]
        for p in rep["largest"][:10]:
            pos = dicelab.Position(tuple(p["dice"]), p["rerolls_left"], p["filled"])
            advice = table.advise(pos)
            best, other = option_like(advice, p["best"]), option_like(advice, p["other"])
            assert best.cost < 1e-9
            assert other.cost == pytest.approx(p["cost"], abs=1e-6)
            assert p["points_per_game"] == pytest.approx(p["cost"] * p["met"] / 60, rel=1e-12)
    # the house's box: its worth moves the dumps
    assert any("Full house" in (p["best"], p["other"]) for p in there["largest"])


def test_a_rule_set_never_parts_from_itself(tmp_path):
    copy = tmp_path / "same.toml"
    copy.write_text('name = "same"\nextends = "yazy"\n')
    a, b = expected_table("yazy"), expected_table(dicelab.load_rules(str(copy)))
    rep = partings(a, b, games=20, use_cache=False)
    assert rep.decisions > 20 * 11 and rep.differing == 0 and rep.positions == []
    with pytest.raises(UserError, match="boxes differ"):
        partings(a, expected_table("yacht"), games=5)
    generala = dicelab.load_rules("generala")
    assert "first throw" in not_comparable(generala, generala)  # served hands: not asked


def test_partings_are_cached_by_games_and_seed(house):
    a, b = expected_table("yazy"), expected_table(dicelab.load_rules(house))
    first = partings(a, b, games=15, seed=3)
    assert partings(a, b, games=15, seed=3) == first
    assert partings(a, b, games=15, seed=3, use_cache=False) == first
    assert partings(a, b, games=15, seed=4, use_cache=False) != first


def test_first_players_edge_from_the_duel(monkeypatch, capsys, tmp_path):
    four = tmp_path / "four.toml"
    four.write_text(FOUR_TOML)
    richer = tmp_path / "richer.toml"
    richer.write_text(FOUR_TOML.replace('name = "four"', 'name = "richer"').replace(
        "score = 10", "score = 14"))  # fmt: skip
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path / "cache"))
    base = ("compare", str(four), str(richer), "--json", "--games", "10")
    assert dicelab_cli(monkeypatch, *base) == 0
    duels = [f["duel"] for f in json.loads(capsys.readouterr().out)["rule_sets"]]
    assert all(d["first_player_chance"] is None and d["solvable"] for d in duels)
    assert all(d["note"].startswith("not solved yet") for d in duels)
    assert dicelab_cli(monkeypatch, *base, "--duel") == 0
    solved = [f["duel"] for f in json.loads(capsys.readouterr().out)["rule_sets"]]
    boxes = [{**c, "score": 14} if c["id"] == "pair" else c for c in FOUR_BOXES["categories"]]
    rich_boxes = {**FOUR_BOXES, "name": "richer", "categories": boxes}
    for d, boxes in zip(solved, (FOUR_BOXES, rich_boxes), strict=True):
        chance = duel_brute_force(parse_rules(boxes))
        assert d["first_player_chance"] == pytest.approx(chance, abs=1e-9)
        assert d["edge"] == pytest.approx(chance - 0.5, abs=1e-9) and d["note"] is None
    assert dicelab_cli(monkeypatch, *base) == 0  # now from the cache, without --duel
    again = [f["duel"] for f in json.loads(capsys.readouterr().out)["rule_sets"]]
    assert again == solved
    assert dicelab_cli(monkeypatch, "compare", str(four), str(richer), "--games", "10") == 0
    text = capsys.readouterr().out
    assert "first player's edge" in text and " pts" in text and "where they part most" in text


def test_the_duel_of_a_large_rule_set_is_left_out_saying_why():
    from dicelab.play.compare import duel_edge

    edge = duel_edge(dicelab.load_rules("yahtzee"), solve=True)
    assert edge.chance is None and edge.note.startswith("too large to solve here")
    assert not edge.solvable
