"""Games on the chance model (Pig, Shut the Box, the bear-off, a game of one's own)
against plain solvers written from the rules, published figures and simulation."""

import json
import random
from fractions import Fraction

import numpy as np
import pytest
from command_line import run_in_process as dicelab
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import chance as oracle

import dicelab.engine.graph as graph
from dicelab.errors import UserError
from dicelab.games.chance import ChanceGame, solve
from dicelab.games.chance.bearoff import BearOff
from dicelab.games.chance.explore import explore
from dicelab.games.chance.families import game_from
from dicelab.games.chance.pig import Pig
from dicelab.games.chance.shut_the_box import ShutTheBox
from dicelab.games.chance.strategies import hold_at

pig_settings = st.fixed_dictionaries(
    {
        "goal": st.integers(2, 14),
        "faces": st.integers(2, 6),
        "dice": st.sampled_from([1, 2]),
        "piglet": st.booleans(),
    }
)


@settings(max_examples=25, deadline=None)
@given(pig_settings)
def test_pig_agrees_with_value_iteration_from_the_rules(kw):
    P = oracle.pig_values(kw["goal"], kw["faces"], kw["dice"], kw["piglet"])
    s = solve(Pig(**kw))
    assert s.value() == pytest.approx(P[(0, 0, 0)], abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    pig_settings,
    st.sampled_from(["lose-turn", "lose-score"]),
    st.sampled_from(["lose-turn", "lose-score"]),
    st.booleans(),
)
def test_pigs_house_rules_agree_with_value_iteration_from_the_rules(kw, one, double_ones,
                                                                    doubles_roll):  # fmt: skip
    house = {"one": one, "double_ones": double_ones, "doubles_roll": doubles_roll}
    P = oracle.pig_values(kw["goal"], kw["faces"], kw["dice"], kw["piglet"], **house)
    s = solve(Pig(**kw, **house))
    assert s.value() == pytest.approx(P[(0, 0, 0)], abs=1e-12)
    for (i, j, k), p in list(P.items())[::7]:  # the mover's view, for both seats
        if k == 0:
            assert s.value((0, i, j, 0, True)) == pytest.approx(p, abs=1e-12)
            assert 1 - s.value((1, j, i, 0, True)) == pytest.approx(p, abs=1e-12)
    assert s.solved.residual <= 1e-12


@settings(max_examples=10, deadline=None)
@given(pig_settings)
def test_pigs_array_layout_is_the_walk_of_its_rules(kw):
    game = Pig(**kw)
    walked, laid = explore(game, walk=True), explore(game)
    a = graph.solve_graph(walked.graph("win")).values
    b = graph.solve_graph(laid.graph("win")).values
    nodes = [laid.index[p] for p in walked.positions]
    assert np.abs(a - b[nodes]).max() < 1e-12
    for v in range(0, len(walked), 5):  # the same links, position by position
        w = nodes[v]
        there = sorted(
            map(
                repr,
                (walked.positions[x] for x in walked.to[walked.start[v] : walked.start[v + 1]]),
            )
        )
        here = sorted(
            map(repr, (laid.positions[x] for x in laid.to[laid.start[w] : laid.start[w + 1]]))
        )
        assert here == there


@pytest.mark.slow
def test_pig_to_100_is_neller_and_pressers_figure():
    # Neller & Presser, "Optimal Play of the Dice Game Pig", UMAP Journal 25 (2004):
    # the first player wins 53.06% of games with optimal play
    s = solve(Pig(goal=100))
    assert round(s.value(), 4) == 0.5306
    assert s.solved.residual == 0.0


def test_pig_strategies_priced_against_the_rules():
    goal = 12
    s = solve(Pig(goal=goal))
    P = oracle.pig_values(goal, hold=lambda i, j, k: k >= 5)  # both hold at 5
    assert s.price(hold_at(5), hold_at(5)) == pytest.approx(P[(0, 0, 0)], abs=1e-12)
    alone = s.price(hold_at(5))  # against the best reply: no better than best play
    assert alone < s.value()
    assert s.price(hold_at(5), hold_at(5)) > alone - 1e-12


