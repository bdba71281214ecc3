"""Pairs of strategies in the duel, evaluated (:mod:`dicelab.engine.objectives.duel_compare`).

The duel's turn (:mod:`.duel`) with the decisions of the win-optimal table ``T``
and further quantities carried along each decision: under each pair of strategies
being evaluated, the mover's chance (a win plus half a tie) and, where asked, their
chance of a tie. Each keep holds a block of rows, row 0 the decision value and
rows 1.. the quantities that follow it; a choice takes a candidate only where its
row 0 is strictly larger, so the first of equal candidates stays
(:func:`~.lanes.vchoose`).

The turn runs in lane vectors, as the solve's does (:func:`.duel.duel_blocks`): the
candidates of the final throw are read once a batch, then each lane vector of the
batch goes through the final throw's choices, the rerolls and the first throw in
a scratch of ``keeps x rows`` lane vectors. Its sums are the row kernel's
(:func:`~.turn.keep_values`: faces added in order, the mean rounded once; the first
throw's products added in roll order, never fused), so the chances are those of
that kernel to the last bit. A mover who plays for points averages their fixed
turn outcomes instead (:func:`duel_expected_turn`).
"""

from __future__ import annotations

import numpy as np
from numba import get_thread_id, njit, prange

from dicelab.engine.kernels import FAST, NEG, lanes
from dicelab.engine.kernels.blocks import SIX, mean_of
from dicelab.engine.kernels.duel import duel_next, duel_read
from dicelab.engine.kernels.turn import candidate_moves, open_box_rows, placements, shut


@njit(cache=True)
def read_block(dst, nl, x0, gain, nn, T, follow, leads):
    """Candidate block of a move: row 0 from the table ``T``, row ``q`` from the
    next layer's ``N[rows[q - 1]]`` (a certain loss outside the undecided leads
    below, above them a certain win: chance 1 where ``chance[q - 1]``, else no tie)."""
    N, nbase, rows, chance = follow
    duel_read(dst[0], nl, x0, gain, nn, T, 0, leads, 0.0, 1.0)
    for q in range(rows.shape[0]):
        duel_read(dst[q + 1], nl, x0, gain, nn, N[rows[q]], nbase, leads, 0.0, chance[q])


@njit(cache=True, fastmath=FAST)
def follow_block(d, p, nq, nl):
    """Lanes ``0 .. nl - 1`` of block ``d`` take all rows of block ``p`` where ``p``'s
    row 0 is larger (for the few placements of an all-alike roll)."""
    for lane in range(nl):
        t = p[0, lane] > d[0, lane]
        for q in range(1, nq):
            d[q, lane] = p[q, lane] if t else d[q, lane]
        d[0, lane] = p[0, lane] if t else d[0, lane]


@njit(cache=True)
def pair_candidates(i, j, x0, nl, cand, picks, n_picks, T, follow, leads, players, R):
    """The final throw of a batch as blocks of rows: ``cand[k]`` after each candidate
    move, and for each final roll ``r`` the blocks ``picks[r, :n_picks[r]]`` it
    chooses from, in the order of the boxes; an all-alike roll, placed by rules of
    its own, gets a block of its own: the first best of its placements."""
    nq = follow[2].shape[0] + 1
    mask = players.p_mask[i]
    y = players.p_y[i]
    n_cat = R.score.shape[0]
    open_boxes, first_row, _, n_open, total = open_box_rows(shut(mask, R), R.values)
    box, gain, n_cand = candidate_moves(shut(mask, R), R.values)
    for k in range(n_cand):
        nn = duel_next(i, j, box[k], gain[k], players, R)
        read_block(cand[k], nl, x0, gain[k], nn, T, follow, leads)
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
        best[1:nq, :nl] = 0.0
        n_moves, extra = placements(mask, y, r, R, moves)
        for m in range(n_moves):
            c, pts = moves[0, m], moves[1, m]
            nn = duel_next(i, j, c, pts, players, R)
            read_block(spare, nl, x0, pts + int(extra), nn, T, follow, leads)
            follow_block(best, spare, nq, nl)
        picks[r, 0] = row
        n_picks[r] = 1
        row += 1


