"""The fewest and most points a game can have scored on reaching each state.

A forward pass over the turn-start states (filled boxes, flag, capped upper total)
in the order of their masks: every box a final roll may go in, with each of its
scores there, carries a state's range of points so far to the next state's. The
ends of a range propagate exactly (the points reachable in a state are a union of
shifted copies of those of the states before it), so the ranges are the true
fewest and most, where simple sums of the boxes' best scores overcount: in Yahtzee
a filled Chance holds at least 5 points and a flag set means 50 in the Yahtzee box,
and an extra bonus for an upper box needs that box's five of a kind, which the
upper total may rule out. See :func:`dicelab.engine.objectives.points.scored_range`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicelab.engine.kernels import NO_REFS
from dicelab.engine.kernels.turn import box_rule, next_flag, placements

#: Fewer points than any game scores (a state no game reaches keeps it as its
#: least, and minus it as its most); sums of it and a box's points stay beyond
#: every real total.
UNREACHED = 1 << 40


@njit(cache=True, **NO_REFS)
def carry(m, y, c, pts, least, most, R, lo, hi, nu):
    """State ``(m, y, u)``'s range of points, for every ``u < nu``, moved to the
    state after ``pts`` points in box ``c``: ``least`` more points at its low end and
    ``most`` at its high end (the move's points, with an extra bonus; or the fewest
    and most of several moves that lead to the same states)."""
    y2 = next_flag(c, y, pts, R.yahtzee, R.n_flag)
    m2 = m | (1 << c)
    shift = pts if R.upper[c] and R.threshold > 0 else 0
    # upper totals below the threshold move up by ``shift``, the rest stop at it:
    # two contiguous runs, on views (the compiler then vectorises them)
    n1 = min(max(R.threshold - shift, 0), nu) if shift > 0 else nu
    a_lo, a_hi = lo[m, y, :n1], hi[m, y, :n1]
    b_lo, b_hi = lo[m2, y2, shift : shift + n1], hi[m2, y2, shift : shift + n1]
    for u in range(n1):
        b_lo[u] = min(b_lo[u], a_lo[u] + least)
        b_hi[u] = max(b_hi[u], a_hi[u] + most)
    for u in range(n1, nu):
        lo[m2, y2, R.threshold] = min(lo[m2, y2, R.threshold], lo[m, y, u] + least)
        hi[m2, y2, R.threshold] = max(hi[m2, y2, R.threshold], hi[m, y, u] + most)


@njit(cache=True, **NO_REFS)
def state_moves(m, y, R, ordinary, n_ordinary, moves, lo, hi, nu):
    """Carry state ``(m, y)``'s ranges along every move a final roll scored by the
    rule arrays ``R`` allows: an ordinary roll's boxes with each of the scores an
    ordinary roll makes there (``ordinary[c, :n_ordinary[c]]``), and each
    all-alike roll's placements (the joker rules, the extra bonus).

    A box outside the upper total leads to the same states whatever it scores (but
    for the flag), so only its fewest and most points for each next flag are
    carried: one move rather than one per score (Maxi Yatzy's 57 million states in
    a few seconds)."""
    allowed, _, _, zeroed = box_rule(
        m, y, -1, R.upper, R.upper_box_of_face, R.yahtzee, R.joker, R.extra_bonus
    )
    for c in range(R.upper.shape[0]):
        if (allowed >> c) & 1 == 0:
            continue
        if (zeroed >> c) & 1 == 1:
            carry(m, y, c, 0, 0, 0, R, lo, hi, nu)
            continue
        if R.upper[c] and R.threshold > 0:
            for j in range(n_ordinary[c]):
                p = ordinary[c, j]
                carry(m, y, c, p, p, p, R, lo, hi, nu)
            continue
        for flag in range(R.n_flag):
            found, least, most = False, 0, 0
            for j in range(n_ordinary[c]):
                p = ordinary[c, j]
                if next_flag(c, y, p, R.yahtzee, R.n_flag) == flag:
                    least = min(least, p) if found else p
                    most = max(most, p) if found else p
                    found = True
            if found:
                carry(m, y, c, least, least, most, R, lo, hi, nu)
    for r in R.alike:
        n, extra = placements(m, y, r, R, moves)
        for t in range(n):
            gain = moves[1, t] + int(extra)
            carry(m, y, moves[0, t], moves[1, t], gain, gain, R, lo, hi, nu)


@njit(cache=True)
def scored_range(R, ordinary, SR, served_ordinary, scored_by, extent, lo, hi):
    """Fill ``lo`` and ``hi`` (shape ``(2**boxes, n_flag, n_upper)``, all
    :data:`UNREACHED` and minus it but ``lo[0, 0, 0] = hi[0, 0, 0] = 0``) with the
    fewest and most points so far of every state. ``scored_by`` says how a final
    roll may score: 1 by the rule arrays ``R``, 2 by the served ones ``SR`` (a
    first throw), 3 either (a served bonus, and rerolls to give it up). A mask's upper totals are
    below its ``extent`` (:attr:`~dicelab.rules.compiled.CompiledRules.upper_extent`)."""
    moves = np.empty((3, R.upper.shape[0]), np.int64)
    for m in range(lo.shape[0]):  # a move only ever sets more bits: a larger mask
        for y in range(lo.shape[1]):
            nu = extent[m]
            if hi[m, y, :nu].max() < 0:
                continue
            if scored_by & 1:
                state_moves(m, y, R, ordinary[0], ordinary[1], moves, lo, hi, nu)
            if scored_by & 2:
                state_moves(m, y, SR, served_ordinary[0], served_ordinary[1], moves, lo, hi, nu)
