"""The two-player game, solved exactly: the chance to win, not the expected score.

Two players take whole turns with the same rules, A first, until both sheets are
full; the higher final score wins and a tie counts half. The value of a position
is A's chance to win plus half the chance of a tie, with A maximising it and B
minimising it (B maximising their own).

States
------
A turn start is a *node*: the state of the player to move (filled boxes, flag,
capped upper total: a one-player turn-start state), the state of the player who
waits, and the lead of the waiting player (their points so far minus the
mover's). Whose turn it is follows from the sheets: A moves when both have filled
as many boxes, B when A has one more. Nodes are grouped in *layers* by the boxes
filled on both sheets; a layer depends only on the next one.

Every node has a *row* of leads, stored contiguously: the leads its sheets can
produce (from :class:`dicelab.solve.points.StateBounds`) that are still
undecided. A lead beyond what the mover can still make up is a certain win for
the player who waits, one below what the waiting player can make up a certain
loss, so neither needs storing. The row holds the chance of the player who
*waits*: the mover, scoring ``g`` points on a lead of ``-x``, hands over a node
where their own lead is ``g - x``, and that node's row gives their chance
directly.

Within a turn the mover uses the keep recursions of the one-player solvers
(:func:`dicelab.solve.kernels.throws_and_start`), with the leads as lanes.

Strategy pairs
--------------
:func:`evaluate_pair` gives the exact chances of A winning, tying and losing when
each seat plays either the win-optimal strategy of this table or the
expected-score optimum (the strategy of ``dicelab solve``). Two expected-score
players have identically distributed scores, so that pair's value is exactly 1/2:
the report checks it.

>>> from dicelab.solve.duel import solve_duel
>>> from dicelab.rules import parse_rules
>>> coin = parse_rules({"name": "coin", "dice": 1, "faces": 2, "rolls": 1,
...                     "categories": [{"id": "s", "kind": "chance"}]})
>>> solve_duel(coin).start_value   # 1 or 2 each: a tie half the time
0.5
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from dicelab.errors import UserError
from dicelab.rules import Rules, load_rules
from dicelab.rules.compiled import CompiledRules, compile_rules
from dicelab.solve.cost import Cost, turn_cost
from dicelab.solve.points import StateBounds

Progress = Callable[[int, int], None]

OBJECTIVE = "duel"
#: Most (node, lead) values a duel may have before the space is even built.
MAX_NODES = 400_000_000


def _game(rules: Rules | CompiledRules | str) -> CompiledRules:
    if isinstance(rules, str):
        rules = load_rules(rules)
    return rules if isinstance(rules, CompiledRules) else compile_rules(rules)


def _player_states(game: CompiledRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every reachable one-player turn-start state as ``(mask, flag, upper)``, ordered by
    boxes filled, then mask, flag and upper total."""
    bounds = StateBounds(game)
    m, y, u = np.nonzero(bounds.reachable)
    pop = np.zeros_like(m)
    for c in range(game.n_categories):
        pop += (m >> c) & 1
    order = np.lexsort((u, y, m, pop))
    return m[order].astype(np.int64), y[order].astype(np.int64), u[order].astype(np.int64)


def count_nodes(game: CompiledRules) -> tuple[int, np.ndarray]:
    """Number of nodes (pairs of sheets with a player to move), and players per count."""
    m, _, _ = _player_states(game)
    pop = np.zeros_like(m)
    for c in range(game.n_categories):
        pop += (m >> c) & 1
    ncount = np.bincount(pop, minlength=game.n_categories + 1).astype(np.int64)
    nxt = np.append(ncount[1:], 0)
    return int((ncount * (ncount + nxt)).sum()), ncount


