"""A banking game of three to six players solved where turns start: one chance per seat.

With ``N`` players a turn start is the scores in playing order from the mover's,
``(a, o1, ..., o(N-1))``, a flat index in base ``G`` (the goal in units) with the
mover's score the highest digit; ``T[s, j]`` is seat ``j``'s chance to win there
(``j = 0`` the mover, ``j = 1`` the next to play, ...). Every seat plays to finish
first: the mover's moves are the ones best for its own chance, and the others'
chances follow those moves.

A turn from ``s`` ends in one of:

- a bank at score ``a'``: the next turn start is ``(o1, ..., o(N-1), a')``, flat
  ``(s mod G^(N-1)) * G + a'``, where the old mover plays last (seat ``N - 1``);
- a farkle (Pig's 1): the same, with ``a' = a``: the scores turn once around, the
  one link inside a layer of equal sums;
- a wipe (two-dice Pig's double 1): ``a' = 0``, a lower layer, so such a game's
  layers are swept again until no chance moves;
- the goal: the mover wins.

The inside of a turn is the two-player kernels' (:func:`~.turnstart.turn_rows`,
:func:`~.turnstart.turn_ends`) with the mover's value of each end as a one-row
table: it gives the mover's best moves and where they end the turn (the chance of
each bank, of the goal, of a farkle); each seat's chance is then the sum over those
ends. The turn starts a farkle joins (an orbit of the rotation, ``N`` of them or
fewer where scores repeat) are solved together by policy iteration: the moves found
for the current farkle values, the orbit's linear equations for those moves solved
exactly (:func:`orbit_values`), until no move changes.
"""

from __future__ import annotations

import numpy as np
from numba import get_thread_id, njit, prange

from dicelab.engine.kernels import NO_REFS
from dicelab.engine.kernels.turnstart import (
    BANKED,
    GOAL,
    WIPED,
    WON,
    play_turn,
    rows,
    turn_ends,
    turn_rows,
)

#: An orbit's policy iteration stops when no chance moves by more than this.
SETTLED = 1e-14
#: Rounds of an orbit's policy iteration before its movers' choices are taken to
#: go round for ever (:func:`solve_orbit`).
MAX_ROUNDS = 30


@njit(cache=True, nogil=True, inline="always", **NO_REFS)
def rotated(s, G, high):
    """The turn start after ``s``'s turn ended in a farkle: the scores turned once,
    the mover last (``high``: ``G ** (N - 1)``)."""
    return (s % high) * G + s // high


@njit(cache=True, nogil=True, inline="always", **NO_REFS)
def mover_moves(s, T, R, N, work):
    """The mover's best moves in turn start ``s``'s turn (kept in ``work``'s moves):
    the two-player turn, each end's value the mover's own chance there (a one-row
    table). Returns the mover's score and the turn start after a bank at score 0."""
    W, V, S, moves, _, _ = work
    G = R.goal
    high = G ** (N - 1)
    a = s // high
    base = (s % high) * G
    for x in range(G):
        W[0, x] = 1.0 - T[base + x, N - 1]
    turn_rows(a, 0, T[base + a, N - 1], W, R, V, S, moves, True)
    return a, base


@njit(cache=True, nogil=True, **NO_REFS)
def seat_turn(s, T, R, N, work, out):
    """Turn start ``s``'s turn under the mover's best moves for the chances ``T``
    holds: ``out[j]`` the chances the turn leads to without its farkles (the goal,
    each bank, a wipe from a score above 0), and returns the chance of a farkle (a
    wipe from 0 counted with it: the same turn start follows). ``work``: the thread's
    ``(W, V, S, moves, mass, ends)``."""
    moves, mass, ends = work[3], work[4], work[5]
    a, base = mover_moves(s, T, R, N, work)
    goal, farkle = turn_ends(a, R, moves, mass, ends)
    top = rows(a, R)
    for j in range(N):
        out[j] = 0.0
    out[0] = goal
    left = 1.0 - goal - farkle
    for t in range(top):
        p = ends[t]
        if p != 0.0:
            left -= p
            after = base + a + t
            for j in range(N):
                out[j] += p * T[after, (j - 1) % N]
    if a == R.zero:
        return farkle + max(left, 0.0)
    if left > 0.0:
        for j in range(N):
            out[j] += left * T[base + R.zero, (j - 1) % N]
    return farkle


