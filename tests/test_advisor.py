"""Advice against the table and against a plain enumeration of reroll outcomes.

The enumeration below values every option from the turn-start table alone: a
keep is the average over its reroll outcomes (``DiceSpace.reroll_outcomes``) of
the best choice with one reroll fewer, a box is its points (from the category's
own scoring), the extra bonus and the table's value of the next turn. The joker
rules are applied as SPEC words them.
"""

import json
from itertools import product

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicelab.engine.advice.single import TIE, Position, advise, scorecard_state
from dicelab.engine.objectives.expected import expected_table
from dicelab.errors import UserError
from dicelab.rules import parse_rules

RULES = ["yahtzee", "yahtzee-forced-joker"]


@pytest.fixture(scope="module")
def tables():
    # double-precision turns, so a table entry and the advice's turn agree to 1e-9
    return {name: expected_table(name, precision="double") for name in RULES}


@pytest.fixture(scope="module")
def yahtzee(tables):
    return tables["yahtzee"]


class Plain:
    """Option values of one scorecard, by plain enumeration."""

    def __init__(self, table, filled: dict, extra_bonuses: int):
        self.table = table
        self.rules = table.rules
        self.cats = self.rules.categories
        self.space = table.game.space
        self.ids = [c.id for c in self.cats]
        self.filled = filled
        self.mask = sum(1 << self.ids.index(b) for b in filled)
        self.upper = sum(
            p for b, p in filled.items() if self.cats[self.ids.index(b)].counts_for_bonus
        )
        ybox = self.rules.extra_yahtzee.category if self.rules.extra_yahtzee else None
        self.ybox = ybox
        self.flag = 1 if ybox and filled.get(ybox, 0) > 0 else 0
        self.score = sum(filled.values()) + extra_bonuses * self.rules.extra_bonus
        self.memo_keep: dict = {}
        self.memo_roll: dict = {}

    def counts(self, k):
        return tuple(int(x) for x in self.space.counts[k])

    def joker_points(self, cat, counts):
        natural = cat.points(counts)
        if cat.counts_for_bonus or natural > 0 or cat.kind in ("face", "chance"):
            return natural
        fixed = getattr(cat, "score", "all")
        return fixed if isinstance(fixed, int) else sum((f + 1) * n for f, n in enumerate(counts))

    def choices(self, counts):
        """(box id, points, extra) for every box the dice may go in."""
        open_cats = [c for c in self.cats if c.id not in self.filled]
        normal = [(c, c.points(counts)) for c in open_cats]
        same = max(counts) == self.rules.dice
        if not (same and self.ybox in self.filled):
            return [(c.id, p, 0) for c, p in normal]
        extra = self.rules.extra_bonus if self.flag else 0
        face = counts.index(self.rules.dice) + 1
        match = [c for c in self.cats if c.kind == "face" and c.face == face]
        match_open = bool(match) and match[0].id not in self.filled
        joker = self.rules.extra_yahtzee.joker
        if joker == "free":
            if match_open:
                return [(c.id, p, extra) for c, p in normal]
            return [(c.id, self.joker_points(c, counts), extra) for c in open_cats]
        if joker == "forced":
            if match_open:
                return [(match[0].id, match[0].points(counts), extra)]
            lower = [c for c in open_cats if not c.counts_for_bonus]
            if lower:
                return [(c.id, self.joker_points(c, counts), extra) for c in lower]
        return [(c.id, p, extra) for c, p in normal]

    def box_value(self, box, pts, extra):
        c = self.ids.index(box)
        g = self.table.game
        u = self.upper + (pts if self.cats[c].counts_for_bonus else 0)
        u = min(u, g.threshold) if g.threshold else 0
        y = (1 if pts > 0 else 0) if box == self.ybox else self.flag
        nxt = float(self.table.values[self.mask | (1 << c), y if g.n_flag == 2 else 0, u])
        return self.score + pts + extra + nxt

    def boxes(self, roll):
        return {b: self.box_value(b, p, e) for b, p, e in self.choices(self.counts(roll))}

    def sub_keeps(self, roll):
        counts = self.counts(roll)
        for take in product(*(range(n + 1) for n in counts)):
            yield self.space.index([f + 1 for f, n in enumerate(take) for _ in range(n)])

    def roll_value(self, roll, rerolls):
        key = (roll, rerolls)
        if key not in self.memo_roll:
            best = max(self.boxes(roll).values())
            if rerolls > 0:
                best = max(best, max(self.keep_value(k, rerolls) for k in self.sub_keeps(roll)))
            self.memo_roll[key] = best
        return self.memo_roll[key]

    def keep_value(self, keep, rerolls):
        key = (keep, rerolls)
        if key not in self.memo_keep:
            self.memo_keep[key] = sum(
                float(p) * self.roll_value(r, rerolls - 1)
                for r, p in self.space.reroll_outcomes(keep).items()
            )
        return self.memo_keep[key]


