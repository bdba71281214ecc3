"""Fast float evaluation of many races at once, for searching over all lists.

The exact solver in :mod:`dicelab.games.race.exact` uses fractions and is right for one
match-up; a search over every pair of lists needs millions of match-ups, so here the
same recursion runs in compiled code with floats. A position is the number of times
each needed sum has been thrown (capped at the larger need), written as one mixed-radix
index; a throw only ever raises an index, so one backward sweep solves the race.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True)
def race_payoff(a, b, weight):
    """``P(a wins) - P(b wins)`` for need counts ``a`` and ``b`` (one entry per sum)."""
    n = a.shape[0]
    w = np.empty(n)
    na = np.empty(n, np.int64)
    nb = np.empty(n, np.int64)
    cap = np.empty(n, np.int64)
    u = 0
    for s in range(n):
        if a[s] > 0 or b[s] > 0:
            w[u] = weight[s]
            na[u] = a[s]
            nb[u] = b[s]
            cap[u] = max(a[s], b[s])
            u += 1
    stride = np.empty(u + 1, np.int64)
    stride[0] = 1
    for j in range(u):
        stride[j + 1] = stride[j] * (cap[j] + 1)
    value = np.empty(stride[u])
    digits = cap[:u].copy()
    a_missing = 0
    b_missing = 0
    for idx in range(stride[u] - 1, -1, -1):
        if a_missing == 0:
            value[idx] = 0.0 if b_missing == 0 else 1.0
        elif b_missing == 0:
            value[idx] = -1.0
        else:
            acc = 0.0
            tot = 0.0
            for j in range(u):
                if digits[j] < cap[j]:
                    tot += w[j]
                    acc += w[j] * value[idx + stride[j]]
            value[idx] = acc / tot
        for j in range(u):
            d = digits[j]
            if d > 0:
                digits[j] = d - 1
                if d == na[j]:
                    a_missing += 1
                if d == nb[j]:
                    b_missing += 1
                break
            digits[j] = cap[j]
            if na[j] > 0:
                a_missing -= 1
            if nb[j] > 0:
                b_missing -= 1
    return value[0]


@njit(cache=True, parallel=True)
def row_payoffs(a, lists, weight):
    """Payoff of need counts ``a`` against every row of ``lists``."""
    m = lists.shape[0]
    out = np.empty(m)
    for i in prange(m):
        out[i] = race_payoff(a, lists[i], weight)
    return out


@njit(cache=True, parallel=True)
def pair_payoffs(lists, first, second, weight):
    """Payoff of ``lists[first[i]]`` against ``lists[second[i]]`` for every ``i``."""
    m = first.shape[0]
    out = np.empty(m)
    for i in prange(m):
        out[i] = race_payoff(lists[first[i]], lists[second[i]], weight)
    return out
