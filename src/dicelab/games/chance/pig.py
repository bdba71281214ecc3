"""Pig: throw until you hold or a 1 wipes out your turn; the first to the goal wins.

Each turn a player throws a die again and again, adding each throw to a turn
total, until they hold (the total joins their score and the turn passes) or a 1
comes (the turn total is lost and the turn passes). The first score to reach the
goal wins; a turn total that reaches it wins at once, as holding would. A turn
starts with a throw: holding with nothing is not a move.

House rules, each a setting: ``faces`` of the die; what a 1 does (``one``: it
loses the turn total, or with ``lose-score`` the whole score too); ``dice = 2``
(a 1 on either die does what ``one`` says; two 1s lose the whole score, as in
Neller and Presser's two-dice Pig, or with ``double_ones = "lose-turn"`` the turn
total only; with ``doubles_roll`` any other double must be thrown again, not
held); ``piglet`` (a coin: heads adds 1, tails loses the turn total).

The value is the first player's chance to win with best play by both; Neller and
Presser (2004) give 0.5306 for the goal of 100.

>>> from dicelab.games.chance.solution import solve
>>> round(solve(Pig(goal=100)).value(), 4)  # doctest: +SKIP
0.5306
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction
from itertools import product
from typing import Any

from dicelab.errors import UserError
from dicelab.games.chance.model import CHANCE, ChanceGame, flag
from dicelab.games.chance.numbered import NumberedPositions

__all__ = ["Pig"]

#: What a 1 (or two 1s) can cost: the turn total, or the whole score.
LOSSES = ("lose-turn", "lose-score")


class Pig(ChanceGame):
    """Pig and its variants; a position is ``(mover, my score, their score, turn total,
    throwing)`` with the scores of player 0 first: ``(seat, a, b, k, rolling)``."""

    players = 2
    #: The settings of ``dicelab solve pig --set NAME=VALUE``: how each is read, its meaning.
    settings = {
        "goal": (int, "the score that wins (100)"),
        "dice": (int, "1, or 2 for two-dice Pig (1)"),
        "faces": (int, "faces of the die (6)"),
        "piglet": (flag, "a coin instead of a die (false)"),
        "one": (
            str,
            "what a 1 does: lose-turn (the turn total) or lose-score (the whole score) (lose-turn)",
        ),
        "double_ones": (str, "two dice: what two 1s do: lose-score or lose-turn (lose-score)"),
        "doubles_roll": (
            flag,
            "two dice: a double other than 1s must be thrown again, not held (false)",
        ),
        "players": (int, "2 to 6, each playing to finish first (2)"),
    }
    summary = ("two to six players throw until they hold or a 1 comes; each player's "
               "chance to win")  # fmt: skip
    measure = "the first player's chance to win, both playing their best"
    position_help = "'40 55 12' (your score, theirs, your turn total; add p2 for player 2)"

    def __init__(self, goal: int = 100, dice: int = 1, faces: int = 6, piglet: bool = False,
                 one: str = "lose-turn", double_ones: str = "lose-score",
                 doubles_roll: bool = False, players: int = 2):  # fmt: skip
        if players != 2:  # three to six: a table (dicelab.games.chance.seated)
            raise UserError(f"pig players: got {players}, expected 2 to 6")
        if not 1 <= goal <= 1000:
            raise UserError(f"pig goal: got {goal}, expected 1 to 1000")
        if dice not in (1, 2):
            raise UserError(f"pig dice: got {dice}, expected 1 or 2")
        if not 2 <= faces <= 20:
            raise UserError(f"pig faces: got {faces}, expected 2 to 20")
        for key, value in (("one", one), ("double_ones", double_ones)):
            if value not in LOSSES:
                raise UserError(f"pig {key}: got {value!r}, expected {' or '.join(LOSSES)}")
        self.goal, self.dice, self.faces, self.piglet = goal, dice, faces, piglet
        self.one, self.double_ones, self.doubles_roll = one, double_ones, bool(doubles_roll)
        kind = "piglet" if piglet else ("two-dice pig" if dice == 2 else "pig")
        self.name = f"{kind} to {goal}"
        self._throws = self._throw_table()
        #: a double thrown again cannot be held: the turn-start table has no such
        #: throw, so such a game is laid out (its inside as positions)
        self.turn_table_fits = not any(again for *_, again in self._throws)

    def _throw_table(self) -> list[tuple[Fraction, str, int, bool]]:
        """One throw: (chance, label, points added, thrown again), the points -1 where
        it loses the turn total and -2 the whole score."""
        if self.piglet:
            return [(Fraction(1, 2), "heads", 1, False), (Fraction(1, 2), "tails", -1, False)]
        faces = range(1, self.faces + 1)
        p = Fraction(1, self.faces**self.dice)
        lost = {"lose-turn": -1, "lose-score": -2}
        out = []
        for throw in product(faces, repeat=self.dice):
            ones = throw.count(1)
            gain = lost[self.double_ones] if ones == 2 else lost[self.one] if ones else sum(throw)
            again = self.doubles_roll and self.dice == 2 and gain > 0 and throw[0] == throw[1]
            out.append((p, "-".join(map(str, throw)), gain, again))
        return out

    def start(self) -> Hashable:
        return (0, 0, 0, 0, True)

    def to_move(self, position) -> int:
        return CHANCE if position[4] else position[0]

    def moves(self, position):
        seat, a, b, k, _ = position
        out = [("roll", (seat, a, b, k, True))]
        if k > 0:
            out.append(("hold", self._pass(seat, a, b, k)))
        return out

    def _pass(self, seat, a, b, gained, lose_all=False):
        """The turn passes to the other player with ``gained`` added to the mover."""
        if seat == 0:
            a = 0 if lose_all else a + gained
        else:
            b = 0 if lose_all else b + gained
        return (1 - seat, a, b, 0, True)

    def outcomes(self, position):
        seat, a, b, k, _ = position
        mine = a if seat == 0 else b
        out = []
        for p, label, gain, again in self._throws:
            if gain == -2:
                after = self._pass(seat, a, b, 0, lose_all=True)
            elif gain == -1:
                after = self._pass(seat, a, b, 0)
            elif mine + k + gain >= self.goal:
                after = ("won", seat)
            else:
                after = (seat, a, b, k + gain, again)
            out.append((p, label, after))
        return out

    def result(self, position):
        if position[0] == "won":
            return 1.0 if position[1] == 0 else 0.0
        return None

    def turn_starts(self, position) -> bool:
        return position[0] != "won" and position[3] == 0 and position[4]

    def board(self, position) -> dict:
        """What a table shows (the page draws it): each player's score and the turn
        total (none once the game is won)."""
        if position[0] == "won":
            return {"winner": position[1]}
        seat, a, b, k, _ = position
        return {"scores": [a, b], "turn_total": k, "seat": seat}

    def show(self, position) -> str:
        if position[0] == "won":
            return f"player {position[1] + 1} has won"
        seat, a, b, *_ = position
        return f"player {seat + 1} to play, scores {a}-{b}, {self.show_turn(position)}"

    def show_turn(self, position) -> str:
        """The turn's part of :meth:`show`: the turn total, and whether the die is in
        the air."""
        _, _, _, k, rolling = position
        return f"turn total {k}, " + ("the die is thrown" if rolling else "to roll or hold")

    def turn_start(self, mine: int) -> Hashable:
        """Player 1's turn start with score ``mine`` (the other's 0): how a table of
        more players (:class:`~dicelab.games.chance.seated.Seated`) plays one turn."""
        return (0, mine, 0, 0, True)

    def facing(self, turn: Any, other: int) -> Hashable:
        """Player 1's ``turn`` (a table's, played against no one) against one other
        player with score ``other``: a duel's position (a table too large to solve is
        advised from the duels)."""
        seat, a, _, k, rolling = turn
        return (seat, a, other, k, rolling)

    def passed(self, mine: int, other: int) -> Hashable:
        """The duel's position where player 1's turn ended at ``mine`` and the other,
        at ``other``, throws next."""
        return (1, mine, other, 0, True)

    def seat_text(self, text: str, players: int) -> tuple[str, list[int]]:
        """A position of ``players`` seats as typed, ``"40 55 30 12"`` (your score, the
        next players' in playing order, your turn total), as :meth:`parse` reads your
        turn (``"40 0 12"``) and the scores."""
        try:
            nums = [int(w) for w in text.replace(",", " ").split()]
        except ValueError:
            nums = []
        if len(nums) != players + 1 or min(nums) < 0:
            raise UserError(f"pig position: got {text!r}, expected {players + 1} whole numbers "
                            "of 0 or more: your score, the next players' in playing order, "
                            "your turn total")  # fmt: skip
        return f"{nums[0]} 0 {nums[-1]}", nums[:-1]

    def banking_turn(self):
        """The turn as the turn-start solver reads it
        (:class:`~dicelab.engine.turnstart.BankingTurn`): one throw at a time (of one
        die, two dice or the coin), whose points are kept and banked or thrown on; a
        1 loses the turn total, two 1s the whole score."""
        from dicelab.engine.turnstart import BankingTurn

        thrown = [(float(p), (max(gain, 0),)) for p, _, gain, _ in self._throws if gain != -2]
        wiped = sum(float(p) for p, _, gain, _ in self._throws if gain == -2)
        return BankingTurn.from_outcomes(self.goal, 1, 0, {1: thrown},
                                         {1: wiped} if wiped else None)  # fmt: skip

    def positions(self) -> PigPositions:
        """The layout's numbering of positions (:class:`PigPositions`), made once."""
        found = getattr(self, "_positions", None)
        if found is None:
            found = self._positions = PigPositions(self.goal)
        return found

    def turn_of(self, position) -> tuple:
        """``(seat, mover's score, other's score, turn total, throws to come, 0, 0)``
        of a position in a turn (``None`` where the mover holds or rolls; no farkles
        are counted in Pig)."""
        seat, a, b, k, rolling = position
        mine, other = (a, b) if seat == 0 else (b, a)
        return seat, mine, other, k, (1 if rolling else None), 0, 0

    def layout(self, exact: bool = False):
        """Every position at once (:func:`pig_layout`), instead of a walk."""
        return pig_layout(self, exact)

    def size(self) -> int:
        """How many positions :meth:`layout` lays out."""
        return PigPositions(self.goal).size

    def estimate(self) -> int:
        """How many positions there are, known before any is laid out (:meth:`size`)."""
        return self.size()

    def parse(self, text: str) -> Hashable:
        """``"A B K"``: the mover's score, the other's and the turn total (player 1 to
        move; add ``p2`` for player 2)."""
        words = text.replace(",", " ").split()
        seat = 1 if "p2" in words else 0
        nums = [w for w in words if w != "p2" and w != "p1"]
        try:
            mine, theirs, k = (int(w) for w in nums)
        except ValueError:
            raise UserError(
                f"pig position: got {text!r}, expected three whole numbers "
                "'MY-SCORE THEIR-SCORE TURN-TOTAL' (e.g. '40 55 12')"
            ) from None
        if min(mine, theirs, k) < 0:
            raise UserError(f"pig position: got {text!r}, expected scores and a turn total "
                            "of 0 or more")  # fmt: skip
        a, b = (mine, theirs) if seat == 0 else (theirs, mine)
        return (seat, a, b, k, False) if k > 0 else (seat, a, b, 0, True)


class PigPositions(NumberedPositions):
    """Pig's positions by number, without a list: node ``v`` decoded on demand.

    Numbering: for each (seat, throwing) block, the mover's score ``m``, the other's
    ``o`` and the turn total ``k < goal - m``; then the two ends (player 1 or 2 won).
    """

    def __init__(self, goal: int):
        import numpy as np

        self.goal = g = goal
        widths = g - np.arange(g)  # turn totals for each mover's score
        self.row = np.concatenate([[0], np.cumsum(widths * g)])  # offset of score m
        self.block = int(self.row[-1])
        self.size = 4 * self.block + 2

    def node(self, seat: int, rolling: bool, mine, other, k):
        """The number of a position (works on arrays too)."""
        block = (2 * seat + (0 if rolling else 1)) * self.block
        return block + self.row[mine] + other * (self.goal - mine) + k

    def position(self, v: int) -> Hashable:
        import numpy as np

        if v >= 4 * self.block:
            return ("won", v - 4 * self.block)
        b, r = divmod(v, self.block)
        seat, rolling = b // 2, b % 2 == 0
        mine = int(np.searchsorted(self.row, r, side="right") - 1)
        other, k = divmod(r - int(self.row[mine]), self.goal - mine)
        a, bb = (mine, other) if seat == 0 else (other, mine)
        return (seat, a, bb, k, rolling)

    def index_of(self, position) -> int:
        """The number of ``position``; ``KeyError`` if Pig has no such position."""
        g = self.goal
        try:
            if position[0] == "won":
                if position[1] in (0, 1):
                    return 4 * self.block + position[1]
                raise KeyError(position)
            seat, a, b, k, rolling = position
            mine, other = (a, b) if seat == 0 else (b, a)
            ok = seat in (0, 1) and 0 <= mine < g and 0 <= other < g and 0 <= k < g - mine
            if ok and (k > 0 or rolling):
                return int(self.node(seat, bool(rolling), mine, other, k))
        except (TypeError, ValueError, IndexError):  # "" or (), or a float as an index
            pass
        raise KeyError(position)


def pig_layout(game: Pig, exact: bool = False):
    """Every Pig position and link at once, with NumPy (the walk of
    :func:`~dicelab.games.chance.explore.explore` gives the same, far slower)."""
    import numpy as np

    from dicelab.games.chance.explore import Layout

    g = game.goal
    pos = PigPositions(g)
    widths = g - np.arange(g)
    mine = np.repeat(np.repeat(np.arange(g), g), np.repeat(widths, g))
    other = np.repeat(np.tile(np.arange(g), g), np.repeat(widths, g))
    k = np.concatenate([np.arange(w) for w in np.repeat(widths, g)])
    n = pos.size
    won = 4 * pos.block
    mover = np.full(n, -2, np.int64)
    count = np.zeros(n, np.int64)
    throws = game._throws
    targets: dict[int, np.ndarray] = {}
    for seat in (0, 1):
        roll = pos.node(seat, True, mine, other, k)
        decide = pos.node(seat, False, mine, other, k)
        mover[roll] = -1
        mover[decide] = seat
        count[roll] = len(throws)
        count[decide] = np.where(k > 0, 2, 1)
        passed = pos.node(1 - seat, True, other, mine, 0)
        out = []
        for _p, _label, gain, again in throws:
            if gain == -2:
                out.append(pos.node(1 - seat, True, other, 0, 0))
            elif gain == -1:
                out.append(passed)
            else:
                over = mine + k + gain >= g
                kk = np.where(over, 0, k + gain)
                out.append(np.where(over, won + seat, pos.node(seat, again, mine, other, kk)))
        targets[2 * seat] = np.stack(out, axis=1)
        held = pos.node(1 - seat, True, other, np.minimum(mine + k, g - 1), 0)
        targets[2 * seat + 1] = np.stack([roll, np.where(k > 0, held, -1)], axis=1)
    start = np.concatenate([[0], np.cumsum(count)])
    to = np.empty(int(start[-1]), np.int64)
    prob = np.zeros(to.size)
    p = np.array([float(t[0]) for t in throws])
    for seat in (0, 1):
        roll = pos.node(seat, True, mine, other, k)
        decide = pos.node(seat, False, mine, other, k)
        cols = np.arange(len(throws))
        to[start[roll][:, None] + cols] = targets[2 * seat]
        prob[start[roll][:, None] + cols] = p
        two = targets[2 * seat + 1]
        to[start[decide]] = two[:, 0]
        has = k > 0
        to[start[decide][has] + 1] = two[has, 1]
    result = np.zeros(n)
    result[won] = 1.0
    turn = np.zeros(n, np.bool_)
    turn[pos.node(0, True, mine, other, 0)[k == 0]] = True
    turn[pos.node(1, True, mine, other, 0)[k == 0]] = True
    exact_probs = None
    if exact:
        fr = [t[0] for t in throws]
        exact_probs = [fr[e - start[v]] if mover[v] == -1 else 0 for v in range(n)
                       for e in range(start[v], start[v + 1])]  # fmt: skip
    return Layout(game, pos, pos.index, mover, start, to, prob, result, turn, exact_probs)


def hold_boundary(solution) -> Any:
    """The turn total at which the solved play first holds, for each pair of scores.

    ``out[i, j]`` is for the player to move with ``i`` points against ``j``: the
    smallest turn total at which holding is best (NaN where the best play rolls on
    until the goal). Best play is not always a threshold (Neller and Presser show
    positions where it rolls again past a hold), so this is where holding starts.
    """
    import numpy as np

    if not hasattr(solution, "layout"):  # solved where its turns start
        return _turn_start_boundary(solution)
    game, lay = solution.game, solution.layout
    if not isinstance(lay.positions, PigPositions):
        raise ValueError("the hold boundary reads Pig's array layout")
    g = game.goal
    pos = lay.positions
    out = np.full((g, g), np.nan)
    choice = solution.solved.choice
    for i in range(g):
        k = np.arange(1, g - i)
        if k.size == 0:
            continue
        for j in range(g):
            nodes = pos.node(0, False, i, j, k)
            holds = np.flatnonzero(choice[nodes] == lay.start[nodes] + 1)
            if holds.size:
                out[i, j] = k[holds[0]]
    return out


def _turn_start_boundary(solution) -> Any:
    """:func:`hold_boundary` from a table of turn starts: holding at total ``k`` is
    worth ``1 - W[j, i + k]``, rolling on the turn's ``V[k]`` (a tie holds, as the
    turn-start solver's own choice does)."""
    import numpy as np

    g = solution.game.goal
    W = solution.table.W
    out = np.full((g, g), np.nan)
    for i in range(g - 1):
        k = np.arange(1, g - i)
        for j in range(g):
            roll = solution.table.turn_values(i, j)[k, 1]
            holds = np.flatnonzero(1.0 - W[j, i + k] >= roll)
            if holds.size:
                out[i, j] = k[holds[0]]
    return out
