"""A banking turn solved from the values where turns start: Farkle's and Pig's shape.

In a banking game (Pig, Farkle) a turn is a run of throws: each throw either
scores (the player sets some of it aside, adding to a turn total, then banks the
total or throws again) or loses the turn total (a *farkle*, Pig's 1). The turn
ends at a bank, a farkle, or a total that reaches the goal. Two players, scores
``a`` (the mover's) and ``b``; ``W[a, b]`` is the mover's chance to win where a
turn starts. Everything inside a turn follows from the ``W`` it can reach:

- a bank of ``x`` leads to ``1 - W[b, a + x]`` (the other moves next),
- a farkle to ``L = 1 - W[b, a]``, the one value of the turn's own layer,
- a total reaching the goal to 1.

:func:`turn_table` values a turn backwards over its totals (a throw adds at
least one unit) for a given ``L``, with each value's slope in ``L`` (the chance,
under the choices made, that the turn ends in a farkle). The scores of a layer
(``a + b`` fixed) lead only to larger sums, except the farkle: ``W[a, b]`` and
``W[b, a]`` depend on each other and on nothing else of their layer.
:func:`solve_pair` finds both exactly by Newton's method: each value is convex and
piecewise linear in ``L``, so each step solves the two linear equations of the
choices it found, and the steps end when the choices no longer change (a handful).
:func:`solve_layer` does every pair of a layer on every thread.

The turn's rules come as arrays (:class:`dicelab.engine.turnstart.BankingTurn`):
for each count ``n`` of dice thrown, the outcomes ``out_start[n] .. out_start[n +
1]``, each with its chance and what it offers: ``offer[j, k]`` the most units ``k``
dice set aside can score (0: none), ``best[j]`` the most of any; ``farkle[n]`` the
chance of nothing. Keeping ``k`` of ``n`` dice leaves ``n - k`` to throw, or all
``dice`` again when none is left (hot dice).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True)
def turn_table(a, b, L, W, goal, dice, min_bank, out_start, prob, offer, best, farkle, V, S):
    """Fill ``V[t, n]`` (the mover's chance with turn total ``t`` and ``n`` dice to
    throw, scores ``a`` and ``b``, a farkle worth ``L``) and ``S[t, n]`` (its slope in
    ``L``) for every total ``t`` below ``goal - a``. A total reaching the goal wins
    at once, by the keep that scores most; a bank needs ``min_bank``."""
    cap = goal - a
    for t in range(cap - 1, -1, -1):
        for n in range(1, dice + 1):
            v = farkle[n] * L
            s = farkle[n]
            for j in range(out_start[n], out_start[n + 1]):
                top = best[j]
                bv = -1.0
                bs = 0.0
                banked = t + top
                if banked < cap and banked >= min_bank:
                    bv = 1.0 - W[b, a + banked]
                for k in range(1, n + 1):
                    got = offer[j, k]
                    if got == 0:
                        continue
                    total = t + got
                    if total >= cap:
                        if got == top and bv < 1.0:
                            bv = 1.0
                            bs = 0.0
                        continue
                    left = n - k if n > k else dice
                    x = V[total, left]
                    if x > bv:
                        bv = x
                        bs = S[total, left]
                v += prob[j] * bv
                s += prob[j] * bs
            V[t, n] = v
            S[t, n] = s


@njit(cache=True, nogil=True)
def start_value(a, b, L, W, goal, dice, min_bank, out_start, prob, offer, best, farkle, V, S):
    """The mover's chance where a turn starts (total 0, every die to throw) and its
    slope in the farkle's value ``L``."""
    turn_table(a, b, L, W, goal, dice, min_bank, out_start, prob, offer, best, farkle, V, S)
    return V[0, dice], S[0, dice]


#: Newton's steps stop when neither value moves by more than this.
STEP = 1e-15
#: A pair still moving after this many steps is reported (``solve_layer``'s count).
MAX_STEPS = 60


@njit(cache=True, nogil=True)
def solve_pair(a, b, W, goal, dice, min_bank, out_start, prob, offer, best, farkle, V, S):
    """``W[a, b]`` and ``W[b, a]`` exactly (``a <= b``), every larger sum solved;
    returns the steps taken (``MAX_STEPS + 1``: still moving)."""
    # the first guesses: the same scores with the other's one unit higher (solved)
    x = W[a, b + 1] if b + 1 < goal else 0.5  # W[a, b]
    y = W[b, a + 1] if a + 1 < goal else 0.5  # W[b, a]
    for step in range(1, MAX_STEPS + 1):
        fx, sx = start_value(a, b, 1.0 - y, W, goal, dice, min_bank, out_start, prob, offer,
                             best, farkle, V, S)  # fmt: skip
        if a == b:  # x = F(1 - x): the line through (x, fx) with slope -sx
            nx = (fx + sx * x) / (1.0 + sx)
            ny = nx
        else:
            gy, sy = start_value(b, a, 1.0 - x, W, goal, dice, min_bank, out_start, prob,
                                 offer, best, farkle, V, S)  # fmt: skip
            # X = fx - sx (Y - y) and Y = gy - sy (X - x), the choices held
            nx = (fx - sx * (gy - y) - sx * sy * x) / (1.0 - sx * sy)
            ny = gy - sy * (nx - x)
        moved = max(abs(nx - x), abs(ny - y))
        x, y = nx, ny
        if moved <= STEP:
            W[a, b] = x
            W[b, a] = y
            return step
    W[a, b] = x
    W[b, a] = y
    return MAX_STEPS + 1


@njit(cache=True, parallel=True)
def solve_layer(total, W, goal, dice, min_bank, out_start, prob, offer, best, farkle):
    """Every pair of scores summing to ``total``, on every thread; returns the most
    steps a pair took."""
    lo = max(0, total - goal + 1)
    hi = total // 2
    count = max(hi - lo + 1, 0)
    steps = np.zeros(count, np.int64)
    for i in prange(count):
        a = lo + i
        V = np.empty((goal, dice + 1))
        S = np.empty((goal, dice + 1))
        steps[i] = solve_pair(a, total - a, W, goal, dice, min_bank, out_start, prob, offer,
                              best, farkle, V, S)  # fmt: skip
    return steps.max() if count else 0