@st.composite
def positions(draw):
    """A random reachable position of one of RULES (name, filled, extra, dice, rerolls)."""
    from dicelab.rules import load_rules
    from dicelab.rules.compiled import compile_rules

    name = draw(st.sampled_from(RULES))
    g = compile_rules(load_rules(name))
    cats = g.rules.categories
    n = len(cats)
    chosen = draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n - 1))
    filled = {}
    for c in chosen:
        possible = sorted(set(int(x) for x in g.score[c]) | set(int(x) for x in g.joker_score[c]))
        filled[cats[c].id] = draw(st.sampled_from(possible))
    extra = 0
    if filled.get("yahtzee", 0) > 0 and len(filled) >= 2:
        extra = draw(st.integers(0, min(2, len(filled) - 1)))
    if draw(st.booleans()):
        dice = [draw(st.integers(1, 6))] * 5
    else:
        dice = draw(st.lists(st.integers(1, 6), min_size=5, max_size=5))
    rerolls = draw(st.integers(0, 2))
    return name, filled, extra, tuple(dice), rerolls


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_options_match_plain_enumeration(tables, pos):
    name, filled, extra, dice, rerolls = pos
    table = tables[name]
    advice = advise(table, Position(dice, rerolls, filled, extra_bonuses=extra))
    plain = Plain(table, filled, extra)
    space = table.game.space
    roll = space.index(dice)
    if rerolls == 0:
        expect = plain.boxes(roll)
        assert {o.box for o in advice.options} == set(expect)
        for o in advice.options:
            assert o.kind == "box"
            assert o.value == pytest.approx(expect[o.box], abs=1e-9)
    else:
        keeps = set(plain.sub_keeps(roll))
        assert len(advice.options) == len(keeps)
        for o in advice.options:
            k = space.index(o.keep)
            if k == roll:  # keeping every die: the best box now
                assert o.stops
                assert o.value == pytest.approx(plain.roll_value(roll, 0), abs=1e-9)
            else:
                assert not o.stops
                assert o.value == pytest.approx(plain.keep_value(k, rerolls), abs=1e-9)
    # the best option is the value of the position, costs are measured from it
    assert advice.value == pytest.approx(plain.roll_value(roll, rerolls), abs=1e-9)
    assert advice.score_so_far == plain.score
    for o in advice.options:
        assert o.cost == pytest.approx(advice.value - o.value, abs=1e-12)
    values = [o.value for o in advice.options]
    assert all(a >= b - TIE for a, b in zip(values, values[1:], strict=False))


def test_best_option_averages_to_the_turn_start_value(yahtzee):
    # before the first throw a turn is worth the table's value: the average of the
    # best option over every first throw must give it back
    space = yahtzee.game.space
    for filled, upper in [({}, 0), ({"sixes": 24, "chance": 22, "yahtzee": 50}, 24)]:
        mask, u, flag, score = scorecard_state(yahtzee, Position((1, 1, 1, 1, 1), 2, filled))
        total = 0.0
        for r, p in zip(space.rolls, space.roll_prob, strict=True):
            advice = advise(yahtzee, Position(space.faces_of(int(r)), 2, filled))
            total += float(p) * advice.value
        assert u == upper
        assert total == pytest.approx(score + yahtzee.value(mask, u, flag), abs=1e-9)


