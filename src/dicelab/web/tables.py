"""The table of one objective, loaded or solved: what the server and its workers share.

:func:`solve_objective` is called in a worker process to solve a table into a
cache folder (:mod:`dicelab.web.worker`), and in the server to load it from there
(or from the disk cache, when it is there already): one function, so the table
the server reads is the one the worker wrote.
"""

from __future__ import annotations

from dicelab.engine.objectives.expected import expected_table
from dicelab.engine.objectives.target import target_table
from dicelab.engine.objectives.utility import reach_table
from dicelab.engine.objectives.win import solve_win
from dicelab.rules import Rules
from dicelab.rules.compiled import as_game


def target_of(objective: str) -> int | None:
    """The target score of an objective ``target:S`` (``None``: every target)."""
    _, _, score = objective.partition(":")
    return int(score) if score else None


def solve_objective(
    rules: Rules,
    objective: str,
    use_cache: bool,
    progress=None,
    mapped: bool = False,
    expected=None,
):
    """The table of ``objective`` for ``rules`` (see :data:`dicelab.web.store.OBJECTIVES`,
    ``spread`` and ``explain``), from the cache where ``use_cache`` and it is there, else solved
    (and cached where ``use_cache``). ``mapped``: target, win, duel and match
    tables are memory-mapped from the cache. ``expected``: the expected-score table, if at
    hand (the spread's solve needs it)."""
    if objective == "expected":
        return expected_table(rules, use_cache=use_cache, progress=progress)
    if objective == "duel":
        from dicelab.engine.objectives.duel import duel_table

        game = as_game(rules)
        how = dict(use_cache=use_cache, progress=progress, mapped=mapped)
        return duel_table(game, compare=False, **how)
    if objective == "duel-lead":  # the duel's expected leads, beside its chances
        from dicelab.engine.objectives.duel_lead import lead_table

        return lead_table(as_game(rules), use_cache=use_cache, progress=progress, mapped=mapped)
    if objective == "match":  # the points to come from every state, for a table at play
        from dicelab.engine.objectives.remaining import remaining_table

        return remaining_table(rules, use_cache=use_cache, progress=progress, mapped=mapped)
    if objective == "explain":  # from the double-precision table: the parts add up exactly
        from dicelab.engine.objectives.explain import explain_table

        game = as_game(rules)
        double = expected_table(game, use_cache=use_cache, precision="double")
        return explain_table(game, double, use_cache, progress=progress, mapped=mapped)
    if objective == "spread":
        from dicelab.engine.objectives.spread import spread_table

        expected = expected or expected_table(rules, use_cache=use_cache, progress=progress)
        return spread_table(expected.game, expected, use_cache, progress=progress)
    game = as_game(rules)
    if objective.startswith("target"):
        target = target_of(objective)
        how = dict(use_cache=use_cache, progress=progress, mapped=mapped)
        if target is None:
            return target_table(game, **how)
        return reach_table(game, target, **how)
    return solve_win(game, use_cache=use_cache, progress=progress, mapped=mapped).table
