"""``dicelab history``: every finished game, kept in a local database."""

from __future__ import annotations

import typer

from dicelab.cli.app import app


@app.command("history")
def history_command(
    rules: str | None = typer.Option(None, "--rules", help="Only the games of these rules."),
    last: int = typer.Option(20, "--last", min=0, help="Games listed, the latest (0: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print the games as JSON."),
    plot: str | None = typer.Option(
        None, "--plot", help="Draw the trend of score and loss per decision (.png, .svg, .pdf)."
    ),
    export: str | None = typer.Option(
        None, "--export", help="Write every kept game record to this JSON file."
    ),
    import_file: str | None = typer.Option(
        None, "--import", help="Keep the game records of this file (dicelab play's format)."
    ),
) -> None:
    """Your finished games: score, loss per decision and worst mistakes, and the trend.

    Games played with `dicelab play`, `duel play`, `train` and the page are kept in a
    local database (DICELAB_DATA_DIR moves it)."""
    from dicelab.cli.history import run_history

    run_history(rules=rules, last=last, as_json=as_json, plot=plot, export=export,
                import_file=import_file)  # fmt: skip
