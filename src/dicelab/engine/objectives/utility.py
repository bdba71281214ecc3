"""Utility tables: the best expected utility of the final score, over points so far.

A utility ``U`` of the final score (:class:`Utility`) is maximised in expectation,
``E[U(score)]``, with the points so far as the lanes of the shared points turn
(:func:`dicelab.engine.objectives.target.solve_points`); rows are cut where ``U`` is constant.
Two utilities have names of their own: :func:`step_utility` (reach a target: the
value is ``P(score >= S)``, the table of one target, :class:`OneTargetTable`) and
:func:`win_utility` (beat an opponent whose score distribution is known, ties
counting half).

>>> from dicelab.engine.objectives.utility import solve_utility, step_utility
>>> table = solve_utility("yazy", step_utility("yazy", 280))
>>> table.start_value > 0
True
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from dicelab.engine.objectives.points import (
    PointsLayout,
    needed_size,
    so_far_layout,
    so_far_size,
    state_bounds,
)
from dicelab.engine.objectives.target import (
    OBJECTIVE_TARGET,
    SO_FAR,
    PointsTable,
    Progress,
    TargetTable,
    _target_params,
    check_target,
    points_dtype,
    points_turn_values,
    solve_points,
    target_table,
    target_turn,
)
from dicelab.engine.runtime.cost import points_cost
from dicelab.errors import UserError
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, as_game

if TYPE_CHECKING:
    from dicelab.engine.position import Advice, Position


@dataclass
class Utility:
    """A utility of the final score: ``values[x]`` for ``x = 0 .. len - 1``.

    Scores beyond the last entry take the last value.
    """

    values: np.ndarray
    name: str = "utility"

    def __post_init__(self) -> None:
        v = np.asarray(self.values, dtype=np.float64)
        if v.ndim != 1 or v.size == 0 or not np.all(np.isfinite(v)):
            raise UserError("utility: expected a non-empty list of finite numbers")
        self.values = v

    def at(self, x: np.ndarray) -> np.ndarray:
        return self.values[np.clip(x, 0, self.values.size - 1)]

    @property
    def flat_below(self) -> int:
        """Largest ``x`` with ``U`` constant on ``0 .. x``."""
        v = self.values
        diff = np.flatnonzero(v != v[0])
        return int(diff[0] - 1) if diff.size else v.size - 1

    @property
    def flat_from(self) -> int:
        """Smallest ``x`` with ``U`` constant from ``x`` on."""
        v = self.values
        diff = np.flatnonzero(v != v[-1])
        return int(diff[-1] + 1) if diff.size else 0

    @property
    def row_ends(self) -> tuple[int, int]:
        """The points where a table's rows end: ``flat_below``, and ``flat_from`` (one
        point higher at least); below and above them the utility is constant."""
        return self.flat_below, max(self.flat_from, self.flat_below + 1)

    @property
    def rising(self) -> bool:
        """More points never lower the utility (a target, beating an opponent)."""
        return bool(np.all(np.diff(self.values) >= 0))

    def bounds(self) -> tuple[float, float]:
        """The utility below and above a table's rows (see :attr:`row_ends`)."""
        low, high = self.row_ends
        return float(self.at(np.array([low]))[0]), float(self.at(np.array([high]))[0])

    def key(self) -> str:
        """Checksum of the values, naming a cached table."""
        return hashlib.sha256(self.values.tobytes()).hexdigest()[:24]


def step_utility(rules: Rules | CompiledRules | str, target: int) -> Utility:
    """``U(x) = 1`` for ``x >= target``: the value is ``P(score >= target)``."""
    game = as_game(rules)
    check_target(game, target)
    v = np.zeros(max(target, 0) + 1)
    v[target:] = 1.0
    return Utility(v, name=f"target {target}")


def win_utility(opponent_pmf: np.ndarray) -> Utility:
    """``U(x) = P(opp < x) + P(opp = x) / 2`` for an opponent's score distribution."""
    p = np.asarray(opponent_pmf, dtype=np.float64)
    below = np.concatenate([[0.0], np.cumsum(p)[:-1]])
    v = np.concatenate([below + p / 2, [below[-1] + p[-1]]])
    return Utility(v, name="win")


