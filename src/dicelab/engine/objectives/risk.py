"""Play safe or risky: the best expected utility of the final score.

A player who would rather be sure of a fair score than gamble for a high one (or
the other way round) maximises the expected utility of the final score ``s``

    u(s) = (1 - exp(-theta * s)) / theta

with ``theta > 0`` for playing safe, ``theta < 0`` for playing risky, and
``u(s) = s`` at ``theta = 0`` (the expected score). It is a utility of the final
score, so its table is a :class:`~dicelab.engine.objectives.utility.UtilityTable`
solved by the same points turn as the target and win tables, in double precision
(the utility spans many orders of magnitude). Values are given as *certainty
equivalents*: the sure score worth as much to the player as the gamble,
``u^-1(E[u(s)]) = -ln(1 - theta * E[u(s)]) / theta``, in points, so that options
compare in points at every ``theta`` (at ``theta = 0``, the expected final score).

>>> from dicelab.engine.objectives.risk import risk_table
>>> safe = risk_table("yazy", 0.05)
>>> safe.value() < 165.7573  # the average's certainty equivalent is below its mean
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from dicelab.engine.objectives.points import max_score
from dicelab.engine.objectives.utility import Utility, UtilityTable, _cached_utility
from dicelab.errors import UserError
from dicelab.rules.compiled import CompiledRules, as_game

if TYPE_CHECKING:
    from dicelab.engine.position import Advice, Position

OBJECTIVE_RISK = "risk"

#: The largest ``|theta| * score`` the utility may reach (``exp`` stays finite in
#: double precision far beyond it, and sums of such values keep their digits).
MOST_EXPONENT = 600.0


def risk_utility(rules, theta: float) -> Utility:
    """``u(s) = (1 - exp(-theta s)) / theta`` for every final score ``s`` the game can
    reach (``u(s) = s`` at ``theta = 0``)."""
    game = as_game(rules)
    top = max_score(game)
    if abs(theta) * top > MOST_EXPONENT:
        most = MOST_EXPONENT / top
        raise UserError(
            f"theta: got {theta:g}; with final scores up to {top} it must lie within "
            f"-{most:.3g} .. {most:.3g}"
        )
    s = np.arange(top + 1, dtype=np.float64)
    values = s if theta == 0 else -np.expm1(-theta * s) / theta
    return Utility(values, name=f"utility (theta {theta:g})")


def certainty_equivalent(utility: float | np.ndarray, theta: float):
    """The sure score whose utility is ``utility``: ``u^-1``."""
    if theta == 0:
        return utility
    return -np.log1p(-theta * np.asarray(utility, dtype=np.float64)) / theta


@dataclass(repr=False)
class RiskTable(UtilityTable):
    """The best expected utility of the final score for one ``theta``, over states
    and points so far; :meth:`value` and the advice speak in certainty equivalents."""

    theta: float = 0.0

    objective: ClassVar[str] = OBJECTIVE_RISK

    @property
    def summary(self) -> str:
        return f"certainty equivalent {self.value():.6f} (theta {self.theta:g})"

    def value(self, filled: int = 0, upper_total: int = 0, flag: int = 0, points: int = 0) -> float:
        """The certainty equivalent of the final score from a turn start with
        ``points`` so far under the best play for ``theta`` (the whole game's by
        default), in points.

        Examples
        --------
        >>> from dicelab.engine.objectives.risk import risk_table
        >>> round(risk_table("yazy", 0.05).value(), 2)
        141.17
        """
        utility = super().value(filled, upper_total, flag, points)
        return float(certainty_equivalent(utility, self.theta))

    def final_value(self, score: int, **params) -> float:
        """A finished game's score: a sure score is its own certainty equivalent."""
        return float(score)

    def advise(self, position: Position) -> Advice:
        """Every option of a position ranked by expected utility, each valued by its
        certainty equivalent in points, and its cost in those points.

        Examples
        --------
        >>> import dicelab
        >>> table = dicelab.solve("yazy", objective="risk", theta=0.05)
        >>> advice = table.advise(dicelab.Position(dice=(6, 6, 6, 2, 1), rerolls=2))
        >>> advice.best.label
        'keep 6 6 6'
        """
        advice = super().advise(position)  # in expected utilities: the stored values
        values = certainty_equivalent(np.array([o.value for o in advice.options]), self.theta)
        best = float(values.max())
        options = [
            replace(o, value=float(v), cost=max(0.0, best - float(v)))
            for o, v in zip(advice.options, values, strict=True)
        ]
        return replace(advice, options=options, win=False, value_key="certainty_equivalent")


