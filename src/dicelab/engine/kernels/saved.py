"""The expected-score turn when unused throws are saved for later turns."""

from __future__ import annotations

import numpy as np
from numba import get_thread_id, njit, prange

from dicelab.engine.kernels.turn import (
    best_keeps,
    cand_rows,
    final_roll_values,
    first_throw_mean,
    keep_values,
)


@njit(cache=True, parallel=True)
def solve_saved_batches(segs, width, n_workers, saved, V, R, D):
    """Fill ``V[:, :, saved]`` for the segments of a layer, when unused throws are saved.

    ``V`` has shape ``(2**boxes, n_flag, n_saved, n_upper)``. A turn that starts with
    ``saved`` throws in hand has ``rerolls + saved`` rerolls; scoring with ``r``
    rerolls left keeps ``r`` throws (at most ``n_saved - 1``) for the next turn, so
    every throw values the full rolls as scored there and then (keeping every die
    and throwing none is never better: an unused throw is kept anyway).
    """
    seg_mask, seg_y, seg_u0, seg_nu, starts, _ = segs
    n_keeps = D.add.shape[0]
    roll0 = D.size_start[D.dice]
    cap = V.shape[2] - 1
    levels = D.rerolls + saved
    A_of = np.empty((n_workers, n_keeps, width))
    cand_of = np.empty((n_workers, cand_rows(R.values), width))
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
                keep_values(A, D.add, D.size_start, D.dice, D.faces, lanes)
            Vn = V[:, :, min(level, cap), :]
            off = 0
            for j in range(starts[b], starts[b + 1]):
                final_roll_values(
                    seg_mask[j], seg_u0[j], seg_nu[j], seg_y[j], off, Vn, A, cand, roll0, R
                )
                off += seg_nu[j]
            if level > 0:
                best_keeps(A, D.sub_rows, lanes)
        first_throw_mean(A, out, D.roll_prob, roll0, lanes)
        off = 0
        for j in range(starts[b], starts[b + 1]):
            for ui in range(seg_nu[j]):
                V[seg_mask[j], seg_y[j], saved, seg_u0[j] + ui] = out[off + ui]
            off += seg_nu[j]
