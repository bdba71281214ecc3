"""Laying out the rows of a table over points, state by state, in one pass.

:func:`dicelab.engine.objectives.points.stored_rows` says what a layout is: each
reachable state's row of points, the states of one mask and flag past the upper
bonus sharing the one row of the least such upper total, every row placed layer
by layer, mask by mask, flag then upper total. Written with whole-array NumPy
operations, that took a dozen temporaries the size of the table of states: for
Maxi Yatzy (89 million states) about 20 s and 9 GB before a solve could even be
sized, let alone refused. One pass over the states does it with nothing but its
outputs, and a pass that only counts (``write`` false) sizes a table with no
memory at all.

The signature is explicit (read-only inputs, any strides), so one compiled kernel
serves every caller, whether its arrays are the bounds' own (read-only), fresh,
or a constant broadcast over the states.
"""

from __future__ import annotations

from numba import njit, types

_IN3 = types.Array(types.int64, 3, "A", readonly=True)
_FLAGS3 = types.Array(types.boolean, 3, "C", readonly=True)
_LOST = types.Array(types.boolean, 2, "C", readonly=True)
_INDEX = types.Array(types.int64, 1, "C", readonly=True)
_OUT3 = types.Array(types.int64, 3, "C")
_OUT2 = types.Array(types.int64, 2, "C")
_OUT1 = types.Array(types.int64, 1, "C")
_SIGNATURE = types.int64(
    types.UniTuple(_IN3, 3),
    types.UniTuple(types.int64, 2),
    types.Tuple((_FLAGS3, _FLAGS3, _LOST, _INDEX, _INDEX)),
    types.boolean,
    types.Tuple((_OUT3, _OUT3, _OUT3, _OUT2, _OUT1)),
)


@njit(_SIGNATURE, cache=True)
def lay_out_rows(own, cut, where, write, out):
    """The size of the layout; with ``write``, the layout itself in ``out``.

    ``own = (lo, hi, to_come)`` and ``cut = (low, high)``: a reachable state's own
    range is ``max(lo, low + 1 - to_come) .. min(hi, high - 1)`` (the points where
    its value is not yet decided), an unreachable one's ``1 .. 0``. ``where =
    (reachable, live, lost, order, cuts)``: ``order`` lists the masks layer by
    layer and ``cuts[k]`` is where layer ``k`` begins in it; a state of ``live``
    whose mask has lost the bonus at its upper total (``lost[m, u]``) takes the
    row of the least such upper total of its mask and flag, spanning the union of
    their ranges. ``out = (lo, hi, off, block, starts)``: the stored rows, their
    offsets (-1 where no game goes), ``block[m, y]`` (where mask ``m``'s rows of
    flag ``y`` start; the last column their end) and ``starts[k]`` (where layer
    ``k`` starts; the last entry the size).
    """
    lo, hi, to_come = own
    low, high = cut
    reachable, live, lost, order, cuts = where
    out_lo, out_hi, off, block, starts = out
    n_flag, n_upper = reachable.shape[1], reachable.shape[2]
    pos = 0
    layer = 0
    for i in range(order.size):
        while write and layer < cuts.size - 1 and cuts[layer] == i:
            starts[layer] = pos
            layer += 1
        m = order[i]
        if write:
            block[m, 0] = pos
        for y in range(n_flag):
            first = -1
            union_lo = 0
            union_hi = 0
            for u in range(n_upper):
                if lost[m, u] and live[m, y, u]:
                    a = max(lo[m, y, u], low + 1 - to_come[m, y, u])
                    b = min(hi[m, y, u], high - 1)
                    if first < 0:
                        first, union_lo, union_hi = u, a, b
                    else:
                        union_lo, union_hi = min(union_lo, a), max(union_hi, b)
            for u in range(n_upper):
                if first >= 0 and lost[m, u] and live[m, y, u]:
                    a, b = union_lo, union_hi
                elif reachable[m, y, u]:
                    a = max(lo[m, y, u], low + 1 - to_come[m, y, u])
                    b = min(hi[m, y, u], high - 1)
                else:
                    a, b = 1, 0
                shared = first >= 0 and u > first and lost[m, u] and live[m, y, u]
                if write:
                    out_lo[m, y, u] = a
                    out_hi[m, y, u] = b
                    if shared:  # the row of the least such upper total
                        off[m, y, u] = off[m, y, first]
                    else:
                        off[m, y, u] = pos if reachable[m, y, u] else -1
                if not shared:
                    pos += max(b - a + 1, 0)
            if write:
                block[m, y + 1] = pos
    while write and layer < cuts.size:
        starts[layer] = pos
        layer += 1
    return pos
