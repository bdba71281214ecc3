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

__all__ = ["PAIRS_PER_SECOND", "RaceLayers", "RacePlays", "RaceTable", "solve_race"]


@dataclass(frozen=True)
class RacePlays:
    """Every side's plays: the sides throw ``t`` can leave from side ``i`` are
    ``to[start[i * T + t] : start[i * T + t + 1]]`` (``T`` throws of ``chances``);
    ``pips[i]`` falls with every play (side 0, nothing left, has none); the sides
    come in order of their pips."""

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


#: Pairs of sides solved a second on 2 cores, deliberately low: 64 million of 10
#: checkers took 12 s, 2.94 billion of 15 took 1,000 s under a load of 3.
PAIRS_PER_SECOND = 2.5e6


@dataclass(eq=False)
class RaceLayers:
    """A race's pairs as a runner's layers
    (:class:`~dicelab.engine.runtime.schedule.LayeredSolve`) over the flat table of
    ``K * K`` values: the layers of the pairs' pip sums from the smallest, each cut
    by the first side's pips (the sides are in order of their pips, so each cut is
    a block of the table) and the second side's rows. Pair ``(i, j)`` reads row
    ``j`` of the sides with fewer pips than ``i``'s, a run at the row's start; so a
    cluster's task is sent one run a row and returns one run a first side."""

    plays: RacePlays
    dtype: np.dtype
    #: progress units done before the first layer (none)
    done: int = 0

    def __post_init__(self) -> None:
        pips = self.plays.pips
        if np.any(np.diff(pips) < 0):
            raise ValueError("a race's sides must come in order of their pips")
        self.sides = k = int(pips.size)
        self.size = self.total = k * k
        self.dtype = np.dtype(self.dtype)
        self.top = int(pips.max())
        #: the first side of each count of pips (and one past the last)
        self.first = np.searchsorted(pips, np.arange(self.top + 2)).astype(np.int64)
        self.unit_seconds = 2.0 / PAIRS_PER_SECOND

    def layers(self) -> list[int]:
        return list(range(2 * self.top + 1))

    def start(self, table: np.ndarray) -> None:
        """Nothing: every pair, those with a finished side too, is written by its layer."""

    def _splits(self, layer: int) -> list[tuple[int, int]]:
        """``(a, b)``: the first side's pips and the second's, both with sides."""
        f = self.first
        return [(a, layer - a) for a in range(max(0, layer - self.top), min(layer, self.top) + 1)
                if f[a + 1] > f[a] and f[layer - a + 1] > f[layer - a]]  # fmt: skip

    def tasks(self, layer: int, pieces: int | None) -> list:
        f, out = self.first, []
        splits = self._splits(layer)
        pairs = sum(int((f[a + 1] - f[a]) * (f[b + 1] - f[b])) for a, b in splits)
        for a, b in splits:
            lo, hi = int(f[b]), int(f[b + 1])
            cut = 1
            if pieces is not None and pairs:
                cut = max(1, min(hi - lo, round(pieces * (f[a + 1] - f[a]) * (hi - lo) / pairs)))
            marks = np.linspace(lo, hi, cut + 1).round().astype(np.int64)
            out += [
                (a, int(x), int(y)) for x, y in zip(marks[:-1], marks[1:], strict=True) if y > x
            ]
        return out

    def weight(self, task) -> int:
        a, lo, hi = task
        return int((self.first[a + 1] - self.first[a]) * (hi - lo))

    def run(self, table: np.ndarray, task) -> None:
        from dicelab.engine.kernels.race import race_layer

        a, lo, hi = task
        f, k, p = self.first, self.sides, self.plays
        firsts = np.arange(f[a], f[a + 1], dtype=np.int64)
        race_layer(table.reshape(k, k), firsts, np.arange(lo, hi, dtype=np.int64),
                   p.start, p.to, p.chances)  # fmt: skip

    def writes(self, task) -> tuple[np.ndarray, np.ndarray]:
        a, lo, hi = task
        rows = np.arange(self.first[a], self.first[a + 1], dtype=np.int64)
        return rows * self.sides + lo, np.full(rows.size, hi - lo, np.int64)

    def task_reads(self, task) -> tuple[np.ndarray, np.ndarray]:
        a, lo, hi = task
        rows = np.arange(lo, hi, dtype=np.int64)
        return rows * self.sides, np.full(rows.size, self.first[a], np.int64)

    def reads(self, layer: int) -> tuple[np.ndarray, np.ndarray]:
        f, k = self.first, self.sides
        runs = [(np.arange(f[b], f[b + 1], dtype=np.int64) * k, f[a])
                for a, b in self._splits(layer)]  # fmt: skip
        if not runs:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return (np.concatenate([r for r, _ in runs]),
                np.concatenate([np.full(r.size, n, np.int64) for r, n in runs]))  # fmt: skip


def solve_race(plays: RacePlays, dtype=np.float64,
               progress: Callable[[int, int], None] | None = None, runner=None,
               store=None) -> RaceTable:  # fmt: skip
    """Every pair of sides (in order of their pips), layer by layer of their pip sum
    from the smallest, on ``runner`` (this process's threads by default, or a Dask
    cluster's workers), the table in memory or with ``store`` in a file in that
    folder (``progress(done, planned)`` in pairs)."""
    from dicelab.engine.runtime.schedule import new_table, run_layers

    began = time.perf_counter()
    layers = RaceLayers(plays, dtype)
    table = new_table(layers.size, layers.dtype, store, "race")
    run_layers(layers, table, progress, runner)
    k = layers.sides
    return RaceTable(plays, table.reshape(k, k), time.perf_counter() - began)
