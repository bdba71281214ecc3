"""A dice game as rules a solver can read: positions, moves, throws of the dice, an end.

:class:`ChanceGame` is the one shape every game here takes, whether a built-in
family (:mod:`dicelab.games.chance.pig`, :mod:`.shut_the_box`, :mod:`.bearoff`) or a
class of your own. A position is any hashable value. At each position that is not
finished either a player chooses a move or the dice decide, with exact chances; a
finished position has a result. Positions may come back (in Pig both players can
throw a 1 in turn and find the scores as they were): the solver handles that.

Your own dice game in a few lines: a player throws a die until they stop, scoring
the sum, unless a 1 comes, which scores nothing; but the score may not pass 10.

>>> from fractions import Fraction
>>> class Stop(ChanceGame):
...     players = 1
...     def start(self):
...         return (0, False)              # (points so far, dice in the air)
...     def to_move(self, position):
...         return CHANCE if position[1] else 0
...     def moves(self, position):
...         points, _ = position
...         return [("stop", ("end", points)), ("throw", (points, True))]
...     def outcomes(self, position):
...         points, _ = position
...         out = [(Fraction(1, 6), "1", ("end", 0))]
...         for face in range(2, 7):
...             after = (points + face, False) if points + face <= 10 else ("end", 0)
...             out.append((Fraction(1, 6), str(face), after))
...         return out
...     def result(self, position):
...         return position[1] if position[0] == "end" else None
>>> import dicelab.games.chance as chance
>>> round(chance.solve(Stop()).value(), 4)
4.9722
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

__all__ = ["CHANCE", "FIRST", "SECOND", "ChanceGame", "Move", "flag", "points"]

FIRST = 0
"""The player who moves first (the only one in a one-player game)."""
SECOND = 1
"""The other player."""
CHANCE = -1
"""Returned by :meth:`ChanceGame.to_move` where the dice decide."""


def flag(text: Any) -> bool:
    """A yes-or-no setting as typed: true/false, yes/no, on/off, 1/0."""
    low = str(text).strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)


def points(text: Any) -> tuple[int, ...]:
    """A list of whole numbers as typed (``6,5,2``) or as a TOML list; anything else
    in it (``6.5``, ``true``) is a ``ValueError``, never rounded."""
    if isinstance(text, list | tuple):
        return tuple(_whole(p) for p in text)
    return tuple(_whole(p) for p in str(text).replace(" ", ",").split(",") if p)


def _whole(value: Any) -> int:
    if isinstance(value, bool | float):
        raise ValueError(value)
    return value if isinstance(value, int) else int(str(value).strip())


class ChanceGame(ABC):
    """The rules of a game of dice and decisions (see the module's example).

    Attributes
    ----------
    players : int
        1 or 2. A two-player game's result is the first player's share of the win
        (1, 0, or 1/2 for a draw); a one-player game's result is its points.
    lower_is_better : bool
        One player: the points are a cost to keep low (Shut the Box's tiles left).
    name : str
        What the game is called in reports.
    objective : str or None
        The objective solved when none is named (``None``: the win for two
        players, the points for one).
    measure : str
        What the value of that objective means, for reports.
    position_help : str
        An example of a position as :meth:`parse` reads it, for error messages.
    """

    players: int = 2
    lower_is_better: bool = False
    name: str = "a dice game"
    objective: str | None = None
    measure: str = ""
    position_help: str = ""
    #: A game file's own title and published figure, said beside the results (set by
    #: :func:`~dicelab.games.chance.families.game_from`; no part of the rules)
    _title: str | None = None
    _published: str | None = None
    #: A built-in family's settings, by name: how a typed value is read, and its meaning.
    settings: ClassVar[dict[str, tuple[Callable[[Any], Any], str]]] = {}
    #: A built-in family's one-line description.
    summary: str = ""

    @abstractmethod
    def start(self) -> Hashable:
        """The position before the first move or throw."""

    @abstractmethod
    def to_move(self, position: Any) -> int:
        """:data:`FIRST`, :data:`SECOND` or :data:`CHANCE`, at an unfinished position."""

    def moves(self, position: Any) -> Sequence[tuple[str, Hashable]]:
        """The choices of the player to move: ``(label, position after)`` pairs."""
        raise NotImplementedError(f"{type(self).__name__}.moves")

    def outcomes(self, position: Any) -> Sequence[tuple[Fraction, str, Hashable]]:
        """A throw of the dice: ``(chance, label, position after)``, chances summing to 1."""
        raise NotImplementedError(f"{type(self).__name__}.outcomes")

    @abstractmethod
    def result(self, position: Any) -> float | None:
        """``None`` while the game goes on; then the result (see :attr:`players`)."""

    def turn_starts(self, position: Any) -> bool:
        """Whether a new turn starts here (counted by the ``turns`` objective)."""
        return False

    def verdict(self, position: Any) -> str:
        """How a finished game ended, in words (the result by default)."""
        result = self.result(position)
        if self.players == 2:
            return "a draw" if result == 0.5 else f"player {1 if result == 1 else 2} wins"
        return f"result {result:g}"

    def show(self, position: Any) -> str:
        """The position in words, for reports and the terminal."""
        return str(position)

    def parse(self, text: str) -> Hashable:
        """A position from what a user typed (the inverse of :meth:`show`)."""
        raise NotImplementedError(f"{type(self).__name__} reads no positions from text")


@dataclass(frozen=True)
class Move:
    """One move at a position, valued for the player making it."""

    label: str
    position: Hashable
    value: float
    cost: float
    #: at a table of three or more: every seat's chance after the move, in seat order
    chances: tuple[float, ...] | None = None

    def to_dict(self) -> dict:
        out = {"move": self.label, "value": self.value, "cost": self.cost}
        if self.chances is not None:
            out["chances"] = list(self.chances)
        return out
