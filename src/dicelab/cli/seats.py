"""Games of several players in the terminal (a duel, a game at a table): the sheets
side by side, the options ranked by a chance to win, the decisions reviewed.

What you type: the dice to keep (``6 6`` or ``66``), ``all`` to stop rolling,
``none`` to reroll everything, a box to score now; an empty line takes the best
option, ``q`` stops (the game so far is saved).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.table import Table

from dicelab.cli.output import Console, columns_table, justify_right
from dicelab.engine.advice.single import TIE, Option
from dicelab.errors import UserError
from dicelab.rules import Rules, load_rules

if TYPE_CHECKING:
    from rich.console import JustifyMethod

    from dicelab.play.duel import SeatedGame
    from dicelab.play.game import Game

Read = Callable[[str], str]

HELP = (
    "type an option's letter (a is the best), the dice to keep by their faces (e.g. 6 6), "
    "'all' to stop rolling, 'none' to reroll all, a box's name to score it, Enter for the "
    "best option, u to take back your last decision (and the turns played since), q to stop"
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


class Undone(Exception):
    """The person took back a decision (what was taken back, said)."""


def ask_choice(game, g, options: list[Option], read, console: Console, show: bool,
               shown: int = 0):  # fmt: skip
    """Ask the person playing game ``g`` of ``game`` for a choice among ``options``
    until one is understood (an empty line: the best, where advice is shown; a letter:
    that option of the ``shown`` first, all where 0); returns it with the options it
    was chosen among (a box before the last throw: among the boxes, the rolling
    stopped). A digit is always a die's face, never an option or a row."""
    from rich.markup import escape

    from dicelab.cli.play import _ask
    from dicelab.errors import UserError

    while True:
        text = _ask(read, "keep? " if g.phase == "keep" else "box? ")
        if text.lower() in ("u", "undo"):
            try:
                what = game.undo()
            except UserError as exc:  # nothing to take back yet
                console.print(f"[red]{escape(str(exc))}[/red]")
                continue
            raise Undone(what)  # the step is asked again, from the decision before
        try:
            if text == "" and not show:
                raise UserError("advice is hidden: type the dice to keep, 'all' or a box")
            lettered = _lettered(text, options, shown) if show else None
            choice = options[0] if text == "" else lettered or game.find(text, options)
            break
        except UserError as exc:
            console.print(f"[red]{escape(str(exc))}[/red]")
            console.print(HELP, style="dim")
    if choice.kind == "box" and g.phase == "keep":  # scored before the last throw
        options = game.options(rerolls=0)
    return choice, options


def _lettered(text: str, options: list[Option], shown: int) -> Option | None:
    """The option whose letter was typed (``a`` the best), or ``None`` for other text."""
    from dicelab.cli.advice import LETTERS

    word = text.strip().lower()
    if len(word) != 1 or word not in LETTERS:
        return None
    count = len(options) if shown <= 0 else min(shown, len(options))
    i = LETTERS.index(word)
    if i >= count:
        from dicelab.errors import UserError

        raise UserError(f"{word}: no option has that letter (options a to "
                        f"{LETTERS[count - 1]} are shown)")  # fmt: skip
    return options[i]


def choice_note(options: list[Option], choice: Option) -> str:
    """What a choice of the person playing cost against the best option, as a note."""
    cost = options[0].value - choice.value
    if cost <= TIE:
        return " [green](best)[/green]"
    return f" [yellow](costs {cost:.4f} against {options[0].label})[/yellow]"


def options_table(
    options: list[Option], top: int, measure: str = "win chance", digits: int = 4,
    picked: bool = True,
) -> Table:  # fmt: skip
    """The first ``top`` options of a decision (0: all), best first, with their
    ``measure`` and its cost to ``digits`` places, the best ones in green; by the
    letter that picks each at a prompt (``picked``), else numbered as ``advise``
    numbers them."""
    from dicelab.cli.advice import LETTERS

    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("" if picked else "#", "right"),
        ("option", "left"),
        (measure, "right"),
        ("cost", "right"),
    )
    t = columns_table(columns)
    for n, o in enumerate(options if top <= 0 else options[:top]):
        style = "bold green" if o.cost <= TIE else None
        letter = str(n + 1) if not picked else LETTERS[n] if n < len(LETTERS) else ""
        t.add_row(letter, o.label, f"{o.value:.{digits}f}", f"{o.cost:.{digits}f}", style=style)
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
    headings = ("turn", "dice", "rerolls", "chosen", "best", "cost")
    t = columns_table(justify_right(headings, ("turn", "rerolls", "cost")))
    for d in shown:
        t.add_row(str(d.turn), " ".join(map(str, d.dice)), str(d.rerolls_left), d.chosen.label,
                  d.best.label, f"{d.cost:.4f}")  # fmt: skip
    console.print(t)


def terminal_io(
    console: Console | None, read: Read | None, record: Path | None, resume: Path | None
) -> tuple[Console, Read]:
    """The console and the reader of a game about to be played in the terminal (the
    terminal's own by default), once ``record`` is known to overwrite no other game
    (naming the game ``resume`` goes on with is allowed)."""
    console = console or Console()
    if record is not None and record.exists() and record != resume:
        raise UserError(f"{record} already exists; name a new file with --record")
    return console, read or (lambda prompt: console.input(prompt))


