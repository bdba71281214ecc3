"""The rules model: a dice game of the Yahtzee family, as validated data.

A rule set is a TOML file (see ``docs/rules.md``). It is parsed into
:class:`Rules`, whose every field is checked, so that the solvers can trust it:
a mistake is reported once, with the field that holds it and what is expected.
Switches that change results (does five of a kind count as a full house, which
joker rule, what a category scores) have no defaults and must be written out.

The models are frozen dataclasses whose annotations carry pydantic's checks.
pydantic reads them only when it validates a file (:func:`validator`): a command
that loads a built-in rule set never imports it (45 ms of every command's start).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields, is_dataclass
from functools import cache
from typing import TYPE_CHECKING, Annotated, ClassVar, Literal

if TYPE_CHECKING:  # the checks' names, bound where validator() builds the validator
    from pydantic import BeforeValidator, Field, TypeAdapter

from dicelab.dice import MAX_DICE, MAX_FACES
from dicelab.rules import scoring

MAX_CATEGORIES = 20
#: Most points one box, bonus or extra bonus may give. Real scorecards stay in the
#: hundreds; the bound keeps every total, distribution and exact fraction of every
#: solver within its exact range (a 20-box game scores at most a few million).
MAX_POINTS = 10_000
#: Largest multiplier of a box (a scorecard column's), and most columns.
MAX_FACTOR = 10
MAX_COLUMNS = 6

JokerMode = Literal["free", "forced", "free-if-fifty", "none"]

#: Every model: immutable, fields by keyword (a subclass adds required fields after
#: its base's defaults), unknown fields refused when pydantic validates.
_model = dataclass(frozen=True, kw_only=True)


def _check_score(value: int | str) -> int | str:
    if isinstance(value, bool):
        raise ValueError("expected fixed points (a whole number >= 0), 'all' or 'matching'")
    if isinstance(value, int):
        if not 0 <= value <= MAX_POINTS:
            raise ValueError(f"got {value} points, expected a whole number from 0 to {MAX_POINTS}")
        return value
    if value not in ("all", "matching"):
        raise ValueError(
            f"got {value!r}, expected fixed points (a whole number >= 0), 'all' or 'matching'"
        )
    return value


@_model
class _Category:
    """Fields every category has."""

    __pydantic_config__: ClassVar = {"extra": "forbid"}

    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_-]*$", max_length=40)]
    name: Annotated[str | None, Field(max_length=60)] = None
    upper: bool | None = None
    factor: Annotated[
        int,
        Field(
            ge=1,
            le=MAX_FACTOR,
            description="the box's points are multiplied by it (a scorecard column's multiplier)",
        ),
    ] = 1

    @property
    def label(self) -> str:
        """The name shown to players."""
        return self.name or self.id.replace("_", " ").replace("-", " ").capitalize()

    @property
    def counts_for_bonus(self) -> bool:
        """Whether the category's points add to the upper total."""
        return bool(self.upper)

    def describe(self) -> str:  # pragma: no cover - every kind overrides it
        raise NotImplementedError

    def scoring_text(self) -> str:
        """What the box scores, its column's multiplier included."""
        text = self.describe()
        return f"{text}, times {self.factor}" if self.factor > 1 else text

    def base_points(self, counts) -> int:  # pragma: no cover - every kind overrides it
        raise NotImplementedError

    def points(self, counts) -> int:
        """Points of a set of dice (face counts) in this box."""
        return self.base_points(counts) * self.factor

    def matches(self, counts) -> bool:
        """Whether the dice make the box's pattern (boxes without one always match)."""
        return True

    @staticmethod
    def _score_text(score: int | str) -> str:
        if score == "all":
            return "sum of all dice"
        if score == "matching":
            return "sum of the matching dice"
        return f"{score} points"


