"""The expected lead of the two-player game played to win.

The duel table (:mod:`dicelab.engine.objectives.duel`) gives each option's chance to win. The
table here gives, for every node and lead, the expected final lead of the player
who waits (their final score minus the mover's) when both play to win: each takes
the move with the larger chance to win and, between moves equally good for that,
the one that leads by more. A lead beyond what the other player can still make up
settles the game, and from there each plays for points, so the expected lead is
the lead plus the difference of the two sheets' expected scores to come.

Two options with nearly the same chance to win can differ by many points: one
plays safe, the other gambles on a box the leader no longer needs. The lead shows
it. The table is filled backwards like the duel, following the duel table's
chances as the cache keeps them (float32); chances within
:data:`~dicelab.engine.kernels.lead.EVEN` (1e-6) count as equal. See
:mod:`dicelab.engine.kernels.lead`.

>>> from dicelab.engine.objectives.duel_lead import lead_table
>>> from dicelab.rules import parse_rules
>>> coin = parse_rules({"name": "coin", "dice": 1, "faces": 2, "rolls": 1,
...                     "categories": [{"id": "s", "kind": "chance"}]})
>>> lead_table(coin, use_cache=False).value()   # the same die for both players
0.0
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from dicelab.engine.kernels import dice_arrays, rule_arrays
from dicelab.engine.objectives.duel import (
    LAYOUT,
    LOOPS_SHARE,
    NODE_BYTES,
    OBJECTIVE,
    DuelSpace,
    DuelTable,
    count_nodes,
    duel_cost,
    duel_space,
    duel_table,
    layer_batch_runs,
    solve_share,
    stored_value,
)
from dicelab.engine.objectives.expected import KeepLookups
from dicelab.engine.runtime.cost import Cost, lane_seconds
from dicelab.engine.table import SolvedTable
from dicelab.errors import UserError
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, as_game

Progress = Callable[[int, int], None]

OBJECTIVE_LEAD = "duel-lead"
#: Time of the lead pass against the duel solve's with the loops over the keeps (2.35
#: and 2.38 measured on 8 and 9 of yazy's boxes: 2.21 s against 0.93 s, 9.77 s
#: against 4.15 s).
LEAD_WEIGHT = 2.4


def settled_leads(game: CompiledRules, space: DuelSpace) -> np.ndarray:
    """Per node: the waiting player's expected points to come minus the mover's, both
    playing for points (upper bonus included), from the double-precision table."""
    from dicelab.engine.objectives.expected import expected_table

    V = expected_table(game, precision="double").values
    W = np.asarray(V[space.p_mask, space.p_y, space.p_u], dtype=np.float64)
    out = np.empty(space.n_nodes)
    n_cat = game.n_categories
    for n in range(space.n_layers):
        k, k2 = n // 2, n // 2 + n % 2
        i = W[space.cstart[k] : space.cstart[k] + space.ncount[k]]
        j: np.ndarray | list = (
            W[space.cstart[k2] : space.cstart[k2] + space.ncount[k2]] if k2 <= n_cat else []
        )
        out[space.lbase[n] : space.lbase[n + 1]] = np.subtract.outer(j, i).T.ravel()
    return out


def lead_cost(game: CompiledRules, space: DuelSpace | None = None, solved: bool = True) -> Cost:
    """Size of the lead pass before any work: the lead table and the duel table's
    chances, both float32, and the rows of every node; with ``solved`` false, the
    duel's own solve comes first and its table stays in memory. Its time is
    :data:`LEAD_WEIGHT` times the duel solve's with the loops over the keeps."""
    duel = duel_cost(game, space, compare=False)
    values = duel.states
    nodes = space.n_nodes if space is not None else count_nodes(game)[0]
    memory = 8 * values + NODE_BYTES * nodes + (0 if solved else duel.bytes)
    lead = LEAD_WEIGHT * duel.seconds * LOOPS_SHARE / solve_share(game)
    seconds = lead + (0 if solved else duel.seconds)
    what = f"{game.rules.name}'s expected lead when playing to win"
    return Cost(what, values, memory, seconds, unit=duel.unit)


