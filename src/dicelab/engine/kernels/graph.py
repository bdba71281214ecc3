"""Game graphs with chance: strong components, value iteration, exact policy values.

A game graph has one node a position and holds it in compressed rows: the edges of
node ``v`` are ``start[v]:start[v + 1]`` of ``to`` (the node an edge leads to) and
``prob`` (its chance, read at chance nodes only). ``kind[v]`` says who acts:
:data:`MAX` (the first player, or the only one, who wants the value high),
:data:`MIN` (the second player, or a one-player game that counts a cost), :data:`CHANCE`
(the dice) or :data:`END`. An end node is worth ``payoff[v]``; every node adds
``reward[v]`` on the way through (a roll counted, a turn counted).

Positions may come back (Pig: both players throw a 1 and the scores are as they
were), so the graph is cut into its strong components (Tarjan's algorithm, without
recursion): a component's successors outside it are all solved before it, and
most components are one position, solved in one step. Inside a component with a
cycle the values are found by Gauss-Seidel sweeps until a sweep changes nothing
by more than ``tol``. A fixed choice at every decision is valued exactly, by
a linear solve over each component of the graph that choice leaves
(:func:`policy_values`): those components hold only the positions that really
come back under the choice, a few dozen in Pig. The solver (:mod:`dicelab.engine.graph`)
sweeps to a loose tolerance, then alternates exact values and better choices
(:func:`improve`) until no choice improves: policy iteration.

A two-player game whose seats are alike (the bear-off race) may be laid out from
the mover's side only: an edge written ``-w - 1`` leads to node ``w`` seen by the
other player, worth ``1 - values[w]`` (a chance to win, seen from the other
chair). Every kernel here reads edges through :func:`node_of` and :func:`seen`,
so such a graph holds each position once instead of once per seat.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicelab.engine.kernels.kinds import CHANCE, END, MAX, MIN


@njit(cache=True, inline="always")
def node_of(x):
    """The node an edge's target ``x`` names (``-w - 1``: node ``w``, the other's view)."""
    return x if x >= 0 else -x - 1


@njit(cache=True, inline="always")
def seen(values, x):
    """The value an edge's target ``x`` carries: ``values[x]``, or ``1 - values[w]``
    for ``x = -w - 1`` (node ``w`` as the other player sees it)."""
    return values[x] if x >= 0 else 1.0 - values[-x - 1]


@njit(cache=True, nogil=True)
def strong_components(start, to, alive):
    """Tarjan's strong components of the nodes with ``alive[v]``, without recursion.

    Returns ``(order, comp_start)``: the nodes grouped by component, every
    component after all the components it leads to (solving order), and each
    component's slice of ``order``. Edges into dead nodes are passed over.
    """
    n = start.size - 1
    index = np.full(n, -1, np.int64)
    low = np.zeros(n, np.int64)
    on_stack = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int64)
    call_node = np.empty(n, np.int64)
    call_edge = np.empty(n, np.int64)
    order = np.empty(n, np.int64)
    comp_start = np.empty(n + 1, np.int64)
    sp = cp = op = nc = counter = 0
    for root in range(n):
        if index[root] >= 0 or not alive[root]:
            continue
        w = root  # the node to visit next, or -1
        while True:
            if w >= 0:
                index[w] = counter
                low[w] = counter
                counter += 1
                stack[sp] = w
                sp += 1
                on_stack[w] = True
                call_node[cp] = w
                call_edge[cp] = start[w]
                cp += 1
                w = -1
            if cp == 0:
                break
            v = call_node[cp - 1]
            e = call_edge[cp - 1]
            if e < start[v + 1]:
                call_edge[cp - 1] = e + 1
                x = node_of(to[e])
                if not alive[x]:
                    continue
                if index[x] < 0:
                    w = x
                elif on_stack[x] and index[x] < low[v]:
                    low[v] = index[x]
                continue
            cp -= 1
            if cp > 0:
                u = call_node[cp - 1]
                if low[v] < low[u]:
                    low[u] = low[v]
            if low[v] == index[v]:
                comp_start[nc] = op
                nc += 1
                while True:
                    sp -= 1
                    y = stack[sp]
                    on_stack[y] = False
                    order[op] = y
                    op += 1
                    if y == v:
                        break
    comp_start[nc] = op
    return order[:op], comp_start[: nc + 1]


@njit(cache=True, inline="always")
def _backup(v, kind, start, to, prob, payoff, reward, values, choice):
    """The value of node ``v`` from its successors' values; sets its best edge."""
    k = kind[v]
    if k == END:
        return payoff[v]
    a = start[v]
    b = start[v + 1]
    if k == CHANCE:
        total = 0.0
        for e in range(a, b):
            total += prob[e] * seen(values, to[e])
        return reward[v] + total
    best = seen(values, to[a])
    arg = a
    for e in range(a + 1, b):
        x = seen(values, to[e])
        if (k == MAX and x > best) or (k == MIN and x < best):
            best = x
            arg = e
    choice[v] = arg
    return reward[v] + best


