"""Every position a game can reach, laid out once as arrays for the solver.

:func:`explore` walks a :class:`~dicelab.games.chance.model.ChanceGame` from its
start, breadth first, numbering each new position, and records who acts where,
the moves and throws with their chances, and the results. :class:`Layout` holds
that walk; :meth:`Layout.graph` turns it into the solver's
:class:`~dicelab.engine.graph.Graph` for one objective (the win, the points, a
target, the fewest turns), so one walk serves every objective.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from dicelab.engine.graph import Graph
from dicelab.errors import TooLarge, UserError
from dicelab.games.chance.model import CHANCE, ChanceGame

__all__ = ["DEFAULT_LIMIT", "Layout", "explore"]

_ZERO = Fraction(0)  # the chance a move's edge carries (read at throws only)

#: Positions a walk may reach before it stops and says so (about 1.5 GB of arrays).
DEFAULT_LIMIT = 30_000_000


class Index(Protocol):
    """A position's number: a dict, or a family's arithmetic (``KeyError`` if none)."""

    def __getitem__(self, position: Any) -> int: ...


@dataclass
class Layout:
    """A game's reachable positions (``positions[0]`` is the start) and their links.

    ``mover[v]`` is the player to move, ``-1`` for the dice and ``-2`` at the end;
    the links of ``v`` are ``start[v]:start[v + 1]`` of ``to``, ``prob`` (chances as
    floats) and ``exact`` (as fractions, kept when asked for); ``result`` holds the
    end positions' results and ``turn`` marks where turns start.
    """

    game: ChanceGame
    positions: Sequence[Any]
    index: Index
    mover: np.ndarray
    start: np.ndarray
    to: np.ndarray
    prob: np.ndarray
    result: np.ndarray
    turn: np.ndarray
    exact: list | None = field(default=None, repr=False)
    #: Laid out from the mover's side (alike seats): a position with seat 1 to move is
    #: node ``-w - 1``, the mirror of node ``w``, and only ``win`` can be asked of it.
    mirrored: bool = False

    def __len__(self) -> int:
        return len(self.positions)

    def node(self, position: Hashable) -> int:
        """The number of ``position``; a clear error if the game cannot reach it."""
        try:
            return self.index[position]
        except (LookupError, TypeError, ValueError):  # any shape may come from outside
            raise UserError(
                f"{self.shown(position)}: not a position this game reaches from its start"
            ) from None

    def shown(self, position: Hashable) -> str:
        """``position`` in words, or as written when it is no position of the game."""
        try:
            return self.game.show(position)
        except Exception:  # any shape at all may come from outside
            return repr(position)[:80]

    @property
    def players(self) -> int:
        return self.game.players

    @property
    def lower_is_better(self) -> bool:
        return bool(self.game.lower_is_better)

    def graph(self, objective: str, target: float | None = None) -> Graph:
        """The solver's graph for one objective of
        :data:`~dicelab.engine.registry.GAME_OBJECTIVES` (or ``draw``: the chance of
        a draw, to value a strategy's draws)."""
        from dicelab.engine import registry
        from dicelab.engine.objectives import chance

        if self.mirrored and objective != "win":
            raise UserError(f"{self.game.name}: laid out from the mover's side, so only "
                            f"the win, not {objective}")  # fmt: skip
        if objective == "draw":
            return chance.draw(self, registry.game_objective("win", 2))
        spec = registry.game_objective(objective, self.players, target=target)
        return spec.objective.load("solve")(self, spec)


#: Bytes a position costs from its layout to its solution (the race of 6 checkers a
#: side: 18.8 million positions, 4.2 GB at the most).
BYTES_PER_POSITION = 230


def too_large(game: ChanceGame, positions: int, limit: int, counted: str) -> TooLarge:
    """The refusal of a game past the limit: one line with its size and what to change
    (the command line adds its way out, ``--allow-large``, where it is within reach)."""
    summary = (f"{game.name}: {counted} positions, past the limit of {limit:,}; smaller "
               "settings solve (a lower goal, fewer tiles or checkers)")  # fmt: skip
    return TooLarge(summary, what=game.name, states=positions, seconds=0.0,
                    bytes=positions * BYTES_PER_POSITION, hopeless=positions > 20 * limit,
                    reason=f"more than {limit:,} positions")  # fmt: skip


def explore(
    game: ChanceGame, *, limit: int = DEFAULT_LIMIT, exact: bool = False, walk: bool = False
) -> Layout:
    """Walk ``game`` from its start; refuse past ``limit`` positions.

    A game that lays itself out at once (a ``layout(exact)`` method, with ``size()``
    its number of positions, or ``None`` where it walks after all) is not walked,
    unless ``walk``: Pig's two million
    positions take a second that way.
    """
    fast = getattr(game, "layout", None)
    size = getattr(game, "size", lambda: None)()
    if fast is not None and size is not None and not walk:
        if size > limit:
            raise too_large(game, size, limit, f"{size:,}")
        return fast(exact)
    estimate = getattr(game, "estimate", lambda: 0)()
    if estimate > limit:
        raise too_large(game, estimate, limit, f"up to {estimate:,}")
    first = game.start()
    positions: list = [first]
    index: dict = {first: 0}
    mover: list[int] = []
    result: list[float] = []
    turn: list[bool] = []
    start = [0]
    to: list[int] = []
    prob: list[float] = []
    fractions: list[Fraction] | None = [] if exact else None
    v = 0
    while v < len(positions):
        here = positions[v]
        done = game.result(here)
        turn.append(bool(game.turn_starts(here)))
        if done is not None:
            mover.append(-2)
            result.append(float(done))
        else:
            who = game.to_move(here)
            mover.append(who)
            result.append(0.0)
            if who == CHANCE:
                links = [(p, after) for p, _label, after in game.outcomes(here)]
            else:
                links = [(_ZERO, after) for _label, after in game.moves(here)]
            if not links:
                raise ValueError(f"{game.show(here)}: an unfinished position with no move")
            for p, after in links:
                w = index.get(after)
                if w is None:
                    w = index[after] = len(positions)
                    positions.append(after)
                    if w >= limit:
                        raise too_large(game, w + 1, limit, f"more than {limit:,}")
                to.append(w)
                prob.append(float(p))
                if fractions is not None:
                    fractions.append(p if isinstance(p, Fraction) else Fraction(p))
        start.append(len(to))
        v += 1
    return Layout(game, positions, index, np.array(mover, np.int64),
                  np.array(start, np.int64), np.array(to, np.int64), np.array(prob),
                  np.array(result), np.array(turn), fractions)  # fmt: skip
