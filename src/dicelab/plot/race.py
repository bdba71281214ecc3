"""Pictures of the dice race: the sum distribution with the chosen numbers, and results.

Figures are drawn with matplotlib's object interface on the Agg canvas, so nothing
depends on a display or on pyplot's global state.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from dicelab.errors import UserError
from dicelab.games.race.exact import Dice, RaceResult
from dicelab.games.race.search import BestList
from dicelab.games.race.simulate import Simulation


def _distribution(ax, dice: Dice, lists: dict[str, tuple[int, ...]]) -> None:
    """Bars of the sum chances, and beside them how often each list picks each sum."""
    sums = np.array(dice.sums)
    ax.bar(sums, np.array(dice.ways) / dice.throws, width=0.85, color="0.85")
    ax.set_xlabel("sum")
    ax.set_ylabel("chance per throw")
    ax.set_xticks(sums if len(sums) <= 25 else sums[:: max(1, len(sums) // 20)])
    if lists:
        twin = ax.twinx()
        width = 0.6 / len(lists)
        for k, (name, numbers) in enumerate(lists.items()):
            counts = [numbers.count(s) for s in dice.sums]
            offset = (k - (len(lists) - 1) / 2) * width
            twin.bar(sums + offset, counts, width=width * 0.9, alpha=0.8, label=name)
        twin.set_ylabel("copies on the list")
        twin.yaxis.get_major_locator().set_params(integer=True)
        twin.legend(loc="upper right", fontsize="small")
    ax.set_title(f"Sums of {dice.describe()}")


def _save(fig: Figure, path: str | Path) -> Path:
    """Write the figure; a bad path or format is the user's mistake."""
    path = Path(path)
    FigureCanvasAgg(fig)
    try:
        fig.savefig(path, dpi=120, bbox_inches="tight")
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot write the plot to {str(path)!r}: {exc}") from None
    return path


def plot_race(result: RaceResult, path: str | Path, sim: Simulation | None = None) -> Path:
    """Sum distribution with both lists, and the exact (and simulated) outcome chances."""
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]})
    shown = {f"A {list(result.a)}": result.a, f"B {list(result.b)}": result.b}
    _distribution(left, result.dice, shown)
    names = ["A wins", "tie", "B wins"]
    exact = [float(result.win), float(result.tie), float(result.lose)]
    y = np.arange(3)
    right.barh(y, exact, color=["tab:blue", "0.6", "tab:orange"], label="exact")
    if sim is not None:
        est = [sim.estimate(k) for k in ("win", "tie", "lose")]
        right.errorbar(
            [p for p, _ in est],
            y,
            xerr=[4 * se for _, se in est],
            fmt="o",
            color="k",
            capsize=4,
            label=f"simulated, {sim.games} games (±4 s.e.)",
        )
        right.legend(loc="lower right", fontsize="small")
    for yi, p in zip(y, exact, strict=True):
        right.text(p, yi, f" {p:.4f}", va="center")
    right.set_yticks(y, names)
    right.set_xlim(0, 1)
    right.invert_yaxis()
    right.set_title("Outcome of A against B")
    return _save(fig, path)


def plot_best(best: BestList, path: str | Path) -> Path:
    """Sum distribution with the best list, and its payoff against every other list."""
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    if best.pure:
        shown = {f"best {list(best.winners[0])}": best.winners[0]}
        title = f"{list(best.winners[0])} against every other list"
    else:
        shown = {f"{list(x)} ({p:.2f})": x for x, p in best.mixed[:3]}
        title = "optimal mix against every list"
    _distribution(left, best.dice, shown)
    if best.row is not None:
        values = np.sort(best.row)
        right.plot(np.arange(values.size), values, lw=1.5)
        right.axhline(0, color="0.5", lw=0.8)
        right.set_xlabel(f"the {values.size} lists, strongest opponent first")
        right.set_ylabel("P(win) - P(lose)")
    right.set_title(title)
    return _save(fig, path)