def test_start_of_game_keeps_the_two_sixes(yahtzee):
    advice = advise(yahtzee, Position(dice=(3, 3, 6, 5, 6), rerolls=2))
    assert advice.best.kind == "keep"
    assert advice.best.keep == (6, 6)
    assert advice.best.cost == 0.0
    assert advice.options[1].cost > 0


def test_final_full_house_goes_in_full_house(yahtzee):
    advice = advise(yahtzee, Position(dice=(2, 2, 2, 6, 6), rerolls=0))
    assert advice.best.box == "full_house"
    assert advice.best.points == 25
    assert {o.box for o in advice.options} == {c.id for c in yahtzee.rules.categories}


def test_first_roll_options_are_every_distinct_keep(yahtzee):
    # 3 3 5 6 6 has 3 * 2 * 3 = 18 distinct sub-multisets
    advice = advise(yahtzee, Position(dice=(3, 3, 6, 5, 6), rerolls=2))
    keeps = [o.keep for o in advice.options]
    assert len(keeps) == len(set(keeps)) == 18
    assert sum(o.stops for o in advice.options) == 1


def lowest(table, boxes):
    """Each box filled with the least it can score (chance: 5)."""
    g = table.game
    ids = [c.id for c in table.rules.categories]
    return {b: int(g.score[ids.index(b)].min()) for b in boxes}


def test_ties_keep_the_documented_order(yahtzee):
    # only the Yahtzee box open, upper boxes all 0: keeping one die of any face is
    # worth the same, and so is keeping any two of a kind; ties list more dice
    # first, then faces in ascending order
    filled = lowest(yahtzee, [c.id for c in yahtzee.rules.categories if c.id != "yahtzee"])
    advice = advise(yahtzee, Position(dice=(1, 2, 3, 4, 5), rerolls=2, filled=filled))
    singles = [o.keep for o in advice.options if len(o.keep) == 1]
    assert singles == [(1,), (2,), (3,), (4,), (5,)]
    first = advice.options.index(next(o for o in advice.options if len(o.keep) == 1))
    assert [o.keep for o in advice.options[first : first + 5]] == singles
    for a, b in zip(advice.options, advice.options[1:], strict=False):
        if abs(a.value - b.value) <= TIE:
            assert (-len(a.keep), a.keep) < (-len(b.keep), b.keep)


def test_box_ties_in_scorecard_order():
    # two identical chance boxes: either is worth the same, listed in scorecard order
    rules = parse_rules(
        {
            "name": "two-chances",
            "dice": 3,
            "faces": 6,
            "rolls": 2,
            "categories": [
                {"id": "ones", "kind": "face", "face": 1},
                {"id": "chance_b", "kind": "chance"},
                {"id": "chance_a", "kind": "chance"},
            ],
        }
    )
    table = expected_table(rules)
    for dice in [(6, 6, 5), (1, 1, 1), (2, 3, 4)]:
        advice = advise(table, Position(dice=dice, rerolls=0))
        boxes = [o.box for o in advice.options]
        b, a = boxes.index("chance_b"), boxes.index("chance_a")
        assert a == b + 1
        assert advice.options[a].value == pytest.approx(advice.options[b].value, abs=1e-9)


def test_extra_bonus_and_score_so_far(yahtzee):
    filled = {"yahtzee": 50, "ones": 3, "sixes": 30, "fours": 16}
    advice = advise(yahtzee, Position((6, 6, 6, 6, 6), 0, filled, extra_bonuses=1))
    assert advice.score_so_far == 50 + 3 + 30 + 16 + 100
    assert advice.upper_total == 49
    assert all(o.extra == 100 for o in advice.options)


