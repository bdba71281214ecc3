"""Numba kernels shared by the solvers: one turn, many states at once.

A turn is valued backwards through its throws. After the last throw the player
picks a box (:func:`final_roll_values`). Before a reroll, the value of a keep is
the average over one more die of the keeps one die larger (:func:`keep_values`),
and the best choice inside a set of dice is the best of its sub-keeps with one
die fewer (:func:`best_keeps`). Both touch ``keeps x faces`` entries per throw.

Every array row here holds *lanes*: the same turn for several states that differ
only in the upper total. Lane ``ui`` is the state with upper total ``u0 + ui``;
the inner loops run over contiguous lanes, which the compiler vectorises. The
expected-score solve (:func:`solve_blocks`) cuts its rows into blocks of exactly
one SIMD register (:mod:`dicelab.solve.lanes`) so a turn's scratch stays in the
first-level cache, and holds single-precision values relative to a
double-precision base.

The value table ``V`` has shape ``(2**boxes, n_flag, n_upper)``: the expected
points still to come at the start of a turn. The last section runs the same turn
with lanes over points (the target and utility tables of :mod:`dicelab.solve.target`).

Importing this module imports Numba; modules that answer one position (advice,
:mod:`dicelab.solve.turn`) do not, and the solvers import it when they solve.
"""

from __future__ import annotations

import numpy as np
from numba import get_thread_id, njit, prange

from dicelab.rules import placement
from dicelab.solve import lanes

#: Below every value a kernel compares, and finite in float32 as in float64.
NEG = -3.0e38

def announce_compile(*dispatchers) -> None:
    """On a terminal, say so before a first run compiles kernels (Numba caches them)."""
    import os
    import sys

    if not sys.stderr.isatty():
        return
    try:
        fresh = any(not os.path.exists(d._cache._cache_file._index_path) for d in dispatchers)
    except AttributeError:  # another Numba: nothing to say
        return
    if fresh:
        print(
            "note: compiling the solver kernels once (20 to 40 s); later runs reuse them",
            file=sys.stderr,
        )


#: Floating-point licence for the max-heavy kernels: no NaN or infinity reaches
#: them (unreachable states are never read), so comparisons compile to vector max.
FAST = {"nnan", "ninf", "nsz"}


@njit(cache=True, inline="always")
def n_distinct(values, c):
    """How many distinct scores box ``c`` has (``values[c]`` is padded with its last)."""
    k = 1
    while k < values.shape[1] and values[c, k] != values[c, k - 1]:
        k += 1
    return k


@njit(cache=True)
def open_box_rows(mask, values):
    """The open boxes of a state and where their candidates sit in a ``cand`` buffer.

    Returns ``(open_boxes, first_row, n_vals, n_open, total)``: open box ``t`` is
    ``open_boxes[t]``, its ``n_vals[t]`` distinct scores (``values[c, :n_vals]``)
    take the rows from ``first_row[t]``; ``total`` rows are used in all.
    """
    n_cat = values.shape[0]
    open_boxes = np.empty(n_cat, np.int64)
    first_row = np.empty(n_cat, np.int64)
    n_vals = np.empty(n_cat, np.int64)
    n_open = 0
    pos = 0
    for c in range(n_cat):
        if (mask >> c) & 1 == 1:
            continue
        k = n_distinct(values, c)
        open_boxes[n_open] = c
        first_row[n_open] = pos
        n_vals[n_open] = k
        n_open += 1
        pos += k
    return open_boxes, first_row, n_vals, n_open, pos


@njit(cache=True)
def cand_rows(values):
    """Rows of the candidate buffer :func:`final_roll_values` needs."""
    return values.shape[0] * values.shape[1] + 1


@njit(cache=True, fastmath=FAST)
def final_roll_values(
    mask, u0, nu, y, off, V, A, cand, roll0, score, joker_score, roll_face, upper,
    upper_box_of_face, threshold, yahtzee, joker, extra_bonus, n_flag, values, index,
):  # fmt: skip
    """Best box for every final roll: fills ``A[roll0 + r, off : off + nu]``.

    The value of a box is its points, the extra all-same bonus where due, and the
    value of the next turn's state. Rolls that are not all alike score the same
    way whatever the box history, so each box's distinct scores are valued once
    (``cand``) and each roll takes the best of its candidates; the all-same rolls,
    where bonus and joker rules apply, take the general path.
    """
    n_cat, n_rolls = score.shape
    if cand.shape[0] < cand_rows(values) or cand.shape[1] < nu:
        raise ValueError("final_roll_values: cand needs cand_rows(values) rows of nu lanes")
    open_boxes, first_row, n_vals_of, n_open, total_rows = open_box_rows(mask, values)
    for t in range(n_open):
        c = open_boxes[t]
        pos = first_row[t]
        n_vals = n_vals_of[t]
        src = V[mask | (1 << c), 0 if c == yahtzee else y]
        shift = upper[c] and threshold > 0
        for j in range(n_vals):
            pts = values[c, j]
            crow = cand[pos + j, :nu]
            if shift:
                for ui in range(nu):
                    u2 = u0 + ui + pts
                    crow[ui] = pts + src[u2 if u2 < threshold else threshold]
            else:
                for ui in range(nu):
                    crow[ui] = pts + src[u0 + ui]
    # A box's candidates grow with its points (the next state's value never falls
    # with a higher upper total), so a box scoring 0 for a roll is never better
    # than its own 0-candidate: all of those are covered by one row, the best
    # 0-candidate of the open boxes, and each roll only visits its scoring boxes.
    zero = cand[total_rows, :nu]
    for ui in range(nu):
        zero[ui] = NEG
    for t in range(n_open):
        if values[open_boxes[t], 0] == 0:
            crow = cand[first_row[t], :nu]
            for ui in range(nu):
                a = zero[ui]
                b = crow[ui]
                zero[ui] = a if a > b else b
    # rows to compare for a roll: the zero row, its scoring boxes, padded with the
    # zero row to whole groups of three
    picks = np.empty(n_open + 3, np.int64)
    for r in range(n_rolls):
        row = A[roll0 + r, off : off + nu]
        if roll_face[r] >= 0:
            for ui in range(nu):
                row[ui] = NEG
            continue
        n = 1
        picks[0] = total_rows
        for t in range(n_open):
            c = open_boxes[t]
            j = index[c, r]
            if j == 0 and values[c, 0] == 0:
                continue
            picks[n] = first_row[t] + j
            n += 1
        while n % 3 != 0:
            picks[n] = total_rows
            n += 1
        max_of(row, cand[picks[0], :nu], cand[picks[1], :nu], cand[picks[2], :nu], nu)
        for g in range(3, n, 3):
            max_into(row, cand[picks[g], :nu], cand[picks[g + 1], :nu], cand[picks[g + 2], :nu],
                     nu)  # fmt: skip
    for r in range(n_rolls):
        face = roll_face[r]
        if face < 0:
            continue
        row = A[roll0 + r, off : off + nu]
        allowed, active, extra, zeroed = box_rule(
            mask, y, face, upper, upper_box_of_face, yahtzee, joker, extra_bonus
        )
        for c in range(n_cat):
            if (allowed >> c) & 1 == 0:
                continue
            pts = box_points(c, r, active, zeroed, score, joker_score)
            y2 = next_flag(c, y, pts, yahtzee, n_flag)
            add = pts + extra
            src = V[mask | (1 << c), y2]
            for ui in range(nu):
                u2 = u0 + ui
                if upper[c] and threshold > 0:
                    u2 += pts
                    if u2 > threshold:
                        u2 = threshold
                v = add + src[u2]
                if v > row[ui]:
                    row[ui] = v


