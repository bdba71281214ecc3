"""One turn of one state in NumPy: the values inside it, for advice.

The solvers value many states at once in compiled kernels
(:mod:`dicelab.engine.kernels`); a player asking about one position needs one
turn, which NumPy computes in a few milliseconds without loading the compiler.
The arithmetic is the kernels', in the same order, so both give the same values
to the last bit (``tests/test_turn_values.py`` checks it).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from dicelab.engine.kernels import rule_arrays
from dicelab.rules.compiled import CompiledRules
from dicelab.rules.placement import closed_mask, placed

#: Values closer than this are a tie; the strategy then takes the first option
#: (see :func:`strategy_boxes` and :func:`chosen_keeps`).
TIE = 1e-9


def open_boxes(
    game: CompiledRules, score: np.ndarray, mask: int, y: int
) -> Iterator[tuple[int, np.ndarray, np.ndarray | int]]:
    """Each box ``c`` left open by ``mask``, in order, with its points for every roll
    (``score[c]``) and the flag after it (``y``, but for the all-alike box: 1 where it
    scores and the rules keep the flag): the boxes every final roll may go in, as
    the best box and the strategy's box are chosen among them."""
    closed = closed_mask(mask, game.placement_code, score.shape[0])  # forced order: one box
    for c in range(score.shape[0]):
        if (closed >> c) & 1:
            continue
        pts = score[c]
        y2 = np.where((pts > 0) & (game.n_flag == 2), 1, 0) if c == game.yahtzee else y
        yield c, pts, y2


def best_boxes(
    game: CompiledRules, mask: int, y: int, value_of, first_throw: bool = False
) -> np.ndarray:
    """Each final roll's value in its best box (rolls in keep order).

    ``value_of(c, pts, extra, y2)`` values scoring ``pts`` in boxes ``c`` with the
    extra bonus ``extra``, the next flag being ``y2`` (numbers or arrays). Rolls
    that are not all alike may go in any open box; all-alike rolls follow the joker
    rule (:func:`dicelab.rules.placement.box_rule`). With ``first_throw`` the rolls
    score as made on the turn's first throw (served points included).
    """
    score = game.served_score if first_throw else game.score
    best = np.full(score.shape[1], -np.inf)
    ordinary = game.roll_face < 0
    for c, pts, y2 in open_boxes(game, score, mask, y):
        value = value_of(c, pts, 0, y2)
        np.maximum(best, np.where(ordinary, value, -np.inf), out=best)
    rules = rule_arrays(game, served=first_throw)
    for r in rules.alike:
        moves, extra = placed(mask, y, int(r), rules)
        cs, pts, y2 = (np.array(column) for column in zip(*moves, strict=True))
        best[r] = value_of(cs, pts, extra, y2).max()
    return best


def final_roll_values(
    game: CompiledRules, V: np.ndarray, mask: int, u: int, y: int, first_throw: bool = False
) -> np.ndarray:
    """Value of every final roll placed in its best box (rolls in keep order)."""
    cap = game.threshold

    def value_of(c, pts, extra, y2):
        u2 = np.where(game.upper[c] & (cap > 0), np.minimum(u + pts, cap), u)
        return (pts + extra) + V[mask | (1 << c), y2, u2]

    return best_boxes(game, mask, y, value_of, first_throw)


def turn_detail(game: CompiledRules, V: np.ndarray, mask: int, u: int, y: int):
    """Every value inside one turn.

    Returns ``(K, start, first)``: ``K[0, roll]`` is a final roll in its best box,
    ``K[n, keep]`` (``n >= 1``) the value of keeping ``keep`` with ``n`` rerolls
    left, before that reroll; ``start`` the value of the turn before its first
    throw; ``first[roll]`` a first-throw roll scored at once, served points
    included (``None`` for rules without served bonuses). ``u`` is the capped upper
    total, ``y`` the flag.
    """
    first = final_roll_values(game, V, mask, u, y, True) if game.has_served else None
    K, start = throws(game, final_roll_values(game, V, mask, u, y), first)
    return K, start, first


