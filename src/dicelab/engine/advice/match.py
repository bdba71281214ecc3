"""Playing to win at a table of two to four: advice against players who play for points.

At a table every player fills their own sheet with their own dice. An opponent who
plays for the expected score does not react to the others, so their final score
is a distribution fixed by their sheet alone: their points so far plus what the
expected-score optimum makes of the boxes left (a row of the table of points to
come, :mod:`dicelab.engine.objectives.remaining`). The opponents' dice are independent of mine
and of each other's, so the chance to finish first, a tie for first shared
equally, of a final score ``s`` of mine is

``U(s) = sum over j of P(j opponents score s and the others less) / (j + 1)``

(:func:`table_utility`). Two ways to play for ``E[U(my final score)]``:

- ``lookahead`` (:func:`lookahead_turn`): the turn at hand played for it, each box
  valued by my points to come from where it leads, played for points (a row of the
  same table). Each decision takes milliseconds once the table is cached.
- ``table``: the utility objective (:mod:`dicelab.engine.objectives.utility`) over the whole
  rest of my sheet; exact for that play, but a minute a decision early in a large
  game.

Both decide from my sheet alone; the opponents' later turns will tell more
(whether they made their big box), and the advice is worked out anew at each of my
turns, with their sheets as they are then. So each option's figure is the exact
chance to finish first of playing on from it by this turn's plan, and a lower bound
of what playing on by the advice, turn after turn, achieves. With one opponent,
where the two-player game fits, :mod:`dicelab.engine.objectives.match_exact` evaluates the
lookahead exactly and gives the best reply to a points player, which reacts to
every turn.

>>> from dicelab.engine.advice.match import table_utility
>>> import numpy as np
>>> coin = np.array([0.0, 0.5, 0.5])      # an opponent who scores 1 or 2
>>> table_utility([coin, coin]).values[:4]   # my final score 0, 1, 2, 3
array([0.        , 0.08333333, 0.58333333, 1.        ])
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from dicelab.engine.advice.duel import Sheet, sheet_scorecard
from dicelab.engine.objectives.duel import DuelTable
from dicelab.engine.objectives.expected import ExpectedTable, KeepLookups
from dicelab.engine.objectives.remaining import RemainingTable
from dicelab.engine.objectives.utility import Utility
from dicelab.engine.position import Advice, Position, check_turn, rank, scorecard_state
from dicelab.engine.table import SolvedTable
from dicelab.errors import DamagedTable, UserError
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, as_game

Progress = Callable[[int, int], None]

#: Players at a table, the one advised included.
MIN_PLAYERS, MAX_PLAYERS = 2, 4
#: How :func:`match_advise` works: ``lookahead`` (this turn played to finish first
#: against points players, the rest of the game valued as played for points),
#: ``table`` (this turn's table over the whole rest of the game, against points
#: players), ``duel`` (the exact two-player game, both playing to win), ``auto``
#: (the duel with one opponent where this machine can solve it, else the lookahead).
METHODS = ("auto", "lookahead", "table", "duel")
#: How each method is named in the advice.
METHOD_NAMES = {
    "lookahead": "this turn played to finish first, against players who play for points",
    "table": "the table of this turn, against players who play for points",
    "duel": "the exact two-player game, both playing to win",
}


def table_utility(opponents: Sequence[np.ndarray]) -> Utility:
    """My chance to finish first as a utility of my final score, against opponents
    whose final scores are independent with the distributions ``opponents``
    (``pmf[x]`` the chance of exactly ``x``); a tie for first is shared equally.

    ``values[s]`` for ``s`` up to one past the best opponent score (where it is 1).
    """
    if not opponents:
        raise UserError("a table needs at least one opponent")
    top = max(int(np.asarray(p).size) for p in opponents)
    # ways[s, j]: the chance that exactly j opponents score s and every other less
    ways = np.zeros((top + 1, len(opponents) + 1))
    ways[:, 0] = 1.0
    for pmf in opponents:
        p = np.zeros(top + 1)
        p[: np.asarray(pmf).size] = pmf
        below = np.concatenate([[0.0], np.cumsum(p)[:-1]])
        ways[:, 1:] = ways[:, 1:] * below[:, None] + ways[:, :-1] * p[:, None]
        ways[:, 0] *= below
    values = ways @ (1.0 / np.arange(1, len(opponents) + 2))
    values[-1] = 1.0  # beyond every opponent's best
    return Utility(values, name="finish first")


def final_pmf(remaining: RemainingTable, sheet: Sheet, who: str) -> np.ndarray:
    """The distribution of a player's final score when they play for the expected
    score from ``sheet`` on (their upper bonus included), read from the table of
    every state's points to come."""
    mask, upper, flag, score = sheet_scorecard(remaining.expected, sheet, who)
    if sheet.score is not None and sheet.score != score:
        raise UserError(f"{who} score: got {sheet.score}, but the filled boxes add up to {score}")
    return remaining.final_pmf(mask, upper, flag, score)


