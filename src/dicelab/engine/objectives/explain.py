"""Why an option is best: its expected final score split by box and bonus.

Two options a point apart differ somewhere: one leaves Sixes lower on average,
the other makes the upper bonus likelier. The table here holds, for every
turn-start state, the expected points each open box will end with, the expected
upper-bonus and extra-bonus points and the chance that the all-alike box scores,
all under the expected-score optimum played from there (ties broken as in
:mod:`dicelab.engine.objectives.distribution`). The boxes and bonuses add up to the state's
expected points to come. :func:`explain` turns one position's options into these
figures, each option against the best one, with a sentence naming the two largest
differences.

The table is filled backwards like the expected score, from each state's turn
outcomes (:class:`dicelab.engine.objectives.distribution.OutcomeLayout`): a turn that puts
``p`` points in box ``c`` and earns an extra bonus ``e`` adds ``p`` to the part of
``c``, ``e`` to the extra bonuses and the next state's parts to the rest. It is
built from the double-precision expected-score table, so the parts of every
option add up to its expected final score to the last digits.

>>> from dicelab.engine.objectives.explain import explain_table
>>> round(explain_table("yazy").value(), 4)
165.7573
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from dicelab.engine import turn
from dicelab.engine.runtime.cost import Cost, expected_cost
from dicelab.engine.table import FollowsExpected, SolvedTable
from dicelab.errors import UserError
from dicelab.rules.compiled import (
    CompiledRules,
    all_same_box,
    as_game,
    refuse_variants,
    sorted_distinct,
)
from dicelab.rules.placement import next_flag

if TYPE_CHECKING:
    from dicelab.engine.objectives.expected import ExpectedTable
    from dicelab.engine.position import Advice, Option, Position

OBJECTIVE_EXPLAIN = "explain"
#: The parts after the boxes in a row: upper bonus, extra bonuses, all-alike box scored.
BONUS, EXTRA, SAME = 0, 1, 2
#: Extra work of this table over the expected-score solve (measured 25 to 30).
SLOWER = 40


# -- where each state's row lies ----------------------------------------------------------
@dataclass(frozen=True)
class PartsLayout:
    """Rows of every reachable turn-start state in one flat array.

    The row of ``(mask, y, u)`` starts at ``start[mask] + (y * n_lanes[mask] +
    lane_of[mask, u]) * width[mask]`` and holds one part per open box of ``mask``
    (in box order), then :data:`BONUS`, :data:`EXTRA` and :data:`SAME`.
    """

    start: np.ndarray
    lane_of: np.ndarray
    n_lanes: np.ndarray
    width: np.ndarray
    size: int

    @classmethod
    def of(cls, game: CompiledRules) -> PartsLayout:
        found = game.derived.get("parts_layout")
        if found is not None:
            return found
        reach = game.upper_reach
        n_lanes, width, sizes = _row_sizes(game)
        start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        lane_of = np.cumsum(reach, axis=1, dtype=np.int32) - 1
        lane_of[~reach] = -1
        for a in (start, lane_of, n_lanes, width):
            a.setflags(write=False)
        layout = cls(start, lane_of, n_lanes, width, int(sizes.sum()))
        game.derived["parts_layout"] = layout
        return layout

    def rows(self, mask, y, u):
        """Where the rows of states start (numbers or arrays)."""
        lane = y * self.n_lanes[mask] + self.lane_of[mask, u]
        return self.start[mask] + lane * self.width[mask]


def _row_sizes(game: CompiledRules):
    """``(n_lanes, width, sizes)`` per mask: lanes, parts per row, parts in all."""
    n = game.n_categories
    masks = np.arange(1 << n, dtype=np.int64)
    filled = np.zeros(1 << n, dtype=np.int64)
    for c in range(n):
        filled += (masks >> c) & 1
    width = n - filled + 3
    n_lanes = game.upper_reach.sum(axis=1, dtype=np.int64)
    flags = np.ones(1 << n, dtype=np.int64)
    if game.n_flag == 2:
        flags += (masks >> game.yahtzee) & 1
    return n_lanes, width, flags * n_lanes * width


def explain_cost(game: CompiledRules) -> Cost:
    """Memory and time of the table (refused in one line where they are too much)."""
    size = int(_row_sizes(game)[2].sum())
    base = expected_cost(game.rules)
    what = f"{game.rules.name}'s split of the expected score by box"
    index = game.upper_reach.size * 4  # where each row starts
    return Cost(what, size, 8 * size + index + base.bytes, SLOWER * base.seconds, unit="parts")


# -- the table ----------------------------------------------------------------------------
@dataclass(repr=False)
class ExplainTable(FollowsExpected, SolvedTable):
    """``values[layout.rows(mask, y, u) + j]``: part ``j`` of the points to come from a
    turn start (see :class:`PartsLayout`); ``expected`` is the double-precision
    expected-score table whose strategy they follow.

    Examples
    --------
    >>> import dicelab
    >>> table = dicelab.solve("yazy", objective="explain")
    >>> why = table.advise(dicelab.Position(dice=(6, 6, 6, 2, 1), rerolls=2))
    >>> why.explanations[0].text.startswith("Keeping 6 6 6 is best")
    True
    """

    expected: ExpectedTable
    values: np.ndarray

    objective: ClassVar[str] = OBJECTIVE_EXPLAIN

    @property
    def layout(self) -> PartsLayout:
        return PartsLayout.of(self.game)

    def value(self) -> float:
        """The expected final score of a whole game, from its parts."""
        n = self.game.n_categories
        return float(self.values[: n + EXTRA + 1].sum())

    @property
    def summary(self) -> str:
        return f"expected {self.value():.6f} split by box and bonus"

    def advise(self, position: Position) -> Advice:
        """Every option of a position ranked by expected final score, each with why
        (``advice.explanations``, see :func:`explain_advice`)."""
        return explain_advice(self, position)

    def parts(self, mask, y, u) -> np.ndarray:
        """The parts of states (numbers or arrays of the same shape): one row each,
        as wide as the open boxes of ``mask`` plus three."""
        lay = self.layout
        m = np.asarray(mask)
        if m.ndim and m.size and np.ptp(m):
            raise ValueError("parts: one mask at a time")
        width = int(lay.width[int(m.flat[0]) if m.ndim else int(m)])
        rows = np.asarray(lay.rows(mask, y, u))
        if rows.size and rows.min() < 0:
            raise ValueError("parts: a state that cannot be reached")
        mapped = self.meta.get("mapped")
        if mapped is not None:
            for r in sorted_distinct(rows):
                mapped.check(int(r), int(r) + width)
        return np.asarray(self.values[rows[..., None] + np.arange(width)])


def solve_explain(rules, values: ExpectedTable | None = None, progress=None) -> ExplainTable:
    """The parts of the points to come from every state (see the module)."""
    from dicelab.engine.kernels import rule_arrays
    from dicelab.engine.kernels.parts import parts_layer
    from dicelab.engine.objectives.distribution import OutcomeLayout
    from dicelab.engine.objectives.expected import expected_table
    from dicelab.engine.objectives.points import layers

    game = as_game(rules)
    refuse_variants(game, "the split of the score by box", served=False)
    if values is None:
        values = expected_table(game, precision="double")
    V = values.values
    start = time.perf_counter()
    lay = PartsLayout.of(game)
    n = game.n_categories
    W = np.zeros(lay.size)
    full = game.full_mask
    for y in range(game.flags_of(full)):
        us = np.flatnonzero(game.upper_reach[full])
        W[lay.rows(full, y, us) + BONUS] = V[full, y, us]  # the upper bonus, if any
    out = OutcomeLayout.of(game)
    slots = (out.lanes, out.n_lanes, out.box_slots, out.slot_pts, out.n_e)
    rows = (lay.start, lay.lane_of, lay.width)
    same = all_same_box(game.rules)
    all_layers = layers(n)
    for k in range(n - 1, -1, -1):
        masks = all_layers[k]
        Q, qoff = out.outcomes(game, V, masks)
        parts_layer(masks, W, rows, Q, qoff, slots, rule_arrays(game), same)
        if progress is not None:
            progress(n - k, n)
    return ExplainTable(values, W, seconds=time.perf_counter() - start)


def explain_table(
    rules,
    values: ExpectedTable | None = None,
    use_cache: bool = True,
    progress=None,
    allow_large: bool = False,
    mapped: bool = False,
) -> ExplainTable:
    """The table of a rule set, from the cache when it holds an intact one (with
    ``mapped``, read from the disk as it is needed)."""
    from dicelab.engine.objectives.expected import expected_table
    from dicelab.engine.runtime import cache

    game = as_game(rules)
    refuse_variants(game, "the split of the score by box", served=False)
    if values is None:
        values = expected_table(game, use_cache=use_cache, precision="double")
    shape = (PartsLayout.of(game).size,)
    if use_cache:
        found = cache.lookup(game.rules, OBJECTIVE_EXPLAIN, shape, mapped=mapped)
        if found is not None:
            array, meta = found
            return ExplainTable(values, array, meta=meta)
    cost = explain_cost(game)
    cost.check(allow_large)
    cost.announce()  # a solve of more than half a minute says so before it starts
    cost.tell(progress)
    table = solve_explain(game, values, progress)
    cache.remember(table, game.rules, OBJECTIVE_EXPLAIN, None, use_cache)
    return table


# -- inside one turn ----------------------------------------------------------------------
def _after_boxes(table: ExplainTable, mask: int, u: int, y: int, boxes) -> np.ndarray:
    """The parts (columns of ``mask``'s row) after putting points in boxes.

    ``boxes`` is ``(box, points, extra, y2, u2)``, arrays of one length, as
    :func:`dicelab.engine.turn.strategy_boxes` gives them.
    """
    box, pts, extra, y2, u2 = boxes
    game = table.game
    n = game.n_categories
    opens = [c for c in range(n) if not (mask >> c) & 1]
    n_x = len(opens)
    same = all_same_box(game.rules)
    out = np.zeros((box.size, n_x + 3))
    for c in sorted_distinct(box):
        sel = box == c
        nxt = table.parts(mask | (1 << int(c)), y2[sel], u2[sel])
        cols = [j for j, d in enumerate(opens) if d != c] + [n_x + BONUS, n_x + EXTRA, n_x + SAME]
        out[np.ix_(sel, cols)] = nxt
        out[sel, opens.index(int(c))] += pts[sel]
        out[sel, n_x + EXTRA] += extra[sel]
        if c == same:
            out[sel, n_x + SAME] += pts[sel] > 0
    return out


def turn_parts(table: ExplainTable, mask: int, u: int, y: int):
    """Values and parts inside one turn under the expected-score strategy.

    Returns ``(K, KP)``: ``K[0, roll]`` and ``KP[0, roll]`` for a final roll in the
    box the strategy picks, ``K[n, keep]`` and ``KP[n, keep]`` for keeping ``keep``
    with ``n`` rerolls left. ``KP`` has one column per part of ``mask``'s row.
    """
    game = table.game
    V = table.expected.values
    boxes = turn.strategy_boxes(game, V, mask, u, y)
    box, pts, extra, y2, u2 = boxes
    final = (pts + extra) + V[mask | (1 << box), y2, u2]
    parts = _after_boxes(table, mask, u, y, boxes)
    return turn.along_strategy(game.space, game.rules.rolls - 1, final, parts)


# -- what a player reads --------------------------------------------------------------------
@dataclass(frozen=True)
class Explanation:
    """What one option leads to, under the best play that follows.

    ``box_points`` maps every box id to the points it ends with on average (the
    points written, for a filled box; ``None`` where they were not given);
    ``upper_bonus`` and ``extra_bonus`` are expected bonus points (earned or to come),
    ``p_upper_bonus`` the chance of the upper bonus, ``expected_extra_bonuses`` their
    expected count, ``p_all_same`` the chance that the all-alike box ends with points
    (each ``None`` where the rules have no such thing). Boxes and bonuses add up to
    ``expected_final_score``.

    Examples
    --------
    >>> import dicelab
    >>> why = dicelab.solve("yazy", objective="explain").advise(
    ...     dicelab.Position(dice=(6, 6, 6, 2, 1), rerolls=2))
    >>> first = why.explanations[0]
    >>> abs(sum(first.box_points.values()) - first.expected_final_score) < 1e-9
    True
    """

    expected_final_score: float
    box_points: dict[str, float | None]
    upper_bonus: float
    p_upper_bonus: float | None
    extra_bonus: float
    expected_extra_bonuses: float | None
    p_all_same: float | None
    text: str = ""

    def to_dict(self) -> dict:
        return {
            "expected_final_score": self.expected_final_score,
            "box_points": dict(self.box_points),
            "upper_bonus": self.upper_bonus,
            "p_upper_bonus": self.p_upper_bonus,
            "extra_bonus": self.extra_bonus,
            "expected_extra_bonuses": self.expected_extra_bonuses,
            "p_all_same": self.p_all_same,
            "text": self.text,
        }


def _explained(game: CompiledRules, position: Position, state, row) -> Explanation:
    """An option's parts (a row of the state's ``mask``) in a player's terms."""
    mask, upper, score = state
    rules = game.rules
    n = game.n_categories
    opens = [c for c in range(n) if not (mask >> c) & 1]
    n_x = len(opens)
    boxes: dict[str, float | None] = {}
    for c, cat in enumerate(rules.categories):
        if c in opens:
            boxes[cat.id] = float(row[opens.index(c)])
        else:
            pts = position.filled.get(cat.id)
            boxes[cat.id] = None if pts is None else float(pts)
    bonus = rules.bonus_points if rules.bonus_threshold > 0 else 0
    won = float(row[n_x + BONUS])
    if bonus and game.threshold > 0 and upper >= game.threshold:
        won = float(bonus)  # earned already: certain, not a mean of certainties
    earned = position.extra_bonuses * rules.extra_bonus
    extra = float(row[n_x + EXTRA]) + earned
    same = all_same_box(rules)
    p_same = None
    if same >= 0:
        written = position.filled.get(rules.categories[same].id)
        p_same = float(row[n_x + SAME]) if same in opens else float(bool(written))
    return Explanation(
        expected_final_score=float(score + row[: n_x + EXTRA + 1].sum()),
        box_points=boxes,
        upper_bonus=won,
        p_upper_bonus=won / bonus if bonus else None,
        extra_bonus=extra,
        expected_extra_bonuses=extra / rules.extra_bonus if rules.extra_bonus else None,
        p_all_same=p_same,
    )


