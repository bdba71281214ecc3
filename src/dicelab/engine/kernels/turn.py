"""One turn with lanes side by side: the final throw, the keeps, the best keep in a roll.

A turn is valued backwards through its throws. After the last throw the player
picks a box (:func:`final_roll_values`). Before a reroll, the value of a keep is
the average over one more die of the keeps one die larger (:func:`keep_values`),
and the best choice inside a set of dice is the best of its sub-keeps with one
die fewer (:func:`best_keeps`). Both touch ``keeps x faces`` entries per throw.
Every row holds lanes: the same turn for states that differ only in the upper total
(or, in :mod:`.duel`, the lead); the inner loops run over contiguous lanes.
"""

from __future__ import annotations

import types

import numpy as np
from numba import njit

from dicelab.engine.kernels import FAST, NEG, NO_REFS
from dicelab.rules import placement


def _compiled_with(func, **names):
    """``func`` compiled, its global ``names`` taken as the compiled functions given
    (the plain-Python original keeps calling the plain-Python ones)."""
    scope = dict(func.__globals__, **names)
    copy = types.FunctionType(func.__code__, scope, func.__name__, func.__defaults__)
    copy.__qualname__, copy.__module__ = func.__qualname__, func.__module__
    return njit(cache=True, **NO_REFS)(copy)


#: The placement rules of :mod:`dicelab.rules.placement`, compiled for the kernels
#: (they allocate nothing: a call costs no reference counts, see ``NO_REFS``).
closed_mask = njit(cache=True, **NO_REFS)(placement.closed_mask)
box_rule = _compiled_with(
    placement.box_rule,
    joker_rule=njit(cache=True, **NO_REFS)(placement.joker_rule),
    closed_mask=closed_mask,
)
next_flag = njit(cache=True, **NO_REFS)(placement.next_flag)
box_points = njit(cache=True, **NO_REFS)(placement.box_points)
placements = _compiled_with(
    placement.placements, box_rule=box_rule, box_points=box_points, next_flag=next_flag
)


@njit(cache=True, inline="always", **NO_REFS)
def shut(mask, R):
    """The boxes an ordinary final roll may not go in (:func:`closed_mask`): listed
    open boxes come from it, next states from ``mask`` itself."""
    return closed_mask(mask, R.joker, R.upper.shape[0])


@njit(cache=True, inline="always")
def n_distinct(values, c):
    """How many distinct scores box ``c`` has (``values[c]`` is padded with its last)."""
    k = 1
    while k < values.shape[1] and values[c, k] != values[c, k - 1]:
        k += 1
    return k


@njit(cache=True, inline="always")
def score_index(values, c, pts):
    """Where ``pts`` is among box ``c``'s distinct scores, or -1 (a joker's points
    that no roll scores there otherwise)."""
    for j in range(n_distinct(values, c)):
        if values[c, j] == pts:
            return j
    return -1


@njit(cache=True)
def open_box_rows(mask, values):
    """The open boxes of a state and where their candidates sit in a ``cand`` buffer.

    Returns ``(open_boxes, first_row, n_vals, n_open, total)``: open box ``t`` is
    ``open_boxes[t]``, its ``n_vals[t]`` distinct scores (``values[c, :n_vals]``)
    take the rows from ``first_row[t]``; ``total`` rows are used in all.
    """
    rows = np.empty((3, values.shape[0]), np.int64)
    n_open, total = open_box_rows_in(mask, values, rows)
    return rows[0], rows[1], rows[2], n_open, total


@njit(cache=True, **NO_REFS)
def open_box_rows_in(mask, values, rows):
    """:func:`open_box_rows` written into ``rows`` (three rows, a box each at least),
    for kernels that allocate nothing; returns ``(n_open, total)``. (A kernel
    without reference counts returns no array: its caller would count one.)"""
    n_open = 0
    pos = 0
    for c in range(values.shape[0]):
        if (mask >> c) & 1 == 1:
            continue
        k = n_distinct(values, c)
        rows[0, n_open] = c
        rows[1, n_open] = pos
        rows[2, n_open] = k
        n_open += 1
        pos += k
    return n_open, pos


