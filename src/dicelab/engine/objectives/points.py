"""Turn-start states with a points axis: the layout shared by the total-score objectives.

The expected score needs one value per turn-start state (filled boxes, flag,
capped upper total). Objectives about the final total (reach a target, beat an
opponent, the whole distribution) also need the points: scored so far, or still
needed. A :class:`PointsLayout` gives every reachable state a *row*, a range of
points ``lo..hi`` stored contiguously; rows are laid out layer by layer (fewest
filled boxes first), so one layer is one slice of the flat array.

The ranges come from bounds that hold in every game:

* points still to come are at most the best score of each open box, the extra
  bonuses still possible and the upper bonus if the open upper boxes can still
  reach the threshold (:meth:`PointsLayout.most_to_come`);
* points so far are the fewest to the most a game can have scored on reaching
  the state (:func:`scored_range`, a forward pass over the rules' moves); the sums
  :class:`StateBounds` keeps as ``so_far_lo .. so_far_hi`` (at least the upper
  total ``u``, at most ``u`` plus the best of the filled lower boxes below the
  threshold, plus the extra bonuses) are a fifth wider in Yahtzee.

Scoring in a box never leaves these bounds, so the points of a position a game
can reach always land inside the next state's row; outside a row the value is one
of two constants (for a target: 1 below, 0 above), which keeps rows short.

States whose open upper boxes can no longer reach the threshold share one row per
mask and flag (:func:`stored_rows`): their upper total no longer matters, and in
Yahtzee they are a third of the states and of the (state, points) values.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from dicelab.rules.compiled import CompiledRules, refuse_variants, sorted_distinct


def layers(n_categories: int, forced_order: bool = False) -> list[np.ndarray]:
    """Masks grouped by number of filled boxes, fewest first; with ``forced_order``
    only the first ``k`` boxes filled, the one sheet of each layer a game in
    scorecard order can reach (``n + 1`` sheets instead of ``2**n``)."""
    if forced_order:
        return [np.array([(1 << k) - 1], dtype=np.int64) for k in range(n_categories + 1)]
    masks = np.arange(1 << n_categories, dtype=np.int64)
    pop = np.zeros_like(masks)
    for c in range(n_categories):
        pop += (masks >> c) & 1
    return [masks[pop == k] for k in range(n_categories + 1)]


def box_best(game: CompiledRules) -> np.ndarray:
    """Most points each box can give, joker scoring and served bonuses included."""
    best = np.maximum(game.score.max(axis=1), game.served_score.max(axis=1))
    if game.joker_code != 0 and game.yahtzee >= 0:
        best = np.maximum(best, game.joker_score.max(axis=1))
    return best.astype(np.int64)


def bonus_lost(game: CompiledRules) -> np.ndarray:
    """``lost[mask, u]``: with boxes ``mask`` filled and capped upper total ``u``, the
    open upper boxes can no longer reach the threshold (never without an upper bonus).

    Past that point the upper total no longer matters: the solves work out one upper
    total's values for all of them."""
    u = np.arange(game.n_upper, dtype=np.int64)
    thr = game.threshold
    return (u[None, :] + open_upper_best(game)[:, None] < thr) & (thr > 0)


def open_upper_best(game: CompiledRules) -> np.ndarray:
    """Per mask, the most points its open upper boxes can still give together."""
    best = box_best(game) * game.upper.astype(bool)
    masks = np.arange(1 << game.n_categories, dtype=np.int64)
    filled = np.zeros(masks.size, np.int64)
    for c in np.flatnonzero(best):
        filled += ((masks >> c) & 1) * best[c]
    return best.sum() - filled