@njit(cache=True)
def final_rows(B, cand, picks, n_picks, lo, roll0, nq):
    """Each final roll's blocks for lanes ``lo .. lo + 2 * L`` into ``B[roll0 + r]``
    (block ``h``'s row ``q`` in ``h * nq + q``): its chosen candidate's rows, row 0
    the largest. The followed rows (``nq - 1``, one at least) are carried two at a
    time on one choice, in both blocks at once: four independent chains."""
    L = lanes.width(B)
    hi = lo + L
    for r in range(n_picks.shape[0]):
        first = cand[picks[r, 0]]
        a0, b0 = lanes.load(first[0], lo), lanes.load(first[0], hi)
        ma, mb = a0, b0
        for q in range(1, nq, 2):
            two = q + 1 < nq
            ma, mb = a0, b0
            va, vb = lanes.load(first[q], lo), lanes.load(first[q], hi)
            ua = lanes.load(first[q + 1], lo) if two else va
            ub = lanes.load(first[q + 1], hi) if two else vb
            for t in range(1, n_picks[r]):
                c = cand[picks[r, t]]
                xa, xb = lanes.load(c[0], lo), lanes.load(c[0], hi)
                va = lanes.vchoose(ma, xa, va, lanes.load(c[q], lo))
                vb = lanes.vchoose(mb, xb, vb, lanes.load(c[q], hi))
                if two:
                    ua = lanes.vchoose(ma, xa, ua, lanes.load(c[q + 1], lo))
                    ub = lanes.vchoose(mb, xb, ub, lanes.load(c[q + 1], hi))
                ma = lanes.vchoose(ma, xa, ma, xa)
                mb = lanes.vchoose(mb, xb, mb, xb)
            lanes.store_at(B, roll0 + r, q, va)
            lanes.store_at(B, roll0 + r, nq + q, vb)
            if two:
                lanes.store_at(B, roll0 + r, q + 1, ua)
                lanes.store_at(B, roll0 + r, nq + q + 1, ub)
        lanes.store_at(B, roll0 + r, 0, ma)
        lanes.store_at(B, roll0 + r, nq, mb)


@njit(cache=True)
def keep_rows(B, add, size_start, dice, faces, nq):
    """Every row of every keep smaller than a full roll: the mean of the keeps one
    die larger (:func:`~.blocks.keep_pair`'s sums), two rows at a time so that two
    independent chains of additions overlap."""
    inv = 1.0 / faces
    lo = 1.0 / faces - np.float64(inv)
    for k in range(size_start[dice] - 1, -1, -1):
        children = add[k]
        for q in range(0, nq - 1, 2):
            x = lanes.load_at(B, children[0], q)
            y = lanes.load_at(B, children[0], q + 1)
            if faces == 6:
                for f in SIX:
                    x = lanes.vadd(x, lanes.load_at(B, children[f], q))
                    y = lanes.vadd(y, lanes.load_at(B, children[f], q + 1))
            else:
                for f in range(1, faces):
                    x = lanes.vadd(x, lanes.load_at(B, children[f], q))
                    y = lanes.vadd(y, lanes.load_at(B, children[f], q + 1))
            lanes.store_at(B, k, q, mean_of(x, inv, lo))
            lanes.store_at(B, k, q + 1, mean_of(y, inv, lo))
        if nq % 2 == 1:
            q = nq - 1
            x = lanes.load_at(B, children[0], q)
            if faces == 6:
                for f in SIX:
                    x = lanes.vadd(x, lanes.load_at(B, children[f], q))
            else:
                for f in range(1, faces):
                    x = lanes.vadd(x, lanes.load_at(B, children[f], q))
            lanes.store_at(B, k, q, mean_of(x, inv, lo))


