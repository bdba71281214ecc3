"""Three to six players of Pig and Farkle: every seat's chance, against plain solvers.

The table of seats (:mod:`dicelab.engine.seats`) is checked against value iteration
written from Pig's rules (:func:`oracles.chance.pig_seats`), against a walk of the
game's own moves and throws (:func:`oracles.chance.seats_by_walk`: Farkle), against
the two-player solver where two seats are left, and against games played out.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from command_line import run_in_process as dicelab
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import chance as oracle

from dicelab.engine.seats import seat_cost, solve_seats
from dicelab.engine.turnstart import solve_turn_starts
from dicelab.errors import UserError
from dicelab.games.chance.families import game_from
from dicelab.games.chance.pig import Pig
from dicelab.games.chance.solution import solve


@pytest.mark.parametrize(
    ("goal", "players", "house"),
    [
        (10, 3, {}),
        (6, 4, {}),
        pytest.param(8, 3, {"dice": 2}, marks=pytest.mark.slow),
        (6, 3, {"one": "lose-score"}),
        (9, 3, {"faces": 4}),
        pytest.param(5, 5, {}, marks=pytest.mark.slow),
    ],  # fmt: skip
)
def test_every_seats_chance_is_pig_solved_from_its_rules(goal, players, house):
    P = oracle.pig_seats(goal, players, **house)
    table = solve_seats(Pig(goal=goal, **house).banking_turn(), players)
    for scores in itertools.product(range(goal), repeat=players):
        inside = table.turn_chances(scores)
        for k in range(goal - scores[0]):  # the turn total before a throw
            assert np.allclose(inside[k, 1], P[(scores, k)], atol=1e-12, rtol=0)
        assert np.allclose(table.chances(scores), P[(scores, 0)], atol=1e-12, rtol=0)
    assert table.regret == 0.0


@settings(max_examples=6, deadline=None)
@given(goal=st.integers(2, 6), players=st.integers(3, 4), faces=st.integers(2, 6),
       one=st.sampled_from(["lose-turn", "lose-score"]))  # fmt: skip
def test_any_small_pig_table_is_its_rules_solved(goal, players, faces, one):
    P = oracle.pig_seats(goal, players, faces=faces, one=one)
    table = solve_seats(Pig(goal=goal, faces=faces, one=one).banking_turn(), players)
    assert np.allclose(table.start_chances(), P[((0,) * players, 0)], atol=1e-12, rtol=0)
    assert table.start_chances().sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("args", [["goal=150", "dice=3"], ["goal=100", "dice=2", "players=4"]])
def test_farkle_at_a_table_is_its_game_walked(args):
    game = game_from("farkle", ["players=3", *args])
    walked = oracle.seats_by_walk(game)
    solution = solve(game)
    for position, chances in walked.items():
        assert np.allclose(solution.chances(position), chances, atol=1e-12, rtol=0), position


def test_two_seats_are_the_two_player_game():
    farkle = game_from("farkle", ["players=2", "goal=1000"])
    for game in (Pig(goal=40), Pig(goal=25, dice=2), farkle):
        turn = game.banking_turn()
        pairs = solve_turn_starts(turn).W
        seats = solve_seats(turn, 2).T[:, 0].reshape(pairs.shape)
        assert np.abs(seats - pairs).max() < 1e-12, game.name


def test_games_played_out_agree_with_the_chances():
    table = solve(game_from("pig", ["players=3", "goal=30"])).table
    won = table.play(20_000, seed=5)
    assert not np.isnan(won).any()
    for seat, chance in enumerate(table.start_chances()):
        share = float(np.mean(won == seat))
        assert abs(share - chance) < 4 * np.sqrt(chance * (1 - chance) / won.size), seat


def test_a_table_position_reads_and_shows_every_seat():
    game = game_from("pig", ["players=3", "goal=50"])
    here = game.parse("10 5 20 7 p2")  # player 2 with 10, then player 3 with 5, then 1
    assert here == ("at", 1, (20, 10, 5), (0, 10, 0, 7, False))
    assert game.show(here) == "player 2 to play, scores 20-10-5, turn total 7, to roll or hold"
    assert game.canonical(here) == here
    solution = solve(game)
    moves = solution.advise(here)
    assert [m.label for m in moves][0] in ("roll", "hold")
    hold = next(m for m in moves if m.label == "hold")
    assert hold.position[:3] == ("at", 2, (20, 17, 5))
    assert np.allclose(hold.chances, solution.chances(hold.position))
    assert sum(moves[0].chances) == pytest.approx(1.0)
    farkle = game_from("farkle", ["players=3", "goal=1000"])
    keep = farkle.parse("1 1 5 2 3 4 / 300 / 200 400 150")
    assert farkle.show(keep).startswith("player 1 to play, scores 200-400-150, turn total 300")


@pytest.mark.parametrize(
    ("name", "settings", "said"),
    [("pig", ["players=7"], "pig players: got 7, expected 2 to 6"),
     ("pig", ["players=1"], "pig players: got 1, expected 2 to 6"),
     ("farkle", ["players=3", "penalty=500"], "two-player game (players=2)"),
     ("pig", ["players=3", "dice=2", "doubles_roll=true"], "two-player game (players=2)")],
)  # fmt: skip
def test_rules_of_the_two_player_game_are_refused_at_a_table(name, settings, said):
    with pytest.raises(UserError, match=said.replace("(", r"\(").replace(")", r"\)")):
        game_from(name, settings)


def test_a_table_too_large_is_refused_with_its_size():
    cost = seat_cost(game_from("farkle", ["players=5"]).banking_turn(), 5)
    assert cost.states == 200**5
    with pytest.raises(UserError, match="turn starts"):
        solve(game_from("farkle", ["players=5"]))


def test_the_command_line_says_every_seats_chance(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    assert dicelab(monkeypatch, "solve", "pig", "--set", "players=3", "--set", "goal=20") == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "player 1 0." in out and "player 3 0." in out
    assert dicelab(monkeypatch, "advise", "pig", "--set", "players=3", "--set", "goal=20",
                   "--at", "10 5 2 7 p3") == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "player 3 to play, scores 5-2-10, turn total 7" in " ".join(out.split())
    assert "player 2" in out  # a column per seat
    assert dicelab(monkeypatch, "advise", "pig", "--set", "players=3", "--at", "1 2 3") == 2
    assert "expected 4 whole numbers" in capsys.readouterr().err


def test_a_table_is_played_and_reviewed_in_the_terminal(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    record = tmp_path / "game.json"
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("\n" * 400))
    assert dicelab(monkeypatch, "play", "pig", "--set", "players=3", "--set", "goal=15",
                   "--seat", "2", "--seed", "3", "--record", str(record)) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "you are player 2" in out and "(computer)" in out and "game over:" in out
    assert dicelab(monkeypatch, "review", str(record)) == 0
    assert "decisions of player 2" in capsys.readouterr().out


def test_the_json_api_plays_a_table_of_four_to_its_end():
    import random

    from fastapi.testclient import TestClient

    from dicelab.web.app import create_app

    client = TestClient(create_app(), base_url="http://localhost")
    game = {"game": "pig", "settings": {"players": "4", "goal": "12"}}
    now = client.post("/api/games/position", json=game).json()
    assert now["players"] == 4 and len(now["chances"]) == 4
    assert now["board"]["scores"] == [0, 0, 0, 0] and sum(now["chances"]) == pytest.approx(1)
    rng, seen = random.Random(2), set()
    while now["mover"] != "end":
        seen.add(now["mover"])
        if now["moves"]:
            assert len(now["moves"][0]["chances"]) == 4
        step = {"throw": rng.choice(now["throws"])["throw"]} if now["throws"] else {
            "move": now["moves"][-1]["move"]}  # fmt: skip  # the worst: hold at once
        now = client.post("/api/games/position", json={**game, "position": now["position"],
                                                         **step}).json()  # fmt: skip
    assert now["verdict"].endswith("wins") and max(now["chances"]) == 1.0
    assert {"player 1", "player 2", "player 3", "player 4"} <= seen
    bad = client.post(
        "/api/games/position",
        json={**game, "position": ["at", 5, [0, 0, 0, 0], [5, 0, 0, 0, True]]},
    )
    assert bad.status_code == 400 and "not a position" in bad.json()["detail"]


def test_a_table_too_long_to_make_is_advised_from_the_duels(monkeypatch, capsys, tmp_path):
    """advise at a table not yet made and long to make answers at once from the
    two-player game (the product of the mover's chances against each opponent
    alone), saying so; that estimate picks the exact table's best move nearly always."""
    import random

    from dicelab.cli import chance as cli
    from dicelab.games.chance.seated_solution import pairwise_advice

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cli, "ADVISE_SECONDS", 0.0)
    args = ["advise", "pig", "--set", "players=3", "--set", "goal=40", "--at", "10 5 20 7"]
    assert dicelab(monkeypatch, *args) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "takes" in out and "an estimate" in out and "dicelab solve pig" in out
    assert dicelab(monkeypatch, "solve", "pig", "--set", "players=3", "--set", "goal=40") == 0
    capsys.readouterr()
    assert dicelab(monkeypatch, *args) == 0  # the table made: exact, every seat's chance
    out = " ".join(capsys.readouterr().out.split())
    assert "an estimate" not in out and "player 3" in out
    game = game_from("pig", ["players=3", "goal=40"])
    exact, guess, rng = solve(game), pairwise_advice(game), random.Random(4)
    picked, lost = 0, 0.0
    for _ in range(200):
        scores = [rng.randrange(39) for _ in range(3)]
        here = game.parse(f"{scores[0]} {scores[1]} {scores[2]} {rng.randrange(1, 40 - scores[0])}")
        moves, best = exact.advise(here), guess.advise(here)[0].label
        picked += moves[0].label == best
        lost += next(m.cost for m in moves if m.label == best)
    assert picked >= 180 and lost / 200 < 0.005, (picked, lost)


