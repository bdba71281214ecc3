"""Target and utility objectives against an independent expectimax, and their commands.

The brute force below shares nothing with the solvers but the category scoring
functions: it throws ordered dice, keeps dice by position, tracks the raw upper
total and applies the extra-bonus and joker rules as SPEC words them. Its values
are vectors over a points axis (points still needed, or scored so far), so one
run answers every target at once.
"""

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles.expectimax import BruteForce
from oracles.rules import bonus_rules, small_rules
from typer.testing import CliRunner

from dicelab.cli import app
from dicelab.engine.advice.single import Position, advise_target
from dicelab.engine.objectives.distribution import score_distribution
from dicelab.engine.objectives.expected import solve_expected
from dicelab.engine.objectives.points import StateBounds, max_score
from dicelab.engine.objectives.target import (
    TargetTable,
    points_turn_values,
    solve_target,
    target_table,
)
from dicelab.engine.objectives.utility import (
    OneTargetTable,
    Utility,
    every_target_cached,
    one_target_table,
    reach_cached,
    reach_table,
    solve_utility,
    step_utility,
    utility_table,
    win_utility,
)
from dicelab.engine.objectives.win import read_opponent, solve_win
from dicelab.errors import UserError
from dicelab.rules import load_rules
from dicelab.rules.compiled import compile_rules

runner = CliRunner()


def generous_top(rules) -> int:
    """More points than any game can score (every box at its best, every bonus)."""
    bonus = rules.upper_bonus.points if rules.upper_bonus else 0

    def fixed(c) -> int:  # a fixed score, where the box has one
        score = getattr(c, "score", 0)
        return score if isinstance(score, int) else 0

    boxes = sum(c.factor * (30 * rules.dice + fixed(c)) for c in rules.categories)
    return boxes + bonus + rules.extra_bonus * len(rules.categories)


SLOW = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", ["yahtzee", "yatzy", "kniffel", "yacht", "generala", "yazy"])
def test_max_score_is_the_bound_of_every_state_at_the_start(name):
    """The quick bound equals the start state's entry of the full bounds arrays;
    Yahtzee's is the well-known 1575 (every box at its best, 12 extra bonuses)."""
    game = compile_rules(load_rules(name))
    assert max_score(game) == int(StateBounds(game).to_come[0, 0, 0])
    if name == "yahtzee":
        assert max_score(game) == 1575


@SLOW
@given(small_rules())
def test_target_table_agrees_with_brute_force_for_every_target(rules):
    table = solve_target(rules)
    top = max_score(compile_rules(rules))
    brute = BruteForce(rules, "needed", lanes=generous_top(rules) + 1).start()
    for s in range(top + 1):
        assert table.probability(s) == pytest.approx(brute[s], abs=1e-9)
    # no game scores more than the bound the tables are cut at
    assert np.all(brute[top + 1 :] == 0)


@SLOW
@given(small_rules(variants=True))
def test_target_table_agrees_with_brute_force_on_variants(rules):
    # served bonuses, boxes that need another, pairs boxes taking fewer pairs
    table = solve_target(rules)
    top = max_score(compile_rules(rules))
    brute = BruteForce(rules, "needed", lanes=generous_top(rules) + 1).start()
    for s in range(top + 1):
        assert table.probability(s) == pytest.approx(brute[s], abs=1e-9)
    assert np.all(brute[top + 1 :] == 0)


@SLOW
@given(small_rules(), st.data())
def test_utility_agrees_with_brute_force(rules, data):
    top = max_score(compile_rules(rules))
    u = data.draw(st.lists(st.floats(-3, 3, allow_nan=False), min_size=1, max_size=top + 3))
    table = solve_utility(rules, Utility(np.array(u)))
    brute = BruteForce(rules, "so_far", lanes=top + 1, utility=u).start()
    assert table.start_value == pytest.approx(brute[0], abs=1e-9)


