"""The games of dicelab's other solvers, posed on the chance model, so that one engine
answers for all of them and each result can be checked against the other solver.

- :class:`TwoPlayerGame`: any game of :mod:`dicelab.games.twoplayer` (the door-lock
  card game, tic-tac-toe): the case without chance.
- :class:`DiceRace`: the dice race of :mod:`dicelab.games.race` (two lists of
  sums crossed off as the dice fall): a throw that crosses nothing off leaves the
  position as it was, so positions repeat.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from fractions import Fraction
from itertools import product
from typing import Any

from dicelab.games.chance.model import CHANCE, ChanceGame
from dicelab.games.twoplayer import FIRST, Outcome

__all__ = ["DiceRace", "TwoPlayerGame"]

_RESULT = {Outcome.FIRST_WINS: 1.0, Outcome.SECOND_WINS: 0.0, Outcome.DRAW: 0.5}


class TwoPlayerGame(ChanceGame):
    """A game of :mod:`dicelab.games.twoplayer` (its protocol: ``start``, ``to_move``,
    ``moves``, ``play``, ``outcome``) as a chance-model game with no throws. As there,
    a player to move with no legal move in an unfinished position loses."""

    players = 2
    measure = "the first player's chance to win (a draw counts half)"

    def __init__(self, game: Any, name: str = "a two-player game"):
        self.inner = game
        self.name = name

    def start(self) -> Hashable:
        return self.inner.start()

    def to_move(self, position) -> int:
        return self.inner.to_move(position)

    def moves(self, position):
        return [(str(m), self.inner.play(position, m)) for m in self.inner.moves(position)]

    def result(self, position):
        outcome = self.inner.outcome(position)
        if outcome is not None:
            return _RESULT[outcome]
        if not any(True for _ in self.inner.moves(position)):
            return 0.0 if self.inner.to_move(position) == FIRST else 1.0
        return None


class DiceRace(ChanceGame):
    """Two lists of sums, ``a`` the first player's: each throw of ``dice`` dice crosses
    off one copy of its sum on each list that still has it; the first list emptied
    wins, both on the same throw tie. A position is the two lists left, sorted."""

    players = 2
    measure = "the first list's chance to win (a tie counts half)"

    def __init__(self, a: Iterable[int], b: Iterable[int], dice: int = 2, faces: int = 6):
        self.a, self.b = tuple(sorted(a)), tuple(sorted(b))
        self.name = (
            f"the dice race {','.join(map(str, self.a))} against {','.join(map(str, self.b))}"
        )
        self.sums: dict[int, Fraction] = {}
        for throw in product(range(1, faces + 1), repeat=dice):
            self.sums[sum(throw)] = self.sums.get(sum(throw), Fraction(0)) + Fraction(
                1, faces**dice
            )

    def start(self) -> Hashable:
        return (self.a, self.b)

    def to_move(self, position) -> int:
        return CHANCE

    def outcomes(self, position):
        a, b = position
        return [(p, str(s), (_cross(a, s), _cross(b, s))) for s, p in self.sums.items()]

    def result(self, position):
        a, b = position
        if a and b:
            return None
        return 0.5 if not a and not b else (1.0 if not a else 0.0)


def _cross(numbers: tuple[int, ...], s: int) -> tuple[int, ...]:
    """The list with one copy of ``s`` crossed off, if it has one."""
    if s not in numbers:
        return numbers
    i = numbers.index(s)
    return numbers[:i] + numbers[i + 1 :]
