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


def pig_throws(faces, dice, piglet, one="lose-turn", double_ones="lose-score",
               doubles_roll=False):  # fmt: skip
    """(chance, gain, thrown again) of one throw; gain -1 loses the turn total, -2
    the score; thrown again: a double that may not be held (docs/games.md)."""
    if piglet:
        return [(0.5, 1, False), (0.5, -1, False)]
    lost = {"lose-turn": -1, "lose-score": -2}
    out = []
    for throw in product(range(1, faces + 1), repeat=dice):
        ones = sum(1 for x in throw if x == 1)
        gain = lost[double_ones] if ones == 2 else lost[one] if ones else sum(throw)
        again = doubles_roll and dice == 2 and ones == 0 and throw[0] == throw[1]
        out.append((1 / faces**dice, gain, again))
    return out


def pig_values(goal, faces=6, dice=1, piglet=False, hold=None, tol=1e-14, **house):
    """P[i, j, k]: the mover's chance to win with ``i`` against ``j`` and turn total ``k``
    when both play their best, or both play ``hold(i, j, k) -> bool`` when given;
    ``house``: the house rules of :func:`pig_throws`."""
    throws = pig_throws(faces, dice, piglet, **house)
    P = {(i, j, k): 0.0 for i in range(goal) for j in range(goal) for k in range(goal - i)}
    R = dict(P)  # the value of throwing (again) there
    while True:
        change = 0.0
        for (i, j, k), old in P.items():
            roll = 0.0
            for p, gain, again in throws:
                if gain == -2:
                    roll += p * (1 - P[(j, 0, 0)])
                elif gain == -1:
                    roll += p * (1 - P[(j, i, 0)])
                elif i + k + gain >= goal:
                    roll += p
                else:
                    roll += p * (R if again else P)[(i, j, k + gain)]
            keep = 1 - P[(j, i + k, 0)] if k > 0 else -1.0
            held = hold is not None and k > 0 and hold(i, j, k)
            new = max(roll, keep) if hold is None else (keep if held else roll)
            change = max(change, abs(new - old), abs(roll - R[(i, j, k)]))
            P[(i, j, k)] = new
            R[(i, j, k)] = roll
        if change < tol:
            return P


def shut_the_box(tiles, one_die="when-top-shut", dice=2, score="shut", shut="any",
                 one_die_must=False, worst=False):  # fmt: skip
    """The best value of the full box, exactly, by recursion over the open tiles
    (the house rules as docs/games.md says them)."""

    def throws(n):
        out = {}
        for throw in product(range(1, 7), repeat=n):
            out[throw] = out.get(throw, F(0)) + F(1, 6**n)
        return out

    def end(open_):
        if score == "sum":
            return F(sum(open_))
        if score == "digits":
            return F(int("".join(str(t) for t in sorted(open_)) or "0"))
        return F(int(not open_))

    better = max if (score == "shut") != worst else min

    def ways(open_, throw):
        """The sets of open tiles a throw may shut."""
        if shut == "dice":
            found = [{sum(throw)}] if sum(throw) in open_ else []
            if len(throw) == 2 and throw[0] != throw[1] and set(throw) <= open_:
                found.append(set(throw))
            return found
        most = 2 if shut == "two" else len(open_)
        return [set(c) for r in range(1, min(most, len(open_)) + 1)
                for c in combinations(open_, r) if sum(c) == sum(throw)]  # fmt: skip

    def one_die_allowed(open_):
        if one_die == "always":
            return True
        if one_die == "when-top-shut":
            return max(open_) <= 6
        return one_die == "when-sum-6" and sum(open_) <= 6

    @cache
    def value(open_):
        if not open_:
            return end(open_)
        if dice == 1:
            counts = [1]
        elif one_die_allowed(open_):
            counts = [1] if one_die_must else [1, 2]
        else:
            counts = [2]
        options = []
        for n in counts:
            total = F(0)
            for throw, p in throws(n).items():
                found = ways(open_, throw)
                if found:
                    total += p * better(value(frozenset(open_ - w)) for w in found)
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


def pig_seats(goal, players, faces=6, dice=1, piglet=False, tol=1e-14, **house):
    """``P[(scores, k)]``: each seat's chance to finish first, in playing order from
    the mover's (``scores`` likewise, the mover's first; ``k`` the turn total), every
    seat playing for its own chance (a tie holds), by Gauss-Seidel value iteration
    over the mover's view, as :func:`pig_values` does for two. Double 1s that lose
    the score leave the mover at 0; a double that must be thrown again is not here."""
    throws = pig_throws(faces, dice, piglet, **house)
    if any(again for *_, again in throws):
        raise ValueError("doubles that roll again: not in this oracle")
    tuples = list(product(range(goal), repeat=players))
    P = {(s, k): [1 / players] * players for s in tuples for k in range(goal - s[0])}

    def passed(s, score):  # the turn ends with the mover at `score`: its view
        nxt = (*s[1:], score)
        v = P[(nxt, 0)]
        return [v[(j - 1) % players] for j in range(players)]

    def throw(s, k):
        out = [0.0] * players
        for p, gain, _ in throws:
            if gain == -1:
                after = passed(s, s[0])
            elif gain == -2:
                after = passed(s, 0)
            elif s[0] + k + gain >= goal:
                after = [1.0] + [0.0] * (players - 1)
            else:
                after = P[(s, k + gain)]
            out = [o + p * x for o, x in zip(out, after, strict=True)]
        return out

    while True:
        change = 0.0
        for s in tuples:
            for k in range(goal - s[0] - 1, -1, -1):
                v = throw(s, k)
                if k > 0:
                    hold = passed(s, s[0] + k)
                    if hold[0] >= v[0]:
                        v = hold
                change = max(change, max(abs(x - y) for x, y in zip(v, P[(s, k)], strict=True)))
                P[(s, k)] = v
        if change < tol:
            return P


def seats_by_walk(game, tol=1e-14):
    """Every seat's chance at every position of a table of players, by walking the
    game's own moves and throws from its start and plain Gauss-Seidel value
    iteration over them (no table, no turns): the mover takes the move best for
    itself, the first listed of equal ones. Returns ``{position: chances}``."""
    n = game.players
    seen, order, todo = {game.start()}, [], [game.start()]
    while todo:
        here = todo.pop()
        order.append(here)
        if game.result(here) is not None:
            continue
        links = game.outcomes(here) if game.to_move(here) < 0 else game.moves(here)
        for link in links:
            after = link[-1]
            if after not in seen:
                seen.add(after)
                todo.append(after)
    V = {p: [1 / n] * n for p in order}
    for p in order:
        if game.result(p) is not None:
            V[p] = [1.0 if j == game.winner(p) else 0.0 for j in range(n)]
    live = [p for p in order if game.result(p) is None]
    while True:
        change = 0.0
        for p in live:
            mover = game.to_move(p)
            if mover < 0:
                v = [0.0] * n
                for prob, _, after in game.outcomes(p):
                    v = [x + float(prob) * y for x, y in zip(v, V[after], strict=True)]
            else:
                v = max((V[after] for _, after in game.moves(p)), key=lambda c: c[mover])
            change = max(change, max(abs(x - y) for x, y in zip(v, V[p], strict=True)))
            V[p] = v
        if change < tol:
            return V
