"""The best-list search against brute force over every pair of lists."""

from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement

import numpy as np
import pytest
from oracles.race import plain_race

from dicelab.errors import UserError
from dicelab.games.race.exact import Dice
from dicelab.games.race.search import (
    ListSpace,
    best_list,
    solve_game,
    solve_zero_sum,
    substitution_path,
)


def all_lists(dice, faces, picks):
    return list(combinations_with_replacement(range(dice, dice * faces + 1), picks))


@cache
def brute_matrix(dice, faces, picks):
    """Exact payoff of every list against every list, by the plain recursion."""
    lists = all_lists(dice, faces, picks)
    table = {}
    for i, a in enumerate(lists):
        for b in lists[i:]:
            win, lose, _ = plain_race(a, b, dice, faces)
            table[a, b] = win - lose
            table[b, a] = lose - win
    return lists, table


@pytest.mark.parametrize(
    "dice, faces, picks",
    [(1, 4, 2), (2, 3, 2), (2, 3, 3), (2, 4, 3), (3, 2, 3), (1, 3, 3), (2, 2, 4)],
)
def test_winners_are_exactly_the_unbeaten_lists(dice, faces, picks):
    lists, table = brute_matrix(dice, faces, picks)
    unbeaten = [a for a in lists if all(table[a, b] >= 0 for b in lists)]
    best = best_list(dice, faces, picks)
    assert best.pure
    assert sorted(best.winners) == sorted(unbeaten)
    first = best.winners[0]
    assert best.beaten == sum(1 for b in lists if table[first, b] > 0)
    assert best.tied == sum(1 for b in lists if b != first and table[first, b] == 0)
    rivals = [b for b in lists if b not in unbeaten]
    if rivals:
        worst = min(rivals, key=lambda b: table[first, b])
        assert best.closest[0].result.payoff == table[first, worst]
        assert best.closest[0].numbers not in unbeaten


def test_two_six_sided_dice_three_picks():
    """[6, 7, 8] is the only best list: it beats every other list (plain recursion)."""
    best = best_list(2, 6, 3)
    assert best.winners == ((6, 7, 8),)
    for b in all_lists(2, 6, 3):
        if b != (6, 7, 8):
            win, lose, _ = plain_race((6, 7, 8), b, 2, 6)
            assert win > lose
    assert best.beaten == len(all_lists(2, 6, 3)) - 1


def test_substitution_stops_have_no_beating_neighbour():
    dice, faces, picks = 2, 4, 3
    lists, table = brute_matrix(dice, faces, picks)

    def neighbours(a):
        out = set()
        for i in range(len(a)):
            for t in range(dice, dice * faces + 1):
                b = tuple(sorted(a[:i] + (t,) + a[i + 1 :]))
                if b != a:
                    out.add(b)
        return out

    stops = [a for a in lists if all(table[b, a] <= 0 for b in neighbours(a))]
    best = best_list(dice, faces, picks)
    assert sorted(best.substitution.stops) == sorted(stops)
    path = best.substitution.path
    for before, after in zip(path, path[1:], strict=False):
        assert after in neighbours(before)
        assert table[after, before] > 0
    assert all(table[b, path[-1]] <= 0 for b in neighbours(path[-1]))


def test_substitution_path_follows_first_improvement():
    """Each step is the first swap (numbers upwards, then sums upwards) that beats."""
    space = ListSpace(Dice(2, 6), 2)
    path, cycled = substitution_path(space, space.find([7, 7]))
    assert not cycled
    steps = [space.numbers(i) for i in path]
    for before, after in zip(steps, steps[1:], strict=False):
        first = None
        for i in sorted(set(range(2)), key=lambda i: before[i]):
            for t in range(2, 13):
                cand = tuple(sorted(before[:i] + (t,) + before[i + 1 :]))
                if cand != before and first is None:
                    win, lose, _ = plain_race(cand, before, 2, 6)
                    if win > lose:
                        first = cand
        assert after == first
    assert steps[-1] in {(6, 7), (7, 8)}


def test_symmetry_classes_of_two_dice():
    space = ListSpace(Dice(2, 6), 5)
    assert len(space) == 3003
    # [5, 6, 7, 8, 9] is its own mirror image; [2, 3, 4, 5, 6] is not
    assert (space.orbit == space.orbit[space.find([5, 6, 7, 8, 9])]).sum() == 1
    same = np.flatnonzero(space.orbit == space.orbit[space.find([2, 3, 4, 5, 6])])
    found = {space.numbers(i) for i in same}
    assert (8, 9, 10, 11, 12) in found
    assert (2, 3, 4, 5, 8) in found  # swap 6 and 8 only: same chances, same strategy


def test_zero_sum_solver_on_known_games():
    rock_paper_scissors = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    x, value = solve_zero_sum(rock_paper_scissors)
    assert x == pytest.approx([1 / 3] * 3, abs=1e-7)
    assert value == pytest.approx(0, abs=1e-9)
    # row mixes 2/5, 3/5; value 1/5 (solved by hand from the indifference equations)
    x, value = solve_zero_sum(np.array([[2, -1], [-1, 1]]))
    assert x == pytest.approx([0.4, 0.6], abs=1e-7)
    assert value == pytest.approx(0.2, abs=1e-9)


class MatrixGame:
    """A symmetric game given by an antisymmetric payoff matrix (for the solver)."""

    def __init__(self, matrix):
        self.matrix = np.asarray(matrix, dtype=float)
        self.orbit = np.arange(len(self.matrix))
        self.orbits = len(self.matrix)

    def __len__(self):
        return len(self.matrix)

    def row(self, i):
        return self.matrix[i].copy()

    def exact_row(self, i, progress=None):
        return [Fraction(v) for v in self.matrix[i]]


def test_game_without_an_unbeaten_list_is_mixed():
    # a cycle of three strategies plus one that loses to all of them
    game = MatrixGame([[0, 1, -1, 1], [-1, 0, 1, 1], [1, -1, 0, 1], [-1, -1, -1, 0]])
    answer = solve_game(game, 3)
    assert answer.winners == ()
    weights = dict(answer.mix)
    assert set(weights) == {0, 1, 2}
    assert [weights[i] for i in range(3)] == pytest.approx([1 / 3] * 3, abs=1e-7)
    assert answer.gain == pytest.approx(0, abs=1e-9)


def test_game_with_an_unbeaten_list():
    game = MatrixGame([[0, 1, 0, 1], [-1, 0, -1, 1], [0, 1, 0, 1], [-1, -1, -1, 0]])
    answer = solve_game(game, 3)
    assert answer.winners == (0, 2)


def test_bad_search_settings():
    with pytest.raises(UserError, match="picks"):
        best_list(2, 6, 0)
    with pytest.raises(UserError, match="too many"):
        best_list(2, 6, 40)
    with pytest.raises(UserError, match="expected 5"):
        best_list(2, 6, 5, start=[7, 7])
