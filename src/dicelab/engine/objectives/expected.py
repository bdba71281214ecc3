"""Maximise the expected final score.

The game is solved backwards over the sets of filled boxes: a state with ``k``
boxes filled depends only on states with ``k + 1`` filled, so each layer is
solved in parallel once the next one is known. Within a turn the solver uses
the keep recursions of :mod:`dicelab.engine.kernels`; across turns it keeps one
value per reachable turn-start state (filled boxes, upper total capped at the
bonus threshold, extra-bonus flag).

>>> from dicelab.engine.objectives.expected import solve_expected
>>> table = solve_expected("yazy")
>>> round(table.expected_score, 4)
165.7573
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from dicelab.engine import registry, turn
from dicelab.engine.kernels import Segments, dice_arrays, rule_arrays
from dicelab.engine.objectives.points import layers
from dicelab.engine.runtime.cost import expected_cost, lane_seconds
from dicelab.engine.table import ExpectedScoreTable
from dicelab.errors import UserError
from dicelab.rules import Rules, load_rules
from dicelab.rules.compiled import (
    CompiledRules,
    as_game,
    compile_rules,
    refuse_variants,
    sorted_distinct,
)
from dicelab.rules.placement import placed

if TYPE_CHECKING:
    from dicelab.engine.objectives.scores import ScoreDistribution

Progress = Callable[[int, int], None]

#: Precision of the values inside a turn -> its NumPy type. The tables are double
#: precision either way; a single-precision turn holds each value relative to a
#: double-precision base and keeps every published value within 1e-6 (see
#: ``docs/solver.md``).
PRECISIONS = {"single": np.float32, "double": np.float64}


def turn_dtype(precision: str) -> np.dtype:
    """The NumPy type of a turn's values for a precision name."""
    if precision not in PRECISIONS:
        raise UserError(f"precision: got {precision!r}, expected one of: {', '.join(PRECISIONS)}")
    return np.dtype(PRECISIONS[precision])


@dataclass(repr=False)
class ExpectedTable(ExpectedScoreTable):
    """Turn-start values of a rule set under the expected-score optimum.

    ``values[mask, y, u]`` is the expected number of points still to come
    (including the upper bonus and extra bonuses) at the start of a turn with the
    boxes of ``mask`` filled, upper total ``u`` (capped at the threshold) and flag
    ``y`` (1 when the all-same box holds its points). Entries of unreachable
    states are NaN.

    Examples
    --------
    >>> import dicelab
    >>> table = dicelab.solve("yazy")
    >>> type(table).__name__, round(table.expected_score, 4)
    ('ExpectedTable', 165.7573)
    """

    @property
    def expected_score(self) -> float:
        """Optimal expected final score of a whole game."""
        return float(self.values[0, 0, 0])

    def turn_values(self, filled, upper_total, flag, score, rerolls, **params):
        """The values inside the turn (:func:`turn_values`), plus the score so far."""
        return turn_values(self, filled, upper_total, flag), float(score)

    def distribution(self, *, strategy: str | None = None) -> ScoreDistribution:
        """The exact distribution of the final score of a whole game played by this
        table (see :func:`dicelab.engine.objectives.distribution.score_distribution`)."""
        return registry.analysis("distribution")(self.game, self, strategy=strategy)

    @property
    def n_states(self) -> int:
        """Number of reachable turn-start states."""
        return self.game.n_states

    def value(self, filled: int = 0, upper_total: int = 0, flag: int = 0) -> float:
        """Expected points to come from a turn start (the whole game by default).

        Parameters
        ----------
        filled : int
            Bit mask of the filled boxes (bit ``i`` for category ``i``).
        upper_total : int
            Upper-section points so far (capped at the threshold internally).
        flag : int
            1 if the all-same box holds its points (extra bonuses are due).
        """
        g = self.game
        u, y = g.turn_state(upper_total, flag)
        if not 0 <= filled <= g.full_mask:
            raise UserError(f"filled boxes: mask {filled} is outside 0..{g.full_mask}")
        v = self.values[filled, y, u]
        if np.isnan(v):
            raise UserError(
                f"the position (filled mask {filled}, upper total {upper_total}, "
                f"flag {flag}) cannot occur in a game"
            )
        return float(v)


class BoxOption(NamedTuple):
    """Placing a final roll in one box (unpacks as ``box, points, extra, value``)."""

    box: int
    points: int
    extra: int
    value: float


