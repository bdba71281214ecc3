"""``dicelab match``: playing to win at a table of two to four players."""

from __future__ import annotations

import typer

from dicelab.cli.app import app

match_app = typer.Typer(
    help="Playing to win at a table of two to four: advice by the chance to finish first.",
    no_args_is_help=True,
)
app.add_typer(match_app, name="match")


@match_app.command("advise", context_settings={"allow_extra_args": True})
def match_advise_command(
    ctx: typer.Context,
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
    dice: list[str] = typer.Option(..., "--dice", help="The dice showing: --dice 3 3 6 5 6."),
    rerolls: int | None = typer.Option(
        None, "--rerolls", help="Rerolls left (default: all of them, after the first throw)."
    ),
    mine: list[str] = typer.Option([], "--mine", help="My filled boxes: ones=3,sixes=18."),
    upper: int | None = typer.Option(None, "--my-upper", help="My upper total."),
    bonuses: int = typer.Option(0, "--my-bonuses", help="My extra all-same bonuses."),
    theirs: list[str] = typer.Option(
        [],
        "--theirs",
        help="One opponent's filled boxes (ones=2,full_house=25; \"\" for none yet); once "
        "per opponent, one to three.",
    ),
    method: str = typer.Option(
        "auto",
        "--method",
        help="auto: the exact two-player game with one opponent where it can be solved "
        "here, else the table; table: this turn's table against players who play for "
        "points; duel: the two-player game.",
    ),
    top: int = typer.Option(12, "--top", min=0, help="Show this many options (0: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print every option as JSON."),
) -> None:
    """Rank my options by my chance to finish first, against opponents who play for points."""
    from dicelab.cli.match import run_match_advise

    run_match_advise(
        rules,
        [*dice, *ctx.args],
        rerolls=rerolls,
        mine=mine,
        upper=upper,
        bonuses=bonuses,
        theirs=theirs,
        method=method,
        top=top,
        as_json=as_json,
    )
