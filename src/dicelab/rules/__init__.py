"""Rule sets: the model, its scoring primitives, and the built-in rules files.

>>> from dicelab.rules import load_rules
>>> load_rules("yahtzee").n_categories
13
"""

from __future__ import annotations

import sys
from functools import cache, lru_cache
from pathlib import Path

from dicelab.errors import NotFound, UserError, parse_nested, read_user_file
from dicelab.rules.model import Rules, expand_columns, validator

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["Rules", "builtin_names", "load_rules", "parse_rules", "rules_from_text"]


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


def did_you_mean(text: str, names) -> str:
    """`` (did you mean 'yahtzee'?)`` for a name close to one of ``names``, else ''."""
    import difflib

    close = difflib.get_close_matches(text.strip().lower(), list(names), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _builtin_names() -> tuple[str, ...]:
    return tuple(sorted(p.name[:-5] for p in BUILTIN.iterdir() if p.name.endswith(".toml")))


def _format_error(exc, source: str) -> str:
    """One line naming every wrong field and what is expected there."""
    return f"{source}: " + "; ".join(_one_problem(err) for err in exc.errors())


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
    return f"{field}: {msg}" if field else msg


def parse_rules(data: dict, source: str = "rules") -> Rules:
    """Validate rules given as a dictionary (as read from TOML)."""
    from pydantic import ValidationError

    try:
        return validator().validate_python(expand_columns(data))
    except ValueError as exc:  # a scorecard's columns that cannot be laid out
        if isinstance(exc, ValidationError):
            raise UserError(_format_error(exc, source)) from None
        raise UserError(f"{source}: {exc}") from None


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


def _resolve(text: str, base: Path | None, depth: int = 0) -> tuple[str, dict]:
    """Read rules data from a name or path, applying ``extends``."""
    source, raw, folder = _read_source(text, base)
    return source, _data_from_text(raw, source, folder, True, depth)


def _data_from_text(
    raw: str, source: str, folder: Path | None, allow_files: bool, depth: int = 0
) -> dict:
    """Parse TOML and merge it into the rule set it ``extends``, if any."""
    try:
        data = parse_nested(tomllib.loads, raw, source)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{source}: not valid TOML: {exc}") from None
    parent = data.pop("extends", None)
    if parent is None:
        return data
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
        _, merged = _resolve(parent, folder, depth + 1)
    except UserError as exc:
        if str(exc).startswith(f"{source}: extends:"):
            raise
        raise UserError(f"{source}: extends: {exc}") from None
    # the base's title and description describe the base, not this file
    base_name = merged.get("name", parent)
    merged["title"] = f"{data.get('name', base_name)} (based on {base_name})"
    merged.pop("description", None)
    for key, value in data.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def rules_from_text(text: str, source: str = "rules", allow_files: bool = False) -> Rules:
    """Rules from the text of a TOML file (an upload, say).

    ``extends`` may name a built-in rule set; a path only with ``allow_files``
    (relative to the current folder), so that text from elsewhere cannot make the
    caller read its files.
    """
    return parse_rules(_data_from_text(text, source, None, allow_files), source)


def _is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except OSError:  # a name too long for the system is no file
        return False


def load_rules(source: str | Path | Rules) -> Rules:
    """Load a built-in rule set by name, a rules file by path, or rules from TOML text.

    A file may start from another rule set with ``extends = "NAME_OR_PATH"`` and
    change only what differs: its tables are merged key by key into the base, its
    other values (the category list among them) replace the base's. Rules already
    loaded are returned as they are.

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
    found, data = _resolve(text, None)
    return parse_rules(data, found)


@cache
def _builtin(name: str) -> Rules:
    """A built-in rule set, read once per process (rules are immutable); its data is
    known to be valid (``Rules.from_checked``)."""
    found, data = _resolve(name, None)
    return Rules.from_checked(data)
