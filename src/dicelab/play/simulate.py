"""Simulated games under the optimal expected-score strategy.

Each game turn values its own state from the expected-score table with the same
kernels as the solver (final throw, keeps, best keeps), then plays the turn with
dice drawn in advance: the dice of game ``g`` come from row ``g`` of a block of
faces drawn by a seeded generator, used in order (the first throw, then one face
per rerolled die). The games of a block are shared out over the cores, and a
game's dice do not depend on which core plays it, so a seed gives the same games
every time.

>>> from dicelab.engine.objectives.expected import expected_table
>>> sim = simulate(expected_table("yahtzee"), games=1000, seed=1)
>>> 200 < sim.mean < 300
True
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from dicelab.engine.kernels import dice_arrays, rule_arrays
from dicelab.engine.kernels.turn import (
    cand_rows,
    final_roll_values,
    keep_values,
    next_flag,
    placements,
)
from dicelab.engine.kernels.work import on_threads, take
from dicelab.engine.objectives.expected import ExpectedTable
from dicelab.errors import UserError
from dicelab.rules.compiled import all_same_box

#: Games per block of drawn dice; fixed, so that a seed always gives the same games.
BLOCK = 8192
PERCENTILES = (1, 5, 25, 50, 75, 95, 99)
MAX_GAMES = 20_000_000  # 16 bytes of results a game


@njit(cache=True)
def _best_keeps_arg(A, arg, sub_rows, n_keeps):
    """Best keep inside every set of dice, as in ``best_keeps``, remembering which.

    ``arg[k]`` is the keep (inside ``k``) that reaches ``A[k]``; on equal values
    the larger keep wins. For a full roll, keeping it all means scoring now.
    """
    for k in range(n_keeps):
        arg[k] = k
        for s in sub_rows[k]:
            if s == k:
                break
            if A[s, 0] > A[k, 0]:
                A[k, 0] = A[s, 0]
                arg[k] = arg[s]


@njit(cache=True)
def best_box(mask, y, u, ri, V, R, moves):
    """The box a final roll ``ri`` goes in: ``(box, points, extra bonus)``.

    ``V[mask, y, u]`` values the next turn's start; the first box of the best value
    wins, as in the advice. ``R`` is the rules' arrays (the served ones for a first
    throw scored at once); ``moves`` a scratch array of ``placements``.
    """
    n, extra = placements(mask, y, ri, R, moves)
    best_c = -1
    best_v = -1.0e300
    best_pts = 0
    for m in range(n):
        c, pts = moves[0, m], moves[1, m]
        u2 = u
        if R.upper[c] and R.threshold > 0:
            u2 = min(R.threshold, u + pts)
        v = pts + V[mask | (1 << c), moves[2, m], u2]
        if v > best_v:
            best_v = v
            best_c = c
            best_pts = pts
    return best_c, best_pts, extra


@njit(cache=True, inline="always")
def write_box(c, pts, extra, sheet, R, alike_box, out):
    """Score ``pts`` (and ``extra``) in box ``c``: the game's tally in ``out`` (points,
    extra bonuses, the all-same box scored) and the sheet ``(mask, y, u)`` after it."""
    mask, y, u = sheet
    out[0] += pts + int(extra)
    if extra > 0:
        out[2] += 1
    if c == alike_box and pts > 0:
        out[3] = 1
    if R.upper[c] and R.threshold > 0:
        u = min(R.threshold, u + pts)
    return mask | (1 << c), next_flag(c, y, pts, R.yahtzee, R.n_flag), u


@njit(cache=True, inline="always")
def finish_sheet(u, R, bonus_points, out):
    """The upper bonus of a finished sheet with upper total ``u``, added to ``out``."""
    bonus = 1 if (R.threshold > 0 and u >= R.threshold) else 0
    out[0] += bonus * bonus_points
    out[1] = bonus


@njit(cache=True, inline="always")
def tally_row(results, g, out):
    """Game ``g``'s tally (:func:`write_box`, :func:`finish_sheet`) into its row of
    ``results``: score, upper bonus, extra bonuses, the all-same box scored."""
    for j in range(4):
        results[g, j] = out[j]


@njit(cache=True, inline="always")
def _throws(levels, arg, draws, pos, keep_size, D):
    """A turn's throws: all the dice from draw ``pos`` on, then the best keep
    ``arg[n]`` before each reroll ``n = levels .. 1`` until a keep holds every die.
    Returns ``(final roll, rerolls left unused, next draw)``."""
    r = 0
    for _ in range(D.dice):
        r = D.add[r, draws[pos]]
        pos += 1
    n = levels
    while n > 0:
        k = arg[n, r]
        if k == r:
            break
        r = k
        for _ in range(D.dice - keep_size[k]):
            r = D.add[r, draws[pos]]
            pos += 1
        n -= 1
    return r, n, pos


@njit(cache=True, inline="always")
def turn_keeps(A, S, stop, arg, served, D):
    """A turn valued back from its final throws: ``A[roll0 + r, 0]`` the best box of
    final roll ``r`` (and, with ``served``, ``S[r, 0]`` its best box when scored on
    the first throw). Before each reroll ``n`` the keeps are valued and the best
    one inside every roll kept in ``arg[n]``; at the end the rows of the rolls
    hold the first throw's values. ``stop`` is a scratch buffer.

    As in the advice, keeping every die ends the rolling: before each reroll a
    full roll is valued as its best box now, and its sub-keeps as usual.
    """
    n_keeps = D.add.shape[0]
    roll0 = D.size_start[D.dice]
    n_rolls = n_keeps - roll0
    for r in range(n_rolls):
        stop[r] = A[roll0 + r, 0]
    for n in range(1, D.rerolls + 1):
        keep_values(A, D.add, D.size_start, D.dice, D.faces, 1)
        for r in range(n_rolls):  # keeping every die stops the rolling
            A[roll0 + r, 0] = S[r, 0] if (served and n == D.rerolls) else stop[r]
        _best_keeps_arg(A, arg[n], D.sub_rows, n_keeps)


@njit(cache=True, inline="always")
def turn_throws(A, S, stop, arg, served, draws, pos, keep_size, D):
    """A turn played from the values of its final throws (:func:`turn_keeps`), the
    dice drawn from ``draws[pos:]`` (:func:`_throws`). Returns ``(final roll,
    rerolls left unused, next draw)``."""
    turn_keeps(A, S, stop, arg, served, D)
    return _throws(D.rerolls, arg, draws, pos, keep_size, D)


@njit(cache=True, inline="always")
def _points_turn(sheet, draws, pos, V, scratch, keep_size, R, D, served, SR, moves):
    """One turn from ``sheet = (mask, y, u)`` played for the expected score (the
    table ``V``), its dice from ``draws[pos:]``: ``(box, points, extra bonus, next
    draw)``. With ``served``, stopping on the first throw scores with the served
    rules (``SR``). ``scratch`` is ``(A, S, cand, arg, stop)``, one worker's buffers."""
    A, S, cand, arg, stop = scratch
    mask, y, u = sheet
    roll0 = D.size_start[D.dice]
    final_roll_values(mask, u, 1, y, 0, V, A, cand, roll0, R)
    if served:
        final_roll_values(mask, u, 1, y, 0, V, S, cand, 0, SR)
    r, left, pos = turn_throws(A, S, stop, arg, served, draws, pos, keep_size, D)
    now = SR if (served and left == D.rerolls) else R  # scored on the first throw
    c, pts, extra = best_box(mask, y, u, r - roll0, V, now, moves)
    return c, pts, extra, pos


