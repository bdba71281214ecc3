"""The turn with lanes over points: the target and utility tables
(:mod:`dicelab.engine.objectives.target`).

A lane is a number of points (still needed, or so far); scoring moves a lane to
another row of the next state, read in contiguous stretches (:func:`fill_runs`).
The final throw runs in blocks of one lane vector and reuses the rerolls of
:mod:`.blocks`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicelab.engine.kernels import NEG, NO_REFS, lanes
from dicelab.engine.kernels.blocks import max_rows, put, throws_blocks
from dicelab.engine.kernels.turn import next_flag, open_box_rows_in, placements, score_index, shut
from dicelab.engine.kernels.work import take


@njit(cache=True)
def plan_layer(masks, block, n_flag, width):
    """Cut the rows of a layer into batches of at most ``width`` lanes of one block."""
    n = 0
    for m in masks:
        for y in range(n_flag):
            size = block[m, y + 1] - block[m, y]
            n += (size + width - 1) // width
    b_mask = np.empty(n, np.int64)
    b_y = np.empty(n, np.int64)
    b_f0 = np.empty(n, np.int64)
    b_nl = np.empty(n, np.int64)
    j = 0
    for m in masks:
        for y in range(n_flag):
            start = block[m, y]
            end = block[m, y + 1]
            while start < end:
                b_mask[j] = m
                b_y[j] = y
                b_f0[j] = start
                b_nl[j] = min(width, end - start)
                start += width
                j += 1
    return b_mask, b_y, b_f0, b_nl


@njit(cache=True, **NO_REFS)
def batch_runs(mask, y, f0, nl, lo, hi, off, runs):
    """The rows of ``(mask, y)`` that meet lanes ``f0 .. f0 + nl``, once per batch.

    ``runs[k] = (u, a, b, t0)``: upper total ``u`` holds lanes ``a .. b``, lane ``i``
    at points ``t0 + i``; a row that states share (see
    :func:`~dicelab.engine.objectives.points.stored_rows`) is run once, under the
    least of their upper totals. Returns the number of runs.
    """
    n = 0
    last = -1
    for u in range(lo.shape[2]):
        r0 = off[mask, y, u]
        length = hi[mask, y, u] - lo[mask, y, u] + 1
        if r0 < 0 or length <= 0 or r0 == last:  # a row shared with the one before
            continue
        last = r0
        a = max(r0, f0)
        b = min(r0 + length, f0 + nl)
        if a >= b:
            continue
        runs[n, 0] = u
        runs[n, 1] = a
        runs[n, 2] = b
        runs[n, 3] = lo[mask, y, u] - r0
        n += 1
    return n


@njit(cache=True, inline="always", **NO_REFS)
def fill_runs(dst, f0, runs, n_runs, m2, y2, shift, pts, gain, P, threshold):
    """Each lane's value after scoring ``pts`` (``gain`` with extras) in a box that
    leads to ``(m2, y2)``: a lane at points ``t`` reads the next state's row at
    ``t + sign * gain``, or ``below`` / ``above`` outside that row. Three
    contiguous stretches per run of :func:`batch_runs` (below, the next row,
    above), written by index from their starts. The next row is copied between
    views of ``dst`` and ``T`` (which the compiler then knows apart and vectorises:
    a table of one target 13% faster); assigning slice to slice instead made the
    candidates take twice as long."""
    T, lo, hi, off, sign, below, above = P.T, P.lo, P.hi, P.off, P.sign, P.below, P.above
    for k in range(n_runs):
        u = runs[k, 0]
        a = runs[k, 1]
        b = runs[k, 2]
        u2 = min(u + pts, threshold) if shift else u
        base = runs[k, 3] + sign * gain
        r2 = off[m2, y2, u2]
        lo2 = lo[m2, y2, u2]
        hi2 = hi[m2, y2, u2]
        s1 = min(max(lo2 - base, a), b)
        s2 = min(max(hi2 - base + 1, s1), b)
        d = a - f0
        for i in range(s1 - a):
            dst[d + i] = below
        d += s1 - a
        src = r2 + base - lo2 + s1
        into, row = dst[d : d + s2 - s1], T[src : src + s2 - s1]
        for i in range(s2 - s1):  # on views: the compiler vectorises the copy
            into[i] = row[i]
        d += s2 - s1
        for i in range(b - s2):
            dst[d + i] = above


@njit(cache=True, **NO_REFS)
def plan_rolls(mask, boxes, zero_row, R, picks_of, n_picks):
    """Each ordinary final roll's candidate rows in a state with filled boxes ``mask``
    (open boxes ``boxes``, see :func:`.turn.open_box_rows`): ``picks_of[r, :n_picks[r]]``
    (none for an all-alike roll with rules of its own), and ``n_picks[-1] = mask``. They
    depend on the state alone, so the batches of a state share them."""
    open_boxes, first_row, n_vals_of, n_open, total = boxes
    for r in range(R.roll_face.shape[0]):
        n = 0
        if R.roll_face[r] < 0:
            if zero_row:
                picks_of[r, 0] = total + 2
                n = 1
            for t in range(n_open):
                c = open_boxes[t]
                j = R.index[c, r]
                if zero_row and j == 0 and R.values[c, 0] == 0:
                    continue
                picks_of[r, n] = first_row[t] + j
                n += 1
        n_picks[r] = n
    n_picks[-1] = mask


@njit(cache=True, **NO_REFS)
def final_points_block(batch, P, A, stride, cand, choice, runs, roll0, R, rolls):
    """Best box for every final roll and lane (lanes over points) of one batch, cut
    into blocks of one lane vector: each box's distinct scores valued once, each
    ordinary roll the best of its boxes, all-same rolls by the joker rules.

    Row ``k`` of block ``blk``'s scratch is in ``A`` as :func:`put` says (``stride``
    1 or 2) and ``cand[i, blk]`` is its part of candidate
    row ``i`` (three rows more than the boxes' distinct scores); lanes past ``nl``
    hold finite leftovers that are never written back. ``rolls`` holds the rolls'
    lists of candidate rows (:func:`plan_rolls`), made again when the state changes;
    ``choice`` is scratch: the rows a roll takes, the open boxes
    (:func:`~.turn.open_box_rows_in`) and an all-alike roll's boxes (:func:`placements`).
    """
    mask, y, f0, nl = batch
    picks, moves = choice[0], choice[4:7]
    L = lanes.width(A)
    nbk = (nl + L - 1) // L
    flat = cand.reshape((cand.shape[0], cand.shape[1] * L))
    n_runs = batch_runs(mask, y, f0, nl, P.lo, P.hi, P.off, runs)
    rows = choice[1:4]
    n_open, total = open_box_rows_in(shut(mask, R), R.values, rows)
    open_boxes, first_row, n_vals_of = rows[0], rows[1], rows[2]
    boxes = (open_boxes, first_row, n_vals_of, n_open, total)
    for t in range(n_open):
        c = open_boxes[t]
        shift = R.upper[c] and R.threshold > 0
        for j in range(n_vals_of[t]):
            pts = R.values[c, j]
            y2 = next_flag(c, y, pts, R.yahtzee, R.n_flag)
            dst = flat[first_row[t] + j]
            fill_runs(dst, f0, runs, n_runs, mask | (1 << c), y2, shift, pts, pts, P, R.threshold)
    # Where more points never lower a value (a target; a utility that never falls),
    # a box a roll scores 0 in is covered by the best 0-candidate of the open boxes
    # (row ``total + 2``), and each roll visits its scoring boxes only: a box's 0 is
    # never above its points, in floating point too, since every step of the turn
    # (sums with fixed weights, maxima) keeps an order between its inputs.
    zero_row = P.rising
    if zero_row:
        zrow = flat[total + 2]
        zrow[:] = NEG
        for t in range(n_open):
            if R.values[open_boxes[t], 0] == 0:
                crow = flat[first_row[t]]
                for i in range(zrow.shape[0]):
                    zrow[i] = max(zrow[i], crow[i])
    picks_of, n_picks = rolls
    if n_picks[-1] != mask:  # the first batch of this state in this thread
        plan_rolls(mask, boxes, zero_row, R, picks_of, n_picks)
    for r in range(R.roll_face.shape[0]):
        if n_picks[r] > 0:
            max_rows(A, stride, cand, picks_of[r], n_picks[r], roll0 + r, 0, nbk * L)
    if R.alike.shape[0] > 0:  # rules where all-alike rolls have rules of their own
        scratch = (A, stride, cand, picks, moves)
        alike_points_rolls(batch, P, scratch, (runs, n_runs), roll0, boxes, R)


@njit(cache=True, **NO_REFS)
def alike_points_rolls(batch, P, scratch, runs_of, roll0, boxes, R):
    """The all-alike final rolls of :func:`final_points_block`, by the placement rules.

    Without an extra bonus, each allowed box scores one of its distinct scores and
    its candidate row is already made: the roll is a maximum like any other. With
    one, each allowed box's row is filled again with the bonus added.
    """
    mask, y, f0, nl = batch
    A, stride, cand, picks, moves = scratch
    runs, n_runs = runs_of
    open_boxes, first_row, n_vals_of, n_open, total = boxes
    L = lanes.width(A)
    nbk = (nl + L - 1) // L
    flat = cand.reshape((cand.shape[0], cand.shape[1] * L))
    tmp = flat[total + 1]
    for r in R.alike:
        n_moves, extra = placements(mask, y, r, R, moves)
        n = 0
        for m in range(n_moves if extra == 0 else 0):
            c = moves[0, m]
            j = score_index(R.values, c, moves[1, m])
            if j < 0:  # a score with no row of its own: fill below
                n = 0
                break
            t = 0
            while open_boxes[t] != c:
                t += 1
            picks[n] = first_row[t] + j
            n += 1
        if n > 0:
            max_rows(A, stride, cand, picks, n, roll0 + r, 0, nbk * L)
            continue
        for m in range(n_moves):
            c, pts, y2 = moves[0, m], moves[1, m], moves[2, m]
            shift = R.upper[c] and R.threshold > 0
            dst = flat[total] if m == 0 else tmp
            gain = pts + int(extra)
            fill_runs(dst, f0, runs, n_runs, mask | (1 << c), y2, shift, pts, gain, P, R.threshold)
            if m > 0:
                for blk in range(nbk):
                    best = lanes.vmax(
                        lanes.load_at(cand, total, blk), lanes.load_at(cand, total + 1, blk)
                    )
                    lanes.store_at(cand, total, blk, best)
        for blk in range(nbk):
            put(A, blk, roll0 + r, stride, lanes.load_at(cand, total, blk))


@njit(cache=True, nogil=True, **NO_REFS)
def solve_points_blocks(counter, w, plan, P, R, D, served, SR, stride, bufs):
    """Fill the lanes of a list of batches (lanes over points), each turned in blocks
    of one lane vector of ``T``'s precision (:func:`final_points_block`,
    :func:`throws_block`): a worker of :func:`.work.on_threads` in thread ``w``'s
    buffers of :func:`points_buffers`. With ``served``, the first throw may also
    score at once with the served table.
    """
    b_mask, b_y, b_f0, b_nl = plan
    T = P.T
    A, S, cand = bufs[0][w], bufs[1][w], bufs[2][w]
    choice, runs, out, no_base = bufs[3][w], bufs[4][w], bufs[5][w], bufs[6]
    rolls, served_rolls = (bufs[7][w], bufs[8][w]), (bufs[9][w], bufs[10][w])
    L = lanes.width(T)
    roll0 = D.size_start[D.dice]
    zero = np.int64(0)  # not a constant: see blocks.final_batch
    b = take(counter)
    while b < b_mask.shape[0]:
        nl = b_nl[b]
        f0 = b_f0[b]
        batch = (b_mask[b], b_y[b], f0, nl)
        final_points_block(batch, P, A, stride, cand, choice, runs, roll0, R, rolls)
        if served:
            final_points_block(batch, P, S, stride, cand, choice, runs, zero, SR, served_rolls)
        throws_blocks(A, out, (nl + L - 1) // L, stride, D, S, served, no_base)
        flat = out.reshape(out.size)
        for i in range(nl):
            T[f0 + i] = flat[i]
        b = take(counter)


def points_buffers(n_workers, width, P, R, D, served, SR, stride):
    """Each thread's scratch for :func:`solve_points_blocks` (turn rows, served
    rows, candidates, choices (see :func:`final_points_block`), runs, the first
    throw's mean in double precision), ``n_workers`` of each, a zero base shared
    by all, and each thread's lists of candidate rows for the final rolls and the
    served ones (:func:`plan_rolls`)."""
    n_keeps = D.add.shape[0]
    n_rolls = n_keeps - D.size_start[D.dice]
    dtype = P.T.dtype
    L = lanes.lanes_of(dtype.itemsize)
    nb = width // L
    n_cand = max(R.values.size, SR.values.size)
    zeros = lanes.aligned_zeros
    return (
        zeros((n_workers, nb // stride, n_keeps * stride, L), dtype),
        zeros((n_workers, nb // stride, (n_rolls if served else 1) * stride, L), dtype),
        zeros((n_workers, n_cand + 3, nb, L), dtype),
        np.zeros((n_workers, 7, max(n_cand + 1, R.score.shape[0])), np.int64),
        np.zeros((n_workers, P.lo.shape[2], 4), np.int64),
        zeros((n_workers, nb, L), np.float64),
        np.zeros(nb * L),
        *_roll_plans(n_workers, R, n_cand),
        *_roll_plans(n_workers, SR, n_cand),
    )


def _roll_plans(n_workers, R, n_cand):
    """Empty :func:`plan_rolls` buffers, marked as made for no state."""
    n_rolls = R.roll_face.shape[0]
    return np.zeros((n_workers, n_rolls, n_cand + 1), np.int64), np.full(
        (n_workers, n_rolls + 1), -1, np.int64
    )
