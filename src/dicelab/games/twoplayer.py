"""Exact solutions of finite two-player games of perfect information.

A game is any object with the five methods of :class:`Game`. :func:`solve` visits
every position reachable from the start and works backwards from the finished ones
(retrograde analysis), so it needs no recursion and handles games whose positions
can repeat. For every position it finds the value for the player to move (win,
loss or draw) and the remoteness: the number of moves to the end when the winner
hurries and the loser delays (for a draw, when both hurry to the drawn end).

>>> from dicelab.games.tictactoe import TicTacToe
>>> solution = solve(TicTacToe())
>>> solution.value(solution.game.start())
<Value.DRAW: 'draw'>

Memory is one dictionary entry per position plus a few bytes of arrays, so games
with millions of positions should use small position objects (ints are best).
"""

from __future__ import annotations

import enum
from array import array
from collections import deque
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

import numpy as np

__all__ = [
    "FIRST",
    "SECOND",
    "Game",
    "MoveValue",
    "Outcome",
    "Solution",
    "Value",
    "solve",
]

FIRST = 0
"""The player who moves at the start."""
SECOND = 1
"""The other player."""

P = TypeVar("P", bound=Hashable)
M = TypeVar("M")


class Outcome(enum.Enum):
    """How a finished game ended, as a game's :meth:`Game.outcome` reports it."""

    FIRST_WINS = "first player wins"
    SECOND_WINS = "second player wins"
    DRAW = "draw"

    @property
    def winner(self) -> int | None:
        """:data:`FIRST`, :data:`SECOND`, or ``None`` for a draw."""
        return {Outcome.FIRST_WINS: FIRST, Outcome.SECOND_WINS: SECOND}.get(self)


class Value(enum.Enum):
    """The result of best play, seen by the player to move (or making a move)."""

    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"

    def for_other(self) -> Value:
        """The same result seen by the opponent."""
        return _OTHER[self]


_OTHER = {Value.WIN: Value.LOSS, Value.LOSS: Value.WIN, Value.DRAW: Value.DRAW}


class Game(Protocol[P, M]):
    """The rules :func:`solve` needs; positions must be hashable and immutable.

    A position that is not finished (``outcome`` is ``None``) and has no legal move
    is lost by the player to move, as in Nim. Moves may leave the same player to
    move again; positions may repeat (endless play counts as a draw).
    """

    def start(self) -> P:
        """The position before the first move."""
        ...

    def to_move(self, position: P) -> int:
        """:data:`FIRST` or :data:`SECOND`."""
        ...

    def moves(self, position: P) -> Iterable[M]:
        """The legal moves; called only for unfinished positions."""
        ...

    def play(self, position: P, move: M) -> P:
        """The position after ``move``."""
        ...

    def outcome(self, position: P) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""
        ...


@dataclass(frozen=True)
class MoveValue:
    """One legal move judged by best play afterwards.

    ``value`` is for the player who makes the move; ``remoteness`` counts the
    moves left after it (``None`` for a draw that never ends).
    """

    move: Any
    position: Any
    value: Value
    remoteness: int | None


# Per-position codes in the solver's byte array.
_UNKNOWN, _WIN, _LOSS, _DRAW = 0, 1, 2, 3
_VALUE_OF_CODE = (None, Value.WIN, Value.LOSS, Value.DRAW)
_PROGRESS_STEP = 1 << 14
_START = object()  # stands for the game's start position in a default argument


