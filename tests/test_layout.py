"""The rows of tables over points, laid out state by state in one pass
(:func:`~dicelab.engine.objectives.points.stored_rows`), against the same layout
made with whole-array operations (``oracles.layout``): the same rows, offsets,
blocks and layers, so a table cached before reads the same."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles.layout import array_layout
from oracles.rules import bonus_rules, small_rules

from dicelab.engine.objectives.points import (
    needed_key,
    needed_layout,
    so_far_rows,
    state_bounds,
    stored_rows,
)
from dicelab.rules.compiled import as_game, compile_rules


def _same(got, want):
    for name, a, b in zip(("lo", "hi", "off", "block", "layer_start"), got, want, strict=True):
        assert np.array_equal(a, b), name


def _cases(bounds, draw=None):
    """Rows of points so far (whole, cut, from a start) and of points still needed."""
    yield 1, bounds.to_come, None
    yield *so_far_rows(bounds)[:2], None
    top = int(bounds.to_come[0, 0, 0])
    yield *so_far_rows(bounds, top // 3, 2 * top // 3)[:2], None
    reachable = np.argwhere(bounds.reachable)
    pick = reachable[len(reachable) // 3] if draw is None else reachable[draw % len(reachable)]
    m, y, u = (int(i) for i in pick)
    yield so_far_rows(bounds, 5, top - 5, (m, y, u, int(bounds.scored[0][m, y, u])))


@pytest.mark.parametrize("name", ["yahtzee", "yatzy", "yazy"])
def test_built_in_layouts_match_the_whole_array_layout(name):
    bounds = state_bounds(as_game(name))
    for lo, hi, live in _cases(bounds):
        _same(stored_rows(lo, hi, bounds, live), array_layout(lo, hi, bounds, live))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(bonus_rules(), small_rules(variants=True)), st.integers(0, 10**6))
def test_random_layouts_match_the_whole_array_layout(rules, draw):
    bounds = state_bounds(compile_rules(rules))
    for lo, hi, live in _cases(bounds, draw):
        _same(stored_rows(lo, hi, bounds, live), array_layout(lo, hi, bounds, live))


def test_the_needed_layout_and_its_key_agree():
    """The table of every target is named by the key of its rows without laying them
    out (:func:`needed_key`): it is the key of the layout it is solved on."""
    game = as_game("yatzy")
    assert needed_key(game) == needed_layout(game).key()
