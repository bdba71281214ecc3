"""Rule variants people play: served hands, boxes that need another, pairs house rules,
a joker without the extra bonus, and every numeric field of a rules file in range.

The solvers themselves are checked against independent brute forces on random tiny
rule sets that use these switches (``test_bruteforce``, ``test_target``,
``test_distribution``); here each objective is run on the new built-ins, against
hand-worked positions and simulated games.
"""

import copy
import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dicelab.cli import app
from dicelab.engine.advice.single import Position, advise
from dicelab.engine.objectives.distribution import score_distribution
from dicelab.engine.objectives.expected import solve_expected
from dicelab.engine.objectives.points import max_score
from dicelab.engine.objectives.target import solve_target
from dicelab.errors import UserError
from dicelab.play.game import Game, review
from dicelab.play.simulate import simulate
from dicelab.rules import load_rules, parse_rules
from dicelab.rules.compiled import compile_rules

#: The address the test client sends as its Host (the server refuses other sites).
LOCAL = "http://127.0.0.1"

runner = CliRunner()


@pytest.fixture(scope="module")
def generala():
    return solve_expected("generala", precision="double")


def counts(*dice):
    c = [0] * 6
    for d in dice:
        c[d - 1] += 1
    return tuple(c)


def box(rules, box_id):
    return next(c for c in load_rules(rules).categories if c.id == box_id)


# -- scoring ------------------------------------------------------------------------
def test_pairs_house_rules():
    # four alike fill Two pairs in the house rule, not in plain Yatzy
    assert box("yatzy-house", "two_pairs").points(counts(4, 4, 4, 4, 2)) == 16
    assert box("yatzy", "two_pairs").points(counts(4, 4, 4, 4, 2)) == 0
    # "one pair is enough": the pairs made are summed
    r = parse_rules(
        {"name": "p", "dice": 5, "faces": 6, "rolls": 3, "categories": [
            {"id": "tp", "kind": "pairs", "pairs": 2, "at_least": 1, "same_face_ok": False,
             "score": "matching"}]}
    )  # fmt: skip
    tp = r.categories[0]
    assert tp.points(counts(1, 2, 3, 5, 5)) == 10
    assert tp.points(counts(1, 1, 3, 5, 5)) == 12
    assert tp.points(counts(1, 2, 3, 4, 6)) == 0
    assert "1 pair enough" in tp.describe()


def test_served_points_only_on_the_first_throw():
    g = compile_rules(load_rules("generala"))
    ids = [c.id for c in g.rules.categories]
    roll = g.space.index((2, 3, 4, 5, 6)) - int(g.space.size_start[5])
    esc = ids.index("escalera")
    assert g.score[esc, roll] == 20 and g.served_score[esc, roll] == 25
    # 1-3-4-5-6 is an escalera too (the ace above the six)
    wrap = g.space.index((1, 3, 4, 5, 6)) - int(g.space.size_start[5])
    assert g.served_score[esc, wrap] == 25
    # no pattern, no served points
    junk = g.space.index((1, 1, 2, 4, 6)) - int(g.space.size_start[5])
    assert g.served_score[esc, junk] == 0
    assert g.served_score[ids.index("ones"), junk] == g.score[ids.index("ones"), junk] == 2


# -- advice and play ----------------------------------------------------------------
def test_first_throw_offers_the_served_boxes(generala):
    a = advise(generala, Position(dice=(2, 3, 4, 5, 6), rerolls=2))
    assert a.best.kind == "box" and a.best.box == "escalera" and a.best.points == 25
    assert not any(o.stops for o in a.options)  # scoring now is a box, not "keep all"
    # after a reroll the same dice score without the served bonus
    later = advise(generala, Position(dice=(2, 3, 4, 5, 6), rerolls=1))
    stop = next(o for o in later.options if o.stops)
    last = advise(generala, Position(dice=(2, 3, 4, 5, 6), rerolls=0))
    assert next(o for o in last.options if o.box == "escalera").points == 20
    assert stop.value == pytest.approx(last.best.value, abs=1e-9)
    # the first-throw value is worth the served bonus over the later one, at least
    assert a.best.value > last.best.value


