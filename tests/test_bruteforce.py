"""The fast solver against a plain expectimax on tiny random rule sets.

The brute force below shares nothing with the solver but the category scoring
functions (tested on their own in test_rules.py): it throws ordered dice, keeps
any subset of dice by position, tracks the raw upper total and which boxes hold
points, and applies the extra-bonus and joker rules as SPEC words them, served
bonuses on the first throw and boxes that pay only once another holds points.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles.expectimax import brute_force
from oracles.rules import tiny_rules

from dicelab.engine.objectives.expected import solve_expected
from dicelab.rules import parse_rules


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_rules())
def test_solver_agrees_with_brute_force(rules):
    fast = solve_expected(rules).expected_score
    slow = brute_force(rules)
    assert abs(fast - slow) < 1e-9 * max(1.0, abs(slow))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_rules(variants=True))
def test_solver_agrees_with_brute_force_on_variants(rules):
    slow = brute_force(rules)
    fast = solve_expected(rules, precision="double").expected_score
    assert abs(fast - slow) < 1e-9 * max(1.0, abs(slow))
    # single-precision turns, each value held relative to a double base
    fast = solve_expected(rules).expected_score
    assert abs(fast - slow) < 1e-6 * max(1.0, abs(slow))


@st.composite
def saving_rules(draw):
    """Tiny rules where unused throws are kept for later turns (a cap or none)."""
    rules = draw(tiny_rules().filter(lambda r: r.faces**r.dice <= 27 and r.n_categories <= 3))
    data = rules.as_data()
    data["save_unused_throws"] = True
    data["rolls"] = draw(st.integers(1, 2))
    if draw(st.booleans()):
        data["max_saved_throws"] = draw(st.integers(1, 2))
    return parse_rules(data)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(saving_rules())
def test_saved_throws_agree_with_brute_force(rules):
    from dicelab.engine.objectives.saved import solve_saved

    fast = solve_saved(rules).expected_score
    slow = brute_force(rules)
    assert abs(fast - slow) < 1e-9 * max(1.0, abs(slow))


def test_brute_force_on_a_hand_example():
    # one die, two faces, one throw, one box scoring the die: 1.5
    r = parse_rules(
        {"name": "coin", "dice": 1, "faces": 2, "rolls": 1,
         "categories": [{"id": "s", "kind": "chance"}]}
    )  # fmt: skip
    assert brute_force(r) == 1.5
    assert solve_expected(r).expected_score == 1.5


def test_joker_rules_on_a_small_game():
    # the four joker modes give distinct values on one fixed small game; solver and
    # brute force agree on each
    seen = set()
    for joker in ["free", "forced", "free-if-fifty", "none"]:
        r = parse_rules(
            {
                "name": "j",
                "dice": 3,
                "faces": 3,
                "rolls": 2,
                "upper_bonus": {"threshold": 6, "points": 10},
                "categories": [
                    {"id": "ones", "kind": "face", "face": 1},
                    {"id": "run", "kind": "straight", "length": 3, "score": 20},
                    {"id": "all", "kind": "of_a_kind", "count": 3, "score": 30},
                ],
                "extra_yahtzee": {"category": "all", "bonus": 50, "joker": joker},
            }
        )
        fast = solve_expected(r).expected_score
        assert abs(fast - brute_force(r)) < 1e-9
        seen.add(round(fast, 9))
    assert len(seen) >= 3