@dataclass(repr=False)
class LeadTable(SolvedTable):
    """Every node's row of expected final leads, both playing to win.

    ``values[space.off[node] + x - space.xlo[node]]`` is the expected final lead of
    the player who waits at ``node`` when they lead by ``x`` points now.
    """

    duel: DuelTable
    values: np.ndarray
    settled: np.ndarray
    #: the duel table's chances in float32, as the lead pass compared them
    chances: np.ndarray

    objective: ClassVar[str] = OBJECTIVE_LEAD

    @property
    def game(self) -> CompiledRules:
        return self.duel.game

    @property
    def space(self) -> DuelSpace:
        return self.duel.space

    def value(self) -> float:
        """The first player's expected final lead, both playing to win."""
        return self.mover_lead(0, 0, 0)

    @property
    def summary(self) -> str:
        return f"first player's expected lead {self.value():+.4f}"

    def waiting_lead(self, node: int, lead: int) -> float:
        """Expected final lead of the player who waits at ``node``, leading by ``lead``."""
        row = self.space.rows(node)
        if lead > row.uhi or lead < row.ulo:
            return float(lead + self.settled[node])
        return stored_value(self, node, lead)

    def mover_lead(self, mover: int, other: int, lead: int) -> float:
        """Expected final lead of the player to move (state ``mover``), leading by ``lead``."""
        return -self.waiting_lead(self.space.node(mover, other), -lead)


class LeadLayers:
    """The lead pass as layers (see :mod:`dicelab.engine.runtime.schedule`): the duel's own
    layers and batches, reading the duel table's chances beside the next layer's
    leads. It runs in this process (the duel table is read whole)."""

    def __init__(self, duel: DuelTable, chances: np.ndarray, settled: np.ndarray, width: int):
        self.game = duel.game
        self.space = duel.space
        self.chances = chances
        self.settled = settled
        self.width = width
        self.unit_seconds = LEAD_WEIGHT * lane_seconds(duel.game.rules)
        self.size = self.space.n_values
        self.dtype = np.dtype(np.float32)
        self.total = self.size
        self.done = self.total - int(self.space.vstart[-2])

    def layers(self) -> list[int]:
        return list(range(self.space.n_layers - 2, -1, -1))

    def start(self, table: np.ndarray) -> None:
        """The last layer: both sheets full, the bonuses paid."""
        sp = self.space
        _, _, nodes = sp.layer_nodes(sp.n_layers - 1)
        for node in nodes:
            lo, hi = sp.xlo[node], sp.xhi[node]
            if hi >= lo:
                at = sp.off[node]
                table[at : at + hi - lo + 1] = np.arange(lo, hi + 1) + self.settled[node]

    def tasks(self, layer: int, pieces: int | None) -> list[tuple]:
        return layer_batch_runs(self.space, layer, self.width, pieces)

    def weight(self, task: tuple) -> int:
        return int(task[4].sum())

    def run(self, table: np.ndarray, task: tuple) -> None:
        from numba import get_num_threads

        from dicelab.engine.kernels.lead import lead_blocks, lead_buffers
        from dicelab.engine.kernels.work import on_threads

        sp, g = self.space, self.game
        R, D = rule_arrays(g), dice_arrays(g)
        bufs = lead_buffers(get_num_threads(), self.width, R, D)
        tables = (self.chances, table)
        on_threads(lead_blocks, task, tables, sp.leads(), self.settled, sp.players, R, D, bufs)


def solve_lead(duel: DuelTable, progress: Progress | None = None, width: int = 256) -> LeadTable:
    """Fill the lead table of a solved duel, in this process."""
    from dicelab.engine import kernels
    from dicelab.engine.kernels.lead import lead_blocks
    from dicelab.engine.runtime.schedule import LocalRunner

    start = time.perf_counter()
    kernels.announce_compile(lead_blocks)
    space = duel.space
    mapped = duel.meta.get("mapped")
    if mapped is not None:  # every chance is read: check every block first
        mapped.check(0, space.n_values)
    chances = np.asarray(duel.values, dtype=np.float32)
    settled = settled_leads(duel.game, space)
    L = np.empty(space.n_values, dtype=np.float32)
    LocalRunner().run(LeadLayers(duel, chances, settled, width), L, progress)
    return LeadTable(duel, L, settled, chances, seconds=time.perf_counter() - start)


