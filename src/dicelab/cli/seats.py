"""Games of several players in the terminal (a duel, a game at a table): the sheets
side by side, the options ranked by a chance to win, the decisions reviewed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

from dicelab.cli.output import Console
from dicelab.engine.advice.single import TIE, Option
from dicelab.rules import Rules

if TYPE_CHECKING:
    from rich.console import JustifyMethod

    from dicelab.play.game import Game

HELP = (
    "type the dice to keep (e.g. 6 6), 'all' to stop rolling, 'none' to reroll all, "
    "a box to score now, Enter for the best option, q to stop"
)


def play_out(
    game, path: Path, console: Console, step: Callable[[], None], again: str = ""
) -> int | None:
    """Play ``game`` to its end one ``step`` at a time, saving its record in ``path``
    after each; ``None`` at the end, or the exit code when the player stops (``q``,
    or the input ends), the game so far saved (``again``: the command that resumes it)."""
    from dicelab.cli.play import _Quit
    from dicelab.play.game import save_record

    console.print(HELP, style="dim")
    try:
        while not game.over:
            step()
            save_record(game.record, path)
    except _Quit as stop:
        save_record(game.record, path)
        hint = f" (continue: {again})" if again else ""
        console.print(f"{stop}: the game so far is saved in {path}{hint}")
        return 0 if str(stop) == "quit" else 1
    return None


def ask_choice(game, g, options: list[Option], read, console: Console, show: bool):
    """Ask the person playing game ``g`` of ``game`` for a choice among ``options``
    until one is understood (an empty line: the best, where advice is shown); returns
    it with the options it was chosen among (a box before the last throw: among the
    boxes, the rolling stopped)."""
    from rich.markup import escape

    from dicelab.cli.play import _ask
    from dicelab.errors import UserError

    while True:
        text = _ask(read, "keep? " if g.phase == "keep" else "box? ")
        try:
            if text == "" and not show:
                raise UserError("advice is hidden: type the dice to keep, 'all' or a box")
            choice = options[0] if text == "" else game.find(text, options)
            break
        except UserError as exc:
            console.print(f"[red]{escape(str(exc))}[/red]")
            console.print(HELP, style="dim")
    if choice.kind == "box" and g.phase == "keep":  # scored before the last throw
        options = game.options(rerolls=0)
    return choice, options


def choice_note(options: list[Option], choice: Option) -> str:
    """What a choice of the person playing cost against the best option, as a note."""
    cost = options[0].value - choice.value
    if cost <= TIE:
        return " [green](best)[/green]"
    return f" [yellow](costs {cost:.4f} against {options[0].label})[/yellow]"


def options_table(options: list[Option], top: int, measure: str = "win chance") -> Table:
    """The options of a decision, best first, with their ``measure`` and its cost."""
    t = Table(header_style="bold")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("#", "right"),
        ("option", "left"),
        (measure, "right"),
        ("cost", "right"),
    )
    for col, just in columns:
        t.add_column(col, justify=just)
    for n, o in enumerate(options if top <= 0 else options[:top], start=1):
        style = "bold green" if o.cost <= TIE else None
        t.add_row(str(n), o.label, f"{o.value:.4f}", f"{o.cost:.4f}", style=style)
    return t


def sheets_table(rules: Rules, columns: Sequence[tuple[str, Game]]) -> Table:
    """Sheets side by side, ``columns`` each a heading and a game
    (:class:`dicelab.play.game.Game`), with the upper totals, bonuses and scores."""
    t = Table(header_style="bold")
    t.add_column("box")
    for heading, _ in columns:
        t.add_column(heading, justify="right")
    games = [g for _, g in columns]
    for c in rules.categories:
        t.add_row(c.label, *(str(g.filled.get(c.id, "")) for g in games))
    if rules.bonus_threshold > 0:
        ups = [
            sum(g.filled.get(c.id, 0) for c in rules.categories if c.counts_for_bonus)
            for g in games
        ]
        t.add_row(f"upper total (bonus at {rules.bonus_threshold})", *map(str, ups))
    if rules.extra_bonus:
        t.add_row("extra bonuses", *(str(g.extra_bonuses * rules.extra_bonus) for g in games))
    t.add_row("[bold]score[/bold]", *(f"[bold]{g.score}[/bold]" for g in games))
    return t


def show_decisions(
    decisions, console: Console, what: str = "win chance", mistakes_only: bool = True
) -> None:
    """Reviewed decisions (:class:`dicelab.play.duel.DuelDecision`): how many cost
    ``what`` and how much, then the mistakes (or every decision)."""
    total = sum(d.cost for d in decisions)
    mistakes = [d for d in decisions if d.mistake]
    console.print(
        f"review: {len(decisions)} decisions, {len(mistakes)} cost {what}, {total:.4f} in all"
    )
    shown = mistakes if mistakes_only else decisions
    if not shown:
        return
    t = Table(header_style="bold")
    for col in ("turn", "dice", "rerolls", "chosen", "best", "cost"):
        t.add_column(col, justify="right" if col in ("turn", "rerolls", "cost") else "left")
    for d in shown:
        t.add_row(str(d.turn), " ".join(map(str, d.dice)), str(d.rerolls_left), d.chosen.label,
                  d.best.label, f"{d.cost:.4f}")  # fmt: skip
    console.print(t)
