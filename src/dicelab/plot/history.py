"""A player's games over time: the final score and the loss per decision."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from dicelab.errors import UserError

if TYPE_CHECKING:
    from dicelab.play.history import Entry

#: Games averaged in the moving mean of the trend.
WINDOW = 10


def moving_mean(values: np.ndarray, window: int = WINDOW) -> np.ndarray:
    """Mean of each value with the ones before it, up to ``window`` of them."""
    sums = np.cumsum(np.concatenate([[0.0], values]))
    n = np.arange(1, values.size + 1)
    lo = np.maximum(0, n - window)
    return (sums[n] - sums[lo]) / (n - lo)


def plot_history(entries: list[Entry], path: Path, title: str) -> None:
    """Two panels over the games, oldest first: the final score, and the expected
    points lost per decision, each with its moving mean over :data:`WINDOW` games."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if not entries:
        raise UserError("history: no games kept yet, so no trend to draw")
    x = np.arange(1, len(entries) + 1)
    fig = Figure(figsize=(8, 5.5))
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1, sharex=True)
    for ax, values, label in (
        (top, np.array([e.score for e in entries], float), "final score"),
        (bottom, np.array([e.average_cost for e in entries]), "points lost per decision"),
    ):
        ax.plot(x, values, "o", color="0.6", markersize=3, label="each game")
        ax.plot(x, moving_mean(values), color="tab:blue", label=f"mean of the last {WINDOW}")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    from matplotlib.ticker import MaxNLocator

    bottom.xaxis.set_major_locator(MaxNLocator(integer=True))
    bottom.set_xlabel("game")
    bottom.set_ylim(bottom=0)
    top.legend(fontsize="small")
    top.set_title(title)
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as exc:
        raise UserError(f"plot: cannot write {str(path)!r}: {exc.strerror}") from None
