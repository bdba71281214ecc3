"""Objectives on the final total: reach a target, beat an opponent, any utility.

All of them maximise the expected *utility* of the final score, ``E[U(score)]``:

* target ``S``: ``U(x) = 1`` if ``x >= S`` else 0, so the value is ``P(score >= S)``;
* beat an opponent whose final score ``Y`` has a known distribution:
  ``U(x) = P(Y < x) + P(Y = x) / 2`` (ties count as half a win).

The value then depends on the points as well as on the state, so each state has
a row of points (see :mod:`dicelab.engine.objectives.points`) and the turn is solved for all
points of a row at once: the points are the *lanes* of the same keep recursions
as the expected-score solver (:func:`dicelab.engine.kernels.turn.throws_and_start`);
only the final throw differs, where scoring ``g`` points in a box moves a lane
``t`` to ``t + g`` (points so far) or ``t - g`` (points still needed).

Two tables are kept:

* the *target table* ``P(points to come >= s)`` for every state and every ``s``
  (one solve answers every target, and plays to any of them);
* a *utility table* over points so far, for one utility (a win table, a single
  target); its rows are cut where the utility is constant
  (:mod:`dicelab.engine.objectives.utility`).

>>> from dicelab.engine.objectives.target import target_table
>>> round(float(target_table("yazy").probability(150)), 6) > 0
True

The utility tables live in :mod:`dicelab.engine.objectives.utility`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from dicelab.engine import turn
from dicelab.engine.kernels import PointsRows, dice_arrays, rule_arrays
from dicelab.engine.objectives.expected import (
    KeepLookups,
)
from dicelab.engine.objectives.points import (
    PointsLayout,
    layers,
    max_score,
    needed_key,
    needed_layout,
    state_bounds,
)
from dicelab.engine.runtime.cost import lane_seconds, points_cost
from dicelab.engine.table import SolvedTable
from dicelab.errors import UserError
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, as_game

if TYPE_CHECKING:
    from dicelab.engine.position import Advice, Position

Progress = Callable[[int, int], None]

#: Lanes a batch of the points turn holds: the final throw's candidates and each
#: roll's maximum are set up once a batch, so wide batches share that work (Yahtzee's
#: one-target table: 13.5 s at 64 lanes, 11.9 s at 128, 10.5 s at 512, 10.9 s at 1024).
POINTS_WIDTH = 512

#: Lane direction: points so far grow with a score, points needed shrink.
SO_FAR = 1
NEEDED = -1


# -- tables ------------------------------------------------------------------------
@dataclass(repr=False)
class PointsTable(SolvedTable):
    """Values over (state, points) for one objective.

    ``values[layout.off[mask, y, u] + t - layout.lo[mask, y, u]]`` is the value of the
    state at points ``t`` (so far, or still needed: see ``sign``); outside a row the
    value is ``below`` or ``above``.
    """

    game: CompiledRules
    layout: PointsLayout
    values: np.ndarray
    sign: int
    below: float
    above: float

    def value(self, filled: int = 0, upper_total: int = 0, flag: int = 0, points: int = 0) -> float:
        """Value of a turn start with ``points`` so far (or still needed); the whole
        game's by default."""
        g = self.game
        if not 0 <= filled <= g.full_mask:
            raise UserError(f"filled boxes: mask {filled} is outside 0..{g.full_mask}")
        u, y = g.turn_state(upper_total, flag)
        lay = self.layout
        r0 = lay.off[filled, y, u]
        if r0 < 0:
            raise UserError(
                f"the position (filled mask {filled}, upper total {upper_total}, "
                f"flag {flag}) cannot occur in a game"
            )
        if self.sign == SO_FAR:
            least, most = (int(a[filled, y, u]) for a in state_bounds(g).scored)
            if not least <= points <= most:
                held = f"{least} to {most} points so far, not {points}" if least <= most else ""
                raise UserError(
                    "the position cannot occur in a game"
                    + (f": with these boxes filled a game has {held}" if held else "")
                )
        lo, hi = lay.lo[filled, y, u], lay.hi[filled, y, u]
        if points < lo:
            return self.below
        if points > hi:
            return self.above
        i = r0 + points - lo
        self.check_rows(i, i + 1)
        return float(self.values[i])

    def outlook(
        self, filled: int, upper_total: int, flag: int, score: int, *args: Any, **params: Any
    ) -> float:
        """The value of a turn start with ``score`` points so far (a utility table's
        expected utility; a target table's answers in :class:`TargetTable`)."""
        return self.value(filled, upper_total, flag, score)

    def check_rows(self, lo: int, hi: int) -> None:
        """Verify the checksums of values ``lo .. hi - 1`` before a read, when the
        table is memory-mapped from the cache (a loaded table was checked whole)."""
        mapped = self.meta.get("mapped")
        if mapped is not None:
            mapped.check(lo, hi)

    @property
    def start_value(self) -> float:
        """Value of the whole game (no points yet, or for a utility table)."""
        return self.value(0, 0, 0, 0)

    @property
    def n_values(self) -> int:
        return int(self.values.shape[0])


