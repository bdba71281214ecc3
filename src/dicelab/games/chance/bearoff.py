"""Backgammon's bear-off: checkers in the home board, borne off with the dice.

Each side's checkers stand on the points 1 to 6 of its home board. A throw of two
dice is played as two moves (four with a double): a checker moves down by the
die, or bears off from the point equal to the die, or from a lower point when no
checker stands higher; every die is played while checkers are left. The first
side with no checkers left wins.

Two sides (``theirs`` given): the value is the chance that the side on roll
(``mine``) wins. One side: the fewest expected throws to bear everything off, and
the distribution of that number (:func:`throws_distribution`), as in the
one-sided databases of backgammon programs.

A side is given by its checkers' points, e.g. ``(5, 2)`` for one checker on the
5-point and one on the 2-point. Positions here hold counts per point, lowest
point first.
"""

from __future__ import annotations

from collections.abc import Hashable

from dicelab.errors import UserError
from dicelab.games.chance.model import CHANCE, ChanceGame, points
from dicelab.games.chance.throws import ROLLS

__all__ = ["BearOff", "ROLLS", "plays"]


def counts(points) -> tuple[int, ...]:
    """Checkers per point (points 1 to 6) from a list of their points."""
    out = [0] * 6
    for p in points:
        if not 1 <= p <= 6:
            raise ValueError(f"point {p}: the points of a home board are 1 to 6")
        out[p - 1] += 1
    return tuple(out)


def plays(side: tuple[int, ...], throw: tuple[int, int]) -> dict[tuple[int, ...], str]:
    """Every distinct result of playing ``throw`` from ``side``, with one way to play it."""
    a, b = throw
    orders = [[a] * 4] if a == b else [[a, b], [b, a]]
    found: dict[tuple[int, ...], str] = {}
    for dice in orders:
        _play(side, dice, [], found)
    return found


def _play(side, dice, steps, found) -> None:
    if not dice or not any(side):
        found.setdefault(side, " ".join(steps) or "no move")
        return
    d = dice[0]
    top = max(p for p in range(6) if side[p]) + 1
    for p in range(1, 7):
        if not side[p - 1]:
            continue
        if p > d:
            after, step = list(side), f"{p}/{p - d}"
            after[p - d - 1] += 1
        elif p in (d, top):
            after, step = list(side), f"{p}/off"
        else:
            continue
        after[p - 1] -= 1
        _play(tuple(after), dice[1:], [*steps, step], found)


