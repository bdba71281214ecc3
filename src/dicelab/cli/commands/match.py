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
        help='One opponent\'s filled boxes (ones=2,full_house=25; "" for none yet); once '
        "per opponent, one to three.",
    ),
    method: str = typer.Option(
        "auto",
        "--method",
        help="auto: the exact two-player game with one opponent where it can be solved "
        "here, else the lookahead; lookahead: this turn played to finish first against "
        "players who play for points, the rest valued as played for points; table: this "
        "turn's table over the whole rest of the game (slow early in a large game); duel: "
        "the two-player game.",
    ),
    top: int = typer.Option(12, "--top", min=0, help="Show this many options (0: all)."),
    allow_large: bool = typer.Option(
        False, "--allow-large", help="Solve the tables even where they are large."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print every option as JSON."),
) -> None:
    """Rank my options by my chance to finish first at a table of two to four."""
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
        allow_large=allow_large,
        as_json=as_json,
    )


@match_app.command("play")
def match_play_command(
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
    opponents: int = typer.Option(
        1, "--opponents", help="Computer players, 1 to 3; they play to win."
    ),
    seat: int = typer.Option(1, "--seat", help="Your seat: 1 moves first."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the dice."),
    record: str | None = typer.Option(
        None, "--record", help="Game record file (default: dicelab-match-DATE-TIME.json)."
    ),
    method: str = typer.Option(
        "auto", "--method", help="auto, lookahead, table or duel: see dicelab match advise --help."
    ),
    hide: bool = typer.Option(False, "--hide-advice", help="Play without advice."),
    top: int = typer.Option(6, "--top", min=0, help="Options shown at each step (0: all)."),
    resume: str | None = typer.Option(None, "--resume", help="Go on with a saved game."),
) -> None:
    """Play at a table against computer players who play to win; reviewed at the end."""
    from pathlib import Path

    from dicelab.cli.match_play import run_match_play

    code = run_match_play(
        rules,
        opponents=opponents,
        seat=seat,
        seed=seed,
        record=Path(record) if record else None,
        show=not hide,
        method=method,
        top=top,
        resume=Path(resume) if resume else None,
    )
    raise typer.Exit(code)


@match_app.command("review")
def match_review_command(
    file: str = typer.Argument(..., help="A record written by dicelab match play."),
    seat: int | None = typer.Option(None, "--seat", help="Whose decisions (default: yours)."),
    as_json: bool = typer.Option(False, "--json", help="Print the review as JSON."),
) -> None:
    """Review a recorded game at a table: each decision priced in chance to finish first."""
    from dicelab.cli.match_play import run_match_review

    run_match_review(file, seat=seat, as_json=as_json)


@match_app.command("evaluate")
def match_evaluate_command(
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
    players: int = typer.Option(2, "--players", help="Players at the table, 2 to 4."),
    games: int | None = typer.Option(
        None,
        "--games",
        min=0,
        help="Simulated games (default 100,000); exact: games per seat played to count "
        "win-optimal choices (default 200).",
    ),
    simulate: bool = typer.Option(
        False, "--simulate", help="Simulate games even where the exact evaluation fits."
    ),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the simulated games' dice."),
    best_reply: bool = typer.Option(
        False, "--best-reply", help="Also the exact best reply to a points player (slower)."
    ),
    allow_large: bool = typer.Option(
        False, "--allow-large", help="Solve the two-player game even where it is large."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
) -> None:
    """How well the advice plays to win against players who play for points: exact
    for two players where the two-player game fits, else in simulated games."""
    from dicelab.cli.match import run_match_evaluate

    run_match_evaluate(
        rules, players=players, games=games, simulate=simulate, seed=seed,
        best_reply=best_reply, allow_large=allow_large, as_json=as_json,
    )  # fmt: skip