def points_final_values(
    table, mask: int, u: int, y: int, points: int, first_throw: bool = False
) -> np.ndarray:
    """Final-roll values of one lane of a points table
    (see :mod:`dicelab.engine.objectives.target`).

    Scoring ``g`` points moves the lane from ``points`` to ``points + sign * g`` in
    the next state's row; outside that row the value is ``below`` or ``above``.
    The rows read must have been checked (``table.check_rows``) by the caller.
    """
    game = table.game
    lay = table.layout
    cap = game.threshold

    def value_of(c, pts, extra, y2):
        m2 = mask | (1 << c)
        u2 = np.where(game.upper[c] & (cap > 0), np.minimum(u + pts, cap), u)
        t = points + table.sign * (pts + int(extra))
        lo2, hi2, r2 = lay.lo[m2, y2, u2], lay.hi[m2, y2, u2], lay.off[m2, y2, u2]
        inside = (t >= lo2) & (t <= hi2)
        out = np.where(t < lo2, table.below, table.above).astype(np.float64)
        out[inside] = table.values[(r2 + t - lo2)[inside]]
        return out

    return best_boxes(game, mask, y, value_of, first_throw)


def keep_means(space, A: np.ndarray) -> None:
    """Every keep smaller than a full roll valued as the mean over one more die, largest
    keeps first, the faces summed in the kernel's order (``A`` in keep order)."""
    starts = space.size_start
    inv = 1.0 / space.faces
    for size in range(space.dice - 1, -1, -1):
        add = space.add[starts[size] : starts[size + 1]].T
        acc = A[add[0]] + A[add[1]]
        for f in range(2, space.faces):
            acc += A[add[f]]
        A[starts[size] : starts[size + 1]] = acc * inv


def best_keeps(space, A: np.ndarray) -> None:
    """The best keep inside each set of dice, in place, smallest sets first."""
    starts = space.size_start
    for size in range(1, space.dice + 1):
        lo, hi = starts[size], starts[size + 1]
        A[lo:hi] = np.maximum(A[lo:hi], A[space.sub_rows[lo:hi]].max(axis=1))


def throws(game: CompiledRules, final: np.ndarray, first: np.ndarray | None = None):
    """From the final-roll values to every value inside the turn (see :func:`turn_detail`).

    ``first``: each first-throw roll scored at once (served points); the first
    throw takes the better of it and rolling on.
    """
    space = game.space
    rerolls = game.rules.rolls - 1
    roll0 = int(space.size_start[space.dice])
    A = np.empty(space.n_keeps)
    A[roll0:] = final
    K = np.full((rerolls + 1, space.n_keeps), np.nan)
    K[0, roll0:] = A[roll0:]
    for n in range(1, rerolls + 1):
        keep_means(space, A)
        K[n] = A
        best_keeps(space, A)
    if first is not None:  # with no rerolls, every roll is a first throw: served
        A[roll0:] = np.maximum(A[roll0:], first) if rerolls else first
    start = np.cumsum(space.roll_prob * A[roll0:])[-1]
    return K, float(start)