@njit(cache=True, nogil=True)
def value_iteration(
    kind, start, to, prob, payoff, reward, order, comp_start, tol, max_sweeps, values
):
    """Best values of every node, component by component (see the module's text),
    sweeping from ``values`` (updated in place).

    Returns ``(values, choice, stats)``: ``choice[v]`` the best edge of a decision
    node (-1 elsewhere); ``stats`` = (components with a cycle, most sweeps of one,
    largest last change, largest estimated distance to the fixed point).
    """
    n = start.size - 1
    choice = np.full(n, -1, np.int64)
    cyclic = 0
    most_sweeps = 0
    last_change = 0.0
    bound = 0.0
    for c in range(comp_start.size - 1):
        a = comp_start[c]
        b = comp_start[c + 1]
        loop = b - a > 1
        if not loop:
            v = order[a]
            for e in range(start[v], start[v + 1]):
                loop = loop or node_of(to[e]) == v
        if not loop:
            v = order[a]
            values[v] = _backup(v, kind, start, to, prob, payoff, reward, values, choice)
            continue
        cyclic += 1
        sweeps = 0
        before = 0.0
        while True:
            change = 0.0
            for p in range(a, b):
                v = order[p]
                x = _backup(v, kind, start, to, prob, payoff, reward, values, choice)
                change = max(change, abs(x - values[v]))
                values[v] = x
            sweeps += 1
            if change <= tol or sweeps >= max_sweeps:
                break
            before = change
        most_sweeps = max(most_sweeps, sweeps)
        last_change = max(last_change, change)
        if change > 0.0:  # a geometric tail: change * r / (1 - r), r the last ratio
            r = change / before if before > 0.0 else 1.0
            bound = max(bound, change * r / (1.0 - r) if r < 1.0 else np.inf)
    return values, choice, np.array([cyclic, most_sweeps, last_change, bound])


@njit(cache=True, nogil=True)
def _resolve(kind, start, to, reward, choice):
    """Follow every decision's chosen edge to the first chance or end node.

    Returns ``(target, carried, sign)``: a decision's value is ``carried[v] +
    sign[v] * values[target[v]]``, the rewards met on the way and, past an edge
    seen by the other player, the value turned round (``sign`` -1); ``target`` is
    -1 for decisions that only lead to decisions in a circle (a game that can stall).
    """
    n = start.size - 1
    target = np.full(n, -2, np.int64)  # -2 not yet known, -3 on the current path
    carried = np.zeros(n, np.float64)
    sign = np.ones(n, np.float64)
    path = np.empty(n, np.int64)
    for v in range(n):
        if kind[v] == CHANCE or kind[v] == END:
            target[v] = v
    for v0 in range(n):
        if target[v0] != -2:
            continue
        depth = 0
        v = v0
        while target[v] == -2:
            target[v] = -3
            path[depth] = v
            depth += 1
            v = node_of(to[choice[v]])
        found = target[v] if target[v] != -3 else -1
        extra = carried[v] if found >= 0 else 0.0
        turned = sign[v] if found >= 0 else 1.0
        for d in range(depth - 1, -1, -1):
            u = path[d]
            if to[choice[u]] < 0:  # the other player's view: 1 - (extra + turned * x)
                extra = 1.0 - extra
                turned = -turned
            extra += reward[u]
            target[u] = found
            carried[u] = extra
            sign[u] = turned
    return target, carried, sign


