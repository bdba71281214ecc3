"""Pig, Shut the Box and the bear-off solved the textbook way, straight from the rules.

Nothing here uses the chance model or the graph solver: Pig by plain value
iteration over the mover's view ``(my score, their score, turn total)`` as in
Neller and Presser's equations; Shut the Box and the bear-off by memoised
recursion in exact fractions, the bear-off with a move generator of its own.
"""

from fractions import Fraction
from functools import cache
from itertools import combinations, product

F = Fraction


def pig_throws(faces, dice, piglet):
    """(chance, gain) of one throw; gain -1 loses the turn total, -2 the score."""
    if piglet:
        return [(0.5, 1), (0.5, -1)]
    out = []
    for throw in product(range(1, faces + 1), repeat=dice):
        ones = sum(1 for x in throw if x == 1)
        out.append((1 / faces**dice, -2 if ones == 2 else -1 if ones else sum(throw)))
    return out


def pig_values(goal, faces=6, dice=1, piglet=False, hold=None, tol=1e-14):
    """P[i, j, k]: the mover's chance to win with ``i`` against ``j`` and turn total ``k``
    when both play their best, or both play ``hold(i, j, k) -> bool`` when given."""
    throws = pig_throws(faces, dice, piglet)
    P = {(i, j, k): 0.0 for i in range(goal) for j in range(goal) for k in range(goal - i)}
    while True:
        change = 0.0
        for (i, j, k), old in P.items():
            roll = 0.0
            for p, gain in throws:
                if gain == -2:
                    roll += p * (1 - P[(j, 0, 0)])
                elif gain == -1:
                    roll += p * (1 - P[(j, i, 0)])
                elif i + k + gain >= goal:
                    roll += p
                else:
                    roll += p * P[(i, j, k + gain)]
            keep = 1 - P[(j, i + k, 0)] if k > 0 else -1.0
            held = hold is not None and k > 0 and hold(i, j, k)
            new = max(roll, keep) if hold is None else (keep if held else roll)
            change = max(change, abs(new - old))
            P[(i, j, k)] = new
        if change < tol:
            return P


def shut_the_box(tiles, one_die="when-top-shut", dice=2, score="shut"):
    """The best value of the full box, exactly, by recursion over the open tiles."""

    def totals(n):
        out = {}
        for throw in product(range(1, 7), repeat=n):
            out[sum(throw)] = out.get(sum(throw), F(0)) + F(1, 6**n)
        return out

    def end(open_):
        return F(sum(open_)) if score == "sum" else F(int(not open_))

    better = min if score == "sum" else max

    @cache
    def value(open_):
        if not open_:
            return end(open_)
        if dice == 1:
            counts = [1]
        elif one_die == "always" or (one_die == "when-top-shut" and max(open_) <= 6):
            counts = [1, 2]
        else:
            counts = [2]
        options = []
        for n in counts:
            total = F(0)
            for t, p in totals(n).items():
                ways = [set(c) for r in range(1, len(open_) + 1)
                        for c in combinations(open_, r) if sum(c) == t]  # fmt: skip
                if ways:
                    total += p * better(value(frozenset(open_ - w)) for w in ways)
                else:
                    total += p * end(open_)
            options.append(total)
        return better(options)

    return value(frozenset(range(1, tiles + 1)))


def bearoff_plays(checkers, throw):
    """Every result of playing ``throw`` with ``checkers`` (a sorted tuple of points)."""
    a, b = throw
    sequences = [(a,) * 4] if a == b else [(a, b), (b, a)]
    results = set()

    def go(pos, dice):
        if not dice or not pos:
            results.add(pos)
            return
        d, rest = dice[0], dice[1:]
        for idx in set(range(len(pos))):
            p = pos[idx]
            if p - d >= 1:
                after = tuple(sorted(pos[:idx] + (p - d,) + pos[idx + 1 :]))
            elif p == d or p == max(pos):
                after = pos[:idx] + pos[idx + 1 :]
            else:
                continue
            go(after, rest)

    go(tuple(sorted(checkers)), sequences[0])
    if len(sequences) > 1:
        go(tuple(sorted(checkers)), sequences[1])
    return results


THROWS = [((a, b), F(1 if a == b else 2, 36)) for a in range(1, 7) for b in range(a, 7)]


@cache
def bearoff_win(mine, theirs):
    """The chance that the side on roll (``mine``, a sorted tuple of points) wins."""
    total = F(0)
    for throw, p in THROWS:
        best = F(0)
        for after in bearoff_plays(mine, throw):
            best = max(best, F(1) if not after else 1 - bearoff_win(theirs, after))
        total += p * best
    return total


@cache
def bearoff_throws(mine):
    """The fewest expected throws to bear off ``mine`` (a sorted tuple of points)."""
    if not mine:
        return F(0)
    return 1 + sum(p * min(bearoff_throws(a) for a in bearoff_plays(mine, t)) for t, p in THROWS)
