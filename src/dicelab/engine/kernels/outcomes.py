"""A state's turn outcomes with its upper totals in lane vectors (:mod:`.lanes`).

The score distribution's forward pass plays every state's turn for a value table
and pushes the chances of the first throw down to the boxes it ends in (see
:mod:`dicelab.engine.objectives.distribution`, which defines the choices and their
ties). A state's lanes are its reachable upper totals, padded to whole lane vectors
of 8: each scratch plane is viewed as ``(rows, chunks, 8)`` for the state, so that
every row operation (a keep's mean, the best of a roll's boxes or sub-keeps, the
chance a keep passes on) is a few SIMD instructions whatever rows it reads, and a
state's rows lie side by side. Padding lanes repeat the last upper total; their
values are never written out. Choices travel as floats in the same planes: a box
by its number, a keep by minus its number (so that the larger value is the keep
that comes first).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicelab.engine.kernels import NO_REFS, lanes
from dicelab.engine.kernels.turn import (
    box_points,
    box_rule,
    next_flag,
    open_box_rows_in,
    placements,
    shut,
)

#: Options whose values agree within this margin are ties (as in the advisor):
#: values equal in exact arithmetic differ in the last bits of floating point.
TIE = 1e-9

#: Lanes of a lane vector of doubles.
WIDTH = 8

# the planes of a worker's scratch, each ``rows`` rows of a state's chunks
VALUES, SERVED, CAND, BOXES, SERVED_BOXES, MASS, MASS_NEXT, KEEPS = range(8)


@njit(cache=True, inline="always", **NO_REFS)
def cand_rows_of(R, SR):
    """Rows of the candidate plane: each box's distinct scores, in either table."""
    return max(R.values.shape[0] * R.values.shape[1], SR.values.shape[0] * SR.values.shape[1])


@njit(cache=True)
def outcome_scratch(width, R, D, SR):
    """One worker's buffers for :func:`state_outcomes` on up to ``width`` lanes:
    ``(planes, small)``, flat planes (the keep choices of each reroll last) that
    :func:`plane` views per state, and ``small``, rows of integers: a state's boxes'
    first slots (0) and a roll's (1), a roll's placements (3 to 5), the candidate
    rows it compares (6), the open boxes' rows (7 to 9), each lane's upper total (10)."""
    n_keeps = D.add.shape[0]
    rows = max(n_keeps, cand_rows_of(R, SR))
    padded = (width + WIDTH - 1) // WIDTH * WIDTH
    n = rows * padded
    raw = np.empty((KEEPS + D.rerolls) * n + WIDTH)
    skip = (-raw.ctypes.data % 64) // 8  # each state's rows from a cache line's start
    planes = raw[skip : skip + (KEEPS + D.rerolls) * n].reshape(KEEPS + D.rerolls, n)
    small = np.zeros((11, max(R.score.shape[0], rows, padded)), np.int64)
    return planes, small


@njit(cache=True, inline="always", **NO_REFS)
def plane(planes, p, rows, nch):
    """Plane ``p`` as ``(rows, nch, 8)``: a state's rows of ``nch`` lane vectors."""
    return planes[p, : rows * nch * WIDTH].reshape(rows, nch, WIDTH)