@dataclass
class LookaheadTurn(KeepLookups):
    """The values inside one turn played to finish first, the rest of the game then
    played for points: a box that leads to state ``s'`` with ``t`` points so far is
    worth ``E[U(t + R(s'))]``, ``R(s')`` the points to come from ``s'`` (the
    table :attr:`table`) and ``U`` the chance to finish first of a final score."""

    table: RemainingTable
    filled: int
    upper_total: int
    flag: int
    points: int
    utility: Utility
    #: None until :func:`lookahead_state_turn` fills it (the keeps need :meth:`after`)
    keep: np.ndarray = cast(np.ndarray, None)
    start_value: float = 0.0
    first: np.ndarray | None = None
    _rows: dict = field(default_factory=dict, repr=False)

    def after(self, c, pts, extra, y2) -> np.ndarray:
        """Values of scoring ``pts`` (and ``extra``) in boxes ``c``, the next flag
        ``y2`` (numbers or arrays of one shape)."""
        g = self.table.game
        c, pts, extra, y2 = np.broadcast_arrays(*(np.asarray(a, np.int64) for a in
                                                  (c, pts, extra, y2)))  # fmt: skip
        u, _ = g.turn_state(self.upper_total, self.flag)
        cap = g.threshold
        u2 = np.where(g.upper[c] & (cap > 0), np.minimum(u + pts, cap), u)
        t = self.points + pts + extra
        out = np.empty(c.shape)
        keys = np.stack([c, y2, u2, t], axis=-1).reshape(-1, 4)
        flat = out.reshape(-1)
        for n, key in enumerate(map(tuple, keys.tolist())):
            found = self._rows.get(key)
            if found is None:
                cc, yy, uu, tt = key
                lo, chances = self.table.row(self.filled | (1 << cc), yy, uu)
                found = float(self.utility.at(tt + lo + np.arange(chances.size)) @ chances)
                self._rows[key] = found
            flat[n] = found
        return out

    def box_value(self, c: int, pts: int, extra: float, y2: int) -> float:
        return float(self.after(c, pts, int(extra), y2))


def lookahead_turn(
    remaining: RemainingTable, position: Position, utility: Utility
) -> LookaheadTurn:
    """Every value inside the turn of ``position`` (its dice aside), played to
    maximise ``E[U(final score)]`` this turn and for points after it."""
    return lookahead_state_turn(remaining, scorecard_state(remaining.expected, position), utility)


def lookahead_state_turn(
    remaining: RemainingTable, state: tuple[int, int, int, int], utility: Utility
) -> LookaheadTurn:
    """:func:`lookahead_turn` from a sheet ``state = (mask, upper total, flag,
    points)``, as :func:`~dicelab.engine.advice.single.scorecard_state` gives it."""
    from dicelab.engine import turn

    g = remaining.game
    mask, upper, flag, score = state
    _, y = g.turn_state(upper, flag)
    got = LookaheadTurn(remaining, mask, upper, y, score, utility)
    first = turn.best_boxes(g, mask, y, got.after, True) if g.has_served else None
    got.keep, got.start_value = turn.throws(g, turn.best_boxes(g, mask, y, got.after), first)
    got.first = first
    return got


