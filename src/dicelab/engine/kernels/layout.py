"""Laying out the rows of a table over points, state by state, in one pass.

:func:`dicelab.engine.objectives.points.stored_rows` says what a layout is: each
reachable state's row of points, the states of one mask and flag past the upper
bonus sharing the one row of the least such upper total, every row placed layer
by layer, mask by mask, flag then upper total. Written with whole-array NumPy
operations, that took a dozen temporaries the size of the table of states: for
Maxi Yatzy (89 million states) about 20 s and 9 GB before a solve could even be
sized, let alone refused. One pass over the states does it in a fraction of that,
with nothing but its outputs.

The signature is explicit (read-only inputs), so one compiled kernel serves every
caller, whether its arrays are the bounds' own (read-only) or fresh.
"""

from __future__ import annotations

from numba import njit, types

_IN3 = types.Array(types.int64, 3, "C", readonly=True)
_FLAGS3 = types.Array(types.boolean, 3, "C", readonly=True)
_LOST = types.Array(types.boolean, 2, "C", readonly=True)
_INDEX = types.Array(types.int64, 1, "C", readonly=True)
_OUT3 = types.Array(types.int64, 3, "C")
_OUT2 = types.Array(types.int64, 2, "C")
_OUT1 = types.Array(types.int64, 1, "C")


_SIGNATURE = types.void(
    _IN3, _IN3, _FLAGS3, _FLAGS3, _LOST, _INDEX, _INDEX, _OUT3, _OUT3, _OUT3, _OUT2, _OUT1
)


@njit(_SIGNATURE, cache=True)
def lay_out_rows(lo, hi, reachable, live, lost, order, cuts, out_lo, out_hi, off, block, starts):
    """Fill the stored rows ``out_lo .. out_hi``, their offsets ``off`` (-1 where no
    game goes), ``block[m, y]`` (where mask ``m``'s rows of flag ``y`` start; the
    last column their end) and ``starts[k]`` (where layer ``k`` starts; the last
    entry the size), from each state's own range ``lo .. hi``.

    ``order`` lists the masks layer by layer and ``cuts[k]`` is where layer ``k``
    begins in it. A state of ``live`` whose mask has lost the bonus at its upper
    total (``lost[m, u]``) takes the row of the least such upper total of its mask
    and flag, spanning the union of their ranges; unreachable states have the
    empty range ``1 .. 0``.
    """
    n_flag, n_upper = lo.shape[1], lo.shape[2]
    pos = 0
    layer = 0
    for i in range(order.size):
        while layer < cuts.size - 1 and cuts[layer] == i:
            starts[layer] = pos
            layer += 1
        m = order[i]
        block[m, 0] = pos
        for y in range(n_flag):
            first = -1
            union_lo = 0
            union_hi = 0
            for u in range(n_upper):
                a, b = (lo[m, y, u], hi[m, y, u]) if reachable[m, y, u] else (1, 0)
                out_lo[m, y, u] = a
                out_hi[m, y, u] = b
                if lost[m, u] and live[m, y, u]:
                    if first < 0:
                        first, union_lo, union_hi = u, a, b
                    else:
                        union_lo, union_hi = min(union_lo, a), max(union_hi, b)
            for u in range(n_upper):
                if first >= 0 and lost[m, u] and live[m, y, u]:
                    out_lo[m, y, u] = union_lo
                    out_hi[m, y, u] = union_hi
                    if u != first:  # the row of the least such upper total
                        off[m, y, u] = off[m, y, first]
                        continue
                off[m, y, u] = pos if reachable[m, y, u] else -1
                pos += max(out_hi[m, y, u] - out_lo[m, y, u] + 1, 0)
            block[m, y + 1] = pos
    while layer < cuts.size:
        starts[layer] = pos
        layer += 1
