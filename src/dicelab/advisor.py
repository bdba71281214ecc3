"""Advice: a position in, every option out, ranked by expected final score.

A :class:`Position` is what a player sees: the scorecard (which boxes are filled,
with what), the dice showing and how many rerolls are left. :func:`advise` lists
every distinct option, the keeps before a reroll or the open boxes after the last
throw, with its expected final score under optimal play from then on and its cost
against the best option.

>>> from dicelab.advisor import Position, advise
>>> from dicelab.solve.expected import expected_table
>>> table = expected_table("yahtzee")
>>> advice = advise(table, Position(dice=(3, 3, 6, 5, 6), rerolls_left=2))
>>> advice.best.keep
(6, 6)

Ordering
--------
Options are sorted by value, best first. Options whose values agree within
``1e-9`` keep a fixed order: keeps with more dice first, then by their faces in
ascending order; boxes in scorecard order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from dicelab.errors import UserError
from dicelab.solve.expected import ExpectedTable, turn_values

TIE = 1e-9


@dataclass(frozen=True)
class Position:
    """A moment in a game where the player must choose.

    Parameters
    ----------
    dice : tuple of int
        The dice showing, faces from 1.
    rerolls_left : int
        Rerolls still allowed this turn (0 after the last throw).
    filled : mapping of box id to points
        The filled boxes and the points written in them. Points may be ``None``
        when unknown; then ``upper_total`` must be given.
    upper_total : int, optional
        Upper-section points so far; derived from ``filled`` when omitted.
    extra_bonuses : int
        Extra all-same bonuses already earned (each worth the rules' bonus).
    """

    dice: tuple[int, ...]
    rerolls_left: int
    filled: Mapping[str, int | None] = field(default_factory=dict)
    upper_total: int | None = None
    extra_bonuses: int = 0


@dataclass(frozen=True)
class Option:
    """One choice: a keep (before a reroll) or a box (after the last throw)."""

    kind: str  # "keep" or "box"
    value: float
    cost: float
    keep: tuple[int, ...] | None = None
    box: str | None = None
    box_name: str | None = None
    points: int | None = None
    extra: int = 0

    @property
    def label(self) -> str:
        """Short text for tables: ``keep 6 6``, ``keep nothing`` or ``Full house (25)``."""
        if self.kind == "keep":
            return "keep " + (" ".join(map(str, self.keep)) if self.keep else "nothing")
        bonus = f" +{self.extra} bonus" if self.extra else ""
        return f"{self.box_name} ({self.points}{bonus})"


@dataclass(frozen=True)
class Advice:
    """Every option of a position, best first."""

    position: Position
    score_so_far: int
    upper_total: int
    options: list[Option]

    @property
    def best(self) -> Option:
        return self.options[0]

    @property
    def value(self) -> float:
        """Expected final score from this position with optimal play."""
        return self.options[0].value

    def to_dict(self) -> dict:
        """Plain data for JSON output."""
        return {
            "dice": list(self.position.dice),
            "rerolls_left": self.position.rerolls_left,
            "score_so_far": self.score_so_far,
            "upper_total": self.upper_total,
            "expected_final_score": self.value,
            "options": [
                {
                    "kind": o.kind,
                    "label": o.label,
                    "keep": list(o.keep) if o.keep is not None else None,
                    "box": o.box,
                    "points": o.points,
                    "extra_bonus": o.extra,
                    "expected_final_score": o.value,
                    "cost": o.cost,
                }
                for o in self.options
            ],
        }


def scorecard_state(table: ExpectedTable, position: Position) -> tuple[int, int, int, int]:
    """Check a scorecard and turn it into ``(mask, upper_total, flag, score)``.

    ``score`` is the points scored so far without the upper bonus (the table's
    values include the bonus, earned or to come).
    """
    g = table.game
    rules = g.rules
    ids = [c.id for c in rules.categories]
    mask = 0
    score = position.extra_bonuses * rules.extra_bonus
    upper_sum = 0
    unknown_upper = False
    flag = 0
    if position.extra_bonuses < 0:
        raise UserError("extra bonuses: expected a count of 0 or more")
    if position.extra_bonuses and rules.extra_bonus == 0:
        raise UserError(f"extra bonuses: the rules {rules.name!r} have no extra bonus")
    for box, pts in position.filled.items():
        if box not in ids:
            raise UserError(f"unknown box {box!r}; the boxes are: {', '.join(ids)}")
        c = ids.index(box)
        mask |= 1 << c
        if pts is None:
            if g.upper[c]:
                unknown_upper = True
            if c == g.yahtzee:
                raise UserError(f"box {box!r}: give its points (they decide the extra bonus)")
            continue
        possible = set(int(x) for x in g.score[c]) | set(int(x) for x in g.joker_score[c])
        if pts not in possible:
            raise UserError(
                f"box {box!r}: {pts} points cannot be scored there "
                f"(possible: {', '.join(map(str, sorted(possible)))})"
            )
        score += pts
        if g.upper[c]:
            upper_sum += pts
        if c == g.yahtzee and pts > 0:
            flag = 1
    if position.extra_bonuses and not flag:
        raise UserError("extra bonuses need the all-same box filled with points")
    if position.upper_total is None:
        if unknown_upper:
            raise UserError("give the upper total: some upper boxes have no points")
        upper = upper_sum
    else:
        upper = position.upper_total
        if upper < 0:
            raise UserError(f"upper total: got {upper}, expected 0 or more")
        if not unknown_upper and upper != upper_sum:
            raise UserError(
                f"upper total: got {upper}, but the upper boxes given add up to {upper_sum}"
            )
        capped = min(upper, g.threshold) if g.threshold > 0 else 0
        if g.threshold > 0 and not g.upper_reach[mask, capped]:
            raise UserError(f"upper total: the filled upper boxes cannot make {upper}")
    if mask == g.full_mask:
        raise UserError("every box is filled: the game is over")
    return mask, upper, flag if g.n_flag == 2 else 0, score


def advise(table: ExpectedTable, position: Position) -> Advice:
    """Rank every option of a position by expected final score."""
    g = table.game
    space = g.space
    rules = g.rules
    if len(position.dice) != rules.dice:
        raise UserError(f"dice: got {len(position.dice)}, expected {rules.dice}")
    if not 0 <= position.rerolls_left <= rules.rolls - 1:
        raise UserError(
            f"rerolls left: got {position.rerolls_left}, expected 0 to {rules.rolls - 1}"
        )
    mask, upper, flag, score = scorecard_state(table, position)
    roll = space.index(position.dice)
    turn = turn_values(table, mask, upper, flag)
    raw: list[tuple[float, tuple, Option]] = []
    if position.rerolls_left > 0:
        for k in space.sub_keeps(roll):
            faces = space.faces_of(k)
            value = score + turn.keep_value(position.rerolls_left, k)
            opt = Option(kind="keep", value=value, cost=0.0, keep=faces)
            raw.append((value, (-len(faces), faces), opt))
    else:
        for o in turn.box_options(roll):
            cat = rules.categories[o.box]
            value = score + o.value
            opt = Option(
                kind="box", value=value, cost=0.0, box=cat.id, box_name=cat.label,
                points=o.points, extra=o.extra,
            )  # fmt: skip
            raw.append((value, (o.box,), opt))
    best = max(v for v, _, _ in raw)
    options = [
        Option(**{**o.__dict__, "cost": max(0.0, best - v)}) for v, _, o in _stable_rank(raw)
    ]
    return Advice(position=position, score_so_far=score, upper_total=upper, options=options)


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