@dataclass
class DuelSpace:
    """Players, nodes and rows of a duel.

    Attributes
    ----------
    p_mask, p_y, p_u, p_count : ndarray
        Player state ``i``: filled boxes, flag, capped upper total, boxes filled.
    pid : ndarray, shape (2**boxes, n_flag, n_upper)
        The player state of a (mask, flag, upper) triple, -1 if unreachable.
    cstart, ncount : ndarray
        Player states with ``k`` boxes filled are ``cstart[k] : cstart[k] + ncount[k]``.
    lbase : ndarray
        Nodes of layer ``n`` (boxes filled on both sheets) start at ``lbase[n]``.
    xlo, xhi, ulo, uhi, off : ndarray, one entry per node
        The stored leads ``xlo..xhi``, the undecided leads ``ulo..uhi`` and where the
        row starts in the value array.
    vstart : ndarray
        Values of layer ``n`` are ``vstart[n] : vstart[n + 1]``.
    """

    game: CompiledRules
    p_mask: np.ndarray
    p_y: np.ndarray
    p_u: np.ndarray
    p_count: np.ndarray
    pid: np.ndarray
    cstart: np.ndarray
    ncount: np.ndarray
    lbase: np.ndarray
    xlo: np.ndarray
    xhi: np.ndarray
    ulo: np.ndarray
    uhi: np.ndarray
    off: np.ndarray
    vstart: np.ndarray
    bonus: np.ndarray

    @property
    def n_nodes(self) -> int:
        return int(self.lbase[-1])

    @property
    def n_values(self) -> int:
        return int(self.vstart[-1])

    @property
    def n_layers(self) -> int:
        return 2 * self.game.n_categories + 1

    def layer_nodes(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(i, j, node)`` of every node of layer ``n``."""
        k, k2 = n // 2, n // 2 + n % 2
        i = np.arange(self.cstart[k], self.cstart[k] + self.ncount[k])
        j = np.arange(self.cstart[k2], self.cstart[k2] + self.ncount[k2])
        ii, jj = np.meshgrid(i, j, indexing="ij")
        nodes = np.arange(self.lbase[n], self.lbase[n + 1])
        return ii.ravel(), jj.ravel(), nodes

    def node(self, i: int, j: int) -> int:
        ki, kj = int(self.p_count[i]), int(self.p_count[j])
        if kj not in (ki, ki + 1):
            raise ValueError("no node: the sheets' filled boxes do not alternate")
        n = ki + kj
        return int(
            self.lbase[n] + (i - self.cstart[ki]) * self.ncount[kj] + (j - self.cstart[kj])
        )

    def player(self, mask: int, upper_total: int, flag: int) -> int:
        """The player state of a sheet, or -1 if no game can produce it."""
        g = self.game
        u = min(upper_total, g.threshold) if g.threshold > 0 else 0
        y = flag if g.n_flag == 2 else 0
        if not 0 <= mask <= g.full_mask or u < 0:
            return -1
        return int(self.pid[mask, y, u])

    def kernel_args(self) -> tuple:
        return (
            self.p_mask, self.p_y, self.p_u, self.p_count, self.pid, self.cstart, self.ncount,
            self.lbase,
        )  # fmt: skip


def duel_space(game: CompiledRules) -> DuelSpace:
    """Lay out the nodes and rows of a duel (see :class:`DuelSpace`)."""
    n_cat = game.n_categories
    bounds = StateBounds(game)
    p_mask, p_y, p_u = _player_states(game)
    p_count = np.zeros_like(p_mask)
    for c in range(n_cat):
        p_count += (p_mask >> c) & 1
    ncount = np.bincount(p_count, minlength=n_cat + 1).astype(np.int64)
    cstart = np.concatenate([[0], np.cumsum(ncount)]).astype(np.int64)
    pid = np.full(bounds.reachable.shape, -1, dtype=np.int64)
    pid[p_mask, p_y, p_u] = np.arange(p_mask.size)
    # points so far and to come of each player state
    lo = bounds.so_far_lo[p_mask, p_y, p_u]
    hi = bounds.so_far_hi[p_mask, p_y, p_u]
    most = bounds.to_come[p_mask, p_y, p_u]
    least_box = np.minimum(game.score.min(axis=1), game.joker_score.min(axis=1))
    bits = (p_mask[:, None] >> np.arange(n_cat)[None, :]) & 1
    least = ((1 - bits) * least_box[None, :]).sum(axis=1)
    bonus = np.zeros_like(p_mask)
    if game.threshold > 0:
        bonus = np.where(p_u >= game.threshold, bounds.bonus, 0).astype(np.int64)
    least = least + bonus
    n_layers = 2 * n_cat + 1
    lbase = np.zeros(n_layers + 1, dtype=np.int64)
    for n in range(n_layers):
        k, k2 = n // 2, n // 2 + n % 2
        lbase[n + 1] = lbase[n] + ncount[k] * (ncount[k2] if k2 <= n_cat else 0)
    parts = {name: [] for name in ("xlo", "xhi", "ulo", "uhi")}
    for n in range(n_layers):
        k, k2 = n // 2, n // 2 + n % 2
        i = slice(cstart[k], cstart[k + 1])
        j = slice(cstart[k2], cstart[k2 + 1])
        ulo = least[i][:, None] - most[j][None, :]
        uhi = most[i][:, None] - least[j][None, :]
        rlo = lo[j][None, :] - hi[i][:, None]
        rhi = hi[j][None, :] - lo[i][:, None]
        parts["ulo"].append(ulo.ravel())
        parts["uhi"].append(uhi.ravel())
        parts["xlo"].append(np.maximum(ulo, rlo).ravel())
        parts["xhi"].append(np.minimum(uhi, rhi).ravel())
    arrays = {name: np.concatenate(v).astype(np.int64) for name, v in parts.items()}
    length = np.maximum(arrays["xhi"] - arrays["xlo"] + 1, 0)
    off = np.concatenate([[0], np.cumsum(length)]).astype(np.int64)
    vstart = off[lbase]
    return DuelSpace(
        game=game, p_mask=p_mask, p_y=p_y, p_u=p_u, p_count=p_count, pid=pid, cstart=cstart,
        ncount=ncount, lbase=lbase, off=off[:-1], vstart=vstart, bonus=bonus, **arrays,
    )  # fmt: skip


def duel_cost(game: CompiledRules, space: DuelSpace | None = None) -> Cost:
    """Size of a duel solve: values, memory (the table, two layers of strategy
    comparisons, the saved copy) and time (the solve and three comparisons)."""
    what = f"{game.rules.name}'s two-player game"
    if space is None:
        nodes, _ = count_nodes(game)
        if nodes > MAX_NODES:
            # every node holds at least one lead: a lower bound is enough to refuse
            return Cost(what, nodes, nodes * 8, nodes * 1e-6, unit="pairs of sheets at least")
        space = duel_space(game)
    values = space.n_values
    layer = int(np.diff(space.vstart).max()) if space.n_layers else 0
    scratch, seconds = turn_cost(game.rules, values)
    memory = values * 12 + 4 * 8 * 2 * layer + space.n_nodes * 48 + scratch
    return Cost(what, values, memory, seconds * 4, unit="(pair of sheets, lead) values")


# -- the solve --------------------------------------------------------------------------
def _batches(space: DuelSpace, n: int, width: int):
    """Cut the rows of layer ``n`` into runs of at most ``width`` lanes."""
    i, j, nodes = space.layer_nodes(n)
    length = np.maximum(space.xhi[nodes] - space.xlo[nodes] + 1, 0)
    pieces = (length + width - 1) // width
    rep = np.repeat(np.arange(nodes.size), pieces)
    first = np.concatenate([[0], np.cumsum(pieces)[:-1]])
    k = np.arange(rep.size) - np.repeat(first, pieces)
    x0 = space.xlo[nodes][rep] + k * width
    nl = np.minimum(width, space.xhi[nodes][rep] - x0 + 1)
    return i[rep], j[rep], nodes[rep], x0.astype(np.int64), nl.astype(np.int64)


def _terminal(space: DuelSpace, T: np.ndarray, tbase: int, tie: bool = False) -> None:
    """Rows of the last layer: both sheets full, the bonuses paid."""
    n = space.n_layers - 1
    i, j, nodes = space.layer_nodes(n)
    for a, b, node in zip(i, j, nodes, strict=True):
        lo, hi = space.xlo[node], space.xhi[node]
        if hi < lo:
            continue
        final = np.arange(lo, hi + 1) + space.bonus[b] - space.bonus[a]
        start = space.off[node] - tbase
        if tie:
            T[start : start + hi - lo + 1] = final == 0
        else:
            T[start : start + hi - lo + 1] = np.where(final > 0, 1.0, np.where(final == 0, 0.5, 0))


@dataclass
class DuelTable:
    """The win-optimal two-player game: every node's row of chances.

    ``values[space.off[node] + x - space.xlo[node]]`` is the chance (a win plus half
    a tie) of the player who waits at ``node`` when they lead by ``x`` points, both
    playing to win from then on.
    """

    game: CompiledRules
    space: DuelSpace
    values: np.ndarray
    seconds: float = 0.0
    meta: dict = field(default_factory=dict)

    @property
    def rules(self) -> Rules:
        return self.game.rules

    def waiting_value(self, node: int, lead: int) -> float:
        """Chance of the player who waits at ``node``, leading by ``lead``."""
        s = self.space
        if lead > s.uhi[node]:
            return 1.0
        if lead < s.ulo[node]:
            return 0.0
        if not s.xlo[node] <= lead <= s.xhi[node]:
            raise UserError("that lead cannot occur with these two sheets")
        i = int(s.off[node] + lead - s.xlo[node])
        mapped = self.meta.get("mapped")
        if mapped is not None:
            mapped.check(i, i + 1)
        return float(self.values[i])

    def mover_value(self, mover: int, other: int, lead: int) -> float:
        """Chance of the player to move (state ``mover``) leading by ``lead``."""
        return 1.0 - self.waiting_value(self.space.node(mover, other), -lead)

    @property
    def start_value(self) -> float:
        """A's chance (a win plus half a tie) at the start, both playing to win."""
        exact = self.meta.get("start_value")
        if exact is not None:
            return float(exact)
        return self.mover_value(0, 0, 0)


def solve_duel(
    rules: Rules | CompiledRules | str,
    progress: Progress | None = None,
    width: int = 256,
    allow_large: bool = False,
) -> DuelTable:
    """Solve the two-player game for the win-optimal strategy of both players.

    Float64 throughout; ``progress(done, total)`` is called in values.
    """
    from numba import config, parallel_chunksize

    from dicelab.solve import kernels
    from dicelab.solve.expected import kernel_args, space_args

    game = _game(rules)
    duel_cost(game).check(allow_large)
    space = duel_space(game)
    cost = duel_cost(game, space)
    cost.check(allow_large)
    start = time.perf_counter()
    T = np.empty(space.n_values)
    _terminal(space, T, 0)
    total = space.n_values
    done = total - int(space.vstart[-2])
    workers = config.NUMBA_NUM_THREADS
    kernels.announce_compile(kernels.duel_layer)
    rargs = kernel_args(game)
    sargs = space_args(game)
    nargs = (space.off, space.xlo, space.ulo, space.uhi, *space.kernel_args())
    for n in range(space.n_layers - 2, -1, -1):
        plan = _batches(space, n, width)
        with parallel_chunksize(1):
            kernels.duel_layer(*plan, width, workers, T, *nargs, *rargs, *sargs)
        done += int(space.vstart[n + 1] - space.vstart[n])
        if progress is not None:
            progress(done, total)
    table = DuelTable(game, space, T, seconds=time.perf_counter() - start)
    return table


# -- strategy pairs ---------------------------------------------------------------------
WIN = "win"
EXPECTED = "expected"


@dataclass(frozen=True)
class PairResult:
    """Exact chances of A winning, tying and losing for one pair of strategies."""

    a: str
    b: str
    p_a: float
    p_tie: float
    p_b: float

    @property
    def value(self) -> float:
        """A's chance counting a tie as half."""
        return self.p_a + self.p_tie / 2

    def to_dict(self) -> dict:
        return {
            "a": self.a, "b": self.b, "p_a_wins": self.p_a, "p_tie": self.p_tie,
            "p_b_wins": self.p_b, "value_for_a": self.value,
        }  # fmt: skip


def expected_outcomes(game: CompiledRules, space: DuelSpace):
    """Every player state's turn outcomes under the expected-score optimum.

    Returns ``(start, prob, box, points, gain)``: the outcomes of state ``i`` are
    ``start[i]:start[i + 1]``, with their probability, box, points written and
    points gained (the extra bonus included). Ties between choices are broken as
    in :mod:`dicelab.solve.distribution`.
    """
    from numba import get_num_threads

    from dicelab.solve.distribution import _slots, layer_outcomes
    from dicelab.solve.expected import expected_table, kernel_args, space_args

    n = game.n_categories
    V = expected_table(game.rules).values
    reach = game.upper_reach
    lanes = np.zeros((1 << n, game.n_upper), dtype=np.int64)
    n_lanes = reach.sum(axis=1).astype(np.int64)
    lane_of = np.full((1 << n, game.n_upper), -1, dtype=np.int64)
    for m in range(1 << n):
        us = np.flatnonzero(reach[m])
        lanes[m, : us.size] = us
        lane_of[m, us] = np.arange(us.size)
    slot_of, slot_pts, n_e = _slots(game)
    box_slots = (slot_of >= 0).sum(axis=1) * n_e
    bits = ((np.arange(1 << n)[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)
    block_slots = (~bits * box_slots).sum(axis=1)
    masks = np.arange(game.full_mask, dtype=np.int64)  # every mask but the full one
    qoff = np.zeros((1 << n, game.n_flag), dtype=np.int64)
    pos = 0
    for m in masks:
        for y in range(game.flags_of(int(m))):
            qoff[m, y] = pos
            pos += block_slots[m] * n_lanes[m]
    Q = np.zeros(pos)
    layer_outcomes(
        masks, max(1, get_num_threads()), V, Q, qoff, lanes, n_lanes, slot_of, box_slots, n_e,
        *kernel_args(game), *space_args(game),
    )  # fmt: skip
    extra = int(game.rules.extra_bonus)
    starts = [0]
    prob, box, pts, gain = [], [], [], []
    for i in range(space.p_mask.size):
        m, y, u = int(space.p_mask[i]), int(space.p_y[i]), int(space.p_u[i])
        if m == game.full_mask:
            starts.append(starts[-1])
            continue
        width = int(block_slots[m])
        row = Q[qoff[m, y] + lane_of[m, u] * width : qoff[m, y] + (lane_of[m, u] + 1) * width]
        slot = 0
        for c in range(n):
            if (m >> c) & 1:
                continue
            for v in range(int(box_slots[c]) // n_e):
                for e in range(n_e):
                    p = row[slot]
                    slot += 1
                    if p > 0:
                        prob.append(p)
                        box.append(c)
                        pts.append(int(slot_pts[c, v]))
                        gain.append(int(slot_pts[c, v]) + e * extra)
        starts.append(len(prob))
    as_int = lambda x: np.array(x, dtype=np.int64)  # noqa: E731
    return as_int(starts), np.array(prob), as_int(box), as_int(pts), as_int(gain)


def evaluate_pair(
    table: DuelTable,
    a: str,
    b: str,
    width: int = 256,
    outcomes=None,
    progress: Progress | None = None,
) -> PairResult:
    """Exact chances when seat A plays strategy ``a`` and seat B ``b``.

    A strategy is :data:`WIN` (the win-optimal play of ``table``) or
    :data:`EXPECTED` (the expected-score optimum). The pass goes backwards over the
    layers as the solve does, holding two layers of win and tie chances.
    """
    from numba import config, parallel_chunksize

    from dicelab.solve import kernels
    from dicelab.solve.expected import kernel_args, space_args

    for s in (a, b):
        if s not in (WIN, EXPECTED):
            raise UserError(f"strategy: got {s!r}, expected {WIN!r} or {EXPECTED!r}")
    game, space = table.game, table.space
    if EXPECTED in (a, b) and outcomes is None:
        outcomes = expected_outcomes(game, space)
    if outcomes is None:
        empty = np.zeros(1, dtype=np.int64)
        outcomes = (np.zeros(space.p_mask.size + 1, np.int64), np.zeros(1), empty, empty, empty)
    T = np.asarray(table.values)
    workers = config.NUMBA_NUM_THREADS
    rargs = kernel_args(game)
    sargs = space_args(game)
    last = space.n_layers - 1
    size = int(space.vstart[last + 1] - space.vstart[last])
    EW = np.empty(size)
    EZ = np.empty(size)
    _terminal(space, EW, int(space.vstart[last]))
    _terminal(space, EZ, int(space.vstart[last]), tie=True)
    EW[:] = np.where(EZ == 1.0, 0.0, EW)  # a tie is not a win
    total = space.n_values
    done = size
    for n in range(last - 1, -1, -1):
        seat = a if n % 2 == 0 else b
        cbase = int(space.vstart[n])
        size = int(space.vstart[n + 1] - cbase)
        CW = np.empty(size)
        CZ = np.empty(size)
        plan = _batches(space, n, width)
        with parallel_chunksize(1):
            kernels.duel_eval_layer(
                *plan, width, workers, seat == WIN, T, space.off, space.xlo, space.ulo,
                space.uhi, EW, EZ, space.off, int(space.vstart[n + 1]), CW, CZ, cbase, *outcomes,
                *space.kernel_args(), *rargs, *sargs,
            )  # fmt: skip
        EW, EZ = CW, CZ
        done += size
        if progress is not None:
            progress(done, total)
    node = 0
    lead = 0  # B's lead at the start
    if space.xlo[node] <= lead <= space.xhi[node]:
        p_b = float(EW[lead - space.xlo[node]])
        p_tie = float(EZ[lead - space.xlo[node]])
    else:  # decided before a die is thrown
        p_b, p_tie = (1.0, 0.0) if lead > space.uhi[node] else (0.0, 0.0)
    return PairResult(a, b, 1.0 - p_b - p_tie, p_tie, p_b)


def duel_table(
    rules: Rules | CompiledRules | str,
    use_cache: bool = True,
    progress: Progress | None = None,
    allow_large: bool = False,
) -> DuelTable:
    """The duel table of a rule set, from the cache when it holds one."""
    from dicelab import tables

    game = _game(rules)
    rules = game.rules
    params = {"layout": "lead-rows-1"}
    if use_cache:
        duel_cost(game).check(allow_large)
        space = duel_space(game)
        found = tables.lookup(rules, OBJECTIVE, (space.n_values,), params)
        if found is not None:
            values, meta = found
            return DuelTable(game, space, values, meta=meta)
    table = solve_duel(game, progress=progress, allow_large=allow_large)
    tables.remember(table, rules, OBJECTIVE, params, use_cache)
    return table