@dataclass(frozen=True)
class MatchAdvice:
    """Every option of my position at a table, by my chance to finish first.

    ``advice.options`` holds the options with ``value`` the chance to finish first
    (a tie shared) when playing on by this turn's table, and ``cost`` the chance
    given up; ``opponents`` each opponent's final-score distribution, as their
    sheets and playing for points make it.
    """

    advice: Advice
    opponents: list[np.ndarray]
    method: str
    seconds: float = 0.0
    meta: dict = field(default_factory=dict)

    @property
    def win_chance(self) -> float:
        """My chance to finish first with the best option."""
        return self.advice.options[0].value

    def to_dict(self) -> dict:
        out = self.advice.to_dict()
        out.pop("target", None)
        return {
            "method": self.method,
            "players": len(self.opponents) + 1,
            "win_chance": self.win_chance,
            **out,
            "opponents": [
                {
                    "expected_final_score": float(np.dot(np.arange(p.size), p)),
                    "best_final_score": int(np.flatnonzero(p)[-1]),
                }  # fmt: skip
                for p in self.opponents
            ],
        }


def check_table(expected, mine: Position, theirs: Sequence[Sheet]) -> None:
    """One line for a table that cannot be: too many or too few players, dice or rerolls
    the rules do not have, or sheets out of turn (the player to move has as many boxes
    as those still to move this round, one fewer than those who have). Cheap: asked
    before any table beyond the expected score's is worked out."""
    from dicelab.engine.position import check_turn

    check_turn(expected.game.rules, mine)
    expected.game.space.index(tuple(mine.dice))  # faces the dice have
    players = len(theirs) + 1
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise UserError(
            f"players: got {players} (you and {len(theirs)} opponents), expected "
            f"{MIN_PLAYERS} to {MAX_PLAYERS}: one to three opponents"
        )
    mask, _, _, _ = scorecard_state(expected, mine)
    k = bin(mask).count("1")
    for n, sheet in enumerate(theirs, start=1):
        kn = len(sheet.filled)
        if kn not in (k, k + 1):
            raise UserError(
                f"opponent {n}'s sheet has {kn} boxes filled and yours {k}: at your turn "
                "each opponent has as many boxes filled as you, or one more"
            )


def duel_fits(game: CompiledRules) -> bool:
    """Whether this machine can solve (or has cached) the rules' two-player game."""
    from dicelab.engine.objectives.duel import NODE_BYTES, duel_cost
    from dicelab.engine.runtime.cost import memory_budget

    # a pair of sheets with as many boxes filled is a node: by themselves they
    # number at least states**2 / (boxes + 1), which rules out large games at once
    if NODE_BYTES * game.n_states**2 // (game.n_categories + 1) > memory_budget():
        return False
    try:
        duel_cost(game, compare=False).check()
    except UserError:  # too large, or rules the duel does not take
        return False
    return True


@dataclass
class MatchTurn:
    """The advice of one turn at a table: worked out once from the mover's sheet and
    the others' as they stand, it answers every decision of that turn
    (:meth:`advise`). ``kind`` is one of :data:`METHODS` but ``auto``; ``table`` this
    turn's utility table, the duel table, or the table of points to come."""

    game: CompiledRules
    expected: ExpectedTable
    theirs: list[Sheet]
    opponents: list[np.ndarray]
    kind: str
    table: SolvedTable
    seconds: float = 0.0
    utility: Utility | None = None
    _turns: dict = field(default_factory=dict, repr=False)

    @property
    def method(self) -> str:
        """The method in words."""
        return METHOD_NAMES[self.kind]

    def advise(self, position: Position) -> Advice:
        """Every option of a position of this turn, by the chance to finish first."""
        if self.kind == "table":
            return self.table.advise(position)
        if self.kind == "lookahead":
            from dicelab.engine.objectives.remaining import remaining_table

            g = self.game
            rerolls = check_turn(g.rules, position)
            sheet = (tuple(sorted(position.filled.items())), position.upper_total,
                     position.extra_bonuses)  # fmt: skip
            turn = self._turns.get(sheet)  # a turn's values serve each of its decisions
            if turn is None:
                # the lookahead's table is the points to come, and its utility is set
                assert isinstance(self.table, RemainingTable) and self.utility is not None
                try:
                    turn = lookahead_turn(self.table, position, self.utility)
                except DamagedTable:  # read whole, the damage is seen and the table solved anew
                    self.table = remaining_table(g, self.expected, mapped=False)
                    turn = lookahead_turn(self.table, position, self.utility)
                self._turns = {sheet: turn}
            options = rank(g, turn, g.space.index(tuple(position.dice)), rerolls, 0.0)
            return Advice(position, turn.points, turn.upper_total, options, win=True)
        from dicelab.engine.advice.duel import duel_advise

        assert isinstance(self.table, DuelTable)  # the duel's method reads its table
        mine = Sheet(dict(position.filled), position.upper_total, position.extra_bonuses)
        got = duel_advise(self.table, self.expected, position.dice, position.rerolls, mine,
                          self.theirs[0])  # fmt: skip
        _, upper, _, _ = scorecard_state(self.expected, position)
        return Advice(position, got.my_score, upper, got.options, win=True)


