"""Exact fractions of a fixed choice's values, for games small enough to keep them.

The same linear solve as :func:`dicelab.engine.kernels.graph.policy_values`, but
over :class:`~fractions.Fraction`: every decision takes the value of the throw or
end its choice leads to, and the throws that come back to each other (a strong
component) are solved together by Gaussian elimination.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dicelab.engine.graph import CHANCE, END, Graph

__all__ = ["fraction_values"]


def fraction_values(graph: Graph, chances: list[Fraction], choice: np.ndarray,
                    result: np.ndarray, players: int) -> list[Fraction]:  # fmt: skip
    """Every node's value under ``choice``, exactly (``chances`` per edge, as fractions)."""
    from dicelab.engine.kernels.graph import strong_components

    g = graph
    n = g.nodes
    target, carried, sign = _resolve(g, choice)
    zero = Fraction(0)
    payoff = [_fraction(g.payoff[v], players) if g.kind[v] == END else zero
              for v in range(n)]  # fmt: skip
    res_to = np.array([target[_node(w)] for w in g.to], np.int64)
    order, comp_start = strong_components(g.start, res_to, g.kind == CHANCE)
    values = list(payoff)
    for c in range(len(comp_start) - 1):
        members = [int(v) for v in order[comp_start[c] : comp_start[c + 1]]]
        slot = {v: i for i, v in enumerate(members)}
        m = len(members)
        rows = []
        for v in members:
            row = [Fraction(0)] * (m + 1)
            row[slot[v]] += 1
            row[m] = _reward(g.reward[v])
            for e in range(g.start[v], g.start[v + 1]):
                w = int(res_to[e])
                p = chances[e]
                const, factor = _through(int(g.to[e]), carried, sign)
                met = const + (0 if w in slot else factor * values[w])
                if met:  # most are 0 (a lost game, no reward): no fractions to add
                    row[m] += p * met
                if w in slot:
                    row[slot[w]] -= p * factor
            rows.append(row)
        for v, x in zip(members, _gauss(rows, m), strict=True):
            values[v] = x
    for v in range(n):
        if g.kind[v] != CHANCE and g.kind[v] != END:
            values[v] = carried[v] + sign[v] * values[target[v]]
    return values


def _node(x) -> int:
    """The node an edge names (``-w - 1``: node ``w`` seen by the other player)."""
    x = int(x)
    return x if x >= 0 else -x - 1


def _through(x: int, carried: list[Fraction], sign: list[int]) -> tuple[Fraction, int]:
    """What an edge to ``x`` adds, as ``(constant, factor)`` of its resolved value."""
    w = _node(x)
    return (carried[w], sign[w]) if x >= 0 else (1 - carried[w], -sign[w])


_NONE = Fraction(0)


def _reward(x: float) -> Fraction:
    """A node's reward as a fraction (most are 0: no new fraction made for those)."""
    return Fraction(x).limit_denominator() if x else _NONE


def _fraction(x: float, players: int) -> Fraction:
    """An end's result as a fraction: shares of a win are halves; points are whole."""
    return Fraction(x).limit_denominator(2 if players == 2 else 1_000_000)


def _resolve(g: Graph, choice: np.ndarray) -> tuple[list[int], list[Fraction], list[int]]:
    """Each node's throw or end reached through the chosen moves, the rewards met,
    and whether the value is turned round on the way (``carried + sign * value``)."""
    n = g.nodes
    target = [v if g.kind[v] in (CHANCE, END) else -1 for v in range(n)]
    carried = [Fraction(0)] * n
    sign = [1] * n
    for v0 in range(n):
        path = []
        v = v0
        while target[v] < 0:
            if v in path:
                raise ValueError("a choice leads round in a circle without a throw of the dice")
            path.append(v)
            v = _node(g.to[choice[v]])
        extra, turned = carried[v], sign[v]
        for u in reversed(path):
            if g.to[choice[u]] < 0:  # seen by the other player
                extra, turned = 1 - extra, -turned
            extra += _reward(g.reward[u])
            target[u] = target[v]
            carried[u] = extra
            sign[u] = turned
    return target, carried, sign


def _gauss(rows: list[list[Fraction]], m: int) -> list[Fraction]:
    """Solve ``m`` equations given as augmented rows of fractions."""
    for col in range(m):
        piv = next(r for r in range(col, m) if rows[r][col] != 0)
        rows[col], rows[piv] = rows[piv], rows[col]
        d = rows[col][col]
        for r in range(col + 1, m):
            f = rows[r][col] / d
            if f:
                rows[r] = [a - f * b for a, b in zip(rows[r], rows[col], strict=True)]
    x = [Fraction(0)] * m
    for r in range(m - 1, -1, -1):
        s = rows[r][m] - sum(rows[r][k] * x[k] for k in range(r + 1, m))
        x[r] = s / rows[r][r]
    return x