def resuming(game: SeatedGame, resume: Path, noun: str, kind: str, console: Console) -> None:
    """Say that the game (the ``noun`` of ``dicelab kind play``) saved in ``resume``
    goes on; one finished already is refused: its review is what is left of it."""
    if game.over:
        raise UserError(f"the {noun} in {resume} is finished; see it with "
                        f"dicelab {kind} review {resume}")  # fmt: skip
    console.print(f"resuming {resume}")


def recorded_rules(record: dict, missing: str) -> Rules:
    """The rules a record of a game names (as they were named when it began, else by
    their name); a record that names none is the :class:`UserError` ``missing``."""
    source = record.get("rules_source") or record.get("rules")
    if not isinstance(source, str):
        raise UserError(missing)
    return load_rules(source)


def show_review(
    console: Console,
    rules: Rules,
    seat: Any,
    decisions: list,
    as_json: bool,
    what: str,
    mistakes_only: bool,
) -> None:
    """A review of one seat's decisions, as a JSON object or as the table of
    :func:`show_decisions` (priced in ``what``)."""
    if not as_json:
        show_decisions(decisions, console, what, mistakes_only)
        return
    out = {
        "rules": rules.name,
        "seat": seat,
        "total_cost": sum(d.cost for d in decisions),
        "decisions": [d.to_dict() for d in decisions],
    }
    console.print_json(json.dumps(out))


class SeatsInTerminal:
    """A game of several players (:class:`dicelab.play.duel.SeatedGame`) played in the
    terminal by one person against the computer, to its end and its review: what a duel
    and a game at a table show alike (each turn's heading and sheets, the throws, the
    options ranked by ``measure``, every decision with the chance it leaves). A
    subclass names the seats and says what a decision leaves."""

    #: what the options are ranked by and the decisions priced in
    measure = "win chance"
    #: the command's word (``dicelab duel play``), the history's kind of game
    kind = "duel"

    def __init__(self, game: SeatedGame, console: Console, read: Read, show: bool, top: int):
        self.game = game
        self.console = console
        self.read = read
        self.show = show
        self.top = top

    def who(self, seat: Any) -> str:
        return "you" if seat == self.game.record["human"] else "computer"

    def options(self) -> list[Option]:
        """The options of the decision at hand, best first."""
        return self.game.options()

    def said(self, choice: Option, human: bool) -> str:
        """The chance a decision leaves, as said after it."""
        raise NotImplementedError

    def outcome(self) -> tuple[str, int]:
        """The verdict of the finished game and the person's score."""
        raise NotImplementedError

    def review(self) -> list:
        """The person's decisions in the finished game, priced in ``measure``."""
        raise NotImplementedError

    def sheets(self) -> Table:
        """Every sheet side by side, with the scores so far."""
        human = self.game.record["human"]
        columns = [
            (f"{seat} ({'you' if seat == human else 'computer'})", self.game.game_of(seat))
            for seat in self.game.seats
        ]
        return sheets_table(self.game.rules, columns)

    def step(self) -> None:
        """One move of the mover: a throw, or a decision (asked of the person, taken
        as advised for the computer)."""
        game, console = self.game, self.console
        seat = game.mover
        assert seat is not None  # a step of a game still on
        g = game.game_of(seat)
        human = seat == game.record["human"]
        who = self.who(seat)
        if g.phase == "roll":
            if g._turn is None:
                console.print(f"\n[bold]turn {len(g.filled) + 1}: {who} "
                              f"({game.seat_name(seat)})[/bold]")  # fmt: skip
                console.print(self.sheets())
            dice = g.roll()
            console.print(f"{who} threw [bold]{' '.join(map(str, dice))}[/bold]")
            return
        options = self.options()
        if not human:
            choice = options[0]
        else:
            if self.show:
                console.print(options_table(options, self.top, self.measure))
            try:
                choice, options = ask_choice(game, g, options, self.read, console, self.show,
                                             shown=self.top)  # fmt: skip
            except Undone as back:
                console.print(f"[yellow]{back}[/yellow]")
                return
        game.apply(choice)
        note = choice_note(options, choice) if human else ""
        console.print(f"{who}: {choice.label}; {self.said(choice, human)}{note}")

    def play(self, path: Path, rules: str, opening: str) -> int:
        """Play the game to its end, saved in ``path`` after every move, and review it
        (kept in the history); returns the exit code. ``opening`` is the first line
        said, before the seed; ``rules`` as named on the command line."""
        from dicelab.cli.history import keep_game
        from dicelab.play.duel import DuelResult
        from dicelab.play.game import save_record

        game, console = self.game, self.console
        save_record(game.record, path)
        console.print(f"{opening} (seed {game.record['seed']}); the game is saved in {path}")
        again = f"dicelab {self.kind} play {rules} --resume {path}"
        stopped = play_out(game, path, console, self.step, again)
        if stopped is not None:
            return stopped
        verdict, score = self.outcome()
        console.print(f"[bold]game over: {verdict}[/bold]")
        console.print(self.sheets())
        decisions = self.review()
        show_decisions(decisions, console, self.measure)
        keep_game(game.record, DuelResult(score, decisions), console, kind=self.kind)
        console.print(f"the game record is in {path} (dicelab {self.kind} review {path})")
        return 0