def match_turn(
    rules: Rules | CompiledRules | str,
    position: Position,
    theirs: Sequence[Sheet],
    expected=None,
    progress: Progress | None = None,
    allow_large: bool = False,
    method: str = "auto",
    remaining: RemainingTable | None = None,
) -> MatchTurn:
    """The advice of the turn of ``position``'s sheet against the sheets ``theirs``
    (one to three), by ``method`` (:data:`METHODS`): with one opponent, where the
    two-player game fits, the duel's (solved once and cached); otherwise this turn
    played to finish first against opponents who play for points (``lookahead``), or
    this turn's table over the rest of the game (``table``). The distributions of
    the points to come from every state (``remaining``) are worked out once per rule
    set and cached (the preparation ``progress`` shows)."""
    from dicelab.engine.objectives.expected import expected_table
    from dicelab.engine.objectives.remaining import remaining_table

    if method not in METHODS:
        raise UserError(f"method: got {method!r}, expected one of {', '.join(METHODS)}")
    game = as_game(rules)
    start = time.perf_counter()
    expected = expected if expected is not None else expected_table(game)
    check_table(expected, position, theirs)
    if method == "duel" and len(theirs) != 1:
        raise UserError(f"method duel: for two players, not {len(theirs) + 1}")
    if method == "auto":
        method = "duel" if len(theirs) == 1 and duel_fits(game) else "lookahead"
    if remaining is None:
        remaining = remaining_table(game, expected, progress=progress, allow_large=allow_large)
    try:
        pmfs = [final_pmf(remaining, s, f"opponent {n}'s") for n, s in enumerate(theirs, 1)]
    except DamagedTable:  # read whole, the damage is seen and the table solved anew
        remaining = remaining_table(game, expected, progress=progress, mapped=False)
        pmfs = [final_pmf(remaining, s, f"opponent {n}'s") for n, s in enumerate(theirs, 1)]
    utility = table_utility(pmfs)
    table: SolvedTable = remaining
    if method == "duel":
        from dicelab.engine.objectives.duel import duel_table

        table = duel_table(game, progress=progress, allow_large=allow_large, mapped=True)
    elif method == "table":
        from dicelab.engine.objectives.utility import solve_utility

        mask, upper, flag, score = scorecard_state(expected, position)
        u, y = game.turn_state(upper, flag)
        rest = (mask, y, u, score)  # the rest of this game only
        table = solve_utility(game, utility, rest, progress=progress, allow_large=allow_large)
    seconds = time.perf_counter() - start
    return MatchTurn(game, expected, list(theirs), pmfs, method, table, seconds, utility)


def match_advise(
    rules: Rules | CompiledRules | str,
    position: Position,
    theirs: Sequence[Sheet],
    expected=None,
    progress: Progress | None = None,
    allow_large: bool = False,
    method: str = "auto",
) -> MatchAdvice:
    """Every option of ``position`` (my sheet, the dice, the rerolls left) ranked by my
    chance to finish first against the sheets ``theirs`` (one to three).

    ``method`` (:data:`METHODS`): with one opponent, where the two-player game fits,
    the duel's exact chances with both playing to win (solved once and cached);
    otherwise the chances against opponents who play for points, exact for playing
    on by this turn's table and a lower bound for playing on by the advice (see the
    module's docstring).
    """
    start = time.perf_counter()
    turn = match_turn(rules, position, theirs, expected, progress, allow_large, method)
    advice = turn.advise(position)
    return MatchAdvice(advice, turn.opponents, turn.method, time.perf_counter() - start)
