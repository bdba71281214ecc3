"""``dicelab race`` on the command line: answers, JSON, plots and one-line errors."""

import json
import subprocess
import sys
from fractions import Fraction

import pytest
from oracles.race import plain_race

from dicelab.cli import main


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "dicelab.cli", "race", *args], capture_output=True, text=True
    )


def test_head_to_head_json_is_exact():
    out = run("5,6,7,8,9", "5,6,7,7,8", "--dice", "2", "--faces", "6", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    win, lose, tie = plain_race([5, 6, 7, 8, 9], [5, 6, 7, 7, 8], 2, 6)
    assert Fraction(data["win"]["fraction"]) == win
    assert Fraction(data["lose"]["fraction"]) == lose
    assert Fraction(data["tie"]["fraction"]) == tie
    assert data["win"]["float"] == pytest.approx(float(win))


@pytest.mark.slow
def test_head_to_head_table_with_simulation_and_plot(tmp_path):
    plot = tmp_path / "race.png"
    out = run("7", "2", "--simulate", "--seed", "5", "--max-games", "5000", "--plot", str(plot))
    assert out.returncode == 0, out.stderr
    assert "6/7" in out.stdout and "1/7" in out.stdout
    assert "Simulation" in out.stdout
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_simulation_in_json():
    out = run("7", "2", "--simulate", "--min-games", "800", "--max-games", "800", "--json")
    data = json.loads(out.stdout)
    assert data["simulation"]["games"] == 800


@pytest.mark.slow
def test_best_list_small_json_and_plot(tmp_path):
    plot = tmp_path / "best.svg"
    out = run("best", "--dice", "2", "--faces", "6", "--picks", "3", "--json", "--plot", str(plot))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["pure"] is True
    assert data["winners"] == [[6, 7, 8]]
    assert data["substitution"]["path"][0] == [7, 7, 7]
    assert plot.exists()


def test_best_list_table():
    out = run("best", "--faces", "4", "--picks", "3", "--start", "2,2,2")
    assert out.returncode == 0, out.stderr
    assert "[4, 5, 6]" in out.stdout
    assert "Substitution search" in out.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["5,6,13", "7"], "13 in the first list is not a possible sum"),
        (["7", "1"], "not a possible sum"),
        (["", "7"], "empty"),
        (["[]", "7"], "empty"),
        (["7", "7", "--dice", "0"], "number of dice must be at least 1"),
        (["7", "7", "--faces", "1"], "faces"),
        (["7"], "expected two lists"),
        (["7", "8", "9"], "expected two lists"),
        (["5,x", "7"], "cannot read"),
        (["best"], "--picks"),
        (["best", "--picks", "0"], "picks"),
        (["best", "--picks", "5", "--start", "7,7"], "expected 5"),
        (["best", "--picks", "2", "--simulate"], "--simulate"),
        (["7", "8", "--picks", "2"], "race best"),
        (["7", "8", "--simulate", "--share", "0.2"], "0.5"),
        (["7", "8", "--plot", "/no/such/dir/x.png"], "does not exist"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, message, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["dicelab", "race", *args])
    with pytest.raises(SystemExit) as stop:
        main()
    assert stop.value.code == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert message in lines[0]


def test_bad_input_through_the_installed_entry_point():
    out = run("5,6,7,8,13", "5,6,7,7,8")
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "error: 13 in the first list is not a possible sum of 2 dice with 6 faces (expected 2..12)"
    )


def test_mixed_answer_is_reported(tmp_path):
    """The report and plot of an optimal mix (no setting tried needs one, so build it)."""
    import io

    import numpy as np
    from rich.console import Console

    from dicelab.cli.race import show_best
    from dicelab.games.race.exact import Dice
    from dicelab.games.race.search import BestList, Substitution
    from dicelab.plot.race import plot_best

    best = BestList(
        dice=Dice(2, 6),
        picks=2,
        lists=66,
        classes=26,
        candidates=3,
        winners=(),
        mixed=(((6, 7), 0.5), ((5, 8), 0.25), ((7, 7), 0.25)),
        value=0.0,
        exploitability=1e-12,
        substitution=Substitution(((7, 7), (6, 7)), False, ((6, 7),)),
        stop_payoffs=(0.0,),
        row=np.linspace(-0.1, 0.5, 66),
    )
    data = best.to_dict()
    assert data["pure"] is False
    assert data["mixed"][0] == {"list": [6, 7], "weight": 0.5}
    out = io.StringIO()
    show_best(best, Console(file=out, width=120))
    assert "optimal mixed choice" in out.getvalue()
    assert plot_best(best, tmp_path / "mix.png").exists()
