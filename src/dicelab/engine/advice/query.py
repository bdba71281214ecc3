"""Advice in bulk: every option of many positions, one compiled turn each.

:func:`dicelab.engine.advice.single.advise` answers a person: it checks a scorecard given
box by box, names every option and ranks it, in NumPy, so that a whole ``dicelab
advise`` needs no compiler. Training, review, simulation with advice and the
evaluation of play ask millions of positions, already in the engine's terms
(filled boxes, upper total, flag): :class:`OptionValues` answers each from the
solvers' own turn on one lane (:func:`dicelab.engine.kernels.turn.position_options`),
with :func:`advise`'s values to the last bit and no ranking.

>>> from dicelab.engine.objectives.expected import expected_table
>>> from dicelab.engine.advice.query import OptionValues
>>> ask = OptionValues(expected_table("yahtzee"))
>>> options = ask(filled=0, upper_total=0, flag=0, dice=(3, 3, 6, 5, 6), rerolls=2)
>>> ask.label(*max(options, key=lambda o: o[1])[:1])
'keep 6 6'
"""

from __future__ import annotations

import numpy as np

from dicelab.engine.kernels import dice_arrays, rule_arrays
from dicelab.engine.objectives.expected import ExpectedTable
from dicelab.errors import UserError


class OptionValues:
    """Every option of a position of ``table``, with its value to come.

    Calling it with a position gives a list of ``(code, value)``: ``code`` is a keep
    index (:class:`dicelab.dice.DiceSpace`; the whole roll means scoring at once)
    before a reroll, ``-1 - box`` after the last throw; ``value`` is the expected
    number of points still to come after taking the option, the upper bonus counted
    here whether it is earned already or still to come. So the expected final score
    is ``value`` plus the points scored so far *without* the upper bonus (what
    :attr:`dicelab.Advice.score_so_far` holds); adding a score that includes an earned
    bonus counts it twice. :meth:`label` names a code.

    Examples
    --------
    >>> import dicelab
    >>> ask = dicelab.OptionValues(dicelab.solve("yacht"))
    >>> values = ask(filled=0, upper_total=0, flag=0, dice=(3, 3, 6, 5, 6), rerolls=2)
    >>> len(values) > 1
    True
    """

    def __init__(self, table: ExpectedTable) -> None:
        from dicelab.engine.kernels.turn import cand_rows, position_options

        g = table.game
        if g.has_served or g.rules.save_unused_throws:
            raise UserError(
                f"the rules {g.rules.name!r} serve points or save throws: use advise instead"
            )
        space = g.space
        self.table = table
        self.game = g
        self._V = np.ascontiguousarray(table.values)
        self._R, self._D = rule_arrays(g), dice_arrays(g)
        roll0 = int(space.size_start[space.dice])
        rolls = range(roll0, space.n_keeps)
        self._roll_of = {space.faces_of(k): k for k in rolls}
        subs = [space.sub_keeps(k) for k in rolls]
        self._sub = np.full((len(subs), max(map(len, subs))), -1, np.int64)
        for i, keeps in enumerate(subs):
            self._sub[i, : len(keeps)] = keeps
        width = max(self._sub.shape[1], g.n_categories)
        self._scratch = (
            np.empty((space.n_keeps, 1)),
            np.empty((cand_rows.py_func(self._R.values), 1)),
            np.empty((3, g.n_categories), np.int64),
        )
        self._codes = np.empty(width, np.int64)
        self._out = np.empty(width)
        self._most_rerolls = g.rules.rolls - 1
        self._threshold, self._flags = g.threshold, g.n_flag == 2
        self._call = self._compiled(position_options)

    def __call__(
        self, filled: int, upper_total: int, flag: int, dice: tuple[int, ...], rerolls: int
    ) -> list[tuple[int, float]]:
        """Every option of the position: filled boxes ``filled`` (a bit mask),
        ``upper_total`` so far, ``flag`` 1 when the all-same box holds points,
        ``dice`` showing and ``rerolls`` left."""
        roll = self._roll_of.get(tuple(sorted(dice)))
        if (
            roll is None
            or not 0 <= rerolls <= self._most_rerolls
            or not 0 <= filled < self.game.full_mask
            or upper_total < 0
            or flag not in (0, 1)
        ):
            self._refuse(filled, upper_total, flag, dice, rerolls)
        u = min(upper_total, self._threshold) if self._threshold > 0 else 0
        y = flag if self._flags else 0
        start = self._V[filled, y, u]
        if start != start:  # NaN: an unreachable state
            raise UserError("this scorecard cannot occur in a game")
        codes, out = self._codes, self._out
        n = self._call(
            self._V, (filled, u, y), roll, rerolls, self._R, self._D, self._sub, self._scratch,
            codes, out,
        )  # fmt: skip
        return list(zip(codes[:n].tolist(), out[:n].tolist(), strict=True))

    def _refuse(self, filled, upper_total, flag, dice, rerolls) -> None:
        """Say in one line what is wrong with a position."""
        g = self.game
        if self._roll_of.get(tuple(sorted(dice))) is None:
            want = f"{g.rules.dice} faces from 1 to {g.rules.faces}"
            raise UserError(f"dice: got {dice!r}, expected {want}")
        if not 0 <= rerolls <= self._most_rerolls:
            raise UserError(f"rerolls left: got {rerolls}, expected 0 to {self._most_rerolls}")
        if not 0 <= filled < g.full_mask:
            raise UserError(f"filled boxes: got {filled}, expected a mask below {g.full_mask}")
        raise UserError(f"upper total {upper_total}, flag {flag}: expected 0 or more, 0 or 1")

    def _compiled(self, kernel):
        """The kernel compiled for this table's arguments, called without Numba's
        dispatch: working out the types of its bundles of arrays on every call cost
        about 3 microseconds of a query's 15 to 20."""
        args = (self._V, (0, 0, 0), 0, 0, self._R, self._D, self._sub, self._scratch,
                self._codes, self._out)  # fmt: skip
        kernel.compile(tuple(kernel.typeof_pyval(a) for a in args))
        found = kernel.overloads.get(tuple(kernel.typeof_pyval(a) for a in args))
        return kernel if found is None else found.entry_point

    def label(self, code: int) -> str:
        """A code's option as text: ``keep 6 6``, ``keep nothing``, ``keep all: 2 2 2
        6 6`` (score now) or a box's id."""
        if code < 0:
            return self.game.rules.categories[-1 - code].id
        faces = self.game.space.faces_of(code)
        if len(faces) == self.game.rules.dice:
            return "keep all: " + " ".join(map(str, faces))
        return "keep " + (" ".join(map(str, faces)) if faces else "nothing")
