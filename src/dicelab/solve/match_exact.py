"""The best reply to a player who plays for points, over both sheets, exactly.

An opponent who plays for the expected score does not react to me, so against
them the best play is a one-sided optimum: maximise my chance to win while
following their fixed play. Where the two-player game fits
(:mod:`dicelab.solve.duel`), it is a backward pass over the duel's nodes and
leads in which my turns take the best option (the duel's own turn kernel) and
theirs average over their fixed turn outcomes. Unlike this turn's table of
:mod:`dicelab.solve.match`, the best reply reacts to each of their turns as it
comes, so it bounds from above what any advice achieves against a points player;
its start value, set beside the win-optimal player's (the duel's strategy
comparisons), says how much playing to win can gain against them.

>>> from dicelab.solve.match_exact import reply_table
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

from dicelab.errors import UserError
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, as_game
from dicelab.solve.duel import DuelLayers, DuelSpace, DuelTable, duel_cost, duel_space
from dicelab.solve.kernels import Outcomes, rule_arrays

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
            super().run(table, task)
            return
        from numba import get_num_threads

        from dicelab.solve.kernels.duel import duel_points_blocks
        from dicelab.solve.kernels.work import on_threads

        workers = get_num_threads()
        bufs = (np.zeros((workers, self.width)), np.zeros((workers, self.width)))
        outcomes = Outcomes(*self.outcomes)
        R = rule_arrays(self.game)
        on_threads(duel_points_blocks, task, table, sp.leads(), outcomes, sp.players, R, bufs)


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
    duel's advice reads it: :func:`dicelab.solve.duel_advice.duel_advise`)."""
    from dicelab.solve.duel import fill_terminal
    from dicelab.solve.duel_compare import expected_outcomes
    from dicelab.solve.schedule import run_layers

    if seat not in SEATS:
        raise UserError(f"seat: got {seat!r}, expected A (first) or B (second)")
    game = as_game(rules)
    if space is None:
        duel_cost(game, compare=False).check(allow_large)
        space = duel_space(game)
    start = time.perf_counter()
    if outcomes is None:
        outcomes = expected_outcomes(game, space)
    T = np.empty(space.n_values)
    layers = ReplyLayers(game, space, seat, outcomes)
    layers.start = lambda table: fill_terminal(space, table, 0)
    run_layers(layers, T, progress)
    return DuelTable(game, space, T, seconds=time.perf_counter() - start, meta={})
