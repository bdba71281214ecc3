"""Simulated final scores as a histogram, beside the exact expected score."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from dicelab.errors import UserError

if TYPE_CHECKING:  # the simulator compiles kernels: not loaded to draw its result
    from dicelab.play.simulate import Simulation


def plot_scores(sim: Simulation, path: Path, bins: int = 20) -> None:
    """Histogram of the simulated scores, with the mean and the exact expectation."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    counts, edges = sim.histogram(max(bins, 40))
    fig = Figure(figsize=(8, 4.5))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.stairs(counts / sim.games, edges, fill=True, color="0.75")
    ax.axvline(sim.mean, color="tab:blue", label=f"simulated mean {sim.mean:.2f}")
    ax.axvline(
        sim.expected_score,
        color="tab:red",
        linestyle="--",
        label=f"exact expected score {sim.expected_score:.2f}",
    )
    ax.set_xlabel("final score")
    ax.set_ylabel("share of games")
    ax.set_title(f"{sim.rules}: {sim.games:,} games with the optimal strategy (seed {sim.seed})")
    ax.legend(fontsize="small")
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as exc:
        raise UserError(f"plot: cannot write {str(path)!r}: {exc.strerror}") from None
