"""The door-lock card game's picture: every position, coloured by who wins."""

from __future__ import annotations

from pathlib import Path

from dicelab.errors import UserError
from dicelab.games.door import DoorGame, cards_label, position_table
from dicelab.games.twoplayer import Solution, Value

_COLOURS = {Value.WIN: "#3a7dc9", Value.LOSS: "#e4572e", Value.DRAW: "#b0b0b0"}
_LEGEND = {
    Value.WIN: "second player wins",
    Value.LOSS: "first player wins",
    Value.DRAW: "draw",
}


def write_plot(solution: Solution, path) -> None:
    """Draw the position table as coloured squares (format from the file name)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import ListedColormap
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    path = Path(path)
    formats = FigureCanvasAgg.get_supported_filetypes()
    if path.suffix.lstrip(".").lower() not in formats:
        raise UserError(
            f"cannot draw to {path}: the file name must end in one of "
            f"{', '.join('.' + name for name in sorted(formats))}"
        )
    table = position_table(solution)
    shown = [value for value in _COLOURS if any(value in row for row in table.cells)]
    codes: dict = {value: i for i, value in enumerate(shown)}
    grid = [[codes.get(cell, -1) for cell in row] for row in table.cells]
    import numpy as np

    image = np.ma.masked_less(np.array(grid, dtype=float), 0)
    width = min(40.0, 2.5 + 0.28 * len(table.columns))
    height = min(40.0, 2.0 + 0.26 * len(table.rows))
    figure = Figure(figsize=(width, height))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    colours = ListedColormap([_COLOURS[value] for value in shown] or ["white"])
    axes.imshow(image, cmap=colours, vmin=-0.5, vmax=max(len(shown), 1) - 0.5, aspect="auto")
    axes.set_xlabel("cards the second player has played")
    axes.set_ylabel("cards the first player has played")
    axes.xaxis.set_label_position("top")
    axes.xaxis.tick_top()
    if len(table.columns) <= 200:
        axes.set_xticks(range(len(table.columns)), map(cards_label, table.columns), rotation=90)
    if len(table.rows) <= 200:
        axes.set_yticks(range(len(table.rows)), map(cards_label, table.rows))
    axes.tick_params(labelsize=7)
    game = solution.game
    assert isinstance(game, DoorGame)
    axes.set_title(
        f"Door game: {cards_label(game.first_hand)} vs {cards_label(game.second_hand)}, "
        f"target {game.target}, bust {game.bust}",
        pad=12,
    )
    figure.legend(
        handles=[Patch(color=_COLOURS[value], label=_LEGEND[value]) for value in shown],
        loc="lower center",
        ncols=len(shown) or 1,
        frameon=False,
    )
    figure.tight_layout(rect=(0, 0.04, 1, 1))
    try:
        figure.savefig(path, dpi=120)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}") from None
