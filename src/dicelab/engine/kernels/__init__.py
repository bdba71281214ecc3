"""Numba kernels shared by the solvers: one turn, many states at once.

One module per purpose: :mod:`.turn` (the turn with lanes side by side),
:mod:`.blocks` (the expected-score solve in lane-vector blocks), :mod:`.saved`,
:mod:`.points` (lanes over points) and :mod:`.duel` (lanes over the lead). Their
arguments travel in the bundles below, built once per solve by
:func:`dicelab.engine.objectives.expected.kernel_rules` and its neighbours.


A turn is valued backwards through its throws. After the last throw the player
picks a box (:func:`final_roll_values`). Before a reroll, the value of a keep is
the average over one more die of the keeps one die larger (:func:`keep_values`),
and the best choice inside a set of dice is the best of its sub-keeps with one
die fewer (:func:`best_keeps`). Both touch ``keeps x faces`` entries per throw.

Every array row here holds *lanes*: the same turn for several states that differ
only in the upper total. Lane ``ui`` is the state with upper total ``u0 + ui``;
the inner loops run over contiguous lanes, which the compiler vectorises. The
expected-score solve (:func:`solve_blocks`) cuts its rows into blocks of exactly
one SIMD register (:mod:`dicelab.engine.kernels.lanes`) so a turn's scratch stays in the
first-level cache, and holds single-precision values relative to a
double-precision base.

The value table ``V`` has shape ``(2**boxes, n_flag, n_upper)``: the expected
points still to come at the start of a turn. The last section runs the same turn
with lanes over points (the target and utility tables of :mod:`dicelab.engine.objectives.target`).

Importing this module imports Numba; modules that answer one position (advice,
:mod:`dicelab.engine.turn`) do not, and the solvers import it when they solve.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

#: Below every value a kernel compares, and finite in float32 as in float64.
NEG = -3.0e38

#: Floating-point licence for the max-heavy kernels: no NaN or infinity reaches
#: them (unreachable states are never read), so comparisons compile to vector max.
FAST = {"nnan", "ninf", "nsz"}

#: Compile options for kernels that allocate nothing: no reference counts.
#: Their arguments are bundles (named tuples) of arrays, which Numba's pass that
#: drops needless reference counts does not cover, so each read of a bundle's
#: array, each call that passes a bundle, each view taken in a loop would cost an
#: atomic increment and decrement (the placements of an all-alike roll took
#: 0.40 microseconds a call with them, 0.04 without). Every array such a kernel
#: touches is owned by its caller for the whole call.
NO_REFS: dict[str, Any] = {"_nrt": False}


class RuleArrays(NamedTuple):
    """A rule set as the kernels read it (see :class:`dicelab.rules.compiled.CompiledRules`)."""

    score: np.ndarray  # (boxes, rolls): each box's points for each final roll
    joker_score: np.ndarray  # the same under the joker rule
    roll_face: np.ndarray  # an all-alike roll's face index, else -1
    alike: np.ndarray  # the rolls marked all-alike in roll_face, in order
    upper: np.ndarray  # boxes that count towards the upper bonus
    upper_box_of_face: np.ndarray  # each face's upper box, or -1
    threshold: int  # the upper total of the bonus (0: no bonus)
    yahtzee: int  # the all-alike box (-1: none)
    joker: int  # the placement rule (:mod:`dicelab.rules.placement`)
    extra_bonus: float  # points of each extra all-alike roll
    n_flag: int  # 2 where states carry the all-alike flag
    values: np.ndarray  # (boxes, k): each box's distinct scores
    index: np.ndarray  # (boxes, rolls): each roll's score among them
    scoring: np.ndarray  # (rolls, 1 + 2 boxes): where each roll scores, see scoring_boxes


class DiceArrays(NamedTuple):
    """The dice as the kernels read them (see :class:`dicelab.dice.DiceSpace`)."""

    add: np.ndarray
    sub_rows: np.ndarray
    size_start: np.ndarray
    roll_prob: np.ndarray
    dice: int
    faces: int
    rerolls: int


class Segments(NamedTuple):
    """Layers cut into batches (:func:`.turn.plan_batches`): segment ``j`` is the
    state ``(mask[j], y[j])`` at upper totals ``u0[j] .. u0[j] + nu[j]``; batch ``b``
    holds segments ``starts[b] .. starts[b + 1]``; layer ``k``'s batches end before
    batch ``ends[k]`` (see :mod:`.work`)."""

    mask: np.ndarray
    y: np.ndarray
    u0: np.ndarray
    nu: np.ndarray
    starts: np.ndarray
    ends: np.ndarray


class PointsRows(NamedTuple):
    """A table over points (:class:`dicelab.engine.objectives.target.PointsTable`): the values
    ``T``, each state's row bounds and start (``lo``, ``hi``, ``off``), whether
    points count down (``sign`` -1) or up, the values outside a row, and whether
    more points scored never lower a value (``rising``: a target, a utility that
    never falls)."""

    T: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    off: np.ndarray
    sign: int
    below: float
    above: float
    rising: bool


class Players(NamedTuple):
    """One player's states in a duel (:class:`dicelab.engine.objectives.duel.DuelSpace`)."""

    p_mask: np.ndarray
    p_y: np.ndarray
    p_u: np.ndarray
    p_count: np.ndarray
    pid: np.ndarray
    cstart: np.ndarray
    ncount: np.ndarray
    lbase: np.ndarray


