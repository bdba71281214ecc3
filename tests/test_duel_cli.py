"""``dicelab duel``, ``duel advise``, ``duel play`` and ``duel review`` on a tiny game."""

import json
import subprocess
import sys

import pytest
from oracles.duel import FOUR_BOXES, FOUR_TOML, duel_brute
from typer.testing import CliRunner

from dicelab.cli import app
from dicelab.rules import parse_rules

runner = CliRunner()


@pytest.fixture(scope="module")
def four(tmp_path_factory):
    path = tmp_path_factory.mktemp("duel") / "four.toml"
    path.write_text(FOUR_TOML)
    return str(path)


def run(*args):
    return runner.invoke(app, list(args))


def run_process(*args):
    """The whole command, as a user runs it (a mistake: one line on stderr, exit 2)."""
    return subprocess.run([sys.executable, "-m", "dicelab", *args], capture_output=True,
                          text=True, timeout=300)  # fmt: skip


@pytest.mark.slow
def test_duel_verdicts(four, tmp_path, monkeypatch):
    # the solve alone first; the comparisons when asked, once, then kept with the table
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    res = run("duel", four, "--json")
    assert res.exit_code == 0, res.output
    first = json.loads(res.output)
    value, _ = duel_brute(parse_rules(FOUR_BOXES))
    assert abs(first["start_value"] - value((0, 0, 0), (0, 0, 0), 0)) < 1e-9
    assert not first["compared"] and "pairs" not in first and not first["cached"]
    out = json.loads(run("duel", four, "--compare", "--json").output)
    assert out["compared"] and out["cached"]  # the cached table, compared now
    assert set(out["pairs"]) == {"win-win", "win-expected", "expected-win", "expected-expected"}
    assert abs(out["checks"]["fair_pair_value_minus_half"]) < 1e-12
    assert out["start_value"] == first["start_value"]
    again = json.loads(run("duel", "solve", four, "--json").output)
    assert again["cached"] and again["pairs"] == out["pairs"]