@njit(cache=True)
def best_rows(B, sub_rows, nq):
    """Each keep becomes the first best of itself and its sub-keeps, in turn, by row
    0, in both blocks at once (as :func:`final_rows`): its followed rows come along
    two at a time, and row 0 is written last."""
    for k in range(B.shape[0]):
        subs = sub_rows[k]
        if subs[0] == k:
            continue
        a0, b0 = lanes.load_at(B, k, 0), lanes.load_at(B, k, nq)
        ma, mb = a0, b0
        for q in range(1, nq, 2):
            two = q + 1 < nq
            ma, mb = a0, b0
            va, vb = lanes.load_at(B, k, q), lanes.load_at(B, k, nq + q)
            ua = lanes.load_at(B, k, q + 1) if two else va
            ub = lanes.load_at(B, k, nq + q + 1) if two else vb
            for s in range(subs.shape[0]):
                i = subs[s]
                if i == k:
                    break
                xa, xb = lanes.load_at(B, i, 0), lanes.load_at(B, i, nq)
                va = lanes.vchoose(ma, xa, va, lanes.load_at(B, i, q))
                vb = lanes.vchoose(mb, xb, vb, lanes.load_at(B, i, nq + q))
                if two:
                    ua = lanes.vchoose(ma, xa, ua, lanes.load_at(B, i, q + 1))
                    ub = lanes.vchoose(mb, xb, ub, lanes.load_at(B, i, nq + q + 1))
                ma = lanes.vchoose(ma, xa, ma, xa)
                mb = lanes.vchoose(mb, xb, mb, xb)
            lanes.store_at(B, k, q, va)
            lanes.store_at(B, k, nq + q, vb)
            if two:
                lanes.store_at(B, k, q + 1, ua)
                lanes.store_at(B, k, nq + q + 1, ub)
        lanes.store_at(B, k, 0, ma)
        lanes.store_at(B, k, nq, mb)


@njit(cache=True)
def follow_throws(B, cand, picks, n_picks, lo, nq, D, out):
    """Two lane vectors of a batch (lanes ``lo .. lo + 2 * L``) through the final
    throw's choices, the rerolls and the first throw; ``out[h * nq + q]`` receives
    block ``h``'s first-throw mean of row ``q`` (1 and up)."""
    roll0 = D.size_start[D.dice]
    final_rows(B, cand, picks, n_picks, lo, roll0, nq)
    for _ in range(D.rerolls):
        keep_rows(B, D.add, D.size_start, D.dice, D.faces, 2 * nq)
        best_rows(B, D.sub_rows, nq)
    for q in range(1, nq):
        acc_a = lanes.splat(lanes.load_at(B, roll0, q), 0.0)
        acc_b = acc_a
        for r in range(D.roll_prob.shape[0]):
            xa = lanes.load_at(B, roll0 + r, q)
            xb = lanes.load_at(B, roll0 + r, nq + q)
            p = lanes.splat(xa, D.roll_prob[r])
            acc_a = lanes.vadd(acc_a, lanes.vmul(xa, p))
            acc_b = lanes.vadd(acc_b, lanes.vmul(xb, p))
        lanes.store(out, q, acc_a)
        lanes.store(out, nq + q, acc_b)


@njit(cache=True)
def duel_expected_turn(i, j, x0, nl, N, nbase, conv, leads, outcomes, out, players, R):
    """The mover plays for the expected score: their turn's outcomes are fixed, and
    each row ``N[rows[q]]`` they carry (``rows, chance = conv``, as
    :func:`read_block` reads them) is the outcomes' average, into ``out[q]``
    (``out[-1]`` is scratch)."""
    rows, chance = conv
    o_start, o_prob, o_box, o_pts, o_gain = outcomes
    tmp = out[out.shape[0] - 1]
    for q in range(rows.shape[0]):
        out[q, :nl] = 0.0
    for o in range(o_start[i], o_start[i + 1]):
        nn = duel_next(i, j, o_box[o], o_pts[o], players, R)
        p = o_prob[o]
        for q in range(rows.shape[0]):
            duel_read(tmp, nl, x0, o_gain[o], nn, N[rows[q]], nbase, leads, 0.0, chance[q])
            acc = out[q]
            for lane in range(nl):
                acc[lane] += p * tmp[lane]


@njit(cache=True)
def store_rows(C, base, rows, chance, out, nl):
    """The mover's rows ``out[q, :nl]`` as the player who waits holds them, into
    ``C[rows[q]]`` from ``base``: a chance is one minus the mover's, a tie the same."""
    for q in range(rows.shape[0]):
        dst = C[rows[q]]
        src = out[q]
        for lane in range(nl):
            dst[base + lane] = 1.0 - src[lane] if chance[q] else src[lane]