def explain(table: ExplainTable, advice: Advice) -> list[Explanation]:
    """Each option of an advice (made from ``table.expected``) explained, in its order.

    Raises
    ------
    UserError
        For rules that save unused throws (the table refuses them).
    """
    from dicelab.engine.position import scorecard_state

    game = table.game
    space = game.space
    position = advice.position
    mask, upper, flag, score = scorecard_state(table.expected, position)
    u, y = game.turn_state(upper, flag)
    keeps = any(o.kind == "keep" for o in advice.options)
    KP = turn_parts(table, mask, u, y)[1] if keeps else None
    roll = space.index(tuple(position.dice))
    rows = [_option_row(table, o, mask, u, y, KP, roll, position.rerolls) for o in advice.options]
    plain = [_explained(game, position, (mask, upper, score), r) for r in rows]
    return [_with_text(game, advice.options, plain, i) for i in range(len(advice.options))]


def _option_row(table, o: Option, mask, u, y, KP, roll: int, rerolls: int) -> np.ndarray:
    """The parts an option leads to."""
    game = table.game
    if o.kind == "keep":
        n, k = (0, roll) if o.stops else (rerolls, game.space.index(o.keep))
        return KP[n, k]
    c = [cat.id for cat in game.rules.categories].index(o.box)
    y2 = next_flag(c, y, o.points, game.yahtzee, game.n_flag)
    u2 = min(u + o.points, game.threshold) if game.upper[c] and game.threshold > 0 else u
    one = np.array([c]), np.array([o.points]), np.array([o.extra]), np.array([y2]), np.array([u2])
    return _after_boxes(table, mask, u, y, one)[0]


