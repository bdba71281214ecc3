"""``dicelab match play`` and ``match review``: a game at a table against computer
players who play to win, and its review.

Every sheet is shown at the start of each turn; before each of your decisions the
options are ranked by your chance to finish first (unless hidden). The advice of a
turn is worked out when it begins, for you and the computers alike (seconds on the
first turns of the larger games). The game is saved after every move and reviewed
at the end: each of your decisions priced in chance to finish first. What you type:
see :mod:`dicelab.cli.seats`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dicelab.cli.advice import load_table
from dicelab.cli.output import Console, progress_bar
from dicelab.cli.seats import SeatsInTerminal, recorded_rules, resuming, show_review, terminal_io
from dicelab.engine.advice.single import Option
from dicelab.play.match import MatchGame, load_match_record, review_match
from dicelab.rules import load_rules


class MatchInTerminal(SeatsInTerminal):
    """A game at a table in the terminal: seats 1 to 4, each turn's advice worked out
    when it begins, the mover's chance to finish first said after every move."""

    game: MatchGame
    measure = "chance to finish first"
    kind = "match"

    def who(self, seat: int) -> str:
        return "you" if seat == self.game.record["human"] else f"computer {seat}"

    def options(self) -> list[Option]:
        with progress_bar(f"working out seat {self.game.mover}'s turn", enabled=True) as tick:
            return self.game.options(progress=tick)

    def said(self, choice: Option, human: bool) -> str:
        whose = "your" if human else "its"  # the mover's own chance, said as whose
        return f"{whose} chance to finish first {choice.value:.4f}"

    def outcome(self) -> tuple[str, int]:
        seat = self.game.record["human"]
        scores = self.game.standings()
        best = max(scores)
        first = [k + 1 for k, s in enumerate(scores) if s == best]
        mine = scores[seat - 1]
        verdict = ("you finish first" if first == [seat] else "you share first place"
                   if seat in first else f"seat {first[0]} finishes first")  # fmt: skip
        return f"{', '.join(map(str, scores))}; {verdict} ({mine})", mine

    def review(self) -> list:
        with progress_bar("reviewing your decisions", enabled=True) as _:
            return review_match(self.game.expected, self.game.record)


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

    console, read = terminal_io(console, read, record, resume)
    r = load_rules(rules)
    expected = load_table(r)
    if resume is not None:
        game = MatchGame.resume(expected, load_match_record(resume))
        resuming(game, resume, "game", "match", console)
        opponents, seat, path = game.record["players"] - 1, game.record["human"], record or resume
    else:
        game = MatchGame(expected, opponents + 1, seed, seat, rules_source=rules, method=method)
        path = record or default_record_path("dicelab-match")
    opening = (
        f"[bold]{r.name}, {opponents + 1} players[/bold]: you play seat {seat}, the computers "
        "play to win"
    )
    return MatchInTerminal(game, console, read, show, top).play(path, rules, opening)


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
    rules = recorded_rules(record, f"{Path(file).name}: the record names no rules")
    expected = load_table(rules, quiet=as_json)
    with progress_bar("reviewing the decisions", enabled=not as_json) as _:
        decisions = review_match(expected, record, seat)
    seat = seat or record.get("human")
    show_review(console, expected.rules, seat, decisions, as_json, MatchInTerminal.measure, False)
    return decisions