def test_doble_generala_pays_only_after_a_generala(generala):
    dice = (3, 3, 3, 3, 3)
    scratched = advise(generala, Position(dice=dice, rerolls=0, filled={"generala": 0}))
    held = advise(generala, Position(dice=dice, rerolls=0, filled={"generala": 50}))
    pts = {o.box: o.points for o in scratched.options}
    assert pts["doble_generala"] == 0
    assert {o.box: o.points for o in held.options}["doble_generala"] == 100
    assert held.best.box == "doble_generala"
    with pytest.raises(UserError, match="cannot be scored"):
        advise(generala, Position(dice=dice, rerolls=0, filled={"generala": 40}))


def test_play_and_review_a_served_turn(generala):
    game = Game(generala, dice="real")
    game.roll([2, 3, 4, 5, 6])
    assert game.fill("escalera") == 25  # filled straight from the first throw
    game.roll([1, 1, 1, 2, 3])
    game.keep([1, 1, 1])
    game.roll([2, 2])
    assert game.fill("full") == 30  # not served: made on the second throw
    rev = review(generala, game.record)
    first = rev.decisions[0]
    assert first.chosen.box == "escalera" and first.chosen.points == 25 and first.rank == 1
    assert rev.score == 55


def test_kniffel_joker_without_extra_bonus():
    table = solve_expected("kniffel")
    pos = Position(dice=(6, 6, 6, 6, 6), rerolls=0, filled={"kniffel": 50, "sechser": 24})
    a = advise(table, pos)
    got = {o.box: (o.points, o.extra) for o in a.options}
    assert got["full_house"] == (25, 0) and got["grosse_strasse"] == (40, 0)
    # before the Kniffel box is filled there is no joker
    b = advise(table, Position(dice=(6, 6, 6, 6, 6), rerolls=0, filled={"sechser": 24}))
    assert {o.box: o.points for o in b.options}["full_house"] == 0


# -- every objective on a new built-in --------------------------------------------------
@pytest.mark.slow
def test_generala_distribution_and_simulation_agree(generala):
    dist = score_distribution(generala.game, generala)
    assert dist.mean == pytest.approx(generala.expected_score, abs=1e-9)
    assert abs(dist.total - 1.0) < 1e-12
    sim = simulate(generala, games=20_000, seed=11)
    n = sim.games
    assert abs(sim.mean - dist.mean) < 4 * dist.sd / np.sqrt(n)
    for s in (120, 150, 200, 250):
        p = dist.p_at_least[s]
        assert abs((sim.scores >= s).mean() - p) < 4 * np.sqrt(p * (1 - p) / n)
    assert abs(sim.all_same.mean() - dist.p_all_same) < 4 * np.sqrt(
        dist.p_all_same * (1 - dist.p_all_same) / n
    )


def test_generala_target_beats_the_expected_strategy(generala):
    table = solve_target(generala.game)
    plain = score_distribution(generala.game, generala).p_at_least
    assert table.probability(0) == pytest.approx(1.0)
    for s in range(0, plain.size, 10):
        assert table.probability(s) >= plain[s] - 1e-12
    # the best sheet, every pattern served: 105 + 25 + 35 + 45 + 50 + 100
    assert max_score(generala.game) == 360 and table.probability(360) > 0


def test_served_bonus_is_worth_something(generala):
    data = json.loads(json.dumps(load_rules("generala").as_data()))
    for c in data["categories"]:
        c.pop("served", None)
    plain = solve_expected(parse_rules(data)).expected_score
    assert generala.expected_score > plain + 0.5