class Solution:
    """The solved game: value and remoteness of every reachable position."""

    def __init__(self, game: Game, index: dict, codes: bytearray, remoteness: array):
        self.game = game
        self._index = index
        self._codes = codes
        self._remoteness = remoteness

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, position: object) -> bool:
        return position in self._index

    def _id(self, position: Any) -> int:
        try:
            return self._index[position]
        except KeyError:
            raise KeyError(f"position not reachable from the start: {position!r}") from None

    def value(self, position: Any) -> Value:
        """The value of ``position`` for the player to move."""
        value = _VALUE_OF_CODE[self._codes[self._id(position)]]
        assert value is not None  # the solve settles every position
        return value

    def remoteness(self, position: Any) -> int | None:
        """Moves to the end with best play; ``None`` for a draw that never ends."""
        moves_left = self._remoteness[self._id(position)]
        return None if moves_left < 0 else moves_left

    def positions(self) -> Iterator[Any]:
        """Every reachable position, the start first, then by distance from it."""
        return iter(self._index)

    def items(self) -> Iterator[tuple[Any, Value, int | None]]:
        """``(position, value, remoteness)`` for every reachable position."""
        for position, i in self._index.items():
            moves_left = self._remoteness[i]
            value = _VALUE_OF_CODE[self._codes[i]]
            assert value is not None  # the solve settles every position
            yield position, value, (None if moves_left < 0 else moves_left)

    def counts(self) -> dict[Value, int]:
        """How many positions have each value."""
        codes = self._codes
        return {value: codes.count(code) for code, value in enumerate(_VALUE_OF_CODE) if value}

    def moves(self, position: Any) -> list[MoveValue]:
        """Every legal move in ``position`` with its value for the player making it."""
        game = self.game
        if game.outcome(position) is not None:
            return []
        mover = game.to_move(position)
        judged = []
        for move in game.moves(position):
            after = game.play(position, move)
            value = self.value(after)
            if game.to_move(after) != mover:
                value = value.for_other()
            judged.append(MoveValue(move, after, value, self.remoteness(after)))
        return judged

    def winning_moves(self, position: Any) -> list[Any]:
        """The moves that keep a won position won."""
        return [judged.move for judged in self.moves(position) if judged.value is Value.WIN]

    def best_moves(self, position: Any) -> list[Any]:
        """The moves that keep the value and, among them, the best remoteness.

        The winner takes the fastest win, the loser the slowest loss, a drawn
        side the fastest draw.
        """
        value = self.value(position)
        keeping = [judged for judged in self.moves(position) if judged.value is value]
        if not keeping:
            return []
        key = _remoteness_order(value)
        best = min(key(judged.remoteness) for judged in keeping)
        return [judged.move for judged in keeping if key(judged.remoteness) == best]

    def main_line(self, position: Any = _START) -> list[Any]:
        """The moves of best play from ``position`` (default: the start) to the end.

        Where several moves are equally good, the first legal one is taken. A draw
        that never ends has no main line (an empty list).
        """
        if position is _START:
            position = self.game.start()
        moves_left = self.remoteness(position)
        line: list[Any] = []
        for _ in range(moves_left or 0):
            move = self.best_moves(position)[0]
            line.append(move)
            position = self.game.play(position, move)
        return line


def _remoteness_order(value: Value):
    """A sort key on remoteness: smaller is better for the side holding ``value``."""
    endless = 1 << 62
    if value is Value.LOSS:
        return lambda moves_left: -(endless if moves_left is None else moves_left)
    return lambda moves_left: endless if moves_left is None else moves_left


def solve(game: Game, *, display: Display | None = None) -> Solution:
    """Solve ``game`` exactly from its start position.

    Parameters
    ----------
    game
        Any object with the methods of :class:`Game`.
    display
        Where to report progress (worth it above about a million positions); by
        default nothing is shown.

    Returns
    -------
    Solution
        Value, remoteness and best moves of every reachable position.
    """
    display = display or Silent()
    index, mover, codes, graph = _explore(game, display)
    remoteness = _retrograde(mover, codes, *graph, display)
    return Solution(game, index, codes, remoteness)


def _explore(
    game: Game, display: Display
) -> tuple[dict[Any, int], bytearray, bytearray, tuple[array, array, array]]:
    """Visit every reachable position breadth first; record moves as integer ids.

    Position ``i`` has children ``children[offsets[i]:offsets[i + 1]]``; finished
    positions get their code at once, the others stay unknown. Only the inverted
    graph (see :func:`_parents`) is returned, so the forward one is freed early.
    """
    start = game.start()
    index = {start: 0}
    frontier = deque([start])
    mover = bytearray()
    codes = bytearray()
    offsets = array("q", [0])
    children = array("i")
    to_move, moves, play, outcome = game.to_move, game.moves, game.play, game.outcome
    lookup, add_child, pop = index.get, children.append, frontier.popleft
    win_for = {
        (Outcome.FIRST_WINS, FIRST): _WIN,
        (Outcome.FIRST_WINS, SECOND): _LOSS,
        (Outcome.SECOND_WINS, FIRST): _LOSS,
        (Outcome.SECOND_WINS, SECOND): _WIN,
        (Outcome.DRAW, FIRST): _DRAW,
        (Outcome.DRAW, SECOND): _DRAW,
    }
    task = display.add("exploring positions", total=None)
    expanded = 0
    while frontier:
        position = pop()
        player = to_move(position)
        if player != FIRST and player != SECOND:
            raise ValueError(f"to_move must return FIRST (0) or SECOND (1), not {player!r}")
        mover.append(player)
        ended = outcome(position)
        if ended is None:
            first_child = len(children)
            for move in moves(position):
                after = play(position, move)
                child = lookup(after)
                if child is None:
                    child = len(index)
                    index[after] = child
                    frontier.append(after)
                add_child(child)
            codes.append(_UNKNOWN if len(children) > first_child else _LOSS)
        else:
            codes.append(win_for[ended, player])
        offsets.append(len(children))
        expanded += 1
        if not expanded % _PROGRESS_STEP:
            display.update(task, completed=expanded)
    display.update(task, completed=expanded, total=expanded)
    return index, mover, codes, _parents(offsets, children)


