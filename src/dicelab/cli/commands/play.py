"""``dicelab advise``, ``play``, ``review`` and ``simulate``: one player's game, move by move."""

from __future__ import annotations

import typer

from dicelab.cli.app import SETTINGS_OPTION, app
from dicelab.cli.objective_options import with_objective_params


@app.command("advise", context_settings={"allow_extra_args": True})
@with_objective_params
def advise_command(
    ctx: typer.Context,
    rules: str = typer.Argument(
        ..., help="A built-in name or a path to a rules file; or a dice game (pig, ...)."
    ),
    dice: list[str] = typer.Option(
        [], "--dice", help="The dice showing: --dice 3 3 6 5 6 (or 3,3,6,5,6 or 33656)."
    ),
    settings: list[str] = SETTINGS_OPTION,
    at: str | None = typer.Option(
        None, "--at", help="A dice game's position, e.g. pig '40 55 12' (default: the start)."
    ),
    rerolls: int | None = typer.Option(
        None, "--rerolls", help="Rerolls left (default: all of them, after the first throw)."
    ),
    filled: list[str] = typer.Option(
        [], "--filled", help="Filled boxes with their points: ones=3,sixes=18 (box=? unknown)."
    ),
    upper: int | None = typer.Option(
        None, "--upper", help="Upper total so far (needed when upper points are unknown)."
    ),
    bonuses: int = typer.Option(0, "--bonuses", help="Extra all-same bonuses already earned."),
    top: int = typer.Option(12, "--top", min=0, help="Show this many options (0: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print every option as JSON."),
    target: int | None = typer.Option(
        None, "--target", help="Play to reach this final score: rank by P(score >= S)."
    ),
    explain: bool = typer.Option(
        False, "--explain", help="Say why: each box's expected points, the bonuses' chances."
    ),
) -> None:
    """Rank every option of a position by expected final score, or by another aim.

    With --target S, by the chance of reaching S; with --theta T, by what
    each option is worth as a sure score to a player of that risk attitude."""
    from dicelab.cli.advice import run_advise
    from dicelab.cli.objective_options import given_params
    from dicelab.errors import UserError
    from dicelab.games.chance.families import is_game

    if is_game(rules):
        from dicelab.cli.chance import run_game_advise

        run_game_advise(rules, settings, at, target=target, top=top, as_json=as_json)
        return
    if not dice:
        raise UserError("--dice: missing; give the dice showing, e.g. --dice 3 3 6 5 6")
    if settings or at:
        raise UserError("--set and --at go with a dice game (pig, shut-the-box, bearoff)")
    run_advise(
        rules,
        [*dice, *ctx.args],
        rerolls=rerolls,
        filled=filled,
        upper=upper,
        bonuses=bonuses,
        top=top,
        as_json=as_json,
        target=target,
        explain=explain,
        params=given_params(),
    )


@app.command("play")
def play_command(
    rules: str = typer.Argument(
        ..., help="A built-in name or a path to a rules file; or a dice game (pig, ...)."
    ),
    dice: str = typer.Option("virtual", "--dice", help="virtual (drawn) or real (typed in)."),
    settings: list[str] = SETTINGS_OPTION,
    seat: int = typer.Option(1, "--seat", help="A two-player dice game: your seat, 1 or 2."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the virtual dice."),
    record: str | None = typer.Option(
        None, "--record", help="Game record file (default: dicelab-game-DATE-TIME.json)."
    ),
    resume: str | None = typer.Option(None, "--resume", help="Continue a saved, unfinished game."),
    hide: bool = typer.Option(
        False, "--hide-advice", help="Play without advice; review at the end."
    ),
    top: int = typer.Option(8, "--top", min=0, help="Options shown at each step (0: all)."),
    explain: bool = typer.Option(
        False, "--explain", help="Say why each choice that costs points costs them."
    ),
) -> None:
    """Play along in the terminal with advice at every step; the game is saved and reviewed."""
    from pathlib import Path

    from dicelab.cli.play import run_play
    from dicelab.games.chance.families import is_game

    if is_game(rules):
        from dicelab.cli.chance_play import run_game_play

        path = Path(record) if record else None
        code = run_game_play(rules, settings, seed=seed, seat=seat, dice=dice, record=path,
                             show=not hide, top=top)  # fmt: skip
        raise typer.Exit(code)
    code = run_play(
        rules,
        dice=dice,
        seed=seed,
        record=Path(record) if record else None,
        resume=Path(resume) if resume else None,
        show=not hide,
        top=top,
        explain=explain,
    )
    raise typer.Exit(code)


@app.command("review")
def review_command(
    file: str = typer.Argument(..., help="A game record written by dicelab play."),
    rules: str | None = typer.Option(
        None, "--rules", help="Rules to review with (default: those named in the record)."
    ),
    mistakes: bool = typer.Option(False, "--mistakes", help="List only the mistakes."),
    as_json: bool = typer.Option(False, "--json", help="Print the review as JSON."),
    explain: bool = typer.Option(
        False, "--explain", help="Say why each mistake costs what it does."
    ),
) -> None:
    """Review a recorded game: each decision, the best option, the cost of each mistake."""
    from dicelab.cli.advice import run_review

    run_review(file, rules=rules, as_json=as_json, mistakes_only=mistakes, explain=explain)


@app.command("simulate")
def simulate_command(
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
    games: int = typer.Option(100_000, "--games", help="Number of games."),
    seed: int = typer.Option(0, "--seed", help="Seed of the dice: same seed, same games."),
    plot: str | None = typer.Option(None, "--plot", help="Write a histogram (.png, .svg, .pdf)."),
    bins: int = typer.Option(20, "--bins", help="Bins of the text histogram."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
) -> None:
    """Simulate games with the optimal strategy and compare with the exact expectation."""
    from pathlib import Path

    from dicelab.cli.advice import run_simulate

    run_simulate(
        rules,
        games=games,
        seed=seed,
        plot=Path(plot) if plot else None,
        bins=bins,
        as_json=as_json,
    )