def test_duel_text_and_plot(four, tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    res = run("duel", four, "--plot", str(tmp_path / "leads.png"))
    assert res.exit_code == 0, res.output
    assert "Moving first" in res.output and "Strategy pairs" not in res.output
    assert "--compare" in res.output
    assert (tmp_path / "leads.png").stat().st_size > 1000
    res = run("duel", four, "--compare")
    assert "Strategy pairs" in res.output and "solved" not in res.output.split("\n")[1]


def test_a_duel_too_large_is_one_line():
    res = run_process("duel", "yahtzee")
    assert res.returncode == 2 and not res.stdout
    assert res.stderr.count("\n") == 1 and "pairs of sheets" in res.stderr


def test_advice_agrees_with_brute_force(four):
    # I (B) have Ones=1, they have Ones=2 and Threes=3: I trail by 4 with 1 and 3 showing
    res = run("duel", "advise", four, "--dice", "1", "3", "--rerolls", "1", "--mine", "ones=1",
              "--theirs", "ones=2,threes=3", "--json")  # fmt: skip
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["seat"] == "B" and out["my_score"] - out["their_score"] == -4
    _, throw = duel_brute(parse_rules(FOUR_BOXES))
    slow = throw((0b0001, 1, 0), (0b0011, 5, 0), -4, (1, 3), 1)
    assert abs(out["win_chance"] - slow) < 1e-6  # advice reads the cached float32 table
    chances = [o["win_chance"] for o in out["options"]]
    assert chances == sorted(chances, reverse=True)
    assert {o["expected_rank"] for o in out["options"]} == set(range(1, len(chances) + 1))


@pytest.mark.slow
def test_advice_explained_gives_each_option_its_expected_lead(four, tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    from oracles.duel import lead_brute

    args = ["duel", "advise", four, "--dice", "1", "3", "--rerolls", "0", "--mine", "ones=1",
            "--theirs", "ones=2,threes=3", "--explain"]  # fmt: skip
    res = run(*args, "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    value, _ = lead_brute(parse_rules(FOUR_BOXES))
    for o in out["options"]:  # my (B's) lead after the box: minus A's lead as A moves
        c = ["ones", "threes", "pair", "sum"].index(o["box"])
        mine = (0b0001 | 1 << c, 1 + (o["points"] if c < 2 else 0), 0)
        want = -value((0b0011, 5, 0), mine, 4 - o["points"])[1]
        assert abs(o["explain"]["expected_lead"] - want) < 1e-4, o["label"]
        assert o["explain"]["text"]
    text = run(*args)
    assert text.exit_code == 0 and "expected final lead" in text.output
    assert "1. Scoring" in text.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mine", "ones=1,threes=3"], "do not alternate"),
        (["--theirs", "ones=7"], "their sheet: box 'ones': 7 points cannot be scored"),
        (["--mine", "ones=1", "--my-score", "9"], "my score: got 9"),
        (["--mine", "sum=?"], "my score: give it"),
        (["--mine", "nosuch=1"], "unknown box 'nosuch'"),
    ],
)
def test_advice_refuses_bad_positions(four, args, message):
    res = run_process("duel", "advise", four, "--dice", "1", "3", *args)
    assert res.returncode == 2
    assert message in res.stderr and res.stderr.count("\n") == 1


def test_play_and_review(four, tmp_path):
    record = tmp_path / "g.json"
    res = runner.invoke(app, ["duel", "play", four, "--seed", "5", "--record", str(record)],
                        input="\n" * 40)  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "game over" in res.output and "your win chance" in res.output
    out = json.loads(run("duel", "review", str(record), "--json").output)
    assert out["seat"] == "A" and out["total_cost"] < 1e-9  # Enter takes the best option
    assert len(out["decisions"]) >= 4
    again = run_process("duel", "play", four, "--record", str(record))
    assert again.returncode == 2 and "already exists" in again.stderr


def test_a_poor_choice_is_priced(four, tmp_path):
    record = tmp_path / "g.json"
    # seat B; seed 2: keep nothing at every reroll, then the first box offered
    res = runner.invoke(app, ["duel", "play", four, "--seat", "B", "--seed", "2", "--record",
                              str(record)], input="none\nb\n" * 8 + "\n" * 20)  # fmt: skip
    assert res.exit_code == 0, res.output
    out = json.loads(run("duel", "review", str(record), "--json").output)
    costs = [d["cost"] for d in out["decisions"]]
    assert all(c >= 0 for c in costs)
    for d in out["decisions"]:
        assert abs(d["win_chance_best"] - d["win_chance_chosen"] - d["cost"]) < 1e-12


def test_a_letter_is_an_option_and_a_digit_a_die_at_every_prompt(four, tmp_path):
    """As in ``play``: options by letter (``a`` the best), dice by their faces; a
    digit never picks an option or a scorecard row."""
    record = tmp_path / "g.json"
    res = runner.invoke(app, ["duel", "play", four, "--seed", "5", "--record", str(record)],
                        input="a\n" * 40)  # fmt: skip
    assert res.exit_code == 0, res.output
    assert " a " in res.output or "│ a " in res.output  # the options are lettered
    assert json.loads(run("duel", "review", str(record), "--json").output)["total_cost"] < 1e-9
    again = tmp_path / "digits.json"
    res = runner.invoke(
        app,
        ["duel", "play", four, "--seed", "5", "--record", str(again)],
        input="1\n\n1\n" + "\n" * 40,
    )  # fmt: skip  (seed 5: 3 3 first)
    assert res.exit_code == 0, res.output
    assert "keep: [1] are not among the dice showing [3, 3]" in res.output  # 1: a face
    assert "1: a box is named, not numbered (numbers are dice)" in res.output  # not a row
    res = runner.invoke(app, ["duel", "play", four, "--seed", "5", "--record",
                              str(tmp_path / "z.json")], input="z\n" + "\n" * 40)  # fmt: skip
    assert "z: no option has that letter" in res.output


def test_disagreements(four):
    res = run("duel", "disagreements", four, "--games", "40", "--top", "0", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["games"] == 40 and out["decisions"] >= 40 * 8
    costs = [d["cost"] for d in out["largest"]]
    assert costs == sorted(costs, reverse=True) and all(c > 1e-9 for c in costs)
    for d in out["largest"]:
        assert abs(d["win_chance"] - d["win_chance_for_points"] - d["cost"]) < 1e-12
    bad = run_process("duel", "disagreements", four, "--games", "0")
    assert bad.returncode == 2 and "games: got 0" in bad.stderr


def test_points_left_unknown_are_taken_from_the_score(tmp_path):
    # without a bonus the upper total is not tracked: Ones without points is part of
    # the score still to be given
    rules = tmp_path / "plain.toml"
    rules.write_text(FOUR_TOML.replace("[upper_bonus]\nthreshold = 4\npoints = 5\n", ""))
    args = [
        "duel",
        "advise",
        str(rules),
        "--dice",
        "1",
        "3",
        "--mine",
        "ones=?",
        "--theirs",
        "threes=3",
    ]
    assert "my score: give it" in run_process(*args).stderr
    res = run(*args, "--my-score", "2", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["my_score"] == 2
    bad = run_process(*args, "--my-score", "3")
    assert bad.returncode == 2 and "my score: got 3, but the filled boxes given cannot make it" in (
        bad.stderr
    )


def test_a_duel_stopped_and_resumed_ends_as_one_played_straight(four, tmp_path):
    whole, part = tmp_path / "whole.json", tmp_path / "part.json"
    res = runner.invoke(app, ["duel", "play", four, "--seed", "5", "--record", str(whole)],
                        input="\n" * 40)  # fmt: skip
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["duel", "play", four, "--seed", "5", "--record", str(part)],
                        input="\n\nq\n")  # fmt: skip
    assert f"continue: dicelab duel play {four} --resume {part}" in " ".join(res.output.split())
    res = runner.invoke(app, ["duel", "play", four, "--resume", str(part)], input="\n" * 40)
    assert res.exit_code == 0 and "resuming" in res.output and "game over" in res.output
    straight, resumed = json.loads(whole.read_text()), json.loads(part.read_text())
    for seat in ("a", "b"):  # the same dice fell: the same game
        assert straight[seat]["turns"] == resumed[seat]["turns"]
    again = run_process("duel", "play", four, "--resume", str(part))
    assert again.returncode == 2 and "is finished" in again.stderr
