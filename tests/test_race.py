"""The exact dice race against hand-computed fractions and an independent recursion."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.race import brute_distribution, plain_race

from dicelab.errors import UserError
from dicelab.games.race.exact import Dice, parse_list, race, sum_distribution
from dicelab.games.race.fast import race_payoff

F = Fraction


def test_distribution_two_six_sided_dice():
    dist = sum_distribution(2, 6)
    assert dist == {s: F(6 - abs(s - 7), 36) for s in range(2, 13)}


@given(st.integers(1, 4), st.integers(2, 6))
def test_distribution_matches_listing_every_throw(dice, faces):
    assert sum_distribution(dice, faces) == brute_distribution(dice, faces)


@pytest.mark.parametrize(
    "a, b, dice, faces, win, lose, tie",
    [
        # one six-sided die: every face is equally likely
        ([1], [2], 1, 6, F(1, 2), F(1, 2), F(0)),
        ([1], [1], 1, 6, F(0), F(0), F(1)),
        # A needs 1 and 2, B needs 3: A wins only if 3 is the last of the three to show
        ([1, 2], [3], 1, 6, F(1, 3), F(2, 3), F(0)),
        # shared 1: a tie iff 2 and 3 both show before the first 1
        ([1, 2], [1, 3], 1, 6, F(1, 3), F(1, 3), F(1, 3)),
        # coin: two heads before one tail
        ([1, 1], [2], 1, 2, F(1, 4), F(3, 4), F(0)),
        # two six-sided dice
        ([7], [2], 2, 6, F(6, 7), F(1, 7), F(0)),
        ([7, 7], [6], 2, 6, F(36, 121), F(85, 121), F(0)),
        ([6, 7], [7], 2, 6, F(0), F(6, 11), F(5, 11)),
        # 7 last among the first showings of 6, 7, 8 (weights 5, 6, 5)
        ([6, 8], [7], 2, 6, F(25, 88), F(63, 88), F(0)),
        ([7], [7], 2, 6, F(0), F(0), F(1)),
    ],
)
def test_hand_computed(a, b, dice, faces, win, lose, tie):
    r = race(a, b, dice, faces)
    assert (r.win, r.lose, r.tie) == (win, lose, tie)


def test_reference_match_up_against_plain_recursion():
    a, b = [5, 6, 7, 8, 9], [5, 6, 7, 7, 8]
    r = race(a, b, 2, 6)
    assert (r.win, r.lose, r.tie) == plain_race(a, b, 2, 6)
    assert r.beats
    assert r.payoff == r.win - r.lose > 0


lists = st.lists(st.integers(0, 20), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(2, 5), lists, lists)
def test_random_match_ups_against_plain_recursion(dice, faces, a, b):
    span = dice * (faces - 1) + 1
    a = [dice + x % span for x in a]
    b = [dice + x % span for x in b]
    r = race(a, b, dice, faces)
    assert (r.win, r.lose, r.tie) == plain_race(a, b, dice, faces)
    assert r.win + r.lose + r.tie == 1
    back = race(b, a, dice, faces)
    assert (back.win, back.lose, back.tie) == (r.lose, r.win, r.tie)
    weights = np.array(Dice(dice, faces).ways, dtype=np.float64)
    ca = np.bincount(np.array(a) - dice, minlength=span)
    cb = np.bincount(np.array(b) - dice, minlength=span)
    assert race_payoff(ca, cb, weights) == pytest.approx(float(r.win - r.lose), abs=1e-12)


def test_order_of_the_list_does_not_matter():
    assert race([9, 5, 7], [8, 6], 2, 6) == race([5, 7, 9], [6, 8], 2, 6)


def test_lists_of_different_lengths_with_repeats():
    a, b = [4, 4, 10], [7, 7, 7, 7]
    r = race(a, b, 2, 6)
    assert (r.win, r.lose, r.tie) == plain_race(a, b, 2, 6)


def test_rolls_nobody_needs_cost_nothing():
    # with twelve faces, sums 2..24; only 2 and 3 matter, so very few positions
    r = race([2], [3], 2, 12)
    assert r.win == F(1, 3)
    assert r.positions <= 2


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: race([13], [7], 2, 6), "13"),
        (lambda: race([1], [7], 2, 6), "2..12"),
        (lambda: race([], [7], 2, 6), "empty"),
        (lambda: race([7], [], 2, 6), "empty"),
        (lambda: race([7], [7], 0, 6), "at least 1"),
        (lambda: race([7], [7], 2, 1), "at least 2"),
        (lambda: race([7.5], [7], 2, 6), "whole number"),
        (lambda: parse_list(""), "empty"),
        (lambda: parse_list("5,six"), "cannot read"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(UserError, match=message):
        call()


def test_parse_list_forms():
    assert parse_list("5,6,7") == (5, 6, 7)
    assert parse_list("[5, 6, 7]") == (5, 6, 7)
    assert parse_list("5 6 7") == (5, 6, 7)