class BearOff(ChanceGame):
    """Two sides, or one; a position is ``("roll", seat, mine, theirs)``,
    ``("move", seat, mine, theirs, throw)`` or ``("won", seat)``, with ``mine`` the
    checkers of seat 0."""

    settings = {
        "mine": (points, "the points of the side on roll's checkers, e.g. 6,5,2"),
        "theirs": (points, "the other side's; left out: one side, fewest throws"),
    }
    summary = "backgammon's bear-off; the side on roll's chance to win, or the fewest throws"

    def __init__(self, mine=(6, 5, 4, 3, 2, 1), theirs=None):
        for name, side in (("mine", mine), ("theirs", theirs or (1,))):
            if not side or len(side) > 15 or any(not 1 <= int(p) <= 6 for p in side):
                given = ",".join(map(str, side))
                raise UserError(f"bearoff {name}: got {given!r}, expected 1 to 15 checkers "
                                "on points 1 to 6, e.g. 6,5,2")  # fmt: skip
        self.players = 1 if theirs is None else 2
        self.mine, self.theirs = counts(mine), counts(theirs or ())
        self.name = f"bear-off of {_points(self.mine)}" if theirs is None else (
            f"bear-off race, {_points(self.mine)} against {_points(self.theirs)}")  # fmt: skip
        self.position_help = ("'6 5 2 / 6-3' (your checkers' points, then the throw)"
                              if theirs is None else "'6 5 2 / 4 1 / 6-3' (your checkers' "
                              "points, theirs, then your throw)")  # fmt: skip
        self.objective = "turns" if theirs is None else "win"
        self.measure = ("the fewest expected throws to bear off" if theirs is None
                        else "the chance that the side on roll wins")  # fmt: skip

    def layout(self, exact: bool = False):
        """Every position at once, in arrays: one side alone
        (:mod:`dicelab.games.chance.bearoff_layout`), or two from the side on roll
        (:mod:`dicelab.games.chance.bearoff_race`)."""
        from dicelab.games.chance.bearoff_layout import one_sided_layout
        from dicelab.games.chance.bearoff_race import race_layout

        return one_sided_layout(self, exact) if self.players == 1 else race_layout(self, exact)

    def estimate(self) -> int:
        """At most how many positions the game has (both sides' checkers anywhere
        lower), known before any is laid out."""
        from math import comb

        sides = comb(sum(self.mine) + 6, 6) * comb(sum(self.theirs) + 6, 6)
        return sides * 22 * self.players

    def size(self) -> int | None:
        """How many positions :meth:`layout` lays out; ``None`` where walking from
        the start reaches fewer (two sides of very different sizes)."""
        from math import comb

        from dicelab.games.chance.bearoff_race import race_size

        if self.players == 1:
            return comb(sum(self.mine) + 6, 6) * 22
        race = race_size(max(sum(self.mine), sum(self.theirs)))
        return race if race <= self.estimate() else None

    def race_plays(self):
        """Every side of up to the larger side's checkers and each throw's plays, for
        the table of every pair of sides (:mod:`dicelab.games.chance.bearoff_table`)."""
        from dicelab.games.chance.bearoff_table import race_plays

        return race_plays(max(sum(self.mine), sum(self.theirs)))

    def canonical(self, position) -> Hashable:
        """``position`` as the game writes it (whole numbers, not flags), of sides of
        at most the larger side's checkers; ``KeyError`` where it is no position."""
        most = max(sum(self.mine), sum(self.theirs))

        def side(s):
            ok = isinstance(s, tuple) and len(s) == 6 and all(
                isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in s)  # fmt: skip
            if not ok or sum(s) > most:
                raise KeyError(position)
            return tuple(s)

        try:
            kind, seat = position[0], position[1]
            if kind == "won" and len(position) == 2 and seat in (0, 1) and seat is not True:
                return ("won", int(seat))
            if seat not in (0, 1) or isinstance(seat, bool) or kind not in ("roll", "move"):
                raise KeyError(position)
            a, b = side(position[2]), side(position[3])
            if not any(a) or not any(b):
                raise KeyError(position)
            if kind == "roll" and len(position) == 4:
                return ("roll", seat, a, b)
            x, y = position[4]
            if len(position) == 5 and all(type(d) is int for d in (x, y)) and 1 <= x <= y <= 6:
                return ("move", seat, a, b, (x, y))
        except (TypeError, ValueError, IndexError):
            pass
        raise KeyError(position)

    def start(self) -> Hashable:
        return ("roll", 0, self.mine, self.theirs)

    def to_move(self, position) -> int:
        return CHANCE if position[0] == "roll" else position[1]

    def outcomes(self, position):
        _, seat, a, b = position
        return [(p, f"{x}-{y}", ("move", seat, a, b, (x, y))) for (x, y), p in ROLLS]

    def moves(self, position):
        _, seat, a, b, throw = position
        side = a if seat == 0 else b
        out = []
        for after, label in plays(side, throw).items():
            if not any(after):
                out.append((label, ("won", seat)))
                continue
            na, nb = (after, b) if seat == 0 else (a, after)
            nxt = seat if self.players == 1 else 1 - seat
            out.append((label, ("roll", nxt, na, nb)))
        return out

    def result(self, position):
        if position[0] != "won":
            return None
        return 0.0 if self.players == 1 else (1.0 if position[1] == 0 else 0.0)

    def turn_starts(self, position) -> bool:
        return position[0] == "roll"

    def verdict(self, position) -> str:
        if self.players == 1:
            return "every checker borne off"
        return f"side {position[1] + 1} bore off first"

    def board(self, position) -> dict:
        """What a table shows (the page draws it): each side's checkers on the points
        1 to 6, and the throw to play."""
        if position[0] == "won":
            return {"winner": position[1]}
        sides = [list(position[2])] + ([] if self.players == 1 else [list(position[3])])
        out: dict = {"sides": sides}
        if position[0] == "move":
            out["throw"] = list(position[4])
        return out

    def show(self, position) -> str:
        if position[0] == "won":
            return f"side {position[1] + 1} has borne off"
        mine = _points(position[2])
        text = f"side 1: {mine}" + (
            "" if self.players == 1 else f"; side 2: {_points(position[3])}"
        )
        if position[0] == "move":
            return f"{text}; side {position[1] + 1} threw {position[4][0]}-{position[4][1]}"
        return f"{text}; side {position[1] + 1} to throw"

    def parse(self, text: str) -> Hashable:
        """``"6 5 2 / 4 1 / 6-3"``: side 1's points, side 2's (two sides), the throw."""
        parts = [p.strip() for p in text.split("/")]
        want = self.players + 1
        try:
            sides = [counts(int(w) for w in p.replace(",", " ").split()) for p in parts[:-1]]
            x, y = (int(w) for w in parts[-1].split("-"))
        except ValueError:
            raise UserError(
                f"bearoff position: got {text!r}, expected {self.position_help}"
            ) from None
        if len(parts) != want or not (1 <= x <= 6 and 1 <= y <= 6):
            raise UserError(f"bearoff position: got {text!r}, expected {self.position_help}")
        theirs = sides[1] if self.players == 2 else self.theirs
        return ("move", 0, sides[0], theirs, (min(x, y), max(x, y)))


def _points(side: tuple[int, ...]) -> str:
    return " ".join(str(p + 1) for p in range(5, -1, -1) for _ in range(side[p])) or "none"