def test_pig_advice_ranks_roll_and_hold_with_their_costs():
    s = solve(Pig(goal=20))
    moves = s.advise(Pig(goal=20).parse("10 15 8"))
    assert {m.label for m in moves} == {"roll", "hold"}
    assert moves[0].cost == 0 and moves[1].cost > 0
    assert moves[0].value == pytest.approx(max(m.value for m in moves))
    with pytest.raises(UserError, match="not a position"):
        s.advise(Pig(goal=20).parse("30 15 8"))


@pytest.mark.parametrize(
    "kw, published",
    [
        # Bill Butler, "Shut the Box Analysis" (durangobill.com): 7.1432 % with two
        # dice always, 9.7614 % with one die allowed late
        ({"one_die": "never"}, 0.071432),
        ({"one_die": "when-top-shut"}, 0.097614),
    ],
)
def test_shut_the_box_published_chances(kw, published):
    assert round(solve(ShutTheBox(**kw)).value(), 6) == published


def test_shut_the_box_six_tiles_one_die_is_the_fiddlers_fraction():
    # The Fiddler (Zach Wissner-Gross), 13 September 2024: 145/1944
    assert solve(ShutTheBox(tiles=6, dice=1)).exact() == Fraction(145, 1944)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 7),
    st.sampled_from(["never", "when-top-shut", "when-sum-6", "always"]),
    st.sampled_from([1, 2]),
    st.sampled_from(["shut", "sum", "digits"]),
    st.sampled_from(["any", "two", "dice"]),
    st.booleans(),
    st.booleans(),
)
def test_shut_the_box_agrees_with_a_recursion_in_fractions(tiles, one_die, dice, score, shut,
                                                           must, worst):  # fmt: skip
    kw = {"tiles": tiles, "one_die": one_die, "dice": dice, "score": score, "shut": shut,
          "one_die_must": must, "worst": worst}  # fmt: skip
    s = solve(ShutTheBox(**kw))
    assert s.exact() == oracle.shut_the_box(**kw)
    assert s.value() == pytest.approx(float(oracle.shut_the_box(**kw)), rel=1e-12)


side = st.lists(st.integers(1, 6), min_size=1, max_size=2).map(lambda x: tuple(sorted(x)))


@settings(max_examples=20, deadline=None)
@given(side, side)
def test_bearoff_race_agrees_with_a_recursion_of_its_own(mine, theirs):
    s = solve(BearOff(mine=mine, theirs=theirs))
    assert s.value() == pytest.approx(float(oracle.bearoff_win(mine, theirs)), abs=1e-12)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=5).map(lambda x: tuple(sorted(x))))
def test_bearoff_fewest_throws_agree_with_a_recursion(mine):
    s = solve(BearOff(mine=mine))
    assert s.value() == pytest.approx(float(oracle.bearoff_throws(mine)), rel=1e-12)


def test_one_checker_on_the_six_point_takes_five_quarters_of_a_throw():
    # off at once unless the throw is 1-1, 1-2, 1-3, 1-4 or 2-3 (9 in 36); then surely
    assert solve(BearOff(mine=(6,))).exact() == Fraction(5, 4)


def test_simulated_pig_games_agree_with_the_exact_chance():
    game = Pig(goal=15)
    s = solve(game)
    choice, lay = s.solved.choice, s.layout
    rng = random.Random(7)
    wins, games = 0, 20_000
    for _ in range(games):
        here = game.start()
        while game.result(here) is None:
            if game.to_move(here) == -1:
                outcomes = game.outcomes(here)
                here = rng.choices([o[2] for o in outcomes], [float(o[0]) for o in outcomes])[0]
            else:
                here = lay.positions[lay.to[choice[lay.node(here)]]]
        wins += game.result(here) == 1.0
    p = s.value()
    assert abs(wins / games - p) < 4 * (p * (1 - p) / games) ** 0.5


