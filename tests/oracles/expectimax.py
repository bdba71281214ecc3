"""Plain expectimax over ordered dice: the independent value of a rule set.

It shares nothing with the solvers but the category scoring functions (tested on
their own in test_rules.py): it throws ordered dice, keeps any subset of dice by
position, tracks the raw upper total and which boxes hold points, and applies the
extra-bonus and joker rules as SPEC words them, served bonuses on the first throw
and boxes that pay only once another holds points; forced order (the roll goes in
the first open box, scoring there by the joker only where the joker rule would put
it there) and the joker that needs no filled all-alike box (``joker_always``).
:class:`BruteForce` carries vectors over a points axis (points still needed, or
scored so far), so one run answers every target, or any utility of the final score,
at once.
"""

from fractions import Fraction
from functools import cache
from itertools import product

import numpy as np


def box_choices(rules):
    """``choices(filled, yflag, dice)``: (box, points, extra) for every box the final
    dice may go in, as SPEC words the joker and extra-bonus rules."""
    cats = rules.categories
    n = len(cats)
    faces = rules.faces
    upper = [c.counts_for_bonus for c in cats]
    ybox = rules.yahtzee_index
    joker = rules.joker
    extra_pts = rules.extra_bonus
    always = rules.extra_yahtzee is not None and rules.extra_yahtzee.joker_always

    def counts(dice):
        c = [0] * faces
        for d in dice:
            c[d - 1] += 1
        return tuple(c)

    def joker_points(c, dice):
        cat = cats[c]
        natural = cat.points(counts(dice))
        if upper[c] or natural > 0 or cat.kind in ("face", "chance"):
            return natural
        fixed = getattr(cat, "score", "all")
        return (fixed if isinstance(fixed, int) else sum(dice)) * cat.factor

    ids = [c.id for c in cats]

    def plain_points(c, dice, holds, first):
        """Box ``c``'s points for the dice, as the rules text says."""
        cat = cats[c]
        needs = getattr(cat, "requires", None)
        if needs is not None and not holds >> ids.index(needs) & 1:
            return 0
        pts = cat.points(counts(dice))
        if first and getattr(cat, "served", 0) and cat.matches(counts(dice)):
            pts += cat.served * cat.factor  # part of the box's points: multiplied too
        return pts

    def choices(filled, yflag, dice, holds=0, first=False):
        """(box, points, extra) for every box the final dice may go in; ``holds``:
        the boxes holding points; ``first``: the dice are the turn's first throw."""
        found = any_order(filled, yflag, dice, holds, first)
        return in_order(rules, filled, found, lambda c: plain_points(c, dice, holds, first))

    def any_order(filled, yflag, dice, holds, first):
        open_boxes = [c for c in range(n) if not filled >> c & 1]
        same = len(set(dice)) == 1
        y_filled = ybox >= 0 and (filled >> ybox & 1 or always)
        normal = [(c, plain_points(c, dice, holds, first)) for c in open_boxes]
        if not (same and y_filled):
            return [(c, p, 0) for c, p in normal]
        extra = extra_pts if yflag else 0
        match = [c for c in range(n) if cats[c].kind == "face" and cats[c].face == dice[0]]
        match_open = bool(match) and not filled >> match[0] & 1
        if joker in ("free", "free-if-fifty"):
            if match_open or (joker == "free-if-fifty" and not yflag):
                return [(c, p, extra) for c, p in normal]
            return [(c, joker_points(c, dice), extra) for c in open_boxes]
        if joker == "forced":
            if match_open:
                return [(match[0], cats[match[0]].points(counts(dice)), extra)]
            lower = [c for c in open_boxes if not upper[c]]
            if lower:
                return [(c, joker_points(c, dice), extra) for c in lower]
            return [(c, p, extra) for c, p in normal]
        return [(c, p, extra) for c, p in normal]

    return choices


def in_order(rules, filled, found, plain):
    """``found`` (box, points, extra) under forced order: the first open box only,
    as the joker rule scores it there, or with its ``plain(box)`` points where the
    joker rule would not put the roll there."""
    if not rules.forced_order:
        return found
    first = min(c for c in range(rules.n_categories) if not filled >> c & 1)
    there = [move for move in found if move[0] == first]
    return there or [(first, plain(first), found[0][2])]