#: The placement rules of :mod:`dicelab.rules.placement`, compiled for the kernels.
box_rule = njit(cache=True)(placement.box_rule)
next_flag = njit(cache=True)(placement.next_flag)
box_points = njit(cache=True)(placement.box_points)


@njit(cache=True, fastmath=FAST | {"contract"})
def keep_values(A, add, size_start, dice, faces, lanes):
    """Expected value of every keep smaller than a full roll, from the full rolls.

    ``A[k] = mean over f of A[add[k, f]]``, largest keeps first. Faces are summed
    two rows at a time in registers, in the order ``((a0 + a1) + a2) + ...``, and
    each row is written once per pair.
    """
    inv = A.dtype.type(1.0 / faces)
    # 1/faces is inexact in any binary precision: ``lo`` holds the part ``inv``
    # misses, and ``x * inv + x * lo`` contracts to one fused multiply-add, so the
    # mean is rounded once and not biased upwards at every throw (in single
    # precision that bias alone moves a 13-turn game's value by 3e-5). In double
    # precision ``lo`` is 0 and the result is ``x * inv``.
    lo = A.dtype.type(1.0 / faces - np.float64(inv))
    for k in range(size_start[dice] - 1, -1, -1):
        row = A[k, :lanes]
        a = A[add[k, 0], :lanes]
        b = A[add[k, 1], :lanes]
        if faces == 2:
            for lane in range(lanes):
                x = a[lane] + b[lane]
                row[lane] = x * inv + x * lo
            continue
        for lane in range(lanes):
            row[lane] = a[lane] + b[lane]
        f = 2
        while f + 2 <= faces:
            a = A[add[k, f], :lanes]
            b = A[add[k, f + 1], :lanes]
            if f + 2 == faces:
                for lane in range(lanes):
                    x = (row[lane] + a[lane]) + b[lane]
                    row[lane] = x * inv + x * lo
            else:
                for lane in range(lanes):
                    row[lane] = (row[lane] + a[lane]) + b[lane]
            f += 2
        if f < faces:
            a = A[add[k, f], :lanes]
            for lane in range(lanes):
                x = row[lane] + a[lane]
                row[lane] = x * inv + x * lo


@njit(cache=True, fastmath=FAST)
def max_into(row, a, b, c, lanes):
    """``row = max(row, a, b, c)`` lane by lane, the maximum taken in registers.

    Writing the row once, after the comparisons, lets the compiler use vector max
    instructions; a conditional write per comparison compiles to masked stores.
    """
    for lane in range(lanes):
        m = row[lane]
        x = a[lane]
        m = m if m > x else x
        x = b[lane]
        m = m if m > x else x
        x = c[lane]
        m = m if m > x else x
        row[lane] = m


@njit(cache=True, fastmath=FAST)
def max_of(row, a, b, c, lanes):
    """``row = max(a, b, c)`` lane by lane (see :func:`max_into`)."""
    for lane in range(lanes):
        m = a[lane]
        x = b[lane]
        m = m if m > x else x
        x = c[lane]
        row[lane] = m if m > x else x


@njit(cache=True, fastmath=FAST)
def best_keeps(A, sub_rows, lanes):
    """Best keep inside every set of dice, in place: ``A[k] = max(A[k], A[k - f])``.

    Keeps are visited smallest first, so ``A[k - f]`` already holds the best keep
    inside ``k - f`` when ``k`` is reached; afterwards the full-roll rows hold the
    value of each roll before the throw that was just valued. ``sub_rows`` (see
    :attr:`dicelab.dice.DiceSpace.sub_rows`) lists the sub-keeps three at a time,
    padded with the keep itself.
    """
    width = sub_rows.shape[1]
    for k in range(A.shape[0]):
        subs = sub_rows[k]
        if subs[0] == k:
            continue
        row = A[k, :lanes]
        for j in range(0, width, 3):
            if subs[j] == k:
                break
            max_into(row, A[subs[j], :lanes], A[subs[j + 1], :lanes], A[subs[j + 2], :lanes],
                     lanes)  # fmt: skip


@njit(cache=True)
def throws_and_start(A, out, add, sub_rows, size_start, roll_prob, dice, faces, rerolls, lanes,
                     S, served):  # fmt: skip
    """From final-roll values in ``A`` to turn-start values in ``out[:lanes]``.

    With ``served``, ``S[r]`` holds each first-throw roll scored at once with its
    served points; the first throw takes the better of that and rolling on.
    """
    roll0 = size_start[dice]
    for _ in range(rerolls):
        keep_values(A, add, size_start, dice, faces, lanes)
        best_keeps(A, sub_rows, lanes)
    if served:
        for r in range(roll_prob.shape[0]):
            row = A[roll0 + r, :lanes]
            srow = S[r, :lanes]
            for lane in range(lanes):
                a = row[lane]
                b = srow[lane]
                row[lane] = a if a > b else b
    first_throw_mean(A, out, roll_prob, roll0, lanes)


@njit(cache=True)
def first_throw_mean(A, out, roll_prob, roll0, lanes):
    """Turn-start values ``out[:lanes]``: the first throw's rolls weighed by their chances."""
    for lane in range(lanes):
        out[lane] = 0.0
    for r in range(roll_prob.shape[0]):
        p = roll_prob[r]
        src = A[roll0 + r, :lanes]
        for lane in range(lanes):
            out[lane] += p * src[lane]


