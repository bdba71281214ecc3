"""``dicelab play``: play along in the terminal, with advice at every step.

Each step shows the dice and (unless hidden) the ranked options, reads the
player's choice from standard input, and writes the game record after every move,
so an interrupted game can be resumed or reviewed. Reading plain lines keeps the
loop usable from a script: ``printf '\\n\\n...' | dicelab play yahtzee --seed 1``.

What the player types:

* the letter of an option shown (``a`` is the best): that option;
* before a reroll: the dice to keep (``6 6`` or ``66``), ``all`` to stop rolling,
  ``none`` to reroll everything, or a box by its name or id to score now (asked to
  confirm: rerolls are left);
* after the last throw: a box by its name or id (not by a number: numbers are dice);
* an empty line takes the best option; ``u`` takes back the last decision (virtual
  dice then fall as they did); ``q`` saves and quits.

Every turn opens with the scorecard: each box with its points, ``-`` while open.
"""

from __future__ import annotations

import os
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
    "type an option's letter (a is the best), the dice to keep (e.g. 6 6), 'all' to stop "
    "rolling, 'none' to reroll all, a box's name to score it, Enter for the best option, "
    "u to take back the last decision, q to save and quit"
)


class _Quit(Exception):
    """The player asked to stop, or the input ended."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def default_record_path(stem: str = "dicelab-game") -> Path:
    """A new file in the current folder named with the date and time, claimed at once
    (created empty): two games started in the same second get two names."""
    base = time.strftime(f"{stem}-%Y%m%d-%H%M%S")
    for n in range(1, 1000):
        path = Path(f"{base}.json" if n == 1 else f"{base}-{n}.json")
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        except FileExistsError:
            continue
        return path
    raise UserError(f"no free record name like {base}.json in this folder; give --record")


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
            console.print(compact_scorecard(game), style="dim")
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
        dice = game.dice
        assert dice is not None  # just thrown
        console.print(f"throw {throw}: [bold]{' '.join(map(str, dice))}[/bold]")
        return
    advice = game.advice()
    if show:
        show_advice(advice, rules, console, top=top, letters=True)
    while True:
        prompt = "keep? " if game.phase == "keep" else "box? "
        text = _ask(read, prompt)
        if text.lower() in ("u", "undo"):
            console.print(game.undo())
            return
        try:
            text = _option_named(text, advice, top if show else 0)
            if _scores_early(game, advice, text) and not _confirm(read, game, text):
                continue
            _apply(game, advice, text, console, (show, split))
            return
        except UserError as exc:
            console.print(f"[red]{escape(str(exc))}[/red]")
            if text == "?":
                console.print(HELP, style="dim")


def _option_named(text: str, advice: Advice, shown: int) -> str:
    """What a letter of an option shown stands for (its dice, or its box), else the text."""
    from dicelab.cli.advice import LETTERS

    word = text.strip().lower()
    if len(word) != 1 or word not in LETTERS or shown <= 0:  # hidden advice: no letters
        return text
    i = LETTERS.index(word)
    if i >= min(shown, len(advice.options)):
        raise UserError(f"{word}: no option has that letter (options a to "
                        f"{LETTERS[min(shown, len(advice.options)) - 1]} are shown)")  # fmt: skip
    o = advice.options[i]
    if o.kind == "box":
        return str(o.box)
    assert o.keep is not None  # a keep option holds its dice
    return "all" if o.stops else (" ".join(map(str, o.keep)) or "none")


def _scores_early(game: Game, advice: Advice, text: str) -> bool:
    """Whether the text names a box while rerolls are left (not dice, not a word, not
    a served first throw scored now, which is among the options already)."""
    word = text.strip().lower()
    if game.phase != "keep" or game.served_now or word in ("", "all", "none", "nothing", "-"):
        return False
    if all(ch.isdigit() or ch in ", " for ch in word) or word == "?":
        return False
    try:
        find_box_option(advise(game.table, replace(game.position(), rerolls=0)), text,
                        game.rules)  # fmt: skip
    except UserError:
        return False  # not a box: _apply says what is wrong with it
    return True


def _confirm(read, game: Game, text: str) -> bool:
    """Ask before a box is scored with rerolls left."""
    left = game.rerolls_left
    answer = _ask(read, f"score {text!r} now, with {left} reroll{'s' if left != 1 else ''} "
                        "left? (y/n) ")  # fmt: skip
    return answer.lower() in ("y", "yes")


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
        if best.kind == "box":
            assert best.box is not None  # a box option names its box
            text = best.box
        else:
            assert best.keep is not None  # a keep option holds its dice
            text = " ".join(map(str, best.keep)) or "none"
    if game.phase == "keep":
        if text.lower().startswith("keep "):  # an option's label typed as shown
            text = text[5:].strip()
        word = text.lower()
        keep = None
        if word == "all":
            assert game.dice is not None  # the keep phase: dice thrown
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
    if text.strip().isdigit():
        raise UserError(f"{text.strip()}: a box is named, not numbered (numbers are dice): "
                        "type its name, or an option's letter")  # fmt: skip
    option = find_box_option(final, text, rules)
    assert option.box is not None  # a box option names its box
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


def compact_scorecard(game: Game) -> str:
    """The scorecard in a line or two: every box with its points (``-`` while open),
    the upper total against the bonus threshold, the score."""
    rules = game.rules
    filled = game.filled
    parts = [f"{c.label} {filled.get(c.id, '-')}" for c in rules.categories]
    upper = sum(filled.get(c.id, 0) for c in rules.categories if c.counts_for_bonus)
    tail = f"upper {upper}/{rules.bonus_threshold}, " if rules.bonus_threshold > 0 else ""
    return " · ".join(parts) + f" ({tail}score {game.score})"


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
