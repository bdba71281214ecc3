"""The simple strategy, valued exactly: what optimal play is worth against it.

A game designer asks how much a variant rewards skill. The yardstick here is the
player who never looks beyond the turn: each turn's rerolls chase the most points
*this* turn, and the final roll goes in the box that scores most for it now (the
joker rules followed, an extra all-alike bonus counted; ties to the first box on
the scorecard, keeps tied to the one with fewer dice, as the engine's strategies
break ties). The upper bonus and every later turn are ignored: the strategy is the
table-driven one (:mod:`dicelab.engine.objectives.distribution`) of an all-zero
value table. Its *skill gap* is the optimum's expected score less its own.

Its value is not simulated but computed, with the engine's own pieces: the turn
outcomes of each state under the all-zero table
(:meth:`~dicelab.engine.objectives.distribution.OutcomeLayout.outcomes`, the
distribution's and the split by box's), then the backward step of the expected
score over them: each state's expected points to come (with the chance of the
upper bonus, the extra bonuses and the chance that the all-alike box scores) is
the mean over its turn's outcomes of the outcome's points plus the next state's.
The choices of an all-zero table do not depend on the upper total, so each
state's turn is worked out on one lane of upper totals and shared by all of them:
about a second for Yahtzee, where the optimum's distribution takes several.
``tests/test_compare_simple.py`` checks it against the whole distribution of the
same strategy and, on small rule sets, against a brute force over ordered dice.

>>> from dicelab.play.simple import simple_strategy
>>> round(simple_strategy("yazy", use_cache=False).expected, 4) < 165.7573
True
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from dicelab.engine.kernels.turn import slot_outcome
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, all_same_box, as_game, refuse_variants

#: Its name in the cache (one row of parts: a few numbers, kept beside the tables).
CACHED_AS = ("simple-strategy", {"strategy": "best-box-now", "layout": "parts-1"})
#: What the strategy is, in a sentence for reports.
DESCRIPTION = (
    "rerolls for the most points this turn, then the box that scores most for the "
    "roll; no thought of the upper bonus or later turns"
)


@dataclass(frozen=True)
class SimpleStrategy:
    """The simple strategy's figures over a whole game, exact: its expected score,
    the chance of the upper bonus, the expected extra-bonus points and the chance
    that the all-alike box scores (``None`` where the rules have no such part)."""

    rules: Rules
    expected: float
    p_bonus: float | None
    extra_bonuses: float | None
    p_all_same: float | None
    seconds: float = 0.0
    cached: bool = False

    def to_dict(self) -> dict:
        return {
            "strategy": DESCRIPTION,
            "expected_score": self.expected,
            "p_bonus": self.p_bonus,
            "extra_bonuses": self.extra_bonuses,
            "p_all_same": self.p_all_same,
        }


def simple_strategy(
    rules: Rules | CompiledRules | str,
    use_cache: bool = True,
    progress=None,
    allow_large: bool = False,
) -> SimpleStrategy:
    """The simple strategy's exact figures from the game's start (see the module), from
    the cache when it holds them; rules whose states do not fit this machine are
    refused (:class:`dicelab.TooLarge`) unless ``allow_large``."""
    from dicelab.engine.runtime import cache
    from dicelab.engine.runtime.cost import Cost, expected_cost

    game = as_game(rules)
    refuse_variants(game, "the simple strategy's value", served=False)
    objective, params = CACHED_AS
    width = 4
    if use_cache:
        found = cache.lookup(game.rules, objective, (width,), params)
        if found is not None:
            return _figures(game, np.asarray(found[0]), found[1]["header"]["seconds"], True)
    states = (1 << game.n_categories) * game.n_flag * game.n_upper
    what = f"{game.rules.name}'s simple strategy"
    Cost(what, states, 32 * states, expected_cost(game.rules).seconds).check(allow_large)
    start = time.perf_counter()
    row = np.array(start_parts(game, progress), dtype=np.float64)
    seconds = time.perf_counter() - start
    if use_cache:
        header = {"rules": game.rules.normalised(), "objective": objective, "params": params}
        cache.store_table(cache.table_path(game.rules, objective, params), row,
                          header | {"seconds": seconds})  # fmt: skip
    return _figures(game, row, seconds, False)


def _figures(game: CompiledRules, row: np.ndarray, seconds: float, cached: bool):
    """The figures of the start's row of parts (see :data:`POINTS`)."""
    bonus = game.rules.bonus_points if game.threshold > 0 else 0
    return SimpleStrategy(
        rules=game.rules,
        expected=float(row[POINTS]),
        p_bonus=float(row[BONUS]) / bonus if bonus else None,
        extra_bonuses=float(row[EXTRA]) if game.rules.extra_bonus else None,
        p_all_same=float(row[SAME]) if all_same_box(game.rules) >= 0 else None,
        seconds=float(seconds),
        cached=cached,
    )


