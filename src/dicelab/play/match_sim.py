"""Simulated games at a table: how well the advice plays to win against points players.

Where the two-player game is too large to evaluate exactly, the advice at a table
(each turn played to finish first, the rest valued as played for points:
:func:`dicelab.engine.advice.match.lookahead_turn`) is measured in games against two or
three players who play for the expected score.

Each game is played twice with the same dice, *common random numbers*: once with
the advised seat playing by the advice, once with that seat playing for points
like everyone else. The others do not react to anyone, so their games are the same
in both. Every player's turn ``k`` takes its dice from its own block of draws (the
first throw, then one face per rerolled die), so both plays of the advised seat
throw the same dice at each turn whatever they kept before. The gain of the
advice is the mean of the difference of the two results, game by game, and its
standard error comes from the spread of that difference: far smaller than the
spread of either result alone. With every player playing for points, each seat
finishes first with chance exactly ``1 / players`` (their scores are independent
and alike), so the advice's chance is estimated as ``1 / players`` plus the gain.
The advised seat goes round the table from game to game.

The turns are compiled. A points player's turn makes the choices, ties included,
that the table of points to come assumes (:func:`points_turn`). The advised player values each
box it may fill as ``E[U(t + R(s'))]``, one dot product of the row of points to
come from the state ``s'`` it leads to
(:class:`~dicelab.engine.objectives.remaining.RemainingTable`) with the utility ``U``
of the final score that the others' sheets give at that
moment (:func:`dicelab.engine.advice.match.table_utility`), then values the keeps back
through the throws as any turn does (:func:`dicelab.play.simulate.turn_keeps`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from dicelab.engine.kernels import dice_arrays, rule_arrays
from dicelab.engine.kernels.turn import (
    box_points,
    box_rule,
    cand_rows,
    keep_values,
    n_distinct,
    placements,
    shut,
)
from dicelab.engine.kernels.work import on_threads, take
from dicelab.engine.objectives.distribution import turn_choices, turn_scratch
from dicelab.errors import UserError
from dicelab.play.simulate import finish_sheet, turn_keeps, turn_throws, write_box
from dicelab.rules.compiled import all_same_box

#: Games per block of drawn dice; fixed, so that a seed always gives the same games.
BLOCK = 4096
MAX_GAMES = 10_000_000


@njit(cache=True)
def table_utility_at(sheets, rem, U, ways):
    """The chance to finish first of each final score ``x`` (a tie shared), as
    :func:`dicelab.engine.advice.match.table_utility` gives it, against the players at
    ``sheets`` (rows ``(mask, flag, upper, points)``) who play for points from
    there: fills ``U[:top + 1]`` and returns ``top``, the score from which ``U`` is
    1. ``rem`` is the table of points to come ``(lo, hi, off, values)``;
    ``ways`` a scratch buffer of ``(len(U), players)``."""
    lo, hi, off, values = rem
    top = 0
    for p in range(sheets.shape[0]):
        m, y, u, s = sheets[p]
        top = max(top, s + hi[m, y, u] + 1)
    top = min(top, U.shape[0] - 1)
    for x in range(top):
        ways[x, 0] = 1.0
        for j in range(1, ways.shape[1]):
            ways[x, j] = 0.0
    for p in range(sheets.shape[0]):
        m, y, u, s = sheets[p]
        base, width, start = s + lo[m, y, u], hi[m, y, u] - lo[m, y, u] + 1, off[m, y, u]
        below = 0.0  # this player's chance of fewer than x
        for x in range(top):
            px = float(values[start + x - base]) if base <= x < base + width else 0.0
            for j in range(p + 1, 0, -1):  # exactly j players at x, the others below
                ways[x, j] = ways[x, j] * below + ways[x, j - 1] * px
            ways[x, 0] *= below
            below += px
    for x in range(top):
        acc = 0.0
        for j in range(sheets.shape[0] + 1):
            acc += ways[x, j] / (j + 1)
        U[x] = acc
    U[top] = 1.0
    return top


@njit(cache=True, fastmath=True)  # sums reassociated: a dot product in lanes
def _after(sheet, t, c, pts, total, y2, U, top, rem, R):
    """``E[U(t + total + R(s'))]``: the value of scoring ``pts`` in box ``c``
    (``total`` with the extra bonus) from ``sheet``, ``s'`` the state it leads to."""
    lo, hi, off, values = rem
    mask, _, u = sheet
    u2 = u
    if R.upper[c] and R.threshold > 0:
        u2 = min(R.threshold, u + pts)
    m2 = mask | (1 << c)
    a, n, start = lo[m2, y2, u2], hi[m2, y2, u2] - lo[m2, y2, u2] + 1, off[m2, y2, u2]
    base = t + total + a
    inside = min(n, max(0, top - base))  # the points where U is below 1
    row, u_row = values[start : start + n], U[base : base + inside]
    acc = 0.0
    for i in range(inside):
        acc += row[i] * u_row[i]
    for i in range(inside, n):
        acc += row[i]
    return acc


@njit(cache=True)
def _remembered(sheet, t, c, pts, y2, U, top, rem, R, memo):
    """:func:`_after` without an extra bonus, each ``(box, flag, points)`` valued
    once a turn: ``memo = (values, stamps, turn)``."""
    seen, stamps, turn = memo
    if stamps[c, y2, pts] != turn[0]:
        seen[c, y2, pts] = _after(sheet, t, c, pts, pts, y2, U, top, rem, R)
        stamps[c, y2, pts] = turn[0]
    return seen[c, y2, pts]


@njit(cache=True)
def lookahead_box(sheet, t, r, U, top, rem, R, moves, memo):
    """The best box for final roll ``r`` by the lookahead: ``(value, box, points,
    extra bonus)``, the first of equal values."""
    mask, y, _ = sheet
    n, extra = placements(mask, y, r, R, moves)
    best, best_c, best_pts = -1.0, -1, 0
    for k in range(n):
        c, pts, y2 = moves[0, k], moves[1, k], moves[2, k]
        if extra > 0:  # a bonus roll: rare, valued on its own
            v = _after(sheet, t, c, pts, pts + int(extra), y2, U, top, rem, R)
        else:
            v = _remembered(sheet, t, c, pts, y2, U, top, rem, R, memo)
        if v > best:
            best, best_c, best_pts = v, c, pts
    return best, best_c, best_pts, extra


@njit(cache=True)
def _finals_into(sheet, t, U, top, rem, A, roll0, R, moves, memo):
    """``A[roll0 + r, 0]``: the lookahead's value of every final roll ``r`` under the
    rules ``R``. A roll that is not all alike scores each open box as the box's
    table says whatever the sheet (its flag after the all-alike box is 0), so each
    open box's distinct scores are valued once and each roll takes the best of its
    boxes; the all-alike rolls, where bonus and joker rules apply, take every
    placement (:func:`lookahead_box`)."""
    mask, y, _ = sheet
    seen, stamps, turn = memo
    n_cat = R.upper.shape[0]
    closed = shut(mask, R)  # the filled boxes, and in forced order all but the first open
    for c in range(n_cat):
        if (closed >> c) & 1 == 0:
            y2 = 0 if c == R.yahtzee else y
            for j in range(n_distinct(R.values, c)):
                pts = R.values[c, j]
                if stamps[c, y2, pts] != turn[0]:
                    seen[c, y2, pts] = _after(sheet, t, c, pts, pts, y2, U, top, rem, R)
                    stamps[c, y2, pts] = turn[0]
    for r in range(R.score.shape[1]):  # no calls in here: each passes its arrays
        if R.roll_face[r] >= 0:
            continue
        best = -1.0
        for c in range(n_cat):
            if (closed >> c) & 1 == 0:
                v = seen[c, 0 if c == R.yahtzee else y, R.values[c, R.index[c, r]]]
                best = v if v > best else best
        A[roll0 + r, 0] = best
    for r in R.alike:
        A[roll0 + r, 0] = lookahead_box(sheet, t, r, U, top, rem, R, moves, memo)[0]


@njit(cache=True)
def lookahead_finals(sheet, t, U, top, rem, A, scratch, play):
    """The values of every final throw of a turn played by the lookahead: ``A``'s
    rows of the rolls (and, for served bonuses, ``S``'s by the served rules)."""
    _, S, _, _, _, moves, memo = scratch
    _, R, D, served, SR, _, _ = play
    memo[2][0] += 1  # a new turn: the remembered box values are stale
    first_only = served and D.rerolls == 0  # the only throw is the first: served
    _finals_into(sheet, t, U, top, rem, A, D.size_start[D.dice], SR if first_only else R,
                 moves, memo)  # fmt: skip
    if served and not first_only:
        _finals_into(sheet, t, U, top, rem, S, 0, SR, moves, memo)


@njit(cache=True)
def lookahead_start(sheet, t, U, top, rem, scratch, play):
    """The value of a turn's start played by the lookahead: ``E[U(final score)]``
    before its first throw (what :func:`dicelab.engine.advice.match.lookahead_turn` calls
    ``start_value``)."""
    A, S, _, arg, stop, _, _ = scratch
    D, served = play[2], play[3]
    lookahead_finals(sheet, t, U, top, rem, A, scratch, play)
    turn_keeps(A, S, stop, arg, served, D)
    keep_values(A, D.add, D.size_start, D.dice, D.faces, 1)  # the empty keep: all thrown
    return A[0, 0]


@njit(cache=True, inline="always")
def points_turn(sheet, draws, V, tied, play):
    """One turn from ``sheet = (mask, y, u)`` played for the expected score (the
    table ``V``) with the choices, ties included, of the distribution of the points
    to come (:func:`dicelab.engine.objectives.distribution.turn_choices`), its dice drawn from
    ``draws`` in order: ``(box, points, extra bonus)``. ``tied`` is the buffers of
    :func:`~dicelab.engine.objectives.distribution.turn_scratch` for one lane and the lane's
    upper total."""
    keep_size, R, D, served, SR, _, _ = play
    scratch, ul = tied
    mask, y, u = sheet
    ul[0] = u
    score, early = turn_choices((mask, y, ul, 1), V, scratch, R, D, served, SR)
    choice, served_box, keeps = scratch[1][1], scratch[1][2], scratch[1][3:]
    roll0 = D.size_start[D.dice]
    r, pos = 0, 0
    for _ in range(D.dice):
        r = D.add[r, draws[pos]]
        pos += 1
    for n in range(D.rerolls - 1, -1, -1):  # n + 1 rerolls left
        k = keeps[n, r - roll0, 0]
        if early and n == D.rerolls - 1 and k == r and served_box[r - roll0, 0] >= 0:
            return _scored(served_box[r - roll0, 0], sheet, r - roll0, SR.score, R)
        for _ in range(D.dice - keep_size[k]):
            k = D.add[k, draws[pos]]
            pos += 1
        r = k
    return _scored(choice[r - roll0, 0], sheet, r - roll0, score, R)


@njit(cache=True, inline="always")
def _scored(c, sheet, r, score, R):
    """``(box, points, extra bonus)`` of final roll ``r`` put in box ``c``, scored by
    the table ``score`` (the served one for a first throw scored at once)."""
    mask, y, _ = sheet
    allowed, active, extra, zeroed = box_rule(
        mask, y, R.roll_face[r], R.upper, R.upper_box_of_face, R.yahtzee, R.joker, R.extra_bonus
    )
    return c, box_points(c, r, active, zeroed, score, R.joker_score), extra


@njit(cache=True, inline="always")
def _points_games(draws, V, tied, play, hist, finals):
    """Every seat's game played for points (:func:`points_turn`): ``hist[p, k]`` the
    sheet ``(mask, flag, upper, points)`` of seat ``p`` after ``k`` turns,
    ``finals[p]`` its final score."""
    _, R, _, _, _, bonus_points, alike = play
    out = np.zeros(4, np.int64)
    for p in range(draws.shape[0]):
        mask = y = u = 0
        out[:] = 0
        hist[p, 0, :] = 0
        for k in range(draws.shape[1]):
            sheet = (mask, y, u)
            c, pts, extra = points_turn(sheet, draws[p, k], V, tied, play)
            mask, y, u = write_box(c, pts, extra, sheet, R, alike, out)
            hist[p, k + 1, 0], hist[p, k + 1, 1], hist[p, k + 1, 2] = mask, y, u
            hist[p, k + 1, 3] = out[0]
        finish_sheet(u, R, bonus_points, out)
        finals[p] = out[0]


@njit(cache=True, inline="always")
def _lookahead_game(draws, seat, hist, rem, scratch, play, U, ways):
    """The game of ``seat`` played by the lookahead, the other seats' sheets at each
    of its turns read from ``hist`` (those before it in the round have played one
    turn more); returns its final score."""
    A, S, _, arg, stop, _, _ = scratch
    keep_size, R, D, served, SR, bonus_points, alike = play
    players, n_cat = hist.shape[0], draws.shape[0]
    others = np.empty((players - 1, 4), np.int64)
    out = np.zeros(4, np.int64)
    mask = y = u = 0
    roll0 = D.size_start[D.dice]
    for k in range(n_cat):
        n = 0
        for p in range(players):
            if p != seat:
                others[n, :] = hist[p, k + 1 if p < seat else k]
                n += 1
        top = table_utility_at(others, rem, U, ways)
        sheet, t = (mask, y, u), out[0]
        lookahead_finals(sheet, t, U, top, rem, A, scratch, play)
        r, left, _ = turn_throws(A, S, stop, arg, served, draws[k], 0, keep_size, D)
        now = SR if (served and left == D.rerolls) else R  # scored on the first throw
        _, c, pts, extra = lookahead_box(sheet, t, r - roll0, U, top, rem, now, scratch[5],
                                         scratch[6])  # fmt: skip
        mask, y, u = write_box(c, pts, extra, sheet, R, alike, out)
    finish_sheet(u, R, bonus_points, out)
    return out[0]


@njit(cache=True, inline="always")
def _share(mine, finals, seat):
    """What a final score ``mine`` in ``seat`` wins against the others' ``finals``:
    1 when first alone, ``1 / (j + 1)`` when level with ``j`` others, else 0."""
    level = 0
    for p in range(finals.shape[0]):
        if p == seat:
            continue
        if finals[p] > mine:
            return 0.0
        if finals[p] == mine:
            level += 1
    return 1.0 / (level + 1)


@njit(cache=True)
def scratch_buffers(play, n_flag, top_points):
    """One worker's buffers: the turn's ``(A, S, cand, arg, stop)``, a placement's
    ``moves`` and the lookahead's remembered box values."""
    _, R, D, _, SR, _, _ = play
    n_keeps, n_cat = D.add.shape[0], R.upper.shape[0]
    n_rolls = n_keeps - D.size_start[D.dice]
    most = max(R.score.max(), R.joker_score.max(), SR.score.max(), SR.joker_score.max()) + 1
    memo = (np.empty((n_cat, n_flag, most)), np.zeros((n_cat, n_flag, most), np.int64),
            np.zeros(1, np.int64))  # fmt: skip
    return (np.empty((n_keeps, 1)), np.empty((n_rolls, 1)),
            np.empty((max(cand_rows(R.values), cand_rows(SR.values)), 1)),
            np.zeros((D.rerolls + 1, n_keeps), np.int64), np.empty(n_rolls),
            np.empty((3, n_cat), np.int64), memo)  # fmt: skip


@njit(cache=True, nogil=True)
def _table_block(counter, w, draws, seats, V, rem, play, sizes, results):
    """Play the games of a block, taking them one at a time (a worker of
    :func:`~dicelab.engine.kernels.work.on_threads`): ``results[g]`` is the advised
    seat's share of first place by the lookahead and playing for points, and its
    final score both ways. ``sizes`` is ``(n_flag, top_points)``."""
    n_flag, top_points = sizes
    players, n_cat = draws.shape[1], draws.shape[2]
    scratch = scratch_buffers(play, n_flag, top_points)
    tied = (turn_scratch(1, play[1], play[2], play[4]), np.zeros(1, np.int64))
    hist = np.zeros((players, n_cat + 1, 4), np.int64)
    finals = np.zeros(players, np.int64)
    U = np.empty(top_points + 2)
    ways = np.empty((top_points + 2, players))
    g = take(counter)
    while g < draws.shape[0]:
        seat = seats[g]
        _points_games(draws[g], V, tied, play, hist, finals)
        mine = _lookahead_game(draws[g, seat], seat, hist, rem, scratch, play, U, ways)
        results[g, 0] = _share(mine, finals, seat)
        results[g, 1] = _share(finals[seat], finals, seat)
        results[g, 2] = mine
        results[g, 3] = finals[seat]
        g = take(counter)


@dataclass(frozen=True)
class TableGames:
    """Simulated games at a table, the advised seat played both ways on the same dice.

    Attributes
    ----------
    seats : ndarray of int
        The advised seat of each game (0 plays first).
    advised, points : ndarray of float
        That seat's share of first place (1, 0, or ``1 / (j + 1)`` level with ``j``
        others) playing by the advice, and playing for points.
    advised_scores, points_scores : ndarray of int
        Its final score both ways.
    """

    rules: str
    players: int
    seed: int
    seats: np.ndarray
    advised: np.ndarray
    points: np.ndarray
    advised_scores: np.ndarray
    points_scores: np.ndarray
    seconds: float

    @property
    def games(self) -> int:
        return int(self.seats.size)

    def summary(self, seat: int | None = None) -> dict:
        """The figures of the games of ``seat`` (all games by default): the advice's
        chance to finish first (``1 / players`` plus the gain, and as played), the
        gain over playing for points with its standard error and its size in
        standard errors, and the mean final scores both ways."""
        pick = slice(None) if seat is None else self.seats == seat
        a, p = self.advised[pick], self.points[pick]
        n = int(a.size)
        diff = a - p
        se = float(diff.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
        gain = float(diff.mean())
        return {
            "games": n,
            "win_chance": 1 / self.players + gain,
            "standard_error": se,
            "gain": gain,
            "z": gain / se if se > 0 else float("inf") if gain > 0 else 0.0,
            "as_played": {
                "advice": float(a.mean()),
                "advice_standard_error": float(a.std(ddof=1) / np.sqrt(n)) if n > 1 else None,
                "points": float(p.mean()),
            },
            "mean_score": {
                "advice": float(self.advised_scores[pick].mean()),
                "points": float(self.points_scores[pick].mean()),
            },
        }


def play_table_games(
    expected,
    remaining,
    players: int,
    games: int,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> TableGames:
    """Play ``games`` games at a table of ``players`` (2 to 4): one seat, going round
    the table from game to game, by the advice and by playing for points on the
    same dice, the others for points (see the module).

    ``expected`` and ``remaining`` are the rules' expected-score table and table of
    points to come; ``seed`` fixes the dice (the same seed and number of games give
    the same games, on any number of threads); ``progress(done, total)`` is called
    after each block of games.
    """
    from dicelab.engine.advice.match import MAX_PLAYERS, MIN_PLAYERS

    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise UserError(f"games: got {games!r}, expected a number from 1 to {MAX_GAMES:,}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UserError(f"seed: got {seed!r}, expected a whole number 0 or more")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise UserError(f"players: got {players}, expected {MIN_PLAYERS} to {MAX_PLAYERS}")
    g = expected.game
    rules = g.rules
    rem, play, sizes = _kernel_args(expected, remaining)
    per_turn = rules.dice * rules.rolls
    seats = np.arange(games, dtype=np.int64) % players
    results = np.zeros((games, 4))
    streams = np.random.SeedSequence(seed).spawn((games + BLOCK - 1) // BLOCK)
    start = time.perf_counter()
    for b, stream in enumerate(streams):
        lo, hi = b * BLOCK, min(games, (b + 1) * BLOCK)
        rng = np.random.default_rng(stream)
        shape = (hi - lo, players, g.n_categories, per_turn)
        draws = rng.integers(0, rules.faces, size=shape, dtype=np.int8)
        on_threads(_table_block, draws, seats[lo:hi], expected.values, rem, play, sizes,
                   results[lo:hi])  # fmt: skip
        if progress is not None:
            progress(hi, games)
    return TableGames(
        rules.name, players, seed, seats, results[:, 0].copy(), results[:, 1].copy(),
        results[:, 2].astype(np.int64), results[:, 3].astype(np.int64),
        time.perf_counter() - start,
    )  # fmt: skip


def _kernel_args(expected, remaining) -> tuple:
    """What the kernels read of a rule set: the table of points to come ``rem``
    (every block checked first, where it is a cached file), the rules ``play`` and
    the buffers' ``sizes``."""
    from dicelab.engine.objectives.points import state_bounds

    g = expected.game
    mapped = remaining.meta.get("mapped")
    if mapped is not None:  # every row may be read: check every block first
        mapped.check(0, remaining.values.size)
    rem = (remaining.lo, remaining.hi, remaining.off, np.asarray(remaining.values))
    keep_size = g.space.counts.sum(axis=1).astype(np.int64)
    rules = g.rules
    play = (keep_size, rule_arrays(g), dice_arrays(g), g.has_served,
            rule_arrays(g, served=True), int(rules.bonus_points), all_same_box(rules))  # fmt: skip
    return rem, play, (g.n_flag, int(state_bounds(g).to_come[0, 0, 0]))


def turn_start_value(expected, remaining, state, others) -> float:
    """The compiled advice's ``E[U(final score)]`` at the start of a turn from
    ``state = (mask, flag, capped upper total, points)`` against players at the
    sheets ``others`` (rows of the same form) who play for points: what
    :func:`dicelab.engine.advice.match.lookahead_state_turn` calls ``start_value``."""
    rem, play, (n_flag, top_points) = _kernel_args(expected, remaining)
    scratch = scratch_buffers(play, n_flag, top_points)
    others = np.asarray(others, np.int64).reshape(-1, 4)
    m, y, u, t = others.T
    U = np.empty(max(top_points, int((t + remaining.hi[m, y, u]).max())) + 2)
    top = table_utility_at(others, rem, U, np.empty((U.size, others.shape[0] + 1)))
    mask, y, u, t = (int(v) for v in state)
    return float(lookahead_start((mask, y, u), t, U, top, rem, scratch, play))
