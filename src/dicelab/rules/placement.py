"""Where a final roll may go: the joker rules, the extra-bonus flag, and the boxes
that pay only once another holds points.

Plain Python, so advice can use it without compiling anything; the solvers'
kernels compile these same functions (:mod:`dicelab.engine.kernels.turn`). Every
solver and the advice place a final roll through :func:`placements`: the one place
where the joker, the extra bonus and the flag are applied.

The kernels take one integer for all of it, the *placement code*: the joker mode in
the low two bits, the forced order (:data:`FORCED_ORDER`) and the joker whether or
not the all-alike box is filled (:data:`JOKER_ALWAYS`) in the next two, and above
them the bit mask of the boxes that pay only while the flag box holds points (Doble
Generala). Only all-alike rolls score in such boxes, and all-alike rolls are the ones
every kernel places through :func:`box_rule`.

Forced order is the one rule that also concerns ordinary rolls: the kernels list the
boxes an ordinary roll may go in from :func:`closed_mask`, which under forced order
leaves only the first open box open.
"""

from __future__ import annotations

import numpy as np

JOKER_NONE = 0
JOKER_FREE = 1
JOKER_FORCED = 2
JOKER_FREE_IF_FIFTY = 3


#: The joker mode's bits of a placement code.
JOKER_MODE = 3
#: Each turn fills the first open box in scorecard order (forced Yatzy).
FORCED_ORDER = 4
#: An all-alike roll is a joker whether or not the all-alike box is filled.
JOKER_ALWAYS = 8
JOKER_BITS = 4


def placement_code(joker, requires_mask, forced_order=False, joker_always=False):
    """The placement code of a joker mode, the boxes that need the flag box, the
    forced order and the joker that holds whether or not the all-alike box is filled."""
    flags = (FORCED_ORDER if forced_order else 0) | (JOKER_ALWAYS if joker_always else 0)
    return joker | flags | (requires_mask << JOKER_BITS)


def plain_code(code):
    """Whether all-alike rolls place like any other roll under ``code`` (no joker,
    no box that needs another): the solvers then value them with the rest."""
    return code & ~FORCED_ORDER == JOKER_NONE


def closed_mask(mask, code, n_cat):
    """The boxes a roll may not go in, as the turn's ordinary rolls see them: the
    filled boxes, and under forced order every box but the first open one.

    The kernels list an ordinary roll's boxes from this mask and find the next state
    from the real ``mask``, so forced order changes where rolls go and nothing else.
    """
    if code & FORCED_ORDER == 0:
        return mask
    full = (1 << n_cat) - 1
    free = full & ~mask
    return full & ~(free & -free)


def box_rule(mask, y, face, upper, upper_box_of_face, yahtzee, code, extra_bonus):
    """Which boxes a final roll may go in, and how it scores there.

    Returns ``(allowed, joker_active, extra, zeroed)``: a bit mask of the boxes the
    roll may take, whether boxes score by the joker rule, the extra all-same bonus
    earned, and the boxes where it scores 0 because the box they need does not hold
    points. ``face`` is the all-same roll's face index, or -1 for any other roll;
    ``code`` the placement code (see :func:`placement_code`).

    Under forced order the roll goes in the first open box whatever the joker rule
    says; the joker rule then only says how it scores there: by the joker where the
    rule lets the roll go in that box as a joker, else as any roll.
    """
    allowed, active, extra, zeroed = joker_rule(
        mask, y, face, upper, upper_box_of_face, yahtzee, code, extra_bonus
    )
    if code & FORCED_ORDER == 0:
        return allowed, active, extra, zeroed
    n_cat = upper.shape[0]
    first = ((1 << n_cat) - 1) & ~closed_mask(mask, code, n_cat)
    return first, active and (allowed & first) != 0, extra, zeroed


def joker_rule(mask, y, face, upper, upper_box_of_face, yahtzee, code, extra_bonus):
    """:func:`box_rule` in any order of the boxes: the joker rules alone."""
    n_cat = upper.shape[0]
    open_mask = ((1 << n_cat) - 1) & ~mask
    joker = code & JOKER_MODE
    zeroed = 0 if y == 1 else code >> JOKER_BITS
    if face < 0 or yahtzee < 0:
        return open_mask, False, 0.0, zeroed
    if (mask >> yahtzee) & 1 == 0 and code & JOKER_ALWAYS == 0:
        return open_mask, False, 0.0, zeroed
    extra = extra_bonus if y == 1 else 0.0
    box = upper_box_of_face[face]
    box_open = box >= 0 and (mask >> box) & 1 == 0
    if joker == JOKER_FREE:
        return open_mask, not box_open, extra, zeroed
    if joker == JOKER_FREE_IF_FIFTY:
        return open_mask, (not box_open) and y == 1, extra, zeroed
    if joker == JOKER_FORCED:
        if box_open:
            return 1 << box, False, extra, zeroed
        lower = 0
        for c in range(n_cat):
            if (open_mask >> c) & 1 == 1 and not upper[c]:
                lower |= 1 << c
        if lower != 0:
            return lower, True, extra, zeroed
        return open_mask, False, extra, zeroed
    return open_mask, False, extra, zeroed


def box_points(c, r, active, zeroed, score, joker_score):
    """Points of roll ``r`` in box ``c``, as :func:`box_rule` said it scores."""
    if (zeroed >> c) & 1 == 1:
        return 0
    if active:
        return joker_score[c, r]
    return score[c, r]


def next_flag(c, y, pts, yahtzee, n_flag):
    """The extra-bonus flag after scoring ``pts`` in box ``c``."""
    if c == yahtzee:
        return 1 if (pts > 0 and n_flag == 2) else 0
    return y


def placements(mask, y, r, R, moves):
    """Every box final roll ``r`` may go in, with its points there and the next flag.

    ``R`` holds the rule arrays (:class:`dicelab.engine.kernels.RuleArrays`). Fills
    ``moves[0, :n]`` with the boxes, ``moves[1, :n]`` with the points and
    ``moves[2, :n]`` with the next flag, and returns ``(n, extra)``: ``extra`` is
    the extra all-same bonus the roll earns wherever it goes.
    """
    allowed, active, extra, zeroed = box_rule(
        mask, y, R.roll_face[r], R.upper, R.upper_box_of_face, R.yahtzee, R.joker, R.extra_bonus
    )
    n = 0
    for c in range(R.upper.shape[0]):
        if (allowed >> c) & 1 == 1:
            p = box_points(c, r, active, zeroed, R.score, R.joker_score)
            moves[0, n] = c
            moves[1, n] = p
            moves[2, n] = next_flag(c, y, p, R.yahtzee, R.n_flag)
            n += 1
    return n, extra


def placed(mask, y, r, R):
    """:func:`placements` for plain Python: ``([(box, points, flag), ...], extra)``."""
    moves = np.empty((3, R.upper.shape[0]), dtype=np.int64)
    n, extra = placements(mask, y, r, R, moves)
    return [(int(c), int(p), int(f)) for c, p, f in moves[:, :n].T], extra
