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

The turn's rules come as arrays in one bundle ``R`` (:class:`TurnArrays`, made by
:class:`dicelab.engine.turnstart.BankingTurn`): for each count ``n`` of dice
thrown, the outcomes ``out_start[n] .. out_start[n + 1]``, each with its chance and
what it offers: ``offer[j, k]`` the most units ``k`` dice set aside can score (0:
none), ``best[j]`` the most of any; ``farkle[n]`` the chance of nothing. Keeping
``k`` of ``n`` dice leaves ``n - k`` to throw, or all ``dice`` again when none is
left (hot dice). ``wipe[n]`` is the chance of a throw that loses the mover's whole
score too (two-dice Pig's double 1): it leads to ``1 - W[b, 0]``, a lower layer
unless ``a`` is 0, so such a game's layers are swept again until no value moves
(:func:`dicelab.engine.turnstart.solve_turn_starts`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import get_thread_id, njit, prange

from dicelab.engine.kernels import NO_REFS


class TurnArrays(NamedTuple):
    """A banking turn's rules as the kernels read them (see the module's text).

    Scores are indices from the lowest a banked score may fall to: ``goal`` is the
    goal's; ``counts`` the farkles in a row a player's state counts (1: none), so a
    player's state is ``score * counts + farkles``, the rows and columns of ``W``;
    ``penalty`` the units lost on the last of them; ``min_win`` the least turn total
    that reaches the goal (0: any; else the goal is reached only by a bank); ``zero``
    the index of a score of 0 (where a wipe leaves the mover)."""

    goal: int
    dice: int
    min_bank: int
    counts: int
    penalty: int
    min_win: int
    zero: int
    out_start: np.ndarray
    prob: np.ndarray
    offer: np.ndarray
    best: np.ndarray
    farkle: np.ndarray
    wipe: np.ndarray
    keeps: np.ndarray  # keeps[j, :count[j]]: the counts of dice kept that score
    count: np.ndarray


#: What a player does with a throw that scores (:func:`choose`'s ``how``).
BANK, ROLL, WIN = 0, 1, 2
#: What :func:`play_turn` returns for a turn that reaches the goal, and for a wipe.
WON, WIPED = -1, -2


@njit(cache=True, nogil=True, inline="always", **NO_REFS)
def choose(t, n, j, a, b, W, R, V, S):
    """The best move after throw ``j`` of ``n`` dice with turn total ``t`` (the
    mover's score ``a``, the other's state ``b``): ``(value, slope, how, k)``, ``how``
    one of :data:`BANK`, :data:`ROLL` (keeping ``k`` dice) and :data:`WIN`. A total
    reaching the goal (and ``min_win``) wins at once, by the keep that scores most; a
    bank needs ``min_bank`` and starts the mover's farkles again; of equal moves the
    bank, then the fewest dice kept."""
    cap = R.goal - a
    top = R.best[j]
    bv = -1.0
    bs = 0.0
    how = -1
    kept = 0
    banked = t + top
    if banked < cap and banked >= R.min_bank:
        bv = 1.0 - W[b, (a + banked) * R.counts]
        how = BANK
    for q in range(R.count[j]):
        k = R.keeps[j, q]
        got = R.offer[j, k]
        total = t + got
        if total >= cap and total >= R.min_win:
            if got == top and bv < 1.0:
                bv, bs, how, kept = 1.0, 0.0, WIN, k
            continue
        left = n - k if n > k else R.dice
        x = V[total, left]
        if x > bv:
            bv, bs, how, kept = x, S[total, left], ROLL, k
    return bv, bs, how, kept


@njit(cache=True, nogil=True, **NO_REFS)
def turn_table(a, b, L, W, R, V, S):
    """Fill ``V[t, n]`` (the mover's chance with turn total ``t`` and ``n`` dice to
    throw, the mover's score ``a`` and the other's state ``b``, a farkle worth ``L``)
    and ``S[t, n]`` (its slope in ``L``) for every total ``t`` that does not reach the
    goal (:func:`rows`), each throw's move by :func:`choose`. A wipe is worth
    ``1 - W[b, zero]``, or ``L`` where the mover's score is 0 (the same turn start)."""
    turn_rows(a, b, L, W, R, V, S, V, False)  # V stands in for the moves not kept


@njit(cache=True, nogil=True, inline="always", **NO_REFS)
def turn_rows(a, b, L, W, R, V, S, moves, keep):
    """:func:`turn_table`, and with ``keep`` each throw's move in ``moves[t, j]``
    (the dice kept, :data:`BANKED` or :data:`GOAL`) for :func:`turn_ends`."""
    same = a == R.zero
    lw = L if same else 1.0 - W[b, R.zero * R.counts]
    for t in range(rows(a, R) - 1, -1, -1):
        for n in range(1, R.dice + 1):
            v = R.farkle[n] * L + R.wipe[n] * lw
            s = R.farkle[n] + (R.wipe[n] if same else 0.0)
            for j in range(R.out_start[n], R.out_start[n + 1]):
                bv, bs, how, k = choose(t, n, j, a, b, W, R, V, S)
                v += R.prob[j] * bv
                s += R.prob[j] * bs
                if keep:
                    moves[t, j] = k if how == ROLL else (BANKED if how == BANK else GOAL)
            V[t, n] = v
            S[t, n] = s


#: A move kept by :func:`turn_rows` that keeps no dice to throw on.
BANKED, GOAL = -1, -2


@njit(cache=True, nogil=True, **NO_REFS)
def turn_ends(a, R, moves, mass, ends):
    """Where a turn from score ``a`` ends under the moves :func:`turn_rows` kept:
    ``ends[x]`` the chance of banking ``x``; returns the chances of the goal and of
    a farkle. Forwards over the turn totals, ``mass[t, n]`` the chance of throwing
    ``n`` dice with total ``t``."""
    top = rows(a, R)
    mass[:top] = 0.0
    ends[:top] = 0.0
    mass[0, R.dice] = 1.0
    goal = 0.0
    farkle = 0.0
    for t in range(top):
        for n in range(1, R.dice + 1):
            m = mass[t, n]
            if m == 0.0:
                continue
            farkle += m * R.farkle[n]
            for j in range(R.out_start[n], R.out_start[n + 1]):
                p = m * R.prob[j]
                k = moves[t, j]
                if k == GOAL:
                    goal += p
                elif k == BANKED:
                    ends[t + R.best[j]] += p
                else:
                    mass[t + R.offer[j, k], n - k if n > k else R.dice] += p
    return goal, farkle


@njit(cache=True, nogil=True, inline="always", **NO_REFS)
def rows(a, R):
    """The turn totals a turn from score ``a`` can hold: those below the goal, and
    past it those below ``min_win`` (the goal not yet reached by a bank)."""
    return max(R.goal - a, R.min_win)


@njit(cache=True, nogil=True, **NO_REFS)
def start_value(a, b, L, W, R, V, S):
    """The mover's chance where a turn starts (total 0, every die to throw) and its
    slope in the farkle's value ``L``."""
    turn_table(a, b, L, W, R, V, S)
    return V[0, R.dice], S[0, R.dice]


#: Newton's steps stop when a step moves the value by no more than this, divided by
#: how fast the equation's two sides part (rounding keeps the last steps apart by a
#: few units in the last place, the more so where the two turns' slopes are near 1).
STEP = 1e-15
#: A pair still moving after this many steps is reported (``solve_layer``'s count).
MAX_STEPS = 60


@njit(cache=True, nogil=True, **NO_REFS)
def solve_pair(a, b, W, R, V, S, again):
    """``W[a, b]`` and ``W[b, a]`` exactly (``a <= b``), every larger sum solved;
    returns the steps taken (``MAX_STEPS + 1``: still moving). ``again``: ``W`` holds
    the sweep before's values, the first guess.

    With ``F`` the turn at ``(a, b)`` and ``G`` the one at ``(b, a)`` as functions of
    the farkle's value, ``x = W[a, b]`` is the root of ``phi(x) = F(1 - G(1 - x)) - x``,
    which falls (both slopes are chances, their product below 1) from ``phi(0) >= 0``
    to ``phi(1) <= 0``. Newton's step solves the two lines of the choices found; it
    is kept inside the bracket of the root that the steps so far have shown, and
    halves the bracket instead where it would leave it (the composition need not be
    convex, and two choices could otherwise take turns)."""
    G = R.goal
    # the first guess: the sweep before's, or the same scores with the other's one
    # unit higher (solved)
    x = W[a, b] if again else (W[a, b + 1] if b + 1 < G else 0.5)
    lo, hi = 0.0, 1.0
    for step in range(1, MAX_STEPS + 1):
        if a == b:
            y, sy = x, 1.0  # x = F(1 - x): the farkle leads to this very turn start
        else:
            y, sy = start_value(b, a, 1.0 - x, W, R, V, S)
        fx, sx = start_value(a, b, 1.0 - y, W, R, V, S)
        phi = fx - x
        if phi > 0.0:
            lo = max(lo, x)
        else:
            hi = min(hi, x)
        fall = 1.0 + sx if a == b else 1.0 - sx * sy  # how fast phi falls
        nx = x + phi / fall
        if not lo <= nx <= hi:
            nx = 0.5 * (lo + hi)
        moved = abs(nx - x)
        y = y - sy * (nx - x) if a != b else nx  # on the line of G's choices
        x = nx
        if moved <= STEP / fall:  # phi's rounding, as large in x as phi falls slowly
            W[a, b] = x
            W[b, a] = y
            return step
    W[a, b] = x
    W[b, a] = y
    return MAX_STEPS + 1


@njit(cache=True, parallel=True)
def solve_layer(total, first, last, W, R, again, scratch):
    """The pairs ``first`` to ``last - 1`` of scores summing to ``total`` (pair ``i``:
    the mover's score ``a`` the ``i``-th from the lowest, ``a <= b``), on every thread
    (``again``: a sweep after the first; ``scratch[:, w]``: thread ``w``'s turn
    tables); returns the most steps a pair took."""
    lo = max(0, total - R.goal + 1)
    count = max(last - first, 0)
    steps = np.zeros(count, np.int64)
    for i in prange(count):
        w = get_thread_id()
        a = lo + first + i
        steps[i] = solve_pair(a, total - a, W, R, scratch[0, w], scratch[1, w], again)
    return steps.max() if count else 0


@njit(cache=True, nogil=True, **NO_REFS)
def play_turn(a, b, L, W, R, V, S):
    """One turn (the mover's score ``a``, the other's state ``b``, a farkle worth
    ``L``) with the dice drawn (NumPy's generator, seeded by the caller) and the
    moves of :func:`choose`: the points banked, 0 for a farkle, :data:`WON` for the
    goal, :data:`WIPED` for a throw that loses the whole score."""
    turn_table(a, b, L, W, R, V, S)
    t, n = 0, R.dice
    while True:
        r = np.random.random() - R.farkle[n]
        if r < 0.0:
            return 0
        r -= R.wipe[n]
        if r < 0.0:
            return WIPED
        j = R.out_start[n]
        while j < R.out_start[n + 1] - 1 and r >= R.prob[j]:
            r -= R.prob[j]
            j += 1
        _, _, how, k = choose(t, n, j, a, b, W, R, V, S)
        if how == WIN:
            return WON
        if how == BANK:
            return t + R.best[j]
        t += R.offer[j, k]
        n = n - k if n > k else R.dice


@njit(cache=True, nogil=True, inline="always", **NO_REFS)
def farkle_value(a, ca, b, W, R):
    """What a farkle is worth to the mover with score ``a`` and ``ca`` farkles in a
    row against the other's state ``b``: the other moves next, with one more
    farkle counted, or after the last of a row with the penalty paid."""
    if ca < R.counts - 1:
        return 1.0 - W[b, a * R.counts + ca + 1]
    return 1.0 - W[b, max(a - R.penalty, 0) * R.counts]


@njit(cache=True, parallel=True)
def play_games(W, R, games, seed, max_turns):
    """``games`` games from the start, both players moving as :func:`choose` says:
    1 where the first player wins, 0 where the second does, NaN for a game still
    going after ``max_turns`` turns. Game ``g`` draws its dice from ``seed + g``
    whatever thread plays it."""
    out = np.empty(games)
    for g in prange(games):
        np.random.seed(seed + g)
        V = np.empty((rows(0, R), R.dice + 1))
        S = np.empty((rows(0, R), R.dice + 1))
        score = np.full(2, R.zero, np.int64)  # a game's own: small arrays, once a game
        count = np.zeros(2, np.int64)
        mover = 0
        out[g] = np.nan
        for _ in range(max_turns):
            a, other = score[mover], score[1 - mover] * R.counts + count[1 - mover]
            L = farkle_value(a, count[mover], other, W, R)
            got = play_turn(a, other, L, W, R, V, S)
            if got == WON:
                out[g] = 1.0 if mover == 0 else 0.0
                break
            if got == WIPED:
                score[mover], count[mover] = R.zero, 0
            elif got == 0:
                count[mover] += 1
                if count[mover] == R.counts:
                    score[mover], count[mover] = max(a - R.penalty, 0), 0
            else:
                score[mover], count[mover] = a + got, 0
            mover = 1 - mover
    return out


@njit(cache=True, nogil=True, inline="always", **NO_REFS)
def counted_group(total, both, R):
    """The turn starts of a layer (scores summing to ``total``) whose farkles in a row
    sum to ``both``: ``(lo, pairs, c_lo, combos)``, start ``x`` of ``pairs * combos``
    being :func:`counted_start` of it."""
    C = R.counts
    lo = max(0, total - R.goal + 1)
    pairs = max(min(total, R.goal - 1) - lo + 1, 0)
    c_lo = max(0, both - C + 1)
    return lo, pairs, c_lo, min(both, C - 1) - c_lo + 1


@njit(cache=True, nogil=True, inline="always", **NO_REFS)
def counted_start(x, total, both, group, R):
    """Start ``x`` of a :func:`counted_group`: the mover's score ``a`` and farkles
    ``ca``, the other's state, and where its turn's kept ends start in ``ends``
    (:func:`solve_counts_layer`'s ``policy``)."""
    lo, _, c_lo, combos = group
    a = lo + x // combos
    ca = c_lo + x % combos
    other = (total - a) * R.counts + both - ca
    return a, ca, other


@njit(cache=True, nogil=True, inline="always", **NO_REFS)
def ends_at(base, a, ca, other, side, R):
    """Where the kept ends of turn start ``(a, ca)`` against ``other`` begin in the
    policy's ``ends`` (``side``: the table's row length)."""
    return base[a] + (ca * side + other) * rows(a, R)


@njit(cache=True, parallel=True)
def solve_counts_layer(total, W, R, scratch, policy):
    """Every turn start whose scores sum to ``total`` in a game that counts farkles
    in a row: one sweep's values from the values ``W`` holds (this sweep's for the
    larger sums, the sweep before's for the smaller), largest count of farkles
    first. A farkle before the last of a row leads to the other player with one
    more counted (a larger count: solved), the last to the penalty (a smaller sum,
    or at the lowest score the same sum with no farkle counted: from the sweep
    before). Each turn's moves are kept in ``policy`` as where the turn ends
    (:func:`turn_ends`), for :func:`evaluate_counts_layer`. ``scratch[:][w]``:
    thread ``w``'s tables. Returns how far a value moved."""
    V, S, moves, mass = scratch
    ends, base, goal, farkle = policy
    C = R.counts
    moved = 0.0
    for both in range(2 * C - 2, -1, -1):
        group = counted_group(total, both, R)
        change = np.zeros(group[1] * group[3])
        for x in prange(change.size):
            w = get_thread_id()
            a, ca, other = counted_start(x, total, both, group, R)
            L = farkle_value(a, ca, other, W, R)
            turn_rows(a, other, L, W, R, V[w], S[w], moves[w], True)
            value = V[w][0, R.dice]
            at = ends_at(base, a, ca, other, W.shape[1], R)
            goal[a * C + ca, other], farkle[a * C + ca, other] = turn_ends(
                a, R, moves[w], mass[w], ends[at : at + rows(a, R)]
            )
            change[x] = abs(value - W[a * C + ca, other])
            W[a * C + ca, other] = value
        if change.size:
            moved = max(moved, change.max())
    return moved


@njit(cache=True, parallel=True)
def evaluate_counts_layer(total, W, R, policy):
    """:func:`solve_counts_layer` with each turn's moves held as ``policy`` keeps
    them: a turn's value is the chance of the goal, plus each bank's chance times
    what it leads to, plus the farkle's (no turn is worked out again: a sweep takes
    a fraction of a second). Returns how far a value moved."""
    ends, base, goal, farkle = policy
    C = R.counts
    moved = 0.0
    for both in range(2 * C - 2, -1, -1):
        group = counted_group(total, both, R)
        change = np.zeros(group[1] * group[3])
        for x in prange(change.size):
            a, ca, other = counted_start(x, total, both, group, R)
            me = a * C + ca
            value = goal[me, other] + farkle[me, other] * farkle_value(a, ca, other, W, R)
            at = ends_at(base, a, ca, other, W.shape[1], R)
            for banked in range(R.min_bank, R.goal - a):
                value += ends[at + banked] * (1.0 - W[other, (a + banked) * C])
            change[x] = abs(value - W[me, other])
            W[me, other] = value
        if change.size:
            moved = max(moved, change.max())
    return moved
