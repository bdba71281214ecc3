"""Farkle solved the textbook way, straight from the rules, in points.

Nothing here uses the chance model, the solver or the family's own scoring: a set
of dice is scored by trying every way to cut it into scoring combinations; a
throw is every ordered tuple of faces, each equally likely; the choices after a
throw are every subset of its dice (by position) that scores. One turn alone by
memoised recursion (the turn total only grows), the game to a goal by plain value
iteration over (my score, their score, turn total, dice to throw) from the
mover's side, as Neller and Presser's equations for Pig.
"""

from functools import cache
from itertools import combinations, product


def combos(three_ones=1000, three_pairs=750, straight=1500, kinds="add", ones=100, fives=50,
           four_kind=1000, five_kind=2000, six_kind=3000, two_triples=0,
           four_and_pair=0):  # fmt: skip
    """Every scoring combination as (sorted dice, points), none worth 0."""
    out = [((1,), ones), ((5,), fives)]
    fixed = {4: four_kind, 5: five_kind, 6: six_kind}
    for face in range(1, 7):
        three = three_ones if face == 1 else 100 * face
        for m in range(3, 7):
            extra = m - 3
            points = three * (2**extra if kinds == "double" else 1 + extra)
            if kinds == "fixed":
                points = three if m == 3 else fixed[m]
            out.append(((face,) * m, points))
    if three_pairs:
        for a, b, c in combinations(range(1, 7), 3):
            out.append(((a, a, b, b, c, c), three_pairs))
    if straight:
        out.append(((1, 2, 3, 4, 5, 6), straight))
    for a, b in combinations(range(1, 7), 2):
        out.append(((a, a, a, b, b, b), two_triples))
        out.append((tuple(sorted((a,) * 4 + (b,) * 2)), four_and_pair))
        out.append((tuple(sorted((b,) * 4 + (a,) * 2)), four_and_pair))
    return [(dice, points) for dice, points in out if points]


def make_score(table):
    """``score(dice)``: the most points of a set of dice every one of which counts
    (0 when some die cannot count)."""

    @cache
    def score(dice):
        if not dice:
            return 0
        best = -1
        for combo, points in table:
            rest = list(dice)
            try:
                for d in combo:
                    rest.remove(d)
            except ValueError:
                continue
            below = score(tuple(rest))
            if below >= 0:
                best = max(best, points + below)
        return best

    return lambda dice: max(score(tuple(sorted(dice))), 0)


def choices(roll, score):
    """(points, dice left) of every subset of the throw's dice that scores."""
    out = set()
    for r in range(1, len(roll) + 1):
        for kept in combinations(range(len(roll)), r):
            points = score([roll[i] for i in kept])
            if points > 0:
                out.add((points, len(roll) - r))
    return out


def throw_table(dice, score):
    """For each count of dice: every ordered throw's choices, and its chance."""
    return {n: [(1 / 6**n, choices(roll, score)) for roll in product(range(1, 7), repeat=n)]
            for n in range(1, dice + 1)}  # fmt: skip


def farkle_chance(n, **rules):
    score = make_score(combos(**rules))
    rolls = list(product(range(1, 7), repeat=n))
    return sum(1 for r in rolls if not choices(r, score)), len(rolls)


def one_turn(dice=6, cap=20000, min_bank=0, **rules):
    """``E(t, n)``: the best expected score of a turn from turn total ``t`` with ``n``
    dice to throw (a turn total reaching ``cap`` is banked at once)."""
    table = throw_table(dice, make_score(combos(**rules)))

    @cache
    def E(t, n):
        total = 0.0
        for p, options in table[n]:
            best = 0.0
            for points, left in options:
                tt = t + points
                if tt >= cap:
                    best = max(best, tt)
                    continue
                best = max(best, E(tt, left or dice))
                if tt >= min_bank:
                    best = max(best, tt)
            total += p * best
        return total

    return E


