"""The spread (standard deviation) of the final score from every state and option.

The backward second moments are checked against the forward distribution of the
same strategy (a different computation), against published standard deviations,
and inside a turn against the table they come from.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from oracles.rules import small_rules

from dicelab.engine.objectives.distribution import score_distribution
from dicelab.engine.objectives.expected import solve_expected
from dicelab.engine.objectives.spread import solve_spread, spread_of, turn_moments
from dicelab.engine.turn import chosen_keeps
from dicelab.errors import UserError
from dicelab.rules.compiled import compile_rules

PUBLISHED_SD = {"yahtzee": (59.6117, 4), "yacht": (37.86, 2)}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PUBLISHED_SD))
def test_published_standard_deviations(name):
    sd, digits = PUBLISHED_SD[name]
    spread = solve_spread(name)
    assert round(spread.start_sd, digits) == sd


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_rules())
def test_the_start_agrees_with_the_forward_distribution(rules):
    game = compile_rules(rules)
    table = solve_expected(game)
    spread = solve_spread(game, table)
    dist = score_distribution(game, table)
    # variances: a standard deviation near 0 carries the square root of rounding
    assert spread.start_sd**2 == pytest.approx(dist.sd**2, abs=1e-7)


def first_throw_moments(spread, mask, u, y):
    """The turn start's mean and second moment, mixed from the first throw's best keeps."""
    space = spread.game.space
    K, KB = turn_moments(spread, mask, u, y)
    rerolls = K.shape[0] - 1
    A, B = (K[rerolls].copy(), KB[rerolls].copy()) if rerolls else (K[0].copy(), KB[0].copy())
    if rerolls:
        chosen_keeps(space, A, B)
    roll0 = space.size_start[space.dice]
    return space.roll_prob @ A[roll0:], space.roll_prob @ B[roll0:]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["yazy", "yahtzee"])
def test_every_turn_gives_back_its_table_entry(name):
    # double-precision turns, so the table's entries are those of a double turn
    spread = solve_spread(name, solve_expected(name, precision="double"))
    game = spread.game
    V, M2 = spread.expected.values, spread.values
    rng = np.random.default_rng(5)
    checked = 0
    while checked < 25:
        mask = int(rng.integers(0, game.full_mask))
        u = int(rng.integers(0, game.n_upper))
        y = int(rng.integers(0, game.n_flag))
        if not game.upper_reach[mask, u] or (y and not (mask >> game.yahtzee) & 1):
            continue
        mean, second = first_throw_moments(spread, mask, u, y)
        assert mean == pytest.approx(V[mask, y, u], abs=1e-9)
        assert second == pytest.approx(M2[mask, y, u], rel=1e-12, abs=1e-9)
        assert spread_of(second, mean) >= 0
        checked += 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_rules())
def test_tiny_turns_give_back_their_table_entries(rules):
    game = compile_rules(rules)
    spread = solve_spread(game, solve_expected(game))
    mean, second = first_throw_moments(spread, 0, 0, 0)
    assert mean == pytest.approx(spread.expected.values[0, 0, 0], abs=1e-9)
    assert second == pytest.approx(spread.values[0, 0, 0], abs=1e-7)


def test_a_last_box_by_hand():
    # yacht with only Choice open: the final score is the points so far plus the
    # Chance of an optimal turn, whose spread is worked out here by enumeration
    spread = solve_spread("yacht")
    game = spread.game
    chance = [c.id for c in game.rules.categories].index("choice")
    mask = game.full_mask ^ (1 << chance)
    sd = spread.sd(mask)
    # keep dice of 4 or more before each reroll: the chance turn's known optimum
    faces = np.arange(1, 7)
    last = faces.mean()
    two = np.mean(np.maximum(faces, last))
    three = np.mean(np.maximum(faces, two))  # values of one die with 2 rerolls left
    assert spread.expected.value(mask) == pytest.approx(5 * three)
    # per die: first throw x, keep if x >= 5 (> 4.25), else reroll: keep y if y >= 4
    p_final = np.zeros(7)
    for x in faces:
        if x > two:
            p_final[x] += 1 / 6
            continue
        for y in faces:
            if y > last:
                p_final[y] += 1 / 36
            else:
                p_final[1:] += 1 / 216
    die = np.arange(7)
    m = p_final @ die
    var = p_final @ die**2 - m**2
    assert m == pytest.approx(three)
    assert sd == pytest.approx(np.sqrt(5 * var), abs=1e-9)


def test_served_rules_have_no_option_spreads():
    spread = solve_spread("generala")
    assert spread.start_sd > 0
    with pytest.raises(UserError, match="served"):
        turn_moments(spread, 0, 0, 0)
