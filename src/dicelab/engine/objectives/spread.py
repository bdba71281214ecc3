"""The spread of the final score from every state, under the expected-score optimum.

An expected final score says nothing of the risk taken: keeping 6 6 and going for
sixes, or taking a sure small straight, may differ by a point on average and by
ten in standard deviation. The table here holds, for every turn-start state, the
second moment ``E[R**2]`` of the points ``R`` still to come when the strategy of
:mod:`dicelab.engine.objectives.distribution` is played (the expected-score optimum, ties
broken as there); with the expected-score table's ``E[R]`` it gives the standard
deviation of the final score from any state, and :func:`turn_moments` the one of
every option inside a turn.

The table is filled backwards, one layer of filled boxes at a time, from the
outcome distribution of each state's turn (box, points, extra bonus), which
:func:`dicelab.engine.objectives.distribution.layer_outcomes` computes: a turn that scores
``g`` and leads to state ``s'`` adds ``P * (g**2 + 2 g E[R'] + E[R'**2])``. At the
start this gives the same standard deviation as the forward distribution (two
independent computations; the tests compare them).

>>> from dicelab.engine.objectives.spread import spread_table
>>> round(spread_table("yazy").start_sd, 4)
32.3764
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from numba import njit, prange

from dicelab.engine import turn
from dicelab.engine.kernels import rule_arrays
from dicelab.engine.kernels.turn import slot_outcome
from dicelab.engine.objectives.distribution import OutcomeLayout
from dicelab.engine.objectives.expected import ExpectedTable, expected_table
from dicelab.engine.objectives.points import layers
from dicelab.engine.table import FollowsExpected, SolvedTable
from dicelab.errors import UserError
from dicelab.rules.compiled import CompiledRules, as_game, refuse_variants
from dicelab.rules.placement import next_flag

OBJECTIVE_SPREAD = "spread"
#: Turns whose moments a spread table keeps (about 22 KB each for Yahtzee).
TURNS_KEPT = 64


@dataclass(repr=False)
class SpreadTable(FollowsExpected, SolvedTable):
    """``values[mask, flag, upper] = E[R**2]``, ``R`` the points still to come from a
    turn start under the expected-score optimum (``expected`` holds ``E[R]``).

    Examples
    --------
    >>> import dicelab
    >>> round(dicelab.solve("yacht", objective="spread").value(), 2)  # the final score's sd
    37.86
    """

    expected: ExpectedTable
    values: np.ndarray
    #: the last turns asked for (a player asks about one turn two or three times)
    turns: OrderedDict = field(default_factory=OrderedDict, repr=False)

    objective: ClassVar[str] = "spread"

    def value(self) -> float:
        """Standard deviation of the final score of a whole game."""
        return self.start_sd

    @property
    def summary(self) -> str:
        return f"sd {self.start_sd:.6f} around expected {self.expected.expected_score:.6f}"

    def sd(self, filled: int, upper_total: int = 0, flag: int = 0) -> float:
        """Standard deviation of the final score from a turn start."""
        mean = self.expected.value(filled, upper_total, flag)  # validates the state
        g = self.game
        u, y = g.turn_state(upper_total, flag)
        return float(spread_of(float(self.values[filled, y, u]), mean))

    @property
    def start_sd(self) -> float:
        """Standard deviation of the final score of a whole game."""
        return self.sd(0)


def spread_of(second: float | np.ndarray, mean: float | np.ndarray):
    """``sqrt(E[X**2] - E[X]**2)``, rounding below zero taken as zero."""
    return np.sqrt(np.maximum(second - np.square(mean), 0.0))


@njit(cache=True, parallel=True)
def moments_layer(masks, V, M2, Q, qoff, slots, R):
    """``M2`` of every state of a layer from its turn outcomes ``Q`` (see
    :class:`dicelab.engine.objectives.distribution.OutcomeLayout` for their layout); ``slots`` is
    ``(lanes, n_lanes, box_slots, slot_pts, n_e)``."""
    lanes, n_lanes, box_slots, slot_pts, n_e = slots
    n_flag, yahtzee = R.n_flag, R.yahtzee
    n_cat = R.upper.shape[0]
    for b in prange(masks.shape[0]):
        X = masks[b]
        width = 0
        for c in range(n_cat):
            if (X >> c) & 1 == 0:
                width += box_slots[c]
        ny = 2 if (n_flag == 2 and (X >> yahtzee) & 1 == 1) else 1
        for y in range(ny):
            q0 = qoff[X, y]
            for i in range(n_lanes[X]):
                u = lanes[X, i]
                acc = 0.0
                base = 0
                for c in range(n_cat):
                    if (X >> c) & 1 == 1:
                        continue
                    Y = X | (1 << c)
                    for s in range(box_slots[c]):
                        q = Q[q0 + i * width + base + s]
                        if q == 0.0:
                            continue
                        _, points, y2, u2 = slot_outcome(c, s, y, u, slot_pts, n_e, R)
                        gain = float(points)
                        acc += q * (gain * gain + 2.0 * gain * V[Y, y2, u2] + M2[Y, y2, u2])
                    base += box_slots[c]
                M2[X, y, u] = acc


def solve_spread(rules, values: ExpectedTable | None = None, progress=None) -> SpreadTable:
    """The second moments of the points to come from every state (see the module)."""
    game = as_game(rules)
    refuse_variants(game, "the spread of the final score", served=False)
    if values is None:
        values = expected_table(game)
    V = values.values
    start = time.perf_counter()
    n = game.n_categories
    out = OutcomeLayout.of(game)
    M2 = np.zeros_like(V)
    M2[game.full_mask] = np.square(V[game.full_mask])  # the upper bonus, if any
    all_layers = layers(n)
    for k in range(n - 1, -1, -1):
        masks = all_layers[k]
        Q, qoff = out.outcomes(game, V, masks)
        slots = (out.lanes, out.n_lanes, out.box_slots, out.slot_pts, out.n_e)
        moments_layer(masks, V, M2, Q, qoff, slots, rule_arrays(game))
        if progress is not None:
            progress(n - k, n)
    return SpreadTable(values, M2, seconds=time.perf_counter() - start)


def spread_table(
    rules, values: ExpectedTable | None = None, use_cache: bool = True, progress=None
) -> SpreadTable:
    """The spread table of a rule set, from the cache when it holds one (checked as
    every cached table is)."""
    from dicelab.engine.runtime import cache

    game = as_game(rules)
    if values is None:
        values = expected_table(game, use_cache=use_cache)
    if use_cache:
        found = cache.lookup(game.rules, OBJECTIVE_SPREAD, values.values.shape)
        if found is not None:
            array, meta = found
            return SpreadTable(values, array, meta=meta)
    table = solve_spread(game, values, progress)
    cache.remember(table, game.rules, OBJECTIVE_SPREAD, None, use_cache)
    return table


# -- one turn, in NumPy ---------------------------------------------------------------------
def _final_moments(game: CompiledRules, V, M2, mask: int, u: int, y: int):
    """Each final roll's mean and second moment in the box the strategy picks
    (:func:`dicelab.engine.turn.strategy_boxes`)."""
    box, pts, extra, y2, u2 = turn.strategy_boxes(game, V, mask, u, y)
    nxt = mask | (1 << box)
    g = (pts + extra).astype(np.float64)
    v, w = V[nxt, y2, u2], M2[nxt, y2, u2]
    return g + v, g * g + 2.0 * g * v + w


def turn_moments(spread: SpreadTable, mask: int, u: int, y: int):
    """Means and second moments of the points to come inside one turn.

    Returns ``(K, KB)``: ``K[0, roll]`` and ``KB[0, roll]`` for a final roll in the
    box the strategy picks, ``K[n, keep]`` and ``KB[n, keep]`` for keeping ``keep``
    with ``n`` rerolls left. ``u`` is the capped upper total, ``y`` the flag. The
    means are the advice's; ``sqrt(KB - K**2)`` is the spread of each option.
    """
    game = spread.game
    if game.has_served or game.rules.save_unused_throws:
        raise UserError("the spread of each option: not for served or saved throws")
    found = spread.turns.get((mask, u, y))
    if found is not None:
        return found
    A, B = _final_moments(game, spread.expected.values, spread.values, mask, u, y)
    K, KB = turn.along_strategy(game.space, game.rules.rolls - 1, A, B)
    spread.turns[(mask, u, y)] = (K, KB)
    while len(spread.turns) > TURNS_KEPT:
        spread.turns.popitem(last=False)
    return K, KB


def option_spreads(spread: SpreadTable, position, options) -> list[float]:
    """The standard deviation of the final score after each option of a position.

    ``options`` are the :class:`dicelab.engine.advice.single.Option` of the position's advice: a
    keep is followed by the strategy's play of the rerolls, a box leads to the next
    turn's state.
    """
    from dicelab.engine.position import scorecard_state

    game = spread.game
    space = game.space
    mask, upper, flag, _ = scorecard_state(spread.expected, position)
    u, y = game.turn_state(upper, flag)
    # the rolls and keeps of the turn, only where a keep is among the options
    keeps = any(o.kind == "keep" for o in options)
    K, KB = turn_moments(spread, mask, u, y) if keeps else (np.empty(0), np.empty(0))
    roll = space.index(tuple(position.dice))
    ids = [c.id for c in game.rules.categories]
    out = []
    for o in options:
        if o.kind == "keep":
            n, k = (0, roll) if o.stops else (position.rerolls, space.index(o.keep))
            out.append(float(spread_of(KB[n, k], K[n, k])))
            continue
        c = ids.index(o.box)
        y2 = next_flag(c, y, o.points, game.yahtzee, game.n_flag)
        u2 = min(u + o.points, game.threshold) if game.upper[c] and game.threshold > 0 else u
        out.append(spread.sd(mask | (1 << c), u2, y2))
    return out


def solve_objective(game: CompiledRules, spec, options) -> SpreadTable:
    """The registry's solve: the expected-score table (in the precision asked), then
    its spread."""
    expected = expected_table(game, **options.solver_kwargs("runner", "precision"))
    return spread_table(game, expected, use_cache=options.cache, progress=options.progress)


def objective_facts(rules, spec):
    """The registry's facts: the expected-score table's file and the spread's; the
    turns run twice."""
    from dataclasses import replace

    from dicelab.engine.objectives.expected import OBJECTIVE
    from dicelab.engine.runtime import cache
    from dicelab.engine.runtime.cost import Facts, expected_cost

    expected = expected_cost(rules)
    both = (cache.table_path(rules, OBJECTIVE), cache.table_path(rules, OBJECTIVE_SPREAD))
    return Facts((both,), replace(expected, seconds=2 * expected.seconds))
