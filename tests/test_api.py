"""The public API: the contract of the README, checked against SPEC's figures and brute force."""

import subprocess
import sys

import numpy as np
import pytest
from oracles.duel import FOUR_BOXES, duel_brute_force

import dicelab

YACHT = 191.7743692  # SPEC, Part A: yacht's optimal expected score
YACHT_SD = 37.86
PERFECT_325 = 3.610891364602e-15  # SPEC, Part A, objective 2


@pytest.mark.slow
def test_the_readme_contract():
    rules = dicelab.load_rules("yacht")
    table = dicelab.solve(rules)
    assert table.value() == pytest.approx(YACHT, abs=1e-6)
    pos = dicelab.Position(dice=(3, 3, 6, 5, 6), rerolls=2, filled={"ones": 3})
    advice = table.advise(pos)
    best, second = advice.best, advice.options[1]
    assert isinstance(best.label, str) and best.value == max(o.value for o in advice.options)
    assert second.cost == pytest.approx(best.value - second.value)
    dist = table.distribution()
    assert dist.mean == pytest.approx(YACHT, abs=1e-6)
    assert dist.sd == pytest.approx(YACHT_SD, abs=0.005)
    p90 = dist.percentile(90)
    assert dist.probability_at_least(p90) > 0.1 >= dist.probability_at_least(p90 + 1) - 1e-12
    assert dist.probability_at_least(0) == pytest.approx(1.0)
    assert dist.probability_at_least(326) == 0.0
    target = dicelab.solve(rules, objective="target")
    assert target.probability(325) == pytest.approx(PERFECT_325, rel=1e-4)
    assert target.probability(200) >= dist.probability_at_least(200)  # the best chance
    one = dicelab.solve("yazy", objective="target", target=200, cache=False)
    assert isinstance(one, dicelab.OneTargetTable) and one.n_values > 0
    every = dicelab.solve("yazy", objective="target", cache=False)
    assert one.probability(200) == pytest.approx(every.probability(200), abs=1e-6)
    pos = dicelab.Position(dice=(3, 3, 6, 5, 6), rerolls=2, filled={"ones": 3})
    assert one.advise(pos).best.label == every.advise(pos, target=200).best.label
    with pytest.raises(dicelab.UserError, match="target: only with objective target"):
        dicelab.solve("yazy", target=200)


def test_advice_averaged_over_the_first_throw_is_the_game_value():
    """Every first throw's best option, weighted by its chance, makes the whole game."""
    table = dicelab.solve("yacht")
    space = table.game.space
    total = 0.0
    for r, roll in enumerate(space.rolls):
        advice = table.advise(dicelab.Position(dice=space.faces_of(int(roll)), rerolls=2))
        total += space.roll_prob[r] * advice.value
    assert total == pytest.approx(YACHT, abs=1e-6)


def test_rules_from_a_path_and_from_toml_text(tmp_path):
    text = (
        'name = "tiny"\ndice = 2\nfaces = 3\nrolls = 2\n'
        '[[categories]]\nid = "ones"\nkind = "face"\nface = 1\n'
        '[[categories]]\nid = "sum"\nkind = "chance"\n'
    )
    f = tmp_path / "tiny.toml"
    f.write_text(text)
    assert dicelab.load_rules(str(f)) == dicelab.load_rules(text) == dicelab.load_rules(f)
    rules = dicelab.load_rules(text)
    assert dicelab.load_rules(rules) is rules


@pytest.mark.slow
def test_duel_of_a_tiny_game_against_brute_force():
    rules = dicelab.load_rules(FOUR_BOXES_TOML)
    duel = dicelab.solve(rules, objective="duel", cache=False)
    assert duel.value() == pytest.approx(duel_brute_force(rules), abs=1e-12)
    assert isinstance(duel, dicelab.DuelTable) and "first player" in repr(duel)
    # the first player's chance, again from the advice on every first throw
    space = duel.game.space
    total = 0.0
    for r, roll in enumerate(space.rolls):
        pos = dicelab.Position(dice=space.faces_of(int(roll)), rerolls=1)
        advice = duel.advise(pos, theirs=dicelab.Sheet({}))
        assert advice.seat == "A" and advice.options[0].cost == 0.0
        total += space.roll_prob[r] * advice.options[0].value
    assert total == pytest.approx(duel.value(), abs=1e-6)


def _toml_line(key, value):
    return f"{key} = {value!r}".replace("'", '"')


FOUR_BOXES_TOML = "\n".join(
    [_toml_line(k, v) for k, v in FOUR_BOXES.items() if not isinstance(v, (dict, list))]
    + ["[upper_bonus]", "threshold = 4", "points = 5"]
    + [
        "[[categories]]\n" + "\n".join(_toml_line(k, v) for k, v in c.items())
        for c in FOUR_BOXES["categories"]
    ]
)


def test_short_reprs_and_a_shared_table_type():
    table = dicelab.solve("yacht")
    assert isinstance(table, dicelab.SolvedTable) and table.objective == "expected"
    assert len(repr(table)) < 100 and "191.774369" in repr(table)
    assert len(repr(dicelab.load_rules("yacht"))) < 100


def test_mistakes_are_user_errors_with_their_figures():
    with pytest.raises(dicelab.NotFound):
        dicelab.load_rules("no-such-game")
    with pytest.raises(dicelab.UserError, match="objective: got 'fastest'"):
        dicelab.solve("yacht", objective="fastest")
    with pytest.raises(dicelab.UserError, match="precision"):
        dicelab.solve("yacht", precision="half")
    with pytest.raises(dicelab.TooLarge) as caught:
        dicelab.solve("yahtzee", objective="duel")
    exc = caught.value
    assert exc.states > 10**10 and exc.bytes > 2**40 and exc.reason in exc.summary
    # far beyond the machine: no --allow-large offered (test_cost has one within reach)
    assert "far beyond this machine" in str(exc) and "allow-large" not in str(exc)


def test_import_loads_no_numba_and_names_are_listed():
    code = (
        "import sys, dicelab; dicelab.load_rules; dicelab.Position; print('numba' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
    for name in ("solve", "load_rules", "Position", "ScoreDistribution", "TooLarge"):
        assert name in dir(dicelab)
    with pytest.raises(AttributeError):
        dicelab.no_such_name  # noqa: B018


def test_solve_is_the_function_and_every_engine_module_imports_by_its_dotted_name():
    import dicelab.engine.advice.single as single
    import dicelab.engine.objectives.expected as expected

    assert callable(dicelab.solve) and dicelab.solve.__module__ == "dicelab.api"
    assert expected.__name__ == "dicelab.engine.objectives.expected"
    assert single.__name__ == "dicelab.engine.advice.single"
    assert np.isclose(dicelab.solve("yacht").value(), YACHT)
