"""``dicelab advise``, ``play``, ``review`` and ``simulate``: one player's game, move by move."""

from __future__ import annotations

import typer

from dicelab.cli.app import app
from dicelab.cli.game_options import SETTINGS, for_dice_games, text_option
from dicelab.cli.objective_options import with_objective_params


def _advise_game(kw: dict, extra: dict) -> None:
    """``dicelab advise GAME --at POSITION``: a dice game of the chance model."""
    from dicelab.cli.chance import run_game_advise

    run_game_advise(kw["rules"], extra["settings"], extra["at"], target=kw["target"],
                    top=kw["top"], as_json=kw["as_json"])  # fmt: skip


def _play_game(kw: dict, extra: dict) -> None:
    """``dicelab play GAME``: a dice game against the computer."""
    from pathlib import Path

    from dicelab.cli.chance_play import run_game_play
    from dicelab.errors import UserError

    seat = extra["seat"] or "1"
    if seat not in ("1", "2"):
        raise UserError(f"--seat: got {seat!r}, expected 1 or 2")
    for flag, given in (("--resume", kw["resume"]), ("--explain", kw["explain"])):
        if given:
            raise UserError(f"{flag}: for the Yahtzee family's games, not yet the dice games")
    path = Path(kw["record"]) if kw["record"] else None
    show = not kw["hide"]
    code = run_game_play(kw["rules"], extra["settings"], seed=kw["seed"], seat=int(seat),
                         dice=kw["dice"], record=path, show=show, top=kw["top"],
                         named=True)  # fmt: skip
    raise typer.Exit(code)


AT = text_option("--at", "A dice game's position, e.g. pig '40 55 12' (default: the start).")
SEAT = text_option("--seat", "A two-player dice game: your seat, 1 (default) or 2.")


@app.command("advise", context_settings={"allow_extra_args": True})
@with_objective_params
@for_dice_games({"settings": SETTINGS, "at": AT}, _advise_game)
def advise_command(
    ctx: typer.Context,
    rules: str = typer.Argument(
        ..., help="A built-in name or a path to a rules file; or a dice game (pig, ...)."
    ),
    dice: list[str] = typer.Option(
        [], "--dice", help="The dice showing: --dice 3 3 6 5 6 (or 3,3,6,5,6 or 33656)."
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

    if not dice:
        raise UserError("--dice: missing; give the dice showing, e.g. --dice 3 3 6 5 6")
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
@for_dice_games({"settings": SETTINGS, "seat": SEAT}, _play_game)
def play_command(
    rules: str = typer.Argument(
        ..., help="A built-in name or a path to a rules file; or a dice game (pig, ...)."
    ),
    dice: str = typer.Option("virtual", "--dice", help="virtual (drawn) or real (typed in)."),
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
    """Play along in the terminal with advice at every step; the game is saved and reviewed.

    A dice game (pig, shut-the-box, bearoff, farkle) is played against the computer."""
    from pathlib import Path

    from dicelab.cli.play import run_play

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
    from dicelab.cli.game_options import is_game_record

    if is_game_record(file):
        from dicelab.cli.chance_play import run_game_review

        run_game_review(file, as_json=as_json)
        return

    run_review(file, rules=rules, as_json=as_json, mistakes_only=mistakes, explain=explain)


def _simulate_game(kw: dict, extra: dict) -> None:
    """``dicelab simulate GAME``: a dice game's exact value against drawn games."""
    from dicelab.cli.chance import run_game_simulate
    from dicelab.errors import UserError

    if kw["plot"]:
        raise UserError("--plot: simulated dice games have no picture; see dicelab solve --plot")
    run_game_simulate(kw["rules"], extra["settings"], games=kw["games"], seed=kw["seed"],
                      as_json=kw["as_json"])  # fmt: skip


@app.command("simulate")
@for_dice_games({"settings": SETTINGS}, _simulate_game)
def simulate_command(
    rules: str = typer.Argument(
        ..., help="A built-in name or a path to a rules file; or a dice game (pig, ...)."
    ),
    games: int = typer.Option(
        None,
        "--games",
        help="Number of games (100,000; a dice game solved where its turns start, such as "
        "Farkle to 10,000: 2,000, each worked out turn by turn).",
        show_default=False,
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the dice: same seed, same games."),
    plot: str | None = typer.Option(None, "--plot", help="Write a histogram (.png, .svg, .pdf)."),
    bins: int = typer.Option(20, "--bins", help="Bins of the text histogram."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
) -> None:
    """Simulate games with the optimal strategy and compare with the exact expectation
    (a dice game too: pig, shut-the-box, bearoff, farkle)."""
    from pathlib import Path

    from dicelab.cli.advice import run_simulate

    run_simulate(
        rules,
        games=100_000 if games is None else games,
        seed=seed,
        plot=Path(plot) if plot else None,
        bins=bins,
        as_json=as_json,
    )