class KeepLookups:
    """Keep and roll values read from a turn's ``keep`` array.

    Shared by every table's in-turn values: ``keep[n, k]`` is the value of keeping
    ``k`` with ``n`` rerolls left, ``keep[0, roll]`` the value of a final roll.
    """

    keep: np.ndarray
    #: Each first-throw roll scored at once, served points included; ``None`` for
    #: rules without served bonuses.
    first: np.ndarray | None = None
    #: the table, and the turn start whose turn this is (each subclass holds them)
    table: Any
    filled: int
    flag: int

    def box_value(self, *args: Any) -> float:
        """The value of scoring a box (each subclass's own)."""
        raise NotImplementedError

    def keep_value(self, rerolls_left: int, keep: int) -> float:
        """Value of keeping ``keep`` (a keep index) and rerolling the rest."""
        if not 1 <= rerolls_left < self.keep.shape[0]:
            raise UserError(
                f"rerolls left: got {rerolls_left}, expected 1 to {self.keep.shape[0] - 1}"
            )
        return float(self.keep[rerolls_left, keep])

    def roll_value(self, roll: int, rerolls_left: int) -> float:
        """Value of a full roll (keep index) with ``rerolls_left`` rerolls to come."""
        space = self.table.game.space
        if rerolls_left == 0:
            best = float(self.keep[0, roll])
        else:
            best = float(max(self.keep[rerolls_left, k] for k in space.sub_keeps(roll)))
        if self.first is not None and rerolls_left == self.keep.shape[0] - 1:
            best = max(best, float(self.first[roll - int(space.size_start[space.dice])]))
        return best

    @property
    def sheet(self) -> tuple[int, int]:
        """The filled boxes and the flag of the turn's state."""
        return self.filled, self.flag

    def box_options(self, roll: int, first_throw: bool = False) -> list[BoxOption]:
        """Every box a final roll (keep index) may go in, with its value; with
        ``first_throw``, scored at once on the turn's first throw (served points).

        The placement rules are :func:`dicelab.rules.placement.placements`, as in
        every solver; each table values a box in :meth:`box_value`.
        """
        g = self.table.game
        r = roll - int(g.space.size_start[g.space.dice])
        mask, flag = self.sheet
        moves, extra = placed(mask, flag, r, rule_arrays(g, served=first_throw))
        return [
            BoxOption(c, pts, int(extra), float(self.box_value(c, pts, extra, y2)))
            for c, pts, y2 in moves
        ]

    def scored_now(self, roll: int, rerolls_left: int) -> float:
        """Value of scoring a roll at once (keeping every die): its best box, with
        served points when it is the turn's first throw."""
        space = self.table.game.space
        r = roll - int(space.size_start[space.dice])
        if self.first is not None and rerolls_left == self.keep.shape[0] - 1:
            return float(self.first[r])
        return float(self.keep[0, roll])


@dataclass
class TurnValues(KeepLookups):
    """The values inside one turn, computed on demand from an :class:`ExpectedTable`.

    All values are expected points still to come from the start of this turn's
    decisions (add the points already scored for the expected final score).
    """

    table: ExpectedTable
    filled: int
    upper_total: int
    flag: int
    keep: np.ndarray
    start_value: float
    first: np.ndarray | None = None

    def box_value(self, c: int, pts: int, extra: float, y2: int) -> float:
        """The value of scoring ``pts`` (and ``extra``) in box ``c``, next flag ``y2``."""
        g = self.table.game
        u, _ = g.turn_state(self.upper_total)
        u2 = min(g.threshold, u + pts) if (g.upper[c] and g.threshold > 0) else u
        return pts + extra + float(self.table.values[self.filled | (1 << c), y2, u2])


def turn_values(table: ExpectedTable, filled: int, upper_total: int = 0, flag: int = 0):
    """All values inside the turn that starts in a state (see :class:`TurnValues`).

    The last few turns asked are kept: the throws of one turn (a review, the page,
    a game in progress) ask about the same turn up to three times.
    """
    g = table.game
    table.value(filled, upper_total, flag)  # validates the state
    if filled == g.full_mask:
        raise UserError("every box is filled: the game is over")
    u, y = g.turn_state(upper_total, flag)
    key = (id(table), filled, upper_total, y)
    with _RECENT_LOCK:
        found = _RECENT_TURNS.get(key)
    if found is not None and found.table is table:
        return found
    K, start, first = turn.turn_detail(g, table.values, filled, u, y)
    for a in (K, first):  # shared by whoever asks next
        if isinstance(a, np.ndarray):
            a.setflags(write=False)
    found = TurnValues(table, filled, upper_total, y, K, float(start), first)
    with _RECENT_LOCK:
        _RECENT_TURNS[key] = found
        while len(_RECENT_TURNS) > _RECENT_KEPT:
            _RECENT_TURNS.pop(next(iter(_RECENT_TURNS)))
    return found