# -- the one strategy of the expected-score optimum, for what is measured along it ---------
def strategy_boxes(game: CompiledRules, V: np.ndarray, mask: int, u: int, y: int):
    """The box the expected-score strategy of ``V`` fills with each final roll.

    The first open box that beats the others by more than :data:`TIE` is taken, as
    in :func:`dicelab.engine.objectives.distribution.turn_choices`; all-alike rolls follow the
    joker rule. Returns arrays over the rolls (in keep order): ``(box, points,
    extra, y2, u2)``, the box, its points, the extra bonus earned, the next flag and
    the next capped upper total. Whatever is measured along the strategy (the
    spread, the split of the score by box) starts from here.
    """
    score = game.score
    n_rolls = score.shape[1]
    cap = game.threshold
    best = np.full(n_rolls, -np.inf)
    box = np.full(n_rolls, -1, dtype=np.int64)
    pts = np.zeros(n_rolls, dtype=np.int64)
    extra = np.zeros(n_rolls, dtype=np.int64)
    y2 = np.zeros(n_rolls, dtype=np.int64)
    u2 = np.zeros(n_rolls, dtype=np.int64)
    ordinary = game.roll_face < 0
    for c, p, yc in open_boxes(game, score, mask, y):
        uc = np.where(game.upper[c] & (cap > 0), np.minimum(u + p, cap), u)
        a = p + V[mask | (1 << c), yc, uc]
        take = ordinary & (a > best + TIE)
        best[take], box[take], pts[take] = a[take], c, p[take]
        y2[take] = np.broadcast_to(yc, n_rolls)[take]
        u2[take] = np.broadcast_to(uc, n_rolls)[take]
    rules = rule_arrays(game)
    for r in np.flatnonzero(~ordinary):
        moves, bonus = placed(mask, y, int(r), rules)
        for c, p, yc in moves:  # a few boxes: scalar arithmetic beats NumPy calls here
            u_next = min(u + p, cap) if (game.upper[c] and cap > 0) else u
            a = float(p + bonus) + float(V[mask | (1 << c), yc, u_next])
            if a > best[r] + TIE:
                best[r], box[r], pts[r], extra[r], y2[r], u2[r] = a, c, p, bonus, yc, u_next
    return box, pts, extra, y2, u2


def chosen_keeps(space, A: np.ndarray, B: np.ndarray) -> None:
    """The keep the strategy picks inside each set of dice, in place: better by more
    than :data:`TIE`, else fewer dice, else the lower keep index. ``A`` holds the
    values that choose; ``B`` (one row per keep, any further axes) follows the choice."""
    starts = space.size_start
    size_of = np.repeat(np.arange(space.dice + 1), np.diff(starts))
    arg = np.arange(space.n_keeps)
    for size in range(1, space.dice + 1):
        ks = np.arange(starts[size], starts[size + 1])
        subs = space.sub_rows[ks]
        for j in range(subs.shape[1]):
            s = subs[:, j]
            active = s != ks  # padding repeats the keep itself
            va, vb = A[ks], A[s]
            a, b = arg[ks], arg[s]
            better = vb > va + TIE
            fewer = (size_of[b] < size_of[a]) | ((size_of[b] == size_of[a]) & (b < a))
            take = active & (better | ((vb >= va - TIE) & fewer))
            A[ks[take]] = vb[take]
            arg[ks[take]] = b[take]
    B[:] = B[arg]


def along_strategy(space, rerolls: int, final: np.ndarray, carried: np.ndarray):
    """Values and a carried quantity inside a turn played by the strategy.

    ``final`` holds each final roll's value and ``carried`` (one row per roll, any
    further axes) what the strategy's choice for it brings (a second moment, the
    parts of the score). Returns ``(K, KC)``: ``K[0, roll]``, ``KC[0, roll]`` for a
    final roll, ``K[n, keep]``, ``KC[n, keep]`` for keeping ``keep`` with ``n``
    rerolls left, each keep the mean over one more die, each set of dice following
    its :func:`chosen_keeps`.
    """
    roll0 = int(space.size_start[space.dice])
    A = np.empty(space.n_keeps)
    C = np.empty((space.n_keeps, *carried.shape[1:]))
    A[roll0:], C[roll0:] = final, carried
    K = np.full((rerolls + 1, space.n_keeps), np.nan)
    KC = np.full((rerolls + 1, *C.shape), np.nan)
    K[0, roll0:], KC[0, roll0:] = A[roll0:], C[roll0:]
    for n in range(1, rerolls + 1):
        keep_means(space, A)
        keep_means(space, C)
        K[n], KC[n] = A, C
        chosen_keeps(space, A, C)
    return K, KC
