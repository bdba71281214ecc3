"""A table-driven strategy played out exactly over ordered dice.

It values every option with the plain expectimax (or a given table), breaks ties
as documented (boxes in scorecard order; keeps with fewer dice, then faces
ascending) and adds up the probability of every final score.
"""

from functools import cache
from itertools import product

import pytest
from hypothesis import HealthCheck, settings

from dicelab.engine.objectives.distribution import ScoreDistribution
from dicelab.rules.compiled import compile_rules
from oracles.expectimax import BruteForce

TIE = 1e-9


class PolicyBrute:
    """A table-driven strategy played out exactly over ordered dice."""

    def __init__(self, rules, table=None):
        self.rules = rules
        self.b = BruteForce(rules, "expected")
        self.table = table
        game = compile_rules(rules)
        self.cap = game.threshold
        self.flags = game.n_flag
        same = rules.yahtzee_index
        if same < 0:
            kinds = [
                i for i, c in enumerate(rules.categories)
                if c.kind == "of_a_kind" and c.count == rules.dice
            ]  # fmt: skip
            same = kinds[0] if kinds else -1
        self.same = same
        self.fbox = rules.flag_index  # the box whose "holds points" the flag y says
        self.throw = cache(self._throw)
        self.outcomes = cache(self._outcomes)
        self.remaining = cache(self._remaining)

    def value(self, filled, up, y):
        if self.table is not None:
            yi = y if self.flags == 2 else 0
            return float(self.table[filled, yi, min(up, self.cap) if self.cap else 0])
        return float(self.b.state(filled, up, self.holds(y))[0])

    def holds(self, y):
        """The flag as the set of boxes holding points that matter."""
        return 1 << self.fbox if (y and self.fbox >= 0) else 0

    def first(self, r):
        """Whether a throw with ``r`` rerolls left is the turn's first."""
        return r == self.rules.rolls - 1

    def boxes(self, filled, up, y, dice, first=False):
        """The box chosen for final dice: the first within TIE of the running best."""
        best = None
        for c, pts, extra in self.b.choices(filled, y, dice, self.holds(y), first):
            up2 = up + (pts if self.b.upper[c] else 0)
            y2 = (1 if pts > 0 else 0) if c == self.fbox else y
            v = pts + extra + self.value(filled | 1 << c, up2, y2)
            if best is None or v > best[0] + TIE:
                best = (v, (c, pts, extra))
        return best

    def keeps(self, filled, up, y, dice, r):
        """Every distinct keep with its value (before a reroll)."""
        out = {}
        faces = self.rules.faces
        for bits in range(1 << len(dice)):
            kept = tuple(dice[i] for i in range(len(dice)) if bits >> i & 1)
            if kept in out:
                continue
            if len(kept) == len(dice):
                out[kept] = self.throw(filled, up, y, dice, r - 1)[0]
                if self.served_stop(filled, up, y, dice, r):
                    out[kept] = self.boxes(filled, up, y, dice, True)[0]
                continue
            news = list(product(range(1, faces + 1), repeat=len(dice) - len(kept)))
            out[kept] = sum(
                self.throw(filled, up, y, tuple(sorted(kept + n)), r - 1)[0] for n in news
            ) / len(news)
        return out

    def served_stop(self, filled, up, y, dice, r):
        """Whether a first throw is scored at once (served points beat rolling on)."""
        if not (self.first(r) and r > 0):
            return False
        now = self.boxes(filled, up, y, dice, True)[0]
        return now > self.throw(filled, up, y, dice, r - 1)[0] + TIE

    def _throw(self, filled, up, y, dice, r):
        """(value, choice) of a throw: a box, or a keep (fewer dice, faces ascending)."""
        if r == 0:
            return self.boxes(filled, up, y, dice, self.first(r))
        options = self.keeps(filled, up, y, dice, r)
        top = max(options.values())
        chosen = min((k for k, v in options.items() if v >= top - TIE), key=lambda k: (len(k), k))
        return options[chosen], chosen

    def _outcomes(self, filled, up, y, dice, r):
        """Probability of each (box, points, extra) from a throw on."""
        _, choice = self.throw(filled, up, y, dice, r)
        if r == 0:
            return {choice: 1.0}
        if len(choice) == len(dice) and self.served_stop(filled, up, y, dice, r):
            return {self.boxes(filled, up, y, dice, True)[1]: 1.0}
        out = {}
        faces = self.rules.faces
        news = list(product(range(1, faces + 1), repeat=len(dice) - len(choice)))
        for n in news:
            nxt = tuple(sorted(choice + n))
            for k, p in self.outcomes(filled, up, y, nxt, r - 1).items():
                out[k] = out.get(k, 0.0) + p / len(news)
        return out

    def _remaining(self, filled, up, y):
        """Probability of each (points to come, bonus earned, all-same box scored)."""
        b = self.b
        if filled == (1 << b.n) - 1:
            got = bool(b.threshold) and up >= b.threshold
            return {(b.bonus if got else 0, got, False): 1.0}
        turn = {}
        rolls = list(product(range(1, self.rules.faces + 1), repeat=self.rules.dice))
        for d in rolls:
            dice = tuple(sorted(d))
            for k, p in self.outcomes(filled, up, y, dice, self.rules.rolls - 1).items():
                turn[k] = turn.get(k, 0.0) + p / len(rolls)
        out = {}
        for (c, pts, extra), p in turn.items():
            up2 = up + (pts if b.upper[c] else 0)
            y2 = (1 if pts > 0 else 0) if c == self.fbox else y
            scored = c == self.same and pts > 0
            for (rest, bonus, same), q in self.remaining(filled | 1 << c, up2, y2).items():
                key = (rest + pts + extra, bonus, same or scored)
                out[key] = out.get(key, 0.0) + p * q
        return out

    def summary(self):
        pmf, bonus, same = {}, 0.0, 0.0
        for (x, b, s), p in self.remaining(0, 0, 0).items():
            pmf[x] = pmf.get(x, 0.0) + p
            bonus += p if b else 0.0
            same += p if s else 0.0
        return pmf, bonus, same


def assert_same_distribution(dist: ScoreDistribution, brute: PolicyBrute):
    pmf, bonus, same = brute.summary()
    assert max(pmf) < dist.pmf.size
    for x in range(dist.pmf.size):
        assert dist.pmf[x] == pytest.approx(pmf.get(x, 0.0), abs=1e-12)
    if dist.p_bonus is not None:
        assert dist.p_bonus == pytest.approx(bonus, abs=1e-12)
    if dist.p_all_same is not None:
        assert dist.p_all_same == pytest.approx(same, abs=1e-12)


BRUTE = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
