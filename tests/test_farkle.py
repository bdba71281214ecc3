"""Farkle on the chance model, against a plain solver of its rules and published figures."""

import json
from fractions import Fraction

import pytest
from command_line import run_in_process as dicelab
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import farkle as oracle

from dicelab.errors import UserError
from dicelab.games.chance import solve
from dicelab.games.chance.families import game_from
from dicelab.games.chance.farkle import Farkle, Scoring, farkle_chance, offers

rules = st.fixed_dictionaries({
    "three_ones": st.sampled_from([1000, 300]),
    "kinds": st.sampled_from(["add", "double"]),
})  # fmt: skip

#: the scoring table's other combinations, as house rules
house = st.fixed_dictionaries({
    "three_ones": st.sampled_from([1000, 300]),
    "kinds": st.sampled_from(["add", "double", "fixed"]),
    "ones": st.sampled_from([100, 50]),
    "fives": st.sampled_from([50, 0]),
    "four_kind": st.sampled_from([1000, 0]),
    "five_kind": st.sampled_from([2000, 150]),
    "six_kind": st.sampled_from([3000, 0]),
    "two_triples": st.sampled_from([0, 2500]),
    "four_and_pair": st.sampled_from([0, 1500]),
})  # fmt: skip


def test_the_chance_of_a_farkle_is_the_published_one_for_each_count_of_dice():
    # farkle.games, "Farkle Odds": 2/6, 20/36, 156/216, 1092/1296, 7176/7776 score
    # with 1 to 5 dice; six dice farkle 1080 times in 46,656 (1 in 43.2), three pairs
    # and the straight scoring
    scoring = {1: (2, 6), 2: (20, 36), 3: (156, 216), 4: (1092, 1296), 5: (7176, 7776)}
    for n, (scores, out_of) in scoring.items():
        assert farkle_chance(n) == 1 - Fraction(scores, out_of)
    assert farkle_chance(6) == Fraction(1080, 46656) == 1 / Fraction(432, 10)
    for n in range(1, 6):
        fails, rolls = oracle.farkle_chance(n)
        assert farkle_chance(n) == Fraction(fails, rolls)


def test_the_scoring_table():
    s = Scoring()
    assert [s.value(c) * 50 for c in [
        (1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 1, 0), (3, 0, 0, 0, 0, 0), (0, 3, 0, 0, 0, 0),
        (4, 0, 0, 0, 0, 0), (5, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 4), (0, 0, 0, 0, 0, 5),
        (1, 1, 1, 1, 1, 1), (2, 2, 2, 0, 0, 0), (0, 4, 2, 0, 0, 0), (0, 1, 0, 0, 0, 0),
        (2, 0, 0, 0, 1, 0), (0, 0, 0, 0, 0, 6)]] == [
        100, 50, 1000, 200, 2000, 3000, 1200, 1800, 1500, 750, 0, 0, 250, 2400]  # fmt: skip
    assert Scoring(kinds="double").value((0, 6, 0, 0, 0, 0)) * 50 == 1600
    # a throw of 1 2 2 2 5 4 offers 100 with one die, 150 with two, 200+100 with four...
    assert [x * 50 for x in offers(s, (1, 3, 0, 1, 1, 0))] == [100, 150, 200, 300, 350, 0]


@settings(max_examples=120, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=6), house,
       st.sampled_from([0, 500, 750]), st.sampled_from([0, 1500]))  # fmt: skip
def test_a_set_of_dice_scores_what_every_cut_into_combinations_gives(dice, kw, pairs, run):
    score = oracle.make_score(oracle.combos(three_pairs=pairs, straight=run, **kw))
    s = Scoring(three_pairs=pairs, straight=run, **kw)
    counts = tuple(dice.count(f) for f in range(1, 7))
    assert s.value(counts) * 50 == score(dice)
    best = {}
    for points, left in oracle.choices(dice, score):
        k = len(dice) - left
        best[k] = max(best.get(k, 0), points)
    assert [x * 50 for x in offers(s, counts)] == [best.get(k, 0) for k in range(1, len(dice) + 1)]


