"""Risk-sensitive play against two independent brute forces, and theta -> 0.

The first oracle is the plain expectimax over points so far with the utility
``u(s) = (1 - exp(-theta s)) / theta`` at the end (the route the table takes, done
by hand). The second uses what is special about this utility: ``E[u(a + R)] =
u(a) + exp(-theta a) E[u(R)]``, so one value per turn start suffices; it shares no
points axis with the table at all.
"""

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles.expectimax import BruteForce
from oracles.rules import small_rules
from typer.testing import CliRunner

import dicelab
from dicelab.cli import app
from dicelab.engine import registry
from dicelab.engine.objectives.points import max_score
from dicelab.engine.objectives.risk import certainty_equivalent, risk_table, risk_utility
from dicelab.rules.compiled import compile_rules

runner = CliRunner()
THETAS = st.sampled_from([-0.15, -0.05, -0.01, 0.0, 0.01, 0.05, 0.2])


class SeparableBrute(BruteForce):
    """One lane: the expected utility of the points still to come, carried by
    ``E[u(g + R)] = u(g) + exp(-theta g) E[u(R)]`` (no points so far at all)."""

    def __init__(self, rules, theta):
        super().__init__(rules, "expected")
        self.theta = theta

    def u(self, x):
        return x if self.theta == 0 else -math.expm1(-self.theta * x) / self.theta

    def terminal(self, up):
        b = self.bonus if self.threshold and up >= self.threshold else 0
        return self.vector([self.u(b)])

    def after(self, w, gain):
        return self.u(gain) + math.exp(-self.theta * gain) * w


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_rules(), THETAS)
def test_risk_table_agrees_with_the_expectimax_over_points(rules, theta):
    table = risk_table(rules, theta, use_cache=False)
    top = max_score(compile_rules(rules))
    utility = list(risk_utility(rules, theta).values)
    brute = BruteForce(rules, "so_far", lanes=top + 1, utility=utility).start()
    assert table.value() == pytest.approx(float(certainty_equivalent(brute[0], theta)), abs=1e-9)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_rules(), THETAS)
def test_risk_table_agrees_with_the_separable_brute_force(rules, theta):
    table = risk_table(rules, theta, use_cache=False)
    utility = SeparableBrute(rules, theta).start()[0]
    assert table.value() == pytest.approx(float(certainty_equivalent(utility, theta)), abs=1e-9)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_rules())
def test_safe_play_is_below_and_risky_play_above_the_average(rules):
    mean = dicelab.solve(rules, cache=False, precision="double").value()
    safe = risk_table(rules, 0.05, use_cache=False).value()
    bold = risk_table(rules, -0.05, use_cache=False).value()
    assert safe <= mean + 1e-9 <= bold + 2e-9


@pytest.fixture(scope="module")
def yazy_near_zero():
    return dicelab.solve("yazy", objective="risk", theta=1e-9, cache=False)


def test_theta_near_zero_is_the_expected_score_play(yazy_near_zero):
    plain = dicelab.solve("yazy", precision="double", cache=False)
    assert yazy_near_zero.value() == pytest.approx(plain.value(), abs=1e-5)
    rng = np.random.default_rng(7)
    for _ in range(30):
        dice = tuple(int(x) for x in rng.integers(1, 7, size=5))
        rerolls = int(rng.integers(0, 3))
        filled = {"ones": 2, "full_house": 25} if rng.random() < 0.5 else {}
        position = dicelab.Position(dice=dice, rerolls=rerolls, filled=filled)
        risky, expected = yazy_near_zero.advise(position), plain.advise(position)
        assert risky.measure == "certainty_equivalent"
        plain_values = {o.key: o.value for o in expected.options}
        assert {o.key for o in risky.options} == set(plain_values)
        for option in risky.options:
            assert option.value == pytest.approx(plain_values[option.key], abs=1e-5)
        # the best play for the average is the best for theta -> 0 (up to near ties)
        assert plain_values[risky.best.key] >= expected.best.value - 1e-5


