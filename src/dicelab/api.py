"""The library's front door: a rule set and an objective in, a solved table out.

Each objective has its table: ``expected`` an
:class:`~dicelab.engine.objectives.expected.ExpectedTable` (a
:class:`~dicelab.engine.objectives.saved.SavedTable` for rules that save throws), ``target`` a
:class:`~dicelab.engine.objectives.target.TargetTable`, ``win`` a
:class:`~dicelab.engine.objectives.utility.UtilityTable`, ``spread`` a
:class:`~dicelab.engine.objectives.spread.SpreadTable`, ``explain`` an
:class:`~dicelab.engine.objectives.explain.ExplainTable` and ``duel`` a
:class:`~dicelab.engine.objectives.duel.DuelTable`; all of them are
:class:`~dicelab.engine.table.SolvedTable`.

:func:`solve` is what ``dicelab.solve`` names. It reads and compiles the rules once,
takes the table from the disk cache when one matches (rules, objective, engine
version and checksum), and otherwise solves it and keeps it there.

>>> import dicelab
>>> table = dicelab.solve("yacht")
>>> round(table.value(), 4)
191.7744
>>> dicelab.solve("yazy", objective="target").probability(200) > 0
True
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from dicelab.engine import registry
from dicelab.engine.runtime.claims import given_up_on_failure
from dicelab.engine.table import SolvedTable
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, as_game

#: The objectives :func:`solve` knows, in the order the docs present them (declared
#: once, in :mod:`dicelab.engine.registry`).
OBJECTIVES = tuple(o.name for o in registry.front_door())

Progress = Callable[[int, int], None]


def solve(
    rules: Rules | CompiledRules | str | Path,
    *,
    objective: str = "expected",
    target: int | None = None,
    theta: float | None = None,
    precision: str = "single",
    cache: bool = True,
    allow_large: bool = False,
    runner=None,
    opponent: np.ndarray | str | Path | None = None,
    progress: Progress | None = None,
    store: str | Path | None = None,
) -> SolvedTable:
    """Solve a rule set for an objective, or take its table from the cache (or a dice game).

    Parameters
    ----------
    rules : Rules, str, Path or ChanceGame
        A built-in name (``"yahtzee"``), a path to a rules file, TOML text, or rules
        already loaded with :func:`dicelab.load_rules`. Or a dice game (``"pig"``, or a
        ``ChanceGame`` such as ``Pig(goal=50)``): see :func:`dicelab.games.chance.solve`.
    objective : str
        An objective of :data:`dicelab.OBJECTIVES` (declared, with what each plays
        for, in :data:`dicelab.engine.registry.OBJECTIVES`): ``expected`` (the default),
        ``target``, ``win``, ``risk`` (play safe or risky), ``spread``, ``explain``
        (advice that says why), ``duel`` or ``duel-lead`` (pass it as ``leads`` to
        :meth:`DuelTable.advise`).
    target : int, optional
        For ``target``: the one score to reach, whose table is a fraction of the
        table of every target (returned instead where cached, or without ``target``).
    theta : float, optional
        For ``risk``: the risk attitude, from -0.2 to 0.2 (> 0 plays safe, < 0 plays
        risky, 0 plays for the average).
    precision : str
        ``"single"`` (the default: values inside a turn in single precision, within
        1e-6 of double) or ``"double"``; for ``expected``, ``target`` and ``win``.
    cache : bool
        Read and write the disk cache (``False``: solve now, keep nothing).
    allow_large : bool
        Solve even what this machine is not expected to hold or finish within an
        hour (otherwise :class:`dicelab.TooLarge` is raised before any work).
    runner : dicelab.engine.runtime.schedule.Runner, optional
        Where the layers run: this process, or a Dask cluster (``runner_for``).
    opponent : ndarray, str or Path, optional
        For ``win``: the opponent's final-score distribution (``pmf[score]``) or a
        file of it; by default the expected-score optimum's own.
    progress : callable, optional
        ``progress(done, total)``, called as the solve advances.
    store : str or Path, optional
        A folder to hold the table as a file while it is solved, not in memory.

    Returns
    -------
    SolvedTable
        The table of the objective (see the module docstring); a dice game's solution.

    Raises
    ------
    UserError
        For unknown or broken rules, an unknown objective or precision, or an objective
        these rules do not support.

    Examples
    --------
    >>> import dicelab
    >>> table = dicelab.solve("yazy")
    >>> round(table.value(), 2)
    165.76
    >>> dicelab.solve("yazy", objective="risk", theta=0.05).value() < table.value()
    True
    """
    if (game := _dice_game(rules)) is not None:
        return _solve_dice_game(game, objective, target, allow_large, cache)
    params = dict(target=target, theta=theta, opponent=opponent)
    spec = registry.spec(objective, registry.front_door(), **params)
    how = dict(cache=cache, allow_large=allow_large, runner=runner, progress=progress)
    options = registry.SolveOptions(store=store, precision=precision, **how)
    with given_up_on_failure():
        return registry.solve(as_game(rules), spec, options)


def _solve_dice_game(game, objective: str, target, allow_large: bool, cache: bool):
    """A dice game of the chance model solved (``"expected"``: the game's own aim)."""
    from dicelab.games.chance.explore import DEFAULT_LIMIT
    from dicelab.games.chance.solution import solve as solve_game

    aim = None if objective == "expected" else objective
    limit = 10**9 if allow_large else DEFAULT_LIMIT
    return solve_game(game, aim, target=target, limit=limit, cache=cache)


def _dice_game(rules):
    """The chance-model game ``rules`` names (a family with its defaults, or a game
    object), or ``None`` for a rule set."""
    from dicelab.games.chance.families import FAMILIES, game_from
    from dicelab.games.chance.model import ChanceGame

    if isinstance(rules, ChanceGame):
        return rules
    if isinstance(rules, str) and rules in FAMILIES:
        return game_from(rules)
    return None


def compile_kernels(progress: Progress | None = None) -> None:
    """Compile the kernels of the main commands now, into Numba's cache.

    A kernel compiles the first time it runs (8 to 10 s of one core each), so a
    first ``solve``, ``distribution``, ``simulate`` or target command would wait
    for the ones it needs. ``pip install -e .`` calls this once, so that none of
    them does; ``dicelab cache compile`` calls it again (after an upgrade of Numba,
    or after an install that skipped it). Compiled here: the expected-score turn
    in both precisions, the turn over points in both precisions (targets, the win,
    risk), the exact fractions, the distribution's forward pass and the simulation's
    game, three of them in other processes at once, the points to come of a table's
    advice (``match advise``, ``match play``); then the graph solver of the dice
    games, the bear-off's plays, and the tables of turn starts and of pairs of
    sides with their play. Kernels already in the cache are
    loaded, not compiled; no table is kept.

    Parameters
    ----------
    progress : callable, optional
        ``progress(done, total)``, in seconds of a first compile on 2 cores.

    Examples
    --------
    >>> import dicelab.api
    >>> dicelab.api.compile_kernels()  # doctest: +SKIP
    """
    from dicelab.engine.objectives.distribution import COMPILE_FORWARD, score_distribution
    from dicelab.engine.objectives.exact import exact_expected
    from dicelab.engine.objectives.expected import COMPILE_DOUBLE, expected_table
    from dicelab.engine.objectives.remaining import remaining_table
    from dicelab.engine.objectives.risk import risk_table
    from dicelab.engine.objectives.utility import reach_table
    from dicelab.engine.runtime import ahead
    from dicelab.play.simulate import COMPILE_GAMES, simulate

    tick = progress or (lambda done, total: None)
    # where each step ends, in seconds on 2 cores: this process's first compile
    # shares them with the three others, the second has a core of its own
    ends = [18, 30, 31, 32, 41]
    tick(0, ends[-1])
    jobs = [COMPILE_DOUBLE, COMPILE_FORWARD, COMPILE_GAMES]  # in other processes
    for how, kernels in jobs:
        ahead.start(how, kernels)
    game = as_game("yazy")  # the smallest built-in game: its solves take milliseconds
    table = expected_table(game, use_cache=False)  # the expected-score turn, in this process
    tick(ends[0], ends[-1])
    reach_table(game, 150, use_cache=False, dtype=np.float32)  # the turn over points
    risk_table(game, 0.02, use_cache=False)  # the same turn in double precision
    exact_expected(game)  # the exact fractions' layers
    tick(ends[1], ends[-1])
    for how, _ in jobs:
        ahead.finish(how)
    tick(ends[2], ends[-1])
    # every kernel the commands call, with those compiled ahead now loaded
    score_distribution(game, table, strategy="compile")
    simulate(table, 8)
    remaining_table(game, table, use_cache=False)  # the points to come, for a table's advice
    for variant in ("forced-yatzy", "yahtzee-simple"):  # forced order; no joker section
        expected_table(as_game(variant), use_cache=False)
    tick(ends[3], ends[-1])
    import dicelab.engine.kernels.graph  # noqa: F401  (loaded: small games use it too)
    from dicelab.games.chance.bearoff import BearOff
    from dicelab.games.chance.farkle import Farkle
    from dicelab.games.chance.pig import Pig
    from dicelab.games.chance.simulate import simulate as play
    from dicelab.games.chance.solution import solve as solve_game

    solve_game(Pig(goal=5))  # the graph solver of the dice games
    solve_game(BearOff(mine=(2,)))  # and the bear-off's plays
    play(solve_game(Pig(goal=5, dice=2), turns=True), 2)  # the turn-start solver, its play
    solve_game(Farkle(players=2, goal=100, penalty=50))  # the penalty's policy iteration
    solve_game(BearOff(mine=(2,), theirs=(1,)), turns=True)  # the table of pairs of sides
    tick(ends[4], ends[-1])
