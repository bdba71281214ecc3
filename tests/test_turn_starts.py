"""Two-player banking games solved where turns start, against the laid-out game and a
plain value iteration from the rules."""

import json

import numpy as np
import pytest
from command_line import run_in_process as dicelab
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import farkle as oracle

from dicelab.engine.turnstart import BankingTurn, solve_turn_starts
from dicelab.errors import UserError
from dicelab.games.chance import solve
from dicelab.games.chance.farkle import Farkle
from dicelab.games.chance.pig import Pig
from dicelab.games.chance.turn_solution import TurnStartSolution, solves_by_turns

farkles = st.fixed_dictionaries({
    "dice": st.integers(1, 4),
    "goal": st.integers(1, 8).map(lambda g: 50 * g),
    "min_bank": st.sampled_from([0, 100, 300]),
    "three_ones": st.sampled_from([1000, 300]),
    "kinds": st.sampled_from(["add", "double"]),
    "three_pairs": st.sampled_from([750, 0]),
})  # fmt: skip


def both(**settings):
    settings["min_bank"] = min(settings.get("min_bank", 0), settings["goal"] - 50)
    game = Farkle(players=2, **settings)
    return game, solve(game, turns=False), solve(game, turns=True)


@settings(max_examples=12, deadline=None)
@given(farkles)
def test_every_position_and_move_agrees_with_the_laid_out_game(kw):
    game, laid, turns = both(**kw)
    assert isinstance(turns, TurnStartSolution) and not isinstance(laid, TurnStartSolution)
    assert turns.value() == pytest.approx(laid.value(), abs=1e-12)
    for v, position in enumerate(laid.layout.positions):
        if position is None:
            continue
        assert turns.value(position) == pytest.approx(laid.values[v], abs=1e-12), position
        if game.result(position) is None and game.to_move(position) >= 0:
            mine = turns.advise(position)
            theirs = laid.advise(position)
            assert [m.value for m in mine] == pytest.approx([m.value for m in theirs], abs=1e-12)
            assert mine[0].cost == 0 and all(m.cost >= 0 for m in mine)


