"""Rule sets: the model, its scoring primitives, and the built-in rules files.

>>> from dicelab.rules import load_rules
>>> load_rules("yahtzee").n_categories
13
"""

from __future__ import annotations

import re
import sys
from functools import cache, lru_cache
from pathlib import Path

from dicelab.errors import NotFound, UserError, parse_nested, read_user_file
from dicelab.rules.model import Rules, expand_columns, validator
from dicelab.rules.variants import SECTIONS, Origins, drop_false, merge
from dicelab.text import did_you_mean

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "Rules",
    "builtin_names",
    "did_you_mean",
    "load_rules",
    "parse_rules",
    "rules_from_text",
]


def builtin_names() -> list[str]:
    """Names of the rule sets shipped with dicelab, sorted.

    Examples
    --------
    >>> import dicelab
    >>> "yahtzee" in dicelab.builtin_names()
    True
    """
    return list(_builtin_names())


#: The rules files shipped in the package (read as files: ``importlib.resources``
#: would add 12 ms to every command).
BUILTIN = Path(__file__).parent / "builtin"


@lru_cache(maxsize=1)
def builtin_name(text: str) -> str | None:
    """The built-in name ``text`` means, whatever its case (``Yahtzee``), or ``None``.

    Examples
    --------
    >>> builtin_name("Yahtzee"), builtin_name("yahtze")
    ('yahtzee', None)
    """
    low = text.strip().lower()
    return low if low in builtin_names() else None


def _builtin_names() -> tuple[str, ...]:
    return tuple(sorted(p.name[:-5] for p in BUILTIN.iterdir() if p.name.endswith(".toml")))


def _format_error(exc, source: str, origins: Origins) -> str:
    """One line naming every wrong field, what it was inherited from, and what is
    expected there."""
    problems = (origins.annotate(_one_problem(err)) for err in exc.errors())
    return f"{source}: " + "; ".join(problems)


