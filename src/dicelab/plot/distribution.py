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
    title = (f"{dist.rules.name}: final score under the {dist.strategy} "
             f"(sd {dist.sd:.2f}, P(bonus) {dist.p_bonus or 0:.3f})")  # fmt: skip
    return _finish(fig, ax, title, path)


#: One colour per rule set of an overlaid plot (then round again).
COLOURS = ("#4c72b0", "#c44e52", "#55a868", "#8172b2", "#ccb974", "#64b5cd", "#937860")


def plot_distributions(dists: list[ScoreDistribution], path: str | Path) -> Path:
    """Write the final-score distributions of several rule sets overlaid in one figure,
    each as a step line with its mean marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    lo = min(d.percentile(0.01) for d in dists)
    hi = max(d.percentile(99.99) for d in dists)
    fig, ax = plt.subplots(figsize=(10, 5), dpi=110)
    for i, dist in enumerate(dists):
        colour = COLOURS[i % len(COLOURS)]
        xs = np.arange(lo, hi + 1)
        ys = np.zeros(xs.size)
        top = min(hi + 1, dist.pmf.size)
        ys[: max(top - lo, 0)] = dist.pmf[lo:top]
        label = f"{dist.rules.name}: mean {dist.mean:.2f}, sd {dist.sd:.2f}"
        ax.step(xs, ys, where="mid", color=colour, lw=1.3, label=label)
        ax.axvline(dist.mean, color=colour, lw=1, ls="--")
    ax.set_xlim(lo - 1, hi + 1)
    ax.set_ylim(bottom=0)
    return _finish(fig, ax, "final score under the expected-score optimum (dashed: means)", path)


def _finish(fig, ax, title: str, path: Path) -> Path:
    """The axes of a final-score picture named and the figure written to ``path``
    (a path that cannot be written is one clear error)."""
    import matplotlib.pyplot as plt

    ax.set_xlabel("final score")
    ax.set_ylabel("probability")
    ax.set_title(title)
    ax.legend(loc="upper right")
    fig.tight_layout()
    try:
        fig.savefig(path)
    except (OSError, ValueError) as exc:
        raise UserError(f"plot: cannot write {path}: {exc}") from None
    finally:
        plt.close(fig)
    return Path(path)
