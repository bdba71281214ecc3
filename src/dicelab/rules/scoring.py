"""Scoring primitives: what a set of dice is worth in a category.

Every category of every rule set is one of a handful of patterns, each scored in
one of three ways. The functions here work on face-count vectors (``counts[f - 1]``
is the number of dice showing ``f``) and know nothing about rules files, so they
can serve the solvers, the hindsight assignment and the tests alike.

Patterns
--------
face(f)
    the dice showing ``f``; always scores their sum.
total
    every roll qualifies (Chance).
groups(sizes, distinct)
    disjoint groups of equal dice of the given sizes: ``(3,)`` is three of a kind,
    ``(2, 2)`` two pairs, ``(3, 2)`` a full house. With ``distinct`` the groups
    must show different faces; without it, one face may fill several groups (five
    of a kind is then a full house, four of a kind two pairs).
run(length)
    ``length`` consecutive faces anywhere among the dice.
sets(faces...)
    the dice contain one of the listed sets of faces (a fixed straight).

Scores
------
an integer
    fixed points when the pattern is met;
``"all"``
    the sum of all dice when the pattern is met;
``"matching"``
    the sum of the dice that make the pattern (the best choice where several do).
"""

from __future__ import annotations

from collections.abc import Sequence

Counts = Sequence[int]


def dice_sum(counts: Counts) -> int:
    """Sum of all dice."""
    return sum((f + 1) * c for f, c in enumerate(counts))


def face_score(counts: Counts, face: int) -> int:
    """Sum of the dice showing ``face`` (1-based)."""
    return face * counts[face - 1]


def best_groups(counts: Counts, sizes: Sequence[int], distinct: bool) -> int:
    """Best sum of dice forming the groups, or ``-1`` if no choice forms them.

    Groups are placed largest first; the value of a placement is the sum of the
    dice it uses, so "matching" scores take the highest one.
    """
    order = sorted(sizes, reverse=True)
    left = list(counts)
    used = [False] * len(left)

    def place(g: int) -> int:
        if g == len(order):
            return 0
        best = -1
        need = order[g]
        for f in range(len(left) - 1, -1, -1):
            if left[f] >= need and not (distinct and used[f]):
                left[f] -= need
                was = used[f]
                used[f] = True
                rest = place(g + 1)
                used[f] = was
                left[f] += need
                if rest >= 0:
                    best = max(best, rest + need * (f + 1))
        return best

    return place(0)


def best_run(counts: Counts, length: int) -> int:
    """Best sum of ``length`` consecutive faces present, or ``-1`` if none."""
    best = -1
    for lo in range(len(counts) - length + 1):
        if all(counts[f] > 0 for f in range(lo, lo + length)):
            best = max(best, sum(f + 1 for f in range(lo, lo + length)))
    return best


def best_set(counts: Counts, face_sets: Sequence[Sequence[int]]) -> int:
    """Best sum of one of the fixed face sets contained in the dice, or ``-1``."""
    best = -1
    for s in face_sets:
        need = [0] * len(counts)
        for face in s:
            need[face - 1] += 1
        if all(c >= n for c, n in zip(counts, need, strict=True)):
            best = max(best, sum(s))
    return best


def apply_score(matched: int, counts: Counts, score: int | str) -> int:
    """Turn a pattern's matching sum (``-1`` for no match) into points."""
    if matched < 0:
        return 0
    if score == "all":
        return dice_sum(counts)
    if score == "matching":
        return matched
    return int(score)
