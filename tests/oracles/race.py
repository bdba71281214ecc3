"""The dice race by listing every throw and by the textbook recursion."""

from fractions import Fraction
from functools import cache
from itertools import product

F = Fraction


def brute_distribution(dice, faces):
    """Sum chances by listing every ordered throw."""
    counts = {}
    for throw in product(range(1, faces + 1), repeat=dice):
        counts[sum(throw)] = counts.get(sum(throw), 0) + 1
    return {s: F(c, faces**dice) for s, c in counts.items()}


def plain_race(a, b, dice, faces):
    """(win, lose, tie) by the textbook recursion over what is left on both lists.

    A throw of sum s crosses s off each list that holds it; throws that hit neither list
    leave the position unchanged, so V = sum_s p_s V(next) / (1 - p_stay).
    """
    p = brute_distribution(dice, faces)

    @cache
    def value(left_a, left_b):
        if not left_a and not left_b:
            return F(0), F(1)
        if not left_a:
            return F(1), F(0)
        if not left_b:
            return F(0), F(0)
        live = set(left_a) | set(left_b)
        stay = 1 - sum(p[s] for s in live)
        win = tie = F(0)
        for s in live:
            na = list(left_a)
            nb = list(left_b)
            if s in na:
                na.remove(s)
            if s in nb:
                nb.remove(s)
            w, t = value(tuple(na), tuple(nb))
            win += p[s] * w
            tie += p[s] * t
        return win / (1 - stay), tie / (1 - stay)

    win, tie = value(tuple(sorted(a)), tuple(sorted(b)))
    return win, 1 - win - tie, tie