def explain_points(advice: Advice, table: RiskTable) -> Advice:
    """Each option of a risk advice with a sentence: what it is worth as a sure score
    against the best option (the best against the second), and what it scores on
    average beside it: the price of the safety (or of the gamble) in expected points,
    from the expected-score table of the same rules."""
    from dicelab.engine.objectives.expected import expected_table
    from dicelab.engine.objectives.explain import ChanceExplanation, _capital, _doing, _instead
    from dicelab.engine.position import TIE

    mean = {o.key: o.value for o in expected_table(table.game).advise(advice.position).options}
    texts = []
    options = advice.options
    for i, o in enumerate(options):
        if len(options) == 1:
            texts.append(f"{_capital(_doing(o))} is the only choice.")
            continue
        other = options[1] if i == 0 else options[0]
        if abs(o.value - other.value) <= TIE:
            text = f"{_capital(_doing(o))} is as good as {_doing(other)}"
        elif i == 0:
            text = (
                f"{_capital(_doing(o))} is best: worth a sure {o.value:.2f} points to you, "
                f"against {other.value:.2f} for {_doing(other)}"
            )
        else:
            text = f"{_instead(o, other)} costs {o.cost:.2f} points of sure score"
        gap = mean[o.key] - mean[other.key]
        if abs(gap) >= 0.005:
            way = "more" if gap > 0 else "less"
            text += f", and scores {abs(gap):.2f} {way} on average ({mean[o.key]:.2f})"
        texts.append(text + ".")
    whys = (ChanceExplanation(o.value, t) for o, t in zip(options, texts, strict=True))
    return replace(advice, explanations=tuple(whys))


def report(table: RiskTable, options) -> dict:
    """What ``dicelab solve --objective risk`` prints: the certainty equivalent of the
    best play for ``theta``, beside that of the expected-score optimum (from its exact
    distribution), whose mean it is also given with."""
    from dicelab.engine.objectives.distribution import score_distribution

    dist = score_distribution(table.game, use_cache=options.cache, runner=options.runner)
    assert table.utility is not None
    scores = np.arange(dist.pmf.size)
    plain = float(certainty_equivalent(np.dot(dist.pmf, table.utility.at(scores)), table.theta))
    return {
        "rules": table.rules.name,
        "objective": OBJECTIVE_RISK,
        "theta": table.theta,
        "certainty_equivalent": table.value(),
        "expected_strategy_certainty_equivalent": plain,
        "expected_score": dist.mean,
        "values": table.n_values,
        "cached": table.cached,
        "solve_seconds": None if table.cached else round(table.seconds, 4),
        "table": table.meta.get("path"),
    }


def report_lines(out: dict) -> list[str]:
    """The report in words, a line each."""
    theta = out["theta"]
    how = "playing for the average"
    if theta != 0:
        how = "playing safe" if theta > 0 else "playing risky"
    took = "from the cache" if out["cached"] else f"solved in {out['solve_seconds']:.1f} s"
    return [
        f"{out['rules']}, {how} (theta {theta:g}): certainty equivalent "
        f"{out['certainty_equivalent']:.4f} points",
        f"  the expected-score strategy (mean {out['expected_score']:.4f}): certainty equivalent "
        f"{out['expected_strategy_certainty_equivalent']:.4f}",
        f"  (table of {out['values']:,} values, {took})",
    ]


def risk_table(
    rules,
    theta: float,
    use_cache: bool = True,
    progress=None,
    allow_large: bool = False,
    runner=None,
    mapped: bool = False,
) -> RiskTable:
    """The risk table of a rule set for ``theta``, from the cache when it holds one."""
    game = as_game(rules)
    utility = risk_utility(game, theta)
    fields = {"theta": float(theta)}
    name = (OBJECTIVE_RISK, fields)
    how = (use_cache, progress, allow_large, runner, mapped, np.float64)
    return _cached_utility(game, utility, name, RiskTable, fields, *how)


def required_theta(spec) -> float:
    """The spec's ``theta``; one line where it is missing."""
    theta = spec.params.get("theta")
    if theta is None:
        raise UserError("objective risk: give theta (> 0 plays safe, < 0 plays risky)")
    return float(theta)


def solve_objective(game: CompiledRules, spec, options) -> RiskTable:
    """The registry's solve (:mod:`dicelab.engine.registry`)."""
    return risk_table(
        game,
        required_theta(spec),
        **options.solver_kwargs("runner", "mapped"),
    )


def objective_facts(rules, spec):
    """The registry's facts: the table's file and a double-precision table over
    every points so far."""
    from dicelab.engine.objectives.utility import _utility_params, utility_layout
    from dicelab.engine.runtime import cache
    from dicelab.engine.runtime.cost import Facts, points_cost

    game = as_game(rules)
    theta = required_theta(spec)
    utility = risk_utility(game, theta)
    layout = utility_layout(game, utility)
    params = _utility_params({"theta": float(theta)}, layout, np.float64)
    path = cache.table_path(rules, OBJECTIVE_RISK, params)
    return Facts(((path,),), points_cost(rules, layout.size, itemsize=8))
