"""Where a final roll may go: the joker rules and the extra-bonus flag.

Plain Python, so advice can use it without compiling anything; the solvers'
kernels compile these same functions (:mod:`dicelab.solve.kernels`).
"""

from __future__ import annotations

JOKER_NONE = 0
JOKER_FREE = 1
JOKER_FORCED = 2
JOKER_FREE_IF_FIFTY = 3


def box_rule(mask, y, face, upper, upper_box_of_face, yahtzee, joker, extra_bonus):
    """Which boxes a final roll may go in, and how it scores there.

    Returns ``(allowed, joker_active, extra)``: a bit mask of the boxes the roll
    may take, whether boxes score by the joker rule, and the extra all-same bonus
    earned. ``face`` is the all-same roll's face index, or -1 for any other roll.
    """
    n_cat = upper.shape[0]
    open_mask = ((1 << n_cat) - 1) & ~mask
    if face < 0 or yahtzee < 0 or (mask >> yahtzee) & 1 == 0:
        return open_mask, False, 0.0
    extra = extra_bonus if y == 1 else 0.0
    box = upper_box_of_face[face]
    box_open = box >= 0 and (mask >> box) & 1 == 0
    if joker == JOKER_FREE:
        return open_mask, not box_open, extra
    if joker == JOKER_FREE_IF_FIFTY:
        return open_mask, (not box_open) and y == 1, extra
    if joker == JOKER_FORCED:
        if box_open:
            return 1 << box, False, extra
        lower = 0
        for c in range(n_cat):
            if (open_mask >> c) & 1 == 1 and not upper[c]:
                lower |= 1 << c
        if lower != 0:
            return lower, True, extra
        return open_mask, False, extra
    return open_mask, False, extra


def next_flag(c, y, pts, yahtzee, n_flag):
    """The extra-bonus flag after scoring ``pts`` in box ``c``."""
    if c == yahtzee:
        return 1 if (pts > 0 and n_flag == 2) else 0
    return y