class Race(ChanceGame):
    """Two players throw a coin in turn; heads scores; the first to two wins.
    Positions repeat only in time, never in state: a check of a game of one's own."""

    def start(self):
        return (0, 0, 0)

    def to_move(self, position):
        return -1

    def outcomes(self, position):
        seat, a, b = position
        scored = (seat ^ 1, a + 1, b) if seat == 0 else (seat ^ 1, a, b + 1)
        return [(Fraction(1, 2), "heads", scored), (Fraction(1, 2), "tails", (seat ^ 1, a, b))]

    def result(self, position):
        _, a, b = position
        return 1.0 if a == 2 else 0.0 if b == 2 else None


def test_a_game_of_ones_own_with_positions_that_come_back():
    s = solve(Race())
    # first to two heads, alternating throws: the first thrower wins 16/27 of the time
    assert s.exact() == Fraction(16, 27)
    assert s.solved.cyclic > 0


def test_settings_and_positions_are_checked_with_one_clear_line():
    with pytest.raises(UserError, match="no setting 'gaol'"):
        game_from("pig", ["gaol=3"])
    with pytest.raises(UserError, match="expected NAME=VALUE"):
        game_from("pig", ["goal"])
    with pytest.raises(UserError, match="pig goal: got 'x'"):
        game_from("pig", ["goal=x"])
    with pytest.raises(UserError, match="expected 1 to 1000"):
        game_from("pig", ["goal=0"])
    with pytest.raises(UserError, match="one_die"):
        game_from("shut-the-box", ["one_die=sometimes"])
    with pytest.raises(UserError, match="expected three whole numbers"):
        Pig().parse("40 x")
    with pytest.raises(UserError, match="past the limit of 10"):
        solve(Pig(goal=30), limit=10)


