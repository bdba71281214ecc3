"""Any game of dice and decisions, solved exactly on one model with chance.

A game is a :class:`~dicelab.games.chance.model.ChanceGame` (a built-in family or a
class of your own); :func:`solve` returns a
:class:`~dicelab.games.chance.solution.ChanceSolution`. The names load on first use,
so that naming a family (the command line asks whether a name is one) loads
neither NumPy nor the solver.
"""

from __future__ import annotations

import importlib

_PUBLIC = {
    "CHANCE": "dicelab.games.chance.model",
    "FIRST": "dicelab.games.chance.model",
    "SECOND": "dicelab.games.chance.model",
    "ChanceGame": "dicelab.games.chance.model",
    "OBJECTIVES": "dicelab.games.chance.solution",
    "ChanceSolution": "dicelab.games.chance.solution",
    "Move": "dicelab.games.chance.solution",
    "solve": "dicelab.games.chance.solution",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'dicelab.games.chance' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