#: The parts of a state's row: points (boxes and extra bonuses), upper bonus, extra
#: bonuses alone, all-alike box scored.
POINTS, BONUS, EXTRA, SAME = 0, 1, 2, 3


@njit(cache=True, parallel=True)
def _simple_layer(masks, W, Q, qoff, lanes, n_lanes, slots, R, same_box):
    """Fill ``W[mask, y, u]`` (the four parts above) for every state of ``masks`` from
    the next layer's rows: the mean over the turn's outcomes ``Q[qoff[mask, y] +
    slot]`` (one lane: the strategy's outcomes are the same for every upper total)
    of the outcome's points plus the next state's parts. ``slots`` is ``(box_slots,
    slot_pts, n_e)``."""
    box_slots, slot_pts, n_e = slots
    n_cat = R.upper.shape[0]
    for b in prange(masks.shape[0]):
        X = masks[b]
        ny = 2 if (R.n_flag == 2 and (X >> R.yahtzee) & 1 == 1) else 1
        for y in range(ny):
            for i in range(n_lanes[X]):
                u = lanes[X, i]
                base = qoff[X, y]
                for c in range(n_cat):
                    if (X >> c) & 1 == 1:
                        continue
                    Y = X | (1 << c)
                    for s in range(box_slots[c]):
                        q = Q[base + s]
                        if q == 0.0:
                            continue
                        pts, gain, y2, u2 = slot_outcome(c, s, y, u, slot_pts, n_e, R)
                        W[X, y, u, POINTS] += q * (gain + W[Y, y2, u2, POINTS])
                        W[X, y, u, BONUS] += q * W[Y, y2, u2, BONUS]
                        W[X, y, u, EXTRA] += q * ((gain - pts) + W[Y, y2, u2, EXTRA])
                        scored = 1.0 if (c == same_box and pts > 0) else 0.0
                        W[X, y, u, SAME] += q * (scored + W[Y, y2, u2, SAME])
                    base += box_slots[c]


def start_parts(game: CompiledRules, progress=None) -> np.ndarray:
    """The parts of the game's start (see :data:`POINTS`) under the all-zero table's
    strategy, layer by layer from the full sheet."""
    from dicelab.engine.kernels import rule_arrays
    from dicelab.engine.objectives.distribution import OutcomeLayout
    from dicelab.engine.objectives.points import layers

    out = OutcomeLayout.of(game)
    one = dataclasses.replace(out, n_lanes=np.minimum(out.n_lanes, 1))  # a lane per state
    V = np.zeros((1 << game.n_categories, game.n_flag, game.n_upper))
    W = np.zeros((1 << game.n_categories, game.n_flag, game.n_upper, 4))
    if game.threshold > 0:  # the upper bonus, at the full sheet
        W[game.full_mask, :, game.threshold, BONUS] = float(game.rules.bonus_points)
        W[game.full_mask, :, game.threshold, POINTS] = float(game.rules.bonus_points)
    slots = (out.box_slots, out.slot_pts, out.n_e)
    R = rule_arrays(game)
    same = all_same_box(game.rules)
    n = game.n_categories
    for k in range(n - 1, -1, -1):
        masks = layers(n)[k]
        Q, qoff = one.outcomes(game, V, masks)
        _simple_layer(masks, W, Q, qoff, out.lanes, out.n_lanes, slots, R, same)
        if progress is not None:
            progress(n - k, n)
    return W[0, 0, 0].copy()