def test_command_line_solves_advises_and_refuses(capsys, tmp_path, monkeypatch):
    assert dicelab(monkeypatch, "solve", "pig", "--set", "goal=10", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["value"] == pytest.approx(oracle.pig_values(10)[(0, 0, 0)], abs=1e-12)
    path = tmp_path / "box.toml"
    path.write_text('game = "shut-the-box"\ntiles = 6\ndice = 1\n')
    assert dicelab(monkeypatch, "solve", str(path), "--exact") == 0
    assert "145/1944" in capsys.readouterr().out
    assert (
        dicelab(monkeypatch, "advise", "pig", "--set", "goal=20", "--at", "10 15 8", "--json") == 0
    )
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert [m["move"] for m in moves][0] in ("roll", "hold")
    assert dicelab(monkeypatch, "solve", "pig", "--set", "goal=2O") != 0
    err = capsys.readouterr().err
    assert "goal: got '2O'" in err and "Traceback" not in err
    assert dicelab(monkeypatch, "solve", "yacht", "--set", "goal=5") != 0
    assert "--set: for a dice game" in capsys.readouterr().err


def scripted(answers):
    """A ``read`` that types ``answers`` in turn, then empty lines."""
    it = iter(answers)
    return lambda prompt: next(it, "")


def test_playing_pig_in_the_terminal_prices_each_decision(tmp_path):
    from dicelab.cli.chance_play import run_game_play
    from dicelab.cli.output import Console

    console = Console(record=True, width=120)
    path = tmp_path / "pig.json"
    code = run_game_play("pig", ["goal=10"], seed=5, record=path, console=console,
                         read=scripted([]))  # fmt: skip
    out = console.export_text()
    assert code == 0 and "game over" in out and "cost 0.0000 in all" in out
    saved = json.loads(path.read_text())
    assert saved["seed"] == 5 and saved["result"] in (0.0, 1.0)
    assert all(d["cost"] == 0 for d in saved["decisions"])
    # a hold at the first chance, then the best: the hold's cost is what advice said
    console = Console(record=True, width=120)
    run_game_play("pig", ["goal=10"], seed=5, console=console, read=scripted(["hold"]))
    out = console.export_text()
    assert "you: hold" in out


def test_playing_with_real_dice_and_stopping(tmp_path):
    from dicelab.cli.chance_play import run_game_play
    from dicelab.cli.output import Console

    console = Console(record=True, width=120)
    path = tmp_path / "box.json"
    answers = ["13", "7", "", "q"]  # not a throw, then 7, the best shut, then stop at a throw
    code = run_game_play("shut-the-box", ["tiles=9"], dice="real", record=path,
                         console=console, read=scripted(answers))  # fmt: skip
    out = console.export_text()
    assert code == 0 and "not a throw here: '13'" in out and "stopped" in out
    assert json.loads(path.read_text())["steps"][0] == {"throw": "7"}
    with pytest.raises(UserError, match="already exists"):
        run_game_play("pig", [], record=path, console=console, read=scripted([]))
    with pytest.raises(UserError, match="--seat"):
        run_game_play("pig", [], seat=3, console=console, read=scripted([]))


def test_the_json_api_plays_a_game_from_start_to_end():
    from fastapi.testclient import TestClient

    from dicelab.web.app import create_app

    client = TestClient(create_app(), base_url="http://localhost")
    families = {f["name"]: f for f in client.get("/api/games").json()}
    assert {"pig", "shut-the-box", "bearoff"} <= set(families)
    game = {"game": "shut-the-box", "settings": {"tiles": "6", "dice": "1"}}
    now = client.post("/api/games/position", json=game).json()
    assert now["start_value"] == pytest.approx(145 / 1944) and now["mover"] == "dice"
    rng = random.Random(1)
    while now["mover"] != "end":
        step = {"throw": rng.choice(now["throws"])["throw"]} if now["throws"] else {
            "move": now["moves"][0]["move"]}  # fmt: skip
        now = client.post("/api/games/position", json={**game, "position": now["position"],
                                                         **step}).json()  # fmt: skip
    assert now["verdict"] and now["result"] in (0.0, 1.0)
    for body, words in [
        ({"game": "pog"}, "expected one of pig"),
        ({"game": "pig", "settings": {"goal": "x"}}, "pig goal: got 'x'"),
        ({"game": "pig", "position": [9, 9]}, "not a position"),
        ({"game": "pig", "position": {"a": 1}}, "not a position"),
        ({"game": "pig", "move": "hold"}, "the dice decide"),
        ({"game": "pig", "throw": "7", "settings": {"goal": "10"}}, "expected one of 1, 2"),
    ]:
        answer = client.post("/api/games/position", json=body)
        assert answer.status_code == 400 and words in answer.json()["detail"], body


def test_pigs_hold_boundary_is_where_holding_beats_rolling_and_is_drawn(tmp_path):
    from dicelab.cli.chance import run_game_solve
    from dicelab.cli.output import Console
    from dicelab.games.chance.pig import hold_boundary

    goal = 14
    P = oracle.pig_values(goal)
    s = solve(Pig(goal=goal))
    boundary = hold_boundary(s)
    for i in range(goal):
        for j in range(0, goal, 3):
            k_hold = [k for k in range(1, goal - i)
                      if 1 - P[(j, i + k, 0)] > P[(i, j, k)] - 1e-12 and
                      abs((1 - P[(j, i + k, 0)]) - P[(i, j, k)]) < 1e-12]  # fmt: skip
            first = k_hold[0] if k_hold else None
            assert (first is None) == np.isnan(boundary[i, j])
            assert first is None or boundary[i, j] == first
    path = tmp_path / "pig.png"
    run_game_solve("pig", ["goal=14"], plot=str(path), console=Console(record=True))
    assert path.stat().st_size > 1000
    with pytest.raises(UserError, match="no picture"):
        run_game_solve("shut-the-box", [], plot=str(path), console=Console(record=True))


@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=3).map(lambda x: tuple(sorted(x))))
def test_one_sided_bearoff_layout_is_the_walk_and_its_throws_add_up(mine):
    from dicelab.games.chance.bearoff_layout import throws_distribution

    game = BearOff(mine=mine)
    walked = explore(game, walk=True)
    a = graph.solve_graph(walked.graph("turns")).values
    s = solve(game)
    assert a[0] == pytest.approx(s.value(), abs=1e-12)
    for v in range(0, len(walked), 3):
        assert a[v] == pytest.approx(s.value(walked.positions[v]), abs=1e-12)
    dist = throws_distribution(s)
    assert dist.sum() == pytest.approx(1.0) and dist @ np.arange(dist.size) == pytest.approx(
        s.value()
    )


