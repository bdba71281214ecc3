"""A position, its options and the advice on it: what every table's advice is made of.

A :class:`Position` is what a player sees: the scorecard (which boxes are filled,
with what), the dice showing and how many rerolls are left. An :class:`Option` is a
keep before a reroll or a box after the last throw, with its value and its cost
against the best one; an :class:`Advice` lists every option of a position, best
first. :func:`scorecard_state` turns a scorecard into a table's state, and
:func:`rank` ranks the values of a turn (any table's): the one template of
:meth:`dicelab.engine.table.SolvedTable.advise`. This module imports no solver, so
a position is made without loading Numba.

>>> from dicelab.engine.position import Option
>>> Option(kind="keep", value=12.5, cost=0.0, keep=(6, 6)).label
'keep 6 6'

Keeping every die
-----------------
Before a reroll, keeping all the dice means rolling no more: its value is that of
the best box for the dice showing. (Keeping all and rerolling nothing would only
postpone the same choice; the best option's value is the same either way.)

Served hands
------------
Where the rules pay extra for a hand made on the first throw (Generala's served
hands), scoring the first throw at once is a choice of box: the options after the
first throw are the keeps that reroll and the boxes with their served points.

Ordering
--------
Options are sorted by value, best first. Options whose values agree within
``1e-9`` keep a fixed order: keeps with more dice first, then by their faces in
ascending order; then boxes in scorecard order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from dicelab.errors import UserError
from dicelab.text import plural

TIE = 1e-9


@dataclass(frozen=True)
class Position:
    """A moment in a game where the player must choose.

    Parameters
    ----------
    dice : tuple of int
        The dice showing, faces from 1.
    rerolls : int
        Rerolls still allowed this turn (0 after the last throw).
    filled : mapping of box id to points
        The filled boxes and the points written in them. Points may be ``None``
        when unknown; then ``upper_total`` must be given if an upper box is among
        them, and the points of other such boxes are left out of the score so far.
    upper_total : int, optional
        Upper-section points so far; derived from ``filled`` when omitted.
    extra_bonuses : int
        Extra all-same bonuses already earned (each worth the rules' bonus).

    Examples
    --------
    >>> import dicelab
    >>> position = dicelab.Position(dice=(3, 3, 6, 5, 6), rerolls=2, filled={"ones": 3})
    >>> dicelab.solve("yacht").advise(position).best.label
    'keep 6 6'
    """

    dice: tuple[int, ...]
    rerolls: int
    filled: Mapping[str, int | None] = field(default_factory=dict)
    upper_total: int | None = None
    extra_bonuses: int = 0


@dataclass(frozen=True)
class Option:
    """One choice: a keep (before a reroll) or a box (after the last throw).

    Examples
    --------
    >>> import dicelab
    >>> dicelab.Option(kind="box", value=30.0, cost=0.0, box="full_house",
    ...                box_name="Full house", points=25).label
    'Full house (25)'
    """

    kind: str  # "keep" or "box"
    value: float
    cost: float
    keep: tuple[int, ...] | None = None
    box: str | None = None
    box_name: str | None = None
    points: int | None = None
    extra: int = 0
    stops: bool = False  # a keep of every die: no more rolling this turn

    @property
    def key(self) -> tuple:
        """What identifies the option across rankings (a keep, or a box)."""
        return (self.kind, self.keep, self.stops, self.box)

    @property
    def label(self) -> str:
        """Short text for tables: ``keep 6 6``, ``keep nothing``, ``keep all: 2 2 2 6 6``
        (score now) or ``Full house (25)``."""
        if self.kind == "keep":
            if self.stops:
                return "keep all: " + " ".join(map(str, self.keep or ()))
            return "keep " + (" ".join(map(str, self.keep)) if self.keep else "nothing")
        bonus = f" +{self.extra} bonus" if self.extra else ""
        return f"{self.box_name} ({self.points}{bonus})"


@dataclass(frozen=True)
class Advice:
    """Every option of a position, best first.

    Examples
    --------
    >>> import dicelab
    >>> advice = dicelab.solve("yacht").advise(dicelab.Position(dice=(3, 3, 6, 5, 6), rerolls=2))
    >>> advice.best.label, advice.measure, advice.options[1].cost > 0
    ('keep 6 6', 'expected_final_score', True)
    """

    position: Position
    score_so_far: int
    upper_total: int
    options: list[Option]
    target: int | None = None  # set when values are chances of reaching this score
    win: bool = False  # set when values are chances to beat a player who plays for points
    #: why each option is worth what it is, in option order, where asked for (see
    #: :mod:`dicelab.engine.objectives.explain`): each has ``text`` and ``to_dict()``
    explanations: tuple = ()
    #: what the values are, as JSON names them; by default from ``target`` and ``win``
    value_key: str | None = None

    @property
    def measure(self) -> str:
        """What the values are, as :meth:`to_dict` names them:
        ``expected_final_score``, ``probability`` (of the target), ``win_probability``
        or another objective's own (``certainty_equivalent``)."""
        if self.value_key is not None:
            return self.value_key
        if self.win:
            return "win_probability"
        return "expected_final_score" if self.target is None else "probability"

    @property
    def best(self) -> Option:
        return self.options[0]

    @property
    def value(self) -> float:
        """Expected final score from this position with optimal play (or, with a
        target, the best chance of reaching it)."""
        return self.options[0].value

    def to_dict(self) -> dict:
        """Plain data for JSON output."""
        key = self.measure
        out: dict[str, Any] = {
            "dice": list(self.position.dice),
            "rerolls_left": self.position.rerolls,
            "score_so_far": self.score_so_far,
            "upper_total": self.upper_total,
        }
        if self.target is not None:
            out["target"] = self.target
        out[key] = self.value
        out["options"] = [
            {
                "kind": o.kind,
                "label": o.label,
                "keep": list(o.keep) if o.keep is not None else None,
                "box": o.box,
                "points": o.points,
                "extra_bonus": o.extra,
                "stops": o.stops,
                key: o.value,
                "cost": o.cost,
            }
            for o in self.options
        ]
        options: list[dict] = out["options"]
        for option, why in zip(options, self.explanations, strict=False):
            option["explain"] = why.to_dict()
        return out


def scorecard_state(
    table, position: Position, allow_full: bool = False
) -> tuple[int, int, int, int]:
    """Check a scorecard and turn it into ``(mask, upper_total, flag, score)``.

    ``score`` is the points scored so far without the upper bonus (the table's
    values include the bonus, earned or to come).

    Raises
    ------
    UserError
        For an unknown box, points a box cannot score, an upper total the filled
        boxes cannot make, extra bonuses that cannot have been earned, or a full card
        (unless ``allow_full``: an opponent's finished sheet).
    """
    g = table.game
    rules = g.rules
    ids = [c.id for c in rules.categories]
    mask = 0
    score = 0
    upper_sum = 0
    unknown_upper: list[int] = []
    flag = 0
    extra = position.extra_bonuses
    if not isinstance(extra, int) or isinstance(extra, bool) or extra < 0:
        raise UserError(f"extra bonuses: got {extra!r}, expected a count of 0 or more")
    if extra and rules.extra_bonus == 0:
        raise UserError(f"extra bonuses: the rules {rules.name!r} have no extra bonus")
    for box, pts in position.filled.items():
        if box not in ids:
            raise UserError(f"unknown box {box!r}; the boxes are: {', '.join(ids)}")
        c = ids.index(box)
        mask |= 1 << c
        if pts is None:
            if g.upper[c]:
                unknown_upper.append(c)
            if c == g.yahtzee:
                raise UserError(f"box {box!r}: give its points (they decide the extra bonus)")
            continue
        possible = _possible_points(g, c)
        if isinstance(pts, bool) or not isinstance(pts, int) or pts not in possible:
            raise UserError(
                f"box {box!r}: {pts} points cannot be scored there "
                f"(possible: {', '.join(map(str, sorted(possible)))})"
            )
        score += pts
        if g.upper[c]:
            upper_sum += pts
        if c == g.yahtzee and pts > 0:
            flag = 1
    _check_order(rules, mask)
    score += extra * rules.extra_bonus
    if extra and not flag:
        raise UserError("extra bonuses need the all-same box filled with points")
    if extra and extra > bin(mask).count("1") - 1:
        raise UserError(
            f"extra bonuses: {extra} cannot have been earned with "
            f"{plural(bin(mask).count('1'), 'box')} filled "
            "(each one fills a box after the all-same box)"
        )
    if position.upper_total is None:
        if unknown_upper and g.threshold > 0:
            raise UserError("give the upper total: some upper boxes have no points")
        upper = upper_sum
    else:
        upper = position.upper_total
        if isinstance(upper, bool) or not isinstance(upper, int) or upper < 0:
            raise UserError(f"upper total: got {upper!r}, expected a whole number 0 or more")
        rest = upper - upper_sum
        if rest not in _sums(tuple(tuple(sorted(_possible_points(g, c))) for c in unknown_upper)):
            given = f"the upper boxes given add up to {upper_sum}"
            if unknown_upper:
                given = "the filled upper boxes cannot make it"
            raise UserError(f"upper total: got {upper}, but {given}")
        score += rest  # the points of the upper boxes given without points
    if mask == g.full_mask and not allow_full:
        raise UserError("every box is filled: the game is over")
    return mask, upper, g.turn_state(upper, flag)[1], score


def _check_order(rules, mask: int) -> None:
    """Under forced order a sheet is filled from the top: name the first box left
    open above a filled one (a table has no value for such a sheet)."""
    if not rules.forced_order or mask & (mask + 1) == 0:
        return
    first = min(c for c in range(rules.n_categories) if not (mask >> c) & 1)
    below = max(c for c in range(rules.n_categories) if (mask >> c) & 1)
    ids = [c.id for c in rules.categories]
    raise UserError(
        f"{rules.name} fills its boxes in scorecard order: {ids[below]!r} is filled "
        f"but {ids[first]!r} above it is open (expected every box before "
        f"{ids[below]!r} filled)"
    )


def _possible_points(game, c: int) -> frozenset[int]:
    """Every score box ``c`` can hold, with or without a joker."""
    return game.possible_points[c]


@lru_cache(maxsize=256)
def _sums(choices: tuple[tuple[int, ...], ...]) -> frozenset[int]:
    """Every total of one value from each tuple (the empty product sums to 0)."""
    totals = {0}
    for values in choices:
        totals = {t + v for t in totals for v in values}
    return frozenset(totals)


def check_turn(rules, position: Position) -> int:
    """Check the dice and rerolls of a position; returns the rerolls left."""
    rerolls = position.rerolls
    if len(position.dice) != rules.dice:
        raise UserError(f"dice: got {len(position.dice)}, expected {rules.dice}")
    if isinstance(rerolls, bool) or not isinstance(rerolls, int):
        raise UserError(f"rerolls left: got {rerolls!r}, expected a whole number")
    most = rules.rolls - 1 + rules.saved_cap  # throws in hand add rerolls
    if not 0 <= rerolls <= most:
        raise UserError(f"rerolls left: got {rerolls}, expected 0 to {most}")
    return rerolls


def rank(game, turn, roll: int, rerolls: int, offset: float) -> list[Option]:
    """Every option of a turn's values, ranked; ``offset`` is added to each value.

    ``turn`` is a :class:`~dicelab.engine.objectives.expected.TurnValues` or its target-table
    counterpart: both answer ``keep_value``, ``roll_value`` and ``box_options``.
    """
    space = game.space
    rules = game.rules
    raw: list[tuple[float, tuple, Option]] = []
    # on the first throw of rules with served bonuses, and on every throw of rules
    # that save unused throws, scoring at once is a choice of box (served points, or
    # the throws kept for later), not one "keep all" option
    served_now = game.has_served and rerolls == rules.rolls - 1
    boxes_now = rerolls == 0 or served_now or rules.save_unused_throws
    if rerolls > 0:
        for k in space.sub_keeps(roll):
            faces = space.faces_of(k)
            stops = k == roll
            if stops and boxes_now:
                continue
            value = offset + (turn.roll_value(roll, 0) if stops else turn.keep_value(rerolls, k))
            opt = Option(kind="keep", value=value, cost=0.0, keep=faces, stops=stops)
            raw.append((value, (0, -len(faces), faces), opt))
    if boxes_now:
        boxes = turn.box_options(roll, True) if served_now else turn.box_options(roll)
        for box, pts, extra, val in boxes:
            cat = rules.categories[box]
            value = offset + val
            opt = Option(
                kind="box",
                value=value,
                cost=0.0,
                box=cat.id,
                box_name=cat.label,
                points=pts,
                extra=extra,
            )
            raw.append((value, (1, box), opt))
    best = max(v for v, _, _ in raw)
    return [replace(o, cost=max(0.0, best - v)) for v, _, o in _stable_rank(raw)]


def _stable_rank(raw: list[tuple[float, tuple, Option]]) -> list[tuple[float, tuple, Option]]:
    """Sort by value, best first; values within TIE of each other by the tie key."""
    ordered = sorted(raw, key=lambda t: -t[0])
    out: list[tuple[float, tuple, Option]] = []
    i = 0
    while i < len(ordered):
        j = i + 1
        while j < len(ordered) and ordered[i][0] - ordered[j][0] <= TIE:
            j += 1
        out.extend(sorted(ordered[i:j], key=lambda t: t[1]))
        i = j
    return out