def test_with_one_throw_a_turn_a_served_box_always_pays_its_served_points():
    """With one throw a turn every roll is a first throw, so a served box always
    adds its served points: a utility that wants as few points as possible cannot
    leave them out, in the tables over points so far as in the brute force."""
    from dicelab.rules import parse_rules

    rules = parse_rules(
        {"name": "one-throw", "dice": 2, "faces": 3, "rolls": 1,
         "categories": [{"id": "pair", "kind": "groups", "sizes": [2], "distinct": False,
                         "score": 0, "served": 2, "upper": False},
                        {"id": "ones", "kind": "face", "face": 1, "upper": False}]}
    )  # fmt: skip
    top = max_score(compile_rules(rules))
    u = [1.0 / (1 + x) for x in range(top + 1)]  # the fewer points, the better
    brute = BruteForce(rules, "so_far", lanes=top + 1, utility=u).start()
    table = solve_utility(rules, Utility(np.array(u)))
    assert table.start_value == pytest.approx(brute[0], abs=1e-12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_rules())
def test_target_beats_expected_strategy_for_every_target(rules):
    # the property the objective promises: for each S, no strategy (in particular
    # the expected-score optimum) reaches S more often
    table = solve_target(rules)
    plain = score_distribution(rules, solve_expected(rules)).p_at_least
    for s in range(plain.size):
        assert table.probability(s) >= plain[s] - 1e-12


@pytest.fixture(scope="module")
def yazy_target():
    return solve_target("yazy")


def test_float32_target_table_is_within_1e_6_of_float64(yazy_target):
    single = solve_target("yazy", dtype=np.float32)
    assert single.values.dtype == np.float32
    assert single.values.nbytes * 2 == yazy_target.values.nbytes
    err = np.abs(single.values.astype(np.float64) - yazy_target.values)
    assert err.max() < 1e-6
    assert err.max() > 0  # really solved in single precision


def test_yazy_target_at_least_expected_strategy(yazy_target):
    plain = score_distribution("yazy", solve_expected("yazy")).p_at_least
    best = yazy_target.curve()
    assert best.size == plain.size == 281
    assert np.all(best >= plain - 1e-12)
    assert best[0] == 1.0 and np.all(np.diff(best) <= 1e-15)
    # and for some targets by a wide margin
    assert (best - plain).max() > 0.05


def test_single_target_equals_the_all_targets_table(yazy_target):
    # two different lane layouts (points still needed, points so far) agree
    for s in (1, 120, 166, 230, 279):
        single = solve_utility("yazy", step_utility("yazy", s)).start_value
        assert single == pytest.approx(yazy_target.probability(s), abs=1e-12)


def test_yacht_perfect_score_in_floats():
    # SPEC: best P(325) is about 3.610891364602e-15
    p = solve_utility("yacht", step_utility("yacht", 325)).start_value
    assert p == pytest.approx(3.610891364602e-15, rel=1e-11)


@pytest.mark.slow
def test_yacht_targets_beat_expected_strategy():
    plain = score_distribution("yacht", solve_expected("yacht")).p_at_least
    best = {s: solve_utility("yacht", step_utility("yacht", s)).start_value for s in (300, 310)}
    for s, p in best.items():
        assert p >= plain[s] - 1e-12
    assert best[300] > 10 * plain[300]


def test_a_table_too_large_is_refused_before_its_rows_are_hashed(tmp_path, monkeypatch):
    """With no file of the objective in the cache there is nothing to look up, so a
    table this machine cannot hold is refused before the key of its rows is worked
    out (that hash takes seconds on a large game: Maxi Yatzy's 89 million states)."""
    from dicelab.engine.objectives import points
    from dicelab.errors import TooLarge

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("DICELAB_MAX_MEMORY", "100000")
    monkeypatch.setattr(points, "rows_key", lambda *_: pytest.fail("a key was worked out"))
    with pytest.raises(TooLarge, match="table over states and points"):
        reach_table("yazy", 200)
    with pytest.raises(TooLarge, match="table over states and points"):
        utility_table("yazy", win_utility(np.full(100, 0.01)))


def test_bad_targets():
    for bad in (-1, 326, 10_000):
        with pytest.raises(UserError, match="target"):
            step_utility("yacht", bad)
    with pytest.raises(UserError, match="whole number"):
        step_utility("yacht", 12.5)


