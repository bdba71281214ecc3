"""A rules file that extends another: what it changes, merged onto what it inherits.

``extends = "yahtzee"`` starts from another rule set. The variant's values replace
the base's, its tables are merged into the base's key by key, and ``false`` drops an
optional section (``extra_yahtzee = false``). Its ``[[categories]]`` entries are
merged by id: an entry with an inherited id changes only the fields it gives (the
box keeps its place, or moves with ``after`` or ``before``), a new id adds a box (at
the end, or ``after`` or ``before`` another), and ``remove = true`` drops a box. With
``replace_categories = true`` the list is the whole scorecard instead.

What every part was inherited from is kept (:class:`Origins`), so that a mistake
names the file it came from; a variant that changes ``dice`` or ``faces`` has its
inherited boxes checked against them first, and those that no longer fit are named
in one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TypeGuard

from dicelab.errors import UserError
from dicelab.text import did_you_mean

#: Optional sections that ``false`` drops.
SECTIONS = ("upper_bonus", "extra_yahtzee")
#: Box fields that are alternatives: giving one drops the other, inherited.
ALTERNATIVES = {"length": "sets", "sets": "length"}
#: Where an entry puts its box: after or before another box.
PLACES = ("after", "before")
KINDS = "face, chance, of_a_kind, full_house, pairs, groups, straight"

#: Where a part of the rules came from, seen from one file: the file it is inherited
#: from and whether this file changed it; ``None`` for a part this file gives whole.
Origin = tuple[str, bool] | None

_BOX = re.compile(r"categories\[(\d+)\](?: \(([^)]*)\))?")
_KEY = re.compile(r"([a-z_]+)((?:\.[a-z_]+)*)(?=:)")


@dataclass
class Origins:
    """Where the parts of rules data come from; empty for a file that extends nothing.

    ``ids`` and ``boxes`` follow the category list (before its columns expand);
    ``keys`` holds the top-level keys the file inherits.
    """

    ids: list[object] = field(default_factory=list)
    boxes: list[Origin] = field(default_factory=list)
    keys: dict[str, Origin] = field(default_factory=dict)

    def annotate(self, problem: str) -> str:
        """``problem`` (``field: what is wrong``) with what its field was inherited from.

        >>> o = Origins(ids=["ones", "sixes"], boxes=[("yahtzee", False), None])
        >>> o.annotate("categories[0].face: got 7")
        'categories[0] (ones, inherited from yahtzee).face: got 7'
        >>> o.annotate("categories[3] (sixes_c2).face: got 9")
        'categories[3] (sixes_c2).face: got 9'
        >>> Origins(keys={"upper_bonus": ("yahtzee", True)}).annotate("upper_bonus.points: 7")
        'upper_bonus.points (inherited from yahtzee, changed here; upper_bonus = false drops it): 7'
        """
        box = _BOX.match(problem)
        if box is not None:
            if not self.ids:
                return problem
            k = int(box.group(1)) % len(self.ids)
            parts = [box.group(2) or str(self.ids[k]), _note(self.boxes[k])]
            said = ", ".join(p for p in parts if p)
            return f"categories[{box.group(1)}] ({said})" + problem[box.end() :]
        key = _KEY.match(problem)
        if key is None or self.keys.get(key.group(1)) is None:
            return problem
        note = _note(self.keys[key.group(1)])
        if key.group(1) in SECTIONS:
            note += f"; {key.group(1)} = false drops it"
        return f"{key.group(0)} ({note})" + problem[key.end() :]


def _note(origin: Origin) -> str:
    if origin is None:
        return ""
    return f"inherited from {origin[0]}" + (", changed here" if origin[1] else "")


def _through(origin: Origin, label: str) -> tuple[str, bool]:
    """A part's origin in the base, seen from the file that extends it (``label``)."""
    return (label, False) if origin is None or origin[1] else (origin[0], False)


def drop_false(data: dict) -> dict:
    """``data`` without the optional sections set to ``false`` (none)."""
    return {k: v for k, v in data.items() if not (k in SECTIONS and v is False)}


