"""Beat an opponent: the best chance of a higher final score than a given distribution.

The opponent is a final-score distribution: a file of ``score probability`` lines
(:func:`read_opponent`), an array, or by default the expected-score optimum's own.
The chance to beat it (a tie counting half) is a utility of the final score, so the
table is a :class:`~dicelab.engine.objectives.utility.UtilityTable` solved by the same turn.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dicelab.engine.objectives.utility import UtilityTable, utility_table, win_utility
from dicelab.errors import UserError, parse_nested, read_user_file
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules, as_game

Progress = Callable[[int, int], None]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_opponent(path: str | Path) -> np.ndarray:
    """An opponent's final-score distribution from a file, as ``pmf[score]``.

    Accepted: the JSON written by ``dicelab distribution --json`` (``min_score`` and
    ``pmf``), JSON ``{"pmf": {"score": probability, ...}}``, or text lines
    ``score,probability`` (or separated by spaces; ``#`` starts a comment). The
    probabilities must be non-negative and sum to 1 (within 1e-6).
    """
    path = Path(path)
    name = f"opponent file {str(path)!r}"
    text = read_user_file(path, name)
    pairs: dict[int, float] = {}

    def put(score, prob, where: str) -> None:
        if isinstance(score, str):
            try:
                score = int(score)
            except ValueError:
                raise UserError(f"{name}: {where}: score {score!r} is not a whole number") from None
        if isinstance(score, float) and score.is_integer():
            score = int(score)
        if isinstance(score, bool) or not isinstance(score, int) or score < 0:
            raise UserError(f"{name}: {where}: score {score!r} must be a whole number >= 0")
        try:
            p = float(prob)
        except (TypeError, ValueError):
            raise UserError(f"{name}: {where}: probability {prob!r} is not a number") from None
        if not np.isfinite(p) or p < 0:
            raise UserError(f"{name}: {where}: probability {prob!r} must be a number >= 0")
        if score in pairs:
            raise UserError(f"{name}: {where}: score {score} is given twice")
        if score > 100_000:
            raise UserError(f"{name}: {where}: score {score} is implausibly large")
        pairs[score] = p

    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = parse_nested(json.loads, text, name)
        except json.JSONDecodeError as exc:
            raise UserError(f"{name}: not valid JSON: {exc}") from None
        pmf = data.get("pmf") if isinstance(data, dict) else None
        if isinstance(pmf, list):
            first = data.get("min_score", 0)
            if isinstance(first, bool) or not isinstance(first, int) or first < 0:
                raise UserError(f"{name}: min_score must be a whole number >= 0")
            for i, p in enumerate(pmf):
                put(first + i, p, f"pmf[{i}]")
        elif isinstance(pmf, dict):
            for k, p in pmf.items():
                put(k, p, f"pmf[{k!r}]")
        else:
            raise UserError(f"{name}: expected a 'pmf' list (with 'min_score') or mapping")
    else:
        for i, line in enumerate(text.splitlines(), start=1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.replace(",", " ").replace(";", " ").split()
            if len(parts) != 2:
                raise UserError(f"{name}: line {i}: expected 'score,probability'")
            if not pairs and i == 1 and not _is_number(parts[0]):
                continue  # a header line
            put(parts[0], parts[1], f"line {i}")
    if not pairs:
        raise UserError(f"{name}: no scores found")
    total = sum(pairs.values())
    if abs(total - 1.0) > 1e-6:
        raise UserError(f"{name}: the probabilities sum to {total:.9g}, expected 1")
    pmf = np.zeros(max(pairs) + 1)
    for s, p in pairs.items():
        pmf[s] = p
    return pmf / total


@dataclass
class WinReport:
    """Chances of beating an opponent: the best strategy and the expected-score one."""

    rules: Rules
    opponent: str
    opponent_mean: float
    opponent_sd: float
    win_probability: float
    expected_strategy_win_probability: float
    seconds: float
    table: UtilityTable | None = None

    def to_dict(self) -> dict:
        return {
            "rules": self.rules.name,
            "objective": "win",
            "opponent": self.opponent,
            "opponent_mean": self.opponent_mean,
            "opponent_sd": self.opponent_sd,
            "win_probability": self.win_probability,
            "expected_strategy_win_probability": self.expected_strategy_win_probability,
            "gain": self.win_probability - self.expected_strategy_win_probability,
            "seconds": round(self.seconds, 4),
            "cached": bool(self.table is not None and self.table.meta.get("cached")),
            "table": None if self.table is None else self.table.meta.get("path"),
        }


def solve_win(
    rules: Rules | CompiledRules | str,
    opponent: np.ndarray | str | Path | None = None,
    use_cache: bool = True,
    progress: Progress | None = None,
    allow_large: bool = False,
    runner=None,
    dtype: type = np.float32,
    mapped: bool = False,
) -> WinReport:
    """Maximise ``P(my score > opponent's) + P(tie) / 2`` against a score distribution.

    ``opponent`` is a ``pmf[score]`` array, a file (see :func:`read_opponent`) or
    ``None`` for the expected-score optimum's own distribution. The report puts the
    best win probability beside that of the expected-score strategy. ``runner``
    says where the solves run (see :mod:`dicelab.engine.runtime.schedule`); the table is
    single precision unless ``dtype`` says otherwise (chances within 1e-6);
    ``mapped``: a cached table is memory-mapped, as
    :func:`~dicelab.engine.objectives.utility.utility_table` reads it.
    """
    from dicelab.engine.objectives.distribution import score_distribution

    game = as_game(rules)  # compiled once, for every table below
    rules = game.rules
    start = time.perf_counter()
    if isinstance(opponent, (str, Path)):
        pmf = read_opponent(opponent)
        label = str(opponent)
    elif opponent is not None:
        pmf = np.asarray(opponent, dtype=np.float64)
        label = "given distribution"
    mine = score_distribution(game, use_cache=use_cache, runner=runner)
    if opponent is None:
        pmf = mine.pmf
        label = "the expected-score optimum (same rules)"
    utility = win_utility(pmf)
    table = utility_table(
        game,
        utility,
        use_cache=use_cache,
        progress=progress,
        allow_large=allow_large,
        runner=runner,
        dtype=dtype,
        mapped=mapped,
    )
    scores = np.arange(mine.pmf.size)
    plain = float(np.dot(mine.pmf, utility.at(scores)))
    x = np.arange(pmf.size)
    mean = float(np.dot(x, pmf))
    sd = float(np.sqrt(np.dot((x - mean) ** 2, pmf)))
    return WinReport(
        rules=rules,
        opponent=label,
        opponent_mean=mean,
        opponent_sd=sd,
        win_probability=table.start_value,
        expected_strategy_win_probability=plain,
        seconds=time.perf_counter() - start,
        table=table,
    )


def solve_objective(game: CompiledRules, spec, options) -> UtilityTable:
    """The registry's solve: the table that plays to beat the opponent (by default
    the expected-score optimum's own distribution)."""
    from dicelab.engine.objectives.target import points_dtype

    return solve_win(
        game,
        spec.params.get("opponent"),
        dtype=points_dtype(options),
        **options.solver_kwargs("runner", "mapped"),
    ).table  # type: ignore[return-value]  # a report of solve_win always holds it


def objective_facts(rules: Rules, spec):
    """The registry's facts: no file known before the opponent's distribution is,
    and the cost of a table over every points so far."""
    from dataclasses import replace

    from dicelab.engine.objectives.points import needed_size
    from dicelab.engine.runtime.cost import Facts, expected_cost, points_cost

    points = points_cost(rules, needed_size(as_game(rules)), itemsize=4)
    return Facts((), replace(points, seconds=points.seconds + expected_cost(rules).seconds))
