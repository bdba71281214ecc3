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

#: What a player does with a throw that scores (:func:`choose`'s ``how``).
BANK, ROLL, WIN = 0, 1, 2


@njit(cache=True, nogil=True, inline="always")
def choose(t, n, j, a, b, W, goal, dice, min_bank, offer, best, V, S):
    """The best move after throw ``j`` of ``n`` dice with turn total ``t`` (scores
    ``a`` and ``b``): ``(value, slope, how, k)``, ``how`` one of :data:`BANK`,
    :data:`ROLL` (keeping ``k`` dice) and :data:`WIN`. A total reaching the goal
    wins at once, by the keep that scores most; a bank needs ``min_bank``; of equal
    moves the bank, then the fewest dice kept."""
    cap = goal - a
    top = best[j]
    bv = -1.0
    bs = 0.0
    how = -1
    kept = 0
    banked = t + top
    if banked < cap and banked >= min_bank:
        bv = 1.0 - W[b, a + banked]
        how = BANK
    for k in range(1, n + 1):
        got = offer[j, k]
        if got == 0:
            continue
        total = t + got
        if total >= cap:
            if got == top and bv < 1.0:
                bv, bs, how, kept = 1.0, 0.0, WIN, k
            continue
        left = n - k if n > k else dice
        x = V[total, left]
        if x > bv:
            bv, bs, how, kept = x, S[total, left], ROLL, k
    return bv, bs, how, kept


@njit(cache=True, nogil=True)
def turn_table(a, b, L, W, goal, dice, min_bank, out_start, prob, offer, best, farkle, V, S):
    """Fill ``V[t, n]`` (the mover's chance with turn total ``t`` and ``n`` dice to
    throw, scores ``a`` and ``b``, a farkle worth ``L``) and ``S[t, n]`` (its slope in
    ``L``) for every total ``t`` below ``goal - a``, each throw's move by :func:`choose`."""
    for t in range(goal - a - 1, -1, -1):
        for n in range(1, dice + 1):
            v = farkle[n] * L
            s = farkle[n]
            for j in range(out_start[n], out_start[n + 1]):
                bv, bs, _, _ = choose(t, n, j, a, b, W, goal, dice, min_bank, offer, best, V, S)
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


@njit(cache=True, nogil=True)
def play_turn(a, b, W, goal, dice, min_bank, out_start, prob, offer, best, farkle, V, S):
    """One turn with the dice drawn (NumPy's generator, seeded by the caller) and the
    moves of :func:`choose`: the points banked, 0 for a farkle, -1 for the goal."""
    turn_table(a, b, 1.0 - W[b, a], W, goal, dice, min_bank, out_start, prob, offer, best,
               farkle, V, S)  # fmt: skip
    t, n = 0, dice
    while True:
        r = np.random.random() - farkle[n]
        if r < 0.0:
            return 0
        j = out_start[n]
        while j < out_start[n + 1] - 1 and r >= prob[j]:
            r -= prob[j]
            j += 1
        _, _, how, k = choose(t, n, j, a, b, W, goal, dice, min_bank, offer, best, V, S)
        if how == WIN:
            return -1
        if how == BANK:
            return t + best[j]
        t += offer[j, k]
        n = n - k if n > k else dice


@njit(cache=True, parallel=True)
def play_games(W, goal, dice, min_bank, out_start, prob, offer, best, farkle, games, seed,
               max_turns):  # fmt: skip
    """``games`` games from the start, both players moving as :func:`choose` says:
    1 where the first player wins, 0 where the second does, NaN for a game still
    going after ``max_turns`` turns. Game ``g`` draws its dice from ``seed + g``
    whatever thread plays it."""
    out = np.empty(games)
    for g in prange(games):
        np.random.seed(seed + g)
        V = np.empty((goal, dice + 1))
        S = np.empty((goal, dice + 1))
        score = np.zeros(2, np.int64)
        mover = 0
        out[g] = np.nan
        for _ in range(max_turns):
            got = play_turn(score[mover], score[1 - mover], W, goal, dice, min_bank, out_start,
                            prob, offer, best, farkle, V, S)  # fmt: skip
            if got < 0:
                out[g] = 1.0 if mover == 0 else 0.0
                break
            score[mover] += got
            mover = 1 - mover
    return out
