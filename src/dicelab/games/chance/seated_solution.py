"""A table of three to six players solved: each seat's chance at every position.

:func:`solve_seated` solves a :class:`~dicelab.games.chance.seated.Seated` game where
its turns start (:func:`dicelab.engine.seats.solve_seats`) and returns a
:class:`SeatedSolution`, which answers as the two-player solutions do (a
position's value for player 1, every move ranked) and also with every seat's chance
(:meth:`SeatedSolution.chances`); the inside of a turn is worked out from the table
when asked and remembered for the next question about the same scores.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dicelab.engine.seats import SeatTable, seat_cost, solve_seats
from dicelab.errors import UserError
from dicelab.games.chance.model import Move
from dicelab.games.chance.table_solution import TableSolution, TurnSolve, kept

__all__ = ["PairwiseAdvice", "SeatedSolution", "pairwise_advice", "solve_seated"]

#: Turns worked out and kept for the next question.
KEPT_TURNS = 256


@dataclass(eq=False, repr=False)
class SeatedSolution(TableSolution):
    """A table of players solved where turns start (see the module's text)."""

    table: SeatTable
    cached: str | None = None
    _turns: OrderedDict = field(default_factory=OrderedDict)

    @property
    def solved(self) -> TurnSolve:
        """``residual``: the most a mover could gain by other moves in one turn (0
        where every seat's best reply is everywhere kept; see
        :attr:`~dicelab.engine.seats.SeatTable.regret`)."""
        return TurnSolve(cyclic=len(self), residual=self.table.regret, rounds=self.table.rounds)

    def __len__(self) -> int:
        """The turn starts kept."""
        return int(self.table.T.shape[0])

    def chances(self, position: Hashable | None = None) -> np.ndarray:
        """Every seat's chance to finish first at ``position`` (the start by default),
        in seat order, every seat playing its best."""
        game, N = self.game, self.game.players
        here = game.start() if position is None else self.known(position)
        won = game.winner(here)
        if won is not None:
            return np.eye(N)[won]
        mover, order, t, n = game.turn_of(here)
        if n is None:  # a throw that scored: the mover's best move
            return max((self.chances(after) for _, after in game.moves(here)),
                       key=lambda c: c[mover])  # fmt: skip
        if t == 0 and n == self.table.turn.dice:
            rel = self.table.chances(order)
        else:
            turn = kept(self._turns, order, lambda: self.table.turn_chances(order), KEPT_TURNS)
            rel = turn[t, n]
        return np.roll(rel, mover)

    def value(self, position: Hashable | None = None) -> float:
        """Player 1's chance to finish first at ``position`` (the start by default)."""
        return float(self.chances(position)[0])

    def advise(self, position: Hashable | None = None) -> list[Move]:
        """Every move at ``position``, best first for the player to move, each with
        its cost to that player and every seat's chance after it."""
        game = self.game
        here = game.start() if position is None else self.known(position)
        seat = game.to_move(here) if game.result(here) is None else -2
        if seat < 0:
            what = "the dice decide" if seat == -1 else "the game is over"
            raise UserError(f"{game.show(here)}: no move to choose, {what}")
        mine = [(label, after, self.chances(after)) for label, after in game.moves(here)]
        best = max(float(c[seat]) for _, _, c in mine)
        return sorted((Move(label, after, float(c[seat]), best - float(c[seat]),
                            tuple(float(x) for x in c)) for label, after, c in mine),
                      key=lambda m: m.cost)  # fmt: skip


def solve_seated(game, progress=None, cache: bool = False,
                 allow_large: bool = False) -> SeatedSolution:  # fmt: skip
    """Solve a table of players where its turns start, reading and keeping the table
    in the cache folder with ``cache``."""
    from dicelab.games.chance import saved

    turn = game.banking_turn()
    found = saved.load_seats(game, turn) if cache else None
    if found is not None:
        table, path = found
        return SeatedSolution(game, table, cached=path)
    cost = seat_cost(turn, game.players)
    cost.check(allow_large)
    cost.announce()
    cost.tell(progress)
    began = time.perf_counter()
    table = solve_seats(turn, game.players, progress)
    table.seconds = time.perf_counter() - began
    if cache:
        saved.save_seats(game, table)
    return SeatedSolution(game, table)


@dataclass(eq=False, repr=False)
class PairwiseAdvice:
    """Advice at a table too large to solve: each opponent taken as in the two-player
    game. A move's value is the product of the mover's two-player chances against
    each opponent from the same scores and turn (as if each were a duel of its
    own, none sharing the win); the two-player table is solved once. An estimate to
    rank the moves by, not a chance of the table's: said so wherever it is shown."""

    game: Any
    pair: Any  # the two-player game's solution

    def _value(self, position, mover: int) -> float:
        game: Any = self.game
        if game.winner(position) is not None:
            return 1.0 if game.winner(position) == mover else 0.0
        _, now, scores, turn = position
        family, out = game.game, 1.0
        for seat, score in enumerate(scores):
            if seat == mover:
                continue
            if now == mover:  # the mover's turn goes on: the family's turn, against one
                seen = family.facing(turn, score)
            else:  # it ended: that one (as the other of a duel) throws next
                seen = family.passed(scores[mover], score)
            out *= self.pair.value(seen)
        return out

    def advise(self, position) -> list[Move]:
        """Every move at ``position`` by the estimate, best first."""
        game: Any = self.game
        mover = game.to_move(position)
        if mover < 0:
            raise UserError(f"{game.show(position)}: no move to choose, the dice decide")
        mine = [(label, after, self._value(after, mover)) for label, after in game.moves(position)]
        best = max(x for _, _, x in mine)
        return sorted((Move(label, after, x, best - x) for label, after, x in mine),
                      key=lambda m: m.cost)  # fmt: skip


def pairwise_advice(game) -> PairwiseAdvice:
    """:class:`PairwiseAdvice` for a table, its two-player game solved where its turns
    start (or read from the cache)."""
    from dicelab.games.chance.turn_solution import solve_turns

    return PairwiseAdvice(game, solve_turns(game.game, cache=True))
