"""Positions by number, decoded on demand: the sequence a family's array layout gives.

A layout that numbers its positions arithmetically (Pig's two million, the
bear-off's million) need not list them: :class:`NumberedPositions` turns the
family's decoding and encoding into the sequence and the index a
:class:`~dicelab.games.chance.explore.Layout` reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["NumberedPositions"]


class NumberedPositions(Sequence):
    """A family's positions by number, decoded on demand instead of listed (Pig's two
    million, the bear-off's million): :meth:`position` and :meth:`index_of` are the
    family's arithmetic, ``size`` how many; this class makes them a sequence, and
    :attr:`index` the mapping a :class:`Layout` reads."""

    size: int

    def position(self, v: int) -> Any:
        raise NotImplementedError

    def index_of(self, position: Any) -> int:
        """The number of ``position``; ``KeyError`` if the layout has no such one."""
        raise NotImplementedError

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, v):
        v = int(v)
        if not 0 <= v < self.size:
            raise IndexError(v)
        return self.position(v)

    def __iter__(self):
        return (self.position(v) for v in range(self.size))

    @property
    def index(self) -> Any:
        return _ByNumber(self)


class _ByNumber:
    def __init__(self, positions: NumberedPositions):
        self.positions = positions

    def __getitem__(self, position: Any) -> int:
        return self.positions.index_of(position)