def test_unknown_points_need_the_upper_total(yahtzee):
    filled = {"ones": None, "threes": None, "chance": 20}
    with pytest.raises(UserError, match="upper total"):
        advise(yahtzee, Position((1, 2, 3, 4, 5), 2, filled))
    advice = advise(yahtzee, Position((1, 2, 3, 4, 5), 2, filled, upper_total=11))
    known = advise(yahtzee, Position((1, 2, 3, 4, 5), 2, {"ones": 2, "threes": 9, "chance": 20}))
    assert advice.value == pytest.approx(known.value, abs=1e-9)
    assert advice.score_so_far == 31


def test_json_round_trip(yahtzee):
    advice = advise(yahtzee, Position((3, 3, 6, 5, 6), 2))
    data = json.loads(json.dumps(advice.to_dict()))
    assert data["options"][0]["keep"] == [6, 6]
    assert data["expected_final_score"] == pytest.approx(advice.value)


@pytest.mark.parametrize(
    "position, message",
    [
        (Position((1, 2, 3, 4, 5, 6, 6), 2), "dice: got 7"),
        (Position((1, 2, 3, 4, 9), 2), "die 9"),
        (Position((1, 2, 3, 4, 5), 3), "rerolls left"),
        (Position((1, 2, 3, 4, 5), 2, {"nines": 3}), "unknown box"),
        (Position((1, 2, 3, 4, 5), 2, {"ones": 7}), "cannot be scored"),
        (Position((1, 2, 3, 4, 5), 2, {"full_house": 20}), "cannot be scored"),
        (Position((1, 2, 3, 4, 5), 2, {"ones": 3}, upper_total=5), "upper total"),
        (Position((1, 2, 3, 4, 5), 2, {"ones": None, "twos": None}, upper_total=16), "cannot make"),
        (Position((1, 2, 3, 4, 5), 2, {"ones": None}, upper_total=-1), "upper total"),
        (Position((1, 2, 3, 4, 5), 2, {"yahtzee": 0, "ones": 1}, extra_bonuses=1), "extra"),
        (Position((1, 2, 3, 4, 5), 2, {"yahtzee": 50}, extra_bonuses=1), "extra bonuses"),
        (Position((1, 2, 3, 4, 5), 2, {"yahtzee": None}), "give its points"),
        (Position((1, 2, 3, 4, 5), 2, {}, extra_bonuses=-1), "extra bonuses"),
    ],
)
def test_bad_positions_are_user_errors(yahtzee, position, message):
    with pytest.raises(UserError, match=message):
        advise(yahtzee, position)


def test_full_card_is_an_error(yahtzee):
    filled = lowest(yahtzee, [c.id for c in yahtzee.rules.categories])
    with pytest.raises(UserError, match="game is over"):
        advise(yahtzee, Position((1, 2, 3, 4, 5), 0, filled))


@pytest.mark.slow
def test_play_to_reach_a_target():
    # "play to reach S": the best option's chance averaged over every first roll is
    # the target table's chance at the start; a box after the last throw is worth
    # the table's chance at the state it leads to
    from dicelab.engine.advice.single import advise_target
    from dicelab.engine.objectives.target import target_table

    t = target_table("yazy", dtype=np.float64)  # a double table: agreement to 1e-12
    s = t.game.space
    total = 0.0
    for r, p in zip(s.rolls, s.roll_prob, strict=True):
        total += p * advise_target(t, Position(dice=s.faces_of(r), rerolls=2), 200).value
    assert total == pytest.approx(t.probability(200), abs=1e-12)
    advice = advise_target(t, Position(dice=(6, 6, 6, 5, 6), rerolls=0), 200)
    ids = [c.id for c in t.game.rules.categories]
    for o in advice.options:
        c = ids.index(o.box)
        upper = o.points if c < 6 else 0
        assert o.value == pytest.approx(t.value(1 << c, upper, 0, 200 - o.points))
    assert advice.to_dict()["target"] == 200 and "probability" in advice.to_dict()
    with pytest.raises(UserError, match="best possible score"):
        advise_target(t, Position(dice=(1, 2, 3, 5, 6), rerolls=2), 100_000)
