"""A banking game solved where its turns start: Farkle to 10,000 on one table of scores.

:func:`solve_turns` solves a two-player banking game (Farkle; see
:mod:`dicelab.engine.turnstart`) keeping one value per pair of scores, and returns a
:class:`TurnStartSolution`, which answers as a :class:`~.solution.ChanceSolution`
does (a position's value, every move ranked, the game's start) but works out the
inside of a turn from the table when asked: one turn of Farkle to 10,000 in well
under a millisecond, remembered for the next question about the same scores.
Pricing a fixed strategy, exact fractions and the draw chance of a small game go
through the laid-out game (:func:`~.solution.solve`), which this path is checked
against position by position.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dicelab.engine.turnstart import TurnStartTable, solve_turn_starts, turn_cost
from dicelab.games.chance.model import ChanceGame
from dicelab.games.chance.table_solution import TableSolution, TurnSolve, kept

__all__ = ["TurnStartSolution", "solve_turns", "solves_by_turns"]

#: A two-player banking game laid out larger than this is solved where its turns
#: start: Farkle to 1,000 lays out 2 million positions (4 s), and its 400 turn
#: starts take 0.03 s.
TURNS_ABOVE = 1_000_000

#: Turns worked out and kept for the next question (each a few kilobytes).
KEPT_TURNS = 512


def solves_by_turns(game: ChanceGame, objective: str | None, turns: bool | None = None) -> bool:
    """Whether ``game`` is solved where its turns start: a two-player banking game
    (one that gives its turn as arrays, ``banking_turn``) or race (its sides' plays,
    ``race_plays``: :mod:`.bearoff_table`) played to win, unless
    ``turns`` is ``False``; where ``turns`` is ``None``, only if its layout would
    hold more than :data:`TURNS_ABOVE` positions."""
    if game.players > 2:  # a table of players: solved where its turns start, always
        return hasattr(game, "banking_turn") and turns is not False
    banks = hasattr(game, "banking_turn") and getattr(game, "turn_table_fits", True)
    tabled = banks or hasattr(game, "race_plays")
    able = tabled and game.players == 2 and (objective or game.objective or "win") == "win"
    if not able or turns is False:
        return False
    size = getattr(game, "size", lambda: None)()
    return bool(turns) or size is None or size > TURNS_ABOVE


@dataclass(eq=False, repr=False)
class TurnStartSolution(TableSolution):
    """A two-player banking game solved where turns start (see the module's text)."""

    table: TurnStartTable
    cached: str | None = None
    _turns: OrderedDict = field(default_factory=OrderedDict)

    @property
    def solved(self) -> TurnSolve:
        """Within a layer only a farkle leads back, and every pair of turn starts it
        joins is solved exactly: ``rounds`` is the most Newton steps a pair took."""
        goal = self.table.turn.scores
        return TurnSolve(cyclic=goal * (goal - 1) // 2 + goal, residual=0.0,
                         rounds=self.table.steps)  # fmt: skip

    def __len__(self) -> int:
        """The values kept: one per pair of scores where a turn starts."""
        return int(self.table.W.size)

    def turn(self, mine: int, other: int, mine_farkles: int = 0,
             other_farkles: int = 0) -> np.ndarray:  # fmt: skip
        """``V[t, n]`` of the turn with these scores and farkles in a row (see
        :meth:`~dicelab.engine.turnstart.TurnStartTable.turn_values`), kept."""
        key = (mine, other, mine_farkles, other_farkles)
        return kept(self._turns, key, lambda: self.table.turn_values(*key), KEPT_TURNS)

    def value(self, position: Hashable | None = None) -> float:
        """The first player's chance to win at ``position`` (the start by default)."""
        if position is None:
            return self.table.start_value()
        here = self.known(position)
        result = self.game.result(here)
        if result is not None:
            return float(result)
        seat, mine, other, t, n, mf, of = self.game.turn_of(here)
        if n is None:  # a throw that scored: the best of its moves
            best = max(self.seat_view(self.value(after), seat)
                       for _, after in self.game.moves(here))  # fmt: skip
            return self.seat_view(best, seat)
        if t == 0 and n == self.table.turn.dice:
            return self.seat_view(self.table.value(mine, other, mf, of), seat)
        return self.seat_view(float(self.turn(mine, other, mf, of)[t, n]), seat)


def table_cost(game: Any):
    """The size of the table a game solved where its turns start needs (its turn
    starts, or its pairs of sides: :class:`~dicelab.engine.runtime.cost.Cost`), from
    its rules alone."""
    if hasattr(game, "race_plays"):
        from dicelab.games.chance.bearoff_table import race_game_cost

        return race_game_cost(game)
    if game.players > 2:
        from dicelab.engine.seats import seat_cost

        return seat_cost(game.banking_turn(), game.players)
    return turn_cost(game.banking_turn())


def solve_turns(game: Any, progress=None, cache: bool = False, laid_out=None,
                allow_large: bool = False, runner=None,
                store=None) -> TurnStartSolution:  # fmt: skip
    """Solve a two-player banking game where its turns start (see :func:`solves_by_turns`),
    reading and keeping the table in the cache folder with ``cache``; the layers run
    on ``runner`` (:mod:`dicelab.engine.runtime.schedule`: this process's threads by
    default, or a Dask cluster's workers) with the table in memory or, with
    ``store``, in a file in that folder."""
    from dicelab.games.chance import saved

    if hasattr(game, "race_plays"):  # a race: a table of pairs of sides
        from dicelab.games.chance.bearoff_table import solve_race_game

        return solve_race_game(game, progress, cache, laid_out, allow_large, runner, store)  # type: ignore[return-value]
    turn = game.banking_turn()
    found = saved.load_turn_starts(game, turn) if cache else None
    if found is not None:
        table, path = found
        return TurnStartSolution(game, table, cached=path, laid_out=laid_out)
    cost = turn_cost(turn)
    cost.check(allow_large)
    cost.announce()
    cost.tell(progress)
    began = time.perf_counter()
    table = solve_turn_starts(turn, progress, runner, store)
    if cache:
        saved.save_turn_starts(game, table, time.perf_counter() - began)
    return TurnStartSolution(game, table, laid_out=laid_out)