#: The turns :func:`turn_values` answered last, oldest first.
_RECENT_TURNS: dict[tuple, TurnValues] = {}
_RECENT_KEPT = 8
_RECENT_LOCK = threading.Lock()


class ExpectedLayers:
    """The expected-score solve as layers (see :mod:`dicelab.engine.runtime.schedule`).

    The table is ``V[mask, y, u]`` flattened; layer ``k`` holds the masks with
    ``k`` boxes filled, and a task is a list of masks.
    """

    def __init__(
        self,
        game: CompiledRules,
        chunk: int = 2048,
        width: int = 128,
        precision: str = "single",
    ) -> None:
        from dicelab.engine.kernels.lanes import lanes_of

        self.game = game
        self.chunk = chunk
        self.turn_dtype = turn_dtype(precision)
        # whole lane vectors: the final throw is shared by a batch's blocks
        lanes = lanes_of(self.turn_dtype.itemsize)
        self.width = max(lanes, width // lanes * lanes)
        # the first turns (few states, so little cost) in double precision: the start
        # value has no average over many states to cancel its own rounding
        self.double_layers = 3 if self.turn_dtype != np.float64 else 0
        self.unit_seconds = lane_seconds(game.rules, self.turn_dtype.itemsize)
        self.shape: tuple[int, ...] = (1 << game.n_categories, game.n_flag, game.n_upper)
        self.size = int(np.prod(self.shape))
        self.dtype = np.dtype(np.float64)
        self.row = game.n_flag * game.n_upper  # values of one mask
        full = game.full_mask
        masks = np.arange(full + 1, dtype=np.int64)
        flags = np.ones(full + 1, dtype=np.int64)
        if game.n_flag == 2:
            flags += (masks >> game.yahtzee) & 1
        self.flags = flags
        self.by_layer = layers(game.n_categories, game.rules.forced_order)
        solved = np.zeros(full + 1, dtype=np.int64)
        solved[np.concatenate(self.by_layer)] = 1
        # states per mask: the progress units
        self.weights = game.upper_extent * flags * solved
        self.first = first_lanes(game)
        self.total = int(self.weights.sum())
        self.done = int(self.weights[full])

    def layers(self) -> list[int]:
        return list(range(self.game.n_categories - 1, -1, -1))

    def start(self, table: np.ndarray) -> None:
        """The full sheets worth their upper bonus (the last axis is the upper total).

        Every other state the solve reaches is written by its layer before a later
        layer reads it; the states it never reaches (upper totals past what the
        filled boxes can make, the flag before the all-same box is filled) are never
        read, and :func:`mark_unreachable` sets them to NaN once it is done. (Filling
        the table with NaN first cost a Yahtzee solve 0.9 ms of its 108.)"""
        g = self.game
        V = table.reshape(self.shape)
        V[g.full_mask] = 0.0
        if g.threshold > 0:
            V[g.full_mask, ..., g.threshold] = float(g.rules.bonus_points)

    def reads(self, layer: int) -> tuple[np.ndarray, np.ndarray]:
        nxt = self.by_layer[layer + 1]
        return nxt * self.row, np.full(nxt.size, self.row, dtype=np.int64)

    def tasks(self, layer: int, pieces: int | None) -> list[np.ndarray]:
        from dicelab.engine.runtime.schedule import pieces_of

        masks = self.by_layer[layer]
        if pieces is None:
            return [masks[lo : lo + self.chunk] for lo in range(0, masks.size, self.chunk)]
        return [masks[lo:hi] for lo, hi in pieces_of(self.weights[masks], pieces)]

    def weight(self, task: np.ndarray) -> int:
        return int(self.weights[task].sum())

    def writes(self, task: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        g = self.game
        ny = self.flags[task]
        m = np.repeat(task, ny)
        y = np.arange(m.size) - np.repeat(np.cumsum(ny) - ny, ny)
        starts = (m * g.n_flag + y) * g.n_upper
        return starts, g.upper_extent[m].astype(np.int64)

    def task_reads(self, task: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        nxt = successors(task, self.game.n_categories)
        return nxt * self.row, np.full(nxt.size, self.row, dtype=np.int64)

    def run(self, table: np.ndarray, task: np.ndarray) -> None:
        self.turn(table, [task])

    def run_chain(self, table: np.ndarray, chain: Sequence[int]) -> None:
        """Solve the layers ``chain`` in order, as one chain on the threads (see
        :mod:`dicelab.engine.kernels.work`)."""
        self.turn(table, [self.by_layer[k] for k in chain])

    def turn(self, table: np.ndarray, parts: Sequence[np.ndarray]) -> None:
        """The turn of every state of the masks ``parts``, solved in order (each
        part may read those before it): a chain on the threads for each run of
        parts in one precision."""
        from itertools import groupby

        from dicelab.engine.kernels import turn

        g = self.game
        V = table.reshape(self.shape)

        def precision(part: np.ndarray) -> np.dtype:
            if part.size and int(part[0]).bit_count() < self.double_layers:
                return np.dtype(np.float64)
            return self.turn_dtype

        for dtype, run in groupby(parts, key=precision):
            chain = list(run)
            masks = np.concatenate(chain)
            cuts = np.cumsum([part.size for part in chain]).astype(np.int64)
            plan = turn.plan_batches(
                masks, cuts, self.first, g.upper_extent, g.yahtzee, g.n_flag, self.width
            )
            self.turn_chain(V, Segments(*plan), dtype)

    def turn_chain(self, V: np.ndarray, segs: Segments, dtype: np.dtype) -> None:
        """The turn of every segment of ``segs`` in precision ``dtype``, on every thread."""
        from numba import get_num_threads

        from dicelab.engine.kernels import blocks
        from dicelab.engine.kernels.work import on_threads

        g = self.game
        rules = rule_arrays(g, solving=True)
        served = rule_arrays(g, solving=True, served=True)
        dice = dice_arrays(g)
        stride = blocks.block_stride(g.space.add.shape[0], self.width, dtype.itemsize)
        key = (dtype, get_num_threads())
        spare = self.__dict__.setdefault("_spare", {}).setdefault(key, [])
        try:  # another layer's buffers (a pop is atomic: tasks may run side by side)
            bufs = spare.pop()
        except IndexError:
            bufs = blocks.thread_buffers(
                key[1], self.width, rules, dice, g.has_served, served, dtype, stride
            )
        kernel = blocks.solve_blocks if dtype == np.float32 else blocks.solve_blocks_double
        on_threads(kernel, segs, V, rules, dice, g.has_served, served, stride, bufs, self.first)
        spare.append(bufs)

    def __getstate__(self) -> dict:
        """Without the spare buffers of :meth:`turn` (they stay in this process)."""
        state = self.__dict__.copy()
        state.pop("_spare", None)
        return state

    def compile(self) -> None:
        """Compile (or load) the turns of this solve before it starts, so that its
        clock and progress count the solve alone; the double-precision turn of the
        first layers compiles in another process meanwhile (:mod:`dicelab.engine.runtime.ahead`)."""
        from dicelab.engine.kernels import blocks
        from dicelab.engine.runtime import ahead

        double = self.double_layers or self.turn_dtype == np.float64
        single = self.turn_dtype == np.float32
        if (not double or blocks.solve_blocks_double.overloads) and (
            not single or blocks.solve_blocks.overloads
        ):
            return  # this process has run them already
        if self.double_layers:
            ahead.start(*COMPILE_DOUBLE)
        compile_turn(self, self.turn_dtype)
        if self.double_layers:
            ahead.finish(COMPILE_DOUBLE[0])
            compile_turn(self, np.dtype(np.float64))


def first_lanes(game: CompiledRules) -> np.ndarray:
    """Per set of filled boxes, the least upper total the turn works out: every
    upper total below it has lost the bonus and has that one's values
    (:func:`~dicelab.engine.kernels.blocks.put_values`), to the last bit, since the
    same operations on the same values make them. In Yahtzee this leaves 404,352
    lanes of 591,360.

    It is found from the open upper boxes' best points, mask by mask, rather than
    from :func:`~dicelab.engine.objectives.points.bonus_lost`'s table of every upper
    total: 0.07 ms against 0.9 for Yahtzee, 0.2 against 3.8 for Yatzy."""
    from dicelab.engine.objectives.points import open_upper_best

    live = np.zeros(1 << game.n_categories, np.int64)
    if game.threshold > 0:
        live = np.clip(game.threshold - open_upper_best(game), 0, game.n_upper)
    return np.clip(np.minimum(live - 1, game.upper_extent - 1), 0, None).astype(np.int64)


def share_lost(V: np.ndarray, masks: np.ndarray, first: np.ndarray) -> None:
    """Give the upper totals below ``first[m]`` of every mask ``m`` of ``masks`` the
    values of ``first[m]`` (see :func:`first_lanes`)."""
    f = first[masks]
    some = masks[f > 0]
    if some.size:
        f = f[f > 0][:, None, None]
        rows = V[some]
        shared = np.take_along_axis(rows, np.broadcast_to(f, rows.shape[:2] + (1,)), axis=2)
        V[some] = np.where(np.arange(rows.shape[2]) < f, shared, rows)


def turn_compiled() -> bool:
    """Whether the single-precision turn is compiled in this process or in Numba's
    cache: if not, a first solve is about to keep this process busy compiling, and
    a command can compile its other kernels meanwhile (:mod:`dicelab.engine.runtime.ahead`)."""
    from dicelab.engine.kernels.blocks import solve_blocks
    from dicelab.engine.runtime.ahead import is_cached

    return bool(solve_blocks.overloads) or is_cached(solve_blocks)


def compile_turn(layers: ExpectedLayers, dtype: np.dtype) -> None:
    """Compile (or load) the turn of ``layers`` in ``dtype`` and its batch plan: the
    turn of a layer of no states."""
    from dicelab.engine.kernels import turn

    g = layers.game
    none = np.zeros(0, np.int64)
    cuts = np.zeros(1, np.int64)
    plan = turn.plan_batches(none, cuts, layers.first, g.upper_extent, g.yahtzee, g.n_flag, 64)
    layers.turn_chain(np.zeros((1, 1, 1)), Segments(*plan), np.dtype(dtype))


#: the double-precision turn compiled in another process: how, and what
COMPILE_DOUBLE = (
    "dicelab.engine.objectives.expected:compile_double",
    ["dicelab.engine.kernels.blocks:solve_blocks_double"],
)


def compile_double() -> None:
    """Compile the double-precision turn (the same for every rule set)."""
    compile_turn(ExpectedLayers(as_game("yahtzee")), np.dtype(np.float64))


def successors(masks: np.ndarray, n_categories: int) -> np.ndarray:
    """The masks one more box away from any of ``masks``, sorted, once each."""
    parts = [masks[(masks >> c) & 1 == 0] | (1 << c) for c in range(n_categories)]
    return sorted_distinct(np.concatenate(parts)) if parts else masks[:0]


def solve_expected(
    rules: Rules | CompiledRules | str,
    progress: Progress | None = None,
    chunk: int = 2048,
    width: int = 128,
    allow_large: bool = False,
    runner=None,
    store=None,
    precision: str = "single",
) -> ExpectedTable:
    """Solve a rule set for the maximum expected final score.

    Parameters
    ----------
    rules : Rules, CompiledRules or str
        The rule set, or a built-in name / path to a rules file.
    progress : callable, optional
        Called as ``progress(done, total)`` in states after each chunk of work.
    chunk : int
        Masks per parallel batch; smaller batches report progress more often.
    width : int
        States valued together in one batch: their final throw is shared, their
        rerolls run a lane vector (16 single or 8 double) at a time (128: Yahtzee
        0.181 s against 0.188 s at 64 and 256, Yatzy 0.407 s against 0.433 s).
    allow_large : bool
        Solve even what :mod:`dicelab.engine.runtime.cost` says this machine cannot finish.
    runner : dicelab.engine.runtime.schedule.Runner, optional
        Where the layers run (default: this process; see :mod:`dicelab.engine.runtime.schedule`).
    store : str or Path, optional
        A folder for the table while it is solved (memory-mapped), instead of memory.
    precision : {"single", "double"}
        Precision of the values inside a turn (the table is double either way):
        single is 1.3 to 1.8 times as fast and within 1e-6 of every published
        value; double agrees with the exact fractions to 1e-9 (both tested).
    """
    from dicelab.engine import kernels
    from dicelab.engine.kernels.blocks import solve_blocks
    from dicelab.engine.runtime.schedule import new_table, run_layers

    turn_dtype(precision)
    game = as_game(rules)
    refuse_variants(game, "this command", served=False)
    expected_cost(game.rules).check(allow_large)
    kernels.announce_compile(solve_blocks)
    layers = ExpectedLayers(game, chunk=chunk, width=width, precision=precision)
    if runner is None or runner.in_process:
        layers.compile()
    start = time.perf_counter()
    flat = new_table(layers.size, np.float64, store, name=f"{game.rules.name}.expected")
    run_layers(layers, flat, progress, runner)
    V = flat.reshape(layers.shape)
    mark_unreachable(V, game)
    seconds = time.perf_counter() - start
    return ExpectedTable(game=game, values=V, seconds=seconds)


#: Seconds a value of :func:`mark_unreachable` takes on one thread (Maxi Yatzy's 89
#: million in 62 ms, Yahtzee's million in 0.6 ms).
NAN_SECONDS = 0.7e-9


def mark_unreachable(V: np.ndarray, game: CompiledRules) -> None:
    """Set NaN where no game can go, so a lookup there is caught: upper totals the
    filled boxes cannot make, the flag before the all-same box is filled, and under
    forced order every sheet but those filled from the top.

    ``V[mask, y, ..., u]``: any dimensions between the flag and the upper total
    (the throws in hand of :mod:`dicelab.engine.objectives.saved`). Nothing of the table's size
    is allocated on the way (Maxi Yatzy's table alone is 0.7 GB).
    """
    from dicelab.engine.kernels.blocks import nan_where_unreachable
    from dicelab.engine.kernels.work import on_threads
    from dicelab.engine.runtime.schedule import threads_for

    reach, subset = game.upper_subsets
    rows = np.asarray(V).view(np.ndarray).reshape(V.shape[0], V.shape[1], -1, V.shape[-1])
    flag = game.yahtzee if game.n_flag == 2 else -1
    with threads_for(rows.size * NAN_SECONDS):  # Yahtzee's on one thread, Maxi Yatzy's not
        on_threads(nan_where_unreachable, rows, reach, subset, flag)
    if game.rules.forced_order:  # only the sheets filled from the top are reached
        prefix = (1 << np.arange(game.n_categories + 1)) - 1
        for lo, hi in zip(prefix[:-1] + 1, prefix[1:], strict=True):
            rows[lo:hi] = np.nan


OBJECTIVE = "expected"


def expected_table(
    rules: Rules | CompiledRules | str,
    use_cache: bool = True,
    progress: Progress | None = None,
    allow_large: bool = False,
    runner=None,
    store=None,
    precision: str = "single",
) -> ExpectedTable:
    """The expected-score table of a rule set, from the cache when it holds one.

    A table found in the cache is used only if its rules, objective, engine version
    and checksum all match; otherwise the rule set is solved and the table saved.
    ``table.meta["cached"]`` tells which happened. ``runner`` and ``store`` say where
    a solve runs and where its table lives (see :mod:`dicelab.engine.runtime.schedule`);
    ``precision`` is the turn's (see :func:`solve_expected`): a double-precision
    table is cached apart.
    """
    from dicelab.engine.runtime import cache

    turn_dtype(precision)  # a mistake is told before any work
    params = None if precision == "single" else {"precision": precision}

    if isinstance(rules, str):
        rules = load_rules(rules)
    if isinstance(rules, Rules) and rules.save_unused_throws:  # before any other work
        refuse_variants(compile_rules(rules), "this command", served=False)
    game = rules if isinstance(rules, CompiledRules) else None
    rules = game.rules if game is not None else rules
    assert isinstance(rules, Rules)
    cost = expected_cost(rules)
    if not (use_cache and cache.table_path(rules, OBJECTIVE, params).exists()):
        cost.check(allow_large)  # before compiling: the rules alone tell the size
    game = game or compile_rules(rules)
    if use_cache:
        shape = (1 << game.n_categories, game.n_flag, game.n_upper)
        found = cache.lookup(rules, OBJECTIVE, shape, params)
        if found is not None:
            values, meta = found
            return ExpectedTable(game=game, values=values, seconds=0.0, meta=meta)
    cost.announce()
    table = solve_expected(
        game,
        progress=progress,
        allow_large=allow_large,
        runner=runner,
        store=store,
        precision=precision,
    )
    cache.remember(table, rules, OBJECTIVE, params, use_cache, expected_score=table.expected_score)
    return table


def objective_facts(rules: Rules, spec):
    """The registry's facts: the table's cache file and the cost of its solve."""
    from dicelab.engine.runtime import cache
    from dicelab.engine.runtime.cost import Facts

    return Facts(((cache.table_path(rules, OBJECTIVE),),), expected_cost(rules))
