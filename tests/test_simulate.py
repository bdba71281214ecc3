"""Simulated games against SPEC's exact figures and against games played by the advice."""

import io
import json
import re
import sys

import numpy as np
import pytest

from dicelab.cli import main
from dicelab.engine.advice.single import TIE
from dicelab.engine.objectives.expected import expected_table
from dicelab.errors import UserError
from dicelab.play.game import Game
from dicelab.play.simulate import BLOCK, simulate

# SPEC Part A: optimal expected score (and sd where published)
REFERENCE = {
    "yahtzee": (254.5896095, 59.6117),
    "yahtzee-forced-joker": (254.5877287, None),
    "yacht": (191.7743692, 37.86),
    "yazy": (165.7573, None),
}
GAMES = {"yahtzee": 30_000, "yahtzee-forced-joker": 15_000, "yacht": 15_000, "yazy": 15_000}


@pytest.fixture(scope="module")
def runs():
    return {name: simulate(expected_table(name), GAMES[name], seed=2024) for name in REFERENCE}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(REFERENCE))
def test_mean_within_four_standard_errors(runs, name):
    sim = runs[name]
    mean, _ = REFERENCE[name]
    assert sim.games == GAMES[name]
    se = sim.scores.std(ddof=1) / np.sqrt(sim.games)
    assert abs(sim.scores.mean() - mean) < 4 * se
    assert abs(sim.z) < 4


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n, (_, sd) in REFERENCE.items() if sd is not None])
def test_sd_matches_the_published_one(runs, name):
    sim = runs[name]
    _, sd = REFERENCE[name]
    x = sim.scores.astype(float)
    m2 = ((x - x.mean()) ** 2).mean()
    m4 = ((x - x.mean()) ** 4).mean()
    se_sd = np.sqrt((m4 / m2**2 - 1) / (4 * x.size)) * np.sqrt(m2)
    assert abs(sim.sd - sd) < 4 * se_sd + 0.01  # 0.01: the reference's own rounding


def test_scores_are_possible():
    sim = simulate(expected_table("yacht"), 3000, seed=2024)
    assert sim.scores.min() >= 0 and sim.scores.max() <= 325
    assert set(np.unique(sim.upper_bonus)) <= {0, 1}
    assert (sim.extra_bonuses == 0).all()  # yacht has no extra bonus
    # yazy has no bonus at all
    assert (simulate(expected_table("yazy"), 3000, seed=2024).upper_bonus == 0).all()


def test_same_seed_same_games():
    table = expected_table("yazy")
    a = simulate(table, 500, seed=7)
    b = simulate(table, 500, seed=7)
    c = simulate(table, 500, seed=8)
    assert np.array_equal(a.scores, b.scores)
    assert not np.array_equal(a.scores, c.scores)


def test_games_agree_with_advice_game_by_game():
    # the same dice, consumed in the documented order, played by the advice
    table = expected_table("yahtzee")
    rules = table.rules
    games, seed = 80, 99
    sim = simulate(table, games, seed=seed)
    n_draws = rules.n_categories * rules.rolls * rules.dice
    assert games <= BLOCK
    stream = np.random.SeedSequence(seed).spawn(1)[0]
    draws = np.random.default_rng(stream).integers(0, 6, size=(games, n_draws), dtype=np.int8)
    compared = 0
    for g in range(games):
        faces = iter(int(f) + 1 for f in draws[g])
        game = Game(table, dice="real")
        clear = True
        while game.phase != "over":
            if game.phase == "roll":
                game.roll([next(faces) for _ in range(rules.dice - len(game.kept))])
                continue
            advice = game.advice()
            if len(advice.options) > 1 and advice.options[1].cost <= TIE:
                clear = False  # a tie: either choice is optimal, the games may part
            best = advice.best
            if best.kind == "keep":
                game.keep(best.keep)
            else:
                game.fill(best.box)
        if clear:
            compared += 1
            assert game.score == sim.scores[g], f"game {g}"
            assert game.extra_bonuses == sim.extra_bonuses[g]
    assert compared >= games // 2


def test_bad_parameters():
    table = expected_table("yazy")
    with pytest.raises(UserError, match="games"):
        simulate(table, 0)
    with pytest.raises(UserError, match="seed"):
        simulate(table, 10, seed=-1)


def cli(capsys, monkeypatch, *args):
    monkeypatch.setattr(sys, "argv", ["dicelab", *args])
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out = capsys.readouterr()
    return code, out.out, out.err


def test_simulate_command(capsys, monkeypatch, tmp_path):
    png = tmp_path / "scores.png"
    code, out, _ = cli(
        capsys, monkeypatch, "simulate", "yazy", "--games", "3000", "--seed", "3", "--json",
        "--plot", str(png),
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["games"] == 3000 and data["seed"] == 3
    assert set(data["percentiles"]) == {"1", "5", "25", "50", "75", "95", "99"}
    assert sum(data["histogram"]["counts"]) == 3000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, _ = cli(capsys, monkeypatch, "simulate", "yazy", "--games", "3000", "--seed", "3")
    assert code == 0
    assert "standard errors" in out
    bars = [re.fullmatch(r"\s*\d+-\d+\s+#*\s+(\d+\.\d+)%", line) for line in out.splitlines()]
    shares = [float(m.group(1)) for m in bars if m]
    assert 10 <= len(shares) <= 20
    assert sum(shares) == pytest.approx(100, abs=0.2)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--games", "0"], "games"),
        (["--plot", "scores.jpg"], "plot"),
        (["--bins", "0"], "bins"),
    ],
)
def test_simulate_bad_input_one_line(capsys, monkeypatch, args, message):
    code, _, err = cli(capsys, monkeypatch, "simulate", "yazy", *args)
    assert code == 2 and err.startswith("error: ") and message in err and err.count("\n") == 1
