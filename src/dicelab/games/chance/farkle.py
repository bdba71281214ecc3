"""Farkle: throw six dice, set aside what scores, and press on or bank, until a farkle.

A turn starts with a throw of all the dice. Each throw must score, or the turn
ends with nothing (a *farkle*: the turn total is lost). After a throw that
scores, the player sets aside a scoring part of it (every die set aside must
count), adds its points to the turn total, and then banks the turn total or
throws the dice left; when every die has been set aside (*hot dice*) all of
them are thrown again.

Scoring (points in multiples of 50), as in the Facebook game: a 1 is 100, a 5 is
50; three of a kind 100 times the face, three 1s 1000; each die past three of a
kind adds the three's points once more (``kinds = "add"``: four 1s 2000, five 1s
3000, four 6s 1200, five 6s 1800, six 6s 2400; ``kinds = "double"`` doubles it
instead: four 2s 400, five 800, six 1600); three different pairs 750 (four of a
kind and a pair are not three pairs) and the straight 1-2-3-4-5-6 1500, each
thrown at once with six dice (0 turns them off).
The table is that of a published analysis of a single turn (the Farkle post of
rmckenna21.blogspot.com), whose expected values this model meets to the last
digit given; it agrees with the Facebook game as described in "Playing Farkle on
Facebook" (judebert.com, 2009: 1000 for three 1s, 750 for three pairs, 1500 for
the straight).

Two players (``players = 2``): the first to ``goal`` wins, a turn total that
reaches it at once (as in Pig); the value is the first player's chance to win.
Not modelled: the three-farkle penalty of the Facebook game (-500 after three
farkles in a row), the other players' last turn of the table game. One player
(``players = 1``): ``play = "turn"`` is one turn alone, its best expected score
(a turn total reaching ``goal`` is banked at once); ``play = "goal"`` is turns
until the score reaches ``goal``, solved for the fewest expected turns.

Positions repeat (a farkle passes the dice with the scores as they were), which
the solver handles. A throw is a position only through what it offers: for each
count of dice set aside, the most points it can score (a throw's other choices
are worth less for the same dice left), so throws that offer the same are one
position.

>>> from dicelab.games.chance.solution import solve
>>> round(solve(Farkle(players=1)).value(), 4)  # one turn's best expected score
548.8576
>>> farkle_chance(6)  # six dice score nothing once in 43.2 throws
Fraction(5, 216)
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement, product
from math import factorial, prod
from typing import Any

from dicelab.errors import UserError
from dicelab.games.chance.model import CHANCE, ChanceGame, flag

__all__ = ["Farkle", "Scoring", "farkle_chance", "offers", "throws"]

UNIT = 50  # every score is a multiple of 50 points; positions count in these units
KINDS = ("add", "double", "fixed")
PLAYS = ("turn", "goal")


class Scoring:
    """The scoring table, in units of 50 points: what a set of dice kept is worth.

    Each combination is a setting (points; 0 where the combination does not score):
    a single 1 (``ones``) and 5 (``fives``); three of a kind (100 times the face,
    ``three_ones`` for 1s) and more of a kind by ``kinds``: each die past three adds
    the three's points (``add``), doubles them (``double``), or four, five and six
    of a kind score ``four_kind``, ``five_kind`` and ``six_kind`` whatever the face
    (``fixed``); thrown at once with six dice, ``three_pairs`` (three different
    pairs), ``two_triples``, ``four_and_pair`` and the ``straight`` 1-2-3-4-5-6.
    """

    #: Each combination's points as a setting, with its usual value.
    POINTS = {"three_ones": 1000, "three_pairs": 750, "straight": 1500, "ones": 100,
              "fives": 50, "four_kind": 1000, "five_kind": 2000, "six_kind": 3000,
              "two_triples": 0, "four_and_pair": 0}  # fmt: skip

    def __init__(self, three_ones=1000, three_pairs=750, straight=1500, kinds="add",
                 **points: int):  # fmt: skip
        unknown = set(points) - set(self.POINTS)
        if unknown:
            raise TypeError(f"no combination {sorted(unknown)[0]!r}")
        given = {**self.POINTS, **points, "three_ones": three_ones,
                 "three_pairs": three_pairs, "straight": straight}  # fmt: skip
        for name, value in given.items():
            if value < 0 or value % UNIT or value > 100_000:
                raise UserError(f"farkle {name}: got {value}, expected a multiple of 50 "
                                "from 0 to 100000")  # fmt: skip
        if kinds not in KINDS:
            raise UserError(f"farkle kinds: got {kinds!r}, expected {', '.join(KINDS)}")
        unit = {name: value // UNIT for name, value in given.items()}
        self.triple = [0, unit["three_ones"], 4, 6, 8, 10, 12]  # by face; 1s as set
        self.pairs, self.run, self.kinds = unit["three_pairs"], unit["straight"], kinds
        self.single = {1: unit["ones"], 5: unit["fives"]}
        self.fixed = {4: unit["four_kind"], 5: unit["five_kind"], 6: unit["six_kind"]}
        self.triples, self.four_pair = unit["two_triples"], unit["four_and_pair"]
        self.key = (three_ones, three_pairs, straight, kinds,
                    *(given[name] for name in list(self.POINTS)[3:]))  # fmt: skip

    def kind(self, face: int, m: int) -> int:
        """``m`` (three or more) of ``face``."""
        if self.kinds == "fixed" and m > 3:
            return self.fixed[m]
        times = 2 ** (m - 3) if self.kinds == "double" else m - 2
        return self.triple[face] * times

    def six_at_once(self, counts: tuple[int, ...]) -> int:
        """The most a throw of six dice scores as one combination of all six."""
        kept = sorted(c for c in counts if c)
        best = self.run if self.run and kept == [1] * 6 else 0
        if self.pairs and kept == [2, 2, 2]:
            best = max(best, self.pairs)
        if self.triples and kept == [3, 3]:
            best = max(best, self.triples)
        if self.four_pair and kept == [2, 4]:
            best = max(best, self.four_pair)
        return best

    def value(self, counts: tuple[int, ...]) -> int:
        """The points (units) of keeping exactly ``counts[f - 1]`` dice of each face
        ``f``; 0 where some die kept would not count."""
        best = self.six_at_once(counts) if sum(counts) == 6 else 0
        total = 0
        for face, c in enumerate(counts, 1):
            single = self.single.get(face, 0)
            ways = [c * single] if single or c == 0 else []
            ways += [self.kind(face, m) + (c - m) * single for m in range(3, c + 1)
                     if (single or m == c) and self.kind(face, m)]  # fmt: skip
            if c == 6 and self.kind(face, 3):  # six alike, also as two threes
                ways.append(2 * self.kind(face, 3))
            if not ways:
                return best
            total += max(ways)
        return max(best, total)


def throws(n: int) -> list[tuple[Fraction, tuple[int, ...]]]:
    """The throws of ``n`` dice as counts per face, each with its chance."""
    out = []
    for faces in combinations_with_replacement(range(1, 7), n):
        counts = tuple(faces.count(f) for f in range(1, 7))
        ways = factorial(n) // prod(factorial(c) for c in counts)
        out.append((Fraction(ways, 6**n), counts))
    return out


def offers(scoring: Scoring, counts: tuple[int, ...]) -> tuple[int, ...]:
    """What a throw offers: for ``k`` = 1 to the dice thrown, the most points (units)
    of ``k`` dice set aside from it (0: no ``k`` of them score together)."""
    n = sum(counts)
    best = [0] * n
    for kept in product(*(range(c + 1) for c in counts)):
        k = sum(kept)
        if k:
            best[k - 1] = max(best[k - 1], scoring.value(kept))
    return tuple(best)


def _dice(counts: tuple[int, ...]) -> str:
    return " ".join(str(f) for f, c in enumerate(counts, 1) for _ in range(c))


class Farkle(ChanceGame):
    """Farkle; positions (scores and totals in units of 50, seat 0 alone for one
    player): ``("roll", seat, a, b, t, n)`` (``n`` dice to throw, turn total ``t``,
    scores ``a`` of seat 0 and ``b`` of seat 1), ``("keep", seat, a, b, t, offer)``
    after a throw that scores (``offer``: :func:`offers`), and the ends ``("won",
    seat)``, ``("end", points)`` (one turn) or ``("done",)`` (the goal reached)."""

    settings = {
        "goal": (int, "the score that wins, a multiple of 50 (two players 10000; one turn: "
                      "a turn total banked at once, 20000)"),
        "players": (int, "1 (one player, by default one turn), or 2 to 6 each playing to "
                         "finish first (1)"),
        "play": (str, "one player: turn (one turn's best expected score) or goal (the "
                      "fewest expected turns to the goal) (turn)"),
        "dice": (int, "dice thrown at the start of a turn and on hot dice, 1 to 6 (6)"),
        "min_bank": (int, "the least turn total that may be banked (0)"),
        "three_ones": (int, "points of three 1s (1000)"),
        "three_pairs": (int, "points of three pairs, 0 for none (750)"),
        "straight": (int, "points of 1-2-3-4-5-6, 0 for none (1500)"),
        "kinds": (str, "add (each die past three of a kind adds the three's points), "
                       "double (doubles them) or fixed (four_kind, five_kind, six_kind) "
                       "(add)"),
        "ones": (int, "points of a single 1 (100)"),
        "fives": (int, "points of a single 5, 0 for none (50)"),
        "four_kind": (int, "kinds=fixed: points of four of a kind (1000)"),
        "five_kind": (int, "kinds=fixed: points of five of a kind (2000)"),
        "six_kind": (int, "kinds=fixed: points of six of a kind (3000)"),
        "two_triples": (int, "points of two triples thrown at once, 0 for none (0)"),
        "four_and_pair": (int, "points of four of a kind and a pair thrown at once, 0 for "
                               "none (0)"),
        "penalty": (int, "two players: points lost on the last of `farkles` farkles in a "
                         "row, a multiple of 50 (0: none)"),
        "farkles": (int, "farkles in a row that cost the penalty, 1 to 5; the count starts "
                         "again after it and after a bank (3)"),
        "floor": (int, "the lowest a score falls to by the penalty, 0 or below (0)"),
        "goal_by_bank": (flag, "two players: the goal is reached only by a turn total that "
                               "may be banked (min_bank or more) (false)"),
    }  # fmt: skip
    summary = ("six dice, set aside what scores, bank or press on until a farkle; one "
               "turn's best expected score, or two players' chances (players=2)")  # fmt: skip

    #: points in a unit of the positions' scores and totals
    unit = UNIT

    def __init__(self, goal: int | None = None, players: int = 1, play: str = "turn",
                 dice: int = 6, min_bank: int = 0, three_ones: int = 1000,
                 three_pairs: int = 750, straight: int = 1500, kinds: str = "add",
                 **more: Any):  # fmt: skip
        if players not in (1, 2):
            raise UserError(f"farkle players: got {players}, expected 1 or 2")
        if play not in PLAYS:
            raise UserError(f"farkle play: got {play!r}, expected turn or goal")
        if players == 2 and play != "turn":
            raise UserError("farkle play: a setting of one player's game (players=1)")
        if not 1 <= dice <= 6:
            raise UserError(f"farkle dice: got {dice}, expected 1 to 6")
        goal = goal if goal is not None else (20_000 if players == 1 and play == "turn"
                                              else 10_000)  # fmt: skip
        if goal % UNIT or not UNIT <= goal <= 100_000:
            raise UserError(f"farkle goal: got {goal}, expected a multiple of 50 from 50 "
                            "to 100000")  # fmt: skip
        if min_bank % UNIT or not 0 <= min_bank < goal:
            raise UserError(f"farkle min_bank: got {min_bank}, expected a multiple of 50 "
                            "below the goal")  # fmt: skip
        points = {k: more.pop(k) for k in list(more) if k in Scoring.POINTS}
        self._penalty_rules(players, goal, **more)
        self.scoring = Scoring(three_ones, three_pairs, straight, kinds, **points)
        self.players, self.play, self.dice = players, play, dice
        self.goal, self.min_bank = goal // UNIT, min_bank // UNIT
        self.objective = "turns" if players == 1 and play == "goal" else None
        alone = {"turn": "one turn", "goal": f"to {goal} alone"}[play]
        self.name = f"farkle to {goal}" if players == 2 else f"farkle, {alone}"
        if dice != 6:
            self.name += f", {dice} dice"
        self.measure = {2: "the first player's chance to win, both playing their best",
                        1: "one turn's best expected score" if play == "turn" else
                        "the fewest expected turns to the goal"}[players]  # fmt: skip
        scores = {2: "; add '/ 2000 3500' for your score and theirs, p2 for player 2)",
                  1: "; add '/ 2000' for your score)" if play == "goal" else ")"}  # fmt: skip
        if self.counted:
            scores[2] = ("; add '/ 2000 3500 / 1 0' for your score and theirs and your "
                         "farkles in a row and theirs, p2 for player 2)")  # fmt: skip
            self.name += f", {self.penalty * UNIT} for {self.farkles} farkles"
        if self.goal_by_bank:
            self.name += ", goal by a bank"
        self.position_help = (
            "'1 1 5 2 3 4 / 300' (the throw, then the turn total" + (scores[players])
        )
        self._throws = {n: [(p, _dice(c), offers(self.scoring, c)) for p, c in throws(n)]
                        for n in range(1, dice + 1)}  # fmt: skip

    def _penalty_rules(self, players: int, goal: int, penalty: int = 0, farkles: int = 3,
                       floor: int = 0, goal_by_bank: bool = False) -> None:  # fmt: skip
        """The three-farkle penalty's settings (``penalty``, ``farkles``, ``floor``,
        ``goal_by_bank``: see :attr:`settings`), checked, in units of 50 points."""
        if penalty % UNIT or not 0 <= penalty <= goal:
            raise UserError(f"farkle penalty: got {penalty}, expected a multiple of 50 from 0 "
                            "to the goal")  # fmt: skip
        if not 1 <= farkles <= 5:
            raise UserError(f"farkle farkles: got {farkles}, expected 1 to 5")
        if floor % UNIT or not -100_000 <= floor <= 0:
            raise UserError(f"farkle floor: got {floor}, expected a multiple of 50 from "
                            "-100000 to 0")  # fmt: skip
        if (penalty or goal_by_bank) and players != 2:
            raise UserError("farkle penalty, goal_by_bank: settings of the two-player game "
                            "(players=2)")  # fmt: skip
        if floor and not penalty:
            raise UserError("farkle floor: only a penalty lowers a score; set penalty too")
        self.counted = penalty > 0
        self.penalty, self.farkles, self.floor = penalty // UNIT, farkles, floor // UNIT
        self.goal_by_bank = goal_by_bank

    @property
    def min_win(self) -> int:
        """The least turn total that reaches the goal (units)."""
        return self.min_bank if self.goal_by_bank else 0

    def start(self) -> Hashable:
        if self.counted:
            return ("roll", 0, 0, 0, 0, self.dice, 0, 0)
        return ("roll", 0, 0, 0, 0, self.dice)

    def to_move(self, position) -> int:
        return CHANCE if position[0] == "roll" else position[1]

    def outcomes(self, position):
        _, seat, a, b, t, n = position[:6]
        counts = position[6:]
        return [(p, label, ("keep", seat, a, b, t, offer, *counts) if any(offer)
                 else self._next_turn(seat, a, b, 0, counts))
                for p, label, offer in self._throws[n]]  # fmt: skip

    def _next_turn(self, seat: int, a: int, b: int, gained: int, counts: tuple = ()) -> Hashable:
        """The turn ends with ``gained`` banked (0 for a farkle); with the penalty,
        ``counts`` are both players' farkles in a row."""
        if self.players == 1:
            if self.play == "turn":
                return ("end", gained)
            return ("roll", 0, a + gained, 0, 0, self.dice)
        if self.counted:
            mine, farkled = (a, counts[0]) if seat == 0 else (b, counts[1])
            if gained:
                mine, farkled = mine + gained, 0
            elif farkled + 1 == self.farkles:
                mine, farkled = max(mine - self.penalty, self.floor), 0
            else:
                farkled += 1
            a, b = (mine, b) if seat == 0 else (a, mine)
            both = (farkled, counts[1]) if seat == 0 else (counts[0], farkled)
            return ("roll", 1 - seat, a, b, 0, self.dice, *both)
        a, b = (a + gained, b) if seat == 0 else (a, b + gained)
        return ("roll", 1 - seat, a, b, 0, self.dice)

    def moves(self, position):
        _, seat, a, b, t, offer = position[:6]
        counts = position[6:]
        mine = a if seat == 0 else b
        out = []
        best = t + max(offer)
        for k, s in enumerate(offer, 1):
            if not s:
                continue
            left = len(offer) - k or self.dice
            total = t + s
            if mine + total >= self.goal and total >= self.min_win:
                if total == best:
                    out.append((f"keep {s * UNIT} ({_count(k)}): {self._reach}", self._reached(seat,
                                total)))  # fmt: skip
                continue
            out.append((f"keep {s * UNIT} ({_count(k)}), roll {left}",
                        ("roll", seat, a, b, total, left, *counts)))  # fmt: skip
        if mine + best < self.goal and best >= self.min_bank:
            out.append((f"bank {best * UNIT}", self._next_turn(seat, a, b, best, counts)))
        return out

    @property
    def _reach(self) -> str:
        return "banked" if self.players == 1 and self.play == "turn" else "the goal"

    def _reached(self, seat: int, total: int) -> Hashable:
        if self.players == 2:
            return ("won", seat)
        return ("end", total) if self.play == "turn" else ("done",)

    def result(self, position):
        if position[0] == "won":
            return 1.0 if position[1] == 0 else 0.0
        if position[0] == "end":
            return float(position[1] * UNIT)
        return 0.0 if position[0] == "done" else None

    def turn_starts(self, position) -> bool:
        return position[0] == "roll" and position[4] == 0

    def banking_turn(self):
        """The turn as the turn-start solver reads it
        (:class:`~dicelab.engine.turnstart.BankingTurn`), two players only."""
        from dicelab.engine.turnstart import BankingTurn

        outcomes = {n: [(float(p), o) for p, _, o in self._throws[n]] for n in self._throws}
        penalty = {"counts": self.farkles, "penalty": self.penalty, "floor": self.floor} if (
            self.counted) else {}  # fmt: skip
        return BankingTurn.from_outcomes(self.goal, self.dice, self.min_bank, outcomes,
                                         goal_by_bank=self.goal_by_bank, **penalty)  # fmt: skip

    def positions(self):
        """The layout's numbering of positions
        (:class:`~dicelab.games.chance.farkle_layout.FarklePositions`), made once: it
        tells a position of the game from any other value."""
        found = getattr(self, "_positions", None)
        if found is None:
            from dicelab.games.chance.farkle_layout import FarklePositions

            found = self._positions = FarklePositions(self)
        return found

    def turn_of(self, position) -> tuple:
        """``(seat, mover's score, other's score, turn total, dice to throw, mover's
        farkles in a row, other's)`` of a position in a turn (dice ``None`` after a
        throw that scored)."""
        kind, seat, a, b, t, last = position[:6]
        ca, cb = position[6:] or (0, 0)
        mine, other = (a, b) if seat == 0 else (b, a)
        mf, of = (ca, cb) if seat == 0 else (cb, ca)
        return seat, mine, other, t, (last if kind == "roll" else None), mf, of

    def canonical(self, position) -> Hashable:
        """``position`` as the game writes it (whole numbers, not flags or fractions);
        ``KeyError`` where the game has no such position."""
        if not self.past_layout:
            numbered = self.positions()
            return numbered.position(numbered.index_of(position))
        try:
            if position[0] == "won" and len(position) == 2 and _whole(position[1]) in (0, 1):
                return ("won", position[1])
            kind, seat, a, b, t, last = position[:6]
            if len(position) != (8 if self.counted else 6):
                raise ValueError(position)
            ca, cb = position[6:] or (0, 0)
        except (TypeError, ValueError, IndexError):
            raise KeyError(position) from None
        wholes = [seat, a, b, t, ca, cb] + ([last] if kind == "roll" else list(last))
        if not all(_whole(x) is not None for x in wholes):
            raise KeyError(position)
        mine = a if seat == 0 else b
        ok = (seat in (0, 1) and all(self.floor <= s < self.goal for s in (a, b))
              and 0 <= t < max(self.goal - mine, self.min_win)
              and all(0 <= c < self.farkles for c in (ca, cb)))  # fmt: skip
        slot = self.positions().slot
        counts = (ca, cb) if self.counted else ()
        if ok and kind == "roll" and 1 <= last <= self.dice and (t > 0 or last == self.dice):
            return ("roll", seat, a, b, t, last, *counts)
        if ok and kind == "keep" and len(last) in slot and tuple(last) in slot[len(last)]:
            return ("keep", seat, a, b, t, tuple(last), *counts)
        raise KeyError(position)

    @property
    def past_layout(self) -> bool:
        """Whether the rules go past the layout's numbering (:meth:`positions`): the
        penalty (scores fall, farkles counted) or the goal by a bank only (turn
        totals past the goal)."""
        return self.counted or self.goal_by_bank

    def layout(self, exact: bool = False):
        """Every position at once, in arrays
        (:func:`~dicelab.games.chance.farkle_layout.farkle_layout`), not walked."""
        from dicelab.games.chance.farkle_layout import farkle_layout

        return farkle_layout(self, exact)

    def size(self) -> int | None:
        """How many positions :meth:`layout` lays out (the walk reaches fewer);
        ``None`` where the rules go past its numbering (:attr:`past_layout`: walked)."""
        if self.past_layout:
            return None
        return self.positions().size

    def estimate(self) -> int:
        """At most how many positions there are (the walk reaches fewer), known before
        any is laid out: the layout's count, by arithmetic (past the layout: every
        pair of scores and of farkles counted, every turn total up to the goal's
        reach, each with its throws)."""
        size = self.size()
        if size is not None:
            return size
        scores = self.goal - self.floor
        counts = self.farkles**2 if self.counted else 1
        totals = max(self.goal, self.min_win) + self.min_win
        return 2 * scores * scores * counts * totals * self.positions().width

    def verdict(self, position) -> str:
        if position[0] == "end":
            return f"the turn scored {position[1] * UNIT}"
        if position[0] == "done":
            return "the goal reached"
        return f"player {position[1] + 1} wins"

    def board(self, position) -> dict:
        """What a table shows (the page draws it): each player's score, the turn
        total, the dice to throw (or thrown), and with the penalty the farkles in a
        row."""
        kind = position[0]
        if kind in ("won", "end", "done"):
            return {"winner": position[1]} if kind == "won" else {}
        _, seat, a, b, t, last = position[:6]
        scores = [a * UNIT, b * UNIT] if self.players == 2 else (
            [a * UNIT] if self.play == "goal" else [])  # fmt: skip
        out: dict = {"scores": scores, "turn_total": t * UNIT, "seat": seat,
                     "dice": last if kind == "roll" else len(last)}  # fmt: skip
        if self.counted:
            out["farkles"] = list(position[6:])
        return out

    def show(self, position) -> str:
        kind = position[0]
        if kind in ("won", "end", "done"):
            return self.verdict(position)
        _, seat, a, b = position[:4]
        who = f"player {seat + 1}, scores {a * UNIT}-{b * UNIT}, " if self.players == 2 else (
            f"score {a * UNIT}, " if self.play == "goal" else "")  # fmt: skip
        if self.counted:
            ca, cb = position[6:]
            who = (f"player {seat + 1}, scores {a * UNIT} and {b * UNIT}, farkles in a row "
                   f"{ca}-{cb}, ")  # fmt: skip
        return who + self.show_turn(position)

    def show_turn(self, position) -> str:
        """The turn's part of :meth:`show`: the turn total and the dice."""
        kind, _, _, _, t, last = position[:6]
        if kind == "roll":
            return f"turn total {t * UNIT}, {_count(last)} to throw"
        offer = ", ".join(f"{_count(k)} for {s * UNIT}" for k, s in enumerate(last, 1) if s)
        return f"turn total {t * UNIT}, {len(last)} dice thrown: keep {offer}"

    def turn_start(self, mine: int) -> Hashable:
        """Player 1's turn start with score ``mine`` units (the other's 0): how a table
        of more players (:class:`~dicelab.games.chance.seated.Seated`) plays one turn."""
        return ("roll", 0, mine, 0, 0, self.dice)

    def kept_dice(self, throw: str, label: str) -> list[int] | None:
        """The dice a move sets aside from ``throw`` (its label, ``"1 1 5 2 3 4"``):
        the move's count of them that scores its points (a bank: the most), for the
        page's dice to tap; ``None`` for a move that sets none aside."""
        faces = [int(w) for w in throw.split() if w.isascii() and w.isdigit()]
        counts = tuple(faces.count(f) for f in range(1, 7))
        offer = offers(self.scoring, counts)
        words = label.replace("(", " ").replace(")", " ").replace(",", " ").split()
        if words[:1] == ["keep"] and len(words) > 3 and words[2].isdigit():
            k = int(words[2])
        elif words[:1] == ["bank"] and any(offer):
            k = offer.index(max(offer)) + 1
        else:
            return None
        for kept in product(*(range(c + 1) for c in counts)):
            if sum(kept) == k and self.scoring.value(kept) == offer[k - 1]:
                return [f for f, c in enumerate(kept, 1) for _ in range(c)]
        return None

    def facing(self, turn: Any, other: int) -> Hashable:
        """Player 1's ``turn`` (a table's, played against no one) against one other
        player with score ``other`` units: a duel's position (a table too large to
        solve is advised from the duels)."""
        return (*turn[:3], other, *turn[4:])

    def passed(self, mine: int, other: int) -> Hashable:
        """The duel's position where player 1's turn ended at ``mine`` units and the
        other, at ``other``, throws next."""
        return ("roll", 1, mine, other, 0, self.dice)

    def seat_text(self, text: str, players: int) -> tuple[str, list[int]]:
        """A position of ``players`` seats as typed, ``"1 1 5 2 3 4 / 300 / 2000 3500
        1000"`` (the throw, the turn total, your score and the next players' in playing
        order), as :meth:`parse` reads your turn and the scores in units."""
        parts = text.split("/")
        try:
            scores = [int(w) for w in parts[2].replace(",", " ").split()] if len(parts) == 3 else []
        except ValueError:
            scores = []
        if len(parts) > 3 or (len(parts) == 3 and len(scores) != players):
            raise UserError(f"farkle position: got {text!r}, expected the throw, the turn "
                            f"total and {players} scores (yours first, then the next players' "
                            "in playing order), e.g. '1 1 5 2 3 4 / 300 / "
                            + " ".join(["2000"] * players) + "'")  # fmt: skip
        scores = scores or [0] * players
        if any(x % UNIT or x < 0 for x in scores):
            raise UserError(f"farkle position: got {text!r}; the scores are multiples of 50, "
                            "0 or more")  # fmt: skip
        return f"{parts[0]} / {parts[1] if len(parts) > 1 else ''} / {scores[0]} 0", [
            x // UNIT for x in scores
        ]

    def parse(self, text: str) -> Hashable:
        """``"1 1 5 2 3 4 / 300 / 2000 3500"``: the throw, the turn total (before
        this throw), then the scores (yours first; ``p2``: you are player 2)."""
        words = text.replace("p2", " ").replace("p1", " ")
        parts = [p.split() for p in words.replace(",", " ").split("/")]
        seat = 1 if "p2" in text else 0
        try:
            nums = [[int(w) for w in p] for p in parts]
        except ValueError:
            nums = []
        return self._position(text, seat, nums)

    def _position(self, text: str, seat: int, nums: list[list[int]]) -> Hashable:
        scores = 2 if self.players == 2 else (1 if self.play == "goal" else 0)
        groups = 4 if self.counted else 3
        shape = 2 <= len(nums) <= groups and (len(nums) == 2 or len(nums[2]) == scores)
        shape = shape and (len(nums) < 4 or len(nums[3]) == 2)
        if not shape or len(nums[1]) != 1 or not 1 <= len(nums[0]) <= self.dice:
            raise UserError(f"farkle position: got {text!r}, expected {self.position_help}")
        throw, t = nums[0], nums[1][0]
        given = nums[2] if len(nums) >= 3 else [0] * scores
        if any(not 1 <= f <= 6 for f in throw):
            raise UserError(f"farkle position: got {text!r}; the dice show 1 to 6")
        low = self.floor * UNIT
        if t < 0 or any(x % UNIT for x in [t, *given]) or any(x < low for x in given):
            raise UserError(f"farkle position: got {text!r}; the turn total and scores are "
                            f"multiples of 50, the scores {low} or more")  # fmt: skip
        mine, theirs = (given + [0, 0])[:2]
        a, b = (mine, theirs) if seat == 0 else (theirs, mine)
        offer = offers(self.scoring, tuple(throw.count(f) for f in range(1, 7)))
        if not any(offer):
            raise UserError(f"farkle position: {text!r} is a farkle, no choice to make")
        if not self.counted:
            return ("keep", seat, a // UNIT, b // UNIT, t // UNIT, offer)
        mine_f, their_f = nums[3] if len(nums) == 4 else [0, 0]
        if not all(0 <= c < self.farkles for c in (mine_f, their_f)):
            raise UserError(f"farkle position: got {text!r}; farkles in a row are 0 to "
                            f"{self.farkles - 1}")  # fmt: skip
        ca, cb = (mine_f, their_f) if seat == 0 else (their_f, mine_f)
        return ("keep", seat, a // UNIT, b // UNIT, t // UNIT, offer, ca, cb)


@cache
def farkle_chance(n: int, scoring_key: tuple | None = None) -> Fraction:
    """The chance that a throw of ``n`` dice scores nothing (under the scoring table
    whose :attr:`Scoring.key` is ``scoring_key``; the usual one by default)."""
    scoring = Scoring() if scoring_key is None else Scoring(*scoring_key[:4],
        **dict(zip(list(Scoring.POINTS)[3:], scoring_key[4:], strict=True)))  # fmt: skip
    return sum((p for p, c in throws(n) if not any(offers(scoring, c))), Fraction(0))


def _whole(x):
    """``x`` if it is a whole number (not a flag), else ``None``."""
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def _count(k: int) -> str:
    return "1 die" if k == 1 else f"{k} dice"
