"""A final-score distribution: its figures, and the expected-score optimum's kept.

:func:`dicelab.engine.objectives.distribution.score_distribution` works the distribution out;
:class:`ScoreDistribution` holds it and says what it means (mean, spread,
percentiles, chances). The expected-score optimum's is kept in the cache beside
its table (seconds of work for a few thousand numbers), so a second
``dicelab distribution`` and every objective that plays against it read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dicelab.errors import UserError
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules

PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)


@dataclass(repr=False)
class ScoreDistribution:
    """The distribution of the final score of a strategy.

    Attributes
    ----------
    pmf : ndarray
        ``pmf[x]`` is the probability of a final score of exactly ``x``.
    p_bonus : float or None
        Probability of earning the upper bonus (``None`` if the rules have none).
    p_all_same : float or None
        Probability that the all-dice-alike box (Yahtzee, Yatzy, Yacht) ends with
        points (``None`` if the rules have no such box).

    Examples
    --------
    >>> import dicelab
    >>> dist = dicelab.solve("yazy").distribution()
    >>> round(dist.mean, 4), dist.probability_at_least(0)
    (165.7573, 1.0)
    """

    rules: Rules
    pmf: np.ndarray
    p_bonus: float | None
    p_all_same: float | None
    all_same_box: str | None = None
    strategy: str = "expected-score optimum"
    seconds: float = 0.0
    meta: dict = field(default_factory=dict)

    @property
    def scores(self) -> np.ndarray:
        return np.arange(self.pmf.size)

    @property
    def total(self) -> float:
        """Sum of the probabilities (1 up to rounding)."""
        return float(self.pmf.sum())

    @property
    def mean(self) -> float:
        return float(np.dot(self.scores, self.pmf))

    @property
    def sd(self) -> float:
        m = self.mean
        return float(np.sqrt(np.dot((self.scores - m) ** 2, self.pmf)))

    @property
    def p_at_least(self) -> np.ndarray:
        """``p_at_least[s] = P(score >= s)`` for ``s = 0 .. best score``."""
        return np.cumsum(self.pmf[::-1])[::-1]

    @property
    def lowest(self) -> int:
        return int(np.flatnonzero(self.pmf > 0)[0])

    @property
    def highest(self) -> int:
        return int(np.flatnonzero(self.pmf > 0)[-1])

    def percentile(self, q: float) -> int:
        """Smallest score ``x`` with ``P(score <= x) >= q / 100``."""
        if not 0 <= q <= 100:
            raise UserError(f"percentile: got {q}, expected 0 to 100")
        cdf = np.cumsum(self.pmf) / self.total
        return int(np.searchsorted(cdf, q / 100 - 1e-12))

    def percentiles(self) -> dict[int, int]:
        return {q: self.percentile(q) for q in PERCENTILES}

    def probability_at_least(self, score: int) -> float:
        """``P(final score >= score)`` (1 at or below 0, 0 past the best score)."""
        if score <= 0:
            return 1.0
        return float(self.pmf[score:].sum())

    def __repr__(self) -> str:
        return (
            f"<ScoreDistribution {self.rules.name}: mean {self.mean:.4f}, sd {self.sd:.4f}, "
            f"{self.lowest} to {self.highest}>"
        )

    def to_dict(self) -> dict:
        """Every figure as plain data (the ``--json`` output)."""
        lo, hi = self.lowest, self.highest
        return {
            "rules": self.rules.name,
            "strategy": self.strategy,
            "mean": self.mean,
            "sd": self.sd,
            "total_probability": self.total,
            "percentiles": {str(q): v for q, v in self.percentiles().items()},
            "p_bonus": self.p_bonus,
            "all_same_box": self.all_same_box,
            "p_all_same": self.p_all_same,
            "min_score": lo,
            "max_score": hi,
            "pmf": self.pmf[lo : hi + 1].tolist(),
            "p_at_least": self.p_at_least[lo : hi + 1].tolist(),
            "seconds": round(self.seconds, 4),
        }


#: The cache's name for the expected-score optimum's distribution (a few thousand
#: probabilities, seconds of work: kept beside the tables).
CACHED_AS = ("distribution", {"strategy": "expected", "layout": "pmf-1"})
_KEPT = ("p_bonus", "p_all_same", "all_same_box", "seconds")


def keep_optimum(found: ScoreDistribution, peak_values: int) -> None:
    """Keep the expected-score optimum's distribution in the cache (written as a
    table is: atomically, with checksums)."""
    from dicelab.engine.runtime import cache

    rules, (objective, params) = found.rules, CACHED_AS
    header: dict = {"rules": rules.normalised(), "objective": objective, "params": params}
    header.update({k: getattr(found, k) for k in _KEPT}, peak_values=int(peak_values))
    found.meta["path"] = cache.store_table(cache.table_path(rules, *CACHED_AS), found.pmf, header)


def cached_optimum(game: CompiledRules) -> ScoreDistribution | None:
    """The expected-score optimum's distribution from the cache, if intact."""
    from dicelab.engine.runtime import cache

    found = cache.lookup(game.rules, CACHED_AS[0], None, CACHED_AS[1])
    if found is None:
        return None
    (pmf, meta), strategy = found, "expected-score optimum"
    kept = {k: meta["header"][k] for k in _KEPT}
    meta["peak_values"] = meta["header"]["peak_values"]
    return ScoreDistribution(game.rules, np.asarray(pmf), strategy=strategy, meta=meta, **kept)
