"""The best reply to a points player, measured: its exact chances beside the
win-optimal player's, and how often its choices are win-optimal in games played.

The exact part is :func:`dicelab.solve.match_exact.reply_table`; the games are
played here, where a game in progress lives (:mod:`dicelab.play.duel`).
"""

from __future__ import annotations

import time

from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, as_game
from dicelab.solve.duel import DuelTable
from dicelab.solve.match_exact import SEATS, Progress, reply_table


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
