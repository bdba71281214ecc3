"""Best scoring of known rolls: which roll goes in which box.

When every roll of a game is known in advance, each roll goes in a distinct box
and the question is only which assignment scores the most. This is the
programming-contest problem (rules ``uva10149``), solved here for
any rule set and for many games at once.

Two exact methods share the work:

* Without extra-Yahtzee rules the order of the rolls does not matter, and the
  upper bonus depends only on which rolls go to the upper boxes. For a set ``S``
  of rolls placed in the upper boxes, the best upper points are the largest upper
  sum ``U(S)``, plus the bonus when ``U(S)`` reaches the threshold (the largest sum
  earns the bonus whenever any split of ``S`` does). So the best total is the
  best, over every ``S`` of the right size, of ``U(S) + bonus + L(rest)``, where
  ``U`` and ``L`` are two subset dynamic programmes over sets of rolls without any
  upper-total dimension. They run in lanes of games side by side.
* With an extra-Yahtzee bonus or a joker rule the order matters (a bonus is due
  only once the all-same box holds its points), so roll ``i`` fills a box at turn
  ``i`` and the programme runs over (filled boxes, all-same flag, capped upper
  total), with the same bonus and joker rules as the expected-score solver.
  Those rules only touch all-same rolls, so only games that have one take this
  slower path.

>>> from dicelab.games.assign.hindsight import best_assignment
>>> best_assignment([[1, 2, 3, 4, 5]] * 13).total
90
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numba
import numpy as np
from numba import njit, prange

from dicelab.dice import DiceSpace, dice_space
from dicelab.engine.kernels import rule_arrays
from dicelab.engine.kernels.turn import placements
from dicelab.errors import UserError
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, as_game, refuse_variants
from dicelab.text import plural

__all__ = [
    "Assignment",
    "Assignments",
    "assign",
    "best_assignment",
    "needs_order",
    "roll_indices",
]

DEFAULT_RULES = "uva10149"

#: Largest working memory (in bytes) of the ordered method, all threads together.
MAX_ORDERED_BYTES = 1 << 30

#: Games solved side by side by the subset method (the lanes of its tables).
LANES = 64


# -- results ------------------------------------------------------------------------


@dataclass(frozen=True)
class Assignment:
    """The best scoring of one game.

    Attributes
    ----------
    rolls : tuple of tuple of int
        The game's rolls (faces), in the order given.
    roll_of_box : tuple of int
        For each box, in the rules' order, the position (0-based) of the roll in it.
    scores : tuple of int
        Points of each box.
    bonus : int
        Upper-section bonus.
    extra_bonus : int
        Extra all-same bonuses (0 unless the rules have them).
    total : int
        Best total: box points, bonus and extra bonuses.
    """

    rolls: tuple[tuple[int, ...], ...]
    roll_of_box: tuple[int, ...]
    scores: tuple[int, ...]
    bonus: int
    extra_bonus: int
    total: int

    @property
    def box_of_roll(self) -> tuple[int, ...]:
        """For each roll, the box (index in the rules' order) it went to."""
        out = [0] * len(self.roll_of_box)
        for box, roll in enumerate(self.roll_of_box):
            out[roll] = box
        return tuple(out)


@dataclass(frozen=True)
class Assignments:
    """Best scorings of a batch of games, as arrays (one row per game).

    ``faces`` has shape ``(n_games, n_boxes, dice)``; ``roll_of_box`` and
    ``scores`` have shape ``(n_games, n_boxes)``; ``bonus``, ``extra_bonus`` and
    ``total`` have shape ``(n_games,)``.
    """

    rules: Rules
    faces: np.ndarray
    roll_of_box: np.ndarray
    scores: np.ndarray
    bonus: np.ndarray
    extra_bonus: np.ndarray
    total: np.ndarray

    def __len__(self) -> int:
        return len(self.total)

    def __getitem__(self, i: int) -> Assignment:
        return Assignment(
            rolls=tuple(tuple(int(f) for f in roll) for roll in self.faces[i]),
            roll_of_box=tuple(int(x) for x in self.roll_of_box[i]),
            scores=tuple(int(x) for x in self.scores[i]),
            bonus=int(self.bonus[i]),
            extra_bonus=int(self.extra_bonus[i]),
            total=int(self.total[i]),
        )

    def __iter__(self):
        return (self[i] for i in range(len(self)))


# -- rules --------------------------------------------------------------------------


def checked_game(rules: Rules | CompiledRules | str) -> CompiledRules:
    """The compiled rules, refused where the assignment does not handle them."""
    game = as_game(rules)
    refuse_variants(game, "the best assignment of known rolls", requires=True)
    return game


def needs_order(rules: Rules) -> bool:
    """Whether the rules make the order of the rolls matter (extra bonus or joker, or
    boxes filled in scorecard order: then roll ``i`` can only go in box ``i``)."""
    if rules.forced_order:
        return True
    return rules.yahtzee_index >= 0 and (rules.extra_bonus > 0 or rules.joker != "none")


# -- dice to roll indices -----------------------------------------------------------


def _roll_codes(sorted_faces: np.ndarray, faces: int) -> np.ndarray:
    """One integer per multiset of dice (faces sorted along the last axis)."""
    weights = faces ** np.arange(sorted_faces.shape[-1], dtype=np.int64)
    return (sorted_faces - 1) @ weights


def roll_indices(faces: np.ndarray, space: DiceSpace) -> np.ndarray:
    """Roll index (column of the score table) of every roll, vectorised.

    ``faces`` has shape ``(..., dice)`` with faces from 1 to ``space.faces``.
    """
    codes, order = _roll_table(space.dice, space.faces)
    found = np.searchsorted(codes, _roll_codes(np.sort(faces, axis=-1), space.faces))
    return order[found]


@lru_cache(maxsize=16)
def _roll_table(dice: int, faces: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted codes of every roll, and the roll index of each."""
    space = dice_space(dice, faces)
    table = np.array([space.faces_of(int(k)) for k in space.rolls], dtype=np.int64)
    codes = _roll_codes(table.reshape(len(space.rolls), dice), faces)
    order = np.argsort(codes)
    return codes[order], order


def _as_faces(games, game: CompiledRules) -> np.ndarray:
    """Check a batch of games against the rules; returns int64 ``(n, boxes, dice)``."""
    rules = game.rules
    try:
        arr = np.asarray(games)
    except ValueError:
        arr = np.asarray(games, dtype=object)
    want = f"(games, {rules.n_categories} rolls, {rules.dice} dice)"
    if arr.size == 0:
        return np.zeros((0, rules.n_categories, rules.dice), dtype=np.int64)
    if arr.ndim == 2:
        arr = arr[None]
    if arr.ndim != 3 or arr.shape[1:] != (rules.n_categories, rules.dice):
        raise UserError(
            f"games: got an array of shape {arr.shape}, expected {want}: "
            f"{rules.name} has {plural(rules.n_categories, 'box')}, so a game is "
            f"{rules.n_categories} rolls of {rules.dice} dice"
        )
    if not np.issubdtype(arr.dtype, np.integer) and (
        not np.issubdtype(arr.dtype, np.number) or not np.all(arr == np.round(arr))
    ):
        raise UserError("games: every die must be a whole number")
    arr = arr.astype(np.int64)
    bad = (arr < 1) | (arr > rules.faces)
    if bad.any():
        g, r, _ = np.argwhere(bad)[0]
        raise UserError(
            f"game {g + 1}, roll {r + 1}: faces must be 1 to {rules.faces}, "
            f"got {arr[g, r].tolist()}"
        )
    return arr


# -- the subset method (order does not matter) --------------------------------------


@njit(cache=True)
def _subset_layer(T, S, mask, k, low_bit, lanes):
    """``T[mask] = max over rolls r in mask of T[mask - r] + S[k - 1, r]``."""
    dst = T[mask]
    r = low_bit[mask]
    src = T[mask ^ (1 << r)]
    s = S[k - 1, r]
    for g in range(lanes):
        dst[g] = src[g] + s[g]
    m = mask & (mask - 1)
    while m:
        r = low_bit[m]
        src = T[mask ^ (1 << r)]
        s = S[k - 1, r]
        for g in range(lanes):
            v = src[g] + s[g]
            if v > dst[g]:
                dst[g] = v
        m &= m - 1


@njit(cache=True)
def _subset_back(T, S, mask, k, n_bits, g, boxes, out):
    """Undo :func:`_subset_layer` for lane ``g``: which roll went to each box."""
    while k > 0:
        for r in range(n_bits):
            if (mask >> r) & 1 and T[mask ^ (1 << r), g] + S[k - 1, r, g] == T[mask, g]:
                out[boxes[k - 1]] = r
                mask ^= 1 << r
                break
        k -= 1


@njit(cache=True, parallel=True)
def _subset_solve(rolls, scores, bits, bonus_rule, tables, roll_of_box, best_total):
    """Best assignment of every game, ``lanes`` games side by side per table.

    ``UP[mask, g]`` is the largest upper sum of game ``g`` with the rolls of
    ``mask`` in the first ``popcount(mask)`` upper boxes, ``LO`` the same for the
    other boxes. Each parallel chunk owns one set of tables ``UP[ch]``, ``LO[ch]``.
    ``scores`` is ``(su, sl, up_box, low_box)``: the upper and the other boxes'
    scores and numbers; ``bits`` ``(popcount, low_bit, top_masks)``; ``bonus_rule``
    ``(threshold, bonus)``; ``tables`` ``(UP, LO, SU, SL)``.
    """
    su, sl, up_box, low_box = scores
    popcount, low_bit, top_masks = bits
    threshold, bonus = bonus_rule
    UP, LO, SU, SL = tables
    n_games, n_bits = rolls.shape
    n_up = su.shape[0]
    n_low = sl.shape[0]
    n_chunks, n_masks, lanes = UP.shape
    full = n_masks - 1
    n_blocks = (n_games + lanes - 1) // lanes
    for ch in prange(n_chunks):
        up = UP[ch]
        lo = LO[ch]
        sup = SU[ch]
        slo = SL[ch]
        best = np.empty(lanes, np.int64)
        best_s = np.empty(lanes, np.int64)
        for b in range(ch, n_blocks, n_chunks):
            g0 = b * lanes
            gn = min(lanes, n_games - g0)
            for r in range(n_bits):
                for g in range(lanes):
                    roll = rolls[g0 + g, r] if g < gn else 0
                    for j in range(n_up):
                        sup[j, r, g] = su[j, roll]
                    for j in range(n_low):
                        slo[j, r, g] = sl[j, roll]
            for g in range(lanes):
                up[0, g] = 0
                lo[0, g] = 0
            for mask in range(1, n_masks):
                k = popcount[mask]
                if k <= n_up:
                    _subset_layer(up, sup, mask, k, low_bit, lanes)
                if k <= n_low:
                    _subset_layer(lo, slo, mask, k, low_bit, lanes)
            for g in range(lanes):
                best[g] = -1
                best_s[g] = 0
            for i in range(top_masks.shape[0]):
                s_mask = top_masks[i]
                u_row = up[s_mask]
                l_row = lo[full ^ s_mask]
                for g in range(lanes):
                    u = u_row[g]
                    v = u + l_row[g]
                    if u >= threshold:
                        v += bonus
                    if v > best[g]:
                        best[g] = v
                        best_s[g] = s_mask
            for g in range(gn):
                out = roll_of_box[g0 + g]
                _subset_back(up, sup, best_s[g], n_up, n_bits, g, up_box, out)
                _subset_back(lo, slo, full ^ best_s[g], n_low, n_bits, g, low_box, out)
                best_total[g0 + g] = best[g]


def _popcounts(n_bits: int) -> np.ndarray:
    masks = np.arange(1 << n_bits, dtype=np.int64)
    pop = np.zeros_like(masks)
    for b in range(n_bits):
        pop += (masks >> b) & 1
    return pop


def _low_bits(n_bits: int) -> np.ndarray:
    """Position of the lowest set bit of every mask (0 for the empty mask)."""
    masks = np.arange(1 << n_bits, dtype=np.int64)
    low = masks & -masks
    out = np.zeros(1 << n_bits, dtype=np.int64)
    out[1:] = np.log2(low[1:]).astype(np.int64)
    return out


def _value_dtype(game: CompiledRules) -> type:
    """int32 when no total can overflow it, which doubles the lanes per instruction."""
    r = game.rules
    most = int(game.score.max(axis=1).sum()) + r.bonus_points
    most += r.n_categories * (r.extra_bonus + int(game.joker_score.max(initial=0)))
    return np.int32 if most < 2**31 - 1 else np.int64


def _n_chunks(n_items: int) -> int:
    return max(1, min(numba.get_num_threads(), n_items))


def _solve_subsets(idx: np.ndarray, game: CompiledRules, lanes: int = LANES):
    """The subset method: returns ``(roll_of_box, total)``."""
    rules = game.rules
    n_games, n_cat = idx.shape
    dt = _value_dtype(game)
    upper = np.array(rules.upper_mask, dtype=bool)
    up_box = np.flatnonzero(upper).astype(np.int64)
    low_box = np.flatnonzero(~upper).astype(np.int64)
    su: np.ndarray = np.ascontiguousarray(game.score[up_box]).astype(dt)
    sl: np.ndarray = np.ascontiguousarray(game.score[low_box]).astype(dt)
    pop = _popcounts(n_cat)
    top = np.flatnonzero(pop == len(up_box)).astype(np.int64)
    threshold = rules.bonus_threshold
    bonus = rules.bonus_points if threshold > 0 else 0
    # tables grow as 2**boxes: fewer lanes for large rule sets
    lanes = int(max(1, min(lanes, (16 << 20) // (4 << n_cat))))
    chunks = _n_chunks((n_games + lanes - 1) // lanes)
    UP = np.empty((chunks, 1 << n_cat, lanes), dtype=dt)
    LO = np.empty_like(UP)
    SU: np.ndarray = np.empty((chunks, max(1, len(up_box)), n_cat, lanes), dtype=dt)
    SL: np.ndarray = np.empty((chunks, max(1, len(low_box)), n_cat, lanes), dtype=dt)
    roll_of_box = np.zeros((n_games, n_cat), dtype=np.int64)
    total = np.zeros(n_games, dtype=np.int64)
    scores, bits = (su, sl, up_box, low_box), (pop, _low_bits(n_cat), top)
    _subset_solve(idx, scores, bits, (threshold, bonus), (UP, LO, SU, SL), roll_of_box, total)
    return roll_of_box, total


# -- the ordered method (extra bonus and joker rules) -------------------------------


@njit(cache=True)
def _options(mask, y, r, R, moves, ok, pts, add, y_next):
    """Which open boxes roll ``r`` may go in (``ok``), its points there, the points
    with the extra bonus, and the next flag: the placement rules every solver
    follows (:func:`dicelab.rules.placement.placements`)."""
    n, extra = placements(mask, y, r, R, moves)
    ok[:] = False
    for m in range(n):
        c = moves[0, m]
        ok[c] = True
        pts[c] = moves[1, m]
        add[c] = moves[1, m] + int(extra)
        y_next[c] = moves[2, m]


@njit(cache=True, parallel=True)
def _ordered_solve(rolls, R, bonus, extent, popcount, V, out):
    """Best assignment with roll ``i`` played at turn ``i``, one game per thread.

    ``V[ch][mask, y, u]`` is the most points still to come (bonuses included) with
    the boxes of ``mask`` filled, flag ``y`` and upper total ``u`` (capped). ``out`` is
    ``(roll_of_box, box_score, extra, total)``, written per game.
    """
    roll_of_box, box_score, extra_out, best_total = out
    upper, threshold, yahtzee, n_flag = R.upper, R.threshold, R.yahtzee, R.n_flag
    n_games, n_cat = rolls.shape
    n_chunks = V.shape[0]
    full = (1 << n_cat) - 1
    for ch in prange(n_chunks):
        W = V[ch]
        ok = np.empty(n_cat, np.bool_)
        pts = np.empty(n_cat, np.int64)
        add = np.empty(n_cat, np.int64)
        y_next = np.empty(n_cat, np.int64)
        moves = np.empty((3, n_cat), np.int64)
        for g in range(ch, n_games, n_chunks):
            game = rolls[g]
            for mask in range(full, -1, -1):
                ny = n_flag if (yahtzee >= 0 and (mask >> yahtzee) & 1 == 1) else 1
                ext = extent[mask]
                if mask == full:
                    for y in range(ny):
                        for u in range(ext):
                            W[mask, y, u] = bonus if (threshold > 0 and u >= threshold) else 0
                    continue
                r = game[popcount[mask]]
                for y in range(ny):
                    _options(mask, y, r, R, moves, ok, pts, add, y_next)
                    row = W[mask, y]
                    for u in range(ext):
                        row[u] = -1
                    for c in range(n_cat):
                        if not ok[c]:
                            continue
                        nxt = W[mask | (1 << c), y_next[c]]
                        a = add[c]
                        if upper[c] and threshold > 0:
                            p = pts[c]
                            for u in range(ext):
                                u2 = u + p
                                if u2 > threshold:
                                    u2 = threshold
                                v = a + nxt[u2]
                                if v > row[u]:
                                    row[u] = v
                        else:
                            for u in range(ext):
                                v = a + nxt[u]
                                if v > row[u]:
                                    row[u] = v
            mask = 0
            y = 0
            u = 0
            extra_sum = 0
            for i in range(n_cat):
                r = game[i]
                _options(mask, y, r, R, moves, ok, pts, add, y_next)
                for c in range(n_cat):
                    if not ok[c]:
                        continue
                    u2 = u
                    if upper[c] and threshold > 0:
                        u2 = min(threshold, u + pts[c])
                    if add[c] + W[mask | (1 << c), y_next[c], u2] == W[mask, y, u]:
                        roll_of_box[g, c] = i
                        box_score[g, c] = pts[c]
                        extra_sum += add[c] - pts[c]
                        mask |= 1 << c
                        y = y_next[c]
                        u = u2
                        break
            extra_out[g] = extra_sum
            best_total[g] = W[0, 0, 0]


def _solve_ordered(idx: np.ndarray, game: CompiledRules):
    """The ordered method: returns ``(roll_of_box, box_score, extra, total)``."""
    rules = game.rules
    n_games, n_cat = idx.shape
    dt = _value_dtype(game)
    shape = (1 << n_cat, game.n_flag, game.n_upper)
    need = int(np.prod(shape)) * np.dtype(dt).itemsize
    chunks = max(1, min(_n_chunks(n_games), MAX_ORDERED_BYTES // need))
    if need > MAX_ORDERED_BYTES:
        raise UserError(
            f"{rules.name}: with its extra-bonus or joker rules the assignment needs a "
            f"table of {need / 2**30:.1f} GiB (at most {MAX_ORDERED_BYTES / 2**30:.0f} GiB); "
            "use fewer boxes or a lower bonus threshold"
        )
    V = np.zeros((chunks, *shape), dtype=dt)
    roll_of_box = np.zeros((n_games, n_cat), dtype=np.int64)
    box_score = np.zeros((n_games, n_cat), dtype=np.int64)
    extra = np.zeros(n_games, dtype=np.int64)
    total = np.zeros(n_games, dtype=np.int64)
    bonus = rules.bonus_points if game.threshold > 0 else 0
    out = (roll_of_box, box_score, extra, total)
    _ordered_solve(idx, rule_arrays(game), bonus, game.upper_extent, _popcounts(n_cat), V, out)
    return roll_of_box, box_score, extra, total


# -- public solving API -------------------------------------------------------------


def assign(games, rules: Rules | CompiledRules | str = DEFAULT_RULES) -> Assignments:
    """Best scoring of many games at once.

    Parameters
    ----------
    games : array_like of int, shape (n_games, n_boxes, dice)
        The rolls of each game as faces (1-based), as many rolls as the rules have
        boxes. A single game of shape ``(n_boxes, dice)`` is accepted too.
    rules : Rules, CompiledRules or str
        The rule set, or a built-in name / path to a rules file.

    Returns
    -------
    Assignments
        Per game: the roll in each box, each box's points, bonus, extra bonus, total.

    Raises
    ------
    UserError
        If the games do not fit the rules (shape, faces), or the rules are too large.
    """
    game = checked_game(rules)
    r = game.rules
    faces = _as_faces(games, game)
    n_games, n_cat = faces.shape[:2]
    idx = roll_indices(faces, game.space)
    roll_of_box = np.zeros((n_games, n_cat), np.int64)
    scores = np.zeros((n_games, n_cat), np.int64)
    extra = np.zeros(n_games, np.int64)
    total = np.zeros(n_games, np.int64)
    # bonus and joker rules only touch all-same rolls: other games take the fast path
    # (in scorecard order every game is played in the order of its rolls)
    ordered = (game.roll_face[idx] >= 0).any(axis=1) if needs_order(r) else np.zeros(n_games, bool)
    if r.forced_order:
        ordered[:] = True
    plain = ~ordered
    if plain.any():
        rob, total[plain] = _solve_subsets(idx[plain], game)
        roll_of_box[plain] = rob
        played = np.take_along_axis(idx[plain], rob, axis=1)
        scores[plain] = game.score[np.arange(n_cat)[None, :], played]
    if ordered.any():
        rob, sc, ex, tot = _solve_ordered(idx[ordered], game)
        roll_of_box[ordered], scores[ordered], extra[ordered], total[ordered] = rob, sc, ex, tot
    upper_total = scores[:, np.array(r.upper_mask, dtype=bool)].sum(axis=1)
    t = r.bonus_threshold
    bonus = np.where((upper_total >= t) & (t > 0), r.bonus_points, 0).astype(np.int64)
    if not np.array_equal(scores.sum(axis=1) + bonus + extra, total):
        raise RuntimeError("assignment does not add up to its optimum")  # pragma: no cover
    return Assignments(
        rules=r,
        faces=faces,
        roll_of_box=roll_of_box,
        scores=scores,
        bonus=bonus,
        extra_bonus=extra,
        total=total,
    )


def best_assignment(
    rolls: Sequence[Sequence[int]], rules: Rules | CompiledRules | str = DEFAULT_RULES
) -> Assignment:
    """Best scoring of one game's rolls (a list of rolls, each a list of faces)."""
    return assign([rolls], rules)[0]


# -- the contest format -------------------------------------------------------------
