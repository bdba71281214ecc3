"""``dicelab duel play`` and ``duel review``: a game against the computer, and its review.

Both sheets are shown at every turn; before each of your decisions the options are
ranked by your chance to win (unless hidden), and after every decision, yours or
the computer's, your win chance is shown. The computer plays to win. The game is
saved after every move and reviewed at the end: each of your decisions priced in
win chance.

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
from dicelab.cli.duel import load_duel
from dicelab.cli.history import keep_game
from dicelab.cli.output import Console
from dicelab.cli.seats import (
    ask_choice,
    choice_note,
    options_table,
    play_out,
    sheets_table,
    show_decisions,
)
from dicelab.errors import UserError
from dicelab.play.duel import DuelGame, DuelResult, load_duel_record, review_duel, seat_label
from dicelab.play.game import save_record
from dicelab.rules import load_rules


def run_duel_play(
    rules: str,
    *,
    seed: int | None = None,
    seat: str = "A",
    record: Path | None = None,
    show: bool = True,
    top: int = 6,
    console: Console | None = None,
    read: Callable[[str], str] | None = None,
    resume: Path | None = None,
) -> int:
    """Play a duel in the terminal against the computer (or go on with the one saved
    in ``resume``); returns the exit code."""
    from dicelab.cli.play import default_record_path
    from dicelab.play.duel import load_duel_record

    console = console or Console()
    read = read or (lambda prompt: console.input(prompt))
    seat = seat.upper()
    if seat not in ("A", "B"):
        raise UserError(f"seat: got {seat!r}, expected A (move first) or B (move second)")
    if record is not None and record.exists() and record != resume:
        raise UserError(f"{record} already exists; name a new file with --record")
    r = load_rules(rules)
    table = load_duel(r, mapped=True)
    if resume is not None:
        game = DuelGame.resume(table, load_table(r), load_duel_record(resume))
        if game.over:
            raise UserError(f"the duel in {resume} is finished; see it with "
                            f"dicelab duel review {resume}")  # fmt: skip
        seat, path = game.record["human"], record or resume
        console.print(f"resuming {resume}")
    else:
        game = DuelGame(table, load_table(r), seed=seed, human=seat, rules_source=rules)
        path = record or default_record_path("dicelab-duel")
    save_record(game.record, path)
    console.print(
        f"[bold]{r.name} duel[/bold]: you are the {seat_label(seat)}, the computer plays to "
        f"win (seed {game.record['seed']}); the game is saved in {path}"
    )
    again = f"dicelab duel play {rules} --resume {path}"
    stopped = play_out(game, path, console, lambda: _step(game, console, read, show, top), again)
    if stopped is not None:
        return stopped
    mine = game.games[seat].score
    theirs = game.games["B" if seat == "A" else "A"].score
    verdict = "you win" if mine > theirs else ("a tie" if mine == theirs else "you lose")
    console.print(f"[bold]game over: {mine} to {theirs}, {verdict}[/bold]")
    console.print(sheets(game))
    decisions = review_duel(table, game.expected, game.record)
    show_duel_review(decisions, console)
    mine_only = [d for d in decisions if d.seat == seat]
    keep_game(game.record, DuelResult(mine, mine_only), console, kind="duel")
    console.print(f"the game record is in {path} (dicelab duel review {path})")
    return 0


def _step(game: DuelGame, console: Console, read, show: bool, top: int) -> None:
    seat = game.mover
    assert seat is not None  # a step of a duel still on
    g = game.games[seat]
    human = seat == game.record["human"]
    who = "you" if human else "computer"
    if g.phase == "roll":
        if g._turn is None:
            console.print(f"\n[bold]turn {len(g.filled) + 1}: {who} ({seat})[/bold]")
            console.print(sheets(game))
        dice = g.roll()
        console.print(f"{who} threw [bold]{' '.join(map(str, dice))}[/bold]")
        return
    options = game.options()
    if not human:
        choice = options[0]
    else:
        if show:
            console.print(options_table(options, top))
        choice, options = ask_choice(game, g, options, read, console, show)
    game.apply(choice)
    chance = choice.value if human else 1.0 - choice.value
    note = choice_note(options, choice) if human else ""
    console.print(f"{who}: {choice.label}; your win chance {chance:.4f}{note}")


def sheets(game: DuelGame) -> Table:
    """Both sheets side by side, with the scores so far."""
    human = game.record["human"]
    columns = [
        (f"{seat} ({'you' if seat == human else 'computer'})", game.games[seat])
        for seat in ("A", "B")
    ]
    return sheets_table(game.rules, columns)


def show_duel_review(decisions, console: Console, mistakes_only: bool = True) -> None:
    show_decisions(decisions, console, "win chance", mistakes_only)


def run_duel_review(
    file: str, *, as_json: bool = False, all_decisions: bool = False, console: Console | None = None
) -> list:
    """Run ``dicelab duel review FILE``."""
    console = console or Console()
    record = load_duel_record(file)
    source = record.get("rules_source") or record.get("rules")
    if not isinstance(source, str):
        raise UserError("duel record: no rules named")
    r = load_rules(source)
    decisions = review_duel(
        load_duel(r, quiet=as_json, mapped=True), load_table(r, quiet=as_json), record
    )
    if as_json:
        console.print_json(
            json.dumps(
                {
                    "rules": r.name,
                    "seat": record["human"],
                    "total_cost": sum(d.cost for d in decisions),
                    "decisions": [d.to_dict() for d in decisions],
                }
            )
        )
    else:
        show_duel_review(decisions, console, mistakes_only=not all_decisions)
    return decisions