def test_target_table_cache(yazy_target):
    first = target_table("yazy")
    second = target_table("yazy")
    assert second.meta["cached"] is True
    assert np.array_equal(first.values, second.values)
    assert second.values.dtype == np.float32  # the commands' table: single precision
    assert second.probability(200) == pytest.approx(yazy_target.probability(200), abs=1e-6)
    # a double-precision table is cached apart, and is the library's solve exactly
    double = target_table("yazy", dtype=np.float64)
    assert double.values.dtype == np.float64 and double.meta["path"] != second.meta["path"]
    assert target_table("yazy", dtype=np.float64).meta["cached"] is True
    assert double.probability(200) == pytest.approx(yazy_target.probability(200), abs=0)


def test_play_to_reach_turn_values(yazy_target):
    # keep values by enumeration of reroll outcomes, as for the expected score
    s = yazy_target.game.space
    tv = points_turn_values(yazy_target, 0b0000011, 0, 0, 150)
    assert tv.start_value == pytest.approx(yazy_target.value(0b0000011, 0, 0, 150), abs=1e-12)
    for dice in ([5, 5, 5], [6], [], [1, 2, 3, 4]):
        keep = s.index(dice)
        for n in (1, 2):
            direct = sum(
                float(p) * tv.roll_value(roll, n - 1) for roll, p in s.reroll_outcomes(keep).items()
            )
            assert tv.keep_value(n, keep) == pytest.approx(direct, abs=1e-12)
    roll = s.index([6, 6, 6, 6, 6])
    best = max(v for _, _, _, v in tv.box_options(roll))
    assert tv.roll_value(roll, 0) == pytest.approx(best, abs=1e-12)
    # a decided position: nothing more needed
    done = points_turn_values(yazy_target, 0b1, 0, 0, 0)
    assert done.start_value == 1.0


# -- beating an opponent --------------------------------------------------------------
def test_win_against_own_distribution():
    rep = solve_win("yazy")
    # the expected-score strategy against an independent copy of itself: exactly half
    assert rep.expected_strategy_win_probability == pytest.approx(0.5, abs=1e-12)
    assert 0.5 < rep.win_probability < 0.52
    d = rep.to_dict()
    assert d["gain"] == pytest.approx(rep.win_probability - 0.5, abs=1e-12)


@SLOW
@given(small_rules(), st.lists(st.floats(0, 1), min_size=1, max_size=60))
def test_win_utility_against_brute_force(rules, weights):
    w = np.array(weights) + 1e-3
    pmf = w / w.sum()
    u = win_utility(pmf)
    # P(opp < x) + P(opp = x) / 2, checked directly
    for x in range(pmf.size + 2):
        direct = pmf[: min(x, pmf.size)].sum() + (pmf[x] / 2 if x < pmf.size else 0)
        assert u.at(np.array([x]))[0] == pytest.approx(direct, abs=1e-12)
    top = max_score(compile_rules(rules))
    table = solve_utility(rules, u)
    brute = BruteForce(rules, "so_far", lanes=top + 1, utility=list(u.values)).start()
    assert table.start_value == pytest.approx(brute[0], abs=1e-9)


def test_opponent_files(tmp_path):
    j = tmp_path / "opp.json"
    j.write_text(json.dumps({"min_score": 2, "pmf": [0.25, 0.5, 0.25]}))
    assert read_opponent(j).tolist() == [0, 0, 0.25, 0.5, 0.25]
    c = tmp_path / "opp.csv"
    c.write_text("score,probability\n# a comment\n10,0.5\n20 0.5\n")
    pmf = read_opponent(c)
    assert pmf[10] == 0.5 and pmf[20] == 0.5 and pmf.sum() == 1.0
    bad = {
        "sum.csv": ("10,0.5\n20,0.4\n", "sum to"),
        "neg.csv": ("10,-0.5\n20,1.5\n", ">= 0"),
        "twice.csv": ("10,0.5\n10,0.5\n", "twice"),
        "text.csv": ("10,0.5\nten,0.5\n", "line 2"),
        "cols.csv": ("10,0.5,3\n", "line 1"),
        "broken.json": ('{"pmf": [0.5, ', "not valid JSON"),
        "nopmf.json": ('{"scores": [1]}', "pmf"),
        "empty.csv": ("# nothing\n", "no scores"),
        "decimal.csv": ("250.5,1\n", "whole number"),
    }
    for name, (text, message) in bad.items():
        p = tmp_path / name
        p.write_text(text)
        with pytest.raises(UserError, match=message):
            read_opponent(p)
    with pytest.raises(UserError, match="does not exist"):
        read_opponent(tmp_path / "missing.csv")


