"""Any game of dice and decisions, solved exactly on one model with chance.

A game is a :class:`~dicelab.games.chance.model.ChanceGame` (a built-in family or a
class of your own); :func:`solve` returns a
:class:`~dicelab.games.chance.solution.ChanceSolution`.
"""

from dicelab.games.chance.model import CHANCE, FIRST, SECOND, ChanceGame
from dicelab.games.chance.solution import OBJECTIVES, ChanceSolution, Move, solve

__all__ = [
    "CHANCE",
    "FIRST",
    "OBJECTIVES",
    "SECOND",
    "ChanceGame",
    "ChanceSolution",
    "Move",
    "solve",
]