def test_one_checker_on_the_six_point_bears_off_in_one_throw_three_times_in_four():
    from dicelab.games.chance.bearoff_layout import throws_distribution

    dist = throws_distribution(solve(BearOff(mine=(6,))))
    assert list(dist[:3]) == pytest.approx([0.0, 0.75, 0.25]) and dist[3:].sum() == 0


@pytest.mark.parametrize(
    "a, b, dice, faces",
    [((5, 6, 7, 8, 9), (5, 6, 7, 7, 8), 2, 6), ((2, 3), (4,), 1, 4), ((3, 3, 4), (2, 4, 4), 2, 3)],
)
def test_the_dice_race_on_the_chance_model_is_the_race_solvers(a, b, dice, faces):
    from dicelab.games.chance.adapters import DiceRace
    from dicelab.games.race.exact import race

    r = race(a, b, dice=dice, faces=faces)
    s = solve(DiceRace(a, b, dice, faces))
    assert s.exact() == r.win + r.tie / 2
    assert s.draw() == pytest.approx(float(r.tie), abs=1e-12)


@pytest.mark.parametrize("name", ["tictactoe", "door"])
def test_the_two_player_games_on_the_chance_model_keep_every_value(name):
    import dicelab.games.twoplayer as tp
    from dicelab.games.chance.adapters import TwoPlayerGame
    from dicelab.games.door import DoorGame
    from dicelab.games.tictactoe import TicTacToe

    inner = TicTacToe() if name == "tictactoe" else DoorGame([1, 2, 3, 4], target=11, bust=12)
    ref = tp.solve(inner)
    s = solve(TwoPlayerGame(inner, name))
    worth = {tp.Value.WIN: 1.0, tp.Value.LOSS: 0.0, tp.Value.DRAW: 0.5}
    for position, value, _ in ref.items():
        mine = worth[value]  # for the player to move; the chance model's is the first's
        first = mine if inner.to_move(position) == tp.FIRST else 1 - mine
        assert s.value(position) == first, position


def test_simulated_games_meet_the_exact_values_and_a_played_game_is_reviewed(
    tmp_path, capsys, monkeypatch
):
    from dicelab.cli.chance_play import run_game_play, run_game_review
    from dicelab.cli.output import Console
    from dicelab.games.chance.simulate import simulate

    for game in (ShutTheBox(), BearOff(mine=(6, 5, 4)), Pig(goal=12, dice=2)):
        sim = simulate(solve(game), 20_000, seed=3)
        assert sim.unfinished == 0 and sim.errors_off < 4, (game.name, sim)
    path = tmp_path / "pig.json"
    console = Console(record=True, width=150)
    run_game_play("pig", ["goal=12"], seed=4, record=path, console=console,
                  read=scripted(["hold", "", "hold"]))  # fmt: skip
    played = json.loads(path.read_text())["decisions"]
    again = run_game_review(str(path), console=Console(record=True, width=150))
    assert [d["cost"] for d in again] == pytest.approx([d["cost"] for d in played])
    capsys.readouterr()  # what the game and the review above printed
    assert dicelab(monkeypatch, "review", str(path), "--json") == 0
    assert json.loads(capsys.readouterr().out)["total_cost"] == pytest.approx(
        sum(d["cost"] for d in played)
    )
    broken = json.loads(path.read_text())
    broken["steps"][0] = {"move": "roll"}  # the game starts with a throw
    path.write_text(json.dumps(broken))
    assert dicelab(monkeypatch, "review", str(path)) == 2
    assert "step 1: expected a throw" in capsys.readouterr().err


