"""The two-sided bear-off laid out from the side on roll: each pair of sides once.

Both sides play by the same rules, so the side on roll's chance to win depends
only on its checkers and the other side's: backgammon programs tabulate it for
every pair (853,776 pairs for up to 6 checkers a side). Here a pair ``(on roll,
other)`` is one node, whichever seat is on roll, and a play leads to the pair
``(other, played)`` seen by the other player (an edge ``-w - 1``; see
:mod:`dicelab.engine.kernels.graph`), worth one minus that pair's value. That
halves the walk's positions, and a throw's plays are one side's plays (the
one-sided layout's lists), shared by every opponent, so the table for 6 checkers a
side is laid out in seconds.

Nodes: ``i * K + j`` is side ``i`` on roll against side ``j`` (``K`` sides of at
most as many checkers, ranked as in :mod:`dicelab.games.chance.bearoff_layout`),
with the start and node 0 trading places; ``K * K + 21 * (i * K + j) + t`` is the
same pair after throw ``t``. A pair whose other side has no checker left is the end
(the side on roll has lost); every play that bears the last checker off leads to
one such end, seen from the other chair.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicelab.games.chance.bearoff_layout import (
    CHANCES,
    THROWS,
    _side,
    all_positions,
    one_die_moves,
    throw_plays,
)
from dicelab.games.chance.explore import Layout
from dicelab.games.chance.numbered import NumberedPositions

__all__ = ["RacePositions", "race_layout", "race_size"]

_K_THROWS = 21


def race_size(checkers: int) -> int:
    """How many nodes the layout of sides of up to ``checkers`` checkers has."""
    from math import comb

    return comb(checkers + 6, 6) ** 2 * (1 + _K_THROWS)


@njit(cache=True, inline="always")
def _swap(r, start_r):
    return start_r if r == 0 else 0 if r == start_r else r


@njit(cache=True)
def race_edges(k, plays_start, plays_to, start_r, chances):
    """The compressed rows of every node (see the module's text): ``(mover, start,
    to, prob, result)``, with ``mover`` -1 at throws, 0 at plays, -2 at ends."""
    pairs = k * k
    n = pairs * (1 + _K_THROWS)
    lost = _swap(1 * k + 0, start_r)  # side 1 on roll, the other borne off: the end
    mover = np.full(n, -2, np.int64)
    result = np.zeros(n)
    count = np.zeros(n + 1, np.int64)
    for r in range(pairs):
        i, j = r // k, r % k
        v = _swap(r, start_r)
        if i == 0:
            result[v] = 1.0  # never met: the side on roll has borne off already
        if i == 0 or j == 0:
            continue
        mover[v] = -1
        count[v + 1] = _K_THROWS
        for t in range(_K_THROWS):
            u = pairs + r * _K_THROWS + t
            mover[u] = 0
            count[u + 1] = plays_start[i * _K_THROWS + t + 1] - plays_start[i * _K_THROWS + t]
    start = np.cumsum(count)
    to = np.empty(start[n], np.int64)
    prob = np.zeros(start[n])
    for r in range(pairs):
        i, j = r // k, r % k
        if i == 0 or j == 0:
            continue
        e = start[_swap(r, start_r)]
        for t in range(_K_THROWS):
            to[e + t] = pairs + r * _K_THROWS + t
            prob[e + t] = chances[t]
        for t in range(_K_THROWS):
            u = pairs + r * _K_THROWS + t
            e = start[u]
            for p in range(plays_start[i * _K_THROWS + t], plays_start[i * _K_THROWS + t + 1]):
                after = plays_to[p]
                w = lost if after == 0 else _swap(j * k + after, start_r)
                to[e] = -w - 1  # the other side on roll, seen from here
                e += 1
    return mover, start, to, prob, result


class RacePositions(NumberedPositions):
    """The pairs' nodes as the game's positions (seat 0 on roll at every node); a
    position with seat 1 on roll is the node of its mirror, written ``-w - 1``."""

    def __init__(self, keys: np.ndarray, start_r: int):
        self.keys = keys
        self.k = keys.size
        self.start_r = start_r
        self.pairs = self.k * self.k
        self.size = self.pairs * (1 + _K_THROWS)
        self.lost = self.swap(self.k)
        self._throws = [tuple(int(x) for x in t) for t in THROWS]

    def swap(self, r: int) -> int:
        return self.start_r if r == 0 else 0 if r == self.start_r else r

    def position(self, v: int):
        if v < self.pairs:
            i, j = divmod(self.swap(v), self.k)
            if j == 0:
                return ("won", 1)
            if i == 0:
                return ("won", 0)
            return ("roll", 0, _side(self.keys[i]), _side(self.keys[j]))
        r, t = divmod(v - self.pairs, _K_THROWS)
        i, j = divmod(r, self.k)
        if i == 0 or j == 0:
            return ("won", 1) if j == 0 else ("won", 0)  # never met
        return ("move", 0, _side(self.keys[i]), _side(self.keys[j]), self._throws[t])

    def _rank(self, side) -> int:
        key = sum(int(c) << (4 * p) for p, c in enumerate(side))
        rank = int(np.searchsorted(self.keys, key))
        if len(side) != 6 or rank >= self.k or self.keys[rank] != key or rank == 0:
            raise KeyError(side)
        return rank

    def index_of(self, position) -> int:
        """The node of ``position`` (``-w - 1`` for seat 1 on roll); ``KeyError`` if none."""
        try:
            if position[0] == "won" and len(position) == 2 and position[1] in (0, 1):
                return self.lost if position[1] == 1 else -self.lost - 1
            kind, seat, a, b, *rest = position
            if seat not in (0, 1):
                raise KeyError(position)
            mover, other = (a, b) if seat == 0 else (b, a)
            r = self._rank(mover) * self.k + self._rank(other)
            if kind == "roll" and not rest:
                v = self.swap(r)
            elif kind == "move" and len(rest) == 1:
                v = self.pairs + r * _K_THROWS + self._throws.index(tuple(rest[0]))
            else:
                raise KeyError(position)
            return v if seat == 0 else -v - 1
        except (TypeError, ValueError, IndexError):
            raise KeyError(position) from None


def race_layout(game, exact: bool = False) -> Layout:
    """The layout of a two-sided bear-off (see the module's text)."""
    checkers = max(sum(game.mine), sum(game.theirs))
    keys = all_positions(checkers)
    k = keys.size

    def rank(side):
        return int(np.searchsorted(keys, sum(c << (4 * p) for p, c in enumerate(side))))

    start_r = rank(game.mine) * k + rank(game.theirs)
    plays_start, plays_to = throw_plays(one_die_moves(keys), THROWS)
    mover, start, to, prob, result = race_edges(k, plays_start, plays_to, start_r, CHANCES)
    pos = RacePositions(keys, start_r)
    turn = mover == -1
    fractions = None
    if exact:
        from fractions import Fraction

        from dicelab.games.chance.throws import ROLLS

        chance = {float(p): p for _, p in ROLLS}
        fractions = [chance.get(float(x), Fraction(0)) for x in prob]
    return Layout(game, pos, pos.index, mover, start, to, prob, result, turn, fractions,
                  mirrored=True)  # fmt: skip
