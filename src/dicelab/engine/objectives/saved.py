"""Maximise the expected final score when unused throws are saved for later turns.

Official Maxi Yatzy keeps the throws a turn does not use: a turn that scores after
its first throw hands two more throws to the next turn. The state then holds one
more number, the throws in hand, and a turn that starts with ``s`` of them may
reroll ``rolls - 1 + s`` times. Scoring with ``r`` rerolls left keeps ``r`` throws
(up to the rules' cap), so every throw of a turn values the dice as scored then and
there, not only the last one (:func:`dicelab.engine.kernels.saved.solve_saved_batches`).

The table is ``values[mask, y, s, u]``: the expected points still to come at the
start of a turn with boxes ``mask`` filled, flag ``y``, ``s`` throws in hand and
upper total ``u``. It costs ``n_saved`` times the states of the plain game, and a
turn with more throws costs more, so the full Maxi Yatzy with saving is far larger
than the plain one: :func:`saved_cost` says how much before anything starts.

>>> from dicelab.rules import parse_rules
>>> rules = parse_rules({"name": "two", "dice": 2, "faces": 3, "rolls": 2,
...     "save_unused_throws": True, "categories": [
...         {"id": "a", "kind": "chance"}, {"id": "b", "kind": "of_a_kind", "count": 2,
...                                          "score": 10}]})
>>> round(solve_saved(rules).expected_score, 6) > 0
True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from dicelab.engine import turn
from dicelab.engine.kernels import Segments, dice_arrays, rule_arrays
from dicelab.engine.objectives.expected import (
    ExpectedLayers,
    KeepLookups,
    expected_table,
    mark_unreachable,
    share_lost,
)
from dicelab.engine.runtime.cost import Cost, expected_cost
from dicelab.engine.table import ExpectedScoreTable
from dicelab.errors import UserError
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, as_game
from dicelab.text import plural

if TYPE_CHECKING:
    pass

Progress = Callable[[int, int], None]


def saved_cost(rules: Rules) -> Cost:
    """States, memory and time of the table with throws in hand: the plain table's
    figures, times the throws in hand, and the longer turns they allow."""
    plain = expected_cost(rules)
    n_saved = rules.saved_cap + 1
    states = plain.states * n_saved
    per_turn = 2 * (rules.rolls - 1) + 1
    mean_levels = sum(2 * (rules.rolls - 1 + s) + 1 + s for s in range(n_saved)) / n_saved
    scratch = plain.bytes - 8 * plain.states
    what = (
        f"{rules.name}'s expected-score table with up to {plural(rules.saved_cap, 'throw')} "
        f"in hand ({plural(rules.n_categories, 'box')})"
    )
    return Cost(
        what, states, 8 * states + scratch, plain.seconds * n_saved * mean_levels / per_turn
    )


@dataclass(repr=False)
class SavedTable(ExpectedScoreTable):
    """Turn-start values when unused throws are saved (see the module docstring).

    Examples
    --------
    >>> import dicelab
    >>> issubclass(dicelab.SavedTable, dicelab.SolvedTable)  # solve("maxi-yatzy-saved") gives one
    True
    """

    def turn_values(self, filled, upper_total, flag, score, rerolls, **params):
        """The turn seen from a throw with ``rerolls`` left (:func:`saved_turn_values`)."""
        return saved_turn_values(self, filled, upper_total, flag, rerolls), float(score)

    @property
    def expected_score(self) -> float:
        """Optimal expected final score of a whole game (no throws in hand at first)."""
        return float(self.values[0, 0, 0, 0])

    @property
    def n_states(self) -> int:
        """Turn-start states: the plain game's, times the throws in hand."""
        return self.game.n_states * self.values.shape[2]

    def value(self, filled: int = 0, upper_total: int = 0, flag: int = 0, saved: int = 0) -> float:
        """Expected points to come from a turn start with ``saved`` throws in hand."""
        g = self.game
        cap = self.values.shape[2] - 1
        if not 0 <= saved <= cap:
            raise UserError(f"throws in hand: got {saved}, expected 0 to {cap}")
        if not 0 <= filled <= g.full_mask:
            raise UserError(f"filled boxes: mask {filled} is outside 0..{g.full_mask}")
        u, y = g.turn_state(upper_total, flag)
        v = self.values[filled, y, saved, u]
        if np.isnan(v):
            raise UserError("the position cannot occur in a game")
        return float(v)


