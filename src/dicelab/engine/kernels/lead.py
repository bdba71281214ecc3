"""The expected lead of a duel played to win (:mod:`dicelab.engine.objectives.duel_lead`).

The duel's turn (:mod:`.duel`) with two rows in every block: row 0 the mover's
chance to win, read from the win-optimal table ``T``, and row 1 the mover's
expected lead at the end of the game, read from the lead table ``L`` being filled.
Each choice takes the larger chance to win, and between chances within
:data:`EVEN` of each other the larger expected lead. The table keeps its chances
in float32, whose rounding can part two moves equally good to win by a few units
of 1e-8: :data:`EVEN` is well above that, and far below any difference a player
could notice.

A lead beyond a node's undecided range settles the game; from there each player
plays for points, and the expected lead is the lead plus the difference of the
two sheets' expected-score values (``dexp`` of the node).

The same two rows evaluate a strategy that chooses by other chances than the
duel's (the table at play's, :mod:`dicelab.engine.objectives.match_exact`): row 0 is then
what it chooses by, row 1 its true chance to win, and ``dexp`` is empty, which
says so (row 1 reads 0 and 1 beyond the undecided range, and is stored for the
player who waits as one minus the mover's).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicelab.engine.kernels import FAST, NEG, lanes
from dicelab.engine.kernels.duel import decided_lanes, duel_next, duel_read
from dicelab.engine.kernels.pairs import keep_rows
from dicelab.engine.kernels.turn import candidate_moves, open_box_rows, placements, shut
from dicelab.engine.kernels.work import take

#: Chances to win this close count as equal, and the lead decides.
EVEN = 1e-6


@njit(cache=True, fastmath=FAST)
def follow_lead(d, p, n):
    """Lanes ``0 .. n - 1`` of block ``d`` take those of ``p`` where ``p`` is better,
    as :func:`~dicelab.engine.kernels.lanes.vfollow` says (for the few placements of an
    all-alike roll)."""
    d0, d1, p0, p1 = d[0], d[1], p[0], p[1]
    for lane in range(n):
        m = d0[lane]
        x = p0[lane]
        t = (x > m + EVEN) | ((x >= m - EVEN) & (p1[lane] > d1[lane]))
        d0[lane] = x if t else m
        d1[lane] = p1[lane] if t else d1[lane]


@njit(cache=True)
def lead_read(dst, nl, x0, gain, nn, T, L, leads, dexp):
    """Block ``dst`` of a move to node ``nn`` at lead ``gain - (x0 + l)`` of its
    waiting player (the mover now): the chance from ``T``, the expected lead from
    ``L``, or where the game is settled the lead plus ``dexp[nn]`` (with ``dexp``
    empty, ``L`` holds chances too)."""
    duel_read(dst[0], nl, x0, gain, nn, T, 0, leads, 0.0, 1.0)
    chances = dexp.size == 0
    duel_read(dst[1], nl, x0, gain, nn, L, 0, leads, 0.0, 1.0 if chances else 0.0)
    if chances:
        return
    s1, s2 = decided_lanes(nl, x0, gain, nn, leads)
    row = dst[1]
    for lane in range(s1):
        row[lane] = gain - x0 - lane + dexp[nn]
    for lane in range(s2, nl):
        row[lane] = gain - x0 - lane + dexp[nn]


@njit(cache=True)
def lead_candidates(i, j, x0, nl, cand, picks, n_picks, tables, leads, dexp, players, R):
    """The final throw of a batch as blocks, as :func:`.duel.duel_candidates` does:
    ``cand[k]`` the block after each candidate move, and for each final roll ``r``
    the blocks ``picks[r, :n_picks[r]]`` it chooses from; an all-alike roll gets a
    block of its own, the best of its placements."""
    T, L = tables
    mask = players.p_mask[i]
    y = players.p_y[i]
    n_cat = R.score.shape[0]
    open_boxes, first_row, _, n_open, total = open_box_rows(shut(mask, R), R.values)
    box, gain, n_cand = candidate_moves(shut(mask, R), R.values)
    for k in range(n_cand):
        nn = duel_next(i, j, box[k], gain[k], players, R)
        lead_read(cand[k], nl, x0, gain[k], nn, T, L, leads, dexp)
    for r in range(R.roll_face.shape[0]):
        for t in range(n_open):
            picks[r, t] = first_row[t] + R.index[open_boxes[t], r]
        n_picks[r] = n_open
    moves = np.empty((3, n_cat), np.int64)
    spare = cand[total + R.alike.size]
    row = total
    for r in R.alike:
        best = cand[row]
        best[0, :nl] = NEG
        best[1, :nl] = NEG
        n_moves, extra = placements(mask, y, r, R, moves)
        for m in range(n_moves):
            c, pts = moves[0, m], moves[1, m]
            nn = duel_next(i, j, c, pts, players, R)
            lead_read(spare, nl, x0, pts + int(extra), nn, T, L, leads, dexp)
            follow_lead(best, spare, nl)
        picks[r, 0] = row
        n_picks[r] = 1
        row += 1


@njit(cache=True)
def best_lead(A, sub_rows):
    """Each keep of ``A`` becomes the best of itself and its sub-keeps, in turn
    (:func:`~dicelab.engine.kernels.lanes.vfollow`), as :func:`.blocks.best_pair`
    takes the maximum: in two blocks at once (``A[k, 2h]`` keep ``k``'s chances in
    block ``h``, ``A[k, 2h + 1]`` its leads, one lane vector each), two independent
    chains of choices that the core overlaps."""
    for k in range(A.shape[0]):
        if sub_rows[k, 0] == k:
            continue
        m0 = lanes.load_at(A, k, 0)
        v0 = lanes.load_at(A, k, 1)
        m1 = lanes.load_at(A, k, 2)
        v1 = lanes.load_at(A, k, 3)
        for j in range(sub_rows.shape[1]):
            i = sub_rows[k, j]
            if i == k:
                break
            m0, v0 = lanes.vfollow(m0, v0, lanes.load_at(A, i, 0), lanes.load_at(A, i, 1), EVEN)
            m1, v1 = lanes.vfollow(m1, v1, lanes.load_at(A, i, 2), lanes.load_at(A, i, 3), EVEN)
        lanes.store_at(A, k, 0, m0)
        lanes.store_at(A, k, 1, v0)
        lanes.store_at(A, k, 2, m1)
        lanes.store_at(A, k, 3, v1)


@njit(cache=True)
def lead_throws(B, cand, picks, n_picks, lo, D, stages, out):
    """Two lane vectors of a batch (lanes ``lo .. lo + 2 * L``) through the final
    throw's choices, the rerolls and the first throw in ``B`` (``B[k, 2h]`` keep
    ``k``'s chances in block ``h``, ``B[k, 2h + 1]`` its leads: scratch that stays
    in the second-level cache); ``out`` receives the mover's expected leads, block
    after block. ``stages`` (advice, one lane) receives keep ``k``'s pair with
    ``s`` rerolls left in ``stages[s, k]``."""
    L = lanes.width(B)
    roll0 = D.size_start[D.dice]
    for r in range(n_picks.shape[0]):
        c = cand[picks[r, 0]]
        m0, v0 = lanes.load(c[0], lo), lanes.load(c[1], lo)
        m1, v1 = lanes.load(c[0], lo + L), lanes.load(c[1], lo + L)
        for t in range(1, n_picks[r]):
            c = cand[picks[r, t]]
            m0, v0 = lanes.vfollow(m0, v0, lanes.load(c[0], lo), lanes.load(c[1], lo), EVEN)
            m1, v1 = lanes.vfollow(m1, v1, lanes.load(c[0], lo + L), lanes.load(c[1], lo + L),
                                   EVEN)  # fmt: skip
        lanes.store_at(B, roll0 + r, 0, m0)
        lanes.store_at(B, roll0 + r, 1, v0)
        lanes.store_at(B, roll0 + r, 2, m1)
        lanes.store_at(B, roll0 + r, 3, v1)
    record = stages.shape[0] > 0
    if record:
        stages[0] = B[:, :2, :1]
    for s in range(D.rerolls):
        keep_rows(B, D.add, D.size_start, D.dice, D.faces, 4)
        if record:
            stages[s + 1] = B[:, :2, :1]
        best_lead(B, D.sub_rows)
    acc0 = lanes.splat(lanes.load_at(B, roll0, 1), 0.0)
    acc1 = acc0
    for r in range(D.roll_prob.shape[0]):
        x0 = lanes.load_at(B, roll0 + r, 1)
        x1 = lanes.load_at(B, roll0 + r, 3)
        p = lanes.splat(x0, D.roll_prob[r])
        acc0 = lanes.vadd(acc0, lanes.vmul(x0, p))
        acc1 = lanes.vadd(acc1, lanes.vmul(x1, p))
    lanes.store(out, 0, acc0)
    lanes.store(out, L, acc1)


@njit(cache=True, nogil=True)
def lead_blocks(counter, w, plan, tables, leads, dexp, players, R, D, bufs):
    """Fill the lead table ``L`` for a list of batches of one layer: a worker of
    :func:`.work.on_threads`. The row stores the lead of the player who waits, the
    mover's negated (with ``dexp`` empty, their chance: one minus the mover's)."""
    b_i, b_j, b_node, b_x0, b_nl = plan
    L = tables[1]
    chances = dexp.size == 0
    B, cand, picks, n_picks, out = bufs[0][w], bufs[1][w], bufs[2][w], bufs[3][w], bufs[4][w]
    step = 2 * lanes.width(B)
    none = np.empty((0, 1, 2, 1))
    b = take(counter)
    while b < b_i.shape[0]:
        nl = b_nl[b]
        x0 = b_x0[b]
        lead_candidates(b_i[b], b_j[b], x0, nl, cand, picks, n_picks, tables, leads, dexp,
                        players, R)  # fmt: skip
        node = b_node[b]
        base = leads.toff[node] + x0 - leads.xlo[node]
        for lo in range(0, nl, step):
            lead_throws(B, cand, picks, n_picks, lo, D, none, out)
            for lane in range(min(step, nl - lo)):
                # the waiting player's: one minus the mover's chance, or minus their lead
                L[base + lo + lane] = 1.0 - out[lane] if chances else -out[lane]
        b = take(counter)


def lead_buffers(n_workers, width, R, D):
    """Each thread's scratch for :func:`lead_blocks`: two pairs of lane vectors per
    keep; a block of the batch's width (whole pairs of lane vectors) per candidate
    move, per all-alike roll and a spare; each final roll's list of candidate
    blocks; two lane vectors of results."""
    n_keeps = D.add.shape[0]
    n_cand = R.values.size + R.alike.size + 1
    n_rolls = R.roll_face.shape[0]
    L = lanes.lanes_of(8)
    width = -(-width // (2 * L)) * 2 * L
    zeros = lanes.aligned_zeros
    return (
        zeros((n_workers, n_keeps, 4, L), np.float64),
        zeros((n_workers, n_cand, 2, width), np.float64),
        np.zeros((n_workers, n_rolls, R.values.shape[0]), np.int64),
        np.zeros((n_workers, n_rolls), np.int64),
        zeros((n_workers, 2 * L), np.float64),
    )
