"""The two-sided bear-off as a table of pairs of sides: every race of up to ten checkers
a side and more, on the engine's race solver.

Laid out with its throws, the race of 7 checkers a side is 65 million positions and
is refused; as a table of pairs (:mod:`dicelab.engine.race`) it is 2.9 million
values, and every side of up to 10 checkers (8,008 sides, 64 million pairs) is
solved in minutes. :func:`race_plays` gives the solver every side of up to a
number of checkers and each throw's plays (the one-sided layout's lists,
:mod:`dicelab.games.chance.bearoff_layout`); :class:`RaceSolution` answers for
any position of the game (:class:`~dicelab.games.chance.bearoff.BearOff`) from the
table: a side on roll's chance, each play of a throw ranked. The table of one
number of checkers answers every race of at most that many checkers a side.
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicelab.engine.race import PAIRS_PER_SECOND, RacePlays, RaceTable, solve_race
from dicelab.games.chance.table_solution import TableSolution, TurnSolve

__all__ = ["RaceSolution", "race_plays", "solve_race_game"]

#: Tables of more values than this are kept in single precision (chances to 6e-8).
DOUBLE_UP_TO = 2**27
#: Tables of more bytes than this are not written to the cache folder (every pair
#: of 15 checkers a side: 11.8 GB, past the folder's usual limit).
KEPT_UP_TO = 2 * 2**30


def race_game_cost(game: Any, stored: bool = False):
    """The cost of a race game's table (:func:`race_cost`): every side of up to its
    larger side's checkers."""
    from math import comb

    return race_cost(comb(max(sum(game.mine), sum(game.theirs)) + 6, 6), stored)


def race_cost(sides: int, stored: bool = False):
    """The size of the table of ``sides`` sides (:class:`~dicelab.engine.runtime.cost.Cost`):
    its pairs, their bytes and the time to solve them, known before anything is
    laid out; ``stored``: the table lives in a file (``--store``), so the memory it
    needs is the plays' alone (the system keeps what fits of the file)."""
    from dicelab.engine.runtime.cost import Cost

    pairs = sides * sides
    itemsize = 8 if pairs <= DOUBLE_UP_TO else 4
    table = 0 if stored else pairs * itemsize
    return Cost("the bear-off table", pairs, table + sides * 21 * 8 * 16,
                pairs / PAIRS_PER_SECOND, unit="pairs of sides")  # fmt: skip


def race_plays(checkers: int) -> tuple[np.ndarray, RacePlays]:
    """Every side of up to ``checkers`` checkers (their base-16 keys, in order of
    their pips, then of their keys: the empty side first) and each throw's plays
    from it."""
    from dicelab.games.chance.bearoff_layout import (
        CHANCES,
        THROWS,
        all_positions,
        one_die_moves,
        throw_plays,
    )

    keys = all_positions(checkers)
    start, to = throw_plays(one_die_moves(keys), THROWS)
    counts = (keys[:, None] >> (4 * np.arange(6))) & 15
    pips = (counts * np.arange(1, 7)).sum(axis=1).astype(np.int64)
    order = np.lexsort((keys, pips))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    T = CHANCES.size
    old_rows = (order[:, None] * T + np.arange(T)).ravel()
    lengths = (start[old_rows + 1] - start[old_rows]).astype(np.int64)
    new_start = np.concatenate([[0], np.cumsum(lengths)]).astype(start.dtype)
    moved = np.repeat(start[old_rows] - new_start[:-1], lengths) + np.arange(int(lengths.sum()))
    new_to = rank[to[moved]].astype(to.dtype)
    return keys[order], RacePlays(new_start, new_to, CHANCES, pips[order])


@dataclass(eq=False, repr=False)
class RaceSolution(TableSolution):
    """A two-sided bear-off solved as a table of pairs of sides (see the module)."""

    table: RaceTable
    keys: np.ndarray
    cached: str | None = None

    @property
    def solved(self) -> TurnSolve:
        """No position comes back: one pass over the pairs, by their pips."""
        return TurnSolve(cyclic=0, residual=0.0, rounds=0)

    def __len__(self) -> int:
        """The values kept: one per pair of sides."""
        return int(self.table.W.size)

    def rank(self, side: tuple[int, ...]) -> int:
        """A side's row of the table (the sides are in order of their pips)."""
        found = self.__dict__.get("_by_key")
        if found is None:
            order = np.argsort(self.keys)
            found = self.__dict__["_by_key"] = (self.keys[order], order)
        key = sum(c << (4 * p) for p, c in enumerate(side))
        return int(found[1][np.searchsorted(found[0], key)])

    def value(self, position: Hashable | None = None) -> float:
        """The first side's chance at ``position`` (the start by default)."""
        here: Any = self.game.start() if position is None else self.known(position)
        result = self.game.result(here)
        if result is not None:
            return float(result)
        seat, a, b = here[1], here[2], here[3]
        if here[0] == "move":  # a throw: the best of its plays
            best = max(self.seat_view(self.value(after), seat)
                       for _, after in self.game.moves(here))  # fmt: skip
            return self.seat_view(best, seat)
        on_roll, other = (a, b) if seat == 0 else (b, a)
        return self.seat_view(self.table.value(self.rank(on_roll), self.rank(other)), seat)


def solve_race_game(game: Any, progress=None, cache: bool = False, laid_out=None,
                    allow_large: bool = False, runner=None,
                    store=None) -> RaceSolution:  # fmt: skip
    """The table of every pair of sides of up to the game's larger side's checkers,
    read from and kept in the cache folder with ``cache`` (one file a number of
    checkers, whatever the race asked; up to :data:`KEPT_UP_TO` bytes), solved on
    ``runner`` with the table in ``store`` (:func:`~dicelab.engine.race.solve_race`)."""
    from dicelab.games.chance import saved

    cost = race_game_cost(game, stored=store is not None)
    cost.check(allow_large)  # before any side is laid out
    keys, plays = game.race_plays()
    dtype = np.float64 if keys.size**2 <= DOUBLE_UP_TO else np.float32
    key = {"race table": int(keys.size), "dtype": np.dtype(dtype).name}
    found = saved.load_named(key, (keys.size, keys.size)) if cache else None
    if found is not None:
        values, path = found
        return RaceSolution(game, RaceTable(plays, values), keys, cached=path, laid_out=laid_out)
    cost.announce()
    cost.tell(progress)
    began = time.perf_counter()
    table = solve_race(plays, dtype, progress, runner, store)
    table.seconds = time.perf_counter() - began
    if cache and table.W.nbytes <= KEPT_UP_TO:
        saved.save_named(key, table.W, table.seconds)
    return RaceSolution(game, table, keys, laid_out=laid_out)