@dataclass(repr=False)
class UtilityTable(PointsTable):
    """Best expected utility of the final score, over states and points so far.

    Examples
    --------
    >>> import dicelab
    >>> table = dicelab.solve("yazy", objective="win")  # against the optimum's own scores
    >>> 0.5 < table.value() < 0.51
    True
    """

    utility: Utility | None = None

    objective: ClassVar[str] = "utility"

    @property
    def summary(self) -> str:
        name = self.utility.name if self.utility is not None else "utility"
        return f"best expected {name} {self.start_value:.6f}"

    def final_value(self, score: int, *args: Any, **params: Any) -> float:
        """The utility of a finished game's score."""
        assert self.utility is not None
        return float(self.utility.at(np.array(score)))

    def turn_values(self, filled, upper_total, flag, score, rerolls, *args: Any, **params: Any):
        """The turn's expected utilities with ``score`` so far: for a win table the
        chance to beat the opponent (a tie counting half)."""
        return points_turn_values(self, filled, upper_total, flag, score), 0.0

    def advice_fields(self, *args: Any, **params: Any) -> dict:
        return {"win": True}


def solve_utility(
    rules: Rules | CompiledRules | str,
    utility: Utility,
    start: tuple[int, int, int, int] | None = None,
    layout: PointsLayout | None = None,
    **how: Any,
) -> UtilityTable:
    """Solve for the best expected utility of the final score. With ``start``
    (``(mask, flag, capped upper total, points)``), only the rest of the game from
    that turn start: the other states' values are not worked out. ``layout``: the
    rows, where the caller has laid them out already (:func:`utility_layout` of the
    same utility and start). ``how``: how the
    points are solved, as :func:`~dicelab.engine.objectives.target.solve_points`
    takes it (``progress``, ``width``, ``allow_large``, ``runner``, ``store``, and
    ``dtype``, double by default: :func:`utility_table` keeps single precision, as
    :func:`target_table`)."""
    game = as_game(rules)
    layout = layout if layout is not None else utility_layout(game, utility, start)
    bounds = state_bounds(game)
    below, above = utility.bounds()
    began = time.perf_counter()

    def terminal(points: np.ndarray, u: np.ndarray) -> np.ndarray:
        return utility.at(points + bounds.bonus_of(u))

    T = solve_points(game, layout, SO_FAR, (below, above), terminal, rising=utility.rising, **how)
    seconds = time.perf_counter() - began
    return UtilityTable(game, layout, T, SO_FAR, below, above, seconds=seconds, utility=utility)


OBJECTIVE_UTILITY = "utility"


def utility_table(
    rules: Rules | CompiledRules | str,
    utility: Utility,
    use_cache: bool = True,
    progress: Progress | None = None,
    allow_large: bool = False,
    runner=None,
    mapped: bool = False,
    dtype: type = np.float32,
) -> UtilityTable:
    """The utility table of a rule set, from the cache when it holds one for this
    utility (``mapped``: memory-mapped, as :func:`target_table`)."""
    name = (OBJECTIVE_UTILITY, {"utility": utility.key()})
    how = (use_cache, progress, allow_large, runner, mapped, dtype)
    return _cached_utility(as_game(rules), utility, name, UtilityTable, {}, *how)


