"""What a game solved as a table answers: the base of the turn-start and race solutions.

A game solved as a table of the values where its turns start
(:mod:`.turn_solution`: Farkle, Pig) or of every pair of sides (:mod:`.bearoff_table`:
the bear-off race) answers as a laid-out game's
:class:`~dicelab.games.chance.solution.ChanceSolution` does: a position's value for
the first player, every move ranked with its cost, the draw; a fixed strategy's
price and exact fractions come from the game laid out (small games), which the
solver that made the table hands over (:attr:`TableSolution.laid_out`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import KW_ONLY, dataclass
from fractions import Fraction
from typing import Any

from dicelab.errors import UserError
from dicelab.games.chance.model import FIRST, ChanceGame, Move

__all__ = ["TableSolution", "TurnSolve", "kept"]


@dataclass(frozen=True)
class TurnSolve:
    """How the turn-start solve went, as the reports say it (``solve --json``)."""

    cyclic: int
    residual: float
    rounds: int


@dataclass(eq=False, repr=False)
class TableSolution:
    """What a game solved as a table of turn starts answers, as a laid-out game's
    :class:`~.solution.ChanceSolution` does: the start's and any position's value
    for the first player (:meth:`value`, each kind its own), every move ranked, the
    draw, and a fixed strategy's price and exact fractions on the laid-out game."""

    game: Any
    _: KW_ONLY
    objective: str = "win"
    target: float | None = None
    #: the game laid out and solved instead (small games: a strategy's price,
    #: fractions), given by :func:`~dicelab.games.chance.solution.solve`
    laid_out: Callable[..., Any] | None = None

    def value(self, position: Hashable | None = None) -> float:
        raise NotImplementedError

    def known(self, position: Hashable) -> Hashable:
        """The game's own ``position`` (rebuilt from its number, so its parts are of
        the game's own kinds), or one clear error line where the game has none."""
        try:
            canonical = getattr(self.game, "canonical", None)
            if canonical is not None:
                return canonical(position)
            numbered = self.game.positions()
            return numbered.position(numbered.index_of(position))
        except (KeyError, LookupError, TypeError, ValueError):
            raise UserError(
                f"{_shown(self.game, position)}: not a position this game reaches from its start"
            ) from None

    def draw(self, position: Hashable | None = None) -> float:
        """No draws: the first to the goal wins."""
        return 0.0

    def seat_view(self, value: float, seat: int) -> float:
        """A first-player value as ``seat`` sees it."""
        return value if seat == FIRST else 1.0 - value

    def advise(self, position: Hashable | None = None) -> list[Move]:
        """Every move at ``position``, best first, each valued for the player to move
        with its cost against the best."""
        here = self.game.start() if position is None else self.known(position)
        seat = self.game.to_move(here) if self.game.result(here) is None else -2
        if seat < 0:
            what = "the dice decide" if seat == -1 else "the game is over"
            raise UserError(f"{self.game.show(here)}: no move to choose, {what}")
        mine = [(label, after, self.seat_view(self.value(after), seat))
                for label, after in self.game.moves(here)]  # fmt: skip
        best = max(x for _, _, x in mine)
        return sorted((Move(label, after, x, best - x) for label, after, x in mine),
                      key=lambda m: m.cost)  # fmt: skip

    def price(self, strategy, against=None) -> float:
        """A fixed strategy's exact value, on the laid-out game (small games)."""
        return self._laid_out().price(strategy, against)

    def exact(self, position: Hashable | None = None) -> Fraction:
        """The value as a fraction, on the laid-out game (small games)."""
        return self._laid_out(exact=True).exact(position)

    def _laid_out(self, **options):
        if self.laid_out is None:
            raise UserError(f"{self.game.name}: solved as a table only; lay it out to price "
                            "a strategy or give fractions")  # fmt: skip
        return self.laid_out(**options)


def kept(turns: OrderedDict, key: Hashable, make: Callable[[], Any], limit: int) -> Any:
    """``turns[key]``, made by ``make()`` the first time, the ``limit`` asked last kept
    (a turn worked out from a table: remembered for the next question about it)."""
    found = turns.get(key)
    if found is None:
        found = turns[key] = make()
        if len(turns) > limit:
            turns.popitem(last=False)
    else:
        turns.move_to_end(key)
    return found


def _shown(game: ChanceGame, position: Any) -> str:
    try:
        return game.show(position)
    except Exception:  # any shape at all may come from outside
        return repr(position)[:80]
