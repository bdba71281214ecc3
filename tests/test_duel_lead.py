"""The expected lead of a duel played to win, against a plain expectimax.

The brute force throws ordered dice, keeps any subset by position and carries two
figures through every choice: the mover's chance (a win plus half a tie) and
expected final lead. It takes the larger chance, and between chances within
``EVEN`` the larger lead; it plays every game to its end (no rows of leads, no
bounds, no settled leads).
"""

from itertools import product

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from oracles.duel import FOUR_BOXES, lead_brute
from oracles.rules import tiny_rules

from dicelab.engine.advice.duel import Sheet, duel_advise
from dicelab.engine.objectives.duel import duel_table
from dicelab.engine.objectives.duel_lead import lead_table
from dicelab.engine.objectives.expected import expected_table
from dicelab.errors import UserError
from dicelab.rules import parse_rules


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_rules())
def test_the_start_agrees_with_brute_force(rules):
    value, _ = lead_brute(rules)
    table = lead_table(rules, use_cache=False)
    assert table.value() == pytest.approx(value((0, 0, 0), (0, 0, 0), 0)[1], abs=1e-4)


@pytest.fixture(scope="module")
def four():
    rules = parse_rules(FOUR_BOXES)
    duel = duel_table(rules, use_cache=False)
    return rules, duel, lead_table(rules, duel, use_cache=False)


def test_four_boxes_with_bonus_at_every_lead(four):
    rules, duel, table = four
    value, _ = lead_brute(rules)
    # A has filled the pair (0 or 10 points) and B the sum (2 to 6): A moves
    s = table.space
    a, b = s.player(0b0100, 0, 0), s.player(0b1000, 0, 0)
    for lead in [-6, -5, -4, -3, -2, 4, 5, 6, 7, 8]:
        want = value((0b0100, 0, 0), (0b1000, 0, 0), lead)[1]
        assert table.mover_lead(a, b, lead) == pytest.approx(want, abs=1e-4), lead
    node = s.node(a, b)
    never = [x for x in range(s.ulo[node], s.uhi[node] + 1) if not s.xlo[node] <= x <= s.xhi[node]]
    with pytest.raises(UserError, match="cannot occur"):
        table.waiting_lead(node, never[0])


def test_every_option_agrees_with_brute_force(four):
    rules, duel, table = four
    value, throw = lead_brute(rules)
    expected = expected_table(rules, use_cache=False)
    mine, theirs = Sheet({"ones": 1}, score=1), Sheet({"pair": 10}, score=10)
    advice = duel_advise(duel, expected, (1, 3), 1, mine, theirs, leads=table)
    me, them = (0b0001, 1, 0), (0b0100, 0, 0)
    assert len(advice.leads) == len(advice.options) > 2
    for o in advice.options:
        if o.kind == "box":
            continue
        kept = tuple(o.keep)
        free = 2 - len(kept)
        outs = [tuple(sorted(kept + x)) for x in product(range(1, 4), repeat=free)]
        if o.stops:
            want = throw(me, them, -9, (1, 3), 0)[1]
        else:
            want = np.mean([throw(me, them, -9, d, 0)[1] for d in outs])
        assert advice.leads[o.key] == pytest.approx(want, abs=1e-4), o.label
    final = duel_advise(duel, expected, (1, 3), 0, mine, theirs, leads=table)
    for o in final.options:
        c = [cat.id for cat in rules.categories].index(o.box)
        mine_after = (0b0001 | 1 << c, 1 + (o.points if c < 2 else 0), 0)
        want = -value(them, mine_after, 9 - o.points)[1]
        assert final.leads[o.key] == pytest.approx(want, abs=1e-4), o.label


def test_a_settled_game_is_played_for_points(four):
    rules, duel, table = four
    s = table.space
    expected = expected_table(rules, use_cache=False, precision="double").values
    a, b = s.player(0b0001, 1, 0), s.player(0b0010, 3, 0)
    node = s.node(a, b)
    far = int(s.uhi[node]) + 5  # B leads by more than A can make up
    still = expected[0b0010, 0, 3] - expected[0b0001, 0, 1]
    assert table.waiting_lead(node, far) == pytest.approx(far + still, abs=1e-9)


def test_the_table_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    rules = parse_rules(FOUR_BOXES)
    first = lead_table(rules)
    again = lead_table(rules)
    assert again.cached and not first.cached
    assert np.array_equal(first.values, again.values)
    assert again.value() == first.value()


@pytest.mark.slow
def test_the_library_gives_the_table_and_the_leads_of_each_option(four):
    import dicelab

    rules, duel, _ = four
    table = dicelab.solve(rules, objective="duel-lead", cache=False)
    assert isinstance(table, dicelab.LeadTable)
    value, _ = lead_brute(rules)
    assert table.value() == pytest.approx(value((0, 0, 0), (0, 0, 0), 0)[1], abs=1e-4)
    position = dicelab.Position(dice=(3, 3), rerolls=1)
    advice = table.duel.advise(position, theirs={}, leads=table)
    assert set(advice.leads) == {o.key for o in advice.options}
    assert (
        advice.to_dict()["options"][0]["explain"]["expected_lead"]
        == advice.leads[advice.options[0].key]
    )
    with pytest.raises(dicelab.UserError, match="runner"):
        dicelab.solve(rules, objective="duel-lead", runner=object())