class PointsLayers:
    """A points table's solve as layers (see :mod:`dicelab.engine.runtime.schedule`).

    Layer ``k`` holds the masks with ``k`` boxes filled; a mask's rows (every flag)
    are one flat range of the table, and a task is a list of masks.
    """

    def __init__(
        self,
        game: CompiledRules,
        layout: PointsLayout,
        sign: int,
        below: float,
        above: float,
        terminal: np.ndarray,
        width: int = POINTS_WIDTH,
        chunk: int = 256,
        dtype: type = np.float64,
        rising: bool | None = None,
    ) -> None:
        self.game = game
        self.layout = layout
        self.sign = sign
        self.rising = sign < 0 if rising is None else rising
        self.below = below
        self.above = above
        self.terminal = terminal  # the values of the full-sheet rows, in order
        self.chunk = chunk
        self.dtype = np.dtype(dtype)
        self.unit_seconds = lane_seconds(game.rules, self.dtype.itemsize)
        # whole lane vectors (see dicelab.engine.kernels.lanes): a batch's final throw is
        # shared by its blocks, its rerolls run a block at a time
        from dicelab.engine.kernels.lanes import lanes_of

        lanes = lanes_of(self.dtype.itemsize)
        self.width = max(lanes, width // lanes * lanes)
        self.size = layout.size
        self.total = layout.size
        self.done = layout.layer_size(game.n_categories)
        # the masks with rows (a layout of the rest of one game leaves most empty)
        rows = layout.block[:, game.n_flag] > layout.block[:, 0]
        self.by_layer = [m[rows[m]] for m in layers(game.n_categories)]

    @property
    def lanes(self) -> tuple[int, float, float, bool]:
        """What the kernels know of the lanes: :class:`~dicelab.engine.kernels.PointsRows`
        after the rows."""
        return self.sign, self.below, self.above, self.rising

    def layers(self) -> list[int]:
        return list(range(self.game.n_categories - 1, -1, -1))

    def _ranges(self, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        block = self.layout.block
        starts = block[masks, 0].astype(np.int64)
        return starts, (block[masks, self.game.n_flag] - starts).astype(np.int64)

    def start(self, table: np.ndarray) -> None:
        starts, lengths = self._ranges(self.by_layer[-1])
        from dicelab.engine.runtime.schedule import scatter_ranges

        scatter_ranges(table, starts, lengths, self.terminal.astype(self.dtype))

    def reads(self, layer: int) -> tuple[np.ndarray, np.ndarray]:
        return self._ranges(self.by_layer[layer + 1])

    def tasks(self, layer: int, pieces: int | None) -> list[np.ndarray]:
        from dicelab.engine.runtime.schedule import pieces_of

        masks = self.by_layer[layer]
        if pieces is None:
            return [masks[lo : lo + self.chunk] for lo in range(0, masks.size, self.chunk)]
        return [masks[lo:hi] for lo, hi in pieces_of(self._ranges(masks)[1], pieces)]

    def weight(self, task: np.ndarray) -> int:
        return int(self._ranges(task)[1].sum())

    def writes(self, task: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self._ranges(task)

    def task_reads(self, task: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        from dicelab.engine.objectives.expected import successors

        return self._ranges(successors(task, self.game.n_categories))

    def run(self, table: np.ndarray, task: np.ndarray) -> None:
        from dicelab.engine.kernels.points import plan_layer

        g, lay = self.game, self.layout
        plan = plan_layer(task, lay.block, g.n_flag, self.width)
        rows = PointsRows(table, lay.lo, lay.hi, lay.off, *self.lanes)
        self.turn(rows, plan)

    def turn(self, rows: PointsRows, plan: tuple) -> None:
        """The turn of every batch of ``plan`` (see :func:`.kernels.points.plan_layer`)
        on the table ``rows``, on every thread."""
        from numba import get_num_threads

        from dicelab.engine.kernels.blocks import block_stride
        from dicelab.engine.kernels.points import points_buffers, solve_points_blocks
        from dicelab.engine.kernels.work import on_threads

        g = self.game
        rules = rule_arrays(g, solving=True)
        served = rule_arrays(g, solving=True, served=True)
        dice = dice_arrays(g)
        stride = block_stride(g.space.add.shape[0], self.width, self.dtype.itemsize)
        bufs = points_buffers(
            get_num_threads(), self.width, rows, rules, dice, g.has_served, served, stride
        )
        on_threads(solve_points_blocks, plan, rows, rules, dice, g.has_served, served, stride, bufs)

    def compile(self) -> None:
        """Compile (or load) the kernel before the solve starts (a plan of no batches),
        so that its progress counts the solve alone."""
        lay = self.layout
        none = np.zeros(0, np.int64)
        T = np.zeros(1, self.dtype)
        rows = PointsRows(T, lay.lo, lay.hi, lay.off, *self.lanes)
        self.turn(rows, (none, none, none, none))


def terminal_rows(game: CompiledRules, layout: PointsLayout, terminal: Callable) -> np.ndarray:
    """The values of the full-sheet rows, in table order (``terminal(points, u)``)."""
    full = game.full_mask
    out = np.empty(layout.block[full, game.n_flag] - layout.block[full, 0])
    base = layout.block[full, 0]
    last = -1
    for y in range(game.n_flag):
        for u in range(game.n_upper):
            r0 = layout.off[full, y, u]
            n = layout.hi[full, y, u] - layout.lo[full, y, u] + 1
            if r0 < 0 or n <= 0 or r0 == last:  # a row shared with the one before
                continue
            last = r0
            pts = np.arange(layout.lo[full, y, u], layout.hi[full, y, u] + 1)
            out[r0 - base : r0 - base + n] = terminal(pts, np.full(n, u))
    return out


def solve_points(
    game: CompiledRules,
    layout: PointsLayout,
    sign: int,
    outside: tuple[float, float],
    terminal: Callable[[np.ndarray, np.ndarray], np.ndarray],
    progress: Progress | None = None,
    width: int = POINTS_WIDTH,
    dtype: type = np.float64,
    allow_large: bool = False,
    runner=None,
    store=None,
    rising: bool | None = None,
) -> np.ndarray:
    """Solve every row of a layout backwards, layer by layer.

    ``outside`` is the value below and above a row; ``terminal(points, u)`` gives
    the values of the full-sheet rows (points of each lane and the capped upper
    total). ``rising``: more points scored never lower a value (by default, where
    points count down: a target), so a final roll's boxes that score nothing are
    one candidate. ``runner`` says where the layers run and ``store`` names a folder
    for a memory-mapped table (see :mod:`dicelab.engine.runtime.schedule`).
    """
    from dicelab.engine import kernels
    from dicelab.engine.kernels.points import solve_points_blocks
    from dicelab.engine.runtime.schedule import new_table, run_layers

    cost = points_cost(game.rules, layout.size, np.dtype(dtype).itemsize)
    cost.check(allow_large)
    cost.announce()
    cost.tell(progress)
    kernels.announce_compile(solve_points_blocks)
    terminal_values = terminal_rows(game, layout, terminal)
    below, above = outside
    solve = PointsLayers(
        game, layout, sign, below, above, terminal_values, width, dtype=dtype, rising=rising
    )
    if runner is None or runner.in_process:
        solve.compile()
    T = new_table(layout.size, dtype, store, name=f"{game.rules.name}.points")
    run_layers(solve, T, progress, runner)
    return T


# -- the target table (every target at once) ----------------------------------------
OBJECTIVE_TARGET = "target"


@dataclass(repr=False)
class TargetTable(PointsTable):
    """``P(points to come >= s)`` under the best play for that ``s``, for every state.

    Row points are the points still needed (``1 .. most to come``); none needed is
    certain success, more than can come is certain failure.

    Examples
    --------
    >>> import dicelab
    >>> table = dicelab.solve("yazy", objective="target")
    >>> table.probability(0), 0 < table.probability(200) < 1
    (1.0, True)
    """

    objective: ClassVar[str] = "target"

    @property
    def summary(self) -> str:
        return f"best chance of every final score 0 to {self.best_score}"

    def advise(self, position: Position, *, target: int) -> Advice:
        """Every option of a position ranked by its chance of a final score of at
        least ``target``: the values of the options are the best chances of reaching
        it after taking them, and costs are lost chance."""
        return super().advise(position, target=target)

    def turn_values(self, filled, upper_total, flag, score, rerolls, *, target: int):
        """The turn's chances of ``target`` from ``score`` so far."""
        return target_turn(self, filled, upper_total, flag, score, target), 0.0

    def advice_fields(self, *, target: int) -> dict:
        return {"target": target}

    def probability(self, target: int) -> float:
        """Best probability of a final score of at least ``target``."""
        check_target(self.game, target)
        return self.value(0, 0, 0, target)

    def outlook(
        self, filled: int, upper_total: int, flag: int, score: int, *, target: int
    ) -> float:
        """The best chance of ``target`` or more from a turn start with ``score`` so far."""
        return self.value(filled, upper_total, flag, self.lane_points(score, target))

    def final_value(self, score: int, *, target: int) -> float:
        """1 where a finished game reached ``target``, else 0."""
        return float(score >= target)

    def lane_points(self, score: int, target: int) -> int:
        """The row point of a position with ``score`` so far: the points still needed."""
        return target - score

    @property
    def best_score(self) -> int:
        return max_score(self.game)

    def curve(self) -> np.ndarray:
        """Best ``P(score >= S)`` for ``S = 0 .. best score``."""
        top = self.best_score
        return np.array([1.0] + [self.value(0, 0, 0, s) for s in range(1, top + 1)])


def target_turn(table, filled: int, upper_total: int, flag: int, score: int, target: int):
    """The values inside a turn of a table that answers ``target`` (of every target, or
    of that one), from ``score`` so far."""
    check_target(table.game, target)
    table.lane_points(0, target)  # a one-target table answers its own target only
    lane = table.lane_points(score, target)
    return points_turn_values(table, filled, upper_total, flag, lane)


def check_target(game: CompiledRules, target: int) -> None:
    """A target must be a whole number from 0 to the best possible score."""
    top = max_score(game)
    if isinstance(target, bool) or not isinstance(target, (int, np.integer)):
        raise UserError(f"target: expected a whole number of points, got {target!r}")
    if target < 0:
        raise UserError(f"target: got {target}, expected a score of at least 0")
    if target > top:
        raise UserError(
            f"target: got {target}, but the best possible score in {game.rules.name} is {top}"
        )


def solve_target(rules: Rules | CompiledRules | str, **how: Any) -> TargetTable:
    """Solve for the best ``P(final score >= S)``, every ``S`` at once; ``how``: how
    the points are solved, as :func:`solve_points` takes it (``progress``, ``width``,
    ``dtype``, ``allow_large``, ``runner``, ``store``)."""
    game = as_game(rules)
    layout = needed_layout(game)
    bounds = state_bounds(game)
    start = time.perf_counter()

    def terminal(points: np.ndarray, u: np.ndarray) -> np.ndarray:
        return (points <= bounds.bonus_of(u)).astype(np.float64)

    T = solve_points(game, layout, NEEDED, (1.0, 0.0), terminal, **how)
    return TargetTable(game, layout, T, NEEDED, 1.0, 0.0, seconds=time.perf_counter() - start)


def target_table(
    rules: Rules | CompiledRules | str,
    use_cache: bool = True,
    progress: Progress | None = None,
    mapped: bool = False,
    allow_large: bool = False,
    runner=None,
    store=None,
    dtype: type = np.float32,
) -> TargetTable:
    """The target table of a rule set, from the cache when it holds one.

    As :func:`dicelab.engine.objectives.expected.expected_table`: a cached table is used only
    when rules, objective, engine version, row ranges and checksums match. With
    ``mapped``, a cached table is memory-mapped instead of read whole, and only the
    rows a question needs are read and checked (advice on one position).
    ``runner`` and ``store`` say where a solve runs and where its table lives
    (see :mod:`dicelab.engine.runtime.schedule`). The table is single precision unless
    ``dtype`` says otherwise (half the memory, 2.7 times faster for Yahtzee; every
    chance within 1e-6 of double precision); a double-precision table is cached
    apart.
    """
    from dicelab.engine.runtime import cache

    game = as_game(rules)  # compiled once, here or by the caller
    rules = game.rules
    layout = needed_layout(game)
    params = _target_params(game, dtype, layout)
    if use_cache:
        found = cache.lookup(rules, OBJECTIVE_TARGET, (layout.size,), params, mapped=mapped)
        if found is not None:
            values, meta = found
            return TargetTable(game, layout, values, NEEDED, 1.0, 0.0, meta=meta)
    table = solve_target(
        game,
        progress=progress,
        allow_large=allow_large,
        runner=runner,
        store=store,
        dtype=dtype,
    )
    cache.remember(table, rules, OBJECTIVE_TARGET, params, use_cache)
    return table


def _target_params(game: CompiledRules, dtype: type, layout: PointsLayout | None = None) -> dict:
    """The cache parameters of the table of every target."""
    params = {"rows": layout.key() if layout is not None else needed_key(game)}
    if np.dtype(dtype) != np.float32:
        params["dtype"] = np.dtype(dtype).name
    return params


# -- advice on the points axis ------------------------------------------------------------
@dataclass
class PointsTurnValues(KeepLookups):
    """The values inside one turn of a :class:`PointsTable` (a target or a utility).

    The same questions as :class:`dicelab.engine.objectives.expected.TurnValues`, answered for a
    state *and* its points (so far, or still needed): the values are probabilities
    of reaching the target (or expected utilities).
    """

    table: PointsTable
    filled: int
    upper_total: int
    flag: int
    points: int
    keep: np.ndarray
    start_value: float
    first: np.ndarray | None = None

    def box_value(self, c: int, pts: int, extra: float, y2: int) -> float:
        """The table's value after the box, the points moved by what it scores."""
        t, g = self.table, self.table.game
        up = self.upper_total + (pts if g.upper[c] else 0)
        gain = pts + int(extra)
        # the stored value, whatever measure a subclass presents its values in
        return PointsTable.value(t, self.filled | (1 << c), up, y2, self.points + t.sign * gain)


def points_turn_values(
    table: PointsTable, filled: int, upper_total: int, flag: int, points: int
) -> PointsTurnValues:
    """All values inside the turn that starts in a state with ``points``.

    For a :class:`TargetTable`, ``points`` is what is still needed ("play to
    reach S": needed = S minus the points so far); for a utility table, the points
    so far.
    """
    g = table.game
    if filled == g.full_mask:
        raise UserError("every box is filled: the game is over")
    start = PointsTable.value(table, filled, upper_total, flag, points)  # validates the state
    u, y = g.turn_state(upper_total, flag)
    lay = table.layout
    lo, hi = lay.lo[filled, y, u], lay.hi[filled, y, u]
    n_keeps = g.space.n_keeps
    rerolls = g.rules.rolls - 1
    if not lo <= points <= hi:
        keep = np.full((rerolls + 1, n_keeps), start)
        return PointsTurnValues(table, filled, upper_total, y, points, keep, start)
    for c in range(g.n_categories):  # the rows the turn can read: every next state's
        if not (filled >> c) & 1:
            m2 = filled | (1 << c)
            rows = lay.off[m2] >= 0
            starts = lay.off[m2][rows]
            ends = starts + (lay.hi[m2] - lay.lo[m2] + 1)[rows]
            if starts.size:
                table.check_rows(int(starts.min()), int(ends.max()))
    first = None
    if g.has_served:
        first = turn.points_final_values(table, filled, u, y, points, True)
    K, s = turn.throws(g, turn.points_final_values(table, filled, u, y, points), first)
    return PointsTurnValues(table, filled, upper_total, y, points, K, s, first)


def points_dtype(options) -> type:
    """The values' type of a table over points: single precision unless asked."""
    return np.float32 if options.precision == "single" else np.float64
