"""Numba kernels shared by the solvers: one turn, many states at once.

A turn is valued backwards through its throws. After the last throw the player
picks a box (:func:`final_roll_values`). Before a reroll, the value of a keep is
the average over one more die of the keeps one die larger (:func:`keep_values`),
and the best choice inside a set of dice is the best of its sub-keeps with one
die fewer (:func:`best_keeps`). Both touch ``keeps x faces`` entries per throw.

Every array row here holds *lanes*: the same turn for several states that differ
only in the upper total ``u`` and the extra-bonus flag ``y``. Lane ``y * nu + u``
is the state with upper total ``u0 + u`` and flag ``y0 + y``; the inner loops run
over contiguous lanes, which the compiler vectorises.

The value table ``V`` has shape ``(2**boxes, n_flag, n_upper)``: the expected
points still to come at the start of a turn.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

NEG = -1.0e300

JOKER_NONE = 0
JOKER_FREE = 1
JOKER_FORCED = 2
JOKER_FREE_IF_FIFTY = 3


@njit(cache=True)
def final_roll_values(
    mask, u0, nu, y0, ny, V, A, roll0, score, joker_score, roll_face, upper,
    upper_box_of_face, threshold, yahtzee, joker, extra_bonus, n_flag,
):  # fmt: skip
    """Best box for every final roll: fills ``A[roll0 + r, lane]``.

    The value of a box is its points, the extra all-same bonus where due, and the
    value of the next turn's state.
    """
    n_cat, n_rolls = score.shape
    y_filled = yahtzee >= 0 and (mask >> yahtzee) & 1 == 1
    any_lower_open = False
    for c in range(n_cat):
        if (mask >> c) & 1 == 0 and not upper[c]:
            any_lower_open = True
    for r in range(n_rolls):
        row = A[roll0 + r]
        for lane in range(ny * nu):
            row[lane] = NEG
        face = roll_face[r]
        for yi in range(ny):
            y = y0 + yi
            base = yi * nu
            extra = 0.0
            active = False
            only = -1  # forced joker: the one box that must be taken
            lower_only = False
            upper_only = False
            if face >= 0 and y_filled:
                if y == 1:
                    extra = extra_bonus
                box = upper_box_of_face[face]
                box_open = box >= 0 and (mask >> box) & 1 == 0
                if joker == JOKER_FREE:
                    active = not box_open
                elif joker == JOKER_FREE_IF_FIFTY:
                    active = (not box_open) and y == 1
                elif joker == JOKER_FORCED:
                    if box_open:
                        only = box
                    elif any_lower_open:
                        active = True
                        lower_only = True
                    else:
                        upper_only = True
            for c in range(n_cat):
                if (mask >> c) & 1 == 1:
                    continue
                if only >= 0 and c != only:
                    continue
                if lower_only and upper[c]:
                    continue
                if upper_only and not upper[c]:
                    continue
                pts = joker_score[c, r] if active else score[c, r]
                nxt = mask | (1 << c)
                y2 = y
                if c == yahtzee:
                    y2 = 1 if (pts > 0 and n_flag == 2) else 0
                add = pts + extra
                src = V[nxt, y2]
                if upper[c] and threshold > 0:
                    for ui in range(nu):
                        u2 = u0 + ui + pts
                        if u2 > threshold:
                            u2 = threshold
                        v = add + src[u2]
                        if v > row[base + ui]:
                            row[base + ui] = v
                else:
                    for ui in range(nu):
                        v = add + src[u0 + ui]
                        if v > row[base + ui]:
                            row[base + ui] = v


@njit(cache=True)
def keep_values(A, add, size_start, dice, faces, lanes):
    """Expected value of every keep smaller than a full roll, from the full rolls.

    ``A[k] = mean over f of A[add[k, f]]``, largest keeps first.
    """
    inv = 1.0 / faces
    for k in range(size_start[dice] - 1, -1, -1):
        row = A[k]
        first = A[add[k, 0]]
        for lane in range(lanes):
            row[lane] = first[lane]
        for f in range(1, faces):
            child = A[add[k, f]]
            for lane in range(lanes):
                row[lane] += child[lane]
        for lane in range(lanes):
            row[lane] *= inv


@njit(cache=True)
def best_keeps(A, B, sub, n_keeps, faces, lanes):
    """Best keep inside every set of dice: ``B[k] = max(A[k], B[k - f] for f in k)``."""
    for k in range(n_keeps):
        row = B[k]
        own = A[k]
        for lane in range(lanes):
            row[lane] = own[lane]
        for f in range(faces):
            s = sub[k, f]
            if s >= 0:
                smaller = B[s]
                for lane in range(lanes):
                    if smaller[lane] > row[lane]:
                        row[lane] = smaller[lane]


@njit(cache=True)
def turn_start_value(
    mask, u0, nu, y0, ny, V, A, B, out, score, joker_score, roll_face, upper,
    upper_box_of_face, threshold, yahtzee, joker, extra_bonus, n_flag,
    add, sub, size_start, roll_prob, dice, faces, rerolls,
):  # fmt: skip
    """Value of a turn start for ``nu * ny`` lanes, written to ``out[lane]``."""
    lanes = nu * ny
    n_keeps = add.shape[0]
    roll0 = size_start[dice]
    n_rolls = roll_prob.shape[0]
    final_roll_values(
        mask, u0, nu, y0, ny, V, A, roll0, score, joker_score, roll_face, upper,
        upper_box_of_face, threshold, yahtzee, joker, extra_bonus, n_flag,
    )  # fmt: skip
    for _ in range(rerolls):
        keep_values(A, add, size_start, dice, faces, lanes)
        best_keeps(A, B, sub, n_keeps, faces, lanes)
        for r in range(n_rolls):
            src = B[roll0 + r]
            dst = A[roll0 + r]
            for lane in range(lanes):
                dst[lane] = src[lane]
    for lane in range(lanes):
        out[lane] = 0.0
    for r in range(n_rolls):
        p = roll_prob[r]
        src = A[roll0 + r]
        for lane in range(lanes):
            out[lane] += p * src[lane]


@njit(cache=True, parallel=True)
def solve_masks(
    masks, extent, V, score, joker_score, roll_face, upper, upper_box_of_face,
    threshold, yahtzee, joker, extra_bonus, n_flag, add, sub, size_start, roll_prob,
    dice, faces, rerolls,
):  # fmt: skip
    """Fill ``V[mask]`` for independent masks (one layer of filled boxes), in parallel."""
    n_keeps = add.shape[0]
    for i in prange(masks.shape[0]):
        mask = masks[i]
        nu = extent[mask]
        ny = 1
        if n_flag == 2 and yahtzee >= 0 and (mask >> yahtzee) & 1 == 1:
            ny = 2
        lanes = nu * ny
        A = np.empty((n_keeps, lanes))
        B = np.empty((n_keeps, lanes))
        out = np.empty(lanes)
        turn_start_value(
            mask, 0, nu, 0, ny, V, A, B, out, score, joker_score, roll_face, upper,
            upper_box_of_face, threshold, yahtzee, joker, extra_bonus, n_flag,
            add, sub, size_start, roll_prob, dice, faces, rerolls,
        )  # fmt: skip
        for yi in range(ny):
            for ui in range(nu):
                V[mask, yi, ui] = out[yi * nu + ui]
