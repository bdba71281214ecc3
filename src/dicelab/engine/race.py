"""Two-sided races solved as a table of pairs of sides: backgammon's whole bear-off.

A race of two sides with the same moves (each turn a throw, then a choice of the
sides a play can leave; the first side with nothing left wins) is solved here for
every pair of sides at once, ``W[i, j]`` the chance of side ``i`` on roll against
side ``j`` (:mod:`dicelab.engine.kernels.race`), layer by layer of the pairs' pips,
each layer on every thread. The sides and their plays come from the game
(:mod:`dicelab.games.chance.bearoff_table` for the bear-off): a table of ``K``
sides holds ``K * K`` values, 256 MB in single precision for every side of up to
10 checkers (8,008 sides), where laid out as positions with their throws it would
be 1.4 billion.

>>> import numpy as np
>>> # sides 0 (done) and 1 (one step left): a throw always finishes side 1
>>> plays = RacePlays(start=np.array([0, 0, 1]), to=np.array([0]), chances=np.array([1.0]),
...                   pips=np.array([0, 1]))
>>> solve_race(plays).W.tolist()
[[0.0, 1.0], [0.0, 1.0]]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["RacePlays", "RaceTable", "solve_race"]


@dataclass(frozen=True)
class RacePlays:
    """Every side's plays: the sides throw ``t`` can leave from side ``i`` are
    ``to[start[i * T + t] : start[i * T + t + 1]]`` (``T`` throws of ``chances``);
    ``pips[i]`` falls with every play (side 0, nothing left, has none)."""

    start: np.ndarray
    to: np.ndarray
    chances: np.ndarray
    pips: np.ndarray


@dataclass(eq=False)
class RaceTable:
    """``W[i, j]``: the chance that side ``i``, on roll against side ``j``, wins."""

    plays: RacePlays
    W: np.ndarray
    seconds: float = 0.0

    def value(self, i: int, j: int) -> float:
        return float(self.W[i, j])

    def after_throw(self, i: int, j: int, t: int) -> list[tuple[int, float]]:
        """Each side ``i`` can leave after throw ``t``, with the chance it leaves side
        ``i`` on roll (one minus the other's chance from there)."""
        T = self.plays.chances.size
        first, last = self.plays.start[i * T + t], self.plays.start[i * T + t + 1]
        return [(int(k), 1.0 - float(self.W[j, k])) for k in self.plays.to[first:last]]


def solve_race(plays: RacePlays, dtype=np.float64,
               progress: Callable[[int, int], None] | None = None) -> RaceTable:  # fmt: skip
    """Every pair of sides, layer by layer of their pips from the smallest
    (``progress(done, planned)`` in pairs)."""
    from dicelab.engine.kernels.race import race_layer

    began = time.perf_counter()
    k = plays.pips.size
    W = np.zeros((k, k), dtype)
    top = int(plays.pips.max())
    buckets = [np.flatnonzero(plays.pips == p).astype(np.int64) for p in range(top + 1)]
    sizes = np.array([b.size for b in buckets])
    done, planned = 0, k * k
    tick = progress or (lambda d, p: None)
    for s in range(2 * top + 1):
        for a in range(max(0, s - top), min(s, top) + 1):
            firsts, seconds = buckets[a], buckets[s - a]
            if firsts.size and seconds.size:
                race_layer(W, firsts, seconds, plays.start, plays.to, plays.chances)
                done += int(sizes[a] * sizes[s - a])
        tick(done, planned)
    return RaceTable(plays, W, time.perf_counter() - began)
