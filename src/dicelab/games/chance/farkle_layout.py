"""Every Farkle position at once, in arrays: the walk's positions, numbered by arithmetic.

A turn is the same small graph whatever the scores: for each turn total ``t``
below what the mover still needs, the throws to come (one per count of dice) and
the positions after a throw that scores (one per thing a throw can offer, see
:func:`~dicelab.games.chance.farkle.offers`). The layout numbers that graph once
per turn context (seat, the mover's score, the other's) and writes its links for
all contexts at once with NumPy; only where a turn ends (a farkle, a bank, the
goal) does it link to another context. The walk of
:func:`~dicelab.games.chance.explore.explore` reaches a subset of these positions
(some totals cannot be made) with the same links, one throw per face pattern
instead of one per distinct offer; a test checks every value against it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dicelab.games.chance.numbered import NumberedPositions

__all__ = ["FarklePositions", "farkle_layout"]


class FarklePositions(NumberedPositions):
    """Farkle's positions by number: a block of ``width`` numbers per turn total
    (the throws of ``dice`` dice down to 1, then what each can offer: the start is
    number 0), turn totals in
    order per context, contexts by seat, mover's score, other's score; the ends
    last."""

    def __init__(self, game: Any):
        self.game = g = game
        self.goal, self.dice = g.goal, g.dice
        self.offers = {n: sorted({o for _, _, o in g._throws[n] if any(o)}) for n in g._throws}
        self.slot = {n: {o: j for j, o in enumerate(self.offers[n])} for n in self.offers}
        sizes = [len(self.offers[n]) for n in range(1, self.dice + 1)]
        self.koff = dict(zip(range(1, self.dice + 1), np.cumsum([0, *sizes[:-1]]), strict=True))
        self.width = self.dice + sum(sizes)
        G, W = self.goal, self.width
        self.two = g.players == 2
        self.turn_only = g.players == 1 and g.play == "turn"
        scores = 1 if self.turn_only else G
        others = G if self.two else 1
        caps = G - np.arange(scores)  # turn totals below the goal, by mover's score
        self.row = np.concatenate([[0], np.cumsum(caps * others * W)])
        self.seat_size = int(self.row[-1])
        self.ends = self.seat_size * (2 if self.two else 1)
        most = max(max(o) for o in self.offers[self.dice]) if self.offers[self.dice] else 0
        self.size = self.ends + (2 if self.two else (G + most + 1 if self.turn_only else 1))

    def base(self, seat, mine, other):
        """The number of turn total 0 of a context (works on arrays)."""
        return seat * self.seat_size + self.row[mine] + other * (self.goal - mine) * self.width

    def position(self, v: int) -> Any:
        if v >= self.ends:
            x = v - self.ends
            return ("won", x) if self.two else (("end", x) if self.turn_only else ("done",))
        seat, r = divmod(v, self.seat_size)
        mine = int(np.searchsorted(self.row, r, side="right") - 1)
        r -= int(self.row[mine])
        other, r = divmod(r, (self.goal - mine) * self.width)
        t, w = divmod(r, self.width)
        a, b = (mine, other) if seat == 0 else (other, mine)
        if w < self.dice:
            return ("roll", seat, a, b, t, self.dice - w)
        w -= self.dice
        n = max(k for k in self.koff if self.koff[k] <= w)
        return ("keep", seat, a, b, t, self.offers[n][w - int(self.koff[n])])

    def index_of(self, position) -> int:
        """The number of ``position``; ``KeyError`` where the layout has none."""
        try:
            return self._index(position)
        except (TypeError, ValueError, IndexError):
            raise KeyError(position) from None

    def _index(self, position) -> int:
        kind = position[0]
        if kind in ("won", "end", "done"):
            x = position[1] if kind != "done" else 0
            ok = {"won": self.two and x in (0, 1), "done": not self.two and not self.turn_only,
                  "end": self.turn_only and 0 <= x < self.size - self.ends}[kind]  # fmt: skip
            if ok and len(position) == (1 if kind == "done" else 2):
                return self.ends + x
            raise KeyError(position)
        _, seat, a, b, t, last = position
        mine, other = (a, b) if seat == 0 else (b, a)
        ok = seat in ((0, 1) if self.two else (0,)) and 0 <= other < (self.goal if self.two
                                                                      else 1)  # fmt: skip
        ok = ok and 0 <= mine < (1 if self.turn_only else self.goal) and 0 <= t < self.goal - mine
        if kind == "roll" and ok and 1 <= last <= self.dice:
            return int(self.base(seat, mine, other)) + t * self.width + self.dice - last
        if kind == "keep" and ok and len(last) in self.slot and last in self.slot[len(last)]:
            n = len(last)
            offset = self.dice + int(self.koff[n]) + self.slot[n][last]
            return int(self.base(seat, mine, other)) + t * self.width + offset
        raise KeyError(position)


def _contexts(pos: FarklePositions):
    """Every (seat, mine, other, turn total) of the layout, as arrays, with its
    number (turn total's block start)."""
    G = pos.goal
    seats = (0, 1) if pos.two else (0,)
    scores = range(1 if pos.turn_only else G)
    others = range(G if pos.two else 1)
    rows = [(s, m, o, G - m) for s in seats for m in scores for o in others]
    seat, mine, other, cap = (np.array(c, np.int64) for c in zip(*rows, strict=True))
    ctx = np.repeat(np.arange(cap.size), cap)
    first = np.concatenate([[0], np.cumsum(cap)[:-1]])
    t = np.arange(ctx.size) - first[ctx]
    s, m, o = seat[ctx], mine[ctx], other[ctx]
    return s, m, o, t, pos.base(s, m, o) + t * pos.width


def _turn_ends(pos: FarklePositions, s, m, o, gained):
    """The position after a turn ends with ``gained`` banked (0: a farkle)."""
    if pos.turn_only:
        return pos.ends + gained
    if not pos.two:
        return pos.base(0, m + gained, 0)
    return pos.base(1 - s, o, m + gained)


def _links(pos: FarklePositions, ctx) -> list[tuple[np.ndarray, np.ndarray, Fraction]]:
    """Every link as (from, to, chance) chunks, in each position's order of moves."""
    game = pos.game
    s, m, o, t, node = ctx
    G, D, W = pos.goal, pos.dice, pos.width
    chunks = []
    for n in range(1, D + 1):
        chance: dict[tuple, Fraction] = {}
        for p, _label, offer in game._throws[n]:
            chance[offer] = chance.get(offer, Fraction(0)) + p
        roll = node + D - n
        for j, offer in enumerate(pos.offers[n]):
            chunks.append((roll, node + D + int(pos.koff[n]) + j, chance[offer]))
        chunks.append((roll, _turn_ends(pos, s, m, o, 0), chance.get((0,) * n, Fraction(0))))
    zero = Fraction(0)
    for n in range(1, D + 1):
        for j, offer in enumerate(pos.offers[n]):
            here = node + D + int(pos.koff[n]) + j
            best = max(offer)
            for k, got in enumerate(offer, 1):
                if not got:
                    continue
                total = t + got
                reach = m + total >= G
                left = n - k or D
                keep = ~reach
                chunks.append((here[keep], node[keep] + got * W + D - left, zero))
                if got == best:
                    end = (
                        pos.ends + total[reach]
                        if pos.turn_only
                        else pos.ends + s[reach]
                        if pos.two
                        else pos.ends + 0 * s[reach]
                    )
                    chunks.append((here[reach], end, zero))  # fmt: skip
            bank = (m + t + best < G) & (t + best >= game.min_bank)
            chunks.append((here[bank], _turn_ends(pos, s[bank], m[bank], o[bank],
                                                  t[bank] + best), zero))  # fmt: skip
    return chunks


def farkle_layout(game: Any, exact: bool = False):
    """Every Farkle position and link at once (:class:`FarklePositions`), as the
    walk of the rules would give them for the positions it reaches."""
    from dicelab.games.chance.explore import Layout

    pos = FarklePositions(game)
    ctx = _contexts(pos)
    chunks = _links(pos, ctx)
    src = np.concatenate([c[0] for c in chunks])
    dst = np.concatenate([np.broadcast_to(c[1], c[0].shape) for c in chunks])
    values = [c[2] for c in chunks]
    which = np.repeat(np.arange(len(chunks)), [c[0].size for c in chunks])
    order = np.argsort(src, kind="stable")
    n = pos.size
    start = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))])
    to = dst[order]
    which = which[order]
    prob = np.array([float(v) for v in values])[which]
    _, _, _, t, node = ctx
    mover = np.full(n, -2, np.int64)
    for k in range(pos.width):
        mover[node + k] = -1 if k < pos.dice else ctx[0]
    result = np.zeros(n)
    if pos.two:
        result[pos.ends] = 1.0
    elif pos.turn_only:
        result[pos.ends :] = np.arange(n - pos.ends) * 50.0
    turn = np.zeros(n, np.bool_)
    turn[node[t == 0]] = True
    fractions = [values[i] for i in which] if exact else None
    return Layout(game, pos, pos.index, mover, start, to, prob, result, turn, fractions)