@njit(cache=True)
def follow_batch(b, plan, T, follow, C, cbase, leads, players, R, D, bufs):
    """Batch ``b`` of a layer where the mover plays the win-optimal table: each
    followed row (``follow``, as :func:`read_block` reads them) for the player who
    waits, lane vector by lane vector in one thread's buffers ``bufs``."""
    b_i, b_j, b_node, b_x0, b_nl = plan
    B, cand, picks, n_picks, out = bufs
    rows, chance = follow[2], follow[3]
    nq = rows.shape[0] + 1
    L = lanes.width(B)
    nl, x0 = b_nl[b], b_x0[b]
    pair_candidates(b_i[b], b_j[b], x0, nl, cand, picks, n_picks, T, follow, leads, players, R)
    base = leads.toff[b_node[b]] - cbase + x0 - leads.xlo[b_node[b]]
    for lo in range(0, nl, 2 * L):
        follow_throws(B, cand, picks, n_picks, lo, nq, D, out)
        store_rows(C, base + lo, rows, chance, out[1:nq], min(L, nl - lo))
        if nl - lo > L:
            store_rows(C, base + lo + L, rows, chance, out[nq + 1 :], min(L, nl - lo - L))


@njit(cache=True, parallel=True)
def duel_pairs_layer(plan, follow, conv, T, leads, layers, outcomes, players, R, D, bufs):
    """The rows of one layer under several pairs of strategies at once.

    ``N`` holds the next layer's rows (from value ``nbase``), ``C`` receives this
    layer's (from ``cbase``), each for the player who waits; the turn itself is
    computed in float64, whatever the layers are stored in. ``follow`` (rows and
    whether each is a chance, else a tie) lists the rows of the pairs where the
    mover plays the win-optimal table ``T``: they follow its decisions
    (:func:`follow_batch`). ``conv`` lists, alike, those where the mover plays for
    the expected score: they average over the outcomes. ``bufs`` holds each
    thread's scratch (:func:`pairs_buffers`).
    """
    b_i, b_j, b_node, b_x0, b_nl = plan
    N, nbase, C, cbase = layers
    toff, xlo = leads.toff, leads.xlo
    rows = follow[0]
    followed = (N, nbase, follow[0], follow[1])
    for b in prange(b_i.shape[0]):
        w = get_thread_id()
        if rows.shape[0] > 0:
            mine = (bufs[0][w], bufs[1][w], bufs[2][w], bufs[3][w], bufs[4][w])
            follow_batch(b, plan, T, followed, C, cbase, leads, players, R, D, mine)
        out = bufs[5][w]
        nl, x0, i, j = b_nl[b], b_x0[b], b_i[b], b_j[b]
        base = toff[b_node[b]] - cbase + x0 - xlo[b_node[b]]
        if conv[0].shape[0] > 0:
            duel_expected_turn(i, j, x0, nl, N, nbase, conv, leads, outcomes, out, players, R)
            store_rows(C, base, conv[0], conv[1], out, nl)


def pairs_buffers(n_workers: int, width: int, n_rows: int, n_conv: int, R, D):
    """Each thread's scratch for :func:`duel_pairs_layer` with ``n_rows`` rows a block
    (the decision and the followed rows): the keeps' two blocks of one lane vector,
    a block as wide as a batch (whole pairs of lane vectors) per candidate move,
    per all-alike roll and a spare, each final roll's list of candidate blocks,
    the first throw's means, and a row per row of a mover who plays for points
    (``n_conv``) and one more."""
    n_keeps = D.add.shape[0]
    n_cand = R.values.size + R.alike.size + 1
    n_rolls = R.roll_face.shape[0]
    L = lanes.lanes_of(8)
    wide = -(-width // (2 * L)) * 2 * L
    zeros = lanes.aligned_zeros
    return (
        zeros((n_workers, n_keeps, 2 * n_rows, L), np.float64),
        zeros((n_workers, n_cand, n_rows, wide), np.float64),
        np.zeros((n_workers, n_rolls, R.values.shape[0]), np.int64),
        np.zeros((n_workers, n_rolls), np.int64),
        zeros((n_workers, 2 * n_rows, L), np.float64),
        np.zeros((n_workers, n_conv + 1, wide)),
    )
