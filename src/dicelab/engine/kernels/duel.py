"""Two players: lanes over the lead (:mod:`dicelab.engine.objectives.duel`).

A duel node is (mover's state i, other's state j); its row holds, for every lead
``x`` of the other player (their points minus the mover's), the value for the
player who just moved. The mover, on a lead ``-x``, scores ``g`` and hands over a
node where their lead is ``g - x``: a lane reads the next row backwards. Pairs of
strategies are evaluated on the same nodes in :mod:`.pairs`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicelab.engine.kernels import NEG, NO_REFS, lanes
from dicelab.engine.kernels.blocks import SIX, best_of_roll, best_pair_row, keep_pair, mean_of
from dicelab.engine.kernels.turn import (
    candidate_moves,
    next_flag,
    open_box_rows,
    placements,
    score_index,
    shut,
)
from dicelab.engine.kernels.unrolled import duel_turn
from dicelab.engine.kernels.work import take


# -- two players: lanes over the lead (:mod:`dicelab.engine.objectives.duel`) ---------------------
# A duel node is (mover's state i, other's state j); its row holds, for every lead
# ``x`` of the other player (their points minus the mover's), the value for the
# player who just moved. The mover, on a lead ``-x``, scores ``g`` and hands over a
# node where their lead is ``g - x``: a lane reads the next row backwards.
@njit(cache=True)
def duel_node(i, j, p_count, cstart, ncount, lbase):
    """Index of the node where player state ``i`` moves and ``j`` waits."""
    ki = p_count[i]
    kj = p_count[j]
    return lbase[ki + kj] + (i - cstart[ki]) * ncount[kj] + (j - cstart[kj])


@njit(cache=True)
def duel_next(i, j, c, pts, players, R):
    """The node after state ``i`` scores ``pts`` in box ``c`` (``j`` moves next)."""
    p_mask, p_y, p_u, p_count, pid, cstart, ncount, lbase = players
    upper, threshold, yahtzee, n_flag = R.upper, R.threshold, R.yahtzee, R.n_flag
    u2 = p_u[i]
    if upper[c] and threshold > 0:
        u2 = min(u2 + pts, threshold)
    i2 = pid[p_mask[i] | (1 << c), next_flag(c, p_y[i], pts, yahtzee, n_flag), u2]
    return duel_node(j, i2, p_count, cstart, ncount, lbase)


@njit(cache=True, inline="always")
def decided_lanes(nl, x0, gain, nn, leads):
    """``(s1, s2)``: of the lanes of :func:`duel_read`, those below ``s1`` read a lead
    above node ``nn``'s undecided range, those from ``s2`` one below it."""
    s1 = min(max(gain - x0 - leads.uhi[nn], 0), nl)
    s2 = min(max(gain - x0 - leads.ulo[nn] + 1, s1), nl)
    return s1, s2


@njit(cache=True)
def duel_read(dst, nl, x0, gain, nn, T, tbase, leads, below, above):
    """``dst[l]``: node ``nn``'s value at lead ``gain - (x0 + l)`` of its waiting player.

    Leads above the node's undecided range are certain wins (``above``), below it
    certain losses (``below``); inside it they lie in the node's row, which starts
    at ``T[toff[nn] - tbase]`` with lead ``xlo[nn]``, in double or single precision.

    The row is read a lane vector at a time: a vector inside the undecided range
    is one load and one permute, one outside it a constant (a loop indexing ``T``
    downwards compiles to gathers and scatters). ``dst`` is as long as ``nl``
    rounded up to whole vectors; the lanes past ``nl`` get ``below`` (no row
    reads them).
    """
    L = lanes.width(dst)
    s1, s2 = decided_lanes(nl, x0, gain, nn, leads)
    base = leads.toff[nn] - tbase + gain - x0 - leads.xlo[nn]
    hi = lanes.splat(lanes.load(dst, 0), above)
    lo = lanes.splat(hi, below)
    for g in range(0, nl, L):
        if g + L <= s1:
            lanes.store(dst, g, hi)
        elif g >= s2:
            lanes.store(dst, g, lo)
        elif g >= s1 and g + L <= s2:
            lanes.store(dst, g, lanes.vreverse(lanes.load_double(T, base - g - (L - 1))))
        else:
            for lane in range(g, g + L):
                dst[lane] = above if lane < s1 else (T[base - lane] if lane < s2 else below)


