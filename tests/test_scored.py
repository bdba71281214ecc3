"""The fewest and most points so far of every state (:func:`scored_range`) against a
walk over every game, and the tables laid out on them against tables on the
looser sums of the boxes' best scores: the same values, to the bit, wherever a
game can be."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles.expectimax import scored_totals
from oracles.rules import bonus_rules, small_rules

from dicelab.engine.objectives.points import (
    build_layout,
    max_score,
    scored_range,
    so_far_rows,
    state_bounds,
)
from dicelab.engine.objectives.target import SO_FAR, solve_points
from dicelab.rules.compiled import as_game, compile_rules

SLOW = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def walked_range(rules, game) -> tuple[np.ndarray, np.ndarray]:
    """:func:`scored_range` from :func:`scored_totals`, in the table's coordinates."""
    shape = (1 << game.n_categories, game.n_flag, game.n_upper)
    lo, hi = np.full(shape, 1, np.int64), np.zeros(shape, np.int64)
    seen = np.zeros(shape, bool)
    flag_box = rules.flag_index
    for (filled, holds, up), totals in scored_totals(rules).items():
        flag = holds >> flag_box & 1 if flag_box >= 0 else 0
        u, y = game.turn_state(up, flag)
        a, b = min(totals), max(totals)
        if seen[filled, y, u]:
            a, b = min(a, lo[filled, y, u]), max(b, hi[filled, y, u])
        lo[filled, y, u], hi[filled, y, u], seen[filled, y, u] = a, b, True
    return lo, hi


def _check_against_the_walk(rules):
    game = compile_rules(rules)
    lo, hi = scored_range(game)
    want_lo, want_hi = walked_range(rules, game)
    assert np.array_equal(lo, want_lo) and np.array_equal(hi, want_hi)
    bounds = state_bounds(game)  # within the sums of the boxes' best scores
    reached = hi >= lo
    assert not (reached & ~bounds.reachable).any()  # (a flag box that scores 0 never flags)
    assert (lo >= bounds.so_far_lo)[reached].all() and (hi <= bounds.so_far_hi)[reached].all()


@SLOW
@given(small_rules(variants=True))
def test_the_range_of_points_so_far_is_that_of_every_game(rules):
    """Joker rules, extra bonuses, served bonuses, boxes that need another, forced
    order, boxes that count double: the fewest and most points of each state are
    those of a walk over every game."""
    _check_against_the_walk(rules)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bonus_rules())  # (larger games: fewer of them, about 7 s)
def test_the_range_of_points_so_far_with_an_upper_bonus(rules):
    _check_against_the_walk(rules)


def test_yahtzee_rows_of_points_so_far_are_a_fifth_shorter():
    """In Yahtzee a filled Chance holds at least 5 points, a flag means 50 in the
    Yahtzee box, and an extra bonus in an upper box needs its five of a kind: over
    every state, 148,015,200 points so far rather than 184,438,336."""
    game = as_game("yahtzee")
    bounds = state_bounds(game)
    lo, hi = bounds.scored
    r = bounds.reachable
    assert (hi - lo + 1)[r].sum() == 148_015_200
    assert (bounds.so_far_hi - bounds.so_far_lo + 1)[r].sum() == 184_438_336
    chance, yahtzee = 12, 11
    full = game.full_mask
    assert lo[1 << chance, 0, 0] == 5 and hi[1 << chance, 0, 0] == 30
    assert lo[1 << yahtzee, 1, 0] == hi[1 << yahtzee, 1, 0] == 50
    # Ones holding 3 and the Yahtzee box 50: no five of a kind went in Ones
    assert hi[1 | 1 << yahtzee, 1, 3] == 53
    assert hi[full, 1, 63] == bounds.so_far_hi[full, 1, 63]  # the best game reaches the sum


