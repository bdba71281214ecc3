"""The built-in game families, their house rules, and the game files that pose them.

A family is posed with ``NAME=VALUE`` settings (``--set goal=50`` on the command
line) or a TOML file that names it (``game = "pig"`` and the settings beside it):
every house rule of a family is a setting (:attr:`Family.settings`, declared by the
game's class beside the rules they change), so a variant is a file, not a program.
The presets shipped with dicelab (:data:`PRESETS`: Butler's Shut the Box rules,
Facebook Farkle, ...) are such files, named like a family (``dicelab solve
butler-two-tiles``). A file is checked with pydantic before the game is built, and
a mistake is one line naming the file's line, what was given and what is expected.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import Annotated, Any

from dicelab.errors import UserError, read_user_file
from dicelab.games.chance.bearoff import BearOff
from dicelab.games.chance.farkle import Farkle
from dicelab.games.chance.model import ChanceGame, flag, points
from dicelab.games.chance.pig import Pig
from dicelab.games.chance.seated import seated
from dicelab.games.chance.shut_the_box import ShutTheBox

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "FAMILIES",
    "PRESETS",
    "Family",
    "game_from",
    "is_game",
    "preset_file",
    "preset_names",
    "settings_of",
]

#: The folder of the shipped game files (``games/chance/presets/*.toml``).
PRESETS = Path(__file__).resolve().parent / "presets"

#: What a game file may hold beside its family's settings, and what each says.
FILE_KEYS = {
    "game": "the family: pig, shut-the-box, bearoff or farkle",
    "title": "the game's name as players say it",
    "published": "a published figure of the game, and where it was published",
}


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
    #: the family's class (``build`` may seat more players around it)
    game: type | None = None


FAMILIES = {
    name: Family(name, build, game.settings, game.summary, title, game)
    for name, game, build, title in (
        ("pig", Pig, seated(Pig), "Pig"),
        ("shut-the-box", ShutTheBox, ShutTheBox, "Shut the Box"),
        ("bearoff", BearOff, BearOff, "Backgammon bear-off"),
        ("farkle", Farkle, seated(Farkle), "Farkle"),
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
        if isinstance(value, bool | float):
            raise ValueError(value)
        return int(str(value).strip())
    return kind(value)


@cache
def _validator(name: str):
    """The pydantic model of a ``name`` game file: each setting read by its kind, the
    file's own keys as text, nothing else."""
    from pydantic import BeforeValidator, ConfigDict, create_model

    family = FAMILIES[name]
    fields: dict[str, Any] = {key: (str | None, None) for key in FILE_KEYS}
    for key, (kind, _) in family.settings.items():
        fields[key] = (Annotated[Any, BeforeValidator(partial(_read, kind))], None)
    return create_model(f"{name}-game", __config__=ConfigDict(extra="forbid"), **fields)


@cache
def preset_names() -> tuple[str, ...]:
    """The shipped game files, by name (read once: they ship with the package)."""
    return tuple(sorted(p.stem for p in PRESETS.glob("*.toml")))


def preset_path(name: str) -> Path | None:
    """The shipped game file called ``name`` (in any case), if there is one."""
    low = name.lower()
    return PRESETS / f"{low}.toml" if low in preset_names() else None


def preset_file(name: str) -> dict:
    """The data of the shipped game file ``name``."""
    path = preset_path(name)
    if path is None:
        raise UserError(f"no preset {name!r}; expected one of {', '.join(preset_names())}")
    return tomllib.loads(path.read_text("utf-8"))


def presets_of(family: str) -> list[dict[str, Any]]:
    """The presets of ``family``: name, title, published figure and settings (as
    typed on a command line: ``true``, ``6,5,2``)."""
    out = []
    for name in preset_names():
        data = preset_file(name)
        if str(data.get("game", "")).lower() != family:
            continue
        settings = {k: _typed(v) for k, v in data.items() if k not in FILE_KEYS}
        out.append({"name": name, "title": str(data.get("title", name)),
                    "published": str(data.get("published", "")), "settings": settings})  # fmt: skip
    return out