@njit(cache=True, **NO_REFS)
def duel_throws(B, out, D):
    """The rerolls and the first throw of two blocks of lanes, ``B[k, j]`` keep
    ``k``'s lane vector in block ``j``: the steps of :func:`~.blocks.throws_pair`
    (two independent chains of additions the core overlaps), with the first
    throw's mean multiplied and then added as :func:`~.turn.first_throw_mean` does
    (never fused), so the table is the row kernel's to the last bit. The last
    reroll's best keep of each roll goes straight into that mean, never stored."""
    roll0 = D.size_start[D.dice]
    for step in range(D.rerolls):
        keep_pair(B, D.add, D.size_start, D.dice, D.faces)
        best_rows(B, D.sub_rows, roll0 if step == D.rerolls - 1 else B.shape[0])
    acc0 = lanes.splat(lanes.load_at(B, roll0, 0), 0.0)
    acc1 = acc0
    last = D.rerolls > 0
    for r in range(D.roll_prob.shape[0]):
        if D.sub_rows.shape[1] == 6:
            x0, x1 = best_of_roll(B, D.sub_rows[roll0 + r], roll0 + r, SIX, last)
        else:
            subs = D.sub_rows[roll0 + r]
            x0, x1 = best_of_roll(B, subs, roll0 + r, range(1, subs.shape[0]), last)
        p = lanes.splat(x0, D.roll_prob[r])
        acc0 = lanes.vadd(acc0, lanes.vmul(x0, p))
        acc1 = lanes.vadd(acc1, lanes.vmul(x1, p))
    lanes.store(out, 0, acc0)
    lanes.store(out, 1, acc1)


@njit(cache=True, **NO_REFS)
def best_rows(A, sub_rows, n):
    """:func:`~.blocks.best_pair` on rows ``0 .. n`` only."""
    for k in range(n):
        if sub_rows.shape[1] == 6:
            best_pair_row(A, sub_rows[k], k, SIX)
        else:
            best_pair_row(A, sub_rows[k], k, range(1, sub_rows.shape[1]))


@njit(cache=True)
def duel_candidates(i, j, x0, nl, T, leads, cand, tmp, rolls, players, R):
    """The final throw of one batch as rows: ``cand[k, :nl]`` the mover's chance
    after each candidate move; the all-alike rolls' lists of rows in ``rolls``
    (``picks, n_picks``, see :func:`alike_picks`). Returns the open boxes, the
    row of each box's first candidate (-1 for a box not open) and the first row
    after the candidates and the all-alike rolls' own (for :func:`roll_picks`)."""
    mask = players.p_mask[i]
    open_boxes, first_row, _, n_open, total = open_box_rows(shut(mask, R), R.values)
    box, gain, n_cand = candidate_moves(shut(mask, R), R.values)
    for k in range(n_cand):
        nn = duel_next(i, j, box[k], gain[k], players, R)
        duel_read(cand[k], nl, x0, gain[k], nn, T, 0, leads, 0.0, 1.0)
    row_of = np.full(R.score.shape[0], -1, np.int64)
    for t in range(n_open):
        row_of[open_boxes[t]] = first_row[t]
    spare = alike_picks(i, j, x0, nl, T, leads, cand, tmp, rolls, (row_of, total), players, R)
    return open_boxes[:n_open], row_of, spare


@njit(cache=True)
def alike_picks(i, j, x0, nl, T, leads, cand, tmp, rolls, rows, players, R):
    """Each all-alike roll's rows, placed by rules of its own: where it earns no
    extra bonus and scores in open boxes one of their distinct scores, the
    candidate rows of those moves (the same next node and lead, so the same
    values); otherwise a row of its own, the best of its placements. ``rows`` is
    each box's first candidate row (-1 where not open) and the first free row.
    Returns the first row not used."""
    picks, n_picks = rolls
    row_of, spare = rows
    L = lanes.width(tmp)
    moves = np.empty((3, R.score.shape[0]), np.int64)
    mask, y = players.p_mask[i], players.p_y[i]
    for r in R.alike:
        n_moves, extra = placements(mask, y, r, R, moves)
        n = n_moves if extra == 0 else 0
        for m in range(n):
            c = moves[0, m]
            k = score_index(R.values, c, moves[1, m])
            if k < 0 or row_of[c] < 0:
                n = 0
                break
            picks[r, m] = row_of[c] + k
        if n > 0:
            n_picks[r] = n
            continue
        row = cand[spare]
        for g in range(0, nl, L):
            lanes.store(row, g, lanes.splat(lanes.load(tmp, 0), NEG))
        for m in range(n_moves):
            c, pts = moves[0, m], moves[1, m]
            nn = duel_next(i, j, c, pts, players, R)
            duel_read(tmp, nl, x0, pts + int(extra), nn, T, 0, leads, 0.0, 1.0)
            for g in range(0, nl, L):
                lanes.store(row, g, lanes.vmax(lanes.load(tmp, g), lanes.load(row, g)))
        picks[r, 0] = spare
        n_picks[r] = 1
        spare += 1
    return spare


