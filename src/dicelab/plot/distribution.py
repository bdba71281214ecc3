"""The final-score distribution as a histogram, its mean and percentiles marked."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from dicelab.engine.objectives.scores import ScoreDistribution
from dicelab.errors import UserError


def plot_distribution(dist: ScoreDistribution, path: str | Path) -> Path:
    """Write a histogram of the final score with the mean and percentiles marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    lo, hi = dist.percentile(0.01), dist.percentile(99.99)
    xs = np.arange(lo, hi + 1)
    fig, ax = plt.subplots(figsize=(10, 5), dpi=110)
    ax.bar(xs, dist.pmf[lo : hi + 1], width=1.0, color="#4c72b0", linewidth=0)
    top = float(dist.pmf[lo : hi + 1].max())
    ax.axvline(dist.mean, color="#c44e52", lw=2, label=f"mean {dist.mean:.2f}")
    for q, x in dist.percentiles().items():
        if q in (5, 25, 50, 75, 95):
            ax.axvline(x, color="#555555", lw=1, ls="--")
            ax.text(x, top * 1.02, f"p{q}\n{x}", ha="center", va="bottom", fontsize=8)
    ax.set_xlim(lo - 1, hi + 1)
    ax.set_ylim(0, top * 1.18)
    ax.set_xlabel("final score")
    ax.set_ylabel("probability")
    ax.set_title(
        f"{dist.rules.name}: final score under the {dist.strategy} "
        f"(sd {dist.sd:.2f}, P(bonus) {dist.p_bonus or 0:.3f})"
    )
    ax.legend(loc="upper right")
    fig.tight_layout()
    try:
        fig.savefig(path)
    except (OSError, ValueError) as exc:
        raise UserError(f"plot: cannot write {path}: {exc}") from None
    finally:
        plt.close(fig)
    return path
