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
produce (from :class:`dicelab.engine.objectives.points.StateBounds`) that are still
undecided. A lead beyond what the mover can still make up is a certain win for
the player who waits, one below what the waiting player can make up a certain
loss, so neither needs storing. The row holds the chance of the player who
*waits*: the mover, scoring ``g`` points on a lead of ``-x``, hands over a node
where their own lead is ``g - x``, and that node's row gives their chance
directly.

Within a turn the mover uses the keep recursions of the one-player solvers
(:func:`dicelab.engine.kernels.turn.throws_and_start`), with the leads as lanes.

Strategy pairs
--------------
:func:`evaluate_pair` gives the exact chances of A winning, tying and losing when
each seat plays either the win-optimal strategy of this table or the
expected-score optimum (the strategy of ``dicelab solve``). Two expected-score
players have identically distributed scores, so that pair's value is exactly 1/2:
the report checks it.

>>> from dicelab.engine.objectives.duel import solve_duel
>>> from dicelab.rules import parse_rules
>>> coin = parse_rules({"name": "coin", "dice": 1, "faces": 2, "rolls": 1,
...                     "categories": [{"id": "s", "kind": "chance"}]})
>>> solve_duel(coin).start_value   # 1 or 2 each: a tie half the time
0.5
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple

import numpy as np

from dicelab.dice import turn_written_out
from dicelab.engine import registry, turn
from dicelab.engine.kernels import Leads, Players, dice_arrays, rule_arrays
from dicelab.engine.objectives.expected import KeepLookups
from dicelab.engine.objectives.points import state_bounds
from dicelab.engine.runtime.cost import Cost, lane_seconds, memory_budget, turn_cost
from dicelab.engine.table import SolvedTable
from dicelab.errors import UserError
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, as_game, refuse_variants, sorted_distinct

Progress = Callable[[int, int], None]

OBJECTIVE = "duel"
#: Time of the strategy comparisons against the solve's with the loops over the keeps
#: (5.7 and 8.4 measured on 8 of yazy's boxes with the pairs in lane vectors, on 2
#: loaded cores; 22.6 with the row kernel before them); see :func:`compare_weight`.
COMPARE_WEIGHT = 7
#: The solve's share of the turn kernels' estimate (its rows are long): half with the
#: loops over the keeps, less where the turn is written out for the dice (yazy's duel
#: took 59 to 66 s on 2 cores against an estimate of 212 s).
LOOPS_SHARE = 0.5
WRITTEN_OUT_SHARE = 0.3
#: Most nodes (pairs of sheets) a duel may have before its space is even built.
MAX_NODES = 400_000_000
#: Bytes a node costs at least: its row bounds and offset, and one value.
NODE_BYTES = 56


