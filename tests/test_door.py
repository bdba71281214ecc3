"""The door-lock card game: the write-up's findings and a plain recursive brute force."""

from __future__ import annotations

import csv
import functools
import itertools
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dicelab.cli import app
from dicelab.errors import UserError
from dicelab.games.door import DoorGame, parse_hand, position_table, write_csv
from dicelab.games.twoplayer import FIRST, SECOND, Value, solve
from dicelab.plot.door import write_plot


def brute_force(first_hand, second_hand, target, bust):
    """Every reachable position, keyed by the sorted cards each side has played.

    Value for the second player and the number of cards still to be played, from
    a direct recursion over the rules (no shared code with the solver).
    """

    @functools.cache
    def result(first_left, second_left, total):
        """(second player wins?, draw?, cards to the end) with best play."""
        if total == target:
            return "second", 0
        if total >= bust:
            return "first", 0
        first_to_move = len(first_left) == len(second_left) + (len(first_hand) - len(second_hand))
        hand = first_left if first_to_move else second_left
        if not hand:
            return "draw", 0
        me = "first" if first_to_move else "second"
        options = []
        for card in sorted(set(hand)):
            rest = list(hand)
            rest.remove(card)
            rest = tuple(rest)
            if first_to_move:
                options.append(result(rest, second_left, total + card))
            else:
                options.append(result(first_left, rest, total + card))
        wins = [n for who, n in options if who == me]
        if wins:
            return me, 1 + min(wins)
        draws = [n for who, n in options if who == "draw"]
        if draws:
            return "draw", 1 + min(draws)
        return options[0][0], 1 + max(n for _, n in options)

    table = {}
    stack = [((), ())]
    while stack:
        first_played, second_played = stack.pop()
        key = (tuple(sorted(first_played)), tuple(sorted(second_played)))
        if key in table:
            continue
        first_left = _minus(first_hand, key[0])
        second_left = _minus(second_hand, key[1])
        total = sum(key[0]) + sum(key[1])
        table[key] = result(first_left, second_left, total)
        if total == target or total >= bust:
            continue
        if len(key[0]) == len(key[1]):
            stack.extend((key[0] + (card,), key[1]) for card in set(first_left))
        else:
            stack.extend((key[0], key[1] + (card,)) for card in set(second_left))
    return table


def _minus(hand, played):
    left = sorted(hand)
    for card in played:
        left.remove(card)
    return tuple(left)


def test_the_first_player_wins_and_only_opening_1_loses():
    game = DoorGame()
    solution = solve(game)
    start = game.start()
    assert solution.value(start) is Value.WIN
    assert solution.winning_moves(start) == [2, 3, 4, 5]
    after_one = game.play(start, 1)
    assert solution.value(after_one) is Value.WIN  # for the second player, to move
    assert solution.winning_moves(after_one) == [1]


def test_after_1_1_answering_x_with_7_minus_x_wins_for_the_second_player():
    game = DoorGame()
    solution = solve(game)
    opened = game.position([1], [1])
    for first_cards in itertools.permutations([2, 3, 4, 5], 3):
        position = opened
        for card in first_cards:
            position = game.play(position, card)
            assert solution.value(position) is Value.WIN
            assert 7 - card in solution.winning_moves(position)
            position = game.play(position, 7 - card)
        assert game.table_sum(position) == 23
        assert game.outcome(position).winner == SECOND


@pytest.mark.parametrize(
    ("first_hand", "second_hand", "target", "bust"),
    [
        ((1, 2, 3, 4, 5), (1, 2, 3, 4, 5), 23, 24),
        ((1, 2, 3, 4, 5), (1, 2, 3, 4, 5), 21, 24),
        ((1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 5, 6), 31, 33),
        ((1, 1, 2, 3), (2, 2, 4), 9, 12),
        ((1, 2), (1, 2), 10, 11),  # the cards run out: draws
    ],
)
def test_every_position_matches_brute_force(first_hand, second_hand, target, bust):
    _check_against_brute_force(first_hand, second_hand, target, bust)


@given(
    first_hand=st.lists(st.integers(1, 6), min_size=1, max_size=4),
    second_hand=st.lists(st.integers(1, 6), min_size=1, max_size=4),
    target=st.integers(1, 18),
    gap=st.integers(1, 6),
)
@settings(max_examples=60, deadline=None)
def test_random_settings_match_brute_force(first_hand, second_hand, target, gap):
    _check_against_brute_force(tuple(first_hand), tuple(second_hand), target, target + gap)