@_model
class _PatternCategory(_Category):
    """A box that needs a pattern of dice; it may pay extra when the pattern is served.

    ``served`` points are added when the box is scored with the dice of the turn's
    first throw (Generala's "served" hands); 0 for none.
    """

    served: Annotated[int, Field(ge=0, le=MAX_POINTS)] = 0
    if TYPE_CHECKING:  # every kind declares its own, with its check
        score: int | str

    def matched(self, counts) -> int:  # pragma: no cover - every kind overrides it
        """The pattern's matching sum, or -1 when the dice do not make it."""
        raise NotImplementedError

    def matches(self, counts) -> bool:
        return self.matched(counts) >= 0

    def base_points(self, counts) -> int:
        return scoring.apply_score(self.matched(counts), counts, self.score)

    def served_text(self) -> str:
        return f", +{self.served} served" if self.served else ""


@_model
class FaceCategory(_Category):
    """The dice showing one face (Ones, Twos, ...)."""

    kind: Literal["face"]
    face: Annotated[int, Field(ge=1, le=MAX_FACES)]

    @property
    def counts_for_bonus(self) -> bool:
        return self.upper is not False

    def describe(self) -> str:
        return f"sum of the {self.face}s"

    def base_points(self, counts) -> int:
        return scoring.face_score(counts, self.face)


@_model
class ChanceCategory(_Category):
    """Any dice: the sum of all of them."""

    kind: Literal["chance"]

    def describe(self) -> str:
        return "sum of all dice"

    def base_points(self, counts) -> int:
        return scoring.dice_sum(counts)


@_model
class OfAKindCategory(_PatternCategory):
    """At least ``count`` dice showing the same face.

    ``requires`` names another all-dice-alike box: this one pays only once that box
    holds points, and scores 0 before (Doble Generala: 100 for a second Generala).
    """

    kind: Literal["of_a_kind"]
    count: Annotated[int, Field(ge=1, le=MAX_DICE)]
    score: Annotated[int | str, BeforeValidator(_check_score)]
    requires: str | None = None

    def describe(self) -> str:
        needs = f" (only once {self.requires} holds points)" if self.requires else ""
        return f"{self.count} of a kind{needs}: {self._score_text(self.score)}{self.served_text()}"

    def matched(self, counts) -> int:
        return scoring.best_groups(counts, (self.count,), True)


@_model
class FullHouseCategory(_PatternCategory):
    """Three of one face and two of another."""

    kind: Literal["full_house"]
    five_of_a_kind_counts: bool
    score: Annotated[int | str, BeforeValidator(_check_score)]

    def describe(self) -> str:
        extra = " (five of a kind counts)" if self.five_of_a_kind_counts else ""
        return f"full house 3+2{extra}: {self._score_text(self.score)}{self.served_text()}"

    def matched(self, counts) -> int:
        return scoring.best_groups(counts, (3, 2), not self.five_of_a_kind_counts)