def _own_values(layout, values, lo, hi):
    """Every reachable state's values over ``lo .. hi``, read through ``layout``."""
    out = []
    for m, y, u in zip(*np.nonzero((layout.off >= 0) & (hi >= lo)), strict=True):
        start = layout.off[m, y, u] + lo[m, y, u] - layout.lo[m, y, u]
        out.append(values[start : start + hi[m, y, u] - lo[m, y, u] + 1])
    return np.concatenate(out) if out else np.zeros(0)


@SLOW
@given(st.one_of(bonus_rules(), small_rules(variants=True)), st.data())
def test_tables_on_the_exact_rows_hold_the_same_values_to_the_bit(rules, data):
    """A table over points so far (a random utility, cut at random, the rest of a
    game from a random start or the whole) on the exact rows and on rows from the
    sums of the boxes' best scores: every value a game can reach is the same."""
    game = compile_rules(rules)
    bounds = state_bounds(game)
    top = max_score(game)
    low = data.draw(st.integers(-1, top), label="low")
    high = data.draw(st.integers(low + 1, top + 2), label="high")
    u = np.array(data.draw(st.lists(st.floats(-3, 3), min_size=top + 2, max_size=top + 2)))
    reachable = np.argwhere(bounds.reachable)
    m, y, c = (int(i) for i in reachable[data.draw(st.integers(0, 10**6)) % len(reachable)])
    start = data.draw(st.sampled_from([None, (m, y, c, int(bounds.scored[0][m, y, c]))]))

    def utility(points, upper):
        return u[np.clip(points + bounds.bonus_of(upper), 0, u.size - 1)]

    below, above = float(u[max(low, 0)]), float(u[min(high, u.size - 1)])
    how = (SO_FAR, (below, above), utility)
    exact = build_layout(game, *so_far_rows(bounds, low, high, start), bounds=bounds)
    loose = bounds.__dict__.pop("scored")
    try:
        bounds.__dict__["scored"] = (np.asarray(bounds.so_far_lo), bounds.so_far_hi)
        wide = build_layout(game, *so_far_rows(bounds, low, high, start), bounds=bounds)
    finally:
        bounds.__dict__["scored"] = loose
    assert exact.size <= wide.size
    lo, hi, _ = so_far_rows(bounds, low, high, start)
    lo, hi = np.where(bounds.reachable, lo, 1), np.where(bounds.reachable, hi, 0)
    mine = _own_values(exact, solve_points(game, exact, *how), lo, hi)
    theirs = _own_values(wide, solve_points(game, wide, *how), lo, hi)
    assert np.array_equal(mine.view(np.uint64), theirs.view(np.uint64))


def test_a_position_no_game_reaches_is_refused_in_one_line():
    """An extra bonus for Ones holding 1: under the forced joker only a five of a
    kind of ones earns a bonus there (3 points), so no game has 151 points with Ones
    at 1 and the all-alike box at 50; a table over points so far says so rather than
    answering."""
    from dicelab.engine.objectives.utility import solve_utility, step_utility
    from dicelab.errors import UserError
    from dicelab.rules import parse_rules

    rules = parse_rules(
        {
            "name": "gap",
            "dice": 3,
            "faces": 3,
            "rolls": 2,
            "categories": [
                {"id": "ones", "kind": "face", "face": 1},
                {"id": "twos", "kind": "face", "face": 2},
                {"id": "sum", "kind": "chance"},
                {"id": "all", "kind": "of_a_kind", "count": 3, "score": 50},
            ],
            "upper_bonus": {"threshold": 3, "points": 10},
            "extra_yahtzee": {"category": "all", "bonus": 100, "joker": "forced"},
        }
    )
    game = compile_rules(rules)
    table = solve_utility(game, step_utility(game, 200))
    mask = 0b1001  # Ones and the all-alike box
    assert 0.0 <= table.value(mask, 1, 1, 51) <= 1.0  # Ones 1, the box 50: a real game
    assert 0.0 <= table.value(mask, 3, 1, 153) <= 1.0  # Ones 3 by a joker, one bonus
    with pytest.raises(UserError, match="occur in a game: .* 51 to 51 points so far, not 151"):
        table.value(mask, 1, 1, 151)