@njit(cache=True)
def roll_picks(boxes, nl, cand, picks, n_picks, R, zero_ok):
    """Each final roll's candidate rows of :func:`duel_candidates` (which returns
    ``boxes``), ``picks[r, :n_picks[r]]``: their lane-wise maximum is that roll's
    value.

    A move's chance never falls with the points it scores (a higher lead, and
    the same or a higher upper total, for the mover), so a box that a roll scores
    0 in is covered by one row, made here in row ``zero`` (the first unused): the
    best 0-candidate of the open boxes. A roll then takes that row and its
    scoring boxes' (the boxes ``R.scoring`` lists), rather than a row for every
    open box (half as many maxima for yazy's final throw); the all-alike rolls'
    lists are made already. That the row changes no maximum needs every chance
    within 0 and 1, as the decided leads' are: ``zero_ok`` (see
    :func:`chances_bounded`); without it a roll takes every open box's row.
    """
    open_boxes, row_of, zero = boxes
    L = lanes.width(cand)
    n_cat, nv = R.values.shape
    zrow = cand[zero]
    has_zero = False
    for t in range(open_boxes.shape[0]):
        c = open_boxes[t]
        if R.values[c, 0] != 0 or not zero_ok:
            continue
        src = cand[row_of[c]]
        for g in range(0, nl, L):
            m = lanes.load(src, g)
            if has_zero:
                m = lanes.vmax(lanes.load(zrow, g), m)
            lanes.store(zrow, g, m)
        has_zero = True
    for r in range(R.roll_face.shape[0]):
        n = 0
        if R.roll_face[r] >= 0:
            continue
        if has_zero:
            picks[r, 0] = zero
            n = 1
        for t in range(R.scoring[r, 0] if has_zero else n_cat):
            c = R.scoring[r, 1 + 2 * t]
            if row_of[c] >= 0:
                picks[r, n] = row_of[c] + R.scoring[r, 2 + 2 * t] - c * nv
                n += 1
        n_picks[r] = n


@njit(cache=True)
def chances_bounded(D):
    """Whether every chance the turn computes lies within 0 and 1 (given its inputs
    do): the mean of ``faces`` ones is at most 1, and so is the first throw's sum
    of the roll probabilities, added in the order of :func:`duel_throws` (5d6's
    is 1 - 2.6e-15, 5d8's exactly 1)."""
    faces = D.faces
    inv = 1.0 / faces
    mean = np.zeros(8)  # one lane vector of float64
    x = lanes.load(mean, 0)
    for _ in range(faces):
        x = lanes.vadd(x, lanes.splat(x, 1.0))
    lanes.store(mean, 0, mean_of(x, inv, 1.0 / faces - inv))
    total = 0.0
    for r in range(D.roll_prob.shape[0]):
        total = total + 1.0 * D.roll_prob[r]
    return total <= 1.0 and mean[0] <= 1.0


@njit(cache=True, **NO_REFS)
def duel_final_pair(B, cand, picks, n_picks, lo, roll0):
    """Each final roll's value for lanes ``lo .. lo + 2 * L`` into the two blocks of
    ``B``: the maximum of its candidate rows, taken in registers."""
    L = lanes.width(B)
    for r in range(n_picks.shape[0]):
        p = picks[r, 0]
        m0 = lanes.load(cand[p], lo)
        m1 = lanes.load(cand[p], lo + L)
        for t in range(1, n_picks[r]):
            p = picks[r, t]
            m0 = lanes.vmax(m0, lanes.load(cand[p], lo))
            m1 = lanes.vmax(m1, lanes.load(cand[p], lo + L))
        lanes.store_at(B, roll0 + r, 0, m0)
        lanes.store_at(B, roll0 + r, 1, m1)