def _player_states(game: CompiledRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every reachable one-player turn-start state as ``(mask, flag, upper)``, ordered by
    boxes filled, then mask, flag and upper total."""
    bounds = state_bounds(game)
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


class NodeRows(NamedTuple):
    """The rows of some nodes (see :class:`DuelSpace`), one entry per node."""

    off: np.ndarray
    xlo: np.ndarray
    xhi: np.ndarray
    ulo: np.ndarray
    uhi: np.ndarray


@dataclass
class DuelSpace:
    """Players, nodes and rows of a duel.

    Attributes
    ----------
    players : Players
        The player states as the kernels read them; each of its arrays is an attribute
        of the space too.
    p_mask, p_y, p_u, p_count : ndarray
        Player state ``i``: filled boxes, flag, capped upper total, boxes filled.
    pid : ndarray, shape (2**boxes, n_flag, n_upper)
        The player state of a (mask, flag, upper) triple, -1 if unreachable.
    cstart, ncount : ndarray
        Player states with ``k`` boxes filled are ``cstart[k] : cstart[k] + ncount[k]``.
    lbase : ndarray
        Nodes of layer ``n`` (boxes filled on both sheets) start at ``lbase[n]``.
    vstart : ndarray
        Values of layer ``n`` are ``vstart[n] : vstart[n + 1]``.
    least, most, lo, hi : ndarray, one entry per player state
        The fewest and most points still to come (the fewest with the upper bonus
        earned), the fewest and most points so far.
    row_start : list of ndarray
        Where the values of the nodes of layer ``n`` whose mover is the ``r``-th
        player of its count start: ``row_start[n][r]``.

    The rows of every node, ``xlo, xhi, ulo, uhi, off`` (the stored leads
    ``xlo..xhi``, the undecided leads ``ulo..uhi`` and where the row starts in the
    value array, one entry per node), are laid out on first use: the solvers read
    them all, while advice reads a few nodes' through :meth:`rows` (a command that
    answers one position does not lay out a million rows).
    """

    game: CompiledRules
    players: Players
    vstart: np.ndarray
    bonus: np.ndarray
    least: np.ndarray
    most: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    row_start: list
    _laid_out: dict = field(default_factory=dict, repr=False)

    def __getattr__(self, name: str):
        """The player arrays (``p_mask`` ... ``lbase``) read from :attr:`players`, and
        the rows of every node (``xlo`` ... ``off``), laid out on first use."""
        if name in Players._fields:
            return getattr(self.players, name)
        if name in NodeRows._fields:
            if not self._laid_out:
                self._laid_out.update(self._lay_out())
            return self._laid_out[name]
        raise AttributeError(name)

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
        ii, jj = np.meshgrid(*self._layer_players(n), indexing="ij")
        nodes = np.arange(self.lbase[n], self.lbase[n + 1])
        return ii.ravel(), jj.ravel(), nodes

    def node(self, i: int, j: int) -> int:
        ki, kj = int(self.p_count[i]), int(self.p_count[j])
        if kj not in (ki, ki + 1):
            raise ValueError("no node: the sheets' filled boxes do not alternate")
        n = ki + kj
        return int(self.lbase[n] + (i - self.cstart[ki]) * self.ncount[kj] + (j - self.cstart[kj]))

    def nodes(self, i, j) -> np.ndarray:
        """:meth:`node` for arrays (which must alternate)."""
        i, j = np.broadcast_arrays(np.asarray(i), np.asarray(j))
        ki, kj = self.p_count[i], self.p_count[j]
        return self.lbase[ki + kj] + (i - self.cstart[ki]) * self.ncount[kj] + (j - self.cstart[kj])

    def player(self, mask: int, upper_total: int, flag: int) -> int:
        """The player state of a sheet, or -1 if no game can produce it."""
        g = self.game
        u, y = g.turn_state(upper_total, flag)
        if not 0 <= mask <= g.full_mask or u < 0:
            return -1
        return int(self.pid[mask, y, u])

    def leads(self) -> Leads:
        """Each node's row as the kernels read it."""
        return Leads(self.off, self.xlo, self.ulo, self.uhi)

    def _bounds(self, i, j, dtype=np.int64) -> tuple[np.ndarray, ...]:
        """``(xlo, xhi, ulo, uhi)`` of the nodes of movers ``i`` and waiting players
        ``j`` (indices that broadcast): the waiting player's leads that the mover can
        still make up (``ulo..uhi``), within what the two sheets can produce."""
        least, most, lo, hi = (a.astype(dtype, copy=False) for a in self.points)
        ulo = least[i] - most[j]
        uhi = most[i] - least[j]
        return np.maximum(ulo, lo[j] - hi[i]), np.minimum(uhi, hi[j] - lo[i]), ulo, uhi

    @property
    def points(self) -> tuple[np.ndarray, ...]:
        """Each player state's fewest and most points to come and so far."""
        return self.least, self.most, self.lo, self.hi

    def rows(self, nodes) -> NodeRows:
        """The rows of ``nodes`` (an index or an array), worked out for those nodes
        alone: what reading a few positions needs."""
        nodes = np.asarray(nodes, dtype=np.int64)
        if self._laid_out:
            return NodeRows(*(self._laid_out[name][nodes] for name in NodeRows._fields))
        n = np.searchsorted(self.lbase, nodes, side="right") - 1
        k, k2 = n // 2, n // 2 + n % 2
        r, c = np.divmod(nodes - self.lbase[n], self.ncount[k2])
        i, j = self.cstart[k] + r, self.cstart[k2] + c
        xlo, xhi, ulo, uhi = self._bounds(i, j)
        off = np.empty(nodes.shape, dtype=np.int64)
        for layer, mover in {(int(a), int(b)) for a, b in zip(n.ravel(), i.ravel(), strict=True)}:
            here = (n == layer) & (i == mover)
            kk = layer // 2 + layer % 2
            others = np.arange(self.cstart[kk], self.cstart[kk] + self.ncount[kk])
            lx, hx, _, _ = self._bounds(mover, others)
            before = np.concatenate([[0], np.cumsum(np.maximum(hx - lx + 1, 0))])
            first = self.row_start[layer][mover - self.cstart[layer // 2]]
            off[here] = first + before[j[here] - others[0]]
        return NodeRows(off, xlo, xhi, ulo, uhi)

    def _lay_out(self) -> dict[str, np.ndarray]:
        """The rows of every node, a layer at a time."""
        names = ("xlo", "xhi", "ulo", "uhi")
        out = {name: np.empty(self.lbase[-1], dtype=np.int64) for name in names}
        for n in range(self.n_layers):
            i, j = self._layer_players(n)
            for name, part in zip(names, self._bounds(i[:, None], j[None, :]), strict=True):
                out[name][self.lbase[n] : self.lbase[n + 1]] = part.ravel()
        length = np.maximum(out["xhi"] - out["xlo"] + 1, 0)
        out["off"] = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
        return out

    def _layer_players(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The movers and the waiting players of layer ``n``'s nodes."""
        k, k2 = n // 2, n // 2 + n % 2
        i = np.arange(self.cstart[k], self.cstart[k] + self.ncount[k])
        j = np.arange(self.cstart[k2], self.cstart[k2] + self.ncount[k2])
        return i, j


def duel_space(game: CompiledRules) -> DuelSpace:
    """Lay out the players and layers of a duel (see :class:`DuelSpace`): where each
    row of nodes starts, the rows themselves when first read."""
    refuse_variants(game, "the two-player game")
    n_cat = game.n_categories
    bounds = state_bounds(game)
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
    space = DuelSpace(
        game=game,
        players=Players(p_mask, p_y, p_u, p_count, pid, cstart, ncount, lbase),
        vstart=np.zeros(n_layers + 1, dtype=np.int64),
        bonus=bonus,
        least=least,
        most=most,
        lo=lo,
        hi=hi,
        row_start=[],
    )
    # where each (layer, mover) row of nodes starts: every node's length, a layer
    # at a time in 32-bit temporaries (a few ms for yazy's 1.35 million nodes)
    total = 0
    for n in range(n_layers):
        space.vstart[n] = total
        i, j = space._layer_players(n)
        # every node's length in 32-bit temporaries (a few ms for yazy's 1.35 million)
        xlo, xhi, _, _ = space._bounds(i[:, None], j[None, :], np.int32)
        per_row = np.maximum(xhi - xlo + 1, 0).sum(axis=1, dtype=np.int64)
        ends = total + np.cumsum(per_row)
        space.row_start.append(ends - per_row)
        total = int(ends[-1]) if ends.size else total
    space.vstart[n_layers] = total
    return space


def duel_cost(game: CompiledRules, space: DuelSpace | None = None, compare: bool = True) -> Cost:
    """Size of a duel solve with its strategy comparisons, before any work.

    Memory: the float64 table, then the larger of two layers of comparisons (six
    rows, float32 past 1 GiB) and the float32 copy saved to the cache. Time: the
    turn kernels' estimate, of which the solve takes :func:`solve_share`, and the
    comparisons (unless ``compare`` is false) :data:`COMPARE_WEIGHT` times
    :data:`LOOPS_SHARE`.
    """
    what = f"{game.rules.name}'s two-player game"
    if space is None:
        # the pairs of filled-box sets alone, both players on one turn (C(2n, n)): a
        # bound of no work, enough to refuse the largest rule sets before counting
        n = game.n_categories
        pairs = math.comb(2 * n, n)
        if pairs > MAX_NODES:
            unit = "pairs of sheets at least"
            return Cost(what, pairs, pairs * NODE_BYTES, pairs * 1e-6, unit=unit)
        nodes, _ = count_nodes(game)
        least = Cost(what, nodes, nodes * NODE_BYTES, nodes * 1e-6, unit="pairs of sheets at least")
        if nodes > MAX_NODES or least.bytes > memory_budget():
            # a lower bound is enough to refuse, before the space is built
            return least
        space = duel_space(game)
    values = space.n_values
    widest = int(np.diff(space.vstart).max())
    layers = 2 * 6 * widest * (8 if 2 * 6 * widest * 8 <= 2**30 else 4) if compare else 0
    scratch, seconds = turn_cost(game.rules, values)
    memory = 8 * values + max(layers, 4 * values) + space.n_nodes * 48 + scratch
    seconds *= solve_share(game) + LOOPS_SHARE * (COMPARE_WEIGHT if compare else 0)
    return Cost(what, values, memory, seconds, unit="(pair of sheets, lead) values")


def solve_share(game: CompiledRules) -> float:
    """The solve's share of the turn kernels' estimate: :data:`WRITTEN_OUT_SHARE`
    where its turn is written out for the dice (:mod:`dicelab.engine.kernels.unrolled`),
    else :data:`LOOPS_SHARE`."""
    written = turn_written_out(game.rules.dice, game.rules.faces)
    return WRITTEN_OUT_SHARE if written else LOOPS_SHARE


def compare_weight(game: CompiledRules) -> float:
    """Time of the strategy comparisons against this game's solve: :data:`COMPARE_WEIGHT`,
    more where the solve's turn is written out for the dice (the comparisons' is not)."""
    return COMPARE_WEIGHT * LOOPS_SHARE / solve_share(game)


# -- the solve --------------------------------------------------------------------------
def layer_batches(space: DuelSpace, n: int, width: int):
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


def layer_batch_runs(space: DuelSpace, n: int, width: int, pieces: int | None) -> list[tuple]:
    """The batches of layer ``n`` as one run, or cut into about ``pieces`` runs of
    equal lanes (the tasks of a cluster)."""
    from dicelab.engine.runtime.schedule import pieces_of

    plan = layer_batches(space, n, width)
    if pieces is None:
        return [plan]
    return [tuple(a[lo:hi] for a in plan) for lo, hi in pieces_of(plan[4], pieces)]


def fill_terminal(space: DuelSpace, T: np.ndarray, tbase: int, tie: bool = False) -> None:
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


@dataclass(repr=False)
class DuelTable(SolvedTable):
    """The win-optimal two-player game: every node's row of chances.

    ``values[space.off[node] + x - space.xlo[node]]`` is the chance (a win plus half
    a tie) of the player who waits at ``node`` when they lead by ``x`` points, both
    playing to win from then on.
    """

    game: CompiledRules
    space: DuelSpace
    values: np.ndarray

    objective: ClassVar[str] = "duel"

    def value(self) -> float:
        """The first player's chance (a win plus half a tie), both playing to win."""
        return self.start_value

    @property
    def summary(self) -> str:
        return f"first player's chance {self.start_value:.6f}"

    def advise(self, position, *, theirs, my_score: int | None = None, leads=None):
        """Every option of the player to move, ranked by win chance (both playing to win).

        ``position`` is the mover's sheet, dice and rerolls; ``theirs`` the other
        player's sheet (a :class:`~dicelab.engine.advice.duel.Sheet`, or the filled
        boxes as a mapping). With ``leads`` (the ``"duel-lead"`` table of the same
        rules) each option's expected final lead comes too. See
        :func:`dicelab.engine.advice.duel.duel_advise`.
        """
        advise = registry.analysis("duel-advice")
        return advise(self, position, theirs=theirs, my_score=my_score, leads=leads)

    def waiting_value(self, node: int, lead: int) -> float:
        """Chance of the player who waits at ``node``, leading by ``lead``."""
        row = self.space.rows(node)
        if lead > row.uhi:
            return 1.0
        if lead < row.ulo:
            return 0.0
        return stored_value(self, node, lead)

    def mover_value(self, mover: int, other: int, lead: int) -> float:
        """Chance of the player to move (state ``mover``) leading by ``lead``."""
        return 1.0 - self.waiting_value(self.space.node(mover, other), -lead)

    def waiting_values(self, nodes: np.ndarray, leads: np.ndarray) -> np.ndarray:
        """:meth:`waiting_value` for arrays of nodes and leads (NaN for a lead that the
        two sheets cannot produce)."""
        nodes, leads = np.broadcast_arrays(np.asarray(nodes), np.asarray(leads).astype(np.int64))
        row = self.space.rows(nodes)
        out = np.where(leads > row.uhi, 1.0, 0.0)
        out[(leads >= row.ulo) & (leads <= row.uhi)] = np.nan  # a lead no game makes
        inside = (leads >= row.xlo) & (leads <= row.xhi)
        idx = row.off[inside] + leads[inside] - row.xlo[inside]
        mapped = self.meta.get("mapped")
        if mapped is not None:
            for i in sorted_distinct(idx):
                mapped.check(int(i), int(i) + 1)
        out[inside] = self.values[idx]
        return out

    def after_move(self, mover, other, c, pts, y2, lead):
        """The mover's chance after scoring ``pts`` in box ``c`` (next flag ``y2``),
        leading by ``lead`` afterwards; arrays broadcast."""
        s = self.space
        g = self.game
        u = s.p_u[mover]
        up = g.upper[c] & (g.threshold > 0)
        u2 = np.where(up, np.minimum(u + pts, g.threshold), u)
        i2 = s.pid[s.p_mask[mover] | (np.asarray(1) << c), y2, u2]
        nodes = s.nodes(other, i2)
        return self.waiting_values(nodes, lead)

    @property
    def start_value(self) -> float:
        """A's chance (a win plus half a tie) at the start, both playing to win."""
        exact = self.meta.get("start_value")
        if exact is not None:
            return float(exact)
        return self.mover_value(0, 0, 0)


def stored_value(table, node: int, lead: int) -> float:
    """The value a table over the duel's rows (:class:`DuelTable` or its companions)
    holds at ``node`` and an undecided ``lead``; a lead no game makes is refused in
    one line, and the block is checked first where the table is mapped."""
    row = table.space.rows(node)
    if not row.xlo <= lead <= row.xhi:
        raise UserError("that lead cannot occur with these two sheets")
    i = int(row.off + lead - row.xlo)
    mapped = table.meta.get("mapped")
    if mapped is not None:
        mapped.check(i, i + 1)
    return float(table.values[i])


class DuelLayers:
    """The duel's solve as layers (see :mod:`dicelab.engine.runtime.schedule`).

    Layer ``n`` holds the nodes with ``n`` boxes filled on the two sheets; its
    values are one flat range of the table, and reads only layer ``n + 1``. A task
    is a run of the layer's batches (rows of at most ``width`` leads). The turn is
    written out for the rules' dice (:mod:`dicelab.engine.kernels.unrolled`) unless
    ``unrolled`` is false: the same values from the loops over the keeps.
    """

    def __init__(
        self, game: CompiledRules, space: DuelSpace, width: int = 256, unrolled: bool = True
    ) -> None:
        self.game = game
        self.space = space
        self.width = width
        self.unrolled = unrolled
        self.unit_seconds = lane_seconds(game.rules)
        self.size = space.n_values
        self.dtype = np.dtype(np.float64)
        self.total = space.n_values
        self.done = self.total - int(space.vstart[-2])

    def layers(self) -> list[int]:
        return list(range(self.space.n_layers - 2, -1, -1))

    def start(self, table: np.ndarray) -> None:
        fill_terminal(self.space, table, 0)

    def reads(self, layer: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = int(self.space.vstart[layer + 1]), int(self.space.vstart[layer + 2])
        return np.array([lo], dtype=np.int64), np.array([hi - lo], dtype=np.int64)

    def tasks(self, layer: int, pieces: int | None) -> list[tuple]:
        return layer_batch_runs(self.space, layer, self.width, pieces)

    def weight(self, task: tuple) -> int:
        return int(task[4].sum())

    def writes(self, task: tuple) -> tuple[np.ndarray, np.ndarray]:
        sp = self.space
        node, x0, nl = task[2], task[3], task[4]
        return sp.off[node] + x0 - sp.xlo[node], nl

    def task_reads(self, task: tuple) -> tuple[np.ndarray, np.ndarray]:
        # the player who waits now moves next: the next layer's nodes with mover j,
        # one run of nodes (and of values) for each j of the task
        sp = self.space
        n = int(sp.p_count[task[0][0]] + sp.p_count[task[1][0]]) if task[0].size else 0
        movers = sorted_distinct(task[1])
        k, k2 = (n + 1) // 2, (n + 1) // 2 + (n + 1) % 2
        first = sp.lbase[n + 1] + (movers - sp.cstart[k]) * sp.ncount[k2]
        ends = np.append(sp.off, sp.n_values)
        return ends[first], ends[first + sp.ncount[k2]] - ends[first]

    def run(self, table: np.ndarray, task: tuple) -> None:
        from numba import get_num_threads

        from dicelab.engine.kernels.duel import duel_blocks, duel_buffers
        from dicelab.engine.kernels.unrolled import dice_shape
        from dicelab.engine.kernels.work import on_threads

        sp, g = self.space, self.game
        R, D = rule_arrays(g), dice_arrays(g)
        bufs = duel_buffers(get_num_threads(), self.width, R, D)
        shape = dice_shape(D) if self.unrolled else None
        on_threads(duel_blocks, task, table, sp.leads(), sp.players, R, D, shape, bufs)


def solve_duel(
    rules: Rules | CompiledRules | str,
    progress: Progress | None = None,
    width: int = 256,
    allow_large: bool = False,
    space: DuelSpace | None = None,
    runner=None,
    store=None,
) -> DuelTable:
    """Solve the two-player game for the win-optimal strategy of both players.

    Float64 throughout; ``progress(done, total)`` is called in values. ``runner``
    says where the layers run, ``store`` names a folder for a memory-mapped table
    (see :mod:`dicelab.engine.runtime.schedule`).
    """
    from dicelab.engine import kernels
    from dicelab.engine.kernels.duel import duel_blocks
    from dicelab.engine.kernels.unrolled import dice_shape
    from dicelab.engine.runtime.schedule import new_table, run_layers

    game = as_game(rules)
    if space is None:
        duel_cost(game).check(allow_large)
        space = duel_space(game)
    cost = duel_cost(game, space, compare=False)
    cost.check(allow_large)
    cost.announce()
    start = time.perf_counter()
    kernels.announce_compile(duel_blocks, shape=dice_shape(kernels.dice_arrays(game)))
    T = new_table(space.n_values, np.float64, store, name=f"{game.rules.name}.duel")
    run_layers(DuelLayers(game, space, width), T, progress, runner)
    return DuelTable(game, space, T, seconds=time.perf_counter() - start)


LAYOUT = "lead-rows-1"


def duel_table(
    rules: Rules | CompiledRules | str,
    use_cache: bool = True,
    progress: Progress | None = None,
    allow_large: bool = False,
    mapped: bool = False,
    compare: bool = False,
    runner=None,
    store=None,
    later: bool = False,
) -> DuelTable:
    """The duel table of a rule set, from the cache when it holds one.

    A fresh solve goes to the cache: the chances as float32 (advice needs no more),
    the start value at full precision in the file's metadata. With ``compare``
    the strategy comparisons (:func:`verdicts`) are made too, once, and kept in the
    metadata (``table.meta["verdicts"]``); a table cached without them gets them
    then. With ``mapped`` a cached table is memory-mapped and checked block by
    block as it is read. ``runner`` and ``store`` say where the solve runs and
    where its float64 table lives while it runs (see :mod:`dicelab.engine.runtime.schedule`);
    with ``later``, a fresh table is written while the caller goes on.
    """
    from dicelab.engine.runtime import cache

    game = as_game(rules)
    rules = game.rules
    params = {"layout": LAYOUT}
    path = cache.table_path(rules, OBJECTIVE, params)
    if not (use_cache and path.exists()):
        duel_cost(game, compare=compare).check(allow_large)
    space = duel_space(game)
    table = _cached_duel(game, space, mapped, compare) if use_cache else None
    if table is not None and (table.meta["verdicts"] is not None or not compare):
        return table
    n = space.n_values
    solving = table is None
    ratio = compare_weight(game)
    weight = (1 if solving else 0) + (ratio if compare else 0)

    def solve_part(done: int, total: int) -> None:
        if progress is not None:
            progress(done, int(weight * n))

    def compare_part(done: int, total: int) -> None:
        if progress is not None:
            start = n if solving else 0
            progress(start + int(done * ratio * n) // max(total, 1), int(weight * n))

    whole = duel_cost(game, space, compare=compare)
    if compare:  # the solve says what it alone costs; here, with the comparisons
        whole.check(allow_large)
        if solving:
            whole.announce()
    if solving or compare:
        whole.tell(progress)  # what is left to do: the solve, the comparisons or both
    if table is None:
        how = dict(allow_large=allow_large, space=space, runner=runner, store=store)
        table = solve_duel(game, progress=solve_part, **how)
        table.meta = {"cached": False, "path": None, "start_value": table.start_value}
    verdicts = registry.analysis("verdicts")(table, compare_part, runner) if compare else None
    table.meta["verdicts"] = verdicts
    if use_cache:
        header = {
            "rules": rules.normalised(),
            "objective": OBJECTIVE,
            "params": params,
            "seconds": table.seconds,
            "start_value": table.meta["start_value"],
            "verdicts": table.meta["verdicts"],
        }
        if later:  # 1.2 GB for yazy, written while the table is put to use
            cache.store_later(path, table, header, dtype=np.float32)
        else:
            values = np.asarray(table.values, dtype=np.float32)
            table.meta["path"] = cache.store_table(path, values, header)
    return table


def _cached_duel(
    game: CompiledRules, space: DuelSpace, mapped: bool, compare: bool
) -> DuelTable | None:
    """The cached duel table of ``game``, or None: memory-mapped with ``mapped``,
    read and checked whole where the comparisons are still to be made (they read
    it all)."""
    from dicelab.engine.runtime import cache

    def cached(whole: bool) -> DuelTable | None:
        found = cache.lookup(
            game.rules, OBJECTIVE, (space.n_values,), {"layout": LAYOUT}, mapped=not whole
        )
        if found is None:
            return None
        values, meta = found
        header = meta.pop("header")
        meta["start_value"] = header.get("start_value")
        meta["verdicts"] = header.get("verdicts")
        return DuelTable(game, space, values, seconds=header.get("seconds", 0.0), meta=meta)

    table = cached(whole=False)  # the header, and the values mapped
    if table is not None and (not mapped or (compare and table.meta["verdicts"] is None)):
        table = cached(whole=True)
    return table


# -- one position, for advice ------------------------------------------------------------
@dataclass
class DuelTurnValues(KeepLookups):
    """The values inside one turn of a duel: the mover's chance (a win plus half a
    tie) after every keep and every box, both playing to win from then on."""

    table: DuelTable
    mover: int
    other: int
    lead: int
    keep: np.ndarray
    start_value: float

    @property
    def sheet(self) -> tuple[int, int]:
        s = self.table.space
        return int(s.p_mask[self.mover]), int(s.p_y[self.mover])

    def box_value(self, c: int, pts: int, extra: float, y2: int) -> float:
        """The mover's chance after the box, the lead moved by what it scores."""
        lead = self.lead + pts + int(extra)
        return float(self.table.after_move(self.mover, self.other, c, pts, y2, lead))


def duel_turn_values(table: DuelTable, mover: int, other: int, lead: int) -> DuelTurnValues:
    """Every value inside the turn of player state ``mover`` against ``other``,
    leading by ``lead`` points (see :class:`DuelTurnValues`)."""
    g = table.game
    mask, y = int(table.space.p_mask[mover]), int(table.space.p_y[mover])

    def value_of(c, pts, extra, y2):
        return table.after_move(mover, other, c, pts, y2, lead + pts + int(extra))

    K, start = turn.throws(g, turn.best_boxes(g, mask, y, value_of))
    return DuelTurnValues(table, mover, other, lead, K, start)


def solve_objective(game: CompiledRules, spec, options) -> DuelTable:
    """The registry's solve: the two-player table, without the strategy comparisons
    (they are asked for apart)."""
    return duel_table(game, compare=False, **options.solver_kwargs("mapped", "runner", "store"))


def objective_facts(rules, spec):
    """The registry's facts: the duel table's file and its cost without comparisons."""
    from dicelab.engine.runtime import cache
    from dicelab.engine.runtime.cost import Facts

    path = cache.table_path(rules, OBJECTIVE, {"layout": LAYOUT})
    return Facts(((path,),), duel_cost(as_game(rules), compare=False))
