"""One registry of objectives: each declared once, read by every interface.

An :class:`Objective` says what a table is solved for: its name, its parameters,
what its values mean, which options apply, where it is offered, how its table is
solved (or read from the cache) and what a first solve costs. The front door
(:func:`dicelab.solve`), the command line (choices, help, parameters, printing),
the web server (its store, routes and request checks, the page's *Play for* menu)
and the docs read it from here; no interface lists the objectives itself.

A :class:`Spec` is an objective with its parameters (``target:250``, ``risk:0.02``):
the name of one table. :func:`solve` gives its table; :func:`using` applies a
function to a table and, where a memory-mapped table turns out damaged, solves it
anew and applies the function again (the one place that retry is written).

>>> from dicelab.engine import registry
>>> [o.name for o in registry.front_door()][:3]
['expected', 'target', 'win']
>>> registry.spec("target", target=250).key
'target:250'
>>> registry.parse_key("risk:0.05").params
{'theta': 0.05}
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from dicelab.errors import DamagedTable, UserError
from dicelab.plain import plain_fields

T = TypeVar("T")
Progress = Callable[[int, int], None]


@dataclass(frozen=True, kw_only=True)
class SolveOptions:
    """How a table is solved or read, the same for every objective.

    Parameters
    ----------
    cache : bool
        Read and write the disk cache (``False``: solve now, keep nothing).
    allow_large : bool
        Solve even what this machine is not expected to hold or finish.
    runner : Runner, optional
        Where the layers run (:func:`dicelab.engine.runtime.schedule.runner_for`).
    progress : callable, optional
        ``progress(done, total)`` as the solve advances.
    store : str or Path, optional
        A folder that holds the table as a file while it is solved.
    precision : str
        ``"single"`` or ``"double"`` values inside a turn.
    mapped : bool
        A cached table is memory-mapped and checked block by block as it is read.

    Examples
    --------
    >>> SolveOptions(cache=False).precision
    'single'
    """

    cache: bool = True
    allow_large: bool = False
    runner: Any = None
    progress: Progress | None = None
    store: str | Path | None = None
    precision: str = "single"
    mapped: bool = False

    def solver_kwargs(self, *names: str) -> dict[str, Any]:
        """The options as the tables' solvers take them: ``use_cache``, ``progress``
        and ``allow_large``, which every solver takes, and those of ``names`` (among
        ``runner``, ``mapped``, ``store`` and ``precision``) that this one takes too.

        >>> SolveOptions(cache=False).solver_kwargs("mapped")
        {'use_cache': False, 'progress': None, 'allow_large': False, 'mapped': False}
        """
        how = {"use_cache": self.cache, "progress": self.progress, "allow_large": self.allow_large}
        return how | {name: getattr(self, name) for name in names}


@dataclass(frozen=True)
class Param:
    """A parameter of an objective, such as the target score or the risk attitude.

    ``in_key``: part of the table's name (a table per value); otherwise an input of
    the solve that the table does not name (the opponent's distribution).
    """

    name: str
    kind: type
    help: str
    low: float | None = None
    high: float | None = None
    default: float | None = None
    in_key: bool = True

    def check(self, value: Any) -> Any:
        """The value, checked; one line naming the parameter where it is wrong."""
        if value is None or not self.in_key:
            return value
        if self.kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
            expected = "a whole number"
        else:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            ok = ok and math.isfinite(value)
            expected = "a number"
        if ok and self.low is not None and value < self.low:
            ok = False
        if ok and self.high is not None and value > self.high:
            ok = False
        if not ok:
            bounds = _bounds(self.low, self.high)
            raise UserError(f"{self.name}: got {value!r}, expected {expected}{bounds}")
        return self.kind(value)


def _bounds(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f" from {low:g} to {high:g}"
    if low is not None:
        return f" of {low:g} or more"
    return f" of {high:g} or less" if high is not None else ""


@dataclass(frozen=True)
class Objective:
    """What a table is solved for, declared once.

    ``solve`` and ``facts`` name their functions as ``module:function`` and are
    imported on first use (the registry itself loads no solver):
    ``solve(game, spec, options) -> SolvedTable`` and
    ``facts(rules, spec) -> Facts``. ``unit`` says how its values read:
    ``points`` or ``chance``. ``menu``: the words in the page's *Play for* menu
    (``None``: not offered there). ``companion``: a table that goes with another
    (its spread, its split by box), asked for by the interfaces themselves.
    """

    name: str
    summary: str
    solve: str
    facts: str
    unit: str = "points"
    #: what a value is, in words, with the parameters in braces (``chance of {target}
    #: or more``): the page's column and chart say it
    value_name: str = "expected final score"
    params: tuple[Param, ...] = ()
    menu: str | None = None
    precisions: tuple[str, ...] = ("single",)
    store: bool = False
    companion: bool = False
    front_door: bool = True
    #: a table over points or the duel's: hundreds of megabytes, its size known only
    #: after seconds of layout work (the server keeps few of them in memory)
    large: bool = False
    #: parameters handed to ``table.advise`` (a table of every target answers any)
    advise_params: tuple[str, ...] = ()
    #: ``module:function``: ``explain(advice, table)``, the advice of this objective's
    #: table with a sentence per option (``None``: the expected score's split by box,
    #: from a table of its own)
    explain: str | None = None
    #: ``module:function``: ``report(table, options) -> dict`` for the command line,
    #: and ``report_lines(dict) -> list[str]`` beside it (``None``: a command of its own)
    report: str | None = None
    #: a game of the chance model's objective: the number of players it is for
    #: (``solve`` then names ``graph(layout, spec)``; ``None``: a Yahtzee table's)
    players: int | None = None

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def load(self, which: str, suffix: str = "") -> Callable:
        """The function named by field ``which`` (with ``suffix`` added to its name)."""
        module, _, function = getattr(self, which).partition(":")
        return getattr(importlib.import_module(module), function + suffix)

    def to_dict(self) -> dict:
        """Plain data for the page and the API."""
        return {
            **plain_fields(self, "name summary unit value_name menu"),
            "params": [
                {"name": p.name, "kind": p.kind.__name__, "help": p.help, "low": p.low,
                 "high": p.high, "default": p.default}
                for p in self.params
                if p.in_key
            ],
        }  # fmt: skip


@dataclass(frozen=True)
class Spec:
    """An objective and the values of its parameters: the name of one table."""

    objective: Objective
    params: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.objective.name

    @property
    def key(self) -> str:
        """``name`` or ``name:value`` (the value of its parameter in the key)."""
        values = [self.params[p.name] for p in self.objective.params if p.in_key]
        values = [v for v in values if v is not None]
        return ":".join([self.name, *(_key_text(v) for v in values)])

    def advise_args(self) -> dict:
        return {k: self.params[k] for k in self.objective.advise_params}


def _key_text(value) -> str:
    return str(value) if isinstance(value, int) else repr(float(value))


_THETA = Param(
    "theta",
    float,
    "the risk attitude, > 0 to play safe, < 0 to play risky, 0 for the average",
    low=-0.2,
    high=0.2,
    default=0.02,
)

#: Every objective, in the order the docs present them.
OBJECTIVES: dict[str, Objective] = {
    o.name: o
    for o in (
        Objective(
            "expected",
            "the maximum expected final score",
            solve="dicelab.engine.objectives.saved:expected_objective",
            facts="dicelab.engine.objectives.expected:objective_facts",
            menu="the highest average",
            precisions=("single", "double"),
            store=True,
        ),
        Objective(
            "target",
            "the best chance of a final score of at least S",
            solve="dicelab.engine.objectives.utility:target_objective",
            facts="dicelab.engine.objectives.utility:target_facts",
            unit="chance",
            value_name="chance of {target} or more",
            params=(Param("target", int, "the final score to reach", low=0, default=250),),
            menu="a target score",
            precisions=("single", "double"),
            store=True,
            advise_params=("target",),
            large=True,
            explain="dicelab.engine.objectives.explain:explain_chances",
        ),
        Objective(
            "win",
            "the best chance to beat an opponent's final-score distribution",
            solve="dicelab.engine.objectives.win:solve_objective",
            facts="dicelab.engine.objectives.win:objective_facts",
            unit="chance",
            value_name="chance to beat a points player",
            params=(Param("opponent", object, "the opponent's distribution", in_key=False),),
            menu="beating a points player",
            precisions=("single", "double"),
            large=True,
            explain="dicelab.engine.objectives.explain:explain_chances",
        ),
        Objective(
            "risk",
            "the best expected utility (1 - exp(-theta s)) / theta of the final score s, "
            "given as its certainty equivalent in points",
            solve="dicelab.engine.objectives.risk:solve_objective",
            facts="dicelab.engine.objectives.risk:objective_facts",
            value_name="sure score, theta {theta}",
            params=(_THETA,),
            menu="playing safe or risky",
            explain="dicelab.engine.objectives.risk:explain_points",
            report="dicelab.engine.objectives.risk:report",
            large=True,
        ),
        Objective(
            "spread",
            "the final score's standard deviation under the expected-score optimum",
            solve="dicelab.engine.objectives.spread:solve_objective",
            facts="dicelab.engine.objectives.spread:objective_facts",
            companion=True,
        ),
        Objective(
            "explain",
            "the expected score split by box and bonus: advice that says why",
            solve="dicelab.engine.objectives.explain:solve_objective",
            facts="dicelab.engine.objectives.explain:objective_facts",
            companion=True,
        ),
        Objective(
            "duel",
            "the exact two-player game: the first player's chance to win",
            solve="dicelab.engine.objectives.duel:solve_objective",
            facts="dicelab.engine.objectives.duel:objective_facts",
            unit="chance",
            store=True,
            large=True,
        ),
        Objective(
            "duel-lead",
            "the duel's expected final lead, both playing to win",
            solve="dicelab.engine.objectives.duel_lead:solve_objective",
            facts="dicelab.engine.objectives.duel_lead:objective_facts",
            companion=True,
            large=True,
        ),
        Objective(
            "match",
            "the points still to come from every state, for a table of two to four",
            solve="dicelab.engine.objectives.remaining:solve_objective",
            facts="dicelab.engine.objectives.remaining:objective_facts",
            front_door=False,
            large=True,
        ),
    )
}


_GAME = "dicelab.engine.objectives.chance:"

#: What a game of the chance model (Pig, Shut the Box, the bear-off, Farkle, one's own) is
#: solved for; ``solve`` names the function that values its layout as a graph.
GAME_OBJECTIVES: dict[str, Objective] = {
    o.name: o
    for o in (
        Objective("win", "two players: the first player's chance to win, both playing "
                  "their best (a draw counts half)", solve=_GAME + "win", facts=_GAME + "facts",
                  unit="chance", value_name="the first player's chance to win, both playing "
                  "their best", players=2, front_door=False),
        Objective("points", "one player: the best expected result", solve=_GAME + "points",
                  facts=_GAME + "facts", value_name="the best expected result", players=1,
                  front_door=False),
        Objective("target", "one player: the best chance of a result of at least the target "
                  "(at most, where lower is better)", solve=_GAME + "target",
                  facts=_GAME + "facts", unit="chance",
                  value_name="the best chance of reaching the target",
                  params=(Param("target", float, "the result to reach"),), players=1,
                  front_door=False),
        Objective("turns", "one player: the fewest expected turns to the end",
                  solve=_GAME + "turns", facts=_GAME + "facts", unit="turns",
                  value_name="the fewest expected turns", players=1, front_door=False),
    )
}  # fmt: skip


def game_objective(name: str | None, players: int, **params: Any) -> Spec:
    """The objective of a game with ``players`` players (its default where ``name`` is
    ``None``: the win for two, the points for one), its parameters checked; one line
    where it does not fit the game."""
    players = min(players, 2)  # three or more play to win, as two do
    if name is None:
        name = "win" if players == 2 else "points"
    found = spec(name, list(GAME_OBJECTIVES.values()), **params)
    if found.objective.players != players:
        fits = _listed([o.name for o in GAME_OBJECTIVES.values() if o.players == players])
        raise UserError(f"objective: {players} player(s), so {fits}, not {name}")
    missing = [p.name for p in found.objective.params if found.params[p.name] is None]
    if missing:
        raise UserError(f"objective {name}: give the {missing[0]} (--{missing[0]})")
    return found


#: What a table offers beyond its own values, worked out by a module above it:
#: named here so that a table's convenience method reaches it without importing it.
ANALYSES = {
    "distribution": "dicelab.engine.objectives.distribution:score_distribution",
    "verdicts": "dicelab.engine.objectives.duel_compare:verdicts",
    "duel-advice": "dicelab.engine.advice.duel:advise_table",
}


def analysis(name: str) -> Callable:
    """The function of an analysis (:data:`ANALYSES`), imported on first use."""
    module, _, function = ANALYSES[name].partition(":")
    return getattr(importlib.import_module(module), function)


def front_door() -> list[Objective]:
    """The objectives :func:`dicelab.solve` takes."""
    return [o for o in OBJECTIVES.values() if o.front_door]


def menu() -> list[Objective]:
    """The objectives a player picks on the page (*Play for*), in order."""
    return [o for o in OBJECTIVES.values() if o.menu is not None]


def key_params() -> list[Param]:
    """Every parameter that names a table, once each (the target score, theta)."""
    seen: dict[str, Param] = {}
    for o in OBJECTIVES.values():
        for p in o.params:
            if p.in_key:
                seen.setdefault(p.name, p)
    return list(seen.values())


def implied(params: dict, default: str) -> str:
    """The objective whose parameter is given (``--theta`` means risk), else ``default``."""
    for name, value in params.items():
        if value is not None:
            return next(o.name for o in OBJECTIVES.values() if o.param(name))
    return default


def get(name: str, among: list[Objective] | None = None) -> Objective:
    """The objective of a name; one line listing the known ones otherwise."""
    known = among if among is not None else list(OBJECTIVES.values())
    for o in known:
        if o.name == name:
            return o
    names = ", ".join(o.name for o in known)
    raise UserError(f"objective: got {name!r}, expected one of: {names}")


def spec(name: str, among: list[Objective] | None = None, /, **params: Any) -> Spec:
    """An objective with its parameters, checked: a parameter of another objective,
    or a value out of range, is one line."""
    objective = get(name, among)
    values = {}
    for key, value in params.items():
        p = objective.param(key)
        if p is None:
            if value is None:
                continue
            raise UserError(f"{key}: only with objective {_owners(key)} (got {name})")
        values[key] = p.check(value)
    for p in objective.params:
        values.setdefault(p.name, None)
    return Spec(objective, values)


def _owners(param: str) -> str:
    return " or ".join(o.name for o in OBJECTIVES.values() if o.param(param)) or "none"


def parse_key(key: str) -> Spec:
    """The :class:`Spec` of a table's name (``target:250``; ``target`` is every
    target's table)."""
    name, _, text = key.partition(":")
    objective = get(name)
    named = [p for p in objective.params if p.in_key]
    if not text:
        return spec(name)
    if not named:
        raise UserError(f"objective: got {key!r}, expected {name} alone")
    p = named[0]
    try:
        value = p.kind(text) if p.kind is int else float(text)
    except ValueError:
        what = "a whole number of points" if p.kind is int else "a number"
        raise UserError(f"{p.name}: got {text!r}, expected {what}") from None
    return spec(name, **{p.name: value})


def check_options(spec: Spec, options: SolveOptions) -> None:
    """One line for an option that does not go with the objective."""
    name = spec.name
    if options.precision not in ("single", "double"):
        raise UserError(f"precision: got {options.precision!r}, expected single or double")
    if options.precision not in spec.objective.precisions:
        which = _listed([o.name for o in front_door() if options.precision in o.precisions])
        raise UserError(f"precision: for the {which} objectives, not {name}")
    if options.store is not None and not spec.objective.store:
        which = _listed([o.name for o in front_door() if o.store])
        raise UserError(f"store: for the {which} objectives, not {name}")
    if options.store is not None and spec.advise_args() and any(spec.params.values()):
        raise UserError(f"store: holds the table of every {name}; leave out {name}")


def _listed(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


def solve(game, spec: Spec, options: SolveOptions | None = None):
    """The table of ``spec`` for a compiled game: from the cache, or solved."""
    options = options or SolveOptions()
    check_options(spec, options)
    return spec.objective.load("solve")(game, spec, options)


def facts(rules, spec: Spec):
    """What the table of ``spec`` is before it is loaded or solved: the cache files
    that hold it and the cost of a first solve
    (:class:`~dicelab.engine.runtime.cost.Facts`)."""
    return spec.objective.load("facts")(rules, spec)


def using(game, spec: Spec, options: SolveOptions, use: Callable[[Any], T]) -> T:
    """``use(table)`` on the table of ``spec``, memory-mapped where it is cached; where
    the mapped table turns out damaged (a block's checksum fails as it is read), the
    table is loaded whole (the damage is seen, the table solved anew) and used again."""
    try:
        return use(solve(game, spec, replace(options, mapped=True)))
    except DamagedTable:
        return use(solve(game, spec, replace(options, mapped=False)))
