"""What ``dicelab train`` prints: a question at a time, graded at once."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable

from rich.markup import escape

from dicelab.cli.advice import explain_split, load_table
from dicelab.cli.history import keep_game
from dicelab.cli.output import Console, warn
from dicelab.errors import UserError
from dicelab.play import history
from dicelab.play.training import Question, Training, kind_weights
from dicelab.rules import load_rules


def run_train(
    rules: str,
    *,
    questions: int = 10,
    daily: bool = False,
    day: str | None = None,
    seed: int | None = None,
    as_json: bool = False,
    why: bool = True,
    console: Console | None = None,
    read: Callable[[str], str] | None = None,
) -> int:
    """A training session in the terminal; returns the exit code."""
    console = console or Console()
    read = read or (lambda prompt: console.input(prompt))
    date = _date(day) if day is not None else (dt.date.today() if daily else None)
    if date is not None and seed is not None:
        raise UserError("--seed: a daily set takes its seed from the date; give one or the other")
    r = load_rules(rules)
    table = load_table(r, quiet=as_json)
    split = explain_split(r, quiet=as_json, mapped=True) if why else None
    weights = None if date is not None else kind_weights(_past_kinds(r.name))
    session = Training(table, questions, seed=seed, day=date, kind_weights=weights,
                       explain=split, rules_source=rules)  # fmt: skip
    if not as_json:
        what = f"the daily set of {date.isoformat()}" if date else f"seed {session.seed}"
        console.print(f"[bold]{r.name} training[/bold]: {questions} decisions ({what}); "
                      "type the dice to keep (6 6, none, all) or a box; q quits")  # fmt: skip
    assert session.questions is not None  # drawn when the session began
    for q in session.questions:
        if as_json:
            _line(q.to_dict())
        else:
            _show(q, r, console)
        while True:
            try:
                text = read("" if as_json else "your choice? ").strip()
            except (EOFError, KeyboardInterrupt):
                text = "q"
            if text.lower() in ("q", "quit"):
                return _finish(session, console, as_json, stopped=True)
            try:
                graded = session.answer(q, text)
                break
            except UserError as exc:
                if as_json:
                    _line({"error": str(exc)})
                else:
                    console.print(f"[red]{escape(str(exc))}[/red]")
        if as_json:
            _line(graded.to_dict())
        elif graded.correct:
            console.print(f"[green]best[/green] ({graded.chosen.label})")
        else:
            console.print(f"[yellow]costs {graded.cost:.2f}[/yellow]: the best is "
                          f"{graded.best.label}")  # fmt: skip
            if graded.why:
                console.print(f"[dim]{escape(graded.why)}[/dim]")
    return _finish(session, console, as_json)


def _line(data: dict) -> None:
    """One JSON line on standard output, for a program on the other end of a pipe."""
    print(json.dumps(data), flush=True)


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise UserError(f"--date: got {text!r}, expected a date as 2026-11-26") from None


def _past_kinds(rules: str) -> list[dict]:
    """The player's past decisions by kind; an unreadable history weighs nothing."""
    damaged: list[int] = []
    try:
        found = history.kinds_of(rules, damaged=damaged)
    except UserError as exc:
        warn(f"{exc}: the questions are drawn without its weights")
        return []
    if damaged:
        warn(history.damaged_note(damaged))
    return found


def _show(q: Question, rules, console: Console) -> None:
    a = q.advice
    p = q.position
    order = [c.id for c in rules.categories if c.id in p.filled]
    filled = " ".join(f"{box}={p.filled[box]}" for box in order) or "nothing yet"
    when = f"{p.rerolls} reroll{'s' if p.rerolls != 1 else ''} left" if p.rerolls else "last throw"
    console.print(f"\n[bold]question {q.number}[/bold]: filled {filled}; score {a.score_so_far}, "
                  f"upper total {a.upper_total}")  # fmt: skip
    console.print(f"dice [bold]{' '.join(map(str, p.dice))}[/bold], {when}")


def _finish(session: Training, console: Console, as_json: bool, stopped: bool = False) -> int:
    s = session.summary()
    if as_json:
        _line({"summary": s})
    elif session.answers:
        console.print(
            f"\n{s['questions']} answered: {100 * s['best_share']:.0f}% best, "
            f"{s['average_cost']:.3f} points lost per decision on average"
        )
        for row in s["by_kind"]:
            console.print(f"  {row['kind']}: {row['mistakes']} of {row['decisions']} cost "
                          f"{row['cost']:.2f} points")  # fmt: skip
    if session.answers:
        if as_json:  # the JSON stream stays as it is; a warning goes to standard error
            try:
                history.keep(session.record, session, "training")
            except UserError as exc:
                warn(f"{exc}: this session is not kept")
        else:
            keep_game(session.record, session, console, kind="training")
    return 0
