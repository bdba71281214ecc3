"""The built-in game families and their parameters, by name.

A family is posed with ``NAME=VALUE`` settings (``--set goal=50`` on the command
line) or a TOML file that names it (``game = "pig"`` and the settings beside it).
Each setting is checked against its kind before the game is built, so a typo is
one clear error line, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dicelab.errors import UserError, read_user_file
from dicelab.games.chance.bearoff import BearOff
from dicelab.games.chance.farkle import Farkle
from dicelab.games.chance.model import ChanceGame, flag, points
from dicelab.games.chance.pig import Pig
from dicelab.games.chance.shut_the_box import ShutTheBox

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["FAMILIES", "Family", "game_from", "is_game"]


@dataclass(frozen=True)
class Family:
    """A built-in game: how to build it and what each setting means (declared by the
    game's class, beside the rules they change)."""

    name: str
    build: Callable[..., ChanceGame]
    settings: dict[str, tuple[Callable[[Any], Any], str]]
    summary: str
    #: the game's name as players say it ("Shut the Box")
    title: str = ""


FAMILIES = {
    name: Family(name, game, game.settings, game.summary, title)
    for name, game, title in (
        ("pig", Pig, "Pig"),
        ("shut-the-box", ShutTheBox, "Shut the Box"),
        ("bearoff", BearOff, "Backgammon bear-off"),
        ("farkle", Farkle, "Farkle"),
    )
}


#: How each kind of setting is said in an error (before the setting's own words).
KIND_WORDS = {int: "a whole number: ", flag: "true or false: ", points: "points 1 to 6: "}


def _read(kind, value):
    """A setting's value of its kind; a whole number must be written as one (not 9.5)."""
    if kind is str:
        if not isinstance(value, str):
            raise ValueError(value)
        return value
    if kind is int:
        return int(str(value).strip())
    return kind(value)


def is_game(name: str) -> bool:
    """Whether ``name`` is a built-in game family (in any case) or a TOML file that
    names one."""
    if name.lower() in FAMILIES:
        return True
    path = Path(name)
    if path.suffix != ".toml" or not path.is_file():
        return False
    try:
        return "game" in tomllib.loads(read_user_file(path, f"file {name!r}"))
    except (UserError, tomllib.TOMLDecodeError, RecursionError):
        return False  # not a game file: the rules loader says what is wrong with it


def game_from(name: str, settings: Iterable[str] = ()) -> ChanceGame:
    """The game ``name`` (a family, or a TOML file naming one) with ``NAME=VALUE``
    settings on top of the file's."""
    given: dict[str, Any] = {}
    if name.lower() in FAMILIES:  # names in any case, as the rule sets' are
        name = name.lower()
    else:
        text = read_user_file(name, f"game file {name!r}")  # a regular file, of a few KB
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise UserError(f"{name}: cannot read the game file ({exc})") from None
        except RecursionError:
            raise UserError(f"{name}: the game file is nested too deeply") from None
        name, given = str(data.pop("game")).lower(), data
        if name not in FAMILIES:
            raise UserError(f"game: got {name!r}, expected one of {', '.join(FAMILIES)}")
    family = FAMILIES[name]
    for item in settings:
        key, eq, value = item.partition("=")
        if not eq:
            raise UserError(f"--set: got {item!r}, expected NAME=VALUE, e.g. goal=50")
        given[key.strip()] = value.strip()
    args = {}
    for key, value in given.items():
        if key not in family.settings:
            known = ", ".join(family.settings)
            raise UserError(f"{name}: no setting {key!r}; expected one of {known}")
        kind, what = family.settings[key]
        try:
            args[key] = _read(kind, value)
        except (TypeError, ValueError):
            words = KIND_WORDS.get(kind, "")
            raise UserError(f"{name} {key}: got {value!r}, expected {words}{what}") from None
    return family.build(**args)