@njit(cache=True, nogil=True)
def duel_blocks(counter, w, plan, T, leads, players, R, D, shape, bufs):
    """Solve a list of batches (a node and a run of its lanes) of one layer: a worker
    of :func:`.work.on_threads` in thread ``w``'s buffers of :func:`duel_buffers`.

    The candidates of the final throw are read once a batch, as wide as the batch
    (:func:`duel_candidates`); the final rolls' maxima, the rerolls and the first
    throw then run two lane vectors at a time. The rerolls and the first throw are
    written out for the dice ``shape`` (:func:`.unrolled.duel_turn`), or loop over
    the keeps where ``shape`` is None (:func:`duel_throws`): the same values to the
    last bit. The mover maximises their own chance; the row stores the complement,
    the chance of the player who waits.
    """
    b_i, b_j, b_node, b_x0, b_nl = plan
    toff, xlo = leads.toff, leads.xlo
    cand, tmp, B, out = bufs[0][w], bufs[1][w], bufs[2][w], bufs[3][w]
    picks, n_picks = bufs[4][w], bufs[5][w]
    L = lanes.width(B)
    flat = out.reshape(2 * L)
    roll0 = D.size_start[D.dice]
    zero_ok = chances_bounded(D)
    b = take(counter)
    while b < b_i.shape[0]:
        nl = b_nl[b]
        x0 = b_x0[b]
        rolls = (picks, n_picks)
        boxes = duel_candidates(b_i[b], b_j[b], x0, nl, T, leads, cand, tmp, rolls, players, R)
        roll_picks(boxes, nl, cand, picks, n_picks, R, zero_ok)
        node = b_node[b]
        base = toff[node] + x0 - xlo[node]
        for lo in range(0, nl, 2 * L):
            duel_final_pair(B, cand, picks, n_picks, lo, roll0)
            if shape is None:
                duel_throws(B, out, D)
            else:
                duel_turn(shape, B, out)
            if lo + 2 * L <= nl:
                one = lanes.splat(lanes.load(flat, 0), 1.0)
                lanes.store(T, base + lo, lanes.vsub(one, lanes.load(flat, 0)))
                lanes.store(T, base + lo + L, lanes.vsub(one, lanes.load(flat, L)))
                continue
            for lane in range(nl - lo):
                T[base + lo + lane] = 1.0 - flat[lane]
        b = take(counter)


def duel_buffers(n_workers, width, R, D):
    """Each thread's scratch for :func:`duel_blocks`: the candidate rows (and one
    for each all-alike roll, and the best 0-candidate), a spare row, two blocks of
    keeps, their turn-start values, and each final roll's list of candidate rows."""
    n_keeps = D.add.shape[0]
    n_rolls = R.roll_face.shape[0]
    L = lanes.lanes_of(8)
    width = -(-width // (2 * L)) * 2 * L
    zeros = lanes.aligned_zeros
    return (
        zeros((n_workers, R.values.size + R.alike.size + 1, width), np.float64),
        zeros((n_workers, width), np.float64),
        zeros((n_workers, n_keeps, 2, L), np.float64),
        zeros((n_workers, 2, L), np.float64),
        np.zeros((n_workers, n_rolls, R.values.shape[0] + 1), np.int64),
        np.zeros((n_workers, n_rolls), np.int64),
    )


# -- a mover who plays for points ---------------------------------------------------------
@njit(cache=True, nogil=True)
def duel_points_blocks(counter, w, plan, T, leads, outcomes, players, R, bufs):
    """A layer whose mover plays for the expected score, in the solve's table: each
    row is the average over the mover's fixed turn outcomes (those of
    :func:`dicelab.engine.objectives.duel_compare.expected_outcomes`), stored, as the solve
    stores it, for the player who waits. A worker of :func:`.work.on_threads` in
    thread ``w``'s buffers (two rows as wide as a batch)."""
    b_i, b_j, b_node, b_x0, b_nl = plan
    o_start, o_prob, o_box, o_pts, o_gain = outcomes
    tmp, out = bufs[0][w], bufs[1][w]
    b = take(counter)
    while b < b_i.shape[0]:
        i, j, nl, x0 = b_i[b], b_j[b], b_nl[b], b_x0[b]
        for lane in range(nl):
            out[lane] = 0.0
        for o in range(o_start[i], o_start[i + 1]):
            nn = duel_next(i, j, o_box[o], o_pts[o], players, R)
            duel_read(tmp, nl, x0, o_gain[o], nn, T, 0, leads, 0.0, 1.0)
            p = o_prob[o]
            for lane in range(nl):
                out[lane] += p * tmp[lane]
        base = leads.toff[b_node[b]] + x0 - leads.xlo[b_node[b]]
        for lane in range(nl):
            T[base + lane] = 1.0 - out[lane]
        b = take(counter)