def brute_force(rules) -> float:
    cats = rules.categories
    n = len(cats)
    faces = rules.faces
    dice_n = rules.dice
    upper = [c.counts_for_bonus for c in cats]
    ybox = rules.yahtzee_index
    threshold = rules.upper_bonus.threshold if rules.upper_bonus else 0
    bonus = rules.upper_bonus.points if rules.upper_bonus else 0
    choices = box_choices(rules)

    saving = rules.save_unused_throws
    cap = rules.max_saved_throws if rules.max_saved_throws is not None else 10**9

    @cache
    def game_value(filled, up_total, holds, saved=0):
        if filled == (1 << n) - 1:
            return bonus if threshold and up_total >= threshold else 0.0
        return turn_start(filled, up_total, holds, saved)

    def turn_start(filled, up_total, holds, saved):
        total = 0.0
        outcomes = list(product(range(1, faces + 1), repeat=dice_n))
        for dice in outcomes:
            total += throw_value(filled, up_total, holds, tuple(sorted(dice)),
                                 rules.rolls - 1 + saved, rules.rolls - 1 + saved)  # fmt: skip
        return total / len(outcomes)

    @cache
    def throw_value(filled, up_total, holds, dice, rerolls, most):
        """Best value of the dice with ``rerolls`` left in a turn that had ``most``."""
        best = -1.0
        yflag = 1 if ybox >= 0 and holds >> ybox & 1 else 0
        first = rerolls == most
        # unused throws go to the next turn when the rules save them
        keep_for_later = min(rerolls, cap) if saving else 0
        for c, pts, extra in choices(filled, yflag, dice, holds, first):
            up2 = up_total + (pts if upper[c] else 0)
            holds2 = holds | (1 << c if pts > 0 else 0)
            best = max(best, pts + extra + game_value(filled | 1 << c, up2, holds2,
                                                      keep_for_later))  # fmt: skip
        if rerolls == 0:
            return best
        for keep_bits in range(1 << dice_n):
            kept = [dice[i] for i in range(dice_n) if keep_bits >> i & 1]
            free = dice_n - len(kept)
            if free == 0:
                continue
            outs = list(product(range(1, faces + 1), repeat=free))
            avg = 0.0
            for new in outs:
                avg += throw_value(filled, up_total, holds, tuple(sorted(kept + list(new))),
                                   rerolls - 1, most)  # fmt: skip
            best = max(best, avg / len(outs))
        return best

    return game_value(0, 0, 0, 0)


