"""``dicelab play GAME`` for the dice games of the chance model: against the computer,
who plays its best, with every move ranked before you choose (unless hidden).

The dice are drawn (``--seed``) or typed in (``--dice real``: the throw's label,
such as ``4`` in Pig, ``7`` in Shut the Box, ``6-3`` in the bear-off). What you
type at a decision: the move's number or its name; an empty line takes the best
move, ``q`` stops. The game is saved as JSON after every step (``--record``) and
reviewed at the end: each of your decisions priced against the best.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.table import Table

from dicelab.cli.game_options import RECORD_FORMAT
from dicelab.cli.output import Console
from dicelab.errors import TooLarge, UserError
from dicelab.games.chance.families import game_from
from dicelab.games.chance.model import CHANCE, ChanceGame
from dicelab.games.chance.solution import ChanceSolution, Move, solve


def run_game_play(
    name: str,
    settings: list[str],
    *,
    seed: int | None = None,
    seat: int = 1,
    dice: str = "virtual",
    record: Path | None = None,
    show: bool = True,
    top: int = 8,
    console: Console | None = None,
    read: Callable[[str], str] | None = None,
    named: bool = False,
) -> int:
    """Play a dice game in the terminal; returns the exit code. ``named``: without a
    ``record``, save the game in a new file named with the date and time (once the
    settings are checked)."""
    console = console or Console()
    read = read or (lambda prompt: console.input(prompt))
    game = game_from(name, settings)
    if game.players == 1 and seat != 1:
        raise UserError(f"--seat: {game.name} is played alone, no seat to choose")
    if seat not in range(1, game.players + 1):
        raise UserError(f"--seat: got {seat}, expected 1 to {game.players}")
    if dice not in ("virtual", "real"):
        raise UserError(f"--dice: got {dice!r}, expected virtual or real")
    if record is not None and record.exists() and record.stat().st_size > 0:
        raise UserError(f"{record} already exists; name a new file with --record")
    with console.status(f"solving {game.name}", spinner="dots"):
        solution = _solution(game, name, settings)
    if record is None and named:  # claimed once the game can start: none left behind
        from dicelab.cli.play import default_record_path

        record = default_record_path("dicelab-dice-game")
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    rng = random.Random(seed)
    log: dict[str, Any] = {"format": RECORD_FORMAT, "version": 1, "game": name}
    log.update(settings=settings, seed=seed, seat=seat, steps=[])
    who = "you" if game.players == 1 else f"you are player {seat}"
    start = _seen(solution, None, seat)
    measure = {1: game.measure or "the value with best play",
               2: "your chance to win, both playing their best"}.get(
        game.players, "your chance to finish first, every player playing their best")  # fmt: skip
    console.print(f"[bold]{game.name}[/bold]: {who}; {measure} from the start: {start:.4f} "
                  f"(seed {seed})")  # fmt: skip
    if record is not None:
        console.print(f"the game is saved in {record}")
    try:
        return _play_out(game, solution, (rng, dice, read, show, top, seat), log, record,
                         console)  # fmt: skip
    except EOFError:  # the input ended: the game so far kept, as a stop would
        _save(log, record)
        kept = f"; the game so far is in {record} (dicelab review {record})" if record else ""
        console.print("input ended" + kept)
        return 1


def _play_out(game, solution: ChanceSolution, how: tuple, log: dict, record: Path | None,
              console: Console) -> int:  # fmt: skip
    """The game from its start to its end (or a stop): the human's seat asked, the
    computer's played best; every step logged and saved."""
    rng, dice, read, show, top, seat = how
    here = game.start()
    decisions: list[dict] = []
    while game.result(here) is None:
        mover = game.to_move(here)
        if game.turn_starts(here):
            console.print(f"\n[bold]{game.show(here)}[/bold]")
        if mover == CHANCE:
            here = _throw(game, here, rng, dice, read, console, log)
            if here is None:
                return _stopped(log, record, console)
            continue
        moves = solution.advise(here)
        if mover + 1 == seat or game.players == 1:
            if show:
                console.print(game.show(here))
                console.print(_moves_table(moves, top))
            picked = _ask(moves, read, console)
            if picked is None:
                return _stopped(log, record, console)
            decisions.append({"position": game.show(here), "move": picked.label,
                              "best": moves[0].label, "cost": picked.cost})  # fmt: skip
            console.print(f"you: {picked.label}" + (f" (costs {picked.cost:.4f})"
                                                     if picked.cost > 1e-12 else ""))  # fmt: skip
        else:
            picked = moves[0]
            who = "computer" if game.players == 2 else f"player {mover + 1} (computer)"
            console.print(f"{who}: {picked.label}")
        log["steps"].append({"move": picked.label})
        here = picked.position
        _save(log, record)
    return _finish(game, solution, here, seat, decisions, log, record, console)


