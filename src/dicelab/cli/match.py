"""``dicelab match``: playing to win at a table of two to four, printed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from dicelab.cli.advice import load_table, parse_filled, typed_position
from dicelab.cli.output import progress_bar
from dicelab.cli.seats import options_table
from dicelab.engine.advice.duel import Sheet
from dicelab.errors import UserError
from dicelab.rules import Rules, load_rules
from dicelab.text import plural

if TYPE_CHECKING:
    pass


def run_match_advise(
    rules: str,
    dice: Sequence[str],
    *,
    rerolls: int | None,
    mine: Sequence[str],
    upper: int | None,
    bonuses: int,
    theirs: Sequence[str],
    method: str = "auto",
    top: int = 12,
    allow_large: bool = False,
    as_json: bool = False,
    console: Console | None = None,
):
    """Run ``dicelab match advise``: my options by my chance to finish first against the
    sheets given (one ``--theirs`` each), by ``method`` (see
    :data:`dicelab.engine.advice.match.METHODS`)."""
    from dicelab.engine.advice.match import check_table, match_advise
    from dicelab.engine.objectives.remaining import OBJECTIVE_REMAINING, remaining_cost
    from dicelab.engine.runtime import cache
    from dicelab.rules.compiled import compile_rules

    console = console or Console()
    r = load_rules(rules)
    position = typed_position(r, dice, rerolls, mine, upper, bonuses)
    sheets = [Sheet(parse_filled([t], r)) for t in theirs]
    game = compile_rules(r)
    if not cache.table_path(r, OBJECTIVE_REMAINING).exists():  # sized before its solve
        remaining_cost(game).check(allow_large)
    expected = load_table(r, quiet=as_json)
    check_table(expected, position, sheets)  # before any solving
    what = f"solving {r.name} to finish first at a table of {len(sheets) + 1}"
    with progress_bar(what, enabled=not as_json) as tick:
        result = match_advise(game, position, sheets, expected, tick, allow_large, method)
    if as_json:
        console.print_json(json.dumps({"rules": r.name, **result.to_dict()}))
    else:
        show_match_advice(result, r, console, top)
    return result


def show_match_advice(result, rules: Rules, console: Console, top: int = 12) -> None:
    """The options by chance to finish first, and what the opponents are expected to make."""
    advice = result.advice
    p = advice.position
    when = f"{plural(p.rerolls, 'reroll')} left" if p.rerolls else "after the last throw"
    console.print(
        f"{rules.name}, {len(result.opponents) + 1} players: dice "
        f"{' '.join(map(str, sorted(p.dice)))}, {when}; your score so far "
        f"{advice.score_so_far}"
    )
    for n, pmf in enumerate(result.opponents, start=1):
        mean = sum(x * q for x, q in enumerate(pmf))
        console.print(f"  opponent {n}: expected final score {mean:.1f} if they play for points")
    console.print(options_table(advice.options, top, "chance to finish first", digits=6,
                                picked=False))  # fmt: skip
    hidden = len(advice.options) - top if top > 0 else 0
    if hidden > 0:
        console.print(f"... and {hidden} more (--top 0 shows all)")
    note = f"Method: {result.method}; a tie for first shared; {result.seconds:.1f} s."
    if not result.method.startswith("the exact"):
        note += (" Each chance is that of playing this option and then by this turn's "
                 "plan, without reacting to the others' later turns: asking again at each "
                 "turn does at least as well.")  # fmt: skip
    console.print(note)


def run_match_evaluate(
    rules: str,
    *,
    players: int = 2,
    games: int | None = None,
    simulate: bool = False,
    seed: int = 0,
    best_reply: bool = False,
    allow_large: bool = False,
    as_json: bool = False,
    console: Console | None = None,
) -> dict:
    """Run ``dicelab match evaluate``: the advice's chance against points players,
    exactly where the two-player game fits (beside the win-optimal player's), else
    (or with ``simulate``) in simulated games."""
    from dicelab.engine.advice.match import MAX_PLAYERS, MIN_PLAYERS, duel_fits
    from dicelab.play.match_eval import evaluate_two
    from dicelab.rules.compiled import compile_rules

    console = console or Console()
    r = load_rules(rules)
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise UserError(f"players: got {players}, expected {MIN_PLAYERS} to {MAX_PLAYERS}")
    game = compile_rules(r)
    if simulate or players != 2 or not (allow_large or duel_fits(game)):
        if best_reply:
            raise UserError(
                "--best-reply: the best reply is exact, for two players where the two-player "
                "game fits; leave it out of a simulated evaluation"
            )
        return _evaluate_simulated(game, players, games, seed, allow_large, as_json, console)
    games = 200 if games is None else games
    with progress_bar(f"evaluating {r.name}'s advice at a table of 2", enabled=not as_json) as tick:
        out = evaluate_two(game, games, tick, allow_large=allow_large, best_reply=best_reply)
    if as_json:
        console.print_json(json.dumps(out))
        return out
    table = Table(header_style="bold", title=f"{r.name}: the chance to win against a points player")
    names = [("lookahead", "this advice"), ("win_optimal", "win-optimal")]
    if best_reply:
        names.append(("best_reply", "best reply"))
    table.add_column("seat")
    for _, label in names:
        table.add_column(label, justify="right")
    for seat in ("first", "second", "average"):
        table.add_row(seat, *(f"{out[seat][key]:.6f}" for key, _ in names))
    console.print(table)
    share = out["agreement"]["share"]
    console.print(
        f"It recovers {out['recovered_edge']:.1%} of the win-optimal player's edge over "
        f"an even game; in {2 * games} games played, {share:.1%} of its "
        f"{out['agreement']['decisions']} choices were win-optimal."
        if share is not None
        else f"It recovers {out['recovered_edge']:.1%} of the win-optimal player's edge."
    )
    console.print(f"Method: {out['method']}; advice: {out['strategy']}; {out['seconds']:.0f} s.")
    return out


def _evaluate_simulated(game, players, games, seed, allow_large, as_json, console) -> dict:
    """``match evaluate`` in simulated games: the table of points to come prepared
    (or read), then the games, each with its progress bar; printed."""
    from dicelab.engine.objectives.expected import expected_table
    from dicelab.engine.objectives.remaining import remaining_table
    from dicelab.play.match_eval import evaluate_simulated
    from dicelab.play.match_sim import MAX_GAMES

    games = 100_000 if games is None else games
    if not 1 <= games <= MAX_GAMES:
        raise UserError(f"games: got {games}, expected 1 to {MAX_GAMES:,} simulated games")
    name = game.rules.name
    expected = expected_table(game)
    with progress_bar(f"{name}: the points to come from every state", not as_json, "work") as tick:
        remaining = remaining_table(game, expected, progress=tick, allow_large=allow_large)
    what = f"playing {games:,} games of {name} at a table of {players}"
    with progress_bar(what, enabled=not as_json, unit="games") as tick:
        out = evaluate_simulated(game, players, games, seed, tick, remaining)
    if as_json:
        console.print_json(json.dumps(out))
        return out
    table = Table(header_style="bold", title=f"{name}: the chance to finish first, "
                  f"against {plural(players - 1, 'player')} who play for points")  # fmt: skip
    for column in ("seat", "games", "this advice", "standard error", "gain", "in SEs"):
        table.add_column(column, justify="left" if column == "seat" else "right")
    rows = [(str(s + 1), got) for s, got in enumerate(out["seats"])] + [("all", out)]
    for label, got in rows:
        table.add_row(label, f"{got['games']:,}", f"{got['win_chance']:.4f}",
                      f"{got['standard_error']:.4f}", f"{got['gain']:+.4f}",
                      f"{got['z']:.1f}")  # fmt: skip
    console.print(table)
    lo, hi = out["interval_95"]
    verdict = "significant" if out["significant"] else "not significant"
    console.print(
        f"The advice finishes first in {out['win_chance']:.2%} of games (95% interval "
        f"{lo:.2%} to {hi:.2%}); playing for points, {out['points_chance']:.2%}. The gain, "
        f"{out['gain']:+.4f}, is {out['z']:.2f} standard errors: {verdict} (4 or more)."
    )
    scores = out["mean_score"]
    console.print(
        f"Mean final score: {scores['advice']:.1f} by the advice, {scores['points']:.1f} "
        "playing for points."
    )
    console.print(f"Method: {out['method']}; advice: {out['strategy']}; {out['seconds']:.0f} s.")
    return out
