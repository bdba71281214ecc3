"""The two-player game by a plain expectimax over both sheets.

It shares nothing with the solver but the category scoring and the joker rule of
:func:`oracles.expectimax.box_choices`: it throws ordered dice, keeps any subset
by position, and values every position by the final scores alone (no rows of
leads, no bounds, no keep recursion).
"""

from functools import cache
from itertools import product

from dicelab.engine.kernels.lead import EVEN
from oracles.expectimax import box_choices


def duel_brute_force(rules) -> float:
    """A's chance (a win plus half a tie) with both playing to win."""
    value, _ = duel_brute(rules)
    return value((0, 0, 0), (0, 0, 0), 0)


def duel_brute(rules):
    """``(value, throw)``: a turn start's and a throw's value for the player to move,
    whose sheet is ``(filled, upper total, flag)``, leading by ``lead``."""
    cats = rules.categories
    n = len(cats)
    faces, dice_n = rules.faces, rules.dice
    upper = [c.counts_for_bonus for c in cats]
    ybox = rules.yahtzee_index
    threshold = rules.upper_bonus.threshold if rules.upper_bonus else 0
    bonus = rules.upper_bonus.points if rules.upper_bonus else 0
    choices = box_choices(rules)
    full = (1 << n) - 1
    throws = [list(product(range(1, faces + 1), repeat=k)) for k in range(dice_n + 1)]

    def paid(up):
        return bonus if threshold and up >= threshold else 0

    @cache
    def value(me, other, lead):
        """Chance of the player to move, sheet ``me``, leading by ``lead``."""
        if me[0] == full and other[0] == full:  # B has just filled the last box
            final = lead + paid(me[1]) - paid(other[1])
            return 1.0 if final > 0 else 0.5 if final == 0 else 0.0
        outs = throws[dice_n]
        total = sum(throw(me, other, lead, tuple(sorted(x)), rules.rolls - 1) for x in outs)
        return total / len(outs)

    @cache
    def throw(me, other, lead, dice, rerolls):
        filled, up, yflag = me
        best = -1.0
        for c, pts, extra in choices(filled, yflag, dice):
            mine = (filled | 1 << c, up + (pts if upper[c] else 0),
                    (1 if pts > 0 else 0) if c == ybox else yflag)  # fmt: skip
            best = max(best, 1.0 - value(other, mine, -(lead + pts + extra)))
        if rerolls == 0:
            return best
        keeps = {tuple(dice[i] for i in range(dice_n) if bits >> i & 1)
                 for bits in range(1 << dice_n)}  # fmt: skip
        for kept in keeps:
            free = dice_n - len(kept)
            if free == 0:
                continue
            outs = throws[free]
            total = sum(throw(me, other, lead, tuple(sorted(kept + x)), rerolls - 1)
                        for x in outs)  # fmt: skip
            best = max(best, total / len(outs))
        return best

    return value, throw


FOUR_BOXES = {
    "name": "four",
    "dice": 2,
    "faces": 3,
    "rolls": 2,
    "upper_bonus": {"threshold": 4, "points": 5},
    "categories": [
        {"id": "ones", "kind": "face", "face": 1},
        {"id": "threes", "kind": "face", "face": 3},
        {"id": "pair", "kind": "of_a_kind", "count": 2, "score": 10},
        {"id": "sum", "kind": "chance"},
    ],
}


FOUR_TOML = """
name = "four"
dice = 2
faces = 3
rolls = 2

[upper_bonus]
threshold = 4
points = 5

[[categories]]
id = "ones"
kind = "face"
face = 1

[[categories]]
id = "threes"
kind = "face"
face = 3

[[categories]]
id = "pair"
kind = "of_a_kind"
count = 2
score = 10

[[categories]]
id = "sum"
kind = "chance"
"""


def better(a, b) -> bool:
    """Whether the (chance, lead) pair ``a`` beats ``b`` for the mover."""
    return a[0] > b[0] + EVEN or (a[0] >= b[0] - EVEN and a[1] > b[1])


def lead_brute(rules):
    """``(value, throw)``: a turn start's and a throw's ``(chance, expected lead)`` for
    the player to move, whose sheet is ``(filled, upper total, flag)``, leading by
    ``lead``."""
    cats = rules.categories
    n = len(cats)
    faces, dice_n = rules.faces, rules.dice
    upper = [c.counts_for_bonus for c in cats]
    ybox = rules.yahtzee_index
    threshold = rules.upper_bonus.threshold if rules.upper_bonus else 0
    bonus = rules.upper_bonus.points if rules.upper_bonus else 0
    choices = box_choices(rules)
    full = (1 << n) - 1
    throws = [list(product(range(1, faces + 1), repeat=k)) for k in range(dice_n + 1)]

    def paid(up):
        return bonus if threshold and up >= threshold else 0

    def mean(pairs):
        pairs = list(pairs)
        return sum(p[0] for p in pairs) / len(pairs), sum(p[1] for p in pairs) / len(pairs)

    @cache
    def value(me, other, lead):
        if me[0] == full and other[0] == full:
            final = lead + paid(me[1]) - paid(other[1])
            return (1.0 if final > 0 else 0.5 if final == 0 else 0.0), float(final)
        return mean(throw(me, other, lead, tuple(sorted(x)), rules.rolls - 1)
                    for x in throws[dice_n])  # fmt: skip

    @cache
    def throw(me, other, lead, dice, rerolls):
        filled, up, yflag = me
        best = None
        for c, pts, extra in choices(filled, yflag, dice):
            mine = (filled | 1 << c, up + (pts if upper[c] else 0),
                    (1 if pts > 0 else 0) if c == ybox else yflag)  # fmt: skip
            w, d = value(other, mine, -(lead + pts + extra))
            if best is None or better((1.0 - w, -d), best):
                best = (1.0 - w, -d)
        if rerolls == 0:
            return best
        keeps = {tuple(dice[i] for i in range(dice_n) if bits >> i & 1)
                 for bits in range(1 << dice_n)}  # fmt: skip
        for kept in keeps:
            free = dice_n - len(kept)
            if free == 0:
                continue
            option = mean(throw(me, other, lead, tuple(sorted(kept + x)), rerolls - 1)
                          for x in throws[free])  # fmt: skip
            if better(option, best):
                best = option
        return best

    return value, throw