def _cached_utility(
    game,
    utility,
    name,
    cls,
    fields,
    use_cache=True,
    progress=None,
    allow_large=False,
    runner=None,
    mapped=False,
    dtype=np.float32,
):
    """A utility table of class ``cls`` (with ``fields``), cached under ``name``: the
    objective and the parameters, to which the row ranges and the precision are
    added. The rest as :func:`utility_table` takes it."""
    from dicelab.engine.runtime import cache

    objective, params = name
    how = {"progress": progress, "allow_large": allow_large, "runner": runner}
    if use_cache and not cache.holds_any(game.rules, objective):  # nothing to look up:
        size = so_far_size(game, *utility.row_ends)  # sized before anything is built
        points_cost(game.rules, size, np.dtype(dtype).itemsize).check(allow_large)
    layout = utility_layout(game, utility)
    below, above = utility.bounds()
    into = None
    params = _utility_params(params, layout, dtype)
    if use_cache:
        found = cache.lookup(game.rules, objective, (layout.size,), params, mapped=mapped)
        if found is not None:
            values, meta = found
            return cls(
                game, layout, values, SO_FAR, below, above, meta=meta, utility=utility, **fields
            )
        if layout.size * np.dtype(dtype).itemsize >= SOLVED_IN_FILE:
            path = cache.table_path(game.rules, objective, params)
            into = cache.table_file(path, (layout.size,), dtype)
    try:
        solved = solve_utility(game, utility, layout=layout, dtype=dtype, store=into, **how)
    except BaseException:
        if into is not None:
            into.discard()
        if use_cache:
            cache.give_up(game.rules, objective, params)
        raise
    table = cls(
        game,
        layout,
        solved.values,
        SO_FAR,
        below,
        above,
        seconds=solved.seconds,
        utility=utility,
        **fields,
    )
    cache.remember(table, game.rules, objective, params, use_cache, into=into)
    return table


#: Tables of at least this many bytes are solved straight into their cache file
#: (:class:`dicelab.engine.runtime.cache.TableFile`): no second copy on the way to the disk.
SOLVED_IN_FILE = 64 << 20


@dataclass(repr=False)
class OneTargetTable(UtilityTable):
    """``P(final score >= target)`` under the best play for one ``target``.

    A utility table over points so far: its rows stop where the target is reached
    or out of reach, so it holds a fraction of the table of every target (a quarter
    for Yahtzee at 250) and solves in as much less time. It answers its own target
    only; :class:`TargetTable` answers all of them.

    Examples
    --------
    >>> from dicelab.engine.objectives.utility import one_target_table
    >>> table = one_target_table("yazy", 200)
    >>> 0 < table.probability(200) < 1
    True
    """

    target: int = 0

    objective: ClassVar[str] = OBJECTIVE_TARGET

    @property
    def summary(self) -> str:
        return f"best P(score >= {self.target}) {self.start_value:.6f}"

    def check(self, target: int) -> None:
        """A question about another target gets one line naming the table's own."""
        check_target(self.game, target)
        if target != self.target:
            raise UserError(
                f"target: this table answers P(score >= {self.target}) only, not {target}"
            )

    def probability(self, target: int) -> float:
        """Best probability of a final score of at least ``target`` (its own)."""
        self.check(target)
        return self.start_value

    def lane_points(self, score: int, target: int) -> int:
        """The row point of a position with ``score`` so far: that score."""
        self.check(target)
        return score

    def outlook(
        self, filled: int, upper_total: int, flag: int, score: int, target: int | None = None
    ) -> float:
        """The best chance of the target from a turn start with ``score`` so far."""
        target = self.target if target is None else target
        return self.value(filled, upper_total, flag, self.lane_points(score, target))

    def final_value(self, score: int, target: int | None = None) -> float:
        """1 where a finished game reached the target, else 0."""
        return float(score >= (self.target if target is None else target))

    def advise(self, position: Position, *, target: int | None = None) -> Advice:
        """Every option of a position ranked by its chance of reaching the target."""
        return super().advise(position, target=self.target if target is None else target)

    def turn_values(self, filled, upper_total, flag, score, rerolls, *, target: int):
        """The turn's chances of the target from ``score`` so far."""
        return target_turn(self, filled, upper_total, flag, score, target), 0.0

    def advice_fields(self, *, target: int) -> dict:
        return {"target": target}


def one_target_table(rules: Rules | CompiledRules | str, target: int, **how: Any) -> OneTargetTable:
    """The table of one target, from the cache when it holds one (see
    :class:`OneTargetTable`); ``how``: as :func:`utility_table` takes it
    (``use_cache``, ``progress``, ``allow_large``, ``runner``, ``mapped``, ``dtype``)."""
    game = as_game(rules)
    check_target(game, target)
    fields = {"target": int(target)}
    name = (OBJECTIVE_TARGET, fields)
    return _cached_utility(game, step_utility(game, target), name, OneTargetTable, fields, **how)


