"""The dice games' options on the rule sets' commands: ``solve``, ``advise`` and ``play``
take a game's name where they take rules (``dicelab solve pig --set goal=50``).

:func:`for_dice_games` adds a game's own options (``--set``, ``--at``, ``--strategy``
...) to a command without adding them to its function, and sends the command to
the game's runner when its first argument names a dice game; given with rules, one
of those options is one clear error line.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import typer

from dicelab.errors import NotFound, UserError

#: The "format" of a dice game's record (``dicelab review`` tells it from a Yahtzee game's).
RECORD_FORMAT = "dicelab-dice-game"

#: A game option: its annotation and its Typer option (whose default means "not given").
GameOption = tuple[Any, Any]

SETTINGS: GameOption = (
    list[str],
    typer.Option(
        [], "--set", help="A dice game's setting NAME=VALUE, e.g. --set goal=50 (repeatable)."
    ),
)


def text_option(flag: str, help: str) -> GameOption:
    """An optional text option of the dice games."""
    return (str | None, typer.Option(None, flag, help=help))


def for_dice_games(options: dict[str, GameOption], run_game: Callable[[dict, dict], Any]):
    """Give ``command`` the dice games' ``options`` and, when its ``rules`` argument
    names a game, run ``run_game(command's arguments, game options)`` instead."""

    def wrap(command: Callable) -> Callable:
        signature = inspect.signature(command)
        shown = list(signature.parameters.values()) + [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=opt, annotation=ann)
            for name, (ann, opt) in options.items()
        ]

        @functools.wraps(command)
        def run(*args, **kwargs):
            from dicelab.games.chance.families import is_game

            extra = {name: kwargs.pop(name) for name in options}
            if is_game(kwargs["rules"]):
                return run_game(kwargs, extra)
            given = [opt.param_decls[0] for name, (_, opt) in options.items()
                     if extra[name] != opt.default]  # fmt: skip
            close = _close_game(kwargs["rules"])
            if given and close:  # a dice game's name mistyped
                raise NotFound(f"unknown dice game {kwargs['rules']!r} (did you mean "
                               f"{close!r}?)")  # fmt: skip
            if given:
                raise UserError(f"{', '.join(given)}: for a dice game (pig, shut-the-box, "
                                "bearoff, farkle), not a rule set")  # fmt: skip
            try:
                return command(*args, **kwargs)
            except NotFound as exc:  # a dice game's name mistyped: say it too
                raise NotFound(f"{exc}{near_game(kwargs['rules'])}") from None

        run.__signature__ = signature.replace(parameters=shown)  # type: ignore[attr-defined]
        run.__annotations__ = {**command.__annotations__,
                               **{name: ann for name, (ann, _) in options.items()}}  # fmt: skip
        return run

    return wrap


def _close_game(name: object) -> str | None:
    """The dice game (a family or a preset) whose name ``name`` is close to, if any."""
    import difflib

    from dicelab.games.chance.families import FAMILIES, preset_names

    names = [*FAMILIES, *preset_names()]
    close = difflib.get_close_matches(str(name).lower(), names, n=1, cutoff=0.6)
    return close[0] if close else None


def near_game(name: object) -> str:
    """``"; or the dice game 'pig'?"`` where ``name`` is close to a dice game's name."""
    close = _close_game(name)
    return f"; or the dice game {close!r}?" if close else ""


def not_for_games(command: str, name: object) -> None:
    """One line where a command of the Yahtzee family is given a dice game."""
    from dicelab.games.chance.families import is_game

    if isinstance(name, str) and is_game(name):
        raise UserError(f"{command}: {name!r} is a dice game; {command} is for rule sets of "
                        f"the Yahtzee family (dicelab solve {name} for the game)")  # fmt: skip


def is_game_record(path: str) -> bool:
    """Whether ``path`` holds a dice game's record (any trouble reading it: no)."""
    from dicelab.play.game import load_record

    try:
        load_record(path, RECORD_FORMAT, "dice game")
    except (UserError, OSError):
        return False
    return True
