"""What a game of the chance model is solved for, as the solver's graph
(:mod:`dicelab.engine.graph`).

A game laid out once (its positions, who moves, the throws, the results at the
ends, where turns start: :class:`LaidOut`) is valued for one objective by the
graph this module builds from it: who maximises, what an end is worth, what a
position adds on the way. The objectives are declared in
:data:`dicelab.engine.registry.GAME_OBJECTIVES`, each naming its function here,
so one walk of a game serves every objective and no interface lists them itself.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from dicelab.engine.graph import CHANCE, END, MAX, MIN, Graph
from dicelab.engine.registry import Spec

__all__ = ["LaidOut", "draw", "facts", "points", "target", "turns", "win"]


class LaidOut(Protocol):
    """A game's positions as arrays: ``mover[v]`` the player to move (``-1`` the
    dice, ``-2`` an end), the links ``start``/``to``/``prob``, an end's ``result``
    (the first player's), ``turn`` where turns start; ``players``, whether lower
    results are better, and whether it is laid out from the mover's side."""

    mover: np.ndarray
    start: np.ndarray
    to: np.ndarray
    prob: np.ndarray
    result: np.ndarray
    turn: np.ndarray
    mirrored: bool

    @property
    def players(self) -> int: ...

    @property
    def lower_is_better(self) -> bool: ...


def _graph(lay: LaidOut, payoff: np.ndarray, reward: np.ndarray, first_max: bool) -> Graph:
    kind = np.full(lay.mover.size, CHANCE, np.int8)
    kind[lay.mover == -2] = END
    kind[lay.mover == 0] = MAX if first_max else MIN
    kind[lay.mover == 1] = MIN
    return Graph(kind, lay.start, lay.to, lay.prob, np.where(lay.mover == -2, payoff, 0.0),
                 reward)  # fmt: skip


def win(lay: LaidOut, spec: Spec) -> Graph:
    """Two players: the first player's chance to win (a draw, a result of 1/2, half)."""
    return _graph(lay, lay.result, np.zeros(lay.mover.size), True)


def points(lay: LaidOut, spec: Spec) -> Graph:
    """One player: the best expected result (the lowest, where lower is better)."""
    return _graph(lay, lay.result, np.zeros(lay.mover.size), not lay.lower_is_better)


def target(lay: LaidOut, spec: Spec) -> Graph:
    """One player: the best chance of a result of at least the target (at most, where
    lower is better)."""
    goal = spec.params["target"]
    reached = lay.result <= goal if lay.lower_is_better else lay.result >= goal
    return _graph(lay, reached.astype(np.float64), np.zeros(lay.mover.size), True)


def turns(lay: LaidOut, spec: Spec) -> Graph:
    """One player: the fewest expected turns to the end (each turn's start counts one)."""
    return _graph(lay, np.zeros(lay.mover.size), lay.turn.astype(np.float64), False)


def draw(lay: LaidOut, spec: Spec) -> Graph:
    """Two players: the chance of a draw (not a choice of anyone's: it values a
    strategy's draws, see :meth:`~dicelab.engine.graph.GraphSolution`)."""
    return _graph(lay, (lay.result == 0.5).astype(np.float64), np.zeros(lay.mover.size), True)


def facts(lay: LaidOut, spec: Spec) -> dict:
    """The size of the work: positions and links."""
    return {"positions": int(lay.mover.size), "links": int(lay.to.size)}