# -- the sentence -------------------------------------------------------------------------
#: Differences smaller than this (in points) are not worth a word.
NOTABLE = 0.05


def _doing(o: Option) -> str:
    """An option as a verb phrase: ``keeping 5 5 6``, ``scoring 25 in Full house``."""
    if o.kind == "keep" and not o.stops:
        return "keeping " + " ".join(map(str, o.keep)) if o.keep else "rerolling every die"
    if o.kind == "keep":
        assert o.keep is not None  # a keep of every die holds the dice
        return "scoring " + " ".join(map(str, o.keep)) + " now"
    bonus = f" and the {o.extra}-point extra bonus" if o.extra else ""
    return f"scoring {o.points} in {o.box_name}{bonus}"


def _instead(o: Option, other: Option) -> str:
    """``Keeping 5 5 6 instead of 6 6``: the verb said once where both are kept dice."""
    first, second = _doing(o), _doing(other)
    for verb in ("keeping ", "scoring "):  # both keeps of dice, or both boxes
        same = (o.kind, o.stops) == (other.kind, other.stops)
        if same and first.startswith(verb) and second.startswith(verb):
            second = second.removeprefix(verb)
    return f"{_capital(first)} instead of {second}"


def _percent(a: float, b: float) -> tuple[str, str]:
    """Two chances as percentages, with as many decimals (up to three) as it takes to
    tell them apart."""
    for digits in range(4):
        pair = (f"{100 * a:.{digits}f}%", f"{100 * b:.{digits}f}%")
        if pair[0] != pair[1]:
            break
    return pair