def test_one_turn_meets_the_published_expected_values():
    # the Farkle post of rmckenna21.blogspot.com: a turn's expected value when rolling, by
    # turn total and dice to throw (to the digits given there)
    s = solve(Farkle(players=1))
    published = {(50, 5): 363.834, (100, 5): 399.911, (150, 4): 307.673,
                 (200, 3): 257.584, (250, 3): 293.4}  # fmt: skip
    for (t, n), value in published.items():
        assert s.value(("roll", 0, 0, 0, t // 50, n)) == pytest.approx(value, abs=5e-4)
    assert s.value() == pytest.approx(548.857618, abs=1e-6)
    assert s.value() == pytest.approx(solve(Farkle(players=1, goal=40000)).value(), abs=1e-9)


@pytest.mark.slow
def test_one_turn_of_six_dice_agrees_with_the_rules_solved_plainly():
    E = oracle.one_turn(dice=6, cap=2000, three_pairs=500, straight=1000, kinds="double")
    s = solve(Farkle(players=1, goal=2000, three_pairs=500, straight=1000, kinds="double"))
    assert s.value() == pytest.approx(E(0, 6), abs=1e-9)
    assert s.value(("roll", 0, 0, 0, 4, 3)) == pytest.approx(E(200, 3), abs=1e-9)


def test_one_turn_of_house_scoring_agrees_with_the_rules_solved_plainly():
    """A table of other combinations: fixed kinds, two triples, four and a pair, no 5s."""
    kw = {"kinds": "fixed", "four_kind": 500, "five_kind": 1000, "six_kind": 0,
          "two_triples": 2500, "four_and_pair": 1500, "fives": 0, "ones": 150}  # fmt: skip
    E = oracle.one_turn(dice=6, cap=1000, **kw)
    s = solve(Farkle(players=1, goal=1000, **kw))
    assert s.value() == pytest.approx(E(0, 6), abs=1e-9)


@settings(max_examples=8, deadline=None)
@given(st.integers(1, 4), st.integers(1, 40).map(lambda g: 50 * g), st.sampled_from([0, 300]),
       st.one_of(rules, house))  # fmt: skip
def test_one_turn_agrees_with_a_recursion_from_the_rules(dice, cap, min_bank, kw):
    min_bank = min(min_bank, cap - 50)
    E = oracle.one_turn(dice=dice, cap=cap, min_bank=min_bank, **kw)
    s = solve(Farkle(players=1, goal=cap, dice=dice, min_bank=min_bank, **kw))
    assert s.value() == pytest.approx(E(0, dice), abs=1e-9)


@settings(max_examples=6, deadline=None)
@given(st.integers(1, 3), st.integers(1, 6).map(lambda g: 50 * g), st.sampled_from([0, 100]),
       rules)  # fmt: skip
def test_two_players_agree_with_value_iteration_from_the_rules(dice, goal, min_bank, kw):
    min_bank = min(min_bank, goal - 50)
    P = oracle.two_player(goal, dice=dice, min_bank=min_bank, **kw)
    s = solve(Farkle(players=2, goal=goal, dice=dice, min_bank=min_bank, **kw))
    assert s.value() == pytest.approx(P[(0, 0, 0, dice)], abs=1e-9)
    # a position with player 2 to throw, from player 1's side
    if goal > 100 and min_bank == 0:
        assert s.value(("roll", 1, 1, 0, 0, dice)) == pytest.approx(
            1 - P[(0, 50, 0, dice)], abs=1e-9)  # fmt: skip


@settings(max_examples=5, deadline=None)
@given(st.integers(1, 3), st.integers(1, 8).map(lambda g: 50 * g), rules)
def test_fewest_turns_agree_with_value_iteration_from_the_rules(dice, goal, kw):
    T = oracle.fewest_turns(goal, dice=dice, **kw)
    s = solve(Farkle(players=1, play="goal", goal=goal, dice=dice, **kw))
    assert s.objective == "turns"
    assert s.value() == pytest.approx(T[(0, 0, dice)], rel=1e-9)


@settings(max_examples=8, deadline=None)
@given(st.sampled_from([(2, "turn"), (1, "turn"), (1, "goal")]), st.integers(1, 4),
       st.integers(1, 8).map(lambda g: 50 * g), st.sampled_from([0, 100]), rules)  # fmt: skip
def test_the_array_layout_is_the_walk_of_the_rules(kind, dice, goal, min_bank, kw):
    from dicelab.games.chance.explore import explore

    players, play = kind
    game = Farkle(players=players, play=play, goal=goal, dice=dice,
                  min_bank=min(min_bank, goal - 50), **kw)  # fmt: skip
    fast, walked = solve(game), solve(game, walk=True)
    assert len(fast) == game.size() >= len(walked)
    lay = fast.layout
    for v, position in enumerate(walked.layout.positions):
        u = lay.node(position)
        assert lay.positions[u] == position
        assert fast.values[u] == pytest.approx(walked.values[v], abs=1e-9)
        if game.result(position) is None and game.to_move(position) >= 0:
            assert [m.value for m in fast.advise(position)] == pytest.approx(
                [m.value for m in walked.advise(position)], abs=1e-9)  # fmt: skip
    assert explore(game, exact=True).exact is not None


def test_two_player_farkle_to_10000_is_solved_where_its_turns_start():
    """1.9 billion positions laid out; 40,000 turn starts (tests/test_turn_starts.py;
    the full solve is benchmarks/bench_games.py's)."""
    from dicelab.games.chance.turn_solution import TURNS_ABOVE, solves_by_turns

    game = Farkle(players=2)
    assert game.estimate() == game.size() == 1_881_360_002 > TURNS_ABOVE
    assert solves_by_turns(game, None) and game.banking_turn().goal == 200
    assert not solves_by_turns(Farkle(players=1), None)
    assert not solves_by_turns(Farkle(players=2, goal=500), None)  # small: laid out
    assert solves_by_turns(Farkle(players=2, goal=500), None, turns=True)


def test_settings_and_positions_are_checked_with_one_clear_line(capsys, monkeypatch):
    for args, words in [
        (["goal=125"], "multiple of 50"),
        (["players=7"], "expected 1 to 6"),
        (["dice=7"], "expected 1 to 6"),
        (["kinds=triple"], "expected add, double, fixed"),
        (["play=forever", "players=1"], "expected turn or goal"),
        (["play=goal", "players=2"], "one player's game"),
        (["straight=60"], "multiple of 50"),
        (["min_bank=20000", "goal=1000"], "below the goal"),
    ]:
        with pytest.raises(UserError, match=words):
            game_from("farkle", args)
    game = Farkle(players=1)
    for text, words in [("1 1 x / 300", "expected"), ("1 7 / 0", "1 to 6"),
                        ("2 3 4 6 6 2 / 0", "a farkle"), ("1 5 / 75", "multiples of 50"),
                        ("1 1 1 1 1 1 1 / 0", "expected")]:  # fmt: skip
        with pytest.raises(UserError, match=words):
            game.parse(text)
    assert game.parse("5 1 / 300") == ("keep", 0, 0, 0, 6, (2, 3))
    assert Farkle(players=2, goal=500).parse("1 / 100 / 200 50 p2") == ("keep", 1, 1, 4, 2, (2,))
    assert dicelab(monkeypatch, "advise", "farkle", "--set", "players=1", "--at", "1 7") == 2
    err = capsys.readouterr().err
    assert "farkle position" in err and err.count("\n") == 1


def test_command_line_solves_advises_plays_and_simulates(capsys, monkeypatch, tmp_path):
    from dicelab.cli.chance_play import run_game_play, run_game_review
    from dicelab.cli.output import Console
    from dicelab.games.chance.simulate import simulate

    assert dicelab(monkeypatch, "solve", "farkle", "--set", "players=2", "--set", "goal=300",
                   "--set", "dice=3", "--json") == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["value"] == pytest.approx(oracle.two_player(300, dice=3)[(0, 0, 0, 3)], abs=1e-9)
    assert dicelab(monkeypatch, "advise", "farkle", "--set", "players=1", "--at",
                   "1 1 5 2 3 4 / 300", "--json") == 0  # fmt: skip
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert moves[0]["move"] == "keep 100 (1 die), roll 5" and moves[0]["cost"] == 0
    assert {m["move"] for m in moves} >= {"bank 550", "keep 250 (3 dice), roll 3"}
    path = tmp_path / "farkle.json"
    console = Console(record=True, width=150)
    code = run_game_play("farkle", ["players=2", "goal=500", "dice=3"], seed=2, record=path,
                         console=console, read=lambda prompt: "")  # fmt: skip
    assert code == 0 and "cost 0.0000 in all" in console.export_text()
    again = run_game_review(str(path), console=Console(record=True, width=150))
    assert all(d["cost"] == 0 for d in again)
    sim = simulate(solve(Farkle(players=1, goal=3000)), 20_000, seed=1)
    assert sim.unfinished == 0 and sim.errors_off < 4


def test_a_typed_throw_is_read_in_any_order():
    from dicelab.cli.chance_play import _as_labelled

    labels = ["1 1 5", "1 5 6", "3-6"]
    assert _as_labelled("5 1 1", labels) == "1 1 5"
    assert _as_labelled("6,5,1", labels) == "1 5 6"
    assert _as_labelled("6-3", labels) == "3-6"
    assert _as_labelled("7 7", labels) not in labels


def test_after_a_throw_each_move_names_the_dice_it_sets_aside():
    """The page's dice to tap: the dice each move keeps score the move's points, as the
    plain scorer counts them (a bank keeps the dice that score the most)."""
    from fastapi.testclient import TestClient

    from dicelab.web.app import create_app

    client = TestClient(create_app(), base_url="http://localhost")
    game = {"game": "farkle", "settings": {"players": "1"}}
    start = client.post("/api/games/position", json=game).json()
    now = client.post("/api/games/position", json={**game, "position": start["position"],
                                                   "throw": "1 1 2 3 5 5"}).json()  # fmt: skip
    kept = {m["move"]: m["dice"] for m in now["moves"]}
    assert kept["keep 100 (1 die), roll 5"] == [1]
    assert kept["keep 200 (2 dice), roll 4"] == [1, 1]
    assert sorted(kept["keep 300 (4 dice), roll 2"]) == [1, 1, 5, 5]
    assert sorted(kept["bank 300"]) == [1, 1, 5, 5]
    score = oracle.make_score(oracle.combos())
    for move, dice in kept.items():  # each keep's dice score its points, by the oracle
        if move.startswith("keep"):
            assert score(dice) == int(move.split()[1]), move