@njit(cache=True, inline="always")
def _through(x, carried, sign):
    """What an edge to ``x`` adds, as ``(constant, factor)`` of its resolved
    node's value (see :func:`_resolve`)."""
    w = node_of(x)
    if x >= 0:
        return carried[w], sign[w]
    return 1.0 - carried[w], -sign[w]


#: Components of more chance nodes than this are valued by sweeps, not a dense solve.
DENSE_LIMIT = 600


@njit(cache=True, nogil=True)
def policy_values(kind, start, to, prob, payoff, reward, choice, guess, tol):
    """Exact values of the fixed ``choice``: one linear solve per component.

    Decision nodes take the value of the chance or end node their choice leads to;
    the chance nodes of a component that comes back on itself form a dense system
    ``(I - P) x = r + P_out x_out``, solved by Gaussian elimination with partial
    pivoting. A component of more than :data:`DENSE_LIMIT` chance nodes (two-dice
    Pig, where a double 1 sends scores back to 0, joins thousands) is swept from
    ``guess`` until no value moves by more than ``tol`` instead. Returns ``(values,
    swept)``, ``swept`` the number of components valued so. Raises ``ValueError``
    where a choice circles without a roll.
    """
    n = start.size - 1
    target, carried, sign = _resolve(kind, start, to, reward, choice)
    # the graph of chance nodes, edges already resolved through the decisions
    chance = np.zeros(n, np.bool_)
    for v in range(n):
        if target[v] == -1:
            raise ValueError("a choice leads round in a circle without a throw of the dice")
        chance[v] = kind[v] == CHANCE
    res_to = np.empty(to.size, np.int64)
    for e in range(to.size):
        res_to[e] = target[node_of(to[e])]
    order, comp_start = strong_components(start, res_to, chance)
    values = np.zeros(n, np.float64)
    for v in range(n):
        if kind[v] == END:
            values[v] = payoff[v]
    slot = np.full(n, -1, np.int64)
    swept = 0
    for c in range(comp_start.size - 1):
        a = comp_start[c]
        b = comp_start[c + 1]
        m = b - a
        if m == 1:  # most components: one throw, perhaps coming back to itself
            v = order[a]
            stay = 0.0
            total = reward[v]
            for e in range(start[v], start[v + 1]):
                const, factor = _through(to[e], carried, sign)
                total += prob[e] * const
                if res_to[e] == v:
                    stay += prob[e] * factor
                else:
                    total += prob[e] * factor * values[res_to[e]]
            values[v] = total / (1.0 - stay)
            continue
        if m > DENSE_LIMIT:
            swept += 1
            _sweep_component(order, a, b, start, prob, reward, (carried, sign), to, res_to,
                             values, guess, tol)  # fmt: skip
            continue
        for p in range(a, b):
            slot[order[p]] = p - a
        A = np.zeros((m, m + 1), np.float64)
        for i in range(m):
            v = order[a + i]
            A[i, i] += 1.0
            A[i, m] = reward[v]
            for e in range(start[v], start[v + 1]):
                w = res_to[e]
                const, factor = _through(to[e], carried, sign)
                A[i, m] += prob[e] * const
                if slot[w] >= 0:
                    A[i, slot[w]] -= prob[e] * factor
                else:
                    A[i, m] += prob[e] * factor * values[w]
        x = _gauss(A, m)
        for i in range(m):
            values[order[a + i]] = x[i]
            slot[order[a + i]] = -1
    for v in range(n):
        if kind[v] != CHANCE and kind[v] != END:
            values[v] = carried[v] + sign[v] * values[target[v]]
    return values, swept