def test_opponent_from_distribution_json(tmp_path):
    res = runner.invoke(app, ["distribution", "yazy", "--json"])
    assert res.exit_code == 0, res.output
    f = tmp_path / "yazy.json"
    f.write_text(res.output)
    pmf = read_opponent(f)
    d = json.loads(res.output)
    assert pmf.size == d["max_score"] + 1
    assert float(np.dot(np.arange(pmf.size), pmf)) == pytest.approx(d["mean"], abs=1e-9)


# -- the command line -------------------------------------------------------------------
def test_cli_target_json():
    args = ["solve", "yazy", "--objective", "target", "--target", "200", "--json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    d = json.loads(res.output)
    assert d["objective"] == "target" and d["target"] == 200
    assert d["probability"] >= d["expected_strategy_probability"]
    assert 0.2 < d["probability"] < 0.25


def test_cli_default_objective_keeps_its_keys():
    res = runner.invoke(app, ["solve", "yazy", "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.output)
    assert set(d) == {
        "rules", "objective", "precision", "expected_score", "states", "seconds",
        "solve_seconds", "cached", "table",
    }  # fmt: skip
    assert d["objective"] == "expected"


def test_cli_win_text():
    res = runner.invoke(app, ["solve", "yazy", "--objective", "win"])
    assert res.exit_code == 0, res.output
    assert "best strategy to win" in res.output and "expected-score strategy" in res.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["solve", "yacht", "--target", "326"], "best possible score in yacht is 325"),
        (["solve", "yacht", "--target", "-5"], "at least 0"),
        (["solve", "yacht", "--objective", "target"], "needs --target"),
        (["solve", "yacht", "--objective", "best"], "objective"),
        (["solve", "yacht", "--objective", "win", "--exact"], "--exact"),
        (["solve", "yacht", "--opponent", "x.csv"], "--opponent goes with"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(args, message):
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", "from dicelab.cli import main; main()", *args],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


def test_cli_broken_opponent_file(tmp_path):
    import subprocess
    import sys

    f = tmp_path / "opp.csv"
    f.write_text("100,0.7\n200,0.7\n")
    out = subprocess.run(
        [sys.executable, "-c", "from dicelab.cli import main; main()", "solve", "yazy",
         "--objective", "win", "--opponent", str(f)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 2
    assert out.stderr.strip().startswith("error: opponent file")
    assert len(out.stderr.strip().splitlines()) == 1


def test_load_rules_for_target_bound():
    # the bound used for targets: every box at its best and every bonus
    assert max_score(compile_rules(load_rules("yacht"))) == 325
    assert max_score(compile_rules(load_rules("yahtzee"))) == 1575


def test_points_turn_start_is_the_solver_value(yazy_target):
    """Target advice computes one lane's turn in NumPy; the solver's kernel value to a
    rounding (the kernel sums the first throw with fused multiply-adds)."""
    g = yazy_target.game
    lay = yazy_target.layout
    rng = np.random.default_rng(3)
    for mask in [0, *rng.integers(1, g.full_mask, size=30)]:
        mask = int(mask)
        lo, hi = int(lay.lo[mask, 0, 0]), int(lay.hi[mask, 0, 0])
        for points in {lo, (lo + hi) // 2, hi}:
            tv = points_turn_values(yazy_target, mask, 0, 0, points)
            assert tv.start_value == pytest.approx(
                yazy_target.value(mask, 0, 0, points), rel=1e-14, abs=1e-15
            )


# -- the table of one target ------------------------------------------------------------
def test_one_target_table_agrees_with_the_table_of_every_target(yazy_target, tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    position = Position(dice=(2, 2, 5, 5, 6), rerolls=1, filled={"ones": 3, "sixes": 24})
    for s in (0, 1, 166, 230, 280):
        one = one_target_table("yazy", s)
        assert isinstance(one, OneTargetTable) and one.values.dtype == np.float32
        assert one.probability(s) == pytest.approx(yazy_target.probability(s), abs=1e-6)
        assert one.n_values < yazy_target.n_values
        assert not one.cached and one_target_table("yazy", s).cached
        assert reach_cached("yazy", s) and not every_target_cached("yazy")
        got = advise_target(one, position, s)
        want = advise_target(yazy_target, position, s)
        assert [o.value for o in got.options] == pytest.approx(
            [o.value for o in want.options], abs=1e-6
        )
        assert got.options[0].label == want.options[0].label or got.options[0].cost < 1e-6
    exact = one_target_table("yazy", 200, use_cache=False, dtype=np.float64)
    assert exact.probability(200) == pytest.approx(yazy_target.probability(200), abs=1e-12)
    with pytest.raises(UserError, match="answers P\\(score >= 200\\) only, not 201"):
        exact.probability(201)
    with pytest.raises(UserError, match="answers P\\(score >= 200\\) only"):
        advise_target(exact, position, 150)


@pytest.mark.slow
def test_reach_table_takes_the_table_of_every_target_once_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    assert not reach_cached("yacht", 150)
    assert isinstance(reach_table("yacht", 150), OneTargetTable)
    every = target_table("yacht")
    assert every_target_cached("yacht") and reach_cached("yacht", 151)
    again = reach_table("yacht", 151, mapped=True)
    assert isinstance(again, TargetTable) and again.cached
    assert again.probability(151) == pytest.approx(every.probability(151), abs=0)


def test_solve_target_command_solves_one_target_unless_asked(tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    one = runner.invoke(app, ["solve", "yazy", "--target", "200", "--json"])
    assert one.exit_code == 0, one.output
    got = json.loads(one.output)
    assert got["table_of"] == "this target" and not got["cached"]
    every = runner.invoke(
        app, ["solve", "yazy", "--objective", "targets", "--target", "201", "--json"]
    )
    got2 = json.loads(every.output)
    assert got2["table_of"] == "every target" and got2["values"] > got["values"]
    assert got2["probability"] < got["probability"]  # 201 is harder than 200
    # now every target is on disk: a new target is answered from it
    third = json.loads(runner.invoke(app, ["solve", "yazy", "--target", "150", "--json"]).output)
    assert third["table_of"] == "every target" and third["cached"]
    bad = runner.invoke(app, ["solve", "yazy", "--objective", "targets"])
    assert isinstance(bad.exception, UserError)
    assert "--objective targets needs --target S" in str(bad.exception)


def test_the_key_of_every_targets_rows_without_laying_them_out():
    from dicelab.engine.objectives.points import needed_key, needed_layout
    from dicelab.rules.compiled import as_game

    for name in ("yacht", "yazy", "generala"):
        game = as_game(name)
        assert needed_key(game) == needed_layout(game).key(), name


def _own_lanes(lay, values, own):
    """Every state's values over its own points range ``own = (lo, hi)``, read
    through ``lay`` (whose rows may be shared)."""
    lo, hi = own
    out = []
    for m, y, u in zip(*np.nonzero((lay.off >= 0) & (hi >= lo)), strict=True):
        start = lay.off[m, y, u] + lo[m, y, u] - lay.lo[m, y, u]
        out.append(values[start : start + hi[m, y, u] - lo[m, y, u] + 1])
    return np.concatenate(out) if out else np.zeros(0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bonus_rules(), st.data())
def test_states_past_the_upper_bonus_share_rows_with_the_same_values_to_the_bit(rules, data):
    """Shared rows against rows of their own: every state's own range equal, bit for
    bit, over points so far (a random utility, cut at random, the rest of a game
    from a random start or the whole) and points still needed."""
    from dicelab.engine.objectives.points import build_layout, so_far_rows, state_bounds
    from dicelab.engine.objectives.target import NEEDED, SO_FAR, solve_points

    game = compile_rules(rules)
    bounds = state_bounds(game)
    alone = np.zeros(bounds.reachable.shape, dtype=bool)  # no state shares its row
    top = max_score(game)
    low = data.draw(st.integers(-1, top), label="low")
    high = data.draw(st.integers(low + 1, top + 2), label="high")
    u = np.array(data.draw(st.lists(st.floats(-3, 3), min_size=top + 2, max_size=top + 2)))
    m, y, c = (
        int(i)
        for i in np.argwhere(bounds.reachable)[
            data.draw(st.integers(0, 10**6)) % int(bounds.reachable.sum())
        ]
    )
    start = data.draw(st.sampled_from([None, (m, y, c, c)]), label="start")
    lo, hi, live = so_far_rows(bounds, low, high, start)

    def utility(points, upper):
        return u[np.clip(points + bounds.bonus_of(upper), 0, u.size - 1)]

    below, above = float(u[max(low, 0)]), float(u[min(high, u.size - 1)])

    def same(shared, own, *how):
        mine = _own_lanes(shared, solve_points(game, shared, *how), (own.lo, own.hi))
        assert np.array_equal(
            mine, _own_lanes(own, solve_points(game, own, *how), (own.lo, own.hi))
        )

    so_far = (build_layout(game, lo, hi, live), build_layout(game, lo, hi, alone))
    same(*so_far, SO_FAR, (below, above), utility)

    def reached(points, upper):
        return (points <= bounds.bonus_of(upper)).astype(np.float64)

    needed = (np.ones_like(bounds.to_come), bounds.to_come)
    every = build_layout(game, *needed), build_layout(game, *needed, alone)
    same(*every, NEEDED, (1.0, 0.0), reached)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bonus_rules(), st.data())
def test_a_rising_utility_takes_a_roll_s_boxes_that_score_nothing_as_one_to_the_bit(rules, data):
    """Where more points never lower the utility, the turn compares a roll's scoring
    boxes and the best 0-candidate only: the same table, bit for bit, as comparing
    every open box."""
    from dicelab.engine.objectives.points import state_bounds
    from dicelab.engine.objectives.target import SO_FAR, solve_points
    from dicelab.engine.objectives.utility import utility_layout

    game = compile_rules(rules)
    bounds = state_bounds(game)
    top = max_score(game)
    steps = data.draw(st.lists(st.floats(0, 1), min_size=top + 2, max_size=top + 2))
    u = Utility(np.cumsum(steps))
    assert u.rising
    layout = utility_layout(game, u)
    below, above = u.bounds()

    def terminal(points, upper):
        return u.at(points + bounds.bonus_of(upper))

    how = (game, layout, SO_FAR, (below, above), terminal)
    one = solve_points(*how, rising=True, dtype=np.float32)
    every = solve_points(*how, rising=False, dtype=np.float32)
    assert np.array_equal(one.view(np.uint32), every.view(np.uint32))


def test_a_third_of_yahtzee_states_share_their_rows():
    """Past the upper bonus (the open upper boxes cannot reach 63) a state's row is
    its mask and flag's shared row: 184,896 of Yahtzee's 536,448 states, and more
    than a third of the values of the table that beats the optimum's own
    distribution."""
    from dicelab.engine.objectives.points import so_far_layout, state_bounds, stored_rows
    from dicelab.rules.compiled import as_game

    game = as_game("yahtzee")
    bounds = state_bounds(game)
    lo, hi, off, _, _ = stored_rows(bounds.so_far_lo, bounds.so_far_hi, bounds)
    past = bounds.bonus_lost[:, None, :] & bounds.reachable
    assert past.sum() == 184_896  # the states past the bonus
    m, y, u = np.nonzero(past)
    least = np.where(past, np.arange(game.n_upper), game.n_upper).min(axis=2)[m, y]
    assert np.array_equal(off[m, y, u], off[m, y, least])  # one row a mask and flag
    assert np.array_equal(hi[m, y, u], hi[m, y, least]) and (least < u).any()
    win = so_far_layout(game, 11, 1372)  # the rows of solve_win's table
    assert win.size == 95_261_536  # 148,012,540 with a row for every state


def test_which_utilities_rise():
    assert step_utility("yazy", 200).rising and win_utility(np.array([0.2, 0.0, 0.8])).rising
    assert not Utility(np.array([0.0, 1.0, 0.5])).rising  # the turn compares every box then
