"""``dicelab play``: play along in the terminal, with advice at every step.

Each step shows the dice and (unless hidden) the ranked options, reads the
player's choice from standard input, and writes the game record after every move,
so an interrupted game can be resumed or reviewed. Reading plain lines keeps the
loop usable from a script: ``printf '\\n\\n...' | dicelab play yahtzee --seed 1``.

What the player types:

* before a reroll: the dice to keep (``6 6`` or ``66``), ``all`` to stop rolling,
  ``none`` to reroll everything, or a box (id, number or name) to score now;
* after the last throw: a box;
* an empty line takes the best option; ``q`` saves and quits.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from dicelab.cli.advice import explain_split, load_table, show_advice, show_review
from dicelab.cli.history import keep_game
from dicelab.cli.output import Console
from dicelab.dice import parse_dice
from dicelab.engine.advice.single import TIE, Advice, advise
from dicelab.errors import UserError
from dicelab.play.game import Game, find_box_option, load_record, review, save_record, why_of

HELP = (
    "type the dice to keep (e.g. 6 6), 'all' to stop rolling, 'none' to reroll all, "
    "a box to score now, Enter for the best option, q to save and quit"
)


class _Quit(Exception):
    """The player asked to stop, or the input ended."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def default_record_path() -> Path:
    """A new file in the current folder named with the date and time."""
    return Path(time.strftime("dicelab-game-%Y%m%d-%H%M%S.json"))


def run_play(
    rules: str,
    *,
    dice: str = "virtual",
    seed: int | None = None,
    record: Path | None = None,
    resume: Path | None = None,
    show: bool = True,
    top: int = 8,
    console: Console | None = None,
    read: Callable[[str], str] | None = None,
    explain: bool = False,
) -> int:
    """Play a game in the terminal; returns the exit code (0 finished or quit, 1 input ended).

    With ``explain``, each choice that costs points says why.
    """
    console = console or Console()
    read = read or (lambda prompt: console.input(prompt))
    source = _rules_source(rules)
    if record is not None and record.exists() and record != resume:
        raise UserError(
            f"{record} already exists; continue a saved game with --resume {record}, "
            "or name a new file with --record"
        )
    table = load_table(rules)
    split = explain_split(table.rules) if explain else None
    if resume is not None:
        game = Game.resume(table, load_record(resume))
        if game.phase == "over":
            raise UserError(
                f"the game in {resume} is finished ({game.score} points); "
                f"see it with dicelab review {resume}"
            )
        path = record or resume
        console.print(f"resuming {resume}: turn {len(game.filled) + 1}, score {game.score}")
        if game.dice is not None and game.phase != "over":
            console.print(f"dice showing: [bold]{' '.join(map(str, game.dice))}[/bold]")
    else:
        game = Game(table, dice=dice, seed=seed, rules_source=source)
        path = record or default_record_path()
    save_record(game.record, path)
    mode = "virtual dice" + (
        f", seed {game.record['seed']}" if game.record["seed"] is not None else ""
    )
    if game.record["dice"] == "real":
        mode = "real dice"
    console.print(f"[bold]{table.rules.name}[/bold] ({mode}); the game is saved in {path}")
    console.print(HELP, style="dim")
    try:
        while game.phase != "over":
            _step(game, console, read, (show, top, split))
            save_record(game.record, path)
    except _Quit as stop:
        save_record(game.record, path)
        console.print(
            f"{stop.reason}: the unfinished game is saved in {path} "
            f"(continue: dicelab play {source} --resume {path})"
        )
        return 0 if stop.reason == "quit" else 1
    console.print(f"[bold]game over: {game.score} points[/bold]")
    console.print(_scorecard(game))
    result = review(table, game.record, split)
    show_review(result, console, mistakes_only=True)
    keep_game(game.record, result, console)
    console.print(f"the game record is in {path} (dicelab review {path})")
    return 0


def _rules_source(rules: str) -> str:
    """The rules argument as a review can load it later (files by absolute path)."""
    p = Path(rules)
    return str(p.resolve()) if p.suffix == ".toml" and p.exists() else rules


def _ask(read: Callable[[str], str], prompt: str) -> str:
    try:
        text = read(prompt)
    except (EOFError, KeyboardInterrupt):
        raise _Quit("input ended") from None
    text = text.strip()
    if text.lower() in ("q", "quit", "exit"):
        raise _Quit("quit")
    return text