def merge(base: dict, base_origins: Origins, data: dict, label: str, source: str):
    """``data``, read from ``source``, merged onto the rule set it extends: ``base``,
    named ``label``. Returns the merged data and its :class:`Origins`."""
    data = dict(data)
    replace = data.pop("replace_categories", False)
    if not isinstance(replace, bool):
        raise UserError(f"{source}: replace_categories: expected true or false")
    entries = data.pop("categories", None)
    if entries is None and replace:
        raise UserError(
            f"{source}: replace_categories: expected the [[categories]] that replace {label}'s"
        )
    merged = dict(base)
    keys: dict[str, Origin] = {k: _through(base_origins.keys.get(k), label) for k in base}
    # the base's title and description describe the base, not this file
    base_name = merged.get("name", label)
    merged["title"] = f"{data.get('name', base_name)} (based on {base_name})"
    merged.pop("description", None)
    for key, value in data.items():
        if value is False and key in SECTIONS:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
            keys[key] = (_through(base_origins.keys.get(key), label)[0], True)
            continue
        else:
            merged[key] = value
        keys.pop(key, None)
    for key in ("title", "description", "categories"):  # the boxes have their own origins
        keys.pop(key, None)
    origins = Origins(keys=keys)
    inherited = merged.get("categories")
    notes = _inherited(base_origins, inherited, label)
    if isinstance(entries, list) and not replace and _is_boxes(inherited):
        merged["categories"], notes = _merge_boxes(inherited, notes, entries, label, source)
    elif entries is not None:  # the whole list, or something the field checks refuse
        merged["categories"], notes = entries, []
    boxes = merged.get("categories")
    if isinstance(boxes, list):
        origins.ids = [b.get("id") if isinstance(b, dict) else None for b in boxes]
        origins.boxes = (notes + [None] * len(boxes))[: len(boxes)]
    refit(merged, base, data, origins, label, source)
    return merged, origins


def _inherited(base_origins: Origins, boxes, label: str) -> list[Origin]:
    """The origins of the base's boxes, seen from the file that extends it."""
    n = len(boxes) if isinstance(boxes, list) else 0
    known = base_origins.boxes
    return [_through(known[i] if i < len(known) else None, label) for i in range(n)]


def _is_boxes(value) -> TypeGuard[list[dict]]:
    return isinstance(value, list) and all(isinstance(b, dict) for b in value)


def _merge_boxes(inherited: list[dict], notes: list[Origin], entries: list, label, source):
    """The inherited boxes with every entry applied: changed, added, moved or removed."""
    boxes = [dict(b) for b in inherited]
    notes = list(notes)
    given: set[str] = set()
    for i, entry in enumerate(entries):
        where = f"{source}: categories[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise UserError(
                f"{where}.id: this field is required: an entry changes, adds or removes "
                f"the box with that id"
            )
        entry = dict(entry)
        box_id = entry["id"]
        where += f" ({box_id})"
        if box_id in given:
            raise UserError(f"{where}: the box is given twice, expected one entry per id")
        given.add(box_id)
        ids = [b.get("id") for b in boxes]
        k = ids.index(box_id) if box_id in ids else len(boxes)
        old, origin = (boxes.pop(k), notes.pop(k)) if box_id in ids else (None, None)
        ids = [b.get("id") for b in boxes]
        if _flag(entry, "remove", where):
            _check_removal(entry, old, ids, label, where)
            continue
        at = _place(entry, ids, where)
        if old is None and "kind" not in entry:
            raise UserError(
                f"{where}: {label} has no box {box_id!r}{did_you_mean(box_id, ids)}, so this "
                f"entry adds one and needs a kind ({KINDS}); to change a box, give its id "
                f"({', '.join(map(str, ids))})"
            )
        box = entry if old is None else _changed(old, entry)
        boxes.insert(k if at is None else at, box)
        notes.insert(k if at is None else at, None if origin is None else (origin[0], True))
    return boxes, notes


def _flag(entry: dict, key: str, where: str) -> bool:
    value = entry.pop(key, False)
    if not isinstance(value, bool):
        raise UserError(f"{where}.{key}: expected true or false, got {value!r}")
    return value


def _check_removal(entry: dict, old, ids: list, label: str, where: str) -> None:
    box_id = entry["id"]
    if old is None:
        raise UserError(
            f"{where}.remove: {label} has no box {box_id!r}{did_you_mean(box_id, ids)} "
            f"(its boxes: {', '.join(map(str, ids))})"
        )
    others = sorted(set(entry) - {"id"})
    if others:
        raise UserError(
            f"{where}.remove: a box that is removed takes no other field, got {', '.join(others)}"
        )