@njit(cache=True)
def plan_batches(masks, extent, yahtzee, n_flag, width):
    """Cut a layer's states into batches of at most ``width`` lanes.

    Returns segment arrays ``(mask, y, u0, nu)`` and ``start``: batch ``b`` holds
    segments ``start[b]:start[b + 1]``. Batching several masks together keeps the
    rows wide, so the per-row cost of the throw kernels is shared by many states.
    """
    n = 0
    for i in range(masks.shape[0]):
        ny = 2 if (n_flag == 2 and (masks[i] >> yahtzee) & 1 == 1) else 1
        n += ny * ((extent[masks[i]] + width - 1) // width)
    seg_mask = np.empty(n, np.int64)
    seg_y = np.empty(n, np.int64)
    seg_u0 = np.empty(n, np.int64)
    seg_nu = np.empty(n, np.int64)
    starts = np.empty(n + 1, np.int64)
    j = 0
    nb = 0
    used = width
    for i in range(masks.shape[0]):
        m = masks[i]
        ny = 2 if (n_flag == 2 and (m >> yahtzee) & 1 == 1) else 1
        for y in range(ny):
            u0 = 0
            while u0 < extent[m]:
                nu = min(width, extent[m] - u0)
                if used + nu > width:
                    starts[nb] = j
                    nb += 1
                    used = 0
                seg_mask[j] = m
                seg_y[j] = y
                seg_u0[j] = u0
                seg_nu[j] = nu
                used += nu
                j += 1
                u0 += nu
    starts[nb] = j
    return seg_mask, seg_y, seg_u0, seg_nu, starts[: nb + 1]



# -- blocks of one lane vector: the expected-score turn (:mod:`dicelab.solve.lanes`) --
# The same turn as above, on scratch rows exactly one lane vector wide: every
# row operation is a handful of SIMD instructions on data that stays in the
# first-level cache. A block holds one or more segments (mask, flag, a run of
# upper totals), each at its own lane offset.
@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def put(A, blk, row, stride, m):
    """Store ``m`` as row ``row`` of block ``blk``: ``A[blk, row]``, or with ``stride``
    2, where blocks are paired row by row, ``A[blk // 2, 2 * row + blk % 2]``."""
    if stride == 1:
        lanes.store_at(A, blk, row, m)
    else:
        lanes.store_at(A, blk >> 1, 2 * row + (blk & 1), m)


@njit(cache=True, inline="always")
def put_lanes(A, blk, row, stride, m, lo, hi):
    """:func:`put` for the lanes ``lo <= lane < hi`` only."""
    if stride == 1:
        lanes.store_lanes_at(A, blk, row, m, lo, hi)
    else:
        lanes.store_lanes_at(A, blk >> 1, 2 * row + (blk & 1), m, lo, hi)


@njit(cache=True)
def final_segment(mask, u0, nu, y, off, V, A, stride, cand, roll0, score, joker_score,
                  roll_face, upper, upper_box_of_face, threshold, yahtzee, joker, extra_bonus,
                  n_flag, values, index, base, set_base, shared):  # fmt: skip
    """The candidates of one segment (lanes ``off .. off + nu`` of a batch) and its
    all-alike rolls; :func:`final_maxima` then takes every other roll's best box
    for the whole batch at once.

    Candidate row ``c * n_vals + j`` (``n_vals = values.shape[1]``) holds box ``c``'s
    ``j``-th distinct score in every lane whose state has ``c`` open, and ``NEG``
    in this segment's lanes when ``c`` is filled here but open in another segment
    of the batch (``shared``, the batch's open boxes). Row ``n_cat * n_vals`` holds
    each lane's best 0-candidate, which covers every box a roll scores 0 in (see
    :func:`final_roll_values`); the next two are scratch for the all-alike rolls,
    stored straight into ``A`` (as :func:`put` says, ``stride`` 1 or 2). Values are
    relative to ``base[off + ui]``; with ``set_base`` this sets it, to the lowest
    candidate of the first open box.
    """
    n_cat, n_rolls = score.shape
    nv = values.shape[1]
    L = lanes.width(A)
    flat = cand.reshape((cand.shape[0], cand.shape[1] * L))
    b0 = off // L
    b1 = (off + nu - 1) // L
    open_boxes, first_row, n_vals_of, n_open, _ = open_box_rows(mask, values)
    lb = base[off : off + nu]
    if set_base:
        lb[:] = 0.0
        if n_open > 0:
            c = open_boxes[0]
            pts = values[c, 0]
            after_box(lb, V[mask | (1 << c), 0 if c == yahtzee else y], u0, pts,
                      upper[c] and threshold > 0, threshold, float(pts), lb)  # fmt: skip
    zrow = flat[n_cat * nv, off : off + nu]
    zrow[:] = NEG
    for c in range(n_cat):
        if (shared >> c) & 1 == 0:
            continue
        if (mask >> c) & 1 == 1:  # filled here, open elsewhere in the batch
            for j in range(n_distinct(values, c)):
                flat[c * nv + j, off : off + nu] = NEG
            continue
        src = V[mask | (1 << c), 0 if c == yahtzee else y]
        shift = upper[c] and threshold > 0
        for j in range(n_distinct(values, c)):
            pts = values[c, j]
            crow = flat[c * nv + j, off : off + nu]
            after_box(crow, src, u0, pts, shift, threshold, float(pts), lb)
            if j == 0 and pts == 0:
                for ui in range(nu):
                    zrow[ui] = max(zrow[ui], crow[ui])
    best = flat[n_cat * nv + 1, off : off + nu]
    tmp = flat[n_cat * nv + 2, off : off + nu]
    for r in range(n_rolls):
        face = roll_face[r]
        if face < 0:
            continue
        allowed, active, extra, zeroed = box_rule(
            mask, y, face, upper, upper_box_of_face, yahtzee, joker, extra_bonus
        )
        best[:] = NEG
        for c in range(n_cat):
            if (allowed >> c) & 1 == 0:
                continue
            pts = box_points(c, r, active, zeroed, score, joker_score)
            y2 = next_flag(c, y, pts, yahtzee, n_flag)
            after_box(tmp, V[mask | (1 << c), y2], u0, pts, upper[c] and threshold > 0,
                      threshold, pts + extra, lb)  # fmt: skip
            for ui in range(nu):
                best[ui] = max(best[ui], tmp[ui])
        for blk in range(b0, b1 + 1):
            lo = max(off - blk * L, 0)
            hi = min(off + nu - blk * L, L)
            put_lanes(A, blk, roll0 + r, stride, lanes.load_at(cand, n_cat * nv + 1, blk), lo,
                      hi)  # fmt: skip


@njit(cache=True, inline="always")
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


@njit(cache=True)
def final_maxima(off, nu, A, stride, cand, picks, roll0, boxes, roll_face, values, index):
    """Every ordinary final roll's best box for lanes ``off .. off + nu`` of a batch
    (the candidates of :func:`final_segment`): one list of candidate rows a roll,
    the best 0-candidate and the boxes of ``boxes`` that score for it."""
    n_cat = values.shape[0]
    nv = values.shape[1]
    for r in range(roll_face.shape[0]):
        if roll_face[r] >= 0:
            continue
        picks[0] = n_cat * nv
        n = 1
        for c in range(n_cat):
            if (boxes >> c) & 1 == 0:
                continue
            j = index[c, r]
            if j == 0 and values[c, 0] == 0:
                continue
            picks[n] = c * nv + j
            n += 1
        max_rows(A, stride, cand, picks, n, roll0 + r, off, nu)


@njit(cache=True)
def final_batch(seg_mask, seg_y, seg_u0, seg_nu, first, last, V, A, stride, cand, picks, roll0,
                score, joker_score, roll_face, upper, upper_box_of_face, threshold, yahtzee,
                joker, extra_bonus, n_flag, values, index, base, set_base):  # fmt: skip
    """The final throw of segments ``first .. last`` of a batch, side by side.

    Each roll's list of boxes is made once for the whole batch (the boxes open in
    any of its segments, ``NEG`` where a segment has them filled) when that costs
    fewer vector maxima than a list per segment; otherwise one list per segment.
    Returns the lanes the segments take.
    """
    L = lanes.width(A)
    full = (1 << values.shape[0]) - 1
    shared = 0
    split_cost = 0
    off = 0
    for j in range(first, last):
        own = full & ~seg_mask[j]
        shared |= own
        blocks = (off + seg_nu[j] - 1) // L - off // L + 1
        split_cost += popcount(own) * blocks
        off += seg_nu[j]
    used = off
    nbk = (used + L - 1) // L
    together = popcount(shared) * nbk <= split_cost
    off = 0
    for j in range(first, last):
        final_segment(
            seg_mask[j], seg_u0[j], seg_nu[j], seg_y[j], off, V, A, stride, cand, roll0, score,
            joker_score, roll_face, upper, upper_box_of_face, threshold, yahtzee, joker,
            extra_bonus, n_flag, values, index, base, set_base,
            shared if together else full & ~seg_mask[j],
        )  # fmt: skip
        if not together:
            final_maxima(off, seg_nu[j], A, stride, cand, picks, roll0, full & ~seg_mask[j],
                         roll_face, values, index)  # fmt: skip
        off += seg_nu[j]
    if together:
        final_maxima(0, nbk * L, A, stride, cand, picks, roll0, shared, roll_face, values,
                     index)  # fmt: skip
    return used


@njit(cache=True, inline="always")
def popcount(x):
    """The number of bits set in ``x``."""
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def mean_of(x, inv, lo):
    """``x / faces`` rounded once: ``x * inv + x * lo`` as one fused multiply-add,
    ``lo`` the part of ``1 / faces`` that ``inv`` misses."""
    return lanes.vfma(x, lanes.splat(x, inv), lanes.vmul(x, lanes.splat(x, lo)))


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def throws_block(A, out, add, sub_rows, size_start, roll_prob, dice, faces, rerolls, S, served,
                 base):  # fmt: skip
    """:func:`throws_and_start` on lane-vector rows; ``out`` gets every lane of the
    block, the first throw's mean summed in double precision plus ``base``."""
    roll0 = size_start[dice]
    for _ in range(rerolls):
        keep_block(A, add, size_start, dice, faces)
        best_block(A, sub_rows)
    if served:
        for r in range(roll_prob.shape[0]):
            lanes.store(A, roll0 + r, lanes.vmax(lanes.load(A, roll0 + r), lanes.load(S, r)))
    acc = lanes.splat(lanes.widen(lanes.load(A, roll0)), 0.0)
    for r in range(roll_prob.shape[0]):
        x = lanes.widen(lanes.load(A, roll0 + r))
        acc = lanes.vfma(x, lanes.splat(x, roll_prob[r]), acc)
    lanes.store(out, 0, acc)
    for lane in range(A.shape[1]):
        out[lane] += base[lane]


@njit(cache=True)
def keep_pair(A, add, size_start, dice, faces):
    """:func:`keep_block` on two blocks paired row by row (``A[k, j]`` is row ``k``
    of block ``j``): two independent chains of additions, so the core overlaps
    them."""
    inv = A.dtype.type(1.0 / faces)
    lo = A.dtype.type(1.0 / faces - np.float64(inv))
    for k in range(size_start[dice] - 1, -1, -1):
        x0 = lanes.load_at(A, add[k, 0], 0)
        x1 = lanes.load_at(A, add[k, 0], 1)
        for f in range(1, faces):
            x0 = lanes.vadd(x0, lanes.load_at(A, add[k, f], 0))
            x1 = lanes.vadd(x1, lanes.load_at(A, add[k, f], 1))
        lanes.store_at(A, k, 0, mean_of(x0, inv, lo))
        lanes.store_at(A, k, 1, mean_of(x1, inv, lo))


@njit(cache=True)
def best_pair(A, sub_rows):
    """:func:`best_block` on two blocks paired row by row."""
    width = sub_rows.shape[1]
    for k in range(A.shape[0]):
        i = sub_rows[k, 0]
        if i == k:
            continue
        m0 = lanes.vmax(lanes.load_at(A, k, 0), lanes.load_at(A, i, 0))
        m1 = lanes.vmax(lanes.load_at(A, k, 1), lanes.load_at(A, i, 1))
        for j in range(1, width):
            i = sub_rows[k, j]
            if i == k:
                break
            m0 = lanes.vmax(m0, lanes.load_at(A, i, 0))
            m1 = lanes.vmax(m1, lanes.load_at(A, i, 1))
        lanes.store_at(A, k, 0, m0)
        lanes.store_at(A, k, 1, m1)


@njit(cache=True)
def throws_pair(A, out, add, sub_rows, size_start, roll_prob, dice, faces, rerolls, S, served,
                base):  # fmt: skip
    """:func:`throws_block` on two blocks paired row by row: ``out[j]`` gets block
    ``j``'s turn-start values, ``base[j * lanes + lane]`` added."""
    roll0 = size_start[dice]
    L = lanes.width(A)
    for _ in range(rerolls):
        keep_pair(A, add, size_start, dice, faces)
        best_pair(A, sub_rows)
    if served:
        for r in range(roll_prob.shape[0]):
            for j in range(2):
                lanes.store_at(A, roll0 + r, j,
                               lanes.vmax(lanes.load_at(A, roll0 + r, j), lanes.load_at(S, r, j)))
    acc0 = lanes.splat(lanes.widen(lanes.load_at(A, roll0, 0)), 0.0)
    acc1 = acc0
    for r in range(roll_prob.shape[0]):
        x0 = lanes.widen(lanes.load_at(A, roll0 + r, 0))
        x1 = lanes.widen(lanes.load_at(A, roll0 + r, 1))
        p = lanes.splat(x0, roll_prob[r])
        acc0 = lanes.vfma(x0, p, acc0)
        acc1 = lanes.vfma(x1, p, acc1)
    lanes.store(out, 0, acc0)
    lanes.store(out, 1, acc1)
    for j in range(2):
        for lane in range(L):
            out[j, lane] += base[j * L + lane]


@njit(cache=True)
def throws_blocks(A, out, nbk, stride, add, sub_rows, size_start, roll_prob, dice, faces,
                  rerolls, S, served, base):  # fmt: skip
    """The rerolls and first throw of blocks ``0 .. nbk`` of a batch, one by one or
    two at a time (``stride``, see :func:`put`); ``out[blk]`` gets block ``blk``'s
    turn-start values."""
    L = lanes.width(A)
    if stride == 1:
        for blk in range(nbk):
            throws_block(A[blk], out[blk], add, sub_rows, size_start, roll_prob, dice, faces,
                         rerolls, S[blk], served, base[blk * L : blk * L + L])  # fmt: skip
        return
    n_keeps = A.shape[1] // 2
    n_s = S.shape[1] // 2
    for p in range((nbk + 1) // 2):
        throws_pair(A[p].reshape((n_keeps, 2, L)), out[2 * p : 2 * p + 2], add, sub_rows,
                    size_start, roll_prob, dice, faces, rerolls, S[p].reshape((n_s, 2, L)),
                    served, base[2 * p * L : 2 * p * L + 2 * L])  # fmt: skip


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


@njit(cache=True)
def zeros(shape, dtype):
    """``np.zeros`` outside a parallel region: inside one, Numba fills the array in a
    parallel loop of its own, scheduled element by element under a chunk size of 1."""
    return np.zeros(shape, dtype)


@njit(cache=True, parallel=True)
def solve_blocks(
    seg_mask, seg_y, seg_u0, seg_nu, starts, width, n_workers, V, score, joker_score,
    roll_face, upper, upper_box_of_face, threshold, yahtzee, joker, extra_bonus, n_flag,
    values, index, add, sub_rows, size_start, roll_prob, dice, faces, rerolls, served,
    served_score, served_values, served_index, scratch, stride,
):  # fmt: skip
    """Fill ``V`` for every segment of a layer; batches of ``width`` lanes run in
    parallel, each turned in blocks of one lane vector.

    The final throw is shared by the blocks of a batch (:func:`final_segment`,
    :func:`final_maxima`); the
    rerolls run block by block in the first-level cache (:func:`throws_block`), in
    the precision of ``scratch`` (an empty array; its lane vector must divide
    ``width``), each lane relative to a double-precision base. Each thread reuses
    its own buffers (indexed by thread id, ``n_workers`` of them): an allocation
    per batch costs a page-mapping system call wherever the allocator returns
    memory to the system early (Dask's workers ask it to). Buffers start at zero,
    so lanes no segment uses hold finite values. With ``served``, the first throw
    may also score at once with the served table.
    """
    n_keeps = add.shape[0]
    roll0 = size_start[dice]
    n_rolls = n_keeps - roll0
    dt = scratch.dtype
    L = lanes.width(scratch)
    nb = width // L
    n_cand = max(cand_rows(values), cand_rows(served_values)) + 2
    A_of = zeros((n_workers, nb // stride, n_keeps * stride, L), dt)
    S_of = zeros((n_workers, nb // stride, (n_rolls if served else 1) * stride, L), dt)
    cand_of = zeros((n_workers, n_cand, nb, L), dt)
    picks_of = np.empty((n_workers, n_cand), np.int64)
    out_of = np.empty((n_workers, nb, L))
    base_of = np.empty((n_workers, nb * L))
    for b in prange(starts.shape[0] - 1):
        w = get_thread_id()
        A = A_of[w]
        S = S_of[w]
        cand = cand_of[w]
        picks = picks_of[w]
        out = out_of[w]
        base = base_of[w]
        used = final_batch(
            seg_mask, seg_y, seg_u0, seg_nu, starts[b], starts[b + 1], V, A, stride, cand,
            picks, roll0, score, joker_score, roll_face, upper, upper_box_of_face, threshold,
            yahtzee, joker, extra_bonus, n_flag, values, index, base, True,
        )  # fmt: skip
        if served:
            final_batch(
                seg_mask, seg_y, seg_u0, seg_nu, starts[b], starts[b + 1], V, S, stride, cand,
                picks, 0, served_score, joker_score, roll_face, upper, upper_box_of_face,
                threshold, yahtzee, joker, extra_bonus, n_flag, served_values, served_index,
                base, False,
            )  # fmt: skip
        throws_blocks(A, out, (used + L - 1) // L, stride, add, sub_rows, size_start, roll_prob,
                      dice, faces, rerolls, S, served, base)  # fmt: skip
        flat = out.reshape(nb * L)
        off = 0
        for j in range(starts[b], starts[b + 1]):
            for ui in range(seg_nu[j]):
                V[seg_mask[j], seg_y[j], seg_u0[j] + ui] = flat[off + ui]
            off += seg_nu[j]


@njit(cache=True, parallel=True)
def solve_saved_batches(
    seg_mask, seg_y, seg_u0, seg_nu, starts, width, n_workers, saved, V, score, joker_score,
    roll_face, upper, upper_box_of_face, threshold, yahtzee, joker, extra_bonus, n_flag,
    values, index, add, sub_rows, size_start, roll_prob, dice, faces, rerolls,
):  # fmt: skip
    """Fill ``V[:, :, saved]`` for the segments of a layer, when unused throws are saved.

    ``V`` has shape ``(2**boxes, n_flag, n_saved, n_upper)``. A turn that starts with
    ``saved`` throws in hand has ``rerolls + saved`` rerolls; scoring with ``r``
    rerolls left keeps ``r`` throws (at most ``n_saved - 1``) for the next turn, so
    every throw values the full rolls as scored there and then (keeping every die
    and throwing none is never better: an unused throw is kept anyway).
    """
    n_keeps = add.shape[0]
    roll0 = size_start[dice]
    cap = V.shape[2] - 1
    levels = rerolls + saved
    A_of = np.empty((n_workers, n_keeps, width))
    cand_of = np.empty((n_workers, cand_rows(values), width))
    out_of = np.empty((n_workers, width))
    for b in prange(starts.shape[0] - 1):
        w = get_thread_id()
        A = A_of[w]
        cand = cand_of[w]
        out = out_of[w]
        lanes = 0
        for j in range(starts[b], starts[b + 1]):
            lanes += seg_nu[j]
        for level in range(levels + 1):
            if level > 0:
                keep_values(A, add, size_start, dice, faces, lanes)
            Vn = V[:, :, min(level, cap), :]
            off = 0
            for j in range(starts[b], starts[b + 1]):
                final_roll_values(
                    seg_mask[j], seg_u0[j], seg_nu[j], seg_y[j], off, Vn, A, cand, roll0,
                    score, joker_score, roll_face, upper, upper_box_of_face, threshold,
                    yahtzee, joker, extra_bonus, n_flag, values, index,
                )  # fmt: skip
                off += seg_nu[j]
            if level > 0:
                best_keeps(A, sub_rows, lanes)
        first_throw_mean(A, out, roll_prob, roll0, lanes)
        off = 0
        for j in range(starts[b], starts[b + 1]):
            for ui in range(seg_nu[j]):
                V[seg_mask[j], seg_y[j], saved, seg_u0[j] + ui] = out[off + ui]
            off += seg_nu[j]


# -- lanes over points: the target and utility tables (:mod:`dicelab.solve.target`) --
@njit(cache=True, fastmath=FAST)
def best_candidates(A, roll0, nl, cand, open_boxes, first_row, n_open, index, roll_face):
    """Each ordinary final roll in its best open box: ``A[roll0 + r, :nl]``.

    Open box ``t`` keeps the candidate row of each of its distinct scores from
    ``first_row[t]`` on; roll ``r`` scores ``index[box, r]``-th of them.
    """
    picks = np.empty(n_open + 2, np.int64)
    for r in range(roll_face.shape[0]):
        if roll_face[r] >= 0:
            continue
        row = A[roll0 + r, :nl]
        for t in range(n_open):
            picks[t] = first_row[t] + index[open_boxes[t], r]
        n = n_open
        while n % 3 != 0:  # whole groups of three rows, padded with the first
            picks[n] = picks[0]
            n += 1
        max_of(row, cand[picks[0], :nl], cand[picks[1], :nl], cand[picks[2], :nl], nl)
        for g in range(3, n, 3):
            max_into(row, cand[picks[g], :nl], cand[picks[g + 1], :nl], cand[picks[g + 2], :nl],
                     nl)  # fmt: skip


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


@njit(cache=True)
def batch_runs(mask, y, f0, nl, lo, hi, off, runs):
    """The rows of ``(mask, y)`` that meet lanes ``f0 .. f0 + nl``, once per batch.

    ``runs[k] = (u, a, b, t0)``: upper total ``u`` holds lanes ``a .. b``, lane ``i``
    at points ``t0 + i``. Returns the number of runs.
    """
    n = 0
    for u in range(lo.shape[2]):
        r0 = off[mask, y, u]
        length = hi[mask, y, u] - lo[mask, y, u] + 1
        if r0 < 0 or length <= 0:
            continue
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


@njit(cache=True, inline="always")
def fill_runs(dst, f0, runs, n_runs, m2, y2, shift, pts, gain, T, lo, hi, off, sign, below,
              above, threshold):  # fmt: skip
    """Each lane's value after scoring ``pts`` (``gain`` with extras) in a box that
    leads to ``(m2, y2)``: a lane at points ``t`` reads the next state's row at
    ``t + sign * gain``, or ``below`` / ``above`` outside that row. Three
    contiguous stretches per run of :func:`batch_runs` (below, the next row,
    above), each indexed from zero."""
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
        d = dst[a - f0 : b - f0]
        for i in range(s1 - a):
            d[i] = below
        if s2 > s1:
            src = T[r2 + base - lo2 + s1 : r2 + base - lo2 + s2]
            mid = d[s1 - a : s2 - a]
            for i in range(s2 - s1):
                mid[i] = src[i]
        for i in range(s2 - a, b - a):
            d[i] = above


@njit(cache=True)
def final_points_block(mask, y, f0, nl, T, lo, hi, off, sign, below, above, A, stride, cand,
                       picks, runs, roll0, score, joker_score, roll_face, upper, upper_box_of_face,
                       threshold, yahtzee, joker, extra_bonus, n_flag, values,
                       index):  # fmt: skip
    """Best box for every final roll and lane (lanes over points) of one batch, cut
    into blocks of one lane vector: each box's distinct scores valued once, each
    ordinary roll the best of its boxes, all-same rolls by the joker rules.

    Row ``k`` of block ``blk``'s scratch is in ``A`` as :func:`put` says (``stride``
    1 or 2) and ``cand[i, blk]`` is its part of candidate
    row ``i`` (three rows more than the boxes' distinct scores); lanes past ``nl``
    hold finite leftovers that are never written back.
    """
    n_cat, n_rolls = score.shape
    L = lanes.width(A)
    nbk = (nl + L - 1) // L
    flat = cand.reshape((cand.shape[0], cand.shape[1] * L))
    n_runs = batch_runs(mask, y, f0, nl, lo, hi, off, runs)
    open_boxes, first_row, n_vals_of, n_open, total = open_box_rows(mask, values)
    for t in range(n_open):
        c = open_boxes[t]
        shift = upper[c] and threshold > 0
        for j in range(n_vals_of[t]):
            pts = values[c, j]
            fill_runs(flat[first_row[t] + j], f0, runs, n_runs, mask | (1 << c),
                      next_flag(c, y, pts, yahtzee, n_flag), shift, pts, pts, T, lo, hi, off,
                      sign, below, above, threshold)  # fmt: skip
    # Lanes over points still needed: more points never lower the chance, so a
    # box a roll scores 0 in is covered by the best 0-candidate of the open boxes
    # (row ``total + 2``), and each roll visits its scoring boxes only. (Lanes over
    # points so far serve any utility, which need not grow with the score.)
    zero_row = sign < 0
    if zero_row:
        zrow = flat[total + 2]
        zrow[:] = NEG
        for t in range(n_open):
            if values[open_boxes[t], 0] == 0:
                crow = flat[first_row[t]]
                for i in range(zrow.shape[0]):
                    zrow[i] = max(zrow[i], crow[i])
    for r in range(n_rolls):
        if roll_face[r] >= 0:
            continue
        n = 0
        if zero_row:
            picks[0] = total + 2
            n = 1
        for t in range(n_open):
            c = open_boxes[t]
            j = index[c, r]
            if zero_row and j == 0 and values[c, 0] == 0:
                continue
            picks[n] = first_row[t] + j
            n += 1
        max_rows(A, stride, cand, picks, n, roll0 + r, 0, nbk * L)
    tmp = flat[total + 1]
    for r in range(n_rolls):
        face = roll_face[r]
        if face < 0:
            continue
        allowed, active, extra, zeroed = box_rule(
            mask, y, face, upper, upper_box_of_face, yahtzee, joker, extra_bonus
        )
        # Without an extra bonus, each allowed box scores one of its distinct scores
        # and its candidate row is already made: the roll is a maximum like any other.
        n = 0
        for t in range(n_open if extra == 0 else 0):
            c = open_boxes[t]
            if (allowed >> c) & 1 == 0:
                continue
            pts = box_points(c, r, active, zeroed, score, joker_score)
            j = 0
            while j < n_vals_of[t] and values[c, j] != pts:
                j += 1
            if j == n_vals_of[t]:  # a score with no row of its own: fill below
                n = 0
                break
            picks[n] = first_row[t] + j
            n += 1
        if n > 0:
            max_rows(A, stride, cand, picks, n, roll0 + r, 0, nbk * L)
            continue
        first = True
        for c in range(n_cat):
            if (allowed >> c) & 1 == 0:
                continue
            pts = box_points(c, r, active, zeroed, score, joker_score)
            fill_runs(flat[total] if first else tmp, f0, runs, n_runs, mask | (1 << c),
                      next_flag(c, y, pts, yahtzee, n_flag), upper[c] and threshold > 0, pts,
                      pts + int(extra), T, lo, hi, off, sign, below, above,
                      threshold)  # fmt: skip
            if not first:
                for blk in range(nbk):
                    lanes.store_at(cand, total, blk, lanes.vmax(lanes.load_at(cand, total, blk),
                                                              lanes.load_at(cand, total + 1, blk)))
            first = False
        for blk in range(nbk):
            put(A, blk, roll0 + r, stride, lanes.load_at(cand, total, blk))


@njit(cache=True, parallel=True)
def solve_points_blocks(b_mask, b_y, b_f0, b_nl, width, n_workers, T, lo, hi, off, sign, below,
                        above, score, joker_score, roll_face, upper, upper_box_of_face,
                        threshold, yahtzee, joker, extra_bonus, n_flag, values, index, add,
                        sub_rows, size_start, roll_prob, dice, faces, rerolls, served,
                        served_score, served_values, served_index, stride):  # fmt: skip
    """Fill the lanes of a list of batches (lanes over points), each turned in blocks
    of one lane vector of ``T``'s precision (:func:`final_points_block`,
    :func:`throws_block`); ``width`` is a whole number of lane vectors.

    ``n_workers`` is the most threads a parallel region may use (buffers are
    indexed by thread id); batches are handed out one at a time (see
    :func:`solve_points`), so a thread the system pauses holds up one batch only.
    With ``served``, the first throw may also score at once with the served table.
    """
    n_keeps = add.shape[0]
    roll0 = size_start[dice]
    n_rolls = n_keeps - roll0
    L = lanes.width(T)
    nb = width // L
    n_cand = max(values.shape[0] * values.shape[1], served_values.shape[0] * served_values.shape[1])
    A_of = zeros((n_workers, nb // stride, n_keeps * stride, L), T.dtype)
    S_of = zeros((n_workers, nb // stride, (n_rolls if served else 1) * stride, L), T.dtype)
    cand_of = zeros((n_workers, n_cand + 3, nb, L), T.dtype)
    picks_of = np.empty((n_workers, n_cand + 1), np.int64)
    runs_of = np.empty((n_workers, lo.shape[2], 4), np.int64)
    out_of = np.empty((n_workers, nb, L))  # the first throw's mean in double precision
    no_base = zeros((nb * L,), np.float64)
    for b in prange(b_mask.shape[0]):
        w = get_thread_id()
        A = A_of[w]
        S = S_of[w]
        cand = cand_of[w]
        out = out_of[w]
        nl = b_nl[b]
        f0 = b_f0[b]
        final_points_block(
            b_mask[b], b_y[b], f0, nl, T, lo, hi, off, sign, below, above, A, stride, cand,
            picks_of[w], runs_of[w], roll0, score, joker_score, roll_face, upper,
            upper_box_of_face, threshold, yahtzee, joker, extra_bonus, n_flag, values, index,
        )  # fmt: skip
        if served:
            final_points_block(
                b_mask[b], b_y[b], f0, nl, T, lo, hi, off, sign, below, above, S, stride, cand,
                picks_of[w], runs_of[w], 0, served_score, joker_score, roll_face, upper,
                upper_box_of_face, threshold, yahtzee, joker, extra_bonus, n_flag,
                served_values, served_index,
            )  # fmt: skip
        throws_blocks(A, out, (nl + L - 1) // L, stride, add, sub_rows, size_start, roll_prob,
                      dice, faces, rerolls, S, served, no_base)  # fmt: skip
        flat = out.reshape(nb * L)
        for i in range(nl):
            T[f0 + i] = flat[i]


# -- two players: lanes over the lead (:mod:`dicelab.solve.duel`) ---------------------
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
def duel_next(i, j, c, pts, p_mask, p_y, p_u, p_count, pid, cstart, ncount, lbase, upper,
              threshold, yahtzee, n_flag):  # fmt: skip
    """The node after state ``i`` scores ``pts`` in box ``c`` (``j`` moves next)."""
    u2 = p_u[i]
    if upper[c] and threshold > 0:
        u2 = min(u2 + pts, threshold)
    i2 = pid[p_mask[i] | (1 << c), next_flag(c, p_y[i], pts, yahtzee, n_flag), u2]
    return duel_node(j, i2, p_count, cstart, ncount, lbase)


@njit(cache=True)
def duel_read(dst, nl, x0, gain, nn, T, toff, tbase, xlo, ulo, uhi, below, above):
    """``dst[l]``: node ``nn``'s value at lead ``gain - (x0 + l)`` of its waiting player.

    Leads above the node's undecided range are certain wins (``above``), below it
    certain losses (``below``); inside it they lie in the node's row, which starts
    at ``T[toff[nn] - tbase]`` with lead ``xlo[nn]``.
    """
    s1 = min(max(gain - x0 - uhi[nn], 0), nl)
    s2 = min(max(gain - x0 - ulo[nn] + 1, s1), nl)
    for lane in range(s1):
        dst[lane] = above
    base = toff[nn] - tbase + gain - x0 - xlo[nn]
    for lane in range(s1, s2):
        dst[lane] = T[base - lane]
    for lane in range(s2, nl):
        dst[lane] = below


@njit(cache=True)
def duel_final(i, j, x0, nl, T, toff, xlo, ulo, uhi, A, cand, tmp, roll0, p_mask, p_y, p_u,
               p_count, pid, cstart, ncount, lbase, score, joker_score, roll_face, upper,
               upper_box_of_face, threshold, yahtzee, joker, extra_bonus, n_flag, values,
               index):  # fmt: skip
    """The mover's best box for every final roll and lane: ``A[roll0 + r, :nl]``."""
    n_cat, n_rolls = score.shape
    mask = p_mask[i]
    y = p_y[i]
    open_boxes, first_row, n_vals_of, n_open, _ = open_box_rows(mask, values)
    for t in range(n_open):
        c = open_boxes[t]
        for v in range(n_vals_of[t]):
            pts = values[c, v]
            nn = duel_next(i, j, c, pts, p_mask, p_y, p_u, p_count, pid, cstart, ncount, lbase,
                           upper, threshold, yahtzee, n_flag)  # fmt: skip
            duel_read(cand[first_row[t] + v], nl, x0, pts, nn, T, toff, 0, xlo, ulo, uhi,
                      0.0, 1.0)  # fmt: skip
    best_candidates(A, roll0, nl, cand, open_boxes, first_row, n_open, index, roll_face)
    for r in range(n_rolls):
        face = roll_face[r]
        if face < 0:
            continue
        row = A[roll0 + r, :nl]
        for lane in range(nl):
            row[lane] = NEG
        allowed, active, extra, zeroed = box_rule(
            mask, y, face, upper, upper_box_of_face, yahtzee, joker, extra_bonus
        )
        for c in range(n_cat):
            if (allowed >> c) & 1 == 0:
                continue
            pts = box_points(c, r, active, zeroed, score, joker_score)
            nn = duel_next(i, j, c, pts, p_mask, p_y, p_u, p_count, pid, cstart, ncount, lbase,
                           upper, threshold, yahtzee, n_flag)  # fmt: skip
            duel_read(tmp, nl, x0, pts + int(extra), nn, T, toff, 0, xlo, ulo, uhi, 0.0, 1.0)
            for lane in range(nl):
                if tmp[lane] > row[lane]:
                    row[lane] = tmp[lane]


@njit(cache=True, parallel=True)
def duel_layer(b_i, b_j, b_node, b_x0, b_nl, width, n_workers, T, toff, xlo, ulo, uhi, p_mask,
               p_y, p_u, p_count, pid, cstart, ncount, lbase, score, joker_score, roll_face,
               upper, upper_box_of_face, threshold, yahtzee, joker, extra_bonus, n_flag, values,
               index, add, sub_rows, size_start, roll_prob, dice, faces, rerolls):  # fmt: skip
    """Solve a list of batches (a node and a run of its lanes) of one layer.

    The mover maximises their own chance; the row stores the complement, the
    chance of the player who waits.
    """
    n_keeps = add.shape[0]
    roll0 = size_start[dice]
    A_of = np.empty((n_workers, n_keeps, width))
    cand_of = np.empty((n_workers, values.shape[0] * values.shape[1], width))
    tmp_of = np.empty((n_workers, width))
    out_of = np.empty((n_workers, width))
    for b in prange(b_i.shape[0]):
        w = get_thread_id()
        A = A_of[w]
        out = out_of[w]
        nl = b_nl[b]
        x0 = b_x0[b]
        duel_final(
            b_i[b], b_j[b], x0, nl, T, toff, xlo, ulo, uhi, A, cand_of[w], tmp_of[w], roll0,
            p_mask, p_y, p_u, p_count, pid, cstart, ncount, lbase, score, joker_score,
            roll_face, upper, upper_box_of_face, threshold, yahtzee, joker, extra_bonus, n_flag,
            values, index,
        )  # fmt: skip
        throws_and_start(A, out, add, sub_rows, size_start, roll_prob, dice, faces, rerolls, nl,
                         A, False)  # fmt: skip
        node = b_node[b]
        base = toff[node] + x0 - xlo[node]
        for lane in range(nl):
            T[base + lane] = 1.0 - out[lane]


# -- evaluating pairs of strategies -----------------------------------------------------
# The same turn, with the decisions of the win-optimal table ``T`` and further
# quantities carried along each decision: the mover's chances to win and to tie
# under the pairs of strategies being evaluated. Each keep holds a block of rows,
# row 0 the decision value and rows 1.. the quantities that follow it.
@njit(cache=True, fastmath=FAST)
def follow_all(d, p1, p2, p3, nq, nl):
    """Block ``d`` takes, lane by lane, the rows of whichever of ``d``, ``p1``, ``p2``,
    ``p3`` has the largest row 0 (the first of equal ones).

    Every value is loaded before the choice, so the comparisons compile to vector
    compares and blends; row 0 is updated last, after the others used it.
    """
    a = d[0]
    a1 = p1[0]
    a2 = p2[0]
    a3 = p3[0]
    for q in range(nq - 1, -1, -1):
        dq = d[q]
        f1 = p1[q]
        f2 = p2[q]
        f3 = p3[q]
        for lane in range(nl):
            m = a[lane]
            v = dq[lane]
            x1 = a1[lane]
            x2 = a2[lane]
            x3 = a3[lane]
            g1 = f1[lane]
            g2 = f2[lane]
            g3 = f3[lane]
            t = x1 > m
            m = x1 if t else m
            v = g1 if t else v
            t = x2 > m
            m = x2 if t else m
            v = g2 if t else v
            t = x3 > m
            v = g3 if t else v
            dq[lane] = v


@njit(cache=True)
def read_block(dst, nl, x0, gain, nn, T, toff, N, nbase, rows, below, above, xlo, ulo, uhi):
    """Candidate block of a move: row 0 from the table ``T``, row ``q`` from the
    next layer's ``N[rows[q - 1]]`` (outside the undecided leads: ``below[q]`` and
    ``above[q]``)."""
    duel_read(dst[0], nl, x0, gain, nn, T, toff, 0, xlo, ulo, uhi, 0.0, 1.0)
    for q in range(rows.shape[0]):
        duel_read(dst[q + 1], nl, x0, gain, nn, N[rows[q]], toff, nbase, xlo, ulo, uhi,
                  below[q], above[q])  # fmt: skip


@njit(cache=True)
def duel_final_follow(i, j, x0, nl, E, cand, T, toff, N, nbase, rows, below, above, xlo, ulo,
                      uhi, roll0, p_mask, p_y, p_u, p_count, pid, cstart, ncount, lbase, score,
                      joker_score, roll_face, upper, upper_box_of_face, threshold, yahtzee, joker,
                      extra_bonus, n_flag, values, index):  # fmt: skip
    """:func:`duel_final` in blocks: ``E[roll0 + r]`` is the chosen box's block."""
    n_cat, n_rolls = score.shape
    nq = rows.shape[0] + 1
    mask = p_mask[i]
    y = p_y[i]
    open_boxes, first_row, n_vals_of, n_open, total = open_box_rows(mask, values)
    for t in range(n_open):
        c = open_boxes[t]
        for v in range(n_vals_of[t]):
            pts = values[c, v]
            nn = duel_next(i, j, c, pts, p_mask, p_y, p_u, p_count, pid, cstart, ncount, lbase,
                           upper, threshold, yahtzee, n_flag)  # fmt: skip
            read_block(cand[first_row[t] + v], nl, x0, pts, nn, T, toff, N, nbase, rows, below,
                       above, xlo, ulo, uhi)  # fmt: skip
    picks = np.empty(n_open + 3, np.int64)
    for r in range(n_rolls):
        face = roll_face[r]
        e = E[roll0 + r]
        if face < 0:
            for t in range(n_open):
                picks[t] = first_row[t] + index[open_boxes[t], r]
            n = n_open
            while n % 3 != 1:  # the first, then whole groups of three
                picks[n] = picks[0]
                n += 1
            first = cand[picks[0]]
            for q in range(nq):
                for lane in range(nl):
                    e[q, lane] = first[q, lane]
            for g in range(1, n, 3):
                follow_all(e, cand[picks[g]], cand[picks[g + 1]], cand[picks[g + 2]], nq, nl)
            continue
        for lane in range(nl):
            e[0, lane] = NEG
        for q in range(1, nq):
            for lane in range(nl):
                e[q, lane] = 0.0
        allowed, active, extra, zeroed = box_rule(
            mask, y, face, upper, upper_box_of_face, yahtzee, joker, extra_bonus
        )
        for c in range(n_cat):
            if (allowed >> c) & 1 == 0:
                continue
            pts = box_points(c, r, active, zeroed, score, joker_score)
            nn = duel_next(i, j, c, pts, p_mask, p_y, p_u, p_count, pid, cstart, ncount, lbase,
                           upper, threshold, yahtzee, n_flag)  # fmt: skip
            spare = cand[total]
            read_block(spare, nl, x0, pts + int(extra), nn, T, toff, N, nbase, rows, below,
                       above, xlo, ulo, uhi)  # fmt: skip
            follow_all(e, spare, spare, spare, nq, nl)


@njit(cache=True)
def duel_expected_turn(i, j, x0, nl, N, nbase, rw, rz, toff, xlo, ulo, uhi, o_start, o_prob,
                       o_box, o_pts, o_gain, out_w, out_z, tmp_w, tmp_z, p_mask, p_y, p_u,
                       p_count, pid, cstart, ncount, lbase, upper, threshold, yahtzee,
                       n_flag):  # fmt: skip
    """The mover plays for the expected score: their turn's outcomes are fixed, and
    their chances to win and tie are the outcomes' average of ``N[rw]``, ``N[rz]``."""
    for lane in range(nl):
        out_w[lane] = 0.0
        out_z[lane] = 0.0
    for o in range(o_start[i], o_start[i + 1]):
        nn = duel_next(i, j, o_box[o], o_pts[o], p_mask, p_y, p_u, p_count, pid, cstart,
                       ncount, lbase, upper, threshold, yahtzee, n_flag)  # fmt: skip
        duel_read(tmp_w, nl, x0, o_gain[o], nn, N[rw], toff, nbase, xlo, ulo, uhi, 0.0, 1.0)
        duel_read(tmp_z, nl, x0, o_gain[o], nn, N[rz], toff, nbase, xlo, ulo, uhi, 0.0, 0.0)
        p = o_prob[o]
        for lane in range(nl):
            out_w[lane] += p * tmp_w[lane]
            out_z[lane] += p * tmp_z[lane]


@njit(cache=True, parallel=True)
def duel_eval_layer(b_i, b_j, b_node, b_x0, b_nl, width, n_workers, rows, conv, T, toff, xlo,
                    ulo, uhi, N, nbase, C, cbase, o_start, o_prob, o_box, o_pts, o_gain, p_mask,
                    p_y, p_u, p_count, pid, cstart, ncount, lbase, score, joker_score, roll_face,
                    upper, upper_box_of_face, threshold, yahtzee, joker, extra_bonus, n_flag,
                    values, index, add, sub_rows, size_start, roll_prob, dice, faces,
                    rerolls):  # fmt: skip
    """Win and tie chances of one layer under several pairs of strategies at once.

    ``N`` holds the next layer's chances (from value ``nbase``), ``C`` receives this
    layer's (from ``cbase``), each row for the player who waits; the turn itself is
    computed in float64, whatever the layers are stored in. ``rows`` lists, in
    (win, tie) pairs, the rows of the pairs where the mover plays the win-optimal
    table ``T``: they follow its decisions. ``conv`` lists those where the mover
    plays for the expected score: they average over the outcomes ``o_*``.
    """
    n_keeps = add.shape[0]
    roll0 = size_start[dice]
    nq = rows.shape[0] + 1
    n_cand = values.shape[0] * values.shape[1] + 1
    below = zeros((rows.shape[0],), np.float64)  # not a parallel loop of its own
    above = zeros((rows.shape[0],), np.float64)
    for q in range(0, rows.shape[0], 2):
        above[q] = 1.0  # a certain lead is a certain win, never a tie
    E_of = np.empty((n_workers, n_keeps * nq * width))
    cand_of = np.empty((n_workers, n_cand * nq * width))
    out_of = np.empty((n_workers, 4, width))
    for b in prange(b_i.shape[0]):
        w = get_thread_id()
        out = out_of[w]
        nl = b_nl[b]
        x0 = b_x0[b]
        i = b_i[b]
        j = b_j[b]
        node = b_node[b]
        base = toff[node] - cbase + x0 - xlo[node]
        if nq > 1:
            E = E_of[w, : n_keeps * nq * nl].reshape((n_keeps, nq, nl))
            flat = E_of[w, : n_keeps * nq * nl].reshape((n_keeps, nq * nl))
            cand = cand_of[w, : n_cand * nq * nl].reshape((n_cand, nq, nl))
            duel_final_follow(
                i, j, x0, nl, E, cand, T, toff, N, nbase, rows, below, above, xlo, ulo, uhi,
                roll0, p_mask, p_y, p_u, p_count, pid, cstart, ncount, lbase, score,
                joker_score, roll_face, upper, upper_box_of_face, threshold, yahtzee, joker,
                extra_bonus, n_flag, values, index,
            )  # fmt: skip
            for _ in range(rerolls):
                keep_values(flat, add, size_start, dice, faces, nq * nl)
                for k in range(n_keeps):
                    subs = sub_rows[k]
                    for g in range(0, sub_rows.shape[1], 3):
                        if subs[g] == k:
                            break
                        follow_all(E[k], E[subs[g]], E[subs[g + 1]], E[subs[g + 2]], nq, nl)
            for q in range(0, rows.shape[0], 2):
                for lane in range(nl):
                    out[0, lane] = 0.0
                    out[1, lane] = 0.0
                for r in range(roll_prob.shape[0]):
                    p = roll_prob[r]
                    for lane in range(nl):
                        out[0, lane] += p * E[roll0 + r, q + 1, lane]
                        out[1, lane] += p * E[roll0 + r, q + 2, lane]
                cw = C[rows[q]]
                cz = C[rows[q + 1]]
                for lane in range(nl):
                    cw[base + lane] = 1.0 - out[0, lane] - out[1, lane]
                    cz[base + lane] = out[1, lane]
        for q in range(0, conv.shape[0], 2):
            duel_expected_turn(
                i, j, x0, nl, N, nbase, conv[q], conv[q + 1], toff, xlo, ulo, uhi, o_start,
                o_prob, o_box, o_pts, o_gain, out[0], out[1], out[2], out[3], p_mask, p_y, p_u,
                p_count, pid, cstart, ncount, lbase, upper, threshold, yahtzee, n_flag,
            )  # fmt: skip
            cw = C[conv[q]]
            cz = C[conv[q + 1]]
            for lane in range(nl):
                cw[base + lane] = 1.0 - out[0, lane] - out[1, lane]
                cz[base + lane] = out[1, lane]
