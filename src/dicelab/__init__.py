"""dicelab: exact solutions, advice and analysis for dice games.

The Yahtzee family (any rules written as data), the best scoring of known rolls,
and a few related games, all solved exactly.

>>> import dicelab
>>> rules = dicelab.load_rules("yacht")
>>> table = dicelab.solve(rules)
>>> round(table.value(), 4)
191.7744
>>> advice = table.advise(dicelab.Position(dice=(3, 3, 6, 5, 6), rerolls=2, filled={"ones": 3}))
>>> advice.best.label
'keep 6 6'

Every name below is loaded on first use (PEP 562): ``import dicelab`` itself loads
neither Numba nor the solvers, so a program that only reads rules, or a command's
``--help``, starts at once.
"""

from __future__ import annotations

import importlib
import os
import sys
import types

# The kernels' threads sleep between parallel regions instead of spinning: on a
# machine busy with other work a spinning thread takes a core from the thread that
# has work, and a solve of many small layers ran several times slower. Set before
# the threads start (at the first parallel region); a value already set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__version__ = "0.1.0"

#: Each public name and the module that defines it.
_PUBLIC = {
    "load_rules": "dicelab.rules",
    "builtin_names": "dicelab.rules",
    "Rules": "dicelab.rules.model",
    "Position": "dicelab.solve.advice",
    "Advice": "dicelab.solve.advice",
    "Option": "dicelab.solve.advice",
    "OptionValues": "dicelab.solve.query",
    "Sheet": "dicelab.solve.duel_advice",
    "SolvedTable": "dicelab.solve.table",
    "ExpectedTable": "dicelab.solve.expected",
    "SavedTable": "dicelab.solve.saved",
    "OneTargetTable": "dicelab.solve.utility",
    "TargetTable": "dicelab.solve.target",
    "UtilityTable": "dicelab.solve.utility",
    "SpreadTable": "dicelab.solve.spread",
    "ExplainTable": "dicelab.solve.explain",
    "Explanation": "dicelab.solve.explain",
    "DuelTable": "dicelab.solve.duel",
    "LeadTable": "dicelab.solve.duel_lead",
    "match_advise": "dicelab.solve.match",
    "MatchAdvice": "dicelab.solve.match",
    "ScoreDistribution": "dicelab.solve.scores",
    "UserError": "dicelab.errors",
    "NotFound": "dicelab.errors",
    "TooLarge": "dicelab.errors",
    "DamagedTable": "dicelab.errors",
    "OBJECTIVES": "dicelab.api",
}

__all__ = sorted([*_PUBLIC, "solve", "__version__"])


def __getattr__(name: str):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'dicelab' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next look-up is a plain one
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(types.ModuleType):
    """The ``dicelab`` module's type: ``dicelab.solve`` is the function
    :func:`dicelab.api.solve`, although ``dicelab/solve/`` is also the package of the
    solvers (importing one of those does not replace the function)."""

    @property
    def solve(self):
        from dicelab.api import solve

        return solve

    @solve.setter
    def solve(self, value) -> None:
        pass  # the import system sets each subpackage on its parent; this name is taken


sys.modules[__name__].__class__ = _Package