@njit(cache=True)
def candidate_moves(mask, values):
    """Each candidate row of a state as a move: row ``k`` scores ``pts[k]`` in box
    ``box[k]``, in the order of :func:`open_box_rows`. Returns ``(box, pts, n)``."""
    n_cat = values.shape[0]
    box = np.empty(n_cat * values.shape[1], np.int64)
    pts = np.empty(n_cat * values.shape[1], np.int64)
    n = 0
    for c in range(n_cat):
        if (mask >> c) & 1 == 0:
            for j in range(n_distinct(values, c)):
                box[n] = c
                pts[n] = values[c, j]
                n += 1
    return box, pts, n


@njit(cache=True)
def cand_rows(values):
    """Rows of the candidate buffer :func:`final_roll_values` needs."""
    return values.shape[0] * values.shape[1] + 1


@njit(cache=True, fastmath=FAST)
def candidate_rows(mask, u0, nu, y, V, cand, R):
    """Each open box's distinct scores valued once for lanes ``0 .. nu``: the row
    ``cand[first_row[t] + j]`` holds box ``open_boxes[t]``'s ``j``-th score plus the
    next state's value. Returns :func:`open_box_rows`'s arrays."""
    open_boxes, first_row, n_vals_of, n_open, total_rows = open_box_rows(shut(mask, R), R.values)
    for t in range(n_open):
        c = open_boxes[t]
        pos = first_row[t]
        n_vals = n_vals_of[t]
        src = V[mask | (1 << c), 0 if c == R.yahtzee else y]
        shift = R.upper[c] and R.threshold > 0
        for j in range(n_vals):
            pts = R.values[c, j]
            crow = cand[pos + j, :nu]
            if shift:
                for ui in range(nu):
                    u2 = u0 + ui + pts
                    crow[ui] = pts + src[u2 if u2 < R.threshold else R.threshold]
            else:
                for ui in range(nu):
                    crow[ui] = pts + src[u0 + ui]
    return open_boxes, first_row, n_vals_of, n_open, total_rows


@njit(cache=True, fastmath=FAST)
def final_roll_values(mask, u0, nu, y, off, V, A, cand, roll0, R):
    """Best box for every final roll: fills ``A[roll0 + r, off : off + nu]``.

    The value of a box is its points, the extra all-same bonus where due, and the
    value of the next turn's state. Rolls that are not all alike score the same
    way whatever the box history, so each box's distinct scores are valued once
    (``cand``) and each roll takes the best of its candidates; the all-same rolls,
    where bonus and joker rules apply, take the general path.
    """
    n_cat, n_rolls = R.score.shape
    if cand.shape[0] < cand_rows(R.values) or cand.shape[1] < nu:
        raise ValueError("final_roll_values: cand needs cand_rows(values) rows of nu lanes")
    open_boxes, first_row, _, n_open, total_rows = candidate_rows(mask, u0, nu, y, V, cand, R)
    # A box's candidates grow with its points (the next state's value never falls
    # with a higher upper total), so a box scoring 0 for a roll is never better
    # than its own 0-candidate: all of those are covered by one row, the best
    # 0-candidate of the open boxes, and each roll only visits its scoring boxes.
    zero = cand[total_rows, :nu]
    for ui in range(nu):
        zero[ui] = NEG
    for t in range(n_open):
        if R.values[open_boxes[t], 0] == 0:
            crow = cand[first_row[t], :nu]
            for ui in range(nu):
                a = zero[ui]
                b = crow[ui]
                zero[ui] = a if a > b else b
    # rows to compare for a roll: the zero row, its scoring boxes, padded with the
    # zero row to whole groups of three
    picks = np.empty(n_open + 3, np.int64)
    moves = np.empty((3, n_cat), np.int64)
    for r in range(n_rolls if nu == 1 else 0):  # one state: the same maxima, no row views
        m = NEG
        if R.roll_face[r] < 0:
            m = zero[0]
            for t in range(n_open):
                j = R.index[open_boxes[t], r]
                if j > 0 or R.values[open_boxes[t], 0] != 0:
                    x = cand[first_row[t] + j, 0]
                    m = m if m > x else x
        A[roll0 + r, off] = m
    for r in range(n_rolls if nu > 1 else 0):
        row = A[roll0 + r, off : off + nu]
        if R.roll_face[r] >= 0:
            for ui in range(nu):
                row[ui] = NEG
            continue
        n = 1
        picks[0] = total_rows
        for t in range(n_open):
            c = open_boxes[t]
            j = R.index[c, r]
            if j == 0 and R.values[c, 0] == 0:
                continue
            picks[n] = first_row[t] + j
            n += 1
        while n % 3 != 0:
            picks[n] = total_rows
            n += 1
        max_of(row, cand[picks[0], :nu], cand[picks[1], :nu], cand[picks[2], :nu], nu)
        for g in range(3, n, 3):
            max_into(row, cand[picks[g], :nu], cand[picks[g + 1], :nu], cand[picks[g + 2], :nu], nu)
    for r in R.alike:
        row = A[roll0 + r, off : off + nu]
        n_moves, extra = placements(mask, y, r, R, moves)
        for t in range(n_moves):
            c, pts = moves[0, t], moves[1, t]
            add = pts + extra
            src = V[mask | (1 << c), moves[2, t]]
            for ui in range(nu):
                u2 = u0 + ui
                if R.upper[c] and R.threshold > 0:
                    u2 += pts
                    if u2 > R.threshold:
                        u2 = R.threshold
                v = add + src[u2]
                if v > row[ui]:
                    row[ui] = v


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
    if lanes == 1:  # one state (advice, a simulated game): no row views, the same sums
        for k in range(size_start[dice] - 1, -1, -1):
            x = A[add[k, 0], 0] + A[add[k, 1], 0]
            for f in range(2, faces):
                x += A[add[k, f], 0]
            A[k, 0] = x * inv + x * lo
        return
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


