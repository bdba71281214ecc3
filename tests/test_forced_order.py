"""Forced order and the joker that needs no filled all-alike box, against brute forces.

The brute forces (``tests/oracles``) share nothing with the solvers but the box
scoring: under forced order they list every box a roll may go in by the joker rules,
then keep the first open box only, scored by the joker where the joker rule put the
roll there and plainly otherwise; ``joker_always`` drops the test that the all-alike
box is filled. Every objective is checked against them on tiny random rule sets:
the expected score (double and single precision), every target, the exact
fractions, the score distribution under the optimum, and the two-player game.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles.duel import duel_brute_force
from oracles.expectimax import BruteForce, brute_force
from oracles.policy import PolicyBrute, assert_same_distribution
from oracles.rules import small_rules, tiny_rules

from dicelab.engine.objectives.distribution import score_distribution
from dicelab.engine.objectives.exact import exact_expected, exact_target
from dicelab.engine.objectives.expected import solve_expected
from dicelab.engine.objectives.points import max_score
from dicelab.engine.objectives.target import solve_target
from dicelab.rules import parse_rules
from dicelab.rules.compiled import compile_rules

SOME = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def ordered(draw, base=None):
    """Tiny rules with forced order, ``joker_always``, or both."""
    rules = draw(base if base is not None else small_rules(variants=True))
    data = rules.as_data()
    extra = data.get("extra_yahtzee")
    if extra is None and draw(st.booleans()):
        data["categories"] = data["categories"][:2] + [
            {"id": "alike", "kind": "of_a_kind", "count": data["dice"], "score": 25}
        ]
        for cat in data["categories"]:
            cat.pop("served", None)
            cat.pop("requires", None)
        extra = data["extra_yahtzee"] = {"category": "alike", "bonus": 0, "joker": "free"}
        extra["bonus"] = draw(st.sampled_from([0, 30]))
        extra["joker"] = draw(st.sampled_from(["free", "forced"]))
    always = extra is not None and extra["joker"] in ("free", "forced") and draw(st.booleans())
    if always:
        extra["joker_always"] = True
    data["forced_order"] = not always or draw(st.booleans())
    return parse_rules(data)


@SOME
@given(ordered())
def test_expected_score_agrees_with_brute_force(rules):
    slow = brute_force(rules)
    assert solve_expected(rules, precision="double").expected_score == pytest.approx(
        slow, abs=1e-9 * max(1.0, abs(slow))
    )
    assert solve_expected(rules).expected_score == pytest.approx(
        slow, abs=1e-6 * max(1.0, abs(slow))
    )


@SOME
@given(ordered())
def test_every_target_agrees_with_brute_force(rules):
    table = solve_target(rules)
    top = max_score(compile_rules(rules))
    brute = BruteForce(rules, "needed", lanes=top + 200).start()
    for s in range(top + 1):
        assert table.probability(s) == pytest.approx(brute[s], abs=1e-9)


@SOME
@given(ordered(), st.data())
def test_exact_fractions_equal_brute_force_fractions(rules, data):
    assert exact_expected(rules).value == BruteForce(rules, "expected", exact=True).start()[0]
    top = max_score(compile_rules(rules))
    s = data.draw(st.integers(0, top))
    brute = BruteForce(rules, "needed", lanes=top + 1, exact=True).start()
    assert exact_target(rules, s).value == brute[s]


@SOME
@given(ordered())
def test_distribution_of_the_optimum_equals_brute_force(rules):
    table = solve_expected(rules, precision="double")
    dist = score_distribution(rules, table)
    assert_same_distribution(dist, PolicyBrute(rules))
    assert dist.mean == pytest.approx(table.expected_score, abs=1e-9)


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ordered(tiny_rules()))
def test_duel_agrees_with_brute_force(rules):
    from dicelab.engine.objectives.duel import solve_duel

    assert solve_duel(rules).start_value == pytest.approx(duel_brute_force(rules), abs=1e-9)


def test_the_order_changes_the_value_and_the_joker_changes_it_again():
    # three boxes: Ones, two in a row for 15, both dice alike for 20; two dice of
    # three faces. In order, a pair of twos on the second turn scores 15 in the
    # straight only as a joker that needs no filled all-alike box.
    data = {
        "name": "small",
        "dice": 2,
        "faces": 3,
        "rolls": 2,
        "categories": [
            {"id": "ones", "kind": "face", "face": 1},
            {"id": "run", "kind": "straight", "length": 2, "score": 15},
            {"id": "alike", "kind": "of_a_kind", "count": 2, "score": 20},
        ],
        "extra_yahtzee": {"category": "alike", "bonus": 0, "joker": "free"},
    }
    seen = {}
    for order in (False, True):
        for always in (False, True):
            data["forced_order"] = order
            data["extra_yahtzee"]["joker_always"] = always
            rules = parse_rules(data)
            seen[order, always] = solve_expected(rules, precision="double").expected_score
            assert seen[order, always] == pytest.approx(brute_force(rules), abs=1e-12)
    assert seen[True, False] < seen[True, True] < seen[False, False]
