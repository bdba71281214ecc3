"""The simple strategy of ``dicelab compare`` (the skill gap's yardstick), valued exactly.

Checked against two independent answers: a brute force that plays the all-zero
table's strategy out over ordered dice on tiny random rule sets
(``oracles.policy.PolicyBrute``, sharing nothing with the engine's layout of turn
outcomes), and on the built-in rule sets the whole final-score distribution of the
same strategy, worked out forwards over every upper total
(:func:`dicelab.engine.objectives.distribution.score_distribution`), where
:mod:`dicelab.play.simple` works backwards on one lane a state.
"""

import numpy as np
import pytest
from hypothesis import given
from oracles.policy import BRUTE, PolicyBrute
from oracles.rules import small_rules

from dicelab.engine.objectives.distribution import score_distribution
from dicelab.play.simple import simple_strategy
from dicelab.rules import load_rules
from dicelab.rules.compiled import compile_rules


def zeros_of(rules) -> np.ndarray:
    g = compile_rules(rules)
    return np.zeros((1 << g.n_categories, g.n_flag, g.n_upper))


@BRUTE
@given(small_rules())
def test_simple_strategy_equals_the_brute_force(rules):
    found = simple_strategy(rules, use_cache=False)
    pmf, bonus, same = PolicyBrute(rules, zeros_of(rules)).summary()
    assert found.expected == pytest.approx(sum(x * p for x, p in pmf.items()), abs=1e-9)
    if found.p_bonus is not None:
        assert found.p_bonus == pytest.approx(bonus, abs=1e-12)
    if found.p_all_same is not None:
        assert found.p_all_same == pytest.approx(same, abs=1e-12)


@pytest.mark.parametrize("name", ["yacht", "yahtzee", "generala"])
def test_simple_strategy_equals_its_whole_distribution(name):
    # generala: served hands (points for a hand made on the first throw) too
    found = simple_strategy(name, use_cache=False)
    dist = score_distribution(name, zeros_of(load_rules(name)), strategy="simple")
    assert found.expected == pytest.approx(dist.mean, abs=1e-9)
    if dist.p_bonus is not None:
        assert found.p_bonus == pytest.approx(dist.p_bonus, abs=1e-12)
    assert found.p_all_same == pytest.approx(dist.p_all_same, abs=1e-12)
    # far below the optimum, and well above playing at random
    assert 0.75 * dicelab_value(name) < found.expected < dicelab_value(name) - 10


def dicelab_value(name: str) -> float:
    import dicelab

    return dicelab.solve(name).value()


def test_simple_strategy_is_cached_once_worked_out(monkeypatch, tmp_path):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))  # a cache of its own: empty
    first = simple_strategy("yazy")
    again = simple_strategy("yazy")
    assert not first.cached and again.cached
    assert again.expected == first.expected and again.p_all_same == first.p_all_same
    assert simple_strategy("yazy", use_cache=False).expected == first.expected