@njit(cache=True)
def position_options(V, state, roll, rerolls, R, D, sub, scratch, codes, out):
    """Every option of one position and its value to come (the score so far left
    out), into ``codes`` and ``out``; returns how many.

    ``state`` is ``(mask, u, y)``. Before a reroll the options are the distinct keeps
    inside ``roll`` (a keep index), ``sub[roll - roll0]`` padded with -1, and the
    roll itself means scoring at once; after the last throw they are the boxes the
    placement rules allow, coded ``-1 - box``. The turn is the solvers' on one lane,
    the values those of :func:`dicelab.engine.turn.turn_detail` to the last bit.
    Rules with served points or saved throws are not covered.
    """
    mask, u, y = state
    A, cand, moves = scratch
    roll0 = D.size_start[D.dice]
    r = roll - roll0
    if rerolls == 0:
        n_moves, extra = placements(mask, y, r, R, moves)
        for t in range(n_moves):
            c, pts = moves[0, t], moves[1, t]
            u2 = min(u + pts, R.threshold) if R.upper[c] and R.threshold > 0 else u
            codes[t] = -1 - c
            out[t] = pts + extra + V[mask | (1 << c), moves[2, t], u2]
        return n_moves
    final_roll_values(mask, u, 1, y, 0, V, A, cand, roll0, R)
    now = A[roll, 0]
    for n in range(1, rerolls + 1):
        keep_values(A, D.add, D.size_start, D.dice, D.faces, 1)
        if n < rerolls:
            best_keeps(A, D.sub_rows, 1)
    n_opt = 0
    while n_opt < sub.shape[1] and sub[r, n_opt] >= 0:
        k = sub[r, n_opt]
        codes[n_opt] = k
        out[n_opt] = now if k == roll else A[k, 0]
        n_opt += 1
    return n_opt


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
    if lanes == 1:  # one state: no row views
        for k in range(A.shape[0]):
            m = A[k, 0]
            for j in range(width):
                s = sub_rows[k, j]
                if s == k:
                    break
                x = A[s, 0]
                m = m if m > x else x
            A[k, 0] = m
        return
    for k in range(A.shape[0]):
        subs = sub_rows[k]
        if subs[0] == k:
            continue
        row = A[k, :lanes]
        for j in range(0, width, 3):
            if subs[j] == k:
                break
            max_into(row, A[subs[j], :lanes], A[subs[j + 1], :lanes], A[subs[j + 2], :lanes], lanes)