def _place(entry: dict, ids: list, where: str) -> int | None:
    """Where ``after`` or ``before`` puts the entry's box, or ``None`` where neither is given."""
    given = [key for key in PLACES if key in entry]
    if not given:
        return None
    if len(given) > 1:
        raise UserError(f"{where}: give after or before, not both")
    key = given[0]
    ref = entry.pop(key)
    if not isinstance(ref, str) or ref not in ids:
        raise UserError(
            f"{where}.{key}: {ref!r} is not another box{did_you_mean(str(ref), ids)} "
            f"(the boxes: {', '.join(map(str, ids))})"
        )
    return ids.index(ref) + (key == "after")


def _changed(old: dict, entry: dict) -> dict:
    """An inherited box with the fields an entry gives; another ``kind`` starts anew."""
    if "kind" in entry and entry["kind"] != old.get("kind"):
        return entry
    box = {**old, **entry}
    for key, other in ALTERNATIVES.items():
        if key in entry and other not in entry:
            box.pop(other, None)
    return box


def refit(merged: dict, base: dict, data: dict, origins: Origins, label: str, source: str):
    """Where a variant changes ``dice`` or ``faces``: every inherited box that no longer
    fits, named in one line with how to change it."""
    changed = [k for k in ("dice", "faces") if k in data and data[k] != base.get(k)]
    dice, faces, boxes = (
        _count(merged.get("dice")),
        _count(merged.get("faces")),
        merged.get("categories"),
    )
    if not changed or not _is_boxes(boxes) or dice is None or faces is None:
        return  # nothing changed, or the field checks say what is wrong
    from dicelab.rules.model import misfit

    made = _made(boxes)
    problems: dict[str, str] = {}
    for box, origin in zip(boxes, origins.boxes, strict=False):
        c = made.get(box.get("id"))
        bad = None if c is None or origin is None else misfit(c, dice, faces)
        if c is not None and bad is not None:
            field_name, why = bad
            problems[c.id] = f"{field_name}: {why}" if field_name else why
    _all_alike(merged, made, dice, problems)
    if problems:
        what = " and ".join(f"{k} = {merged[k]} ({label} has {base.get(k)})" for k in changed)
        said = "; ".join(f"{box_id} ({why})" for box_id, why in problems.items())
        raise UserError(
            f"{source}: {what}: the inherited boxes that no longer fit: {said}. Change a "
            f"box with a [[categories]] entry that gives its id and the new fields, or "
            f'drop it with {{ id = "...", remove = true }}'
        )


def _count(value) -> int | None:
    """A whole number of dice or faces, or ``None`` for anything else."""
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 1
    return value if ok else None


def _made(boxes: list[dict]) -> dict:
    """The boxes that are valid on their own, by id."""
    from pydantic import ValidationError

    from dicelab.rules.model import box_validator

    made: dict = {}
    for box in boxes:
        try:
            c = box_validator().validate_python(box)
        except (ValidationError, ValueError, TypeError):
            continue
        made.setdefault(c.id, c)
    return made


def _all_alike(merged: dict, made: dict, dice: int, problems: dict[str, str]) -> None:
    """Boxes that must be all dice alike (the extra rules' box, boxes that require one)."""
    from dicelab.rules.model import OfAKindCategory

    extra = merged.get("extra_yahtzee")
    c = made.get(extra.get("category")) if isinstance(extra, dict) else None
    if isinstance(c, OfAKindCategory) and c.count != dice and c.id not in problems:
        problems[c.id] = (
            f"extra_yahtzee needs all {dice} dice alike, the box has count = {c.count}: "
            f"give it count = {dice}, or write extra_yahtzee = false"
        )
    for c in made.values():
        if not isinstance(c, OfAKindCategory) or c.requires is None or c.id in problems:
            continue
        other = made.get(c.requires)
        if c.count != dice or (isinstance(other, OfAKindCategory) and other.count != dice):
            problems[c.id] = (
                f"it requires {c.requires}, and both must be all {dice} dice alike: "
                f"give both count = {dice}"
            )