def max_score(game: CompiledRules) -> int:
    """A bound on the final score: every box at its best, every bonus earned.

    The same as ``StateBounds(game).to_come[0, 0, 0]``, without the arrays of every state.
    """
    refuse_variants(game, "this objective", served=False)
    best = box_best(game)
    n = game.n_categories
    top = int(best.sum())
    if game.yahtzee >= 0:
        top += int(game.rules.extra_bonus) * max(n - 1, 0)
    thr = game.threshold
    if thr > 0 and int((best * game.upper.astype(bool)).sum()) >= thr:
        top += game.rules.bonus_points
    return top


def scored_range(game: CompiledRules) -> tuple[np.ndarray, np.ndarray]:
    """The fewest and most points so far of every (mask, flag, upper total), worked
    out from the rules by a forward pass (:mod:`dicelab.engine.kernels.scored`):
    ``(least, most)``, ``(1, 0)`` for a state no game reaches.

    Each move of a final roll (every box it may go in, each score it makes there,
    the joker rules and extra bonuses, a served first throw's scores) carries the
    range of one state to the next, so the ends are exact. In Yahtzee the rows of
    points so far are a fifth shorter than with sums of the boxes' best scores
    (148 against 184 million values over every state): a filled Chance holds at
    least 5 points, a flag set means 50 in the Yahtzee box, an extra bonus in an
    upper box needs that box's five of a kind.
    """
    from dicelab.engine.kernels import rule_arrays
    from dicelab.engine.kernels.scored import UNREACHED
    from dicelab.engine.kernels.scored import scored_range as forward

    def ordinary(R) -> tuple[np.ndarray, np.ndarray]:
        # each box's distinct scores over the rolls that are not all alike
        plain = R.score[:, R.roll_face < 0]
        per_box = [sorted_distinct(row) for row in plain]
        out = np.zeros((len(per_box), max(1, max(len(v) for v in per_box))), np.int64)
        for c, v in enumerate(per_box):
            out[c, : len(v)] = v
        return out, np.array([len(v) for v in per_box], np.int64)

    shape = (1 << game.n_categories, game.n_flag, game.n_upper)
    lo = np.full(shape, UNREACHED, np.int64)
    hi = np.full(shape, -UNREACHED, np.int64)
    lo[0, 0, 0] = hi[0, 0, 0] = 0
    # all-alike rolls apart only where a rule of their own places them
    R, SR = rule_arrays(game, solving=True), rule_arrays(game, solving=True, served=True)
    # with a served bonus a final roll that is the first throw scores by the served
    # table; with one throw a turn, every final roll is
    scored_by = (2 if game.rules.rolls == 1 else 3) if game.has_served else 1
    forward(R, ordinary(R), SR, ordinary(SR), scored_by, game.upper_extent, lo, hi)
    unreached = hi < lo  # in place: Maxi Yatzy's arrays are 0.7 GB each
    lo[unreached] = 1
    hi[unreached] = 0
    return lo, hi


def state_bounds(game: CompiledRules) -> StateBounds:
    """The game's :class:`StateBounds`, worked out once per compiled game (read-only)."""
    found = game.derived.get("state_bounds")
    if found is None:
        found = StateBounds(game)
        for a in (found.to_come, found.so_far_hi, found.reachable, found.bonus_lost):
            a.setflags(write=False)
        game.derived["state_bounds"] = found
    return found