# -- lanes over points: the target and utility tables (:mod:`dicelab.engine.objectives.target`) --
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
            max_into(row, cand[picks[g], :nl], cand[picks[g + 1], :nl], cand[picks[g + 2], :nl], nl)


@njit(cache=True)
def throws_and_start(A, out, D, lanes, S, served):
    """From final-roll values in ``A`` to turn-start values in ``out[:lanes]``.

    With ``served``, ``S[r]`` holds each first-throw roll scored at once with its
    served points; the first throw takes the better of that and rolling on (with
    no rerolls there is no rolling on: it takes the served score).
    """
    roll0 = D.size_start[D.dice]
    for _ in range(D.rerolls):
        keep_values(A, D.add, D.size_start, D.dice, D.faces, lanes)
        best_keeps(A, D.sub_rows, lanes)
    if served:
        on = D.rerolls > 0  # with one throw a turn, every roll scores as served
        for r in range(D.roll_prob.shape[0]):
            row = A[roll0 + r, :lanes]
            srow = S[r, :lanes]
            for lane in range(lanes):
                a = row[lane]
                b = srow[lane]
                row[lane] = a if on and a > b else b
    first_throw_mean(A, out, D.roll_prob, roll0, lanes)


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
def plan_batches(masks, cuts, first, extent, yahtzee, n_flag, width):
    """Cut layers' states into batches of at most ``width`` lanes: mask ``m``'s
    upper totals ``first[m] .. extent[m] - 1``. The masks are layer after layer,
    layer ``k`` ending before mask ``cuts[k]``; no batch holds two layers.

    Returns segment arrays ``(mask, y, u0, nu)``, ``starts``: batch ``b`` holds
    segments ``starts[b]:starts[b + 1]``, and ``ends``: layer ``k``'s batches end
    before batch ``ends[k]``. Batching several masks together keeps the rows wide,
    so the per-row cost of the throw kernels is shared by many states.
    """
    n = 0
    for i in range(masks.shape[0]):
        ny = 2 if (n_flag == 2 and (masks[i] >> yahtzee) & 1 == 1) else 1
        n += ny * ((extent[masks[i]] - first[masks[i]] + width - 1) // width)
    seg_mask = np.empty(n, np.int64)
    seg_y = np.empty(n, np.int64)
    seg_u0 = np.empty(n, np.int64)
    seg_nu = np.empty(n, np.int64)
    starts = np.empty(n + 1, np.int64)
    ends = np.empty(cuts.shape[0], np.int64)
    j = 0
    nb = 0
    k = 0
    used = width
    for i in range(masks.shape[0]):
        while k < cuts.shape[0] and cuts[k] <= i:
            ends[k] = nb
            k += 1
            used = width  # the next layer opens a batch of its own
        m = masks[i]
        ny = 2 if (n_flag == 2 and (m >> yahtzee) & 1 == 1) else 1
        for y in range(ny):
            u0 = first[m]
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
    ends[k:] = nb
    return seg_mask, seg_y, seg_u0, seg_nu, starts[: nb + 1], ends


@njit(cache=True, inline="always")
def popcount(x):
    """The number of bits set in ``x``."""
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def zeros(shape, dtype):
    """``np.zeros`` outside a parallel region: inside one, Numba fills the array in a
    parallel loop of its own, scheduled element by element under a chunk size of 1."""
    return np.zeros(shape, dtype)


@njit(cache=True, inline="always")
def slot_outcome(c, s, y, u, slot_pts, n_e, R):
    """Where outcome slot ``s`` of box ``c`` leads from flag ``y`` and upper total
    ``u``: ``(pts, gain, y2, u2)``, the box's points, the points gained with the extra
    bonuses the slot stands for, the next flag and the next (capped) upper total."""
    pts = slot_pts[c, s // n_e]
    gain = pts + (s % n_e) * int(R.extra_bonus)
    y2 = next_flag(c, y, pts, R.yahtzee, R.n_flag)
    u2 = u
    if R.upper[c] and R.threshold > 0:
        u2 = min(u + pts, R.threshold)
    return pts, gain, y2, u2