class BruteForce:
    """Plain expectimax over ordered dice with values on a points axis.

    ``mode``: ``"needed"`` (lane ``s``: the chance of at least ``s`` more points),
    ``"so_far"`` (lane ``a``: expected utility with ``a`` points so far) or
    ``"expected"`` (one lane: expected points to come). With ``exact`` the values
    are fractions.
    """

    def __init__(self, rules, mode, lanes=1, utility=None, exact=False):
        self.rules = rules
        self.cats = rules.categories
        self.n = len(self.cats)
        self.faces = rules.faces
        self.dice_n = rules.dice
        self.upper = [c.counts_for_bonus for c in self.cats]
        self.ybox = rules.yahtzee_index
        self.joker = rules.joker
        self.extra_pts = rules.extra_bonus
        self.threshold = rules.upper_bonus.threshold if rules.upper_bonus else 0
        self.bonus = rules.upper_bonus.points if rules.upper_bonus else 0
        self.mode = mode
        self.lanes = lanes
        self.at = np.arange(lanes)
        self.utility = utility
        self.exact = exact
        self.throw = cache(self._throw)
        self.state = cache(self._state)

    def counts(self, dice):
        c = [0] * self.faces
        for d in dice:
            c[d - 1] += 1
        return tuple(c)

    def joker_points(self, c, dice):
        cat = self.cats[c]
        natural = cat.points(self.counts(dice))
        if self.upper[c] or natural > 0 or cat.kind in ("face", "chance"):
            return natural
        fixed = getattr(cat, "score", "all")
        return (fixed if isinstance(fixed, int) else sum(dice)) * cat.factor

    def plain_points(self, c, dice, holds, first):
        """Box ``c``'s points: 0 while a box it requires holds none; served points on
        the first throw."""
        cat = self.cats[c]
        needs = getattr(cat, "requires", None)
        if needs is not None and not holds >> [x.id for x in self.cats].index(needs) & 1:
            return 0
        pts = cat.points(self.counts(dice))
        if first and getattr(cat, "served", 0) and cat.matches(self.counts(dice)):
            pts += cat.served * cat.factor  # part of the box's points: multiplied too
        return pts

    def choices(self, filled, yflag, dice, holds=0, first=False):
        found = self.any_order(filled, yflag, dice, holds, first)
        return in_order(
            self.rules, filled, found, lambda c: self.plain_points(c, dice, holds, first)
        )

    def any_order(self, filled, yflag, dice, holds, first):
        n, cats = self.n, self.cats
        open_boxes = [c for c in range(n) if not filled >> c & 1]
        same = len(set(dice)) == 1
        always = self.rules.extra_yahtzee is not None and self.rules.extra_yahtzee.joker_always
        y_filled = self.ybox >= 0 and (filled >> self.ybox & 1 or always)
        normal = [(c, self.plain_points(c, dice, holds, first)) for c in open_boxes]
        if not (same and y_filled):
            return [(c, p, 0) for c, p in normal]
        extra = self.extra_pts if yflag else 0
        match = [c for c in range(n) if cats[c].kind == "face" and cats[c].face == dice[0]]
        match_open = bool(match) and not filled >> match[0] & 1
        if self.joker in ("free", "free-if-fifty"):
            if match_open or (self.joker == "free-if-fifty" and not yflag):
                return [(c, p, extra) for c, p in normal]
            return [(c, self.joker_points(c, dice), extra) for c in open_boxes]
        if self.joker == "forced":
            if match_open:
                return [(match[0], cats[match[0]].points(self.counts(dice)), extra)]
            lower = [c for c in open_boxes if not self.upper[c]]
            if lower:
                return [(c, self.joker_points(c, dice), extra) for c in lower]
        return [(c, p, extra) for c, p in normal]

    def vector(self, values):
        if self.exact:
            return np.array([Fraction(v) for v in values], dtype=object)
        return np.array(values, dtype=np.float64)

    def terminal(self, up):
        b = self.bonus if self.threshold and up >= self.threshold else 0
        if self.mode == "needed":
            return self.vector([1 if s <= b else 0 for s in range(self.lanes)])
        if self.mode == "so_far":
            u = self.utility
            return self.vector([u[min(a + b, len(u) - 1)] for a in range(self.lanes)])
        return self.vector([b])

    def after(self, w, gain):
        if self.mode == "needed":
            return w[np.maximum(self.at - gain, 0)]
        if self.mode == "so_far":
            return w[np.minimum(self.at + gain, self.lanes - 1)]
        return w + gain

    def _state(self, filled, up, holds):
        """Value of a turn start; ``holds``: the boxes holding points."""
        if filled == (1 << self.n) - 1:
            return self.terminal(up)
        outcomes = list(product(range(1, self.faces + 1), repeat=self.dice_n))
        total = sum(self.throw(filled, up, holds, tuple(sorted(d)), self.rules.rolls - 1)
                    for d in outcomes)  # fmt: skip
        return total / len(outcomes)

    def _throw(self, filled, up, holds, dice, rerolls):
        best = None
        yflag = 1 if self.ybox >= 0 and holds >> self.ybox & 1 else 0
        first = rerolls == self.rules.rolls - 1
        for c, pts, extra in self.choices(filled, yflag, dice, holds, first):
            up2 = up + (pts if self.upper[c] else 0)
            v = self.after(self.state(filled | 1 << c, up2, holds | (1 << c if pts > 0 else 0)),
                           pts + extra)  # fmt: skip
            best = v if best is None else np.maximum(best, v)
        if rerolls == 0:
            return best
        seen = set()
        for bits in range(1 << self.dice_n):
            kept = tuple(dice[i] for i in range(self.dice_n) if bits >> i & 1)
            if kept in seen or len(kept) == self.dice_n:
                continue
            seen.add(kept)
            outs = list(product(range(1, self.faces + 1), repeat=self.dice_n - len(kept)))
            total = sum(self.throw(filled, up, holds, tuple(sorted(kept + new)), rerolls - 1)
                        for new in outs)  # fmt: skip
            best = np.maximum(best, total / len(outs))
        return best

    def start(self):
        return self.state(0, 0, 0)


def scored_totals(rules) -> dict:
    """Every total a game can have scored at each turn start, by walking every game.

    Keys are ``(filled, holds, up_total)`` (the boxes filled, those holding points,
    the raw upper total); values the set of totals (bonuses of extra all-alike rolls
    included, the upper bonus not: it is paid at the end). A final roll may be the
    turn's first throw (a served bonus) or, with rerolls, a later one.
    """
    cats = rules.categories
    n = len(cats)
    upper = [c.counts_for_bonus for c in cats]
    ybox = rules.yahtzee_index
    choices = box_choices(rules)
    rolls = {tuple(sorted(d)) for d in product(range(1, rules.faces + 1), repeat=rules.dice)}
    firsts = (True, False) if rules.rolls > 1 else (True,)
    found: dict = {(0, 0, 0): {0}}
    for k in range(n):  # sheets with k boxes filled, then their successors
        for (filled, holds, up), totals in list(found.items()):
            if bin(filled).count("1") != k:
                continue
            yflag = 1 if ybox >= 0 and holds >> ybox & 1 else 0
            for dice in rolls:
                for first in firsts:
                    for c, pts, extra in choices(filled, yflag, dice, holds, first):
                        key = (
                            filled | 1 << c,
                            holds | (1 << c if pts > 0 else 0),
                            up + (pts if upper[c] else 0),
                        )
                        found.setdefault(key, set()).update(t + pts + extra for t in totals)
    return found