def _typed(value: Any) -> str:
    """A setting's value as typed: ``true``, ``6,5,2``, ``50``."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    return str(value)


def settings_of(name: str) -> tuple[Family, dict[str, Any]]:
    """The family of ``name`` (a family, a preset or a game file, checked) and the
    settings that name gives, as written (the others keep the family's defaults)."""
    game_from(name)  # every mistake said first
    if name.lower() in FAMILIES:
        return FAMILIES[name.lower()], {}
    data = _read_file(name)[2]
    family = FAMILIES[str(data["game"]).lower()]
    return family, {k: v for k, v in data.items() if k in family.settings}


def is_game(name: str) -> bool:
    """Whether ``name`` is a built-in game family or preset (in any case) or a TOML
    file that names one."""
    if name.lower() in FAMILIES or preset_path(name) is not None:
        return True
    path = Path(name)
    if path.suffix != ".toml" or not path.is_file():
        return False
    try:
        return "game" in tomllib.loads(read_user_file(path, f"file {name!r}"))
    except (UserError, ValueError, RecursionError):  # TOMLDecodeError is a ValueError
        return False  # not a game file: the rules loader says what is wrong with it


def _line_of(text: str, key: str) -> int | None:
    """The line of ``text`` that sets ``key`` (1 for the first), if one does."""
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.match(line):
            return number
    return None


def _read_file(name: str) -> tuple[str, str, dict]:
    """A game file's label, its text and its data (a preset's, or a file of one's own)."""
    path = preset_path(name)
    label = f"{path.stem} (a preset)" if path else name
    text = path.read_text("utf-8") if path else read_user_file(name, f"game file {name!r}")
    try:
        data = tomllib.loads(text)
    except ValueError as exc:  # not TOML, or a number of thousands of digits
        raise UserError(f"{label}: cannot read the game file ({exc})") from None
    except RecursionError:
        raise UserError(f"{label}: the game file is nested too deeply") from None
    if "game" not in data:
        raise UserError(f"{label}: no game; expected a line such as game = \"pig\" "
                        f"({', '.join(FAMILIES)})")  # fmt: skip
    return label, text, data


def game_from(name: str, settings: Iterable[str] = ()) -> ChanceGame:
    """The game ``name`` (a family, a preset, or a TOML file naming a family) with
    ``NAME=VALUE`` settings on top of the file's."""
    given: dict[str, Any] = {}
    where: dict[str, str] = {}  # where each setting was given, for the errors
    if name.lower() in FAMILIES:  # names in any case, as the rule sets' are
        family_name = name.lower()
    else:
        label, text, given = _read_file(name)
        family_name = str(given["game"]).lower()
        if family_name not in FAMILIES:
            at = _line_of(text, "game")
            place = f"{label} line {at}" if at else label
            raise UserError(f"{place}: game: got {given['game']!r}, expected one of "
                            f"{', '.join(FAMILIES)}")  # fmt: skip
        for key in given:
            at = _line_of(text, key)
            where[key] = f"{label} line {at}" if at else label
    for item in settings:
        key, eq, value = item.partition("=")
        if not eq:
            raise UserError(f"--set: got {item!r}, expected NAME=VALUE, e.g. goal=50")
        given[key.strip()] = value.strip()
        where[key.strip()] = "--set"
    args = _checked(family_name, given, where)
    try:
        game = FAMILIES[family_name].build(**args)
    except UserError as exc:  # a value out of its range: say where it was given
        key = str(exc).partition(":")[0].split(" ")[-1]
        raise UserError(f"{where[key]}: {exc}" if where.get(key, "--set") != "--set"
                        else str(exc)) from None  # fmt: skip
    # the file's own words, said beside the results (not rules: no part of its key)
    game._title, game._published = given.get("title"), given.get("published")
    return game


def _checked(name: str, given: dict[str, Any], where: dict[str, str]) -> dict[str, Any]:
    """The family's settings from ``given``, validated (:func:`_validator`); a mistake
    is one line naming where it was given, what was given and what is expected."""
    from pydantic import ValidationError

    family = FAMILIES[name]
    try:
        model = _validator(name).model_validate(given)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = str(err["loc"][0])
        place = where.get(key, "--set")
        prefix = "" if place == "--set" else f"{place}: "
        if err["type"] == "extra_forbidden":
            known = ", ".join(family.settings)
            raise UserError(f"{prefix}{name}: no setting {key!r}; expected one of "
                            f"{known}") from None  # fmt: skip
        if key in FILE_KEYS:
            raise UserError(f"{prefix}{key}: got {given[key]!r}, expected text: "
                            f"{FILE_KEYS[key]}") from None  # fmt: skip
        kind, what = family.settings[key]
        words = KIND_WORDS.get(kind, "")
        raise UserError(f"{prefix}{name} {key}: got {given[key]!r}, expected "
                        f"{words}{what}") from None  # fmt: skip
    return {key: getattr(model, key) for key in given if key in family.settings}
