"""Tic-tac-toe, and its m x n boards with k in a row, for the two-player solver.

It is here to show that :mod:`dicelab.games.twoplayer` is general: the rules take a few
lines, and the solver confirms the known facts (a draw, 5,478 reachable positions).

A position is one int: bit ``c`` is an X on cell ``c`` and bit ``cells + c`` an O
on it, cells numbered row by row from 0. X moves first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb

from dicelab.errors import UserError
from dicelab.games.twoplayer import FIRST, SECOND, Outcome, Solution, Value

__all__ = ["TicTacToe", "summarize"]


#: Most cells of a board: a position is a number of 2 bits a cell, and 4 x 4 (16
#: cells, 10 million positions) is already the largest that solves in minutes.
MAX_CELLS = 36


@dataclass(frozen=True)
class TicTacToe:
    """``k`` in a row on a board of ``rows`` x ``columns`` cells (default 3, 3, 3)."""

    rows: int = 3
    columns: int = 3
    k: int = 3
    lines: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.rows < 1 or self.columns < 1:
            raise UserError(
                f"the board must have at least one row and one column, "
                f"not {self.rows} x {self.columns}"
            )
        if self.rows * self.columns > MAX_CELLS:
            raise UserError(
                f"a {self.rows} x {self.columns} board has {self.rows * self.columns:,} cells: "
                f"at most {MAX_CELLS} (6 x 6), whose positions are already far too many to solve"
            )
        if not 1 <= self.k <= max(self.rows, self.columns):
            raise UserError(
                f"k (stones in a row to win) must be between 1 and "
                f"{max(self.rows, self.columns)} on this board, not {self.k}"
            )
        object.__setattr__(self, "lines", tuple(self._lines()))

    @property
    def position_bound(self) -> int:
        """Boards with as many crosses as noughts or one more: no game reaches others."""
        n = self.cells
        return sum(comb(n, m) * comb(m, (m + 1) // 2) for m in range(n + 1))

    @property
    def cells(self) -> int:
        """Number of cells on the board."""
        return self.rows * self.columns

    def _lines(self):
        """Bit masks of every k cells in a row, column or diagonal."""
        for row in range(self.rows):
            for column in range(self.columns):
                for d_row, d_column in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    end_row = row + d_row * (self.k - 1)
                    end_column = column + d_column * (self.k - 1)
                    if end_row < self.rows and 0 <= end_column < self.columns:
                        yield sum(
                            1 << ((row + d_row * i) * self.columns + column + d_column * i)
                            for i in range(self.k)
                        )

    def start(self) -> int:
        return 0

    def to_move(self, position: int) -> int:
        crosses = position & ((1 << self.cells) - 1)
        return FIRST if crosses.bit_count() == (position >> self.cells).bit_count() else SECOND

    def moves(self, position: int):
        taken = position | (position >> self.cells)
        return [cell for cell in range(self.cells) if not taken >> cell & 1]

    def play(self, position: int, cell: int) -> int:
        return position | 1 << (cell + (self.cells if self.to_move(position) else 0))

    def outcome(self, position: int) -> Outcome | None:
        cells = self.cells
        crosses = position & ((1 << cells) - 1)
        noughts = position >> cells
        if crosses.bit_count() > noughts.bit_count():
            if any(crosses & line == line for line in self.lines):
                return Outcome.FIRST_WINS
        elif any(noughts & line == line for line in self.lines):
            return Outcome.SECOND_WINS
        if (crosses | noughts).bit_count() == cells:
            return Outcome.DRAW
        return None

    def board(self, position: int) -> list[str]:
        """The board as text rows of ``X``, ``O`` and ``.``."""
        noughts = position >> self.cells
        marks = "".join(
            "X" if position >> cell & 1 else "O" if noughts >> cell & 1 else "."
            for cell in range(self.cells)
        )
        return [marks[row : row + self.columns] for row in range(0, self.cells, self.columns)]


def summarize(solution: Solution) -> dict:
    """The verdict, position count and value of every first move, as plain data."""
    game = solution.game
    assert isinstance(game, TicTacToe)
    start = game.start()
    value = solution.value(start)
    verdict = {
        Value.WIN: "first player (X) wins",
        Value.LOSS: "second player (O) wins",
        Value.DRAW: "draw",
    }[value]
    best = solution.best_moves(start)
    return {
        "game": "tictactoe",
        "rows": game.rows,
        "columns": game.columns,
        "k": game.k,
        "verdict": verdict,
        "value_for_first_player": value.value,
        "moves_to_end": solution.remoteness(start),
        "positions": len(solution),
        "best_first_moves": [_cell_name(game, cell) for cell in best],
        "first_moves": [
            {
                "cell": _cell_name(game, judged.move),
                "value_for_first_player": judged.value.value,
                "moves_to_end": None if judged.remoteness is None else judged.remoteness + 1,
            }
            for judged in solution.moves(start)
        ],
        "main_line": [_cell_name(game, cell) for cell in solution.main_line()],
    }


def _cell_name(game: TicTacToe, cell: int) -> str:
    """A cell as ``a1`` (column letter, row number from the top)."""
    row, column = divmod(cell, game.columns)
    return f"{chr(ord('a') + column)}{row + 1}"
