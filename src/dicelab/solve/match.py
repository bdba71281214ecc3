"""Playing to win at a table of two to four: advice against players who play for points.

At a table every player fills their own sheet with their own dice. An opponent who
plays for the expected score does not react to the others, so their final score
is a distribution fixed by their sheet alone: their points so far plus what the
expected-score optimum makes of the boxes left
(:func:`dicelab.solve.distribution.score_distribution` from their turn start). The
opponents' dice are independent of mine and of each other's, so the chance to
finish first, a tie for first shared equally, of a final score ``s`` of mine is

``U(s) = sum over j of P(j opponents score s and the others less) / (j + 1)``

(:func:`table_utility`), and the utility objective (:mod:`dicelab.solve.utility`)
gives the play over my own sheet that maximises ``E[U(my final score)]``.

That play decides from my sheet alone; the opponents' later turns will tell more
(whether they made their big box), and the advice is worked out anew at each of my
turns, with their sheets as they are then. So each option's figure is the exact
chance to finish first of playing on from it by today's table, and a lower bound
of what playing on by the advice, turn after turn, achieves. With one opponent,
where the two-player game fits, :mod:`dicelab.solve.match_exact` gives the exact
best reply to a points player, which reacts to every turn.

>>> from dicelab.solve.match import table_utility
>>> import numpy as np
>>> coin = np.array([0.0, 0.5, 0.5])      # an opponent who scores 1 or 2
>>> table_utility([coin, coin]).values[:4]   # my final score 0, 1, 2, 3
array([0.        , 0.08333333, 0.58333333, 1.        ])
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from dicelab.errors import UserError
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, as_game
from dicelab.solve.advice import Advice, Position, scorecard_state
from dicelab.solve.duel_advice import Sheet, sheet_scorecard
from dicelab.solve.utility import Utility

Progress = Callable[[int, int], None]

#: Players at a table, the one advised included.
MIN_PLAYERS, MAX_PLAYERS = 2, 4
#: How :func:`match_advise` works: ``table`` (this turn's table against points
#: players), ``duel`` (the exact two-player game, both playing to win), ``auto`` (the
#: duel with one opponent where this machine can solve it, else the table).
METHODS = ("auto", "table", "duel")


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


def final_pmf(game: CompiledRules, expected, sheet: Sheet, who: str) -> np.ndarray:
    """The distribution of a player's final score when they play for the expected
    score from ``sheet`` on (their upper bonus included)."""
    from dicelab.solve.distribution import score_distribution

    mask, upper, flag, score = sheet_scorecard(expected, sheet, who)
    if sheet.score is not None and sheet.score != score:
        raise UserError(f"{who} score: got {sheet.score}, but the filled boxes add up to {score}")
    u, y = game.turn_state(upper, flag)
    if mask == game.full_mask:
        final = score + (int(game.rules.bonus_points) if 0 < game.threshold <= upper else 0)
        pmf = np.zeros(final + 1)
        pmf[final] = 1.0
        return pmf
    return score_distribution(game, expected, start=(mask, y, u, score)).pmf


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
                {"expected_final_score": float(np.dot(np.arange(p.size), p)),
                 "best_final_score": int(np.flatnonzero(p)[-1])}  # fmt: skip
                for p in self.opponents
            ],
        }


def check_table(expected, mine: Position, theirs: Sequence[Sheet]) -> None:
    """One line for a table that cannot be: too many or too few players, or sheets out
    of turn (the player to move has as many boxes as those still to move this round,
    one fewer than those who have)."""
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
    from dicelab.solve.duel import duel_cost

    try:
        duel_cost(game, compare=False).check()
    except UserError:  # too large, or rules the duel does not take
        return False
    return True


@dataclass
class MatchTurn:
    """The advice of one turn at a table: worked out once from the mover's sheet and
    the others' as they stand, it answers every decision of that turn
    (:meth:`advise`). ``table`` is this turn's utility table, or the duel table."""

    game: CompiledRules
    expected: object
    theirs: list[Sheet]
    opponents: list[np.ndarray]
    method: str
    table: object
    seconds: float = 0.0

    def advise(self, position: Position) -> Advice:
        """Every option of a position of this turn, by the chance to finish first."""
        from dicelab.solve.advice import advise_win

        if self.method.startswith("the table"):
            return advise_win(self.table, position)
        from dicelab.solve.duel_advice import duel_advise

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
) -> MatchTurn:
    """The advice of the turn of ``position``'s sheet against the sheets ``theirs``
    (one to three), by ``method`` (:data:`METHODS`): with one opponent, where the
    two-player game fits, the duel's (solved once and cached); otherwise this turn's
    table against opponents who play for points, over the rest of the game."""
    from dicelab.solve.expected import expected_table
    from dicelab.solve.utility import solve_utility

    if method not in METHODS:
        raise UserError(f"method: got {method!r}, expected one of {', '.join(METHODS)}")
    game = as_game(rules)
    start = time.perf_counter()
    expected = expected if expected is not None else expected_table(game)
    check_table(expected, position, theirs)
    pmfs = [final_pmf(game, expected, s, f"opponent {n}'s") for n, s in enumerate(theirs, 1)]
    if method == "duel" and len(theirs) != 1:
        raise UserError(f"method duel: for two players, not {len(theirs) + 1}")
    if method == "duel" or (method == "auto" and len(theirs) == 1 and duel_fits(game)):
        from dicelab.solve.duel import duel_table

        table = duel_table(game, progress=progress, allow_large=allow_large, mapped=True)
        how = "the exact two-player game, both playing to win"
    else:
        mask, upper, flag, score = scorecard_state(expected, position)
        u, y = game.turn_state(upper, flag)
        rest = (mask, y, u, score)  # the rest of this game only
        utility = table_utility(pmfs)
        table = solve_utility(game, utility, progress, allow_large=allow_large, start=rest)
        how = "the table of this turn, against players who play for points"
    seconds = time.perf_counter() - start
    return MatchTurn(game, expected, list(theirs), pmfs, how, table, seconds)


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
