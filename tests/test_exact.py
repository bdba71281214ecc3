"""Exact rational answers: SPEC's perfect-325 fraction, brute force in fractions, floats."""

import json
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles.expectimax import BruteForce
from oracles.rules import small_rules

from dicelab.engine.objectives.exact import exact_expected, exact_target, from_limbs, to_limbs
from dicelab.engine.objectives.expected import solve_expected
from dicelab.engine.objectives.points import max_score
from dicelab.errors import UserError
from dicelab.rules import load_rules
from dicelab.rules.compiled import compile_rules

# SPEC, Part A, objective 2: the best probability of the perfect 325 in yacht
PERFECT_325 = Fraction(
    319130499507922112188286628635683772218857335457720431310938791697014394461154989031483452803032063543337756165983,
    88379978039869263971884965720466348182637029432792923611162733644394572938580364878372716876453932812064005444887830012255797248,
)  # fmt: skip


@pytest.mark.slow
def test_yacht_perfect_score_is_specs_fraction():
    res = exact_target("yacht", 325)
    assert res.value == PERFECT_325
    # one state per set of filled boxes: every filled box holds its best
    assert res.values_solved == 2**12


@pytest.mark.slow
def test_exact_expected_agrees_with_floats():
    for name in ("yazy", "yacht"):
        exact = exact_expected(name).value
        assert abs(float(exact) - solve_expected(name, precision="double").expected_score) < 1e-9
        assert abs(float(exact) - solve_expected(name).expected_score) < 1e-6
        # the denominator divides one power of the faces: 6 ** (dice * throws * boxes)
        boxes = load_rules(name).n_categories
        assert (6 ** (5 * 3 * boxes)) % exact.denominator == 0


EXACT = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow  # fractions against a brute force: 11 s, with the slow suite
@EXACT
@given(small_rules(), st.data())
def test_exact_target_equals_brute_force_fractions(rules, data):
    top = max_score(compile_rules(rules))
    s = data.draw(st.integers(0, top))
    brute = BruteForce(rules, "needed", lanes=top + 1, exact=True).start()
    assert exact_target(rules, s).value == brute[s]


@EXACT
@given(small_rules())
def test_exact_expected_equals_brute_force_fractions(rules):
    brute = BruteForce(rules, "expected", exact=True).start()
    assert exact_expected(rules).value == brute[0]


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_rules(variants=True), st.data())
def test_exact_fractions_on_variants_equal_brute_force(rules, data):
    # served bonuses (a first throw scored at once), boxes that need another, multipliers
    brute = BruteForce(rules, "expected", exact=True).start()
    assert exact_expected(rules).value == brute[0]
    top = max_score(compile_rules(rules))
    s = data.draw(st.integers(0, top))
    assert exact_target(rules, s).value == BruteForce(rules, "needed", lanes=top + 1,
                                                      exact=True).start()[s]  # fmt: skip


def test_limbs_round_trip():
    for v in (0, 1, 2**32 - 1, 2**32, 6**180 * 325 + 12345):
        assert from_limbs(to_limbs(v, 20)) == v
    with pytest.raises(OverflowError):
        to_limbs(2**64, 2)


def test_exact_refuses_large_state_spaces():
    with pytest.raises(UserError, match="exact arithmetic"):
        exact_target("yacht", 150)
    with pytest.raises(UserError, match="target"):
        exact_target("yacht", 326)


def test_cli_exact_json():
    out = subprocess.run(
        [sys.executable, "-c", "from dicelab.cli import main; main()",
         "solve", "yacht", "--target", "325", "--exact", "--json"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert Fraction(int(d["numerator"]), int(d["denominator"])) == PERFECT_325
    assert d["objective"] == "target" and d["target"] == 325
