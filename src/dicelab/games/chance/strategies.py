"""Plain strategies, named, whose exact value a solution can give
(:meth:`~dicelab.games.chance.solution.ChanceSolution.price`).

``pig``: ``hold-at=N`` holds once the turn total reaches N (Pig's classic "hold
at 20"). ``shut-the-box``: ``fewest-tiles`` shuts as few tiles as it can, the
highest first. Any game: ``first`` always plays the first move listed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dicelab.errors import UserError
from dicelab.games.chance.model import ChanceGame
from dicelab.games.chance.pig import Pig
from dicelab.games.chance.shut_the_box import ShutTheBox

__all__ = ["strategy_from"]

Strategy = Callable[[Any, list[str]], str]


def hold_at(n: int) -> Strategy:
    """Pig: roll until the turn total is at least ``n``, then hold."""

    def play(position: Any, labels: list[str]) -> str:
        return "hold" if position[3] >= n and "hold" in labels else "roll"

    return play


def fewest_tiles(position: Any, labels: list[str]) -> str:
    """Shut the Box: the fewest tiles, the highest tile first among those."""
    if "two dice" in labels:
        return "two dice"

    def key(label: str) -> tuple[int, int]:
        tiles = [int(t) for t in label.split()[1:]]
        return (len(tiles), -max(tiles))

    return min(labels, key=key)


def first(position: Any, labels: list[str]) -> str:
    """Any game: the first move listed."""
    return labels[0]


def strategy_from(game: ChanceGame, text: str) -> Strategy:
    """The strategy ``text`` names for ``game`` (see the module's list)."""
    name, _, value = text.partition("=")
    if name == "first":
        return first
    if isinstance(game, Pig) and name == "hold-at":
        try:
            return hold_at(int(value))
        except ValueError:
            raise UserError(f"hold-at: got {value!r}, expected a whole number") from None
    if isinstance(game, ShutTheBox) and name == "fewest-tiles":
        return fewest_tiles
    known = {"pig": "hold-at=N, first", "shut the box": "fewest-tiles, first"}
    kind = (
        "pig" if isinstance(game, Pig) else "shut the box" if isinstance(game, ShutTheBox) else ""
    )
    raise UserError(f"strategy: got {text!r}, expected {known.get(kind, 'first')}")