def test_a_new_users_mistakes_are_one_line_each(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where a game played from the command line is saved
    mistakes = [
        (["advise", "bearoff", "--set", "mine=6,5,2", "--at", "8 5 2 / 6-3"], "bearoff position"),
        (["advise", "bearoff", "--set", "mine=6,5,2", "--at", "0 5 2 / 6-3"], "bearoff position"),
        (["advise", "pig", "--at", "40 55 -3"], "of 0 or more"),
        (["advise", "shut-the-box", "--at", "1 2 3 / 13"], "throws are 1 to 12"),
        (["solve", "pig", "--against", "hold-at=20"], "--against: goes with --strategy"),
        (["solve", "pig", "--set", "goal=abc"], "expected a whole number"),
        (["solve", "shut-the-box", "--set", "tiles=13"], "expected 1 to 12"),
        (["solve", "bearoff", "--set", "mine=7,8"], "got '7,8'"),
        (["play", "shut-the-box", "--seat", "2"], "played alone"),
        (["play", "pig", "--resume", "x.json"], "--resume: for the Yahtzee family"),
    ]  # fmt: skip
    game_file = tmp_path / "t.toml"
    game_file.write_text('game = "shut-the-box"\ntiles = 9.5\n')
    mistakes.append((["solve", str(game_file)], "tiles: got 9.5, expected a whole number"))
    for args, words in mistakes:
        assert dicelab(monkeypatch, *args) == 2, args
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1, (args, err)
    # every pair of 15 checkers a side: sized before it starts, past a budget refused
    monkeypatch.setenv("DICELAB_MAX_MEMORY", str(2**30))
    fifteen = ",".join(["6"] * 15)
    assert dicelab(monkeypatch, "solve", "bearoff", "--set", f"mine={fifteen}", "--set",
                   f"theirs={fifteen}") == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "2,944,581,696 pairs of sides: 11.1 GiB" in err and err.count("\n") == 1, err
    monkeypatch.delenv("DICELAB_MAX_MEMORY")
    assert dicelab(monkeypatch, "solve", "bearoff", "--set", "mine=5,2", "--set", "theirs=3,2",
                   "--exact", "--json") == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["exact"] == "1957/2916"
    assert not list(tmp_path.glob("dicelab-dice-game-*"))  # no game: no record file


def test_typed_throws_either_way_round_and_moves_in_any_case(tmp_path):
    from dicelab.cli.chance_play import run_game_play
    from dicelab.cli.output import Console

    console = Console(record=True, width=150)
    run_game_play("bearoff", ["mine=6,5,4"], dice="real", console=console,
                  read=scripted(["6-3", "6/3 5/off", "q"]))  # fmt: skip
    out = console.export_text()
    assert "the dice: 3-6" in out and "you: 6/3 5/off" in out


def test_a_solved_game_is_kept_checked_and_read_back(monkeypatch, tmp_path):
    from dicelab.engine import graph as engine_graph
    from dicelab.games.chance import saved

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    first = solve(Pig(goal=40), cache=True)
    assert len(first) >= saved.MIN_POSITIONS
    (kept,) = tmp_path.glob("*.dlt")

    def no_solve(*args, **kwargs):
        raise AssertionError("solved again")

    with monkeypatch.context() as m:  # read back, not solved
        m.setattr(engine_graph, "solve_graph", no_solve)
        again = solve(Pig(goal=40), cache=True)
    assert (again.values == first.values).all()
    assert (again.solved.choice == first.solved.choice).all() and again.cached
    here = (0, 10, 20, 5, False)
    assert again.advise(here)[0].label == first.advise(here)[0].label
    data = bytearray(kept.read_bytes())  # one byte damaged: seen, solved again
    data[-100] ^= 0xFF
    kept.write_bytes(bytes(data))
    assert solve(Pig(goal=40), cache=True).value() == first.value()
    solve(Pig(goal=40, faces=5), cache=True)  # other settings: a file of their own
    assert len(list(tmp_path.glob("*.dlt"))) == 2
    assert solve(Pig(goal=40)).value() == first.value() and len(list(tmp_path.glob("*.dlt"))) == 2


def test_input_ending_keeps_the_game_so_far(tmp_path):
    from dicelab.cli.chance_play import run_game_play, run_game_review
    from dicelab.cli.output import Console

    def ended(prompt):
        raise EOFError

    path = tmp_path / "pig.json"
    console = Console(record=True, width=120)
    assert run_game_play("pig", ["goal=20"], dice="real", record=path, console=console,
                         read=ended) == 1  # fmt: skip
    assert "input ended" in console.export_text()
    assert json.loads(path.read_text())["game"] == "pig"
    assert run_game_review(str(path), console=Console(record=True, width=120)) == []


@pytest.mark.parametrize(("args", "says"), [
    (["solve", "pgi"], "or the dice game 'pig'?"),
    (["advise", "farkel", "--at", "1 / 0"], "did you mean 'farkle'?"),
    (["compare", "yahtzee", "pig"], "'pig' is a dice game"),
    (["distribution", "farkle"], "'farkle' is a dice game"),
    (["solve", "pig", "--strategy", "holdat=20"], "expected hold-at=N"),
])  # fmt: skip
def test_a_dice_game_mistyped_or_misplaced_is_named(monkeypatch, capsys, args, says):
    assert dicelab(monkeypatch, *args) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1


def test_each_family_says_what_its_table_shows():
    """The page draws the game from ``board``: every seat's score and the turn total,
    Shut the Box's tiles, the bear-off's points, the farkles in a row."""
    from dicelab.games.chance.bearoff import BearOff
    from dicelab.games.chance.farkle import Farkle
    from dicelab.games.chance.pig import Pig
    from dicelab.games.chance.shut_the_box import ShutTheBox

    pig = Pig(goal=20)
    assert pig.board(pig.parse("7 12 5")) == {"scores": [7, 12], "turn_total": 5, "seat": 0}
    assert pig.board(pig.parse("7 12 5 p2")) == {"scores": [12, 7], "turn_total": 5, "seat": 1}
    box = ShutTheBox()
    shut = box.board(box.parse("1 2 9 / 7"))
    assert [t["tile"] for t in shut["tiles"] if t["open"]] == [1, 2, 9] and shut["throw"] == 7
    race = BearOff(mine=(6, 5, 2), theirs=(4, 1))
    assert race.board(race.start()) == {"sides": [[0, 1, 0, 0, 1, 1], [1, 0, 0, 1, 0, 0]]}
    farkle = Farkle(players=2, goal=1000, penalty=500, floor=-500, min_bank=300,
                    goal_by_bank=True)  # fmt: skip
    seen = farkle.board(farkle.parse("1 5 / 300 / -200 450 / 2 1"))
    assert seen == {"scores": [-200, 450], "turn_total": 300, "dice": 2, "farkles": [2, 1],
                    "seat": 0}  # fmt: skip
    assert pig.board(("won", 1)) == {"winner": 1}


def test_moves_by_letter_or_words_and_game_names_in_any_case(tmp_path, capsys, monkeypatch):
    """One grammar at every prompt: a letter is a move shown (``a`` the best), a move's
    words may leave out its verb (``1 3`` for ``shut 1 3``), a number is never a
    move's place in the list; ``Pig`` is ``pig`` as ``Yahtzee`` is ``yahtzee``."""
    from dicelab.cli.chance_play import run_game_play
    from dicelab.cli.output import Console

    console = Console(record=True, width=150)
    # seed 1: the first throw is 4 (shut 4, or shut 1 3); then "z" and "1" are refused
    run_game_play("shut-the-box", [], seed=1, console=console,
                  read=scripted(["1 3", "z", "1", "a", "q"]))  # fmt: skip
    out = console.export_text()
    assert "you: shut 1 3" in out
    assert "not a move here: 'z'" in out and "not a move here: '1'" in out
    assert " a │ " in out  # the moves are lettered
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()  # what the game above printed
    assert dicelab(monkeypatch, "solve", "Pig", "--set", "goal=10", "--json") == 0
    assert json.loads(capsys.readouterr().out)["value"] == pytest.approx(0.709424, abs=1e-6)
