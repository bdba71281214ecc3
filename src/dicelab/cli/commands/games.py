"""``dicelab race``, ``assign``, ``door`` and ``tictactoe``: the games beside the Yahtzee family."""

from __future__ import annotations

import typer

from dicelab.cli.app import app


@app.command()
def race(
    lists: list[str] = typer.Argument(
        ...,
        metavar="A B | best",
        help="Two lists such as 5,6,7,8,9 5,6,7,7,8, or the word best.",
    ),
    dice: int = typer.Option(2, "--dice", help="Number of dice thrown together."),
    faces: int = typer.Option(6, "--faces", help="Faces per die."),
    picks: int | None = typer.Option(None, "--picks", help="Numbers per list (race best)."),
    simulate: bool = typer.Option(False, "--simulate", help="Also simulate, as a cross-check."),
    seed: int = typer.Option(0, "--seed", help="Seed of the simulation."),
    min_games: int = typer.Option(1_000, "--min-games", help="Simulate at least this many."),
    max_games: int = typer.Option(100_000, "--max-games", help="Simulate at most this many."),
    share: float = typer.Option(
        0.75, "--share", help="Stop simulating once the leader won this share of decided games."
    ),
    start: str | None = typer.Option(
        None, "--start", help="Start list of the substitution search (race best)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    plot: str | None = typer.Option(None, "--plot", help="Write a plot to this file (.png, .svg)."),
) -> None:
    """The dice race: exact win/lose/tie chances of two lists, or the best list."""
    from pathlib import Path

    from dicelab.cli.race import run_race

    settings = dict(seed=seed, min_games=min_games, max_games=max_games, decisive_share=share)
    run_race(
        lists,
        dice=dice,
        faces=faces,
        picks=picks,
        simulation=settings if simulate else None,
        start=start,
        as_json=as_json,
        plot=Path(plot) if plot else None,
    )


@app.command("assign")
def assign_command(
    file: str | None = typer.Argument(
        None, help="File of rolls, one per line, one line per box per game (default: stdin)."
    ),
    rules: str = typer.Option(
        "uva10149", "--rules", help="Built-in rule set or path to a rules file."
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Print each game's total, bonus and the roll in each box."
    ),
) -> None:
    """Best scoring of known rolls: each game's box scores, bonus and total."""
    from dicelab.cli.assign import run_assign

    run_assign(file, rules=rules, as_json=as_json)


@app.command("door")
def door_command(
    hand: str = typer.Option("1 2 3 4 5", "--hand", help="Each player's cards, e.g. '1 2 3 4 5'."),
    second_hand: str | None = typer.Option(
        None, "--second-hand", help="The second player's cards, if not the same."
    ),
    target: int = typer.Option(23, "--target", help="Exact sum at which the second player wins."),
    bust: int = typer.Option(24, "--bust", help="Sum at or above which the first player wins."),
    csv: str | None = typer.Option(None, "--csv", help="Write the table of every position here."),
    plot: str | None = typer.Option(None, "--plot", help="Draw that table to this file (.png)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    allow_large: bool = typer.Option(
        False, "--allow-large", help="Solve even what this machine is not expected to finish."
    ),
) -> None:
    """The door-lock card game: verdict, winning first moves, main lines of play."""
    from dicelab.cli.games import run_door

    run_door(
        hand,
        second_hand=second_hand,
        target=target,
        bust=bust,
        csv_path=csv,
        plot_path=plot,
        as_json=as_json,
        allow_large=allow_large,
    )


@app.command("tictactoe")
def tictactoe_command(
    rows: int = typer.Option(3, "--rows", help="Rows of the board."),
    columns: int = typer.Option(3, "--columns", help="Columns of the board."),
    k: int = typer.Option(3, "--k", help="Marks in a row that win."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    allow_large: bool = typer.Option(
        False, "--allow-large", help="Solve even what this machine is not expected to finish."
    ),
) -> None:
    """Tic-tac-toe solved exactly: verdict, number of positions, best first moves."""
    from dicelab.cli.games import run_tictactoe

    run_tictactoe(rows, columns, k, as_json=as_json, allow_large=allow_large)