def _step(game: Game, console: Console, read, how: tuple) -> None:
    """One move: a throw, a keep or a box; ``how`` is ``(show, top, split)``: advice
    shown, options shown, the split of the expected score by box (or ``None``)."""
    show, top, split = how
    rules = game.rules
    if game.phase == "roll":
        throw = len(game._turn["throws"]) + 1 if game._turn else 1
        if throw == 1:
            console.print(
                f"\n[bold]turn {len(game.filled) + 1} of {rules.n_categories}[/bold], "
                f"score {game.score}"
            )
        if game.record["dice"] != "real":
            game.roll()
        else:
            kept = game.kept
            need = rules.dice - len(kept)
            what = f"throw {need} dice" + (f" (kept {' '.join(map(str, kept))})" if kept else "")
            while True:
                try:
                    game.roll(parse_dice([_ask(read, f"{what}, type them: ")], rules.faces))
                    break
                except UserError as exc:
                    console.print(f"[red]{escape(str(exc))}[/red]")
        console.print(f"throw {throw}: [bold]{' '.join(map(str, game.dice))}[/bold]")
        return
    advice = game.advice()
    if show:
        show_advice(advice, rules, console, top=top)
    while True:
        prompt = "keep? " if game.phase == "keep" else "box? "
        text = _ask(read, prompt)
        try:
            _apply(game, advice, text, console, (show, split))
            return
        except UserError as exc:
            console.print(f"[red]{escape(str(exc))}[/red]")
            if text == "?":
                console.print(HELP, style="dim")


def _apply(game: Game, advice: Advice, text: str, console: Console, how=(True, None)) -> None:
    """Carry out what the player typed, and say what it cost (and why, where ``how``,
    ``(show, split)``, holds the split of the expected score by box)."""
    show, split = how
    rules = game.rules
    position = game.position()
    if text == "?":
        raise UserError("help")
    if text == "" and not show:
        raise UserError("advice is hidden: type the dice to keep, 'none', 'all' or a box")
    if text == "":
        best = advice.best
        text = best.box if best.kind == "box" else " ".join(map(str, best.keep)) or "none"
    if game.phase == "keep":
        word = text.lower()
        keep = None
        if word == "all":
            keep = list(game.dice)
        elif word in ("none", "nothing", "-"):
            keep = []
        elif all(ch.isdigit() or ch in ", " for ch in text):
            keep = parse_dice([text], rules.faces)
        if keep is not None:
            chosen = next((o for o in advice.options if o.keep == tuple(sorted(keep))), None)
            game.keep(keep)
            if chosen is not None:
                console.print(chosen.label + _cost_text(chosen.cost, advice))
                _say_why(split, position, chosen, console)
            else:  # a served first throw kept whole: the box to fill says what it costs
                console.print("keep all: " + " ".join(map(str, sorted(keep))))
            return
    # a box: after the last throw, or now (the rolling stops); a served first throw
    # scored now is among the options already
    final = advice
    if game.phase == "keep" and not game.served_now:
        final = advise(game.table, replace(game.position(), rerolls=0))
    option = find_box_option(final, text, rules)
    points = game.fill(option.box)
    console.print(
        f"{option.box_name}: {points} points, score {game.score}"
        + _cost_text(advice.value - option.value, advice)
    )
    _say_why(split, position, replace(option, cost=advice.value - option.value), console)


def _say_why(split, position, chosen, console: Console) -> None:
    """Why a costly choice costs what it does (nothing for a best one, or without a split)."""
    if split is not None and chosen.cost > TIE:
        text = why_of(split, position, chosen)
        if text:
            console.print(f"[dim]{escape(text)}[/dim]")


def _cost_text(cost: float, advice) -> str:
    if cost <= TIE:
        return " [green](best)[/green]"
    return f" [yellow](costs {cost:.2f} against {advice.best.label})[/yellow]"


def _scorecard(game: Game) -> Table:
    """The filled scorecard with the bonuses."""
    rules = game.rules
    filled = game.filled
    table = Table(show_header=True, header_style="bold")
    table.add_column("box")
    table.add_column("points", justify="right")
    for c in rules.categories:
        table.add_row(c.label, str(filled.get(c.id, "")))
    upper = sum(filled.get(c.id, 0) for c in rules.categories if c.counts_for_bonus)
    if rules.bonus_threshold > 0:
        got = rules.bonus_points if upper >= rules.bonus_threshold else 0
        table.add_row(f"upper bonus ({upper}/{rules.bonus_threshold})", str(got))
    if rules.extra_bonus:
        table.add_row("extra bonuses", str(game.extra_bonuses * rules.extra_bonus))
    table.add_row("[bold]total[/bold]", f"[bold]{game.score}[/bold]")
    return table
