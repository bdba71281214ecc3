"""``dicelab compare``: rule sets side by side, through the command line in this process."""

import json

import pytest
from command_line import run_in_process as dicelab_cli

import dicelab
from dicelab.play.simple import simple_strategy

#: Published optimal expected scores (yacht: the SPEC's; yazy: docs/objectives.md).
PUBLISHED = {"yazy": 165.7573, "yacht": 191.7744}


def test_compare_json_gives_the_published_expected_scores(monkeypatch, capsys):
    assert dicelab_cli(monkeypatch, "compare", "yazy", "yacht", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    found = out["rule_sets"]
    assert [f["rules"] for f in found] == ["yazy", "yacht"]
    for f in found:
        name = f["rules"]
        assert f["expected_score"] == pytest.approx(PUBLISHED[name], abs=5e-5)
        assert f["expected_score"] == pytest.approx(dicelab.solve(name).value(), abs=1e-9)
        dist = dicelab.solve(name).distribution()
        assert f["sd"] == pytest.approx(dist.sd, rel=1e-12)
        assert f["percentiles"] == {str(q): dist.percentile(q) for q in (10, 50, 90)}
        assert f["p_all_same"] == pytest.approx(dist.p_all_same, rel=1e-12)
    yazy, yacht = found
    assert yazy["p_bonus"] is None and yacht["p_bonus"] == pytest.approx(0.690243, abs=1e-6)
    assert yazy["sd"] == pytest.approx(32.3764, abs=1e-4)
    assert yacht["percentiles"] == {"10": 142, "50": 193, "90": 242}
    for f in found:  # the skill gap: the optimum over the simple strategy, exact
        simple = simple_strategy(f["rules"])
        assert f["simple_strategy"]["expected_score"] == simple.expected
        assert f["skill_gap"] == pytest.approx(f["expected_score"] - simple.expected, abs=1e-12)
        assert 10 < f["skill_gap"] < 40
        assert f["duel"]["first_player_chance"] is None and f["duel"]["note"]
    # yazy and yacht have different boxes: no position is asked of both
    assert out["partings"]["pairs"] == []
    assert "their boxes differ" in out["partings"]["left_out"][0]


def test_compare_prints_one_table_and_draws_the_distributions(monkeypatch, capsys, tmp_path):
    plot = tmp_path / "both.png"
    assert dicelab_cli(monkeypatch, "compare", "yazy", "yacht", "--plot", str(plot)) == 0
    out = capsys.readouterr().out
    assert plot.stat().st_size > 0
    for text in (
        "expected score",
        "165.7573",
        "191.7744",
        "P(upper bonus)",
        "69.02%",
        "p90",
        "P(it scores)",
        "skill gap",
        "first player's edge",
        "positions not compared: yazy and yacht",
    ):
        assert text in out
    assert str(plot) in out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["yazy"], "expected two or more"),
        ([], "Missing argument"),
        (["yazy", "no-such-rules"], "'no-such-rules'"),
        (["yazy", "missing/file.toml"], "'missing/file.toml'"),
        (["yazy", "maxi-yatzy-saved"], "maxi-yatzy-saved"),
        (["yazy", "yacht", "--plot", "out.txt"], "plot"),
        (["yazy", "yacht", "--games", "-1"], "--games"),
        (["yazy", "yazy"], "two rule sets are named 'yazy'"),
    ],
)
def test_compare_refuses_in_one_line(monkeypatch, capsys, args, says):
    assert dicelab_cli(monkeypatch, "compare", *args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and says in err


def test_compare_boxes_adds_a_balance_sheet_that_sums_to_the_expected_score(monkeypatch, capsys):
    assert dicelab_cli(monkeypatch, "compare", "yazy", "yacht", "--boxes", "--json") == 0
    yazy, yacht = json.loads(capsys.readouterr().out)["rule_sets"]
    for f in (yazy, yacht):
        assert sum(f["box_points"].values()) == pytest.approx(f["expected_score"], abs=1e-6)
    assert "upper bonus" not in yazy["box_points"]
    assert yacht["box_points"]["upper bonus"] == pytest.approx(35 * yacht["p_bonus"], abs=1e-9)
    assert set(yacht["box_points"]) == {c.id for c in dicelab.load_rules("yacht").categories} | {
        "upper bonus"
    }
    assert dicelab_cli(monkeypatch, "compare", "yazy", "yacht", "--boxes") == 0
    out = capsys.readouterr().out
    assert "expected points of" in out and "Five of a kind" in out and "24.159" in out
