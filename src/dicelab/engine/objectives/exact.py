"""Exact rational answers: the best chance of a target score, the best expected score.

Every value in these games is a rational number whose denominator is a power of
the number of faces: a keep's value is the mean over one more die, so each throw
of ``d`` dice divides by ``faces**d``, and a turn of ``rolls`` throws by
``faces**(d * rolls)``. All states with the same number of open boxes therefore
share one denominator, ``faces**(d * rolls * open)``, and only numerators are
stored: plain non-negative integers, kept here as fixed-width little-endian limbs
of 32 bits in ``int64`` words, so that the compiled kernels add, scale and compare
them without a general big-number library.

Inside a turn the keep values of one throw have denominators that differ by a
power of ``faces`` with the keep size; the best-keep pass brings each to the
throw's common denominator (a multiplication by ``faces**size``) before comparing.

The state space is that of :mod:`dicelab.engine.objectives.target` (points so far, rows cut
where the target is decided), so the exact chance of a near-perfect score needs
few states: for the perfect score every filled box must hold its best, one state
per set of filled boxes.

>>> from dicelab.engine.objectives.exact import exact_expected
>>> exact_expected("yazy").value > 165
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numba import get_num_threads, njit, prange

from dicelab.dice import multinomial
from dicelab.engine.kernels import dice_arrays, rule_arrays
from dicelab.engine.kernels.points import batch_runs, plan_layer
from dicelab.engine.kernels.turn import candidate_moves, next_flag, open_box_rows, placements, shut
from dicelab.engine.objectives.points import (
    PointsLayout,
    build_layout,
    layers,
    max_score,
    so_far_layout,
    state_bounds,
)
from dicelab.engine.objectives.target import check_target
from dicelab.errors import UserError
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, as_game, refuse_variants

BITS = 32
MASK = (1 << BITS) - 1

#: Largest number of (state, points) values an exact solve takes on.
MAX_EXACT_VALUES = 3_000_000

TARGET = 0
EXPECTED = 1


# -- numbers as limbs ------------------------------------------------------------------
def to_limbs(value: int, n_limbs: int) -> np.ndarray:
    """A non-negative integer as little-endian 32-bit limbs."""
    out = np.zeros(n_limbs, dtype=np.int64)
    for i in range(n_limbs):
        out[i] = value & MASK
        value >>= BITS
    if value:
        raise OverflowError("number does not fit the limbs")
    return out


def from_limbs(limbs: np.ndarray) -> int:
    """The integer held by little-endian 32-bit limbs."""
    value = 0
    for x in reversed(limbs.tolist()):
        value = (value << BITS) | int(x)
    return value


@njit(cache=True)
def _normalise(x):
    """Carry every limb into range; the numbers are never negative."""
    carry = 0
    for i in range(x.shape[0]):
        v = x[i] + carry
        x[i] = v & 0xFFFFFFFF
        carry = v >> 32
    return carry


@njit(cache=True)
def _greater(a, b):
    """Whether the number ``a`` exceeds ``b`` (both normalised)."""
    for i in range(a.shape[0] - 1, -1, -1):
        if a[i] != b[i]:
            return a[i] > b[i]
    return False


@njit(cache=True)
def _scale(x, factor):
    """``x *= factor`` for ``0 <= factor < 2**31``."""
    carry = 0
    for i in range(x.shape[0]):
        v = x[i] * factor + carry
        x[i] = v & 0xFFFFFFFF
        carry = v >> 32
    return carry


# -- kernels ----------------------------------------------------------------------------
@njit(cache=True)
def _after(dst, nl, state, c, pts, gain, table, R):
    """Numerator of each lane's value after scoring ``pts`` (``gain``) in box ``c``.

    ``mode`` TARGET: lanes are points so far, 0 below a row and 1 above it;
    ``mode`` EXPECTED: one lane per state, the gain plus the next state's value.
    Results are over the next layer's denominator ``d_next``. ``state`` is ``(mask,
    y, f0, runs, n_runs)``: the lanes from ``f0`` and their rows' runs
    (:func:`~dicelab.engine.kernels.points.batch_runs`); ``table`` is ``(N, lo, hi,
    off, mode, d_next)``.
    """
    mask, y, f0, runs, n_runs = state
    N, lo, hi, off, mode, d_next = table
    upper, threshold, yahtzee, n_flag = R.upper, R.threshold, R.yahtzee, R.n_flag
    m2 = mask | (1 << c)
    y2 = next_flag(c, y, pts, yahtzee, n_flag)
    shift = upper[c] and threshold > 0
    n_limbs = d_next.shape[0]
    for k in range(n_runs):
        u, a, b, t0 = runs[k, 0], runs[k, 1], runs[k, 2], runs[k, 3]
        u2 = u
        if shift:
            u2 = min(u + pts, threshold)
        r2 = off[m2, y2, u2]
        lo2 = lo[m2, y2, u2]
        hi2 = hi[m2, y2, u2]
        for i in range(a, b):
            out = dst[i - f0]
            if mode == EXPECTED:
                src = N[r2]
                for j in range(n_limbs):
                    out[j] = gain * d_next[j] + src[j]
                _normalise(out)
                continue
            t2 = t0 + i + gain
            if t2 < lo2:
                for j in range(n_limbs):
                    out[j] = 0
            elif t2 > hi2:
                for j in range(n_limbs):
                    out[j] = d_next[j]
            else:
                src = N[r2 + t2 - lo2]
                for j in range(n_limbs):
                    out[j] = src[j]


@njit(cache=True)
def _final_rolls(batch, table, A, cand, tmp, roll0, R):
    """Best box of every final roll, as exact numerators over ``d_next`` (``batch`` is
    ``(mask, y, f0, nl)``, ``table`` as :func:`_after` reads it)."""
    mask, y, f0, nl = batch
    _, lo, hi, off, _, _ = table
    runs = np.empty((lo.shape[2], 4), np.int64)
    state = (mask, y, f0, runs, batch_runs(mask, y, f0, nl, lo, hi, off, runs))
    n_cat, n_rolls = R.score.shape
    open_boxes, first_row, _, n_open, _ = open_box_rows(shut(mask, R), R.values)
    box, gain, n_cand = candidate_moves(shut(mask, R), R.values)
    for k in range(n_cand):
        _after(cand[k], nl, state, box[k], gain[k], gain[k], table, R)
    for r in range(n_rolls):
        if R.roll_face[r] >= 0:
            continue
        row = A[roll0 + r]
        for i in range(nl):
            best = cand[first_row[0] + R.index[open_boxes[0], r], i]
            for t in range(1, n_open):
                other = cand[first_row[t] + R.index[open_boxes[t], r], i]
                if _greater(other, best):
                    best = other
            row[i, :] = best
    moves = np.empty((3, n_cat), np.int64)
    for r in R.alike:
        row = A[roll0 + r]
        row[:nl, :] = 0
        n_moves, extra = placements(mask, y, r, R, moves)
        for m in range(n_moves):
            c, pts = moves[0, m], moves[1, m]
            _after(tmp, nl, state, c, pts, pts + int(extra), table, R)
            for i in range(nl):
                if _greater(tmp[i], row[i]):
                    row[i, :] = tmp[i]


@njit(cache=True)
def _throws(A, out, D, counts, nl, S, served):
    """From exact final-roll numerators in ``A`` to turn-start numerators in ``out``.

    ``faces_pow[j]`` is ``faces**j`` where it fits one multiplication, else 0. With
    ``served``, ``S[r]`` is each first-throw roll scored at once (over the final
    throw's denominator); the first throw takes the better of it and rolling on.
    ``counts`` is ``(keep_size, faces_pow, multiplicity)``: each keep's dice, the
    powers of the faces, each roll's number of orders.
    """
    keep_size, faces_pow, multiplicity = counts
    n_keeps = D.add.shape[0]
    roll0 = D.size_start[D.dice]
    n_limbs = A.shape[2]
    for _ in range(D.rerolls):
        # keep values: sums over one more die (the denominator grows with each die)
        for k in range(roll0 - 1, -1, -1):
            for i in range(nl):
                dst = A[k, i]
                dst[:] = A[D.add[k, 0], i]
                for f in range(1, D.faces):
                    src = A[D.add[k, f], i]
                    for j in range(n_limbs):
                        dst[j] += src[j]
                _normalise(dst)
        # best keep inside each set of dice, over the throw's common denominator
        for k in range(n_keeps):
            for i in range(nl):
                x = A[k, i]
                if faces_pow[keep_size[k]] > 0:
                    _scale(x, faces_pow[keep_size[k]])
                else:
                    for _s in range(keep_size[k]):
                        _scale(x, D.faces)
                for s in D.sub_rows[k]:
                    if s == k:
                        break
                    if _greater(A[s, i], x):
                        x[:] = A[s, i]
    if served:
        for r in range(roll0, n_keeps):
            for i in range(nl):
                x = S[r - roll0, i]
                for _ in range(D.rerolls):  # to the first throw's denominator
                    if faces_pow[D.dice] > 0:
                        _scale(x, faces_pow[D.dice])
                    else:
                        for _s in range(D.dice):
                            _scale(x, D.faces)
                if D.rerolls == 0 or _greater(x, A[r, i]):  # one throw: served
                    A[r, i, :] = x
    for i in range(nl):
        acc = out[i]
        acc[:] = 0
        for r in range(roll0, n_keeps):
            src = A[r, i]
            m = multiplicity[r - roll0]
            for j in range(n_limbs):
                acc[j] += m * src[j]
            _normalise(acc)


@njit(cache=True, parallel=True)
def _solve_layer(plan, width, n_workers, table, R, D, counts, served, SR):
    """Fill the exact numerators of a list of batches
    (see :mod:`dicelab.engine.objectives.target`)."""
    b_mask, b_y, b_f0, b_nl = plan
    N, d_next = table[0], table[5]
    n_keeps = D.add.shape[0]
    roll0 = D.size_start[D.dice]
    n_limbs = d_next.shape[0]
    n_batches = b_mask.shape[0]
    n_cand = max(R.values.shape[0] * R.values.shape[1], SR.values.shape[0] * SR.values.shape[1])
    for w in prange(n_workers):
        A = np.zeros((n_keeps, width, n_limbs), np.int64)
        S = np.zeros((n_keeps - roll0 if served else 1, width, n_limbs), np.int64)
        cand = np.zeros((n_cand, width, n_limbs), np.int64)
        tmp = np.zeros((width, n_limbs), np.int64)
        out = np.zeros((width, n_limbs), np.int64)
        for b in range(w, n_batches, n_workers):
            nl = b_nl[b]
            f0 = b_f0[b]
            batch = (b_mask[b], b_y[b], f0, nl)
            _final_rolls(batch, table, A, cand, tmp, roll0, R)
            if served:
                _final_rolls(batch, table, S, cand, tmp, 0, SR)
            _throws(A, out, D, counts, nl, S, served)
            for i in range(nl):
                N[f0 + i] = out[i]


# -- drivers ----------------------------------------------------------------------------
@dataclass
class ExactResult:
    """An exact answer and how it was found."""

    rules: Rules
    objective: str
    value: Fraction
    values_solved: int
    seconds: float
    target: int | None = None

    def to_dict(self) -> dict:
        return {
            "rules": self.rules.name,
            "objective": self.objective,
            "target": self.target,
            "numerator": str(self.value.numerator),
            "denominator": str(self.value.denominator),
            "value": float(self.value),
            "states": self.values_solved,
            "seconds": round(self.seconds, 4),
        }


def layer_denominator(game: CompiledRules, open_boxes: int) -> int:
    """The common denominator of all states with ``open_boxes`` boxes still open."""
    r = game.rules
    return r.faces ** (r.dice * r.rolls * open_boxes)


def _solve_exact(game: CompiledRules, layout: PointsLayout, mode: int, terminal, width: int):
    """Numerators of every row of ``layout``, solved layer by layer."""
    refuse_variants(game, "the exact solver", served=False)
    if layout.size > MAX_EXACT_VALUES:
        raise UserError(
            f"{game.rules.name}: exact arithmetic here needs {layout.size:,} (state, points) "
            f"values, more than {MAX_EXACT_VALUES:,}; use the floating-point solver, or a "
            "target nearer the best score"
        )
    n = game.n_categories
    top = max(1, max_score(game))
    n_limbs = (top * layer_denominator(game, n)).bit_length() // BITS + 2
    N = np.zeros((max(layout.size, 1), n_limbs), dtype=np.int64)
    full = game.full_mask
    last = -1
    for y in range(game.n_flag):
        for u in range(game.n_upper):
            r0 = layout.off[full, y, u]
            empty = layout.hi[full, y, u] < layout.lo[full, y, u]
            if r0 < 0 or empty or r0 == last:  # a row shared with the one before
                continue
            last = r0
            for t in range(layout.lo[full, y, u], layout.hi[full, y, u] + 1):
                N[r0 + t - layout.lo[full, y, u]] = to_limbs(terminal(t, u), n_limbs)
    space = game.space
    keep_size = space.counts.sum(axis=1).astype(np.int64)
    rolls = space.rolls
    multiplicity = np.array(
        [multinomial(tuple(int(x) for x in space.counts[r])) for r in rolls], dtype=np.int64
    )
    faces_pow = np.array(
        [f if f < 2**31 else 0 for f in (space.faces**j for j in range(space.dice + 1))],
        dtype=np.int64,
    )
    dice, counts = dice_arrays(game), (keep_size, faces_pow, multiplicity)
    rules, served = rule_arrays(game), rule_arrays(game, served=True)
    workers = max(1, get_num_threads())
    for k in range(n - 1, -1, -1):
        d_next = to_limbs(layer_denominator(game, n - k - 1), n_limbs)
        layer = layers(n, game.rules.forced_order)[k]
        plan = plan_layer(layer, layout.block, game.n_flag, width)
        table = (N, layout.lo, layout.hi, layout.off, mode, d_next)
        _solve_layer(plan, width, workers, table, rules, dice, counts, game.has_served, served)
    return N


def exact_target(rules: Rules | CompiledRules | str, target: int, width: int = 16) -> ExactResult:
    """The best probability of a final score of at least ``target``, as a fraction.

    Feasible where few (state, points) pairs remain undecided: near the best
    possible score (for the perfect score, one state per set of filled boxes).
    """
    game = as_game(rules)
    check_target(game, target)
    start = time.perf_counter()
    if target == 0:
        return ExactResult(game.rules, "target", Fraction(1), 0, 0.0, target)
    layout = so_far_layout(game, target - 1, target)
    bounds = state_bounds(game)

    def terminal(points: int, u: int) -> int:
        return 1 if points + bounds.bonus_of(u) >= target else 0

    N = _solve_exact(game, layout, TARGET, terminal, width)
    r0 = layout.off[0, 0, 0]
    lo, hi = layout.lo[0, 0, 0], layout.hi[0, 0, 0]
    if lo <= 0 <= hi:
        num = from_limbs(N[r0 - lo])
    else:
        num = 0 if lo > 0 else layer_denominator(game, game.n_categories)
    value = Fraction(num, layer_denominator(game, game.n_categories))
    return ExactResult(
        game.rules, "target", value, layout.size, time.perf_counter() - start, target
    )


def exact_expected(rules: Rules | CompiledRules | str, width: int = 64) -> ExactResult:
    """The optimal expected final score, as a fraction."""
    game = as_game(rules)
    start = time.perf_counter()
    zeros = np.zeros((1 << game.n_categories, game.n_flag, game.n_upper), dtype=np.int64)
    layout = build_layout(game, zeros, zeros)
    bounds = state_bounds(game)

    def terminal(points: int, u: int) -> int:
        return int(bounds.bonus_of(u))

    N = _solve_exact(game, layout, EXPECTED, terminal, width)
    num = from_limbs(N[layout.off[0, 0, 0]])
    value = Fraction(num, layer_denominator(game, game.n_categories))
    return ExactResult(game.rules, "expected", value, layout.size, time.perf_counter() - start)