def two_player(goal, dice=6, min_bank=0, tol=1e-13, **rules):
    """P[(i, j, t, n)]: the mover's chance to win with ``i`` against ``j``, turn total
    ``t`` and ``n`` dice to throw, both playing their best."""
    table = throw_table(dice, make_score(combos(**rules)))
    states = [(i, j, t, n) for i in range(0, goal, 50) for j in range(0, goal, 50)
              for t in range(0, goal - i, 50) for n in range(1, dice + 1)
              if t > 0 or n == dice]  # fmt: skip
    P = dict.fromkeys(states, 0.0)
    while True:
        change = 0.0
        for (i, j, t, n), old in P.items():
            new = 0.0
            for p, options in table[n]:
                best = 1 - P[(j, i, 0, dice)]  # a farkle: nothing banked
                if options:
                    best = 0.0
                for points, left in options:
                    tt = t + points
                    if i + tt >= goal:
                        best = 1.0
                        break
                    best = max(best, P[(i, j, tt, left or dice)])
                    if tt >= min_bank:
                        best = max(best, 1 - P[(j, i + tt, 0, dice)])
                new += p * best
            change = max(change, abs(new - old))
            P[(i, j, t, n)] = new
        if change < tol:
            return P


def two_player_penalty(
    goal, dice=6, min_bank=0, penalty=0, farkles=3, floor=0, goal_by_bank=False, tol=1e-14, **rules
):
    """P[(i, j, ci, cj, t, n)]: the mover's chance to win with ``i`` points against
    ``j``, ``ci`` and ``cj`` farkles in a row, turn total ``t`` and ``n`` dice to
    throw. The ``farkles``-th farkle in a row costs ``penalty`` (never below
    ``floor``) and starts the count again, as a bank does; with ``goal_by_bank`` a
    turn total reaches the goal only if it could be banked (``min_bank``). Plain
    value iteration over every state, all in points."""
    table = throw_table(dice, make_score(combos(**rules)))
    need = min_bank if goal_by_bank else 0
    scores = range(floor, goal, 50)
    counts = range(farkles)
    states = [(i, j, ci, cj, t, n) for i in scores for j in scores for ci in counts
              for cj in counts for t in range(0, max(goal - i, need), 50)
              for n in range(1, dice + 1) if t > 0 or n == dice]  # fmt: skip
    P = dict.fromkeys(states, 0.0)

    def farkled(i, j, ci, cj):
        if ci + 1 == farkles:
            return 1 - P[(j, max(i - penalty, floor), cj, 0, 0, dice)]
        return 1 - P[(j, i, cj, ci + 1, 0, dice)]

    while True:
        change = 0.0
        for (i, j, ci, cj, t, n), old in P.items():
            new = 0.0
            for p, options in table[n]:
                if not options:
                    new += p * farkled(i, j, ci, cj)
                    continue
                best = 0.0
                for points, left in options:
                    tt = t + points
                    if i + tt >= goal and tt >= need:
                        best = 1.0
                        break
                    best = max(best, P[(i, j, ci, cj, tt, left or dice)])
                    if tt >= min_bank and i + tt < goal:
                        best = max(best, 1 - P[(j, i + tt, cj, 0, 0, dice)])
                new += p * best
            change = max(change, abs(new - old))
            P[(i, j, ci, cj, t, n)] = new
        if change < tol:
            return P


def fewest_turns(goal, dice=6, tol=1e-12, **rules):
    """T[(s, t, n)]: the fewest expected turns still to start (this one counted when
    ``t == 0``) to reach ``goal`` alone from score ``s``."""
    table = throw_table(dice, make_score(combos(**rules)))
    states = [(s, t, n) for s in range(0, goal, 50) for t in range(0, goal - s, 50)
              for n in range(1, dice + 1) if t > 0 or n == dice]  # fmt: skip
    T = dict.fromkeys(states, 0.0)
    while True:
        change = 0.0
        for (s, t, n), old in T.items():
            new = 0.0
            for p, options in table[n]:
                best = T[(s, 0, dice)] if not options else float("inf")
                for points, left in options:
                    tt = t + points
                    if s + tt >= goal:
                        best = 0.0
                        break
                    best = min(best, T[(s, tt, left or dice)], T[(s + tt, 0, dice)])
                new += p * best
            new += 1.0 if t == 0 and n == dice else 0.0
            change = max(change, abs(new - old))
            T[(s, t, n)] = new
        if change < tol:
            return T
