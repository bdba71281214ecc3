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
    needed_size,
    so_far_layout,
    so_far_rows,
    so_far_size,
    state_bounds,
    stored_rows,
    stored_size,
)
from dicelab.rules.compiled import as_game, compile_rules


def _same(got, want):
    for name, a, b in zip(("lo", "hi", "off", "block", "layer_start"), got, want, strict=True):
        assert np.array_equal(a, b), name


def _check(bounds, draw=None):
    for lo, hi, live in _cases(bounds, draw):
        want = array_layout(lo, hi, bounds, live)
        _same(stored_rows(lo, hi, bounds, live), want)
        assert stored_size(lo, hi, bounds, live) == want[4][-1]  # counted, not laid out
    top = int(bounds.to_come[0, 0, 0])
    for cut in ((top // 3, 2 * top // 3), (None, top // 2), (top // 4, None)):
        want = array_layout(*so_far_rows(bounds, *cut)[:2], bounds)  # cut in the pass
        _same(stored_rows(*bounds.scored, bounds, cut=cut), want)
        assert stored_size(*bounds.scored, bounds, cut=cut) == want[4][-1]


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
    _check(state_bounds(as_game(name)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(bonus_rules(), small_rules(variants=True)), st.integers(0, 10**6))
def test_random_layouts_match_the_whole_array_layout(rules, draw):
    _check(state_bounds(compile_rules(rules)), draw)


def test_the_needed_layout_and_its_key_agree():
    """The table of every target is named by the key of its rows without laying them
    out (:func:`needed_key`): it is the key of the layout it is solved on."""
    game = as_game("yatzy")
    assert needed_key(game) == needed_layout(game).key()
    assert needed_size(game) == needed_layout(game).size
    assert so_far_size(game, 100, 200) == so_far_layout(game, 100, 200).size
