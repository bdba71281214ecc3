"""The distribution of the points still to come from every state, playing for points.

A player who plays for the expected score decides from their own sheet alone, so
their final score is their points so far plus a distribution fixed by the state
they are in. This table holds that distribution for every reachable turn-start
state at once, under the expected-score optimum (ties broken as in
:mod:`dicelab.engine.objectives.distribution`), the upper bonus and extra bonuses included. A
table at play then reads any opponent's final-score distribution, and the
distribution of its own points to come after any choice, without a solve.

It is filled backwards, one layer of filled boxes at a time: a state's
distribution mixes those of the states its turn leads to, each shifted by the
points the turn scores, weighted by the chance of that outcome (the turn outcomes
of :func:`dicelab.engine.objectives.distribution.layer_outcomes`, which the spread table
also uses). Each row covers the points with a positive chance, less the tails
that hold under :data:`TAIL` of it (a tenth-of-a-billionth of a per cent: the
far end of runs of extra Yahtzees). The forward pass of
:func:`~dicelab.engine.objectives.distribution.score_distribution` computes the same
distributions another way; the tests compare them.

Rows are computed in double precision and kept in single (about 7 digits). The
states of one set of filled boxes and flag past the upper bonus share one row,
worked out and kept once (:func:`_sharing`).

>>> from dicelab.engine.objectives.remaining import remaining_table
>>> table = remaining_table("yazy")
>>> round(float(table.final_pmf(0) @ range(table.final_pmf(0).size)), 4)
165.7573
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from dicelab.engine.objectives.expected import ExpectedTable, expected_table
from dicelab.engine.runtime.cost import Cost
from dicelab.engine.table import FollowsExpected, SolvedTable
from dicelab.errors import UserError
from dicelab.rules.compiled import CompiledRules, as_game, refuse_variants

Progress = Callable[[int, int], None]

OBJECTIVE_REMAINING = "remaining"
#: Each row drops the tails that hold less than this chance.
TAIL = 1e-12
#: Seconds per entry of the rows on 2 cores (Yahtzee's 284 million took 23 s, yacht's
#: 27 million 3.4 s): a deliberately high figure, so estimates err towards longer.
ENTRY_SECONDS = 1.2e-7


def remaining_cost(game: CompiledRules) -> Cost:
    """The size of the table before any work, from the bounds of every state's points
    to come: the rows kept (single precision), and one layer's rows in double
    precision twice over while they are worked out."""
    from dicelab.engine.objectives.points import layers, state_bounds

    bounds = state_bounds(game)
    kept = _stored(game, bounds.reachable)  # a row for each state, but one per shared
    width = np.where(kept, bounds.to_come + 1, 0).sum(axis=(1, 2))
    entries = int(width.sum())
    layer = max(int(width[masks].sum()) for masks in layers(game.n_categories))
    what = f"{game.rules.name}'s distribution of the points to come from every state"
    return Cost(what, entries, 4 * entries + 24 * layer, ENTRY_SECONDS * entries, "entries")


@dataclass(repr=False)
class RemainingTable(FollowsExpected, SolvedTable):
    """``values`` holds, state by state, the chance of each number of points to come
    from a turn start under the expected-score optimum.

    ``lo[mask, flag, upper]`` and ``hi[...]`` are the fewest and most points a row
    holds (``hi < lo`` for states a game cannot be in), ``off[...]`` where it starts
    in ``values`` (which begins with every ``lo``, then every ``hi``, as the cached
    file does).
    """

    expected: ExpectedTable
    lo: np.ndarray
    hi: np.ndarray
    off: np.ndarray
    values: np.ndarray

    objective: ClassVar[str] = OBJECTIVE_REMAINING

    def value(self) -> float:
        """Expected final score of a whole game (the mean of the start's row)."""
        return float(self.final_pmf(0) @ np.arange(self.hi[0, 0, 0] + 1))

    @property
    def summary(self) -> str:
        return f"final-score distribution from every state, {self.values.size:,} entries"

    def row(self, mask: int, flag: int, u: int) -> tuple[int, np.ndarray]:
        """``(lo, chances)``: the points to come from state ``(mask, flag, capped upper
        total u)``, ``chances[i]`` the chance of exactly ``lo + i`` (double precision)."""
        lo, hi = int(self.lo[mask, flag, u]), int(self.hi[mask, flag, u])
        if hi < lo:
            raise UserError(f"no game reaches boxes {mask:#x} with upper total {u}, flag {flag}")
        start = int(self.off[mask, flag, u])
        mapped = self.meta.get("mapped")
        if mapped is not None:  # a cached table: each block is checked when first read
            mapped.check(start, start + hi - lo + 1)
        return lo, np.asarray(self.values[start : start + hi - lo + 1], dtype=np.float64)

    def final_pmf(self, mask: int, upper_total: int = 0, flag: int = 0, score: int = 0):
        """The distribution of the final score from a turn start with ``score`` points
        so far (``pmf[x]`` the chance of exactly ``x``)."""
        u, y = self.game.turn_state(upper_total, flag)
        lo, chances = self.row(mask, y, u)
        pmf = np.zeros(score + lo + chances.size)
        pmf[score + lo :] = chances
        return pmf


def solve_remaining(
    rules, values: ExpectedTable | None = None, progress=None, allow_large: bool = False
) -> RemainingTable:
    """The distribution of the points to come from every state (see the module);
    refused in one line where this machine cannot hold it (unless ``allow_large``)."""
    from dicelab.engine.kernels import rule_arrays
    from dicelab.engine.objectives.distribution import OutcomeLayout
    from dicelab.engine.objectives.points import layers, state_bounds

    game = as_game(rules)
    refuse_variants(game, "the distribution from every state", served=False)
    remaining_cost(game).check(allow_large)
    values = values if values is not None else expected_table(game)
    start = time.perf_counter()
    n, shape = game.n_categories, values.values.shape
    lo, hi = np.zeros(shape, np.int64), np.full(shape, -1, np.int64)
    off = np.zeros(shape, np.int64)  # within the layer's rows while solving
    out = OutcomeLayout.of(game)
    bounds = state_bounds(game)
    m, y, u, _ = _states(game, np.array([game.full_mask])).T
    lo[m, y, u] = hi[m, y, u] = bounds.bonus_of(u)  # the upper bonus, paid at the end
    off[m, y, u] = np.arange(m.size)
    rows = np.ones(m.size)
    size = lo.size  # the kept values start with every row's bounds
    kept = _Kept(2 * size, remaining_cost(game).states)
    kept.add(rows.astype(np.float32))
    work = _layer_work(game)
    for k in range(n - 1, -1, -1):
        masks = layers(n)[k]
        states = _states(game, masks)
        Q, qoff = out.outcomes(game, values.values, masks)
        args = (states, Q, qoff, (out.lanes, out.box_slots, out.slot_pts, out.n_e))
        most = bounds.to_come[tuple(states[:, :3].T)]
        sharing = _sharing(game, states)
        nxt = (lo, hi, off, rows)
        rows, first, last, starts = _layer_rows(*args, rule_arrays(game), nxt, most, sharing)
        m, y, u, _ = states.T
        lo[m, y, u], hi[m, y, u], off[m, y, u] = first, last, starts
        own = sharing[1]
        kept.add_rows(rows, starts[own], (last - first + 1)[own])  # a shared row once
        if progress is not None:  # in work done, so the time left holds from the start
            progress(int(work[k:].sum()), int(work.sum()))
    del rows, Q
    kept.values[: 2 * size] = np.concatenate([lo.ravel(), hi.ravel()])
    off = _offsets(game, lo, hi)[0] + 2 * size
    seconds = time.perf_counter() - start
    return RemainingTable(values, lo, hi, off, kept.done(), seconds=seconds)


class _Kept:
    """The table's values in single precision, laid end to end as they are solved:
    ``head`` values left for the rows' bounds, then the rows of each layer. Room for
    ``expected`` values is taken at once (pages are touched only as they are
    written), so no layer is copied twice; it grows if a table holds more."""

    def __init__(self, head: int, expected: int) -> None:
        self.values = np.empty(head + expected, np.float32)
        self.used = head

    def _room(self, count: int) -> np.ndarray:
        if self.used + count > self.values.size:
            grown = np.empty(max(2 * self.values.size, self.used + count), np.float32)
            grown[: self.used] = self.values[: self.used]
            self.values = grown
        self.used += count
        return self.values[self.used - count : self.used]

    def add(self, rows: np.ndarray) -> None:
        self._room(rows.size)[:] = rows

    def add_rows(self, P: np.ndarray, starts: np.ndarray, kept: np.ndarray) -> None:
        """Rows ``P[starts[j] : starts[j] + kept[j]]``, end to end."""
        from dicelab.engine.kernels.remaining import keep_rows
        from dicelab.engine.kernels.work import on_threads

        into = self._room(int(kept.sum()))
        at = np.cumsum(kept) - kept
        on_threads(keep_rows, starts, kept, at, P, into)

    def done(self) -> np.ndarray:
        return self.values[: self.used]


def _layer_work(game: CompiledRules) -> np.ndarray:
    """The work of each layer, in relative units: the bound of its rows' entries
    times its open boxes (each entry sums a turn outcome per box and points), plus
    its states' turns worked out for their outcomes (fitted on Yahtzee's layers:
    one state's turn costs about as much as 11 units per keep of the dice)."""
    from dicelab.engine.objectives.points import layers, state_bounds

    bounds = state_bounds(game)
    reach = bounds.reachable
    width = np.where(reach, bounds.to_come + 1, 0).sum(axis=(1, 2))
    states = reach.sum(axis=(1, 2))
    per_state = 11 * game.space.n_keeps
    n = game.n_categories
    work = [
        int(width[layers(n)[k]].sum()) * (n - k) + per_state * int(states[layers(n)[k]].sum())
        for k in range(n)
    ]
    return np.array(work, np.int64)


def _order(game: CompiledRules, masks: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(mask, flag, capped upper total)`` of the reachable states of ``masks``, in
    the order their rows are kept: masks as given, then flag, then upper total."""
    from dicelab.engine.objectives.points import state_bounds

    i, y, u = np.nonzero(state_bounds(game).reachable[masks])
    return np.asarray(masks, np.int64)[i], y, u


def _states(game: CompiledRules, masks: np.ndarray) -> np.ndarray:
    """Rows ``(mask, flag, capped upper total, lane)`` of :func:`_order`; the lane is
    the upper total's place among the mask's reachable ones, as the turn outcomes
    count them."""
    m, y, u = _order(game, masks)
    lane = np.cumsum(game.upper_reach[masks], axis=1) - 1
    at = np.searchsorted(masks, m)  # the masks of a layer are in increasing order
    return np.stack([m, y, u, lane[at, u]], axis=1).astype(np.int64)


def _offsets(game: CompiledRules, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, int]:
    """``(off, size)``: where each state's row starts in the rows, and how many values
    they take. They lie end to end, the full sheet's first, then the layers with
    fewer boxes filled, in :func:`_order`; a row that states share (:func:`_sharing`)
    once, where the first of them has it."""
    from dicelab.engine.objectives.points import layers

    n = game.n_categories
    masks = [np.array([game.full_mask])] + [layers(n)[k] for k in range(n - 1, -1, -1)]
    order = _order(game, np.concatenate(masks))
    at = np.ravel_multi_index(order, lo.shape)
    same, own = _sharing(game, np.stack(order, axis=1))
    width = np.where(own, np.take(hi, at) - np.take(lo, at) + 1, 0)
    off = np.full(lo.size, -1, np.int64)
    off[at] = (np.cumsum(width) - width)[same]
    return off.reshape(lo.shape), int(width.sum())


def _sharing(game: CompiledRules, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(same, own)`` for states listed as :func:`_order` lists them (rows that start
    ``mask, flag, capped upper total``): the state whose row each one uses, and
    whether that is its own.

    The states of one mask and flag whose open upper boxes can no longer reach the
    bonus (:func:`~dicelab.engine.objectives.points.bonus_lost`) have the same points
    to come, to the bit: they take the row of the first state of their mask and
    flag (the lowest upper total, itself past the bonus), worked out and kept once
    (a quarter of Yahtzee's values). The full sheet's rows are kept as they are."""
    from dicelab.engine.objectives.points import state_bounds

    count = states.shape[0]
    lost = state_bounds(game).bonus_lost[states[:, 0], states[:, 2]]
    lost = lost & (states[:, 0] != game.full_mask)
    new_block = (states[1:, :2] != states[:-1, :2]).any(axis=1)  # mask or flag changes
    starts_at = np.flatnonzero(np.r_[True, new_block])
    block_start = np.repeat(starts_at, np.diff(np.r_[starts_at, count]))
    same = np.where(lost, block_start, np.arange(count))
    return same, same == np.arange(count)


def _stored(game: CompiledRules, reachable: np.ndarray) -> np.ndarray:
    """The states (of ``reachable``, shaped as the table) whose rows are kept: every
    reachable state but those that take another's row (:func:`_sharing`)."""
    m, y, u = np.nonzero(reachable)  # in the order of mask, flag, upper total
    _, own = _sharing(game, np.stack([m, y, u], axis=1))
    kept = np.zeros(reachable.shape, bool)
    kept[m[own], y[own], u[own]] = True
    return kept


def remaining_table(
    rules,
    values: ExpectedTable | None = None,
    use_cache: bool = True,
    progress=None,
    mapped: bool = True,
    allow_large: bool = False,
) -> RemainingTable:
    """The table of a rule set, from the cache when it holds one, else solved and
    stored. The file holds every row's bounds, then the rows (single precision).

    ``mapped``: the rows are memory-mapped and each block is checked when first
    read (a damaged one raises :class:`~dicelab.errors.DamagedTable`); without it,
    the file is read whole and checked, and a damaged one is solved anew.
    """
    from dicelab.engine.runtime import cache

    game = as_game(rules)
    refuse_variants(game, "the distribution from every state", served=False)
    shape = (game.full_mask + 1, game.n_flag, game.n_upper)
    size = int(np.prod(shape))
    found = None
    if use_cache:
        found = cache.lookup(game.rules, OBJECTIVE_REMAINING, None, mapped=mapped)
    if found is not None:
        array, meta = found
        try:
            if mapped:
                meta["mapped"].check(0, 2 * size)
            lo: np.ndarray = np.asarray(array[:size], np.int64).reshape(shape)
            hi: np.ndarray = np.asarray(array[size : 2 * size], np.int64).reshape(shape)
        except cache.DamagedTable:
            lo = hi = np.zeros(0, dtype=np.int64)
        off, stored = _offsets(game, lo, hi) if lo.size else (lo, -1)
        if stored == array.size - 2 * size:  # else a damaged file, or laid out otherwise
            off = off + 2 * size
            values = values if values is not None else expected_table(game, use_cache=use_cache)
            return RemainingTable(values, lo, hi, off, array, meta=meta)
    remaining_cost(game).check(allow_large)  # before the expected-score table's solve
    values = values if values is not None else expected_table(game, use_cache=use_cache)
    table = solve_remaining(game, values, progress, allow_large)
    # a gigabyte for Yahtzee: written while the table is put to use
    cache.remember(table, game.rules, OBJECTIVE_REMAINING, None, use_cache, later=True)
    return table


def _layer_rows(states, Q, qoff, slots, R, nxt, most, sharing):
    """The rows of one layer's states from the next layer's ``nxt``: ``(P, lo, hi,
    starts)``, state ``j``'s points ``lo[j] .. hi[j]`` from ``P[starts[j]]``, its
    tails under :data:`TAIL` left out of those bounds but not moved out of ``P``.

    Each row is first laid out from 0 to ``most[j]``, the most points the state's
    open boxes and bonuses can make (:func:`~dicelab.engine.objectives.points.state_bounds`),
    rather than from its exact bounds, which would take a pass of their own over
    every outcome: the points no outcome reaches stay 0 and fall in the tails.

    The states of one mask and flag that have lost the upper bonus share the first
    one's row (``sharing``, :func:`_sharing`): their upper totals no longer matter,
    and the same terms in the same order make their rows (a third of Yahtzee's
    states)."""
    from dicelab.engine.kernels import remaining as kr
    from dicelab.engine.kernels.work import on_threads

    same, own = sharing  # the state whose row each state uses, and whether its own
    mine = states[own]
    lo, hi = np.zeros(mine.shape[0], np.int64), np.asarray(most, np.int64)[own]
    width = hi - lo + 1
    off = np.cumsum(width) - width
    P = np.zeros(int(width.sum()))
    new_block = (mine[1:, :2] != mine[:-1, :2]).any(axis=1)
    blocks = np.flatnonzero(np.r_[True, new_block, True]).astype(np.int64)[: mine.shape[0] + 1]
    on_threads(kr.fill_rows, blocks, mine, Q, qoff, slots, R, nxt, lo, off, P)
    first, last = np.empty(mine.shape[0], np.int64), np.empty(mine.shape[0], np.int64)
    on_threads(kr.trimmed_bounds, lo, hi, off, P, TAIL, first, last)
    at = (np.cumsum(own) - 1)[same]  # each state's row among those worked out
    return P, first[at], last[at], (off + (first - lo))[at]


def solve_objective(game, spec, options) -> RemainingTable:
    """The registry's solve: the points to come from every state (for a table at
    play), its rows memory-mapped where ``options.mapped``."""
    return remaining_table(game, **options.solver_kwargs("mapped"))


def objective_facts(rules, spec):
    """The registry's facts: the expected-score table, then the points to come."""
    from dataclasses import replace

    from dicelab.engine.objectives.expected import OBJECTIVE
    from dicelab.engine.runtime import cache
    from dicelab.engine.runtime.cost import Facts, expected_cost

    both = (cache.table_path(rules, OBJECTIVE), cache.table_path(rules, OBJECTIVE_REMAINING))
    rest = remaining_cost(as_game(rules))
    seconds = rest.seconds + expected_cost(rules).seconds
    return Facts((both,), replace(rest, seconds=seconds))