def lead_table(
    rules: Rules | CompiledRules | str,
    duel: DuelTable | None = None,
    use_cache: bool = True,
    progress: Progress | None = None,
    allow_large: bool = False,
    mapped: bool = False,
) -> LeadTable:
    """The lead table of a rule set, from the cache when it holds an intact one; the
    duel table (``duel``, or the cached one, or solved first) comes with it."""
    from dicelab.engine.runtime import cache

    game = as_game(rules)
    params = {"layout": LAYOUT}
    space = duel.space if duel is not None else None
    path = cache.table_path(game.rules, OBJECTIVE_LEAD, params)
    solved = duel is not None or (
        use_cache and cache.table_path(game.rules, OBJECTIVE, params).exists()
    )
    if not (use_cache and path.exists()):
        lead_cost(game, space, solved).check(allow_large)
    if duel is None:
        space = duel_space(game)
        found = cache.lookup(game.rules, OBJECTIVE_LEAD, (space.n_values,), params, mapped)
        mapped_duel = mapped and found is not None  # the pass reads the duel whole, checked
        duel = duel_table(game, use_cache, allow_large=allow_large, mapped=mapped_duel)
    elif use_cache:
        found = cache.lookup(game.rules, OBJECTIVE_LEAD, (duel.space.n_values,), params, mapped)
    else:
        found = None
    if found is not None:
        values, meta = found
        chances = np.asarray(duel.values, dtype=np.float32)
        return LeadTable(duel, values, settled_leads(game, duel.space), chances, meta=meta)
    cost = lead_cost(game, duel.space)
    cost.check(allow_large)
    cost.announce()
    table = solve_lead(duel, progress)
    cache.remember(table, game.rules, OBJECTIVE_LEAD, params, use_cache)
    return table


# -- one position, for advice -------------------------------------------------------------
@dataclass
class LeadTurnValues(KeepLookups):
    """The mover's expected final lead after every keep and every box of one turn."""

    table: LeadTable
    mover: int
    other: int
    lead: int
    keep: np.ndarray

    @property
    def sheet(self) -> tuple[int, int]:
        s = self.table.space
        return int(s.p_mask[self.mover]), int(s.p_y[self.mover])

    def box_value(self, c: int, pts: int, extra: float, y2: int) -> float:
        """The mover's expected lead after the box."""
        s, g = self.table.space, self.table.game
        u = int(s.p_u[self.mover])
        if g.upper[c] and g.threshold > 0:
            u = min(u + pts, g.threshold)
        i2 = int(s.pid[int(s.p_mask[self.mover]) | (1 << c), y2, u])
        node = s.node(self.other, i2)
        return self.table.waiting_lead(node, self.lead + pts + int(extra))


def lead_turn_values(table: LeadTable, mover: int, other: int, lead: int) -> LeadTurnValues:
    """The expected leads inside the turn of player state ``mover`` against ``other``,
    leading by ``lead`` points: the kernels' turn on one lane."""
    from dicelab.engine.kernels.lead import lead_buffers, lead_candidates, lead_throws

    g, s = table.game, table.space
    R, D = rule_arrays(g), dice_arrays(g)
    _check_rows(table, mover, other)
    B, cand, picks, n_picks, out = (b[0] for b in lead_buffers(1, 1, R, D))
    stages = np.zeros((D.rerolls + 1, D.add.shape[0], 2, 1))
    tables = (table.chances, np.asarray(table.values))
    lead_candidates(mover, other, -lead, 1, cand, picks, n_picks, tables, s.leads(),
                    table.settled, s.players, R)  # fmt: skip
    lead_throws(B, cand, picks, n_picks, 0, D, stages, out)
    return LeadTurnValues(table, mover, other, lead, stages[:, :, 1, 0])


def _check_rows(table: LeadTable, mover: int, other: int) -> None:
    """Check the blocks of both mapped tables that one turn of ``mover`` reads: the
    rows of every node the turn can hand over."""
    s = table.space
    k = int(s.p_count[mover])
    mask = int(s.p_mask[mover])
    nxt = np.arange(s.cstart[k + 1], s.cstart[k + 1] + s.ncount[k + 1])
    nxt = nxt[(s.p_mask[nxt] & mask) == mask]
    nodes = s.nodes(other, nxt)
    for t in (table.duel, table):
        mapped = t.meta.get("mapped")
        if mapped is None:
            continue
        row = s.rows(nodes)
        for start, length in zip(row.off, row.xhi - row.xlo + 1, strict=True):
            mapped.check(int(start), int(start) + max(int(length), 1))


def solve_objective(game: CompiledRules, spec, options) -> LeadTable:
    """The registry's solve: the expected leads, worked out in this process."""
    if options.runner is not None:
        raise UserError("runner: the duel-lead table is worked out in this process")
    return lead_table(game, **options.solver_kwargs("mapped"))


def objective_facts(rules, spec):
    """The registry's facts: the duel's file and the leads' (the duel solved first
    where it is not on disk)."""
    from dicelab.engine.objectives import duel
    from dicelab.engine.runtime import cache
    from dicelab.engine.runtime.cost import Facts

    params = {"layout": duel.LAYOUT}
    both = (
        cache.table_path(rules, duel.OBJECTIVE, params),
        cache.table_path(rules, OBJECTIVE_LEAD, params),
    )
    return Facts((both,), lead_cost(as_game(rules), solved=both[0].exists()))