@pytest.mark.slow
def test_a_table_whose_wipes_go_round_says_how_far_it_settled():
    """Two-dice Pig to 60 for three: double 1s send a score back to 0, and there the
    movers' best replies go round without end: the sweeps stop when they come no
    closer, say how far the chances still move, and the games played out by the
    table's moves agree with its chances to within that and 4 standard errors."""
    table = solve(game_from("pig", ["players=3", "dice=2", "goal=60"])).table
    assert 0 < table.unsettled < 0.01
    won = table.play(20_000, seed=9)
    for seat, chance in enumerate(table.start_chances()):
        share = float(np.mean(won == seat))
        se = np.sqrt(chance * (1 - chance) / won.size)
        assert abs(share - chance) < 4 * se + table.unsettled, seat


def test_a_table_too_long_to_make_is_made_by_solve_before_it_is_played(monkeypatch, capsys,
                                                                      tmp_path):  # fmt: skip
    from dicelab.cli import chance as cli

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)  # where a game's record would be named
    monkeypatch.setattr(cli, "ADVISE_SECONDS", 0.0)
    args = ["play", "pig", "--set", "players=3", "--set", "goal=20", "--seed", "1"]
    assert dicelab(monkeypatch, *args) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "dicelab solve pig --set players=3 --set goal=20), before it is played" in err
    assert not list(tmp_path.glob("*.json"))  # no empty record left behind