def test_cli_on_generala():
    out = runner.invoke(app, ["advise", "generala", "--dice", "2", "3", "4", "5", "6",
                              "--rerolls", "2", "--json"])  # fmt: skip
    assert out.exit_code == 0, out.output
    best = json.loads(out.output)["options"][0]
    assert best["box"] == "escalera" and best["points"] == 25
    done = subprocess.run(
        [sys.executable, "-m", "dicelab", "duel", "generala"], capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "served bonuses" in done.stderr
    # the exact fraction agrees with the floating-point value
    out = runner.invoke(app, ["solve", "generala", "--exact", "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.output)
    exact = Fraction(int(got["numerator"]), int(got["denominator"]))
    assert abs(float(exact) - solve_expected("generala", precision="double").expected_score) < 1e-9
    out = runner.invoke(app, ["rules", "show", "generala"])
    assert out.exit_code == 0 and "+5 served" in out.output and "Doble Generala" in out.output


# -- every numeric field of a rules file has a range ------------------------------------
BASE = {
    "name": "fields",
    "dice": 3,
    "faces": 4,
    "rolls": 2,
    "upper_bonus": {"threshold": 6, "points": 10},
    "extra_yahtzee": {"category": "all", "bonus": 20, "joker": "none"},
    "categories": [
        {"id": "ones", "kind": "face", "face": 1},
        {"id": "pair", "kind": "pairs", "pairs": 1, "at_least": 1, "same_face_ok": True,
         "score": 5},
        {"id": "run", "kind": "straight", "length": 3, "score": 12},
        {"id": "set", "kind": "straight", "sets": [[1, 2, 3]], "score": 9},
        {"id": "grp", "kind": "groups", "sizes": [2, 1], "distinct": True, "score": "all"},
        {"id": "all", "kind": "of_a_kind", "count": 3, "score": 30},
    ],
}  # fmt: skip

FIELDS = [
    ("dice",), ("faces",), ("rolls",), ("upper_bonus", "threshold"), ("upper_bonus", "points"),
    ("extra_yahtzee", "bonus"), ("categories", 0, "face"), ("categories", 1, "pairs"),
    ("categories", 1, "at_least"), ("categories", 1, "score"), ("categories", 2, "length"),
    ("categories", 2, "score"), ("categories", 3, "sets", 0, 1), ("categories", 4, "sizes", 0),
    ("categories", 5, "count"), ("categories", 5, "score"), ("categories", 2, "served"),
    ("categories", 4, "factor"), ("max_saved_throws",),
]  # fmt: skip

VALUES = (
    st.integers(-(2**80), 2**80)
    | st.integers(-3, 30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=5)
    | st.booleans()
    | st.none()
    | st.lists(st.integers(0, 3), max_size=2)
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(FIELDS), value=VALUES)
def test_every_numeric_field_is_checked(field, value):
    data = copy.deepcopy(BASE)
    if field == ("categories", 2, "served"):
        data.pop("extra_yahtzee")  # served bonuses do not combine with a joker rule
    if field == ("max_saved_throws",):
        data["save_unused_throws"] = True
    node = data
    for key in field[:-1]:
        node = node[key]
    node[field[-1]] = value
    try:
        rules = parse_rules(data, "fields.toml")
    except UserError as exc:
        text = str(exc)
        assert "\n" not in text and text.startswith("fields.toml: ")
        return
    # accepted: the solvers honour it, in range and without overflow
    game = compile_rules(rules)
    if rules.save_unused_throws:
        from dicelab.engine.objectives.saved import solve_saved

        value = solve_saved(game).expected_score
        assert np.isfinite(value) and value >= 0
        return
    assert 0 <= max_score(game) < 2**31
    if game.n_states <= 20_000:
        value = solve_expected(game).expected_score
        assert np.isfinite(value) and 0 <= value <= max_score(game)


def test_web_api_knows_served_hands():
    from fastapi.testclient import TestClient

    from dicelab.web.app import create_app

    with TestClient(create_app(), base_url=LOCAL, raise_server_exceptions=False) as client:
        info = client.get("/api/rules/generala").json()
        assert info["served"] is True
        assert client.get("/api/rules/yahtzee").json()["served"] is False
        body = {"rules": "generala", "dice": [2, 3, 4, 5, 6], "rerolls_left": 2}
        best = client.post("/api/advice", json=body).json()["options"][0]
        assert best["kind"] == "box" and best["box"] == "escalera" and best["points"] == 25


# -- throws saved for later turns ---------------------------------------------------------
def test_saving_throws_is_worth_it_and_sized_before_work():
    from dicelab.engine.objectives.saved import saved_cost, solve_saved

    data = load_rules("yazy").as_data()
    data.update(name="yazy-saved", save_unused_throws=True, max_saved_throws=2)
    saved = solve_saved(parse_rules(data))
    plain = solve_expected("yazy").expected_score
    assert saved.expected_score > plain + 1.0  # throws in hand are options, never a cost
    # with nothing saved, the table at zero throws in hand of the last layer is the plain one
    assert saved.values.shape[2] == 3
    assert saved.value(0, 0, 0, 2) > saved.value(0, 0, 0, 1) > saved.expected_score
    with pytest.raises(UserError, match="throws in hand: got 3"):
        saved.value(0, saved=3)
    # the official Maxi Yatzy with saving is refused with its size, before any work
    cost = saved_cost(load_rules("maxi-yatzy-saved"))
    assert cost.states == (1 << 20) * 85 * 39
    done = subprocess.run(
        [sys.executable, "-m", "dicelab", "solve", "maxi-yatzy-saved"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "3,476,029,440 states" in done.stderr and "--allow-large" in done.stderr


@pytest.mark.slow
def test_commands_that_do_not_save_throws_refuse_in_one_line():
    for args, says in (
        (["solve", "maxi-yatzy-saved", "--target", "300"], "saved for later turns"),
        (["distribution", "maxi-yatzy-saved"], "saved for later turns"),
        (["play", "maxi-yatzy-saved"], "saved for later turns"),
        # advice and simulation play saving rule sets, but not one this size here
        (["advise", "maxi-yatzy-saved", "--dice", "1", "2", "3", "4", "5", "6"], "states"),
        (["simulate", "maxi-yatzy-saved", "--games", "10"], "states"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "dicelab", *args], capture_output=True, text=True
        )
        assert done.returncode == 2, args
        assert done.stderr.count("\n") == 1 and says in done.stderr, (args, done.stderr)


@pytest.mark.slow
def test_simulated_games_with_throws_in_hand():
    from dicelab.engine.objectives.saved import solve_saved

    data = load_rules("yazy").as_data()
    data.update(name="yazy-saved", save_unused_throws=True, max_saved_throws=4)
    table = solve_saved(parse_rules(data))
    sim = simulate(table, games=10_000, seed=2)
    assert abs(sim.mean - table.expected_score) < 4 * sim.standard_error
    # more than the plain game's best: the saved throws were used
    assert sim.mean > solve_expected("yazy").expected_score + 10


# -- several columns --------------------------------------------------------------------
def test_columns_multiply_and_play_each_box_once_per_column():
    one = {"name": "one", "dice": 2, "faces": 3, "rolls": 2, "categories": [
        {"id": "pair", "kind": "of_a_kind", "count": 2, "score": 10},
        {"id": "sum", "kind": "chance"}]}  # fmt: skip
    two = dict(one, name="two", columns=[1, 3])
    rules = parse_rules(two)
    assert [c.id for c in rules.categories] == ["pair_c1", "sum_c1", "pair_c2", "sum_c2"]
    assert [c.label for c in rules.categories][2] == "Pair (x3)"
    assert rules.categories[3].points(counts(3, 3)[:3]) == 18
    assert "times 3" in rules.categories[2].scoring_text()
    # one column is the plain game; a column of multiplier 1 twice is worth more than one
    assert solve_expected(parse_rules(dict(one, columns=[1]))).expected_score == pytest.approx(
        solve_expected(parse_rules(one)).expected_score
    )
    assert solve_expected(rules).expected_score > 2 * solve_expected(
        parse_rules(one)).expected_score  # fmt: skip


@pytest.mark.slow
def test_six_dice_game_against_simulated_games():
    # a rule set with more dice than boxes' patterns need: the solver's value and the
    # mean of games played by the simulator (its own turn code and dice) agree
    table = solve_expected("yahtzee-6-dice")
    sim = simulate(table, games=5_000, seed=5)
    assert abs(sim.mean - table.expected_score) < 4 * sim.standard_error
    assert load_rules("yahtzee-d8").faces == 8
    assert load_rules("yahtzee-d8").upper_bonus.threshold == 108


def test_advice_with_throws_in_hand():
    from dicelab.engine.objectives.saved import saved_turn_values, solve_saved

    data = load_rules("yazy").as_data()
    data.update(name="yazy-saved", save_unused_throws=True, max_saved_throws=3)
    table = solve_saved(parse_rules(data))
    g = table.game
    # the NumPy turn of advice gives the solver's values (each throw scored or kept)
    rng = np.random.default_rng(3)
    for mask in [0, g.full_mask ^ 1, *rng.integers(0, g.full_mask, size=12)]:
        for s in range(4):
            turn = saved_turn_values(table, int(mask), 0, 0, g.rules.rolls - 1 + s)
            assert turn.start_value == pytest.approx(table.values[mask, 0, s, 0], abs=1e-9)
    # with throws in hand a straight is scored at once, keeping them for later
    a = advise(table, Position(dice=(2, 3, 4, 5, 6), rerolls=5))
    assert a.best.kind == "box" and a.best.box == "straight"
    assert not any(o.stops for o in a.options)
    with pytest.raises(UserError, match="expected 0 to 5"):
        advise(table, Position(dice=(2, 3, 4, 5, 6), rerolls=6))
