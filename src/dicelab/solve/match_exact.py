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


def agreement(
    reply: DuelTable, duel: DuelTable, expected, seat: str, games: int, seed: int = 0
) -> tuple[int, int]:
    """Play ``games`` games of the reply in ``seat`` against the points player and count
    the reply's decisions, and those where its choice is as good to win as the
    win-optimal one (within :data:`~dicelab.solve.advice.TIE` in the duel table)."""
    from dicelab.play.duel import DuelGame
    from dicelab.solve.advice import TIE, _rank, advise
    from dicelab.solve.duel import duel_turn_values

    decisions = same = 0
    for n in range(games):
        game = DuelGame(reply, expected, seed=seed + 2 * n)
        while not game.over:
            mover = game.mover
            g = game.games[mover]
            if g.phase == "roll":
                g.roll()
                continue
            if mover != seat:
                plain = advise(expected, g.position())
                options = game.options()
                game.apply(next(o for o in options if o.key == plain.options[0].key))
                continue
            options = game.options()
            me, mine = game.state(mover)
            them, theirs = game.state("B" if mover == "A" else "A")
            turn = duel_turn_values(duel, me, them, mine - theirs)
            space = duel.game.space
            best = _rank(duel.game, turn, space.index(tuple(g.dice)), g.rerolls_left, 0.0)
            chosen = next(o for o in best if o.key == options[0].key)
            decisions += 1
            same += best[0].value - chosen.value <= TIE
            game.apply(options[0])
    return decisions, same


def evaluate_two(
    rules: Rules | CompiledRules | str,
    games: int = 200,
    progress: Progress | None = None,
    allow_large: bool = False,
) -> dict:
    """Against a points player, where the duel fits: the best reply's exact chance in
    each seat, beside the win-optimal player's (from the duel's cached strategy
    comparisons, or worked out here), the edge over 1/2 it gains against the
    win-optimal player's, and how often its choice is a win-optimal one in ``games``
    games of each seat (positions met in play)."""
    from dicelab.solve.duel import duel_table
    from dicelab.solve.duel_compare import EXPECTED, WIN, evaluate_pairs, expected_outcomes
    from dicelab.solve.expected import expected_table

    game = as_game(rules)
    start = time.perf_counter()
    duel = duel_table(game, allow_large=allow_large)
    space, expected = duel.space, expected_table(game)
    outcomes = expected_outcomes(game, space)
    reply = {seat: reply_table(game, seat, space, outcomes, progress) for seat in SEATS}
    verdicts = duel.meta.get("verdicts")
    if verdicts is not None:
        pairs = verdicts["pairs"]
        win_a = pairs["win-expected"]["value_for_a"]
        win_b = 1 - pairs["expected-win"]["value_for_a"]
    else:
        res = evaluate_pairs(duel, [(WIN, EXPECTED), (EXPECTED, WIN)], outcomes=outcomes)
        win_a, win_b = res[WIN, EXPECTED].value, 1 - res[EXPECTED, WIN].value
    mine_a, mine_b = reply["A"].start_value, 1 - reply["B"].start_value
    edge = (win_a - 0.5) + (win_b - 0.5)
    counts = {seat: agreement(reply[seat], duel, expected, seat, games) for seat in SEATS}
    decisions = sum(c[0] for c in counts.values())
    return {
        "rules": game.rules.name,
        "players": 2,
        "method": "exact: a backward pass over both sheets (the duel's nodes and leads)",
        "opponent": "plays for the expected score",
        "first": {"best_reply": mine_a, "win_optimal": win_a},
        "second": {"best_reply": mine_b, "win_optimal": win_b},
        "average": {"best_reply": (mine_a + mine_b) / 2, "win_optimal": (win_a + win_b) / 2},
        "edge_ratio": ((mine_a - 0.5) + (mine_b - 0.5)) / edge if edge > 0 else None,
        "agreement": {
            "games_per_seat": games,
            "decisions": decisions,
            "win_optimal_choices": sum(c[1] for c in counts.values()),
            "share": sum(c[1] for c in counts.values()) / decisions if decisions else None,
        },
        "seconds": round(time.perf_counter() - start, 2),
    }