def _stopped(log: dict, record: Path | None, console: Console) -> int:
    _save(log, record)
    console.print("stopped" + (f"; the game so far is in {record}" if record else ""))
    return 0


def _seen(solution: ChanceSolution, position, seat: int) -> float:
    """The value of ``position`` (the start: ``None``) as the human's seat sees it."""
    chances = getattr(solution, "chances", None)
    if chances is not None:  # a table of players: the seat's own chance
        return float(chances(position)[seat - 1])
    return solution.seat_view(solution.value(position), seat - 1)


def _solution(game, name: str, settings: list[str]) -> ChanceSolution:
    """The game solved (or read from the cache); a size refused in one line, without
    the way out of ``solve`` (``--allow-large``), which play and review do not take; a
    table of players long to make is made first by ``solve``, as the line says."""
    if game.players > 2:
        from dicelab.cli.chance import table_wait

        why = table_wait(game, name, settings)
        if why:
            raise UserError(f"{why}, before it is played")
    try:
        return solve(game, cache=True)
    except TooLarge as exc:
        raise UserError(exc.summary) from None


def _as_labelled(typed: str, labels: list[str]) -> str:
    """A typed throw as the game labels it: ``6-3`` for ``3-6``, the dice of ``5 1 1``
    in any order or with commas for ``1 1 5``."""
    if typed in labels:
        return typed
    if "-" in typed:
        return "-".join(reversed(typed.split("-")))
    dice = sorted(typed.replace(",", " ").split(), key=lambda d: (len(d), d))
    return " ".join(dice)


def _throw(game, here, rng, dice, read, console, log):
    """The dice decide: drawn, or typed in."""
    outcomes = game.outcomes(here)
    if dice == "real":
        labels = [label for _, label, _ in outcomes]
        shown = list(dict.fromkeys(labels))
        listed = ", ".join(shown) if len(shown) <= 40 else f"e.g. {shown[0]}, {shown[-1]}"
        while True:
            typed = read(f"the throw ({listed}; q: stop): ").strip()
            if typed.lower() in ("q", "quit"):
                return None
            typed = _as_labelled(typed, labels)
            if typed in labels:
                after = outcomes[labels.index(typed)][2]
                break
            console.print(f"not a throw here: {typed!r}")
    else:
        picked = rng.choices(outcomes, [float(p) for p, _, _ in outcomes])[0]
        typed, after = picked[1], picked[2]
    console.print(f"the dice: [bold]{typed}[/bold]")
    log["steps"].append({"throw": typed})
    return after


def _moves_table(moves: list[Move], top: int) -> Table:
    from dicelab.cli.advice import LETTERS

    table = Table(show_edge=False)
    for column, justify in (("", "right"), ("move", "left"), ("value", "right"),
                            ("cost", "right")):  # fmt: skip
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    seats = len(moves[0].chances or ()) if moves else 0
    for k in range(1, seats + 1):
        table.add_column(f"p{k}", justify="right")
    for k, m in enumerate(moves[: top or None]):
        cost = "" if m.cost <= 1e-12 else f"{m.cost:.4f}"
        each = [f"{c:.3f}" for c in m.chances or ()]
        table.add_row(LETTERS[k] if k < len(LETTERS) else "", m.label, f"{m.value:.4f}", cost,
                      *each)  # fmt: skip
    return table


def _ask(moves: list[Move], read: Callable[[str], str], console: Console) -> Move | None:
    """The move the player names: its letter (``a`` the best), its words in any case,
    or its words without the verb (``3 5`` for ``shut 3 5``); the best on an empty
    line. A number is never a move's place in the list, as at every prompt."""
    from dicelab.cli.advice import LETTERS

    while True:
        typed = read("your move (its letter, a the best, or its words; empty: the best; "
                     "q: stop): ").strip()  # fmt: skip
        word = " ".join(typed.lower().split())
        if word in ("q", "quit"):
            return None
        if not word:
            return moves[0]
        if len(word) == 1 and word in LETTERS[: len(moves)]:
            return moves[LETTERS.index(word)]
        named = [m for m in moves if m.label.lower() == word]
        named = named or [m for m in moves if m.label.lower().partition(" ")[2] == word]
        if named:
            return named[0]
        console.print(f"not a move here: {typed!r}; type its letter (a to "
                      f"{LETTERS[min(len(moves), len(LETTERS)) - 1]}) or its words")  # fmt: skip