class Leads(NamedTuple):
    """Each duel node's row: where it starts and its leads (stored, decided)."""

    toff: np.ndarray
    xlo: np.ndarray
    ulo: np.ndarray
    uhi: np.ndarray


class Outcomes(NamedTuple):
    """Each player state's turn outcomes under the expected-score strategy."""

    start: np.ndarray
    prob: np.ndarray
    box: np.ndarray
    pts: np.ndarray
    gain: np.ndarray


def announce_compile(*dispatchers, shape=None) -> None:
    """On a terminal, say so before a first run compiles kernels (Numba caches them):
    where a kernel of ``dispatchers`` has nothing cached, or, given the dice ``shape``
    its turn is written out for (:mod:`.unrolled`), nothing cached for that shape
    (the kernel is compiled again for new dice)."""
    import os
    import sys

    if not sys.stderr.isatty():
        return
    try:
        files = [d._cache._cache_file for d in dispatchers]
        fresh = any(not os.path.exists(f._index_path) for f in files)
        if not fresh and shape is not None:
            from numba import typeof

            kind = typeof(shape)
            fresh = any(all(kind not in key[0] for key in f._load_index()) for f in files)
    except (AttributeError, OSError, EOFError, ValueError):  # another Numba: nothing to say
        return
    if fresh:
        print(
            "note: compiling the solver kernels once (10 to 30 s); later runs reuse them",
            file=sys.stderr,
        )


def rule_arrays(game, solving: bool = False, served: bool = False) -> RuleArrays:
    """The rule arrays of compiled rules (:class:`~dicelab.rules.compiled.CompiledRules`).

    With ``solving``, all-alike rolls are marked as such only where a rule of their
    own applies (a joker, an extra bonus, a flag, boxes that need another): under
    the others they score like any roll, and the solvers value them with the rest.
    With ``served``, the scores are those of a first throw scored at once (the
    served table). Made once per compiled game (a solve asks for them every layer).
    """
    key = ("rule_arrays", solving, served)
    found = game.derived.get(key)
    if found is None:
        found = game.derived[key] = _rule_arrays(game, solving, served)
    return found


def _rule_arrays(game, solving: bool, served: bool) -> RuleArrays:
    from dicelab.rules.placement import plain_code

    roll_face = game.roll_face
    if solving and game.n_flag == 1 and plain_code(game.placement_code):
        roll_face = np.full_like(roll_face, -1)
    score, (values, index) = game.score, game.distinct_scores
    if served:
        score, (values, index) = game.served_score, game.served_distinct
    return RuleArrays(
        score,
        game.joker_score,
        roll_face,
        np.flatnonzero(roll_face >= 0).astype(np.int64),
        game.upper,
        game.upper_box_of_face,
        game.threshold,
        game.yahtzee,
        game.placement_code,
        float(game.rules.extra_bonus),
        game.n_flag,
        values,
        index,
        scoring_boxes(values, index),
    )


def scoring_boxes(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Where each final roll scores: ``[r, 0]`` boxes, then a pair for each in box
    order, the box ``c`` and the flat index of its score in ``values``
    (``c * values.shape[1] + index[c, r]``).

    A box "scores" unless the roll takes its least score and that is 0: the
    kernels cover those boxes with one row, the best 0-candidate. Listed once per
    rule set, they spare the final throw a test of every box for every roll
    (Yatzy's final throw 0.26 s to 0.21 s on one thread).
    """
    n_cat, n_rolls = index.shape
    scores = ~((index == 0) & (values[:, :1] == 0))
    out = np.zeros((n_rolls, 1 + 2 * n_cat), dtype=np.int64)
    out[:, 0] = scores.sum(axis=0)
    boxes = np.argsort(~scores, axis=0, kind="stable").T  # scoring boxes first
    out[:, 1::2] = boxes
    out[:, 2::2] = boxes * values.shape[1] + np.take_along_axis(index.T, boxes, axis=1)
    return out


def dice_arrays(game) -> DiceArrays:
    """The dice arrays of compiled rules, with their rerolls a turn."""
    s = game.space
    return DiceArrays(
        s.add, s.sub_rows, s.size_start, s.roll_prob, s.dice, s.faces, game.rules.rolls - 1
    )