class SavedLayers(ExpectedLayers):
    """The solve with throws in hand as layers (see :mod:`dicelab.engine.runtime.schedule`).

    As :class:`~dicelab.engine.objectives.expected.ExpectedLayers`, with a value per number of
    throws in hand in every row: the table is ``V[mask, y, s, u]`` flattened, so a
    mask's values stay one contiguous row, and a task (a list of masks) values each
    of its masks for every ``s``.
    """

    def __init__(self, game: CompiledRules, chunk: int = 2048, width: int = 256) -> None:
        super().__init__(game, chunk, width, precision="double")
        self.n_saved = game.rules.saved_cap + 1
        self.shape = (1 << game.n_categories, game.n_flag, self.n_saved, game.n_upper)
        self.size = int(np.prod(self.shape))
        self.row = game.n_flag * self.n_saved * game.n_upper
        self.weights = self.weights * self.n_saved
        self.total = int(self.weights.sum())
        self.done = int(self.weights[game.full_mask])

    def start(self, table: np.ndarray) -> None:
        """Every state NaN until solved (its kernel is not the block turn's), the full
        sheets worth their upper bonus."""
        table[:] = np.nan
        super().start(table)

    def writes(self, task: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        g = self.game
        ny = self.flags[task]
        m = np.repeat(task, ny)
        y = np.arange(m.size) - np.repeat(np.cumsum(ny) - ny, ny)
        s = np.arange(self.n_saved)
        starts = (((m * g.n_flag + y)[:, None] * self.n_saved + s[None, :]) * g.n_upper).ravel()
        lengths = np.repeat(g.upper_extent[m].astype(np.int64), self.n_saved)
        return starts, lengths

    def run_chain(self, table: np.ndarray, chain: Sequence[int]) -> None:
        """The layers ``chain`` one after the other (the turn with throws in hand
        runs a layer at a time)."""
        for layer in chain:
            self.run(table, self.by_layer[layer])

    def run(self, table: np.ndarray, task: np.ndarray) -> None:
        from numba import get_num_threads, parallel_chunksize

        from dicelab.engine.kernels.saved import solve_saved_batches
        from dicelab.engine.kernels.turn import plan_batches

        g = self.game
        V = table.reshape(self.shape)
        cuts = np.array([task.size], np.int64)
        plan = plan_batches(task, cuts, self.first, g.upper_extent, g.yahtzee, g.n_flag, self.width)
        segs = Segments(*plan)
        rules, dice = rule_arrays(g), dice_arrays(g)
        with parallel_chunksize(1):
            for s in range(self.n_saved):
                solve_saved_batches(segs, self.width, get_num_threads(), s, V, rules, dice)
        # the upper totals past the bonus: each (flag, throws in hand) row as a flag's
        share_lost(table.reshape(self.shape[0], -1, self.shape[-1]), task, self.first)


def solve_saved(
    rules: Rules | CompiledRules | str,
    progress: Progress | None = None,
    width: int = 256,
    allow_large: bool = False,
    runner=None,
    store=None,
) -> SavedTable:
    """Solve a rule set with ``save_unused_throws`` for the maximum expected score.

    ``runner`` and ``store`` say where the layers run and where the table lives while
    it is solved (see :mod:`dicelab.engine.runtime.schedule`): the official Maxi Yatzy with
    saving is a cluster's job.

    Raises
    ------
    UserError
        If the rules do not save throws, or the table is more than this machine can
        solve (unless ``allow_large``).
    """
    from dicelab.engine import kernels
    from dicelab.engine.kernels.saved import solve_saved_batches
    from dicelab.engine.runtime.schedule import new_table, run_layers

    game = as_game(rules)
    r = game.rules
    if not r.save_unused_throws:
        raise UserError(f"{r.name}: the rules do not save unused throws")
    saved_cost(r).check(allow_large)
    kernels.announce_compile(solve_saved_batches)
    start = time.perf_counter()
    layers = SavedLayers(game, width=width)
    flat = new_table(layers.size, np.float64, store, name=f"{r.name}.saved")
    run_layers(layers, flat, progress, runner)
    V = flat.reshape(layers.shape)
    mark_unreachable(V, game)
    return SavedTable(game=game, values=V, seconds=time.perf_counter() - start)


# -- one turn in NumPy, for advice ---------------------------------------------------------
@dataclass
class SavedTurnValues(KeepLookups):
    """The values inside one turn when unused throws are saved, from a position with
    ``rerolls`` rerolls left (throws in hand included).

    ``keep[n, k]`` is keeping ``k`` with ``n`` rerolls left, before that reroll,
    where a full roll's entry is scoring it then and there (keeping ``n`` throws);
    ``keep[0, roll]`` a roll scored after the last throw.
    """

    table: SavedTable
    filled: int
    upper_total: int
    flag: int
    rerolls: int
    keep: np.ndarray
    start_value: float

    def box_value(self, c: int, pts: int, extra: float, y2: int) -> float:
        """Scoring now, keeping the rerolls left for later turns (up to the cap)."""
        g = self.table.game
        kept = min(self.rerolls, self.table.values.shape[2] - 1)
        u, _ = g.turn_state(self.upper_total)
        u2 = min(g.threshold, u + pts) if (g.upper[c] and g.threshold > 0) else u
        return pts + extra + float(self.table.values[self.filled | (1 << c), y2, kept, u2])

    def roll_value(self, roll: int, rerolls_left: int) -> float:
        space = self.table.game.space
        return float(max(self.keep[rerolls_left, k] for k in space.sub_keeps(roll)))


def saved_turn_values(
    table: SavedTable, filled: int, upper_total: int, flag: int, rerolls: int
) -> SavedTurnValues:
    """The turn of a state seen from a throw with ``rerolls`` rerolls left.

    Each throw values the full rolls as scored then, keeping its rerolls for later
    turns, as the solver does (:func:`dicelab.engine.kernels.saved.solve_saved_batches`).
    """
    g = table.game
    cap = table.values.shape[2] - 1
    table.value(filled, upper_total, flag, 0)  # validates the state
    if filled == g.full_mask:
        raise UserError("every box is filled: the game is over")
    u, y = g.turn_state(upper_total, flag)
    space = g.space
    roll0 = int(space.size_start[space.dice])
    A = np.empty(space.n_keeps)
    K = np.full((rerolls + 1, space.n_keeps), np.nan)
    for n in range(rerolls + 1):
        if n > 0:
            turn.keep_means(space, A)
        A[roll0:] = turn.final_roll_values(g, table.values[:, :, min(n, cap), :], filled, u, y)
        K[n] = A
        if n > 0:
            turn.best_keeps(space, A)
    start = float(np.dot(space.roll_prob, A[roll0:]))
    return SavedTurnValues(table, filled, upper_total, y, rerolls, K, start)


def expected_objective(game: CompiledRules, spec, options):
    """The registry's solve (:mod:`dicelab.engine.registry`): the expected-score
    table, or the saved-throws table where the rules save throws."""
    how = dict(allow_large=options.allow_large, runner=options.runner, store=options.store)
    if game.rules.save_unused_throws:  # throws in hand: their own table, not cached
        return solve_saved(game, progress=options.progress, **how)
    return expected_table(
        game, use_cache=options.cache, progress=options.progress, precision=options.precision, **how
    )
