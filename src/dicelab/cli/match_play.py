"""``dicelab match play`` and ``match review``: a game at a table against computer
players who play to win, and its review.

Every sheet is shown at the start of each turn; before each of your decisions the
options are ranked by your chance to finish first (unless hidden). The advice of a
turn is worked out when it begins, for you and the computers alike (seconds on the
first turns of the larger games). The game is saved after every move and reviewed
at the end: each of your decisions priced in chance to finish first.

What you type: the dice to keep (``6 6`` or ``66``), ``all`` to stop rolling,
``none`` to reroll everything, a box to score now; an empty line takes the best
option, ``q`` stops (the game so far is saved).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from rich.table import Table

from dicelab.cli.advice import load_table
from dicelab.cli.history import keep_game
from dicelab.cli.output import Console, progress_bar
from dicelab.cli.seats import (
    ask_choice,
    choice_note,
    options_table,
    play_out,
    sheets_table,
    show_decisions,
)
from dicelab.errors import UserError
from dicelab.play.duel import DuelResult
from dicelab.play.game import save_record
from dicelab.play.match import MatchGame, load_match_record, review_match
from dicelab.rules import load_rules


def run_match_play(
    rules: str,
    *,
    opponents: int = 1,
    seat: int = 1,
    seed: int | None = None,
    record: Path | None = None,
    show: bool = True,
    method: str = "auto",
    top: int = 6,
    console: Console | None = None,
    read: Callable[[str], str] | None = None,
    resume: Path | None = None,
) -> int:
    """Play a game at a table in the terminal (or go on with the one saved in
    ``resume``); returns the exit code."""
    from dicelab.cli.play import default_record_path
    from dicelab.play.match import load_match_record

    console = console or Console()
    read = read or (lambda prompt: console.input(prompt))
    if record is not None and record.exists() and record != resume:
        raise UserError(f"{record} already exists; name a new file with --record")
    r = load_rules(rules)
    expected = load_table(r)
    if resume is not None:
        game = MatchGame.resume(expected, load_match_record(resume))
        if game.over:
            raise UserError(f"the game in {resume} is finished; see it with "
                            f"dicelab match review {resume}")  # fmt: skip
        opponents, seat, path = game.record["players"] - 1, game.record["human"], record or resume
        console.print(f"resuming {resume}")
    else:
        game = MatchGame(expected, opponents + 1, seed, seat, rules_source=rules, method=method)
        path = record or default_record_path("dicelab-match")
    save_record(game.record, path)
    console.print(
        f"[bold]{r.name}, {opponents + 1} players[/bold]: you play seat {seat}, the computers "
        f"play to win (seed {game.record['seed']}); the game is saved in {path}"
    )
    again = f"dicelab match play {rules} --resume {path}"
    stopped = play_out(game, path, console, lambda: _step(game, console, read, show, top), again)
    if stopped is not None:
        return stopped
    scores = game.standings()
    best = max(scores)
    first = [k + 1 for k, s in enumerate(scores) if s == best]
    mine = scores[seat - 1]
    verdict = ("you finish first" if first == [seat] else "you share first place"
               if seat in first else f"seat {first[0]} finishes first")  # fmt: skip
    console.print(f"[bold]game over: {', '.join(map(str, scores))}; {verdict} ({mine})[/bold]")
    console.print(sheets(game))
    with progress_bar("reviewing your decisions", enabled=True) as _:
        decisions = review_match(expected, game.record)
    show_match_review(decisions, console)
    keep_game(game.record, DuelResult(mine, decisions), console, kind="match")
    console.print(f"the game record is in {path} (dicelab match review {path})")
    return 0


def _step(game: MatchGame, console: Console, read, show: bool, top: int) -> None:
    seat = game.mover
    assert seat is not None  # a step of a game still on
    g = game.games[seat - 1]
    human = seat == game.record["human"]
    who = "you" if human else f"computer {seat}"
    if g.phase == "roll":
        if g._turn is None:
            console.print(f"\n[bold]turn {len(g.filled) + 1}: {who} (seat {seat})[/bold]")
            console.print(sheets(game))
        dice = g.roll()
        console.print(f"{who} threw [bold]{' '.join(map(str, dice))}[/bold]")
        return
    with progress_bar(f"working out seat {seat}'s turn", enabled=True) as tick:
        options = game.options(progress=tick)
    if not human:
        choice = options[0]
    else:
        if show:
            console.print(options_table(options, top, "chance to finish first"))
        choice, options = ask_choice(game, g, options, read, console, show)
    game.apply(choice)
    note = choice_note(options, choice) if human else ""
    console.print(f"{who}: {choice.label}; chance to finish first {choice.value:.4f}{note}")


def sheets(game: MatchGame) -> Table:
    """Every sheet side by side, with the scores so far."""
    human = game.record["human"]
    columns = [
        (f"{k + 1} ({'you' if k + 1 == human else 'computer'})", g)
        for k, g in enumerate(game.games)
    ]
    return sheets_table(game.rules, columns)


def show_match_review(decisions, console: Console, mistakes_only: bool = True) -> None:
    show_decisions(decisions, console, "chance to finish first", mistakes_only)


def run_match_review(
    file: str,
    *,
    seat: int | None = None,
    as_json: bool = False,
    console: Console | None = None,
) -> list:
    """Run ``dicelab match review FILE``: one seat's decisions, priced."""
    console = console or Console()
    record = load_match_record(file)
    source = record.get("rules_source") or record.get("rules")
    if not isinstance(source, str):
        raise UserError(f"{Path(file).name}: the record names no rules")
    expected = load_table(load_rules(source), quiet=as_json)
    with progress_bar("reviewing the decisions", enabled=not as_json) as _:
        decisions = review_match(expected, record, seat)
    if as_json:
        out = {
            "rules": expected.rules.name,
            "seat": seat or record.get("human"),
            "total_cost": sum(d.cost for d in decisions),
            "decisions": [d.to_dict() for d in decisions],
        }
        console.print_json(json.dumps(out))
    else:
        show_match_review(decisions, console, mistakes_only=False)
    return decisions