@njit(cache=True, nogil=True, **NO_REFS)
def orbit_values(C, F, L, N, V, A):
    """The chances of an orbit's ``L`` turn starts, ``V[k] = C[k] + F[k] * turned(V[k + 1])``
    (``V[L] = V[0]``; ``turned(v)[j] = v[j - 1]``: the mover of the next turn start
    was seat 1 of this one), solved exactly: around the orbit ``V[0][j]`` is a sum of
    the ``C`` with the farkles' chances as weights, plus ``V[0][j - L]`` times their
    product, a cycle of ``N / L`` seats closed by one division (``A``: room for
    those sums)."""
    for j in range(N):
        A[j] = 0.0
    w = 1.0
    for k in range(L):
        for j in range(N):
            A[j] += w * C[k, (j - k) % N]
        w *= F[k]
    m = N // L
    for j in range(N):
        total = 0.0
        q = 1.0
        for i in range(m):
            total += q * A[(j - i * L) % N]
            q *= w
        V[0, j] = total / (1.0 - q)
    for k in range(L - 1, 0, -1):
        nxt = 0 if k == L - 1 else k + 1
        for j in range(N):
            V[k, j] = C[k, j] + F[k] * V[nxt, (j - 1) % N]


@njit(cache=True, nogil=True, **NO_REFS)
def orbit_of(s0, G, N, states):
    """The turn starts a farkle joins to ``s0``, into ``states``; returns their count."""
    high = G ** (N - 1)
    L = 0
    s = s0
    while True:
        states[L] = s
        L += 1
        s = rotated(s, G, high)
        if s == s0:
            return L


@njit(cache=True, nogil=True, **NO_REFS)
def _improve(k, L, states, T, R, N, work, C, F, V, A):
    """The mover of ``states[k]`` takes its best moves for the chances ``T`` holds;
    the orbit's chances for the moves of all its movers are solved again and written
    into ``T``. Returns how far a chance moved."""
    F[k] = seat_turn(states[k], T, R, N, work, C[k])
    orbit_values(C, F, L, N, V, A)
    moved = 0.0
    for q in range(L):
        for j in range(N):
            moved = max(moved, abs(V[q, j] - T[states[q], j]))
            T[states[q], j] = V[q, j]
    return moved


@njit(cache=True, nogil=True, **NO_REFS)
def regret(L, states, T, R, N, work, out):
    """The most a mover of the orbit gains by other moves in its own turn, every
    other mover's moves as they are (0 where each plays its best)."""
    most = 0.0
    for k in range(L):
        f = seat_turn(states[k], T, R, N, work, out)
        best = out[0] + f * T[states[(k + 1) % L], N - 1]
        most = max(most, best - T[states[k], 0])
    return most


@njit(cache=True, nogil=True, **NO_REFS)
def solve_orbit(s0, T, R, N, work, orbit):
    """Every turn start of the orbit of ``s0`` (a layer's, every larger sum solved),
    written into ``T``; returns the rounds taken and the orbit's :func:`regret`.

    Each round lets every mover in turn take its best moves for the chances so far,
    the orbit solved again after each (a mover at a time: two movers whose choices
    answer each other settle where changing both at once would take turns). Rarely
    the best replies go round for ever (three movers each best answering the one
    before, with no moves best for all at once); after :data:`MAX_ROUNDS` rounds the
    orbit keeps, of the next few choices of moves, the one whose movers would gain
    least by changing theirs, and returns that gain."""
    C, F, V, states, A, keep = orbit
    L = orbit_of(s0, R.goal, N, states)
    for rounds in range(1, MAX_ROUNDS + 1):
        moved = 0.0
        for k in range(L):
            moved = max(moved, _improve(k, L, states, T, R, N, work, C, F, V, A))
        if moved <= SETTLED:
            return rounds, 0.0
    least = np.inf
    for extra in range(4 * N):
        _improve(extra % L, L, states, T, R, N, work, C, F, V, A)
        gain = regret(L, states, T, R, N, work, A)
        if gain < least:
            least = gain
            for q in range(L):
                for j in range(N):
                    keep[q, j] = T[states[q], j]
    for q in range(L):
        for j in range(N):
            T[states[q], j] = keep[q, j]
    return MAX_ROUNDS + 1, least


