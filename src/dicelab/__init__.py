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
    "Position": "dicelab.engine.advice.single",
    "Advice": "dicelab.engine.advice.single",
    "Option": "dicelab.engine.advice.single",
    "OptionValues": "dicelab.engine.advice.query",
    "Sheet": "dicelab.engine.advice.duel",
    "SolvedTable": "dicelab.engine.table",
    "ExpectedTable": "dicelab.engine.objectives.expected",
    "SavedTable": "dicelab.engine.objectives.saved",
    "OneTargetTable": "dicelab.engine.objectives.utility",
    "TargetTable": "dicelab.engine.objectives.target",
    "UtilityTable": "dicelab.engine.objectives.utility",
    "SpreadTable": "dicelab.engine.objectives.spread",
    "ExplainTable": "dicelab.engine.objectives.explain",
    "Explanation": "dicelab.engine.objectives.explain",
    "DuelTable": "dicelab.engine.objectives.duel",
    "LeadTable": "dicelab.engine.objectives.duel_lead",
    "match_advise": "dicelab.engine.advice.match",
    "MatchAdvice": "dicelab.engine.advice.match",
    "ScoreDistribution": "dicelab.engine.objectives.scores",
    "UserError": "dicelab.errors",
    "NotFound": "dicelab.errors",
    "TooLarge": "dicelab.errors",
    "DamagedTable": "dicelab.errors",
    "ChanceGame": "dicelab.games.chance.model",
    "ChanceSolution": "dicelab.games.chance.solution",
    "OBJECTIVES": "dicelab.api",
    "solve": "dicelab.api",
}

__all__ = sorted([*_PUBLIC, "__version__"])


def __getattr__(name: str):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'dicelab' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next look-up is a plain one
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
