"""Tic-tac-toe through the general solver, against its well-known facts."""

from __future__ import annotations

import functools
import json
from collections import Counter

import pytest
from typer.testing import CliRunner

from dicelab.cli import app
from dicelab.errors import UserError
from dicelab.games.tictactoe import TicTacToe
from dicelab.games.twoplayer import Outcome, Value, solve


@pytest.fixture(scope="module")
def solution():
    return solve(TicTacToe())


def test_a_draw_with_5478_positions(solution):
    assert solution.value(0) is Value.DRAW
    assert len(solution) == 5478
    assert solution.remoteness(0) == 9


def test_finished_boards_are_the_known_958(solution):
    game = solution.game
    endings = Counter(game.outcome(p) for p in solution.positions() if game.outcome(p))
    assert endings == {Outcome.FIRST_WINS: 626, Outcome.SECOND_WINS: 316, Outcome.DRAW: 16}


def test_every_opening_draws_and_the_known_replies(solution):
    game = solution.game
    assert all(judged.value is Value.DRAW for judged in solution.moves(0))
    corner, centre = 0, 4
    # After a corner, only the centre holds the draw; after the centre, only corners.
    assert _drawing_replies(solution, game.play(0, corner)) == [centre]
    assert _drawing_replies(solution, game.play(0, centre)) == [0, 2, 6, 8]


def _drawing_replies(solution, position):
    return [judged.move for judged in solution.moves(position) if judged.value is Value.DRAW]


def brute_force(rows, columns, k):
    """Plain minimax over boards as strings: (positions, value for X at the start)."""
    cells = rows * columns

    def line_of(board, mark):
        for r in range(rows):
            for c in range(columns):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    spots = [(r + dr * i, c + dc * i) for i in range(k)]
                    if all(0 <= y < rows and 0 <= x < columns for y, x in spots) and all(
                        board[y * columns + x] == mark for y, x in spots
                    ):
                        return True
        return False

    seen = set()

    @functools.cache
    def score(board):
        seen.add(board)
        mark = "X" if board.count("X") == board.count("O") else "O"
        other = "O" if mark == "X" else "X"
        if line_of(board, other):
            return -1
        if "." not in board:
            return 0
        return max(
            -score(board[:i] + mark + board[i + 1 :]) for i in range(cells) if board[i] == "."
        )

    value = score("." * cells)
    return len(seen), {1: Value.WIN, 0: Value.DRAW, -1: Value.LOSS}[value]


@pytest.mark.parametrize(("rows", "columns", "k"), [(2, 2, 2), (2, 3, 3), (3, 3, 2), (3, 3, 3)])
def test_small_boards_match_brute_force(rows, columns, k):
    game_solution = solve(TicTacToe(rows, columns, k))
    count, value = brute_force(rows, columns, k)
    assert len(game_solution) == count
    assert game_solution.value(0) is value


def test_board_picture():
    game = TicTacToe()
    assert game.board(game.play(game.play(0, 4), 0)) == ["O..", ".X.", "..."]


def test_bad_board_is_a_user_error():
    with pytest.raises(UserError, match="k"):
        TicTacToe(3, 3, 4)
    with pytest.raises(UserError, match="at least one row"):
        TicTacToe(0, 3, 1)


@pytest.mark.parametrize("rows, columns", [(99_999_999_999, 3), (1000, 1000), (7, 6)])
def test_a_board_too_large_is_refused_before_any_work(rows, columns):
    import subprocess
    import sys

    args = ["tictactoe", "--rows", str(rows), "--columns", str(columns)]
    out = subprocess.run(
        [sys.executable, "-m", "dicelab.cli", *args], capture_output=True, text=True, timeout=20
    )  # refused from the size alone, before any board is built
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert f"{rows * columns:,} cells: at most 36" in out.stderr


def test_command_json():
    out = CliRunner().invoke(app, ["tictactoe", "--json"])
    assert out.exit_code == 0, out.output
    summary = json.loads(out.output)
    assert summary["verdict"] == "draw"
    assert summary["positions"] == 5478
    assert len(summary["best_first_moves"]) == 9
    text = CliRunner().invoke(app, ["tictactoe"]).output
    assert "Reachable positions: 5,478" in text
