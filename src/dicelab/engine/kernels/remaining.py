"""The distribution of the points to come, one layer of states at a time.

A state's points to come are the points of its turn plus those of the state the
turn leads to, so its distribution is the mix of the next states' distributions,
each shifted by what the turn scores and weighted by the chance of that outcome
(the turn outcomes of :func:`dicelab.engine.objectives.distribution.layer_outcomes`). A
layer's rows are laid out from 0 to the most points each state's open boxes can
make, filled (:func:`fill_rows`), then cut where a tail holds less than a given
mass (:func:`trimmed_bounds`).

States are given as rows of ``states``: ``(mask, flag, capped upper total, lane)``,
the lane indexing the state's upper totals in the turn outcomes. ``nxt`` bundles
the next layer's rows: ``(lo, hi, off, values)``, ``lo``/``hi``/``off`` of shape
``(2**boxes, n_flag, n_upper)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicelab.engine.kernels.turn import slot_outcome
from dicelab.engine.kernels.work import take


@njit(cache=True, inline="always")
def _block_width(X, box_slots, n_cat):
    """Outcome slots of one lane of state ``X``: those of its open boxes."""
    width = 0
    for c in range(n_cat):
        if (X >> c) & 1 == 0:
            width += box_slots[c]
    return width


@njit(cache=True, nogil=True, fastmath=True)
def fill_rows(counter, w, blocks, states, Q, qoff, slots, R, nxt, lo, off, P):
    """Row ``j`` of ``P`` (from ``off[j]``, points from ``lo[j]``): the chance of each
    number of points to come from state ``j`` (a worker of
    :func:`dicelab.engine.kernels.work.on_threads`).

    A worker takes a block of states of one mask and flag (``blocks[b]`` to
    ``blocks[b + 1]``, their upper totals in increasing order) and adds the rows of
    each open box's next states for the whole block before the next box: the next
    layer's rows are then read in one sweep per box rather than jumping between
    every box's rows at each state (twice as fast). A row's terms are added in the
    same order either way.
    """
    _, box_slots, slot_pts, n_e = slots
    nlo, nhi, noff, nP = nxt
    n_cat = R.upper.shape[0]
    b = take(counter)
    while b < blocks.shape[0] - 1:
        first, last = blocks[b], blocks[b + 1]
        X, y = states[first, 0], states[first, 1]
        width = _block_width(X, box_slots, n_cat)
        base = 0
        for c in range(n_cat):
            if (X >> c) & 1 == 1:
                continue
            Y = X | (1 << c)
            for j in range(first, last):
                u = states[j, 2]
                q0 = qoff[X, y] + states[j, 3] * width + base
                for s in range(box_slots[c]):
                    q = Q[q0 + s]
                    if q == 0.0:
                        continue
                    _, gain, y2, u2 = slot_outcome(c, s, y, u, slot_pts, n_e, R)
                    src = noff[Y, y2, u2]
                    dst = off[j] + gain + nlo[Y, y2, u2] - lo[j]
                    n = nhi[Y, y2, u2] - nlo[Y, y2, u2] + 1
                    into, row = P[dst : dst + n], nP[src : src + n]
                    for t in range(n):  # on views: the compiler vectorises it (3x)
                        into[t] += q * row[t]
            base += box_slots[c]
        b = take(counter)


@njit(cache=True, nogil=True)
def keep_rows(counter, w, starts, kept, at, P, out):
    """Row ``j``'s kept points, ``P[starts[j] : starts[j] + kept[j]]``, into ``out``
    from ``at[j]`` in single precision: the table's rows end to end, copied once
    (a worker of :func:`dicelab.engine.kernels.work.on_threads`)."""
    j = take(counter)
    while j < starts.shape[0]:
        src = P[starts[j] : starts[j] + kept[j]]
        dst = out[at[j] : at[j] + kept[j]]
        for t in range(kept[j]):
            dst[t] = src[t]
        j = take(counter)


@njit(cache=True, nogil=True)
def trimmed_bounds(counter, w, lo, hi, off, P, tail, new_lo, new_hi):
    """The points of each row left once both tails holding less than ``tail`` of
    the chance are cut (a worker of :func:`dicelab.engine.kernels.work.on_threads`)."""
    j = take(counter)
    while j < lo.shape[0]:
        n = hi[j] - lo[j] + 1
        a, mass = 0, 0.0
        while a < n - 1 and mass + P[off[j] + a] < tail:
            mass += P[off[j] + a]
            a += 1
        b, mass = n - 1, 0.0
        while b > a and mass + P[off[j] + b] < tail:
            mass += P[off[j] + b]
            b -= 1
        new_lo[j], new_hi[j] = lo[j] + a, lo[j] + b
        j = take(counter)


@njit(cache=True, nogil=True)
def duel_chances(counter, w, nodes, sheets, rows, H, rem):
    """Each duel node's row of chances for the player who waits, both sheets played
    for points from here: ``P(x + R_w > R_m) + P(x + R_w = R_m) / 2`` at lead ``x``,
    ``R_w`` and ``R_m`` the points to come of the waiting player's and the mover's
    sheets (their rows of the table ``rem``: ``(lo, hi, off, values)``).

    ``nodes`` lists the nodes, ``sheets`` their ``(mover, waiting)`` player states as
    ``(mask, flag, upper)`` rows, ``rows`` each node's ``(start in H, lowest lead,
    highest lead)`` (a worker of :func:`dicelab.engine.kernels.work.on_threads`).

    Every lead's sum runs over the waiting player's points in order, but the leads
    are summed side by side (one pass over a node's leads per point of ``R_w``), so
    the compiler vectorises it; ``F``, the mover's cumulative chances, is padded
    with the 0s and 1s past its ends so that no term needs a test.
    """
    lo, hi, off, values = rem
    F = np.empty(0)
    acc = np.empty(0)
    b = take(counter)
    while b < nodes.shape[0]:
        mm, my, mu, wm, wy, wu = sheets[b]
        start, xlo, xhi = rows[b]
        a_lo, a_n, a_off = lo[mm, my, mu], hi[mm, my, mu] - lo[mm, my, mu] + 1, off[mm, my, mu]
        w_lo, w_n, w_off = lo[wm, wy, wu], hi[wm, wy, wu] - lo[wm, wy, wu] + 1, off[wm, wy, wu]
        n_x = xhi - xlo + 1
        # F[z - z0]: the mover's chance of fewer than z + a_lo points, plus half of
        # exactly that, for every z the node's leads reach
        z0 = min(xlo + w_lo - a_lo, 0)
        z1 = max(xhi + w_lo - a_lo + w_n, a_n)
        if F.size < z1 - z0:
            F = np.empty(2 * (z1 - z0))
        if acc.size < n_x:
            acc = np.empty(2 * n_x)
        F[:-z0] = 0.0
        below = 0.0
        for z in range(a_n):
            p = float(values[a_off + z])
            F[z - z0] = below + 0.5 * p
            below += p
        F[a_n - z0 : z1 - z0] = below
        into = acc[:n_x]
        into[:] = 0.0
        for r in range(w_n):
            v = float(values[w_off + r])
            first = xlo + w_lo + r - a_lo - z0
            f = F[first : first + n_x]
            for t in range(n_x):  # on views: the compiler vectorises it
                into[t] += v * f[t]
        for t in range(n_x):
            H[start + t] = into[t]
        b = take(counter)
