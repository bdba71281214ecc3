"""Dice multisets against direct enumeration of ordered dice."""

from collections import Counter
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from dicelab.dice import SUB_GROUP, DiceSpace, n_multisets
from dicelab.errors import UserError


@pytest.mark.parametrize(
    ("dice", "faces", "rolls", "keeps"),
    [(5, 6, 252, 462), (6, 6, 462, 924), (5, 8, 792, 1287), (6, 8, 1716, 3003), (1, 2, 2, 3)],
)
def test_sizes(dice, faces, rolls, keeps):
    s = DiceSpace(dice, faces)
    assert s.n_rolls == rolls == n_multisets(dice, faces)
    assert s.n_keeps == keeps
    assert s.size(0) == 0


@pytest.mark.parametrize(("dice", "faces"), [(3, 4), (4, 3), (5, 6), (2, 8)])
def test_roll_probabilities_match_ordered_dice(dice, faces):
    s = DiceSpace(dice, faces)
    seen = Counter(tuple(sorted(d)) for d in product(range(1, faces + 1), repeat=dice))
    total = faces**dice
    for r, k in enumerate(s.rolls):
        assert s.roll_prob[r] == pytest.approx(seen[s.faces_of(k)] / total, abs=1e-15)
    assert s.roll_prob.sum() == pytest.approx(1.0, abs=1e-12)


def test_reroll_outcomes_match_ordered_dice():
    s = DiceSpace(4, 3)
    for keep in range(s.n_keeps):
        kept = s.faces_of(keep)
        free = 4 - len(kept)
        expect = Counter()
        for d in product(range(1, 4), repeat=free):
            expect[tuple(sorted(kept + d))] += Fraction(1, 3**free)
        got = {s.faces_of(k): p for k, p in s.reroll_outcomes(keep).items()}
        assert got == dict(expect)


def test_add_and_sub_are_inverse():
    s = DiceSpace(5, 6)
    for k in range(s.n_keeps):
        for f in range(6):
            a = s.add[k, f]
            if s.size(k) < 5:
                assert s.sub[a, f] == k
                assert s.faces_of(a) == tuple(sorted(s.faces_of(k) + (f + 1,)))
            else:
                assert a == -1
            if f + 1 in s.faces_of(k):
                assert s.add[s.sub[k, f], f] == k
            else:
                assert s.sub[k, f] == -1


def test_keeps_are_ordered_by_size():
    s = DiceSpace(5, 6)
    sizes = s.counts.sum(axis=1)
    assert np.all(np.diff(sizes) >= 0)
    for j in range(6):
        assert np.all(sizes[s.size_start[j] : s.size_start[j + 1]] == j)


def test_sub_keeps_of_a_roll():
    s = DiceSpace(5, 6)
    roll = s.index([3, 3, 6, 5, 6])
    subs = {s.faces_of(k) for k in s.sub_keeps(roll)}
    assert len(subs) == 3 * 2 * 3  # (0..2 threes) x (0..1 five) x (0..2 sixes)
    assert (6, 6) in subs and () in subs and (3, 3, 5, 6, 6) in subs


def test_bad_dice_are_rejected():
    s = DiceSpace(5, 6)
    with pytest.raises(UserError, match="face"):
        s.index([1, 2, 9])
    with pytest.raises(UserError, match="dice"):
        s.index([1, 1, 1, 1, 1, 1, 1])
    with pytest.raises(UserError, match="exactly 5"):
        s.roll_index([1, 2, 3])
    with pytest.raises(UserError):
        DiceSpace(0, 6)


@pytest.mark.parametrize(("dice", "faces"), [(5, 6), (6, 6), (3, 8), (2, 2)])
def test_sub_rows_list_each_one_die_smaller_keep_once(dice, faces):
    s = DiceSpace(dice, faces)
    assert s.sub_rows.shape[1] % SUB_GROUP == 0
    for k in range(s.n_keeps):
        smaller = {
            s.index(list(s.faces_of(k)[:i] + s.faces_of(k)[i + 1 :])) for i in range(s.size(k))
        }
        row = list(s.sub_rows[k])
        real = [x for x in row if x != k]
        assert sorted(real) == sorted(smaller)  # each once
        assert row[: len(real)] == real  # padding (the keep itself) only at the end
