"""The table of one objective, loaded or solved: what the server and its workers share.

:func:`solve_objective` is called in a worker process to solve a table into a
cache folder (:mod:`dicelab.web.worker`), and in the server to load it from there
(or from the disk cache, when it is there already): one function, so the table
the server reads is the one the worker wrote. The objectives and how each solves
are the registry's (:mod:`dicelab.engine.registry`).
"""

from __future__ import annotations

from dicelab.engine import registry
from dicelab.engine.runtime.claims import given_up_on_failure
from dicelab.rules import Rules
from dicelab.rules.compiled import as_game


def solve_objective(rules: Rules, objective: str, use_cache: bool, progress=None, mapped=False):
    """The table named ``objective`` (a registry key: ``expected``, ``target:250``,
    ``risk:0.02``, ...) for ``rules``, from the cache where ``use_cache`` and it is
    there, else solved (and cached where ``use_cache``). ``mapped``: a cached table
    over points, the duel's and the match's are memory-mapped."""
    spec = registry.parse_key(objective)
    options = registry.SolveOptions(cache=use_cache, progress=progress, mapped=mapped)
    with given_up_on_failure():  # the server goes on: no claim kept from a failed solve
        return registry.solve(as_game(rules), spec, options)