class StateBounds:
    """Bounds on the points to come and so far, for every (mask, flag, upper total).

    Arrays have shape ``(2**boxes, n_flag, n_upper)``; ``reachable`` marks the
    states a game can be in.
    """

    def __init__(self, game: CompiledRules) -> None:
        refuse_variants(game, "this objective", served=False)
        self.game = game
        n = game.n_categories
        best = box_best(game)
        masks = np.arange(1 << n, dtype=np.int64)
        bits = ((masks[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)
        upper = game.upper.astype(bool)
        filled_n = bits.sum(axis=1)
        open_n = n - filled_n
        open_best = (~bits * best).sum(axis=1)
        filled_upper = (bits * (best * upper)).sum(axis=1)
        filled_lower = (bits * (best * ~upper)).sum(axis=1)
        thr = game.threshold
        bonus = game.rules.bonus_points if thr > 0 else 0
        extra = int(game.rules.extra_bonus) if game.yahtzee >= 0 else 0
        u = np.arange(game.n_upper, dtype=np.int64)
        shape = (1 << n, game.n_flag, game.n_upper)

        to_come = np.zeros(shape, dtype=np.int64)
        so_far = np.zeros(shape, dtype=np.int64)
        #: ``bonus_lost[mask, u]``: the open upper boxes can no longer reach the threshold
        self.bonus_lost = bonus_lost(game)
        y_open = ~bits[:, game.yahtzee] if game.yahtzee >= 0 else np.zeros(1 << n, bool)
        for y in range(game.n_flag):
            if extra and y == 1:
                extra_left = extra * open_n
                extra_done = extra * np.maximum(filled_n - 1, 0)
            elif extra:
                extra_left = np.where(y_open, extra * np.maximum(open_n - 1, 0), 0)
                extra_done = np.zeros_like(open_n)
            else:
                extra_left = extra_done = np.zeros_like(open_n)
            to_come[:, y, :] = (open_best + extra_left)[:, None] + bonus * ~self.bonus_lost
            if thr > 0:
                upper_part = np.where(u[None, :] < thr, u[None, :], filled_upper[:, None])
            else:
                upper_part = np.broadcast_to(filled_upper[:, None], (1 << n, game.n_upper))
            so_far[:, y, :] = upper_part + (filled_lower + extra_done)[:, None]
        reachable = np.zeros(shape, dtype=bool)
        reachable[:, 0, :] = game.upper_reach
        if game.n_flag == 2:
            reachable[:, 1, :] = game.upper_reach & ~y_open[:, None]
        if game.rules.forced_order:  # in scorecard order: the sheets filled from the top
            reachable[(masks & (masks + 1)) != 0] = False
        self.to_come = to_come
        self.so_far_hi = so_far
        self.so_far_lo = np.broadcast_to(u[None, None, :], shape)  # a read-only view
        self.reachable = reachable
        self.bonus = bonus

    @cached_property
    def scored(self) -> tuple[np.ndarray, np.ndarray]:
        """``(least, most)``: the fewest and most points a game can have scored on
        reaching each state, exactly (:func:`scored_range`); within
        ``so_far_lo .. so_far_hi``, and ``(1, 0)`` where no game goes (read-only,
        like the other bounds)."""
        least, most = scored_range(self.game)
        least.setflags(write=False)
        most.setflags(write=False)
        return least, most

    def bonus_of(self, u: np.ndarray | int) -> np.ndarray | int:
        """Upper bonus paid at the end for a capped upper total ``u``."""
        thr = self.game.threshold
        if thr == 0:
            return np.zeros_like(u) if isinstance(u, np.ndarray) else 0
        return (
            np.where(u >= thr, self.bonus, 0)
            if isinstance(u, np.ndarray)
            else (self.bonus if u >= thr else 0)
        )


@dataclass
class PointsLayout:
    """Rows of points for every reachable state, stored layer by layer.

    Attributes
    ----------
    lo, hi : ndarray, shape (2**boxes, n_flag, n_upper)
        The points range of each row (empty when ``hi < lo``).
    off : ndarray, same shape
        Where each row starts in the flat array (-1 for unreachable states); the
        states of one mask and flag past the upper bonus share a row, and their
        ``lo``, ``hi`` and ``off`` are those of the shared row (:func:`stored_rows`).
    block : ndarray, shape (2**boxes, n_flag + 1)
        The rows of mask ``m`` with flag ``y`` span ``block[m, y]:block[m, y + 1]``.
    layer_start : ndarray, shape (boxes + 2,)
        Layer ``k`` (``k`` boxes filled) spans ``layer_start[k]:layer_start[k + 1]``.
    """

    game: CompiledRules
    lo: np.ndarray
    hi: np.ndarray
    off: np.ndarray
    block: np.ndarray
    layer_start: np.ndarray

    @property
    def size(self) -> int:
        """Number of (state, points) values."""
        return int(self.layer_start[-1])

    def layer_size(self, k: int) -> int:
        """Number of values in layer ``k``."""
        return int(self.layer_start[k + 1] - self.layer_start[k])

    def key(self) -> str:
        """Checksum of the row ranges: a cached table is read only with the same rows."""
        return rows_key(self.lo, self.hi)


def rows_key(lo: np.ndarray, hi: np.ndarray) -> str:
    """:meth:`PointsLayout.key` of the rows ``lo .. hi`` (as :func:`stored_rows`
    gives them), without laying them out."""
    h = hashlib.sha256(SHARED_ROWS)
    h.update(np.ascontiguousarray(lo).tobytes())
    h.update(np.ascontiguousarray(hi).tobytes())
    return h.hexdigest()[:24]


#: names the layout in which states past the upper bonus share one row (a table laid
#: out otherwise has another key, so a cached one is never read with these rows)
SHARED_ROWS = b"bonus-lost rows shared"


#: no cut (``low``, ``high``): every point of a state's own range is kept
NO_CUT = 1 << 62


def _layout_args(lo, hi, bounds: StateBounds, live, cut):
    """The inputs of :func:`~dicelab.engine.kernels.layout.lay_out_rows`."""
    shape = bounds.reachable.shape
    own = tuple(np.broadcast_to(np.asarray(x, np.int64), shape) for x in (lo, hi, bounds.to_come))
    low, high = cut
    cut = (-NO_CUT if low is None else int(low), NO_CUT if high is None else int(high))
    order = layers(bounds.game.n_categories)
    cuts = np.cumsum([0] + [len(layer) for layer in order])
    wanted = bounds.reachable if live is None else np.ascontiguousarray(live, bool)
    return own, cut, (bounds.reachable, wanted, bounds.bonus_lost, np.concatenate(order), cuts)


def stored_rows(
    lo, hi, bounds: StateBounds, live: np.ndarray | None = None, cut=(None, None)
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows as stored, laid out: ``(lo, hi, off, block, layer_start)`` as
    :class:`PointsLayout` holds them, from each state's own range ``lo .. hi``
    (arrays over the states, or numbers), cut to ``low + 1 - to come .. high - 1``
    where ``cut = (low, high)`` says so (``None``: no cut), as :func:`so_far_rows`
    cuts them.

    Once the open upper boxes cannot reach the threshold, the upper total no longer
    matters: every such state of one mask and flag has the same value at the same
    points (scoring keeps it past the bonus, so by induction from the full sheet).
    Their rows are one row, over the union of their ranges (empty ones included:
    a range is cut where the objective is decided, the same points for all of
    them), stored once under the least upper total; the others point into it. A
    row's own points land inside the next state's own row or where the objective
    is decided (see the module's note), so every value of every state's own range
    is the same as in rows of its own, to the last bit. ``live`` (by default the
    reachable states) says which states' rows are wanted: the others' stay as they
    are. In Yahtzee a third of the states share rows. Rows are placed layer by
    layer, mask by mask, flag then upper total
    (:func:`~dicelab.engine.kernels.layout.lay_out_rows`, one pass over the states).
    """
    from dicelab.engine.kernels.layout import lay_out_rows

    shape = bounds.reachable.shape
    own, cut, where = _layout_args(lo, hi, bounds, live, cut)
    rows = (np.empty(shape, np.int64), np.empty(shape, np.int64), np.empty(shape, np.int64))
    out = (*rows, np.zeros((shape[0], shape[1] + 1), np.int64), np.zeros(where[4].size, np.int64))
    lay_out_rows(own, cut, where, True, out)
    return out


def stored_size(lo, hi, bounds: StateBounds, live=None, cut=(None, None)) -> int:
    """``PointsLayout.size`` of :func:`stored_rows`, counted without laying the rows
    out (no memory: a table this machine cannot hold is refused before it is built)."""
    from dicelab.engine.kernels.layout import lay_out_rows

    none3, none2, none1 = (np.zeros((1,) * k, np.int64) for k in (3, 2, 1))
    out = (none3, none3, none3, none2, none1)
    own, cut, where = _layout_args(lo, hi, bounds, live, cut)
    return int(lay_out_rows(own, cut, where, False, out))


def build_layout(
    game: CompiledRules,
    lo: np.ndarray | int,
    hi: np.ndarray | int,
    live: np.ndarray | None = None,
    bounds: StateBounds | None = None,
    cut=(None, None),
) -> PointsLayout:
    """Lay rows out layer by layer, mask by mask, flag then upper total; the rows
    :func:`stored_rows` shares (among the ``live`` states) take no room of their own."""
    bounds = bounds or state_bounds(game)
    return PointsLayout(game, *stored_rows(lo, hi, bounds, live, cut))


def needed_layout(game: CompiledRules) -> PointsLayout:
    """Rows of points still needed, ``1..most to come`` (the all-targets table)."""
    bounds = state_bounds(game)
    return build_layout(game, 1, bounds.to_come, bounds=bounds)


def needed_size(game: CompiledRules) -> int:
    """``needed_layout(game).size``, counted without laying the rows out."""
    bounds = state_bounds(game)
    return stored_size(1, bounds.to_come, bounds)


def needed_key(game: CompiledRules) -> str:
    """``needed_layout(game).key()``, without laying the rows out (what names the
    cached table of every target)."""
    bounds = state_bounds(game)
    return rows_key(*stored_rows(1, bounds.to_come, bounds)[:2])


def so_far_layout(
    game: CompiledRules,
    low: int | None = None,
    high: int | None = None,
    bounds: StateBounds | None = None,
    start: tuple[int, int, int, int] | None = None,
) -> PointsLayout:
    """Rows of points scored so far, for a utility constant up to ``low`` and from ``high``.

    A state whose best finish cannot pass ``low`` or which already has ``high``
    points has a known value and needs no row. ``None`` means no such bound. With
    ``start`` (``(mask, flag, capped upper total, points)`` of a turn start) only
    the states that can follow it get rows: the rest of one game, not the whole.
    """
    b = bounds or state_bounds(game)
    return build_layout(game, *so_far_rows(b, start=start), bounds=b, cut=(low, high))


def so_far_size(game: CompiledRules, low: int | None = None, high: int | None = None) -> int:
    """``so_far_layout(game, low, high).size``, counted without laying the rows out."""
    b = state_bounds(game)
    lo, hi, _ = so_far_rows(b)
    return stored_size(lo, hi, b, cut=(low, high))


def so_far_rows(
    bounds: StateBounds,
    low: int | None = None,
    high: int | None = None,
    start: tuple[int, int, int, int] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Each state's own points range for :func:`so_far_layout`, ``(lo, hi, live)``:
    ``live`` marks the states that can follow ``start`` (``None``: every reachable one).
    ``low`` and ``high`` cut the ranges as :func:`stored_rows` does in its pass (which
    is where :func:`so_far_layout` has them cut, with no arrays of its own)."""
    lo, hi = bounds.scored
    if low is not None:
        lo = np.maximum(lo, low + 1 - bounds.to_come)
    if high is not None:
        hi = np.minimum(hi, high - 1)
    if start is None:
        return lo, hi, None
    mask, y, u, points = start
    masks = np.arange(lo.shape[0])[:, None, None]
    after = ((masks & mask) == mask) & (np.arange(lo.shape[1])[None, :, None] >= y)
    after = after & (np.arange(lo.shape[2])[None, None, :] >= u)
    lo = np.where(after, np.maximum(lo, points), 1)
    hi = np.where(after, hi, 0)
    return lo, hi, after & bounds.reachable
