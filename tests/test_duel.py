"""The two-player game against a plain expectimax, and the strategy pairs' checks.

The brute force here shares nothing with the solver but the category scoring and
the joker rule of ``test_bruteforce.box_choices``: it throws ordered dice, keeps
any subset by position, and values every position by the final scores alone
(no rows of leads, no bounds, no keep recursion).
"""

from functools import cache
from itertools import product

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from test_bruteforce import box_choices, tiny_rules

from dicelab.engine.objectives.distribution import score_distribution
from dicelab.engine.objectives.duel import duel_cost, duel_space, duel_table, solve_duel
from dicelab.engine.objectives.duel_compare import EXPECTED, WIN, evaluate_pair
from dicelab.errors import UserError
from dicelab.rules import load_rules, parse_rules
from dicelab.rules.compiled import compile_rules


def duel_brute_force(rules) -> float:
    """A's chance (a win plus half a tie) with both playing to win."""
    value, _ = duel_brute(rules)
    return value((0, 0, 0), (0, 0, 0), 0)


def duel_brute(rules):
    """``(value, throw)``: a turn start's and a throw's value for the player to move,
    whose sheet is ``(filled, upper total, flag)``, leading by ``lead``."""
    cats = rules.categories
    n = len(cats)
    faces, dice_n = rules.faces, rules.dice
    upper = [c.counts_for_bonus for c in cats]
    ybox = rules.yahtzee_index
    threshold = rules.upper_bonus.threshold if rules.upper_bonus else 0
    bonus = rules.upper_bonus.points if rules.upper_bonus else 0
    choices = box_choices(rules)
    full = (1 << n) - 1
    throws = [list(product(range(1, faces + 1), repeat=k)) for k in range(dice_n + 1)]

    def paid(up):
        return bonus if threshold and up >= threshold else 0

    @cache
    def value(me, other, lead):
        """Chance of the player to move, sheet ``me``, leading by ``lead``."""
        if me[0] == full and other[0] == full:  # B has just filled the last box
            final = lead + paid(me[1]) - paid(other[1])
            return 1.0 if final > 0 else 0.5 if final == 0 else 0.0
        outs = throws[dice_n]
        total = sum(throw(me, other, lead, tuple(sorted(x)), rules.rolls - 1) for x in outs)
        return total / len(outs)

    @cache
    def throw(me, other, lead, dice, rerolls):
        filled, up, yflag = me
        best = -1.0
        for c, pts, extra in choices(filled, yflag, dice):
            mine = (filled | 1 << c, up + (pts if upper[c] else 0),
                    (1 if pts > 0 else 0) if c == ybox else yflag)  # fmt: skip
            best = max(best, 1.0 - value(other, mine, -(lead + pts + extra)))
        if rerolls == 0:
            return best
        keeps = {tuple(dice[i] for i in range(dice_n) if bits >> i & 1)
                 for bits in range(1 << dice_n)}  # fmt: skip
        for kept in keeps:
            free = dice_n - len(kept)
            if free == 0:
                continue
            outs = throws[free]
            total = sum(throw(me, other, lead, tuple(sorted(kept + x)), rerolls - 1)
                        for x in outs)  # fmt: skip
            best = max(best, total / len(outs))
        return best

    return value, throw


FOUR_BOXES = {
    "name": "four",
    "dice": 2,
    "faces": 3,
    "rolls": 2,
    "upper_bonus": {"threshold": 4, "points": 5},
    "categories": [
        {"id": "ones", "kind": "face", "face": 1},
        {"id": "threes", "kind": "face", "face": 3},
        {"id": "pair", "kind": "of_a_kind", "count": 2, "score": 10},
        {"id": "sum", "kind": "chance"},
    ],
}


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
