"""Every one-sided bear-off position at once: the positions of up to ``n`` checkers on
six points, every throw's plays, as the arrays of a layout.

The walk of :func:`~dicelab.games.chance.explore.explore` finds a few checkers'
positions in a second, but backgammon programs tabulate every position of up to
15 checkers (54,264 of them): here they are numbered by their counts per point
(base 16, sorted), one die's moves are found for all of them at once, and a
throw's plays are one die's moves applied in both orders (four times for a
double), with duplicates removed. A test checks the plays against the move
generator of :mod:`dicelab.games.chance.bearoff` on every position of a few
checkers.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np
from numba import njit

from dicelab.games.chance.explore import Layout
from dicelab.games.chance.numbered import NumberedPositions
from dicelab.games.chance.throws import ROLLS

#: The 21 throws as (first die, second die), and their chances as floats.
THROWS = np.array([t for t, _ in ROLLS], np.int64)
CHANCES = np.array([float(p) for _, p in ROLLS])


def all_positions(checkers: int) -> np.ndarray:
    """Every side of at most ``checkers`` checkers on points 1 to 6, as base-16 keys
    (point 1 lowest), sorted: the empty side first."""
    keys = set()
    for n in range(checkers + 1):
        for points in combinations_with_replacement(range(6), n):
            keys.add(sum(16**p for p in points))
    return np.array(sorted(keys), np.int64)


@njit(cache=True)
def _counts(key):
    out = np.empty(6, np.int64)
    for p in range(6):
        out[p] = (key >> (4 * p)) & 15
    return out


@njit(cache=True)
def one_die_moves(keys):
    """``T[i, d - 1]``: the positions one die ``d`` can leave from position ``i``
    (-1 padded; position 0, the empty side, moves nowhere)."""
    n = keys.size
    T = np.full((n, 6, 6), -1, np.int64)
    for i in range(1, n):
        c = _counts(keys[i])
        top = 0
        for p in range(6):
            if c[p] > 0:
                top = p + 1
        for d in range(1, 7):
            slot = 0
            for p in range(1, 7):
                if c[p - 1] == 0:
                    continue
                key = keys[i] - (1 << (4 * (p - 1)))
                if p > d:
                    key += 1 << (4 * (p - d - 1))
                elif p != d and p != top:
                    continue
                T[i, d - 1, slot] = np.searchsorted(keys, key)
                slot += 1
    return T


@njit(cache=True)
def _apply(T, froms, count, d, out):
    """One die from each of ``froms[:count]``; the empty side stays empty."""
    m = 0
    for k in range(count):
        i = froms[k]
        if i == 0:
            out[m] = 0
            m += 1
            continue
        for s in range(6):
            j = T[i, d - 1, s]
            if j < 0:
                break
            out[m] = j
            m += 1
    return m


@njit(cache=True)
def throw_plays(T, throws):
    """For each position and throw, the distinct positions its plays leave: CSR
    ``(start, to)`` over rows ``i * 21 + t`` (rows of the empty side are empty)."""
    n = T.shape[0]
    rows = n * throws.shape[0]
    start = np.zeros(rows + 1, np.int64)
    buf_a = np.empty(6**4 * 2, np.int64)
    buf_b = np.empty(6**4 * 2, np.int64)
    found = np.empty(6**4 * 2, np.int64)
    to = np.empty(rows * 8, np.int64)
    used = 0
    for i in range(n):
        for t in range(throws.shape[0]):
            row = i * throws.shape[0] + t
            start[row] = used
            if i == 0:
                continue
            a, b = throws[t, 0], throws[t, 1]
            total = 0
            for order in range(1 if a == b else 2):
                dice = (a, a, a, a) if a == b else ((a, b, 0, 0) if order == 0 else (b, a, 0, 0))
                buf_a[0] = i
                m = 1
                for step in range(4):
                    if dice[step] == 0:
                        break
                    m = _apply(T, buf_a, m, dice[step], buf_b)
                    m = _unique(buf_b, m)
                    buf_a[:m] = buf_b[:m]
                found[total : total + m] = buf_a[:m]
                total += m
            total = _unique(found, total)
            if used + total > to.size:
                grown = np.empty(to.size * 2, np.int64)
                grown[:used] = to[:used]
                to = grown
            to[used : used + total] = found[:total]
            used += total
    start[rows] = used
    return start, to[:used]


@njit(cache=True)
def _unique(values, m):
    """Sort ``values[:m]`` in place and keep each value once; the new length."""
    values[:m] = np.sort(values[:m])
    k = 0
    for j in range(m):
        if k == 0 or values[j] != values[k - 1]:
            values[k] = values[j]
            k += 1
    return k


class OneSidedPositions(NumberedPositions):
    """The layout's positions by number, decoded on demand (no list of a million).

    Node ``r`` (a throw to come) is the side ranked ``r``, except that the start's
    rank and 0 trade places, so that node 0 is the start; node ``n + 21 r + t`` is
    the side ranked ``r`` after throw ``t``; the empty side is the end.
    """

    def __init__(self, keys: np.ndarray, start_rank: int):
        self.keys = keys
        self.n = keys.size
        self.start_rank = start_rank
        self.size = self.n * (1 + len(THROWS))

    def rank_of_node(self, v: int) -> int:
        return self.start_rank if v == 0 else 0 if v == self.start_rank else v

    def position(self, v: int):
        empty = (0,) * 6
        if v < self.n:
            rank = self.rank_of_node(v)
            if rank == 0:
                return ("won", 0)
            return ("roll", 0, _side(self.keys[rank]), empty)
        rank, t = divmod(v - self.n, len(THROWS))
        a, b = (int(x) for x in THROWS[t])
        return ("move", 0, _side(self.keys[rank]), empty, (a, b))

    def index_of(self, position) -> int:
        """The node of a position of this layout; ``KeyError`` if none."""
        try:
            if position == ("won", 0):
                return self.rank_of_node(0)
            kind, seat, side, theirs, *rest = position
            key = sum(int(c) << (4 * p) for p, c in enumerate(side))
            rank = int(np.searchsorted(self.keys, key))
            ok = seat == 0 and len(side) == 6 and not any(theirs) and rank < self.n
            if ok and self.keys[rank] == key and rank > 0:
                if kind == "roll" and not rest:
                    return self.rank_of_node(rank)
                if kind == "move" and len(rest) == 1:
                    throws = [tuple(int(x) for x in t) for t in THROWS]
                    return self.n + rank * len(THROWS) + throws.index(tuple(rest[0]))
        except (TypeError, ValueError):
            pass
        raise KeyError(position)


def _side(key) -> tuple[int, ...]:
    return tuple((int(key) >> (4 * p)) & 15 for p in range(6))


def one_sided_layout(game, exact: bool = False):
    """The layout of one side's bear-off: every side of at most as many checkers as
    the game's, each throw's plays, the start first (see the module's text)."""
    checkers = sum(game.mine)
    keys = all_positions(checkers)
    start_key = sum(c << (4 * p) for p, c in enumerate(game.mine))
    pos = OneSidedPositions(keys, int(np.searchsorted(keys, start_key)))
    n, k = keys.size, len(THROWS)
    plays_start, plays_to = throw_plays(one_die_moves(keys), THROWS)
    node_of_rank = np.arange(n)
    node_of_rank[[0, pos.start_rank]] = node_of_rank[[pos.start_rank, 0]]
    empty = node_of_rank[0]  # the end
    mover = np.concatenate([np.full(n, -1), np.zeros(n * k, np.int64)])
    mover[empty] = -2
    mover[n : n + k] = -2  # the empty side's throws: never reached
    count = np.concatenate([np.full(n, k), np.diff(plays_start)])
    count[empty] = 0
    # throws: node of rank r -> its 21 throws; plays: each throw -> the sides it leaves
    rank_of_node = np.argsort(node_of_rank)
    throw_to = n + (rank_of_node[:, None] * k + np.arange(k)).ravel()
    throw_rows = np.delete(throw_to.reshape(n, k), empty, axis=0).ravel()
    start = np.concatenate([[0], np.cumsum(count)])
    to = np.concatenate([throw_rows, node_of_rank[plays_to]])
    prob = np.concatenate([np.tile(CHANCES, n - 1), np.zeros(plays_to.size)])
    result = np.zeros(mover.size)
    turn = np.zeros(mover.size, np.bool_)
    turn[:n] = True
    turn[empty] = False
    fractions = None
    if exact:
        from fractions import Fraction

        chances = [p for _, p in ROLLS]
        fractions = [*(chances * (n - 1)), *([Fraction(0)] * plays_to.size)]
    return Layout(game, pos, pos.index, mover, start, to, prob, result, turn, fractions)


@njit(cache=True)
def _distribution(order, chosen, chances, most):
    """``dist[r, m]``: the chance that the side ranked ``r`` needs exactly ``m`` throws
    under the chosen plays (``chosen[r, t]``: the rank a throw leads to); sides in
    ``order`` of their pips, fewest first."""
    n, k = chosen.shape
    dist = np.zeros((n, most + 1))
    dist[0, 0] = 1.0
    for r in order:
        if r == 0:
            continue
        for t in range(k):
            nxt = chosen[r, t]
            for m in range(most):
                dist[r, m + 1] += chances[t] * dist[nxt, m]
    return dist


def throws_distribution(solution, position=None, most: int = 40) -> np.ndarray:
    """The chance of needing exactly 0, 1, 2, ... throws to bear off (best play,
    fewest expected throws), from ``position`` (a side's counts, or the start)."""
    lay = solution.layout
    pos = lay.positions
    if not isinstance(pos, OneSidedPositions):
        raise ValueError("the throws' distribution reads the one-sided bear-off layout")
    n, k = pos.n, len(THROWS)
    node_of_rank = np.arange(n)
    node_of_rank[[0, pos.start_rank]] = node_of_rank[[pos.start_rank, 0]]
    rank_of_node = np.argsort(node_of_rank)
    decisions = n + np.arange(n * k)
    picked = solution.solved.choice[decisions]
    chosen = np.zeros(n * k, np.int64)
    ok = picked >= 0
    chosen[ok] = rank_of_node[lay.to[picked[ok]]]
    pips = np.array([sum((p + 1) * c for p, c in enumerate(_side(key))) for key in pos.keys])
    dist = _distribution(np.argsort(pips, kind="stable"), chosen.reshape(n, k), CHANCES, most)
    side = solution.game.mine if position is None else tuple(position)
    key = sum(int(c) << (4 * p) for p, c in enumerate(side))
    return dist[int(np.searchsorted(pos.keys, key))]