def _counts(a: float, b: float) -> tuple[str, str]:
    """Two expected counts, with two decimals or as many more as tell them apart."""
    for digits in range(2, 5):
        pair = (f"{a:.{digits}f}", f"{b:.{digits}f}")
        if pair[0] != pair[1]:
            break
    return pair


def differences(game: CompiledRules, ref: Explanation, new: Explanation) -> list[tuple[float, str]]:
    """What changes from ``ref`` to ``new``, in points and in words, largest first."""
    rules = game.rules
    out: list[tuple[float, str]] = []
    for cat in rules.categories:
        a, b = ref.box_points[cat.id], new.box_points[cat.id]
        if a is None or b is None:
            continue
        d = b - a
        way = "higher" if d > 0 else "lower"
        out.append((d, f"{cat.label} ends {_amount(abs(d))} {way} on average"))
    if ref.p_upper_bonus is not None:
        assert new.p_upper_bonus is not None  # the same rules: both have the bonus
        d = new.upper_bonus - ref.upper_bonus
        was, now = _percent(ref.p_upper_bonus, new.p_upper_bonus)
        out.append((d, f"the upper bonus {'rises' if d > 0 else 'falls'} from {was} to {now}"))
    if ref.expected_extra_bonuses is not None:
        assert new.expected_extra_bonuses is not None  # the same rules: both have them
        d = new.extra_bonus - ref.extra_bonus
        was, now = _counts(ref.expected_extra_bonuses, new.expected_extra_bonuses)
        way = "rise" if d > 0 else "fall"
        out.append((d, f"extra bonuses {way} from {was} to {now} on average"))
    return sorted(out, key=lambda t: -abs(t[0]))


