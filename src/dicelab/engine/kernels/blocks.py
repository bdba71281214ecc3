"""The expected-score turn in blocks of one lane vector (:mod:`dicelab.engine.kernels.lanes`).

The same turn as :mod:`.turn`, on scratch rows exactly one lane vector wide: every
row operation is a handful of SIMD instructions on data that stays in the
first-level cache. A block holds one or more segments (mask, flag, a run of upper
totals), each at its own lane offset; values are single precision relative to a
double-precision base. :func:`solve_blocks` is the expected-score solver's layer.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicelab.engine.kernels import NEG, NO_REFS, lanes
from dicelab.engine.kernels.turn import (
    cand_rows,
    closed_mask,
    n_distinct,
    next_flag,
    placements,
    popcount,
    score_index,
)
from dicelab.engine.kernels.work import done, take, wait_done


@njit(cache=True, inline="always", **NO_REFS)
def after_box(dst, src, u0, pts, shift, threshold, add, base):
    """``dst[ui]``: ``add`` plus the next state's value ``src`` at upper total
    ``u0 + ui`` (plus ``pts`` when ``shift``, capped at the threshold), less the
    lane's ``base[ui]``. Two contiguous runs, indexed from 0 so the compiler
    knows no index is negative and vectorises both."""
    nu = dst.shape[0]
    s0 = u0 + pts if shift else u0
    n1 = min(max(threshold - s0, 0), nu) if shift else nu
    run = src[s0 : s0 + n1]
    for ui in range(n1):
        dst[ui] = (add + run[ui]) - base[ui]
    if n1 < nu:
        capped = add + src[threshold]
        for ui in range(n1, nu):
            dst[ui] = capped - base[ui]


@njit(cache=True, inline="always", **NO_REFS)
def first_open(mask, n_cat):
    """The lowest box open in ``mask``, or ``n_cat`` when every box is filled."""
    c = 0
    while c < n_cat and (mask >> c) & 1 == 1:
        c += 1
    return c


@njit(cache=True, inline="always", **NO_REFS)
def put(A, blk, row, stride, m):
    """Store ``m`` as row ``row`` of block ``blk``: ``A[blk, row]``, or with ``stride``
    2, where blocks are paired row by row, ``A[blk // 2, 2 * row + blk % 2]``."""
    if stride == 1:
        lanes.store_at(A, blk, row, m)
    else:
        lanes.store_at(A, blk >> 1, 2 * row + (blk & 1), m)


@njit(cache=True, inline="always", **NO_REFS)
def put_lanes(A, blk, row, stride, m, lo, hi):
    """:func:`put` for the lanes ``lo <= lane < hi`` only."""
    if stride == 1:
        lanes.store_lanes_at(A, blk, row, m, lo, hi)
    else:
        lanes.store_lanes_at(A, blk >> 1, 2 * row + (blk & 1), m, lo, hi)


@njit(cache=True, **NO_REFS)
def final_segment(seg, V, A, stride, cand, choice, roll0, R, base, set_base, shared):
    """The candidates of one segment (lanes ``off .. off + nu`` of a batch) and its
    all-alike rolls; :func:`final_maxima` then takes every other roll's best box
    for the whole batch at once (``seg[5]``: the boxes closed to an ordinary roll).

    Candidate row ``c * n_vals + j`` (``n_vals = values.shape[1]``) holds box ``c``'s
    ``j``-th distinct score in every lane whose state has ``c`` open, and ``NEG``
    in this segment's lanes when ``c`` is filled here but open in another segment
    of the batch (``shared``, the batch's open boxes). Row ``n_cat * n_vals`` holds
    each lane's best 0-candidate, which covers every box a roll scores 0 in (see
    :func:`final_roll_values`); the next two are scratch for the all-alike rolls,
    stored straight into ``A`` (as :func:`put` says, ``stride`` 1 or 2). Values are
    relative to ``base[off + ui]``; with ``set_base`` this sets it, to the lowest
    candidate of the first open box. An all-alike roll that earns no extra bonus
    scores one of each box's distinct scores, whose rows are made: it takes their
    maximum like any other roll. ``choice[0]`` lists the rows a roll takes,
    ``choice[1:4]`` the boxes an all-alike roll may go in (see :func:`placements`).
    """
    mask, y, u0, nu, off, closed = seg
    picks, moves = choice[0], choice[1:4]
    n_cat, n_rolls = R.score.shape
    nv = R.values.shape[1]
    L = lanes.width(A)
    flat = cand.reshape((cand.shape[0], cand.shape[1] * L))
    b0 = off // L
    b1 = (off + nu - 1) // L
    lb = base[off : off + nu]
    if set_base:
        lb[:] = 0.0
        c = first_open(mask, n_cat)
        if c < n_cat:
            pts = R.values[c, 0]
            src = V[mask | (1 << c), 0 if c == R.yahtzee else y]
            after_box(lb, src, u0, pts, R.upper[c] and R.threshold > 0, R.threshold, float(pts), lb)
    zrow = flat[n_cat * nv, off : off + nu]
    zrow[:] = NEG
    for c in range(n_cat):
        if (shared >> c) & 1 == 0:
            continue
        if (closed >> c) & 1 == 1:  # filled here, open elsewhere in the batch
            for j in range(n_distinct(R.values, c)):
                flat[c * nv + j, off : off + nu] = NEG
            continue
        shift = R.upper[c] and R.threshold > 0
        for j in range(n_distinct(R.values, c)):
            pts = R.values[c, j]
            src = V[mask | (1 << c), next_flag(c, y, pts, R.yahtzee, R.n_flag)]
            crow = flat[c * nv + j, off : off + nu]
            after_box(crow, src, u0, pts, shift, R.threshold, float(pts), lb)
            if j == 0 and pts == 0:
                for ui in range(nu):
                    zrow[ui] = max(zrow[ui], crow[ui])
    best = flat[n_cat * nv + 1, off : off + nu]
    tmp = flat[n_cat * nv + 2, off : off + nu]
    for r in R.alike:
        n_moves, extra = placements(mask, y, r, R, moves)
        n = 0
        while n < (n_moves if extra == 0 else 0):
            j = score_index(R.values, moves[0, n], moves[1, n])
            if j < 0:  # a score with no row of its own: the boxes one by one
                n = 0
                break
            picks[n] = moves[0, n] * nv + j
            n += 1
        if n > 0:
            max_rows(A, stride, cand, picks, n, roll0 + r, off, nu)
            continue
        best[:] = NEG
        for t in range(n_moves):
            c, pts = moves[0, t], moves[1, t]
            shift = R.upper[c] and R.threshold > 0
            src = V[mask | (1 << c), moves[2, t]]
            after_box(tmp, src, u0, pts, shift, R.threshold, pts + extra, lb)
            for ui in range(nu):
                best[ui] = max(best[ui], tmp[ui])
        for blk in range(b0, b1 + 1):
            lo = max(off - blk * L, 0)
            hi = min(off + nu - blk * L, L)
            m = lanes.load_at(cand, n_cat * nv + 1, blk)
            put_lanes(A, blk, roll0 + r, stride, m, lo, hi)


@njit(cache=True, inline="always", **NO_REFS)
def max_rows(A, stride, cand, picks, n, row, off, nu):
    """Row ``row`` of the blocks holding lanes ``off .. off + nu`` (see :func:`put`):
    the lane-wise maximum of candidate rows ``picks[:n]``, four whole blocks at a
    time (four independent maxima), the rest block by block."""
    L = lanes.width(A)
    b0 = off // L
    b1 = (off + nu - 1) // L
    g = b0
    while off % L == 0 and nu % L == 0 and g + 4 <= b1 + 1:
        p = picks[0]
        m0 = lanes.load_at(cand, p, g)
        m1 = lanes.load_at(cand, p, g + 1)
        m2 = lanes.load_at(cand, p, g + 2)
        m3 = lanes.load_at(cand, p, g + 3)
        for i in range(1, n):
            p = picks[i]
            m0 = lanes.vmax(m0, lanes.load_at(cand, p, g))
            m1 = lanes.vmax(m1, lanes.load_at(cand, p, g + 1))
            m2 = lanes.vmax(m2, lanes.load_at(cand, p, g + 2))
            m3 = lanes.vmax(m3, lanes.load_at(cand, p, g + 3))
        put(A, g, row, stride, m0)
        put(A, g + 1, row, stride, m1)
        put(A, g + 2, row, stride, m2)
        put(A, g + 3, row, stride, m3)
        g += 4
    for blk in range(g, b1 + 1):
        m = lanes.load_at(cand, picks[0], blk)
        for i in range(1, n):
            m = lanes.vmax(m, lanes.load_at(cand, picks[i], blk))
        lo = max(off - blk * L, 0)
        hi = min(off + nu - blk * L, L)
        if lo == 0 and hi == L:
            put(A, blk, row, stride, m)
        else:
            put_lanes(A, blk, row, stride, m, lo, hi)


@njit(cache=True, **NO_REFS)
def final_maxima(off, nu, A, stride, cand, picks, roll0, boxes, R):
    """Every ordinary final roll's best box for lanes ``off .. off + nu`` of a batch
    (the candidates of :func:`final_segment`): one list of candidate rows a roll,
    the best 0-candidate and the boxes of ``boxes`` that score for it (of the
    boxes ``R.scoring`` lists, rather than testing every box)."""
    roll_face, scoring = R.roll_face, R.scoring
    n_cat, nv = R.values.shape
    for r in range(roll_face.shape[0]):
        if roll_face[r] >= 0:
            continue
        picks[0] = n_cat * nv
        n = 1
        for t in range(scoring[r, 0]):  # no branch: the open test is a coin toss
            picks[n] = scoring[r, 2 + 2 * t]
            n += (boxes >> scoring[r, 1 + 2 * t]) & 1
        max_rows(A, stride, cand, picks, n, roll0 + r, off, nu)


@njit(cache=True, **NO_REFS)
def final_batch(segs, first, last, V, A, stride, cand, choice, roll0, R, base, set_base):
    """The final throw of segments ``first .. last`` of a batch, side by side.

    Each roll's list of boxes is made once for the whole batch (the boxes open in
    any of its segments, ``NEG`` where a segment has them filled) when that costs
    fewer vector maxima than a list per segment; otherwise one list per segment.
    Returns the lanes the segments take.
    """
    seg_mask, seg_y, seg_u0, seg_nu = segs.mask, segs.y, segs.u0, segs.nu
    values = R.values
    L = lanes.width(A)
    full = (1 << values.shape[0]) - 1
    # np.int64 and np.bool_ rather than constants here and below: a constant
    # argument compiles its own copy of the function it is passed to
    shared = np.int64(0)
    split_cost = 0
    off = np.int64(0)
    for j in range(first, last):
        own = full & ~closed_mask(seg_mask[j], R.joker, values.shape[0])
        shared |= own
        blocks = (off + seg_nu[j] - 1) // L - off // L + 1
        split_cost += popcount(own) * blocks
        off += seg_nu[j]
    used = off
    nbk = (used + L - 1) // L
    together = popcount(shared) * nbk <= split_cost
    off = np.int64(0)
    for j in range(first, last):
        closed = closed_mask(seg_mask[j], R.joker, values.shape[0])  # forced order: one box
        seg = (seg_mask[j], seg_y[j], seg_u0[j], seg_nu[j], off, closed)
        boxes = shared if together else full & ~closed
        final_segment(seg, V, A, stride, cand, choice, roll0, R, base, set_base, boxes)
        if not together:
            final_maxima(off, seg_nu[j], A, stride, cand, choice[0], roll0, boxes, R)
        off += seg_nu[j]
    if together:
        final_maxima(np.int64(0), nbk * L, A, stride, cand, choice[0], roll0, shared, R)
    return used


@njit(cache=True, inline="always", **NO_REFS)
def mean_of(x, inv, lo):
    """``x / faces`` rounded once: ``x * inv + x * lo`` as one fused multiply-add,
    ``lo`` the part of ``1 / faces`` that ``inv`` misses."""
    return lanes.vfma(x, lanes.splat(x, inv), lanes.vmul(x, lanes.splat(x, lo)))


@njit(cache=True, **NO_REFS)
def keep_block(A, add, size_start, dice, faces):
    """:func:`keep_values` on lane-vector rows: the mean is rounded once (a fused
    multiply-add with the part of ``1 / faces`` its rounding misses)."""
    inv = A.dtype.type(1.0 / faces)
    lo = A.dtype.type(1.0 / faces - np.float64(inv))
    for k in range(size_start[dice] - 1, -1, -1):
        x = lanes.load(A, add[k, 0])
        for f in range(1, faces):
            x = lanes.vadd(x, lanes.load(A, add[k, f]))
        lanes.store(A, k, mean_of(x, inv, lo))


@njit(cache=True, **NO_REFS)
def best_block(A, sub_rows):
    """:func:`best_keeps` on lane-vector rows: each keep's maximum over its sub-keeps
    is taken in registers and stored once."""
    width = sub_rows.shape[1]
    for k in range(A.shape[0]):
        i = sub_rows[k, 0]
        if i == k:
            continue
        m = lanes.vmax(lanes.load(A, k), lanes.load(A, i))
        for j in range(1, width):
            i = sub_rows[k, j]
            if i == k:
                break
            m = lanes.vmax(m, lanes.load(A, i))
        lanes.store(A, k, m)


@njit(cache=True, **NO_REFS)
def throws_block(A, out, D, S, served, base):
    """:func:`throws_and_start` on lane-vector rows; ``out`` gets every lane of the
    block, the first throw's mean summed in double precision plus ``base``."""
    roll0 = D.size_start[D.dice]
    for _ in range(D.rerolls):
        keep_block(A, D.add, D.size_start, D.dice, D.faces)
        best_block(A, D.sub_rows)
    if served:
        for r in range(D.roll_prob.shape[0]):
            m = lanes.load(S, r)  # with one throw a turn, as served
            if D.rerolls > 0:
                m = lanes.vmax(lanes.load(A, roll0 + r), m)
            lanes.store(A, roll0 + r, m)
    acc = lanes.splat(lanes.widen(lanes.load(A, roll0)), 0.0)
    for r in range(D.roll_prob.shape[0]):
        x = lanes.widen(lanes.load(A, roll0 + r))
        acc = lanes.vfma(x, lanes.splat(x, D.roll_prob[r]), acc)
    lanes.store(out, 0, acc)
    for lane in range(A.shape[1]):
        out[lane] += base[lane]


#: The faces after the first of a six-sided die: a trip count the compiler knows,
#: so it unrolls the loops below (Yahtzee 0.108 s to 0.102 s for both).
SIX = (1, 2, 3, 4, 5)


@njit(cache=True, **NO_REFS)
def keep_pair(A, add, size_start, dice, faces):
    """:func:`keep_block` on two blocks paired row by row (``A[k, j]`` is row ``k``
    of block ``j``): two independent chains of additions, so the core overlaps
    them."""
    inv = A.dtype.type(1.0 / faces)
    lo = A.dtype.type(1.0 / faces - np.float64(inv))
    for k in range(size_start[dice] - 1, -1, -1):
        if faces == 6:
            keep_pair_row(A, add[k], k, SIX, inv, lo)
        else:
            keep_pair_row(A, add[k], k, range(1, faces), inv, lo)


@njit(cache=True, inline="always", **NO_REFS)
def keep_pair_row(A, children, k, others, inv, lo):
    """Row ``k`` of :func:`keep_pair`: the mean of rows ``children[0]`` and
    ``children[f]`` for ``f`` in ``others``, added in that order."""
    x0 = lanes.load_at(A, children[0], 0)
    x1 = lanes.load_at(A, children[0], 1)
    for f in others:
        x0 = lanes.vadd(x0, lanes.load_at(A, children[f], 0))
        x1 = lanes.vadd(x1, lanes.load_at(A, children[f], 1))
    lanes.store_at(A, k, 0, mean_of(x0, inv, lo))
    lanes.store_at(A, k, 1, mean_of(x1, inv, lo))


@njit(cache=True, **NO_REFS)
def best_pair(A, sub_rows):
    """:func:`best_block` on two blocks paired row by row."""
    width = sub_rows.shape[1]
    for k in range(A.shape[0]):
        if width == 6:
            best_pair_row(A, sub_rows[k], k, SIX)
        else:
            best_pair_row(A, sub_rows[k], k, range(1, width))


@njit(cache=True, inline="always", **NO_REFS)
def best_pair_row(A, subs, k, others):
    """Row ``k`` of :func:`best_pair`: the maximum of row ``k`` and rows ``subs[0]``,
    ``subs[j]`` for ``j`` in ``others`` up to the first that is ``k`` itself."""
    if subs[0] == k:
        return
    m0, m1 = best_of_roll(A, subs, k, others, True)
    lanes.store_at(A, k, 0, m0)
    lanes.store_at(A, k, 1, m1)


@njit(cache=True, inline="always", **NO_REFS)
def best_of_roll(A, subs, k, others, best):
    """Row ``k`` of both blocks, with ``best`` the maximum over its sub-keeps as
    :func:`best_pair_row` takes it, in registers (the duel's last reroll feeds it
    straight into the first throw's mean)."""
    m0 = lanes.load_at(A, k, 0)
    m1 = lanes.load_at(A, k, 1)
    if not best or subs[0] == k:
        return m0, m1
    m0 = lanes.vmax(m0, lanes.load_at(A, subs[0], 0))
    m1 = lanes.vmax(m1, lanes.load_at(A, subs[0], 1))
    for j in others:
        i = subs[j]
        if i == k:
            break
        m0 = lanes.vmax(m0, lanes.load_at(A, i, 0))
        m1 = lanes.vmax(m1, lanes.load_at(A, i, 1))
    return m0, m1


@njit(cache=True, **NO_REFS)
def throws_pair(A, out, D, S, served, base):
    """:func:`throws_block` on two blocks paired row by row: ``out[j]`` gets block
    ``j``'s turn-start values, ``base[j * lanes + lane]`` added."""
    roll0 = D.size_start[D.dice]
    L = lanes.width(A)
    for _ in range(D.rerolls):
        keep_pair(A, D.add, D.size_start, D.dice, D.faces)
        best_pair(A, D.sub_rows)
    if served:
        for r in range(D.roll_prob.shape[0]):
            for j in range(2):
                m = lanes.load_at(S, r, j)  # with one throw a turn, as served
                if D.rerolls > 0:
                    m = lanes.vmax(lanes.load_at(A, roll0 + r, j), m)
                lanes.store_at(A, roll0 + r, j, m)
    acc0 = lanes.splat(lanes.widen(lanes.load_at(A, roll0, 0)), 0.0)
    acc1 = acc0
    for r in range(D.roll_prob.shape[0]):
        x0 = lanes.widen(lanes.load_at(A, roll0 + r, 0))
        x1 = lanes.widen(lanes.load_at(A, roll0 + r, 1))
        p = lanes.splat(x0, D.roll_prob[r])
        acc0 = lanes.vfma(x0, p, acc0)
        acc1 = lanes.vfma(x1, p, acc1)
    lanes.store(out, 0, acc0)
    lanes.store(out, 1, acc1)
    for j in range(2):
        for lane in range(L):
            out[j, lane] += base[j * L + lane]


@njit(cache=True, **NO_REFS)
def throws_blocks(A, out, nbk, stride, D, S, served, base):
    """The rerolls and first throw of blocks ``0 .. nbk`` of a batch, one by one or
    two at a time (``stride``, see :func:`put`); ``out[blk]`` gets block ``blk``'s
    turn-start values."""
    L = lanes.width(A)
    if stride == 1:
        for blk in range(nbk):
            throws_block(A[blk], out[blk], D, S[blk], served, base[blk * L : blk * L + L])
        return
    n_keeps = A.shape[1] // 2
    n_s = S.shape[1] // 2
    for p in range((nbk + 1) // 2):
        pair = A[p].reshape((n_keeps, 2, L))
        pair_s = S[p].reshape((n_s, 2, L))
        throws_pair(
            pair, out[2 * p : 2 * p + 2], D, pair_s, served, base[2 * p * L : 2 * p * L + 2 * L]
        )


def block_stride(n_keeps: int, width: int, itemsize: int) -> int:
    """2 where a turn runs two blocks at a time (see :func:`put`), else 1.

    Two blocks go together when a batch holds an even number of blocks and their
    scratch (64 bytes a keep each) is at most 128 KiB: two independent chains then
    halve Yahtzee's rerolls (462 keeps, 58 KiB) on an AVX-512 core, and take about
    a tenth off Maxi Yatzy's solve (924 keeps, 116 KiB, partly in the second-level
    cache; measured slower before the final throw's maxima lost their divisions).
    Larger dice sets stay one block at a time (not measured).
    """
    blocks = width // lanes.lanes_of(itemsize)
    return 2 if 2 * 64 * n_keeps <= 128 * 1024 and blocks % 2 == 0 else 1


@njit(cache=True, nogil=True, **NO_REFS)
def solve_blocks(counter, w, segs, V, R, D, served, SR, stride, bufs, first_u):
    """Fill ``V`` for the segments of a chain of layers in single precision: a
    worker of :func:`.work.on_threads` (see :func:`turn_batches`)."""
    turn_batches(counter, w, segs, V, R, D, served, SR, stride, bufs, first_u)


@njit(cache=True, nogil=True, **NO_REFS)
def solve_blocks_double(counter, w, segs, V, R, D, served, SR, stride, bufs, first_u):
    """:func:`solve_blocks` in double precision: a function of its own, with a
    cache file of its own, so that another process can compile it while this one
    compiles the single-precision turn (:mod:`.ahead`)."""
    turn_batches(counter, w, segs, V, R, D, served, SR, stride, bufs, first_u)


@njit(cache=True, **NO_REFS)
def turn_batches(counter, w, segs, V, R, D, served, SR, stride, bufs, first_u):
    """Fill ``V`` for the segments of a chain of layers, taking batches from
    ``counter`` in thread ``w``'s buffers; each batch is turned in blocks of one
    lane vector. A batch of a layer starts once the layer before is finished
    (:func:`.work.wait_done`).

    The final throw is shared by the blocks of a batch (:func:`final_segment`,
    :func:`final_maxima`); the rerolls run block by block in the first-level cache
    (:func:`throws_block`), in the precision of the buffers ``bufs`` of
    :func:`thread_buffers`, each lane relative to a double-precision base. With
    ``served``, the first throw may also score at once with the served table.
    Upper totals below ``first_u[m]`` take that one's value (:func:`put_values`).
    """
    A, S, cand = bufs[0][w], bufs[1][w], bufs[2][w]
    choice, out, base = bufs[3][w], bufs[4][w], bufs[5][w]
    L = lanes.width(A)
    roll0 = D.size_start[D.dice]
    zero, yes = np.int64(0), np.bool_(True)  # not constants: see final_batch
    starts, ends = segs.starts, segs.ends
    layer = 0
    b = take(counter)
    while b < starts.shape[0] - 1:
        while b >= ends[layer]:  # the first batch of a later layer
            wait_done(counter, ends[layer])
            layer += 1
        s0, s1 = starts[b], starts[b + 1]
        used = final_batch(segs, s0, s1, V, A, stride, cand, choice, roll0, R, base, yes)
        if served:
            final_batch(segs, s0, s1, V, S, stride, cand, choice, zero, SR, base, not yes)
        throws_blocks(A, out, (used + L - 1) // L, stride, D, S, served, base)
        put_values(V, segs, s0, s1, out.reshape(out.size), first_u)
        done(counter)
        b = take(counter)


@njit(cache=True, **NO_REFS)
def put_values(V, segs, s0, s1, flat, first_u):
    """Store a batch's values, segments ``s0 .. s1``, from ``flat``. A segment that
    starts at its mask's ``first_u`` also gives its value to every upper total
    below: they have lost the bonus as it has, so the same operations on the same
    values would make the same value, to the last bit (see
    :func:`dicelab.engine.objectives.expected.first_lanes`)."""
    off = 0
    for j in range(s0, s1):
        m, y, u0 = segs.mask[j], segs.y[j], segs.u0[j]
        for ui in range(segs.nu[j]):
            V[m, y, u0 + ui] = flat[off + ui]
        if u0 == first_u[m]:
            for u in range(u0):
                V[m, y, u] = flat[off]
        off += segs.nu[j]


def thread_buffers(n_workers, width, R, D, served, SR, dtype, stride):
    """Each thread's scratch for :func:`solve_blocks` (turn rows, served rows,
    candidates, choices, out, base), ``n_workers`` of each, all zero (so lanes no
    segment uses hold finite values). Reused by every batch a thread takes: an
    allocation per batch costs a page-mapping system call wherever the allocator
    returns memory to the system early (Dask's workers ask it to)."""
    n_keeps = D.add.shape[0]
    n_rolls = n_keeps - D.size_start[D.dice]
    L = lanes.lanes_of(np.dtype(dtype).itemsize)
    nb = width // L
    n_cand = max(cand_rows.py_func(R.values), cand_rows.py_func(SR.values)) + 2
    zeros = lanes.aligned_zeros
    return (
        zeros((n_workers, nb // stride, n_keeps * stride, L), dtype),
        zeros((n_workers, nb // stride, (n_rolls if served else 1) * stride, L), dtype),
        zeros((n_workers, n_cand, nb, L), dtype),
        np.zeros((n_workers, 4, max(n_cand, R.values.shape[0])), np.int64),
        zeros((n_workers, nb, L), np.float64),
        zeros((n_workers, nb * L), np.float64),
    )


#: Masks a batch of :func:`nan_where_unreachable` takes.
NAN_MASKS = 4096


@njit(cache=True, nogil=True, **NO_REFS)
def nan_where_unreachable(counter, w, V, reach, subset, yahtzee):
    """NaN where :func:`dicelab.engine.objectives.expected.mark_unreachable` says, on
    ``V[mask, y, middle, u]``: a worker of :func:`.work.on_threads`."""
    b = take(counter)
    while b * NAN_MASKS < V.shape[0]:
        nan_masks(V, reach, subset, yahtzee, b * NAN_MASKS, min((b + 1) * NAN_MASKS, V.shape[0]))
        b = take(counter)


@njit(cache=True, **NO_REFS)
def nan_masks(V, reach, subset, yahtzee, lo, hi):
    """:func:`nan_where_unreachable` on masks ``lo .. hi``."""
    for m in range(lo, hi):
        row = reach[subset[m]]
        no_flag = yahtzee >= 0 and (m >> yahtzee) & 1 == 0
        for y in range(V.shape[1]):
            for s in range(V.shape[2]):
                for u in range(V.shape[3]):
                    if not row[u] or (y == 1 and no_flag):
                        V[m, y, s, u] = np.nan