@_model
class PairsCategory(_PatternCategory):
    """Up to ``pairs`` pairs, at least ``at_least`` of them (all of them by default).

    ``same_face_ok`` lets one face make several pairs (four alike are two pairs);
    ``at_least`` below ``pairs`` lets fewer pairs fill the box (the house rule where
    one pair is enough for Two pairs), "matching" then summing the pairs made.
    """

    kind: Literal["pairs"]
    pairs: Annotated[int, Field(ge=1, le=MAX_DICE // 2)]
    same_face_ok: bool
    at_least: Annotated[int | None, Field(ge=1, le=MAX_DICE // 2)] = None
    score: Annotated[int | str, BeforeValidator(_check_score)]

    def __post_init__(self) -> None:
        if self.at_least is not None and self.at_least > self.pairs:
            raise ValueError(
                f"at_least: got {self.at_least}, expected at most pairs = {self.pairs}"
            )

    @property
    def fewest(self) -> int:
        """The fewest pairs that fill the box."""
        return self.pairs if self.at_least is None else self.at_least

    def describe(self) -> str:
        what = "one pair" if self.pairs == 1 else f"{self.pairs} pairs"
        if self.pairs > 1:
            what += " (four alike count as two)" if self.same_face_ok else " (different faces)"
        if self.fewest < self.pairs:
            what += f", {self.fewest} {'pair' if self.fewest == 1 else 'pairs'} enough"
        return f"{what}: {self._score_text(self.score)}{self.served_text()}"

    def matched(self, counts) -> int:
        best = -1
        for n in range(self.fewest, self.pairs + 1):
            best = max(best, scoring.best_groups(counts, (2,) * n, not self.same_face_ok))
        return best


@_model
class GroupsCategory(_PatternCategory):
    """Any groups of equal dice, e.g. ``[3, 3]`` for two triples."""

    kind: Literal["groups"]
    sizes: Annotated[
        list[Annotated[int, Field(ge=1, le=MAX_DICE)]], Field(min_length=1, max_length=6)
    ]
    distinct: bool
    score: Annotated[int | str, BeforeValidator(_check_score)]

    def describe(self) -> str:
        same = "different faces" if self.distinct else "faces may repeat"
        shape = "+".join(str(s) for s in self.sizes)
        return f"groups {shape} ({same}): {self._score_text(self.score)}{self.served_text()}"

    def matched(self, counts) -> int:
        return scoring.best_groups(counts, tuple(self.sizes), self.distinct)


@_model
class StraightCategory(_PatternCategory):
    """A run of ``length`` faces anywhere, or one of fixed face ``sets``."""

    kind: Literal["straight"]
    length: Annotated[int | None, Field(ge=2, le=MAX_FACES)] = None
    sets: list[list[Annotated[int, Field(ge=1, le=MAX_FACES)]]] | None = None
    score: Annotated[int | str, BeforeValidator(_check_score)]

    def __post_init__(self) -> None:
        if (self.length is None) == (self.sets is None):
            raise ValueError("give either 'length' (a run anywhere) or 'sets' (fixed faces)")
        if self.sets is not None and (not self.sets or any(not s for s in self.sets)):
            raise ValueError("'sets' must hold at least one non-empty list of faces")

    def describe(self) -> str:
        if self.length is not None:
            form = f"{self.length} in a row"
        else:
            form = " or ".join("-".join(str(f) for f in s) for s in self.sets or [])
        return f"straight {form}: {self._score_text(self.score)}{self.served_text()}"

    def matched(self, counts) -> int:
        if self.length is not None:
            return scoring.best_run(counts, self.length)
        return scoring.best_set(counts, self.sets or [])


#: The category classes by their ``kind``.
CATEGORY_KINDS = {
    "face": FaceCategory,
    "chance": ChanceCategory,
    "of_a_kind": OfAKindCategory,
    "full_house": FullHouseCategory,
    "pairs": PairsCategory,
    "groups": GroupsCategory,
    "straight": StraightCategory,
}


def misfit(c: _Category, dice: int, faces: int) -> tuple[str, str] | None:
    """Why box ``c`` cannot be made with ``dice`` dice of ``faces`` faces, as
    (field, reason), the field '' for the box as a whole; ``None`` when it fits."""
    if isinstance(c, FaceCategory) and c.face > faces:
        return "face", f"got {c.face}, the dice have {faces} faces"
    if isinstance(c, OfAKindCategory) and c.count > dice:
        return "count", f"{c.count} of a kind needs {c.count} dice, the rules have {dice}"
    if isinstance(c, FullHouseCategory) and dice < 5:
        return "", f"a full house needs 5 dice, the rules have {dice}"
    if isinstance(c, PairsCategory) and 2 * c.pairs > dice:
        return "pairs", f"{c.pairs} pairs need {2 * c.pairs} dice, the rules have {dice}"
    if isinstance(c, GroupsCategory) and sum(c.sizes) > dice:
        return "sizes", f"groups of {sum(c.sizes)} dice, the rules have {dice}"
    if isinstance(c, StraightCategory):
        if c.length is not None and c.length > min(dice, faces):
            return "length", (
                f"a straight of {c.length} needs {c.length} dice and faces, "
                f"the rules have {dice} dice with {faces} faces"
            )
        for s in c.sets or []:
            if len(s) > dice or max(s) > faces:
                return "sets", f"{s} cannot be shown by {dice} dice with {faces} faces"
    return None


def _plain(value):
    """A model as plain JSON data, every field by name, in the order of the fields."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@_model
class UpperBonus:
    """Points for an upper total of at least ``threshold``."""

    __pydantic_config__: ClassVar = {"extra": "forbid"}

    threshold: Annotated[int, Field(ge=1, le=1000)]
    points: Annotated[int, Field(ge=0, le=MAX_POINTS)]


@_model
class ExtraYahtzee:
    """The extra bonus for further all-same rolls, and the joker rule.

    ``category`` names the all-dice-alike box. ``bonus`` points are added for each
    all-same roll once that box holds its points (0 for none). ``joker``:

    * ``free``: once the box is filled (with points or 0) and the matching upper box
      is filled too, an all-same roll may go in any open box, and fixed-score boxes
      (full house, straights) take their full points;
    * ``forced``: once the box is filled, the matching upper box must be taken if
      open; otherwise any open lower box, with full points; only when no lower box
      is open, an upper box (with 0);
    * ``free-if-fifty``: as ``free``, but only while the box holds its points;
    * ``none``: no joker.

    ``joker_always`` (a house rule): the joker holds whether or not the all-alike
    box is filled, each rule's other conditions unchanged.
    """

    __pydantic_config__: ClassVar = {"extra": "forbid"}

    category: str
    bonus: Annotated[int, Field(ge=0, le=MAX_POINTS)]
    joker: JokerMode
    joker_always: Annotated[
        bool,
        Field(description="an all-alike roll is a joker whether or not its box is filled"),
    ] = False

    def __post_init__(self) -> None:
        if self.joker_always and self.joker in ("none", "free-if-fifty"):
            raise ValueError(
                f"joker_always: a joker whether or not the {self.category} box is filled "
                f"needs joker = 'free' or 'forced' (got joker = '{self.joker}', which "
                f"{'has no joker' if self.joker == 'none' else 'needs the box to hold points'})"
            )


#: Each joker rule in words (``{box}`` is the all-same box's name).
JOKER_TEXT = {
    "free": "free joker: once the {box} box and the matching upper box are filled, "
    "an all-same roll may go in any open box, full house and straights at full points",
    "forced": "forced joker: once the {box} box is filled, an all-same roll must go in the "
    "matching upper box if open, else in an open lower box at full points, else in an "
    "upper box for 0",
    "free-if-fifty": "joker while the {box} box holds its points: an all-same roll may then "
    "go in any open box (matching upper box filled), full house and straights at full points",
    "none": "no joker",
}


def joker_text(rules) -> str:
    """The joker rule of ``rules`` in words, the house rule that needs no filled
    all-alike box included."""
    if rules.extra_yahtzee is None:
        return JOKER_TEXT["none"]
    box = rules.categories[rules.yahtzee_index].label
    text = JOKER_TEXT[rules.joker].format(box=box)
    if rules.joker_always:
        text += f"; an all-same roll is a joker whether or not the {box} box is filled"
    return text


def expand_columns(data):
    """A scorecard of several columns becomes one box per (box, column).

    ``columns = [1, 2, 3]`` plays every box once in each column, its points
    times the column's multiplier (Yahtzee Triple, Kniffel Extreme). The boxes
    of column ``j`` (from 1) get ids ``ID_cJ`` and names ``NAME (xM)``.
    """
    if not isinstance(data, dict) or "columns" not in data:
        return data
    data = dict(data)
    columns = data.pop("columns")
    if (
        not isinstance(columns, list)
        or not 1 <= len(columns) <= MAX_COLUMNS
        or any(
            isinstance(m, bool) or not isinstance(m, int) or not 1 <= m <= MAX_FACTOR
            for m in columns
        )
    ):
        raise ValueError(
            f"columns: got {columns!r}, expected a list of 1 to {MAX_COLUMNS} multipliers, "
            f"whole numbers from 1 to {MAX_FACTOR}"
        )
    boxes = data.get("categories")
    if not isinstance(boxes, list) or not all(isinstance(b, dict) for b in boxes):
        return data  # the field checks say what is wrong
    n = len(boxes) * len(columns)
    if n > MAX_CATEGORIES:
        raise ValueError(
            f"columns: {len(columns)} columns of {len(boxes)} boxes make {n} boxes, "
            f"2^{n} = {float(2**n):.2e} sets of filled boxes before upper totals and "
            f"flags; at most {MAX_CATEGORIES} boxes (2^{MAX_CATEGORIES} sets) fit"
        )
    if len(columns) > 1 and data.get("upper_bonus") is not None:
        raise ValueError(
            "columns: an upper bonus in each column needs one upper total per column "
            "in the state; expected no upper_bonus with several columns"
        )
    if len(columns) > 1 and data.get("extra_yahtzee") is not None:
        raise ValueError(
            "columns: extra bonuses and jokers across columns are not supported; "
            "expected no extra_yahtzee with several columns"
        )
    expanded = []
    for j, m in enumerate(columns):
        for b in boxes:
            box = dict(b)
            if len(columns) > 1:
                box["id"] = f"{b.get('id')}_c{j + 1}"
                label = b.get("name") or str(b.get("id", "")).replace("_", " ").capitalize()
                box["name"] = f"{label} (x{m})"
                if b.get("requires") is not None:
                    box["requires"] = f"{b['requires']}_c{j + 1}"
            own = b.get("factor", 1)
            box["factor"] = m * own if isinstance(own, int) else own
            expanded.append(box)
    data["categories"] = expanded
    return data


@_model
class Rules:
    """A complete rule set of a category dice game.

    Examples
    --------
    >>> import dicelab
    >>> rules = dicelab.load_rules("yacht")
    >>> rules.dice, rules.faces, rules.n_categories
    (5, 6, 12)
    """

    __pydantic_config__: ClassVar = {"extra": "forbid"}

    name: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=60)]
    title: Annotated[str, Field(max_length=120)] = ""
    description: Annotated[str, Field(max_length=2000)] = ""
    dice: Annotated[int, Field(ge=1, le=MAX_DICE)]
    faces: Annotated[int, Field(ge=2, le=MAX_FACES)]
    rolls: Annotated[
        int, Field(ge=1, le=10, description="throws per turn: the first roll and rerolls")
    ]
    save_unused_throws: Annotated[
        bool, Field(description="throws a turn does not use are kept for later turns (Maxi Yatzy)")
    ] = False
    max_saved_throws: Annotated[int | None, Field(ge=1, le=60)] = None
    forced_order: Annotated[
        bool,
        Field(description="each turn fills the first open box in scorecard order (forced Yatzy)"),
    ] = False
    upper_bonus: UpperBonus | None = None
    extra_yahtzee: ExtraYahtzee | None = None
    categories: Annotated[
        list[
            Annotated[
                FaceCategory
                | ChanceCategory
                | OfAKindCategory
                | FullHouseCategory
                | PairsCategory
                | GroupsCategory
                | StraightCategory,
                Field(discriminator="kind"),
            ]
        ],
        Field(min_length=1, max_length=MAX_CATEGORIES),
    ]

    def __post_init__(self) -> None:
        ids = [c.id for c in self.categories]
        for i, c in enumerate(self.categories):
            where = f"categories[{i}] ({c.id})"
            if ids.index(c.id) != i:
                raise ValueError(f"{where}.id: '{c.id}' is used twice, ids must be unique")
            bad = misfit(c, self.dice, self.faces)
            if bad is not None:
                raise ValueError(f"{where}{'.' + bad[0] if bad[0] else ''}: {bad[1]}")
        self._check_requires(ids)
        if self.max_saved_throws is not None and not self.save_unused_throws:
            raise ValueError(
                "max_saved_throws: only with save_unused_throws = true (expected it removed, "
                "or save_unused_throws = true)"
            )
        if self.save_unused_throws and self.forced_order:
            raise ValueError(
                "forced_order: boxes in scorecard order and saved throws do not combine "
                "yet (expected forced_order = false, or save_unused_throws = false)"
            )
        if self.save_unused_throws and self.has_served:
            raise ValueError(
                "save_unused_throws: served bonuses and saved throws do not combine "
                "(expected save_unused_throws = false, or no served points)"
            )
        if self.extra_yahtzee is not None:
            y = self.extra_yahtzee
            if y.category not in ids:
                raise ValueError(
                    f"extra_yahtzee.category: '{y.category}' is not a category id "
                    f"(ids: {', '.join(ids)})"
                )
            cat = self.categories[ids.index(y.category)]
            if not (isinstance(cat, OfAKindCategory) and cat.count == self.dice):
                raise ValueError(
                    f"extra_yahtzee.category: '{y.category}' must be of_a_kind with "
                    f"count = {self.dice} (all dice alike)"
                )
        for i, c in enumerate(self.categories):
            if getattr(c, "served", 0) and c.counts_for_bonus:
                raise ValueError(
                    f"categories[{i}] ({c.id}).served: a box that adds to the upper total "
                    f"cannot have a served bonus; expected served = 0 or upper = false"
                )
        if self.joker != "none":
            for i, c in enumerate(self.categories):
                if getattr(c, "served", 0):
                    raise ValueError(
                        f"categories[{i}] ({c.id}).served: served bonuses cannot be combined "
                        f"with a joker rule; expected served = 0 or extra_yahtzee.joker = 'none'"
                    )

    def _check_requires(self, ids: list[str]) -> None:
        """A box that requires another: both all-dice-alike, one box required at most,
        and it is the extra rules' box where those exist (the state tracks one flag)."""
        required = None
        for i, c in enumerate(self.categories):
            if not isinstance(c, OfAKindCategory) or c.requires is None:
                continue
            where = f"categories[{i}] ({c.id}).requires"
            if c.requires not in ids or c.requires == c.id:
                raise ValueError(
                    f"{where}: '{c.requires}' is not another category id (ids: {', '.join(ids)})"
                )
            other = self.categories[ids.index(c.requires)]
            if c.count != self.dice or not (
                isinstance(other, OfAKindCategory) and other.count == self.dice
            ):
                raise ValueError(
                    f"{where}: both boxes must be of_a_kind with count = {self.dice} "
                    f"(all dice alike)"
                )
            if other.requires is not None:
                raise ValueError(f"{where}: '{c.requires}' itself requires a box")
            if required is not None and c.requires != required:
                raise ValueError(
                    f"{where}: every box must require the same box, expected '{required}'"
                )
            if self.extra_yahtzee is not None and c.requires != self.extra_yahtzee.category:
                raise ValueError(
                    f"{where}: expected the extra rules' box "
                    f"'{self.extra_yahtzee.category}' (the state tracks one box)"
                )
            required = c.requires

    def __repr__(self) -> str:
        return (
            f"<Rules {self.name}: {self.n_categories} boxes, {self.dice}d{self.faces}, "
            f"{self.rolls} throws a turn>"
        )

    __str__ = __repr__

    # -- derived facts -------------------------------------------------------------
    @property
    def n_categories(self) -> int:
        """Number of boxes, hence of turns."""
        return len(self.categories)

    @property
    def upper_mask(self) -> list[bool]:
        """Which boxes add to the upper total."""
        return [c.counts_for_bonus for c in self.categories]

    @property
    def bonus_threshold(self) -> int:
        """Upper total that earns the bonus (0 when there is no bonus)."""
        if self.upper_bonus is None or self.upper_bonus.points == 0:
            return 0
        return self.upper_bonus.threshold

    @property
    def bonus_points(self) -> int:
        """Points of the upper bonus (0 when there is none)."""
        return 0 if self.upper_bonus is None else self.upper_bonus.points

    @property
    def yahtzee_index(self) -> int:
        """Index of the all-same box of the extra-bonus rules, or -1."""
        if self.extra_yahtzee is None:
            return -1
        return [c.id for c in self.categories].index(self.extra_yahtzee.category)

    @property
    def required_index(self) -> int:
        """Index of the box that others require to hold points, or -1."""
        ids = [c.id for c in self.categories]
        for c in self.categories:
            if isinstance(c, OfAKindCategory) and c.requires is not None:
                return ids.index(c.requires)
        return -1

    @property
    def flag_index(self) -> int:
        """The box whose "holds points" the state tracks: the extra rules' all-same
        box, or the box others require; -1 when there is none."""
        if self.extra_yahtzee is not None:
            return self.yahtzee_index
        return self.required_index

    @property
    def saved_cap(self) -> int:
        """The most throws that can be saved for later turns (0 without saving)."""
        if not self.save_unused_throws:
            return 0
        most = (self.rolls - 1) * (self.n_categories - 1)
        return most if self.max_saved_throws is None else min(most, self.max_saved_throws)

    @property
    def has_served(self) -> bool:
        """Whether some box pays extra when scored on the first throw."""
        return any(getattr(c, "served", 0) for c in self.categories)

    @property
    def joker(self) -> str:
        """The joker mode (``none`` without extra-Yahtzee rules)."""
        return "none" if self.extra_yahtzee is None else self.extra_yahtzee.joker

    @property
    def joker_always(self) -> bool:
        """Whether an all-alike roll is a joker whether or not its box is filled."""
        return self.extra_yahtzee is not None and self.extra_yahtzee.joker_always

    @property
    def extra_bonus(self) -> int:
        """Points for each further all-same roll (0 for none)."""
        return 0 if self.extra_yahtzee is None else self.extra_yahtzee.bonus

    def normalised(self) -> dict:
        """Everything that changes results, as plain data (no title or description)."""
        data = self.as_data()
        del data["title"], data["description"]
        return data

    @classmethod
    def from_checked(cls, data: dict) -> Rules:
        """Rules from data known to be valid (the built-in files), built without
        pydantic: importing it and building its validators costs a command 60 to
        80 ms. The rules' own cross-checks still run; the tests hold every built-in
        equal to its validated form."""
        data = expand_columns(data)
        parts = dict(data)
        parts["categories"] = [CATEGORY_KINDS[c["kind"]](**c) for c in data["categories"]]
        for name, part in (("upper_bonus", UpperBonus), ("extra_yahtzee", ExtraYahtzee)):
            if parts.get(name) is not None:
                parts[name] = part(**parts[name])
        return cls(**parts)

    def as_data(self) -> dict:
        """Every field as plain data, title and description included: what
        :func:`dicelab.rules.parse_rules` reads back into equal rules.

        The switches added since the first tables (``forced_order``,
        ``joker_always``) appear only when on, so the fingerprint of every rule set
        without them, and every table and record made by it, stays as it was."""
        data = _plain(self)
        if not data["forced_order"]:
            del data["forced_order"]
        extra = data.get("extra_yahtzee")
        if extra is not None and not extra["joker_always"]:
            del extra["joker_always"]
        return data

    def fingerprint(self) -> str:
        """SHA-256 of the normalised rules: equal for rule sets that play alike."""
        text = json.dumps(self.normalised(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


@cache
def validator() -> TypeAdapter:
    """pydantic's validator of :class:`Rules` (and every part), built once, when the
    first rules data from outside needs checking.

    The models' annotations are strings that name pydantic's ``Field`` and
    ``BeforeValidator``; pydantic resolves them in this function's namespace.
    """
    from pydantic import BeforeValidator, Field, TypeAdapter  # noqa: F401 (read by name)

    return TypeAdapter(Rules)


@cache
def box_validator() -> TypeAdapter:
    """pydantic's validator of one box (any kind), built once when needed: the type of
    an element of :attr:`Rules.categories`, as the rules declare it."""
    from typing import get_args, get_type_hints

    from pydantic import BeforeValidator, Field, TypeAdapter

    names = {"Field": Field, "BeforeValidator": BeforeValidator}
    declared = get_type_hints(Rules, localns=names, include_extras=True)["categories"]
    boxes = get_args(get_args(declared)[0])[0]  # Annotated[list[box], ...] -> box
    return TypeAdapter(boxes)