@njit(cache=True, inline="always")
def _play_game(draws, V, scratch, keep_size, R, D, served, SR, bonus_points, alike_box, out):
    """One game with optimal choices (:func:`_points_turn`, the dice of each turn
    following the last's); writes score, bonus, extra bonuses, all-same."""
    n_cat = R.score.shape[0]
    full = (1 << n_cat) - 1
    moves = np.empty((3, n_cat), np.int64)
    mask = u = y = pos = 0  # an empty sheet, the first draw
    out[:] = 0
    while mask != full:
        sheet = (mask, y, u)
        c, pts, extra, pos = _points_turn(sheet, draws, pos, V, scratch, keep_size, R, D,
                                         served, SR, moves)  # fmt: skip
        mask, y, u = write_box(c, pts, extra, sheet, R, alike_box, out)
    finish_sheet(u, R, bonus_points, out)


@njit(cache=True, nogil=True)
def _play_block(counter, w, draws, V, keep_size, R, D, served, SR, bonus_points, alike, results):
    """Play the games of a block (one row of ``draws`` each), taking them one at a
    time: a worker of :func:`dicelab.engine.kernels.work.on_threads`."""
    add, size_start, dice, rerolls = D.add, D.size_start, D.dice, D.rerolls
    n_keeps = add.shape[0]
    A = np.empty((n_keeps, 1))
    S = np.empty((n_keeps - size_start[dice], 1))
    cand = np.empty((max(cand_rows(R.values), cand_rows(SR.values)), 1))
    arg = np.zeros((rerolls + 1, n_keeps), np.int64)
    stop = np.empty(n_keeps - size_start[dice])
    out = np.zeros(4, np.int64)
    scratch = (A, S, cand, arg, stop)
    g = take(counter)
    while g < draws.shape[0]:
        _play_game(draws[g], V, scratch, keep_size, R, D, served, SR, bonus_points, alike, out)
        tally_row(results, g, out)
        g = take(counter)


