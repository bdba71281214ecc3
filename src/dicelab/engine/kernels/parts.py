"""The split of the points to come by box and bonus, one layer of states at a time.

Each state's row of :class:`dicelab.engine.objectives.explain.PartsLayout` holds the expected
points each open box will end with, then the upper bonus, the extra bonuses and the
chance of the all-alike box scoring. A state's row is the mean, over its turn's
outcomes (box, points, extra bonus), of the next state's row with the turn's points
added where they go: the same backward step as the expected score, one entry per part.
"""

from __future__ import annotations

from numba import njit, prange

from dicelab.engine.kernels.turn import slot_outcome


@njit(cache=True, parallel=True)
def parts_layer(masks, W, rows, Q, qoff, slots, R, same_box):
    """Fill the rows of every state of ``masks`` from the rows of the next layer.

    ``rows`` is ``(start, lane_of, width)`` of the layout; ``Q, qoff`` the turn
    outcomes of the layer (:meth:`dicelab.engine.objectives.distribution.OutcomeLayout.outcomes`);
    ``slots`` is ``(lanes, n_lanes, box_slots, slot_pts, n_e)``.
    """
    start, lane_of, width = rows
    lanes, n_lanes, box_slots, slot_pts, n_e = slots
    n_cat = R.upper.shape[0]
    n_flag = R.n_flag
    for b in prange(masks.shape[0]):
        X = masks[b]
        wx = width[X]
        n_x = wx - 3
        n_slots = 0
        for c in range(n_cat):
            if (X >> c) & 1 == 0:
                n_slots += box_slots[c]
        ny = 2 if (n_flag == 2 and (X >> R.yahtzee) & 1 == 1) else 1
        for y in range(ny):
            q0 = qoff[X, y]
            for i in range(n_lanes[X]):
                u = lanes[X, i]
                row = start[X] + (y * n_lanes[X] + i) * wx
                base = 0
                jc = 0  # the column of box c among the open boxes of X
                for c in range(n_cat):
                    if (X >> c) & 1 == 1:
                        continue
                    Y = X | (1 << c)
                    wy = width[Y]
                    for s in range(box_slots[c]):
                        q = Q[q0 + i * n_slots + base + s]
                        if q == 0.0:
                            continue
                        pts, gain, y2, u2 = slot_outcome(c, s, y, u, slot_pts, n_e, R)
                        nrow = start[Y] + (y2 * n_lanes[Y] + lane_of[Y, u2]) * wy
                        jx = 0
                        jy = 0
                        for d in range(n_cat):  # Y's open boxes are X's but c
                            if (X >> d) & 1 == 1:
                                continue
                            if d != c:
                                W[row + jx] += q * W[nrow + jy]
                                jy += 1
                            jx += 1
                        W[row + jc] += q * pts
                        W[row + n_x] += q * W[nrow + wy - 3]
                        W[row + n_x + 1] += q * ((gain - pts) + W[nrow + wy - 2])
                        scored = 1.0 if (c == same_box and pts > 0) else 0.0
                        W[row + n_x + 2] += q * (scored + W[nrow + wy - 1])
                    base += box_slots[c]
                    jc += 1
