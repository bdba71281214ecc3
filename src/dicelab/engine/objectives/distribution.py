"""The exact distribution of the final score under a strategy.

A strategy here is *table-driven*: a turn-start value table ``V[mask, flag, upper]``
(the expected-score optimum by default, or any other table of the same shape)
ranks every choice inside a turn, a keep by the mean of what it leads to and a
box by its points plus the value of the next state, exactly as the expected-score
solver does. Options within ``TIE`` of each other are ties (values that are equal
in exact arithmetic differ in their last bits), and a tie goes to the box that
comes first on the scorecard, or to the keep with fewer dice (rerolling more),
then to the keep whose faces come first in ascending order. Ties change the
distribution, not the mean: this order gives the published standard deviation of
the official Yahtzee optimum (59.6117); preferring more dice gives 59.6114.

The computation runs forward, layer by layer (boxes filled so far):

1. for every state of a layer, the turn's outcome distribution (box, points,
   extra bonus) is found by pushing probability down the keep structure, the
   reverse of the keep-value recursion: a keep's mass flows to the keep with one
   more die of each face, ``1 / faces`` each (the state's upper totals side by
   side in lane vectors, :mod:`dicelab.engine.kernels.outcomes`);
2. the distribution of the points so far, a row per state (see
   :mod:`dicelab.engine.objectives.points`), is carried to the next layer, shifted by the
   points of each outcome.

Only two layers of rows and one layer of outcomes are held at once.

>>> from dicelab.engine.objectives.distribution import score_distribution
>>> d = score_distribution("yazy")
>>> round(d.mean, 4)
165.7573
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from dicelab.engine.kernels import NO_REFS, dice_arrays, rule_arrays
from dicelab.engine.kernels.outcomes import TIE, alike_box, outcome_scratch, state_outcomes
from dicelab.engine.kernels.turn import (
    candidate_moves,
    keep_values,
    next_flag,
    open_box_rows,
    placements,
    shut,
    slot_outcome,
)
from dicelab.engine.kernels.work import on_threads, take
from dicelab.engine.objectives.expected import (
    ExpectedTable,
    expected_table,
    turn_compiled,
)
from dicelab.engine.objectives.points import StateBounds, layers, state_bounds
from dicelab.engine.objectives.scores import ScoreDistribution, cached_optimum, keep_optimum
from dicelab.engine.runtime.cost import Cost
from dicelab.errors import UserError
from dicelab.rules import Rules
from dicelab.rules.compiled import (
    CompiledRules,
    all_same_box,
    as_game,
    refuse_variants,
    sorted_distinct,
)

Progress = Callable[[int, int], None]


# -- one turn's choices, one lane at a time (a player at a table) ----------------------
@njit(cache=True)
def _final_choice(mask, y, ul, nl, V, A, choice, cand, roll0, R, moves):
    """Box chosen for every final roll and lane (``choice``) and its value (``A``);
    ``moves`` is a worker's ``(3, boxes)`` buffer for the placements of a roll."""
    n_cat, n_rolls = R.score.shape
    open_boxes, first_row, _, n_open, _ = open_box_rows(shut(mask, R), R.values)
    box, gain, n_cand = candidate_moves(shut(mask, R), R.values)
    for k in range(n_cand):
        c, pts = box[k], gain[k]
        row = V[mask | (1 << c), next_flag(c, y, pts, R.yahtzee, R.n_flag)]
        for i in range(nl):
            u2 = ul[i]
            if R.upper[c] and R.threshold > 0:
                u2 = min(u2 + pts, R.threshold)
            cand[k, i] = pts + row[u2]
    for r in range(n_rolls):
        if R.roll_face[r] >= 0:
            continue
        best_v = A[roll0 + r]
        best = choice[r]
        c = open_boxes[0]
        crow = cand[first_row[0] + R.index[c, r]]
        for i in range(nl):
            best_v[i] = crow[i]
            best[i] = c
        for t in range(1, n_open):
            c = open_boxes[t]
            crow = cand[first_row[t] + R.index[c, r]]
            for i in range(nl):  # selects, not branches: the loop compiles to vectors
                v = crow[i]
                b = best_v[i]
                better = v > b + TIE
                best_v[i] = v if better else b
                best[i] = c if better else best[i]
    for r in R.alike:
        n_moves, extra = placements(mask, y, r, R, moves)
        for i in range(nl):
            best, best_v = alike_box(mask, ul[i], moves, n_moves, extra, V, R)
            choice[r, i] = best
            A[roll0 + r, i] = best_v


