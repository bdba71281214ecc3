"""A table of players by a plain expectimax: my first turn played to finish first."""

import itertools

import numpy as np

from oracles.policy import PolicyBrute


def share_by_enumeration(me: int, pmfs) -> float:
    """My chance to finish first with ``me`` points: every tuple of the opponents'
    scores, a tie for first shared."""
    total = 0.0
    supports = [np.flatnonzero(p) for p in pmfs]
    for scores in itertools.product(*supports):
        p = np.prod([pmf[s] for pmf, s in zip(pmfs, scores, strict=True)])
        best = max(scores)
        if me > best:
            total += p
        elif me == best:
            total += p / (1 + sum(s == best for s in scores))
    return total


def lookahead_brute(rules, pmfs, dice, rerolls):
    """Each option of my first turn at a table, played to finish first this turn and
    for points after it: a plain expectimax over ordered dice and every keep by
    position, the points to come after each box from ``PolicyBrute``'s own play."""
    policy = PolicyBrute(rules)
    upper = [c.counts_for_bonus for c in rules.categories]

    def counts(d):
        return tuple(d.count(f) for f in range(1, rules.faces + 1))

    def box(c, d):
        pts = rules.categories[c].points(counts(d))
        rest = policy.remaining(1 << c, pts if upper[c] else 0, 0)
        return sum(p * share_by_enumeration(pts + x, pmfs) for (x, _, _), p in rest.items())

    def throw(d, r):
        best = max(box(c, d) for c in range(len(rules.categories)))
        if r == 0:
            return best
        for bits in range(1 << len(d)):
            best = max(best, keep(tuple(d[i] for i in range(len(d)) if bits >> i & 1), r))
        return best

    def keep(kept, r):
        free = rules.dice - len(kept)
        if free == 0:
            return throw(kept, 0)
        outs = [tuple(sorted(kept + x)) for x in
                itertools.product(range(1, rules.faces + 1), repeat=free)]  # fmt: skip
        return float(np.mean([throw(o, r - 1) for o in outs]))

    return keep, box, throw