def _check_against_brute_force(first_hand, second_hand, target, bust):
    game = DoorGame(first_hand, second_hand=second_hand, target=target, bust=bust)
    solution = solve(game)
    expected = brute_force(first_hand, second_hand, target, bust)
    found = {}
    for position, value, moves_left in solution.items():
        for_second = value if game.to_move(position) == SECOND else value.for_other()
        winner = {Value.WIN: "second", Value.LOSS: "first", Value.DRAW: "draw"}[for_second]
        found[game.played(position)] = (winner, moves_left)
    assert found == expected
    table = position_table(solution)
    for first_played, row in zip(table.rows, table.cells, strict=True):
        for second_played, cell in zip(table.columns, row, strict=True):
            key = (first_played, second_played)
            assert (cell is None) == (key not in expected)


def test_csv_has_the_write_up_layout(tmp_path):
    game = DoorGame()
    solution = solve(game)
    path = tmp_path / "door.csv"
    write_csv(solution, path)
    rows = list(csv.reader(path.open()))
    assert len(rows) == 33 and all(len(row) == 33 for row in rows)  # 32 subsets a side
    assert rows[0][1:4] == ["none", "1", "2"]
    assert rows[1][0] == "none" and rows[-1][0] == "1 2 3 4 5"
    expected = brute_force((1, 2, 3, 4, 5), (1, 2, 3, 4, 5), 23, 24)
    for row in rows[1:]:
        first = _cards(row[0])
        for label, cell in zip(rows[0][1:], row[1:], strict=True):
            key = (first, _cards(label))
            want = expected.get(key)
            assert cell == ("" if want is None else "win" if want[0] == "second" else "loss")


def _cards(label):
    return () if label == "none" else tuple(int(card) for card in label.split())


def test_plot_writes_an_image(tmp_path):
    path = tmp_path / "door.png"
    write_plot(solve(DoorGame()), path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(UserError, match="file name must end in"):
        write_plot(solve(DoorGame()), tmp_path / "door.nope")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"hand": ()}, "empty"),
        ({"hand": (0, 1, 2)}, "at least 1"),
        ({"second_hand": (1, -3)}, "at least 1"),
        ({"target": 30}, "bust sum must be above the target"),
        ({"target": 24}, "bust sum must be above the target"),
        ({"target": 0}, "target sum must be"),
    ],
)
def test_bad_parameters_are_user_errors(kwargs, message):
    with pytest.raises(UserError, match=message):
        DoorGame(**kwargs)


def test_hands_are_read_from_text():
    assert parse_hand("1 2, 3,4  5") == (1, 2, 3, 4, 5)
    with pytest.raises(UserError, match="whole numbers"):
        parse_hand("1 two 3")


def test_positions_are_built_and_read_back():
    game = DoorGame((1, 1, 2))
    position = game.position([1, 2], [1])
    assert game.played(position) == ((1, 2), (1,))
    assert game.table_sum(position) == 4
    assert game.to_move(position) == SECOND
    assert game.moves(position) == [1, 2]
    assert game.to_move(game.start()) == FIRST
    with pytest.raises(UserError, match="no card 7"):
        game.play(position, 7)


def test_command_prints_verdict_and_json(tmp_path):
    runner = CliRunner()
    out = runner.invoke(app, ["door"])
    assert out.exit_code == 0, out.output
    assert "first player wins" in out.output
    assert "Winning first moves: 2 3 4 5" in out.output
    out = runner.invoke(
        app, ["door", "--json", "--csv", str(tmp_path / "t.csv"), "--plot", str(tmp_path / "t.svg")]
    )
    assert out.exit_code == 0, out.output
    summary = json.loads(out.output)
    assert summary["winning_first_moves"] == [2, 3, 4, 5]
    assert summary["first_moves"][0]["winning_replies"] == [1]
    assert summary["first_moves"][0]["end"] == "second player wins at 23"
    assert (tmp_path / "t.csv").exists() and (tmp_path / "t.svg").exists()


@pytest.mark.parametrize(
    "args", [["--hand", ""], ["--hand", "0 1 2"], ["--target", "30"], ["--hand", "a"]]
)
def test_command_bad_parameters_exit_2_with_one_line(args):
    out = subprocess.run(
        [sys.executable, "-m", "dicelab.cli", "door", *args], capture_output=True, text=True
    )
    assert out.returncode == 2
    assert out.stderr.startswith("error: ")
    assert len(out.stderr.strip().splitlines()) == 1
