"""The door-lock card game, solved by the general two-player solver.

Each player holds a hand of cards (1 2 3 4 5 by default). They take turns, the
first player first, putting one card from their hand on the table; there is no
passing. When the table sum becomes exactly ``target`` (23) the second player wins
at once; when it reaches ``bust`` (24) or more the first player wins. If the player
to move has no card left, nobody opens the door: a draw (this never happens with
the default hands).

A position is one int, so that large variants stay small in memory: bit ``i`` is
the first player's ``i``-th card played, bit ``len(first_hand) + j`` the second
player's ``j``-th card, the next bit is set when the second player is to move,
and the bits above hold the table sum. Equal cards are played lowest copy first,
so each position has exactly one code.
"""

from __future__ import annotations

import csv
import itertools
import math
import re
from collections import Counter
from dataclasses import dataclass

from dicelab.errors import UserError, whole_numbers
from dicelab.games.twoplayer import FIRST, SECOND, Outcome, Solution, Value

__all__ = [
    "DoorGame",
    "PositionTable",
    "parse_hand",
    "position_table",
    "summarize",
    "write_csv",
]

DEFAULT_HAND = (1, 2, 3, 4, 5)


def parse_hand(text: str) -> tuple[int, ...]:
    """Read cards written as whole numbers separated by spaces or commas."""
    words = [word for word in re.split(r"[\s,]+", text.strip()) if word]
    return whole_numbers(
        words,
        f"a hand is whole numbers separated by spaces or commas, e.g. '1 2 3 4 5'; got {text!r}",
    )