def _amount(x: float) -> str:
    """Points in a sentence: one decimal, or two below a tenth."""
    return f"{x:.1f}" if x >= 0.1 else f"{x:.2f}"


def reasons(diffs: list[tuple[float, str]], better: bool) -> str:
    """The words that explain a gap: the two largest differences on the side of the gap
    (what the better option gains, or what the worse one loses), those worth a word;
    the largest difference the other way added with "though". Where no difference of
    the gap's side is worth a word, its largest is named all the same, so a cost is
    never explained by gains alone."""
    side = [s for d, s in diffs if (d > 0) == better and d != 0]
    other = [(d, s) for d, s in diffs if (d > 0) != better and d != 0]
    notable = [s for d, s in diffs if (d > 0) == better and abs(d) >= NOTABLE]
    named = notable[:2] or side[:1]
    if not named:
        return ""
    text = " and ".join(named)
    against = [s for d, s in other if abs(d) >= NOTABLE]
    if against:
        text += f", though {against[0]}"
    return text


def _points(x: float) -> str:
    return f"{x:.2f} points" if x < 1 else f"{x:.1f} points"


def _with_text(game, options, plain: list[Explanation], i: int) -> Explanation:
    """Explanation ``i`` with its sentence: against the best option, or for the best
    one, against the second."""
    from dataclasses import replace

    from dicelab.engine.position import TIE

    o = options[i]
    if len(options) == 1:
        return replace(plain[i], text=f"{_capital(_doing(o))} is the only choice.")
    if i == 0:
        other, ref, new = options[1], plain[1], plain[0]
        gap = o.value - other.value
        head = _capital(_doing(o))
        if gap <= TIE:
            text = f"{head} is as good as {_doing(other)}"
        else:
            text = f"{head} is best, {_points(gap)} ahead of {_doing(other)}"
    else:
        ref, new = plain[0], plain[i]
        text = _instead(o, options[0])
        text += " costs nothing" if o.cost <= TIE else f" costs {_points(o.cost)}"
    # new against ref: the best against the second (its gains), or an option against the
    # best (its losses)
    why = reasons(differences(game, ref, new), better=i == 0)
    text += f": {why}." if why else "."
    return replace(plain[i], text=text)


def explain_advice(table: ExplainTable, position: Position) -> Advice:
    """Advice on a position from the table's expected scores, each option explained
    (``advice.explanations``)."""
    from dataclasses import replace

    if table.game.rules.save_unused_throws:
        raise UserError("the why of each option: not for rules that save unused throws")
    advice = table.expected.advise(position)
    return replace(advice, explanations=tuple(explain(table, advice)))