def _one_problem(err: dict) -> str:
    """``field: what is wrong`` for one validation error."""
    parts: list[str] = []
    loc = list(err["loc"])
    for i, item in enumerate(loc):
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif i > 0 and isinstance(loc[i - 1], int) and loc[0] == "categories" and i == 2:
            continue  # the discriminator tag pydantic puts in the path
        else:
            parts.append(("." if parts else "") + str(item))
    field = "".join(parts)
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if err["type"] in ("missing", "missing_argument", "missing_keyword_only_argument"):
        msg = "this field is required"
    elif err["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
        msg = "unknown field"
    elif err["type"] == "union_tag_invalid":
        field += ".kind"
        msg = f"unknown kind {err['input'].get('kind')!r}; expected one of: " + ", ".join(
            sorted(["face", "chance", "of_a_kind", "full_house", "pairs", "groups", "straight"])
        )
    elif err["type"] == "union_tag_not_found":
        field += ".kind"
        msg = "missing 'kind' (face, chance, of_a_kind, full_house, pairs, groups, straight)"
    elif loc in [[key] for key in SECTIONS] and err["type"] == "dataclass_type":
        msg = f"expected a table [{loc[0]}], or false for none"
    return f"{field}: {msg}" if field else msg


def parse_rules(data: dict, source: str = "rules", origins: Origins | None = None) -> Rules:
    """Validate rules given as a dictionary (as read from TOML); ``origins`` says what
    the parts were inherited from, for the messages."""
    from pydantic import ValidationError

    origins = origins or Origins()
    try:
        return validator().validate_python(expand_columns(data))
    except ValueError as exc:  # a scorecard's columns that cannot be laid out
        if isinstance(exc, ValidationError):
            raise UserError(_format_error(exc, source, origins)) from None
        raise UserError(f"{source}: {origins.annotate(str(exc))}") from None


def _read_source(text: str, base: Path | None = None) -> tuple[str, str, Path | None]:
    """Find a built-in name or a file: returns (source label, TOML text, folder)."""
    path = Path(text)
    if base is not None and not path.is_absolute():
        path = base / path
    name = builtin_name(text)
    if name is not None:
        source = f"{name}.toml"
        raw = (BUILTIN / source).read_text("utf-8")
        return source, raw, None
    if path.suffix == ".toml" or path.exists():
        raw = read_user_file(path, f"rules file {text!r}")
        return path.name, raw, path.parent
    raise NotFound(
        f"unknown rules {text!r}{did_you_mean(text, builtin_names())}: expected a built-in "
        f"name ({', '.join(builtin_names())}) or a path to a .toml file"
    )


def _resolve(text: str, base: Path | None, depth: int = 0) -> tuple[str, dict, Origins]:
    """Read rules data from a name or path, applying ``extends``."""
    source, raw, folder = _read_source(text, base)
    return (source, *_data_from_text(raw, source, folder, True, depth))


def _data_from_text(
    raw: str, source: str, folder: Path | None, allow_files: bool, depth: int = 0
) -> tuple[dict, Origins]:
    """Parse TOML and merge it into the rule set it ``extends``, if any; with the
    origins of its parts."""
    try:
        data = parse_nested(tomllib.loads, raw, source)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{source}: not valid TOML: {exc}") from None
    parent = data.pop("extends", None)
    if parent is not None and folder is not None and "name" not in data:
        data["name"] = _name_of_file(source)  # a variant file is not its parent
    if parent is None:
        if "replace_categories" in data:
            raise UserError(f"{source}: replace_categories: only in a file that extends another")
        return drop_false(data), Origins()
    names = builtin_names()
    if not allow_files and parent not in names:
        raise UserError(
            f"{source}: extends: {parent!r} is not a built-in rule set "
            f"(expected one of: {', '.join(names)})"
        )
    if not isinstance(parent, str):
        raise UserError(f"{source}: extends: expected the name or path of a rule set")
    if depth >= 8:
        raise UserError(f"{source}: extends: rule sets extend each other in a loop")
    try:
        found, base, base_origins = _resolve(parent, folder, depth + 1)
    except UserError as exc:
        if str(exc).startswith(f"{source}: extends:"):
            raise
        raise UserError(f"{source}: extends: {exc}") from None
    label = builtin_name(parent) or found
    return merge(base, base_origins, data, label, source)


def _name_of_file(source: str) -> str:
    """A rule set's name from its file's (``house rules.toml``: ``house-rules``), for a
    file that extends another without naming itself: its tables, records and
    comparisons then say which rules they are."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(source).stem).strip("-_.")[:60]
    return stem or "rules"


def rules_from_text(text: str, source: str = "rules", allow_files: bool = False) -> Rules:
    """Rules from the text of a TOML file (an upload, say).

    ``extends`` may name a built-in rule set; a path only with ``allow_files``
    (relative to the current folder), so that text from elsewhere cannot make the
    caller read its files.
    """
    data, origins = _data_from_text(text, source, None, allow_files)
    return parse_rules(data, source, origins)


def _is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except OSError:  # a name too long for the system is no file
        return False


def load_rules(source: str | Path | Rules) -> Rules:
    """Load a built-in rule set by name, a rules file by path, or rules from TOML text.

    A file may start from another rule set with ``extends = "NAME_OR_PATH"`` and
    change only what differs: its tables are merged key by key into the base, ``false``
    drops an optional section, its boxes are merged by id (changed, added, moved or
    removed: :mod:`dicelab.rules.variants`), its other values replace the base's.
    Rules already loaded are returned as they are.

    Parameters
    ----------
    source : str, Path or Rules
        A built-in name (see :func:`builtin_names`), the path of a ``.toml`` file, or
        the text of one (anything with a line break or an ``=`` that is not a file).

    Raises
    ------
    NotFound
        If the name is unknown or the file does not exist.
    UserError
        If the file cannot be read or the rules are wrong.

    Examples
    --------
    >>> load_rules("yacht").n_categories
    12
    >>> load_rules('extends = "yacht"' + chr(10) + 'name = "yacht-5"' + chr(10) + 'rolls = 5').rolls
    5
    """
    if isinstance(source, Rules):
        return source
    text = str(source)
    if isinstance(source, str) and ("\n" in text or ("=" in text and not _is_file(text))):
        return rules_from_text(text, allow_files=True)
    name = builtin_name(text) if not _is_file(text) else None
    if name is not None:
        return _builtin(name)
    found, data, origins = _resolve(text, None)
    return parse_rules(data, found, origins)


@cache
def _builtin(name: str) -> Rules:
    """A built-in rule set, read once per process (rules are immutable); its data is
    known to be valid (``Rules.from_checked``)."""
    _, data, _ = _resolve(name, None)
    return Rules.from_checked(data)
