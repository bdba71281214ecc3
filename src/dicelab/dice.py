"""Dice as multisets: rolls, keeps, their probabilities and transitions.

The order of dice never matters in the games dicelab solves, so a set of dice is
stored as a vector of face counts. A *keep* is any multiset of at most ``dice``
dice; a *roll* is a keep of exactly ``dice`` dice. Everything the solvers need is
precomputed once per ``(dice, faces)`` as integer index arrays:

* ``add[k, f]``: the keep ``k`` with one more die showing face ``f``;
* ``sub[k, f]``: the keep ``k`` with one die of face ``f`` removed (``-1`` if none);
* ``roll_prob[r]``: the chance of roll ``r`` when all dice are thrown.

With these, the value of a keep is the average over one more die of the values of
the larger keeps ("fix one die at a time"), and the best keep inside a roll is the
best of its sub-keeps with one die fewer: both cost ``keeps x faces`` operations
instead of a sum over every reroll outcome. Ordered dice are never enumerated.

Faces are numbered from 1 in everything a user sees; inside the arrays face ``f``
sits at position ``f - 1``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement, product
from math import comb, factorial
from numbers import Integral
from typing import TYPE_CHECKING

from dicelab.errors import UserError

if TYPE_CHECKING:  # NumPy is imported where a dice space is built, not by the rules
    import numpy as np

MAX_DICE = 12
MAX_FACES = 20
#: Most keeps (sub-multisets of the dice) a dice space may have: listing the keeps
#: and their one-die moves takes about a second at this size (8 dice of 10 faces).
MAX_KEEPS = 50_000
#: Sub-keep rows a best-keep kernel compares in one pass (see ``DiceSpace.sub_rows``).
SUB_GROUP = 3


class DiceSpace:
    """All keeps and rolls of ``dice`` dice with ``faces`` faces.

    Parameters
    ----------
    dice : int
        Number of dice thrown in a full roll.
    faces : int
        Number of faces of each die, showing 1 to ``faces``.

    Attributes
    ----------
    counts : ndarray, shape (n_keeps, faces)
        Face counts of every keep; keeps are ordered by size, then by their
        sorted faces, so index 0 is the empty keep.
    size_start : ndarray, shape (dice + 2,)
        Keeps of size ``j`` occupy indices ``size_start[j]:size_start[j + 1]``.
    rolls : ndarray
        Keep indices of the full rolls (the last block).
    add, sub : ndarray, shape (n_keeps, faces)
        One-die transitions, ``-1`` where the move is impossible.
    sub_rows : ndarray, shape (n_keeps, 3 * m)
        The sub-keeps of each keep (``sub`` without the ``-1``), in face order,
        padded with the keep itself to a multiple of :data:`SUB_GROUP`: a kernel
        takes their maximum a fixed group of rows at a time, in registers.
    roll_prob : ndarray, shape (n_rolls,)
        Probability of each full roll when every die is thrown.
    """

    def __init__(self, dice: int = 5, faces: int = 6) -> None:
        import numpy as np

        if not 1 <= dice <= MAX_DICE:
            raise UserError(f"dice: got {dice}, expected a number from 1 to {MAX_DICE}")
        if not 2 <= faces <= MAX_FACES:
            raise UserError(f"faces: got {faces}, expected a number from 2 to {MAX_FACES}")
        check_keeps(dice, faces)
        self.dice = dice
        self.faces = faces
        keeps: list[tuple[int, ...]] = []
        starts = [0]
        for size in range(dice + 1):
            for combo in combinations_with_replacement(range(faces), size):
                c = [0] * faces
                for f in combo:
                    c[f] += 1
                keeps.append(tuple(c))
            starts.append(len(keeps))
        self.counts = np.array(keeps, dtype=np.int64).reshape(len(keeps), faces)
        self.size_start = np.array(starts, dtype=np.int64)
        self._index = {k: i for i, k in enumerate(keeps)}
        self._sub_keeps: dict[int, list[int]] = {}
        n = len(keeps)
        self.add = np.full((n, faces), -1, dtype=np.int64)
        self.sub = np.full((n, faces), -1, dtype=np.int64)
        for i, k in enumerate(keeps):
            for f in range(faces):
                if sum(k) < dice:
                    up = list(k)
                    up[f] += 1
                    self.add[i, f] = self._index[tuple(up)]
                if k[f] > 0:
                    down = list(k)
                    down[f] -= 1
                    self.sub[i, f] = self._index[tuple(down)]
        self.sub_rows = padded_rows(self.sub, SUB_GROUP)
        self.rolls = np.arange(starts[dice], starts[dice + 1], dtype=np.int64)
        self.roll_prob = np.array(
            [multinomial(keeps[r]) / faces**dice for r in self.rolls], dtype=np.float64
        )

    # -- sizes -----------------------------------------------------------------
    @property
    def n_keeps(self) -> int:
        """Number of keeps, from the empty one to the full rolls."""
        return len(self.counts)

    @property
    def n_rolls(self) -> int:
        """Number of distinct full rolls."""
        return len(self.rolls)

    # -- conversions -------------------------------------------------------------
    def index(self, dice: list[int] | tuple[int, ...]) -> int:
        """Keep index of a list of faces (1-based), in any order."""
        c = [0] * self.faces
        for d in dice:
            if not isinstance(d, Integral) or not 1 <= d <= self.faces:
                raise UserError(f"die {d!r}: expected a face from 1 to {self.faces}")
            c[int(d) - 1] += 1
        if sum(c) > self.dice:
            raise UserError(f"{len(dice)} dice given, the rules have {self.dice}")
        return self._index[tuple(c)]

    def roll_index(self, dice: list[int] | tuple[int, ...]) -> int:
        """Position of a full roll in :attr:`rolls` (0 to ``n_rolls - 1``)."""
        if len(dice) != self.dice:
            raise UserError(f"{len(dice)} dice given, expected exactly {self.dice}")
        return self.index(dice) - int(self.size_start[self.dice])

    def faces_of(self, keep: int) -> tuple[int, ...]:
        """Sorted faces (1-based) of a keep index."""
        return tuple(f + 1 for f in range(self.faces) for _ in range(self.counts[keep, f]))

    def size(self, keep: int) -> int:
        """Number of dice in a keep."""
        return int(self.counts[keep].sum())

    # -- probabilities -----------------------------------------------------------
    def reroll_outcomes(self, keep: int) -> dict[int, Fraction]:
        """Exact distribution of the full roll reached by rerolling all but ``keep``.

        Returns a mapping from roll keep-index to its probability.
        """
        free = self.dice - self.size(keep)
        base = self.counts[keep]
        out: dict[int, Fraction] = {}
        start = int(self.size_start[free])
        for j in range(start, int(self.size_start[free + 1])):
            c = self.counts[j]
            idx = self._index[tuple(int(x) for x in base + c)]
            out[idx] = Fraction(multinomial(tuple(int(x) for x in c)), self.faces**free)
        return out

    def sub_keeps(self, roll: int) -> list[int]:
        """Every distinct keep inside a set of dice, in index order (cached)."""
        found = self._sub_keeps.get(roll)
        if found is None:
            counts = [int(x) for x in self.counts[roll]]
            found = sorted(self._index[take] for take in product(*(range(n + 1) for n in counts)))
            self._sub_keeps[roll] = found
        return list(found)


def padded_rows(sub: np.ndarray, group: int) -> np.ndarray:
    """Each row's entries other than -1, padded with the row's own index to a
    multiple of ``group`` columns (at least one group)."""
    import numpy as np

    real = [[int(s) for s in row if s >= 0] for row in sub]
    width = max(1, max(len(r) for r in real))
    width = -(-width // group) * group
    out = np.empty((sub.shape[0], width), dtype=np.int64)
    for k, r in enumerate(real):
        out[k] = r + [k] * (width - len(r))
    return out


def multinomial(counts: tuple[int, ...]) -> int:
    """Number of ordered dice sequences giving these face counts."""
    total = factorial(sum(counts))
    for c in counts:
        total //= factorial(c)
    return total


def n_keeps(dice: int, faces: int) -> int:
    """Keeps of ``dice`` dice with ``faces`` faces, the empty one and full rolls included."""
    return comb(dice + faces, faces)


#: Keeps of the dice whose turn the solvers' kernels write out, every row a constant
#: of the code (:mod:`dicelab.engine.kernels.unrolled`): five or six six-sided dice
#: (462, 924). Fewer keeps solve in less time than a compile for their dice takes
#: (three six-sided dice have 84); more make the code too long (five eight-sided
#: dice: 1287).
WRITTEN_OUT_KEEPS = (100, 1000)


def turn_written_out(dice: int, faces: int) -> bool:
    """Whether the kernels write the turn of these dice out (:data:`WRITTEN_OUT_KEEPS`)."""
    fewest, most = WRITTEN_OUT_KEEPS
    return fewest <= n_keeps(dice, faces) <= most


def check_keeps(dice: int, faces: int, name: str = "dice") -> None:
    """Refuse dice whose keeps are too many to list, before anything is built."""
    keeps = n_keeps(dice, faces)
    if keeps > MAX_KEEPS:
        raise UserError(
            f"{name}: {dice} dice with {faces} faces make {keeps:,} distinct keeps, more "
            f"than the {MAX_KEEPS:,} a turn can be solved with; use fewer dice or faces"
        )


def n_multisets(dice: int, faces: int) -> int:
    """Number of distinct rolls of ``dice`` dice with ``faces`` faces."""
    return comb(dice + faces - 1, dice)


@lru_cache(maxsize=16)
def dice_space(dice: int = 5, faces: int = 6) -> DiceSpace:
    """Shared, cached :class:`DiceSpace` for a number of dice and faces."""
    return DiceSpace(dice, faces)


def parse_dice(tokens: Sequence[str], faces: int) -> list[int]:
    """Dice typed as ``3 3 6 5 6``, ``3,3,6,5,6`` or (faces up to 9) ``33656``."""
    out: list[int] = []
    for token in tokens:
        for part in re.split(r"[,\s]+", str(token).strip()):
            if not part:
                continue
            if not (part.isascii() and part.isdigit()):  # not "²": int() refuses it
                raise UserError(f"dice: {part!r} is not a number")
            if faces <= 9 and len(part) > 1:
                out.extend(int(ch) for ch in part)
            else:
                out.append(int(part))
    for d in out:
        if not 1 <= d <= faces:
            raise UserError(f"dice: {d} is not a face of these dice (1 to {faces})")
    return out
