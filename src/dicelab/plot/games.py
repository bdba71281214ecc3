"""Pictures of the dice games on the chance model: Pig's roll or hold boundary."""

from __future__ import annotations

from pathlib import Path

from dicelab.games.chance.model import ChanceGame
from dicelab.games.chance.solution import ChanceSolution


def has_picture(game: ChanceGame) -> bool:
    """Whether :func:`plot_game` draws this game."""
    from dicelab.games.chance.pig import Pig

    return isinstance(game, Pig)


def plot_game(solution: ChanceSolution, path: Path) -> Path:
    """The picture of a solved game: Pig's hold boundary (the turn total at which
    best play holds, for every pair of scores). Raises ``ValueError`` for a game
    that has no picture yet."""
    from dicelab.games.chance.pig import Pig, hold_boundary

    if not isinstance(solution.game, Pig):
        raise ValueError(f"{solution.game.name}: no picture of this game yet (Pig has one)")
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
