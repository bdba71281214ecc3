"""Pictures of the dice games on the chance model: Pig's roll or hold boundary."""

from __future__ import annotations

from pathlib import Path

from dicelab.games.chance.model import ChanceGame
from dicelab.games.chance.solution import ChanceSolution


def has_picture(game: ChanceGame) -> bool:
    """Whether :func:`plot_game` draws this game."""
    from dicelab.games.chance.bearoff import BearOff
    from dicelab.games.chance.pig import Pig

    return isinstance(game, Pig) or (isinstance(game, BearOff) and game.players == 1)


def plot_game(solution: ChanceSolution, path: Path) -> Path:
    """The picture of a solved game: Pig's hold boundary (the turn total at which
    best play holds, for every pair of scores), or one side's bear-off: the chance
    of each number of throws. Raises ``ValueError`` for a game with no picture yet."""
    from dicelab.games.chance.pig import Pig, hold_boundary

    if not has_picture(solution.game):
        raise ValueError(f"{solution.game.name}: no picture of this game yet")
    if not isinstance(solution.game, Pig):
        return _plot_throws(solution, path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    boundary = hold_boundary(solution)
    fig, ax = plt.subplots(figsize=(7, 5.6))
    shown = ax.imshow(np.ma.masked_invalid(boundary), origin="lower", cmap="viridis",
                      aspect="auto")  # fmt: skip
    fig.colorbar(shown, ax=ax, label="hold once the turn total reaches")
    ax.set_xlabel("the other player's score")
    ax.set_ylabel("your score")
    ax.set_title(f"{solution.game.name}: when best play holds "
                 f"(blank: roll on to the goal)")  # fmt: skip
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _plot_throws(solution: ChanceSolution, path: Path) -> Path:
    """One side's bear-off: the chance of needing each number of throws."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from dicelab.games.chance.bearoff_layout import throws_distribution

    dist = throws_distribution(solution)
    last = int(np.flatnonzero(dist > 1e-6).max()) + 1
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.bar(np.arange(last), dist[:last], color="#2f6fdb")
    mean = solution.value()
    ax.axvline(mean, color="black", linestyle="--", linewidth=1, label=f"mean {mean:.3f}")
    ax.set_xlabel("throws to bear off, best play")
    ax.set_ylabel("chance")
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    checkers = solution.game.show(solution.game.start()).split(";")[0]
    ax.set_title(f"bear-off, {checkers}: the throws it takes")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
