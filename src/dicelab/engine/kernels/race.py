"""A race of two sides with the same moves, one value per pair of sides.

Two sides take turns: the side on roll throws (``throws`` outcomes with their
chances), then chooses among the sides its play can leave; the first side to
reach side 0 (nothing left) wins. ``W[i, j]`` is the chance that side ``i``, on
roll against side ``j``, wins with both playing their best::

    W[i, j] = 1 - sum over throws t of chance[t] * min over i' in plays(i, t) of W[j, i']

with ``W[j, 0] = 0`` (the side on roll has lost). A play leaves fewer pips, so a
pair depends only on pairs of a smaller pip sum: the pairs are solved in layers of
their sum, smallest first (:func:`race_layer`), each layer's pairs on every thread.
The table is stored in single precision (the values are chances; the sum over a
throw is taken in double precision) or double.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def race_layer(W, firsts, seconds, plays_start, plays_to, chances):
    """``W[i, j]`` for every ``i`` of ``firsts`` against every ``j`` of ``seconds``
    (one split of a layer's pip sum), the sides of smaller sums solved: the rows
    ``j`` on every thread, each row read as a whole while its pairs are done."""
    n_throws = chances.size
    for x in prange(seconds.size):
        j = seconds[x]
        for y in range(firsts.size):
            i = firsts[y]
            if j == 0:  # the other side is off: the side on roll has lost
                W[i, j] = 0.0
                continue
            if i == 0:
                W[i, j] = 1.0
                continue
            acc = 0.0
            for t in range(n_throws):
                row = i * n_throws + t
                least = 2.0
                for e in range(plays_start[row], plays_start[row + 1]):
                    v = np.float64(W[j, plays_to[e]])
                    if v < least:
                        least = v
                acc += chances[t] * least
            W[i, j] = 1.0 - acc
