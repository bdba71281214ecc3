"""How well the advice at a table plays to win, measured against points players.

Where the two-player game fits, exactly (:func:`evaluate_two`): the chance of the
table at play's method (each turn played to finish first, the rest valued as
played for points) in each seat, beside the win-optimal player's and, on request,
the best reply's; and how often its choices are win-optimal in games played. The
exact parts are :mod:`dicelab.engine.objectives.match_exact`; the games are played here, where
a game in progress lives (:mod:`dicelab.play.duel`). Elsewhere, and at tables of
three or four, in simulated games with common random numbers
(:func:`evaluate_simulated`, :mod:`dicelab.play.match_sim`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from dicelab.engine.objectives.duel import DuelTable
from dicelab.engine.objectives.match_exact import SEATS, Progress, reply_table
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, as_game

#: A gain counts as shown when it is this many standard errors or more.
SIGNIFICANT = 4.0


def agreement(
    choose: Callable, duel: DuelTable, expected, seat: str, games: int, seed: int = 0
) -> tuple[int, int]:
    """Play ``games`` games of a strategy in ``seat`` against the points player and
    count its decisions, and those where its choice is as good to win as the
    win-optimal one (within :data:`~dicelab.engine.advice.single.TIE` in the duel table).
    ``choose(game)`` gives the key of the option the strategy takes in a
    :class:`~dicelab.play.duel.DuelGame`."""
    from dicelab.engine.advice.single import TIE, advise
    from dicelab.play.duel import duel_decisions

    decisions = same = 0
    for game, mover in duel_decisions(duel, expected, games, seed):
        options = game.options()  # by the win-optimal chances
        if mover != seat:
            plain = advise(expected, game.games[mover].position())
            game.apply(next(o for o in options if o.key == plain.options[0].key))
            continue
        key = choose(game)
        chosen = next(o for o in options if o.key == key)
        decisions += 1
        same += options[0].value - chosen.value <= TIE
        game.apply(chosen)
    return decisions, same


def reply_choice(reply: DuelTable) -> Callable:
    """The best reply's choice in a game (:func:`agreement`)."""
    from dicelab.engine.objectives.duel import duel_turn_values
    from dicelab.engine.position import rank

    def choose(game) -> tuple:
        me, mine = game.state(game.mover)
        them, theirs = game.state("B" if game.mover == "A" else "A")
        turn = duel_turn_values(reply, me, them, mine - theirs)
        g = game.games[game.mover]
        roll = reply.game.space.index(tuple(g.dice))
        return rank(reply.game, turn, roll, g.rerolls_left, 0.0)[0].key

    return choose


def lookahead_choice(remaining, expected) -> Callable:
    """The table at play's choice in a game (:func:`agreement`): its turn worked out
    once, when the turn begins."""
    from dicelab.engine.advice.duel import Sheet
    from dicelab.engine.advice.match import match_turn

    turns: dict = {}

    def choose(game) -> tuple:
        g = game.games[game.mover]
        other = game.games["B" if game.mover == "A" else "A"]
        key = (game.mover, tuple(sorted(g.filled)), tuple(sorted(other.filled.items())))
        if key not in turns:
            turns.clear()
            theirs = [Sheet(dict(other.filled), bonuses=other.extra_bonuses)]
            turns[key] = match_turn(expected.game, g.position(), theirs, expected,
                                    method="lookahead", remaining=remaining)  # fmt: skip
        return turns[key].advise(g.position()).options[0].key

    return choose


def evaluate_two(
    rules: Rules | CompiledRules | str,
    games: int = 200,
    progress: Progress | None = None,
    allow_large: bool = False,
    best_reply: bool = False,
) -> dict:
    """Against a points player, where the duel fits: the exact chance of the table at
    play's method (:func:`dicelab.engine.objectives.match_exact.lookahead_table`) in each seat,
    beside the win-optimal player's (:func:`win_optimal_chances`); the
    share of the win-optimal player's edge over 1/2 it recovers; and how often its
    choice is a win-optimal one in ``games`` games of each seat (positions met in
    play). With ``best_reply``, the exact best reply's chances too
    (:func:`~dicelab.engine.objectives.match_exact.reply_table`): the most any advice can make
    against that player."""
    from dicelab.engine.advice.match import METHOD_NAMES
    from dicelab.engine.objectives.duel import duel_cost, duel_table
    from dicelab.engine.objectives.duel_compare import expected_outcomes
    from dicelab.engine.objectives.expected import expected_table
    from dicelab.engine.objectives.match_exact import lookahead_table
    from dicelab.engine.objectives.remaining import remaining_table

    game = as_game(rules)
    start = time.perf_counter()
    duel_cost(game).check(allow_large)
    duel = duel_table(game, progress=progress, allow_large=allow_large, later=True)
    space, expected = duel.space, expected_table(game)
    outcomes = expected_outcomes(game, space)
    remaining = remaining_table(game, expected)
    win = win_optimal_chances(duel, outcomes, progress)
    tables = {s: lookahead_table(game, s, space, outcomes, remaining, progress) for s in SEATS}
    mine = (tables["A"].start_value, 1 - tables["B"].start_value)
    out = _seats("lookahead", mine, win)
    out["recovered_edge"] = _edge(mine) / _edge(win) if _edge(win) > 0 else None
    if best_reply:
        reply = {s: reply_table(game, s, space, outcomes, progress) for s in SEATS}
        bound = (reply["A"].start_value, 1 - reply["B"].start_value)
        for where, got in _seats("best_reply", bound, win).items():
            out[where]["best_reply"] = got["best_reply"]
        out["best_reply_edge"] = _edge(bound) / _edge(win) if _edge(win) > 0 else None
    choose = lookahead_choice(remaining, expected)
    counts = {s: agreement(choose, duel, expected, s, games) for s in SEATS}
    decisions = sum(c[0] for c in counts.values())
    return {
        "rules": game.rules.name,
        "players": 2,
        "method": "exact: a backward pass over both sheets (the duel's nodes and leads)",
        "strategy": METHOD_NAMES["lookahead"],
        "opponent": "plays for the expected score",
        **out,
        "agreement": {
            "games_per_seat": games,
            "decisions": decisions,
            "win_optimal_choices": sum(c[1] for c in counts.values()),
            "share": sum(c[1] for c in counts.values()) / decisions if decisions else None,
        },
        "seconds": round(time.perf_counter() - start, 2),
    }


