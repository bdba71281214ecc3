"""The general two-player solver against game theory and plain recursive search."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicelab.cli.output import task_display
from dicelab.games.twoplayer import FIRST, SECOND, Outcome, Value, solve


class Subtraction:
    """Take 1..most counters from a heap; whoever cannot move loses."""

    def __init__(self, heap: int, most: int):
        self.heap, self.most = heap, most

    def start(self):
        return (self.heap, FIRST)

    def to_move(self, position):
        return position[1]

    def moves(self, position):
        return range(1, min(self.most, position[0]) + 1)

    def play(self, position, move):
        return (position[0] - move, 1 - position[1])

    def outcome(self, position):
        return None


class Nim:
    """Several heaps; take any number from one heap; whoever cannot move loses."""

    def __init__(self, heaps):
        self.heaps = tuple(heaps)

    def start(self):
        return (self.heaps, FIRST)

    def to_move(self, position):
        return position[1]

    def moves(self, position):
        return [(i, take) for i, size in enumerate(position[0]) for take in range(1, size + 1)]

    def play(self, position, move):
        heaps = list(position[0])
        heaps[move[0]] -= move[1]
        return (tuple(heaps), 1 - position[1])

    def outcome(self, position):
        return None


class GraphGame:
    """A game given as a graph: node -> [(move, next node)], with a mover per node."""

    def __init__(self, edges, movers, results, start=0):
        self.edges, self.movers, self.results, self.first = edges, movers, results, start

    def start(self):
        return self.first

    def to_move(self, node):
        return self.movers[node]

    def moves(self, node):
        return [move for move, _ in self.edges.get(node, [])]

    def play(self, node, move):
        return dict(self.edges[node])[move]

    def outcome(self, node):
        return self.results.get(node)


def minimax(game, position):
    """Plain recursion: (value for the mover, remoteness) by the textbook definitions."""

    @functools.cache
    def search(position):
        ended = game.outcome(position)
        mover = game.to_move(position)
        if ended is not None:
            if ended.winner is None:
                return Value.DRAW, 0
            return (Value.WIN if ended.winner == mover else Value.LOSS), 0
        children = []
        for move in game.moves(position):
            after = game.play(position, move)
            value, moves_left = search(after)
            if game.to_move(after) != mover:
                value = value.for_other()
            children.append((value, moves_left))
        if not children:
            return Value.LOSS, 0
        wins = [left for value, left in children if value is Value.WIN]
        if wins:
            return Value.WIN, 1 + min(wins)
        draws = [left for value, left in children if value is Value.DRAW]
        if draws:
            return Value.DRAW, 1 + min(draws)
        return Value.LOSS, 1 + max(left for _, left in children)

    return search(position)


def test_subtraction_game_loses_on_multiples():
    solution = solve(Subtraction(40, 3))
    assert len(solution) == 80  # heaps 0..40, either player to move, but not 40/second, 39/first
    for heap in range(41):
        expected = Value.LOSS if heap % 4 == 0 else Value.WIN
        for player in (FIRST, SECOND):
            if (heap, player) in solution:
                assert solution.value((heap, player)) is expected
    assert solution.winning_moves((40, FIRST)) == []
    assert solution.winning_moves((39, SECOND)) == [3]


@given(st.lists(st.integers(0, 4), min_size=1, max_size=3))
@settings(max_examples=40, deadline=None)
def test_nim_follows_the_xor_rule(heaps):
    game = Nim(heaps)
    solution = solve(game)
    for (sizes, player), value, moves_left in solution.items():
        nim_sum = functools.reduce(lambda a, b: a ^ b, sizes, 0)
        assert value is (Value.WIN if nim_sum else Value.LOSS)
        assert (value, moves_left) == minimax(game, (sizes, player))


@st.composite
def acyclic_games(draw):
    """Random finished-in-time games: moves only lead to higher-numbered nodes."""
    size = draw(st.integers(1, 14))
    movers = [draw(st.sampled_from([FIRST, SECOND])) for _ in range(size)]
    edges, results = {}, {}
    for node in range(size):
        kind = draw(st.sampled_from(["moves", "moves", "moves", "end", "stuck"]))
        later = list(range(node + 1, size))
        if kind == "end" or not later:
            if kind != "stuck":
                results[node] = draw(st.sampled_from(list(Outcome)))
            continue
        if kind == "moves":
            targets = draw(st.lists(st.sampled_from(later), min_size=1, max_size=4))
            edges[node] = list(enumerate(targets))
    return GraphGame(edges, movers, results)


@given(acyclic_games())
@settings(max_examples=300, deadline=None)
def test_random_games_match_recursive_search(game):
    solution = solve(game)
    for node, value, moves_left in solution.items():
        assert (value, moves_left) == minimax(game, node)
        best = solution.best_moves(node)
        for judged in solution.moves(node):
            if judged.move in best:
                assert judged.value is value
                assert judged.remoteness + 1 == moves_left
    line = solution.main_line()
    assert len(line) == solution.remoteness(game.start())


def test_endless_play_is_a_draw_without_remoteness():
    # 0 <-> 1 forever, or 0 -> 2 which loses for the mover at 0.
    game = GraphGame(
        edges={0: [("loop", 1), ("out", 2)], 1: [("back", 0)]},
        movers={0: FIRST, 1: SECOND, 2: SECOND},
        results={2: Outcome.SECOND_WINS},
    )
    solution = solve(game)
    assert solution.value(0) is Value.DRAW
    assert solution.value(1) is Value.DRAW
    assert solution.remoteness(0) is None
    assert solution.best_moves(0) == ["loop"]
    assert solution.main_line() == []


def test_cycle_with_an_escape_is_won():
    # At 1 the second player can leave the cycle to 3, a second-player win.
    game = GraphGame(
        edges={0: [("a", 1)], 1: [("back", 0), ("exit", 3)]},
        movers={0: FIRST, 1: SECOND, 3: FIRST},
        results={3: Outcome.SECOND_WINS},
    )
    solution = solve(game)
    assert solution.value(0) is Value.LOSS
    assert solution.remoteness(0) == 2
    assert solution.winning_moves(1) == ["back", "exit"]  # back is a win, only slower
    assert solution.best_moves(1) == ["exit"]
    assert solution.main_line() == ["a", "exit"]


def test_a_move_may_keep_the_same_player_to_move():
    # The first player moves twice in a row, then the game ends in their favour.
    game = GraphGame(
        edges={0: [("again", 1), ("pass", 2)], 1: [("finish", 3)]},
        movers={0: FIRST, 1: FIRST, 2: SECOND, 3: SECOND},
        results={3: Outcome.FIRST_WINS, 2: Outcome.DRAW},
    )
    solution = solve(game)
    assert solution.value(0) is Value.WIN
    assert solution.remoteness(0) == 2
    assert solution.winning_moves(0) == ["again"]
    assert [judged.value for judged in solution.moves(0)] == [Value.WIN, Value.DRAW]
    assert solution.counts() == {Value.WIN: 2, Value.LOSS: 1, Value.DRAW: 1}


def test_unknown_positions_and_bad_movers_are_reported():
    solution = solve(Subtraction(3, 2))
    with pytest.raises(KeyError, match="not reachable"):
        solution.value((99, FIRST))
    bad = GraphGame(edges={}, movers={0: 7}, results={})
    with pytest.raises(ValueError, match="to_move"):
        solve(bad)


def test_progress_display_does_not_change_the_result():
    quiet = solve(Nim([3, 4, 5]))
    with task_display(True) as display:
        shown = solve(Nim([3, 4, 5]), display=display)
    assert list(quiet.items()) == list(shown.items())