@njit(cache=True, **NO_REFS)
def final_boxes(state, V, A, C, cand, roll0, R, small):
    """Box chosen for every final roll and lane (``C``) and its value (``A`` from row
    ``roll0``): the first box on the scorecard among those within ``TIE`` of the best.

    Each open box's distinct scores are valued once (``cand``); ordinary rolls take
    the best of their boxes' candidates in lane vectors, all-alike rolls (joker and
    bonus rules) are placed lane by lane.
    """
    mask, y, ul, nl = state
    nch = A.shape[1]
    n_rolls = R.score.shape[1]
    rows = small[7:10]  # the open boxes, their first candidate rows, their scores
    n_open, _ = open_box_rows_in(shut(mask, R), R.values, rows)
    open_boxes, first_row = rows[0], rows[1]
    us = small[10]  # each lane's upper total, the padding lanes the last one's
    for i in range(nch * WIDTH):
        us[i] = ul[min(i, nl - 1)]
    for t in range(n_open):
        c = open_boxes[t]
        shift = R.upper[c] and R.threshold > 0
        for k in range(rows[2, t]):
            pts = R.values[c, k]
            row = V[mask | (1 << c), next_flag(c, y, pts, R.yahtzee, R.n_flag)]
            dst = cand[first_row[t] + k]
            for ch in range(nch):
                for j in range(WIDTH):
                    u2 = us[ch * WIDTH + j]
                    dst[ch, j] = pts + row[min(u2 + pts, R.threshold) if shift else u2]
    picks = small[6]
    for r in range(n_rolls):
        if R.roll_face[r] >= 0:
            continue
        for t in range(n_open):
            picks[t] = first_row[t] + R.index[open_boxes[t], r]
        for ch in range(nch):
            best_v = lanes.load_at(cand, picks[0], ch)
            best = lanes.splat(best_v, open_boxes[0])
            tie = lanes.splat(best_v, TIE)
            for t in range(1, n_open):
                v = lanes.load_at(cand, picks[t], ch)
                bar = lanes.vadd(best_v, tie)  # a later box must beat it by TIE
                best = lanes.vchoose(bar, v, best, lanes.splat(v, open_boxes[t]))
                best_v = lanes.vchoose(bar, v, best_v, v)
            lanes.store_at(A, roll0 + r, ch, best_v)
            lanes.store_at(C, r, ch, best)
    moves = small[3:6]
    for r in R.alike:
        n_moves, extra = placements(mask, y, r, R, moves)
        for i in range(nch * WIDTH):
            best, best_v = alike_box(mask, us[i], moves, n_moves, extra, V, R)
            C[r, i // WIDTH, i % WIDTH] = best
            A[roll0 + r, i // WIDTH, i % WIDTH] = best_v


@njit(cache=True, inline="always", **NO_REFS)
def alike_box(mask, u, moves, n_moves, extra, V, R):
    """``(box, value)``: the best of an all-alike roll's ``n_moves`` placements
    (:func:`~.turn.placements`) at upper total ``u``, the first box within ``TIE``
    of the best taking it (the tie order of the module)."""
    best = -1
    best_v = 0.0
    for m in range(n_moves):
        c, pts, y2 = moves[0, m], moves[1, m], moves[2, m]
        u2 = u
        if R.upper[c] and R.threshold > 0:
            u2 = min(u2 + pts, R.threshold)
        v = pts + extra + V[mask | (1 << c), y2, u2]
        if best < 0 or v > best_v + TIE:
            best = c
            best_v = v
    return best, best_v


@njit(cache=True, **NO_REFS)
def keep_means(A, D):
    """Every keep smaller than a full roll valued as the mean of the keeps one die
    larger, summed face by face in order as :func:`dicelab.engine.kernels.turn.keep_values`
    does (so the values agree to the last bit)."""
    inv = 1.0 / D.faces
    for k in range(D.size_start[D.dice] - 1, -1, -1):
        for ch in range(A.shape[1]):
            x = lanes.load_at(A, D.add[k, 0], ch)
            for f in range(1, D.faces):
                x = lanes.vadd(x, lanes.load_at(A, D.add[k, f], ch))
            lanes.store_at(A, k, ch, lanes.vmul(x, lanes.splat(x, inv)))


@njit(cache=True, **NO_REFS)
def best_keeps_chosen(A, G, sub_rows):
    """The best keep inside every set of dice and its value, in place: ``G[k]`` minus
    the number of the keep chosen, ``A[k]`` its value.

    Keeps within ``TIE`` of each other: fewer dice first, then by their faces in
    ascending order. Keeps are numbered in that very order, so of two tied keeps
    the one with the lower number, the larger ``G``, is taken.
    """
    for k in range(A.shape[0]):
        for ch in range(A.shape[1]):  # the keep's lanes in registers, stored once
            va = lanes.load_at(A, k, ch)
            a = lanes.splat(va, -k)
            for j in range(sub_rows.shape[1]):
                s = sub_rows[k, j]
                if s == k:
                    break
                vb = lanes.load_at(A, s, ch)
                va, a = lanes.vfollow(va, a, vb, lanes.load_at(G, s, ch), TIE)
            lanes.store_at(A, k, ch, va)
            lanes.store_at(G, k, ch, a)


@njit(cache=True, **NO_REFS)
def served_or_on(A, S, B, roll0):
    """A first throw scored at once where its served value ``S`` beats rolling on
    (``A``) by more than ``TIE``; elsewhere its served box ``B`` becomes -1."""
    for r in range(S.shape[0]):
        for ch in range(A.shape[1]):
            a = lanes.load_at(A, roll0 + r, ch)
            s = lanes.load_at(S, r, ch)
            bar = lanes.vadd(a, lanes.splat(a, TIE))
            lanes.store_at(A, roll0 + r, ch, lanes.vchoose(bar, s, a, s))
            b = lanes.load_at(B, r, ch)
            lanes.store_at(B, r, ch, lanes.vchoose(bar, s, lanes.splat(b, -1.0), b))


@njit(cache=True, **NO_REFS)
def pass_mass(M, mass, G, roll0, D):
    """The chance of each keep (``M``) from the chance of each roll before the throw
    (``mass``, rows from ``roll0``) and the keep chosen (``G``), then carried up the
    keeps: a keep passes ``1 / faces`` of its chance to each keep one die larger,
    each keep taking its share from the keeps one die smaller inside it (summed in
    registers, stored once), so the full rolls of ``M`` end with the chances after
    the throw."""
    nch = M.shape[1]
    zero = lanes.splat(lanes.load_at(mass, roll0, 0), 0.0)
    for k in range(M.shape[0]):
        for ch in range(nch):
            lanes.store_at(M, k, ch, zero)
    for r in range(roll0, M.shape[0]):
        for ch in range(nch):
            for j in range(WIDTH):  # unsigned: no check for a negative index
                M[np.uint64(-G[r, ch, j]), ch, j] += mass[r, ch, j]
    iv = lanes.splat(zero, 1.0 / D.faces)
    for k in range(1, M.shape[0]):  # the keeps one die smaller come first
        for ch in range(nch):  # the keep's lanes in registers, stored once
            x = lanes.load_at(M, k, ch)
            for j in range(D.sub_rows.shape[1]):
                s = D.sub_rows[k, j]
                if s == k:
                    break
                x = lanes.vfma(lanes.load_at(M, s, ch), iv, x)
            lanes.store_at(M, k, ch, x)


@njit(cache=True, **NO_REFS)
def lane_choices(state, V, scratch, R, D, served, SR):
    """Every choice of a turn played for ``V``, ties broken as
    :func:`dicelab.engine.objectives.distribution.turn_choices` does, for lanes
    ``ul[:nl]`` (``state`` is ``(mask, y, ul, nl)``) in lane vectors: the box of each
    final roll (plane ``BOXES``), the keep of each roll with ``n + 1`` rerolls left
    (plane ``KEEPS + n``, minus its number) and with served bonuses the box of a
    first throw scored at once (``SERVED_BOXES``, -1 where it rolls on). Returns
    whether first throws may score at once (and no array: a kernel without
    reference counts returns none, its caller would count one).
    """
    planes, small = scratch
    nch = (state[3] + WIDTH - 1) // WIDTH
    n_keeps, n_rolls = D.add.shape[0], R.score.shape[1]
    roll0 = D.size_start[D.dice]
    A = plane(planes, VALUES, n_keeps, nch)
    C = plane(planes, BOXES, n_rolls, nch)
    cand = plane(planes, CAND, cand_rows_of(R, SR), nch)
    S = plane(planes, SERVED, n_rolls, nch)
    B = plane(planes, SERVED_BOXES, n_rolls, nch)
    if served and D.rerolls == 0:  # the only throw is the first: it scores as served
        final_boxes(state, V, A, C, cand, roll0, SR, small)
    else:
        final_boxes(state, V, A, C, cand, roll0, R, small)
    early = served and D.rerolls > 0
    if early:
        final_boxes(state, V, S, B, cand, np.int64(0), SR, small)
    for n in range(D.rerolls):
        keep_means(A, D)
        if early and n == D.rerolls - 1:
            served_or_on(A, S, B, roll0)
        best_keeps_chosen(A, plane(planes, KEEPS + n, n_keeps, nch), D.sub_rows)
    return early


@njit(cache=True, **NO_REFS)
def state_outcomes(state, V, Q, q0, slots, scratch, R, D, served, SR):
    """Probability of every (box, points, extra) outcome of a turn, for ``nl`` lanes,
    as :class:`dicelab.engine.objectives.distribution.OutcomeLayout` lays them out:
    into ``Q[q0 + i * n_slots + slot]`` for lane ``i`` (zeroed here first). The
    choices are :func:`lane_choices`'s; ``slots`` is ``(slot_of, box_slots, n_e)``,
    ``scratch`` a worker's :func:`outcome_scratch`.
    """
    mask, y, ul, nl = state
    slot_of, box_slots, n_e = slots
    planes, small = scratch
    early = lane_choices(state, V, scratch, R, D, served, SR)
    score = SR.score if served and D.rerolls == 0 else R.score  # the final throw's
    nch = (nl + WIDTH - 1) // WIDTH
    n_keeps, n_rolls = D.add.shape[0], R.score.shape[1]
    roll0 = D.size_start[D.dice]
    base = small[0]
    pos = 0
    for c in range(R.score.shape[0]):
        if (mask >> c) & 1 == 0:
            base[c] = pos
            pos += box_slots[c]
    q = np.uint64(q0)  # unsigned: the state's outcomes cleared as a plain fill
    for j in range(np.uint64(nl * pos)):
        Q[q + j] = 0.0
    where = (q0, pos, base, slot_of, n_e, small[1])
    mass = plane(planes, MASS_NEXT if D.rerolls % 2 == 1 else MASS, n_keeps, nch)
    for r in range(n_rolls):
        for ch in range(nch):
            lanes.store_at(
                mass, roll0 + r, ch, lanes.splat(lanes.load_at(mass, 0, 0), D.roll_prob[r])
            )
    for n in range(D.rerolls - 1, -1, -1):
        M = plane(planes, MASS if n % 2 == 0 else MASS_NEXT, n_keeps, nch)
        G = plane(planes, KEEPS + n, n_keeps, nch)
        if early and n == D.rerolls - 1:  # first throws scored at once leave here
            B = plane(planes, SERVED_BOXES, n_rolls, nch)
            throw_outcomes(Q, where, state, mass, G, B, roll0, SR.score, R, True)
        pass_mass(M, mass, G, roll0, D)
        mass = M
    C = plane(planes, BOXES, n_rolls, nch)
    throw_outcomes(Q, where, state, mass, C, C, roll0, score, R, False)


@njit(cache=True, **NO_REFS)
def throw_outcomes(Q, where, state, mass, G, C, roll0, score, R, first):
    """Add the chance of each roll (``mass`` from row ``roll0``) to the outcome of the
    box ``C`` chose for it, scored by ``score``. With ``first``, only the rolls whose
    keep (``G``) is the whole roll and that a box took (``C`` at least 0) leave, the
    first throws scored at once: their chance is then spent."""
    mask, y, ul, nl = state
    q0, pos, base, slot_of, n_e, slot_at = where
    n_cat = R.score.shape[0]
    for r in range(C.shape[0]):
        allowed, active, extra, zeroed = box_rule(
            mask, y, R.roll_face[r], R.upper, R.upper_box_of_face, R.yahtzee, R.joker,
            R.extra_bonus,
        )  # fmt: skip
        e = 1 if extra > 0 else 0
        for c in range(n_cat):  # each open box's slot for this roll, once a roll
            if (mask >> c) & 1 == 0:
                pts = box_points(c, r, active, zeroed, score, R.joker_score)
                slot_at[c] = base[c] + slot_of[c, pts] * n_e + e
        for ch in range(C.shape[1]):
            q = q0 + ch * WIDTH * pos
            for j in range(min(WIDTH, nl - ch * WIDTH)):
                c = np.int64(C[r, ch, j])
                if first and (c < 0 or -np.int64(G[roll0 + r, ch, j]) != roll0 + r):
                    continue
                Q[q + j * pos + slot_at[c]] += mass[roll0 + r, ch, j]
                if first:
                    mass[roll0 + r, ch, j] = 0.0