def _save(log: dict, record: Path | None) -> None:
    """The game so far, written whole to a temporary file, then moved into place."""
    if record is None:
        return
    part = record.with_name(record.name + ".part")
    part.write_text(json.dumps(log, indent=1), encoding="utf-8")
    part.replace(record)


def _finish(game: ChanceGame, solution: ChanceSolution, here, seat: int, decisions: list,
            log: dict, record: Path | None, console: Console) -> int:  # fmt: skip
    """The end: the result, and each of the player's decisions priced."""
    result = game.result(here)
    if game.players == 2:
        won = (result == 1.0) == (seat == 1)
        verdict = "a draw" if result == 0.5 else ("you win" if won else "you lose")
    elif game.players > 2:
        first = game.winner(here)  # type: ignore[attr-defined]  # a table of players
        verdict = "you win" if first == seat - 1 else f"player {first + 1} wins"
    else:
        verdict = game.verdict(here)
    console.print(f"\n[bold]game over: {verdict}[/bold]")
    lost = sum(d["cost"] for d in decisions)
    mistakes = [d for d in decisions if d["cost"] > 1e-12]
    console.print(f"your {len(decisions)} decisions cost {lost:.4f} in all "
                  f"({len(mistakes)} not the best)")  # fmt: skip
    if mistakes:
        table = Table(show_edge=False)
        for column in ("position", "you", "best", "cost"):
            table.add_column(column)
        for d in mistakes:
            table.add_row(d["position"], d["move"], d["best"], f"{d['cost']:.4f}")
        console.print(table)
    log["result"], log["decisions"] = result, decisions
    _save(log, record)
    if record is not None:
        console.print(f"the game record is in {record}")
    return 0


def run_game_review(path: str, *, as_json: bool = False, console: Console | None = None) -> list:
    """``dicelab review FILE`` of a dice game: each of the player's decisions priced again."""
    from dicelab.play.game import load_record

    console = console or Console()
    record = load_record(path, RECORD_FORMAT, "dice game")
    settings = record.get("settings") or []
    if not isinstance(record.get("game"), str) or not isinstance(settings, list):
        raise UserError(f"{path}: the record names no game and settings")
    game = game_from(record["game"], [str(s) for s in settings])
    seat = record.get("seat", 1)
    solution = _solution(game, record["game"], [str(s) for s in settings])
    decisions = _replay(game, solution, record.get("steps") or [], seat)
    lost = sum(d["cost"] for d in decisions)
    if as_json:
        console.print_json(json.dumps({"game": game.name, "seat": seat, "total_cost": lost,
                                       "decisions": decisions}))  # fmt: skip
        return decisions
    console.print(f"[bold]{game.name}[/bold]: {len(decisions)} decisions of player {seat}, "
                  f"costing {lost:.4f} in all")  # fmt: skip
    table = Table(show_edge=False)
    for column in ("position", "played", "best", "cost"):
        table.add_column(column)
    for d in decisions:
        table.add_row(d["position"], d["move"], d["best"], f"{d['cost']:.4f}" if d["cost"] > 1e-12
                      else "")  # fmt: skip
    console.print(table)
    return decisions


def _replay(game: ChanceGame, solution: ChanceSolution, steps: list, seat) -> list[dict]:
    """The record's steps played again from the start, the player's decisions priced."""
    here = game.start()
    decisions = []
    for n, step in enumerate(steps, 1):
        if game.result(here) is not None:
            raise UserError(f"step {n}: the game was already over")
        mover = game.to_move(here)
        if not isinstance(step, dict) or ("throw" in step) != (mover == CHANCE):
            raise UserError(f"step {n}: expected a {'throw' if mover == CHANCE else 'move'}")
        if mover == CHANCE:
            after = {label: pos for _, label, pos in game.outcomes(here)}
            if not isinstance(step["throw"], str) or step["throw"] not in after:
                raise UserError(f"step {n}: {repr(step['throw'])[:60]} is not a throw here")
            here = after[step["throw"]]
            continue
        moves = solution.advise(here)
        picked = [m for m in moves if m.label == step.get("move")]
        if not picked:
            shown = repr(step.get("move"))[:60]
            raise UserError(f"step {n}: {shown} is not a move here")
        if mover + 1 == seat or game.players == 1:
            decisions.append({"position": game.show(here), "move": picked[0].label,
                              "best": moves[0].label, "cost": picked[0].cost})  # fmt: skip
        here = picked[0].position
    return decisions
