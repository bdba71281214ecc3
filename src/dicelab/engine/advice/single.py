"""Advice: a position in, every option out, ranked by expected final score.

Each table ranks the options of a position itself (``table.advise(position)``);
the functions here are the names advice has always had: :func:`advise` lists every
distinct option, the keeps before a reroll or the open boxes after the last throw,
with its expected final score under optimal play from then on and its cost against
the best option.

>>> from dicelab.engine.advice.single import Position, advise
>>> from dicelab.engine.objectives.expected import expected_table
>>> table = expected_table("yahtzee")
>>> advice = advise(table, Position(dice=(3, 3, 6, 5, 6), rerolls=2))
>>> advice.best.keep
(6, 6)

How options are listed and ordered: :mod:`dicelab.engine.position`.
"""

from __future__ import annotations

from dicelab.engine.position import (  # noqa: F401  (the names advice has always had here)
    TIE,
    Advice,
    Option,
    Position,
    check_turn,
    rank,
    scorecard_state,
)


def advise(table, position: Position) -> Advice:
    """Rank every option of a position by expected final score.

    Before a reroll the options are the distinct keeps of the dice showing (keeping
    all of them ends the rolling); after the last throw they are the boxes the
    dice may go in. Values are expected final scores: points scored so far plus
    the optimal expectation of the rest, upper bonus and extra bonuses included.
    The same as ``table.advise(position)``.
    """
    return table.advise(position)


def advise_target(table, position: Position, target: int) -> Advice:
    """Rank every option by its chance of a final score of at least ``target``.

    ``table`` is a :class:`dicelab.engine.objectives.target.TargetTable` ("play to
    reach S") or the :class:`dicelab.engine.objectives.utility.OneTargetTable` of
    ``target``: the values of the options are the best probabilities of reaching the
    target after taking them, and costs are lost probability. The same as
    ``table.advise(position, target=target)``.
    """
    return table.advise(position, target=target)


def advise_win(table, position: Position) -> Advice:
    """Rank every option by its chance to beat an opponent's score distribution.

    ``table`` is the :class:`dicelab.engine.objectives.utility.UtilityTable` of
    :func:`dicelab.engine.objectives.win.solve_win`: values are chances of a higher
    final score than the opponent's (a tie counting half) after each option, with
    the best play from then on; costs are lost chance. The same as
    ``table.advise(position)``.
    """
    return table.advise(position)
