"""The two-player game against a plain expectimax, and the strategy pairs' checks.

The brute force here shares nothing with the solver but the category scoring and
the joker rule of ``test_bruteforce.box_choices``: it throws ordered dice, keeps
any subset by position, and values every position by the final scores alone
(no rows of leads, no bounds, no keep recursion).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from oracles.duel import FOUR_BOXES, duel_brute_force
from oracles.rules import tiny_rules

from dicelab.engine.objectives.distribution import score_distribution
from dicelab.engine.objectives.duel import duel_cost, duel_space, duel_table, solve_duel
from dicelab.engine.objectives.duel_compare import EXPECTED, WIN, evaluate_pair
from dicelab.errors import UserError
from dicelab.rules import load_rules, parse_rules
from dicelab.rules.compiled import compile_rules


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_rules())
def test_duel_agrees_with_brute_force(rules):
    fast = solve_duel(rules).start_value
    slow = duel_brute_force(rules)
    assert abs(fast - slow) < 1e-9


def test_four_boxes_with_bonus():
    rules = parse_rules(FOUR_BOXES)
    assert abs(solve_duel(rules).start_value - duel_brute_force(rules)) < 1e-9


def test_a_hand_example():
    # one die of two faces, one throw, one box scoring the die: A wins 1/4, ties 1/2
    coin = parse_rules({"name": "coin", "dice": 1, "faces": 2, "rolls": 1,
                        "categories": [{"id": "s", "kind": "chance"}]})  # fmt: skip
    table = solve_duel(coin)
    assert table.start_value == 0.5
    pair = evaluate_pair(table, WIN, WIN)
    assert (pair.p_a, pair.p_tie, pair.p_b) == (0.25, 0.5, 0.25)


def test_every_stored_lead_is_undecided_and_possible():
    rules = parse_rules(FOUR_BOXES)
    table = solve_duel(rules)
    values = table.values
    assert np.all((values >= -1e-12) & (values <= 1 + 1e-12))
    s = table.space
    assert np.all(s.xlo >= s.ulo) and np.all(s.xhi <= s.uhi)


@settings(max_examples=25, deadline=None)
@given(tiny_rules(variants=True))
def test_the_rows_of_a_few_nodes_are_those_of_the_whole_layout(rules):
    """Advice works out the rows of the nodes it reads, one mover's row of nodes at a
    time; the solver lays out every node's, one layer at a time."""
    game = compile_rules(rules)
    assume(not (game.rules.has_served or game.requires_mask))
    few, whole = duel_space(game), duel_space(game)
    nodes = np.arange(whole.n_nodes)
    asked = few.rows(nodes[::3])
    for name in ("off", "xlo", "xhi", "ulo", "uhi"):
        assert np.array_equal(getattr(asked, name), getattr(whole, name)[::3]), name
    assert whole.n_values == int(np.maximum(whole.xhi - whole.xlo + 1, 0).sum())
    assert int(few.rows(whole.n_nodes - 1).off) == whole.off[-1]


@pytest.fixture(scope="module")
def pairs():
    rules = parse_rules(FOUR_BOXES)
    table = solve_duel(rules)
    return table, {(a, b): evaluate_pair(table, a, b) for a in (WIN, EXPECTED)
                   for b in (WIN, EXPECTED)}  # fmt: skip


def test_win_against_win_reproduces_the_table(pairs):
    # the chances carried along the win-optimal decisions add up to the solved value
    table, res = pairs
    assert abs(res[WIN, WIN].value - table.start_value) < 1e-12
    for r in res.values():
        assert abs(r.p_a + r.p_tie + r.p_b - 1) < 1e-12


def test_expected_against_expected_is_a_fair_game(pairs):
    table, res = pairs
    r = res[EXPECTED, EXPECTED]
    assert abs(r.value - 0.5) < 1e-12
    assert abs(r.p_a - r.p_b) < 1e-12
    # and it matches the two independent score distributions
    pmf = score_distribution(table.rules).pmf
    below = np.concatenate([[0.0], np.cumsum(pmf)[:-1]])
    assert abs(r.p_a - float(np.dot(pmf, below))) < 1e-12
    assert abs(r.p_tie - float(np.dot(pmf, pmf))) < 1e-12


def test_the_win_optimal_strategy_guarantees_the_game_value(pairs):
    # against any opponent it does at least as well as against the best one
    table, res = pairs
    assert res[WIN, EXPECTED].value >= table.start_value - 1e-12
    assert res[EXPECTED, WIN].value <= table.start_value + 1e-12


def test_a_duel_too_large_is_refused_before_any_work():
    with pytest.raises(UserError, match="two-player game has .* pairs of sheets"):
        duel_cost(compile_rules(load_rules("yahtzee"))).check()


def test_the_table_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    rules = parse_rules(FOUR_BOXES)
    first = duel_table(rules, compare=False)
    assert not first.meta["cached"] and first.meta["verdicts"] is None
    again = duel_table(rules, compare=False)
    assert again.meta["cached"] and again.start_value == first.start_value
    assert np.max(np.abs(np.asarray(again.values) - first.values)) < 1e-7  # kept as float32
    # the comparisons are added to the cached table once, when first asked for
    judged = duel_table(rules, compare=True)
    assert judged.meta["cached"] and judged.meta["verdicts"]["pairs"]
    assert duel_table(rules).meta["verdicts"] == judged.meta["verdicts"]  # kept


def test_yazy_fits_this_machine():
    cost = duel_cost(compile_rules(load_rules("yazy")))
    assert 2e8 < cost.states < 5e8
    cost.check()  # not refused
    # the solve alone took 59 to 66 s on 2 cores with its turn written out for the dice
    alone = duel_cost(compile_rules(load_rules("yazy")), compare=False).seconds
    assert 40 < alone < 120