@njit(cache=True)
def _play_saved_game(draws, V, A, cand, arg, keep_size, R, D, bonus_points, alike_box, out):
    """One game with optimal choices when unused throws are saved (``V[mask, y, s, u]``).

    A turn with ``s`` throws in hand may reroll ``rerolls + s`` times; every throw
    values the dice as scored then, keeping the rerolls left (at most the cap). The
    whole game never throws more than ``rolls`` times per box, so the draws suffice.
    """
    score = R.score
    n_cat = score.shape[0]
    n_keeps = D.add.shape[0]
    roll0 = D.size_start[D.dice]
    cap = V.shape[2] - 1
    full = (1 << n_cat) - 1
    moves = np.empty((3, n_cat), np.int64)
    mask = u = y = s = pos = 0  # an empty sheet, no throws saved, the first draw
    out[:] = 0
    while mask != full:
        levels = D.rerolls + s
        for n in range(levels + 1):
            if n > 0:
                keep_values(A, D.add, D.size_start, D.dice, D.faces, 1)
            final_roll_values(mask, u, 1, y, 0, V[:, :, min(n, cap), :], A, cand, roll0, R)
            if n > 0:
                _best_keeps_arg(A, arg[n], D.sub_rows, n_keeps)
        r, left, pos = _throws(levels, arg, draws, pos, keep_size, D)
        kept = min(left, cap)
        c, best_pts, extra = best_box(mask, y, u, r - roll0, V[:, :, kept, :], R, moves)
        mask, y, u = write_box(c, best_pts, extra, (mask, y, u), R, alike_box, out)
        s = kept
    finish_sheet(u, R, bonus_points, out)


@njit(cache=True, nogil=True)
def _play_saved_block(counter, w, draws, V, keep_size, R, D, bonus_points, alike_box, results):
    """:func:`_play_block` for rules that save unused throws."""
    n_keeps = D.add.shape[0]
    most = D.rerolls + V.shape[2] - 1
    A = np.empty((n_keeps, 1))
    cand = np.empty((cand_rows(R.values), 1))
    arg = np.zeros((most + 1, n_keeps), np.int64)
    out = np.zeros(4, np.int64)
    g = take(counter)
    while g < draws.shape[0]:
        _play_saved_game(draws[g], V, A, cand, arg, keep_size, R, D, bonus_points, alike_box, out)
        tally_row(results, g, out)
        g = take(counter)


#: the game kernel compiled in another process: how, and what
COMPILE_GAMES = ("dicelab.play.simulate:compile_kernels", ["dicelab.play.simulate:_play_block"])


def compile_meanwhile() -> None:
    """Begin compiling the game kernel in another process when this one is about
    to compile the expected-score turn (:mod:`dicelab.engine.runtime.ahead`): call it before
    the table is solved or loaded."""
    from dicelab.engine.objectives.expected import turn_compiled
    from dicelab.engine.runtime import ahead

    if not turn_compiled():
        ahead.start(*COMPILE_GAMES)


def compile_kernels() -> None:
    """Compile the game kernel (the same for every rule set without saved throws):
    one game of yahtzee under an all-zero table."""
    from dicelab.rules.compiled import as_game

    game = as_game("yahtzee")
    V = np.zeros((1 << game.n_categories, game.n_flag, game.n_upper))
    simulate(ExpectedTable(game=game, values=V, seconds=0.0), 1)