def test_the_registry_names_the_table_and_checks_theta():
    spec = registry.spec("risk", theta=0.05)
    assert spec.key == "risk:0.05" and registry.parse_key(spec.key) == spec
    with pytest.raises(dicelab.UserError, match="theta: got 0.5, expected a number from -0.2"):
        registry.spec("risk", theta=0.5)
    with pytest.raises(dicelab.UserError, match="objective risk: give theta"):
        dicelab.solve("yazy", objective="risk")
    with pytest.raises(dicelab.UserError, match="theta: only with objective risk"):
        dicelab.solve("yazy", theta=0.1)


def test_the_risk_table_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    first = dicelab.solve("yazy", objective="risk", theta=0.02)
    again = dicelab.solve("yazy", objective="risk", theta=0.02)
    assert not first.cached and again.cached
    assert again.value() == first.value()
    other = dicelab.solve("yazy", objective="risk", theta=-0.02)
    assert not other.cached and other.value() > first.value()


def test_solve_command_prints_the_certainty_equivalent():
    res = runner.invoke(app, ["solve", "yazy", "--objective", "risk", "--theta", "0.02", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["objective"] == "risk" and out["theta"] == 0.02
    # no strategy, the expected-score optimum included, has a higher expected utility
    assert out["certainty_equivalent"] >= out["expected_strategy_certainty_equivalent"] - 1e-9
    assert out["expected_strategy_certainty_equivalent"] < out["expected_score"]  # plays safe
    text = runner.invoke(app, ["solve", "yazy", "--objective", "risk", "--theta", "0.02"])
    assert "certainty equivalent" in text.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["solve", "yazy", "--theta", "3"], "theta: got 3.0, expected a number from -0.2 to 0.2"),
        (["solve", "yazy", "--objective", "risk"], "objective risk: give theta"),
        (["solve", "yazy", "--theta", "0.1", "--exact"], "--exact"),
        (["advise", "yazy", "--dice", "1", "2", "3", "4", "5", "--theta", "x"], "theta"),
        (
            ["solve", "yazy", "--objective", "win", "--theta", "0.02"],
            "--theta goes with --objective risk, not with win",
        ),
        (["solve", "yazy", "--objective", "expected", "--theta", "0.02"], "not with expected"),
        (["solve", "yazy", "--target", "150", "--theta", "0.02"], "give one of them"),
        (
            [
                "advise",
                "yazy",
                "--dice",
                "1",
                "2",
                "3",
                "4",
                "5",
                "--theta",
                "0.01",
                "--target",
                "200",
            ],
            "--theta and --target play for different objectives",
        ),
    ],
)
def test_mistakes_are_one_line_exit_2(args, message):
    out = subprocess.run(
        [sys.executable, "-c", "from dicelab.cli import main; main()", *args],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines


def test_advise_command_ranks_by_certainty_equivalent():
    args = ["advise", "yazy", "--dice", "6", "6", "6", "2", "1", "--rerolls", "2"]
    res = runner.invoke(app, [*args, "--theta", "0.05", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["theta"] == 0.05 and "certainty_equivalent" in out["options"][0]


def test_the_why_of_a_risk_option_gives_its_sure_worth_and_its_average():
    table = risk_table("yazy", 0.05)
    position = dicelab.Position(dice=(6, 6, 6, 2, 1), rerolls=2)
    from dicelab.engine.objectives.risk import explain_points

    advice = explain_points(table.advise(position), table)
    plain = {o.key: o.value for o in dicelab.solve("yazy").advise(position).options}
    best, second = advice.options[:2]
    assert advice.explanations[0].text.startswith(
        f"Keeping 6 6 6 is best: worth a sure {best.value:.2f} points to you, against "
        f"{second.value:.2f} for keeping 1 6 6 6"
    )
    # the average beside it, from the expected-score table of the same rules
    assert f"({plain[best.key]:.2f})" in advice.explanations[0].text
    assert all("costs" in w.text for w in advice.explanations[1:])
