"""Advice in bulk (:class:`dicelab.engine.advice.query.OptionValues`) against :func:`advise`,
whose values are checked against a plain enumeration in ``test_advisor.py``."""

import random

import pytest

from dicelab.engine.advice.query import OptionValues
from dicelab.engine.advice.single import Position, advise, scorecard_state
from dicelab.engine.objectives.expected import expected_table
from dicelab.errors import UserError


def _positions(table, n, seed):
    """Random positions whose scorecards can occur: advise accepts them."""
    rng = random.Random(seed)
    rules = table.rules
    cats = rules.categories
    g = table.game
    out = []
    while len(out) < n:
        boxes = rng.sample(range(len(cats)), rng.randrange(len(cats)))
        filled = {cats[c].id: int(rng.choice(sorted(set(g.score[c].tolist())))) for c in boxes}
        dice = tuple(rng.randint(1, rules.faces) for _ in range(rules.dice))
        pos = Position(dice, rng.randint(0, rules.rolls - 1), filled)
        try:
            scorecard_state(table, pos)
        except UserError:
            continue
        out.append(pos)
    return out


def _key(ask, code, roll_faces):
    """An option's key as :class:`dicelab.engine.advice.single.Option` has it."""
    if code < 0:
        return ("box", None, False, ask.game.rules.categories[-1 - code].id)
    faces = ask.game.space.faces_of(code)
    return ("keep", faces, faces == roll_faces, None)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["yahtzee", "yatzy", "yacht"])
def test_every_option_and_value_as_advise_gives_them(name):
    table = expected_table(name)
    ask = OptionValues(table)
    for pos in _positions(table, 150, seed=len(name)):
        mask, upper, y, score = scorecard_state(table, pos)
        got = {
            _key(ask, code, tuple(sorted(pos.dice))): value + score
            for code, value in ask(mask, upper, y, pos.dice, pos.rerolls)
        }
        want = {o.key: o.value for o in advise(table, pos).options}
        assert got == want  # the same options, values to the last bit


def test_labels():
    ask = OptionValues(expected_table("yahtzee"))
    options = dict(ask(0, 0, 0, (3, 3, 6, 5, 6), 2))
    best = max(options, key=options.get)
    assert ask.label(best) == "keep 6 6"
    labels = {ask.label(c) for c in options}
    assert {"keep nothing", "keep all: 3 3 5 6 6"} <= labels
    boxes = dict(ask(0, 0, 0, (2, 2, 2, 6, 6), 0))
    assert ask.label(max(boxes, key=boxes.get)) == "full_house"


def test_mistakes_are_told():
    ask = OptionValues(expected_table("yahtzee"))
    with pytest.raises(UserError, match="dice"):
        ask(0, 0, 0, (1, 2, 3, 4, 7), 1)
    with pytest.raises(UserError, match="dice"):
        ask(0, 0, 0, (1, 2, 3, 4), 1)
    with pytest.raises(UserError, match="rerolls"):
        ask(0, 0, 0, (1, 2, 3, 4, 5), 3)
    with pytest.raises(UserError, match="filled"):
        ask(ask.game.full_mask, 0, 0, (1, 2, 3, 4, 5), 1)
    with pytest.raises(UserError, match="upper total"):
        ask(0, -1, 0, (1, 2, 3, 4, 5), 1)
    with pytest.raises(UserError, match="cannot occur"):
        ask(0, 5, 0, (1, 2, 3, 4, 5), 1)  # an upper total with no upper box filled
    with pytest.raises(UserError, match="serve points"):
        OptionValues(expected_table("generala"))