def _parents(offsets: array, children: array) -> tuple[array, array, array]:
    """Invert the move graph: the positions from which each position is reached.

    Returns the parents of position ``i`` as ``parents[parent_offsets[i]:
    parent_offsets[i + 1]]``, with those arrays, and each position's number of moves.
    """
    n = len(offsets) - 1
    child_ids = np.frombuffer(children, dtype=np.intc) if len(children) else np.zeros(0, np.intc)
    # numpy's stubs give a diff of int64 values a timedelta dtype
    out_degree = cast(
        "np.ndarray[Any, np.dtype[np.int64]]", np.diff(np.frombuffer(offsets, dtype=np.int64))
    )
    parent_of_edge = np.repeat(np.arange(n, dtype=np.intc), out_degree)
    parents_np = parent_of_edge[np.argsort(child_ids, kind="stable")]
    del parent_of_edge
    parent_offsets_np = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(child_ids, minlength=n), out=parent_offsets_np[1:])
    parents = array("i")
    parents.frombytes(parents_np.data.cast("B"))
    del parents_np
    parent_offsets = array("q")
    parent_offsets.frombytes(parent_offsets_np.data.cast("B"))
    move_counts = array("i")
    move_counts.frombytes(out_degree.astype(np.intc).data.cast("B"))
    return parent_offsets, parents, move_counts


def _retrograde(mover, codes, parent_offsets, parents, remaining, display: Display) -> array:
    """Settle wins and losses from the finished positions back; the rest are draws.

    Positions are settled in order of remoteness (a queue), so a win is found
    through its fastest winning move and a loss through its slowest losing one.
    """
    n = len(codes)
    remoteness = array("i", [-1]) * n
    queue = array("i", (i for i in range(n) if codes[i] == _WIN or codes[i] == _LOSS))
    for i in queue:
        remoteness[i] = 0
    task = display.add("solving positions", total=n)
    head = 0
    add = queue.append
    while head < len(queue):
        child = queue[head]
        head += 1
        child_is_win = codes[child] == _WIN
        child_mover = mover[child]
        moves_left = remoteness[child] + 1
        for parent in parents[parent_offsets[child] : parent_offsets[child + 1]]:
            if codes[parent]:
                continue
            if child_is_win == (mover[parent] == child_mover):
                codes[parent] = _WIN
                remoteness[parent] = moves_left
                add(parent)
            else:
                left = remaining[parent] - 1
                remaining[parent] = left
                if not left:
                    codes[parent] = _LOSS
                    remoteness[parent] = moves_left
                    add(parent)
        if not head % _PROGRESS_STEP:
            display.update(task, completed=head)
    del remaining
    _settle_draws(codes, remoteness, parent_offsets, parents)
    display.update(task, completed=n)
    return remoteness


def _settle_draws(codes, remoteness, parent_offsets, parents) -> None:
    """Mark every unsettled position a draw; time the draws from the drawn ends."""
    queue = array("i", (i for i in range(len(codes)) if codes[i] == _DRAW))
    for i in queue:
        remoteness[i] = 0
    head = 0
    while head < len(queue):
        child = queue[head]
        head += 1
        moves_left = remoteness[child] + 1
        for parent in parents[parent_offsets[child] : parent_offsets[child + 1]]:
            if codes[parent] == _UNKNOWN and remoteness[parent] < 0:
                remoteness[parent] = moves_left
                queue.append(parent)
    for i, code in enumerate(codes):
        if code == _UNKNOWN:
            codes[i] = _DRAW


class Display(Protocol):
    """Where a solve reports its progress: tasks with a total, advanced as they go
    (the command line's is a live bar on standard error)."""

    def add(self, description: str, total: int | None): ...

    def update(self, task, **fields) -> None: ...


class Silent:
    """A display that shows nothing: the default of :func:`solve`."""

    def add(self, description: str, total: int | None) -> None:
        return None

    def update(self, task, **fields) -> None:
        pass
