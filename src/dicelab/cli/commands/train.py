"""``dicelab train``: decisions to answer, graded at once."""

from __future__ import annotations

import typer

from dicelab.cli.app import app


@app.command("train")
def train_command(
    rules: str = typer.Argument("yahtzee", help="A built-in name or a path to a rules file."),
    questions: int = typer.Option(10, "--questions", "-n", help="Decisions in the session."),
    daily: bool = typer.Option(False, "--daily", help="Today's set: the same for everyone."),
    day: str | None = typer.Option(None, "--date", help="The daily set of a date (2026-11-26)."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the positions drawn."),
    as_json: bool = typer.Option(
        False, "--json", help="A JSON line per question and per grading; answers one per line."
    ),
    why: bool = typer.Option(True, "--why/--no-why", help="Say why a costly answer costs."),
) -> None:
    """Train on decisions drawn from optimal play, weighted to the close calls and to
    the kinds you get wrong; each answer graded at once with its cost and why."""
    from dicelab.cli.train import run_train

    code = run_train(rules, questions=questions, daily=daily, day=day, seed=seed,
                     as_json=as_json, why=why)  # fmt: skip
    raise typer.Exit(code)