@settings(max_examples=6, deadline=None)
@given(st.integers(1, 3), st.integers(1, 6).map(lambda g: 50 * g), st.sampled_from([0, 100]))
def test_turn_starts_agree_with_value_iteration_from_the_rules(dice, goal, min_bank):
    min_bank = min(min_bank, goal - 50)
    P = oracle.two_player(goal, dice=dice, min_bank=min_bank)
    table = solve_turn_starts(Farkle(players=2, goal=goal, dice=dice, min_bank=min_bank)
                              .banking_turn())  # fmt: skip
    for (i, j, t, _), p in P.items():
        if t == 0:
            assert table.W[i // 50, j // 50] == pytest.approx(p, abs=1e-11)


def test_pig_as_a_banking_turn_is_the_laid_out_pig():
    """Pig is a banking game of one die whose 1 is the farkle: the turn-start table
    meets the laid-out Pig to 100 (Neller and Presser's 0.5306) at every turn start."""
    faces = {1: [(1 / 6, (0,))] + [(1 / 6, (f,)) for f in range(2, 7)]}
    table = solve_turn_starts(BankingTurn.from_outcomes(100, 1, 0, faces))
    laid = solve(Pig(goal=100))
    assert round(table.start_value(), 4) == 0.5306
    for a in range(0, 100, 7):
        for b in range(0, 100, 9):
            assert table.W[a, b] == pytest.approx(laid.value((0, a, b, 0, True)), abs=1e-12)


def test_a_table_of_one_score_a_side_needs_no_steps_beyond_its_pair():
    """Scores where both need one throw: the mover wins unless the throw farkles
    and the other then wins: W = (1 - f) / (1 - f^2)... as the two equations say."""
    turn = Farkle(players=2, goal=50, dice=1).banking_turn()
    f = turn.farkle[1]  # one die: 4/6 farkle; a 1 or a 5 reaches 50
    W = solve_turn_starts(turn).W
    assert W[0, 0] == pytest.approx((1 - f) / (1 - f * f), abs=1e-15)


def test_the_command_line_solves_farkle_to_1000_at_its_turn_starts(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    args = ["solve", "farkle", "--set", "players=2", "--set", "goal=1000", "--json"]
    assert dicelab(monkeypatch, *args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "turn starts" and out["turn_starts"] == 400
    assert out["positions"] == Farkle(players=2, goal=1000).size() == 1_965_602
    laid = solve(Farkle(players=2, goal=1000), turns=False)
    assert out["value"] == pytest.approx(laid.value(), abs=1e-12)
    assert not out["cached"]
    assert dicelab(monkeypatch, *args) == 0  # read back, checked
    again = json.loads(capsys.readouterr().out)
    assert again["cached"] and again["value"] == out["value"]
    assert dicelab(monkeypatch, "advise", "farkle", "--set", "players=2", "--set", "goal=1000",
                   "--at", "1 1 5 2 3 4 / 300 / 400 650", "--json") == 0  # fmt: skip
    moves = json.loads(capsys.readouterr().out)["moves"]
    position = Farkle(players=2, goal=1000).parse("1 1 5 2 3 4 / 300 / 400 650")
    assert [m["value"] for m in moves] == pytest.approx(
        [m.value for m in laid.advise(position)], abs=1e-12)  # fmt: skip


@pytest.mark.parametrize("settings", [["goal=30"], ["goal=30", "dice=2"]])
def test_every_command_answers_pig_from_its_turn_starts(settings, capsys, monkeypatch, tmp_path):
    """Pig to 100 is past the layout's limit, so ``solve pig`` takes the table's
    path; here a small goal is sent down it and held to the laid-out game."""
    import dicelab.games.chance.turn_solution as turn_solution

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(turn_solution, "TURNS_ABOVE", 0)
    sets = [w for s in settings for w in ("--set", s)]
    game = Pig(**{k: int(v) for k, v in (s.split("=") for s in settings)})
    laid = solve(game, turns=False)
    assert dicelab(monkeypatch, "solve", "pig", *sets, "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "turn starts" and out["positions"] == game.size()
    assert out["value"] == pytest.approx(laid.value(), abs=1e-12)
    assert dicelab(monkeypatch, "advise", "pig", *sets, "--at", "10 20 7", "--json") == 0
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert [m["value"] for m in moves] == pytest.approx(
        [m.value for m in laid.advise(game.parse("10 20 7"))], abs=1e-12)  # fmt: skip
    assert dicelab(monkeypatch, "simulate", "pig", *sets, "--games", "300", "--json") == 0
    sim = json.loads(capsys.readouterr().out)
    assert abs(sim["mean"] - laid.value()) <= 4 * sim["standard_error"]


def test_store_keeps_the_table_in_a_file_and_a_laid_out_game_says_so(capsys, monkeypatch,
                                                                      tmp_path):  # fmt: skip
    import dicelab.games.chance.turn_solution as turn_solution

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path / "cache"))
    args = ["solve", "pig", "--set", "goal=30", "--no-cache", "--json", "--store",
            str(tmp_path / "store")]  # fmt: skip
    assert dicelab(monkeypatch, *args) == 0
    said = capsys.readouterr()
    laid = json.loads(said.out)
    assert "laid out and solved in this process; --store applies" in said.err
    monkeypatch.setattr(turn_solution, "TURNS_ABOVE", 0)
    assert dicelab(monkeypatch, *args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "turn starts" and out["value"] == pytest.approx(
        laid["value"], abs=1e-12
    )
    assert (tmp_path / "store" / "turn-starts.npy").stat().st_size >= 30 * 30 * 8


def test_a_position_the_game_has_not_is_one_clear_error():
    turns = solve(Farkle(players=2, goal=300), turns=True)
    for bad in [("roll", 0, 9, 0, 0, 6), ("keep", 0, 0, 0, 0, (7,)), "start", ("won", 3)]:
        with pytest.raises(UserError, match="not a position this game reaches"):
            turns.value(bad)
    with pytest.raises(UserError, match="the dice decide"):
        turns.advise(("roll", 0, 0, 0, 0, 6))
    assert np.isclose(turns.value(("won", 1)), 0.0) and turns.draw() == 0.0


def test_the_page_plays_farkle_solved_at_its_turn_starts(monkeypatch, tmp_path):
    """Farkle to 1,000 lays out 2 million positions; the page's game is solved at its
    400 turn starts, and a position sent back is checked against the game's own."""
    import random

    from fastapi.testclient import TestClient

    from dicelab.web.app import create_app

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    client = TestClient(create_app(), base_url="http://localhost")
    game = {"game": "farkle", "settings": {"players": "2", "goal": "1000"}}
    now = client.post("/api/games/position", json=game).json()
    laid = solve(Farkle(players=2, goal=1000), turns=False)
    assert now["positions"] == 1_965_602  # laid out; solved at its 400 turn starts
    assert now["start_value"] == pytest.approx(laid.value(), abs=1e-12)
    rng = random.Random(2)
    while now["mover"] != "end":
        step = {"throw": rng.choice(now["throws"])["throw"]} if now["throws"] else {
            "move": now["moves"][0]["move"]}  # fmt: skip
        now = client.post("/api/games/position", json={**game, "position": now["position"],
                                                         **step}).json()  # fmt: skip
        if now["moves"]:
            position = tuple(p if not isinstance(p, list) else tuple(p) for p in now["position"])
            assert now["value"] == pytest.approx(laid.value(position), abs=1e-12)
    assert now["verdict"] and now["result"] in (0.0, 1.0)
    for bad in (["roll", 0, 30, 0, 0, 6], ["roll", 0, 1.0, 0, 0, 6], ["roll", 0, True, 0, 0, 6]):
        answer = client.post("/api/games/position", json={**game, "position": bad})
        assert answer.status_code == 400 and "position" in answer.json()["detail"], bad


def test_simulated_games_meet_the_exact_chance():
    from dicelab.games.chance.simulate import simulate

    turns = solve(Farkle(players=2, goal=500), turns=True)
    sim = simulate(turns, 20_000, seed=3)
    assert sim.unfinished == 0 and sim.errors_off < 4
    again = simulate(turns, 20_000, seed=3)
    assert again.mean == sim.mean  # a game's dice depend on the seed and its number only


pigs = st.fixed_dictionaries({
    "goal": st.integers(2, 24),
    "dice": st.sampled_from([1, 2]),
    "faces": st.integers(2, 7),
    "piglet": st.booleans(),
    "one": st.sampled_from(["lose-turn", "lose-score"]),
    "double_ones": st.sampled_from(["lose-turn", "lose-score"]),
})  # fmt: skip


@settings(max_examples=12, deadline=None)
@given(pigs)
def test_pig_and_two_dice_pig_agree_with_the_laid_out_game(kw):
    """Pig's 1 is a farkle; two-dice Pig's double 1 loses the whole score too (as a 1
    may, by a house rule), a link to a lower layer that the layers are swept again
    for."""
    game = Pig(**kw)
    laid, turns = solve(game, turns=False), solve(game, turns=True)
    assert isinstance(turns, TurnStartSolution)
    numbered = game.positions()
    for v in range(numbered.size):
        position = numbered.position(v)
        try:
            numbered.index_of(position)
        except KeyError:  # a number the layout leaves unused (a hold with nothing)
            continue
        assert turns.value(position) == pytest.approx(laid.values[v], abs=1e-12), position
        if game.result(position) is None and game.to_move(position) >= 0:
            assert [m.value for m in turns.advise(position)] == pytest.approx(
                [m.value for m in laid.advise(position)], abs=1e-12)  # fmt: skip


def test_a_double_thrown_again_is_laid_out_not_tabled():
    game = Pig(goal=30, dice=2, doubles_roll=True)
    assert not solves_by_turns(game, None, turns=True)
    assert not isinstance(solve(game, turns=True), TurnStartSolution)


def test_pigs_hold_boundary_is_the_same_from_the_turn_starts():
    from dicelab.games.chance.pig import hold_boundary

    game = Pig(goal=30)
    laid, turns = hold_boundary(solve(game, turns=False)), hold_boundary(solve(game, turns=True))
    assert np.array_equal(np.isnan(laid), np.isnan(turns))
    assert np.array_equal(laid[~np.isnan(laid)], turns[~np.isnan(turns)])


def test_the_turn_kernels_compile_without_reference_counts():
    """The turn, its moves and a pair's solve read the rules' bundle in their inner
    loops: compiled with ``NO_REFS`` they cost no atomic operations there (with
    them a turn took five times as long)."""
    from dicelab.engine.kernels import turnstart as K

    for kernel in (K.choose, K.turn_table, K.start_value, K.solve_pair, K.play_turn):
        assert kernel.targetoptions.get("_nrt") is False, kernel.__name__


penalties = st.fixed_dictionaries({
    "dice": st.integers(1, 2),
    "goal": st.integers(2, 5).map(lambda g: 50 * g),
    "penalty": st.sampled_from([0, 50, 100]),
    "farkles": st.integers(1, 3),
    "floor": st.sampled_from([0, -50, -100]),
    "min_bank": st.sampled_from([0, 50, 100]),
    "goal_by_bank": st.booleans(),
})  # fmt: skip


@settings(max_examples=10, deadline=None)
@given(penalties)
def test_the_farkle_penalty_agrees_with_value_iteration_from_the_rules(kw):
    """The penalty for farkles in a row, a floor below 0, the goal reached only by a
    bank: each turn start against a plain value iteration over every state."""
    kw["min_bank"] = min(kw["min_bank"], kw["goal"] - 50)
    if not kw["penalty"]:
        kw["floor"] = 0
    P = oracle.two_player_penalty(**kw)
    game = Farkle(players=2, **kw)
    turns = solve(game, turns=True)
    assert isinstance(turns, TurnStartSolution)
    counted = kw["penalty"] > 0
    for (i, j, ci, cj, t, n), p in P.items():
        if t == 0 and (counted or ci == cj == 0):
            extra = (ci, cj) if counted else ()
            position = ("roll", 0, i // 50, j // 50, 0, n, *extra)
            assert turns.value(position) == pytest.approx(p, abs=1e-11), position


@settings(max_examples=4, deadline=None)
@given(penalties)
def test_the_farkle_penalty_agrees_with_the_walked_game_move_by_move(kw):
    kw.update(penalty=max(kw["penalty"], 50), min_bank=min(kw["min_bank"], kw["goal"] - 50))
    game = Farkle(players=2, **kw)
    walked, turns = solve(game, turns=False), solve(game, turns=True)
    for v, position in enumerate(walked.layout.positions):
        assert turns.value(position) == pytest.approx(walked.values[v], abs=1e-12), position
        if game.result(position) is None and game.to_move(position) >= 0:
            assert [m.value for m in turns.advise(position)] == pytest.approx(
                [m.value for m in walked.advise(position)], abs=1e-12)  # fmt: skip


def test_a_penalty_game_reads_and_shows_the_farkles_in_a_row():
    game = Farkle(players=2, goal=1000, penalty=500, floor=-500, min_bank=300, goal_by_bank=True)
    position = game.parse("1 5 / 300 / -200 450 / 2 1")
    assert position == ("keep", 0, -4, 9, 6, (2, 3), 2, 1)
    assert "farkles in a row 2-1" in game.show(position)
    farkle = [pos for p, label, pos in game.outcomes(("roll", 0, -4, 9, 0, 6, 2, 1))
              if pos[0] == "roll"]  # fmt: skip
    assert set(farkle) == {("roll", 1, -10, 9, 0, 6, 0, 1)}  # 500 lost, floored at -500
    for bad, words in [("1 5 / 300 / -600 0 / 0 0", "scores"), ("1 5 / 300 / 0 0 / 3 0", "farkles"),
                       ("1 5 / 300 / 0 0 / 1", "expected")]:  # fmt: skip
        with pytest.raises(UserError, match=words):
            game.parse(bad)
    with pytest.raises(UserError, match="players=2"):
        Farkle(players=1, penalty=500)
    with pytest.raises(UserError, match="set penalty too"):
        Farkle(players=2, floor=-500)


def test_the_bear_off_table_of_pairs_is_the_laid_out_race_pair_by_pair():
    """Every pair of sides of up to 4 checkers, on roll from either seat, and every
    play of every throw: the table of pairs against the race laid out with its throws
    (which agrees with gnubg's two-sided database, docs/games.md)."""
    from dicelab.games.chance.bearoff import BearOff
    from dicelab.games.chance.bearoff_layout import all_positions
    from dicelab.games.chance.bearoff_table import RaceSolution
    from dicelab.games.chance.throws import ROLLS

    game = BearOff(mine=(6, 5, 4, 3), theirs=(6, 6, 1, 1))
    laid, table = solve(game, turns=False), solve(game, turns=True)
    assert isinstance(table, RaceSolution) and len(table) == 210 * 210
    sides = [tuple(int((k >> (4 * p)) & 15) for p in range(6)) for k in all_positions(4)[1:]]
    for a in sides:
        for b in sides[::7]:
            for seat in (0, 1):
                here = ("roll", seat, a, b)
                assert table.value(here) == pytest.approx(laid.value(here), abs=1e-12)
            for (x, y), _ in ROLLS[::4]:
                here = ("move", 0, a, b, (x, y))
                assert [m.value for m in table.advise(here)] == pytest.approx(
                    [m.value for m in laid.advise(here)], abs=1e-12)  # fmt: skip
    with pytest.raises(UserError, match="not a position"):
        table.value(("roll", 0, (5, 0, 0, 0, 0, 0), sides[0]))  # 5 checkers: past the table
    from dicelab.games.chance.simulate import simulate

    sim = simulate(table, 3000, seed=2)  # played move by move from the table's advice
    assert sim.unfinished == 0 and sim.errors_off < 4


def test_a_table_past_the_machine_is_refused_at_once_with_its_size(capsys, monkeypatch):
    """Turn starts and pairs of sides are sized before anything starts: Farkle to
    100,000 (four million turn starts, hours) is refused in one line."""
    import time

    from dicelab.engine.runtime import cost as cost_module
    from dicelab.engine.turnstart import turn_cost

    monkeypatch.setattr(cost_module, "cores_here", lambda shared=True: 2.0)  # rates' cores
    began = time.monotonic()
    assert dicelab(monkeypatch, "solve", "farkle", "--set", "players=2", "--set",
                   "goal=100000") == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "4,000,000 turn starts" in err and "longer than" in err and err.count("\n") == 1
    assert time.monotonic() - began < 10
    small = turn_cost(Farkle(players=2, goal=1000).banking_turn())
    large = turn_cost(Farkle(players=2).banking_turn())
    assert small.states == 400 and large.states == 40_000 and 10 < large.seconds < 120
