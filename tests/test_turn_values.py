"""Values inside a turn against a plain enumeration of reroll outcomes."""

import pytest

from dicelab.engine.objectives.expected import solve_expected, turn_values


@pytest.fixture(scope="module")
def yahtzee():
    return solve_expected("yahtzee", precision="double")


def test_turn_start_equals_table(yahtzee):
    for filled, upper, flag in [(0, 0, 0), (0b1000000000111, 9, 0), (1 << 11, 0, 1)]:
        tv = turn_values(yahtzee, filled, upper, flag)
        assert tv.start_value == pytest.approx(yahtzee.value(filled, upper, flag), abs=1e-9)


def test_keep_values_by_enumeration(yahtzee):
    # value of a keep = sum over reroll outcomes of P(outcome) x value of that roll
    tv = turn_values(yahtzee, 0b0000100100011, 4, 0)
    s = yahtzee.game.space
    for dice in ([1, 1, 4], [6, 6], [], [2, 3, 4, 5]):
        keep = s.index(dice)
        for n in (1, 2):
            direct = sum(
                float(p) * tv.roll_value(roll, n - 1) for roll, p in s.reroll_outcomes(keep).items()
            )
            assert tv.keep_value(n, keep) == pytest.approx(direct, abs=1e-9)


def test_final_roll_value_is_best_box(yahtzee):
    tv = turn_values(yahtzee, 0, 0, 0)
    s = yahtzee.game.space
    for dice in ([2, 2, 2, 6, 6], [1, 2, 3, 4, 5], [5, 5, 5, 5, 5]):
        roll = s.index(dice)
        best = max(o.value for o in tv.box_options(roll))
        assert tv.roll_value(roll, 0) == pytest.approx(best, abs=1e-9)


def test_known_positions(yahtzee):
    s = yahtzee.game.space
    tv = turn_values(yahtzee, 0, 0, 0)
    roll = s.index([3, 3, 6, 5, 6])
    best = max(s.sub_keeps(roll), key=lambda k: tv.keep_value(2, k))
    assert s.faces_of(best) == (6, 6)
    roll = s.index([2, 2, 2, 6, 6])
    best_box = max(tv.box_options(roll), key=lambda o: o.value)
    assert yahtzee.rules.categories[best_box.box].id == "full_house"


@pytest.mark.parametrize("name", ["yahtzee", "yahtzee-forced-joker", "yatzy", "yacht", "yazy"])
def test_numpy_turn_start_is_the_solver_value(name, yahtzee):
    """Advice computes one turn in NumPy; it gives the solver's double-precision
    value to rounding (the kernel holds values relative to a base and sums the first
    throw with fused multiply-adds)."""
    import numpy as np

    from dicelab.engine import turn

    table = yahtzee if name == "yahtzee" else solve_expected(name, precision="double")
    g = table.game
    rng = np.random.default_rng(7)
    masks = [0, g.full_mask ^ 1, *rng.integers(0, g.full_mask, size=40)]
    for mask in masks:
        us = np.flatnonzero(g.upper_reach[mask])
        for u in (us[0], us[len(us) // 2], us[-1]):
            for y in range(g.flags_of(int(mask))):
                _, start, _ = turn.turn_detail(g, table.values, int(mask), int(u), y)
                assert start == pytest.approx(table.values[mask, y, u], rel=1e-13, abs=1e-13)
