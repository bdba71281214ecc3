"""Shut the Box: throw the dice, shut tiles that add up to the throw, until you cannot.

The tiles 1 to ``tiles`` start open. Each throw of two dice (or one) must be
matched by shutting open tiles; the game ends when a throw cannot be matched, or
every tile is shut. House rules, each a setting:

- ``shut``, which tiles a throw may shut: ``any`` set of open tiles adding up to
  it (the usual rule), at most ``two`` tiles adding up to it, or the ``dice`` as
  units (the tile of each die, two different open tiles, or the one tile of their
  sum);
- ``one_die``, when a single die may be thrown instead of two: ``never``,
  ``when-top-shut`` (once every tile above 6 is shut: the usual pub rule),
  ``when-sum-6`` (once the open tiles add up to 6 or less) or ``always``; with
  ``one_die_must = true`` it must be thrown then; with ``dice = 1`` every throw is
  of one die;
- ``score``: ``shut`` values the chance of shutting every tile; ``sum`` the lowest
  expected sum of the tiles left open; ``digits`` the lowest expected number the
  open tiles spell, read as digits in order (1, 4 and 7 left: 147); with
  ``worst = true`` the player plays as badly as the game allows instead.

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
from dicelab.games.chance.model import CHANCE, FIRST, ChanceGame, flag

__all__ = ["ShutTheBox"]

ONE_DIE = ("never", "when-top-shut", "when-sum-6", "always")
SCORES = ("shut", "sum", "digits")
SHUT = ("any", "two", "dice")


class ShutTheBox(ChanceGame):
    """One player; a position is ``("roll", open)``, ``("throw", open, dice)``,
    ``("shut", open, total)`` or ``("end", open)``, ``open`` a bit mask of the open
    tiles (bit ``t - 1`` for tile ``t``)."""

    players = 1
    settings = {
        "tiles": (int, "tiles 1 to N (9)"),
        "shut": (
            str,
            "which tiles a throw shuts: any (set adding up to it), two (at most "
            "two tiles) or dice (the tile of each die, or of their sum) (any)",
        ),
        "one_die": (
            str,
            "when one die may be thrown: never, when-top-shut (tiles above 6 "
            "shut), when-sum-6 (open tiles add up to 6 or less) or always "
            "(when-top-shut)",
        ),
        "one_die_must": (flag, "one die must be thrown when one_die allows it (false)"),
        "dice": (int, "2, or 1 for one die every throw (2)"),
        "score": (
            str,
            "shut (the chance of shutting all), sum (lowest sum left) or digits "
            "(lowest number the open tiles spell) (shut)",
        ),
        "worst": (
            flag,
            "the worst play instead of the best: the least chance of shutting "
            "all, the highest sum or number left (false)",
        ),
    }
    summary = "one player shuts tiles that add up to the throw; the chance of shutting them all"
    position_help = "'1 2 5 9 / 7' (the open tiles, then the throw to match)"

    def __init__(self, tiles: int = 9, one_die: str = "when-top-shut", dice: int = 2,
                 score: str = "shut", shut: str = "any", one_die_must: bool = False,
                 worst: bool = False):  # fmt: skip
        if not 1 <= tiles <= 12:
            raise UserError(f"shut-the-box tiles: got {tiles}, expected 1 to 12 (two dice "
                            "throw at most 12: a higher tile could never be shut)")  # fmt: skip
        for key, value, allowed in (("one_die", one_die, ONE_DIE), ("score", score, SCORES),
                                    ("shut", shut, SHUT)):  # fmt: skip
            if value not in allowed:
                raise UserError(f"shut-the-box {key}: got {value!r}, expected "
                                f"{', '.join(allowed)}")  # fmt: skip
        if dice not in (1, 2):
            raise UserError(f"shut-the-box dice: got {dice}, expected 1 or 2")
        if score == "digits" and tiles > 9:
            raise UserError(f"shut-the-box score: digits needs tiles of one digit, 1 to 9; "
                            f"got {tiles} tiles")  # fmt: skip
        self.tiles, self.one_die, self.dice, self.score = tiles, one_die, dice, score
        self.shut, self.one_die_must, self.worst = shut, bool(one_die_must), bool(worst)
        self.lower_is_better = (score != "shut") != self.worst
        self.measure = {"sum": "the lowest expected sum of the tiles left open",
                        "digits": "the lowest expected number the open tiles spell",
                        "shut": "the best chance of shutting every tile"}[score]  # fmt: skip
        if self.worst:
            self.measure = self.measure.replace("lowest", "highest").replace("best", "least")
            self.measure += ", playing worst"
        self.name = f"shut the box, {tiles} tiles"
        self._throws = {n: _throws(n, by_die=shut == "dice") for n in (1, 2)}
        self._sums: dict[int, dict[int, list[int]]] = {}
        self._total = _mask_sums(tiles)

    def start(self) -> Hashable:
        return ("roll", (1 << self.tiles) - 1)

    def _one_die_allowed(self, open_: int) -> bool:
        """Whether one die may (or, with ``one_die_must``, must) be thrown here."""
        if self.dice == 1 or self.one_die == "never":
            return False
        if self.one_die == "when-top-shut":
            return open_ >> 6 == 0
        return self.one_die == "always" or self._total[open_] <= 6

    def _dice_here(self, open_: int) -> int:
        """How many dice the next throw is of, where the player has no choice."""
        return 1 if self.dice == 1 or self._one_die_allowed(open_) else 2

    def _choose_dice(self, open_: int) -> bool:
        """Whether the player may pick one die or two here."""
        return not self.one_die_must and self.dice == 2 and self._one_die_allowed(open_)

    def to_move(self, position) -> int:
        if position[0] in ("throw",) or (
            position[0] == "roll" and not self._choose_dice(position[1])
        ):
            return CHANCE
        return FIRST

    def moves(self, position):
        if position[0] == "roll":
            return [("two dice", ("throw", position[1], 2)), ("one die", ("throw", position[1], 1))]
        _, open_, throw = position
        out = []
        for shut in self._shuts(open_, throw):
            left = open_ & ~shut
            out.append((_label(shut), ("roll", left) if left else ("end", 0)))
        return out

    def _shuts(self, open_: int, throw) -> list[int]:
        """The sets of open tiles (masks) that ``throw`` may shut: a total, or with
        ``shut = "dice"`` the dice themselves (a sorted tuple)."""
        if self.shut == "dice":
            out = []
            total = sum(throw)
            if total <= self.tiles and open_ >> (total - 1) & 1:
                out.append(1 << (total - 1))
            if len(throw) == 2 and throw[0] != throw[1]:
                both = (1 << (throw[0] - 1)) | (1 << (throw[1] - 1))
                if open_ & both == both:
                    out.append(both)
            return out
        found = self._subsets(open_).get(throw, [])
        if self.shut == "two":
            found = [m for m in found if m.bit_count() <= 2]
        return found

    def outcomes(self, position):
        open_ = position[1]
        dice = self._dice_here(open_) if position[0] == "roll" else position[2]
        return [(p, _throw_label(throw),
                 ("shut", open_, throw) if self._shuts(open_, throw) else ("end", open_))
                for throw, p in self._throws[dice].items()]  # fmt: skip

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
        if self.score == "digits":
            left = position[1]
            return float(sum((t + 1) * 10 ** (bin(left >> (t + 1)).count("1"))
                             for t in range(self.tiles) if left >> t & 1))  # fmt: skip
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
            throw = position[2]
            out["throw"] = sum(throw) if isinstance(throw, tuple) else throw
            if isinstance(throw, tuple):
                out["dice"] = list(throw)
        return out

    def show(self, position) -> str:
        tiles = " ".join(str(t + 1) for t in range(self.tiles) if position[1] >> t & 1)
        what = {"roll": "to throw", "throw": "the dice are thrown", "end": "the game is over"}
        if position[0] == "shut":
            return f"open {tiles}, threw {_throw_label(position[2])}: tiles to shut"
        if position[0] == "end":
            return f"the game is over: {self.verdict(position)}"
        return f"open {tiles}, {what[position[0]]}"

    def parse(self, text: str) -> Hashable:
        """``"1 2 5 9 / 7"``: the open tiles, and the throw to match after a slash."""
        left, _, total = text.partition("/")
        example = "'1 2 5 9 / 3-4'" if self.shut == "dice" else "'1 2 5 9 / 7'"
        try:
            tiles = [int(w) for w in left.replace(",", " ").split()]
            dice = [int(w) for w in total.replace("-", " ").split()]
        except ValueError:
            raise UserError(f"shut-the-box position: got {text!r}, expected the open tiles "
                            f"and the throw, e.g. {example}") from None  # fmt: skip
        if any(not 1 <= t <= self.tiles for t in tiles):
            raise UserError(f"shut-the-box position: tiles are 1 to {self.tiles}")
        open_ = sum(1 << (t - 1) for t in set(tiles))
        if not dice:
            return ("roll", open_)
        if self.shut == "dice":
            if len(dice) > 2 or not all(1 <= d <= 6 for d in dice):
                raise UserError(f"shut-the-box position: got the throw {total.strip()!r}, "
                                "expected one or two dice of 1 to 6, e.g. 3-4")  # fmt: skip
            return ("shut", open_, tuple(sorted(dice)))
        highest = 6 * self.dice if self.one_die == "never" or self.dice == 1 else 12
        if len(dice) != 1 or not 1 <= dice[0] <= highest:
            raise UserError(f"shut-the-box position: the throw {total.strip()} cannot come; "
                            f"throws are 1 to {highest}")  # fmt: skip
        return ("shut", open_, dice[0])


def _mask_sums(tiles: int) -> list[int]:
    """The sum of the tiles of every mask, each from the mask without its lowest tile."""
    sums = [0] * (1 << tiles)
    for mask in range(1, 1 << tiles):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + low.bit_length()
    return sums


def _label(mask: int) -> str:
    return "shut " + " ".join(str(t + 1) for t in range(mask.bit_length()) if mask >> t & 1)


def _throws(dice: int, by_die: bool = False) -> dict:
    """The chance of each total of ``dice`` six-sided dice, or (``by_die``) of each
    throw as its sorted dice."""
    out: dict = {}
    for throw in product(range(1, 7), repeat=dice):
        key = tuple(sorted(throw)) if by_die else sum(throw)
        out[key] = out.get(key, Fraction(0)) + Fraction(1, 6**dice)
    return out


def _throw_label(throw) -> str:
    """A throw as said: its total, or its dice (``"3-5"``)."""
    return "-".join(map(str, throw)) if isinstance(throw, tuple) else str(throw)