@njit(cache=True, nogil=True, **NO_REFS)
def layer_orbits(total, G, N, out):
    """The orbits of the turn starts whose scores sum to ``total``, each by its
    least flat index, into ``out``; returns their count."""
    high = G ** (N - 1)
    count = 0
    for rest in range(high):  # the scores after the mover's
        r, left = rest, total
        for _ in range(N - 1):
            left -= r % G
            r //= G
        if left < 0 or left >= G:
            continue
        s = left * high + rest
        least = s
        x = s
        for _ in range(N - 1):
            x = rotated(x, G, high)
            least = min(least, x)
        if least == s:
            out[count] = s
            count += 1
    return count


@njit(cache=True, parallel=True)
def solve_seat_layer(total, T, R, N, reps, scratch, orbits):
    """Every orbit of the layer of ``total`` on every thread (``reps``: room for the
    layer's orbits; ``scratch`` and ``orbits``: each thread's tables); returns the
    most rounds an orbit took and the largest :func:`regret` left."""
    count = layer_orbits(total, R.goal, N, reps)
    most = np.zeros(count, np.int64)
    gains = np.zeros(count)
    for i in prange(count):
        w = get_thread_id()
        work = (scratch[0][w], scratch[1][w], scratch[2][w], scratch[3][w], scratch[4][w],
                scratch[5][w])  # fmt: skip
        orbit = (orbits[0][w], orbits[1][w], orbits[2][w], orbits[3][w], orbits[4][w],
                 orbits[5][w])  # fmt: skip
        most[i], gains[i] = solve_orbit(reps[i], T, R, N, work, orbit)
    if count == 0:
        return 0, 0.0
    return most.max(), gains.max()


@njit(cache=True, nogil=True, **NO_REFS)
def turn_chances(s, T, R, N, work, chances):
    """Every seat's chance inside turn start ``s``'s turn, under the mover's best moves:
    ``chances[t, n, j]`` with turn total ``t`` and ``n`` dice to throw (for advice:
    one turn, worked out backwards over its totals)."""
    moves = work[3]
    a, base = mover_moves(s, T, R, N, work)
    for t in range(rows(a, R) - 1, -1, -1):
        for n in range(1, R.dice + 1):
            for j in range(N):
                wiped = T[base + R.zero, (j - 1) % N]
                chances[t, n, j] = (R.farkle[n] * T[base + a, (j - 1) % N]
                                    + R.wipe[n] * wiped)  # fmt: skip
            for q in range(R.out_start[n], R.out_start[n + 1]):
                _seat_move(t, n, q, a, base, T, R, N, moves, chances)


@njit(cache=True, nogil=True, inline="always", **NO_REFS)
def _seat_move(t, n, q, a, base, T, R, N, moves, chances):
    """Throw ``q``'s share of :func:`turn_chances`: the move kept for it, each seat's
    chance after it times the throw's chance."""
    p = R.prob[q]
    k = moves[t, q]
    if k == GOAL:
        chances[t, n, 0] += p
    elif k == BANKED:
        after = base + a + t + R.best[q]
        for j in range(N):
            chances[t, n, j] += p * T[after, (j - 1) % N]
    else:
        left = n - k if n > k else R.dice
        for j in range(N):
            chances[t, n, j] += p * chances[t + R.offer[q, k], left, j]


@njit(cache=True, parallel=True)
def play_seat_games(T, R, N, games, seed, max_turns):
    """``games`` games from the start, every seat moving as its chance in ``T`` says
    (the moves of :func:`~.turnstart.choose`): the seat that won each (NaN: still going
    after ``max_turns`` turns). Game ``g`` draws its dice from ``seed + g``."""
    G = R.goal
    high = G ** (N - 1)
    out = np.empty(games)
    for g in prange(games):
        np.random.seed(seed + g)
        W = np.empty((1, G))
        V = np.empty((rows(0, R), R.dice + 1))
        S = np.empty((rows(0, R), R.dice + 1))
        score = np.full(N, R.zero, np.int64)
        mover = 0
        out[g] = np.nan
        for _ in range(max_turns):
            s = 0
            for j in range(N):
                s = s * G + score[(mover + j) % N]
            base = (s % high) * G
            for x in range(G):
                W[0, x] = 1.0 - T[base + x, N - 1]
            a = score[mover]
            got = play_turn(a, 0, T[base + a, N - 1], W, R, V, S)
            if got == WON:
                out[g] = mover
                break
            if got == WIPED:
                score[mover] = R.zero
            else:
                score[mover] = a + got
            mover = (mover + 1) % N
    return out
