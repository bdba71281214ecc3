"""The ``dicelab`` command line.

Each capability registers its commands on :data:`app`; :func:`main` is the entry
point and turns :class:`~dicelab.errors.UserError` into one line and exit code 2.
"""

from __future__ import annotations

import sys

import typer

from dicelab.errors import UserError

app = typer.Typer(
    help="Exact solvers, advice and analysis for dice games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def fail(message: str) -> None:
    """Print one error line and exit with code 2."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


@app.callback()
def _root() -> None:
    """Exact solvers, advice and analysis for dice games."""


@app.command()
def version() -> None:
    """Print the dicelab version."""
    from dicelab import __version__

    typer.echo(__version__)


@app.command()
def race(
    lists: list[str] = typer.Argument(
        ..., help="Two lists such as 5,6,7,8,9 5,6,7,7,8, or the word best."
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

    from dicelab.games.race_report import run_race

    run_race(
        lists, dice=dice, faces=faces, picks=picks, with_simulation=simulate, seed=seed,
        min_games=min_games, max_games=max_games, decisive_share=share, start=start,
        as_json=as_json, plot=Path(plot) if plot else None,
    )


def main() -> None:
    """Run the command line; user mistakes end in one line and exit code 2."""
    try:
        app()
    except UserError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)


if __name__ == "__main__":  # pragma: no cover
    main()