@dataclass(frozen=True)
class Simulation:
    """Scores of simulated games, with the exact expectation to compare against.

    Attributes
    ----------
    scores : ndarray of int
        Final score of each game, in game order.
    upper_bonus, extra_bonuses, all_same : ndarray
        Per game: upper bonus earned (0/1), extra bonuses earned, all-same box
        scored (0/1).
    """

    rules: str
    seed: int
    scores: np.ndarray
    upper_bonus: np.ndarray
    extra_bonuses: np.ndarray
    all_same: np.ndarray
    expected_score: float
    seconds: float

    @property
    def games(self) -> int:
        return int(self.scores.size)

    @property
    def mean(self) -> float:
        return float(self.scores.mean())

    @property
    def sd(self) -> float:
        return float(self.scores.std(ddof=1)) if self.games > 1 else 0.0

    @property
    def standard_error(self) -> float:
        return self.sd / np.sqrt(self.games)

    @property
    def z(self) -> float:
        """Distance of the mean from the exact expected score, in standard errors."""
        se = self.standard_error
        return (self.mean - self.expected_score) / se if se > 0 else 0.0

    @property
    def games_per_minute(self) -> float:
        return 60.0 * self.games / self.seconds if self.seconds > 0 else float("inf")

    def percentiles(self) -> dict[int, float]:
        return {p: float(np.percentile(self.scores, p)) for p in PERCENTILES}

    def histogram(self, bins: int = 20) -> tuple[np.ndarray, np.ndarray]:
        """Counts and bin edges over whole-point bins of equal width."""
        lo, hi = int(self.scores.min()), int(self.scores.max())
        width = max(1, -(-(hi - lo + 1) // bins))
        edges = np.arange(lo, hi + width + 1, width)
        counts, edges = np.histogram(self.scores, bins=edges)
        return counts, edges

    def to_dict(self) -> dict:
        """Plain data for JSON output."""
        counts, edges = self.histogram()
        return {
            "rules": self.rules,
            "games": self.games,
            "seed": self.seed,
            "mean": self.mean,
            "sd": self.sd,
            "standard_error": self.standard_error,
            "expected_score": self.expected_score,
            "z": self.z,
            "percentiles": {str(p): v for p, v in self.percentiles().items()},
            "min": int(self.scores.min()),
            "max": int(self.scores.max()),
            "p_upper_bonus": float(self.upper_bonus.mean()),
            "p_all_same": float(self.all_same.mean()),
            "mean_extra_bonuses": float(self.extra_bonuses.mean()),
            "histogram": {"edges": edges.tolist(), "counts": counts.tolist()},
            "seconds": self.seconds,
            "games_per_minute": self.games_per_minute,
        }


def simulate(
    table: ExpectedTable,
    games: int,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Simulation:
    """Play ``games`` games with the optimal expected-score strategy.

    Parameters
    ----------
    table : ExpectedTable or dicelab.engine.objectives.saved.SavedTable
        The solved table of the rules played (a ``SavedTable`` for rules that save
        unused throws).
    games : int
        Number of games.
    seed : int
        Seed of the dice: the same seed and number of games give the same games.
    progress : callable, optional
        Called as ``progress(done, total)`` after each block of games.
    """
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise UserError(f"games: got {games!r}, expected a number from 1 to {MAX_GAMES:,}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UserError(f"seed: got {seed!r}, expected a whole number 0 or more")
    from dicelab.engine.runtime import ahead

    g = table.game
    space = g.space
    rules = g.rules
    ahead.finish(COMPILE_GAMES[0])
    n_draws = g.n_categories * rules.rolls * rules.dice
    keep_size = space.counts.sum(axis=1).astype(np.int64)
    R, D = rule_arrays(g), dice_arrays(g)
    alike = all_same_box(rules)  # the all-dice-alike box, with or without extra rules
    results = np.zeros((games, 4), dtype=np.int32)
    bonus = int(rules.bonus_points)
    kernel: Callable[..., None]  # the rules' block kernel, and its arguments after the values
    rules_args: tuple[object, ...]
    kernel, rules_args = _play_block, (keep_size, R, D, g.has_served, rule_arrays(g, served=True))
    if rules.save_unused_throws:
        kernel, rules_args = _play_saved_block, (keep_size, R, D)
    rules_args += (bonus, alike)
    streams = np.random.SeedSequence(seed).spawn((games + BLOCK - 1) // BLOCK)
    start = time.perf_counter()
    for b, stream in enumerate(streams):
        lo = b * BLOCK
        hi = min(games, lo + BLOCK)
        rng = np.random.default_rng(stream)
        draws = rng.integers(0, rules.faces, size=(hi - lo, n_draws), dtype=np.int8)
        on_threads(kernel, draws, table.values, *rules_args, results[lo:hi])
        if progress is not None:
            progress(hi, games)
    seconds = time.perf_counter() - start
    return Simulation(
        rules=rules.name,
        seed=seed,
        scores=results[:, 0].copy(),
        upper_bonus=results[:, 1].copy(),
        extra_bonuses=results[:, 2].copy(),
        all_same=results[:, 3].copy(),
        expected_score=table.expected_score,
        seconds=seconds,
    )