class DoorGame:
    """The rules with their numbers as parameters; implements the solver's protocol.

    Parameters
    ----------
    hand
        The first player's cards, and the second player's unless ``second_hand``
        is given. Cards are whole numbers of at least 1; repeats are allowed.
    second_hand
        The second player's cards, if different.
    target
        The exact table sum at which the second player wins.
    bust
        The table sum at or above which the first player wins; above ``target``.
    """

    def __init__(
        self,
        hand=DEFAULT_HAND,
        *,
        second_hand=None,
        target: int = 23,
        bust: int = 24,
    ):
        self.first_hand = _checked_hand(hand, "first player's hand")
        self.second_hand = _checked_hand(
            hand if second_hand is None else second_hand, "second player's hand"
        )
        if not isinstance(target, int) or target < 1:
            raise UserError(f"the target sum must be a whole number of at least 1, not {target}")
        if not isinstance(bust, int) or bust <= target:
            raise UserError(
                f"the bust sum must be above the target sum, but target is {target} "
                f"and bust is {bust}"
            )
        self.target = target
        self.bust = bust
        first_size = len(self.first_hand)
        self._mover_bit = 1 << (first_size + len(self.second_hand))
        self._sum_shift = first_size + len(self.second_hand) + 1
        self._hand_masks = (
            (1 << first_size) - 1,
            ((1 << len(self.second_hand)) - 1) << first_size,
        )
        self._copies = (
            _copy_bits(self.first_hand, 0),
            _copy_bits(self.second_hand, first_size),
        )

    def __repr__(self) -> str:
        return (
            f"DoorGame({self.first_hand}, second_hand={self.second_hand}, "
            f"target={self.target}, bust={self.bust})"
        )

    def start(self) -> int:
        return 0

    def to_move(self, position: int) -> int:
        return SECOND if position & self._mover_bit else FIRST

    def moves(self, position: int) -> list[int]:
        cards = []
        for card, bits in self._copies[SECOND if position & self._mover_bit else FIRST].items():
            for bit in bits:
                if not position & bit:
                    cards.append(card)
                    break
        return cards

    def play(self, position: int, card: int) -> int:
        player = SECOND if position & self._mover_bit else FIRST
        for bit in self._copies[player].get(card, ()):
            if not position & bit:
                return (position + bit + (card << self._sum_shift)) ^ self._mover_bit
        who = "first" if player == FIRST else "second"
        raise UserError(f"the {who} player has no card {card} left to play")

    def outcome(self, position: int) -> Outcome | None:
        total = position >> self._sum_shift
        if total == self.target:
            return Outcome.SECOND_WINS
        if total >= self.bust:
            return Outcome.FIRST_WINS
        mask = self._hand_masks[SECOND if position & self._mover_bit else FIRST]
        if position & mask == mask:
            return Outcome.DRAW
        return None

    def table_sum(self, position: int) -> int:
        """The sum of the cards on the table."""
        return position >> self._sum_shift

    def played(self, position: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The cards each player has put on the table, in ascending order."""
        first_size = len(self.first_hand)
        first = tuple(card for i, card in enumerate(self.first_hand) if position >> i & 1)
        second = tuple(
            card for j, card in enumerate(self.second_hand) if position >> (first_size + j) & 1
        )
        return first, second

    def position(self, first_played=(), second_played=()) -> int:
        """The position in which each player has played the given cards."""
        first_played, second_played = tuple(first_played), tuple(second_played)
        position = 0
        for player, cards in ((FIRST, first_played), (SECOND, second_played)):
            for card in sorted(cards):
                free = [bit for bit in self._copies[player].get(card, ()) if not position & bit]
                if not free:
                    who = "first" if player == FIRST else "second"
                    raise UserError(f"the {who} player's hand has no (further) card {card}")
                position += free[0] + (card << self._sum_shift)
        first_count, second_count = len(first_played), len(second_played)
        if first_count - second_count not in (0, 1):
            raise UserError(
                f"players alternate, first player first: {first_count} cards against "
                f"{second_count} cannot happen"
            )
        return position | (self._mover_bit if first_count > second_count else 0)


def _checked_hand(hand, name: str) -> tuple[int, ...]:
    """The hand as a sorted tuple; one clear error if it cannot be played with."""
    cards = tuple(hand)
    if not cards:
        raise UserError(f"the {name} is empty; give at least one card, e.g. '1 2 3 4 5'")
    for card in cards:
        if not isinstance(card, int) or isinstance(card, bool) or card < 1:
            raise UserError(f"cards must be whole numbers of at least 1; the {name} has {card!r}")
    return tuple(sorted(cards))


def _copy_bits(hand: tuple[int, ...], offset: int) -> dict[int, tuple[int, ...]]:
    """For each distinct card, the position bits of its copies, lowest first."""
    copies: dict[int, list[int]] = {}
    for i, card in enumerate(hand):
        copies.setdefault(card, []).append(1 << (offset + i))
    return {card: tuple(bits) for card, bits in copies.items()}


def _for_second(solution: Solution, position: int) -> Value:
    """The value of ``position`` for the second player, whoever is to move."""
    value = solution.value(position)
    return value if solution.game.to_move(position) == SECOND else value.for_other()


@dataclass(frozen=True)
class PositionTable:
    """Every reachable position as a grid, valued for the second player.

    ``cells[r][c]`` is the value when the first player has played ``rows[r]`` and
    the second ``columns[c]``, or ``None`` where no game gets there. Rows and
    columns are all the cards a player could have played (only those that occur
    in some game when a hand has more than 1,024 subsets).
    """

    rows: list[tuple[int, ...]]
    columns: list[tuple[int, ...]]
    cells: list[list[Value | None]]


def position_table(solution: Solution) -> PositionTable:
    """Lay out a solved door game as the write-up did: played cards by played cards."""
    game = solution.game
    assert isinstance(game, DoorGame)
    valued = {}
    for position in solution.positions():
        valued[game.played(position)] = _for_second(solution, position)
    rows = _table_axis(game.first_hand, {first for first, _ in valued})
    columns = _table_axis(game.second_hand, {second for _, second in valued})
    cells = [[valued.get((first, second)) for second in columns] for first in rows]
    return PositionTable(rows, columns, cells)


_FULL_TABLE_LIMIT = 1024


def _table_axis(hand: tuple[int, ...], occurring: set) -> list[tuple[int, ...]]:
    """Rows (or columns): every subset of the hand, or only those that occur if too many.

    Ordered by number of cards, then by the cards.
    """
    counts = Counter(hand)
    if math.prod(n + 1 for n in counts.values()) <= _FULL_TABLE_LIMIT:
        chosen = {
            tuple(card for card, n in zip(counts, taken, strict=True) for _ in range(n))
            for taken in itertools.product(*(range(n + 1) for n in counts.values()))
        }
    else:
        chosen = occurring
    return sorted(chosen, key=lambda cards: (len(cards), cards))


def cards_label(cards: tuple[int, ...]) -> str:
    return " ".join(map(str, cards)) if cards else "none"


_CELL_TEXT = {Value.WIN: "win", Value.LOSS: "loss", Value.DRAW: "draw", None: ""}


def write_csv(solution: Solution, path) -> None:
    """Write the position table: a cell is win, loss or draw for the second player."""
    table = position_table(solution)
    try:
        with open(path, "w", newline="") as out:
            writer = csv.writer(out)
            corner = "first played \\ second played (cells: result for the second player)"
            writer.writerow([corner, *map(cards_label, table.columns)])
            for cards, row in zip(table.rows, table.cells, strict=True):
                writer.writerow([cards_label(cards), *(_CELL_TEXT[cell] for cell in row)])
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}") from None


_VERDICT = {
    Value.WIN: "the first player wins",
    Value.LOSS: "the second player wins",
    Value.DRAW: "a draw",
}


def _ending(game: DoorGame, position: int) -> str:
    """How a finished position ended, in words."""
    total = game.table_sum(position)
    outcome = game.outcome(position)
    if outcome is Outcome.SECOND_WINS:
        return f"second player wins at {total}"
    if outcome is Outcome.FIRST_WINS:
        return f"first player wins at {total}"
    return f"draw at {total}, no card left"


def summarize(solution: Solution) -> dict:
    """Verdict, winning first moves and the main line after each first move."""
    game = solution.game
    assert isinstance(game, DoorGame)
    start = game.start()
    value = solution.value(start)
    openings = []
    for judged in solution.moves(start):
        line = [judged.move, *solution.main_line(judged.position)]
        end = start
        for card in line:
            end = game.play(end, card)
        openings.append(
            {
                "card": judged.move,
                "value_for_first_player": judged.value.value,
                "moves_to_end": None if judged.remoteness is None else judged.remoteness + 1,
                "winning_replies": solution.winning_moves(judged.position),
                "main_line": line,
                "end": _ending(game, end),
            }
        )
    return {
        "game": "door",
        "first_hand": list(game.first_hand),
        "second_hand": list(game.second_hand),
        "target": game.target,
        "bust": game.bust,
        "verdict": _VERDICT[value],
        "value_for_first_player": value.value,
        "moves_to_end": solution.remoteness(start),
        "positions": len(solution),
        "winning_first_moves": solution.winning_moves(start),
        "first_moves": openings,
    }