# -- objectives valued in a chance ----------------------------------------------------------
@dataclass(frozen=True)
class ChanceExplanation:
    """Why an option is worth its chance (of a target, of a win): the chance and a
    sentence against the best option."""

    probability: float
    text: str

    def to_dict(self) -> dict:
        return {"probability": self.probability, "text": self.text}


def explain_chances(advice: Advice, table=None) -> Advice:
    """An advice valued in a chance, each option explained (``advice.explanations``);
    ``table``, the one the advice came from, is not needed."""
    from dataclasses import replace

    texts = chance_texts(advice)
    whys = (ChanceExplanation(o.value, t) for o, t in zip(advice.options, texts, strict=True))
    return replace(advice, explanations=tuple(whys))


def chance_texts(advice: Advice) -> list[str]:
    """One sentence per option of an advice valued in a chance (of a target, of a win):
    what the option does to that chance, against the best option (the best one
    against the second)."""
    if advice.win:
        what = "the chance to win"
    elif advice.target is not None:
        what = f"the chance of {advice.target} or more"
    else:
        raise ValueError("chance_texts: an advice valued in expected points")
    return _chance_sentences(advice.options, what)


def _chance_sentences(options, what: str, clause=None) -> list[str]:
    """The sentence of each option valued in a chance called ``what``, against the best
    option (the best against the second); ``clause(option, other)`` may add words."""
    from dicelab.engine.position import TIE

    out = []
    for i, o in enumerate(options):
        if len(options) == 1:
            out.append(f"{_capital(_doing(o))} is the only choice.")
            continue
        other = options[1] if i == 0 else options[0]
        was, now = _percent(other.value, o.value)
        if abs(o.value - other.value) <= TIE:
            text = f"{_capital(_doing(o))} is as good as {_doing(other)}: {what} is {now}"
        elif i == 0:
            text = f"{_capital(_doing(o))} is best: {what} is {now}, against {was} for "
            text += _doing(other)
        else:
            text = f"{_instead(o, other)} lowers {what} from {was} to {now}"
        out.append(text + (clause(o, other) if clause else "") + ".")
    return out


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def duel_texts(advice) -> list[str]:
    """One sentence per option of a duel's advice (a
    :class:`~dicelab.engine.advice.duel.DuelAdvice`): what it does to the chance to win
    against the best option, and what to the points: the expected final lead, both
    playing to win, where the advice has it (``advice.leads``); else, where playing to
    win parts from playing for points, the expected final score given up or gained."""
    best = advice.options[0]
    if advice.leads is not None:
        leads = advice.leads

        def points(o, other) -> str:
            d = leads[o.key] - leads[other.key]
            if abs(d) < NOTABLE:
                return ""
            but = "though" if (d > 0) != (o.value > other.value) else "and"
            if o is best:
                return (f", {but} its expected final lead is {leads[o.key]:+.1f} points, "
                        f"against {leads[other.key]:+.1f}")  # fmt: skip
            return (f", {but} the expected final lead {'rises' if d > 0 else 'falls'} from "
                    f"{leads[other.key]:+.1f} to {leads[o.key]:+.1f} points")  # fmt: skip

        return _chance_sentences(advice.options, "the chance to win", points)
    expected = {o.key: advice.expected_rank[o.key][1] for o in advice.options}

    def score(o, other) -> str:
        d = expected[o.key] - expected[other.key]
        if abs(d) < NOTABLE:
            return ""
        but = "though" if (d > 0) != (o.value > other.value) else "and"
        return f", {but} it expects {abs(d):.1f} points {'more' if d > 0 else 'fewer'}"

    return _chance_sentences(advice.options, "the chance to win", score)


def solve_objective(game: CompiledRules, spec, options) -> ExplainTable:
    """The registry's solve: from the double-precision expected-score table, so that
    the parts add up exactly."""
    from dicelab.engine.objectives.expected import expected_table

    double = expected_table(game, precision="double", **options.solver_kwargs("runner"))
    return explain_table(
        game, double, options.cache, options.progress, options.allow_large, mapped=options.mapped
    )


def objective_facts(rules, spec):
    """The registry's facts: the double-precision table's file and the split's."""
    from dicelab.engine.objectives.expected import OBJECTIVE
    from dicelab.engine.runtime import cache
    from dicelab.engine.runtime.cost import Facts

    double = cache.table_path(rules, OBJECTIVE, {"precision": "double"})
    both = (double, cache.table_path(rules, OBJECTIVE_EXPLAIN))
    return Facts((both,), explain_cost(as_game(rules)))