@njit(cache=True)
def _best_keeps_chosen(A, arg, sub_rows, n_keeps, nl):
    """As :func:`dicelab.engine.kernels.best_keeps`, also recording which keep is best.

    Keeps within ``TIE`` of each other: fewer dice first, then by their faces in
    ascending order. Keeps are numbered in that very order (by size, then faces),
    so of two tied keeps the one with the lower number is taken.
    """
    for k in range(n_keeps):
        for i in range(nl):
            arg[k, i] = k
        for s in sub_rows[k]:
            if s == k:
                break
            for i in range(nl):  # selects, not branches: the loop compiles to vectors
                va = A[k, i]
                vb = A[s, i]
                a = arg[k, i]
                b = arg[s, i]
                take = (vb > va + TIE) | ((vb >= va - TIE) & (b < a))
                A[k, i] = vb if take else va
                arg[k, i] = b if take else a


@njit(cache=True, inline="always")
def turn_choices(state, V, scratch, R, D, served, SR):
    """Every choice of a turn played for ``V``, ties broken as the module says: the
    box of each final roll (``scratch``'s ints ``[1]``), the keep of each roll with
    ``n + 1`` rerolls left (ints ``[3 + n]``), and with served bonuses the box of a
    first throw scored at once (ints ``[2]``, -1 where it rolls on). With ``served``,
    a first throw may score at once with the served table; the strategy does so
    where that beats rolling on by more than ``TIE``. Returns ``(the scores of the
    final throw, whether first throws may score at once)``. One lane at a time (a
    player at a table, :mod:`dicelab.play.match_sim`); a layer's states make the same
    choices in lane vectors (:func:`dicelab.engine.kernels.outcomes.lane_choices`).
    """
    mask, y, ul, nl = state
    scratch_f, scratch_i, small = scratch
    moves = small[3:6]
    score = R.score
    n_rolls = score.shape[1]
    n_keeps = D.add.shape[0]
    roll0 = D.size_start[D.dice]
    A = scratch_f[0]
    cand = scratch_f[3]
    S = scratch_f[4]
    arg = scratch_i[0]
    choice = scratch_i[1]
    served_box = scratch_i[2]  # the box of a first throw scored at once, or -1
    keeps = scratch_i[3:]
    if served and D.rerolls == 0:  # the only throw is the first: it scores as served
        score = SR.score
        _final_choice(mask, y, ul, nl, V, A, choice, cand, roll0, SR, moves)
    else:
        _final_choice(mask, y, ul, nl, V, A, choice, cand, roll0, R, moves)
    early = served and D.rerolls > 0
    if early:
        _final_choice(mask, y, ul, nl, V, S, served_box, cand, np.int64(0), SR, moves)
    for n in range(D.rerolls):
        keep_values(A, D.add, D.size_start, D.dice, D.faces, nl)
        if early and n == D.rerolls - 1:
            for r in range(n_rolls):
                for i in range(nl):
                    if S[r, i] > A[roll0 + r, i] + TIE:
                        A[roll0 + r, i] = S[r, i]
                    else:
                        served_box[r, i] = -1
        _best_keeps_chosen(A, arg, D.sub_rows, n_keeps, nl)
        for r in range(n_rolls):
            for i in range(nl):
                keeps[n, r, i] = arg[roll0 + r, i]
    return score, early


