"""``dicelab duel play`` and ``duel review``: a game against the computer, and its review.

Both sheets are shown at every turn; before each of your decisions the options are
ranked by your chance to win (unless hidden), and after every decision, yours or
the computer's, your win chance is shown. The computer plays to win. The game is
saved after every move and reviewed at the end: each of your decisions priced in
win chance. What you type: see :mod:`dicelab.cli.seats`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dicelab.cli.advice import load_table
from dicelab.cli.duel import load_duel
from dicelab.cli.output import Console
from dicelab.cli.seats import SeatsInTerminal, recorded_rules, resuming, show_review, terminal_io
from dicelab.engine.advice.single import Option
from dicelab.errors import UserError
from dicelab.play.duel import DuelGame, load_duel_record, review_duel, seat_label
from dicelab.rules import load_rules


class DuelInTerminal(SeatsInTerminal):
    """A duel in the terminal: seats A and B, your win chance said after every move."""

    game: DuelGame
    measure = "win chance"
    kind = "duel"

    def said(self, choice: Option, human: bool) -> str:
        chance = choice.value if human else 1.0 - choice.value
        return f"your win chance {chance:.4f}"

    def outcome(self) -> tuple[str, int]:
        seat = self.game.record["human"]
        mine = self.game.games[seat].score
        theirs = self.game.games["B" if seat == "A" else "A"].score
        verdict = "you win" if mine > theirs else ("a tie" if mine == theirs else "you lose")
        return f"{mine} to {theirs}, {verdict}", mine

    def review(self) -> list:
        return review_duel(self.game.table, self.game.expected, self.game.record)


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

    seat = seat.upper()
    if seat not in ("A", "B"):
        raise UserError(f"seat: got {seat!r}, expected A (move first) or B (move second)")
    console, read = terminal_io(console, read, record, resume)
    r = load_rules(rules)
    table = load_duel(r, mapped=True)
    if resume is not None:
        game = DuelGame.resume(table, load_table(r), load_duel_record(resume))
        resuming(game, resume, "duel", "duel", console)
        seat, path = game.record["human"], record or resume
    else:
        game = DuelGame(table, load_table(r), seed=seed, human=seat, rules_source=rules)
        path = record or default_record_path("dicelab-duel")
    opening = (
        f"[bold]{r.name} duel[/bold]: you are the {seat_label(seat)}, the computer plays to win"
    )
    return DuelInTerminal(game, console, read, show, top).play(path, rules, opening)


def run_duel_review(
    file: str, *, as_json: bool = False, all_decisions: bool = False, console: Console | None = None
) -> list:
    """Run ``dicelab duel review FILE``."""
    console = console or Console()
    record = load_duel_record(file)
    r = recorded_rules(record, "duel record: no rules named")
    decisions = review_duel(
        load_duel(r, quiet=as_json, mapped=True), load_table(r, quiet=as_json), record
    )
    show_review(
        console, r, record["human"], decisions, as_json, DuelInTerminal.measure, not all_decisions
    )
    return decisions
