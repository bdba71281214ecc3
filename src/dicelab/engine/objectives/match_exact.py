"""The best reply to a player who plays for points, over both sheets, exactly.

An opponent who plays for the expected score does not react to me, so against
them the best play is a one-sided optimum: maximise my chance to win while
following their fixed play. Where the two-player game fits
(:mod:`dicelab.engine.objectives.duel`), it is a backward pass over the duel's nodes and
leads in which my turns take the best option (the duel's own turn kernel) and
theirs average over their fixed turn outcomes. Unlike this turn's table of
:mod:`dicelab.engine.advice.match`, the best reply reacts to each of their turns as it
comes, so it bounds from above what any advice achieves against a points player;
its start value, set beside the win-optimal player's (the duel's strategy
comparisons), says how much playing to win can gain against them.

>>> from dicelab.engine.objectives.match_exact import reply_table
>>> from dicelab.rules import parse_rules
>>> coin = parse_rules({"name": "coin", "dice": 1, "faces": 2, "rolls": 1,
...                     "categories": [{"id": "s", "kind": "chance"}]})
>>> reply_table(coin, "A").start_value   # nothing to choose: a fair game
0.5
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from dicelab.engine.kernels import Outcomes, dice_arrays, rule_arrays
from dicelab.engine.objectives.duel import DuelLayers, DuelSpace, DuelTable, duel_cost, duel_space
from dicelab.errors import UserError
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, as_game

Progress = Callable[[int, int], None]

SEATS = ("A", "B")


class ReplyLayers(DuelLayers):
    """The duel's layers with one seat (``seat``) playing the best reply and the other
    for points (its turn outcomes ``outcomes``, fixed)."""

    def __init__(self, game: CompiledRules, space: DuelSpace, seat: str, outcomes, width=256):
        super().__init__(game, space, width)
        self.seat = seat
        self.outcomes = outcomes

    def run(self, table: np.ndarray, task: tuple) -> None:
        sp = self.space
        if task[0].size == 0:
            return
        n = int(sp.p_count[task[0][0]] + sp.p_count[task[1][0]])  # boxes filled: the layer
        if SEATS[n % 2] == self.seat:
            self.run_mine(table, task)
            return
        from numba import get_num_threads

        from dicelab.engine.kernels.duel import duel_points_blocks
        from dicelab.engine.kernels.work import on_threads

        workers = get_num_threads()
        bufs = (np.zeros((workers, self.width)), np.zeros((workers, self.width)))
        outcomes = Outcomes(*self.outcomes)
        R = rule_arrays(self.game)
        on_threads(duel_points_blocks, task, table, sp.leads(), outcomes, sp.players, R, bufs)

    def run_mine(self, table: np.ndarray, task: tuple) -> None:
        """A layer of ``seat``'s moves: the best option (the duel's turn)."""
        super().run(table, task)


class LookaheadLayers(ReplyLayers):
    """The duel's layers with ``seat`` playing each turn to finish first and valuing
    the rest as played for points (the table at play's method, ``chances`` the value
    it gives each node and lead: :func:`lookahead_chances`), and the other player
    for points."""

    def __init__(self, game, space, seat, outcomes, chances: np.ndarray, width=256):
        super().__init__(game, space, seat, outcomes, width)
        self.chances = chances

    def run_mine(self, table: np.ndarray, task: tuple) -> None:
        """Each choice by ``chances``, its true chance carried (the lead kernel's two
        rows, :mod:`dicelab.engine.kernels.lead`)."""
        from numba import get_num_threads

        from dicelab.engine.kernels.lead import lead_blocks, lead_buffers
        from dicelab.engine.kernels.work import on_threads

        sp, g = self.space, self.game
        R, D = rule_arrays(g), dice_arrays(g)
        bufs = lead_buffers(get_num_threads(), self.width, R, D)
        tables = (self.chances, table)
        none = np.empty(0)  # no settled leads: the second row holds chances
        on_threads(lead_blocks, task, tables, sp.leads(), none, sp.players, R, D, bufs)


def lookahead_chances(space: DuelSpace, seat: str, remaining) -> np.ndarray:
    """What the table at play's method makes of each node where ``seat`` waits (their
    turn just played): their chance to finish first if both sheets are played for
    points from there, from the distributions of the points to come
    (:class:`~dicelab.engine.objectives.remaining.RemainingTable`); single precision."""
    from dicelab.engine.kernels.remaining import duel_chances
    from dicelab.engine.kernels.work import on_threads

    mapped = remaining.meta.get("mapped")
    if mapped is not None:  # every row may be read: check every block first
        mapped.check(0, remaining.values.size)
    rem = (remaining.lo, remaining.hi, remaining.off, np.asarray(remaining.values))
    H = np.zeros(space.n_values, np.float32)
    for n in range(1, space.n_layers):
        if SEATS[(n + 1) % 2] != seat:  # the player who waits at layer n
            continue
        i, j, nodes = space.layer_nodes(n)
        p_mask, p_y, p_u = space.p_mask, space.p_y, space.p_u
        sheets = np.stack([p_mask[i], p_y[i], p_u[i], p_mask[j], p_y[j], p_u[j]], axis=1)
        rows = np.stack([space.off[nodes], space.xlo[nodes], space.xhi[nodes]], axis=1)
        kept = space.xhi[nodes] >= space.xlo[nodes]
        on_threads(duel_chances, nodes[kept], sheets[kept], rows[kept], H, rem)
    return H


def reply_table(
    rules: Rules | CompiledRules | str,
    seat: str,
    space: DuelSpace | None = None,
    outcomes=None,
    progress: Progress | None = None,
    allow_large: bool = False,
) -> DuelTable:
    """The best reply of ``seat`` to a player who plays for points: every node's row
    of chances for the player who waits, as the duel table holds them (so the
    duel's advice reads it: :func:`dicelab.engine.advice.duel.duel_advise`)."""
    game, space, outcomes = _against_points(rules, seat, space, outcomes, allow_large)
    return _one_sided(ReplyLayers(game, space, seat, outcomes), progress)


def lookahead_table(
    rules: Rules | CompiledRules | str,
    seat: str,
    space: DuelSpace | None = None,
    outcomes=None,
    remaining=None,
    progress: Progress | None = None,
    allow_large: bool = False,
) -> DuelTable:
    """The exact chances of ``seat`` playing by the table at play's method
    (:func:`dicelab.engine.advice.match.lookahead_turn`: each turn played to finish first,
    the rest valued as played for points) against a player who plays for points,
    every node's row as the duel table holds them.

    Between choices whose values agree within
    :data:`~dicelab.engine.kernels.lead.EVEN` (1e-6) it takes the better one."""
    from dicelab.engine.objectives.remaining import remaining_table

    game, space, outcomes = _against_points(rules, seat, space, outcomes, allow_large)
    remaining = remaining if remaining is not None else remaining_table(game)
    H = lookahead_chances(space, seat, remaining)
    return _one_sided(LookaheadLayers(game, space, seat, outcomes, H), progress)


def _against_points(rules, seat: str, space, outcomes, allow_large: bool):
    """The compiled game, its duel space and the points player's turn outcomes."""
    from dicelab.engine.objectives.duel_compare import expected_outcomes

    if seat not in SEATS:
        raise UserError(f"seat: got {seat!r}, expected A (first) or B (second)")
    game = as_game(rules)
    if space is None:
        duel_cost(game, compare=False).check(allow_large)
        space = duel_space(game)
    if outcomes is None:
        outcomes = expected_outcomes(game, space)
    return game, space, outcomes


def _one_sided(layers: ReplyLayers, progress: Progress | None) -> DuelTable:
    """Run the layers backwards from the full sheets into a new table."""
    from dicelab.engine.runtime.schedule import run_layers

    start = time.perf_counter()
    space = layers.space
    T = np.empty(space.n_values)
    run_layers(layers, T, progress)
    return DuelTable(layers.game, space, T, seconds=time.perf_counter() - start, meta={})