@njit(cache=True)
def turn_scratch(width, R, D, SR):
    """One worker's buffers for :func:`turn_choices` on ``width`` lanes:
    ``(floats, ints, small)``, ``small`` holding a state's boxes' slots and a roll's
    placements."""
    n_keeps = D.add.shape[0]
    rows = max(
        n_keeps, R.values.shape[0] * R.values.shape[1], SR.values.shape[0] * SR.values.shape[1]
    )
    scratch_i = np.empty((3 + D.rerolls, n_keeps, width), np.int32)
    small = np.zeros((6, R.score.shape[0]), np.int64)
    return np.empty((5, rows, width)), scratch_i, small


@njit(cache=True, nogil=True)
def layer_outcomes(counter, w, masks, V, found, lanes, n_lanes, slots, R, D, served, SR):
    """Turn outcomes of every state of a layer into ``found`` (``Q``, ``qoff``): a
    worker of :func:`dicelab.engine.kernels.work.on_threads` that takes states one
    at a time, each played in lane vectors (:func:`dicelab.engine.kernels.outcomes.state_outcomes`:
    the choices of :func:`turn_choices`, the outcomes laid out as :class:`OutcomeLayout`
    says)."""
    Q, qoff = found
    n_flag, yahtzee = R.n_flag, R.yahtzee
    nb = masks.shape[0] * n_flag
    scratch = outcome_scratch(lanes.shape[1], R, D, SR)
    b = take(counter)
    while b < nb:
        m = masks[b // n_flag]
        y = b % n_flag
        if y == 0 or (m >> yahtzee) & 1 == 1:
            state = (m, y, lanes[m], n_lanes[m])
            state_outcomes(state, V, Q, qoff[m, y], slots, scratch, R, D, served, SR)
        b = take(counter)


# -- the points so far, carried to the next layer ----------------------------------------
@njit(cache=True, nogil=True, fastmath=True)
def carry_layer(counter, w, mode, next_masks, rows, next_rows, outcomes, R, all_same, scored_same):
    """Carry the points-so-far rows of a layer to the next one, pulled by each next
    mask: a worker of :func:`dicelab.engine.kernels.work.on_threads`.

    Every turn outcome with a positive chance moves a row ``lo..hi`` of state ``X``
    to ``lo + g .. hi + g`` of the next state. With ``mode`` 0 only the ranges of
    the next rows are found (``nlo``, ``nhi``), so that they hold just the points
    that can occur; with ``mode`` 1 the probabilities are added into ``F_next``
    (rows at ``noff``). One worker handles each next mask and alone writes its
    rows (and zeroes them first). The chance of scoring the all-same box with
    points is added to ``scored_same[j]`` for next mask ``j``. ``rows`` is ``(F, lo, hi, off)``,
    ``next_rows`` ``(F_next, nlo, nhi, noff)`` and ``outcomes`` ``(Q, qoff, lanes,
    n_lanes, box_slots, slot_pts, n_e)``.
    """
    box_slots = outcomes[4]
    gains = np.empty(box_slots.max(), np.int64)  # each slot's points with its extras
    j = take(counter)
    while j < next_masks.shape[0]:
        same = _carry_mask(next_masks[j], mode, rows, next_rows, outcomes, R, all_same, gains)
        scored_same[j] += same  # written once: threads write neighbouring entries
        j = take(counter)


@njit(cache=True, fastmath=True, **NO_REFS)
def _carry_mask(Y, mode, rows, next_rows, outcomes, R, all_same, gains):
    """:func:`carry_layer` for next mask ``Y``, without reference counts (a bundle's
    array read in the loops would cost two atomic operations): returns the chance
    of scoring the all-same box on the way to ``Y``."""
    F, lo, hi, off = rows
    F_next, nlo, nhi, noff = next_rows
    Q, qoff, lanes, n_lanes, box_slots, slot_pts, n_e = outcomes
    n_flag, yahtzee = R.n_flag, R.yahtzee
    n_cat = R.upper.shape[0]
    same = 0.0
    _open_rows(Y, mode, next_rows)
    for c in range(n_cat):
        if (Y >> c) & 1 == 0:
            continue
        X = Y ^ (1 << c)
        base = 0
        width = 0
        for c2 in range(n_cat):
            if (X >> c2) & 1 == 0:
                if c2 < c:
                    base += box_slots[c2]
                width += box_slots[c2]
        n_slots = box_slots[c]
        ny = 2 if (n_flag == 2 and (X >> yahtzee) & 1 == 1) else 1
        nl = n_lanes[X]
        # where no slot moves the flag or the upper total, a lane's slots all go
        # to one next row: its range is found from the least and greatest gains
        one_row = (c != yahtzee or n_flag == 1) and not (R.upper[c] and R.threshold > 0)
        if one_row:
            for s in range(n_slots):  # the gain depends on the slot alone
                gains[s] = slot_outcome(c, s, 0, 0, slot_pts, n_e, R)[1]
        for y in range(ny):
            q0 = qoff[X, y]
            for i in range(nl):
                u = lanes[X, i]
                lo0 = lo[X, y, u]
                length = hi[X, y, u] - lo0 + 1
                if length <= 0:
                    continue
                r0 = off[X, y, u]
                if mode == 0 and one_row:
                    least, most = _lane_gains(Q, q0 + i * width + base, gains, n_slots)
                    if most >= 0:
                        nlo[Y, y, u] = min(nlo[Y, y, u], lo0 + least)
                        nhi[Y, y, u] = max(nhi[Y, y, u], lo0 + length - 1 + most)
                    continue
                if one_row and c != all_same:  # one next row, each slot a shift
                    q = q0 + i * width + base
                    d = noff[Y, y, u] + lo0 - nlo[Y, y, u]
                    _shifted(F_next, F[r0 : r0 + length], Q[q : q + n_slots], gains, d)
                    continue
                for s in range(n_slots):
                    q = Q[q0 + i * width + base + s]
                    if q == 0.0:
                        continue
                    pts, gain, y2, u2 = slot_outcome(c, s, y, u, slot_pts, n_e, R)
                    if mode == 0:
                        nlo[Y, y2, u2] = min(nlo[Y, y2, u2], lo0 + gain)
                        nhi[Y, y2, u2] = max(nhi[Y, y2, u2], lo0 + length - 1 + gain)
                        continue
                    d0 = noff[Y, y2, u2] + lo0 + gain - nlo[Y, y2, u2]
                    # unsigned places: no check for negative indices, so the
                    # loop compiles to vectors
                    a, b = np.uint64(d0), np.uint64(r0)
                    for t in range(np.uint64(length)):
                        F_next[a + t] += q * F[b + t]
                    if c == all_same and pts > 0:
                        total = 0.0
                        for t in range(length):
                            total += F[r0 + t]
                        same += q * total
    return same


@njit(cache=True, inline="always", fastmath=True, **NO_REFS)
def _shifted(F_next, row, q, gains, d):
    """``F_next[d + gains[s] + t] += q[s] * row[t]`` for every slot ``s`` with a chance:
    a row carried to one next row by the slots of a box."""
    b = np.uint64(0) + np.uint64(d)  # unsigned places: the loop compiles to vectors
    for s in range(q.shape[0]):
        p = q[s]
        if p == 0.0:
            continue
        a = b + np.uint64(gains[s])
        for t in range(np.uint64(row.shape[0])):
            F_next[a + t] += p * row[t]


@njit(cache=True, inline="always", **NO_REFS)
def _open_rows(Y, mode, next_rows):
    """Before next mask ``Y``'s rows are found (``mode`` 0) or filled (1): empty
    ranges, or the rows zeroed (by the worker that fills them)."""
    F_next, nlo, nhi, noff = next_rows
    for y in range(nlo.shape[1]):
        for u in range(nlo.shape[2]):
            if mode == 0:
                nlo[Y, y, u] = 1 << 40
                nhi[Y, y, u] = -1
            else:
                start = np.uint64(noff[Y, y, u])  # unsigned: a plain fill
                for t in range(np.uint64(max(nhi[Y, y, u] - nlo[Y, y, u] + 1, 0))):
                    F_next[start + t] = 0.0


@njit(cache=True, inline="always", **NO_REFS)
def _lane_gains(Q, q, gains, n_slots):
    """The least and the greatest of ``gains[s]`` over the slots ``Q[q + s]`` with a
    chance, ``(1 << 40, -1)`` if none has: selects, so the loop compiles to vectors."""
    least = 1 << 40
    most = -1
    for s in range(n_slots):
        has = Q[q + s] != 0.0
        least = min(least, gains[s] if has else 1 << 40)
        most = max(most, gains[s] if has else -1)
    return least, most


@dataclass
class OutcomeLayout:
    """Where the turn outcomes of a layer's states sit in one flat array.

    A state's lanes are its reachable upper totals (``lanes[mask, :n_lanes[mask]]``);
    each lane holds one slot per (open box, points, extra bonus earned or not):
    ``slot_of[c, points] * n_e + extra`` after the slots of the open boxes before
    ``c``, ``box_slots[c]`` slots per box, ``block_slots[mask]`` per lane.
    """

    lanes: np.ndarray
    n_lanes: np.ndarray
    slot_of: np.ndarray
    slot_pts: np.ndarray
    n_e: int
    box_slots: np.ndarray
    block_slots: np.ndarray

    @classmethod
    def of(cls, game: CompiledRules) -> OutcomeLayout:
        n = game.n_categories
        reach = game.upper_reach
        lanes = np.zeros((1 << n, game.n_upper), dtype=np.int64)
        n_lanes = reach.sum(axis=1).astype(np.int64)
        masks, us = np.nonzero(reach)  # mask after mask, each one's totals rising
        lanes[masks, np.arange(us.size) - np.repeat(np.cumsum(n_lanes) - n_lanes, n_lanes)] = us
        slot_of, slot_pts, n_e = _slots(game)
        box_slots = (slot_of >= 0).sum(axis=1) * n_e
        bits = ((np.arange(1 << n)[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)
        block_slots = (~bits * box_slots).sum(axis=1)
        return cls(lanes, n_lanes, slot_of, slot_pts, n_e, box_slots, block_slots)

    def outcomes(self, game: CompiledRules, V: np.ndarray, masks: np.ndarray):
        """``(Q, qoff)``: the turn outcomes of every state of ``masks`` under the
        strategy of ``V``, state ``(mask, flag)`` from ``Q[qoff[mask, flag]]``."""
        return self.outcomes_in(game, V, masks, None)

    def outcomes_in(self, game: CompiledRules, V: np.ndarray, masks: np.ndarray, spare):
        """:meth:`outcomes`, ``Q`` the start of ``spare`` where it is large enough (a
        buffer of an earlier layer, whose pages the system need not hand out and
        clear again: that costs a tenth of Yahtzee's pass)."""
        qoff, pos = self.offsets(game, masks)
        Q = reuse(spare, pos)  # each state's part zeroed by the worker that fills it
        slots = (self.slot_of, self.box_slots, self.n_e)
        on_threads(
            layer_outcomes,
            masks,
            V,
            (Q, qoff),
            self.lanes,
            self.n_lanes,
            slots,
            rule_arrays(game),
            dice_arrays(game),
            game.has_served,
            rule_arrays(game, served=True),
        )
        return Q, qoff

    def offsets(self, game: CompiledRules, masks: np.ndarray) -> tuple[np.ndarray, int]:
        """``(qoff, size)``: where each state's outcomes start, and how many values
        the layer's outcomes take."""
        masks = np.asarray(masks, dtype=np.int64)
        two = np.zeros(masks.size, bool)  # a mask whose states have both flags
        if game.n_flag == 2:
            two = (masks >> game.yahtzee) & 1 == 1
        sizes = self.block_slots[masks] * self.n_lanes[masks]  # a state's values
        ends = np.cumsum(sizes * np.where(two, 2, 1))
        qoff = np.zeros((1 << game.n_categories, game.n_flag), dtype=np.int64)
        # a mask's states one after the other, flag 0 first
        qoff[masks, 0] = ends - sizes * np.where(two, 2, 1)
        if game.n_flag == 2:
            qoff[masks[two], 1] = qoff[masks[two], 0] + sizes[two]
        return qoff, int(ends[-1]) if ends.size else 0


def reuse(spare: np.ndarray | None, size: int) -> np.ndarray:
    """``size`` values, not cleared: the start of ``spare`` if it holds as many, else
    a new array a quarter larger (so that a few growing layers allocate rarely)."""
    if spare is not None and spare.size >= size:
        return spare[:size]
    return np.empty(size if spare is None else size + size // 4)


def _slots(game: CompiledRules) -> tuple[np.ndarray, np.ndarray, int]:
    """Outcome slots: ``slot_of[c, points]`` (-1 if impossible), ``slot_pts[c, s]``, ``n_e``."""
    n = game.n_categories
    top = int(max(game.score.max(), game.joker_score.max(), game.served_score.max()))
    slot_of = np.full((n, top + 1), -1, dtype=np.int64)
    slot_pts = np.zeros((n, top + 1), dtype=np.int64)
    for c in range(n):
        scores = (game.score[c], game.joker_score[c], game.served_score[c])
        vals = sorted_distinct(np.concatenate(scores))
        slot_of[c, vals] = np.arange(vals.size)
        slot_pts[c, : vals.size] = vals
    n_e = 2 if (game.rules.extra_bonus > 0 and game.yahtzee >= 0) else 1
    return slot_of, slot_pts, n_e


def score_distribution(
    rules: Rules | CompiledRules | str,
    values: ExpectedTable | np.ndarray | None = None,
    progress: Progress | None = None,
    strategy: str | None = None,
    use_cache: bool = True,
    allow_large: bool = False,
    runner=None,
    start: tuple[int, int, int, int] | None = None,
) -> ScoreDistribution:
    """The exact distribution of the final score of a table-driven strategy.

    Parameters
    ----------
    rules : Rules, CompiledRules or str
        The rule set.
    values : ExpectedTable or ndarray, optional
        The turn-start value table that ranks the choices, shape
        ``(2**boxes, n_flag, n_upper)``; the expected-score optimum by default.
    progress : callable, optional
        ``progress(done, total)`` in layers.
    strategy : str, optional
        A name for the strategy, shown in reports.
    use_cache : bool
        Whether the default table may come from (and go to) the cache.
    allow_large : bool
        Solve even what :mod:`dicelab.engine.runtime.cost` says this machine cannot hold.
    runner : dicelab.engine.runtime.schedule.Runner, optional
        Where the default table is solved, if it is not cached; the forward pass
        of the distribution itself runs in this process.
    start : tuple of int, optional
        ``(filled, flag, upper, points)``: the distribution of the final score from
        this turn start (``upper`` capped at the bonus threshold, ``points`` scored so
        far without the upper bonus) instead of from the game's start. Only the
        states that follow it are visited.
    """
    from dicelab.engine.runtime import ahead

    game = as_game(rules)
    refuse_variants(game, "the score distribution", served=False)
    optimum = values is None and start is None and strategy is None
    if optimum and use_cache:  # the expected-score optimum's, kept beside its table
        found = cached_optimum(game)
        if found is not None:
            return found
    bounds = state_bounds(game)
    _check_size(game, bounds, allow_large)
    if values is None:
        compile_meanwhile()
        values = expected_table(game, use_cache=use_cache, runner=runner)
    ahead.finish(COMPILE_FORWARD[0])
    if isinstance(values, ExpectedTable):
        strategy = strategy or "expected-score optimum"
    V = values.values if isinstance(values, ExpectedTable) else np.asarray(values, np.float64)
    shape = (1 << game.n_categories, game.n_flag, game.n_upper)
    if V.shape != shape:
        raise UserError(f"strategy table: expected shape {shape}, got {V.shape}")
    start_time = time.perf_counter()
    F, rows, p_same, peak_values = _forward(game, V, start, progress)
    pmf, p_bonus = _final_pmf(game, bounds, F, rows)
    same = all_same_box(game.rules)
    names = [c.label for c in game.rules.categories]
    found = ScoreDistribution(
        rules=game.rules,
        pmf=pmf,
        p_bonus=p_bonus if game.threshold > 0 else None,
        p_all_same=p_same if same >= 0 else None,
        all_same_box=names[same] if same >= 0 else None,
        strategy=strategy or "table-driven strategy",
        seconds=time.perf_counter() - start_time,
        meta={"peak_values": peak_values},
    )
    if optimum and use_cache:
        keep_optimum(found, peak_values)
    return found


#: the forward pass's kernels compiled in another process: how, and what
COMPILE_FORWARD = (
    "dicelab.engine.objectives.distribution:compile_kernels",
    [
        "dicelab.engine.objectives.distribution:layer_outcomes",
        "dicelab.engine.objectives.distribution:carry_layer",
    ],
)


def compile_meanwhile() -> None:
    """Begin compiling the forward pass's kernels in another process when this one
    has the expected-score turn to compile first (:mod:`dicelab.engine.runtime.ahead`): call it
    before other work."""
    from dicelab.engine.runtime import ahead

    if not turn_compiled():
        ahead.start(*COMPILE_FORWARD)


def compile_kernels() -> None:
    """Compile the forward pass's kernels (the same for every rule set): the last
    layer of yahtzee under an all-zero strategy."""
    game = as_game("yahtzee")
    mask = game.full_mask ^ 1
    upper = int(np.flatnonzero(game.upper_reach[mask])[0])
    V = np.zeros((1 << game.n_categories, game.n_flag, game.n_upper))
    _forward(game, V, (mask, 0, upper, 0), None)


def _check_size(game: CompiledRules, bounds: StateBounds, allow_large: bool) -> None:
    """Refuse a distribution whose two layers of (state, points) values do not fit."""
    # counted from the bounds, before the layout of every row is built
    per_mask = np.where(bounds.reachable, bounds.so_far_hi - bounds.so_far_lo + 1, 0)
    per_mask = per_mask.reshape(per_mask.shape[0], -1).sum(axis=1)
    sizes = [int(per_mask[m].sum()) for m in layers(game.n_categories)]
    held = max(sizes[k] + sizes[k + 1] for k in range(game.n_categories))
    what = f"{game.rules.name}'s score distribution"
    Cost(what, held, 16 * held, 0.0, unit="(state, points) values a layer").check(allow_large)


def _start_rows(game: CompiledRules, start) -> tuple[list, list, int, list]:
    """The rows (lo, hi, off) of the first layer and the next, the first layer, and
    the masks of every layer that can follow ``start`` (the game's start if None)."""
    n = game.n_categories
    all_layers = layers(n)
    shape = (1 << n, game.n_flag, game.n_upper)
    rows = [np.ones(shape, np.int64), np.zeros(shape, np.int64), np.zeros(shape, np.int64)]
    nrows = [np.ones(shape, np.int64), np.zeros(shape, np.int64), np.zeros(shape, np.int64)]
    if start is None:
        rows[0][0, 0, 0] = 0
        return rows, nrows, 0, all_layers
    mask0, y0, u0, points0 = (int(x) for x in start)
    if not (
        0 <= mask0 <= game.full_mask
        and 0 <= u0 < game.n_upper
        and 0 <= y0 < game.n_flag
        and game.upper_reach[mask0, u0]
    ):
        raise UserError(f"distribution: the state {start} cannot occur in a game")
    rows[0][mask0, y0, u0] = rows[1][mask0, y0, u0] = points0
    # only the states that can follow the start: its supersets
    return rows, nrows, bin(mask0).count("1"), [m[(m & mask0) == mask0] for m in all_layers]


def _forward(game: CompiledRules, V: np.ndarray, start, progress):
    """Carry the points so far from the start to the full sheet, layer by layer.

    Returns ``(F, rows, p_same, peak)``: the full sheet's values and rows, the chance
    of scoring the all-same box, and the most values held at once.
    """
    n = game.n_categories
    out = OutcomeLayout.of(game)
    same = all_same_box(game.rules)
    rows, nrows, first, all_layers = _start_rows(game, start)
    R = rule_arrays(game)
    F = np.ones(1)
    p_same = 0.0
    peak_values = 1
    # the buffers of the next rows and of the outcomes, used again layer after layer
    spare = [None, np.empty(max(out.offsets(game, m)[1] for m in all_layers[first:n]))]
    for k in range(first, n):
        Q, qoff = out.outcomes_in(game, V, all_layers[k], spare[1])
        spare[1] = _owner(Q)
        nxt = all_layers[k + 1]
        scored = np.zeros(len(nxt))
        outcomes = (Q, qoff, out.lanes, out.n_lanes, out.box_slots, out.slot_pts, out.n_e)
        on_threads(carry_layer, 0, nxt, (F, *rows), (F, *nrows), outcomes, R, same, scored)
        nlo, nhi, noff = nrows
        lengths = np.maximum(nhi[nxt] - nlo[nxt] + 1, 0)
        ends = np.cumsum(lengths.ravel())
        noff[nxt] = (ends - lengths.ravel()).reshape(lengths.shape)
        F_next = reuse(spare[0], int(ends[-1]) if ends.size else 0)  # zeroed by the workers
        peak_values = max(peak_values, F.size + F_next.size + Q.size)
        on_threads(carry_layer, 1, nxt, (F, *rows), (F_next, *nrows), outcomes, R, same, scored)
        p_same += float(scored.sum())
        del Q
        spare[0] = _owner(F)  # the rows just carried: the next layer's next rows
        F = F_next
        rows, nrows = nrows, rows
        if progress is not None:
            progress(k + 1, n)
    return F, rows, p_same, peak_values


def _owner(a: np.ndarray) -> np.ndarray:
    """The array that ``a`` is a view of (``a`` itself if it owns its values)."""
    return a if a.base is None else a.base


def _final_pmf(game: CompiledRules, bounds: StateBounds, F: np.ndarray, rows) -> tuple:
    """The final score's probabilities from the full sheet's rows, the upper bonus
    added, and the chance of the bonus."""
    full = game.full_mask
    lo, hi, off = rows
    top = int(bounds.so_far_hi[full].max() + bounds.bonus)
    pmf = np.zeros(top + 1)
    p_bonus = 0.0
    for y in range(game.n_flag):
        for u in np.flatnonzero(game.upper_reach[full]):
            if hi[full, y, u] < lo[full, y, u]:
                continue
            row = F[off[full, y, u] : off[full, y, u] + hi[full, y, u] - lo[full, y, u] + 1]
            b = int(bounds.bonus_of(int(u)))
            pmf[lo[full, y, u] + b : hi[full, y, u] + b + 1] += row
            if b > 0:
                p_bonus += float(row.sum())
    return pmf, p_bonus