def reach_table(
    rules: Rules | CompiledRules | str,
    target: int,
    use_cache: bool = True,
    progress: Progress | None = None,
    every: bool = False,
    **options,
) -> TargetTable | OneTargetTable:
    """The quickest table that answers ``P(final score >= target)``.

    The table of every target when the cache holds it (or with ``every``), else the
    table of this one target, cached or solved. ``options`` go to
    :func:`target_table` or :func:`one_target_table` (``mapped``, ``allow_large``,
    ``runner``, ``dtype``).
    """
    game = as_game(rules)
    check_target(game, target)
    if every or (use_cache and every_target_cached(game, options.get("dtype", np.float32))):
        return target_table(game, use_cache=use_cache, progress=progress, **options)
    return one_target_table(game, target, use_cache=use_cache, progress=progress, **options)


def target_paths(rules: Rules | CompiledRules | str, target: int | None, dtype=np.float32):
    """Where the cache keeps a table that answers ``target``: the file of the table of
    every target, then (for one ``target``) that of its own table."""
    from dicelab.engine.runtime import cache

    game = as_game(rules)
    paths = [cache.table_path(game.rules, OBJECTIVE_TARGET, _target_params(game, dtype))]
    if target is not None:
        params = _utility_params({"target": int(target)}, one_target_layout(game, target), dtype)
        paths.append(cache.table_path(game.rules, OBJECTIVE_TARGET, params))
    return paths


def every_target_cached(rules: Rules | CompiledRules | str, dtype: type = np.float32) -> bool:
    """Whether the cache holds a file for the table of every target (its checks come
    when it is read)."""
    from dicelab.engine.runtime import cache

    if not cache.holds_any(as_game(rules).rules, OBJECTIVE_TARGET):
        return False  # (without working out the key of its rows)
    return target_paths(rules, None, dtype)[0].exists()


def reach_cached(rules: Rules | CompiledRules | str, target: int, dtype: type = np.float32) -> bool:
    """Whether the cache holds a file for a table that answers ``target``: the table
    of every target, or of this one."""
    from dicelab.engine.runtime import cache

    if not cache.holds_any(as_game(rules).rules, OBJECTIVE_TARGET):
        return False  # (without working out the keys of their rows)
    return any(path.exists() for path in target_paths(rules, target, dtype))


def _utility_params(params: dict, layout: PointsLayout, dtype: type) -> dict:
    """The cache parameters of a utility table: its own, its rows and its precision."""
    return {**params, "rows": layout.key(), "dtype": np.dtype(dtype).name}


def one_target_layout(rules: Rules | CompiledRules | str, target: int) -> PointsLayout:
    """The rows of the table of one target (points so far, ``target - to come`` up
    to ``target - 1``)."""
    game = as_game(rules)
    return utility_layout(game, step_utility(game, target))


def utility_layout(game: CompiledRules, utility: Utility, start=None) -> PointsLayout:
    """The rows of a utility table: points so far, cut where the utility is constant
    (with ``start``, only the states that can follow that turn start: see
    :func:`~dicelab.engine.objectives.points.so_far_layout`)."""
    return so_far_layout(game, *utility.row_ends, start=start)


def target_objective(game: CompiledRules, spec, options):
    """The registry's solve: the quickest table that answers the target (see
    :func:`~dicelab.engine.objectives.utility.reach_table`), or without one the table
    of every target."""
    how = options.solver_kwargs("runner", "mapped") | {"dtype": points_dtype(options)}
    target = spec.params.get("target")
    if target is not None:
        return reach_table(game, target, **how)
    return target_table(game, store=options.store, **how)


def target_facts(rules: Rules, spec):
    """The registry's facts: the files that answer the target, and the cost of a
    first solve (the expected-score table first, for the strategy's own chance)."""
    from dataclasses import replace

    from dicelab.engine.runtime.cost import Facts, expected_cost

    game = as_game(rules)
    target = spec.params.get("target")
    if target is None:
        size = needed_size(game)
    else:
        size = so_far_size(game, *step_utility(game, target).row_ends)
    points = points_cost(rules, size, itemsize=4)
    cost = replace(points, seconds=points.seconds + expected_cost(rules).seconds)
    return Facts(tuple((p,) for p in target_paths(rules, target)), cost)
