"""Simulated games at a table, against independent checks.

- The compiled advice values the start of a turn exactly as the library's
  lookahead (:func:`dicelab.engine.advice.match.lookahead_state_turn`, itself checked
  against a plain expectimax in ``test_match``), on random tiny rule sets, sheets
  and tables of two to four.
- The points players' final scores follow the distribution of the points to come
  (a Kolmogorov-Smirnov bound).
- With two players on four boxes, the simulated chance of the advice in each seat
  agrees with its exact evaluation (a backward pass over both sheets,
  :func:`dicelab.engine.objectives.match_exact.lookahead_table`).
- The same seed gives the same games on one thread or two; the command's figures
  and its mistakes.
"""

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles.duel import FOUR_BOXES
from oracles.rules import tiny_rules
from test_match import four_file, run_process  # noqa: F401 (a fixture)

from dicelab.engine.advice.match import lookahead_state_turn, table_utility
from dicelab.engine.objectives.expected import expected_table
from dicelab.engine.objectives.points import state_bounds
from dicelab.engine.objectives.remaining import remaining_table
from dicelab.errors import UserError
from dicelab.play.match_sim import play_table_games, turn_start_value
from dicelab.rules import parse_rules
from dicelab.rules.compiled import compile_rules


@pytest.fixture(scope="module")
def four():
    game = compile_rules(parse_rules(FOUR_BOXES))
    expected = expected_table(game, use_cache=False)
    return game, expected, remaining_table(game, expected, use_cache=False)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_rules(variants=True), st.randoms(use_true_random=False))
def test_the_compiled_turn_values_as_the_library_does(data, rng):
    try:
        game = compile_rules(parse_rules(data))
        expected = expected_table(game, use_cache=False)
        remaining = remaining_table(game, expected, use_cache=False)
    except UserError:  # rules the table of points to come does not take
        return
    bounds = state_bounds(game)
    states = np.argwhere(bounds.reachable)  # (mask, flag, upper) rows
    open_states = states[states[:, 0] != game.full_mask]

    def sheet(rows):  # a state and points it may hold
        m, y, u = rows[rng.randrange(len(rows))]
        return m, y, u, rng.randint(0, int(bounds.so_far_hi[m, y, u]))

    for _ in range(4):
        mine, others = sheet(open_states), [sheet(states) for _ in range(rng.randrange(1, 4))]
        pmfs = [remaining.final_pmf(m, u, y, t) for m, y, u, t in others]
        mask, y, u, t = (int(v) for v in mine)
        want = lookahead_state_turn(remaining, (mask, u, y, t), table_utility(pmfs)).start_value
        got = turn_start_value(expected, remaining, mine, others)
        assert got == pytest.approx(want, abs=1e-12), (mine, others)


@pytest.mark.slow
def test_the_points_players_score_as_the_table_of_points_to_come_says(four):
    game, expected, remaining = four
    played = play_table_games(expected, remaining, 2, 20_000, seed=4)
    pmf = remaining.final_pmf(0)
    scores = played.points_scores
    assert scores.max() < pmf.size
    cdf = np.cumsum(pmf)
    seen = np.cumsum(np.bincount(scores, minlength=pmf.size)) / scores.size
    assert np.abs(seen - cdf).max() < 1.63 / np.sqrt(scores.size)  # KS at 1%
    assert abs(played.points.mean() - 0.5) < 4.5 * 0.5 / np.sqrt(scores.size)


@pytest.mark.slow
def test_simulated_chances_agree_with_the_exact_evaluation(four):
    from dicelab.engine.objectives.match_exact import lookahead_table

    game, expected, remaining = four
    exact = (lookahead_table(game, "A").start_value, 1 - lookahead_table(game, "B").start_value)
    played = play_table_games(expected, remaining, 2, 120_000, seed=11)
    for seat in (0, 1):
        got = played.summary(seat)
        assert got["standard_error"] < 0.0015  # common random numbers: 0.001 here
        assert abs(got["win_chance"] - exact[seat]) < 4.5 * got["standard_error"], (seat, got)
        assert got["z"] > 4.5  # the gain over an even game shows


@pytest.mark.slow
def test_the_same_seed_gives_the_same_games_on_any_threads(four):
    from numba import get_num_threads, set_num_threads

    game, expected, remaining = four
    before = get_num_threads()
    set_num_threads(1)
    try:
        one = play_table_games(expected, remaining, 4, 3000, seed=2)
    finally:
        set_num_threads(before)
    two = play_table_games(expected, remaining, 4, 3000, seed=2)
    other = play_table_games(expected, remaining, 4, 3000, seed=3)
    assert np.array_equal(one.advised, two.advised)
    assert np.array_equal(one.points_scores, two.points_scores)
    assert not np.array_equal(one.points_scores, other.points_scores)
    assert np.array_equal(one.seats, np.arange(3000) % 4)


@pytest.mark.slow
def test_the_evaluate_command_simulates_tables_of_three_and_four(four_file):  # noqa: F811
    res = run_process("match", "evaluate", four_file, "--players", "3", "--games", "3000",
                      "--json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["method"].startswith("simulated: 3,000 games") and out["players"] == 3
    assert out["points_chance"] == pytest.approx(1 / 3)
    assert [s["games"] for s in out["seats"]] == [1000, 1000, 1000]
    lo, hi = out["interval_95"]
    assert lo < out["win_chance"] < hi and out["significant"] == (out["z"] >= 4)
    assert out["win_chance"] == pytest.approx(1 / 3 + out["gain"])
    text = run_process("match", "evaluate", four_file, "--simulate", "--games", "500")
    assert text.returncode == 0 and "standard errors" in text.stdout
    for args, message in ((["--simulate", "--best-reply"], "--best-reply: the best reply"),
                          (["--players", "4", "--games", "0"], "games: got 0"),
                          (["--players", "5"], "players: got 5, expected 2 to 4")):  # fmt: skip
        bad = run_process("match", "evaluate", four_file, *args)
        assert bad.returncode == 2 and message in bad.stderr and bad.stderr.count("\n") == 1