@njit(cache=True, nogil=True)
def _sweep_component(order, a, b, start, prob, reward, resolved, to, res_to, values, guess, tol):
    """Gauss-Seidel sweeps over one large component of chance nodes, from ``guess``
    (``resolved``: the decisions' carried rewards and signs, see :func:`_resolve`)."""
    carried, sign = resolved
    for p in range(a, b):
        values[order[p]] = guess[order[p]]
    for _ in range(1_000_000):
        change = 0.0
        for p in range(a, b):
            v = order[p]
            x = reward[v]
            for e in range(start[v], start[v + 1]):
                const, factor = _through(to[e], carried, sign)
                x += prob[e] * (const + factor * values[res_to[e]])
            change = max(change, abs(x - values[v]))
            values[v] = x
        if change <= tol:
            return


@njit(cache=True)
def _gauss(A, m):
    """Solve the ``m`` equations of the augmented matrix ``A`` (overwritten)."""
    for col in range(m):
        piv = col
        for r in range(col + 1, m):
            if abs(A[r, col]) > abs(A[piv, col]):
                piv = r
        if piv != col:
            for k in range(col, m + 1):
                A[col, k], A[piv, k] = A[piv, k], A[col, k]
        d = A[col, col]
        for r in range(col + 1, m):
            f = A[r, col] / d
            if f != 0.0:
                for k in range(col, m + 1):
                    A[r, k] -= f * A[col, k]
    x = np.zeros(m, np.float64)
    for r in range(m - 1, -1, -1):
        s = A[r, m]
        for k in range(r + 1, m):
            s -= A[r, k] * x[k]
        x[r] = s / A[r, r]
    return x


@njit(cache=True, nogil=True)
def improve(kind, start, to, values, choice, eps):
    """Switch each decision to a move better than its choice by more than ``eps``
    (in place). Returns ``(switched, gain)``: how many switched, and the most any
    move gained over the choice before the switch (the Bellman residual)."""
    switched = 0
    gain = 0.0
    for v in range(start.size - 1):
        k = kind[v]
        if k != MAX and k != MIN:
            continue
        held = seen(values, to[choice[v]])
        best = held
        arg = choice[v]
        for e in range(start[v], start[v + 1]):
            x = seen(values, to[e])
            if (k == MAX and x > best + eps) or (k == MIN and x < best - eps):
                best = x
                arg = e
            gain = max(gain, x - held if k == MAX else held - x)
        if arg != choice[v]:
            choice[v] = arg
            switched += 1
    return switched, gain


@njit(cache=True, nogil=True)
def play_games(kind, start, to, prob, payoff, reward, choice, games, seed, max_steps):
    """Play ``games`` games from node 0 with the ``choice`` at every decision and the
    dice drawn (seeded); each game's payoff plus the rewards met, as node 0 sees it
    (NaN if a game is still going after ``max_steps`` steps)."""
    np.random.seed(seed)
    out = np.empty(games, np.float64)
    for g in range(games):
        v = 0
        base = 0.0  # node 0's value is base + turned * (the value of the node at hand)
        turned = 1.0
        steps = 0
        while kind[v] != END and steps < max_steps:
            base += turned * reward[v]
            if kind[v] == CHANCE:
                r = np.random.random()
                e = start[v]
                last = start[v + 1] - 1
                while e < last and r >= prob[e]:
                    r -= prob[e]
                    e += 1
            else:
                e = choice[v]
            if to[e] < 0:  # the other player's view from here on
                base += turned
                turned = -turned
            v = node_of(to[e])
            steps += 1
        out[g] = base + turned * payoff[v] if kind[v] == END else np.nan
    return out
