"""What every solved table shares: its rules, its solve time, its cache record.

Each objective solves into its own table class (expected score, saved throws,
targets and utilities over points, the spread, the duel), because each holds its
values over a different state space. They all derive from :class:`SolvedTable`, so
every table answers the same questions the same way: :attr:`~SolvedTable.rules`,
:meth:`~SolvedTable.value` (the value of a whole game; of a turn-start state where
the table has one) and a short ``repr``; tables of one player's game also answer
:meth:`~SolvedTable.advise` (every option of a position, ranked).

>>> import dicelab
>>> table = dicelab.solve("yacht")
>>> table
<ExpectedTable yacht: expected 191.774369, 178,816 states>
>>> isinstance(table, dicelab.SolvedTable)
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from dicelab.engine.position import Advice, Position, check_turn, rank, scorecard_state

if TYPE_CHECKING:
    import numpy as np

    from dicelab.rules import Rules
    from dicelab.rules.compiled import CompiledRules


@dataclass(repr=False, eq=False)
class SolveRecord:
    """What every solved table keeps of how it came to be: ``seconds``, the solve's
    time (0 when read from the cache), and ``meta``, the cache record (``cached``,
    ``path``, ...). Both are given by keyword, after the table's own fields."""

    seconds: float = field(default=0.0, kw_only=True)
    meta: dict = field(default_factory=dict, kw_only=True)


class SolvedTable(SolveRecord):
    """The base of every solved table.

    Subclasses hold ``game`` (the compiled rules) and ``values`` (the solved array)
    beside the :class:`SolveRecord`, and say what their start value means in
    :attr:`summary`.

    Examples
    --------
    >>> import dicelab
    >>> isinstance(dicelab.solve("yazy"), dicelab.SolvedTable)
    True
    """

    #: The objective's name, as the cache, the command line and :func:`dicelab.solve` spell it.
    objective: ClassVar[str] = ""
    values: Any

    if TYPE_CHECKING:  # a field of each subclass (a property of some)

        @property
        def game(self) -> CompiledRules: ...

    @property
    def rules(self) -> Rules:
        """The rule set this table solves."""
        return self.game.rules

    @property
    def cached(self) -> bool:
        """True when the table was read from the disk cache rather than solved now."""
        return bool(self.meta.get("cached"))

    def value(self, *args: Any, **kwargs: Any) -> float:
        """The value of a whole game from its start (what that is depends on the objective;
        a table with values per state takes the state)."""
        raise NotImplementedError

    def advise(self, position: Position, *args: Any, **params: Any) -> Advice:
        """Every option of a position, ranked best first by this table's objective.

        One template for every table of one player's game: the position's state
        (:func:`~dicelab.engine.position.scorecard_state`), the values inside its
        turn (:meth:`turn_values`, the table's own), one ranking
        (:func:`~dicelab.engine.position.rank`). ``params``: the objective's own (a
        table of every target is asked with ``target=S``).

        Examples
        --------
        >>> import dicelab
        >>> table = dicelab.solve("yacht")
        >>> table.advise(dicelab.Position(dice=(3, 3, 6, 5, 6), rerolls=2)).best.label
        'keep 6 6'
        """
        g = self.game
        rerolls = check_turn(g.rules, position)
        roll = g.space.index(tuple(position.dice))
        mask, upper, flag, score = scorecard_state(self, position)
        turn, offset = self.turn_values(mask, upper, flag, score, rerolls, **params)
        return Advice(
            position=position,
            score_so_far=score,
            upper_total=upper,
            options=rank(g, turn, roll, rerolls, offset),
            **self.advice_fields(**params),
        )

    def turn_values(self, *args: Any, **params: Any) -> tuple[Any, float]:
        """The values inside a turn from a turn start with ``score`` so far, and what
        to add to each (the score, where values are points to come): an object with
        ``keep_value``, ``roll_value`` and ``box_options``. Called with ``(filled,
        upper_total, flag, score, rerolls)`` and the objective's ``params``."""
        raise TypeError(f"{type(self).__name__} gives no advice on one player's position")

    def advice_fields(self, *args: Any, **params: Any) -> dict:
        """What an advice of this table says its values are (``target``, ``win``)."""
        return {}

    def outlook(self, *args: Any, **params: Any) -> float:
        """The value of a turn start ``(filled, upper_total, flag, score)`` with
        ``score`` points so far, in this table's own measure (an expected final score,
        a chance, a sure score); ``params``: those of :meth:`advise` (a target table's
        ``target``)."""
        raise TypeError(f"{type(self).__name__} has no value of one player's turn start")

    def final_value(self, *args: Any, **params: Any) -> float:
        """The value of a finished game with ``score`` points, in the same measure."""
        raise TypeError(f"{type(self).__name__} has no value of one player's final score")

    @property
    def summary(self) -> str:
        """The start value in words, for ``repr``."""
        return f"{self.value():.6f}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.rules.name}: {self.summary}>"


@dataclass(repr=False)
class ExpectedScoreTable(SolvedTable):
    """A table of the expected-score optimum (with or without throws saved): its
    ``expected_score``, and advice ranked by expected final score."""

    objective: ClassVar[str] = "expected"
    game: CompiledRules
    values: np.ndarray

    if TYPE_CHECKING:  # each subclass has them

        @property
        def expected_score(self) -> float: ...

        @property
        def n_states(self) -> int: ...

    @property
    def summary(self) -> str:
        return f"expected {self.expected_score:.6f}, {self.n_states:,} states"

    def outlook(self, filled: int, upper_total: int, flag: int, score: int, **params) -> float:
        """The expected final score from a turn start with ``score`` points so far."""
        return score + self.value(filled, upper_total, flag)

    def final_value(self, score: int, **params) -> float:
        """A finished game's final score."""
        return float(score)


class FollowsExpected:
    """A table worked out along the expected-score optimum of its ``expected`` table
    (the points to come, their spread, the split by box): its game is that table's,
    and no second copy of the rules is kept beside it."""

    expected: ExpectedScoreTable

    @property
    def game(self) -> CompiledRules:
        return self.expected.game
