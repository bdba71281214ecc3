"""Shut the Box: throw the dice, shut tiles that add up to the throw, until you cannot.

The tiles 1 to ``tiles`` start open. Each throw of two dice (or one) must be
matched by shutting open tiles whose numbers add up to it; the game ends when a
throw cannot be matched, or every tile is shut. ``score = "shut"`` values the
chance of shutting every tile; ``score = "sum"`` the lowest expected sum of the
tiles left open.

``one_die``: ``never`` (always two dice), ``when-top-shut`` (one die allowed, not
forced, once every tile above 6 is shut: the usual pub rule) or ``always``; with
``dice = 1`` every throw is of one die.

Published figures: with two dice always, the best chance of shutting nine tiles
is 7.1432 % (Bill Butler, durangobill.com, "Shut the Box Analysis"); six tiles
with one die: 145/1944 (The Fiddler, 13 September 2024).

>>> from dicelab.games.chance.solution import solve
>>> solve(ShutTheBox(tiles=6, dice=1)).exact()
Fraction(145, 1944)
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction
from itertools import product

from dicelab.errors import UserError
from dicelab.games.chance.model import CHANCE, FIRST, ChanceGame

__all__ = ["ShutTheBox"]

ONE_DIE = ("never", "when-top-shut", "always")
SCORES = ("shut", "sum")


class ShutTheBox(ChanceGame):
    """One player; a position is ``("roll", open)``, ``("throw", open, dice)``,
    ``("shut", open, total)`` or ``("end", open)``, ``open`` a bit mask of the open
    tiles (bit ``t - 1`` for tile ``t``)."""

    players = 1
    settings = {
        "tiles": (int, "tiles 1 to N (9)"),
        "one_die": (str, "never, when-top-shut or always (when-top-shut)"),
        "dice": (int, "2, or 1 for one die every throw (2)"),
        "score": (str, "shut (the chance of shutting all) or sum (lowest sum left) (shut)"),
    }
    summary = "one player shuts tiles that add up to the throw; the chance of shutting them all"
    position_help = "'1 2 5 9 / 7' (the open tiles, then the throw to match)"

    def __init__(self, tiles: int = 9, one_die: str = "when-top-shut", dice: int = 2,
                 score: str = "shut"):  # fmt: skip
        if not 1 <= tiles <= 12:
            raise UserError(f"shut-the-box tiles: got {tiles}, expected 1 to 12 (two dice "
                            "throw at most 12: a higher tile could never be shut)")  # fmt: skip
        if one_die not in ONE_DIE:
            raise UserError(f"shut-the-box one_die: got {one_die!r}, expected "
                            f"{', '.join(ONE_DIE)}")  # fmt: skip
        if dice not in (1, 2):
            raise UserError(f"shut-the-box dice: got {dice}, expected 1 or 2")
        if score not in SCORES:
            raise UserError(f"shut-the-box score: got {score!r}, expected shut or sum")
        self.tiles, self.one_die, self.dice, self.score = tiles, one_die, dice, score
        self.lower_is_better = score == "sum"
        self.measure = ("the lowest expected sum of the tiles left open" if score == "sum"
                        else "the best chance of shutting every tile")  # fmt: skip
        self.name = f"shut the box, {tiles} tiles"
        self._totals = {n: _totals(n) for n in (1, 2)}
        self._sums: dict[int, dict[int, list[int]]] = {}
        self._total = _mask_sums(tiles)

    def start(self) -> Hashable:
        return ("roll", (1 << self.tiles) - 1)

    def _choose_dice(self, open_: int) -> bool:
        """Whether the player may pick one die or two here."""
        if self.dice == 1 or self.one_die == "never":
            return False
        return self.one_die == "always" or open_ >> 6 == 0

    def to_move(self, position) -> int:
        if position[0] in ("throw",) or (
            position[0] == "roll" and not self._choose_dice(position[1])
        ):
            return CHANCE
        return FIRST

    def moves(self, position):
        if position[0] == "roll":
            return [("two dice", ("throw", position[1], 2)), ("one die", ("throw", position[1], 1))]
        _, open_, total = position
        out = []
        for shut in self._subsets(open_)[total]:
            left = open_ & ~shut
            out.append((_label(shut), ("roll", left) if left else ("end", 0)))
        return out

    def outcomes(self, position):
        open_ = position[1]
        dice = self.dice if position[0] == "roll" else position[2]
        subsets = self._subsets(open_)
        return [(p, str(total), ("shut", open_, total) if total in subsets else ("end", open_))
                for total, p in self._totals[dice].items()]  # fmt: skip

    def _subsets(self, open_: int) -> dict[int, list[int]]:
        """The sets of open tiles by their sum (cached per mask)."""
        found = self._sums.get(open_)
        if found is None:
            found = {}
            sub = open_
            while sub:
                found.setdefault(self._total[sub], []).append(sub)
                sub = (sub - 1) & open_
            self._sums[open_] = found
        return found

    def result(self, position):
        if position[0] != "end":
            return None
        if self.score == "sum":
            return float(self._total[position[1]])
        return 1.0 if position[1] == 0 else 0.0

    def turn_starts(self, position) -> bool:
        return position[0] == "roll"

    def verdict(self, position) -> str:
        left = position[1]
        if not left:
            return "every tile shut"
        tiles = " ".join(str(t + 1) for t in range(self.tiles) if left >> t & 1)
        return f"tiles left open: {tiles} (sum {self._total[left]})"

    def board(self, position) -> dict:
        """What a table shows (the page draws it): each tile, open or shut, and the
        throw to match."""
        out: dict = {"tiles": [{"tile": t + 1, "open": bool(position[1] >> t & 1)}
                               for t in range(self.tiles)]}  # fmt: skip
        if position[0] == "shut":
            out["throw"] = position[2]
        return out

    def show(self, position) -> str:
        tiles = " ".join(str(t + 1) for t in range(self.tiles) if position[1] >> t & 1)
        what = {"roll": "to throw", "throw": "the dice are thrown", "end": "the game is over"}
        if position[0] == "shut":
            return f"open {tiles}, threw {position[2]}: tiles to shut"
        if position[0] == "end":
            return f"the game is over: {self.verdict(position)}"
        return f"open {tiles}, {what[position[0]]}"

    def parse(self, text: str) -> Hashable:
        """``"1 2 5 9 / 7"``: the open tiles, and the throw to match after a slash."""
        left, _, total = text.partition("/")
        try:
            tiles = [int(w) for w in left.replace(",", " ").split()]
            throw = int(total) if total.strip() else None
        except ValueError:
            raise UserError(f"shut-the-box position: got {text!r}, expected the open tiles "
                            "and the throw, e.g. '1 2 5 9 / 7'") from None  # fmt: skip
        if any(not 1 <= t <= self.tiles for t in tiles):
            raise UserError(f"shut-the-box position: tiles are 1 to {self.tiles}")
        open_ = sum(1 << (t - 1) for t in set(tiles))
        highest = 6 * self.dice if self.one_die == "never" or self.dice == 1 else 12
        if throw is not None and not 1 <= throw <= highest:
            raise UserError(f"shut-the-box position: the throw {throw} cannot come; "
                            f"throws are 1 to {highest}")  # fmt: skip
        return ("roll", open_) if throw is None else ("shut", open_, throw)


def _mask_sums(tiles: int) -> list[int]:
    """The sum of the tiles of every mask, each from the mask without its lowest tile."""
    sums = [0] * (1 << tiles)
    for mask in range(1, 1 << tiles):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + low.bit_length()
    return sums


def _label(mask: int) -> str:
    return "shut " + " ".join(str(t + 1) for t in range(mask.bit_length()) if mask >> t & 1)


def _totals(dice: int) -> dict[int, Fraction]:
    """The chance of each total of ``dice`` six-sided dice."""
    out: dict[int, Fraction] = {}
    for throw in product(range(1, 7), repeat=dice):
        out[sum(throw)] = out.get(sum(throw), Fraction(0)) + Fraction(1, 6**dice)
    return out