def win_optimal_chances(duel: DuelTable, outcomes, progress: Progress | None = None) -> tuple:
    """The win-optimal player's chance against a points player in each seat (a win
    plus half a tie): from the strategy comparisons kept with the cached table
    (``dicelab duel RULES --compare``) where they are, else the two pairs alone
    (:func:`~dicelab.engine.objectives.duel_compare.evaluate_pairs`), in the
    precision the comparisons would take, so the figures are theirs to the last
    bit. Only the chances are carried, not the ties: the other comparisons, win
    against win and points against points, and the ties would take three times
    as long and are not needed here."""
    from dicelab.engine.objectives.duel_compare import (
        EXPECTED,
        VERDICT_PAIRS,
        WIN,
        evaluate_pairs,
        layer_dtype,
    )

    verdicts = duel.meta.get("verdicts")
    if verdicts is not None:
        pairs = verdicts["pairs"]
        return (pairs["win-expected"]["value_for_a"], 1 - pairs["expected-win"]["value_for_a"])
    asked = [(WIN, EXPECTED), (EXPECTED, WIN)]
    dtype = layer_dtype(duel.space, len(VERDICT_PAIRS))
    res = evaluate_pairs(duel, asked, outcomes=outcomes, dtype=dtype, progress=progress, ties=False)
    return (res[WIN, EXPECTED].value, 1 - res[EXPECTED, WIN].value)


def _edge(chances: tuple[float, float]) -> float:
    """The gain over an even game, summed over the two seats."""
    return (chances[0] - 0.5) + (chances[1] - 0.5)


def _seats(name: str, mine: tuple[float, float], win: tuple[float, float]) -> dict:
    """Each seat's and the average chance of ``name`` beside the win-optimal's."""
    return {
        "first": {name: mine[0], "win_optimal": win[0]},
        "second": {name: mine[1], "win_optimal": win[1]},
        "average": {name: sum(mine) / 2, "win_optimal": sum(win) / 2},
    }


def evaluate_simulated(
    rules: Rules | CompiledRules | str,
    players: int = 2,
    games: int = 100_000,
    seed: int = 0,
    progress: Progress | None = None,
    remaining=None,
) -> dict:
    """Against ``players - 1`` players who play for points, in ``games`` simulated
    games (:func:`dicelab.play.match_sim.play_table_games`): the advice's chance to
    finish first with its standard error and 95% interval, its gain over playing
    for points (whose chance is ``1 / players``) and the gain's size in standard
    errors, overall and seat by seat (``seats``, the first to play first), and the
    mean final scores both ways. ``remaining`` is the rules' table of points to
    come (worked out or read from the cache when not given)."""
    from dicelab.engine.advice.match import METHOD_NAMES
    from dicelab.engine.objectives.expected import expected_table
    from dicelab.engine.objectives.remaining import remaining_table
    from dicelab.play.match_sim import play_table_games

    game = as_game(rules)
    start = time.perf_counter()
    expected = expected_table(game)
    remaining = remaining if remaining is not None else remaining_table(game, expected)
    played = play_table_games(expected, remaining, players, games, seed, progress)
    overall = played.summary()
    chance, se = overall["win_chance"], overall["standard_error"]
    return {
        "rules": game.rules.name,
        "players": players,
        "method": f"simulated: {games:,} games with common random numbers, the advised seat "
        "played both ways on the same dice and going round the table",
        "strategy": METHOD_NAMES["lookahead"],
        "opponent": "play for the expected score",
        "games": games,
        "seed": seed,
        "points_chance": 1 / players,
        **overall,
        "interval_95": [chance - 1.96 * se, chance + 1.96 * se],
        "significant": bool(overall["z"] >= SIGNIFICANT),
        "seats": [played.summary(s) for s in range(players)],
        "seconds": round(time.perf_counter() - start, 2),
    }
